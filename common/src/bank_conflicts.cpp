#include "course/bank_conflicts.h"

#include "course/remote.h"

#if defined(COURSE_BACKEND_CPU)
#include <course_cpu/diagnostics.h>
#endif

namespace course {

BankConflicts take_bank_conflicts() {
  BankConflicts result;
#if defined(COURSE_BACKEND_CPU)
  const course_cpu::BankConflictReport report = course_cpu::take_bank_conflicts();  // this process's own kernels
  if (std::optional<BankConflicts> remote = remote::take_bank_conflicts()) return *remote;
  if (!course_cpu::check_mode_active()) {
    result.reason = "counted only in check mode (the labNN.check.* tests); no check-mode kernel has run here";
    return result;
  }
  result.available = true;
  for (const auto& l : report.lines)
    result.lines.push_back({l.file, l.line, l.variable, l.store, l.requests, l.wavefronts, l.max_degree});
  result.load_requests = report.load_requests;
  result.load_wavefronts = report.load_wavefronts;
  result.store_requests = report.store_requests;
  result.store_wavefronts = report.store_wavefronts;
  result.max_degree = report.max_degree;
#else
  result.reason =
      "not available on the GPU build: bank conflicts are counted by the CPU backend's check mode (labNN.check.* "
      "tests); on a GPU, measure them with grader/tools/ncu_bank_conflicts.sh (Nsight Compute)";
#endif
  return result;
}

}  // namespace course
