#include "course/cuda_check.h"

#include "course/device.h"

#include <cstdio>
#include <sstream>

#ifndef COURSE_CUDA_ARCHITECTURES
#define COURSE_CUDA_ARCHITECTURES "unknown"
#endif

namespace course {

namespace {

// Numeric values of the CUDA runtime's error codes, so this compiles against the CPU backend's shim too.
enum : int {
  kInvalidValue = 1,
  kMemoryAllocation = 2,
  kInvalidConfiguration = 9,
  kInsufficientDriver = 35,
  kInvalidDeviceFunction = 98,
  kNoDevice = 100,
  kNoKernelImageForDevice = 209,
  kUnsupportedPtxVersion = 222,
  kIllegalAddress = 700,
  kLaunchOutOfResources = 701,
  kLaunchTimeout = 702,
  kMisalignedAddress = 716,
  kLaunchFailure = 719,
};

std::string this_gpu_arch() {
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) return "?";
  return std::to_string(prop.major) + std::to_string(prop.minor);
}

}  // namespace

std::string cuda_error_hint(cudaError_t code) {
  switch (static_cast<int>(code)) {
    case kNoKernelImageForDevice:
    case kUnsupportedPtxVersion:
    case kInvalidDeviceFunction:
      return "This program was built for CUDA architecture(s) " COURSE_CUDA_ARCHITECTURES " but this GPU is sm_" +
             this_gpu_arch() +
             ". Reconfigure for it and rebuild: cmake --preset dev (which uses 'native'), or "
             "cmake -B build -DCMAKE_CUDA_ARCHITECTURES=" +
             this_gpu_arch() + ".";
    case kInvalidConfiguration:
      return "The launch configuration was rejected. A block has at most 1024 threads "
             "(blockDim.x * blockDim.y * blockDim.z), blockDim.z is at most 64, gridDim.y and gridDim.z at most "
             "65535, and no dimension may be 0. Check the grid and block your launcher computes.";
    case kInvalidValue:  // CUDA 13 refuses every launch configuration beyond the limits with this code
      return "An argument was invalid. At a kernel launch: a grid or block beyond CUDA's limits (a block has at most "
             "1024 threads, blockDim.z is at most 64, gridDim.y and gridDim.z at most 65535, no dimension may be 0), "
             "or more dynamic shared memory than allowed (the third <<< >>> parameter: 48 KB unless raised with "
             "cudaFuncSetAttribute). Check the grid, block and shared memory your launcher computes.";
    case kMemoryAllocation:
      return "The GPU is out of memory: the problem is too large for this GPU, or memory is leaking.";
    case kInsufficientDriver:
    case kNoDevice:
      return "No usable CUDA GPU: is there one, and is the NVIDIA driver installed and new enough? Without a GPU, "
             "run the CPU-backend tests (ctest --test-dir build -R labNN.cpu and -R labNN.check, with your lab's "
             "number).";
    case kIllegalAddress:
    case kMisalignedAddress:
      return std::string(static_cast<int>(code) == kIllegalAddress
                             ? "A kernel read or wrote memory it does not own: usually a missing bounds check "
                               "(if (i < n)) or a wrong index."
                             : "A kernel accessed a vector type (float2, float4, int4, double2) at an address that "
                               "is not a multiple of its size: a vector load or store needs an index that is a "
                               "multiple of the vector's width from an aligned start.") +
             " The check-mode tests (ctest --test-dir build -R labNN.check, with your lab's number) name the line." +
             (kBackend == Backend::gpu ? " After this error the GPU context is unusable, so later tests in the "
                                         "same process fail too."
                                       : "");
    case kLaunchOutOfResources:
      return "The kernel needs more registers or shared memory per block than the GPU has: use smaller blocks.";
    case kLaunchTimeout:
      return "The kernel ran too long and was stopped: look for a loop that never ends.";
    case kLaunchFailure:
      return "The kernel crashed while running (on the CPU backend: a barrier divergence or another fault that "
             "its diagnostics describe).";
    default:
      return "";
  }
}

std::string describe_cuda_failure(cudaError_t code, const char* call, const char* file, int line) {
  std::ostringstream out;
  out << call << " failed at " << file << ":" << line << ": " << cudaGetErrorName(code) << " ("
      << cudaGetErrorString(code) << ").";
  const std::string hint = cuda_error_hint(code);
  if (!hint.empty()) out << " " << hint;
  return out.str();
}

void check_cuda(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess) throw CudaError(code, describe_cuda_failure(code, call, file, line));
}

void check_cuda_noexcept(cudaError_t code, const char* call, const char* file, int line) noexcept {
  if (code != cudaSuccess) std::fprintf(stderr, "%s\n", describe_cuda_failure(code, call, file, line).c_str());
}

void check_launch(const char* what, const char* file, int line) {
  const cudaError_t launch = cudaGetLastError();
  if (launch != cudaSuccess) {
    throw CudaError(launch, describe_cuda_failure(launch, (std::string("launch of ") + what).c_str(), file, line));
  }
  const cudaError_t run = cudaDeviceSynchronize();
  if (run != cudaSuccess) {
    throw CudaError(run, describe_cuda_failure(run, (std::string("running ") + what).c_str(), file, line));
  }
}

}  // namespace course
