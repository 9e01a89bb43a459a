// Idiom (a bug): the tile and its halos loaded as float4 from in + first - radius whenever the radius is even. That
// address is a multiple of 16 bytes only when the radius is a multiple of 4: with a radius of 2 mod 4 every float4
// load is misaligned, which faults on a GPU. Check mode reports the first such load.
#include "lab05_stencil.h"

constexpr int kThreads = 256, kTile = 1024;

__global__ void stencil_kernel(const float* __restrict__ in, float* __restrict__ out, int n, int radius) {
  extern __shared__ float tile[];  // tile[j] = in[first - radius + j], j < kTile + 2 * radius
  const int first = blockIdx.x * kTile, span = kTile + 2 * radius;
  if (radius % 2 == 0 && first - radius >= 0 && first + kTile + radius <= n) {
    const float4* src = reinterpret_cast<const float4*>(in + first - radius);
    for (int j = threadIdx.x; j < span / 4; j += blockDim.x) {
      const float4 v = src[j];
      tile[4 * j] = v.x, tile[4 * j + 1] = v.y, tile[4 * j + 2] = v.z, tile[4 * j + 3] = v.w;
    }
  } else {
    for (int j = threadIdx.x; j < span; j += blockDim.x) {
      const int g = first - radius + j;
      tile[j] = (g >= 0 && g < n) ? in[g] : 0.0f;
    }
  }
  __syncthreads();
  for (int m = threadIdx.x; m < kTile && first + m < n; m += blockDim.x) {
    float sum = 0.0f;
    for (int o = 0; o <= 2 * radius; ++o) sum += tile[m + o];
    out[first + m] = sum;
  }
}

void stencil(const float* in, float* out, int n, int radius, cudaStream_t stream) {
  const size_t bytes = (kTile + 2 * static_cast<size_t>(radius)) * sizeof(float);
  stencil_kernel<<<(n + kTile - 1) / kTile, kThreads, bytes, stream>>>(in, out, n, radius);
}
