#include "course/device.h"

#include <cuda_runtime.h>

namespace course {

std::string DeviceInfo::arch() const {
  if (kBackend == Backend::cpu) return "cpu";
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

namespace {

DeviceInfo query() {
  DeviceInfo info;
  int count = 0;
  const cudaError_t code = cudaGetDeviceCount(&count);
  if (code != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    info.reason = std::string("no CUDA GPU on this machine (CUDA says: ") +
                  (code != cudaSuccess ? cudaGetErrorString(code) : "no device") +
                  "); the correctness tests run on the CPU backend instead (the labNN.cpu and labNN.check tests)";
    return info;
  }
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    (void)cudaGetLastError();
    info.reason = "the CUDA device does not answer cudaGetDeviceProperties";
    return info;
  }
  info.usable = true;
  info.name = prop.name;
  info.major = prop.major;
  info.minor = prop.minor;
  info.sm_count = prop.multiProcessorCount;
  info.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  info.global_bytes = prop.totalGlobalMem;
  cudaRuntimeGetVersion(&info.runtime_version);
  return info;
}

}  // namespace

const DeviceInfo& device_info() {
  static const DeviceInfo info = query();
  return info;
}

std::string timing_unavailable_reason() {
  if (kBackend == Backend::cpu) return "timing needs a GPU: this test binary runs on the CPU backend";
  const DeviceInfo& info = device_info();
  if (!info.usable) return "timing needs a GPU: " + info.reason;
  return "";
}

}  // namespace course
