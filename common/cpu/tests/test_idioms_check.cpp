// Self-tests of check mode on public CUDA idioms with a bug (kernels_idioms_bugs.cu): still found, at the right line.
#include "kernels.h"
#include "kernels_idioms.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

const char* const kFile = "kernels_idioms_bugs.cu";

// The diagnoses of `category` that name the marked line of `file`: as the line reported, or as the other access's line.
std::vector<course_cpu::Diagnostic> naming(const std::string& category, const std::string& marker,
                                           const char* file = kFile) {
  const int line = line_of(file, marker);
  std::vector<course_cpu::Diagnostic> out;
  for (const auto& d : of_category(course_cpu::take_diagnostics(), category))
    if (d.line == line || d.message.find("line " + std::to_string(line)) != std::string::npos) out.push_back(d);
  return out;
}

const char* const kHelpers = "kernels_helpers.cu";

}  // namespace

TEST(IdiomBugs, VolatileWarpReductionWithoutSyncwarpIsARace) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> in(std::vector<float>(64, 1.0f)), out(1);
  run_volatile_without_syncwarp(in.ptr, out.ptr);
  EXPECT_FALSE(naming("race", "@volatile-race").empty());
}

TEST(IdiomBugs, SyncwarpBetweenReadModifyWriteStepsIsStillARace) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> in(std::vector<float>(64, 1.0f)), out(1);
  run_syncwarp_between_updates(in.ptr, out.ptr);
  const auto d = naming("race", "@syncwarp-between-race");
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d[0].line, line_of(kFile, "@syncwarp-between-race"));
}

TEST(IdiomBugs, TileSyncReachedBySomeLanesIsBarrierDivergence) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> out(32);
  EXPECT_EQ(run_partial_tile_sync(out.ptr), cudaErrorLaunchFailure);
  const auto d = naming("barrier-divergence", "@partial-tile-sync");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].message.find("tile.sync()"), std::string::npos) << d[0].message;
}

TEST(IdiomBugs, TileSyncOrdersOnlyItsOwnLanes) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> out(32);
  EXPECT_EQ(run_tile_race(out.ptr), cudaSuccess);
  const auto all = of_category(course_cpu::take_diagnostics(), "race");
  ASSERT_EQ(all.size(), 1u);  // s[t ^ 1] (same tile) is ordered by the tile's sync()
  EXPECT_EQ(all[0].line, line_of(kFile, "@tile-race"));
}

TEST(IdiomBugs, WarpRendezvousOrderTransitively) {
  DeviceBuffer<float> out(1);
  course_cpu::take_diagnostics();
  EXPECT_EQ(run_warp_chain(out.ptr, true), cudaSuccess);
  EXPECT_TRUE(of_category(course_cpu::take_diagnostics(), "race").empty()) << "lane 3 -> 15 -> 31 is ordered";
  EXPECT_EQ(out.get()[0], 3.0f);
  EXPECT_EQ(run_warp_chain(out.ptr, false), cudaSuccess);
  const auto unlinked = of_category(course_cpu::take_diagnostics(), "race");
  ASSERT_EQ(unlinked.size(), 1u);
  EXPECT_EQ(unlinked[0].line, line_of(kFile, "@warp-chain"));
}

TEST(IdiomBugs, AReferenceToASharedElementIsChecked) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> out(64);
  run_reference_race(out.ptr);
  EXPECT_FALSE(naming("race", "@reference-race").empty());
}

TEST(IdiomBugs, ReadOfAnElementNoFloat4StoreWrote) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> in(std::vector<float>(128, 0.5f)), out(32);
  run_float4_then_unwritten(in.ptr, out.ptr);
  const auto d = of_category(course_cpu::take_diagnostics(), "uninitialized-shared-read");
  ASSERT_EQ(d.size(), 1u);  // tile[130]; tile[threadIdx.x] was written through the float4 pointer
  EXPECT_EQ(d[0].line, line_of(kFile, "@float4-unwritten"));
  EXPECT_NE(d[0].message.find("tile[130]"), std::string::npos) << d[0].message;
}

TEST(IdiomBugs, ASharedElementInAConditionalIsStillChecked) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> out(32);
  run_ternary_race(out.ptr);
  EXPECT_FALSE(naming("race", "@ternary-race").empty());
}

// A function template's parameters are deduced from shared elements as nvcc deduces them (the element's type, not
// check mode's proxy): swap through T&, a helper taking T, also with its qualifiers written as a macro, as a member
// template, and with some template arguments explicit. Its by-value argument is still a checked read.
TEST(IdiomBugs, SharedElementsPassedToFunctionTemplates) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> out(64);
  ASSERT_EQ(run_template_helpers(out.ptr, 0), cudaSuccess);
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
  const std::vector<float> got = out.get();
  std::vector<float> s(64);
  for (int i = 0; i < 64; ++i) s[i] = static_cast<float>(i);
  std::swap(s[0], s[1]);
  std::swap(s[2], s[3]);
  // 2 s[t ^ 1] + 3 s[t] + 4 s[t] + 2 (s[t] + 1): the copies changed, not the elements
  for (int i = 0; i < 64; ++i) EXPECT_EQ(got[i], 2.0f * s[i ^ 1] + 9.0f * s[i] + 2.0f) << i;
  run_template_helpers(out.ptr, 1);
  EXPECT_FALSE(naming("race", "@template-argument-read").empty());
}

// Elements as indices (bins[in[i]], x[col[j]], a __shared__ count), lambdas and a generic lambda given or returning
// elements, `auto v{...}`, an `auto` row of a 2D tile walked with *row++, and *(p): they compile in check mode, compute
// what fast mode and a GPU compute, and this correct kernel gets no diagnosis.
TEST(IdiomBugs, ElementsAsIndicesAndLambdasOverElements) {
  course_cpu::take_diagnostics();
  std::vector<int> in(32), col(32);
  std::vector<float> x(32);
  for (int i = 0; i < 32; ++i) {
    in[i] = (i * 5) % 8;
    col[i] = (i * 7) % 32;
    x[i] = 0.5f * static_cast<float>(i);
  }
  DeviceBuffer<int> din(in), dcol(col);
  DeviceBuffer<float> dx(x), out(32);
  ASSERT_EQ(run_index_forms(din.ptr, dcol.ptr, dx.ptr, out.ptr, 32), cudaSuccess);
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
  std::vector<unsigned> bins(8, 0);
  for (int v : in) ++bins[v];
  const std::vector<float> got = out.get();
  for (int t = 0; t < 32; ++t) {
    float walk = 0.0f;
    for (int k = 0; k < 8; ++k) walk += static_cast<float>((t % 4) * 8 + k);
    const float want = 4.0f * x[col[t]] + walk + 3.0f + static_cast<float>(bins[t % 8]);  // x >= 0: MAX gives x
    EXPECT_EQ(got[t], want) << t;
  }
}

// Atomics are checked as read-modify-writes: the correct shared histogram gets no diagnosis and counts right; atomics
// on bins not yet zeroed by another thread, one past the last bin, a plain read racing with the atomics, a global
// atomic past the end of a buffer and atomics racing with a zero are each reported at their line.
TEST(IdiomBugs, SharedAtomicsAreChecked) {
  std::vector<int> in(32);
  std::vector<unsigned> want(8, 0);
  for (int i = 0; i < 32; ++i) ++want[in[i] = (i * 3) % 8];
  DeviceBuffer<int> din(in);
  DeviceBuffer<unsigned> out(8);
  course_cpu::take_diagnostics();
  ASSERT_EQ(run_shared_histogram(din.ptr, out.ptr, 0), cudaSuccess);
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
  EXPECT_EQ(out.get(), want);

  ASSERT_EQ(run_shared_histogram(din.ptr, out.ptr, 1), cudaSuccess);
  const auto all = course_cpu::take_diagnostics();
  const int add = line_of(kFile, "@hist-add");
  EXPECT_TRUE(std::any_of(all.begin(), all.end(), [&](const auto& d) {
    return d.line == add && (d.category == "race" || d.category == "uninitialized-shared-read");
  })) << (all.empty() ? std::string("no finding") : all[0].message);

  EXPECT_EQ(run_shared_histogram(din.ptr, out.ptr, 2), cudaErrorIllegalAddress);
  auto d = naming("out-of-bounds", "@hist-add");
  ASSERT_FALSE(d.empty());
  EXPECT_NE(d[0].message.find("atomicAdd()'s word"), std::string::npos) << d[0].message;
  EXPECT_NE(d[0].message.find("right after the end of the block's dynamic shared memory of 32 bytes"),
            std::string::npos)
      << d[0].message;

  ASSERT_EQ(run_shared_histogram(din.ptr, out.ptr, 3), cudaSuccess);
  d = naming("race", "@hist-peek");
  ASSERT_FALSE(d.empty()) << "a plain read racing with atomics: no finding";

  EXPECT_EQ(run_shared_histogram(din.ptr, out.ptr, 4), cudaErrorIllegalAddress);
  d = naming("out-of-bounds", "@hist-global");
  ASSERT_FALSE(d.empty());
  EXPECT_NE(d[0].message.find("after the end of a cudaMalloc'ed buffer of 32 bytes"), std::string::npos)
      << d[0].message;

  // Thread 0's own atomic after its zero does not hide the zero from the other threads' atomics.
  ASSERT_EQ(run_shared_histogram(din.ptr, out.ptr, 5), cudaSuccess);
  d = naming("race", "@hist-total");
  ASSERT_FALSE(d.empty()) << "a zero and atomics with no __syncthreads() between: no finding";
}

// The same atomicCAS loops with no __syncthreads() between thread 0's plain store of the initial value and the other
// threads' loops: the store races with their reads and swaps (a CAS loop's plain read races with plain stores).
TEST(IdiomBugs, CompareAndSwapLoopBeforeTheInitialValueIsSynced) {
  std::vector<float> in(128, 1.0f);
  DeviceBuffer<float> din(in), out(2);
  course_cpu::take_diagnostics();
  ASSERT_EQ(run_cas_loops(din.ptr, out.ptr, 128, false), cudaSuccess);
  EXPECT_FALSE(naming("race", "@cas-init", "kernels_idioms.cu").empty());
}

// A __device__ helper's pointer parameter may point to the thread's local array or variables, a __constant__ table or
// a __device__ array: the kernel computes what a GPU computes and gets no diagnosis. Given a host pointer, the helper's
// access is reported and the launch fails, as it does on a GPU.
TEST(IdiomBugs, DeviceHelpersOverLocalConstantAndDeviceMemory) {
  course_cpu::take_diagnostics();
  std::vector<float> x(32);
  for (int i = 0; i < 32; ++i) x[i] = 0.25f * static_cast<float>(i);
  DeviceBuffer<float> in(x), out(32);
  ASSERT_EQ(run_device_pointer_helpers(in.ptr, out.ptr, false), cudaSuccess);
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
  const std::vector<float> got = out.get();
  for (int t = 0; t < 32; ++t) EXPECT_EQ(got[t], 12.0f * x[t] + 23.0f) << t;  // dot with 1..4, plus min and max

  std::vector<float> host(32, 0.0f);
  EXPECT_EQ(run_device_pointer_helpers(in.ptr, host.data(), true), cudaErrorIllegalAddress);
  cudaGetLastError();
  const auto d = naming("not-a-device-pointer", "@stash");
  ASSERT_FALSE(d.empty());
  EXPECT_NE(d[0].message.find("pointer parameter 'dst' of a __device__ function points into no memory the GPU can "
                              "reach"),
            std::string::npos)
      << d[0].message;
}

// A row of a 2D tile kept in `auto*`, walked by a range-for and taken as `&tile[i]`, and a ?: macro in a shared
// array's size and a constexpr: they compile in check mode and compute what a GPU computes, with no diagnosis.
TEST(IdiomBugs, RowsOfATileAndMacrosInConstantExpressions) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> out(32);
  ASSERT_EQ(run_row_forms(out.ptr), cudaSuccess);
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
  const std::vector<float> got = out.get();
  for (int t = 0; t < 32; ++t) {
    const int r = t / 8;
    const float sum = static_cast<float>(64 * r + 28);  // 8r + 0 .. 8r + 7
    EXPECT_EQ(got[t], static_cast<float>(t) + sum + static_cast<float>(8 * r + 7 - t % 8) + 1.0f) << t;
  }
}

// A functor's member template and generic lambdas passed to function templates get the element as CUDA does: a
// by-value T is a copy (assigning to it leaves the element alone), an auto& the element itself.
TEST(IdiomBugs, ElementsGivenToFunctorsAndCallableParameters) {
  course_cpu::take_diagnostics();
  std::vector<float> x(32);
  for (int i = 0; i < 32; ++i) x[i] = static_cast<float>(i % 5);
  DeviceBuffer<float> data(x), out(32);
  ASSERT_EQ(run_callable_forms(data.ptr, out.ptr), cudaSuccess);
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
  const std::vector<float> got = out.get(), after = data.get();
  for (int t = 0; t < 32; ++t) {
    const float m = t == 31 ? 31.0f : static_cast<float>(t + 1);
    EXPECT_EQ(got[t], m + static_cast<float>(t) + 2.0f * x[t] * x[t]) << t;
    EXPECT_EQ(after[t], 2.0f * x[t]) << t;  // only forOwn's auto& wrote it
  }
}

// Shared bool, char and short arrays written one element per thread: neighbours are different bytes of one word and
// do not race; the same byte written by two threads in one barrier interval does.
TEST(IdiomBugs, ByteArraysRaceOnlyOnACommonByte) {
  course_cpu::take_diagnostics();
  std::vector<int> x(64);
  for (int i = 0; i < 64; ++i) x[i] = 90 + 3 * i;
  DeviceBuffer<int> in(x), out(64);
  ASSERT_EQ(run_byte_arrays(in.ptr, out.ptr, 0), cudaSuccess);
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
  const std::vector<int> got = out.get();
  for (int t = 0; t < 64; ++t) {
    const int o = x[63 - t];
    EXPECT_EQ(got[t], (o % 3 == 0 ? 1 : 0) + (o & 0xff) + (x[(t + 1) % 64] - 100)) << t;
  }
  run_byte_arrays(in.ptr, out.ptr, 1);
  EXPECT_FALSE(naming("race", "@byte-race").empty());
}

// The pointer forms of kernels_forms.cu with a bug each: *++dst one past the end, a race read through *(1 + s - 1),
// and p->x one struct past the end are reported at their lines (before, these forms were not checked).
TEST(IdiomBugs, WalkingPointersOffsetsFirstAndArrowsAreChecked) {
  std::vector<float> pts(64, 1.0f);
  DeviceBuffer<float> in(iota_floats(128)), points(pts), out(128);
  const char* const file = "kernels_forms.cu";
  const struct {
    int bug;
    const char* category;
    const char* marker;
  } cases[] = {{1, "out-of-bounds", "@walk"}, {2, "race", "@offset-race"}, {3, "out-of-bounds", "@arrow"}};
  for (const auto& c : cases) {
    course_cpu::take_diagnostics();
    run_pointer_forms(in.ptr, points.ptr, out.ptr, c.bug);
    cudaGetLastError();
    const auto d = course_cpu::take_diagnostics();
    ASSERT_EQ(d.size(), 1u) << c.marker << ": " << (d.empty() ? "" : d[0].message);
    EXPECT_EQ(d[0].category, c.category) << d[0].message;
    EXPECT_EQ(d[0].line, line_of(file, c.marker)) << d[0].message;
  }
}

// `n * *mine` and `*(const float4*)src++` are checked: the missing barrier is a race at the multiplied read, the float4
// past the end of `in` an out-of-bounds read at the stepped cast (neither was checked before 2026-11-29).
TEST(IdiomBugs, MultipliedAndSteppedCastDereferencesAreChecked) {
  DeviceBuffer<float> in(iota_floats(64)), out(16);
  course_cpu::take_diagnostics();
  run_multiplied_and_stepped_derefs(in.ptr, out.ptr, 1);
  cudaGetLastError();
  const auto racy = of_category(course_cpu::take_diagnostics(), "race");
  const int line = line_of("kernels_forms.cu", "@multiplied-read");
  EXPECT_TRUE(std::any_of(racy.begin(), racy.end(), [&](const auto& d) { return d.line == line; }));

  run_multiplied_and_stepped_derefs(in.ptr, out.ptr, 2);
  cudaGetLastError();
  const auto oob = of_category(course_cpu::take_diagnostics(), "out-of-bounds");
  ASSERT_FALSE(oob.empty());
  EXPECT_EQ(oob[0].line, line_of("kernels_forms.cu", "@stepped-cast-read")) << oob[0].message;
  EXPECT_NE(oob[0].message.find("(const float4*)src++"), std::string::npos) << oob[0].message;
}

// A reference to a row one past the tile (`float (&row)[33] = tile[32];`) is reported where it is bound.
TEST(IdiomBugs, ARowReferencePastTheTileIsReported) {
  DeviceBuffer<float> out(32);
  course_cpu::take_diagnostics();
  run_row_references(out.ptr, 1);
  cudaGetLastError();
  const auto d = course_cpu::take_diagnostics();
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d[0].category, "out-of-bounds") << d[0].message;
  EXPECT_EQ(d[0].line, line_of("kernels_forms.cu", "@row-reference")) << d[0].message;
  EXPECT_NE(d[0].message.find("tile[32][0]"), std::string::npos) << d[0].message;
}

// Elements handed to __device__ helpers taking non-const references (kernels_helpers.cu): an out-parameter, an
// accumulator, a swap and a volatile read compute what a GPU computes, and what a helper does through the reference is
// checked like the element's own uses: the accumulator's race with its neighbour's store, the read of a never-written
// element (both went unseen while the reference was a plain float&), and the same race through a helper declared before
// its definition, through a lambda's `float&` parameter (unseen until those became `auto&&` too) and through a function
// template's `T&` (a bitonic sort's swap; unseen while the element was bound as a float&) and through a `real&` with
// `typedef float real;`.
TEST(IdiomBugs, ElementsPassedToReferenceParametersAreChecked) {
  std::vector<float> x(64);
  for (int i = 0; i < 64; ++i) x[i] = 1.0f + 0.25f * static_cast<float>(i);
  DeviceBuffer<float> in(x), out(64);
  course_cpu::take_diagnostics();
  ASSERT_EQ(run_reference_helpers(in.ptr, out.ptr, 0), cudaSuccess);
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
  std::vector<float> s(64);
  for (int j = 0; j < 64; ++j) s[j] = x[j] + x[(j + 63) % 64];
  for (int t = 0; t < 64; t += 2) std::swap(s[t], s[t + 1]);
  const std::vector<float> got = out.get();
  for (int t = 0; t < 64; ++t) EXPECT_EQ(got[t], s[t] + 3.0f) << t;
  // Each bug (the kernel's `bug` argument) and the finding it must give, at its marked line.
  const struct {
    int bug;
    const char* category;
    const char* marker;
  } bugs[] = {{1, "race", "@helper-accumulate"},     {2, "uninitialized-shared-read", "@helper-uninitialized"},
              {3, "race", "@helper-declared-first"}, {4, "race", "@helper-lambda"},
              {5, "race", "@helper-template"},       {6, "race", "@helper-alias"}};
  for (const auto& b : bugs) {
    run_reference_helpers(in.ptr, out.ptr, b.bug);
    EXPECT_FALSE(naming(b.category, b.marker, kHelpers).empty()) << b.marker;
  }
}

// Struct elements passed by value to a helper, or as operands of the struct's operator+ (kernels_helpers.cu): the
// tree's sum as on a GPU, and with the first barrier missing, the race at the combining line (these whole reads were
// bounds-checked only).
TEST(IdiomBugs, StructElementsPassedByValueAreCheckedReads) {
  std::vector<float> x(64);
  float sum = 0.0f;
  for (int i = 0; i < 64; ++i) sum += x[i] = static_cast<float>(i % 7);
  DeviceBuffer<float> in(x), out(1);
  course_cpu::take_diagnostics();
  ASSERT_EQ(run_struct_arguments(in.ptr, out.ptr, 0), cudaSuccess);
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
  EXPECT_EQ(out.get()[0], sum + 64000.0f);
  run_struct_arguments(in.ptr, out.ptr, 1);
  EXPECT_FALSE(naming("race", "@pair-combine", kHelpers).empty());
}

// Helpers qualified through macros are device code (kernels_helpers.cu): the values as on a GPU (and the
// __host__ __device__ helper on the host), and without the barrier the race at the reading helper's line.
TEST(IdiomBugs, HelpersQualifiedThroughMacrosAreChecked) {
  DeviceBuffer<float> out(64);
  course_cpu::take_diagnostics();
  ASSERT_EQ(run_macro_helpers(out.ptr, 0), cudaSuccess);
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
  const std::vector<float> got = out.get();
  for (int t = 0; t < 64; ++t) EXPECT_EQ(got[t], std::min(static_cast<float>((t + 1) % 64), 40.0f)) << t;
  run_macro_helpers(out.ptr, 1);
  EXPECT_FALSE(naming("race", "@macro-helper-read", kHelpers).empty());
}
