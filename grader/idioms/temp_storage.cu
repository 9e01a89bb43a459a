// Idiom: the block's scratch as one __shared__ union, as libraries declare their "TempStorage": the warps' partial
// sums in one member array, the block's total in a member struct that reuses the same words once every warp's sum has
// been read.
#include "lab06_reduction.h"

union TempStorage {
  float warp_sums[32];
  struct {
    float total;
    int warps;
  } result;
};

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void reduction_kernel(const float* __restrict__ in, int n, float* __restrict__ out) {
  __shared__ TempStorage temp;
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) sum += in[i];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  sum = warp_sum(sum);
  if (lane == 0) temp.warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = lane < static_cast<int>(blockDim.x / 32) ? temp.warp_sums[lane] : 0.0f;
    sum = warp_sum(sum);
  }
  __syncthreads();  // the union's words are reused: every read of warp_sums comes first
  if (threadIdx.x == 0) {
    temp.result.total = sum;
    temp.result.warps = static_cast<int>(blockDim.x / 32);
  }
  __syncthreads();
  if (threadIdx.x == blockDim.x - 1 && temp.result.warps > 0) out[blockIdx.x] = temp.result.total;
}

void reduction(const float* in, int n, float* result, float* scratch, int block_size, cudaStream_t stream) {
  int device = 0, sms = 1, threads_per_sm = 2048;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
  const int wave = sms * (threads_per_sm / block_size), pieces = (n + block_size - 1) / block_size;
  const int blocks = pieces < wave ? pieces : wave;
  reduction_kernel<<<blocks, block_size, 0, stream>>>(in, n, scratch);
  reduction_kernel<<<1, block_size, 0, stream>>>(scratch, blocks, result);
}
