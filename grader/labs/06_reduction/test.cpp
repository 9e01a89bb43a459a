// Lab 06 tests. Correctness: reduction() against a compensated double-precision CPU sum, for every block size from 64
// to 1024, at n = 1, primes, block size - 1, block size, block size + 1 and (outside check mode) 2^26 + 3; exact sums
// of small integers, which any lost or doubly counted input changes; bad arguments rejected with a clear error
// before the launcher is called.
// Perf (at the [[perf]] size of lab.toml: block size 256, 2^26 floats): reduction() against the interleaved-addressing
// tree (reduce_interleaved.cu) and against a device-to-device copy, all timed in the same process, with CUB's
// DeviceReduce::Sum timed beside them as the ceiling (the library a user would call instead).
#include "lab06_baselines.h"
#include "lab06_reduction.h"
#include "reference.h"

#include <course/device_buffer.h>
#include <course/lab_runner.h>
#include <course/random.h>
#include <course/testing.h>
#include <course/timing.h>
#include <course/validate.h>
#include <course/yardsticks.h>

#include <bit>
#include <cstdint>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr int kGradedBlockSize = 256;

struct Case {
  int n;
  int block_size;
};

// How GoogleTest prints a Case in messages (instead of its bytes).
[[maybe_unused]] void PrintTo(const Case& c, std::ostream* os) { *os << "n=" << c.n << " block_size=" << c.block_size; }

std::vector<Case> correctness_cases() {
  std::vector<Case> cases;
  for (int bs = kReductionMinBlock; bs <= kReductionMaxBlock; bs *= 2) {
    for (int n : {1, 2, 31, 97, bs - 1, bs, bs + 1, 2 * bs + 1, 4099}) cases.push_back({n, bs});
  }
  if (!course::kCheckMode) {  // check mode instruments every access: keep it to the small sizes
    cases.push_back({65537, 64});
    cases.push_back({1000003, 1024});  // a prime
    cases.push_back({(1 << 26) + 3, kGradedBlockSize});
  }
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return "n" + std::to_string(info.param.n) + "_block" + std::to_string(info.param.block_size);
}

std::string call_text(int n, int block_size) {
  return "reduction(in, " + std::to_string(n) + ", result, scratch, " + std::to_string(block_size) + ", stream 0)";
}

// Random inputs in [-0.25, 1): some cancellation, but a mean well away from 0. With a zero mean, the sum of n inputs
// is only about sqrt(n), and at n = 2^26 even a result of 0 would lie within the tolerance (relative to sum |x|).
// Here the sum is about 0.9 sum |x|, so any result wrong by more than the tolerance shows.
std::vector<float> reduction_inputs(std::size_t n, std::uint64_t seed) {
  return course::random_floats(n, seed, -0.25f, 1.0f);
}

// The preconditions of lab06_reduction.h, checked here so that the lab file holds only kernels and the launcher.
void require_valid_reduction_arguments(long long n, long long block_size) {
  course::require_positive("reduction: n", n);
  if (n > kReductionMaxN)
    throw std::invalid_argument("reduction: n must be at most kReductionMaxN = " + std::to_string(kReductionMaxN) +
                                ", got " + std::to_string(n));
  if (block_size < kReductionMinBlock || block_size > kReductionMaxBlock ||
      !std::has_single_bit(static_cast<unsigned long long>(block_size)))
    throw std::invalid_argument("reduction: block_size must be a power of two from " +
                                std::to_string(kReductionMinBlock) + " to " + std::to_string(kReductionMaxBlock) +
                                " (the halving tree needs a power of two), got " + std::to_string(block_size));
}

// Uploads `host`, runs reduction() under the harness with poisoned scratch and result, and returns *result.
float run_reduction(const std::vector<float>& host, int block_size) {
  const long long n = static_cast<long long>(host.size());
  require_valid_reduction_arguments(n, block_size);
  const int ni = static_cast<int>(n);
  course::DeviceBuffer<float> in(host, "in"), result(1, "result");
  course::DeviceBuffer<float> scratch(static_cast<std::size_t>(reduction_scratch_elements(ni, block_size)), "scratch");
  result.poison();
  scratch.poison();  // the launcher must not rely on what scratch holds
  course::run_launcher(call_text(ni, block_size),
                       [&] { reduction(in.data(), ni, result.data(), scratch.data(), block_size, 0); });
  EXPECT_TRUE(course::same_bits(in.download(), host)) << "reduction() changed its input";
  return result.download()[0];
}

class Reduction : public ::testing::TestWithParam<Case> {};

TEST_P(Reduction, MatchesReference) {
  COURSE_REQUIRE_DEVICE();
  const Case c = GetParam();
  const std::vector<float> host = reduction_inputs(static_cast<std::size_t>(c.n), course::test_seed(601));
  const float got = run_reduction(host, c.block_size);
  EXPECT_TRUE(course::matches(course::compare(std::vector<float>{got}, course::reduce_reference(host),
                                              course::reduce_tolerance(host.size()), {"result"})));
}

INSTANTIATE_TEST_SUITE_P(, Reduction, ::testing::ValuesIn(correctness_cases()), case_name);

// Small integers in [-4, 4] add without rounding in any order while every partial sum stays below 2^24, so the
// result must equal the reference exactly: one input lost or added twice changes it (a float tolerance could not
// see one input among millions).
TEST(ReductionExact, IntegerInputs) {
  COURSE_REQUIRE_DEVICE();
  const int n = course::kCheckMode ? 5003 : (1 << 20) + 3;
  course::Rng rng(course::test_seed(602));
  std::vector<float> host(static_cast<std::size_t>(n));
  for (float& x : host) x = static_cast<float>(static_cast<int>(rng.next_u64() % 9) - 4);
  for (int block_size : {kReductionMinBlock, kGradedBlockSize, kReductionMaxBlock}) {
    SCOPED_TRACE("block_size " + std::to_string(block_size));
    const float got = run_reduction(host, block_size);
    EXPECT_TRUE(
        course::matches(course::compare(std::vector<float>{got}, course::reduce_reference(host), 0.0, {"result"})));
  }
}

// The scratch size the interface promises: one partial sum per block at each level of a tree.
TEST(ReductionScratch, ElementsPerLevel) {
  EXPECT_EQ(reduction_scratch_elements(1, 64), 1);
  EXPECT_EQ(reduction_scratch_elements(64, 64), 1);
  EXPECT_EQ(reduction_scratch_elements(65, 64), 2 + 1);
  EXPECT_EQ(reduction_scratch_elements(64 * 64 + 1, 64), 65 + 2 + 1);
  EXPECT_EQ(reduction_scratch_elements(kReductionMaxN, 1024), (1 << 20) + (1 << 10) + 1);
}

// Bad arguments never reach the launcher: they fail with a message naming the argument and the allowed range.
TEST(ReductionArguments, RejectsBadArguments) {
  const auto rejects = [](long long n, long long block_size, const std::string& expected_words) {
    try {
      require_valid_reduction_arguments(n, block_size);
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(expected_words), std::string::npos) << "message was: " << e.what();
      return;
    }
    ADD_FAILURE() << "reduction(n = " << n << ", block_size = " << block_size << ") was not rejected";
  };
  rejects(0, 256, "n must be at least 1");
  rejects(-3, 256, "n must be at least 1");
  rejects(static_cast<long long>(kReductionMaxN) + 1, 256, "n must be at most");
  for (long long bs : {0LL, -256LL, 32LL, 2048LL, 96LL, 255LL, 257LL, 1000LL})
    rejects(1000, bs, "block_size must be a power of two from 64 to 1024");
  for (int bs = kReductionMinBlock; bs <= kReductionMaxBlock; bs *= 2)
    EXPECT_NO_THROW(require_valid_reduction_arguments(kReductionMaxN, bs));
}

// ---- perf -------------------------------------------------------------------------------------------------------------

constexpr const char* kCopy = "device-to-device copy";
constexpr const char* kInterleaved = "interleaved-addressing reduction";

// reduction() against the interleaved-addressing tree (grader/labs/06_reduction/reduce_interleaved.cu) and a
// device-to-device copy. The reductions' rates count the bytes of input read; the copy's, bytes read + written. The
// two tests run the whole measurement each and grade against different baselines.
void reduction_perf(course::PerfState& state) {
  const int n = state.size<int>("n");  // graded: lab.toml's size, 256 MiB, several times any L2
  const int bs = state.size<int>("block_size");
  require_valid_reduction_arguments(n, bs);  // a sweep's sizes too
  // Every timed call gets an input of its own and its result is checked afterwards (course/timed_buffers.h); the
  // values as reduction_inputs() draws them.
  course::TimedInput in(state, static_cast<std::size_t>(n), course::test_seed(611), "in", -0.25f, 1.0f);
  course::TimedOutput result(state, 1, "result");
  course::DeviceBuffer<float> copy_out(static_cast<std::size_t>(n), "copy destination");
  course::DeviceBuffer<float> scratch(static_cast<std::size_t>(reduction_scratch_elements(n, bs)), "scratch");
  const double bytes = static_cast<double>(n) * sizeof(float);

  auto lab = [&] { reduction(in.data(), n, result.data(), scratch.data(), bs, 0); };
  state.baseline(kCopy, course::Work::bytes(2 * bytes), [&] {
    CUDA_CHECK(cudaMemcpyAsync(copy_out.data(), in.data(), n * sizeof(float), cudaMemcpyDeviceToDevice, 0));
  });
  state.baseline(kInterleaved, course::Work::bytes(bytes),
                 [&] { reduce_interleaved(in.data(), n, result.data(), scratch.data(), bs, 0); });
  state.lab("reduction", course::Work::bytes(bytes), lab);
  state.verify("result", [&](course::Pick&) {  // each timed call: its sum, from prefix sums of the input pool
    return course::compare(result.download(), in.sum(), course::reduce_tolerance(static_cast<std::size_t>(n)),
                           {"result"});
  });
  course::also_time_cub_sum(state, in, n);  // the ceiling: the library a user would call instead (GPU only)
  state.check("reduction", [&] {
    result.poison();
    scratch.poison();
    course::run_launcher(call_text(n, bs), lab);
    return course::compare(result.download(), course::reduce_reference(in.host()), course::reduce_tolerance(in.size()),
                           {"result"});
  });
  state.measure();
}

COURSE_PERF_TEST(ReductionPerf, BandwidthVsCopy, reduction_perf, kCopy)
COURSE_PERF_TEST(ReductionPerf, SpeedupVsInterleaved, reduction_perf, kInterleaved)

}  // namespace
