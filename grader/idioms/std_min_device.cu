// Idiom: std::min in a kernel, each thread adding four consecutive elements of its row up to the row's end. nvcc
// rejects it ("calling a constexpr __host__ function("min") from a __global__ function is not allowed": the course
// does not pass --expt-relaxed-constexpr), so the CPU backend refuses it too: build-error on every machine. CUDA's
// own min(col + 4, cols) compiles.
#include "lab01_matadd.h"

#include <algorithm>

__global__ void matadd_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int rows,
                              int cols) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int first = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
  if (row >= rows) return;
  const int end = std::min(first + 4, cols);
  for (int col = first; col < end; ++col) {
    const long long i = static_cast<long long>(row) * cols + col;
    c[i] = a[i] + b[i];
  }
}

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((cols + 4 * block.x - 1) / (4 * block.x), (rows + block.y - 1) / block.y);
  matadd_kernel<<<grid, block, 0, stream>>>(a, b, c, rows, cols);
}
