// main() of every judge program (course/remote.h): the worker's options out of argv, then GoogleTest.
#include "course/remote.h"

#include <gtest/gtest.h>

#include <string>

int main(int argc, char** argv) {
  course::remote::configure_from_args(&argc, argv);
  // A call that ran past the deadline: the grader reads this property and says `timeout` (not a wrong result).
  course::remote::on_call_timeout(
      [](double seconds) { ::testing::Test::RecordProperty("call_timeout_seconds", std::to_string(seconds)); });
  // The worker died during a call: the grader reads this property and says `crash`.
  course::remote::on_worker_death([](const std::string& how) { ::testing::Test::RecordProperty("worker_died", how); });
  ::testing::InitGoogleTest(&argc, argv);
  const int result = RUN_ALL_TESTS();
  course::remote::shutdown();  // compute-sanitizer's summary comes as the worker exits
  return result;
}
