// Lab 07 in the cooperative-groups idiom of asynchronous copies: the block copies each row of the next 32 x 32 tiles
// with cooperative_groups::memcpy_async (one call per row, the threads sharing it), computes on the current tiles, and
// waits with cg::wait_prior<1> (all but the newest call) or cg::wait; edge tiles are loaded element by element.
// One output element per thread: correct, and far from the lab's speed-up mark.
#include "lab07_double_buffering.h"

#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>

namespace cg = cooperative_groups;

#define TS 32

__global__ void gemm_cg_async(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                              int N, int K) {
  __shared__ float sA[2][TS][TS];
  __shared__ float sB[2][TS][TS];
  cg::thread_block cta = cg::this_thread_block();
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TS + ty, col = blockIdx.x * TS + tx;
  const int ntiles = (K + TS - 1) / TS;
  const bool full_m = (blockIdx.y + 1) * TS <= M, full_n = (blockIdx.x + 1) * TS <= N;
  // Loads k-tile t into stage s; true if it started asynchronous copies (each memcpy_async call is one batch).
  auto stage_in = [&](int s, int t) {
    const int k0 = t * TS;
    const bool full_k = k0 + TS <= K;
    if (full_m && full_k) {
      // each row of the A tile: one group-wide copy of TS floats
      for (int r = 0; r < TS; ++r)
        cg::memcpy_async(cta, &sA[s][r][0], &A[(blockIdx.y * TS + r) * K + k0], sizeof(float) * TS);
    } else {
      sA[s][ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
    }
    if (full_n && full_k) {
      for (int r = 0; r < TS; ++r)
        cg::memcpy_async(cta, &sB[s][r][0], &B[(k0 + r) * N + blockIdx.x * TS], sizeof(float) * TS);
    } else {
      sB[s][ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
    }
    return (full_m || full_n) && full_k;
  };
  float acc = 0.0f;
  stage_in(0, 0);
  for (int t = 0; t < ntiles; ++t) {
    const int s = t % 2;
    // All but the newest batch: the next tile's, if it started any (else its loads are done and all are waited for).
    if (t + 1 < ntiles && stage_in(1 - s, t + 1)) {
      cg::wait_prior<1>(cta);
    } else {
      cg::wait(cta);
    }
    cta.sync();
    for (int k = 0; k < TS; ++k) acc += sA[s][ty][k] * sB[s][k][tx];
    cta.sync();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

void double_buffered_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  dim3 threads(TS, TS);
  dim3 blocks((n + TS - 1) / TS, (m + TS - 1) / TS);
  gemm_cg_async<<<blocks, threads, 0, stream>>>(a, b, c, m, n, k);
}
