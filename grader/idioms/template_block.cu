// Idiom: a kernel template on the block size, `template <int BLOCK>`, with a static __shared__ array of BLOCK floats
// and the tree unrolled at compile time; the launcher dispatches block_size to an instantiation.
#include "lab06_reduction.h"

template <int BLOCK>
__global__ void reduction_kernel(const float* __restrict__ in, int n, float* __restrict__ out) {
  __shared__ float partial[BLOCK];
  const int tid = threadIdx.x;
  float sum = 0.0f;
  for (int i = blockIdx.x * BLOCK + tid; i < n; i += gridDim.x * BLOCK) sum += in[i];
  partial[tid] = sum;
  __syncthreads();
#pragma unroll
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    if (tid < s) partial[tid] += partial[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}

template <int BLOCK>
void run(const float* in, int n, float* result, float* scratch, cudaStream_t stream) {
  int device = 0, sms = 1, threads_per_sm = 2048;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
  const int wave = sms * (threads_per_sm / BLOCK), pieces = (n + BLOCK - 1) / BLOCK;
  const int blocks = pieces < wave ? pieces : wave;
  reduction_kernel<BLOCK><<<blocks, BLOCK, 0, stream>>>(in, n, scratch);
  reduction_kernel<BLOCK><<<1, BLOCK, 0, stream>>>(scratch, blocks, result);
}

void reduction(const float* in, int n, float* result, float* scratch, int block_size, cudaStream_t stream) {
  switch (block_size) {
    case 64:
      return run<64>(in, n, result, scratch, stream);
    case 128:
      return run<128>(in, n, result, scratch, stream);
    case 256:
      return run<256>(in, n, result, scratch, stream);
    case 512:
      return run<512>(in, n, result, scratch, stream);
    default:
      return run<1024>(in, n, result, scratch, stream);
  }
}
