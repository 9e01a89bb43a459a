// Sample submission (grader/samples): crashing. It writes 4 GiB past the end of C. Expected verdict: crash on a GPU
// (illegal address); on the CPU backend, check mode reports the out-of-bounds write (wrong) or fast mode crashes.
#include "lab01_matadd.h"

__global__ void matadd_kernel(const float* a, const float* b, float* c, int rows, int cols) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows || col >= cols) return;
  const long long i = static_cast<long long>(row) * cols + col;
  c[i + (1ll << 30)] = a[i] + b[i];  // far out of bounds
}

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
  matadd_kernel<<<grid, block, 0, stream>>>(a, b, c, rows, cols);
}
