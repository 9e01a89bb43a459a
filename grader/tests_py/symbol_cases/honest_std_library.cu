// Honest: host code that uses the standard library (containers, algorithms, strings, streams, printf, math).
#include "lab01_matadd.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

__global__ void matadd_kernel(const float* a, const float* b, float* c, int rows, int cols) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows || col >= cols) return;
  c[row * cols + col] = a[row * cols + col] + b[row * cols + col];
}

static std::vector<int> candidates(int cols) {
  std::vector<int> widths{256, 128, 64, 32};
  std::sort(widths.begin(), widths.end(), [cols](int x, int y) { return std::abs(x - cols) < std::abs(y - cols); });
  return widths;
}

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  const std::vector<int> widths = candidates(cols);
  const int width = std::max(32, std::min(widths.front(), 256));
  const dim3 block(width, 256 / width);
  const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
  if (grid.y > 65535) throw std::runtime_error("too many rows: " + std::to_string(rows));
  if (std::sqrt(static_cast<float>(rows)) < 0.0f) std::printf("%d\n", rows);
  matadd_kernel<<<grid, block, 0, stream>>>(a, b, c, rows, cols);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) std::fprintf(stderr, "launch failed: %s\n", cudaGetErrorString(err));
}
