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

namespace {
void copy_misaligned() {
  DeviceBuffer<float> in(64), out(64);
  run_vector_copy(2, in.ptr, out.ptr);
}
}  // namespace

// x86 raises a general-protection fault, which has no address, for an aligned vector instruction at a misaligned
// address: the message names the likely cause instead of "not inside any GPU buffer".
TEST(FastModeDeathTest, MisalignedVectorCopyIsNamed) {
#if !defined(__OPTIMIZE__)
  GTEST_SKIP() << "an unoptimized build copies a float4 with two 8-byte moves, which do not fault";
#endif
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  DeviceBuffer<float> in(64), out(64);
  EXPECT_EQ(run_vector_copy(0, in.ptr, out.ptr), cudaSuccess);  // aligned: runs
  EXPECT_EXIT(copy_misaligned(), ::testing::ExitedWithCode(1),
              "kernel 'vectorCopy'.*general-protection fault.*not a multiple of 16 bytes");
}
