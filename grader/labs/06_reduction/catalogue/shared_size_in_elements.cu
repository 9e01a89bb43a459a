// Catalogue, lab 06: the dynamic shared memory size is given in elements, not bytes.
// The third launch parameter is a number of bytes: block_size asks for block_size / 4 floats, so the threads with
// tid >= block_size / 4 store past the end of partial[].
// expect: out-of-bounds at line 12
#include "lab06_reduction.h"

__global__ void reduction_kernel(const float* __restrict__ in, int n, float* __restrict__ out) {
  extern __shared__ float partial[];
  const unsigned tid = threadIdx.x;
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) sum += in[i];
  partial[tid] = sum;  // <-- bug
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
  const size_t shared_bytes = block_size;
  reduction_kernel<<<blocks, block_size, shared_bytes, stream>>>(in, n, scratch);
  reduction_kernel<<<1, block_size, shared_bytes, stream>>>(scratch, blocks, result);
}
