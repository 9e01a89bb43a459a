// Honest: a launcher that caches its launch shape per size in a std::map (operator[] emplaces with
// std::piecewise_construct, an inline variable: a unique definition in this object and in any other that uses it).
#include "lab01_matadd.h"

#include <map>
#include <tuple>
#include <utility>

__global__ void matadd_kernel(const float* a, const float* b, float* c, int rows, int cols) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows || col >= cols) return;
  c[row * cols + col] = a[row * cols + col] + b[row * cols + col];
}

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  static std::map<std::pair<int, int>, std::pair<dim3, dim3>> shapes;
  auto found = shapes.find({rows, cols});
  if (found == shapes.end()) {
    const dim3 block(32, 8);
    const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    found =
        shapes.emplace(std::piecewise_construct, std::forward_as_tuple(rows, cols), std::forward_as_tuple(grid, block))
            .first;
  }
  shapes[{rows, cols}] = found->second;
  matadd_kernel<<<found->second.first, found->second.second, 0, stream>>>(a, b, c, rows, cols);
}
