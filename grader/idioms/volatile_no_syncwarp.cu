// Idiom (a bug since Volta): the pre-Volta warp-synchronous tail through a `volatile float*` (cuda-samples' reduce4..6)
// with no __syncwarp(): lane t reads sdata[t + 16] while lane t + 16 writes it. Threads of a warp are scheduled
// independently since Volta, so this is a data race; check mode (which runs on every machine) reports it.
#include "lab06_reduction.h"

__device__ void warp_reduce(volatile float* sdata, unsigned tid) {
  sdata[tid] += sdata[tid + 32];
  sdata[tid] += sdata[tid + 16];
  sdata[tid] += sdata[tid + 8];
  sdata[tid] += sdata[tid + 4];
  sdata[tid] += sdata[tid + 2];
  sdata[tid] += sdata[tid + 1];
}

__global__ void reduction_kernel(const float* __restrict__ in, int n, float* __restrict__ out) {
  extern __shared__ float sdata[];
  const unsigned tid = threadIdx.x;
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) sum += in[i];
  sdata[tid] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s /= 2) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) warp_reduce(sdata, tid);
  if (tid == 0) out[blockIdx.x] = sdata[0];
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
