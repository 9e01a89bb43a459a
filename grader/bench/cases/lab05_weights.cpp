// Bench only, never graded: a weighted 1D stencil with its weights in constant memory, in global memory and in
// shared memory (copied there by each block), each with the weights indexed by tap (every lane of a warp reads the
// same weight) and by tap and lane (the lanes read up to 32 different weights), next to a device-to-device copy. For
// the constant_weights figure of docs/constant-and-atomics.md; the kernels are docs/examples/weighted_stencil.cu,
// which belongs to no lab, compiled into bench_lab05_solution only, with this file (grader/bench/CMakeLists.txt).
#include "bench_case.h"
#include "reference.h"  // lab 05's CPU reference and tolerance (grader/labs/05_stencil/)

#include <course/cuda_check.h>
#include <course/device_buffer.h>
#include <course/lab_runner.h>
#include <course/random.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

// Defined in docs/examples/weighted_stencil.cu. out[i] = sum over the taps o = 0 .. 2R of w[k] * in[i - R + o], inputs
// outside [0, n) counting as 0, with k = o (lane_index false) or k = (o + i % 32) % (2R + 1) (true); `weights` holds
// the 2R + 1 weights on the device, and set_constant_weights() copies them to constant memory for the first launcher.
void set_constant_weights(const float* host_weights, int taps);
void weighted_stencil_constant(bool lane_index, const float* in, float* out, const float* weights, int n, int radius,
                               cudaStream_t stream);
void weighted_stencil_global(bool lane_index, const float* in, float* out, const float* weights, int n, int radius,
                             cudaStream_t stream);
void weighted_stencil_shared(bool lane_index, const float* in, float* out, const float* weights, int n, int radius,
                             cudaStream_t stream);

namespace {

constexpr const char* kCopy = "device-to-device copy";
constexpr const char* kGlobal = "global weights";  // the baseline the case's ratio divides by

using Launcher = void (*)(bool, const float*, float*, const float*, int, int, cudaStream_t);
struct Variant {
  const char* name;  // the launcher's name in the records ([[bench.series]] launcher)
  Launcher launch;
  bool lane_index;
};
constexpr Variant kVariants[] = {
    {kGlobal, weighted_stencil_global, false},
    {"constant weights", weighted_stencil_constant, false},
    {"shared weights", weighted_stencil_shared, false},
    {"global weights, lane index", weighted_stencil_global, true},
    {"constant weights, lane index", weighted_stencil_constant, true},
    {"shared weights, lane index", weighted_stencil_shared, true},
};

// The outputs the checks compare: every 8th window of 1024 outputs and the last window (a full double-precision
// reference of 2^26 outputs at radius 64 takes longer than the timed runs). At a small n, every output.
constexpr std::size_t kWindow = 1024, kWindowStep = 8;

std::vector<std::size_t> checked_outputs(std::size_t n) {
  std::vector<std::size_t> index;
  for (std::size_t first = 0; first < n; first += kWindow * kWindowStep)
    for (std::size_t i = first; i < std::min(n, first + kWindow); ++i) index.push_back(i);
  for (std::size_t i = n - std::min(n, kWindow); i < n; ++i)
    if (index.empty() || i > index.back()) index.push_back(i);
  return index;
}

// The weighted stencil at the outputs `index`, in double precision; the scale of each output is the sum of the
// magnitudes of its terms (as lab 05's stencil_reference, whose tolerance applies: one rounding per term).
course::Reference weighted_reference(std::span<const float> in, const std::vector<float>& w, int radius,
                                     bool lane_index, const std::vector<std::size_t>& index) {
  const long long n = static_cast<long long>(in.size()), taps = 2LL * radius + 1;
  course::Reference ref;
  ref.value.reserve(index.size());
  ref.scale.reserve(index.size());
  for (const std::size_t out : index) {
    const long long i = static_cast<long long>(out);
    double sum = 0.0, magnitude = 0.0;
    for (long long o = 0; o < taps; ++o) {
      const long long j = i - radius + o;
      if (j < 0 || j >= n) continue;
      const long long k = lane_index ? (o + i % 32) % taps : o;
      const double term = static_cast<double>(w[static_cast<std::size_t>(k)]) * in[static_cast<std::size_t>(j)];
      sum += term;
      magnitude += std::fabs(term);
    }
    ref.value.push_back(sum);
    ref.scale.push_back(magnitude);
  }
  return ref;
}

// GB/s (one read and one write of 4 bytes per output, as lab 05) of the six kernels and a copy, at n and radius.
void weights_perf(course::PerfState& state) {
  const int n = state.size<int>("n"), radius = state.size<int>("radius");
  if (n < 1 || radius < 0) throw std::invalid_argument("stencil weights: n must be at least 1 and radius at least 0");
  const int taps = 2 * radius + 1;
  const std::vector<float> in_host = course::random_floats(static_cast<std::size_t>(n), course::test_seed(521));
  const std::vector<float> w_host = course::random_floats(static_cast<std::size_t>(taps), course::test_seed(522));
  course::DeviceBuffer<float> in(in_host, "in"), out(static_cast<std::size_t>(n), "out"), weights(w_host, "weights");
  set_constant_weights(w_host.data(), taps);  // throws for a radius the kernels do not take
  const course::Work bytes = course::Work::bytes(2.0 * n * sizeof(float));

  const auto launcher = [&](const Variant& v) {
    return std::function<void()>(
        [&, v] { v.launch(v.lane_index, in.data(), out.data(), weights.data(), n, radius, 0); });
  };
  state.baseline(kCopy, bytes, [&] {
    CUDA_CHECK(cudaMemcpyAsync(out.data(), in.data(), n * sizeof(float), cudaMemcpyDeviceToDevice, 0));
  });
  state.baseline(kGlobal, bytes, launcher(kVariants[0]));
  state.lab(kVariants[1].name, bytes, launcher(kVariants[1]));
  for (int v = 2; v < 6; ++v) state.also_time(kVariants[v].name, bytes, launcher(kVariants[v]));

  const std::vector<std::size_t> index = checked_outputs(static_cast<std::size_t>(n));
  for (const Variant& v : kVariants) {
    state.check(v.name, [&, v] {
      out.poison();
      course::run_launcher(
          std::string(v.name) + " (n = " + std::to_string(n) + ", radius = " + std::to_string(radius) + ")",
          launcher(v));
      const std::vector<float> all = out.download();
      std::vector<float> got;
      got.reserve(index.size());
      for (const std::size_t i : index) got.push_back(all[i]);
      return course::compare(got, weighted_reference(in_host, w_host, radius, v.lane_index, index),
                             course::stencil_tolerance(radius), {"out (every 8th window of 1024, and the last)"});
    });
  }
  state.measure();
}

COURSE_BENCH_CASE(StencilBench, Weights, weights_perf, kGlobal)

}  // namespace
