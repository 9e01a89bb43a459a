// Honest: the launch size from the occupancy calculator and the kernel's attributes (on every backend).
#include "lab01_matadd.h"

__global__ void matadd_kernel(const float* a, const float* b, float* c, int rows, int cols) {
  __shared__ float scale[1];  // static shared memory: the occupancy API counts it
  if (threadIdx.x == 0) scale[0] = 1.0f;
  __syncthreads();
  const int n = rows * cols;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    c[i] = scale[0] * (a[i] + b[i]);
}

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  int min_grid = 0, block = 0, per_sm = 0, device = 0, sms = 0;
  cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, matadd_kernel, 0, 0);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, matadd_kernel, block, 0);
  cudaFuncAttributes attributes;
  cudaFuncGetAttributes(&attributes, matadd_kernel);
  cudaFuncSetAttribute(matadd_kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared);
  size_t room = 0;  // dynamic shared memory that would still let per_sm blocks share an SM
  cudaOccupancyAvailableDynamicSMemPerBlock(&room, matadd_kernel, per_sm, block);
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  const int needed = (rows * cols + block - 1) / block;
  const int grid = needed < per_sm * sms ? needed : per_sm * sms;
  matadd_kernel<<<grid, block, 0, stream>>>(a, b, c, rows, cols);
}
