// Catalogue, lab 01: row and column swapped in the index.
// The row comes from the x dimension and the column from y, but the grid was sized for (columns, rows): threads
// cover the wrong rectangle, so some elements are never written and others are skipped by the guard.
// expect: wrong
#include "lab01_matadd.h"

__global__ void matadd_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                              int rows, int cols) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= rows || col >= cols) return;
  const int i = row * cols + col;
  c[i] = a[i] + b[i];
}

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
  matadd_kernel<<<grid, block, 0, stream>>>(a, b, c, rows, cols);
}
