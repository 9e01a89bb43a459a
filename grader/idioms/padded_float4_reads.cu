// Idiom: padding to a multiple of 4 floats so that a row can be read as float4 (16-byte loads, a quarter of the load
// instructions). Rows of 36 floats: lane tx reads words 36 * tx + p .. + 3, banks 4 * tx + p .. + 3 (mod 32), so the
// 8 lanes of each quarter-warp cover the 32 banks once: 4 wavefronts for the warp's 512 bytes, the fewest possible,
// conflict-free. (Before the CPU backend divided a request's wavefronts by the fewest its bytes need, this correct
// layout was reported as a 4-way conflict.)
#include "lab04_padded_gemm.h"

constexpr int kTile = 32;
constexpr int kRow = kTile + 4;  // keeps every row 16-byte aligned

__global__ void padded_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                   int m, int n, int k) {
  __shared__ __align__(16) float As[kTile][kRow];
  __shared__ float Bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  const int row = row0 + tx, col = col0 + ty;
  float sum = 0.0f;
  for (int t = 0; t < k; t += kTile) {
    As[ty][tx] = (row0 + ty < m && t + tx < k) ? a[(row0 + ty) * k + t + tx] : 0.0f;
    Bs[ty][tx] = (t + ty < k && col0 + tx < n) ? b[(t + ty) * n + col0 + tx] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int p = 0; p < kTile; p += 4) {
      const float4 a4 = *reinterpret_cast<const float4*>(&As[tx][p]);
      sum += a4.x * Bs[p][ty] + a4.y * Bs[p + 1][ty] + a4.z * Bs[p + 2][ty] + a4.w * Bs[p + 3][ty];
    }
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = sum;
}

void padded_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const dim3 block(kTile, kTile);
  const dim3 grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  padded_gemm_kernel<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
}
