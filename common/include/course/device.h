// What the tests run on: a GPU (real CUDA runtime) or the CPU backend (common/cpu), and what that device is.
#pragma once

#include <cstddef>
#include <string>

namespace course {

enum class Backend { gpu, cpu };

#if defined(COURSE_BACKEND_CPU)
inline constexpr Backend kBackend = Backend::cpu;
#else
inline constexpr Backend kBackend = Backend::gpu;
#endif

struct DeviceInfo {
  bool usable = false;  // a device is there and answers
  std::string reason;   // why not, in a sentence (empty when usable)
  std::string name;     // "NVIDIA H200", or the CPU backend's description
  int major = 0, minor = 0;
  int sm_count = 0;
  std::size_t l2_bytes = 0;
  std::size_t global_bytes = 0;
  int runtime_version = 0;   // e.g. 13000
  std::string arch() const;  // "sm_90"; "cpu" on the CPU backend
};

// Queried once per process.
const DeviceInfo& device_info();

// Empty when timing is meaningful here; otherwise the reason a perf test skips ("timing needs a GPU: ...").
std::string timing_unavailable_reason();

}  // namespace course
