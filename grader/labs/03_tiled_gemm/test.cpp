// Lab 03 tests. Correctness: tiled_gemm<16> and tiled_gemm<32> against a double-precision CPU reference on random
// inputs, at sizes where m, n and k are independent and not multiples of the tile. Check mode also verifies that the
// kernel reads its operands from shared memory (the point of the lab). Perf: the speed-up of tiled_gemm<32> over the
// lab 02 reference solution (coalesced naive GEMM), timed in the same process.
#include "lab03_baselines.h"
#include "lab03_tiled_gemm.h"

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
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace {

using Shape = course::GemmShape;  // course/reference/gemm.h: its name, call text and C's layout

std::vector<Shape> correctness_shapes() {
  std::vector<Shape> shapes = {
      {1, 1, 1},                   // one element, one term: a single, mostly zero-filled tile
      {17, 33, 9},  {31, 33, 32},  // k below and at one 32-tile; n one past a 32-tile
      {33, 31, 1},  {16, 16, 17},  // k = 1; one 16-tile of C, k one past a 16-tile
      {5, 3, 100},  {64, 64, 64},  // many k-tiles for a tiny C; whole tiles only
      {40, 50, 70},                // no size a multiple of 16 or 32
  };
  if (!course::kCheckMode) {  // check mode instruments every access: keep it to the small sizes
    shapes.push_back({257, 129, 513});
    shapes.push_back({100, 1000, 37});
  }
  if (course::kBackend == course::Backend::gpu) shapes.push_back({1024, 1024, 1024});
  return shapes;
}

using Param = std::tuple<Shape, int>;  // (shape, tile)

std::string param_name(const ::testing::TestParamInfo<Param>& info) {
  return "tile" + std::to_string(std::get<1>(info.param)) + "_" + std::get<0>(info.param).name();
}

std::string call_text(const Shape& s, int tile) { return s.call("tiled_gemm<" + std::to_string(tile) + ">"); }

void call_tiled(int tile, const float* a, const float* b, float* c, const Shape& s) {
  if (tile == 16) {
    tiled_gemm<16>(a, b, c, s.m, s.n, s.k, 0);
  } else if (tile == 32) {
    tiled_gemm<32>(a, b, c, s.m, s.n, s.k, 0);
  } else {
    throw std::invalid_argument("the tests call tiled_gemm with tile 16 or 32, not " + std::to_string(tile));
  }
}

class TiledGemm : public ::testing::TestWithParam<Param> {};

TEST_P(TiledGemm, MatchesReference) {
  COURSE_REQUIRE_DEVICE();
  const auto [s, tile] = GetParam();
  const course::GemmSizes sizes = course::gemm_sizes(s.m, s.n, s.k);
  const std::vector<float> a_host = course::random_floats(sizes.a, course::test_seed(301));
  const std::vector<float> b_host = course::random_floats(sizes.b, course::test_seed(302));
  course::DeviceBuffer<float> a(a_host, "A"), b(b_host, "B"), c(sizes.c, "C");
  c.poison();

  course::run_launcher(call_text(s, tile), [&] { call_tiled(tile, a.data(), b.data(), c.data(), s); });

  const auto result = course::compare(c.download(), course::gemm_reference(a_host, b_host, s.m, s.n, s.k),
                                      course::gemm_tolerance(s.k), s.c_layout());
  EXPECT_TRUE(course::matches(result));
  EXPECT_TRUE(course::same_bits(a.download(), a_host)) << "tiled_gemm() changed its input A";
  EXPECT_TRUE(course::same_bits(b.download(), b_host)) << "tiled_gemm() changed its input B";
}

INSTANTIATE_TEST_SUITE_P(, TiledGemm,
                         ::testing::Combine(::testing::ValuesIn(correctness_shapes()), ::testing::Values(16, 32)),
                         param_name);

// Check mode counts every warp-wide shared-memory request: a tiled kernel reads each operand from shared memory
// (2 * k reads per thread), a kernel that still reads A and B from global memory reads shared memory 0 times.
// The test exists only in check-mode builds, where the counts are available.
#if defined(COURSE_CHECK_MODE)
TEST(TiledGemmSharedMemory, OperandsAreReadFromSharedMemory) {
  COURSE_REQUIRE_DEVICE();
  constexpr Shape s{64, 64, 64};
  const course::GemmSizes sizes = course::gemm_sizes(s.m, s.n, s.k);
  course::DeviceBuffer<float> a(course::random_floats(sizes.a, course::test_seed(303)), "A");
  course::DeviceBuffer<float> b(course::random_floats(sizes.b, course::test_seed(304)), "B");
  course::DeviceBuffer<float> c(sizes.c, "C");
  for (int tile : {16, 32}) {
    course::take_bank_conflicts();  // forget earlier launches
    course::run_launcher(call_text(s, tile), [&] { call_tiled(tile, a.data(), b.data(), c.data(), s); });
    const course::BankConflicts bc = course::take_bank_conflicts();
    if (!bc.available) GTEST_SKIP() << bc.reason;
    std::printf("tiled_gemm<%d>, %dx%dx%d: %s", tile, s.m, s.n, s.k, bc.table().c_str());
    // One read of As and one of Bs per multiply-add: m * n * k / 32 warp-wide requests each. A register-blocked
    // kernel (Going further) reads fewer, an eighth with 8 x 8 results per thread: the bar is 1/16.
    const std::uint64_t expected = 2ull * s.m * s.n * s.k / 32;
    EXPECT_GE(bc.load_requests, expected / 16)
        << "tiled_gemm<" << tile << "> made " << bc.load_requests << " warp-wide shared-memory reads; a tiled GEMM "
        << "reads both operands of every multiply-add from shared memory (" << expected << " reads here). Stage the "
        << "tiles of A and B in __shared__ arrays and compute from those.";
  }
}

#endif  // COURSE_CHECK_MODE

// ---- perf -------------------------------------------------------------------------------------------------------------

constexpr const char* kNaive = "coalesced naive GEMM (lab 02 solution)";

// tiled_gemm<32> against the lab 02 reference solution; equal FLOPs, so the ratio is the baseline's time over the
// lab's. tiled_gemm<16> is timed after them and printed, not graded. The graded size is 2048^3: at 1024^3 the grid is
// only 1024 blocks of 32 x 32 (under 8 per SM on an H200), and the measured ratio is lower (1.42 against 1.49).
void tiled_gemm_perf(course::PerfState& state) {
  const Shape s{state.size<int>("m"), state.size<int>("n"), state.size<int>("k")};
  const course::GemmSizes sizes = course::gemm_sizes(s.m, s.n, s.k);
  // Every timed call gets inputs of its own and its C is checked afterwards (course/timed_buffers.h).
  course::TimedInput a(state, sizes.a, course::test_seed(311), "A"), b(state, sizes.b, course::test_seed(312), "B");
  course::TimedOutput c(state, sizes.c, "C");
  const double flops = 2.0 * s.m * s.n * s.k;

  state.baseline(kNaive, course::Work::flops(flops),
                 [&] { reference_naive_gemm(a.data(), b.data(), c.data(), s.m, s.n, s.k, 0); });
  state.lab("tiled_gemm<32>", course::Work::flops(flops),
            [&] { tiled_gemm<32>(a.data(), b.data(), c.data(), s.m, s.n, s.k, 0); });
  state.also_time("tiled_gemm<16>", course::Work::flops(flops),
                  [&] { tiled_gemm<16>(a.data(), b.data(), c.data(), s.m, s.n, s.k, 0); });
  state.verify("C", [&](course::Pick& pick) { return course::verify_gemm_rows(pick, a, b, c, s.m, s.n, s.k); });
  course::also_time_cublas_sgemm(state, flops, a, b, c, s.m, s.n, s.k);  // the ceiling (GPU only)

  // Both tiles, every 16th row: the CPU reference of the whole of C would take longer than the rest of the test. The
  // reference is computed once, after the timed runs.
  constexpr int kRowStep = 16;
  std::optional<course::Reference> reference;
  for (int tile : {32, 16}) {
    state.check("tiled_gemm<" + std::to_string(tile) + ">", [&, tile] {
      c.poison();
      course::run_launcher(call_text(s, tile), [&] { call_tiled(tile, a.data(), b.data(), c.data(), s); });
      return course::compare_gemm_rows(c.download(), a.host(), b.host(), s, kRowStep, reference);
    });
  }
  state.measure();
}

COURSE_PERF_TEST(TiledGemmPerf, SpeedupVsNaive, tiled_gemm_perf, kNaive)

}  // namespace
