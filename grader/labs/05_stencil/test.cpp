// Lab 05 tests. Correctness: stencil() against a double-precision CPU reference on random inputs, at the edges (the
// first and last block, n smaller than a block, n smaller than the radius, radius 0) and at awkward sizes; bad
// arguments rejected with a clear error before the launcher is called.
// Perf (at the [[perf]] size of lab.toml: radius 1, 2^26 floats): stencil() against the global-memory stencil
// (stencil_global.cu) and against a device-to-device copy, all timed in the same process.
#include "lab05_baselines.h"
#include "lab05_stencil.h"
#include "reference.h"

#include <course/device_buffer.h>
#include <course/lab_runner.h>
#include <course/random.h>
#include <course/testing.h>
#include <course/timing.h>
#include <course/validate.h>

#include <algorithm>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// The radius the perf tests grade (lab.toml, [[perf]] size): a 3-point stencil, where a one-output-per-thread
// shared-memory kernel loses to the L1 cache and a tile reused by four outputs per thread, loaded with wide loads,
// wins (the handout's table, grader/calibration/CALIBRATION.md). One correctness case checks it at a large size.
constexpr int kGradedRadius = 1;

struct Case {
  int n;
  int radius;
};

// How GoogleTest prints a Case in messages (instead of its bytes).
[[maybe_unused]] void PrintTo(const Case& c, std::ostream* os) { *os << "n=" << c.n << " radius=" << c.radius; }

std::vector<Case> correctness_cases() {
  std::vector<Case> cases = {
      {1, 0},       {1, 1},      {1, 3},     // one element; n < radius
      {5, 8},       {31, 64},                // n smaller than the radius: every output sees both boundaries
      {97, 0},      {97, 1},                 // radius 0 copies the input; a prime size
      {255, 3},     {256, 3},    {257, 3},   // a block of threads, minus and plus one
      {1023, 8},    {1024, 8},   {1025, 8},  // one tile of 4 outputs per thread, minus and plus one
      {3001, 16},                            // several blocks: first, middle and last
      {2053, 64},   {4099, 100},             // halos wider than a warp; a prime size
      {1030, 2},    {4097, 6},               // radius 2 mod 4: tile + radius not 16-byte aligned (float4 faults)
      {1500, 1024},                          // the largest radius: the halo is larger than the tile
  };
  if (!course::kCheckMode) {  // check mode instruments every access: keep it to the small sizes
    cases.push_back({(1 << 20) + 3, kGradedRadius});
    cases.push_back({(1 << 22) + 17, 3});
  }
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return "n" + std::to_string(info.param.n) + "_r" + std::to_string(info.param.radius);
}

std::string call_text(int n, int radius) {
  return "stencil(in, out, " + std::to_string(n) + ", " + std::to_string(radius) + ", stream 0)";
}

// The preconditions of lab05_stencil.h, checked here so that the lab file holds only kernels and the launcher.
void require_valid_stencil_arguments(long long n, long long radius) {
  course::require_positive("stencil: n", n);
  if (n > kStencilMaxN)
    throw std::invalid_argument("stencil: n must be at most kStencilMaxN = " + std::to_string(kStencilMaxN) + ", got " +
                                std::to_string(n));
  if (radius < 0 || radius > kStencilMaxRadius)
    throw std::invalid_argument("stencil: radius must be between 0 and kStencilMaxRadius = " +
                                std::to_string(kStencilMaxRadius) + ", got " + std::to_string(radius));
}

// Checks the arguments, then runs stencil() under the harness (launch errors and check-mode findings fail the test).
void run_stencil(const course::DeviceBuffer<float>& in, course::DeviceBuffer<float>& out, long long n,
                 long long radius) {
  require_valid_stencil_arguments(n, radius);
  const int ni = static_cast<int>(n), r = static_cast<int>(radius);
  course::run_launcher(call_text(ni, r), [&] { stencil(in.data(), out.data(), ni, r, 0); });
}

class Stencil : public ::testing::TestWithParam<Case> {};

TEST_P(Stencil, MatchesReference) {
  COURSE_REQUIRE_DEVICE();
  const Case c = GetParam();
  const std::vector<float> in_host = course::random_floats(static_cast<std::size_t>(c.n), course::test_seed(501));
  course::DeviceBuffer<float> in(in_host, "in"), out(static_cast<std::size_t>(c.n), "out");
  out.poison();

  run_stencil(in, out, c.n, c.radius);

  EXPECT_TRUE(course::matches(course::compare(out.download(), course::stencil_reference(in_host, c.radius),
                                              course::stencil_tolerance(c.radius), {"out"})));
  EXPECT_TRUE(course::same_bits(in.download(), in_host)) << "stencil() changed its input";
}

INSTANTIATE_TEST_SUITE_P(, Stencil, ::testing::ValuesIn(correctness_cases()), case_name);

// Exact sums: small integers add without rounding, so every output must equal the reference exactly. Inputs of
// 1, 2, 3, ... make an output that used a wrong neighbour, or missed the boundary policy, differ by at least 1.
TEST(StencilEdges, ExactAtBothEnds) {
  COURSE_REQUIRE_DEVICE();
  constexpr int n = 2 * 1024 + 37;  // three blocks of 1024 outputs, the last one nearly empty
  constexpr int radius = 5;
  std::vector<float> in_host(n);
  for (int i = 0; i < n; ++i) in_host[static_cast<std::size_t>(i)] = static_cast<float>(i % 251 + 1);
  course::DeviceBuffer<float> in(in_host, "in"), out(static_cast<std::size_t>(n), "out");
  out.poison();

  run_stencil(in, out, n, radius);

  EXPECT_TRUE(
      course::matches(course::compare(out.download(), course::stencil_reference(in_host, radius), 0.0, {"out"})));
}

// Bad arguments never reach the launcher: they fail with a message naming the argument and the allowed range.
TEST(StencilArguments, RejectsBadArguments) {
  const auto rejects = [](long long n, long long radius, const std::string& expected_words) {
    try {
      require_valid_stencil_arguments(n, radius);
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(expected_words), std::string::npos) << "message was: " << e.what();
      return;
    }
    ADD_FAILURE() << "stencil(n = " << n << ", radius = " << radius << ") was not rejected";
  };
  rejects(0, 3, "n must be at least 1");
  rejects(-7, 3, "n must be at least 1");
  rejects(static_cast<long long>(kStencilMaxN) + 1, 3, "n must be at most");
  rejects(100, -1, "radius must be between 0 and");
  rejects(100, kStencilMaxRadius + 1, "radius must be between 0 and");
  EXPECT_NO_THROW(require_valid_stencil_arguments(1, 0));
  EXPECT_NO_THROW(require_valid_stencil_arguments(kStencilMaxN, kStencilMaxRadius));
}

// ---- perf -------------------------------------------------------------------------------------------------------------

constexpr const char* kCopy = "device-to-device copy";
constexpr const char* kGlobal = "global-memory stencil";

// stencil() against the global-memory stencil (grader/labs/05_stencil/stencil_global.cu) and a device-to-device copy.
// Every rate counts one read and one write of 4 bytes per element (the copy: bytes read + written). The two tests
// run the whole measurement each and grade against different baselines.
void stencil_perf(course::PerfState& state) {
  const int n = state.size<int>("n");  // graded: lab.toml's size, 256 MiB per array, several times any L2
  const int radius = state.size<int>("radius");
  require_valid_stencil_arguments(n, radius);  // a sweep's sizes too
  // Every timed call gets an input of its own and its output is checked afterwards (course/timed_buffers.h).
  const std::size_t size = static_cast<std::size_t>(n);
  course::TimedInput in(state, size, course::test_seed(511), "in");
  course::TimedOutput out(state, size, "out");
  const double bytes = static_cast<double>(n) * sizeof(float);

  auto lab = [&] { stencil(in.data(), out.data(), n, radius, 0); };
  state.baseline(kCopy, course::Work::bytes(2 * bytes), [&] {
    CUDA_CHECK(cudaMemcpyAsync(out.data(), in.data(), n * sizeof(float), cudaMemcpyDeviceToDevice, 0));
  });
  state.baseline(kGlobal, course::Work::bytes(2 * bytes), [&] { stencil_global(in.data(), out.data(), n, radius, 0); });
  state.lab("stencil", course::Work::bytes(2 * bytes), lab);
  state.verify("out", [&](course::Pick& pick) {  // each timed call: 4 windows of 1024 outputs, picked afterwards
    for (int w = 0; w < 4; ++w) {
      const std::size_t width = std::min<std::size_t>(1024, size), first = pick.window(size, width);
      // The reference of the window needs `radius` inputs on each side (fewer at the ends of the array, where the
      // boundary policy applies to the window's reference as to the whole's).
      const std::size_t lo = first - std::min<std::size_t>(first, radius);
      const std::size_t hi = std::min(size, first + width + radius);
      const course::Reference around = course::stencil_reference(in.host().subspan(lo, hi - lo), radius);
      course::Reference ref;
      ref.value.assign(around.value.begin() + (first - lo), around.value.begin() + (first - lo + width));
      ref.scale.assign(around.scale.begin() + (first - lo), around.scale.begin() + (first - lo + width));
      const course::CompareResult r =
          course::compare(out.gather(first, width), ref, course::stencil_tolerance(radius), {"out", 0, 0, first});
      if (!r.ok) return r;
    }
    return course::CompareResult{};
  });
  state.check("stencil", [&] {
    out.poison();
    course::run_launcher(call_text(n, radius), lab);
    return course::compare(out.download(), course::stencil_reference(in.host(), radius),
                           course::stencil_tolerance(radius), {"out"});
  });
  state.measure();
}

COURSE_PERF_TEST(StencilPerf, SpeedupVsGlobal, stencil_perf, kGlobal)
COURSE_PERF_TEST(StencilPerf, BandwidthVsCopy, stencil_perf, kCopy)

}  // namespace
