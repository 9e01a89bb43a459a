// Lab 01 tests. Correctness: matadd() against a double-precision CPU reference on random inputs, at awkward sizes.
// Perf: the bandwidth it achieves as a fraction of a device-to-device copy timed in the same process.
#include "lab01_matadd.h"
#include "reference.h"

#include <course/device_buffer.h>
#include <course/lab_runner.h>
#include <course/random.h>
#include <course/testing.h>
#include <course/timed_buffers.h>
#include <course/timing.h>
#include <course/validate.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

namespace {

struct Shape {
  int rows;
  int cols;
};

// How GoogleTest prints a Shape in messages (instead of its bytes).
[[maybe_unused]] void PrintTo(const Shape& s, std::ostream* os) { *os << s.rows << "x" << s.cols; }

std::vector<Shape> correctness_shapes() {
  std::vector<Shape> shapes = {
      {1, 1},                  // one element
      {1, 97},    {97, 1},     // a prime, as a row and as a column
      {31, 33},   {33, 31},    // one warp, minus and plus one
      {7, 256},   {255, 257},  // a 256-thread block, exactly, minus and plus one
      {17, 4096},              // non-square; cols % 4 == 0 (a float4 path, if you wrote one, runs here)
      {64, 1028},              // cols % 4 == 0, not a multiple of a warp
      {5, 1030},               // cols % 4 == 2: rows start 8 bytes past a multiple of 16 (a float4 row faults)
  };
  if (!course::kCheckMode) {                // check mode instruments every access: keep it to the small sizes
    shapes.push_back({1023, 1025});         // 1024 minus and plus one
    shapes.push_back({1, (1 << 24) + 17});  // a large odd size: 2^24 + 17 elements in one row
    shapes.push_back({4099, 4093});         // two primes, about 2^24 elements
  }
  return shapes;
}

std::string shape_name(const ::testing::TestParamInfo<Shape>& info) {
  return std::to_string(info.param.rows) + "x" + std::to_string(info.param.cols);
}

std::string call_text(const Shape& s) {
  return "matadd(a, b, c, " + std::to_string(s.rows) + ", " + std::to_string(s.cols) + ", stream 0)";
}

// One addition in float: the result is within half an ulp of the exact sum.
constexpr double kTolerance = 1.0e-6;

class MatAdd : public ::testing::TestWithParam<Shape> {};

TEST_P(MatAdd, MatchesReference) {
  COURSE_REQUIRE_DEVICE();
  const Shape s = GetParam();
  const std::size_t n = course::require_int_indexable("matrix", {s.rows, s.cols});
  const std::vector<float> a_host = course::random_floats(n, course::test_seed(101));
  const std::vector<float> b_host = course::random_floats(n, course::test_seed(102));
  course::DeviceBuffer<float> a(a_host, "A"), b(b_host, "B"), c(n, "C");
  c.poison();

  course::run_launcher(call_text(s), [&] { matadd(a.data(), b.data(), c.data(), s.rows, s.cols, 0); });

  const auto result = course::compare(c.download(), course::matadd_reference(a_host, b_host), kTolerance,
                                      {"C", static_cast<std::size_t>(s.rows), static_cast<std::size_t>(s.cols)});
  EXPECT_TRUE(course::matches(result));
  EXPECT_TRUE(course::same_bits(a.download(), a_host)) << "matadd() changed its input A";
  EXPECT_TRUE(course::same_bits(b.download(), b_host)) << "matadd() changed its input B";
}

INSTANTIATE_TEST_SUITE_P(, MatAdd, ::testing::ValuesIn(correctness_shapes()), shape_name);

// ---- perf -------------------------------------------------------------------------------------------------------------

constexpr const char* kCopy = "device-to-device copy";

// Bandwidth of matadd() (3 arrays: 2 read, 1 written) against a device-to-device copy (1 read, 1 written).
// [docs:matadd_perf]
void matadd_perf(course::PerfState& state) {
  const Shape s{state.size<int>("rows"), state.size<int>("cols")};  // graded: lab.toml's size, several times any L2
  const std::size_t n = course::require_int_indexable("matrix", {s.rows, s.cols});
  // Every timed call gets inputs of its own and its C is checked afterwards (course/timed_buffers.h).
  course::TimedInput a(state, n, course::test_seed(111), "A"), b(state, n, course::test_seed(112), "B");
  course::TimedOutput c(state, n, "C");
  const double bytes = static_cast<double>(n) * sizeof(float);

  auto lab = [&] { matadd(a.data(), b.data(), c.data(), s.rows, s.cols, 0); };
  state.baseline(kCopy, course::Work::bytes(2 * bytes), [&] {
    CUDA_CHECK(cudaMemcpyAsync(c.data(), a.data(), n * sizeof(float), cudaMemcpyDeviceToDevice, 0));
  });
  state.lab("matadd", course::Work::bytes(3 * bytes), lab);
  state.verify("C", [&](course::Pick& pick) {  // each timed call: 4 windows of 1024 elements, picked afterwards
    for (int w = 0; w < 4; ++w) {
      const std::size_t first = pick.window(n, 1024), width = std::min<std::size_t>(1024, n);
      const course::CompareResult r =
          course::compare(c.gather(first, width),
                          course::matadd_reference(a.host().subspan(first, width), b.host().subspan(first, width)),
                          kTolerance, {"C", static_cast<std::size_t>(s.rows), static_cast<std::size_t>(s.cols), first});
      if (!r.ok) return r;
    }
    return course::CompareResult{};
  });
  state.check("matadd", [&] {
    c.poison();
    course::run_launcher(call_text(s), lab);
    return course::compare(c.download(), course::matadd_reference(a.host(), b.host()), kTolerance,
                           {"C", static_cast<std::size_t>(s.rows), static_cast<std::size_t>(s.cols)});
  });
  state.measure();
}

COURSE_PERF_TEST(MatAddPerf, BandwidthVsCopy, matadd_perf, kCopy)
// [/docs:matadd_perf]

}  // namespace
