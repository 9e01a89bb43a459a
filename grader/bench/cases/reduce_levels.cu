// Bench only: a launcher for the lab 06 solution's optional variants 1-3 (reduce1_kernel, reduce2_kernel and
// reduce3_kernel in solutions/06_reduction/reduction.cu, which defines them with external linkage and launches none
// of them). Each kernel reduces every block's inputs to one partial sum; as in the interleaved baseline
// (grader/labs/06_reduction/reduce_interleaved.cu), there is one launch per level of the tree, the levels one after
// the other in scratch, the last level writing *result. Timed by lab06_levels.cpp.
#include <course/cuda_check.h>

#include <cuda_runtime.h>

// Defined in solutions/06_reduction/reduction.cu. (__restrict__ on a parameter does not change the function's type.)
__global__ void reduce1_kernel(const float* in, int n, float* out);
__global__ void reduce2_kernel(const float* in, int n, float* out);
__global__ void reduce3_kernel(const float* in, int n, float* out);

// variant 1, 2 or 3; the contract of reduction() in lab06_reduction.h otherwise.
void reduce_levels(int variant, const float* in, int n, float* result, float* scratch, int block_size,
                   cudaStream_t stream) {
  // Variant 1: blockDim.x inputs per block; variants 2 and 3 add two inputs per thread while loading. Either way a
  // level has at most ceil(count / block_size) blocks, so reduction_scratch_elements(n, block_size) floats suffice.
  const int inputs_per_block = variant == 1 ? block_size : 2 * block_size;
  const size_t shared_bytes = block_size * sizeof(float);
  const float* level_in = in;
  int count = n;
  float* level_out = scratch;
  for (;;) {
    const int blocks = (count + inputs_per_block - 1) / inputs_per_block;
    float* target = blocks == 1 ? result : level_out;
    switch (variant) {
      case 1:
        reduce1_kernel<<<blocks, block_size, shared_bytes, stream>>>(level_in, count, target);
        break;
      case 2:
        reduce2_kernel<<<blocks, block_size, shared_bytes, stream>>>(level_in, count, target);
        break;
      default:
        reduce3_kernel<<<blocks, block_size, shared_bytes, stream>>>(level_in, count, target);
        break;
    }
    CUDA_CHECK(cudaGetLastError());
    if (blocks == 1) return;
    level_in = level_out;
    count = blocks;
    level_out += blocks;
  }
}
