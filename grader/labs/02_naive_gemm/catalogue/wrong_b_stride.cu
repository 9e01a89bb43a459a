// Catalogue, lab 02: B indexed with the wrong row length.
// B is k x n, so B[p][col] is at b[p * n + col]; this kernel uses k as B's row length. Square tests (m = n = k) cannot
// tell the two apart: only independent m, n, k catch it (the result is wrong, or reads fall outside B when k > n).
// expect: wrong
#include "lab02_naive_gemm.h"

__global__ void naive_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (int p = 0; p < k; ++p) {
    sum += a[row * k + p] * b[p * k + col];  // BUG: B's rows are n long, not k
  }
  c[row * n + col] = sum;
}

void naive_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const dim3 block(32, 32);
  const dim3 grid((n + block.x - 1) / block.x, (m + block.y - 1) / block.y);
  naive_gemm_kernel<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
}
