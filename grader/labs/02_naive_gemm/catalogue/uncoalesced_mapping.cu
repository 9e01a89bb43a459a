// Catalogue, lab 02: threadIdx.x walks the rows of C instead of the columns. Every result is right, but the 32 lanes
// of a warp read A 32 rows apart (32 memory transactions per load instead of 1): several times slower than the
// coalesced mapping, so it must fail the perf test on a GPU.
// expect: correct
// expect-gpu: perf-fail
#include "lab02_naive_gemm.h"

__global__ void naive_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (int p = 0; p < k; ++p) sum += a[row * k + p] * b[p * n + col];
  c[row * n + col] = sum;
}

void naive_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const dim3 block(32, 32);
  const dim3 grid((m + block.x - 1) / block.x, (n + block.y - 1) / block.y);
  naive_gemm_kernel<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
}
