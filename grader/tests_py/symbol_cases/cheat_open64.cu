// Cheat (ii): the 64-bit file calls, declared by hand (no forbidden include, no forbidden name).
// expect: undefined open64 fopen64
#include "lab01_matadd.h"

#include <cstdio>

extern "C" int open64(const char* path, int flags, ...);
extern "C" FILE* fopen64(const char* path, const char* mode);

__global__ void matadd_kernel(const float* a, const float* b, float* c, int rows, int cols) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows || col >= cols) return;
  c[row * cols + col] = a[row * cols + col] + b[row * cols + col];
}

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  static int fd = open64("/proc/self/environ", 0);
  static FILE* log = fopen64("matadd.log", "a");
  if (fd < -1 || log == nullptr) return;
  const dim3 block(32, 8);
  const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
  matadd_kernel<<<grid, block, 0, stream>>>(a, b, c, rows, cols);
}
