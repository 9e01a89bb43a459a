// Honest: a device helper that takes a volatile float* (as a warp-synchronous reduction would), on every backend.
#include "lab01_matadd.h"

__device__ void store(volatile float* out, int i, float value) { out[i] = value; }

__global__ void matadd_kernel(const float* a, const float* b, float* c, int rows, int cols) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows || col >= cols) return;
  store(c, row * cols + col, a[row * cols + col] + b[row * cols + col]);
}

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
  matadd_kernel<<<grid, block, 0, stream>>>(a, b, c, rows, cols);
}
