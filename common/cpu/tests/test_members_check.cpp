// Self-tests of check mode: members of struct and vector elements accessed one at a time (`kv[t].key = ...`,
// `parts[t].pos.y`, `reinterpret_cast<float2*>(flat)[t].y`, `q->w`) and whole elements read through pointers to non-const
// (`const Particle p = parts[n];`) are checked like any element: races, uninitialized reads named by their member.
#include "kernels.h"
#include "kernels_extras.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace {
bool reported_at(const std::vector<course_cpu::Diagnostic>& found, const char* marker) {
  const int line = line_of("kernels_members.cu", marker);
  return std::any_of(found.begin(), found.end(), [&](const auto& d) { return d.line == line; });
}
// Reported at the marked line, or naming it as the other access's line.
bool naming_line(const std::vector<course_cpu::Diagnostic>& found, const char* marker) {
  const std::string line = std::to_string(line_of("kernels_members.cu", marker));
  return reported_at(found, marker) || std::any_of(found.begin(), found.end(), [&](const auto& d) {
           return d.message.find("line " + line) != std::string::npos;
         });
}
}  // namespace

// Without the barrier between the stores and the neighbours' reads, each member store, member read and whole read
// races; with it nothing is reported and the values arrive.
TEST(CheckMembers, MemberAccessesAndWholeReadsRace) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> out(32);
  run_member_forms(0, out.ptr);
  cudaGetLastError();
  const auto racy = of_category(course_cpu::take_diagnostics(), "race");
  for (const char* marker : {"@member-store", "@member-nested-store", "@member-cast-store", "@member-read",
                             "@member-whole-read", "@member-cast-read", "@member-arrow-read"})
    EXPECT_TRUE(reported_at(racy, marker)) << marker << " is not reported";

  EXPECT_EQ(run_member_forms(1, out.ptr), cudaSuccess);
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
  const std::vector<float> got = out.get();
  for (int t = 0; t < 32; ++t) {
    const int n = (t + 1) % 32;
    EXPECT_EQ(got[t], 4.5f * static_cast<float>(n) + static_cast<float>(t) + 1.5f) << t;  // q->w is 0.5, not int 0
  }
}

// A member that no thread stored to is an uninitialized read, named with its member; the whole copy of a struct
// whose members were stored but not all (pos.x, pos.z) or whose padding no thread wrote is not.
TEST(CheckMembers, UninitializedMembersAreNamed) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> out(32);
  run_member_forms(2, out.ptr);
  cudaGetLastError();
  const auto all = course_cpu::take_diagnostics();
  ASSERT_FALSE(all.empty());
  const auto unset = of_category(all, "uninitialized-shared-read");
  ASSERT_EQ(unset.size(), all.size());
  for (const auto& d : unset) {
    EXPECT_EQ(d.line, line_of("kernels_members.cu", "@member-never-stored"));
    EXPECT_NE(d.message.find("kv[1].index"), std::string::npos) << d.message;
  }

  EXPECT_EQ(run_member_forms(3, out.ptr), cudaSuccess);
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
  const std::vector<float> got = out.get();
  for (int t = 0; t < 32; ++t) EXPECT_EQ(got[t], static_cast<float>(3 * ((t + 1) % 32))) << t;
}

// Valid member forms (a structured binding, a decaying member array, decltype(auto) of a member, static members and
// enumerators through elements, qualified members, braced stores, a member returned by reference, a non-const copy
// assignment, a pointer element's arrow) compile, compute the GPU's values and report nothing; without the barrier,
// the reads `w * buf[n]` and `kv2[n].key < w` are reported (both forms once left the array or the member unchecked).
TEST(CheckMembers, ValidMemberFormsAndOperandsAfterNames) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> out(32);
  EXPECT_EQ(run_member_forms_valid(0, out.ptr), cudaSuccess);
  const auto none = course_cpu::take_diagnostics();
  EXPECT_TRUE(none.empty()) << none.front().message;
  const std::vector<float> got = out.get();
  for (int t = 0; t < 32; ++t) {
    const int n = (t + 1) % 32;
    const float expected = 100.0f + n + 4 + 7 + 1.0f + (n < 2 ? 1000.0f : 0.0f) + 1 + 0 + 2 + 1 + 3 + n + 5 + 1;
    EXPECT_EQ(got[t], expected) << t;
  }

  run_member_forms_valid(1, out.ptr);
  cudaGetLastError();
  const auto found = course_cpu::take_diagnostics();  // thread 0 reads before thread 1 stores: uninitialized
  for (const char* marker : {"@valid-times-read", "@valid-less-read"})
    EXPECT_TRUE(reported_at(found, marker)) << marker << " is not reported";
}

// The members and member arrays of a __shared__ struct or union scalar are checked: the correct kernel computes the
// GPU's values with no report; without the barrier its member stores race with the other threads' reads and atomics;
// one past a member array and a member no thread stored to are reported, named `acc.partial[32]` and `acc.range.y`.
TEST(CheckMembers, MembersOfSharedStructScalars) {
  course_cpu::take_diagnostics();
  std::vector<float> x(32);
  for (int t = 0; t < 32; ++t) x[t] = 0.25f * static_cast<float>(t);
  DeviceBuffer<float> in(x), out(33);
  ASSERT_EQ(run_shared_objects(0, in.ptr, out.ptr), cudaSuccess);
  const auto none = course_cpu::take_diagnostics();
  EXPECT_TRUE(none.empty()) << none.front().message;
  const std::vector<float> got = out.get();
  for (int t = 0; t < 32; ++t) EXPECT_EQ(got[t], 3.0f * x[(t + 1) % 32] + 1.0f) << t;
  EXPECT_EQ(got[32], 32.0f);

  run_shared_objects(1, in.ptr, out.ptr);
  cudaGetLastError();
  const auto racy = of_category(course_cpu::take_diagnostics(), "race");
  for (const char* marker : {"@object-count", "@object-next"})
    EXPECT_TRUE(naming_line(racy, marker)) << marker << " is not reported";

  run_shared_objects(2, in.ptr, out.ptr);
  cudaGetLastError();
  auto found = of_category(course_cpu::take_diagnostics(), "out-of-bounds");
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0].line, line_of("kernels_members.cu", "@object-next"));
  EXPECT_NE(found[0].message.find("acc.partial[32]"), std::string::npos) << found[0].message;

  run_shared_objects(3, in.ptr, out.ptr);
  cudaGetLastError();
  found = of_category(course_cpu::take_diagnostics(), "uninitialized-shared-read");
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0].line, line_of("kernels_members.cu", "@object-range"));
  EXPECT_NE(found[0].message.find("acc.range.y"), std::string::npos) << found[0].message;
}

// Bit-field members (of an array of structs and of a struct scalar) compile in check mode and compute the GPU's values
// with no report (they were once refused as unsupported).
TEST(CheckMembers, BitFieldMembers) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> out(32);
  ASSERT_EQ(run_bit_field_members(out.ptr), cudaSuccess);
  const auto none = course_cpu::take_diagnostics();
  EXPECT_TRUE(none.empty()) << none.front().message;
  const std::vector<float> got = out.get();
  for (int t = 0; t < 32; ++t) {
    const int n = (t + 1) % 32;
    EXPECT_EQ(got[t], static_cast<float>(n % 2 + (n + 3) + 1000 + n + 5)) << t;
  }
}

// Member arrays of the elements of a __shared__ array of structs (`bk[b].keys[s]`) are checked as arrays of their own
// (they once kept the element's bounds check only): the correct kernel reports nothing; without the barrier the key
// stores race with the other threads' reads; keys[8] is reported as one past `bk[other].keys`, where a GPU reads the
// bucket's count.
TEST(CheckMembers, MemberArraysOfSharedElements) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> out(32);
  ASSERT_EQ(run_element_member_arrays(0, out.ptr), cudaSuccess);
  const auto none = course_cpu::take_diagnostics();
  EXPECT_TRUE(none.empty()) << none.front().message;
  const std::vector<float> got = out.get();
  for (int t = 0; t < 32; ++t) {
    const int b = t / 8, s = t % 8, other = (b + 1) % 4;
    EXPECT_EQ(got[t], static_cast<float>(10 * (8 * other + 7 - s) + 8)) << t;
  }

  run_element_member_arrays(1, out.ptr);
  cudaGetLastError();
  const auto racy = of_category(course_cpu::take_diagnostics(), "race");
  EXPECT_TRUE(naming_line(racy, "@bucket-read"));

  run_element_member_arrays(2, out.ptr);
  cudaGetLastError();
  const auto past = of_category(course_cpu::take_diagnostics(), "out-of-bounds");
  ASSERT_FALSE(past.empty());
  EXPECT_EQ(past[0].line, line_of("kernels_members.cu", "@bucket-read"));
  EXPECT_NE(past[0].message.find("bk[other].keys[8]"), std::string::npos) << past[0].message;
}

// A __shared__ cuda::std::array alone is checked element by element, like an array: without the barrier its reversed
// reads race with the other threads' stores (an array-like object once was not checked at all).
TEST(CheckMembers, SharedStdArrayElementsRace) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> out(64);
  run_shared_std_arrays(out.ptr, 1);
  cudaGetLastError();
  const auto racy = of_category(course_cpu::take_diagnostics(), "race");
  const int line = line_of("kernels_extras.cu", "@stdarray-read");
  EXPECT_TRUE(std::any_of(racy.begin(), racy.end(), [&](const auto& d) {
    return d.line == line && d.message.find("stage[") != std::string::npos;
  })) << (racy.empty() ? std::string("no race") : racy[0].message);
}

// Struct elements handed to helpers' reference parameters (`orderPair(KeyTag& a, KeyTag& b)`, `tagOf(const KeyTag&)`)
// are checked through the reference (they once were bounds-checked only: a sort's missing barrier went unseen, red-team
// b29): the sorted keys and tags as on a GPU with nothing reported, a local float4 accumulator taken by reference
// unchecked; without the barrier between phases the swap races, named `a.key` or `b.key`; a tag never stored is an
// uninitialized read named `e.tag`.
TEST(CheckMembers, StructElementsThroughReferenceParameters) {
  std::vector<int> keys(64);
  std::vector<int> tag_of_key(64);
  for (int i = 0; i < 64; ++i) tag_of_key[keys[i] = (i * 37 + 11) % 64] = i;
  DeviceBuffer<int> in(keys);
  DeviceBuffer<float> out(64);
  course_cpu::take_diagnostics();
  ASSERT_EQ(run_struct_reference_helpers(in.ptr, out.ptr, 0), cudaSuccess);
  const auto none = course_cpu::take_diagnostics();
  EXPECT_TRUE(none.empty()) << none.front().message;
  const std::vector<float> got = out.get();
  for (int t = 0; t < 32; ++t) {
    const int a = 2 * t, b = 2 * t + 1;
    EXPECT_EQ(got[t], static_cast<float>(a + b + 1000 * (tag_of_key[a] + tag_of_key[b]) + 200000)) << t;
    EXPECT_EQ(got[32 + t], static_cast<float>(t)) << t;
  }

  run_struct_reference_helpers(in.ptr, out.ptr, 1);
  const auto racy = of_category(course_cpu::take_diagnostics(), "race");
  const int compare = line_of("kernels_members.cu", "@pair-compare");
  EXPECT_TRUE(std::any_of(racy.begin(), racy.end(), [&](const auto& d) {
    return d.line == compare &&
           (d.message.find(" a.key") != std::string::npos || d.message.find(" b.key") != std::string::npos);
  })) << (racy.empty() ? std::string("no race") : racy[0].message);

  run_struct_reference_helpers(in.ptr, out.ptr, 2);
  const auto unset = of_category(course_cpu::take_diagnostics(), "uninitialized-shared-read");
  ASSERT_FALSE(unset.empty());
  EXPECT_EQ(unset[0].line, line_of("kernels_members.cu", "@tag-read"));
  EXPECT_NE(unset[0].message.find("e.tag"), std::string::npos) << unset[0].message;
}

// A __shared__ struct scalar stored whole (`best = BestPair{...};`) is written: its members read after the barrier are
// no uninitialized reads (they once were reported so: the whole store went unseen, red-team round 26), and without the
// barrier the reads race with the store.
TEST(CheckMembers, SharedStructScalarsStoredWhole) {
  DeviceBuffer<float> in(std::vector<float>{2.5f}), out(32);
  course_cpu::take_diagnostics();
  ASSERT_EQ(run_whole_shared_object(in.ptr, out.ptr, 0), cudaSuccess);
  const auto none = course_cpu::take_diagnostics();
  EXPECT_TRUE(none.empty()) << none.front().message;
  const std::vector<float> got = out.get();
  for (int t = 0; t < 32; ++t) EXPECT_EQ(got[t], 2.5f + static_cast<float>(7 + t)) << t;
  run_whole_shared_object(in.ptr, out.ptr, 1);
  const auto racy = of_category(course_cpu::take_diagnostics(), "race");
  EXPECT_TRUE(naming_line(racy, "@whole-object-store"));
}
