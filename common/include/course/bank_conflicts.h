// Shared-memory bank conflicts of the kernels a test just ran, as counted by the CPU backend's check mode.
//
//   course::take_bank_conflicts();                       // forget what earlier launches did
//   course::run_launcher(call, [&] { padded_gemm(...); });
//   const course::BankConflicts bc = course::take_bank_conflicts();
//   if (!bc.available) GTEST_SKIP() << bc.reason;
//   std::printf("%s", bc.table().c_str());               // one line per source line that touches shared memory
//
// Check mode replays every warp-wide shared-memory request on 32 four-byte banks: a request whose lanes touch k
// different words of one bank costs k wavefronts (degree k; lanes reading the same word are a broadcast, degree 1).
// The GPU build has no such counter: there, run grader/tools/ncu_bank_conflicts.sh (Nsight Compute) instead.
// In a judge (course/remote.h) the counts are those the worker reported for the launches it ran.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace course {

struct BankConflictLine {
  std::string file;
  int line = 0;
  std::string variable;
  bool store = false;
  std::uint64_t requests = 0;    // warp-wide requests
  std::uint64_t wavefronts = 0;  // sum of their degrees: requests when conflict-free
  int max_degree = 0;            // worst request: 1 = conflict-free, 32 = fully serialized
};

struct BankConflicts {
  bool available = false;
  std::string reason;  // why not, when !available
  std::vector<BankConflictLine> lines;
  std::uint64_t load_requests = 0, load_wavefronts = 0;
  std::uint64_t store_requests = 0, store_wavefronts = 0;
  int max_degree = 0;

  // Worst degree of the loads (store == false) or the stores (store == true).
  int max_degree_of(bool stores) const {
    int worst = 0;
    for (const auto& l : lines)
      if (l.store == stores && l.max_degree > worst) worst = l.max_degree;
    return worst;
  }

  // A table for the student: where the shared-memory traffic is and how serialized it is.
  std::string table() const {
    if (!available) return "bank conflicts: " + reason + "\n";
    std::string out =
        "shared-memory requests per source line (degree: wavefronts over the fewest the request's bytes need; 1 = "
        "conflict-free, 32 = fully serialized):\n";
    char buf[512];
    for (const auto& l : lines) {
      const double average = l.requests ? static_cast<double>(l.wavefronts) / static_cast<double>(l.requests) : 0.0;
      std::snprintf(buf, sizeof buf, "  %s:%d  %-8s %-5s %10llu requests  %5.2f wavefronts each  worst degree %2d\n",
                    l.file.c_str(), l.line, l.variable.c_str(), l.store ? "store" : "load",
                    static_cast<unsigned long long>(l.requests), average, l.max_degree);
      out += buf;
    }
    std::snprintf(buf, sizeof buf, "  total: loads %llu requests / %llu wavefronts, stores %llu / %llu\n",
                  static_cast<unsigned long long>(load_requests), static_cast<unsigned long long>(load_wavefronts),
                  static_cast<unsigned long long>(store_requests), static_cast<unsigned long long>(store_wavefronts));
    out += buf;
    return out;
  }
};

// The bank-conflict statistics of the kernels run since the last call (and forgets them): those the worker reported
// (course/remote.h) in a judge, those of this process's own check-mode kernels otherwise.
BankConflicts take_bank_conflicts();

}  // namespace course
