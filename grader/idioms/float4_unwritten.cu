// Idiom with a bug: float4 stores into shared memory through a cast pointer (as in float4_shared.cu), but only the
// threads that loaded an input store their float4; the tree then reads the other threads' four floats, which no one
// wrote (for a small n, and in the one-block second pass): shared memory holds garbage there.
#include "lab06_reduction.h"

__global__ void reduction_kernel(const float* __restrict__ in, int n, float* __restrict__ out) {
  extern __shared__ float partial[];  // 4 * blockDim.x floats
  const unsigned tid = threadIdx.x;
  const int stride = gridDim.x * blockDim.x, n4 = n / 4, first = blockIdx.x * blockDim.x + tid;
  const float4* in4 = reinterpret_cast<const float4*>(in);
  float4 s = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  for (int j = first; j < n4; j += stride) {
    const float4 v = in4[j];
    s.x += v.x, s.y += v.y, s.z += v.z, s.w += v.w;
  }
  for (int i = 4 * n4 + first; i < n; i += stride) s.x += in[i];  // the n % 4 tail
  if (first < n4) reinterpret_cast<float4*>(partial)[tid] = s;    // BUG: every thread must store (zeros too)
  __syncthreads();
  for (unsigned half = 2 * blockDim.x; half > 0; half /= 2) {
    for (unsigned k = tid; k < half; k += blockDim.x) partial[k] += partial[k + half];
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
  const size_t shared_bytes = 4 * block_size * sizeof(float);
  reduction_kernel<<<blocks, block_size, shared_bytes, stream>>>(in, n, scratch);
  reduction_kernel<<<1, block_size, shared_bytes, stream>>>(scratch, blocks, result);
}
