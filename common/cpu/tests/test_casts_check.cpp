// Self-tests of check mode: casts of shared rows to vector pointers (`reinterpret_cast<const float4*>(As[r])[j]`), the
// way public SGEMM kernels read their tiles four floats at a time.
#include "kernels.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

// A row of a 2D __shared__ array cast to float4* or float2* (which did not compile in check mode: valid CUDA graded
// build-error, red-team round 25; `*(float4*)As[r]` and a cast to `float (*)[4]`, round 26) reads what a GPU reads
// with nothing reported; with rows of 33 floats the odd rows' float4 loads are misaligned, and reported at the line.
TEST(CheckCasts, RowsCastToVectorPointers) {
  std::vector<float> x(256);
  std::iota(x.begin(), x.end(), 0.0f);
  DeviceBuffer<float> in(x), out(64);
  course_cpu::take_diagnostics();
  ASSERT_EQ(run_row_casts(0, in.ptr, out.ptr), cudaSuccess);
  const auto none = course_cpu::take_diagnostics();
  EXPECT_TRUE(none.empty()) << none.front().message;
  const std::vector<float> got = out.get();
  for (int t = 0; t < 64; ++t) {
    const int r = t / 8, j = t % 8;
    const float v = x[32 * r + 4 * j] + x[32 * r + 4 * j + 1] + x[32 * r + 4 * j + 2] + x[32 * r + 4 * j + 3];
    EXPECT_EQ(got[t], v + x[32 * ((r + 1) % 8) + 2 * j + 1] + x[32 * r] + x[32 * r + 4 * j + 1]) << t;
  }

  for (const auto& [padded, marker] : {std::pair{1, "@row-cast"}, std::pair{2, "@row-deref"}}) {
    EXPECT_EQ(run_row_casts(padded, in.ptr, out.ptr), cudaErrorMisalignedAddress) << marker;
    const auto d = of_category(course_cpu::take_diagnostics(), "misaligned-address");
    ASSERT_FALSE(d.empty()) << marker;
    EXPECT_EQ(d[0].line, line_of("kernels_bugs.cu", marker));
    cudaGetLastError();
  }
}

// The access macro of public SGEMM code (`#define FETCH_FLOAT4(p) (reinterpret_cast<float4*>(&(p))[0])`) and __ldg are
// checked like the accesses they stand for (red-team round 25: a race, a float4 past the tile and __ldg of in[-1]
// went unreported through them): the values with nothing reported, then each bug at its line.
TEST(CheckCasts, AccessMacrosAndCacheLoads) {
  std::vector<float> x(64);
  std::iota(x.begin(), x.end(), 1.0f);
  DeviceBuffer<float> in(x), out(16);
  course_cpu::take_diagnostics();
  ASSERT_EQ(run_access_macros(0, in.ptr, out.ptr), cudaSuccess);
  const auto none = course_cpu::take_diagnostics();
  EXPECT_TRUE(none.empty()) << none.front().message;
  const std::vector<float> got = out.get();
  for (int t = 0; t < 16; ++t) {
    const int n = 4 * ((t + 1) % 16);
    EXPECT_EQ(got[t], x[n] + x[n + 1] + x[n + 2] + x[n + 3] + x[t]) << t;
  }
  const struct {
    int mode;
    const char* category;
    const char* marker;
    const char* names;
  } bugs[] = {{1, "race", "@macro-read", "reinterpret_cast<float4*>(&(s["},
              {2, "out-of-bounds", "@macro-read", "reinterpret_cast<float4*>(&(s["},
              {3, "out-of-bounds", "@ldg-read", "reads in[-1]"}};
  for (const auto& b : bugs) {
    run_access_macros(b.mode, in.ptr, out.ptr);
    cudaGetLastError();
    const auto found = of_category(course_cpu::take_diagnostics(), b.category);
    const int line = line_of("kernels_bugs.cu", b.marker);
    EXPECT_TRUE(
        std::any_of(found.begin(), found.end(),
                    [&](const auto& d) { return d.line == line && d.message.find(b.names) != std::string::npos; }))
        << b.marker << ": " << (found.empty() ? std::string("nothing") : found[0].message);
  }
}

// Subscripts of the file's __constant__ and __device__ arrays are checked against their extents: the correct kernel
// reports nothing; a read past the weights and a write past a row of the table are out-of-bounds at their lines, with
// the array, the index and the dimension named.
TEST(CheckArrays, ConstantAndDeviceArraysAreBoundsChecked) {
  DeviceBuffer<float> out(32);
  course_cpu::take_diagnostics();
  ASSERT_EQ(run_device_arrays(0, out.ptr), cudaSuccess);
  const auto none = course_cpu::take_diagnostics();
  EXPECT_TRUE(none.empty()) << none.front().message;
  const std::vector<float> got = out.get();
  for (int t = 0; t < 32; ++t) EXPECT_EQ(got[t], 15.0f + static_cast<float>((t + 1) % 32)) << t;

  const struct {
    int mode;
    const char* marker;
    const char* says;
  } bugs[] = {{1, "@constant-past", "reads cWeights[5], but cWeights is declared cWeights[5]"},
              {2, "@device-past", "writes gTable[3][8], but gTable is declared gTable[4][8]: index 8 in the 2nd"}};
  for (const auto& bug : bugs) {
    EXPECT_EQ(run_device_arrays(bug.mode, out.ptr), cudaErrorIllegalAddress) << bug.marker;
    const auto d = of_category(course_cpu::take_diagnostics(), "out-of-bounds");
    ASSERT_FALSE(d.empty()) << bug.marker;
    EXPECT_EQ(d[0].line, line_of("kernels_bugs.cu", bug.marker));
    EXPECT_NE(d[0].message.find(bug.says), std::string::npos) << d[0].message;
    cudaGetLastError();
  }
}
