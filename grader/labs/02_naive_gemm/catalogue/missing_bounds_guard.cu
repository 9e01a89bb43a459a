// Catalogue, lab 02: the bounds guard is missing.
// The grid is rounded up to whole 32 x 32 blocks, so when m or n is not a multiple of 32 the last blocks hold threads
// outside C; without the guard they read past the end of A (rows >= m) and write past the end of C (on a GPU: a
// crash, or silently corrupted memory). Sizes that are multiples of 32 hide this bug.
// expect: out-of-bounds at line 15
#include "lab02_naive_gemm.h"

__global__ void naive_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  (void)m;  // BUG: no "if (row >= m || col >= n) return;"
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
