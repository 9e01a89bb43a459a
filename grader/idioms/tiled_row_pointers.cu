// Idiom: the vendor-sample walk along k with local pointers to the block's rows of A and columns of B, advanced by a
// tile each step (a_row += Tile, b_col += Tile * n), with guards for sizes that are not multiples of the tile.
#include "lab03_tiled_gemm.h"

template <int Tile>
__global__ void tiled_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k) {
  __shared__ float As[Tile][Tile];
  __shared__ float Bs[Tile][Tile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * Tile + ty, col = blockIdx.x * Tile + tx;
  const float* a_row = a + static_cast<size_t>(row < m ? row : 0) * k;  // row ty of the block's rows of A
  const float* b_col = b + (col < n ? col : 0);                         // column tx of the block's columns of B
  float sum = 0.0f;
  for (int t = 0; t < k; t += Tile, a_row += Tile, b_col += static_cast<size_t>(Tile) * n) {
    As[ty][tx] = (row < m && t + tx < k) ? a_row[tx] : 0.0f;
    Bs[ty][tx] = (col < n && t + ty < k) ? b_col[static_cast<size_t>(ty) * n] : 0.0f;
    __syncthreads();
    for (int p = 0; p < Tile; ++p) sum += As[ty][p] * Bs[p][tx];
    __syncthreads();
  }
  if (row < m && col < n) c[static_cast<size_t>(row) * n + col] = sum;
}

template <int Tile>
void tiled_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  tiled_gemm_kernel<Tile>
      <<<dim3((n + Tile - 1) / Tile, (m + Tile - 1) / Tile), dim3(Tile, Tile), 0, stream>>>(a, b, c, m, n, k);
}

template void tiled_gemm<16>(const float*, const float*, float*, int, int, int, cudaStream_t);
template void tiled_gemm<32>(const float*, const float*, float*, int, int, int, cudaStream_t);
