// Bench only, never graded: lab 03's "going further" kernel (solutions/03_tiled_gemm/register_blocked_gemm.cu, which
// has no header) and, on the GPU, cuBLAS SGEMM as the FP32 ceiling, both timed against the lab's tiled_gemm<32> with
// the lab's measurement object. For the gemm_sizes figure; compiled into bench_lab03_solution only, with the kernel's
// file (grader/bench/CMakeLists.txt); cuBLAS comes with the GPU harness (course/yardsticks.h).
#include "bench_case.h"
#include "lab03_tiled_gemm.h"

#include <course/device_buffer.h>
#include <course/lab_runner.h>
#include <course/random.h>
#include <course/reference/gemm.h>
#include <course/yardsticks.h>

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

// Defined in solutions/03_tiled_gemm/register_blocked_gemm.cu. Same contract as tiled_gemm().
void register_blocked_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream);

namespace {

// GFLOP/s of the register-blocked kernel (and cuBLAS) against tiled_gemm<32>, C = A·B with A m x k and B k x n.
void going_further_perf(course::PerfState& state) {
  const int m = state.size<int>("m"), n = state.size<int>("n"), k = state.size<int>("k");
  const course::GemmSizes sizes = course::gemm_sizes(m, n, k);
  const std::vector<float> a_host = course::random_floats(sizes.a, course::test_seed(331));
  const std::vector<float> b_host = course::random_floats(sizes.b, course::test_seed(332));
  course::DeviceBuffer<float> a(a_host, "A"), b(b_host, "B"), c(sizes.c, "C");
  const course::Work flops = course::Work::flops(2.0 * m * n * k);

  using Gemm = std::function<void()>;
  std::vector<std::pair<std::string, Gemm>> checked;
  state.baseline("tiled_gemm<32>", flops, [&] { tiled_gemm<32>(a.data(), b.data(), c.data(), m, n, k, 0); });
  const Gemm blocked = [&] { register_blocked_gemm(a.data(), b.data(), c.data(), m, n, k, 0); };
  state.lab("register-blocked GEMM", flops, blocked);
  checked.emplace_back("register_blocked_gemm", blocked);
#if defined(COURSE_BACKEND_GPU)
  const Gemm sgemm = [&] { course::cublas_sgemm(a.data(), b.data(), c.data(), m, n, k); };
  state.also_time(course::kCublasSgemm, flops, sgemm);
  checked.emplace_back("cublasSgemm", sgemm);
#endif

  // Every 16th row, as lab 03's perf test checks: the CPU reference of all of C would take longer than the timing.
  constexpr int kRowStep = 16;
  std::optional<course::Reference> ref;
  for (const auto& [name, gemm] : checked) {
    state.check(name, [&, name = name, gemm = gemm] {
      if (!ref) ref = course::gemm_reference(a_host, b_host, m, n, k, kRowStep);
      c.poison();
      course::run_launcher(
          name + "(a, b, c, m=" + std::to_string(m) + ", n=" + std::to_string(n) + ", k=" + std::to_string(k) + ")",
          gemm);
      const course::Layout layout{"C (every 16th row)", static_cast<std::size_t>((m + kRowStep - 1) / kRowStep),
                                  static_cast<std::size_t>(n)};
      return course::compare(course::sample_rows(c.download(), m, n, kRowStep), *ref, course::gemm_tolerance(k),
                             layout);
    });
  }
  state.measure();
}

COURSE_BENCH_CASE(TiledGemmBench, GoingFurther, going_further_perf, "tiled_gemm<32>")

}  // namespace
