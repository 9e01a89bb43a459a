// Baseline for lab 07 (not a lab file): the lab 03 reference solution's kernel (solutions/03_tiled_gemm/tiled_gemm.cu,
// tiled_gemm<32>), renamed. Each 32 x 32 block stages 32 x 32 tiles of A and B in shared memory and computes one
// element of C per thread.
#include "lab07_baselines.h"

namespace {
constexpr int kTile = 32;
}

__global__ void reference_tiled_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                            float* __restrict__ c, int m, int n, int k) {
  __shared__ float As[kTile][kTile];
  __shared__ float Bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;
  const int col = blockIdx.x * kTile + tx;
  float sum = 0.0f;
  for (int t = 0; t < k; t += kTile) {
    As[ty][tx] = (row < m && t + tx < k) ? a[row * k + t + tx] : 0.0f;
    Bs[ty][tx] = (t + ty < k && col < n) ? b[(t + ty) * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int p = 0; p < kTile; ++p) sum += As[ty][p] * Bs[p][tx];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = sum;
}

void reference_tiled_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const dim3 block(kTile, kTile);
  const dim3 grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  reference_tiled_gemm_kernel<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
}
