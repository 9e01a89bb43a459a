// course-rewrite: turns a CUDA .cu file into host C++ for the CPU backend.
#pragma once

#include <string>
#include <string_view>

namespace course_rewrite {

enum class Mode { fast, check };

// Rewrites `source` (read from `path`, used for #line). The result starts with
// the prelude include and a `#line 1 "<path>"`; after that it has exactly
// the same number of lines as `source`, so diagnostics point at the original.
//  - kernel<<<g, b, s, st>>>(args) -> ::course_cpu::launch(kernel, "kernel", __FILE__, line, g, b, s, st)(args)
//  - __shared__ T a[N];             -> static thread_local T a[N];
//  - extern __shared__ T s[];       -> T* const s = ::course_cpu::dynamic_shared<T>();
//  - check mode: subscripts of shared arrays and pointer parameters inside
//    __global__/__device__ functions -> COURSE_CHECKED(a, __LINE__)[i]
std::string rewrite(std::string_view source, const std::string& path, Mode mode);

}  // namespace course_rewrite
