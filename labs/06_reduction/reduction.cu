// Lab 06 — reduction: the sum of n floats, with shared memory sized at launch.
//
// What you practise: declaring shared memory as `extern __shared__` and giving its size in bytes as the third
// launch parameter, so one kernel serves every block size; reducing a block's values to one through shared memory
// with a barrier between the steps (never inside a branch that only some threads take); letting each thread first
// add many inputs in a grid-stride loop, so the block tree runs once per thread instead of once per input; and
// finishing with a second, one-block launch that turns the blocks' partial sums into a single scalar.
// Your part is in the TODO regions; the handout is labs/06_reduction/README.md. Test: ctest --test-dir build -R lab06
#include "lab06_reduction.h"

// ---- kernels --------------------------------------------------------------------------------------------------------

// The launcher runs this kernel twice: pass 1 with many blocks over in[0 .. n), each block storing its sum to
// out[blockIdx.x]; pass 2 with one block over those partial sums, storing the total to out[0]. The grid-stride loop
// lets any number of blocks cover any n.
// [docs:reduction_kernel]
__global__ void reduction_kernel(const float* __restrict__ in, int n, float* __restrict__ out) {
  extern __shared__ float partial[];  // its size in bytes is the launch's third parameter: see reduction() below

  // [docs:reduction_grid_stride]
  // TODO(lab06): add up this thread's share of in[]: elements i, i + stride, i + 2 * stride, ... where i is the
  // thread's index in the grid and stride the number of threads in the grid (about 8 lines; 17 with float4 loads)
  float sum = 0.0f;  // replace: the sum of this thread's share of in[]
  // END TODO
  // [/docs:reduction_grid_stride]

  // [docs:reduction_block]
  // TODO(lab06): reduce the block's sums to one through partial[] and let one thread store it to out[blockIdx.x]
  // (about 12 lines)
  if (threadIdx.x == 0) out[blockIdx.x] = sum;  // replace: this stores thread 0's value only
  // END TODO
  // [/docs:reduction_block]
}
// [/docs:reduction_kernel]

// TODO(lab06, going further): the variants between the baseline and the kernel above, to time them (optional)
// Time each variant of the handout's table with the same level-by-level launcher as the baseline; the comments of
// grader/labs/06_reduction/reduce_interleaved.cu and the handout say what changes from one variant to the next.
// END TODO

// ---- launcher -------------------------------------------------------------------------------------------------------

// [docs:reduction_launch]
void reduction(const float* in, int n, float* result, float* scratch, int block_size, cudaStream_t stream) {
  // TODO(lab06): choose the number of blocks of pass 1 and the bytes of partial[] each block gets (about 7 lines)
  const int blocks = 1;           // replace: enough blocks to keep every SM busy, and no more than needed
  const size_t shared_bytes = 0;  // replace: the bytes of partial[] your block reduction uses
  // END TODO
  // Pass 1: block b stores the sum of its share of in[] to scratch[b].
  reduction_kernel<<<blocks, block_size, shared_bytes, stream>>>(in, n, scratch);
  // Pass 2: one block adds the blocks' sums and stores the total to *result.
  reduction_kernel<<<1, block_size, shared_bytes, stream>>>(scratch, blocks, result);
}
// [/docs:reduction_launch]
