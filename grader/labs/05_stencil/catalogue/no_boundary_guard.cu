// Catalogue, lab 05: the halo load has no boundary guard.
// The first block's left halo is in[-radius .. -1] and the last block's right halo runs past in[n - 1]: read without
// the guard they are out of bounds of the input (on a GPU: garbage, or an illegal-address fault), instead of the
// documented boundary policy (inputs outside [0, n) count as 0).
// expect: out-of-bounds at line 18
#include "lab05_stencil.h"

constexpr int kThreads = 256;
constexpr int kOutputsPerThread = 4;
constexpr int kTile = kThreads * kOutputsPerThread;

__global__ void stencil_kernel(const float* __restrict__ in, float* __restrict__ out, int n, int radius) {
  extern __shared__ float tile[];
  const int first = blockIdx.x * kTile;
  const int width = kTile + 2 * radius;
  for (int j = threadIdx.x; j < width; j += blockDim.x) {
    const int g = first - radius + j;
    tile[j] = in[g];  // <-- bug
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

void stencil(const float* in, float* out, int n, int radius, cudaStream_t stream) {
  const int blocks = (n + kTile - 1) / kTile;
  const size_t shared_bytes = (kTile + 2 * static_cast<size_t>(radius)) * sizeof(float);
  stencil_kernel<<<blocks, kThreads, shared_bytes, stream>>>(in, out, n, radius);
}
