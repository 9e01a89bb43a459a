// Idiom: a one-pass reduction. Each block stores its sum to scratch[blockIdx.x], makes it visible to the whole device
// with __threadfence(), and takes a ticket from a __device__ counter with atomicInc; the block that draws the last
// ticket knows every other sum is in place, adds them up and stores the total. atomicInc's wrap (at gridDim.x - 1 the
// counter goes back to 0) leaves the counter ready for the next launch.
#include "lab06_reduction.h"

__device__ unsigned int blocks_finished = 0;

// The sum of v over the block (valid in thread 0); `sums` holds one value per warp.
__device__ float block_sum(float v, float* sums) {
  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffff, v, d);
  if (threadIdx.x % 32 == 0) sums[threadIdx.x / 32] = v;
  __syncthreads();
  v = 0.0f;
  if (threadIdx.x < 32) {
    v = threadIdx.x < blockDim.x / 32 ? sums[threadIdx.x] : 0.0f;
    for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffff, v, d);
  }
  return v;
}

__global__ void one_pass_sum(const float* __restrict__ in, int n, float* partial, float* result) {
  __shared__ float sums[32];
  __shared__ bool last_block;
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
  v = block_sum(v, sums);
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = v;
    __threadfence();  // the sum reaches global memory before the ticket is taken
    last_block = atomicInc(&blocks_finished, gridDim.x - 1) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last_block) return;
  float total = 0.0f;
  for (int b = threadIdx.x; b < gridDim.x; b += blockDim.x) total += partial[b];
  __syncthreads();  // (sums is reused)
  total = block_sum(total, sums);
  if (threadIdx.x == 0) *result = total;
}

void reduction(const float* in, int n, float* result, float* scratch, int block_size, cudaStream_t stream) {
  int device = 0, sms = 1, per_sm = 2048;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
  const int wave = sms * (per_sm / block_size), needed = (n + block_size - 1) / block_size;
  const int blocks = needed < wave ? needed : wave;
  one_pass_sum<<<blocks, block_size, 0, stream>>>(in, n, scratch, result);
}
