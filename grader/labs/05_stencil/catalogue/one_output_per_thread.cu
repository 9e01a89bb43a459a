// Catalogue, lab 05: correct, but one output per thread.
// The classic shared-memory stencil: each thread computes one output, so a tile of 256 outputs is loaded with its
// 2 * radius halo and every input is read from shared memory 2 * radius + 1 times. At small radii the L1 cache
// already gives the global-memory stencil this reuse, and this version is slower than it (0.865x the global stencil
// and 0.43 of copy at the graded radius 1 on an H200): it must fail the perf test, though it passes every
// correctness test.
// expect: correct
// expect-gpu: perf-fail
#include "lab05_stencil.h"

// [docs:one_output_per_thread_kernel]
constexpr int kThreads = 256;
constexpr int kOutputsPerThread = 1;
constexpr int kTile = kThreads * kOutputsPerThread;

__global__ void stencil_kernel(const float* __restrict__ in, float* __restrict__ out, int n, int radius) {
  extern __shared__ float tile[];
  const int first = blockIdx.x * kTile;
  const int width = kTile + 2 * radius;
  for (int j = threadIdx.x; j < width; j += blockDim.x) {
    const int g = first - radius + j;
    tile[j] = (g >= 0 && g < n) ? in[g] : 0.0f;
  }
  __syncthreads();
  float sum[kOutputsPerThread] = {};
  for (int o = 0; o <= 2 * radius; ++o) {
    for (int k = 0; k < kOutputsPerThread; ++k) sum[k] += tile[threadIdx.x + k * kThreads + o];
  }
  for (int k = 0; k < kOutputsPerThread; ++k) {
    const int i = first + threadIdx.x + k * kThreads;
    if (i < n) out[i] = sum[k];
  }
}
// [/docs:one_output_per_thread_kernel]

void stencil(const float* in, float* out, int n, int radius, cudaStream_t stream) {
  const int blocks = (n + kTile - 1) / kTile;
  const size_t shared_bytes = (kTile + 2 * static_cast<size_t>(radius)) * sizeof(float);
  stencil_kernel<<<blocks, kThreads, shared_bytes, stream>>>(in, out, n, radius);
}
