// Lab 04 tests. Correctness: padded_gemm() against a double-precision CPU reference on random inputs, at sizes where
// m, n and k are independent and not multiples of the tile. Bank conflicts (check mode of the CPU backend): the
// unpadded starting point shows its 32-way conflict, and padded_gemm() has none. Perf: the speed-up of padded_gemm()
// over the unpadded starting point, timed in the same process.
#include "lab04_baselines.h"
#include "lab04_padded_gemm.h"

#include <course/bank_conflicts.h>
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
      {1, 1, 1},                   // one element, one term: a single, mostly zero-filled tile
      {17, 33, 9},  {31, 33, 32},  // k below and at one tile; n one past a tile
      {33, 31, 1},  {5, 3, 100},   // k = 1; many k-tiles for a tiny C
      {64, 64, 64}, {40, 50, 70},  // whole tiles only; no size a multiple of 32
  };
  if (!course::kCheckMode) {  // check mode instruments every access: keep it to the small sizes
    shapes.push_back({257, 129, 513});
    shapes.push_back({100, 1000, 37});
  }
  if (course::kBackend == course::Backend::gpu) shapes.push_back({1024, 1024, 1024});
  return shapes;
}

class PaddedGemm : public ::testing::TestWithParam<Shape> {};

TEST_P(PaddedGemm, MatchesReference) {
  COURSE_REQUIRE_DEVICE();
  const Shape s = GetParam();
  const course::GemmSizes sizes = course::gemm_sizes(s.m, s.n, s.k);
  const std::vector<float> a_host = course::random_floats(sizes.a, course::test_seed(401));
  const std::vector<float> b_host = course::random_floats(sizes.b, course::test_seed(402));
  course::DeviceBuffer<float> a(a_host, "A"), b(b_host, "B"), c(sizes.c, "C");
  c.poison();

  course::run_launcher(s.call("padded_gemm"), [&] { padded_gemm(a.data(), b.data(), c.data(), s.m, s.n, s.k, 0); });

  const auto result = course::compare(c.download(), course::gemm_reference(a_host, b_host, s.m, s.n, s.k),
                                      course::gemm_tolerance(s.k), s.c_layout());
  EXPECT_TRUE(course::matches(result));
  EXPECT_TRUE(course::same_bits(a.download(), a_host)) << "padded_gemm() changed its input A";
  EXPECT_TRUE(course::same_bits(b.download(), b_host)) << "padded_gemm() changed its input B";
}

INSTANTIATE_TEST_SUITE_P(, PaddedGemm, ::testing::ValuesIn(correctness_shapes()),
                         [](const ::testing::TestParamInfo<Shape>& info) { return info.param.name(); });

// ---- bank conflicts: counted by the CPU backend's check mode (these tests exist only in check-mode builds) ---------
#if defined(COURSE_CHECK_MODE)

// Runs `launcher` once on a 64 x 64 x 64 problem (2 x 2 blocks, 2 k-tiles) and returns the conflicts it caused.
template <class Launcher>
course::BankConflicts conflicts_of(const char* name, Launcher launcher) {
  constexpr Shape s{64, 64, 64};
  const course::GemmSizes sizes = course::gemm_sizes(s.m, s.n, s.k);
  course::DeviceBuffer<float> a(course::random_floats(sizes.a, course::test_seed(403)), "A");
  course::DeviceBuffer<float> b(course::random_floats(sizes.b, course::test_seed(404)), "B");
  course::DeviceBuffer<float> c(sizes.c, "C");
  course::take_bank_conflicts();  // forget earlier launches
  course::run_launcher(s.call(name), [&] { launcher(a.data(), b.data(), c.data(), s.m, s.n, s.k, 0); });
  const course::BankConflicts bc = course::take_bank_conflicts();
  std::printf("%s, %dx%dx%d: %s", name, s.m, s.n, s.k, bc.table().c_str());
  return bc;
}

// The starting point really conflicts: lane tx reads As[tx][p], word 32 * tx + p, all in bank p. If this fails, the
// conflict counter, not your kernel, is wrong.
TEST(PaddedGemmBankConflicts, UnpaddedStartingPointIs32Way) {
  COURSE_REQUIRE_DEVICE();
  const course::BankConflicts bc = conflicts_of("unpadded_gemm", unpadded_gemm);
  if (!bc.available) GTEST_SKIP() << bc.reason;
  EXPECT_EQ(bc.max_degree_of(/*stores=*/false), 32);
  EXPECT_EQ(bc.max_degree_of(/*stores=*/true), 1);
}

// Yours must have no conflict at all: every warp-wide request of every line is served in one wavefront.
TEST(PaddedGemmBankConflicts, PaddedHasNoConflicts) {
  COURSE_REQUIRE_DEVICE();
  const course::BankConflicts bc = conflicts_of("padded_gemm", padded_gemm);
  if (!bc.available) GTEST_SKIP() << bc.reason;
  EXPECT_GT(bc.load_requests, 0u) << "padded_gemm() read no shared memory: keep the tiles in __shared__ arrays";
  for (const auto& l : bc.lines) {
    EXPECT_LE(l.max_degree, 1) << l.file << ":" << l.line << ": " << (l.store ? "a store to " : "a read of ")
                               << l.variable << " is a " << l.max_degree << "-way bank conflict ("
                               << static_cast<double>(l.wavefronts) / static_cast<double>(l.requests)
                               << " wavefronts per request on average). For one warp (tx = 0..31, one ty), write down "
                                  "the word each lane touches and "
                                  "take it mod 32: which padding puts them in 32 different banks?";
  }
}

#endif  // COURSE_CHECK_MODE

// ---- perf -------------------------------------------------------------------------------------------------------------

constexpr const char* kUnpadded = "unpadded tiled GEMM";

// padded_gemm() against the same tiled GEMM with an unpadded, column-walking tile; equal FLOPs, so the ratio is the
// baseline's time over the lab's.
void padded_gemm_perf(course::PerfState& state) {
  const Shape s{state.size<int>("m"), state.size<int>("n"), state.size<int>("k")};
  const course::GemmSizes sizes = course::gemm_sizes(s.m, s.n, s.k);
  // Every timed call gets inputs of its own and its C is checked afterwards (course/timed_buffers.h).
  course::TimedInput a(state, sizes.a, course::test_seed(411), "A"), b(state, sizes.b, course::test_seed(412), "B");
  course::TimedOutput c(state, sizes.c, "C");
  const double flops = 2.0 * s.m * s.n * s.k;

  auto lab = [&] { padded_gemm(a.data(), b.data(), c.data(), s.m, s.n, s.k, 0); };
  state.baseline(kUnpadded, course::Work::flops(flops),
                 [&] { unpadded_gemm(a.data(), b.data(), c.data(), s.m, s.n, s.k, 0); });
  state.lab("padded_gemm", course::Work::flops(flops), lab);
  state.verify("C", [&](course::Pick& pick) { return course::verify_gemm_rows(pick, a, b, c, s.m, s.n, s.k); });
  course::also_time_cublas_sgemm(state, flops, a, b, c, s.m, s.n, s.k);  // the ceiling (GPU only)
  // Every 16th row: the CPU reference of the whole of C would take longer than the rest of the test.
  constexpr int kRowStep = 16;
  std::optional<course::Reference> reference;
  state.check("padded_gemm", [&] {
    c.poison();
    course::run_launcher(s.call("padded_gemm"), lab);
    return course::compare_gemm_rows(c.download(), a.host(), b.host(), s, kRowStep, reference);
  });
  state.measure();
}

COURSE_PERF_TEST(PaddedGemmPerf, SpeedupVsUnpadded, padded_gemm_perf, kUnpadded)

}  // namespace
