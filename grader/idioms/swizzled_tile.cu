// Idiom: no padding, an XOR swizzle instead: element (i, p) of the A tile is stored at column p ^ i, so the 32 lanes
// that read column p of 32 rows hit 32 different banks (the layout high-performance kernels use).
#include "lab04_padded_gemm.h"

constexpr int kTile = 32;

__global__ void padded_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                   int m, int n, int k) {
  __shared__ float As[kTile][kTile];  // As[i][p ^ i] = A[row0 + i][t + p]
  __shared__ float Bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  float sum = 0.0f;
  for (int t = 0; t < k; t += kTile) {
    As[ty][tx ^ ty] = (row0 + ty < m && t + tx < k) ? a[(row0 + ty) * k + t + tx] : 0.0f;
    Bs[ty][tx] = (t + ty < k && col0 + tx < n) ? b[(t + ty) * n + col0 + tx] : 0.0f;
    __syncthreads();
#pragma unroll 8
    for (int p = 0; p < kTile; ++p) sum += As[tx][p ^ tx] * Bs[p][ty];
    __syncthreads();
  }
  if (row0 + tx < m && col0 + ty < n) c[(row0 + tx) * n + col0 + ty] = sum;
}

void padded_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const dim3 block(kTile, kTile), grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  padded_gemm_kernel<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
}
