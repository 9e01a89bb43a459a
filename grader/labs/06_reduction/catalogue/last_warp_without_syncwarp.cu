// Catalogue, lab 06: the last warp of the tree unrolled without __syncwarp().
// Old code (and old course notes) finish the tree with one warp and no barrier, relying on the 32 lanes running in
// lockstep. Since Volta, lanes of a warp may run apart: lane t can add partial[t + 16] before lane t + 16 stored it.
// A __syncwarp() between the steps (or warp shuffles on registers) is needed.
// expect: race at line 20
#include "lab06_reduction.h"

__global__ void reduction_kernel(const float* __restrict__ in, int n, float* __restrict__ out) {
  extern __shared__ float partial[];
  const unsigned tid = threadIdx.x;
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) sum += in[i];
  partial[tid] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s /= 2) {
    if (tid < s) partial[tid] += partial[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    partial[tid] += partial[tid + 32];  // <-- bug
    partial[tid] += partial[tid + 16];
    partial[tid] += partial[tid + 8];
    partial[tid] += partial[tid + 4];
    partial[tid] += partial[tid + 2];
    partial[tid] += partial[tid + 1];
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
