#include "course/validate.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace {

std::string error_of(auto&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(Validate, RejectsZeroAndNegativeSizesByName) {
  EXPECT_EQ(error_of([] { course::require_positive("rows", 0); }), "rows must be at least 1, got 0");
  EXPECT_EQ(error_of([] { course::require_positive("K", -3); }), "K must be at least 1, got -3");
  EXPECT_NO_THROW(course::require_positive("n", 1));
}

TEST(Validate, ProductMustFitA32BitIndex) {
  EXPECT_EQ(course::require_int_indexable("matrix", {4099, 4093}), 4099u * 4093u);
  EXPECT_EQ(course::require_int_indexable("vector", {2147483647}), 2147483647u);
  const std::string e = error_of([] { course::require_int_indexable("matrix", {65536, 32768}); });
  EXPECT_NE(e.find("matrix 65536x32768 has more than 2^31-1 elements"), std::string::npos) << e;
  EXPECT_NE(error_of([] { course::require_int_indexable("m", {3, 0}); }).find("m 3x0: every size"), std::string::npos);
}

}  // namespace
