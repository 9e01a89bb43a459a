#include "course/device_buffer.h"
#include "remote_memory.h"

#include <cstdio>
#include <limits>
#include <sstream>

namespace course {

namespace {
std::string gib(std::size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  return text;
}
}  // namespace

std::size_t checked_bytes(std::size_t count, std::size_t element_size, const std::string& what) {
  if (element_size != 0 && count > std::numeric_limits<std::size_t>::max() / element_size)
    throw std::invalid_argument("cannot allocate '" + what + "': " + std::to_string(count) + " elements of " +
                                std::to_string(element_size) + " bytes overflow the size of memory");
  return count * element_size;
}

void* allocate_device_bytes(std::size_t bytes, const std::string& what) {
  if (bytes == 0) throw std::invalid_argument("cannot allocate '" + what + "': it has 0 elements");
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess && bytes > free_bytes) {
    std::ostringstream message;
    message << "cannot allocate '" << what << "' (" << gib(bytes) << ") on the device: only " << gib(free_bytes)
            << " of " << gib(total_bytes) << " are free. Use a smaller problem size.";
    throw CudaError(cudaErrorMemoryAllocation, message.str());
  }
  void* pointer = nullptr;
#if defined(COURSE_BACKEND_CPU)
  const cudaError_t code = cudaMalloc(&pointer, bytes);  // a memfd the worker can map (course_cpu/sharing.h)
#else
  cudaError_t code = cudaSuccess;
  pointer = remote::allocate_shared(bytes, &code);  // a buffer the worker can map (remote_memory.h)
#endif
  if (code != cudaSuccess) {
    (void)cudaGetLastError();  // a failed allocation is not sticky; clear it so later checks see only new errors
    throw CudaError(code, "cannot allocate '" + what + "' (" + gib(bytes) +
                              ") on the device: " + cudaGetErrorString(code) + ". " + cuda_error_hint(code));
  }
  return pointer;
}

void free_device_bytes(void* pointer) noexcept {
#if defined(COURSE_BACKEND_CPU)
  if (pointer != nullptr) CUDA_CHECK_NOEXCEPT(cudaFree(pointer));
#else
  if (pointer != nullptr && !remote::free_shared(pointer)) CUDA_CHECK_NOEXCEPT(cudaFree(pointer));
#endif
}

}  // namespace course
