// Idiom: struct_members_tree without the __syncthreads() between storing the members and the tree: thread tid reads
// parts[tid + s].sum, which thread tid + s may not have stored yet. Check mode reports the race at that member read,
// on every machine (the member accesses of a struct element are checked one by one).
#include "lab06_reduction.h"

struct Partial {
  float sum;
  float comp;  // what the additions lost, to be subtracted
};

__global__ void reduction_kernel(const float* __restrict__ in, int n, float* __restrict__ out) {
  __shared__ Partial parts[1024];
  const unsigned tid = threadIdx.x;
  float sum = 0.0f, comp = 0.0f;
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x) {
    const float y = in[i] - comp;
    const float t = sum + y;
    comp = (t - sum) - y;
    sum = t;
  }
  parts[tid].sum = sum;
  parts[tid].comp = comp;
  unsigned half = 1;
  while (half * 2 < blockDim.x) half *= 2;
  for (unsigned s = half; s > 0; s /= 2) {
    if (tid < s && tid + s < blockDim.x) {
      const float y = parts[tid + s].sum - (parts[tid].comp + parts[tid + s].comp);
      const float t = parts[tid].sum + y;
      parts[tid].comp = (t - parts[tid].sum) - y;
      parts[tid].sum = t;
    }
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = parts[0].sum - parts[0].comp;
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
