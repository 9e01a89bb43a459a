// Self-tests of valid CUDA forms the rewriter once mishandled (kernels_forms.cu), in both modes: the GPU's result,
// and no diagnostic in check mode.
#include "kernels.h"
#include "kernels_idioms.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

TEST(Forms, AConditionalOfElementsIsAnLvalue) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> g(iota_floats(32)), out(32);
  ASSERT_EQ(run_conditional_references(g.ptr, out.ptr), cudaSuccess);
  expect_no_diagnostics();
  const std::vector<float> got = out.get(), g_after = g.get(), g_before = iota_floats(32);
  for (int t = 0; t < 32; ++t) {
    float lo = static_cast<float>(t), hi = static_cast<float>(100 + t);
    (t & 1 ? lo : hi) += 1000.0f;
    if (t % 3 == 0) lo *= 2.0f;
    hi -= 1.0f;
    ((t & 2) ? lo : hi) += 10000.0f;
    if (t % 5 != 0) lo = 0.5f;
    ++((t & 4) ? hi : lo);
    EXPECT_EQ(got[t], lo + hi - 1.0f) << t;
    const float g_scaled = t % 3 == 0 ? g_before[t] : 2.0f * g_before[t];
    EXPECT_EQ(g_after[t], t % 5 == 0 ? 0.5f : g_scaled) << t;
  }
}

TEST(Forms, ASharedArrayOfPointersAssignedArrays) {
  course_cpu::take_diagnostics();
  const std::vector<float> x = iota_floats(32, 0.5f);
  DeviceBuffer<float> in(x), out(32);
  ASSERT_EQ(run_pointer_rows(in.ptr, out.ptr), cudaSuccess);
  expect_no_diagnostics();
  const std::vector<float> got = out.get();
  for (int t = 0; t < 32; ++t) EXPECT_EQ(got[t], (t & 1 ? 10.0f : 1.0f) * x[t]) << t;
}

// `float (&row)[33] = tile[t];` binds the row; what is written through it is read back without a diagnostic.
TEST(Forms, ArrayReferencesToRowsOfASharedTile) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> out(32);
  ASSERT_EQ(run_row_references(out.ptr, 0), cudaSuccess);
  expect_no_diagnostics();
  const std::vector<float> got = out.get();
  for (int t = 0; t < 32; ++t)
    EXPECT_EQ(got[t], static_cast<float>((t + 1) % 32) + 2.0f + static_cast<float>(t) + 16.0f) << t;
}

TEST(Forms, ManagedVariablesPassedByAddress) {
  course_cpu::take_diagnostics();
  float copy[32] = {};
  int count = 0;
  ASSERT_EQ(run_managed_variables(copy, &count), cudaSuccess);
  expect_no_diagnostics();
  EXPECT_EQ(count, 32);
  for (int t = 0; t < 32; ++t) EXPECT_EQ(copy[t], 0.5f * static_cast<float>(t)) << t;
}

TEST(Forms, PrintfThroughMacrosPrintsElementValues) {
  course_cpu::take_diagnostics();
  std::fflush(stdout);
  testing::internal::CaptureStdout();
  ASSERT_EQ(run_print_through_macros(), cudaSuccess);
  std::fflush(stdout);
  const std::string printed = testing::internal::GetCapturedStdout();
  expect_no_diagnostics();
  EXPECT_NE(printed.find("log 0.75 7\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find("show 1.25\n"), std::string::npos) << printed;
}

// *src++, *++dst, *(t + s) and p->x are checked like subscripts: the correct kernel computes the GPU's result with no
// diagnostic; a walk past the end, a race through *(i + s) and p->x past the end are each reported at their line.
TEST(Forms, WalkingPointersOffsetsFirstAndArrowsAreChecked) {
  const std::vector<float> x = iota_floats(128, 0.5f);
  std::vector<float> pts(64);
  for (int i = 0; i < 64; ++i) pts[i] = static_cast<float>(i % 7) - 2.0f;
  DeviceBuffer<float> in(x), points(pts), out(128);
  course_cpu::take_diagnostics();
  ASSERT_EQ(run_pointer_forms(in.ptr, points.ptr, out.ptr, 0), cudaSuccess);
  expect_no_diagnostics();
  const std::vector<float> got = out.get();
  std::vector<float> sums(32);
  for (int t = 0; t < 32; ++t) sums[t] = x[4 * t] + x[4 * t + 1] + x[4 * t + 2] + x[4 * t + 3];
  for (int t = 0; t < 32; ++t) {
    EXPECT_EQ(got[4 * t], sums[(t + 1) % 32] + pts[2 * t] * pts[2 * t + 1]) << t;
    for (int i = 1; i < 4; ++i) EXPECT_EQ(got[4 * t + i], static_cast<float>(i) + sums[t]) << t;
  }
}

// `n * *mine` and `*(const float4*)src++`: the values of a GPU (src steps once), no diagnostic.
TEST(Forms, MultipliedAndSteppedCastDereferences) {
  const std::vector<float> x = iota_floats(64, 0.25f);
  DeviceBuffer<float> in(x), out(16);
  course_cpu::take_diagnostics();
  ASSERT_EQ(run_multiplied_and_stepped_derefs(in.ptr, out.ptr, 0), cudaSuccess);
  expect_no_diagnostics();
  const std::vector<float> got = out.get();
  for (int t = 0; t < 16; ++t) EXPECT_EQ(got[t], 2 * x[4 * ((t + 1) % 16)] + x[4 * t + 1]) << t;
}

// -1 stored through a reference parameter or an int4 element has the bits of check mode's fill of shared memory;
// reading it back is no uninitialized read.
TEST(Forms, MinusOneStoredWhereTheChecksCannotFollowIsNoUninitializedRead) {
  course_cpu::take_diagnostics();
  DeviceBuffer<int> out(32);
  ASSERT_EQ(run_sentinels_through_references(out.ptr), cudaSuccess);
  expect_no_diagnostics();
  const std::vector<int> got = out.get();
  for (int t = 0; t < 32; ++t) {
    const int quad = t % 4 == 2 ? t / 4 : -1;
    EXPECT_EQ(got[t], (t % 2 == 0 ? -1 : t) + 1000 * quad) << t;
  }
}

// pow(float, double), pow(float, int), sqrt(float) and fmax(float, float) of elements, reinterpret_cast<float4&>(s[i])
// and (float2&)s[i], a flag set to 1 by several threads, the Programming Guide's atomicAdd(double*) under the guard
// nvcc accepts, and `#ifdef __CUDA_ARCH__` in a __host__ __device__ function: compiled and computed as on a GPU, with no
// diagnostic.
TEST(Forms, LibraryFunctionsReferenceCastsSameValueFlagsAndCudaArch) {
  const std::vector<float> x = iota_floats(128, 0.25f);
  std::vector<int> n(32);
  for (int t = 0; t < 32; ++t) n[t] = t % 5;
  DeviceBuffer<float> dx(x), out(32);
  DeviceBuffer<int> dn(n);
  DeviceBuffer<double> total(1);
  course_cpu::take_diagnostics();
  ASSERT_EQ(run_library_forms(dx.ptr, dn.ptr, total.ptr, out.ptr), cudaSuccess);
  expect_no_diagnostics();
  const std::vector<float> got = out.get();
  double sum = 0;
  for (int t = 0; t < 32; ++t) {
    const double v = std::pow(static_cast<double>(x[t]), 2.0) + std::pow(x[t], 3) + std::sqrt(x[t]) +
                     std::fmax(x[t], 0.5f) + x[2 * t] + x[2 * t + 1];
    sum += v;
    EXPECT_NEAR(got[t], static_cast<float>(v) + 100.0f + 2000.0f, 1e-3) << t;
  }
  EXPECT_NEAR(total.get()[0], sum, 1e-9);
}

// Overloaded kernels, a kernel's default argument, a kernel named `copy` next to std::copy, and launches inside a
// macro and of a parenthesized name launch as on a GPU.
TEST(Forms, KernelsSharingTheirNameLaunchAsOnAGpu) {
  const std::vector<float> x = iota_floats(32);
  std::vector<int> n(32);
  for (int t = 0; t < 32; ++t) n[t] = t - 7;
  DeviceBuffer<float> in(x), out(32);
  DeviceBuffer<int> ints(n);
  course_cpu::take_diagnostics();
  ASSERT_EQ(run_shared_kernel_names(in.ptr, out.ptr, ints.ptr), cudaSuccess);
  expect_no_diagnostics();
  const std::vector<float> got = out.get();
  const std::vector<int> got_ints = ints.get();
  for (int t = 0; t < 32; ++t) {
    EXPECT_EQ(got[t], 3.0f * x[t] + 0.5f) << t;
    EXPECT_EQ(got_ints[t], 5 * n[t]) << t;
  }
}

// __activemask() gives the lanes that reach it together, as on a GPU: one side of a branch, the existing lanes of a
// partial warp; a shuffle of that mask exchanges within those lanes only.
TEST(Forms, ActiveMaskIsTheLanesThatReachItTogether) {
  DeviceBuffer<unsigned> masks(72);
  DeviceBuffer<int> sums(72);
  course_cpu::take_diagnostics();
  ASSERT_EQ(run_active_masks(masks.ptr, sums.ptr), cudaSuccess);
  expect_no_diagnostics();
  const std::vector<unsigned> got = masks.get();
  const std::vector<int> v = sums.get();
  for (int t = 0; t < 72; ++t) {
    const int lane = t % 32;
    const unsigned lanes = t < 64 ? 0xffffffffu : 0xffu;
    EXPECT_EQ(got[t], lanes & (lane < 16 ? 0x0000ffffu : 0xffff0000u)) << t;
    const int first = t - lane;                        // lane 0 of t's warp, whose value every lane gets
    EXPECT_EQ(v[t], first < 32 ? 0 + 8 : first) << t;  // warp 0: lane 0 added lane 8's value
  }
}

// cg::coalesced_threads() is the lanes that reach it together: warp-aggregated atomics give every thread with a
// positive input its own slot, and cg::reduce and ballot() over the odd lanes see only those lanes.
TEST(Forms, CoalescedGroupsAreTheLanesThatReachThemTogether) {
  std::vector<int> x(64);
  for (int t = 0; t < 64; ++t) x[t] = (t * 7) % 5 - 1;  // -1..3
  DeviceBuffer<int> in(x), slots(std::vector<int>(64, -1)), count(std::vector<int>(1, 0)), ranks(64),
      sums(std::vector<int>(64, 0));
  course_cpu::take_diagnostics();
  ASSERT_EQ(run_coalesced_groups(in.ptr, slots.ptr, count.ptr, ranks.ptr, sums.ptr), cudaSuccess);
  expect_no_diagnostics();
  const std::vector<int> got_slots = slots.get(), got_ranks = ranks.get(), got_sums = sums.get();
  std::vector<int> positive, taken;
  for (int w = 0; w < 2; ++w) {
    int size = 0, odd_sum = 0;
    unsigned odd_ballot = 0;
    for (int l = 0; l < 32; ++l) size += x[32 * w + l] > 0;
    for (int l = 1, rank = 0; l < 32; l += 2, ++rank) {
      odd_sum += x[32 * w + l];
      if (x[32 * w + l] > 0) odd_ballot |= 1u << rank;
    }
    for (int l = 0, rank = 0; l < 32; ++l) {
      const int t = 32 * w + l;
      if (x[t] > 0) {
        positive.push_back(t);
        EXPECT_EQ(got_ranks[t], 100 * size + rank++) << t;
      } else {
        EXPECT_EQ(got_ranks[t], -1) << t;
      }
      EXPECT_EQ(got_sums[t], l % 2 ? odd_sum + 1000 * static_cast<int>(odd_ballot) : 0) << t;
    }
  }
  EXPECT_EQ(count.get()[0], static_cast<int>(positive.size()));
  for (int v : got_slots)
    if (v >= 0) taken.push_back(v);
  std::sort(taken.begin(), taken.end());
  EXPECT_EQ(taken, positive);
}

// Lanes that reach one line by different calls are not one group: a helper aggregating over its coalesced group,
// called on both sides of a branch, counts each side apart; two __activemask() calls on one line give each side its
// own lanes.
TEST(Forms, LanesThatReachALineByDifferentCallsAreNotTogether) {
  DeviceBuffer<int> counters(std::vector<int>(2, 0)), slots(32);
  DeviceBuffer<unsigned> masks(32);
  course_cpu::take_diagnostics();
  ASSERT_EQ(run_aggregated_branches(counters.ptr, slots.ptr, masks.ptr), cudaSuccess);
  expect_no_diagnostics();
  EXPECT_EQ(counters.get(), (std::vector<int>{16, 16}));
  const std::vector<int> got = slots.get();
  const std::vector<unsigned> got_masks = masks.get();
  for (int t = 0; t < 32; ++t) {
    EXPECT_EQ(got[t], t / 2) << t;
    EXPECT_EQ(got_masks[t], t % 4 == 0 ? 0x11111111u : 0xeeeeeeeeu) << t;
  }
}

// A user type converting from float (V3(float)) with its own operators and functions: an element as an operand or an
// argument converts once, as in CUDA (check mode's proxy would need two user conversions: it did not compile).
TEST(Forms, ElementsConvertThroughAUserTypesConstructor) {
  DeviceBuffer<float> out(32);
  course_cpu::take_diagnostics();
  ASSERT_EQ(run_converting_operands(out.ptr), cudaSuccess);
  expect_no_diagnostics();
  const std::vector<float> got = out.get();
  for (int n = 0; n < 32; ++n) {
    const float next = 0.5f * static_cast<float>((n + 1) % 32), own = 0.5f * static_cast<float>(n);
    const float acc = 1.0f + static_cast<float>(n) + next + own;
    EXPECT_EQ(got[n], acc + 7.0f * static_cast<float>(n) + 7.0f * next) << n;
  }
}

// Elements bound by reference (a struct's operator* taking Cplx&, &e - base through a const float&, a returned const
// reference, const volatile float&), a method of an element inside an expression, scaleBy<float&>, a plain overload
// beside a template, rows given to references to arrays, helpers whose parameter's type shows (sizeof, a returned
// reference), a member of a local class: what a GPU computes, in both modes, with no diagnosis. Each once failed to
// build or computed differently in check mode (kernels_calls.cu).
TEST(Forms, ElementsBoundByReferenceKeepTheirIdentity) {
  DeviceBuffer<float> out(32);
  course_cpu::take_diagnostics();
  ASSERT_EQ(run_call_forms(out.ptr), cudaSuccess);
  expect_no_diagnostics();
  const std::vector<float> got = out.get();
  for (int t = 0; t < 32; ++t) {
    const int t1 = (t + 1) % 32, row = t % 4;
    const float row_sum = static_cast<float>((row == 2 ? -1 : 1) * (64 * row + 28));
    const float want = static_cast<float>(t * t1 - 1 + (t + 3) % 32 + std::max(t, t1) + (t + 5) % 32 + t + 1000 +
                                          3 * t + 3 + t + 3 + 6 + 7 * t + std::max(t, t1) + 2 * t + 11 + t1) +
                       row_sum + static_cast<float>(t + 1);
    EXPECT_EQ(got[t], want) << t;
  }
}
