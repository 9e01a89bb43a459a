// Host entry points of the asynchronous-copy self-test kernels (kernels_async.cu).
#pragma once

#include <cuda_runtime.h>

#include <vector>

// out[i] = sum over tiles t of in[t * 64 + (i + 1) % 64], one block of 64 threads, double-buffered with
// __pipeline_memcpy_async. bug 0: correct; 1: no __pipeline_wait_prior; 2: the next copy starts before the barrier;
// 3: reads the buffer being filled.
cudaError_t run_pipelined_sum(const float* in, float* out, int tiles, int bug);
// What the correct pipelined sums (this one and its cooperative-groups and cuda::pipeline forms) store, for `in` of
// 64 * tiles floats.
inline std::vector<float> expected_pipelined_sums(const std::vector<float>& in, int tiles) {
  std::vector<float> out(64, 0.0f);
  for (int i = 0; i < 64; ++i)
    for (int t = 0; t < tiles; ++t) out[i] += in[t * 64 + (i + 1) % 64];
  return out;
}
// 8 threads, each one copy of `size` bytes (zfill of them zeros) from in + offset + 4 * i into shared memory, then
// out[4 * i + j] = what arrived.
cudaError_t run_wide_copy(const float* in, float* out, int offset, int size, int zfill);
// 16 threads each copy in[4i..4i+3] into shared memory with one 16-byte copy, then out[4i..4i+3] = the neighbour's 4
// floats, read through a const float4*. bug 0: correct; 1: no __pipeline_wait_prior; 2: odd threads copy nothing.
cudaError_t run_vector_read(const float* in, float* out, int bug);
// pipelined_sum with cooperative_groups::memcpy_async and cg::wait_prior<1> / cg::wait. bug 0: correct; 1: a
// cta.sync() in place of each wait.
cudaError_t run_group_pipelined_sum(const float* in, float* out, int tiles, int bug);
// One warp copies `bytes` bytes of in + offset into a zeroed 320-byte shared tile at byte `at` with
// cooperative_groups::memcpy_async, waits, and stores the whole tile to out[0..319].
cudaError_t run_group_copy_bytes(const unsigned char* in, unsigned char* out, int offset, int at, int bytes);
// pipelined_sum with each thread's own cuda::pipeline. bug 0: consumer_wait(); 1: no wait;
// 2: cuda::pipeline_consumer_wait_prior<1> (<0> for the last tile).
cudaError_t run_thread_pipeline_sum(const float* in, float* out, int tiles, int bug);
// The sum with a cuda::barrier (2 blocks, both store out[0..63]). form 0: each thread's copy, arrive_and_wait();
// 1: the block's copy (group form), arrive() then wait(token); 2: a __syncthreads() instead of the arrival (bug);
// 3: init(&bar, half the block) (bug); 4: no init (bug); 5: a read of the thread's own copy between arrive() and
// wait() (bug); 6: no __syncthreads() after init() (bug).
cudaError_t run_barrier_sum(const float* in, float* out, int tiles, int form);
// The sum by 64 producer and 64 consumer threads with cuda::barriers `ready` and `filled` per buffer (2 blocks of 128,
// out[0..63]). form 0: stores; 1: cuda::memcpy_async(..., filled[b]) and arrive(32); 2: the consumers do not wait
// for filled[b] (bug); 3: the consumers never arrive at ready[] first (bug: a GPU hangs).
cudaError_t run_producer_consumer_sum(const float* in, float* out, int tiles, int form);
// The sum with a cuda::barrier per warp (2 blocks, out[0..63]). form 0: each warp's group copy, its lane 0 arrives
// 32 times and waits; 1: lane 0 copies the warp's half, lanes 1..31 arrive and wait; 2: lane 0 reads its own copy
// between arrive(32) and wait() (bug); 3: init(&bar, 33) (bug: a GPU hangs, copies pending); 4: arrive(0) (bug);
// 5: wait_parity(); 6: a loop of try_wait_parity_for(); 7: lane 0 arrives, no thread waits (bug).
cudaError_t run_warp_barrier_sum(const float* in, float* out, int tiles, int form);
// The sum with a pipeline of the whole block (2 blocks). form 0: each thread's copy; 1: the block's copy (group
// form); 2: a __syncthreads() instead of consumer_wait() (bug); 3: make_pipeline of one warp (unsupported here); 4: no
// consumer_release() (bug: a GPU hangs).
cudaError_t run_block_pipeline_sum(const float* in, float* out, int tiles, int form);
