// The judge/worker split (course/remote.h) on the CPU backend: what the worker can reach, and a worker that dies.
#include <course/device_buffer.h>
#include <course/lab_runner.h>
#include <course/remote.h>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace {

void use_probe_worker() {
  static bool done = false;
  if (done) return;
  done = true;
  std::string program = "judge", worker = "--course-worker=" COURSE_PROBE_WORKER;
  char* argv[] = {program.data(), worker.data(), nullptr};
  int argc = 2;
  course::remote::configure_from_args(&argc, argv);
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

TEST(Remote, AWorkerThatDiesFailsTheCallWithWhatHappened) {
  use_probe_worker();
  course::DeviceBuffer<float> out(1, "out");
  try {
    course::run_launcher("die(out)", [&] { course::remote::call("die", out.data(), cudaStream_t{}); });
    FAIL() << "the call succeeded";
  } catch (const course::LabError& e) {
    EXPECT_NE(std::string(e.what()).find("ended during the call"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("signal 6"), std::string::npos) << e.what();
  }
  // The next call starts a new worker.
  course::run_launcher("probe", [&] { course::remote::call("probe", out.data(), cudaStream_t{}); });
}

}  // namespace
