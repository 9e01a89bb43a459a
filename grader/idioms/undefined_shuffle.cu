// Idiom with a bug: warp 0 adds the warps' sums with a mask of only the lanes that hold one. A shuffle that reads a
// lane outside its mask gets an undefined value (lane 0 reads lane 16 with 8 warps): the CPU backend gives it all
// one bits (NaN), so the sum is wrong on every run, as it may be on a GPU.
#include "lab06_reduction.h"

__global__ void reduction_kernel(const float* __restrict__ in, int n, float* __restrict__ out) {
  __shared__ float warp_sums[32];
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) sum += in[i];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    const unsigned holders = __ballot_sync(0xffffffffu, lane < warps);
    if (lane < warps) {
      float v = warp_sums[lane];
      for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(holders, v, offset);  // BUG
      if (lane == 0) out[blockIdx.x] = v;
    }
  }
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
