// Idiom: both tiles carved out of one extern __shared__ buffer through pointers to rows (float (*As)[kTile + 1]),
// the padded A tile first, the buffer's size given at launch.
#include "lab04_padded_gemm.h"

constexpr int kTile = 32;

__global__ void padded_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                   int m, int n, int k) {
  extern __shared__ float smem[];
  float(*As)[kTile + 1] = reinterpret_cast<float(*)[kTile + 1]>(smem);
  float(*Bs)[kTile] = reinterpret_cast<float(*)[kTile]>(smem + kTile * (kTile + 1));
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  float sum = 0.0f;
  for (int t = 0; t < k; t += kTile) {
    As[ty][tx] = (row0 + ty < m && t + tx < k) ? a[(row0 + ty) * k + t + tx] : 0.0f;
    Bs[ty][tx] = (t + ty < k && col0 + tx < n) ? b[(t + ty) * n + col0 + tx] : 0.0f;
    __syncthreads();
    for (int p = 0; p < kTile; ++p) sum += As[tx][p] * Bs[p][ty];
    __syncthreads();
  }
  if (row0 + tx < m && col0 + ty < n) c[(row0 + tx) * n + col0 + ty] = sum;
}

void padded_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const size_t bytes = (kTile * (kTile + 1) + kTile * kTile) * sizeof(float);
  padded_gemm_kernel<<<dim3((n + kTile - 1) / kTile, (m + kTile - 1) / kTile), dim3(kTile, kTile), bytes, stream>>>(
      a, b, c, m, n, k);
}
