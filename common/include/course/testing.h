// GoogleTest glue shared by every lab's tests.
#pragma once

#include "course/compare.h"
#include "course/config.h"
#include "course/device.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

// Skips the current test with the reason when no usable device is present (GPU builds without a GPU).
#define COURSE_REQUIRE_DEVICE()                                               \
  do {                                                                        \
    const auto& course_info_ = ::course::device_info();                       \
    if (!course_info_.usable) GTEST_SKIP() << course_info_.reason;            \
  } while (0)

// Skips the current test unless a GPU can time it.
#define COURSE_REQUIRE_TIMING()                                               \
  do {                                                                        \
    const std::string course_reason_ = ::course::timing_unavailable_reason(); \
    if (!course_reason_.empty()) GTEST_SKIP() << course_reason_;              \
  } while (0)

namespace course {

// For EXPECT_TRUE / ASSERT_TRUE: passes when the comparison passed, else carries its message.
inline ::testing::AssertionResult matches(const CompareResult& result) {
  if (result.ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << result.message;
}

// The threshold `key` of a lab's config for the device the test runs on (see lookup_threshold).
inline Threshold threshold_for(const Config& config, const std::string& key) {
  return lookup_threshold(config, key, device_info().arch(), device_info().name);
}

// A perf test's verdict: prints the measured ratio against the threshold, records both in the test's XML/JSON output
// (where the instructor grader reads them), and fails when the ratio is below the threshold.
inline void expect_ratio_at_least(const std::string& metric, double ratio, const Threshold& threshold) {
  ::testing::Test::RecordProperty("metric", metric);
  ::testing::Test::RecordProperty("ratio", std::to_string(ratio));
  ::testing::Test::RecordProperty("threshold", std::to_string(threshold.value));
  ::testing::Test::RecordProperty("device", device_info().name);
  if (!threshold.notice.empty()) std::printf("NOTICE: %s\n", threshold.notice.c_str());
  std::printf("%s: %.3f (pass at >= %.3f, [%s] on %s)\n", metric.c_str(), ratio, threshold.value,
              threshold.section.c_str(), device_info().name.c_str());
  EXPECT_GE(ratio, threshold.value) << metric << " is " << ratio << ", below the pass mark " << threshold.value
                                    << ". The handout's 'How it is graded' and 'Hints' say what usually helps.";
}

// Check mode on the CPU backend: this test binary's lab code was instrumented (compile definition set by the build).
#if defined(COURSE_CHECK_MODE)
inline constexpr bool kCheckMode = true;
#else
inline constexpr bool kCheckMode = false;
#endif

}  // namespace course
