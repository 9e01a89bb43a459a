// Idiom: a struct in shared memory. Each thread adds with Kahan compensation ({sum, carry}), warps combine both
// members with shuffles, one struct per warp goes to a __shared__ array of structs, and warp 0 combines those.
#include "lab06_reduction.h"

struct Kahan {
  float sum;
  float carry;  // what the last additions lost, to be subtracted
};

__device__ Kahan add(Kahan a, float x) {
  const float y = x - a.carry;
  const float t = a.sum + y;
  return Kahan{t, (t - a.sum) - y};
}

__device__ Kahan warp_combine(Kahan k) {
  for (int offset = 16; offset > 0; offset /= 2) {
    const float other_sum = __shfl_down_sync(0xffffffffu, k.sum, offset);
    const float other_carry = __shfl_down_sync(0xffffffffu, k.carry, offset);
    k = add(k, other_sum);
    k.carry += other_carry;
  }
  return k;
}

__global__ void reduction_kernel(const float* __restrict__ in, int n, float* __restrict__ out) {
  __shared__ Kahan warp_parts[32];
  Kahan k{0.0f, 0.0f};
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) k = add(k, in[i]);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  k = warp_combine(k);
  if (lane == 0) warp_parts[warp] = k;
  __syncthreads();
  if (warp == 0) {
    k = lane < static_cast<int>(blockDim.x / 32) ? warp_parts[lane] : Kahan{0.0f, 0.0f};
    k = warp_combine(k);
    if (lane == 0) out[blockIdx.x] = k.sum - k.carry;
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
