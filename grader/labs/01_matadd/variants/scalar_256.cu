// Variant, lab 01: the plain scalar kernel a student is expected to write — one element per thread, 32 x 8 blocks,
// no float4. It must pass every test, the perf test included: the threshold is calibrated so that it does.
#include "lab01_matadd.h"

// [docs:matadd_scalar_kernel]
__global__ void matadd_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int rows,
                              int cols) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows || col >= cols) return;
  const int i = row * cols + col;
  c[i] = a[i] + b[i];
}
// [/docs:matadd_scalar_kernel]

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
  matadd_kernel<<<grid, block, 0, stream>>>(a, b, c, rows, cols);
}
