// Idiom the CPU backend lacks: one cooperative launch with a grid-wide barrier (cg::this_grid().sync()) between the
// blocks' partial sums and block 0's total. The CPU backend runs blocks one after another, so it refuses
// grid.sync() and cudaLaunchCooperativeKernel at compile time with its "unsupported" marker: not-graded, not
// build-error (its check mode builds on every machine, a GPU's too).
#include "lab06_reduction.h"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void reduction_kernel(const float* __restrict__ in, int n, float* __restrict__ partial, float* result) {
  __shared__ float warp_sums[32];
  cg::grid_group grid = cg::this_grid();
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) sum += in[i];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    float block_sum = 0.0f;
    for (unsigned w = 0; w < blockDim.x / 32; ++w) block_sum += warp_sums[w];
    partial[blockIdx.x] = block_sum;
  }
  grid.sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    float total = 0.0f;
    for (unsigned b = 0; b < gridDim.x; ++b) total += partial[b];
    *result = total;
  }
}

void reduction(const float* in, int n, float* result, float* scratch, int block_size, cudaStream_t stream) {
  int device = 0, sms = 1, per_sm = 1;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduction_kernel, block_size, 0);
  const int pieces = (n + block_size - 1) / block_size;
  int blocks = sms * per_sm < pieces ? sms * per_sm : pieces;
  void* args[] = {&in, &n, &scratch, &result};
  cudaLaunchCooperativeKernel(reduction_kernel, dim3(blocks), dim3(block_size), args, 0, stream);
}
