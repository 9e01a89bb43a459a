// Idiom: the textbook shared-memory stencil: one output per thread, the block's inputs and both halos in an
// extern __shared__ array of blockDim.x + 2 * radius floats, the halos loaded by a loop (the radius may exceed the
// block), inputs outside [0, n) as 0.
#include "lab05_stencil.h"

__global__ void stencil_kernel(const float* __restrict__ in, float* __restrict__ out, int n, int radius) {
  extern __shared__ float temp[];
  const int gindex = blockIdx.x * blockDim.x + threadIdx.x;
  const int lindex = threadIdx.x + radius;
  temp[lindex] = gindex < n ? in[gindex] : 0.0f;
  for (int j = threadIdx.x; j < radius; j += blockDim.x) {
    const int left = blockIdx.x * blockDim.x - radius + j;
    const int right = (blockIdx.x + 1) * blockDim.x + j;
    temp[j] = left >= 0 ? in[left] : 0.0f;
    temp[radius + blockDim.x + j] = right < n ? in[right] : 0.0f;
  }
  __syncthreads();
  if (gindex < n) {
    float result = 0.0f;
    for (int offset = -radius; offset <= radius; offset++) result += temp[lindex + offset];
    out[gindex] = result;
  }
}

void stencil(const float* in, float* out, int n, int radius, cudaStream_t stream) {
  const int threads = 512, blocks = (n + threads - 1) / threads;
  stencil_kernel<<<blocks, threads, (threads + 2 * radius) * sizeof(float), stream>>>(in, out, n, radius);
}
