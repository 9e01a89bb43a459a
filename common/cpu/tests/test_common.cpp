// Self-tests that hold in both modes (compiled into the fast and the check
// test executables; COURSE_CPU_TEST_CHECK tells which one this is).
#include "kernels.h"
#include "test_util.h"

#include <course_cpu/sharing.h>

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cmath>
#include <numeric>

TEST(Runtime, MatAddIsCorrect) {
  const int rows = 37, cols = 53;
  const auto a = iota_floats(rows * cols), b = iota_floats(rows * cols, 0.5f);
  DeviceBuffer<float> da(a), db(b), dc(rows * cols);
  ASSERT_EQ(run_mat_add(da.ptr, db.ptr, dc.ptr, rows, cols), cudaSuccess);
  const auto c = dc.get();
  for (int i = 0; i < rows * cols; ++i) ASSERT_FLOAT_EQ(c[i], a[i] + b[i]) << "element " << i;
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
}

class GemmTest : public ::testing::TestWithParam<std::tuple<int, int, int, int>> {};

TEST_P(GemmTest, TiledGemmMatchesReference) {
  const auto [tile, M, N, K] = GetParam();
  const auto A = iota_floats(static_cast<std::size_t>(M) * K), B = iota_floats(static_cast<std::size_t>(K) * N, 0.25f);
  DeviceBuffer<float> dA(A), dB(B), dC(static_cast<std::size_t>(M) * N);
  ASSERT_EQ(run_gemm(tile, dA.ptr, dB.ptr, dC.ptr, M, N, K), cudaSuccess);
  const auto C = dC.get(), R = reference_gemm(A, B, M, N, K);
  for (std::size_t i = 0; i < C.size(); ++i) ASSERT_NEAR(C[i], R[i], 1e-3 * (1 + std::fabs(R[i]))) << "element " << i;
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
}

INSTANTIATE_TEST_SUITE_P(Shapes, GemmTest,
                         ::testing::Values(std::make_tuple(16, 64, 64, 64), std::make_tuple(16, 37, 29, 45),
                                           std::make_tuple(32, 64, 96, 32), std::make_tuple(32, 33, 70, 41),
                                           std::make_tuple(16, 1, 1, 1)));

TEST(Runtime, ReductionWithDynamicSharedAndShuffles) {
  const int n = 10000;
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i) in[i] = static_cast<float>(i % 10);
  DeviceBuffer<float> din(in), dout(1);
  ASSERT_EQ(run_reduce(din.ptr, dout.ptr, n, 256), cudaSuccess);
  EXPECT_FLOAT_EQ(dout.get()[0], std::accumulate(in.begin(), in.end(), 0.0f));
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
}

TEST(Runtime, AtomicsAcrossBlocks) {
  DeviceBuffer<int> counter(1);
  DeviceBuffer<unsigned long long> big(1);
  DeviceBuffer<float> f(1);
  ASSERT_EQ(run_atomics(counter.ptr, big.ptr, f.ptr, 200, 128), cudaSuccess);
  EXPECT_EQ(counter.get()[0], 200 * 128);
  EXPECT_EQ(big.get()[0], 2ull * 200 * 128);
  EXPECT_FLOAT_EQ(f.get()[0], 200.0f * 128);
}

TEST(Runtime, WarpVotesAndShuffles) {
  DeviceBuffer<int> out(64 * 7);
  ASSERT_EQ(run_warp_ops(out.ptr), cudaSuccess);
  const auto o = out.get();
  for (int t = 0; t < 64; ++t) {
    const int lane = t % 32;
    EXPECT_EQ(o[t * 7 + 0], 1) << t;
    EXPECT_EQ(o[t * 7 + 1], lane == 0 ? 0 : lane - 1) << t;
    EXPECT_EQ(o[t * 7 + 2], lane ^ 1) << t;
    EXPECT_EQ(o[t * 7 + 3], 30) << t;
    EXPECT_EQ(o[t * 7 + 4], 1) << t;
    EXPECT_EQ(o[t * 7 + 5], 0) << t;
    EXPECT_EQ(o[t * 7 + 6], 10) << t;
  }
}

TEST(Runtime, LaunchValidation) {
  course_cpu::take_diagnostics();
  EXPECT_EQ(launch_with(dim3(1), dim3(2048), 0), cudaErrorInvalidValue);
  auto d = course_cpu::take_diagnostics();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].category, "invalid-launch");
  EXPECT_NE(d[0].message.find("block of 2048 threads"), std::string::npos) << d[0].message;
  EXPECT_NE(d[0].message.find("at most 1024 threads per block"), std::string::npos) << d[0].message;
  EXPECT_EQ(launch_with(dim3(1), dim3(0), 0), cudaErrorInvalidValue);
  EXPECT_EQ(launch_with(dim3(1), dim3(1, 1, 65), 0), cudaErrorInvalidValue);
  EXPECT_EQ(launch_with(dim3(1, 65536), dim3(1), 0), cudaErrorInvalidValue);
  EXPECT_EQ(launch_with(dim3(1), dim3(32), 64 * 1024), cudaErrorInvalidValue);
  EXPECT_EQ(allow_dynamic_shared(300 * 1024), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(allow_dynamic_shared(100 * 1024), cudaSuccess);
  EXPECT_EQ(launch_with(dim3(1), dim3(32), 64 * 1024), cudaSuccess);
  EXPECT_EQ(launch_with(dim3(4, 2), dim3(8, 4, 2), 0), cudaSuccess);
  course_cpu::take_diagnostics();
}

TEST(Runtime, ApiBasics) {
  int count = 0;
  EXPECT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  EXPECT_EQ(count, 1);
  cudaDeviceProp prop;
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  EXPECT_EQ(prop.warpSize, 32);
  EXPECT_EQ(prop.sharedMemPerBlock, 48u * 1024);
  EXPECT_EQ(prop.sharedMemPerBlockOptin, 227u * 1024);
  EXPECT_EQ(prop.major, 0);
  EXPECT_EQ(cudaSetDevice(1), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  void* p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, 0), cudaSuccess);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(cudaMalloc(&p, std::size_t{1} << 62), cudaErrorMemoryAllocation);
  int local = 0;
  EXPECT_EQ(cudaFree(&local), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMalloc(&p, 100), cudaSuccess);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 16, 0u);
  EXPECT_EQ(cudaMemcpy(p, &local, 200, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(p, &local, 4, static_cast<cudaMemcpyKind>(7)), cudaErrorInvalidMemcpyDirection);
  EXPECT_EQ(cudaFree(p), cudaSuccess);
  EXPECT_STREQ(cudaGetErrorName(cudaErrorIllegalAddress), "cudaErrorIllegalAddress");
  EXPECT_STREQ(cudaGetErrorString(cudaErrorInvalidConfiguration), "invalid configuration argument");
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventRecord(a);
  cudaEventRecord(b);
  float ms = -1;
  EXPECT_EQ(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
  EXPECT_GE(ms, 0.0f);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cudaGetLastError();
}

TEST(Runtime, TheStreamsEveryProgramHas) {
  // cudaStreamPerThread and cudaStreamLegacy need no call to create; they cannot be destroyed.
  for (cudaStream_t s : {cudaStreamPerThread, cudaStreamLegacy}) {
    EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    EXPECT_EQ(cudaStreamQuery(s), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(s), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidResourceHandle);
  }
  EXPECT_NE(cudaStreamPerThread, cudaStreamLegacy);
  EXPECT_NE(cudaStreamPerThread, cudaStream_t{});
}

TEST(Runtime, BarrierDivergenceIsReportedNotHung) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> in(iota_floats(512)), out(2);
  EXPECT_EQ(run_sync_in_if(in.ptr, out.ptr, 2), cudaErrorLaunchFailure);
  const auto d = of_category(course_cpu::take_diagnostics(), "barrier-divergence");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].line, line_of("kernels_bugs.cu", "@sync-in-if"));
  EXPECT_EQ(d[0].occurrences, 2u);  // both blocks
  EXPECT_NE(d[0].message.find("threads 128..255 exited without reaching the __syncthreads() at line " +
                              std::to_string(d[0].line) + " that threads 0..127 wait at"),
            std::string::npos)
      << d[0].message;
  EXPECT_EQ(cudaGetLastError(), cudaErrorLaunchFailure);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

TEST(Runtime, EarlyReturnBeforeBarrierIsReported) {
  course_cpu::take_diagnostics();
  const int n = 200;  // the second block has 56 live threads out of 128
  DeviceBuffer<float> in(iota_floats(n)), out(n);
  EXPECT_EQ(run_early_return(in.ptr, out.ptr, n), cudaErrorLaunchFailure);
  const auto d = of_category(course_cpu::take_diagnostics(), "barrier-divergence");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].line, line_of("kernels_bugs.cu", "@early-return"));
  EXPECT_NE(d[0].message.find("block (1,0)"), std::string::npos) << d[0].message;
  EXPECT_NE(d[0].message.find("threads 72..127 exited"), std::string::npos) << d[0].message;
  cudaGetLastError();
}

TEST(Runtime, ShuffleWithExitedLanesIsReported) {
  course_cpu::take_diagnostics();
  DeviceBuffer<float> out(32);
  EXPECT_EQ(run_shuffle_after_return(out.ptr, 20), cudaErrorLaunchFailure);
  const auto d = of_category(course_cpu::take_diagnostics(), "barrier-divergence");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].line, line_of("kernels_bugs.cu", "@shfl-exited"));
  EXPECT_NE(d[0].message.find("threads 20..31 exited"), std::string::npos) << d[0].message;
  cudaGetLastError();
}

// A lane must be in the mask it passes (PTX leaves it undefined otherwise): all 32 lanes calling with 0x0000ffff, or
// with 0, are reported at the call, naming the lanes left out (the first once said that lanes 0..15 had exited).
TEST(Runtime, ALaneOutsideItsOwnMaskIsReported) {
  for (const auto& [mask, lanes] :
       {std::pair{0x0000ffffu, "threads 16..31 call"}, std::pair{0u, "threads 0..31 call"}}) {
    course_cpu::take_diagnostics();
    DeviceBuffer<float> out(32);
    EXPECT_EQ(run_shuffle_after_return(out.ptr, 32, mask), cudaErrorLaunchFailure);
    const auto d = of_category(course_cpu::take_diagnostics(), "barrier-divergence");
    ASSERT_EQ(d.size(), 1u) << mask;
    EXPECT_EQ(d[0].line, line_of("kernels_bugs.cu", "@shfl-exited"));
    EXPECT_NE(d[0].message.find(lanes), std::string::npos) << d[0].message;
    EXPECT_NE(d[0].message.find("leaves out their own lanes"), std::string::npos) << d[0].message;
    cudaGetLastError();
  }
}

TEST(Runtime, WarpSyncOrderedTailIsCorrect) {
  std::vector<float> in(64, 1.0f);
  DeviceBuffer<float> din(in), out(1);
  ASSERT_EQ(run_warp_tail(din.ptr, out.ptr), cudaSuccess);
  EXPECT_FLOAT_EQ(out.get()[0], 64.0f);
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
}

TEST(Runtime, KernelTemplateWithDeducedArguments) {
  const int n = 200, m = 50;
  const auto x = iota_floats(n), y0 = iota_floats(n, 0.5f);
  std::vector<int> in(m);
  std::iota(in.begin(), in.end(), 7);
  DeviceBuffer<float> dx(x), dy(y0);
  DeviceBuffer<int> din(in);
  DeviceBuffer<double> dout(m);
  ASSERT_EQ(run_deduced(3.0f, dx.ptr, dy.ptr, n, din.ptr, dout.ptr, m), cudaSuccess);
  const auto y = dy.get();
  for (int i = 0; i < n; ++i) ASSERT_FLOAT_EQ(y[i], 3.0f * (3.0f * x[i] + y0[i])) << "element " << i;
  const auto out = dout.get();
  for (int i = 0; i < m; ++i) ASSERT_EQ(out[i], static_cast<double>(in[m - 1 - i])) << "element " << i;
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
}

TEST(Runtime, AutoCopiesTheElement) {
  DeviceBuffer<float> out(std::vector<float>(32, 1000.0f));
  ASSERT_EQ(run_auto_copies(out.ptr), cudaSuccess);
  const auto v = out.get();
  for (int t = 0; t < 32; ++t) ASSERT_FLOAT_EQ(v[t], (t + 100.0f) + t + 1000.0f + (t + 1) % 32) << "thread " << t;
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
}

TEST(Runtime, DeviceAllocationsHaveAnAddressRangeOfTheirOwn) {
  // The same range in every process that is not a worker (a worker's own allocations come from another): an
  // allocation of the judge can always be mapped at its address in the worker (course_cpu/sharing.h).
  void* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, 1000), cudaSuccess);
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  EXPECT_GE(at, course_cpu::kDeviceArenaStart[0]);
  EXPECT_LT(at, course_cpu::kDeviceArenaStart[0] + course_cpu::kDeviceArenaSize);
  float* host = nullptr;
  ASSERT_EQ(cudaMallocHost(&host, 1000), cudaSuccess);  // host memory: wherever the kernel puts it
  EXPECT_EQ(cudaFreeHost(host), cudaSuccess);
  EXPECT_EQ(cudaFree(p), cudaSuccess);
}

// Under a file-size limit (the grader's sandbox: 64 MiB) an allocation larger than it is anonymous memory, not a
// memfd, whose growth past the limit killed the process with SIGXFSZ (red-team round 30: a 65 MiB workspace in a lab
// 06 launcher crashed every test); a kernel uses it like any other.
TEST(Runtime, AllocationsLargerThanTheFileSizeLimitWork) {
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  rlimit low = saved;
  low.rlim_cur = 1 << 20;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &low), 0);
  const int rows = 1024, cols = 1024;  // 4 MiB per matrix
  const auto a = iota_floats(rows * cols), b = iota_floats(rows * cols, 0.5f);
  {
    DeviceBuffer<float> da(a), db(b), dc(rows * cols);
    ASSERT_NE(dc.ptr, nullptr);
    ASSERT_EQ(run_mat_add(da.ptr, db.ptr, dc.ptr, rows, cols), cudaSuccess);
    const auto c = dc.get();
    for (int i = 0; i < rows * cols; i += 4099) ASSERT_FLOAT_EQ(c[i], a[i] + b[i]) << "element " << i;
  }
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &saved), 0);
  expect_no_diagnostics();
}
