// Lab 07 — double buffering: a register-blocked GEMM that copies the next tiles into shared memory while it computes
// on the current ones.
//
// What you practise: asynchronous copies from global into shared memory (__pipeline_memcpy_async), grouped and waited
// for (__pipeline_commit, __pipeline_wait_prior), and two buffers per tile, so that the copies of k-tile kt + 1 are in
// flight while the block computes on k-tile kt. The compute is given: each block of 256 threads owns a 128 x 128 tile
// of C, each thread an 8 x 8 patch of it in registers (lab 03's "going further"), reading A and B from shared memory
// as float4. Your part is in the TODO regions; the handout is labs/07_double_buffering/README.md.
// Test: ctest --test-dir build -R lab07
#include "lab07_double_buffering.h"

#include <cuda_pipeline.h>

namespace {
constexpr int kBM = 128;       // rows of C per block
constexpr int kBN = 128;       // columns of C per block
constexpr int kBK = 16;        // k-tile: columns of A and rows of B per stage
constexpr int kPadA = 4;       // As rows hold kBM + 4 floats: rows stay 16-byte aligned, the transposing copies spread
constexpr int kStages = 2;     // two buffers: one being computed on, one being filled
constexpr int kThreads = 256;  // 8 warps; warp w owns rows 32 (w / 2) .. + 31 and columns 64 (w % 2) .. + 63
static_assert(kBM * kBK % kThreads == 0 && kBK * kBN % (4 * kThreads) == 0, "tile copies must divide evenly");
}  // namespace

// __launch_bounds__(kThreads, 2): at most 128 registers per thread, so that two blocks fit on an SM (65536 registers)
// and one block's warps compute while the other's wait at a barrier. At that limit the register allocation is
// fragile: build with -Xptxas -v and check "0 bytes spill stores" after any change (the handout says why).
// WideB: every row of B starts 16-byte aligned (n % 4 == 0), so B is copied 16 bytes at a time.
template <bool WideB>
__global__ void __launch_bounds__(kThreads, 2)
    double_buffered_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m,
                                int n, int k) {
  __shared__ __align__(16) float As[kStages][kBK][kBM + kPadA];  // As[s][p][i] = A[row0 + i][k0 + p] (transposed)
  __shared__ __align__(16) float Bs[kStages][kBK][kBN];          // Bs[s][p][j] = B[k0 + p][col0 + j]
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  // This thread's 8 x 8 patch: rows tr..tr+3 and tr+16..tr+19, columns tc..tc+3 and tc+32..tc+35 of the block's tile.
  // A warp's lanes form a 4 x 8 grid, so one float4 read of a row of As (or Bs) serves 8 (or 4) lanes at once.
  const int tr = (warp / 2) * 32 + (lane / 8) * 4;
  const int tc = (warp % 2) * 64 + (lane % 8) * 4;
  const int row0 = blockIdx.y * kBM, col0 = blockIdx.x * kBN;
  const int tiles = (k + kBK - 1) / kBK;

  // [docs:start_tile_copies]
  // Starts this thread's asynchronous copies of the k-tile that begins at k0 (columns k0.. of A, rows k0.. of B;
  // k-tile kt begins at k0 = kt * kBK) into stage `stage`, with 0 wherever the element lies outside A or B: a copy
  // of 4 bytes with a zero-fill of 4 reads nothing and writes zeros.
  auto start_tile_copies = [&](int stage, int k0) {
  // A tile, kBM x kBK, transposed on the way: consecutive threads copy consecutive columns p of one row of A.
#pragma unroll
    for (int r = 0; r < kBM * kBK / kThreads; ++r) {
      const int e = tid + r * kThreads, i = e / kBK, p = e % kBK;
      const bool inside = row0 + i < m && k0 + p < k;
      const float* src = inside ? a + ((row0 + i) * k + k0 + p) : a;
      // TODO(lab07): copy 4 bytes from src into As[stage][p][i]; outside A, zero-fill all 4 (1 line)
      // (nothing yet: this element of As is never written)
      // END TODO
    }
    // B tile, kBK x kBN: consecutive threads copy consecutive columns of one row of B, kWidth floats each. (Unrolled
    // by 4, not fully: fully unrolled, the 4-byte copies of the !WideB kernel spill registers.)
    constexpr int kWidth = WideB ? 4 : 1;
#pragma unroll 4
    for (int r = 0; r < kBK * kBN / (kWidth * kThreads); ++r) {
      const int e = tid + r * kThreads, p = e / (kBN / kWidth), j = (e % (kBN / kWidth)) * kWidth;
      // With WideB, n % 4 == 0 and j % 4 == 0: the kWidth columns are all inside B or all outside.
      const bool inside = k0 + p < k && col0 + j < n;
      const float* src = inside ? b + ((k0 + p) * n + col0 + j) : b;
      // TODO(lab07): copy 4 * kWidth bytes from src into Bs[stage][p][j]; outside B, zero-fill them all (1 line)
      // (nothing yet: these elements of Bs are never written)
      // END TODO
    }
  };
  // [/docs:start_tile_copies]

  float acc[8][8] = {};
  // [docs:double_buffered_loop]
  // TODO(lab07): before the loop, fill the first kStages - 1 stages: for each, start the copies of its k-tile (if
  // there is one) and commit them as one group (about 4 lines)
  // (nothing yet: no copy is started before the loop)
  // END TODO
  for (int kt = 0; kt < tiles; ++kt) {
    const int s = kt % kStages;
    // TODO(lab07): wait until this thread's copies of k-tile kt have landed, then until every thread's have (2 lines)
    // (nothing yet: the block computes on whatever the stage holds)
    // END TODO
    // TODO(lab07): start the copies of k-tile kt + 1, if there is one, into the other stage; commit (2 lines)
    // (nothing yet: no later k-tile is ever copied)
    // END TODO
    // Compute on stage s while the copies into stage 1 - s are in flight.
#pragma unroll
    for (int p = 0; p < kBK; ++p) {
      const float4* a4 = reinterpret_cast<const float4*>(&As[s][p][tr]);  // a4[0]: rows tr..tr+3; a4[4]: tr+16..
      const float4* b4 = reinterpret_cast<const float4*>(&Bs[s][p][tc]);  // b4[0]: columns tc..tc+3; b4[8]: tc+32..
      const float4 a0 = a4[0], a1 = a4[4];
      const float4 b0 = b4[0], b1 = b4[8];
      const float ar[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float br[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i) {
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(ar[i], br[j], acc[i][j]);
      }
    }
  }
  // [/docs:double_buffered_loop]

  // Store the patch: float4 stores where rows of C are 16-byte aligned (n % 4 == 0) and the 4 columns lie inside C.
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int row = row0 + tr + (i / 4) * 16 + i % 4;
    if (row >= m) continue;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int col = col0 + tc + h * 32;
      float* dst = c + (row * n + col);
      if (WideB && col + 3 < n) {
        *reinterpret_cast<float4*>(dst) =
            make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (col + j < n) dst[j] = acc[i][4 * h + j];
        }
      }
    }
  }
}

// ---- launcher -------------------------------------------------------------------------------------------------------

void double_buffered_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const dim3 grid((n - 1) / kBN + 1, (m - 1) / kBM + 1);  // m <= 65535 * kBM: gridDim.y's limit
  if (n % 4 == 0) {
    double_buffered_gemm_kernel<true><<<grid, kThreads, 0, stream>>>(a, b, c, m, n, k);
  } else {
    double_buffered_gemm_kernel<false><<<grid, kThreads, 0, stream>>>(a, b, c, m, n, k);
  }
}
