// CPU backend of the course: the "device" (the CPU), streams, events and
// versions. Everything is synchronous. Kernel attributes and the occupancy
// model: kernel_attributes.cpp, occupancy.cpp.
#include "internal.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

namespace course_cpu::detail {

int worker_count() {
  static const int count = [] {
    if (const char* env = std::getenv("COURSE_CPU_THREADS")) {
      const int n = std::atoi(env);
      if (n > 0) return n;
    }
    const unsigned hw = std::thread::hardware_concurrency();
    // Each worker may hold the stacks of a block of 1024 CUDA threads. Under a memory limit (the grader's sandbox
    // sets 8 GiB of address space, or of data where CUDA is loaded) the stacks of all workers may take at most half
    // of it: on a 64-core machine, 64 workers' stacks (16 GiB) failed to map, and every 1024-thread launch crashed.
    std::uint64_t limit = ~std::uint64_t{0};
    for (const int resource : {RLIMIT_AS, RLIMIT_DATA}) {
      rlimit r{};
      if (getrlimit(resource, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
        limit = std::min<std::uint64_t>(limit, r.rlim_cur);
    }
    const auto page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));  // each stack's guard page
    const std::uint64_t per_worker = 1024 * (fiber_stack_bytes() + page);
    const std::uint64_t fit = std::max<std::uint64_t>(1, limit / 2 / per_worker);
    return static_cast<int>(std::min<std::uint64_t>(hw == 0 ? 1 : hw, fit));
  }();
  return count;
}

std::size_t fiber_stack_bytes() {
  static const std::size_t bytes = [] {
    if (const char* env = std::getenv("COURSE_CPU_STACK_KB")) {
      const long kb = std::atol(env);
      if (kb >= 16) return static_cast<std::size_t>(kb) * 1024;
    }
    return std::size_t{256} * 1024;
  }();
  return bytes;
}

}  // namespace course_cpu::detail

using namespace course_cpu::detail;

namespace {
cudaDeviceProp make_properties() {
  cudaDeviceProp p{};
  std::snprintf(p.name, sizeof(p.name), "CPU backend (course_cpu, %d worker threads)", worker_count());
  p.totalGlobalMem = total_device_memory();
  p.sharedMemPerBlock = kDefaultSharedPerBlock;
  p.sharedMemPerBlockOptin = kMaxSharedPerBlockOptin;
  p.sharedMemPerMultiprocessor = kSharedPerMultiprocessor;
  p.regsPerBlock = kRegistersPerMultiprocessor;
  p.regsPerMultiprocessor = kRegistersPerMultiprocessor;
  p.warpSize = 32;
  p.memPitch = 2147483647;
  p.maxThreadsPerBlock = static_cast<int>(kMaxThreadsPerBlock);
  for (int d = 0; d < 3; ++d) {
    p.maxThreadsDim[d] = static_cast<int>(kMaxBlockDim[d]);
    p.maxGridSize[d] = static_cast<int>(kMaxGridDim[d]);
  }
  p.clockRate = 1000000;  // nominal, kHz
  p.totalConstMem = 65536;
  p.major = 0;  // 0.0: nobody should mistake this for a GPU
  p.minor = 0;
  p.textureAlignment = 512;
  p.multiProcessorCount = worker_count();
  p.maxThreadsPerMultiProcessor = kThreadsPerMultiprocessor;
  p.maxBlocksPerMultiProcessor = kBlocksPerMultiprocessor;
  p.reservedSharedMemPerBlock = kReservedSharedPerBlock;
  p.cooperativeLaunch = 0;  // no grid-wide barrier (cooperative_groups::this_grid)
  p.canMapHostMemory = 1;
  p.unifiedAddressing = 1;
  p.managedMemory = 1;
  p.memoryClockRate = 1000000;  // nominal, kHz
  p.memoryBusWidth = 64;
  p.l2CacheSize = 4 * 1024 * 1024;
  return p;
}

// Stores a query's answer; cudaErrorInvalidValue if there is nowhere to store it.
cudaError_t give(int* out, int value) {
  if (out == nullptr) return set_last_error(cudaErrorInvalidValue);
  *out = value;
  return cudaSuccess;
}
}  // namespace

cudaError_t cudaGetDeviceCount(int* count) { return give(count, 1); }
cudaError_t cudaGetDevice(int* device) { return give(device, 0); }
cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : set_last_error(cudaErrorInvalidDevice); }
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (prop == nullptr) return set_last_error(cudaErrorInvalidValue);
  if (device != 0) return set_last_error(cudaErrorInvalidDevice);
  *prop = make_properties();
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (value == nullptr) return set_last_error(cudaErrorInvalidValue);
  if (device != 0) return set_last_error(cudaErrorInvalidDevice);
  const cudaDeviceProp p = make_properties();
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock:
      *value = p.maxThreadsPerBlock;
      break;
    case cudaDevAttrMaxBlockDimX:
      *value = p.maxThreadsDim[0];
      break;
    case cudaDevAttrMaxBlockDimY:
      *value = p.maxThreadsDim[1];
      break;
    case cudaDevAttrMaxBlockDimZ:
      *value = p.maxThreadsDim[2];
      break;
    case cudaDevAttrMaxGridDimX:
      *value = p.maxGridSize[0];
      break;
    case cudaDevAttrMaxGridDimY:
      *value = p.maxGridSize[1];
      break;
    case cudaDevAttrMaxGridDimZ:
      *value = p.maxGridSize[2];
      break;
    case cudaDevAttrMaxSharedMemoryPerBlock:
      *value = static_cast<int>(p.sharedMemPerBlock);
      break;
    case cudaDevAttrTotalConstantMemory:
      *value = static_cast<int>(p.totalConstMem);
      break;
    case cudaDevAttrWarpSize:
      *value = p.warpSize;
      break;
    case cudaDevAttrMaxPitch:
      *value = static_cast<int>(p.memPitch);
      break;
    case cudaDevAttrMaxRegistersPerBlock:
      *value = p.regsPerBlock;
      break;
    case cudaDevAttrClockRate:
      *value = p.clockRate;
      break;
    case cudaDevAttrTextureAlignment:
      *value = static_cast<int>(p.textureAlignment);
      break;
    case cudaDevAttrMultiProcessorCount:
      *value = p.multiProcessorCount;
      break;
    case cudaDevAttrCanMapHostMemory:
      *value = 1;
      break;
    case cudaDevAttrMemoryClockRate:
      *value = p.memoryClockRate;
      break;
    case cudaDevAttrGlobalMemoryBusWidth:
      *value = p.memoryBusWidth;
      break;
    case cudaDevAttrL2CacheSize:
      *value = p.l2CacheSize;
      break;
    case cudaDevAttrMaxThreadsPerMultiProcessor:
      *value = p.maxThreadsPerMultiProcessor;
      break;
    case cudaDevAttrUnifiedAddressing:
      *value = 1;
      break;
    case cudaDevAttrComputeCapabilityMajor:
      *value = p.major;
      break;
    case cudaDevAttrComputeCapabilityMinor:
      *value = p.minor;
      break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
      *value = static_cast<int>(p.sharedMemPerMultiprocessor);
      break;
    case cudaDevAttrMaxRegistersPerMultiprocessor:
      *value = p.regsPerMultiprocessor;
      break;
    case cudaDevAttrManagedMemory:
      *value = 1;
      break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin:
      *value = static_cast<int>(p.sharedMemPerBlockOptin);
      break;
    case cudaDevAttrMaxBlocksPerMultiprocessor:
      *value = p.maxBlocksPerMultiProcessor;
      break;
    case cudaDevAttrReservedSharedMemoryPerBlock:
      *value = static_cast<int>(p.reservedSharedMemPerBlock);
      break;
    case cudaDevAttrGlobalL1CacheSupported:
    case cudaDevAttrLocalL1CacheSupported:
    case cudaDevAttrConcurrentManagedAccess:
    case cudaDevAttrComputePreemptionSupported:
      *value = 1;
      break;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio:
      *value = 2;  // as on the course GPU (H100, H200)
      break;
    default:
      *value = 0;
      break;
  }
  return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize() { return take_kernel_error(); }
cudaError_t cudaDeviceReset() {
  release_all_allocations();
  reset_errors();
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* v) { return give(v, CUDART_VERSION); }
cudaError_t cudaDriverGetVersion(int* v) { return give(v, CUDART_VERSION); }

// Streams: work is done when it is submitted, so a stream is only a handle.
struct CUstream_st {
  unsigned flags;
  int priority = 0;
};
cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithFlags(stream, 0); }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  if (stream == nullptr) return set_last_error(cudaErrorInvalidValue);
  *stream = new CUstream_st{flags, 0};
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  if (stream == cudaStreamLegacy || stream == cudaStreamPerThread)
    return set_last_error(cudaErrorInvalidResourceHandle);
  delete stream;
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority) {
  if (cudaError_t e = cudaStreamCreateWithFlags(stream, flags); e != cudaSuccess) return e;
  (*stream)->priority = std::clamp(priority, -5, 0);  // cudaDeviceGetStreamPriorityRange: [0, -5]
  return cudaSuccess;
}
namespace {
bool is_created_stream(cudaStream_t s) { return s != nullptr && s != cudaStreamLegacy && s != cudaStreamPerThread; }
}  // namespace
cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority) {
  if (priority == nullptr) return set_last_error(cudaErrorInvalidValue);
  *priority = is_created_stream(stream) ? stream->priority : 0;
  return cudaSuccess;
}
cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int* flags) {
  if (flags == nullptr) return set_last_error(cudaErrorInvalidValue);
  *flags = is_created_stream(stream) ? stream->flags : 0u;
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t) { return take_kernel_error(); }
cudaError_t cudaStreamQuery(cudaStream_t) { return cudaSuccess; }

// Events: a host steady-clock time stamp taken when recorded.
struct CUevent_st {
  std::chrono::steady_clock::time_point when;
  bool recorded;
};
cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, 0); }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int) {
  if (event == nullptr) return set_last_error(cudaErrorInvalidValue);
  *event = new CUevent_st{{}, false};
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t) {
  if (event == nullptr) return set_last_error(cudaErrorInvalidResourceHandle);
  event->when = std::chrono::steady_clock::now();
  event->recorded = true;
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (event == nullptr) return set_last_error(cudaErrorInvalidResourceHandle);
  return take_kernel_error();
}
cudaError_t cudaEventQuery(cudaEvent_t event) {
  if (event == nullptr) return set_last_error(cudaErrorInvalidResourceHandle);
  return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (ms == nullptr) return set_last_error(cudaErrorInvalidValue);
  if (start == nullptr || end == nullptr) return set_last_error(cudaErrorInvalidResourceHandle);
  if (!start->recorded || !end->recorded) return set_last_error(cudaErrorNotReady);
  *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;
  return cudaSuccess;
}
