// Bench-only cases: measurements the figures need that no graded test makes (a "going further" kernel, the cuBLAS
// yardstick, the optional variants of a solution). They are written like a perf test's body (course/measure.h: a
// function of course::PerfState that declares its launchers and checks, then calls measure()) and registered in the
// same course::perf_cases() list, but with no GoogleTest: nothing grades them, and they are compiled into the bench
// programs only (grader/bench/CMakeLists.txt), never into a test or a grading tree.
//
//   void going_further_perf(course::PerfState& state) { ... state.measure(); }
//   COURSE_BENCH_CASE(TiledGemmBench, GoingFurther, going_further_perf, "tiled_gemm<32>")  // no ;
//
// The suite ends in "Bench" (a [[bench]] table names the case "TiledGemmBench.GoingFurther"); the last argument
// names the declared baseline its ratio divides by ("" when it declares none). A bench-only case has no [[perf]]
// entry, so the [[bench]] table gives all its sizes.
#pragma once

#include <course/measure.h>

#if !defined(COURSE_LAB_MANIFEST)
#error "a bench case is compiled with the lab's test objects, which define COURSE_LAB_MANIFEST (course_add_lab())"
#endif

#define COURSE_BENCH_CASE(suite, name, body, baseline)             \
  [[maybe_unused]] const bool course_bench_case_##suite##_##name = \
      ::course::register_perf_case({#suite "." #name, baseline, body, COURSE_LAB_MANIFEST, #body});
