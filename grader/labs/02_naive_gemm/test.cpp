// Lab 02 tests. Correctness: naive_gemm() against a double-precision CPU reference on random inputs, at sizes where
// m, n and k are independent and not multiples of any block. Bad input: the size checks the grader applies before
// calling a launcher. Perf: the speed-up over the same computation with an uncoalesced mapping (threadIdx.x walking
// the rows of C), timed in the same process.
#include "lab02_baselines.h"
#include "lab02_naive_gemm.h"

#include <course/device.h>
#include <course/device_buffer.h>
#include <course/lab_runner.h>
#include <course/random.h>
#include <course/reference/gemm.h>
#include <course/testing.h>
#include <course/timing.h>
#include <course/yardsticks.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace {

using Shape = course::GemmShape;  // course/reference/gemm.h: its name, call text and C's layout

std::vector<Shape> correctness_shapes() {
  std::vector<Shape> shapes = {
      {1, 1, 1},                   // one element, one term
      {17, 33, 9},  {31, 33, 32},  // one warp of columns, minus and plus one; k below and at 32
      {33, 31, 1},  {1, 64, 64},   // k = 1; one row of C
      {64, 1, 64},  {5, 3, 100},   // one column of C; a long dot product for a tiny C
      {64, 64, 64},                // whole 32 x 32 blocks only
  };
  if (!course::kCheckMode) {            // check mode instruments every access: keep it to the small sizes
    shapes.push_back({257, 129, 513});  // 256 + 1, 128 + 1, 512 + 1
    shapes.push_back({100, 1000, 37});  // wide, short k
  }
  if (course::kBackend == course::Backend::gpu) shapes.push_back({1024, 1024, 1024});
  return shapes;
}

class NaiveGemm : public ::testing::TestWithParam<Shape> {};

TEST_P(NaiveGemm, MatchesReference) {
  COURSE_REQUIRE_DEVICE();
  const Shape s = GetParam();
  const course::GemmSizes sizes = course::gemm_sizes(s.m, s.n, s.k);
  const std::vector<float> a_host = course::random_floats(sizes.a, course::test_seed(201));
  const std::vector<float> b_host = course::random_floats(sizes.b, course::test_seed(202));
  course::DeviceBuffer<float> a(a_host, "A"), b(b_host, "B"), c(sizes.c, "C");
  c.poison();

  course::run_launcher(s.call("naive_gemm"), [&] { naive_gemm(a.data(), b.data(), c.data(), s.m, s.n, s.k, 0); });

  const auto result = course::compare(c.download(), course::gemm_reference(a_host, b_host, s.m, s.n, s.k),
                                      course::gemm_tolerance(s.k), s.c_layout());
  EXPECT_TRUE(course::matches(result));
  EXPECT_TRUE(course::same_bits(a.download(), a_host)) << "naive_gemm() changed its input A";
  EXPECT_TRUE(course::same_bits(b.download(), b_host)) << "naive_gemm() changed its input B";
}

INSTANTIATE_TEST_SUITE_P(, NaiveGemm, ::testing::ValuesIn(correctness_shapes()),
                         [](const ::testing::TestParamInfo<Shape>& info) { return info.param.name(); });

// ---- bad input: what the grader checks before it calls a launcher -------------------------------------------------

std::string rejection(long long m, long long n, long long k) {
  try {
    course::gemm_sizes(m, n, k);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(NaiveGemmBadInput, ZeroSizeIsRejected) {
  EXPECT_NE(rejection(0, 5, 5).find("M must be at least 1, got 0"), std::string::npos) << rejection(0, 5, 5);
  EXPECT_NE(rejection(5, 0, 5).find("N must be at least 1, got 0"), std::string::npos) << rejection(5, 0, 5);
  EXPECT_NE(rejection(5, 5, 0).find("K must be at least 1, got 0"), std::string::npos) << rejection(5, 5, 0);
  EXPECT_NE(rejection(-3, 5, 5).find("got -3"), std::string::npos) << rejection(-3, 5, 5);
}

TEST(NaiveGemmBadInput, Int32OverflowIsRejected) {
  // 65536 x 32768 = 2^31 elements: one more than an int index reaches. Each matrix is checked on its own.
  EXPECT_NE(rejection(65536, 1, 32768).find("A (M x K) 65536x32768 has more than 2^31-1 elements"), std::string::npos)
      << rejection(65536, 1, 32768);
  EXPECT_NE(rejection(1, 65536, 32768).find("B (K x N) 32768x65536"), std::string::npos) << rejection(1, 65536, 32768);
  EXPECT_NE(rejection(65536, 32768, 1).find("C (M x N) 65536x32768"), std::string::npos) << rejection(65536, 32768, 1);
  EXPECT_EQ(rejection(46340, 46340, 1), "") << "46340^2 < 2^31 must be accepted";
}

// ---- perf -------------------------------------------------------------------------------------------------------------

constexpr const char* kUncoalesced = "uncoalesced naive GEMM";

// naive_gemm() against the same computation with threadIdx.x walking the rows of C; equal FLOPs, so the ratio is the
// baseline's time over the lab's.
void naive_gemm_perf(course::PerfState& state) {
  const Shape s{state.size<int>("m"), state.size<int>("n"), state.size<int>("k")};
  const course::GemmSizes sizes = course::gemm_sizes(s.m, s.n, s.k);
  // Every timed call gets inputs of its own and its C is checked afterwards (course/timed_buffers.h).
  course::TimedInput a(state, sizes.a, course::test_seed(211), "A"), b(state, sizes.b, course::test_seed(212), "B");
  course::TimedOutput c(state, sizes.c, "C");
  const double flops = 2.0 * s.m * s.n * s.k;

  auto lab = [&] { naive_gemm(a.data(), b.data(), c.data(), s.m, s.n, s.k, 0); };
  state.baseline(kUncoalesced, course::Work::flops(flops),
                 [&] { uncoalesced_gemm(a.data(), b.data(), c.data(), s.m, s.n, s.k, 0); });
  state.lab("naive_gemm", course::Work::flops(flops), lab);
  state.verify("C", [&](course::Pick& pick) { return course::verify_gemm_rows(pick, a, b, c, s.m, s.n, s.k); });
  course::also_time_cublas_sgemm(state, flops, a, b, c, s.m, s.n, s.k);  // the ceiling (GPU only)
  state.check("naive_gemm", [&] {
    c.poison();
    course::run_launcher(s.call("naive_gemm"), lab);
    return course::compare(c.download(), course::gemm_reference(a.host(), b.host(), s.m, s.n, s.k),
                           course::gemm_tolerance(s.k), s.c_layout());
  });
  state.measure();
}

COURSE_PERF_TEST(NaiveGemmPerf, SpeedupVsUncoalesced, naive_gemm_perf, kUncoalesced)

}  // namespace
