// Lab 07, the three-stage idiom of cp_async_three_stages.cu with one line missing: no __pipeline_wait_prior before the
// barrier, so the block computes on stages whose copies may still be in flight (on a GPU: wrong now and then; check
// mode reports async-copy at the float4 reads).
#include "lab07_double_buffering.h"

#include <cuda_pipeline.h>

namespace {
constexpr int BM = 128, BN = 128, BK = 16, PAD = 4, STAGES = 3, THREADS = 256;
constexpr int A_STAGE = BK * (BM + PAD);  // floats per stage of the transposed A tile
constexpr int B_STAGE = BK * BN;
constexpr size_t SMEM_BYTES = STAGES * (A_STAGE + B_STAGE) * sizeof(float);
}  // namespace

template <bool VEC_B>
__global__ void __launch_bounds__(THREADS, 2) gemm_multistage(const float* __restrict__ A, const float* __restrict__ B,
                                                              float* __restrict__ C, int M, int N, int K) {
  extern __shared__ __align__(16) float smem[];
  float* sA = smem;                     // [STAGES][BK][BM + PAD]
  float* sB = smem + STAGES * A_STAGE;  // [STAGES][BK][BN]
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const int ty = (warp >> 1) * 32 + (lane >> 3) * 4;
  const int tx = (warp & 1) * 64 + (lane & 7) * 4;
  const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
  const int num_tiles = (K + BK - 1) / BK;

  auto load_stage = [&](int stage, int k_off) {
    float* a_dst = sA + stage * A_STAGE;
    float* b_dst = sB + stage * B_STAGE;
#pragma unroll
    for (int r = 0; r < BM * BK / THREADS; ++r) {
      const int e = tid + r * THREADS, row = e / BK, kk = e % BK;
      const bool ok = bm + row < M && k_off + kk < K;
      __pipeline_memcpy_async(a_dst + kk * (BM + PAD) + row, ok ? A + ((bm + row) * K + k_off + kk) : A, 4, ok ? 0 : 4);
    }
    constexpr int W = VEC_B ? 4 : 1;
#pragma unroll 4
    for (int r = 0; r < BK * BN / (W * THREADS); ++r) {
      const int e = tid + r * THREADS, kk = e / (BN / W), col = (e % (BN / W)) * W;
      const bool ok = k_off + kk < K && bn + col < N;
      __pipeline_memcpy_async(b_dst + kk * BN + col, ok ? B + ((k_off + kk) * N + bn + col) : B, 4 * W, ok ? 0 : 4 * W);
    }
  };

  float acc[8][8] = {};
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < num_tiles) load_stage(s, s * BK);
    __pipeline_commit();
  }
  for (int kt = 0; kt < num_tiles; ++kt) {
    __syncthreads();  // BUG: no __pipeline_wait_prior(STAGES - 2) before it: the copies of k-tile kt may be in flight
    if (kt + STAGES - 1 < num_tiles) load_stage((kt + STAGES - 1) % STAGES, (kt + STAGES - 1) * BK);
    __pipeline_commit();
    const float* a_cur = sA + (kt % STAGES) * A_STAGE;
    const float* b_cur = sB + (kt % STAGES) * B_STAGE;
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      const float4* av = reinterpret_cast<const float4*>(a_cur + kk * (BM + PAD) + ty);
      const float4* bv = reinterpret_cast<const float4*>(b_cur + kk * BN + tx);
      const float4 a0 = av[0], a1 = av[4], b0 = bv[0], b1 = bv[8];
      const float ra[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float rb[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
    }
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int row = bm + ty + (i / 4) * 16 + i % 4;
    if (row >= M) continue;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int col = bn + tx + h * 32;
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (col + j < N) C[row * N + col + j] = acc[i][4 * h + j];
    }
  }
}

void double_buffered_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const dim3 grid((n + BN - 1) / BN, (m + BM - 1) / BM);
  if (n % 4 == 0) {
    cudaFuncSetAttribute(gemm_multistage<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM_BYTES);
    gemm_multistage<true><<<grid, THREADS, SMEM_BYTES, stream>>>(a, b, c, m, n, k);
  } else {
    cudaFuncSetAttribute(gemm_multistage<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM_BYTES);
    gemm_multistage<false><<<grid, THREADS, SMEM_BYTES, stream>>>(a, b, c, m, n, k);
  }
}
