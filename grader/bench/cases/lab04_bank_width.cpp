// Bench only, never graded: the bank width of shared memory, measured. Warp-wide shared loads 4, 8 and 16 bytes wide
// (float, float2, float4), lane l reading element l * stride, timed as shared-memory bytes loaded per second at each
// stride; with the figure's Nsight Compute counts (grader/bench/figures.toml, ncu_size), their bank conflicts at one
// stride. For the bank_width figure of docs/bank-conflicts.md ("Bank width on Hopper"); the kernels are
// docs/examples/bank_width.cu, which belongs to no lab, compiled into bench_lab04_solution only, with this file
// (grader/bench/CMakeLists.txt).
#include "bench_case.h"

#include <course/device.h>
#include <course/device_buffer.h>
#include <course/lab_runner.h>
#include <course/random.h>

#include <cmath>
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

// Defined in docs/examples/bank_width.cu. out[t] (blocks * threads floats) = the sum of `loads` loads of lane t % 32
// from a shared array of width_bytes-byte elements (4: float, 8: float2, 16: float4) that holds a copy of `words`
// (bank_width_words(width_bytes) floats): load k reads element (t % 32) * stride + ((k / 8) % 8 + k % 8) * (128 /
// width_bytes). 1 <= stride <= 33; loads a positive multiple of 8; threads a multiple of 32.
int bank_width_words(int width_bytes);
void bank_width(int width_bytes, int stride, int loads, const float* words, float* out, int blocks, int threads,
                cudaStream_t stream);

namespace {

struct Width {
  const char* name;  // the launcher's name in the records ([[bench.series]] launcher)
  int bytes;
};
constexpr Width kWidths[] = {{"4-byte loads (float)", 4}, {"8-byte loads (float2)", 8}, {"16-byte loads (float4)", 16}};

// The grid: 4 blocks of 256 threads per SM, all resident at once (32 warps per SM; the kernels use far less than the
// registers and shared memory that allows), so that every SM makes the same number of loads in one wave.
constexpr int kThreads = 256, kBlocksPerSm = 4;
// The words are whole numbers from 1 to 32, and a thread makes at most 2^16 loads: every partial sum is a whole
// number below 2^24, exact in float whatever the order of the additions, so the check asks for the exact sum.
constexpr int kMaxLoads = 1 << 16;

// What thread t must return: the sum over its loads k of the words of element (t % 32) * stride + ((k / 8) % 8 +
// k % 8) * line, a line being 128 bytes (128 / width_bytes elements), each element width_bytes / 4 words.
course::Reference bank_width_reference(const std::vector<float>& words, int width_bytes, int stride, int loads,
                                       std::size_t threads) {
  const int per_element = width_bytes / 4, line = 128 / width_bytes;
  double per_lane[32];
  for (int lane = 0; lane < 32; ++lane) {
    double sum = 0.0;
    for (int k = 0; k < loads; ++k) {
      const int element = lane * stride + ((k / 8) % 8 + k % 8) * line;
      for (int c = 0; c < per_element; ++c) sum += words.at(static_cast<std::size_t>(element * per_element + c));
    }
    per_lane[lane] = sum;
  }
  course::Reference ref;
  ref.value.reserve(threads);
  for (std::size_t t = 0; t < threads; ++t) ref.value.push_back(per_lane[t % 32]);
  return ref;
}

// GB/s of shared memory loaded (32 lanes x width bytes per warp-wide load) at `stride`, for the three widths.
void bank_width_perf(course::PerfState& state) {
  const int stride = state.size<int>("stride"), loads = state.size<int>("loads");
  if (loads < 8 || loads > kMaxLoads || loads % 8 != 0)
    throw std::invalid_argument("bank width: loads must be a multiple of 8 from 8 to " + std::to_string(kMaxLoads) +
                                ", got " + std::to_string(loads));
  const int blocks = kBlocksPerSm * course::device_info().sm_count;
  const std::size_t threads = static_cast<std::size_t>(blocks) * kThreads;
  // The largest array (the float4 one) for every width: each reads the first bank_width_words(width) of it.
  std::vector<float> words_host =
      course::random_floats(static_cast<std::size_t>(bank_width_words(16)), course::test_seed(441), 1.0f, 33.0f);
  for (float& v : words_host) v = std::floor(v);  // whole numbers 1 .. 32
  course::DeviceBuffer<float> words(words_host, "words"), out(threads, "out");

  const auto launcher = [&](const Width& w) {
    return std::function<void()>(
        [&, w] { bank_width(w.bytes, stride, loads, words.data(), out.data(), blocks, kThreads, 0); });
  };
  const auto work = [&](const Width& w) { return course::Work::bytes(static_cast<double>(threads) * loads * w.bytes); };
  state.lab(kWidths[0].name, work(kWidths[0]), launcher(kWidths[0]));
  for (int i = 1; i < 3; ++i) state.also_time(kWidths[i].name, work(kWidths[i]), launcher(kWidths[i]));

  for (const Width& w : kWidths) {
    state.check(w.name, [&, w] {
      out.poison();
      course::run_launcher("bank_width(" + std::to_string(w.bytes) + ", stride = " + std::to_string(stride) +
                               ", loads = " + std::to_string(loads) + ", blocks = " + std::to_string(blocks) + ")",
                           launcher(w));
      return course::compare(out.download(), bank_width_reference(words_host, w.bytes, stride, loads, threads), 0.0,
                             {"out (one sum per thread)"});
    });
  }
  state.measure();
}

COURSE_BENCH_CASE(PaddedGemmBench, BankWidth, bank_width_perf, "")

}  // namespace
