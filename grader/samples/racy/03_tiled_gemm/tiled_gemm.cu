// Sample submission (grader/samples): racy. Lab 03 with the first __syncthreads() missing (the course's
// catalogue entry missing_first_sync in grader/labs/03_tiled_gemm/catalogue.toml). Expected verdict: wrong on
// the CPU backend, whose check mode reports the shared-memory race with its line; on a GPU the result is wrong
// only now and then.
#include "lab03_tiled_gemm.h"

// ---- kernels --------------------------------------------------------------------------------------------------------

// Thread (tx, ty) of block (bx, by) owns C[by * Tile + ty][bx * Tile + tx]. A warp is 32 consecutive tx of one ty
// (with Tile = 16: two rows of 16), so it walks along a row of each tile: coalesced global loads, and shared reads
// that are a broadcast (As[ty][p]: one word for the warp) or 32 consecutive words (Bs[p][tx]): no bank conflicts.
template <int Tile>
__global__ void tiled_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k) {
  __shared__ float As[Tile][Tile];  // As[ty][p] = A[row][t + p]: this block's rows of A, Tile columns at a time
  __shared__ float Bs[Tile][Tile];  // Bs[p][tx] = B[t + p][col]: this block's columns of B, Tile rows at a time
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * Tile + ty;
  const int col = blockIdx.x * Tile + tx;
  float sum = 0.0f;
  for (int t = 0; t < k; t += Tile) {
    As[ty][tx] = (row < m && t + tx < k) ? a[row * k + t + tx] : 0.0f;
    Bs[ty][tx] = (t + ty < k && col < n) ? b[(t + ty) * n + col] : 0.0f;
    // BUG: no __syncthreads() here
#pragma unroll
    for (int p = 0; p < Tile; ++p) {
      sum += As[ty][p] * Bs[p][tx];  // As: broadcast within a warp; Bs: 32 consecutive words, 32 banks
    }
    __syncthreads();
  }
  // No early return above: every thread of the block must reach both barriers, even one outside C.
  if (row < m && col < n) c[row * n + col] = sum;
}

// ---- launcher -------------------------------------------------------------------------------------------------------

template <int Tile>
void tiled_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  static_assert(Tile * Tile <= 1024, "a block has at most 1024 threads");
  const dim3 block(Tile, Tile);  // one thread per element of the block's tile of C
  const dim3 grid((n + Tile - 1) / Tile, (m + Tile - 1) / Tile);
  tiled_gemm_kernel<Tile><<<grid, block, 0, stream>>>(a, b, c, m, n, k);
}

// The two tile sizes the grader calls (declared in lab03_tiled_gemm.h).
template void tiled_gemm<16>(const float*, const float*, float*, int, int, int, cudaStream_t);
template void tiled_gemm<32>(const float*, const float*, float*, int, int, int, cudaStream_t);
