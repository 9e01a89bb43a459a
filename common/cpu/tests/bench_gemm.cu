// The benchmark kernel: the course's 16x16 tiled GEMM. Compiled twice (fast
// and check mode) into one executable, each copy in its own namespace.
#include <cuda_runtime.h>

namespace BENCH_NS {

__global__ void gemm16(const float* A, const float* B, float* C, int n) {
  __shared__ float As[16][16];
  __shared__ float Bs[16][16];
  const int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < n / 16; ++t) {
    As[threadIdx.y][threadIdx.x] = A[row * n + t * 16 + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(t * 16 + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < 16; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

cudaError_t run(const float* A, const float* B, float* C, int n) {
  gemm16<<<dim3(n / 16, n / 16), dim3(16, 16)>>>(A, B, C, n);
  return cudaDeviceSynchronize();
}

}  // namespace BENCH_NS
