// Lab 01 — matAdd: C = A + B, one thread per element.
//
// What you practise: turning blockIdx/blockDim/threadIdx into the index of the element a thread owns, guarding the
// threads that fall outside the matrix, and choosing a launch configuration that covers every element.
// Your part is in the TODO regions; the handout is labs/01_matadd/README.md. Test: ctest --test-dir build -R lab01
#include "lab01_matadd.h"

// ---- kernels --------------------------------------------------------------------------------------------------------

// One thread per element. Threads of a warp have consecutive threadIdx.x, so they own consecutive columns of one
// row: their loads and stores touch one contiguous run of memory (coalesced).
// [docs:matadd_kernel]
__global__ void matadd_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int rows,
                              int cols) {
  // TODO(lab01): compute this thread's row and column from blockIdx, blockDim and threadIdx (2 lines)
  const int row = 0;  // replace: the row this thread owns
  const int col = 0;  // replace: the column this thread owns
  // END TODO
  // TODO(lab01): return from threads outside the matrix: the grid is rounded up to whole blocks (1 line)
  // (nothing yet: every thread goes on, even those outside the matrix)
  // END TODO
  const int i = row * cols + col;  // row-major
  c[i] = a[i] + b[i];
}
// [/docs:matadd_kernel]

// TODO(lab01, going further): a float4 version, used when cols % 4 == 0 (optional, about 10 lines)
// Each thread adds four consecutive elements with one 16-byte load per input and one 16-byte store: fewer, wider
// memory instructions. Rows start at multiples of 4 elements when cols % 4 == 0, so every float4 is 16-byte aligned.
// Write matadd_vec4_kernel here, then launch it from matadd() when cols % 4 == 0.
// END TODO

// ---- launcher -------------------------------------------------------------------------------------------------------

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  // TODO(lab01): choose a block shape and a grid that covers every element, rounding up (about 3 lines)
  const dim3 block(1, 1);  // replace: e.g. 32 x 8 threads
  const dim3 grid(1, 1);   // replace: enough blocks to cover cols x rows, rounded up
  // END TODO
  matadd_kernel<<<grid, block, 0, stream>>>(a, b, c, rows, cols);
}
