// CPU backend of the course: the sentences a student reads about a launch
// (its configuration, a kernel that throws), barrier and warp divergence and
// asynchronous copies; the rest of the messages file is check_messages.cpp
// (see check_messages.h).
#include "check_messages.h"

#include <sstream>

namespace course_cpu::detail {

// ---- launches -------------------------------------------------------------------

std::string empty_block_text(dim3 block) {
  std::ostringstream m;
  m << "block of " << block.x << "x" << block.y << "x" << block.z
    << " threads: every block dimension must be at least 1";
  return m.str();
}

std::string too_many_threads_text(dim3 block) {
  const unsigned long long threads = 1ull * block.x * block.y * block.z;
  std::ostringstream m;
  m << "block of " << threads << " threads (" << block.x << "x" << block.y << "x" << block.z << "): at most "
    << kMaxThreadsPerBlock << " threads per block are allowed (dim3 block(16, 16) has 256)";
  return m.str();
}

std::string block_too_large_text(dim3 block) {
  std::ostringstream m;
  m << "block dimensions " << block.x << "x" << block.y << "x" << block.z
    << ": blockDim.x and blockDim.y may be at most " << kMaxBlockDim[0] << ", blockDim.z at most " << kMaxBlockDim[2];
  return m.str();
}

std::string empty_grid_text(dim3 grid) {
  std::ostringstream m;
  m << "grid of " << grid.x << "x" << grid.y << "x" << grid.z
    << " blocks: every grid dimension must be at least 1 (round the division up: "
       "(n + block - 1) / block)";
  return m.str();
}

std::string grid_too_large_text(dim3 grid) {
  std::ostringstream m;
  m << "grid of " << grid.x << "x" << grid.y << "x" << grid.z << " blocks: gridDim.x may be at most " << kMaxGridDim[0]
    << ", gridDim.y and gridDim.z at most " << kMaxGridDim[1];
  return m.str();
}

std::string too_much_dynamic_shared_text(std::size_t shmem, std::size_t shmem_limit) {
  std::ostringstream m;
  m << shmem << " bytes of dynamic shared memory: the limit is " << shmem_limit << " bytes";
  if (shmem_limit < kMaxSharedPerBlockOptin && shmem <= kMaxSharedPerBlockOptin)
    m << " unless raised with cudaFuncSetAttribute(kernel, "
         "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) (at most "
      << kMaxSharedPerBlockOptin << ")";
  return m.str();
}

std::string invalid_launch_text(const char* kernel, const std::string& why, cudaError_t code) {
  return std::string("invalid launch of kernel '") + kernel + "': " + why + " (" + cudaGetErrorName(code) + ")";
}

std::string device_launch_text(const char* kernel) {
  return std::string("kernel '") + kernel +
         "' launched from device code: dynamic parallelism is not supported by the "
         "CPU backend";
}

std::string kernel_exception_text(const char* kernel, const char* what, const std::string& block) {
  if (what != nullptr)
    return "kernel '" + std::string(kernel) + "' threw a C++ exception (" + what + ") in block " + block +
           ", which was stopped. Device code must not throw.";
  return "kernel '" + std::string(kernel) + "' threw a C++ exception in block " + block +
         ", which was stopped. Device code must not throw.";
}

}  // namespace course_cpu::detail
