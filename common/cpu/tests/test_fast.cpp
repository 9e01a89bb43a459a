// Self-tests of fast mode: an out-of-bounds write past a cudaMalloc'ed buffer
// hits the guard page and the process explains which kernel and thread.
#include "kernels.h"
#include "test_util.h"

#include <gtest/gtest.h>

namespace {
void write_past_the_end() {
  const int n = 1000;  // 4000 bytes: the buffer ends right at its guard page
  DeviceBuffer<float> a(n + 24), b(n + 24), c(n);
  run_oob_global(a.ptr, b.ptr, c.ptr, n);
}
}  // namespace

TEST(FastModeDeathTest, OutOfBoundsWriteHitsTheGuardPage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(write_past_the_end(), ::testing::ExitedWithCode(1),
              "kernel 'addNoGuard'.*block \\(3,0,0\\).*past the end of a GPU buffer");
}
