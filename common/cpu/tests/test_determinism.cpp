// Determinism: a racy and a correct kernel give identical outputs and
// identical diagnostics on every run and for every worker-thread count
// (COURSE_CPU_THREADS = 1, 2, 3). The worker count is fixed per process, so
// the test runs this executable again (Determinism.TwoRunsAreIdentical)
// once per count.
#include "kernels.h"
#include "test_util.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

namespace {

std::string fingerprint(const std::vector<float>& v) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the bit patterns
  for (float f : v) {
    std::uint32_t bits;
    std::memcpy(&bits, &f, 4);
    for (int k = 0; k < 4; ++k) h = (h ^ ((bits >> (8 * k)) & 0xff)) * 1099511628211ull;
  }
  std::ostringstream s;
  s << std::hex << h;
  return s.str();
}

// One run of both kernels: their outputs and everything check mode reported.
std::string run_once() {
  const int n = 64;  // 16 blocks of 16x16 threads: spread over the workers
  DeviceBuffer<float> A(iota_floats(n * n)), B(iota_floats(n * n, 0.5f)), C(n * n), D(n * n);
  std::ostringstream out;
  out << "racy: " << cudaGetErrorName(run_gemm_missing_sync(1, A.ptr, B.ptr, C.ptr, n)) << ' ' << fingerprint(C.get())
      << '\n';
  cudaGetLastError();
  out << "correct: " << cudaGetErrorName(run_gemm(16, A.ptr, B.ptr, D.ptr, n, n, n)) << ' ' << fingerprint(D.get())
      << '\n';
  // More of check mode: the arena and shuffles, a 32-way bank conflict, an
  // out-of-bounds access.
  DeviceBuffer<float> in(iota_floats(5000)), sum(1), probe(64), c(1000);
  out << "reduce: " << cudaGetErrorName(run_reduce(in.ptr, sum.ptr, 5000, 256)) << ' ' << fingerprint(sum.get())
      << '\n';
  out << "bank: " << cudaGetErrorName(run_bank_probe(0, probe.ptr)) << ' ' << fingerprint(probe.get()) << '\n';
  out << "oob: " << cudaGetErrorName(run_oob_global(in.ptr, in.ptr, c.ptr, 1000)) << '\n';
  cudaGetLastError();
  for (const auto& d : course_cpu::take_diagnostics())
    out << '[' << d.category << "] " << d.line << " x" << d.occurrences << ": " << d.message << '\n';
  const auto bank = course_cpu::take_bank_conflicts();
  for (const auto& l : bank.lines)
    out << "bank " << l.line << ' ' << l.variable << (l.store ? " st " : " ld ") << l.requests << ' ' << l.wavefronts
        << ' ' << l.max_degree << '\n';
  return out.str();
}

std::string self_exe() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

}  // namespace

// Also the child process of AcrossWorkerCounts, which reads what it prints.
TEST(Determinism, TwoRunsAreIdentical) {
  course_cpu::take_diagnostics();
  course_cpu::take_bank_conflicts();
  const std::string first = run_once(), second = run_once();
  EXPECT_EQ(first, second) << "two runs in one process differ";
  EXPECT_NE(first.find("[race]"), std::string::npos) << first;  // the racy kernel was caught
  if (std::getenv("COURSE_CPU_DETERMINISM_CHILD") != nullptr) std::printf("@@BEGIN\n%s@@END\n", first.c_str());
}

TEST(Determinism, AcrossWorkerCounts) {
  const std::string exe = self_exe();
  ASSERT_FALSE(exe.empty());
  std::string reference;
  // The last run sends every access through the slow path of check mode:
  // the inlined fast path must not change what is found.
  for (const int threads : {1, 2, 3, -2}) {
    const std::string cmd = std::string(threads < 0 ? "COURSE_CPU_CHECK_SLOW_PATH=1 " : "") +
                            "COURSE_CPU_THREADS=" + std::to_string(threads < 0 ? -threads : threads) +
                            " COURSE_CPU_DETERMINISM_CHILD=1 COURSE_CPU_QUIET=1 '" + exe +
                            "' --gtest_filter=Determinism.TwoRunsAreIdentical 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string text;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
    const int status = pclose(p);
    ASSERT_EQ(status, 0) << cmd << ":\n" << text;
    const auto b = text.find("@@BEGIN\n"), e = text.find("@@END");
    ASSERT_TRUE(b != std::string::npos && e != std::string::npos) << text;
    const std::string result = text.substr(b + 8, e - b - 8);
    if (threads == 1)
      reference = result;
    else
      EXPECT_EQ(result, reference) << (threads < 0 ? "the slow path" : "COURSE_CPU_THREADS=")
                                   << (threads < 0 ? -threads : threads) << " differs from 1 thread";
  }
}
