// Host entry points of the asynchronous-copy self-test kernels (kernels_async.cu).
#pragma once

#include <cuda_runtime.h>

// out[i] = sum over tiles t of in[t * 64 + (i + 1) % 64], one block of 64 threads, double-buffered with
// __pipeline_memcpy_async. bug 0: correct; 1: no __pipeline_wait_prior; 2: the next copy starts before the barrier;
// 3: reads the buffer being filled.
cudaError_t run_pipelined_sum(const float* in, float* out, int tiles, int bug);
// 8 threads, each one copy of `size` bytes (zfill of them zeros) from in + offset + 4 * i into shared memory, then
// out[4 * i + j] = what arrived.
cudaError_t run_wide_copy(const float* in, float* out, int offset, int size, int zfill);
// 16 threads each copy in[4i..4i+3] into shared memory with one 16-byte copy, then out[4i..4i+3] = the neighbour's 4
// floats, read through a const float4*. bug 0: correct; 1: no __pipeline_wait_prior; 2: odd threads copy nothing.
cudaError_t run_vector_read(const float* in, float* out, int bug);
