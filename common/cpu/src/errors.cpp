// CPU backend of the course: CUDA error state and error strings.
#include <atomic>

#include "internal.h"

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
constexpr ErrorText kErrors[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {cudaErrorCudartUnloading, "cudaErrorCudartUnloading", "driver shutting down"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {cudaErrorInvalidHostPointer, "cudaErrorInvalidHostPointer", "invalid host pointer"},
    {cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {cudaErrorInsufficientDriver, "cudaErrorInsufficientDriver", "CUDA driver version is insufficient for CUDA runtime version"},
    {cudaErrorMissingConfiguration, "cudaErrorMissingConfiguration", "__global__ function call is not configured"},
    {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorNoKernelImageForDevice, "cudaErrorNoKernelImageForDevice", "no kernel image is available for execution on the device"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources", "too many resources requested for launch"},
    {cudaErrorLaunchTimeout, "cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
    {cudaErrorAssert, "cudaErrorAssert", "device-side assert triggered"},
    {cudaErrorIllegalInstruction, "cudaErrorIllegalInstruction", "an illegal instruction was encountered"},
    {cudaErrorMisalignedAddress, "cudaErrorMisalignedAddress", "misaligned address"},
    {cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {cudaErrorNotPermitted, "cudaErrorNotPermitted", "operation not permitted"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};
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
