// Catalogue, lab 03: tile elements outside A or B are skipped instead of set to 0.
// When m, n or k is not a multiple of the tile, the last tiles are partial. Skipping the elements outside the
// matrices leaves whatever was in shared memory there (nothing, in the first tile; the previous tile, later), and the
// multiply-adds use it.
// expect: uninitialized-shared-read at line 28
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
    if (row < m && t + tx < k) As[ty][tx] = a[row * k + t + tx];  // BUG: no else As[ty][tx] = 0
    if (t + ty < k && col < n) Bs[ty][tx] = b[(t + ty) * n + col];  // BUG: no else Bs[ty][tx] = 0
    __syncthreads();
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
