// The libraries a user would call instead of a lab's kernel, timed in the same run as the lab ([[perf]] ceiling in
// the lab's manifest): cuBLAS SGEMM in FP32 for the GEMM labs, CUB's DeviceReduce::Sum for the reduction. (The
// other bandwidth labs' ceiling, a device-to-device copy of the same bytes, is one cudaMemcpyAsync and needs no
// helper.) Tests may link these libraries; a student's lab file may not (grader/course.toml [symbols]).
#pragma once

#include "course/measure.h"

namespace course {

inline constexpr const char* kCublasSgemm = "cuBLAS SGEMM";
inline constexpr const char* kCubSum = "CUB DeviceReduce::Sum";

// Row-major C = A·B (A m x k, B k x n) with cuBLAS on stream 0, in plain FP32 (CUBLAS_PEDANTIC_MATH: no TF32, like
// the course's kernels). GPU backend only: elsewhere it throws std::logic_error.
void cublas_sgemm(const float* a, const float* b, float* c, int m, int n, int k);

// On the GPU backend, declares cuBLAS SGEMM on the same buffers as an also-timed launcher named kCublasSgemm (the GEMM
// labs' ceiling). On the CPU backend it declares nothing: there is no cuBLAS, and perf is graded on a GPU only.
void also_time_cublas_sgemm(PerfState& state, double flops, TimedInput& a, TimedInput& b, TimedOutput& c, int m, int n,
                            int k);

// The sum of in[0..n) into *out with cub::DeviceReduce::Sum on stream 0 (its temporary storage allocated at the first
// call and kept, grown when a larger n needs more). GPU backend only: elsewhere it throws std::logic_error.
void cub_sum(const float* in, int n, float* out);

// On the GPU backend, declares cub_sum of `in` (n floats, read once: n * 4 bytes of work) into a result of its own as
// an also-timed launcher named kCubSum (the reduction lab's ceiling). On the CPU backend it declares nothing.
void also_time_cub_sum(PerfState& state, TimedInput& in, int n);

}  // namespace course
