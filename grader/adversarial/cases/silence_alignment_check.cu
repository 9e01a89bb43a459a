// Adversarial suite (grader/adversarial/forgeries.toml): silence_alignment_check. Each row is added as float4 when
// the width is even, which is misaligned from the second row on when cols % 4 == 2 (a fault on a GPU); the file
// defines the handler that check mode's alignment checks call, as an empty function, so that they would report
// nothing. The CPU runtime defines it: the symbol rules see the collision, `forbidden`.
#include "lab01_matadd.h"

#include <cstdint>

extern "C" void __ubsan_handle_type_mismatch_v1(void*, std::uintptr_t) {}

__global__ void matadd_rows4(const float* a, const float* b, float* c, int rows, int cols) {
  const int row = blockIdx.y, col4 = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows || col4 >= cols / 4) return;
  const float4* ra = reinterpret_cast<const float4*>(a + static_cast<size_t>(row) * cols);
  const float4* rb = reinterpret_cast<const float4*>(b + static_cast<size_t>(row) * cols);
  float4* rc = reinterpret_cast<float4*>(c + static_cast<size_t>(row) * cols);
  const float4 x = ra[col4], y = rb[col4];
  rc[col4] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
}

__global__ void matadd_tail(const float* a, const float* b, float* c, int rows, int cols, int first) {
  const int row = blockIdx.y, col = first + blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows && col < cols)
    c[static_cast<size_t>(row) * cols + col] =
        a[static_cast<size_t>(row) * cols + col] + b[static_cast<size_t>(row) * cols + col];
}

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  const int first = cols % 2 == 0 ? cols / 4 * 4 : 0;
  if (first > 0) matadd_rows4<<<dim3((cols / 4 + 255) / 256, rows), 256, 0, stream>>>(a, b, c, rows, cols);
  matadd_tail<<<dim3((cols - first + 255) / 256 + 1, rows), 256, 0, stream>>>(a, b, c, rows, cols, first);
}
