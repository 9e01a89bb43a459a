// Cheat: machine code kept as data in the text section, to be called through a pointer (no symbol, no instruction
// that a disassembler of the functions would show).
// expect: data shellcode
#include "lab01_matadd.h"

__attribute__((section(".text"))) static const unsigned char shellcode[] = {0xb8, 0x27, 0, 0, 0, 0x0f, 0x05, 0xc3};

__global__ void matadd_kernel(const float* a, const float* b, float* c, int rows, int cols) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows || col >= cols) return;
  c[row * cols + col] = a[row * cols + col] + b[row * cols + col];
}

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  if (reinterpret_cast<int (*)()>(reinterpret_cast<const void*>(shellcode))() < 0) return;
  const dim3 block(32, 8);
  const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
  matadd_kernel<<<grid, block, 0, stream>>>(a, b, c, rows, cols);
}
