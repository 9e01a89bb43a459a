// Catalogue, lab 02: row and column swapped in the thread-to-data mapping.
// The row comes from the x dimension and the column from y, but the grid was sized for (n columns, m rows): threads
// cover an n x m rectangle instead of m x n, so when m != n some elements of C are never written (they stay NaN).
// expect: wrong
#include "lab02_naive_gemm.h"

__global__ void naive_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;  // BUG: x walks rows
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (int p = 0; p < k; ++p) {
    sum += a[row * k + p] * b[p * n + col];
  }
  c[row * n + col] = sum;
}

void naive_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const dim3 block(32, 32);
  const dim3 grid((n + block.x - 1) / block.x, (m + block.y - 1) / block.y);
  naive_gemm_kernel<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
}
