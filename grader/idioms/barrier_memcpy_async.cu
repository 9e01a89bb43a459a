// Lab 07 with a cuda::barrier per stage, in the style of the arrive-wait-barrier GEMM samples: two stages of 16 x 16
// tiles, each thread copying its element of the next tile with cuda::memcpy_async(..., stage_bar[next]) and waiting
// for the current tile with stage_bar[cur].arrive_and_wait(), which completes the copies started with that barrier.
// One output element per thread: correct, and far from the lab's speed-up mark.
#include "lab07_double_buffering.h"

#include <cuda/barrier>

constexpr int TILE = 16;

__global__ void gemm_barrier_stages(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[2][TILE][TILE];
  __shared__ float Bs[2][TILE][TILE];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> stage_bar[2];
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  const int tiles = (K + TILE - 1) / TILE;
  if (ty == 0 && tx == 0) {
    init(&stage_bar[0], TILE * TILE);
    init(&stage_bar[1], TILE * TILE);
  }
  __syncthreads();
  auto load = [&](int stage, int t) {
    const int ac = t * TILE + tx, br = t * TILE + ty;
    if (row < M && ac < K)
      cuda::memcpy_async(&As[stage][ty][tx], &A[row * K + ac], sizeof(float), stage_bar[stage]);
    else
      As[stage][ty][tx] = 0.0f;
    if (br < K && col < N)
      cuda::memcpy_async(&Bs[stage][ty][tx], &B[br * N + col], sizeof(float), stage_bar[stage]);
    else
      Bs[stage][ty][tx] = 0.0f;
  };
  float sum = 0.0f;
  load(0, 0);
  for (int t = 0; t < tiles; ++t) {
    const int cur = t & 1;
    if (t + 1 < tiles) load(cur ^ 1, t + 1);
    stage_bar[cur].arrive_and_wait();
#pragma unroll
    for (int k = 0; k < TILE; ++k) sum += As[cur][ty][k] * Bs[cur][k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = sum;
}

void double_buffered_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const dim3 block(TILE, TILE);
  const dim3 grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
  gemm_barrier_stages<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
}
