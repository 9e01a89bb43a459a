// Sample submission (grader/samples): correct but slow, submitted flat (no 01_matadd/ folder).
// Consecutive threads own consecutive ROWS of one column (column-major walk), so the 32 threads of a warp touch 32
// addresses `cols` floats apart: every access is its own memory transaction (uncoalesced). Correct everywhere; on a
// GPU far below the threshold. On the CPU backend it passes (performance is graded on the course GPU only).
#include "lab01_matadd.h"

__global__ void matadd_kernel(const float* a, const float* b, float* c, int rows, int cols) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= static_cast<long long>(rows) * cols) return;
  const int row = static_cast<int>(t % rows);  // consecutive threads: consecutive rows (strided by cols)
  const int col = static_cast<int>(t / rows);
  const int i = row * cols + col;
  c[i] = a[i] + b[i];
}

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  const long long n = static_cast<long long>(rows) * cols;
  const int block = 256;
  const unsigned grid = static_cast<unsigned>((n + block - 1) / block);
  matadd_kernel<<<grid, block, 0, stream>>>(a, b, c, rows, cols);
}
