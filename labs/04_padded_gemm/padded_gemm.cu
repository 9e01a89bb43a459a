// Lab 04 — padded GEMM: measure the bank conflicts of a shared-memory layout, then remove them with padding.
//
// What you practise: predicting which of the 32 shared-memory banks each lane of a warp touches, reading a conflict
// report, and the +1 padding fix. The kernel is lab 03's tiled GEMM with one change forced on it: the lanes of a warp
// own consecutive ROWS of C (a column of the block's tile), so at each step they read a column of the A tile,
// As[tx][p]. With rows of 32 floats those 32 words are 32 floats apart, all in one bank: a 32-way conflict, one word
// per cycle. Give each row 33 floats and they land in 32 different banks.
// Your part is in the TODO region; the handout is labs/04_padded_gemm/README.md. Test: ctest --test-dir build -R lab04
#include "lab04_padded_gemm.h"

constexpr int kTile = 32;  // one warp = one row of threads of the block

// ---- kernels --------------------------------------------------------------------------------------------------------

// Thread (tx, ty) owns C[row0 + tx][col0 + ty]: a warp (fixed ty, tx = 0..31) owns a column of the block's tile of C.
// Loads: lanes walk along a row of A and of B (coalesced global reads, consecutive shared words).
// Compute: lane tx reads As[tx][p] (a column of the A tile: word tx * (row length) + p) and Bs[p][ty] (one word for
// the whole warp: a broadcast).
// [docs:padded_gemm_kernel]
__global__ void padded_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                   int m, int n, int k) {
  // [docs:padded_gemm_tiles]
  // TODO(lab04): pad the A tile so that the 32 words of a column lie in 32 different banks (1 line)
  __shared__ float As[kTile][kTile];  // row length 32: As[tx][p] is word 32 * tx + p, bank p % 32 for every lane
  // END TODO
  __shared__ float Bs[kTile][kTile];  // read as Bs[p][ty]: a broadcast, nothing to fix
  // [/docs:padded_gemm_tiles]
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
// [/docs:padded_gemm_kernel]

// ---- launcher -------------------------------------------------------------------------------------------------------

void padded_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const dim3 block(kTile, kTile);
  const dim3 grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  padded_gemm_kernel<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
}
