// Bench only, never graded: a histogram of n values into `bins` bins made with global atomics only, and with a
// privatised histogram per block in shared memory merged with one global atomic per non-zero bin, on a uniform input
// and on one where hot_percent % of the values fall in one bin. For the histogram figure of
// docs/constant-and-atomics.md; the kernels are docs/examples/histogram.cu, which belongs to no lab, compiled into
// bench_lab06_solution only, with this file (grader/bench/CMakeLists.txt).
#include "bench_case.h"

#include <course/cuda_check.h>
#include <course/device_buffer.h>
#include <course/lab_runner.h>
#include <course/random.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

// Defined in docs/examples/histogram.cu. hist[b] = the number of values equal to b (every value below bins), hist
// zeroed by the launch itself; `blocks` from histogram_grid(), which throws for a bin count the kernels do not take.
int histogram_grid(bool shared, int n, int bins);
void histogram(bool shared, const unsigned* values, int n, unsigned* hist, int bins, int blocks, cudaStream_t stream);

namespace {

constexpr const char* kCopy = "device-to-device copy";
constexpr const char* kGlobal = "global atomics";
constexpr const char* kShared = "shared-memory histogram per block";

// n values in [0, bins): each one, with probability hot_percent / 100, the hot bin bins / 2, else uniform.
std::vector<unsigned> histogram_input(std::size_t n, int bins, int hot_percent, std::uint64_t seed) {
  course::Rng rng(seed);
  std::vector<unsigned> values(n);
  const unsigned hot = static_cast<unsigned>(bins / 2);
  for (unsigned& v : values) {
    const bool in_hot = hot_percent > 0 && rng.next_u64() % 100 < static_cast<std::uint64_t>(hot_percent);
    v = in_hot ? hot : static_cast<unsigned>(rng.next_u64() % static_cast<std::uint64_t>(bins));
  }
  return values;
}

// Exact: every count equal to the CPU's, the first difference named.
course::CompareResult same_counts(const std::vector<unsigned>& got, const std::vector<unsigned>& expected) {
  course::CompareResult r;
  r.checked = expected.size();
  for (std::size_t b = 0; b < expected.size(); ++b) {
    if (got[b] == expected[b]) continue;
    if (r.ok) {
      r.ok = false;
      r.first_bad = b;
      r.first_got = static_cast<float>(got[b]);
      r.first_expected = static_cast<double>(expected[b]);
      r.message = "hist[" + std::to_string(b) + "] is " + std::to_string(got[b]) + ", expected " +
                  std::to_string(expected[b]) + " (counts must be exact)";
    }
    ++r.bad_count;
  }
  if (!r.ok) r.message += "; " + std::to_string(r.bad_count) + " of " + std::to_string(r.checked) + " bins differ";
  return r;
}

// GB/s of values read (n * 4 bytes / time) by both kernels, next to a copy of the values (read + written).
void histogram_perf(course::PerfState& state) {
  const int n = state.size<int>("n"), bins = state.size<int>("bins"), hot = state.size<int>("hot_percent");
  if (n < 1 || hot < 0 || hot > 100)
    throw std::invalid_argument("histogram: n must be at least 1 and hot_percent 0 to 100");
  const std::vector<unsigned> host = histogram_input(static_cast<std::size_t>(n), bins, hot, course::test_seed(621));
  std::vector<unsigned> expected(static_cast<std::size_t>(bins), 0u);
  for (const unsigned v : host) ++expected[v];
  course::DeviceBuffer<unsigned> values(host, "values"), copy(static_cast<std::size_t>(n), "copy");
  course::DeviceBuffer<unsigned> hist(static_cast<std::size_t>(bins), "hist");
  const int global_blocks = histogram_grid(false, n, bins), shared_blocks = histogram_grid(true, n, bins);
  const double bytes = static_cast<double>(n) * sizeof(unsigned);

  const auto launcher = [&](bool shared) {
    const int blocks = shared ? shared_blocks : global_blocks;
    return std::function<void()>(
        [&, shared, blocks] { histogram(shared, values.data(), n, hist.data(), bins, blocks, 0); });
  };
  state.baseline(kCopy, course::Work::bytes(2 * bytes), [&] {
    CUDA_CHECK(cudaMemcpyAsync(copy.data(), values.data(), n * sizeof(unsigned), cudaMemcpyDeviceToDevice, 0));
  });
  state.baseline(kGlobal, course::Work::bytes(bytes), launcher(false));
  state.lab(kShared, course::Work::bytes(bytes), launcher(true));
  for (const bool shared : {false, true}) {
    const char* name = shared ? kShared : kGlobal;
    state.check(name, [&, shared, name] {
      hist.poison();  // the launch must zero it
      course::run_launcher(std::string(name) + " (n = " + std::to_string(n) + ", bins = " + std::to_string(bins) +
                               ", hot_percent = " + std::to_string(hot) + ")",
                           launcher(shared));
      return same_counts(hist.download(), expected);
    });
  }
  state.measure();
}

COURSE_BENCH_CASE(HistogramBench, Atomics, histogram_perf, kGlobal)

}  // namespace
