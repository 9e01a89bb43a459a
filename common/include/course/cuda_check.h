// Error checks for every CUDA runtime call and every kernel launch.
//
//   CUDA_CHECK(cudaMalloc(&p, bytes));      throws course::CudaError naming the call, file and line
//   CUDA_CHECK_NOEXCEPT(cudaFree(p));       for destructors: prints instead of throwing
//   COURSE_CHECK_LAUNCH("matadd_kernel");   after a launch: launch errors, then errors while it ran
//
// The message explains the usual cause of the error in words a student can act on (see cuda_error_hint).
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace course {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& message) : std::runtime_error(message), code_(code) {}
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

// One sentence on what usually causes `code` and what to do, or "" when there is nothing useful to add.
std::string cuda_error_hint(cudaError_t code);

// "<call> failed at <file>:<line>: cudaErrorX (description). <hint>"
std::string describe_cuda_failure(cudaError_t code, const char* call, const char* file, int line);

void check_cuda(cudaError_t code, const char* call, const char* file, int line);
void check_cuda_noexcept(cudaError_t code, const char* call, const char* file, int line) noexcept;

// Checks the launch just made (cudaGetLastError) and then waits for it (cudaDeviceSynchronize), so that both a
// rejected configuration and a crash while running are reported with `what` in the message.
void check_launch(const char* what, const char* file, int line);

}  // namespace course

#define CUDA_CHECK(call) ::course::check_cuda((call), #call, __FILE__, __LINE__)
#define CUDA_CHECK_NOEXCEPT(call) ::course::check_cuda_noexcept((call), #call, __FILE__, __LINE__)
#define COURSE_CHECK_LAUNCH(what) ::course::check_launch((what), __FILE__, __LINE__)
