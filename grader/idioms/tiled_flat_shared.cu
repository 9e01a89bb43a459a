// Idiom: tiles as flat __shared__ arrays (As[ty * Tile + tx]), fmaf() in an unrolled inner loop, and the sizes of
// both launches from one template.
#include "lab03_tiled_gemm.h"

template <int Tile>
__global__ void tiled_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k) {
  __shared__ float As[Tile * Tile], Bs[Tile * Tile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * Tile + ty, col = blockIdx.x * Tile + tx;
  float acc = 0.0f;
  const int tiles = (k + Tile - 1) / Tile;
  for (int t = 0; t < tiles; ++t) {
    const int ka = t * Tile + tx, kb = t * Tile + ty;
    As[ty * Tile + tx] = (row < m && ka < k) ? a[row * k + ka] : 0.0f;
    Bs[ty * Tile + tx] = (kb < k && col < n) ? b[kb * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int p = 0; p < Tile; ++p) acc = fmaf(As[ty * Tile + p], Bs[p * Tile + tx], acc);
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = acc;
}

template <int Tile>
void tiled_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const dim3 threads(Tile, Tile), blocks((n + Tile - 1) / Tile, (m + Tile - 1) / Tile);
  tiled_gemm_kernel<Tile><<<blocks, threads, 0, stream>>>(a, b, c, m, n, k);
}

template void tiled_gemm<16>(const float*, const float*, float*, int, int, int, cudaStream_t);
template void tiled_gemm<32>(const float*, const float*, float*, int, int, int, cudaStream_t);
