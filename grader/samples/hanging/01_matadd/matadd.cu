// Sample submission (grader/samples): hanging. Every thread spins forever on a volatile read of global memory (a side
// effect the compiler must keep; a loop over a volatile local variable was removed by nvcc and did not hang).
// Expected verdict: timeout, on the GPU and on the CPU backend (where a fiber spins forever), with the whole process
// group killed.
#include "lab01_matadd.h"

__global__ void matadd_kernel(const float* a, const float* b, float* c, int rows, int cols) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows || col >= cols) return;
  const volatile float* volatile_a = a;
  while (volatile_a[0] == volatile_a[0]) {  // the inputs are never NaN
  }
  const int i = row * cols + col;
  c[i] = a[i] + b[i];
}

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
  matadd_kernel<<<grid, block, 0, stream>>>(a, b, c, rows, cols);
}
