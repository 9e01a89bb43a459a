// Idiom with a bug: a tree in shared memory within each warp tile, with tile.sync() inside the branch that only the
// adding lanes take. A tile's sync() is a __syncwarp() over the tile's lanes: every one of them must reach it
// (undefined behaviour on a GPU; barrier divergence in check mode, which runs on every machine).
#include "lab06_reduction.h"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void reduction_kernel(const float* __restrict__ in, int n, float* __restrict__ out) {
  __shared__ float staged[1024];
  const cg::thread_block block = cg::this_thread_block();
  const auto tile = cg::tiled_partition<32>(block);
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) sum += in[i];
  staged[threadIdx.x] = sum;
  tile.sync();
  for (unsigned offset = 16; offset > 0; offset /= 2) {
    if (tile.thread_rank() < offset) {
      staged[threadIdx.x] += staged[threadIdx.x + offset];
      tile.sync();  // BUG: inside the branch, so the tile's other lanes never reach it
    }
  }
  block.sync();
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (unsigned w = 0; w < blockDim.x; w += 32) total += staged[w];
    out[blockIdx.x] = total;
  }
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
