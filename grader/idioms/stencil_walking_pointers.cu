// Idiom: the textbook shared-memory stencil written with pointer arithmetic, as C programmers write loops: the tile is
// stored through *(temp + i), and the window is summed by a pointer walking along it (s += *p++). Check mode once left
// these forms unchecked; now each is checked like the subscript it stands for.
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
  __syncthreads();
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
