// Self-tests of fast mode: an out-of-bounds write past a cudaMalloc'ed buffer
// hits the guard page and the process explains which kernel and thread.
#include "kernels.h"
#include "kernels_async.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace {
void write_past_the_end() {
  const int n = 1000;  // 4000 bytes: the buffer ends right at its guard page
  DeviceBuffer<float> a(n + 24), b(n + 24), c(n);
  run_oob_global(a.ptr, b.ptr, c.ptr, n);
}
}  // namespace

TEST(FastModeDeathTest, OutOfBoundsWriteHitsTheGuardPage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(write_past_the_end(), ::testing::ExitedWithCode(1),
              "kernel 'addNoGuard'.*block \\(3,0,0\\).*past the end of a GPU buffer");
}

namespace {
void copy_misaligned() {
  DeviceBuffer<float> in(64), out(64);
  run_vector_copy(2, in.ptr, out.ptr);
}
}  // namespace

// x86 raises a general-protection fault, which has no address, for an aligned vector instruction at a misaligned
// address: the message names the likely cause instead of "not inside any GPU buffer".
TEST(FastModeDeathTest, MisalignedVectorCopyIsNamed) {
#if !defined(__OPTIMIZE__)
  GTEST_SKIP() << "an unoptimized build copies a float4 with two 8-byte moves, which do not fault";
#endif
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  DeviceBuffer<float> in(64), out(64);
  EXPECT_EQ(run_vector_copy(0, in.ptr, out.ptr), cudaSuccess);  // aligned: runs
  EXPECT_EXIT(copy_misaligned(), ::testing::ExitedWithCode(1),
              "kernel 'vectorCopy'.*general-protection fault.*not a multiple of 16 bytes");
}

// Host code cannot dereference a cudaMalloc pointer: on a GPU it is a segmentation fault. Here device memory is
// closed to host code outside kernels and the runtime's copies, and the fault names the buffer and the byte, before
// and after a kernel ran on it. Managed and pinned host memory stay open to host code, as on a GPU.
TEST(FastModeDeathTest, HostAccessToDeviceMemoryIsNamed) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  DeviceBuffer<float> a(iota_floats(100)), b(iota_floats(100)), c(100);
  EXPECT_EXIT(
      {
        const volatile float* p = a.ptr;
        std::printf("%f\n", p[7]);
      },
      ::testing::ExitedWithCode(1), "host code read device memory: .* is byte 28 of a buffer cudaMalloc'ed with 400");
  ASSERT_EQ(run_mat_add(a.ptr, b.ptr, c.ptr, 10, 10), cudaSuccess);  // a kernel and the copies still reach it
  EXPECT_EQ(c.get()[7], 2 * iota_floats(100)[7]);
  EXPECT_EXIT({ *reinterpret_cast<volatile float*>(c.ptr + 3) = 1.0f; }, ::testing::ExitedWithCode(1),
              "host code wrote device memory: .* is byte 12 of a buffer cudaMalloc'ed with 400");
  float* managed = nullptr;
  float* pinned = nullptr;
  ASSERT_EQ(cudaMallocManaged(&managed, 16), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&pinned, 16), cudaSuccess);
  managed[1] = 3.0f;
  pinned[1] = managed[1];
  EXPECT_EQ(pinned[1], 3.0f);
  cudaFree(managed);
  cudaFreeHost(pinned);
}

// cooperative_groups::memcpy_async: the block's copies sum right with cg::wait_prior / cg::wait, and without the
// waits the reads come before the copies, as they may on a GPU; a warp's copy of any length at any relative alignment
// (chunks of 16, 8 or 4 bytes and ends copied at once, or all at once) lands where it should and nowhere else.
TEST(FastMode, GroupAsynchronousCopies) {
  constexpr int kTiles = 5;
  const std::vector<float> host = iota_floats(64 * kTiles);
  DeviceBuffer<float> in(host), out(64);
  const std::vector<float> expected = expected_pipelined_sums(host, kTiles);
  ASSERT_EQ(run_group_pipelined_sum(in.ptr, out.ptr, kTiles, 0), cudaSuccess);
  EXPECT_EQ(out.get(), expected);
  ASSERT_EQ(run_group_pipelined_sum(in.ptr, out.ptr, kTiles, 1), cudaSuccess);
  EXPECT_NE(out.get(), expected);
  for (int form : {0, 2}) {  // a thread's own cuda::pipeline: consumer_wait, pipeline_consumer_wait_prior
    ASSERT_EQ(run_thread_pipeline_sum(in.ptr, out.ptr, kTiles, form), cudaSuccess);
    EXPECT_EQ(out.get(), expected) << "form " << form;
  }
  ASSERT_EQ(run_thread_pipeline_sum(in.ptr, out.ptr, kTiles, 1), cudaSuccess);
  EXPECT_NE(out.get(), expected);
  for (int form : {0, 1}) {  // a cuda::barrier: arrive_and_wait(), arrive() then wait()
    ASSERT_EQ(run_barrier_sum(in.ptr, out.ptr, kTiles, form), cudaSuccess);
    EXPECT_EQ(out.get(), expected) << "barrier form " << form;
  }
  ASSERT_EQ(run_barrier_sum(in.ptr, out.ptr, kTiles, 2), cudaSuccess);  // no arrival: the copies land at the exit
  EXPECT_NE(out.get(), expected);
  for (int form : {0, 1}) {  // a pipeline of the whole block: each thread's copies, the group's
    ASSERT_EQ(run_block_pipeline_sum(in.ptr, out.ptr, kTiles, form), cudaSuccess);
    EXPECT_EQ(out.get(), expected) << "block pipeline form " << form;
  }
  ASSERT_EQ(run_block_pipeline_sum(in.ptr, out.ptr, kTiles, 2), cudaSuccess);  // no consumer_wait()
  EXPECT_NE(out.get(), expected);
  for (int form : {0, 1}) {  // producers and consumers: stores, copies with arrive(32)
    ASSERT_EQ(run_producer_consumer_sum(in.ptr, out.ptr, kTiles, form), cudaSuccess);
    EXPECT_EQ(out.get(), expected) << "producer-consumer form " << form;
  }
  // Consumers that do not wait sum what is there and exit, leaving the producers waiting for their arrivals; consumers
  // that never free the buffers leave every thread waiting. Both hang on a GPU.
  for (int form : {2, 3}) {
    course_cpu::take_diagnostics();
    EXPECT_NE(run_producer_consumer_sum(in.ptr, out.ptr, kTiles, form), cudaSuccess) << "form " << form;
    EXPECT_EQ(of_category(course_cpu::take_diagnostics(), "barrier-divergence").size(), 1u) << "form " << form;
  }

  // A barrier per warp: lane 0 arrives for the warp's copy (and waits for the token, the parity, or polls); lanes
  // 1..31 for lane 0's copy; lane 31 for every lane's copy after a warp.sync(); a token three phases old returns.
  for (int form : {0, 1, 5, 6, 9, 11, 12, 13}) {
    ASSERT_EQ(run_warp_barrier_sum(in.ptr, out.ptr, kTiles, form), cudaSuccess);
    EXPECT_EQ(out.get(), expected) << "warp barrier form " << form;
  }
  ASSERT_EQ(run_warp_barrier_sum(in.ptr, out.ptr, kTiles, 7), cudaSuccess);  // no wait: the copies land at the end
  EXPECT_NE(out.get(), expected);
  course_cpu::take_diagnostics();
  EXPECT_NE(run_warp_barrier_sum(in.ptr, out.ptr, kTiles, 3), cudaSuccess);  // lane 0 waits for ever on a GPU
  EXPECT_EQ(of_category(course_cpu::take_diagnostics(), "barrier-divergence").size(), 1u);
  EXPECT_NE(run_warp_barrier_sum(in.ptr, out.ptr, kTiles, 10), cudaSuccess);  // a token two phases old: the same
  EXPECT_EQ(of_category(course_cpu::take_diagnostics(), "barrier-divergence").size(), 1u);

  std::vector<unsigned char> bytes(320);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(1 + i % 251);
  DeviceBuffer<unsigned char> src(bytes), dst(320);
  for (int offset : {0, 1, 2, 4, 8, 12, 16})
    for (int at : {0, 3, 4, 8, 16})
      for (int n : {0, 1, 3, 4, 5, 15, 16, 17, 40, 100, 257}) {
        ASSERT_EQ(run_group_copy_bytes(src.ptr, dst.ptr, offset, at, n), cudaSuccess);
        std::vector<unsigned char> want(320, 0);
        for (int i = 0; i < n; ++i) want[at + i] = bytes[offset + i];
        ASSERT_EQ(dst.get(), want) << "offset " << offset << ", at " << at << ", " << n << " bytes";
      }
}

// Asynchronous copies: a correct double-buffered kernel sums right; without the wait its reads come before the copies
// (which a wait or the thread's exit performs), so the sum is wrong, as it may be on a GPU. A misaligned 16-byte copy
// and a size of 12 fail the launch in fast mode too; zfill fills zeros.
TEST(FastMode, AsynchronousCopies) {
  constexpr int kTiles = 5;
  const std::vector<float> host = iota_floats(64 * kTiles);
  DeviceBuffer<float> in(host), out(64);
  const std::vector<float> expected = expected_pipelined_sums(host, kTiles);
  ASSERT_EQ(run_pipelined_sum(in.ptr, out.ptr, kTiles, 0), cudaSuccess);
  EXPECT_EQ(out.get(), expected);
  ASSERT_EQ(run_pipelined_sum(in.ptr, out.ptr, kTiles, 1), cudaSuccess);
  EXPECT_NE(out.get(), expected);

  DeviceBuffer<float> wide_in(iota_floats(64)), wide_out(32);
  ASSERT_EQ(run_wide_copy(wide_in.ptr, wide_out.ptr, 4, 16, 8), cudaSuccess);
  const std::vector<float> got = wide_out.get(), src = iota_floats(64);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(got[4 * i], src[4 + 4 * i]);
    EXPECT_EQ(got[4 * i + 1], src[5 + 4 * i]);
    EXPECT_EQ(got[4 * i + 2], 0.0f);
    EXPECT_EQ(got[4 * i + 3], 0.0f);
  }
  course_cpu::take_diagnostics();
  EXPECT_EQ(run_wide_copy(wide_in.ptr, wide_out.ptr, 2, 16, 0), cudaErrorMisalignedAddress);
  auto d = of_category(course_cpu::take_diagnostics(), "misaligned-address");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].line, line_of("kernels_async.cu", "@async-wide"));
  EXPECT_NE(d[0].message.find("copies 16 bytes (__pipeline_memcpy_async, source)"), std::string::npos) << d[0].message;
  cudaGetLastError();
  EXPECT_NE(run_wide_copy(wide_in.ptr, wide_out.ptr, 0, 12, 0), cudaSuccess);
  d = of_category(course_cpu::take_diagnostics(), "async-copy");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].message.find("size 12 (not 4, 8 or 16)"), std::string::npos) << d[0].message;
  cudaGetLastError();
}
