// CPU backend of the course: checking a launch configuration against CUDA's
// limits, with a sentence that says what is wrong.
#include "scheduler.h"

#include <sstream>

namespace course_cpu::detail {

std::string validation_error(dim3 grid, dim3 block, std::size_t shmem, std::size_t shmem_limit, cudaError_t* code) {
  const unsigned long long threads = 1ull * block.x * block.y * block.z;
  std::ostringstream m;
  *code = cudaErrorInvalidConfiguration;
  if (threads == 0) {
    m << "block of " << block.x << "x" << block.y << "x" << block.z
      << " threads: every block dimension must be at least 1";
  } else if (threads > kMaxThreadsPerBlock) {
    m << "block of " << threads << " threads (" << block.x << "x" << block.y << "x" << block.z << "): at most "
      << kMaxThreadsPerBlock << " threads per block are allowed (dim3 block(16, 16) has 256)";
  } else if (block.x > kMaxBlockDim[0] || block.y > kMaxBlockDim[1] || block.z > kMaxBlockDim[2]) {
    m << "block dimensions " << block.x << "x" << block.y << "x" << block.z
      << ": blockDim.x and blockDim.y may be at most " << kMaxBlockDim[0] << ", blockDim.z at most " << kMaxBlockDim[2];
  } else if (grid.x == 0 || grid.y == 0 || grid.z == 0) {
    m << "grid of " << grid.x << "x" << grid.y << "x" << grid.z
      << " blocks: every grid dimension must be at least 1 (round the division up: "
         "(n + block - 1) / block)";
  } else if (grid.x > kMaxGridDim[0] || grid.y > kMaxGridDim[1] || grid.z > kMaxGridDim[2]) {
    m << "grid of " << grid.x << "x" << grid.y << "x" << grid.z << " blocks: gridDim.x may be at most "
      << kMaxGridDim[0] << ", gridDim.y and gridDim.z at most " << kMaxGridDim[1];
  } else if (shmem > shmem_limit) {
    *code = cudaErrorInvalidValue;
    m << shmem << " bytes of dynamic shared memory: the limit is " << shmem_limit << " bytes";
    if (shmem_limit < kMaxSharedPerBlockOptin && shmem <= kMaxSharedPerBlockOptin)
      m << " unless raised with cudaFuncSetAttribute(kernel, "
           "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) (at most "
        << kMaxSharedPerBlockOptin << ")";
  } else {
    *code = cudaSuccess;
  }
  return m.str();
}

}  // namespace course_cpu::detail
