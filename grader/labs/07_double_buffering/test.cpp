// Lab 07 tests. Correctness: double_buffered_gemm() against a double-precision CPU reference on random inputs, at
// sizes where m, n and k are independent, not multiples of the 128 x 128 x 16 tiling, and n takes every residue mod 4
// (n % 4 == 0 selects the kernel that copies B 16 bytes at a time). Check mode also reports a read of shared memory
// whose asynchronous copy was not waited for. Perf: the speed-up over the lab 03 reference kernel (tiled_gemm<32>) at
// 4096^3, timed in the same process, with cuBLAS SGEMM timed beside them as the ceiling.
#include "lab07_baselines.h"
#include "lab07_double_buffering.h"

#include <course/device.h>
#include <course/device_buffer.h>
#include <course/lab_runner.h>
#include <course/random.h>
#include <course/reference/gemm.h>
#include <course/testing.h>
#include <course/timing.h>
#include <course/yardsticks.h>

#include <optional>
#include <string>
#include <vector>

namespace {

using Shape = course::GemmShape;  // course/reference/gemm.h: its name, call text and C's layout

std::vector<Shape> correctness_shapes() {
  std::vector<Shape> shapes = {
      {1, 1, 1},                       // one element, one term: one block, its tiles almost all zero-filled
      {17, 33, 9},    {31, 34, 16},    // n % 4 == 1 and 2; k below and at one k-tile
      {33, 35, 17},   {5, 3, 100},     // n % 4 == 3, k one past a k-tile; many k-tiles for a tiny C
      {128, 128, 32}, {129, 127, 15},  // whole tiles only; one past and one short of a 128-tile
      {40, 52, 70},                    // n % 4 == 0 (16-byte copies of B) with a partial column tile
  };
  if (!course::kCheckMode) {  // check mode instruments every access: keep it to the small sizes
    shapes.push_back({257, 260, 513});
    shapes.push_back({100, 1001, 37});
  }
  if (course::kBackend == course::Backend::gpu) {
    shapes.push_back({1024, 1024, 1024});
    shapes.push_back({1000, 1028, 999});
  }
  return shapes;
}

class DoubleBufferedGemm : public ::testing::TestWithParam<Shape> {};

TEST_P(DoubleBufferedGemm, MatchesReference) {
  COURSE_REQUIRE_DEVICE();
  const Shape s = GetParam();
  const course::GemmSizes sizes = course::gemm_sizes(s.m, s.n, s.k);
  const std::vector<float> a_host = course::random_floats(sizes.a, course::test_seed(701));
  const std::vector<float> b_host = course::random_floats(sizes.b, course::test_seed(702));
  course::DeviceBuffer<float> a(a_host, "A"), b(b_host, "B"), c(sizes.c, "C");
  c.poison();

  course::run_launcher(s.call("double_buffered_gemm"),
                       [&] { double_buffered_gemm(a.data(), b.data(), c.data(), s.m, s.n, s.k, 0); });

  const auto result = course::compare(c.download(), course::gemm_reference(a_host, b_host, s.m, s.n, s.k),
                                      course::gemm_tolerance(s.k), s.c_layout());
  EXPECT_TRUE(course::matches(result));
  EXPECT_TRUE(course::same_bits(a.download(), a_host)) << "double_buffered_gemm() changed its input A";
  EXPECT_TRUE(course::same_bits(b.download(), b_host)) << "double_buffered_gemm() changed its input B";
}

INSTANTIATE_TEST_SUITE_P(, DoubleBufferedGemm, ::testing::ValuesIn(correctness_shapes()),
                         [](const ::testing::TestParamInfo<Shape>& info) { return info.param.name(); });

// ---- perf -------------------------------------------------------------------------------------------------------------

constexpr const char* kTiled = "tiled GEMM, 32 x 32 tiles (lab 03 solution)";

// double_buffered_gemm() against the lab 03 reference kernel; equal FLOPs, so the ratio is the baseline's time over
// the lab's. The graded size is 4096^3: 1024 blocks of 128 x 128, about 8 per SM, as a GEMM of that shape is used.
void double_buffered_gemm_perf(course::PerfState& state) {
  const Shape s{state.size<int>("m"), state.size<int>("n"), state.size<int>("k")};
  const course::GemmSizes sizes = course::gemm_sizes(s.m, s.n, s.k);
  // Every timed call gets inputs of its own and its C is checked afterwards (course/timed_buffers.h).
  course::TimedInput a(state, sizes.a, course::test_seed(711), "A"), b(state, sizes.b, course::test_seed(712), "B");
  course::TimedOutput c(state, sizes.c, "C");
  const double flops = 2.0 * s.m * s.n * s.k;

  state.baseline(kTiled, course::Work::flops(flops),
                 [&] { reference_tiled_gemm(a.data(), b.data(), c.data(), s.m, s.n, s.k, 0); });
  state.lab("double_buffered_gemm", course::Work::flops(flops),
            [&] { double_buffered_gemm(a.data(), b.data(), c.data(), s.m, s.n, s.k, 0); });
  state.verify("C", [&](course::Pick& pick) { return course::verify_gemm_rows(pick, a, b, c, s.m, s.n, s.k); });
  course::also_time_cublas_sgemm(state, flops, a, b, c, s.m, s.n, s.k);  // the ceiling (GPU only)

  // Every 64th row of C: the CPU reference of the whole of C at 4096^3 would take minutes. Computed once, after the
  // timed runs.
  constexpr int kRowStep = 64;
  std::optional<course::Reference> reference;
  state.check("double_buffered_gemm", [&] {
    c.poison();
    course::run_launcher(s.call("double_buffered_gemm"),
                         [&] { double_buffered_gemm(a.data(), b.data(), c.data(), s.m, s.n, s.k, 0); });
    return course::compare_gemm_rows(c.download(), a.host(), b.host(), s, kRowStep, reference);
  });
  state.measure();
}

COURSE_PERF_TEST(DoubleBufferedGemmPerf, SpeedupVsTiled, double_buffered_gemm_perf, kTiled)

}  // namespace
