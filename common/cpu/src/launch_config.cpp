// CPU backend of the course: checking a launch configuration against CUDA's
// limits, with a sentence that says what is wrong (launch_messages.cpp).
#include "check_messages.h"
#include "scheduler.h"

namespace course_cpu::detail {

std::string validation_error(dim3 grid, dim3 block, std::size_t shmem, std::size_t shmem_limit, cudaError_t* code) {
  const unsigned long long threads = 1ull * block.x * block.y * block.z;
  *code = cudaErrorInvalidConfiguration;
  if (threads == 0) return empty_block_text(block);
  if (threads > kMaxThreadsPerBlock) return too_many_threads_text(block);
  if (block.x > kMaxBlockDim[0] || block.y > kMaxBlockDim[1] || block.z > kMaxBlockDim[2])
    return block_too_large_text(block);
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) return empty_grid_text(grid);
  if (grid.x > kMaxGridDim[0] || grid.y > kMaxGridDim[1] || grid.z > kMaxGridDim[2]) return grid_too_large_text(grid);
  if (shmem > shmem_limit) {
    *code = cudaErrorInvalidValue;
    return too_much_dynamic_shared_text(shmem, shmem_limit);
  }
  *code = cudaSuccess;
  return "";
}

}  // namespace course_cpu::detail
