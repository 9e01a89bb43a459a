// course-cpu-bench: times the 256^3 16x16 tiled GEMM in fast and check mode.
#include <chrono>
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>
#include <course_cpu/diagnostics.h>

namespace fast { cudaError_t run(const float*, const float*, float*, int); }
namespace check { cudaError_t run(const float*, const float*, float*, int); }

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 256;
  std::vector<float> h(static_cast<std::size_t>(n) * n, 1.0f);
  float *A, *B, *C;
  cudaMalloc(&A, h.size() * 4);
  cudaMalloc(&B, h.size() * 4);
  cudaMalloc(&C, h.size() * 4);
  cudaMemcpy(A, h.data(), h.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(B, h.data(), h.size() * 4, cudaMemcpyHostToDevice);
  auto time = [&](cudaError_t (*f)(const float*, const float*, float*, int)) {
    double best = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      if (f(A, B, C, n) != cudaSuccess) std::printf("launch failed\n");
      best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
  };
  const double tf = time(fast::run), tc = time(check::run);
  course_cpu::take_bank_conflicts();
  const auto diags = course_cpu::take_diagnostics();
  std::printf("tiled GEMM %dx%dx%d, 16x16 tiles, %d worker threads: fast %.1f ms, check %.1f ms (%.1fx)%s\n", n, n, n,
              [] { cudaDeviceProp p; cudaGetDeviceProperties(&p, 0); return p.multiProcessorCount; }(), tf, tc, tc / tf,
              diags.empty() ? "" : " [unexpected diagnostics]");
  return diags.empty() ? 0 : 1;
}
