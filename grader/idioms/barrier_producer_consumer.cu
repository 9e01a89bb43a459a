// Lab 07 with producer and consumer threads, in the CUDA Programming Guide's cuda::barrier pattern: of a block's 512
// threads, the first 256 copy the next 16 x 16 tiles of A and B and the other 256 compute, one element of C each. Each
// stage has two barriers that every thread arrives at once per use: `filled` (the producers arrive once their copies
// are started, the consumers arrive and wait for them) and `ready` (the consumers arrive once they are done with the
// stage, the producers arrive and wait before refilling it; the consumers' first arrivals say both stages are free).
// Threads wait at different lines and some only arrive. Correct, and far from the lab's speed-up mark.
#include "lab07_double_buffering.h"

#include <cuda/barrier>

constexpr int TILE = 16;
constexpr int kCompute = TILE * TILE;  // consumers; as many producers

__global__ void gemm_producer_consumer(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[2][TILE][TILE];
  __shared__ float Bs[2][TILE][TILE];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> ready[2], filled[2];
  const int id = threadIdx.x;
  if (id < 2) {
    init(&ready[id], 2 * kCompute);
    init(&filled[id], 2 * kCompute);
  }
  __syncthreads();
  const int tiles = (K + TILE - 1) / TILE;
  const bool producer = id < kCompute;
  const int ty = (id % kCompute) / TILE, tx = id % TILE;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  if (producer) {
    for (int t = 0; t < tiles; ++t) {
      const int s = t & 1;
      ready[s].arrive_and_wait();  // the consumers are done with stage s
      const int ac = t * TILE + tx, br = t * TILE + ty;
      if (row < M && ac < K)
        cuda::memcpy_async(&As[s][ty][tx], &A[row * K + ac], sizeof(float), filled[s]);
      else
        As[s][ty][tx] = 0.0f;
      if (br < K && col < N)
        cuda::memcpy_async(&Bs[s][ty][tx], &B[br * N + col], sizeof(float), filled[s]);
      else
        Bs[s][ty][tx] = 0.0f;
      cuda::barrier<cuda::thread_scope_block>::arrival_token done = filled[s].arrive();
      static_cast<void>(done);
    }
    return;
  }
  static_cast<void>(ready[0].arrive());
  static_cast<void>(ready[1].arrive());
  float sum = 0.0f;
  for (int t = 0; t < tiles; ++t) {
    const int s = t & 1;
    filled[s].arrive_and_wait();  // stage s holds tile t
#pragma unroll
    for (int k = 0; k < TILE; ++k) sum += As[s][ty][k] * Bs[s][k][tx];
    static_cast<void>(ready[s].arrive());
  }
  if (row < M && col < N) C[row * N + col] = sum;
}

void double_buffered_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const dim3 grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
  gemm_producer_consumer<<<grid, 2 * kCompute, 0, stream>>>(a, b, c, m, n, k);
}
