// Lab 02 — naive GEMM: C = A·B, one thread per element of C.
//
// What you practise: mapping threads to data so that a warp's memory accesses coalesce. The 32 threads of a warp
// have consecutive threadIdx.x; give them consecutive COLUMNS of C, and at every step of the dot product they read
// 32 consecutive floats of B (one or two memory transactions) and the same float of A (a broadcast). Mapped the
// other way round, every lane touches a different row: 32 transactions per load.
// Your part is in the TODO regions; the handout is labs/02_naive_gemm/README.md. Test: ctest --test-dir build -R lab02
#include "lab02_naive_gemm.h"

// ---- kernels --------------------------------------------------------------------------------------------------------

// One thread computes C[row][col] = sum_p A[row][p] * B[p][col]: it reads a row of A and a column of B from global
// memory. Every element of A is read n times and every element of B m times (lab 03 cuts that with shared memory).
// [docs:naive_gemm_kernel]
__global__ void naive_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k) {
  // TODO(lab02): compute this thread's row and column of C; threadIdx.x must walk the columns (2 lines)
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  // END TODO
  // TODO(lab02): return from threads outside C: m and n need not be multiples of the block (1 line)
  if (row >= m || col >= n) return;
  // END TODO
  float sum = 0.0f;
  // TODO(lab02): accumulate the dot product of row `row` of A and column `col` of B (about 3 lines)
  for (int p = 0; p < k; ++p) {
    sum += a[row * k + p] * b[p * n + col];  // a: the same word for the whole warp; b: 32 consecutive words
  }
  // END TODO
  c[row * n + col] = sum;
}
// [/docs:naive_gemm_kernel]

// ---- launcher -------------------------------------------------------------------------------------------------------

// [docs:naive_gemm_launcher]
void naive_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  // TODO(lab02): choose a block shape and a grid that covers the n columns and m rows of C, rounding up (2 lines)
  const dim3 block(32, 32);  // x: 32 consecutive columns per warp; 32 x 32 measured faster than 16 x 16
  const dim3 grid((n + block.x - 1) / block.x, (m + block.y - 1) / block.y);
  // END TODO
  naive_gemm_kernel<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
}
// [/docs:naive_gemm_launcher]
