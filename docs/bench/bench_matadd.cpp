// Bench, lab 01 (figure matadd): the bandwidth of matAdd from 2^16 to 2^26 elements, against a device-to-device copy.
//
//   bench_matadd [--out matadd.json] [--runs N] [--quick]
//
// Subjects: the reference solution (float4 path, solutions/01_matadd/matadd.cu), the grader's two scalar variants
// (grader/variants/lab01/), and cudaMemcpyAsync device-to-device, all in one process. Matrices are rows x 4096
// (cols % 4 == 0: the reference takes its float4 path). GB/s counts what the grader counts: matAdd moves
// 3 x 4 bytes per element (two reads, one write), the copy 2 x 4.
#include "bench.h"
#include "subjects.h"

#include "lab01_matadd.h"

#include <course/device_buffer.h>
#include <course/random.h>
#include <course/reference/matadd.h>

#include <cstdio>
#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace {

using Launcher = std::function<void(const float*, const float*, float*, int, int)>;

struct Subject {
  bench::Series* series;
  Launcher launch;
};

int run(int argc, char** argv) {
  bench::require_gpu("bench_matadd");
  bench::Bench b("matadd", "matAdd bandwidth against a device-to-device copy", "elements", "GB/s", argc, argv);
  b.set_subject("lab 01: solutions/01_matadd/matadd.cu, grader/variants/lab01/*.cu, cudaMemcpyAsync");
  constexpr int kCols = 4096;
  const int max_log2 = b.quick() ? 20 : 26;

  bench::Series& copy = b.series("device-to-device copy", "cudaMemcpyAsync", bench::Role::yardstick);
  std::vector<Subject> subjects = {
      {&b.series("reference (float4)", "solutions/01_matadd/matadd.cu", bench::Role::solution),
       [](const float* a, const float* x, float* c, int r, int n) { matadd(a, x, c, r, n, 0); }},
      {&b.series("scalar, 32 x 8 threads", "grader/variants/lab01/scalar_256.cu", bench::Role::variant),
       [](const float* a, const float* x, float* c, int r, int n) { bench_matadd_scalar_256(a, x, c, r, n, 0); }},
      {&b.series("scalar, 16 x 16 threads", "grader/variants/lab01/scalar_16x16.cu", bench::Role::variant),
       [](const float* a, const float* x, float* c, int r, int n) { bench_matadd_scalar_16x16(a, x, c, r, n, 0); }},
  };

  // Correctness first, at an awkward size (cols not a multiple of 4 or of a warp, rows not of a block), then at a
  // float4 size: a kernel that fails is not timed.
  for (const auto& [rows, cols] : {std::pair{255, 1027}, std::pair{33, kCols}}) {
    const std::size_t n = static_cast<std::size_t>(rows) * cols;
    const std::vector<float> a_host = course::random_floats(n, 11), b_host = course::random_floats(n, 12);
    course::DeviceBuffer<float> a(a_host, "A"), x(b_host, "B"), c(n, "C");
    const course::Reference ref = course::matadd_reference(a_host, b_host);
    for (const Subject& s : subjects) {
      c.poison();
      s.launch(a.data(), x.data(), c.data(), rows, cols);
      COURSE_CHECK_LAUNCH("the launcher checked against the CPU reference");
      bench::check(s.series->name + " " + std::to_string(rows) + "x" + std::to_string(cols), c.download(), ref,
                   1.0e-6);
    }
  }

  // One allocation of the largest size; each size uses its first n elements.
  const std::size_t max_n = std::size_t{1} << max_log2;
  course::DeviceBuffer<float> a(course::random_floats(max_n, 21), "A"), x(course::random_floats(max_n, 22), "B");
  course::DeviceBuffer<float> c(max_n, "C");
  for (int log2 = 16; log2 <= max_log2; ++log2) {
    const int rows = (1 << log2) / kCols;
    const double n = static_cast<double>(rows) * kCols;
    const double bytes = n * sizeof(float);
    copy.add(n, b.time([&] {
      CUDA_CHECK(cudaMemcpyAsync(c.data(), a.data(), static_cast<std::size_t>(bytes), cudaMemcpyDeviceToDevice, 0));
    }), 2 * bytes);
    for (const Subject& s : subjects)
      s.series->add(n, b.time([&] { s.launch(a.data(), x.data(), c.data(), rows, kCols); }), 3 * bytes);
  }
  return b.finish();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_matadd: %s\n", e.what());
    return 1;
  }
}
