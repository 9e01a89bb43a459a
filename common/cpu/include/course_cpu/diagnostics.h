// CPU backend of the course: what the runtime found while running kernels.
// The harness calls these after each launch in CPU builds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace course_cpu {

struct Diagnostic {
  // "race", "barrier-divergence", "out-of-bounds", "uninitialized-shared-read",
  // "invalid-launch", "not-a-device-pointer", "misaligned-address", "kernel-exception"
  std::string category;
  std::string file;
  int line = 0;
  std::string message;  // a full sentence for the student, first occurrence
  std::size_t occurrences = 0;
};

// Everything recorded since the last call: each distinct (category, file,
// line, variable) once, in the order of the launches, and within a launch by
// the lowest (block, thread) that hit it. Identical on every run.
std::vector<Diagnostic> take_diagnostics();

struct BankConflictLine {
  std::string file;
  int line = 0;
  std::string variable;
  bool store = false;
  std::uint64_t requests = 0;    // warp-wide shared-memory requests
  std::uint64_t wavefronts = 0;  // sum over requests of the conflict degree
  int max_degree = 0;            // worst request (1 = conflict-free, 32 = fully serialized)
};

struct BankConflictReport {
  std::vector<BankConflictLine> lines;  // sorted by file, line, variable, load before store
  std::uint64_t load_requests = 0, load_wavefronts = 0;
  std::uint64_t store_requests = 0, store_wavefronts = 0;
  int max_degree = 0;
};

// Per-warp bank-conflict statistics of check-mode kernels since the last call.
BankConflictReport take_bank_conflicts();

// True if any check-mode (instrumented) kernel has run in this process.
bool check_mode_active();

}  // namespace course_cpu
