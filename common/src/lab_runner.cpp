#include "course/lab_runner.h"

#include "course/cuda_check.h"
#include "course/remote.h"
#include "findings.h"

#include <optional>

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

std::string remote_failure_hint() {
#if defined(COURSE_BACKEND_CPU)
  return " The CPU backend's message about the fault, if any, is in the output above (kernel, block, thread).";
#else
  return " A kernel that faults takes its process down: run the check-mode tests (labNN.check.*) or "
         "compute-sanitizer on the GPU to find the access.";
#endif
}

}  // namespace

void run_launcher(const std::string& call, const std::function<void()>& launcher) {
  // Errors left over from before are not the student's: report them as the harness's.
  if (const cudaError_t stale = cudaGetLastError(); stale != cudaSuccess)
    throw CudaError(stale, describe_cuda_failure(stale, ("a CUDA call before " + call).c_str(), __FILE__, __LINE__));
  launcher();
  cudaError_t launch, run;
  std::string findings;
  if (std::optional<remote::Outcome> outcome = remote::take_outcome()) {  // the launcher ran in the worker
    if (!outcome->failure.empty()) throw LabError(call + ": " + outcome->failure + remote_failure_hint());
    launch = outcome->launch;
    run = outcome->run;
    findings = outcome->findings;
  } else {
    launch = cudaGetLastError();
    run = launch == cudaSuccess ? cudaDeviceSynchronize() : launch;
    findings = cpu_backend_findings();
  }
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
