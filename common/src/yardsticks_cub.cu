// CUB's device-wide sum, the reduction lab's ceiling (course/yardsticks.h declares it; yardsticks.cpp times it).
// Compiled by nvcc into the GPU harness only: CUB is a header library of device code. This file includes nothing of
// the harness but its CUDA check, so that it needs no more than nvcc's default C++ standard.
#include "course/cuda_check.h"

#include <cub/device/device_reduce.cuh>

#include <cstddef>

namespace course {

void cub_sum(const float* in, int n, float* out) {
  // CUB's temporary storage, kept between calls (a timed call must not allocate) and grown when a larger n needs
  // more; never freed: the process's end frees it, as it does the cuBLAS handle.
  static void* temp = nullptr;
  static std::size_t temp_bytes = 0;
  std::size_t needed = 0;
  CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, needed, in, out, n, cudaStream_t{0}));
  if (needed > temp_bytes) {
    if (temp != nullptr) CUDA_CHECK(cudaFree(temp));
    temp = nullptr;
    CUDA_CHECK(cudaMalloc(&temp, needed));
    temp_bytes = needed;
  }
  CUDA_CHECK(cub::DeviceReduce::Sum(temp, needed, in, out, n, cudaStream_t{0}));
}

}  // namespace course
