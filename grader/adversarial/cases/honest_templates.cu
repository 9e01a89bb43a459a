// Adversarial suite (grader/adversarial/honest.toml): honest_templates. Correct code in the idioms of real CUDA C++:
// a namespace, a kernel template over the element type and the rows each thread adds (#pragma unroll), __restrict__,
// constexpr launch constants and generic lambdas in the host code. Graded like any correct kernel.
#include "lab01_matadd.h"

namespace matrix_ops {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr int kRowsPerThread = 4;

// Each thread adds kRows elements of one column, kBlockY rows apart, so that a warp still reads one contiguous run of
// a row per step.
template <typename T, int kRows>
__global__ void add_kernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, int rows, int cols) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int first_row = blockIdx.y * blockDim.y * kRows + threadIdx.y;
  if (col >= cols) return;
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const int row = first_row + r * blockDim.y;
    if (row < rows) {
      const long long i = static_cast<long long>(row) * cols + col;
      c[i] = a[i] + b[i];
    }
  }
}

}  // namespace matrix_ops

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  using namespace matrix_ops;
  const auto blocks_for = [](auto extent, auto per_block) { return (extent + per_block - 1) / per_block; };
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid(blocks_for(cols, kBlockX), blocks_for(rows, kBlockY * kRowsPerThread));
  const auto launch = [&](auto kernel) { kernel<<<grid, block, 0, stream>>>(a, b, c, rows, cols); };
  launch(add_kernel<float, kRowsPerThread>);
}
