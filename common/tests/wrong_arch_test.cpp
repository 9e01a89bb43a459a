// The kernel is built for a GPU architecture other than the one in the machine (sm_80 machine code only, no PTX):
// the launch must fail with a message that says how to set the architecture. Registered only with a GPU.
#include "course/lab_runner.h"
#include "course/testing.h"

#include <gtest/gtest.h>

void launch_noop();  // wrong_arch_kernel.cu

namespace {

TEST(WrongArchitecture, LaunchErrorSaysHowToRebuild) {
  COURSE_REQUIRE_DEVICE();
  if (course::device_info().major == 8 && course::device_info().minor == 0) GTEST_SKIP() << "this GPU is sm_80";
  try {
    course::run_launcher("noop()", [] { launch_noop(); });
    FAIL() << "a kernel built only for sm_80 ran on " << course::device_info().arch();
  } catch (const course::LabError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("CMAKE_CUDA_ARCHITECTURES"), std::string::npos) << message;
    EXPECT_NE(message.find("cmake --preset dev"), std::string::npos) << message;
  }
}

}  // namespace
