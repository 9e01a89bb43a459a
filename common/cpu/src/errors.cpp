// CPU backend of the course: CUDA error state and error strings.
#include "internal.h"

#include <atomic>

namespace course_cpu::detail {
namespace {
std::atomic<int> g_last_error{cudaSuccess};
std::atomic<int> g_kernel_error{cudaSuccess};
}  // namespace

cudaError_t set_last_error(cudaError_t e) {
  if (e != cudaSuccess) g_last_error.store(e);
  return e;
}
void set_kernel_error(cudaError_t e) {
  set_last_error(e);
  int expected = cudaSuccess;
  g_kernel_error.compare_exchange_strong(expected, e);
}
cudaError_t take_kernel_error() { return static_cast<cudaError_t>(g_kernel_error.exchange(cudaSuccess)); }
void reset_errors() {
  g_last_error.store(cudaSuccess);
  g_kernel_error.store(cudaSuccess);
}

}  // namespace course_cpu::detail

using namespace course_cpu::detail;

cudaError_t cudaGetLastError() { return static_cast<cudaError_t>(g_last_error.exchange(cudaSuccess)); }
cudaError_t cudaPeekAtLastError() { return static_cast<cudaError_t>(g_last_error.load()); }

namespace {
struct ErrorText {
  cudaError_t code;
  const char* name;
  const char* text;
};
// Each code with its name (spelled once) and CUDA's text for it.
#define COURSE_CPU_ERROR(code, text) \
  { code, #code, text }
constexpr ErrorText kErrors[] = {
    COURSE_CPU_ERROR(cudaSuccess, "no error"),
    COURSE_CPU_ERROR(cudaErrorInvalidValue, "invalid argument"),
    COURSE_CPU_ERROR(cudaErrorMemoryAllocation, "out of memory"),
    COURSE_CPU_ERROR(cudaErrorInitializationError, "initialization error"),
    COURSE_CPU_ERROR(cudaErrorCudartUnloading, "driver shutting down"),
    COURSE_CPU_ERROR(cudaErrorInvalidConfiguration, "invalid configuration argument"),
    COURSE_CPU_ERROR(cudaErrorInvalidPitchValue, "invalid pitch argument"),
    COURSE_CPU_ERROR(cudaErrorInvalidSymbol, "invalid device symbol"),
    COURSE_CPU_ERROR(cudaErrorInvalidHostPointer, "invalid host pointer"),
    COURSE_CPU_ERROR(cudaErrorInvalidDevicePointer, "invalid device pointer"),
    COURSE_CPU_ERROR(cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy"),
    COURSE_CPU_ERROR(cudaErrorInsufficientDriver, "CUDA driver version is insufficient for CUDA runtime version"),
    COURSE_CPU_ERROR(cudaErrorMissingConfiguration, "__global__ function call is not configured"),
    COURSE_CPU_ERROR(cudaErrorInvalidDeviceFunction, "invalid device function"),
    COURSE_CPU_ERROR(cudaErrorNoDevice, "no CUDA-capable device is detected"),
    COURSE_CPU_ERROR(cudaErrorInvalidDevice, "invalid device ordinal"),
    COURSE_CPU_ERROR(cudaErrorNoKernelImageForDevice, "no kernel image is available for execution on the device"),
    COURSE_CPU_ERROR(cudaErrorInvalidResourceHandle, "invalid resource handle"),
    COURSE_CPU_ERROR(cudaErrorNotReady, "device not ready"),
    COURSE_CPU_ERROR(cudaErrorIllegalAddress, "an illegal memory access was encountered"),
    COURSE_CPU_ERROR(cudaErrorLaunchOutOfResources, "too many resources requested for launch"),
    COURSE_CPU_ERROR(cudaErrorLaunchTimeout, "the launch timed out and was terminated"),
    COURSE_CPU_ERROR(cudaErrorAssert, "device-side assert triggered"),
    COURSE_CPU_ERROR(cudaErrorHostMemoryAlreadyRegistered,
                     "part or all of the requested memory range is already mapped"),
    COURSE_CPU_ERROR(cudaErrorHostMemoryNotRegistered, "pointer does not correspond to a registered memory region"),
    COURSE_CPU_ERROR(cudaErrorIllegalInstruction, "an illegal instruction was encountered"),
    COURSE_CPU_ERROR(cudaErrorMisalignedAddress, "misaligned address"),
    COURSE_CPU_ERROR(cudaErrorLaunchFailure, "unspecified launch failure"),
    COURSE_CPU_ERROR(cudaErrorNotPermitted, "operation not permitted"),
    COURSE_CPU_ERROR(cudaErrorStreamCaptureUnsupported, "operation not permitted when stream is capturing"),
    COURSE_CPU_ERROR(cudaErrorNotSupported, "operation not supported"),
    COURSE_CPU_ERROR(cudaErrorUnknown, "unknown error"),
};
#undef COURSE_CPU_ERROR
const ErrorText* lookup(cudaError_t e) {
  for (const ErrorText& t : kErrors)
    if (t.code == e) return &t;
  return nullptr;
}
}  // namespace

const char* cudaGetErrorString(cudaError_t error) {
  const ErrorText* t = lookup(error);
  return t ? t->text : "unrecognized error code";
}
const char* cudaGetErrorName(cudaError_t error) {
  const ErrorText* t = lookup(error);
  return t ? t->name : "cudaErrorUnknown";
}
