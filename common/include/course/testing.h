// GoogleTest glue shared by every lab's tests: skips without a device, comparisons as assertions, and the perf tests
// (COURSE_PERF_TEST; the measurement itself is course/measure.h, whose top comment shows a whole perf body).
#pragma once

#include "course/compare.h"
#include "course/device.h"
#include "course/measure.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <utility>

// Skips the current test with the reason when no usable device is present (GPU builds without a GPU).
#define COURSE_REQUIRE_DEVICE()                                    \
  do {                                                             \
    const auto& course_info_ = ::course::device_info();            \
    if (!course_info_.usable) GTEST_SKIP() << course_info_.reason; \
  } while (0)

// Skips the current test unless a GPU can time it.
#define COURSE_REQUIRE_TIMING()                                               \
  do {                                                                        \
    const std::string course_reason_ = ::course::timing_unavailable_reason(); \
    if (!course_reason_.empty()) GTEST_SKIP() << course_reason_;              \
  } while (0)

// COURSE_PERF_TEST(Suite, Case, body, "baseline name"): the GoogleTest Suite.Case (Suite ends in "Perf") runs
// `body` (a void(course::PerfState&)) at the size of the lab manifest's [[perf]] entry with test = "Suite.Case", and
// grades the lab against the baseline the body declared under that name (course::expect_perf_passes). The macro
// registers the case in course::perf_cases() (a benchmark sweep reads the same list); the judge's main() turns each
// case into its GoogleTest with course::register_perf_tests(), after every other test, so that one process can run a
// lab's correctness tests and then its perf tests. The manifest is the one the build names in COURSE_LAB_MANIFEST
// (course_add_lab() sets it for every lab's test objects).
#if defined(COURSE_LAB_MANIFEST)
#define COURSE_PERF_TEST(suite, name, body, graded_baseline)                                    \
  [[maybe_unused]] const bool course_perf_case_##suite##_##name = ::course::register_perf_case( \
      {#suite "." #name, graded_baseline, body, COURSE_LAB_MANIFEST, #body, __FILE__, __LINE__});
#else
#define COURSE_PERF_TEST(suite, name, body, graded_baseline)                                                  \
  static_assert(false,                                                                                        \
                "COURSE_PERF_TEST needs COURSE_LAB_MANIFEST, the path of the lab's lab.toml: build the test " \
                "with course_add_lab() (grader/cmake/CourseLab.cmake)");
#endif

namespace course {

// For EXPECT_TRUE / ASSERT_TRUE: passes when the comparison passed, else carries its message.
inline ::testing::AssertionResult matches(const CompareResult& result) {
  if (result.ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << result.message;
}

// The body of a COURSE_PERF_TEST: measures the registered case `test` (grade_perf_case), prints what it measured,
// records the verdict in the test's XML/JSON output — the instructor grader reads these properties and never the
// message text:
//   metric             the manifest's sentence for the ratio
//   ratio, threshold   numbers ("%.6f"); threshold_section: "gpu.nvidia_h200", "sm_90" or "default"
//   device             the GPU's name
//   result_check       "pass" / "fail": every result check after the timed runs
//   verdict            "pass" / "fail": ratio >= threshold
//   ceiling, ceiling_fraction, review_above
//                      the library a user would call instead, the lab's rate over its rate, and the fraction above
//                      which the result is implausible
//   review             "yes" / "no": ceiling_fraction > review_above (held for an instructor's review, never credited)
// and fails the test (reported at `file`:`line`, the COURSE_PERF_TEST) when the ratio is below the threshold, a
// result check failed, or the result is held for review.
inline void expect_perf_passes(const std::string& test, const char* file, int line) {
  const PerfGrade g = grade_perf_case(perf_case(test));
  ::testing::Test::RecordProperty("metric", g.metric);
  ::testing::Test::RecordProperty("ratio", std::to_string(g.ratio));
  ::testing::Test::RecordProperty("threshold", std::to_string(g.threshold.value));
  ::testing::Test::RecordProperty("threshold_section", g.threshold.section);
  ::testing::Test::RecordProperty("device", g.device);
  ::testing::Test::RecordProperty("result_check", g.checks_passed ? "pass" : "fail");
  ::testing::Test::RecordProperty("verdict", g.ratio_passed ? "pass" : "fail");
  ::testing::Test::RecordProperty("ceiling", g.ceiling);
  ::testing::Test::RecordProperty("ceiling_fraction", std::to_string(g.ceiling_fraction));
  ::testing::Test::RecordProperty("review_above", std::to_string(g.review_above));
  ::testing::Test::RecordProperty("review", g.review ? "yes" : "no");

  std::printf("%s on %s\n%s", g.test.c_str(), g.device.c_str(), g.summary.c_str());
  if (!g.threshold.notice.empty()) std::printf("NOTICE: %s\n", g.threshold.notice.c_str());
  std::printf("%s: %.3f (pass at >= %.3f, [thresholds.%s] on %s): %s\n", g.metric.c_str(), g.ratio, g.threshold.value,
              g.threshold.section.c_str(), g.device.c_str(), g.ratio_passed ? "pass" : "FAIL");
  if (g.ceiling_fraction > 0)
    std::printf("against %s, the library a user would call instead: %.3f of its rate\n", g.ceiling.c_str(),
                g.ceiling_fraction);
  std::fflush(stdout);

  if (!g.checks_passed) ADD_FAILURE_AT(file, line) << g.check_failures;
  if (g.review) {
    char numbers[160];
    std::snprintf(numbers, sizeof numbers, "%.3f of %s's rate, above %.2f", g.ceiling_fraction, g.ceiling.c_str(),
                  g.review_above);
    ADD_FAILURE_AT(file, line) << "The lab measured " << numbers
                               << ": faster than the hardware allows for this work, so the timing cannot be "
                               << "trusted. The result is held for an instructor's review and earns no perf credit.";
  }
  if (!g.ratio_passed) {
    char numbers[96];
    std::snprintf(numbers, sizeof numbers, " is %.3f, below the pass mark %.3f", g.ratio, g.threshold.value);
    // "below the pass mark": older graders recognise the threshold failure by these words.
    ADD_FAILURE_AT(file, line) << g.metric << numbers << " ([thresholds." << g.threshold.section << "] " << g.key
                               << " in the lab's lab.toml). The handout's 'How it is graded' and 'Hints' say what "
                               << "usually helps.";
  }
}

namespace detail {

// Set once a test that is not a perf test has failed in this process.
inline bool& correctness_failed() {
  static bool failed = false;
  return failed;
}

class CorrectnessWatch : public ::testing::EmptyTestEventListener {
  void OnTestEnd(const ::testing::TestInfo& test) override {
    const std::string suite = test.test_suite_name();  // the rule of gtest.py's TestCase.is_perf
    const bool perf = suite.size() >= 4 && suite.compare(suite.size() - 4, 4, "Perf") == 0;
    if (!perf && test.result()->Failed()) correctness_failed() = true;
  }
};

class PerfTest : public ::testing::Test {
 public:
  explicit PerfTest(PerfCase perf_case) : case_(std::move(perf_case)) {}
  void TestBody() override {
    if (correctness_failed()) {
      ::testing::Test::RecordProperty("not_measured", "a correctness test failed earlier in this run");
      GTEST_SKIP() << "not measured: a correctness test failed earlier in this run, and only a correct lab's speed "
                      "is graded";
    }
    COURSE_REQUIRE_TIMING();
    expect_perf_passes(case_.test, case_.file.c_str(), case_.line);
  }

 private:
  const PerfCase case_;
};

}  // namespace detail

// Registers the GoogleTest of every COURSE_PERF_TEST case. Called by the judge's main() after InitGoogleTest, so the
// perf tests come after every other test (parameterized suites included) in one run of the program, and a perf test
// is skipped once a correctness test of the same run has failed: the grader runs a lab's GPU tests in one process.
inline void register_perf_tests() {
  ::testing::UnitTest::GetInstance()->listeners().Append(new detail::CorrectnessWatch);
  for (const PerfCase& c : perf_cases()) {
    if (c.file.empty()) continue;
    const std::size_t dot = c.test.find('.');
    const std::string suite = c.test.substr(0, dot), name = c.test.substr(dot + 1);
    ::testing::RegisterTest(suite.c_str(), name.c_str(), nullptr, nullptr, c.file.c_str(), c.line,
                            [c]() -> ::testing::Test* { return new detail::PerfTest(c); });
  }
}

// Check mode on the CPU backend: this test binary's lab code was instrumented (compile definition set by the build).
#if defined(COURSE_CHECK_MODE)
inline constexpr bool kCheckMode = true;
#else
inline constexpr bool kCheckMode = false;
#endif

}  // namespace course
