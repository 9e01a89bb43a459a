// Bench, lab 05 (figure stencil_radius): the 1D stencil at n = 2^26 for radius 1, 2, 3, 4, 8, 16, 32, 64.
//
//   bench_stencil [--out stencil_radius.json] [--runs N] [--quick]
//
// Subjects: the global-memory stencil the grader compares with (grader/baselines/stencil_global.cu), the reference
// solution (shared-memory tile, float4 tile loads, 4 outputs per thread), the grader's scalar-tile-load variant, and
// a device-to-device copy of the same array, all in one process. GB/s counts what the grader counts: one read and
// one write per element (the copy the same), whatever the radius.
#include "bench.h"
#include "subjects.h"

#include "lab05_baselines.h"
#include "lab05_stencil.h"

#include <course/device_buffer.h>
#include <course/random.h>
#include <course/reference/stencil.h>

#include <cstdio>
#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace {

using Stencil = std::function<void(const float* in, float* out, int n, int radius)>;

struct Subject {
  bench::Series* series;
  Stencil launch;
};

int run(int argc, char** argv) {
  bench::require_gpu("bench_stencil");
  bench::Bench b("stencil_radius", "1D stencil, n = 2^26: bandwidth against the radius", "radius", "GB/s", argc,
                 argv);
  b.set_subject("lab 05: grader/baselines/stencil_global.cu, solutions/05_stencil/stencil.cu, "
                "grader/variants/lab05/scalar_tile_load.cu, cudaMemcpyAsync; GB/s = 2 x 4 bytes x n / time");
  const std::vector<int> radii = {1, 2, 3, 4, 8, 16, 32, 64};
  const int n = b.quick() ? 1 << 20 : 1 << 26;

  bench::Series& copy = b.series("device-to-device copy", "cudaMemcpyAsync", bench::Role::yardstick);
  const std::vector<Subject> subjects = {
      {&b.series("global memory (lab 05 baseline)", "grader/baselines/stencil_global.cu", bench::Role::baseline),
       [](const float* in, float* out, int n, int r) { stencil_global(in, out, n, r, 0); }},
      {&b.series("shared tile, float4 loads (lab 05)", "solutions/05_stencil/stencil.cu", bench::Role::solution),
       [](const float* in, float* out, int n, int r) { stencil(in, out, n, r, 0); }},
      {&b.series("shared tile, scalar loads (lab 05 variant)", "grader/variants/lab05/scalar_tile_load.cu",
                 bench::Role::variant),
       [](const float* in, float* out, int n, int r) { bench_stencil_scalar_tile_load(in, out, n, r, 0); }},
  };

  {  // correctness at every radius of the sweep, at an n that is no multiple of a tile, before anything is timed
    constexpr int small_n = 100003;
    const std::vector<float> in_host = course::random_floats(small_n, 61);
    course::DeviceBuffer<float> in(in_host, "in"), out(small_n, "out");
    for (int r : radii) {
      const course::Reference ref = course::stencil_reference(in_host, r);
      for (const Subject& s : subjects) {
        out.poison();
        s.launch(in.data(), out.data(), small_n, r);
        COURSE_CHECK_LAUNCH("the launcher checked against the CPU reference");
        bench::check(s.series->name + " R=" + std::to_string(r), out.download(), ref, course::stencil_tolerance(r));
      }
    }
  }

  course::DeviceBuffer<float> in(course::random_floats(static_cast<std::size_t>(n), 71), "in"), out(n, "out");
  const double bytes = static_cast<double>(n) * sizeof(float);
  for (int r : radii) {
    copy.add(r, b.time([&] {
      CUDA_CHECK(cudaMemcpyAsync(out.data(), in.data(), static_cast<std::size_t>(bytes), cudaMemcpyDeviceToDevice, 0));
    }), 2 * bytes);
    for (const Subject& s : subjects)
      s.series->add(r, b.time([&] { s.launch(in.data(), out.data(), n, r); }), 2 * bytes);
  }
  b.note("n", std::to_string(n));
  return b.finish();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_stencil: %s\n", e.what());
    return 1;
  }
}
