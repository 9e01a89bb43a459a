// Cheat: forging the perf test's recorded measurement through GoogleTest, declared by hand (no gtest include).
// expect: harness testing::Test::RecordProperty
// split: link-fails testing::Test::RecordProperty  (GoogleTest lives in the judge, not in the worker)
#include "lab01_matadd.h"

#include <string>

namespace testing {
class Test {
 public:
  static void RecordProperty(const std::string& key, const std::string& value);
};
}  // namespace testing

__global__ void matadd_kernel(const float* a, const float* b, float* c, int rows, int cols) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows || col >= cols) return;
  c[row * cols + col] = a[row * cols + col] + b[row * cols + col];
}

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  testing::Test::RecordProperty("ratio", "9.0");
  const dim3 block(32, 8);
  const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
  matadd_kernel<<<grid, block, 0, stream>>>(a, b, c, rows, cols);
}
