// Catalogue, lab 01: the bounds guard is missing.
// The grid is rounded up to whole blocks, so threads of the last blocks fall outside the matrix; without the guard
// they read and write past the end of the buffers (on a GPU: a crash, or silently corrupted memory).
// expect: out-of-bounds at line 13
#include "lab01_matadd.h"

__global__ void matadd_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                              int rows, int cols) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  (void)rows;
  const int i = row * cols + col;
  c[i] = a[i] + b[i];
}

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
  matadd_kernel<<<grid, block, 0, stream>>>(a, b, c, rows, cols);
}
