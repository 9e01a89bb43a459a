#include "course/compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace {

course::Reference exact(std::vector<double> v) { return {std::move(v), {}}; }

float poison_value() {
  float f;
  const unsigned bits = 0xFFFFFFFFu;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

TEST(Compare, AcceptsValuesWithinTolerance) {
  const std::vector<float> got = {1.0f, 2.0f + 1e-7f, -3.0f};
  const auto r = course::compare(got, exact({1.0, 2.0, -3.0}), 1e-6);
  EXPECT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.bad_count, 0u);
  EXPECT_TRUE(r.message.empty());
}

TEST(Compare, ToleranceIsRelativeToTheScale) {
  const std::vector<float> got = {1000.001f};
  EXPECT_TRUE(course::compare(got, exact({1000.0}), 1e-5).ok);
  EXPECT_FALSE(course::compare(got, exact({1000.0}), 1e-7).ok);
  // With an explicit scale (e.g. the sum of |terms| of a cancelling sum), a small absolute error on a tiny result
  // is fine.
  const std::vector<float> tiny = {1e-6f};
  EXPECT_TRUE(course::compare(tiny, {{0.0}, {1.0}}, 1e-5).ok);
  EXPECT_FALSE(course::compare(tiny, exact({0.0}), 1e-5).ok);
}

TEST(Compare, NanAndInfNeverPass) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(course::compare(std::vector<float>{nan}, exact({1.0}), 1e9).ok);
  EXPECT_FALSE(course::compare(std::vector<float>{inf}, exact({1.0}), 1e9).ok);
  EXPECT_FALSE(course::compare(std::vector<float>{-inf}, {{1.0}, {1e30}}, 1e9).ok);
}

TEST(Compare, ReportsCountFirstBadIndexGotExpectedAndMaxError) {
  const std::vector<float> got = {1.0f, 5.0f, 3.0f, 12.0f};
  const auto r = course::compare(got, exact({1.0, 2.0, 3.0, 4.0}), 1e-6, {"C", 2, 2});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.bad_count, 2u);
  ASSERT_TRUE(r.first_bad.has_value());
  EXPECT_EQ(*r.first_bad, 1u);
  EXPECT_EQ(r.first_got, 5.0f);
  EXPECT_EQ(r.first_expected, 2.0);
  EXPECT_DOUBLE_EQ(r.max_error, 2.0);  // |12 - 4| / 4
  EXPECT_EQ(r.max_error_index, 3u);
  EXPECT_NE(r.message.find("2 of 4 elements of C are wrong"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("C[0][1]: got 5, expected 2"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("error among finite outputs: 2 at C[1][1]"), std::string::npos) << r.message;
}

TEST(Compare, NamesThePoisonValueAsUnwritten) {
  const auto r = course::compare(std::vector<float>{poison_value()}, exact({1.0}), 1e-6, {"out"});
  EXPECT_NE(r.message.find("no thread wrote this element"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("out[0]"), std::string::npos) << r.message;
}

TEST(Compare, ExactZeroMatchesZero) { EXPECT_TRUE(course::compare(std::vector<float>{0.0f}, exact({0.0}), 0.0).ok); }

TEST(Compare, RejectsMismatchedSizes) {
  EXPECT_THROW(course::compare(std::vector<float>{1.0f}, exact({1.0, 2.0}), 1e-6), std::invalid_argument);
  EXPECT_THROW(course::compare(std::vector<float>{1.0f}, {{1.0}, {1.0, 2.0}}, 1e-6), std::invalid_argument);
}

TEST(Compare, SameBits) {
  const std::vector<float> a = {1.0f, -0.0f}, b = {1.0f, 0.0f};
  EXPECT_TRUE(course::same_bits(a, a));
  EXPECT_FALSE(course::same_bits(a, b));  // -0 and +0 compare equal but are a modification
  EXPECT_FALSE(course::same_bits(a, std::vector<float>{1.0f}));
}

}  // namespace
