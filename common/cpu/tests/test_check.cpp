// Self-tests of check mode: the bugs it must find, with the right line, the
// same way on every run.
#include "kernels.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace {

std::vector<course_cpu::Diagnostic> run_missing_sync(int which) {
  const int n = 64;
  DeviceBuffer<float> A(iota_floats(n * n)), B(iota_floats(n * n)), C(n * n);
  run_gemm_missing_sync(which, A.ptr, B.ptr, C.ptr, n);
  cudaGetLastError();
  return course_cpu::take_diagnostics();
}

void expect_same(const std::vector<course_cpu::Diagnostic>& a, const std::vector<course_cpu::Diagnostic>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].category, b[i].category);
    EXPECT_EQ(a[i].line, b[i].line);
    EXPECT_EQ(a[i].message, b[i].message);
    EXPECT_EQ(a[i].occurrences, b[i].occurrences);
  }
}

}  // namespace

TEST(CheckMode, IsActive) {
  DeviceBuffer<float> out(64);
  run_bank_probe(2, out.ptr);
  EXPECT_TRUE(course_cpu::check_mode_active());
  course_cpu::take_bank_conflicts();
}

TEST(CheckMode, MissingFirstSyncIsARaceAtTheUse) {
  course_cpu::take_diagnostics();
  const auto first = run_missing_sync(1);
  const int use = line_of("kernels_bugs.cu", "@nofirst-use");
  const int load = line_of("kernels_bugs.cu", "@nofirst-load");
  // Reads of the tile before other threads wrote it (read-after-write) ...
  std::vector<course_cpu::Diagnostic> races;
  for (const auto& d : of_category(first, "race"))
    if (d.line == use) races.push_back(d);
  ASSERT_EQ(races.size(), 2u);  // As and Bs
  EXPECT_NE(races[0].message.find("reads As["), std::string::npos) << races[0].message;
  EXPECT_NE(races[0].message.find("written by thread"), std::string::npos) << races[0].message;
  EXPECT_NE(races[0].message.find("at line " + std::to_string(load)), std::string::npos) << races[0].message;
  expect_same(first, run_missing_sync(1));  // deterministic
}

TEST(CheckMode, MissingSecondSyncIsARaceAtTheNextLoad) {
  course_cpu::take_diagnostics();
  const auto first = run_missing_sync(2);
  const auto races = of_category(first, "race");
  ASSERT_FALSE(races.empty());
  const int load = line_of("kernels_bugs.cu", "@nosecond-load");
  const int use = line_of("kernels_bugs.cu", "@nosecond-use");
  EXPECT_EQ(races[0].line, load);
  EXPECT_NE(races[0].message.find("writes As["), std::string::npos) << races[0].message;
  EXPECT_NE(races[0].message.find("reads at line " + std::to_string(use)), std::string::npos) << races[0].message;
  expect_same(first, run_missing_sync(2));
}

TEST(CheckMode, OutOfBoundsGlobalWriteIsReportedWithoutCrash) {
  course_cpu::take_diagnostics();
  const int n = 1000;
  DeviceBuffer<float> a(iota_floats(n)), b(iota_floats(n)), c(n);
  EXPECT_EQ(run_oob_global(a.ptr, b.ptr, c.ptr, n), cudaErrorIllegalAddress);
  const auto d = of_category(course_cpu::take_diagnostics(), "out-of-bounds");
  ASSERT_EQ(d.size(), 3u);  // reads of a and b, write of c, all on one line
  for (const auto& x : d) EXPECT_EQ(x.line, line_of("kernels_bugs.cu", "@oob-global"));
  bool saw_write = false;
  for (const auto& x : d) {
    EXPECT_EQ(x.occurrences, 24u);
    if (x.message.find("writes c[1000]") != std::string::npos) saw_write = true;
  }
  EXPECT_TRUE(saw_write) << d[0].message;
  EXPECT_NE(d[0].message.find("block (3,0)"), std::string::npos) << d[0].message;
  cudaGetLastError();
}

TEST(CheckMode, SharedIndexPastTheEnd) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> out(64);
  EXPECT_EQ(run_oob_shared(out.ptr), cudaErrorIllegalAddress);
  const auto d = of_category(course_cpu::take_diagnostics(), "out-of-bounds");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].line, line_of("kernels_bugs.cu", "@oob-shared"));
  EXPECT_NE(d[0].message.find("writes s[64]"), std::string::npos) << d[0].message;
  EXPECT_NE(d[0].message.find("declared s[64]"), std::string::npos) << d[0].message;
  cudaGetLastError();
}

TEST(CheckMode, UninitializedSharedRead) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> out(64);
  EXPECT_EQ(run_uninitialized(out.ptr), cudaSuccess);
  const auto d = of_category(course_cpu::take_diagnostics(), "uninitialized-shared-read");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].line, line_of("kernels_bugs.cu", "@uninit"));
  EXPECT_EQ(d[0].occurrences, 32u);
  EXPECT_NE(d[0].message.find("thread (32,0) of block (0,0) reads s[32]"), std::string::npos) << d[0].message;
}

TEST(CheckMode, HostPointerIsNotADevicePointer) {
  course_cpu::take_diagnostics();
  std::vector<float> host(32, 1.0f);
  EXPECT_EQ(run_host_pointer(host.data()), cudaErrorIllegalAddress);
  const auto d = of_category(course_cpu::take_diagnostics(), "not-a-device-pointer");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].line, line_of("kernels_bugs.cu", "@host-pointer"));
  EXPECT_NE(d[0].message.find("kernel parameter 'data' is not a device pointer (did you pass a host pointer?)"),
            std::string::npos)
      << d[0].message;
  EXPECT_EQ(host[0], 1.0f);  // not performed
  cudaGetLastError();
}

namespace {
const course_cpu::BankConflictLine* find_line(const course_cpu::BankConflictReport& r, int line, bool store) {
  for (const auto& l : r.lines)
    if (l.line == line && l.store == store) return &l;
  return nullptr;
}
}  // namespace

TEST(CheckMode, BankConflicts) {
  course_cpu::take_bank_conflicts();
  DeviceBuffer<float> out(32);
  struct Case {
    int which;
    const char* marker;
    int degree;
  };
  for (const Case& c : {Case{0, "@bank-column", 32}, Case{1, "@bank-padded", 1}, Case{2, "@bank-row", 1}}) {
    ASSERT_EQ(run_bank_probe(c.which, out.ptr), cudaSuccess);
    const auto report = course_cpu::take_bank_conflicts();
    const auto* l = find_line(report, line_of("kernels_basic.cu", c.marker), false);
    ASSERT_NE(l, nullptr) << c.marker;
    EXPECT_EQ(l->variable, "As");
    EXPECT_EQ(l->requests, 32u) << c.marker;
    EXPECT_EQ(l->max_degree, c.degree) << c.marker;
    EXPECT_EQ(l->wavefronts, 32u * c.degree) << c.marker;
    EXPECT_EQ(report.store_requests, 32u) << c.marker;  // the row-wise fill
    EXPECT_EQ(report.store_wavefronts, 32u) << c.marker;
  }
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
}

// Each request's degree on its own: consecutive requests of one line with
// different shapes, and warps with only some lanes taking part.
TEST(CheckMode, BankConflictsOfMixedAndPartialRequests) {
  course_cpu::take_bank_conflicts();
  DeviceBuffer<float> out(40);
  ASSERT_EQ(run_bank_probe(3, out.ptr), cudaSuccess);
  const auto report = course_cpu::take_bank_conflicts();
  // Warp 0 (32 lanes), k = 0..3: strides 32, 2, 32, 4 give 32, 2, 32 and 4
  // words in one bank. Warp 1 (8 lanes): 8, 1, 8, 1.
  const auto* mixed = find_line(report, line_of("kernels_basic.cu", "@bank-mixed"), false);
  ASSERT_NE(mixed, nullptr);
  EXPECT_EQ(mixed->requests, 8u);
  EXPECT_EQ(mixed->wavefronts, 32u + 2 + 32 + 4 + 8 + 1 + 8 + 1);
  EXPECT_EQ(mixed->max_degree, 32);
  // Lanes 0..19 read words 0, 2, ..., 38: words 32..38 share banks 0..6 with
  // words 0..6, so 2 words in a bank. Warp 1 does not take part.
  const auto* partial = find_line(report, line_of("kernels_basic.cu", "@bank-partial"), false);
  ASSERT_NE(partial, nullptr);
  EXPECT_EQ(partial->requests, 1u);
  EXPECT_EQ(partial->wavefronts, 2u);
  EXPECT_EQ(partial->max_degree, 2);
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
}

// A request of 16-byte elements takes at least one wavefront per 128 bytes: its degree is its wavefronts over that
// least number, so a conflict-free float4 load is 1-way in 4 wavefronts. One member of each float4 (`s4[lane].z`) is
// a 4-byte request at a stride of 16 bytes, as nvcc loads a lone member: 4-way.
TEST(CheckMode, BankConflictsOfWideRequests) {
  course_cpu::take_bank_conflicts();
  DeviceBuffer<float> out(32);
  ASSERT_EQ(run_bank_probe(4, out.ptr), cudaSuccess);
  const auto report = course_cpu::take_bank_conflicts();
  struct Case {
    const char* marker;
    std::uint64_t wavefronts;
    int degree;
  };
  for (const Case& c : {Case{"@bank-wide-1", 4, 1}, Case{"@bank-wide-2", 8, 2}, Case{"@bank-wide-half", 2, 1},
                        Case{"@bank-wide-member", 4, 4}}) {
    const auto* l = find_line(report, line_of("kernels_basic.cu", c.marker), false);
    ASSERT_NE(l, nullptr) << c.marker;
    EXPECT_EQ(l->requests, 1u) << c.marker;
    EXPECT_EQ(l->wavefronts, c.wavefronts) << c.marker;
    EXPECT_EQ(l->max_degree, c.degree) << c.marker;
  }
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
}

TEST(CheckMode, RaceInAKernelTemplateWithDeducedArguments) {
  course_cpu::take_diagnostics();
  DeviceBuffer<int> out(32);
  EXPECT_EQ(run_racy_deduced(out.ptr), cudaSuccess);
  // Thread 1 overwrites s[1] after thread 0 read it; thread 31 reads s[0]
  // that thread 0 wrote: both without a barrier.
  const auto d = of_category(course_cpu::take_diagnostics(), "race");
  ASSERT_EQ(d.size(), 2u);
  const int read = line_of("kernels_bugs.cu", "@deduced-race");
  EXPECT_EQ(d[0].line, read - 1);
  EXPECT_EQ(d[1].line, read);
  EXPECT_NE(d[1].message.find("reads s[0]"), std::string::npos) << d[1].message;
}

namespace {
course_cpu::Diagnostic only_finding(int which, const float* a, float* out, const char* category) {
  course_cpu::take_diagnostics();
  EXPECT_EQ(run_wording(which, a, out), cudaErrorIllegalAddress);
  cudaGetLastError();
  const auto d = course_cpu::take_diagnostics();
  EXPECT_EQ(d.size(), 1u);
  if (d.empty()) return {};
  EXPECT_EQ(d[0].category, category);
  return d[0];
}
}  // namespace

TEST(CheckMode, MessagesNameTheIndexAndTheValidRange) {
  DeviceBuffer<float> one(1), out(8);
  auto d = only_finding(0, one.ptr, out.ptr, "out-of-bounds");
  EXPECT_EQ(d.line, line_of("kernels_bugs.cu", "@oob-one"));
  EXPECT_NE(d.message.find("thread (0,0) of block (0,0) reads a[1], but index 1 is past the last valid index 0 "
                           "(a has 1 element"),
            std::string::npos)
      << d.message;
  EXPECT_NE(d.message.find("if (i < n)"), std::string::npos) << d.message;

  d = only_finding(1, one.ptr, out.ptr, "out-of-bounds");
  EXPECT_EQ(d.line, line_of("kernels_bugs.cu", "@oob-2d"));
  EXPECT_NE(d.message.find("thread (5,0) of block (0,0) writes As[0][5], but As is declared As[4][5]: index 5 in "
                           "the 2nd dimension is past the last valid index 4"),
            std::string::npos)
      << d.message;

  d = only_finding(2, one.ptr, out.ptr, "not-a-device-pointer");
  EXPECT_EQ(d.line, line_of("kernels_bugs.cu", "@null-pointer"));
  EXPECT_NE(d.message.find("kernel parameter 'out' is a null pointer"), std::string::npos) << d.message;

  d = only_finding(3, one.ptr, out.ptr, "out-of-bounds");
  EXPECT_EQ(d.line, line_of("kernels_bugs.cu", "@oob-negative"));
  EXPECT_NE(d.message.find("reads a[-1], but index -1 is before the first valid index 0"), std::string::npos)
      << d.message;

  d = only_finding(4, one.ptr, out.ptr, "out-of-bounds");
  EXPECT_EQ(d.line, line_of("kernels_bugs.cu", "@oob-5d"));
  EXPECT_NE(d.message.find("thread (3,0) of block (0,0) writes s5[1][0][1][0][3], but s5 is declared "
                           "s5[2][2][2][2][3]: index 3 in the 5th dimension is past the last valid index 2"),
            std::string::npos)
      << d.message;
}

TEST(CheckMode, WarpSyncOrdersOnlyTheLanesOfItsMask) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> out(32);
  EXPECT_EQ(run_half_warp_sync(out.ptr), cudaSuccess);
  const auto d = of_category(course_cpu::take_diagnostics(), "race");
  ASSERT_EQ(d.size(), 1u);  // s[t ^ 1] (same half) is ordered by the __syncwarp
  EXPECT_EQ(d[0].line, line_of("kernels_bugs.cu", "@half-warp-race"));
  EXPECT_NE(d[0].message.find("thread (0,0) of block (0,0) reads s[31], written by thread (31,0)"), std::string::npos)
      << d[0].message;
  EXPECT_NE(d[0].message.find("did not name both lanes in its mask"), std::string::npos) << d[0].message;
}

// A float4 load from a float buffer at an offset that is not a multiple of 4 floats faults on a GPU: check mode reports
// it at its line, with the byte offset in the buffer, stops the block before the load and fails the launch with
// cudaErrorMisalignedAddress. The same kernel at an aligned offset runs and reports nothing.
TEST(CheckMode, MisalignedVectorLoadFromGlobalMemory) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> in(iota_floats(64)), out(16);
  EXPECT_EQ(run_misaligned(0, 2, in.ptr, out.ptr), cudaErrorMisalignedAddress);
  const auto d = of_category(course_cpu::take_diagnostics(), "misaligned-address");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].line, line_of("kernels_bugs.cu", "@misaligned-load"));
  EXPECT_EQ(d[0].occurrences, 2u);  // the first thread of each block: the block stops there
  // The cast subscripted in place is checked like a local pointer: the message names it.
  EXPECT_NE(d[0].message.find("thread (0,0) of block (0,0) accesses reinterpret_cast<const float4*>(in + offset)[0] at "
                              "address"),
            std::string::npos)
      << d[0].message;
  EXPECT_NE(d[0].message.find("(byte 8 of a buffer cudaMalloc'ed with 256 bytes), 8 bytes past a multiple of 16"),
            std::string::npos)
      << d[0].message;
  EXPECT_NE(d[0].message.find("cudaErrorMisalignedAddress"), std::string::npos) << d[0].message;
  cudaGetLastError();

  EXPECT_EQ(run_misaligned(0, 4, in.ptr, out.ptr), cudaSuccess);
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
  EXPECT_EQ(out.get()[0], 2.0f + 9.0f + 3.0f + 10.0f);  // in[4..7] of iota_floats
}

TEST(CheckMode, MisalignedVectorStoreToSharedMemory) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> in(16), out(16);
  EXPECT_EQ(run_misaligned(1, 3, in.ptr, out.ptr), cudaErrorMisalignedAddress);
  const auto d = of_category(course_cpu::take_diagnostics(), "misaligned-address");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].line, line_of("kernels_bugs.cu", "@misaligned-store"));
  EXPECT_NE(d[0].message.find("accesses p[0] at address"), std::string::npos) << d[0].message;
  EXPECT_NE(d[0].message.find("p's elements must be 8-byte aligned"), std::string::npos) << d[0].message;
  EXPECT_NE(d[0].message.find("(byte 12 of the block's extern __shared__ memory), 4 bytes past a multiple of 8"),
            std::string::npos)
      << d[0].message;
  cudaGetLastError();

  EXPECT_EQ(run_misaligned(1, 2, in.ptr, out.ptr), cudaSuccess);
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
  EXPECT_EQ(out.get()[5], 3.0f);
}

// Local pointers into shared memory are checked: a missing barrier is a race on both tiles at their lines, and a
// local pointer to a local array is left alone. With the barrier nothing is reported and the result is right.
TEST(CheckMode, LocalPointersIntoSharedMemoryAreChecked) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> in(iota_floats(32)), out(32);
  EXPECT_EQ(run_carved_tiles(0, in.ptr, out.ptr), cudaSuccess);
  const auto all = course_cpu::take_diagnostics();
  bool as = false, bs = false;
  for (const auto& d : of_category(all, "race")) {
    as = as || d.message.find("As[1]") != std::string::npos;
    bs = bs || d.message.find("Bs[1]") != std::string::npos;
    EXPECT_NE(d.message.find("line " + std::to_string(line_of("kernels_bugs.cu", "@carved-read"))), std::string::npos)
        << d.message;
  }
  EXPECT_TRUE(as && bs);
  EXPECT_TRUE(of_category(all, "not-a-device-pointer").empty());  // l points to a local array
  EXPECT_TRUE(of_category(all, "out-of-bounds").empty());
  EXPECT_EQ(run_carved_tiles(1, in.ptr, out.ptr), cudaSuccess);
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
  const std::vector<float> host = iota_floats(32);
  EXPECT_EQ(out.get()[0], 3.0f * host[1] + 2.0f);
}

// __shared__ scalars are checked at every use, like an element of an array, and named without an index.
TEST(CheckMode, SharedScalarsAreChecked) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> in(iota_floats(64)), out(64);
  run_shared_scalars(0, in.ptr, out.ptr);
  cudaGetLastError();
  const auto racy = of_category(course_cpu::take_diagnostics(), "race");
  ASSERT_FALSE(racy.empty());
  EXPECT_EQ(racy[0].line, line_of("kernels_bugs.cu", "@scalar-read"));
  EXPECT_NE(racy[0].message.find("reads total,"), std::string::npos) << racy[0].message;
  EXPECT_NE(racy[0].message.find("line " + std::to_string(line_of("kernels_bugs.cu", "@scalar-write"))),
            std::string::npos)
      << racy[0].message;

  EXPECT_EQ(run_shared_scalars(1, in.ptr, out.ptr), cudaSuccess);
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
  const float expected = 2.0f * iota_floats(1)[0] + 1.0f + 2.0f;
  for (float v : out.get()) EXPECT_EQ(v, expected);

  run_shared_scalars(2, in.ptr, out.ptr);
  cudaGetLastError();
  const auto unset = of_category(course_cpu::take_diagnostics(), "uninitialized-shared-read");
  ASSERT_EQ(unset.size(), 1u);
  EXPECT_EQ(unset[0].line, line_of("kernels_bugs.cu", "@scalar-uninitialized"));
  EXPECT_NE(unset[0].message.find("reads flag,"), std::string::npos) << unset[0].message;
}

// A later declarator (`float *a = smem, *b = smem + 64;`), an `auto` pointer and a cast subscripted in place are
// checked like a local pointer: each racy read is reported at its own line, and an unwritten word read through a cast.
TEST(CheckMode, LaterDeclaratorsAutoPointersAndCastsAreChecked) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> in(iota_floats(64)), out(64);
  run_declarator_forms(0, in.ptr, out.ptr);
  cudaGetLastError();
  const auto racy = of_category(course_cpu::take_diagnostics(), "race");
  for (const char* marker : {"@forms-declarator-read", "@forms-auto-read", "@forms-cast-read"}) {
    const int line = line_of("kernels_bugs.cu", marker);
    EXPECT_TRUE(std::any_of(racy.begin(), racy.end(), [&](const auto& d) { return d.line == line; }))
        << marker << " (line " << line << ") is not reported";
  }

  EXPECT_EQ(run_declarator_forms(1, in.ptr, out.ptr), cudaSuccess);
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
  const std::vector<float> host = iota_floats(64), got = out.get();
  for (int i = 0; i < 64; ++i) EXPECT_EQ(got[i], 4.0f * host[(i + 1) % 64]) << i;

  run_declarator_forms(2, in.ptr, out.ptr);
  cudaGetLastError();
  const auto unset = of_category(course_cpu::take_diagnostics(), "uninitialized-shared-read");
  ASSERT_FALSE(unset.empty());
  EXPECT_EQ(unset[0].line, line_of("kernels_bugs.cu", "@forms-cast-uninitialized"));
  EXPECT_NE(unset[0].message.find("reinterpret_cast<const float2*>(smem)"), std::string::npos) << unset[0].message;
}

// Dereferences (`*(p + i)`, `*reinterpret_cast<const float4*>(...)`, `*p`) and a C-style cast subscripted in place
// (`((const float2*)tile)[i]`) are checked like subscripts: each racy read at its own line, a write past the end
// named as the subscript it is (`out[64]`), and the correct kernel reports nothing and computes right.
TEST(CheckMode, DereferencesAreChecked) {
  course_cpu::take_diagnostics();
  const std::vector<float> host = iota_floats(64);
  DeviceBuffer<float> in(host), out(64);
  run_dereference_forms(0, in.ptr, out.ptr);
  cudaGetLastError();
  const auto racy = of_category(course_cpu::take_diagnostics(), "race");
  for (const char* marker :
       {"@deref-sum-read", "@deref-cast-read", "@deref-c-cast-read", "@deref-c-cast-vector", "@deref-c-cast-scalar"}) {
    const int line = line_of("kernels_bugs.cu", marker);
    EXPECT_TRUE(std::any_of(racy.begin(), racy.end(), [&](const auto& d) { return d.line == line; }))
        << marker << " (line " << line << ") is not reported";
  }

  EXPECT_EQ(run_dereference_forms(1, in.ptr, out.ptr), cudaSuccess);
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
  const std::vector<float> got = out.get();
  for (int i = 0; i < 64; ++i) {
    const int quad = (i / 4 + 1) % 16 * 4, next = (i + 1) % 64, quad2 = (i / 4 + 2) % 16 * 4;
    EXPECT_EQ(got[i], host[next] + (host[quad] + host[next / 2 * 2 + 1]) + (host[quad2 + 1] + host[(i + 2) % 64])) << i;
  }

  EXPECT_EQ(run_dereference_forms(2, in.ptr, out.ptr), cudaErrorIllegalAddress);
  const auto oob = of_category(course_cpu::take_diagnostics(), "out-of-bounds");
  ASSERT_EQ(oob.size(), 1u);
  EXPECT_EQ(oob[0].line, line_of("kernels_bugs.cu", "@deref-past-the-end"));
  EXPECT_NE(oob[0].message.find("writes out[64]"), std::string::npos) << oob[0].message;
  cudaGetLastError();
}

// A struct or vector element stored as a whole (`quads[t] = make_float4(...)`, `*(float4*)&flat[4 * t] = v`, a struct
// with its own operator=) is a write: without a barrier before the neighbours' reads, each store races; with one,
// nothing is reported and the values arrive; a store of the same value by every thread races with nothing. The
// float4 stores of 32 consecutive lanes are 1-way bank requests of 4 wavefronts.
TEST(CheckMode, WholeElementStoresAreWrites) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> out(32);
  run_whole_stores(0, out.ptr);
  cudaGetLastError();
  const auto racy = of_category(course_cpu::take_diagnostics(), "race");
  for (const char* marker : {"@whole-c-cast", "@whole-array", "@whole-struct", "@whole-operator"}) {
    const int line = line_of("kernels_bugs.cu", marker);
    EXPECT_TRUE(std::any_of(racy.begin(), racy.end(), [&](const auto& d) { return d.line == line; }))
        << marker << " (line " << line << ") is not reported";
  }

  course_cpu::take_bank_conflicts();
  EXPECT_EQ(run_whole_stores(1, out.ptr), cudaSuccess);
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
  const std::vector<float> got = out.get();
  for (int t = 0; t < 32; ++t) {
    const int n = (t + 1) % 32;
    EXPECT_EQ(got[t], static_cast<float>(n) * 4) << t;
  }
  const auto banks = course_cpu::take_bank_conflicts();
  for (const char* marker : {"@whole-c-cast", "@whole-array"}) {
    const auto* l = find_line(banks, line_of("kernels_bugs.cu", marker), true);
    ASSERT_NE(l, nullptr) << marker;
    EXPECT_EQ(l->requests, 1u) << marker;
    EXPECT_EQ(l->wavefronts, 4u) << marker;
    EXPECT_EQ(l->max_degree, 1) << marker;
  }

  EXPECT_EQ(run_whole_stores(2, out.ptr), cudaSuccess);
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
  EXPECT_EQ(out.get()[5], 3.0f);
}

// A pointer to rows (`float (*As)[5]`) into the extern __shared__ memory: each access is checked at its flattened
// index, so reading column 5 of the last row (element 20 of 20 floats) is out of bounds; column 4 is fine.
TEST(CheckMode, PointerToRowsIsChecked) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> out(20);
  EXPECT_EQ(run_row_pointer(4, out.ptr), cudaSuccess);
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
  EXPECT_EQ(out.get()[19], 1.0f);
  EXPECT_EQ(run_row_pointer(5, out.ptr), cudaErrorIllegalAddress);
  const auto d = of_category(course_cpu::take_diagnostics(), "out-of-bounds");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].line, line_of("kernels_bugs.cu", "@row-pointer-read"));
  EXPECT_NE(d[0].message.find("reads As[20]"), std::string::npos) << d[0].message;
  cudaGetLastError();
}
