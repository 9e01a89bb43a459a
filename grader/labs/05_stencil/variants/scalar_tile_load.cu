// Variant, lab 05: the tile loaded with one scalar load per element (no float4), four strided outputs per thread.
// A likely student answer; correct, and it must pass every test, the perf test included.
#include "lab05_stencil.h"

// ---- configuration --------------------------------------------------------------------------------------------------

constexpr int kThreads = 256;                        // threads per block
constexpr int kOutputsPerThread = 4;                 // outputs each thread computes
constexpr int kTile = kThreads * kOutputsPerThread;  // outputs per block: 1024

// ---- kernels --------------------------------------------------------------------------------------------------------

// Block b computes the kTile outputs out[first .. first + kTile), first = b * kTile. They need the inputs
// in[first - radius .. first + kTile + radius): the tile and a halo of `radius` on each side. tile[j] holds
// in[first - radius + j], so output first + m sums tile[m .. m + 2 * radius].
// Thread t computes outputs m = t, t + kThreads, t + 2 * kThreads, t + 3 * kThreads of the tile: at every step the
// 32 threads of a warp read 32 consecutive floats of tile[] (32 different banks: no conflict) and store 32
// consecutive outputs (coalesced).
__global__ void stencil_kernel(const float* __restrict__ in, float* __restrict__ out, int n, int radius) {
  extern __shared__ float tile[];        // kTile + 2 * radius floats: the size is given at launch
  const int first = blockIdx.x * kTile;  // this block's first output

  const int width = kTile + 2 * radius;  // tile and both halos
  for (int j = threadIdx.x; j < width; j += blockDim.x) {
    const int g = first - radius + j;            // the input that tile[j] holds
    tile[j] = (g >= 0 && g < n) ? in[g] : 0.0f;  // the boundary policy: outside [0, n) counts as 0
  }
  __syncthreads();

  float sum[kOutputsPerThread] = {};  // independent sums: four loads in flight per step
  for (int o = 0; o <= 2 * radius; ++o) {
#pragma unroll
    for (int k = 0; k < kOutputsPerThread; ++k) sum[k] += tile[threadIdx.x + k * kThreads + o];
  }
#pragma unroll
  for (int k = 0; k < kOutputsPerThread; ++k) {
    const int i = first + threadIdx.x + k * kThreads;
    if (i < n) out[i] = sum[k];  // the last block may run past n
  }
}

// ---- launcher -------------------------------------------------------------------------------------------------------

void stencil(const float* in, float* out, int n, int radius, cudaStream_t stream) {
  const int blocks = (n + kTile - 1) / kTile;
  const size_t shared_bytes = (kTile + 2 * static_cast<size_t>(radius)) * sizeof(float);
  stencil_kernel<<<blocks, kThreads, shared_bytes, stream>>>(in, out, n, radius);
}
