// Idiom: the last step of a block reduction done by only the lanes that hold a warp's sum, inside the branch that
// selects them, with the shuffles' mask from __activemask(); a shuffle from a lane outside it is read but not used.
#include "lab06_reduction.h"

__global__ void reduction_kernel(const float* __restrict__ in, int n, float* __restrict__ out) {
  __shared__ float partial[32];  // one sum per warp
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) sum += in[i];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0) partial[warp] = sum;
  __syncthreads();
  if (warp == 0 && lane < warps) {
    const unsigned active = __activemask();  // the first `warps` lanes
    float val = partial[lane];
    for (int offset = 16; offset > 0; offset /= 2) {
      const float other = __shfl_down_sync(active, val, offset);
      if (lane + offset < warps) val += other;
    }
    if (lane == 0) out[blockIdx.x] = val;
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
