// Helpers of course-rewrite's unit tests (test_rewriter*.cpp).
#pragma once

#include "../rewrite/rewriter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace rewriter_test {

// The rewritten body (after the #line directive).
inline std::string body(const std::string& src, course_rewrite::Mode mode = course_rewrite::Mode::fast) {
  const std::string out = course_rewrite::rewrite(src, "/abs/lab.cu", mode);
  const std::string marker = "#line 1 \"/abs/lab.cu\"\n";
  const auto at = out.find(marker);
  EXPECT_NE(at, std::string::npos);
  return out.substr(at + marker.size());
}

inline int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace rewriter_test
