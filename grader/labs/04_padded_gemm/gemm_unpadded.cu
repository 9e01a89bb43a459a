// Baseline for lab 04 (not a lab file): the lab's starting point, labs/04_padded_gemm/padded_gemm.cu as handed out,
// renamed. The A tile has rows of 32 floats, so the compute loop's read As[tx][p] puts all 32 lanes of a warp in one
// bank: a 32-way conflict on every read of A (Nsight Compute on an H200, 2048^3: 1,879,319,160 shared-load
// conflicts; the padded reference 710,847, and 4.04x faster: grader/thresholds/CALIBRATION.md). The perf test times
// the student's padded kernel against it; the check-mode test verifies that the CPU backend sees its 32-way conflict.
#include "lab04_baselines.h"

constexpr int kTile = 32;  // one warp = one row of threads of the block

// ---- kernels --------------------------------------------------------------------------------------------------------

// Thread (tx, ty) owns C[row0 + tx][col0 + ty]: a warp (fixed ty, tx = 0..31) owns a column of the block's tile of C.
// Loads: lanes walk along a row of A and of B (coalesced global reads, consecutive shared words).
// Compute: lane tx reads As[tx][p] (a column of the A tile: word tx * (row length) + p) and Bs[p][ty] (one word for
// the whole warp: a broadcast).
__global__ void unpadded_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                     int m, int n, int k) {
  __shared__ float As[kTile][kTile];  // row length 32: As[tx][p] is word 32 * tx + p, bank p % 32 for every lane
  __shared__ float Bs[kTile][kTile];  // read as Bs[p][ty]: a broadcast, nothing to fix
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

void unpadded_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const dim3 block(kTile, kTile);
  const dim3 grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  unpadded_gemm_kernel<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
}
