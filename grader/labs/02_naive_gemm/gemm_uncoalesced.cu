// Baseline for lab 02 (not a lab file): naive GEMM with the thread-to-data mapping turned around.
//
// threadIdx.x walks the ROWS of C, so the 32 lanes of a warp own one column and 32 different rows. At every step of
// the dot product they read A[row][p] for 32 rows (32 words k floats apart: 32 memory transactions instead of 1)
// and the same B[p][col] (a broadcast, wasted), and at the end they write C 32 rows apart. Otherwise identical to
// the lab 02 reference solution, including its 32 x 32 blocks, so the ratio measures the mapping alone.
// Measured by the course's lab 02 perf test on an H200 at 1024^3: the coalesced reference is 12.5x faster
// (grader/thresholds/CALIBRATION.md).
#include "lab02_baselines.h"

// [docs:uncoalesced_gemm_kernel]
__global__ void uncoalesced_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                        int m, int n, int k) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;  // x walks rows: the mistake being measured
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (int p = 0; p < k; ++p) {
    sum += a[row * k + p] * b[p * n + col];
  }
  c[row * n + col] = sum;
}
// [/docs:uncoalesced_gemm_kernel]

void uncoalesced_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const dim3 block(32, 32);
  const dim3 grid((m + block.x - 1) / block.x, (n + block.y - 1) / block.y);
  uncoalesced_gemm_kernel<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
}
