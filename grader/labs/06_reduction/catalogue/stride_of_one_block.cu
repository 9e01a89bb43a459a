// Catalogue, lab 06: the grid-stride loop steps by one block instead of the whole grid.
// `i += blockDim.x` makes every block walk from its start to n, so block b adds the inputs of blocks b, b + 1, ...:
// inputs are counted several times. One block (n <= block_size) hides it.
// expect: wrong
#include "lab06_reduction.h"

__global__ void reduction_kernel(const float* __restrict__ in, int n, float* __restrict__ out) {
  extern __shared__ float partial[];
  const unsigned tid = threadIdx.x;
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x) sum += in[i];
  partial[tid] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s) partial[tid] += partial[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}

void reduction(const float* in, int n, float* result, float* scratch, int block_size, cudaStream_t stream) {
  const int pieces = (n + block_size - 1) / block_size;
  const int blocks = pieces < 1024 ? pieces : 1024;
  const size_t shared_bytes = block_size * sizeof(float);
  reduction_kernel<<<blocks, block_size, shared_bytes, stream>>>(in, n, scratch);
  reduction_kernel<<<1, block_size, shared_bytes, stream>>>(scratch, blocks, result);
}
