// Honest (GPU only: the CPU backend cannot run PTX): inline PTX in device code, a read-only global load.
// modes: gpu
#include "lab01_matadd.h"

__device__ float load_nc(const float* p) {
  float v;
  asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
}

__global__ void matadd_kernel(const float* a, const float* b, float* c, int rows, int cols) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows || col >= cols) return;
  c[row * cols + col] = load_nc(a + row * cols + col) + load_nc(b + row * cols + col);
}

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
  matadd_kernel<<<grid, block, 0, stream>>>(a, b, c, rows, cols);
}
