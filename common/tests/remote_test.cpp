// The judge/worker split (course/remote.h) on the CPU backend: what the worker can reach, and a worker that dies.
#include <course/device_buffer.h>
#include <course/lab_runner.h>
#include <course/measure.h>
#include <course/remote.h>
#include <course/timed_buffers.h>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>

namespace {

std::string& died_how() {
  static std::string how;
  return how;
}

void use_probe_worker() {
  static bool done = false;
  if (done) return;
  done = true;
  // Through a wrapper that exits as the grader's sandbox does (remote_test_wrap.cpp).
  std::string program = "judge", worker = "--course-worker=" COURSE_PROBE_WORKER, deadline = "--course-call-seconds=2",
              wrap = "--course-worker-wrap=" COURSE_TEST_WRAP;
  char* argv[] = {program.data(), worker.data(), deadline.data(), wrap.data(), nullptr};
  int argc = 4;
  course::remote::configure_from_args(&argc, argv);
  course::remote::on_worker_death([](const std::string& how) { died_how() = how; });
}

TEST(Remote, TheWorkerSeesNeitherTheSeedNorTheJudgesDescriptors) {
  setenv("COURSE_SEED", "secret", 1);
  // Stands for the report pipe: inheritable, like GoogleTest's /dev/fd/N, above the worker's socket (fd 3).
  const int null = open("/dev/null", O_WRONLY);
  const int report = fcntl(null, F_DUPFD, 10);
  close(null);
  ASSERT_GE(report, 10);
  use_probe_worker();
  course::DeviceBuffer<float> out(3, "out");
  course::run_launcher("probe", [&] { course::remote::call("probe", out.data(), cudaStream_t{}); });
  const std::vector<float> seen = out.download();
  EXPECT_EQ(seen[0], 0.0f) << "the seed reached the worker's environment";
  EXPECT_EQ(seen[1], 0.0f) << "the worker inherited descriptors of the judge besides its socket";
  EXPECT_EQ(seen[2], 1.0f) << "the worker has no socket on fd 3";
  close(report);
}

TEST(Remote, TheWorkersOwnAllocationsNeverTakeTheAddressOfAJudgesBuffer) {
  use_probe_worker();
  course::DeviceBuffer<float> out(2, "out");
  course::run_launcher("arena(out)", [&] { course::remote::call("arena", out.data(), cudaStream_t{}); });
  const std::vector<float> seen = out.download();
  EXPECT_EQ(seen[0], 1.0f) << "the worker's own allocation is not in its address range";
  EXPECT_EQ(seen[1], 1.0f) << "the judge's buffer is not in the judge's address range";
}

TEST(Remote, AWorkerThatDiesFailsTheCallWithWhatHappened) {
  use_probe_worker();
  course::DeviceBuffer<float> out(3, "out");  // what probe writes
  try {
    course::run_launcher("die(out)", [&] { course::remote::call("die", out.data(), cudaStream_t{}); });
    FAIL() << "the call succeeded";
  } catch (const course::LabError& e) {
    EXPECT_NE(std::string(e.what()).find("ended during the call"), std::string::npos) << e.what();
    // its own signal (6, the abort), not the wrapper's exit status 134 nor the kill that stops a worker
    EXPECT_NE(std::string(e.what()).find("killed by signal 6"), std::string::npos) << e.what();
  }
  EXPECT_NE(died_how().find("killed by signal 6"), std::string::npos) << "the judge's report was not told";
  // The next call starts a new worker.
  course::run_launcher("probe", [&] { course::remote::call("probe", out.data(), cudaStream_t{}); });
}

// A perf measurement of the worker's launcher `name` on timed buffers (course/timed_buffers.h), as a lab's perf test
// declares it; returns the state after measure().
course::PerfResults measure_on_timed_buffers(const char* name) {
  use_probe_worker();
  constexpr int kN = 1 << 14;
  course::TimingOptions options;
  options.warmup = 3;  // the first call also maps the buffers into the worker
  options.runs = 3;
  options.min_batch = 4;  // deferred calls to check even when a busy machine slows the warm-up
  course::PerfState state({{"n", kN}}, options);
  course::TimedInput in(state, kN, 7, "in");
  course::TimedOutput out(state, kN, "out");
  state.baseline("copy", course::Work::bytes(2.0 * kN * sizeof(float)), [&] {
    CUDA_CHECK(cudaMemcpyAsync(out.data(), in.data(), kN * sizeof(float), cudaMemcpyDeviceToDevice, 0));
  });
  state.lab(name, course::Work::bytes(2.0 * kN * sizeof(float)),
            [&] { course::remote::call(name, static_cast<const float*>(in.data()), out.data(), kN, cudaStream_t{}); });
  state.verify("out", [&](course::Pick& pick) {
    const std::size_t first = pick.window(kN, 256);
    const std::vector<float> got = out.gather(first, 256);
    course::Reference ref;
    for (std::size_t i = 0; i < 256; ++i) ref.value.push_back(static_cast<double>(in.host()[first + i]) + 1.0);
    return course::compare(got, ref, 1e-6, {"out", 0, 0, first});
  });
  state.check("out", [] { return course::CompareResult{}; });
  state.measure();
  return state.results();
}

TEST(Remote, TimedCallsGetInputsOfTheirOwnAndAreEachChecked) {
  const course::PerfResults r = measure_on_timed_buffers("add_one");
  EXPECT_GT(r.lab.timing.batch, 1) << "a batch of one call tests nothing of the deferred calls";
  ASSERT_FALSE(r.checks.empty());
  EXPECT_TRUE(r.checks_passed()) << r.checks.front().message;
}

TEST(Remote, AReplayedResultFailsTheChecksOfTheTimedCalls) {
  const course::PerfResults r = measure_on_timed_buffers("replay");
  ASSERT_FALSE(r.checks.empty());
  EXPECT_FALSE(r.checks.front().ok);
  EXPECT_NE(r.checks.front().message.find("back-to-back calls"), std::string::npos) << r.checks.front().message;
}

TEST(Remote, SkippedCallsFailTheChecksOfTheTimedCalls) {
  const course::PerfResults r = measure_on_timed_buffers("first_only");
  ASSERT_FALSE(r.checks.empty());
  EXPECT_FALSE(r.checks.front().ok);
  EXPECT_NE(r.checks.front().message.find("poison"), std::string::npos) << r.checks.front().message;
}

double& last_answer() {
  static double seconds = -1.0;
  return seconds;
}

TEST(Remote, EveryAnswerIsReportedWithHowLongItTook) {
  use_probe_worker();
  course::remote::on_answer([](double seconds) { last_answer() = seconds; });
  course::DeviceBuffer<float> out(3, "out");
  course::run_launcher("probe", [&] { course::remote::call("probe", out.data(), cudaStream_t{}); });
  course::remote::on_answer(nullptr);
  EXPECT_GT(last_answer(), 0.0) << "no answer was reported";
  EXPECT_LT(last_answer(), 2.0) << "the wait reported is not the call's (the deadline is 2 s)";
}

// Last in this file: after it, no call of this program reaches a worker.
TEST(Remote, ALauncherThatNeverReturnsIsStoppedAtTheCallDeadline) {
  use_probe_worker();  // --course-call-seconds=2
  course::DeviceBuffer<float> out(1, "out");
  const auto start = std::chrono::steady_clock::now();
  try {
    course::run_launcher("hang(out)", [&] { course::remote::call("hang", out.data(), cudaStream_t{}); });
    FAIL() << "the call returned";
  } catch (const course::LabError& e) {
    EXPECT_NE(std::string(e.what()).find("did not return within 2 s"), std::string::npos) << e.what();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(seconds, 2.0);
  EXPECT_LT(seconds, 10.0);
  // Every later call of this program fails at once: a hang costs one deadline, not one per remaining test.
  const auto again = std::chrono::steady_clock::now();
  try {
    course::run_launcher("probe(out)", [&] { course::remote::call("probe", out.data(), cudaStream_t{}); });
    FAIL() << "a call after the timeout was made";
  } catch (const course::LabError& e) {
    EXPECT_NE(std::string(e.what()).find("not run: an earlier call"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - again).count(), 1.0);
}

}  // namespace
