// Idiom: launches through a checking macro (the kernel named by the macro's argument, the error checked after it), and
// of a parenthesized kernel name; 32 x 8 blocks, one element per thread.
#include "lab01_matadd.h"

#define LAUNCH_AND_CHECK(kernel, grid, block, stream, ...)     \
  do {                                                         \
    kernel<<<grid, block, 0, stream>>>(__VA_ARGS__);           \
    const cudaError_t launch_error = cudaGetLastError();       \
    if (launch_error != cudaSuccess) return;                   \
  } while (0)

__global__ void add_rows(const float* a, const float* b, float* c, int rows, int cols, int first_row) {
  const int row = first_row + blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows && col < cols) c[row * cols + col] = a[row * cols + col] + b[row * cols + col];
}

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  const dim3 block(32, 8);
  const int top = rows / 2;  // the top half through the macro, the rest through a parenthesized name
  if (top > 0) LAUNCH_AND_CHECK(add_rows, dim3((cols + 31) / 32, (top + 7) / 8), block, stream, a, b, c, top, cols, 0);
  const int rest = rows - top;
  (add_rows)<<<dim3((cols + 31) / 32, (rest + 7) / 8), block, 0, stream>>>(a, b, c, rows, cols, top);
}
