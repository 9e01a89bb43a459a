// Lab 07 with a pipeline of the whole block, in the style of the shared-state variant of the async-copy GEMM samples:
// __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2>, cuda::make_pipeline(block, &state), every thread
// both producer and consumer; the block copies each 16 x 16 tile of A and B row by row with the group form of
// cuda::memcpy_async and waits with pipe.consumer_wait(), which synchronizes the block. One output element per thread:
// correct, and far from the lab's speed-up mark.
#include "lab07_double_buffering.h"

#include <cooperative_groups.h>
#include <cuda/pipeline>

namespace cg = cooperative_groups;

constexpr int TILE = 16;
constexpr int STAGES = 2;

__global__ void gemm_block_pipeline(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[STAGES][TILE][TILE];
  __shared__ float Bs[STAGES][TILE][TILE];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  const int tiles = (K + TILE - 1) / TILE;
  // Whole rows of a tile inside the matrix go by the block's copies; edge elements element by element.
  auto load = [&](int stage, int t) {
    pipe.producer_acquire();
    const int k0 = t * TILE;
    const int a_row = blockIdx.y * TILE + ty, b_col0 = blockIdx.x * TILE;
    if (blockIdx.y * TILE + TILE <= M && k0 + TILE <= K && b_col0 + TILE <= N) {
      for (int r = 0; r < TILE; ++r) {
        cuda::memcpy_async(block, &As[stage][r][0], &A[(blockIdx.y * TILE + r) * K + k0], sizeof(float) * TILE, pipe);
        cuda::memcpy_async(block, &Bs[stage][r][0], &B[(k0 + r) * N + b_col0], sizeof(float) * TILE, pipe);
      }
    } else {
      As[stage][ty][tx] = (a_row < M && k0 + tx < K) ? A[a_row * K + k0 + tx] : 0.0f;
      Bs[stage][ty][tx] = (k0 + ty < K && b_col0 + tx < N) ? B[(k0 + ty) * N + b_col0 + tx] : 0.0f;
    }
    pipe.producer_commit();
  };
  float sum = 0.0f;
  load(0, 0);
  for (int t = 0; t < tiles; ++t) {
    const int cur = t % STAGES;
    if (t + 1 < tiles) load((t + 1) % STAGES, t + 1);
    pipe.consumer_wait();
#pragma unroll
    for (int k = 0; k < TILE; ++k) sum += As[cur][ty][k] * Bs[cur][k][tx];
    pipe.consumer_release();
  }
  if (row < M && col < N) C[row * N + col] = sum;
}

void double_buffered_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const dim3 block(TILE, TILE);
  const dim3 grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
  gemm_block_pipeline<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
}
