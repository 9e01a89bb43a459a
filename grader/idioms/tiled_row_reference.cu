// Idiom: array references to the rows of the tiles (`float (&a_row)[Tile] = As[ty];`), through which the tile is
// filled and the inner product read; guards for sizes that are not multiples of the tile.
#include "lab03_tiled_gemm.h"

template <int Tile>
__global__ void tiled_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k) {
  __shared__ float As[Tile][Tile];
  __shared__ float Bs[Tile][Tile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * Tile + ty, col = blockIdx.x * Tile + tx;
  float(&a_row)[Tile] = As[ty];  // this thread's row of As
  float(&b_row)[Tile] = Bs[ty];  // and of Bs
  float sum = 0.0f;
  for (int t = 0; t < k; t += Tile) {
    a_row[tx] = (row < m && t + tx < k) ? a[static_cast<size_t>(row) * k + t + tx] : 0.0f;
    b_row[tx] = (col < n && t + ty < k) ? b[static_cast<size_t>(t + ty) * n + col] : 0.0f;
    __syncthreads();
    const float(&mine)[Tile] = As[ty];
    for (int p = 0; p < Tile; ++p) sum += mine[p] * Bs[p][tx];
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
