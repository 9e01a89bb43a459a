// Variant, lab 04: both tiles padded (As and Bs rows of 33 floats). Padding Bs removes no conflict (its reads are
// broadcasts) but a student may well pad both; it must still pass every test, the perf test included.
#include "lab04_padded_gemm.h"

constexpr int kTile = 32;  // one warp = one row of threads of the block

// ---- kernels --------------------------------------------------------------------------------------------------------

// Thread (tx, ty) owns C[row0 + tx][col0 + ty]: a warp (fixed ty, tx = 0..31) owns a column of the block's tile of C.
// Loads: lanes walk along a row of A and of B (coalesced global reads, consecutive shared words).
// Compute: lane tx reads As[tx][p] (a column of the A tile: word tx * (row length) + p) and Bs[p][ty] (one word for
// the whole warp: a broadcast).
__global__ void padded_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                   int m, int n, int k) {
  __shared__ float As[kTile][kTile + 1];  // row length 33: As[tx][p] is word 33 * tx + p, bank (tx + p) % 32
  __shared__ float Bs[kTile][kTile + 1];  // padded too, although its reads are broadcasts
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  const int row = row0 + tx;  // the warp walks DOWN a column of C
  const int col = col0 + ty;
  float sum = 0.0f;
  for (int t = 0; t < k; t += kTile) {
    As[ty][tx] = (row0 + ty < m && t + tx < k) ? a[(row0 + ty) * k + t + tx] : 0.0f;  // As[i][p] = A[row0 + i][t + p]
    Bs[ty][tx] = (t + ty < k && col0 + tx < n) ? b[(t + ty) * n + col0 + tx] : 0.0f;  // Bs[p][j] = B[t + p][col0 + j]
    __syncthreads();
#pragma unroll
    for (int p = 0; p < kTile; ++p) {
      sum += As[tx][p] * Bs[p][ty];  // As: 32 rows of one column of the tile; Bs: broadcast
    }
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = sum;
}

// ---- launcher -------------------------------------------------------------------------------------------------------

void padded_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const dim3 block(kTile, kTile);
  const dim3 grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  padded_gemm_kernel<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
}
