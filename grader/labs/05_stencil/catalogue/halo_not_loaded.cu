// Catalogue, lab 05: the halos are not loaded.
// Only the kTile inputs of the block's own outputs are loaded, into tile[radius .. radius + kTile); the radius
// elements on each side stay as whatever shared memory held. Outputs near a tile's edges sum garbage. On a GPU this
// can look right by luck (shared memory often still holds the previous block's tile, which has the same layout).
// expect: uninitialized-shared-read at line 22
#include "lab05_stencil.h"

constexpr int kThreads = 256;
constexpr int kOutputsPerThread = 4;
constexpr int kTile = kThreads * kOutputsPerThread;

__global__ void stencil_kernel(const float* __restrict__ in, float* __restrict__ out, int n, int radius) {
  extern __shared__ float tile[];
  const int first = blockIdx.x * kTile;
  for (int j = threadIdx.x; j < kTile; j += blockDim.x) {
    const int g = first + j;
    tile[radius + j] = g < n ? in[g] : 0.0f;
  }
  __syncthreads();
  float sum[kOutputsPerThread] = {};
  for (int o = 0; o <= 2 * radius; ++o) {
    for (int k = 0; k < kOutputsPerThread; ++k) sum[k] += tile[threadIdx.x + k * kThreads + o];  // <-- bug
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
