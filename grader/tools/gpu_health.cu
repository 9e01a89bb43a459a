// GPU health check of the instructor grader: after a student's program crashed or hung on the GPU, the grader runs
// this known-good program; exit status 0 means the GPU still computes correctly.
#include <cuda_runtime.h>

#include <cstdio>

__global__ void iota_kernel(int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

int main() {
  constexpr int n = 1 << 16;
  int* d = nullptr;
  if (cudaMalloc(&d, n * sizeof(int)) != cudaSuccess) return 2;
  iota_kernel<<<(n + 255) / 256, 256>>>(d, n);
  static int h[n];
  if (cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess) return 3;
  for (int i = 0; i < n; ++i)
    if (h[i] != i) return 4;
  cudaFree(d);
  std::puts("gpu ok");
  return 0;
}
