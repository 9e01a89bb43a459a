// Catalogue, lab 01: the grid is not rounded up.
// cols / block.x blocks cover only the whole blocks: the last partial block of columns (and of rows) gets no thread,
// so those elements of C are never written. Sizes that are multiples of the block hide this bug.
// expect: wrong
#include "lab01_matadd.h"

__global__ void matadd_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                              int rows, int cols) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows || col >= cols) return;
  const int i = row * cols + col;
  c[i] = a[i] + b[i];
}

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid(cols / block.x, rows / block.y);
  matadd_kernel<<<grid, block, 0, stream>>>(a, b, c, rows, cols);
}
