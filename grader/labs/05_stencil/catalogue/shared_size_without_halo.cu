// Catalogue, lab 05: the dynamic shared memory asked for at launch leaves out the halos.
// The launch gives each block kTile floats of tile[], but the kernel stores kTile + 2 * radius: the last
// 2 * radius stores fall past the end of the block's shared memory.
// expect: out-of-bounds at line 17
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
    tile[j] = (g >= 0 && g < n) ? in[g] : 0.0f;  // <-- bug
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
  const size_t shared_bytes = kTile * sizeof(float);
  stencil_kernel<<<blocks, kThreads, shared_bytes, stream>>>(in, out, n, radius);
}
