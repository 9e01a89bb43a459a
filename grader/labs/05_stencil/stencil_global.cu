// Baseline for lab 05: the stencil with no shared memory. One thread per output reads its 2 * radius + 1 inputs
// from global memory; neighbouring threads read mostly the same inputs, and the L1 cache serves those repeats.
// The perf test times the lab's stencil() against this, in the same process.
#include "lab05_baselines.h"

// [docs:stencil_global_kernel]
__global__ void stencil_global_kernel(const float* __restrict__ in, float* __restrict__ out, int n, int radius) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int lo = max(i - radius, 0);  // inputs outside [0, n) count as 0: skip them
  const int hi = min(i + radius, n - 1);
  float sum = 0.0f;
  for (int j = lo; j <= hi; ++j) sum += in[j];
  out[i] = sum;
}
// [/docs:stencil_global_kernel]

void stencil_global(const float* in, float* out, int n, int radius, cudaStream_t stream) {
  constexpr int threads = 256;
  const int blocks = (n + threads - 1) / threads;
  stencil_global_kernel<<<blocks, threads, 0, stream>>>(in, out, n, radius);
}
