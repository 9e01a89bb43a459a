// Bench, lab 06 (figure reduction): the sum of 2^26 floats by each step of the cuda-samples progression, for block
// sizes 64 to 1024 (the grader uses 256).
//
//   bench_reduction [--out reduction.json] [--runs N] [--quick]
//
// Subjects, all in one process:
//   variant 0  interleaved addressing, the grader's baseline (grader/baselines/reduce_interleaved.cu)
//   variant 1  sequential addressing            reduce1_kernel  } solutions/06_reduction/reduction.cu, optional
//   variant 2  first add during the load        reduce2_kernel  } region; run level by level like variant 0 by
//   variant 3  warp shuffle for the last 32     reduce3_kernel  } bench_reduce_levels() (variants/lab06_levels.cu)
//   variant 4  the reference solution: grid-stride float4 loop, shuffles, two launches (reduction())
//   the grader's student-like variant (grader/variants/lab06/tree_grid_stride.cu), and a device-to-device copy.
// GB/s counts what the grader counts: the reductions read 4 bytes per input; the copy reads and writes 4 each.
#include "bench.h"
#include "subjects.h"

#include "lab06_baselines.h"
#include "lab06_reduction.h"

#include <course/device_buffer.h>
#include <course/random.h>
#include <course/reference/reduce.h>

#include <cstdio>
#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace {

using Reduce = std::function<void(const float* in, int n, float* result, float* scratch, int block_size)>;

struct Subject {
  bench::Series* series;
  Reduce launch;
};

int run(int argc, char** argv) {
  bench::require_gpu("bench_reduction");
  bench::Bench b("reduction", "Reduction of 2^26 floats: the variants, by block size", "block size", "GB/s", argc,
                 argv);
  b.set_subject("lab 06: grader/baselines/reduce_interleaved.cu, solutions/06_reduction/reduction.cu (variants 1-3 "
                "and the reference), grader/variants/lab06/tree_grid_stride.cu, cudaMemcpyAsync; GB/s = bytes of "
                "input read / time (the copy: bytes read + written)");
  const int n = b.quick() ? 1 << 20 : 1 << 26;
  const std::vector<int> block_sizes = {64, 128, 256, 512, 1024};

  bench::Series& copy = b.series("device-to-device copy (read + written)", "cudaMemcpyAsync", bench::Role::yardstick);
  const std::string solution = "solutions/06_reduction/reduction.cu";
  const std::vector<Subject> subjects = {
      {&b.series("0: interleaved addressing (baseline)", "grader/baselines/reduce_interleaved.cu",
                 bench::Role::baseline),
       [](const float* in, int n, float* r, float* s, int bs) { reduce_interleaved(in, n, r, s, bs, 0); }},
      {&b.series("1: sequential addressing", solution + " reduce1_kernel", bench::Role::solution),
       [](const float* in, int n, float* r, float* s, int bs) { bench_reduce_levels(1, in, n, r, s, bs); }},
      {&b.series("2: first add during load", solution + " reduce2_kernel", bench::Role::solution),
       [](const float* in, int n, float* r, float* s, int bs) { bench_reduce_levels(2, in, n, r, s, bs); }},
      {&b.series("3: warp shuffle for the last 32", solution + " reduce3_kernel", bench::Role::solution),
       [](const float* in, int n, float* r, float* s, int bs) { bench_reduce_levels(3, in, n, r, s, bs); }},
      {&b.series("4: grid-stride float4 + shuffles (reference)", solution + " reduction()", bench::Role::solution),
       [](const float* in, int n, float* r, float* s, int bs) { reduction(in, n, r, s, bs, 0); }},
      {&b.series("scalar grid-stride + tree (lab 06 variant)", "grader/variants/lab06/tree_grid_stride.cu",
                 bench::Role::variant),
       [](const float* in, int n, float* r, float* s, int bs) {
         bench_reduction_tree_grid_stride(in, n, r, s, bs, 0);
       }},
  };

  {  // correctness for every block size, at an n that is no power of two, before anything is timed
    constexpr int small_n = 1000003;
    const std::vector<float> host = course::random_floats(small_n, 81, -0.25f, 1.0f);
    const course::Reference ref = course::reduce_reference(host);
    course::DeviceBuffer<float> in(host, "in"), result(1, "result");
    course::DeviceBuffer<float> scratch(static_cast<std::size_t>(reduction_scratch_elements(small_n, 64)), "scratch");
    for (int bs : block_sizes) {
      for (const Subject& s : subjects) {
        result.poison();
        scratch.poison();
        s.launch(in.data(), small_n, result.data(), scratch.data(), bs);
        COURSE_CHECK_LAUNCH("the launcher checked against the CPU reference");
        bench::check(s.series->name + " block " + std::to_string(bs), result.download(), ref,
                     course::reduce_tolerance(host.size()));
      }
    }
  }

  course::DeviceBuffer<float> in(course::random_floats(static_cast<std::size_t>(n), 91, -0.25f, 1.0f), "in");
  course::DeviceBuffer<float> copy_out(static_cast<std::size_t>(n), "copy destination"), result(1, "result");
  // Enough scratch for the smallest block size, which needs the most.
  course::DeviceBuffer<float> scratch(static_cast<std::size_t>(reduction_scratch_elements(n, 64)), "scratch");
  const double bytes = static_cast<double>(n) * sizeof(float);
  for (int bs : block_sizes) {
    copy.add(bs, b.time([&] {
      CUDA_CHECK(cudaMemcpyAsync(copy_out.data(), in.data(), static_cast<std::size_t>(bytes),
                                 cudaMemcpyDeviceToDevice, 0));
    }), 2 * bytes);
    for (const Subject& s : subjects)
      s.series->add(bs, b.time([&] { s.launch(in.data(), n, result.data(), scratch.data(), bs); }), bytes);
  }
  b.note("n", std::to_string(n));
  b.note("graded_block_size", "256");
  return b.finish();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_reduction: %s\n", e.what());
    return 1;
  }
}
