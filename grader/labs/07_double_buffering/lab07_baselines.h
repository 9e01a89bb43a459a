// Lab 07 — the baseline the perf test times double_buffered_gemm() against
// (grader/labs/07_double_buffering/gemm_tiled.cu).
#pragma once

#include <cuda_runtime.h>

// The lab 03 reference solution's kernel, unchanged: 32 x 32 tiles of A and B in shared memory, one thread per
// element of C.
void reference_tiled_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream);
