// main() of every judge program (course/remote.h): the worker's options out of argv, then GoogleTest.
#include "course/remote.h"
#include "course/testing.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  course::remote::configure_from_args(&argc, argv);
  // A call that ran past the deadline: the grader reads this property and says `timeout` (not a wrong result).
  course::remote::on_call_timeout(
      [](double seconds) { ::testing::Test::RecordProperty("call_timeout_seconds", std::to_string(seconds)); });
  // The worker died during a call: the grader reads this property and says `crash`.
  course::remote::on_worker_death([](const std::string& how) { ::testing::Test::RecordProperty("worker_died", how); });
  // Each test's longest wait for an answer, in seconds (the grader's deadline for a call is calibrated from these).
  course::remote::on_answer([](double seconds) {
    static const ::testing::TestInfo* test = nullptr;
    static double longest = 0.0;
    const ::testing::TestInfo* now = ::testing::UnitTest::GetInstance()->current_test_info();
    if (now == nullptr) return;  // outside a test (a suite's set-up): not a test's property
    if (now != test) {
      test = now;
      longest = 0.0;
    }
    if (seconds <= longest) return;
    longest = seconds;
    char text[32];
    std::snprintf(text, sizeof text, "%.4f", seconds);
    ::testing::Test::RecordProperty("longest_answer_seconds", text);  // the same key again replaces the value
  });
  ::testing::InitGoogleTest(&argc, argv);
  course::register_perf_tests();  // after every other test: correctness first when one run does both
  const int result = RUN_ALL_TESTS();
  course::remote::shutdown();  // compute-sanitizer's summary comes as the worker exits
  return result;
}
