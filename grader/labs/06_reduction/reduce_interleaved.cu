// Baseline for lab 06: the first shared-memory reduction of the cuda-samples series (reduce0), interleaved
// addressing. Each block loads blockDim.x inputs into shared memory and halves them in log2(blockDim.x) steps; at step
// s the threads with tid % (2 * s) == 0 add partial[tid + s], so the active threads are scattered over all the warps
// (divergence) and the modulo is slow. One launch per level of the tree; the last writes *result.
// The perf test times the lab's reduction() against this, in the same process.
#include "lab06_baselines.h"

// [docs:reduce_interleaved_kernel]
__global__ void reduce_interleaved_kernel(const float* __restrict__ in, int n, float* __restrict__ out) {
  extern __shared__ float partial[];  // blockDim.x floats
  const unsigned tid = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  // [docs:reduce_interleaved_tree]
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) partial[tid] += partial[tid + s];
    __syncthreads();
  }
  // [/docs:reduce_interleaved_tree]
  if (tid == 0) out[blockIdx.x] = partial[0];
}
// [/docs:reduce_interleaved_kernel]

// [docs:reduce_interleaved_launch]
void reduce_interleaved(const float* in, int n, float* result, float* scratch, int block_size, cudaStream_t stream) {
  const size_t shared_bytes = block_size * sizeof(float);
  const float* level_in = in;
  int count = n;
  float* level_out = scratch;  // the levels lie one after the other in scratch (see reduction_scratch_elements)
  for (;;) {
    const int blocks = (count + block_size - 1) / block_size;
    float* target = blocks == 1 ? result : level_out;
    reduce_interleaved_kernel<<<blocks, block_size, shared_bytes, stream>>>(level_in, count, target);
    if (blocks == 1) return;
    level_in = level_out;
    count = blocks;
    level_out += blocks;
  }
}
// [/docs:reduce_interleaved_launch]
