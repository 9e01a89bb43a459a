// Self-tests of check mode on __shared__ arrays of types smaller than a word (kernels_bytes.cu): an element is
// uninitialized until a thread writes its own bytes, whatever its neighbours in the same word hold.
#include "kernels.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <vector>

// The correct kernel reports nothing; with one flag never stored, its reader is told, naming the flag (the byte was
// once taken as written because the other three bytes of its word were).
TEST(CheckBytes, AByteNoThreadWroteIsUninitialized) {
  course_cpu::take_diagnostics();
  DeviceBuffer<int> out(128);
  ASSERT_EQ(run_byte_flags(0, out.ptr), cudaSuccess);
  const auto none = course_cpu::take_diagnostics();
  EXPECT_TRUE(none.empty()) << none.front().message;
  const std::vector<int> got = out.get();
  for (int t = 0; t < 128; ++t) EXPECT_EQ(got[t], (t + 1) % 128 % 7) << t;

  run_byte_flags(1, out.ptr);
  cudaGetLastError();
  const auto unset = of_category(course_cpu::take_diagnostics(), "uninitialized-shared-read");
  ASSERT_EQ(unset.size(), 1u);
  EXPECT_EQ(unset[0].line, line_of("kernels_bytes.cu", "@byte-read"));
  EXPECT_NE(unset[0].message.find("reads f[77]"), std::string::npos) << unset[0].message;
}
