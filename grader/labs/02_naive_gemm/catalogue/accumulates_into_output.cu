// Catalogue, lab 02: the dot product is accumulated into C without first setting C to 0.
// It relies on the output starting at zero, which nothing promises: the tests fill it with NaN first (as a GPU may
// hand out memory holding anything), so every element comes out NaN. It also reads and writes global memory k times
// per element instead of once.
// expect: wrong
#include "lab02_naive_gemm.h"

__global__ void naive_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  for (int p = 0; p < k; ++p) {
    c[row * n + col] += a[row * k + p] * b[p * n + col];  // BUG: C was never zeroed
  }
}

void naive_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const dim3 block(32, 32);
  const dim3 grid((n + block.x - 1) / block.x, (m + block.y - 1) / block.y);
  naive_gemm_kernel<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
}
