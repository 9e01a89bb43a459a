// Catalogue, lab 03: the lab 02 naive kernel submitted as the tiled one.
// It computes the right C, but reads both operands of every multiply-add from global memory: no tile is staged in
// shared memory, so nothing is reused. Check mode counts zero shared-memory reads (the test
// TiledGemmSharedMemory.OperandsAreReadFromSharedMemory fails); on a GPU it is exactly as fast as the baseline (1.0x).
// expect: wrong
// expect-gpu: perf-fail
#include "lab03_tiled_gemm.h"

template <int Tile>
__global__ void tiled_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (int p = 0; p < k; ++p) {
    sum += a[row * k + p] * b[p * n + col];  // BUG: global memory, no tile
  }
  c[row * n + col] = sum;
}

template <int Tile>
void tiled_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const dim3 block(Tile, Tile);
  const dim3 grid((n + Tile - 1) / Tile, (m + Tile - 1) / Tile);
  tiled_gemm_kernel<Tile><<<grid, block, 0, stream>>>(a, b, c, m, n, k);
}

template void tiled_gemm<16>(const float*, const float*, float*, int, int, int, cudaStream_t);
template void tiled_gemm<32>(const float*, const float*, float*, int, int, int, cudaStream_t);
