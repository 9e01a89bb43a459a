// Idiom: every access by pointer arithmetic and dereference, as in older tutorials and C-style code:
// *(As + ty * Tile + tx) for the tiles, *(a + row * k + col) for the matrices, a running pointer into each tile row.
#include "lab03_tiled_gemm.h"

template <int Tile>
__global__ void tiled_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k) {
  __shared__ float As[Tile * Tile];
  __shared__ float Bs[Tile * Tile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * Tile + ty, col = blockIdx.x * Tile + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += Tile) {
    *(As + ty * Tile + tx) = (row < m && k0 + tx < k) ? *(a + row * k + k0 + tx) : 0.0f;
    *(Bs + ty * Tile + tx) = (k0 + ty < k && col < n) ? *(b + (k0 + ty) * n + col) : 0.0f;
    __syncthreads();
    const float* a_row = As + ty * Tile;
#pragma unroll
    for (int p = 0; p < Tile; ++p) acc += *(a_row + p) * *(Bs + p * Tile + tx);
    __syncthreads();
  }
  if (row < m && col < n) *(c + row * n + col) = acc;
}

template <int Tile>
void tiled_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const dim3 threads(Tile, Tile), blocks((n + Tile - 1) / Tile, (m + Tile - 1) / Tile);
  tiled_gemm_kernel<Tile><<<blocks, threads, 0, stream>>>(a, b, c, m, n, k);
}

template void tiled_gemm<16>(const float*, const float*, float*, int, int, int, cudaStream_t);
template void tiled_gemm<32>(const float*, const float*, float*, int, int, int, cudaStream_t);
