// Bug in an idiom: the pointer-walking stencil of stencil_walking_pointers.cu without the __syncthreads() between
// storing the tile and summing the window: a thread reads its neighbours' elements through *p++ before they are
// written. Check mode reports the race at the walking read.
#include "lab05_stencil.h"

__global__ void stencil_kernel(const float* __restrict__ in, float* __restrict__ out, int n, int radius) {
  extern __shared__ float temp[];
  const int gindex = blockIdx.x * blockDim.x + threadIdx.x;
  const int lindex = threadIdx.x + radius;
  *(lindex + temp) = gindex < n ? *(in + gindex) : 0.0f;
  for (int j = threadIdx.x; j < radius; j += blockDim.x) {
    const int left = blockIdx.x * blockDim.x - radius + j;
    const int right = (blockIdx.x + 1) * blockDim.x + j;
    *(temp + j) = left >= 0 ? *(left + in) : 0.0f;
    *(temp + radius + blockDim.x + j) = right < n ? in[right] : 0.0f;
  }
  if (gindex < n) {
    const float* p = temp + threadIdx.x;
    float sum = 0.0f;
    for (int k = 0; k <= 2 * radius; ++k) sum += *p++;
    float* o = out + gindex;
    *o = sum;
  }
}

void stencil(const float* in, float* out, int n, int radius, cudaStream_t stream) {
  const int threads = 512, blocks = (n + threads - 1) / threads;
  stencil_kernel<<<blocks, threads, (threads + 2 * radius) * sizeof(float), stream>>>(in, out, n, radius);
}
