// CPU backend of the course: runtime API beyond the basics: pitched 2D copies, registered host memory, pointer
// attributes, limits, device flags, stream callbacks, cudaLaunchKernel's configuration check, and __trap().
#include "check_messages.h"
#include "internal.h"
#include "scheduler.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace course_cpu::detail {

[[noreturn]] void trap(const char* file, int line) {
  Worker* w = tl_worker;
  ThreadSlot* t = tl_slot;
  if (w == nullptr || t == nullptr) {
    std::fprintf(stderr, "[course-cpu] %s\n", trap_outside_kernel_text(file, line).c_str());
    std::abort();
  }
  w->launch_failure = true;
  w->block.aborted = true;
  w->sink.add("trap", file, line, "", w->block.linear, t->linear,
              [&] { return trap_text(w->block.site->kernel, format_index(t->idx, w->block_dim), block_text(*w)); });
  for (;;) t->sink = std::move(t->sink).resume();  // never resumed: the scheduler unwinds this fiber
}

[[noreturn]] void device_assert_fail(const char* text, const char* file, int line, const char* function) {
  Worker* w = tl_worker;
  ThreadSlot* t = tl_slot;
  if (w == nullptr || t == nullptr) {  // host code (a __host__ __device__ function): as <cassert>'s assert
    std::fprintf(stderr, "%s:%d: %s: Assertion `%s' failed.\n", file, line, function, text);
    std::abort();
  }
  // What a GPU prints (device printf's stream), then the block stops as at __trap().
  std::printf("%s\n", device_assert_text(text, file, line, function, t->idx, w->block.idx).c_str());
  w->launch_failure = true;
  w->assert_failed = true;
  w->block.aborted = true;
  w->sink.add("device-assert", file, line, "", w->block.linear, t->linear, [&] {
    return device_assert_report_text(text, w->block.site->kernel, format_index(t->idx, w->block_dim), block_text(*w));
  });
  for (;;) t->sink = std::move(t->sink).resume();  // never resumed: the scheduler unwinds this fiber
}

void register_symbol(void* symbol, std::size_t size) {
  Allocation a;
  if (!find_allocation(symbol, &a)) register_host_memory(symbol, size, false);
}

cudaError_t launch_configuration_error(const void* kernel, dim3 grid, dim3 block, std::size_t shmem) {
  cudaError_t code = cudaSuccess;
  validation_error(grid, block, shmem, dynamic_shared_limit(kernel), &code);
  return code;
}

namespace {
// [p, p + count) lies in one allocation of the runtime.
bool in_one_allocation(const void* p, std::size_t count) {
  Allocation a;
  return find_allocation(p, &a) && reinterpret_cast<std::uintptr_t>(p) + count <= a.begin + a.size;
}
// Which sides of a copy of `kind` must be device-accessible memory; false for an unknown kind.
bool device_sides(cudaMemcpyKind kind, bool* dst, bool* src) {
  *dst = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  *src = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  return kind >= cudaMemcpyHostToHost && kind <= cudaMemcpyDefault;
}
std::mutex g_settings_mutex;
std::size_t g_limits[7] = {0, 1u << 20, 8u << 20, 2, 2048, 64, 0};  // CUDA's defaults; [0]: the fiber stack
unsigned g_device_flags = 0;
cudaSharedMemConfig g_bank_config = cudaSharedMemBankSizeFourByte;
}  // namespace

}  // namespace course_cpu::detail

using namespace course_cpu::detail;

// ---- pitched memory --------------------------------------------------------------------------------------------
cudaError_t cudaMallocPitch(void** devPtr, std::size_t* pitch, std::size_t width, std::size_t height) {
  if (devPtr == nullptr || pitch == nullptr) return set_last_error(cudaErrorInvalidValue);
  constexpr std::size_t kPitchAlignment = 512;  // an sm_90's texture pitch alignment
  *pitch = (width + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
  return cudaMalloc(devPtr, *pitch * height);
}

cudaError_t cudaMemcpy2D(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                         std::size_t height, cudaMemcpyKind kind) {
  if (cudaError_t e = take_kernel_error(); e != cudaSuccess) return e;  // synchronizing call
  bool dst_device = false, src_device = false;
  if (!device_sides(kind, &dst_device, &src_device)) return set_last_error(cudaErrorInvalidMemcpyDirection);
  if (width > dpitch || width > spitch) return set_last_error(cudaErrorInvalidPitchValue);
  if (width == 0 || height == 0) return cudaSuccess;
  if (dst == nullptr || src == nullptr) return set_last_error(cudaErrorInvalidValue);
  // The rows span (height - 1) pitches plus one row.
  if ((dst_device && !in_one_allocation(dst, dpitch * (height - 1) + width)) ||
      (src_device && !in_one_allocation(src, spitch * (height - 1) + width)))
    return set_last_error(cudaErrorInvalidValue);
  const DeviceAccessWindow window;
  for (std::size_t row = 0; row < height; ++row)
    std::memmove(static_cast<char*>(dst) + row * dpitch, static_cast<const char*>(src) + row * spitch, width);
  return cudaSuccess;
}
cudaError_t cudaMemcpy2DAsync(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                              std::size_t height, cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}
cudaError_t cudaMemset2D(void* devPtr, std::size_t pitch, int value, std::size_t width, std::size_t height) {
  if (width > pitch) return set_last_error(cudaErrorInvalidValue);
  if (width == 0 || height == 0) return cudaSuccess;
  if (!in_one_allocation(devPtr, pitch * (height - 1) + width)) return set_last_error(cudaErrorInvalidValue);
  const DeviceAccessWindow window;
  for (std::size_t row = 0; row < height; ++row) std::memset(static_cast<char*>(devPtr) + row * pitch, value, width);
  return cudaSuccess;
}
cudaError_t cudaMemset2DAsync(void* devPtr, std::size_t pitch, int value, std::size_t width, std::size_t height,
                              cudaStream_t) {
  return cudaMemset2D(devPtr, pitch, value, width, height);
}
cudaError_t cudaMemcpyPeer(void* dst, int dstDevice, const void* src, int srcDevice, std::size_t count) {
  if (dstDevice != 0 || srcDevice != 0) return set_last_error(cudaErrorInvalidDevice);
  return cudaMemcpy(dst, src, count, cudaMemcpyDeviceToDevice);
}
cudaError_t cudaMemcpyPeerAsync(void* dst, int dstDevice, const void* src, int srcDevice, std::size_t count,
                                cudaStream_t) {
  return cudaMemcpyPeer(dst, dstDevice, src, srcDevice, count);
}
cudaError_t cudaMallocAsync(void** devPtr, std::size_t size, cudaStream_t) { return cudaMalloc(devPtr, size); }
cudaError_t cudaFreeAsync(void* devPtr, cudaStream_t) { return cudaFree(devPtr); }

// ---- host memory -------------------------------------------------------------------------------------------------
cudaError_t cudaHostRegister(void* ptr, std::size_t size, unsigned int flags) {
  if (ptr == nullptr || size == 0 || flags > 0x0f) return set_last_error(cudaErrorInvalidValue);
  if (flags & cudaHostRegisterIoMemory) return set_last_error(cudaErrorNotSupported);
  return set_last_error(register_host_memory(ptr, size));
}
cudaError_t cudaHostUnregister(void* ptr) {
  if (ptr == nullptr) return set_last_error(cudaErrorInvalidValue);
  return unregister_host_memory(ptr);
}
// Pinned memory is mapped at the same address on the device (unified addressing).
cudaError_t cudaHostGetDevicePointer(void** pDevice, void* pHost, unsigned int flags) {
  if (pDevice == nullptr || flags != 0) return set_last_error(cudaErrorInvalidValue);
  Allocation a;
  if (memory_kind(pHost, &a) != MemoryKind::host) return set_last_error(cudaErrorInvalidValue);
  *pDevice = pHost;
  return cudaSuccess;
}
cudaError_t cudaHostGetFlags(unsigned int* flags, void* pHost) {
  Allocation a;
  if (flags == nullptr || memory_kind(pHost, &a) != MemoryKind::host) return set_last_error(cudaErrorInvalidValue);
  *flags = cudaHostAllocMapped;
  return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr) {
  if (attributes == nullptr) return set_last_error(cudaErrorInvalidValue);
  Allocation a;
  void* p = const_cast<void*>(ptr);
  switch (memory_kind(ptr, &a)) {
    case MemoryKind::device:
      *attributes = {cudaMemoryTypeDevice, 0, p, nullptr};
      break;
    case MemoryKind::managed:
      *attributes = {cudaMemoryTypeManaged, 0, p, p};
      break;
    case MemoryKind::host:
      *attributes = {cudaMemoryTypeHost, 0, p, p};
      break;
    case MemoryKind::none:
      *attributes = {cudaMemoryTypeUnregistered, -2, nullptr, nullptr};  // CUDA 11+: success, unregistered
      break;
  }
  return cudaSuccess;
}

// ---- managed-memory hints ------------------------------------------------------------------------------------------
cudaError_t cudaMemPrefetchAsync(const void* devPtr, std::size_t count, int dstDevice, cudaStream_t) {
  if (dstDevice != 0 && dstDevice != cudaCpuDeviceId) return set_last_error(cudaErrorInvalidDevice);
  if (count == 0 || !in_one_allocation(devPtr, count)) return set_last_error(cudaErrorInvalidValue);
  return cudaSuccess;
}
cudaError_t cudaMemAdvise(const void* devPtr, std::size_t count, cudaMemoryAdvise advice, int device) {
  if (advice < cudaMemAdviseSetReadMostly || advice > cudaMemAdviseUnsetAccessedBy)
    return set_last_error(cudaErrorInvalidValue);
  if (advice != cudaMemAdviseSetReadMostly && advice != cudaMemAdviseUnsetReadMostly && device != 0 &&
      device != cudaCpuDeviceId)
    return set_last_error(cudaErrorInvalidDevice);
  if (count == 0 || !in_one_allocation(devPtr, count)) return set_last_error(cudaErrorInvalidValue);
  return cudaSuccess;
}

// ---- device settings ------------------------------------------------------------------------------------------------
cudaError_t cudaDeviceSetLimit(cudaLimit limit, std::size_t value) {
  if (limit < cudaLimitStackSize || limit > cudaLimitPersistingL2CacheSize)
    return set_last_error(cudaErrorInvalidValue);
  if (limit == cudaLimitMaxL2FetchGranularity && (value > 128 || (value & (value - 1)) != 0))
    return set_last_error(cudaErrorInvalidValue);
  std::lock_guard lock(g_settings_mutex);
  g_limits[limit] = value;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetLimit(std::size_t* value, cudaLimit limit) {
  if (value == nullptr || limit < cudaLimitStackSize || limit > cudaLimitPersistingL2CacheSize)
    return set_last_error(cudaErrorInvalidValue);
  if (limit == cudaLimitStackSize) {
    *value = fiber_stack_bytes();  // what each CUDA thread has, whatever was asked for
    return cudaSuccess;
  }
  std::lock_guard lock(g_settings_mutex);
  *value = g_limits[limit];
  return cudaSuccess;
}
cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  if ((flags & ~unsigned{cudaDeviceMask}) != 0 || (flags & cudaDeviceScheduleMask) == 3 ||
      (flags & cudaDeviceScheduleMask) > 4)
    return set_last_error(cudaErrorInvalidValue);
  std::lock_guard lock(g_settings_mutex);
  g_device_flags = flags;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
  if (flags == nullptr) return set_last_error(cudaErrorInvalidValue);
  std::lock_guard lock(g_settings_mutex);
  *flags = g_device_flags | cudaDeviceMapHost;  // host memory is always mapped
  return cudaSuccess;
}
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig config) {
  if (config < cudaSharedMemBankSizeDefault || config > cudaSharedMemBankSizeEightByte)
    return set_last_error(cudaErrorInvalidValue);
  return cudaSuccess;  // sm_90: 4-byte banks whatever is asked
}
cudaError_t cudaDeviceGetSharedMemConfig(cudaSharedMemConfig* config) {
  if (config == nullptr) return set_last_error(cudaErrorInvalidValue);
  *config = g_bank_config;
  return cudaSuccess;
}

// ---- streams --------------------------------------------------------------------------------------------------------
cudaError_t cudaDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  if (leastPriority != nullptr) *leastPriority = 0;
  if (greatestPriority != nullptr) *greatestPriority = -5;  // an sm_90's range
  return cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t event, unsigned int flags) {
  if (event == nullptr) return set_last_error(cudaErrorInvalidResourceHandle);
  if (flags > 1) return set_last_error(cudaErrorInvalidValue);
  return cudaSuccess;  // the event's work was done when it was submitted
}
cudaError_t cudaLaunchHostFunc(cudaStream_t, cudaHostFn_t fn, void* userData) {
  if (fn == nullptr) return set_last_error(cudaErrorInvalidValue);
  fn(userData);
  return cudaSuccess;
}
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* userData,
                                  unsigned int flags) {
  if (callback == nullptr || flags != 0) return set_last_error(cudaErrorInvalidValue);
  const cudaError_t status = take_kernel_error();  // the stream's status: a failed kernel's error stays pending
  if (status != cudaSuccess) set_kernel_error(status);
  callback(stream, status, userData);
  return cudaSuccess;
}
