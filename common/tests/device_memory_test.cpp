// DeviceBuffer on the CPU backend (no GPU needed): allocation errors are clear, transfers round-trip, moves own once.
#include "course/device_buffer.h"

#include <gtest/gtest.h>

#include <cmath>

namespace {

TEST(DeviceBuffer, UploadDownloadRoundTrip) {
  const std::vector<float> host = {1.0f, 2.0f, 3.0f};
  course::DeviceBuffer<float> buffer(host, "x");
  EXPECT_EQ(buffer.size(), 3u);
  EXPECT_EQ(buffer.bytes(), 12u);
  EXPECT_EQ(buffer.download(), host);
}

TEST(DeviceBuffer, PoisonMakesFloatsNan) {
  course::DeviceBuffer<float> buffer(4, "x");
  buffer.poison();
  for (float v : buffer.download()) EXPECT_TRUE(std::isnan(v));
}

TEST(DeviceBuffer, MoveTransfersOwnership) {
  course::DeviceBuffer<float> a(std::vector<float>{5.0f}, "a");
  const float* p = a.data();
  course::DeviceBuffer<float> b(std::move(a));
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): checking the moved-from state
  course::DeviceBuffer<float> c;
  c = std::move(b);
  EXPECT_EQ(c.download(), std::vector<float>{5.0f});
}

TEST(DeviceBuffer, ZeroElementsIsAClearError) {
  try {
    course::DeviceBuffer<float> buffer(0, "C");
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "cannot allocate 'C': it has 0 elements");
  }
}

TEST(DeviceBuffer, TooLargeForTheDeviceIsAClearError) {
  try {
    course::DeviceBuffer<float> buffer(std::size_t{1} << 50, "A");  // 4 PiB
    FAIL() << "expected an error";
  } catch (const course::CudaError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("cannot allocate 'A' (4194304.00 GiB) on the device"), std::string::npos) << message;
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "a failed allocation must not leave an error behind";
}

TEST(DeviceBuffer, SizeOverflowIsAClearError) {
  EXPECT_THROW(course::DeviceBuffer<double>(~std::size_t{0} / 4, "huge"), std::invalid_argument);
}

TEST(DeviceBuffer, HostSizeMismatchIsAClearError) {
  course::DeviceBuffer<float> buffer(2, "x");
  EXPECT_THROW(buffer.upload(std::vector<float>{1.0f}), std::invalid_argument);
}

}  // namespace
