#include "course/yardsticks.h"

#include "course/device_buffer.h"

#if defined(COURSE_BACKEND_GPU)
#include <cublas_v2.h>
#endif

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>

namespace course {

#if defined(COURSE_BACKEND_GPU)
namespace {

// One cuBLAS handle per process, created at the first call (never destroyed: the process's end frees it).
cublasHandle_t handle() {
  static const cublasHandle_t h = [] {
    cublasHandle_t created{};
    if (cublasCreate(&created) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate failed");
    cublasSetMathMode(created, CUBLAS_PEDANTIC_MATH);
    return created;
  }();
  return h;
}

}  // namespace

// cuBLAS is column-major. Row-major C = A·B is column-major C^T = B^T·A^T: pass B first, with the sizes swapped.
void cublas_sgemm(const float* a, const float* b, float* c, int m, int n, int k) {
  const float one = 1.0f, zero = 0.0f;
  const cublasStatus_t status = cublasSgemm(handle(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, c, n);
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error("cublasSgemm failed with status " + std::to_string(static_cast<int>(status)));
}

void also_time_cublas_sgemm(PerfState& state, double flops, TimedInput& a, TimedInput& b, TimedOutput& c, int m, int n,
                            int k) {
  state.also_time(kCublasSgemm, Work::flops(flops),
                  [&a, &b, &c, m, n, k] { cublas_sgemm(a.data(), b.data(), c.data(), m, n, k); });
}

// cub_sum is in yardsticks_cub.cu (nvcc).
void also_time_cub_sum(PerfState& state, TimedInput& in, int n) {
  // Its result has a buffer of its own, which lives as long as the launcher (measure() drops the launchers).
  auto out = std::make_shared<DeviceBuffer<float>>(std::size_t{1}, "CUB result");
  cub_sum(in.data(), n, out->data());  // sizes CUB's temporary storage before anything is timed
  state.also_time(kCubSum, Work::bytes(static_cast<double>(n) * sizeof(float)),
                  [&in, n, out] { cub_sum(in.data(), n, out->data()); });
}
#else
void cublas_sgemm(const float*, const float*, float*, int, int, int) {
  throw std::logic_error("cuBLAS exists on the GPU backend only");
}

void also_time_cublas_sgemm(PerfState&, double, TimedInput&, TimedInput&, TimedOutput&, int, int, int) {}

void cub_sum(const float*, int, float*) { throw std::logic_error("CUB exists on the GPU backend only"); }

void also_time_cub_sum(PerfState&, TimedInput&, int) {}
#endif

}  // namespace course
