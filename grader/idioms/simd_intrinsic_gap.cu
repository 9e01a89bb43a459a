// Idiom the CPU backend lacks: a SIMD video intrinsic (__vmaxu4, the per-byte maximum of two packed words), which
// nvcc declares and the backend does not. The build against the backend fails with "'__vmaxu4' was not declared";
// the grader finds the name in the toolkit's list (grader/course_grader/cuda_functions.txt), so the file is
// not-graded ("the CPU backend does not support __vmaxu4()") on every machine, never build-error.
#include "lab01_matadd.h"

__global__ void matadd_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned shift = __vmaxu4(0u, 0u);  // 0: the four bytes of 0 and 0
  if (i < n) c[i + shift] = a[i] + b[i];
}

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  const int n = rows * cols;
  matadd_kernel<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
}
