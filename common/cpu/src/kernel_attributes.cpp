// CPU backend of the course: what is known about each kernel - the limits and
// preferences set with cudaFuncSetAttribute, and the static __shared__ arrays
// of its body (noted before main by the code course-rewrite adds after each
// such declaration, course_cpu/occupancy.h) - and cudaFuncGetAttributes.
#include "internal.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace course_cpu::detail {
namespace {

struct KernelInfo {
  std::size_t dynamic_limit = kDefaultSharedPerBlock;
  bool dynamic_limit_set = false;
  int carveout = -1;
  std::map<int, std::size_t> static_arrays;  // declaration id -> bytes
};

std::mutex g_mutex;
std::map<const void*, KernelInfo>& kernels() {
  static std::map<const void*, KernelInfo> m;
  return m;
}

std::size_t static_bytes_locked(const KernelInfo& k) {
  std::size_t bytes = 0;
  for (const auto& [id, b] : k.static_arrays) bytes += b;
  return bytes;
}

// The model's assumption for what the CPU cannot know: registers per thread
// (see occupancy.cpp).
constexpr int kAssumedRegistersPerThread = kRegistersPerMultiprocessor / kThreadsPerMultiprocessor;

}  // namespace

bool note_static_shared(const void* kernel, std::size_t bytes, int id) {
  std::lock_guard lock(g_mutex);
  kernels()[kernel].static_arrays[id] = bytes;
  return true;
}

std::size_t static_shared_bytes(const void* kernel) {
  std::lock_guard lock(g_mutex);
  const auto it = kernels().find(kernel);
  return it == kernels().end() ? 0 : static_bytes_locked(it->second);
}

int preferred_carveout(const void* kernel) {
  std::lock_guard lock(g_mutex);
  const auto it = kernels().find(kernel);
  return it == kernels().end() ? -1 : it->second.carveout;
}

std::size_t dynamic_shared_limit(const void* kernel) {
  std::lock_guard lock(g_mutex);
  if (kernel == nullptr) {
    // A deduced kernel template launch: which specialization runs is not
    // known, so the largest limit raised for any kernel applies.
    std::size_t limit = kDefaultSharedPerBlock;
    for (const auto& [k, info] : kernels()) limit = std::max(limit, info.dynamic_limit);
    return limit;
  }
  const auto it = kernels().find(kernel);
  return it == kernels().end() ? kDefaultSharedPerBlock : it->second.dynamic_limit;
}

std::size_t max_dynamic_shared(const void* kernel) {
  std::lock_guard lock(g_mutex);
  const KernelInfo& k = kernels()[kernel];
  if (k.dynamic_limit_set) return k.dynamic_limit;
  return kDefaultSharedPerBlock - std::min(kDefaultSharedPerBlock, static_bytes_locked(k));
}

cudaError_t set_kernel_attribute(const void* kernel, cudaFuncAttribute attr, int value) {
  if (kernel == nullptr) return set_last_error(cudaErrorInvalidDeviceFunction);
  std::lock_guard lock(g_mutex);
  switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize:
      if (value < 0 ||
          static_cast<std::size_t>(value) + static_bytes_locked(kernels()[kernel]) > kMaxSharedPerBlockOptin)
        return set_last_error(cudaErrorInvalidValue);
      // Launches are checked against the dynamic shared memory alone, so at
      // least the default stays allowed.
      kernels()[kernel].dynamic_limit = std::max<std::size_t>(static_cast<std::size_t>(value), kDefaultSharedPerBlock);
      kernels()[kernel].dynamic_limit_set = true;
      return cudaSuccess;
    case cudaFuncAttributePreferredSharedMemoryCarveout:
      if (value < -1 || value > 100) return set_last_error(cudaErrorInvalidValue);
      kernels()[kernel].carveout = value;
      return cudaSuccess;
  }
  return set_last_error(cudaErrorInvalidValue);
}

cudaError_t kernel_attributes(const void* kernel, cudaFuncAttributes* out) {
  if (out == nullptr) return set_last_error(cudaErrorInvalidValue);
  if (kernel == nullptr) return set_last_error(cudaErrorInvalidDeviceFunction);
  std::lock_guard lock(g_mutex);
  const KernelInfo& k = kernels()[kernel];
  *out = cudaFuncAttributes{};
  out->sharedSizeBytes = static_bytes_locked(k);
  out->maxThreadsPerBlock = static_cast<int>(kMaxThreadsPerBlock);
  out->numRegs = kAssumedRegistersPerThread;
  out->maxDynamicSharedSizeBytes = static_cast<int>(
      k.dynamic_limit_set ? k.dynamic_limit
                          : kDefaultSharedPerBlock - std::min(kDefaultSharedPerBlock, out->sharedSizeBytes));
  out->preferredShmemCarveout = k.carveout;
  return cudaSuccess;
}

}  // namespace course_cpu::detail
