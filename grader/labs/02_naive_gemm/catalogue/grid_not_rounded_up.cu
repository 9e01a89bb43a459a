// Catalogue, lab 02: the grid is not rounded up.
// n / block.x blocks cover only the whole blocks: the last partial block of columns (and of rows) gets no thread, so
// those elements of C are never written (they stay NaN); with m or n below 32 the grid is empty and nothing runs.
// expect: wrong
#include "lab02_naive_gemm.h"

__global__ void naive_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (int p = 0; p < k; ++p) {
    sum += a[row * k + p] * b[p * n + col];
  }
  c[row * n + col] = sum;
}

void naive_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const dim3 block(32, 32);
  const dim3 grid(n / block.x, m / block.y);  // BUG: rounds down
  naive_gemm_kernel<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
}
