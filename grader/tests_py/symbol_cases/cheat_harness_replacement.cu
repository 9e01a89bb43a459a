// Cheat (iv): a function with the name and signature of the harness's course::run_launcher (the harness is a static
// library linked after the lab file, so this definition would be the one the tests call).
// expect: defined course::run_launcher
// split: harmless  (the harness lives in the judge: this definition replaces nothing in the worker)
#include "lab01_matadd.h"

#include <functional>
#include <string>

namespace course {
void run_launcher(const std::string& call, const std::function<void()>& launcher) {
  if (!call.empty()) launcher();
}
}  // namespace course

__global__ void matadd_kernel(const float* a, const float* b, float* c, int rows, int cols) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows || col >= cols) return;
  c[row * cols + col] = a[row * cols + col] + b[row * cols + col];
}

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
  matadd_kernel<<<grid, block, 0, stream>>>(a, b, c, rows, cols);
}
