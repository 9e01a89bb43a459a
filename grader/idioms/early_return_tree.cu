// Idiom (a bug): `if (i >= n) return;` before the tree's __syncthreads(): in the last block the threads past n have
// left, the rest wait at a barrier they never reach together, and the tree reads their shared elements, never
// written. Undefined behaviour on a GPU, reported by check mode.
#include "lab06_reduction.h"

__global__ void reduce_kernel(const float* __restrict__ in, int n, float* __restrict__ out) {
  extern __shared__ float sdata[];
  const unsigned tid = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  sdata[tid] = in[i];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

void reduction(const float* in, int n, float* result, float* scratch, int block_size, cudaStream_t stream) {
  const size_t bytes = block_size * sizeof(float);
  int blocks = (n + block_size - 1) / block_size;
  const float* src = in;
  float* dst = blocks == 1 ? result : scratch;
  reduce_kernel<<<blocks, block_size, bytes, stream>>>(src, n, dst);
  while (blocks > 1) {
    const int count = blocks;
    blocks = (count + block_size - 1) / block_size;
    src = dst;
    dst = blocks == 1 ? result : dst + count;
    reduce_kernel<<<blocks, block_size, bytes, stream>>>(src, count, dst);
  }
}
