// CPU backend of the course: calls in device code that nvcc rejects and g++ accepts, refused here too, so that a file
// builds on the CPU backend exactly where it builds with nvcc (course-rewrite, rewrite/nvcc_rules.cpp, marks them).
//
// nvcc (without --expt-relaxed-constexpr, which the course does not pass) rejects a call of a constexpr __host__
// function from a __global__ or __device__ function: "calling a constexpr __host__ function("min") from a __global__
// function("k") is not allowed". The standard library's algorithms and utilities are such functions (std::min,
// std::max, std::swap, std::numeric_limits<T>::max(), std::sort, ...), and so are <cmath>'s overloads for integer
// arguments (sqrt(n), fmax(x, n) with an int n), which CUDA's math API does not provide. Measured with nvcc 13.0
// (tests: RewriterCompile.WhatNvccRejectsFailsHereToo).
#pragma once

#include <type_traits>

// The messages (the rewriter puts a static_assert with one of these in the student's file, at the call).
#define COURSE_CPU_NVCC_HOST_STD                                                                                    \
  "nvcc rejects this call in device code: the standard library's algorithms and utilities (std::min, std::max, "    \
  "std::swap, std::sort, ...) are constexpr __host__ functions, which a __global__ or __device__ function may not " \
  "call. Use CUDA's own min() and max() (or fminf/fmaxf), or write the few lines yourself"
#define COURSE_CPU_NVCC_HOST_LIMITS                                                                                \
  "nvcc rejects this call in device code: std::numeric_limits<T>'s functions are constexpr __host__ functions, "   \
  "which a __global__ or __device__ function may not call. Use the constants of <cfloat> and <climits> (FLT_MAX, " \
  "INT_MAX, ...) or INFINITY"
#define COURSE_CPU_NVCC_INTEGER_MATH                                                                               \
  "nvcc rejects this call in device code: a math function of an integer argument is <cmath>'s constexpr __host__ " \
  "overload, which a __global__ or __device__ function may not call (CUDA's math API takes float and double). "    \
  "Convert the argument: sqrtf((float)n), sqrt((double)n)"

namespace course_cpu {

inline constexpr bool kNvccRejects = false;

// An argument of a <cmath> function in device code (sqrt, exp, fmax, ...: rewrite/nvcc_rules.cpp): refused where it
// is an integer (an element proxy by its element's type), passed on as it is otherwise.
template <class T>
constexpr T&& nvcc_math_argument(T&& x) {
  using U = std::remove_cvref_t<T>;
  if constexpr (requires { typename U::course_cpu_value_type; }) {
    static_assert(!std::is_integral_v<typename U::course_cpu_value_type>, COURSE_CPU_NVCC_INTEGER_MATH);
  } else {
    static_assert(!std::is_integral_v<U> && !std::is_enum_v<U>, COURSE_CPU_NVCC_INTEGER_MATH);
  }
  return static_cast<T&&>(x);
}

}  // namespace course_cpu
