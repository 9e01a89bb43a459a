#include "course/stats.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace {

TEST(Stats, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(course::median(std::vector<double>{3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(course::median(std::vector<double>{4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(course::median(std::vector<double>{7}), 7);
}

TEST(Stats, MedianIgnoresOutliers) {
  EXPECT_DOUBLE_EQ(course::median(std::vector<double>{1.0, 1.1, 0.9, 50.0, 1.0}), 1.0);
}

TEST(Stats, MinMaxSpread) {
  const std::vector<double> s = {2, 4, 3};
  EXPECT_DOUBLE_EQ(course::minimum(s), 2);
  EXPECT_DOUBLE_EQ(course::maximum(s), 4);
  EXPECT_DOUBLE_EQ(course::relative_spread(s), 2.0 / 3.0);
}

TEST(Stats, EmptyIsAnError) { EXPECT_THROW(course::median(std::vector<double>{}), std::invalid_argument); }

}  // namespace
