// CPU backend of the course: <cuda_pipeline.h>. The primitives (__pipeline_memcpy_async, __pipeline_commit,
// __pipeline_wait_prior) are provided (cuda_pipeline_primitives.h); the C++ wrapper nvcuda::experimental::pipeline
// is not: using it is the backend's gap (not-graded), not the student's mistake.
#pragma once

#include <cuda_pipeline_primitives.h>

namespace nvcuda::experimental {
template <class T = void>
class unsupported_pipeline {
  static_assert(course_cpu::unsupported<T>,
                COURSE_CPU_UNSUPPORTED("nvcuda::experimental::pipeline (use the __pipeline_* primitives)"));
};
using pipeline = unsupported_pipeline<>;
template <class... Args>
void memcpy_async(Args&&...) {
  static_assert(course_cpu::unsupported<Args...>,
                COURSE_CPU_UNSUPPORTED("nvcuda::experimental::memcpy_async (use __pipeline_memcpy_async)"));
}
}  // namespace nvcuda::experimental
