// Bench only, never graded: the lab 06 solution's optional variants 1-3 (reduce1_kernel ... reduce3_kernel in
// solutions/06_reduction/reduction.cu, launched level by level by reduce_levels.cu), timed against the interleaved
// baseline with the lab's measurement object. With lab 06's perf case (variant 0, the baseline, and variant 4, the
// reference) they make the reduction figure. Compiled into bench_lab06_solution only (grader/bench/CMakeLists.txt).
#include "bench_case.h"
#include "lab06_baselines.h"
#include "lab06_reduction.h"
#include "reference.h"  // lab 06's CPU reference (grader/labs/06_reduction/)

#include <course/device_buffer.h>
#include <course/lab_runner.h>
#include <course/random.h>

#include <bit>
#include <stdexcept>
#include <string>
#include <vector>

// Defined in reduce_levels.cu: variant 1, 2 or 3, the contract of reduction() otherwise.
void reduce_levels(int variant, const float* in, int n, float* result, float* scratch, int block_size,
                   cudaStream_t stream);

namespace {

constexpr const char* kInterleaved = "interleaved-addressing reduction";  // the name lab 06's perf case gives it
constexpr const char* kVariants[] = {"", "reduce1 (sequential addressing)", "reduce2 (first add during the load)",
                                     "reduce3 (warp shuffle for the last 32)"};

// Bytes of input read per second by variants 1-3 (variant 3 as the lab, 1 and 2 timed after it) and the baseline.
void levels_perf(course::PerfState& state) {
  const int n = state.size<int>("n"), bs = state.size<int>("block_size");
  if (n < 1 || n > kReductionMaxN || bs < kReductionMinBlock || bs > kReductionMaxBlock ||
      !std::has_single_bit(static_cast<unsigned>(bs)))
    throw std::invalid_argument("reduction levels: n must be 1 to kReductionMaxN and block_size a power of two from " +
                                std::to_string(kReductionMinBlock) + " to " + std::to_string(kReductionMaxBlock));
  // The inputs of lab 06's perf case: in [-0.25, 1), so that a wrong sum cannot hide within the tolerance.
  const std::vector<float> host =
      course::random_floats(static_cast<std::size_t>(n), course::test_seed(611), -0.25f, 1.0f);
  course::DeviceBuffer<float> in(host, "in"), result(1, "result");
  course::DeviceBuffer<float> scratch(static_cast<std::size_t>(reduction_scratch_elements(n, bs)), "scratch");
  const course::Work bytes = course::Work::bytes(static_cast<double>(n) * sizeof(float));

  const auto levels = [&](int variant) {
    return [&, variant] { reduce_levels(variant, in.data(), n, result.data(), scratch.data(), bs, 0); };
  };
  state.baseline(kInterleaved, bytes, [&] { reduce_interleaved(in.data(), n, result.data(), scratch.data(), bs, 0); });
  state.lab(kVariants[3], bytes, levels(3));
  state.also_time(kVariants[1], bytes, levels(1));
  state.also_time(kVariants[2], bytes, levels(2));
  for (int variant = 1; variant <= 3; ++variant) {
    state.check(kVariants[variant], [&, variant] {
      result.poison();
      scratch.poison();
      course::run_launcher("reduce_levels(" + std::to_string(variant) + ", in, " + std::to_string(n) +
                               ", result, scratch, " + std::to_string(bs) + ", stream 0)",
                           levels(variant));
      return course::compare(result.download(), course::reduce_reference(host), course::reduce_tolerance(host.size()),
                             {"result"});
    });
  }
  state.measure();
}

COURSE_BENCH_CASE(ReductionBench, Levels, levels_perf, kInterleaved)

}  // namespace
