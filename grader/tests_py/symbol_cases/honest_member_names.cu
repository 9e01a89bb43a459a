// Honest: host-side helpers whose member functions are named open() and write(), and locals named like libc calls.
#include "lab01_matadd.h"

struct LaunchPlan {
  dim3 block, grid;
  void open(int rows, int cols) {
    block = dim3(32, 8);
    grid = dim3((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
  }
  int write(int value) const { return value; }
  LaunchPlan& reset(int rows, int cols) {
    open(rows, cols);  // a call to the member, as the old token rule 'open(' could not tell
    write(0);
    return *this;
  }
};

__global__ void matadd_kernel(const float* a, const float* b, float* c, int rows, int cols) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows || col >= cols) return;
  c[row * cols + col] = a[row * cols + col] + b[row * cols + col];
}

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  LaunchPlan plan;
  plan.reset(rows, cols).open(rows, cols);
  const int system = plan.write(0), exit = 0, signal = 0;
  matadd_kernel<<<plan.grid, plan.block, system + exit + signal, stream>>>(a, b, c, rows, cols);
}
