// Idiom: each warp adds its sum into the block's own scratch element with atomicAdd after thread 0 zeroed it (a
// __syncthreads() between), and a second one-block launch reduces the blocks' sums the same way.
#include "lab06_reduction.h"

__global__ void reduction_kernel(const float* __restrict__ in, int n, float* __restrict__ out) {
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
  if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
  __syncthreads();
  for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffff, v, d);
  if (threadIdx.x % 32 == 0) atomicAdd(&out[blockIdx.x], v);
}

void reduction(const float* in, int n, float* result, float* scratch, int block_size, cudaStream_t stream) {
  int device = 0, sms = 1, per_sm = 2048;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
  const int wave = sms * (per_sm / block_size), needed = (n + block_size - 1) / block_size;
  const int blocks = needed < wave ? needed : wave;
  reduction_kernel<<<blocks, block_size, 0, stream>>>(in, n, scratch);
  reduction_kernel<<<1, block_size, 0, stream>>>(scratch, blocks, result);
}
