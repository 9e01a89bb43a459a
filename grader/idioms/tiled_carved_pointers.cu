// Idiom: both tiles in one extern __shared__ buffer sized at launch, reached through local pointers
// (float* As = smem; float* Bs = smem + Tile * Tile;), indexed as flat arrays.
#include "lab03_tiled_gemm.h"

template <int Tile>
__global__ void tiled_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k) {
  extern __shared__ float smem[];
  float* As = smem;
  float* Bs = smem + Tile * Tile;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * Tile + ty, col = blockIdx.x * Tile + tx;
  float sum = 0.0f;
  for (int t = 0; t < k; t += Tile) {
    As[ty * Tile + tx] = (row < m && t + tx < k) ? a[row * k + t + tx] : 0.0f;
    Bs[ty * Tile + tx] = (t + ty < k && col < n) ? b[(t + ty) * n + col] : 0.0f;
    __syncthreads();
    for (int p = 0; p < Tile; ++p) sum += As[ty * Tile + p] * Bs[p * Tile + tx];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = sum;
}

template <int Tile>
void tiled_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const size_t bytes = 2 * Tile * Tile * sizeof(float);
  const dim3 block(Tile, Tile), grid((n + Tile - 1) / Tile, (m + Tile - 1) / Tile);
  tiled_gemm_kernel<Tile><<<grid, block, bytes, stream>>>(a, b, c, m, n, k);
}

template void tiled_gemm<16>(const float*, const float*, float*, int, int, int, cudaStream_t);
template void tiled_gemm<32>(const float*, const float*, float*, int, int, int, cudaStream_t);
