#include "course/lab_runner.h"

#include "course/cuda_check.h"

#include <sstream>

#if defined(COURSE_BACKEND_CPU)
#include <course_cpu/diagnostics.h>
#endif

namespace course {

namespace {

// Errors with which the runtime refuses a launch before any thread runs (the others happen while the kernel runs;
// the CPU backend, which runs a kernel inside the launch call, reports those at the launch too).
bool is_rejected_launch(cudaError_t code) {
  switch (static_cast<int>(code)) {
    case 1:    // cudaErrorInvalidValue: e.g. too much dynamic shared memory
    case 9:    // cudaErrorInvalidConfiguration
    case 98:   // cudaErrorInvalidDeviceFunction
    case 209:  // cudaErrorNoKernelImageForDevice
    case 222:  // cudaErrorUnsupportedPtxVersion
    case 701:  // cudaErrorLaunchOutOfResources
      return true;
    default:
      return false;
  }
}

#if defined(COURSE_BACKEND_CPU)
// Check-mode findings (races, barrier divergence, out-of-bounds accesses...) as one paragraph, or "".
std::string cpu_backend_findings() {
  std::ostringstream out;
  for (const auto& d : course_cpu::take_diagnostics()) {
    out << "\n  [" << d.category << "] " << d.file << ":" << d.line << ": " << d.message;
    if (d.occurrences > 1) out << " (" << d.occurrences << " times)";
  }
  return out.str();
}
#else
std::string cpu_backend_findings() { return ""; }
#endif

}  // namespace

void run_launcher(const std::string& call, const std::function<void()>& launcher) {
  // Errors left over from before are not the student's: report them as the harness's.
  if (const cudaError_t stale = cudaGetLastError(); stale != cudaSuccess)
    throw CudaError(stale, describe_cuda_failure(stale, ("a CUDA call before " + call).c_str(), __FILE__, __LINE__));
  launcher();
  const cudaError_t launch = cudaGetLastError();
  const cudaError_t run = launch == cudaSuccess ? cudaDeviceSynchronize() : launch;
  const std::string findings = cpu_backend_findings();
  if (launch != cudaSuccess && is_rejected_launch(launch)) {
    throw LabError(call + ": the kernel launch was rejected: " + cudaGetErrorName(launch) + " (" +
                   cudaGetErrorString(launch) + "). " + cuda_error_hint(launch) + findings);
  }
  if (run != cudaSuccess) {  // includes a launch error that is not a rejection: the kernel ran and failed
    throw LabError(call + ": the kernel failed while running: " + cudaGetErrorName(run) + " (" +
                   cudaGetErrorString(run) + "). " + cuda_error_hint(run) + findings);
  }
  if (!findings.empty()) {
    throw LabError(call +
                   ": the output may look right, but the CPU backend found bugs that a GPU can hide:" + findings);
  }
}

}  // namespace course
