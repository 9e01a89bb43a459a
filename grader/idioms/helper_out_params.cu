// Idiom: the textbook shared-memory stencil whose window sum is a __device__ helper that returns its results through
// pointers to the caller's local variables (float* sum, int* taps), a common way to return two values in CUDA. Check
// mode once reported these pointers as "not a device pointer" and dropped the stores.
#include "lab05_stencil.h"

__device__ void window_sum(const float* tile, int center, int radius, float* sum, int* taps) {
  float s = 0.0f;
  int k = 0;
  for (int offset = -radius; offset <= radius; ++offset) {
    s += tile[center + offset];
    ++k;
  }
  *sum = s;
  *taps = k;
}

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
    float result;
    int taps;
    window_sum(temp, lindex, radius, &result, &taps);
    out[gindex] = taps == 2 * radius + 1 ? result : 0.0f;
  }
}

void stencil(const float* in, float* out, int n, int radius, cudaStream_t stream) {
  const int threads = 512, blocks = (n + threads - 1) / threads;
  stencil_kernel<<<blocks, threads, (threads + 2 * radius) * sizeof(float), stream>>>(in, out, n, radius);
}
