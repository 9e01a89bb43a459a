// CPU backend of the course: how its headers refuse a CUDA feature it does not provide.
//
// A build that fails on such a feature is the backend's gap, not the student's mistake: the grader grades it
// `not-graded` ("the CPU backend does not support ..."), never `build-error`. It recognizes the gap by the marker
// text below in an error that the compiler places in one of these headers (common/cpu/include): a static_assert of
// a template that the student's code instantiates (COURSE_CPU_UNSUPPORTED), or an #error of a header the backend
// does not provide (whose text must spell the marker out: #error does not expand macros). The grader's side is
// grader/course_grader/diagnostics.py (backend_gap).
#pragma once

// "course-cpu-unsupported: <what>": the marker, then what is not supported and why, in one sentence.
#define COURSE_CPU_UNSUPPORTED(what) "course-cpu-unsupported: " what

namespace course_cpu {
// False for every T, but only known when a template using it is instantiated: a static_assert on it fires where a
// feature is used, not where its header is included.
template <class...>
inline constexpr bool unsupported = false;
}  // namespace course_cpu
