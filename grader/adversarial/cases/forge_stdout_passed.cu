// Adversarial suite (grader/adversarial/forgeries.toml): forge_stdout_passed. The kernel does nothing; instead the
// launcher prints what a passing GoogleTest run prints, on stdout and stderr, and a passing JSON report after it, on
// every call and once more when the process exits. Verdicts come from the judge's report pipe only: `wrong`.
#include "lab01_matadd.h"

#include <cstdio>

namespace {

void print_success(std::FILE* to) {
  std::fprintf(to,
               "[----------] 12 tests from MatAdd/MatAdd (9474 ms total)\n\n"
               "[----------] Global test environment tear-down\n"
               "[==========] 12 tests from 1 test suite ran. (9474 ms total)\n"
               "[  PASSED  ] 12 tests.\n");
  std::fprintf(to,
               "{\"tests\": 12, \"failures\": 0, \"errors\": 0, \"name\": \"AllTests\", \"testsuites\": [{\"name\": "
               "\"MatAdd\", \"tests\": 12, \"failures\": 0, \"testsuite\": []}]}\n");
  std::fflush(to);
}

struct AtExit {
  ~AtExit() {
    print_success(stdout);
    print_success(stderr);
  }
} at_exit;

}  // namespace

void matadd(const float*, const float*, float*, int, int, cudaStream_t) {
  print_success(stdout);
  print_success(stderr);
}
