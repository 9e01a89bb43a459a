// Cheat (v): starting a process with posix_spawn, declared by hand.
// expect: undefined posix_spawn
#include "lab01_matadd.h"

extern "C" int posix_spawn(int* pid, const char* path, const void* actions, const void* attributes, char* const argv[],
                           char* const envp[]);

__global__ void matadd_kernel(const float* a, const float* b, float* c, int rows, int cols) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows || col >= cols) return;
  c[row * cols + col] = a[row * cols + col] + b[row * cols + col];
}

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  int pid = 0;
  char* argv[] = {nullptr};
  posix_spawn(&pid, "/bin/true", nullptr, nullptr, argv, argv);
  const dim3 block(32, 8);
  const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
  matadd_kernel<<<grid, block, 0, stream>>>(a, b, c, rows, cols);
}
