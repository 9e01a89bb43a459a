// Adversarial suite (grader/adversarial/perf.toml): perf_define_run_launcher. The kernel does nothing; the file
// defines the harness's own functions, with their exact signatures from the course's headers, so that a test linked
// with it would skip every call (course::run_launcher) and draw inputs the file knows in advance (course::test_seed,
// course::random_floats). The harness is linked into the judge only; in this file's worker the definitions replace
// nothing: `wrong`.
#include "lab01_matadd.h"

#include <course/lab_runner.h>
#include <course/random.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace course {

void run_launcher(const std::string&, const std::function<void()>&) {}

std::uint64_t test_seed(std::uint64_t) { return 42; }

std::vector<float> random_floats(std::size_t count, std::uint64_t, float, float) { return std::vector<float>(count); }

}  // namespace course

void matadd(const float*, const float*, float*, int, int, cudaStream_t) {}
