// Idiom: the launch inside a checking macro that names the kernel by its argument, parenthesized as macro bodies
// write their parameters, and checks the launch's error; 32 x 8 blocks, one element per thread.
#include "lab01_matadd.h"

#define LAUNCH_AND_CHECK(kernel, grid, block, stream, ...)   \
  do {                                                       \
    (kernel)<<<(grid), (block), 0, (stream)>>>(__VA_ARGS__); \
    const cudaError_t launch_error = cudaGetLastError();     \
    if (launch_error != cudaSuccess) return;                 \
  } while (0)

__global__ void add(const float* a, const float* b, float* c, int rows, int cols) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows && col < cols) c[row * cols + col] = a[row * cols + col] + b[row * cols + col];
}

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  const dim3 block(32, 8), grid((cols + 31) / 32, (rows + 7) / 8);
  LAUNCH_AND_CHECK(add, grid, block, stream, a, b, c, rows, cols);
}
