// Self-test kernels of the CPU backend: asynchronous copies into shared memory (<cuda_pipeline.h>), correct and
// wrong. Markers (@...) name the lines the tests expect in diagnostics.
#include "kernels_async.h"

#include <cuda_pipeline.h>

namespace {

constexpr int kThreads = 64;

// Sums `tiles` tiles of 64 floats with two buffers: while the block adds up tile t, the copies of tile t + 1 are in
// flight. Thread i adds element (i + 1) % 64 of each tile (another thread's copy), so every read needs the wait and
// the barrier. `bug` 0: correct; 1: no wait (reads data whose copy may still be in flight); 2: the next tile's copy
// starts before the barrier (overwrites the buffer other threads still read); 3: reads the buffer being filled.
__global__ void pipelined_sum(const float* in, float* out, int tiles, int bug) {
  __shared__ float buf[2][kThreads];
  const int i = threadIdx.x;
  float sum = 0.0f;
  __pipeline_memcpy_async(&buf[0][i], &in[i], sizeof(float));  // @async-first
  __pipeline_commit();
  for (int t = 0; t < tiles; ++t) {
    if (bug == 2 && t + 1 < tiles) {
      __pipeline_memcpy_async(&buf[(t + 1) % 2][i], &in[(t + 1) * kThreads + i], sizeof(float));  // @async-early
    }
    if (bug != 1) __pipeline_wait_prior(0);
    __syncthreads();
    if (bug != 2 && t + 1 < tiles) {
      __pipeline_memcpy_async(&buf[(t + 1) % 2][i], &in[(t + 1) * kThreads + i], sizeof(float));  // @async-next
    }
    __pipeline_commit();
    const int stage = bug == 3 ? (t + 1) % 2 : t % 2;
    sum += buf[stage][(i + 1) % kThreads];  // @async-read
  }
  out[blockIdx.x * kThreads + i] = sum;
}

// One 16-byte copy per thread from in + offset floats into the extern __shared__ memory, then each thread stores
// what it copied: a misaligned source (offset not a multiple of 4) fails on a GPU.
__global__ void wide_copy(const float* in, float* out, int offset, int size, int zfill) {
  extern __shared__ float tile[];
  const int i = threadIdx.x;
  __pipeline_memcpy_async(&tile[4 * i], &in[offset + 4 * i], size, zfill);  // @async-wide
  __pipeline_commit();
  __pipeline_wait_prior(0);
  for (int j = 0; j < 4; ++j) out[4 * i + j] = tile[4 * i + j];
}

// Each of 16 threads copies 4 floats (16 bytes) into the tile, then reads its neighbour's 4 through a pointer to
// const float4, the way register-blocked GEMMs read their tiles. `bug` 0: correct; 1: no wait (the read meets a
// copy still pending); 2: odd threads copy nothing (the read meets a word nobody wrote).
__global__ void vector_read(const float* in, float* out, int bug) {
  __shared__ __align__(16) float tile[64];
  const int i = threadIdx.x;
  if (bug != 2 || i % 2 == 0) __pipeline_memcpy_async(&tile[4 * i], &in[4 * i], 16);
  __pipeline_commit();
  if (bug != 1) __pipeline_wait_prior(0);
  __syncthreads();
  const float4* v = reinterpret_cast<const float4*>(tile);
  const float4 x = v[(i + 1) % 16];  // @async-vec
  out[4 * i] = x.x;
  out[4 * i + 1] = x.y;
  out[4 * i + 2] = x.z;
  out[4 * i + 3] = x.w;
  __pipeline_wait_prior(0);
}

}  // namespace

cudaError_t run_vector_read(const float* in, float* out, int bug) {
  vector_read<<<1, 16>>>(in, out, bug);
  return cudaDeviceSynchronize();
}

cudaError_t run_pipelined_sum(const float* in, float* out, int tiles, int bug) {
  pipelined_sum<<<1, kThreads>>>(in, out, tiles, bug);
  return cudaDeviceSynchronize();
}

cudaError_t run_wide_copy(const float* in, float* out, int offset, int size, int zfill) {
  wide_copy<<<1, 8, 8 * 4 * sizeof(float)>>>(in, out, offset, size, zfill);
  return cudaDeviceSynchronize();
}
