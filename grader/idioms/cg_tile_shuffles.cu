// Idiom: cooperative-groups tiles with explicit shuffles: a 32-thread tile's shfl_down() tree, then 16-thread tiles
// of the first warp (tiled_partition of a tile) combine the warp sums, and thread_block::sync() between them.
#include "lab06_reduction.h"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void reduction_kernel(const float* __restrict__ in, int n, float* __restrict__ out) {
  __shared__ float warp_sums[32];
  cg::thread_block block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  float sum = 0.0f;
  for (unsigned i = block.group_index().x * block.size() + block.thread_rank(); i < static_cast<unsigned>(n);
       i += gridDim.x * block.size())
    sum += in[i];
  for (unsigned offset = warp.size() / 2; offset > 0; offset /= 2) sum += warp.shfl_down(sum, offset);
  if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = sum;
  block.sync();
  if (warp.meta_group_rank() == 0) {
    auto half = cg::tiled_partition<16>(warp);
    float v = warp.thread_rank() < warp.meta_group_size() ? warp_sums[warp.thread_rank()] : 0.0f;
    for (unsigned offset = half.size() / 2; offset > 0; offset /= 2) v += half.shfl_down(v, offset);
    v += warp.shfl(v, 16);  // lane 0 adds the second half's sum
    if (block.thread_rank() == 0) out[blockIdx.x] = v;
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
