// CPU backend of the course: the occupancy API (cudaOccupancy*), from a model
// of one SM of the course GPU (sm_90: H100, H200) applied to the kernel's real
// block size and shared memory. The CPU has no SMs; the model says how many
// blocks of this kernel one such SM would hold at once, as CUDA's occupancy
// calculator (cuda_occupancy.h) does, so that a launch sized from it is the one
// the GPU would get:
//   threads   at most 2048 per SM (64 warps; a block takes whole warps)
//   blocks    at most 32 per SM
//   registers 65536 per SM. How many a thread uses is not known without
//             compiling for the GPU; the model assumes 32 (65536 / 2048), so
//             registers never limit it. A kernel that needs more gets fewer
//             blocks on the GPU than here.
//   shared    228 KiB per SM, at most 227 KiB per block (static + dynamic),
//             the dynamic part at most the kernel's maxDynamicSharedSizeBytes
//             (48 KiB - static unless raised with cudaFuncSetAttribute): a
//             block that may not launch fits 0 times;
//             each block holds its static and dynamic shared memory plus
//             1 KiB the runtime reserves, in units of 128 bytes. A preferred
//             carveout (cudaFuncAttributePreferredSharedMemoryCarveout)
//             picks the smallest sm_90 configuration (0, 8, 16, 32, 64, 100,
//             132, 164, 196 or 228 KiB) that holds that percentage of 228 KiB,
//             and at least one block.
// The SM count (cudaDevAttrMultiProcessorCount) stays the number of worker
// threads, so a grid of "blocks per SM x SMs" is one wave on this machine.
#include "internal.h"

#include <algorithm>

namespace course_cpu::detail {
namespace {

constexpr std::size_t kSharedAllocationUnit = 128;
constexpr int kCarveoutsKiB[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
constexpr int kWarpSize = 32;

std::size_t round_up(std::size_t n, std::size_t unit) { return (n + unit - 1) / unit * unit; }

// Shared memory one block of `kernel` holds on an SM.
std::size_t shared_per_block(std::size_t static_bytes, std::size_t dynamic_bytes) {
  return round_up(static_bytes + dynamic_bytes + kReservedSharedPerBlock, kSharedAllocationUnit);
}

// The SM's shared memory under the kernel's carveout preference (percent, -1: none).
std::size_t shared_per_sm(int carveout, std::size_t one_block) {
  if (carveout < 0) return kSharedPerMultiprocessor;
  const std::size_t wanted = kSharedPerMultiprocessor * static_cast<std::size_t>(carveout) / 100;
  for (int kib : kCarveoutsKiB) {
    const std::size_t bytes = static_cast<std::size_t>(kib) * 1024;
    if (bytes >= wanted && bytes >= one_block) return bytes;
  }
  return kSharedPerMultiprocessor;
}

int blocks_per_sm(const void* kernel, int block_size, std::size_t dynamic_bytes) {
  if (block_size > static_cast<int>(kMaxThreadsPerBlock)) return 0;
  const std::size_t static_bytes = static_shared_bytes(kernel);
  if (static_bytes + dynamic_bytes > kMaxSharedPerBlockOptin || dynamic_bytes > max_dynamic_shared(kernel)) return 0;
  const int warps = (block_size + kWarpSize - 1) / kWarpSize;
  const int by_warps = kThreadsPerMultiprocessor / kWarpSize / warps;  // registers: the same limit (see above)
  const std::size_t one_block = shared_per_block(static_bytes, dynamic_bytes);
  const int by_shared = static_cast<int>(shared_per_sm(preferred_carveout(kernel), one_block) / one_block);
  return std::min({by_warps, kBlocksPerMultiprocessor, by_shared});
}

}  // namespace

cudaError_t occupancy_blocks(const void* kernel, int block_size, std::size_t dynamic_bytes, int* blocks) {
  if (blocks == nullptr || block_size <= 0) return set_last_error(cudaErrorInvalidValue);
  if (kernel == nullptr) return set_last_error(cudaErrorInvalidDeviceFunction);
  *blocks = blocks_per_sm(kernel, block_size, dynamic_bytes);
  return cudaSuccess;
}

cudaError_t occupancy_dynamic_shared(const void* kernel, int blocks, int block_size, std::size_t* bytes) {
  if (bytes == nullptr || blocks <= 0 || block_size <= 0) return set_last_error(cudaErrorInvalidValue);
  if (kernel == nullptr) return set_last_error(cudaErrorInvalidDeviceFunction);
  *bytes = 0;
  if (blocks_per_sm(kernel, block_size, 0) < blocks) return cudaSuccess;  // not even without dynamic memory
  // The largest multiple of the allocation unit that still lets `blocks` blocks share the SM.
  const std::size_t static_bytes = static_shared_bytes(kernel);
  const std::size_t limit = kMaxSharedPerBlockOptin - std::min(kMaxSharedPerBlockOptin, static_bytes);
  std::size_t lo = 0, hi = limit / kSharedAllocationUnit;
  while (lo < hi) {
    const std::size_t mid = (lo + hi + 1) / 2;
    if (blocks_per_sm(kernel, block_size, mid * kSharedAllocationUnit) >= blocks)
      lo = mid;
    else
      hi = mid - 1;
  }
  *bytes = lo * kSharedAllocationUnit;
  return cudaSuccess;
}

}  // namespace course_cpu::detail
