// CPU backend of the course: checking a launch configuration against CUDA's
// limits, with a sentence that says what is wrong (launch_messages.cpp).
#include "check_messages.h"
#include "scheduler.h"

namespace course_cpu::detail {

std::string validation_error(dim3 grid, dim3 block, std::size_t shmem, std::size_t shmem_limit, cudaError_t* code) {
  const unsigned long long threads = 1ull * block.x * block.y * block.z;
  // CUDA 13's runtime refuses every launch configuration beyond the limits with cudaErrorInvalidValue (measured on an
  // H200, 2026-11-29: a block of 2048 threads, a grid of 0 blocks, blockDim.z 65, gridDim.y 70000, 300000 bytes of
  // dynamic shared memory; older runtimes said cudaErrorInvalidConfiguration for all but the last).
  *code = cudaErrorInvalidValue;
  if (threads == 0) return empty_block_text(block);
  if (threads > kMaxThreadsPerBlock) return too_many_threads_text(block);
  if (block.x > kMaxBlockDim[0] || block.y > kMaxBlockDim[1] || block.z > kMaxBlockDim[2])
    return block_too_large_text(block);
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) return empty_grid_text(grid);
  if (grid.x > kMaxGridDim[0] || grid.y > kMaxGridDim[1] || grid.z > kMaxGridDim[2]) return grid_too_large_text(grid);
  if (shmem > shmem_limit) return too_much_dynamic_shared_text(shmem, shmem_limit);
  *code = cudaSuccess;
  return "";
}

}  // namespace course_cpu::detail
