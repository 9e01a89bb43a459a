#include "course/random.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace {

TEST(Random, SameSeedSameValuesDifferentSeedDifferentValues) {
  EXPECT_EQ(course::random_floats(1000, 7), course::random_floats(1000, 7));
  EXPECT_NE(course::random_floats(1000, 7), course::random_floats(1000, 8));
}

TEST(Random, ValuesAreInRangeAndSpread) {
  const auto v = course::random_floats(100000, 3, -1.0f, 1.0f);
  double sum = 0;
  for (float x : v) {
    ASSERT_GE(x, -1.0f);
    ASSERT_LT(x, 1.0f);
    sum += x;
  }
  EXPECT_NEAR(sum / v.size(), 0.0, 0.02);
}

TEST(Random, KnownFirstValueSoInputsAreTheSameOnEveryMachine) {
  course::Rng rng(0);
  EXPECT_EQ(rng.next_u64(), 0xE220A8397B1DCDAFull);  // splitmix64's published first output for seed 0
}

TEST(Random, CourseSeedChangesInputs) {
  ::unsetenv("COURSE_SEED");
  const auto plain = course::test_seed(5);
  EXPECT_EQ(plain, 5u);
  ::setenv("COURSE_SEED", "secret-1", 1);
  const auto a = course::test_seed(5), b = course::test_seed(6);
  ::setenv("COURSE_SEED", "secret-2", 1);
  const auto c = course::test_seed(5);
  ::unsetenv("COURSE_SEED");
  EXPECT_NE(a, plain);
  EXPECT_NE(a, b);
  EXPECT_NE(a, c);
}

}  // namespace
