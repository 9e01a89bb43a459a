// Catalogue, lab 01: one thread per block. Correct, but a block of one thread fills one lane of a 32-lane warp and a
// multiprocessor holds a limited number of blocks at once, so most of the GPU idles: far below the copy bandwidth.
// expect: correct
// expect-gpu: perf-fail
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
  const dim3 block(1, 1);
  const dim3 grid(cols, rows);
  matadd_kernel<<<grid, block, 0, stream>>>(a, b, c, rows, cols);
}
