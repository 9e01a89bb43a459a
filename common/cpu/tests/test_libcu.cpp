// Self-tests of both modes: libcu++'s headers that the CPU backend provides (<cuda/std/...> as the host's standard
// library, <cuda/cmath>'s integer helpers) in a kernel, with shared elements as arguments of cuda::std's functions.
#include "kernels_extras.h"
#include "test_util.h"

#include <cuda/cmath>
#include <gtest/gtest.h>

#include <limits>
#include <vector>

// ceil_div does not overflow where a + b - 1 would.
static_assert(cuda::ceil_div(2147483647, 16) == 134217728);
static_assert(cuda::ceil_div(4294967295u, 2u) == 2147483648u);

TEST(Libcu, StandardLibraryAndIntegerHelpersInAKernel) {
  DeviceBuffer<float> in(std::vector<float>{3.5f, -2.0f, 7.0f}), out(12);
  for (int n : {1, 15, 16, 17, 1000, 700000001}) {
    ASSERT_EQ(run_libcu_std(in.ptr, out.ptr, n), cudaSuccess);
    const long long up = (static_cast<long long>(n) + 15) / 16;
    const double helpers = static_cast<double>(up + up * 16 + n / 16 * 16);
    int log2 = 0, log10 = 0;
    for (long long v = n; v > 1; v /= 2) ++log2;
    for (long long v = n; v >= 10; v /= 10) ++log10;
    const std::vector<float> got = out.get();
    const float swapped[2] = {-2.0f, 3.5f};
    for (int t = 0; t < 2; ++t) {
      EXPECT_EQ(got[6 * t], -2.0f);
      EXPECT_EQ(got[6 * t + 1], std::numeric_limits<float>::max());
      EXPECT_EQ(got[6 * t + 2], static_cast<float>(helpers)) << "n = " << n;
      EXPECT_EQ(got[6 * t + 3], static_cast<float>(100 * log2 + log10)) << "n = " << n;
      EXPECT_EQ(got[6 * t + 4], swapped[t] > 0.0f ? swapped[t] : 0.0f) << t;
      EXPECT_EQ(got[6 * t + 5], -2.0f + 10.0f * -2.0f) << t;
    }
  }
}

// A __shared__ cuda::std::array alone and an array of them, stored and read across threads: the values a GPU computes,
// with no report in check mode.
TEST(Libcu, SharedStdArrays) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> out(64);
  ASSERT_EQ(run_shared_std_arrays(out.ptr, 0), cudaSuccess);
  const auto none = course_cpu::take_diagnostics();
  EXPECT_TRUE(none.empty()) << none.front().message;
  const std::vector<float> got = out.get();
  for (int t = 0; t < 64; ++t) EXPECT_EQ(got[t], static_cast<float>(4 * (63 - t) + 64)) << t;
}
