// Lab 03 — tiled GEMM: C = A·B with tiles of A and B staged in shared memory.
//
// What you practise: the shared-memory pattern load -> __syncthreads() -> compute -> __syncthreads(). Each
// Tile x Tile block owns a Tile x Tile tile of C and walks along k one tile at a time: the block loads a tile of A and
// a tile of B (one element per thread each, zero outside the matrices), waits until the whole tile is there, does
// Tile multiply-adds per thread from shared memory, and waits again before the next tile overwrites it. Every
// element loaded from global memory is then used Tile times, instead of once as in lab 02.
// Your part is in the TODO regions; the handout is labs/03_tiled_gemm/README.md. Test: ctest --test-dir build -R lab03
#include "lab03_tiled_gemm.h"

// ---- kernels --------------------------------------------------------------------------------------------------------

// Thread (tx, ty) of block (bx, by) owns C[by * Tile + ty][bx * Tile + tx]. A warp is 32 consecutive tx of one ty
// (with Tile = 16: two rows of 16), so it walks along a row of each tile: coalesced global loads, and shared reads
// that are a broadcast (As[ty][p]: one word for the warp) or 32 consecutive words (Bs[p][tx]): no bank conflicts.
// [docs:tiled_gemm_kernel]
template <int Tile>
__global__ void tiled_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k) {
  __shared__ float As[Tile][Tile];  // As[ty][p] = A[row][t + p]: this block's rows of A, Tile columns at a time
  __shared__ float Bs[Tile][Tile];  // Bs[p][tx] = B[t + p][col]: this block's columns of B, Tile rows at a time
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * Tile + ty;
  const int col = blockIdx.x * Tile + tx;
  float sum = 0.0f;
  // [docs:tiled_gemm_loop]
  for (int t = 0; t < k; t += Tile) {
    // [docs:tiled_gemm_load]
    // TODO(lab03): As[ty][tx] = A[row][t + tx], Bs[ty][tx] = B[t + ty][col]; 0 outside A or B (about 2 lines)
    // (nothing yet: the tiles are never written)
    // END TODO
    // TODO(lab03): wait until the whole block has written its tiles (1 line)
    // (nothing yet)
    // END TODO
    // [/docs:tiled_gemm_load]
    // [docs:tiled_gemm_compute]
    // TODO(lab03): accumulate row ty of As times column tx of Bs into sum (about 3 lines)
    // (nothing yet: sum stays 0)
    // END TODO
    // TODO(lab03): wait until every thread has read the tiles: the next loads overwrite them (1 line)
    // (nothing yet)
    // END TODO
    // [/docs:tiled_gemm_compute]
  }
  // [/docs:tiled_gemm_loop]
  // [docs:tiled_gemm_store]
  // No early return above: every thread of the block must reach both barriers, even one outside C.
  if (row < m && col < n) c[row * n + col] = sum;
  // [/docs:tiled_gemm_store]
}
// [/docs:tiled_gemm_kernel]

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
