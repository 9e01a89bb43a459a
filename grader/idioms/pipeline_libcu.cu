// Lab 07 in the libcu++ idiom of asynchronous copies: each thread's own cuda::pipeline (cuda::make_pipeline()), two
// stages of 16 x 16 tiles, each thread copying its element with cuda::memcpy_async between producer_acquire and
// producer_commit and waiting with cuda::pipeline_consumer_wait_prior<1> (<0> for the last tile), then
// consumer_release. One output element per thread: correct, and far from the lab's speed-up mark.
#include "lab07_double_buffering.h"

#include <cooperative_groups.h>
#include <cuda/pipeline>

namespace cg = cooperative_groups;

constexpr int TILE = 16;

__global__ void gemm_pipelined(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[2][TILE][TILE];
  __shared__ float Bs[2][TILE][TILE];
  auto block = cg::this_thread_block();
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  int ty = threadIdx.y, tx = threadIdx.x;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  int tiles = (K + TILE - 1) / TILE;
  auto load = [&](int stage, int t) {
    int ac = t * TILE + tx, br = t * TILE + ty;
    if (row < M && ac < K)
      cuda::memcpy_async(&As[stage][ty][tx], &A[row * K + ac], sizeof(float), pipe);
    else
      As[stage][ty][tx] = 0.0f;
    if (br < K && col < N)
      cuda::memcpy_async(&Bs[stage][ty][tx], &B[br * N + col], sizeof(float), pipe);
    else
      Bs[stage][ty][tx] = 0.0f;
  };
  float sum = 0.0f;
  pipe.producer_acquire();
  load(0, 0);
  pipe.producer_commit();
  for (int t = 0; t < tiles; ++t) {
    int cur = t & 1;
    if (t + 1 < tiles) {
      pipe.producer_acquire();
      load(cur ^ 1, t + 1);
      pipe.producer_commit();
    }
    if (t + 1 < tiles)
      cuda::pipeline_consumer_wait_prior<1>(pipe);
    else
      cuda::pipeline_consumer_wait_prior<0>(pipe);
    block.sync();
#pragma unroll
    for (int k = 0; k < TILE; ++k) sum += As[cur][ty][k] * Bs[cur][k][tx];
    pipe.consumer_release();
    block.sync();
  }
  if (row < M && col < N) C[row * N + col] = sum;
}

void double_buffered_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  dim3 block(TILE, TILE);
  dim3 grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
  gemm_pipelined<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
}
