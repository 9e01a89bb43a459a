// Catalogue, lab 06: no barrier between the steps of the tree.
// Step s reads partial[tid + s], which another thread wrote in the step before; without __syncthreads() between the
// steps, it may read it before or after that write. On a GPU the sum is right or wrong depending on timing.
// expect: race at line 15
#include "lab06_reduction.h"

__global__ void reduction_kernel(const float* __restrict__ in, int n, float* __restrict__ out) {
  extern __shared__ float partial[];
  const unsigned tid = threadIdx.x;
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) sum += in[i];
  partial[tid] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s) partial[tid] += partial[tid + s];  // <-- bug
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
