// Idiom (a bug): one __syncthreads() per tile, after the loads. A fast thread starts the next tile's loads while a
// slower one still reads the current tile: a race that often goes unseen on a GPU and is reported by check mode.
#include "lab03_tiled_gemm.h"

template <int Tile>
__global__ void tiled_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k) {
  __shared__ float As[Tile][Tile];
  __shared__ float Bs[Tile][Tile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * Tile + ty, col = blockIdx.x * Tile + tx;
  float sum = 0.0f;
  for (int t = 0; t < k; t += Tile) {
    As[ty][tx] = (row < m && t + tx < k) ? a[row * k + t + tx] : 0.0f;
    Bs[ty][tx] = (t + ty < k && col < n) ? b[(t + ty) * n + col] : 0.0f;
    __syncthreads();
    for (int p = 0; p < Tile; ++p) sum += As[ty][p] * Bs[p][tx];
  }
  if (row < m && col < n) c[row * n + col] = sum;
}

template <int Tile>
void tiled_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const dim3 block(Tile, Tile), grid((n + Tile - 1) / Tile, (m + Tile - 1) / Tile);
  tiled_gemm_kernel<Tile><<<grid, block, 0, stream>>>(a, b, c, m, n, k);
}

template void tiled_gemm<16>(const float*, const float*, float*, int, int, int, cudaStream_t);
template void tiled_gemm<32>(const float*, const float*, float*, int, int, int, cudaStream_t);
