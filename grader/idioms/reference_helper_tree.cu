// Idiom: the tree's step in a __device__ helper that adds into a reference, `accumulate(partial[tid],
// partial[tid + s])`, with `__device__ void accumulate(float& into, float value)`, over blockDim.x floats of dynamic
// shared memory.
#include "lab06_reduction.h"

__device__ void accumulate(float& into, float value) { into += value; }

__global__ void reduction_kernel(const float* __restrict__ in, int n, float* __restrict__ out) {
  extern __shared__ float partial[];
  const unsigned tid = threadIdx.x;
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) sum += in[i];
  partial[tid] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s) accumulate(partial[tid], partial[tid + s]);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}

void reduction(const float* in, int n, float* result, float* scratch, int block_size, cudaStream_t stream) {
  int device = 0, sms = 1, threads_per_sm = 2048;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
  const int wave = sms * (threads_per_sm / block_size), pieces = (n + block_size - 1) / block_size;
  const int blocks = pieces < wave ? pieces : wave;
  const size_t shared_bytes = block_size * sizeof(float);
  reduction_kernel<<<blocks, block_size, shared_bytes, stream>>>(in, n, scratch);
  reduction_kernel<<<1, block_size, shared_bytes, stream>>>(scratch, blocks, result);
}
