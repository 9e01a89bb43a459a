// Idiom: read-only loads through __ldg() in a __device__ __forceinline__ helper, 16 x 16 blocks over a 2D grid and a
// 64-bit index (size_t) for the element.
#include "lab01_matadd.h"

__device__ __forceinline__ float load_read_only(const float* p) { return __ldg(p); }

__global__ void matadd_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int rows,
                              int cols) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) {
    const size_t i = static_cast<size_t>(row) * cols + col;
    c[i] = load_read_only(a + i) + load_read_only(&b[i]);
  }
}

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  const dim3 block(16, 16);
  const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
  matadd_kernel<<<grid, block, 0, stream>>>(a, b, c, rows, cols);
}
