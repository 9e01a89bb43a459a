// Idiom (a bug): the launcher clears the output on the host before the launch, as one would a std::vector. c is a
// cudaMalloc pointer: host code cannot dereference it, and on a GPU the loop is a segmentation fault.
#include "lab01_matadd.h"

__global__ void matadd_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int rows,
                              int cols) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) c[row * cols + col] = a[row * cols + col] + b[row * cols + col];
}

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  for (int i = 0; i < rows * cols; ++i) c[i] = 0.0f;
  const dim3 block(32, 8);
  const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
  matadd_kernel<<<grid, block, 0, stream>>>(a, b, c, rows, cols);
}
