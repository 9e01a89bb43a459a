#include "skeleton_diff.h"

#include <gtest/gtest.h>

namespace {

const char* kSolution =
    "int f(int x) {\n"
    "  // TODO(lab01): double x (1 line)\n"
    "  x = 2 * x;\n"
    "  // END TODO\n"
    "  return x;\n"
    "}\n";

TEST(SkeletonDiff, AcceptsDifferentRegionBodies) {
  const char* skeleton =
      "int f(int x) {\n"
      "  // TODO(lab01): double x (1 line)\n"
      "  // END TODO\n"
      "  return x;\n"
      "}\n";
  EXPECT_EQ(course::skeleton_diff(skeleton, "sk", kSolution, "so"), "");
}

TEST(SkeletonDiff, ReportsADifferenceOutsideRegionsWithBothLines) {
  const char* skeleton =
      "int f(int x) {\n"
      "  // TODO(lab01): double x (1 line)\n"
      "  // END TODO\n"
      "  return x + 1;\n"
      "}\n";
  const std::string diff = course::skeleton_diff(skeleton, "sk", kSolution, "so");
  EXPECT_NE(diff.find("sk:4:   return x + 1;"), std::string::npos) << diff;
  EXPECT_NE(diff.find("so:5:   return x;"), std::string::npos) << diff;
}

TEST(SkeletonDiff, ReportsDifferentTodoHeaders) {
  const char* skeleton =
      "int f(int x) {\n"
      "  // TODO(lab01): triple x (1 line)\n"
      "  // END TODO\n"
      "  return x;\n"
      "}\n";
  EXPECT_NE(course::skeleton_diff(skeleton, "sk", kSolution, "so").find("TODO region 1 differs"), std::string::npos);
}

TEST(SkeletonDiff, ReportsMissingRegion) {
  EXPECT_NE(course::skeleton_diff("int f(int x) { return x; }\n", "sk", kSolution, "so").find("no TODO region"),
            std::string::npos);
}

TEST(SkeletonDiff, ReportsUnterminatedAndNestedRegions) {
  EXPECT_NE(course::split_todo_regions("// TODO(lab02): a\nx\n").error.find("has no '// END TODO'"), std::string::npos);
  EXPECT_NE(course::split_todo_regions("// TODO(lab02): a\n// TODO(lab02): b\n// END TODO\n").error.find("inside"),
            std::string::npos);
  EXPECT_NE(course::split_todo_regions("x\n// END TODO\n").error.find("without a TODO"), std::string::npos);
}

TEST(SkeletonDiff, ReportsExtraRegion) {
  const std::string skeleton = std::string(kSolution) + "// TODO(lab01): more\n// END TODO\n";
  EXPECT_NE(course::skeleton_diff(skeleton, "sk", kSolution, "so").find("has 2 TODO regions"), std::string::npos);
}

TEST(SkeletonDiff, TrailingTextAfterLastRegionIsCompared) {
  const std::string solution = std::string(kSolution) + "int g();\n";
  EXPECT_NE(course::skeleton_diff(kSolution, "sk", solution, "so").find("differ outside"), std::string::npos);
}

}  // namespace
