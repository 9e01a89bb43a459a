// Bench only, never graded: the measurements of the occupancy chapter (docs/occupancy.md), on the kernels of
// occupancy_kernels.cu, compiled into bench_lab07_solution only (grader/bench/CMakeLists.txt). Besides the times,
// each point notes what is not a time (state.note): registers, local (spill) bytes and blocks per SM of each kernel,
// and what a launch above 48 KiB returns without the opt-in.
//
//   OccupancyBench.LaunchBounds     the register-blocked GEMM under __launch_bounds__(256, 1 | 2 | 3 | 4), against
//                                   lab 07's double_buffered_gemm(); sizes m, n, k (multiples of 128)
//   OccupancyBench.SharedFootprint  the staged reverse at shared_kib KiB of dynamic shared memory per block, under
//                                   three carveouts, against a device-to-device copy; sizes n (floats), shared_kib
#include "bench_case.h"
#include "cases/occupancy_kernels.h"
#include "lab07_double_buffering.h"

#include <course/cuda_check.h>
#include <course/device_buffer.h>
#include <course/lab_runner.h>
#include <course/random.h>
#include <course/reference/gemm.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#if defined(COURSE_BACKEND_CPU)
#include <course_cpu/diagnostics.h>
#endif

namespace {

constexpr const char* kLabGemm = "double_buffered_gemm (lab 07)";
constexpr const char* kCopy = "device-to-device copy";

std::string bounds_name(int min_blocks) { return "__launch_bounds__(256, " + std::to_string(min_blocks) + ")"; }

// The SM's limits as the device reports them (threads, blocks, registers, shared memory): what occupancy is
// measured against.
void note_device(course::PerfState& state) {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  state.note("shared_per_sm_bytes", static_cast<double>(p.sharedMemPerMultiprocessor));
  state.note("shared_per_block_bytes", static_cast<double>(p.sharedMemPerBlock));
  state.note("shared_per_block_optin_bytes", static_cast<double>(p.sharedMemPerBlockOptin));
  state.note("reserved_shared_per_block_bytes", static_cast<double>(p.reservedSharedMemPerBlock));
  state.note("max_threads_per_sm", p.maxThreadsPerMultiProcessor);
  state.note("max_blocks_per_sm", p.maxBlocksPerMultiProcessor);
  state.note("registers_per_sm", p.regsPerMultiprocessor);
}

// Registers, local bytes, shared bytes and blocks per SM of `facts`, as notes of `launcher`.
void note_facts(course::PerfState& state, const occupancy::KernelFacts& facts, const std::string& launcher) {
  state.note("registers", facts.registers, launcher);
  state.note("local_bytes", static_cast<double>(facts.local_bytes), launcher);
  state.note("static_shared_bytes", static_cast<double>(facts.static_shared_bytes), launcher);
  state.note("blocks_per_sm", facts.blocks_per_sm, launcher);
  state.note("warps_per_sm", facts.blocks_per_sm * occupancy::kGemmThreads / 32.0, launcher);
}

// GFLOP/s of each __launch_bounds__ instance of the GEMM, with what each costs in registers, spills and blocks.
void launch_bounds_perf(course::PerfState& state) {
  const int m = state.size<int>("m"), n = state.size<int>("n"), k = state.size<int>("k");
  const course::GemmSizes sizes = course::gemm_sizes(m, n, k);
  const std::vector<float> a_host = course::random_floats(sizes.a, course::test_seed(771));
  const std::vector<float> b_host = course::random_floats(sizes.b, course::test_seed(772));
  course::DeviceBuffer<float> a(a_host, "A"), b(b_host, "B"), c(sizes.c, "C");
  const course::Work flops = course::Work::flops(2.0 * m * n * k);

  std::vector<std::pair<std::string, std::function<void()>>> checked;
  const auto lab_gemm = [&] { double_buffered_gemm(a.data(), b.data(), c.data(), m, n, k, 0); };
  state.baseline(kLabGemm, flops, lab_gemm);
  checked.emplace_back("double_buffered_gemm", lab_gemm);
  for (int min_blocks : occupancy::kMinBlocks) {
    const std::string name = bounds_name(min_blocks);
    const auto gemm = [&, min_blocks] {
      occupancy::bounded_gemm(min_blocks, a.data(), b.data(), c.data(), m, n, k, 0);
    };
    if (min_blocks == occupancy::kMinBlocks[0])
      state.lab(name, flops, gemm);
    else
      state.also_time(name, flops, gemm);
    note_facts(state, occupancy::bounded_gemm_facts(min_blocks), name);
    checked.emplace_back(name, gemm);
  }
  note_device(state);

  constexpr int kRowStep = 64;  // every 64th row of C, as lab 07's perf test checks
  std::optional<course::Reference> ref;
  for (const auto& [name, gemm] : checked) {
    state.check(name, [&, name = name, gemm = gemm] {
      if (!ref) ref = course::gemm_reference(a_host, b_host, m, n, k, kRowStep);
      c.poison();
      course::run_launcher(
          name + " (m=" + std::to_string(m) + ", n=" + std::to_string(n) + ", k=" + std::to_string(k) + ")", gemm);
      const course::Layout layout{"C (every 64th row)", static_cast<std::size_t>((m + kRowStep - 1) / kRowStep),
                                  static_cast<std::size_t>(n)};
      return course::compare(course::sample_rows(c.download(), m, n, kRowStep), *ref, course::gemm_tolerance(k),
                             layout);
    });
  }
  state.measure();
}

COURSE_BENCH_CASE(OccupancyBench, LaunchBounds, launch_bounds_perf, kLabGemm)

// ---- the shared-memory footprint ----------------------------------------------------------------------------------

struct Staged {
  occupancy::Config config;
  const char* name;
};
constexpr Staged kStaged[] = {
    {occupancy::Config::max_shared, "carveout: max shared (100 %)"},
    {occupancy::Config::automatic, "carveout: not set (driver's choice)"},
    {occupancy::Config::max_l1, "carveout: max L1 (0 %)"},
};

// out = each tile of `tile` floats of in, reversed: exact, so every element is compared.
course::CompareResult compare_reversed(const std::vector<float>& in, const std::vector<float>& out, long long tile) {
  const long long n = static_cast<long long>(in.size());
  long long wrong = 0, first = -1;
  for (long long base = 0; base < n; base += tile) {
    const long long len = n - base < tile ? n - base : tile;
    for (long long j = 0; j < len; ++j) {
      if (out[base + j] == in[base + len - 1 - j]) continue;
      if (wrong++ == 0) first = base + j;
    }
  }
  course::CompareResult r;
  if (wrong == 0) return r;
  r.ok = false;
  r.message = std::to_string(wrong) + " of " + std::to_string(n) +
              " elements differ from the input reversed in tiles " + "of " + std::to_string(tile) +
              " floats; the first at index " + std::to_string(first);
  return r;
}

// GB/s of the staged reverse at one footprint, in three carveouts; blocks per SM of each; the launch without opt-in.
void shared_footprint_perf(course::PerfState& state) {
  const long long n = state.size<long long>("n");
  const std::size_t shared_bytes = static_cast<std::size_t>(state.size<int>("shared_kib")) * 1024;
  const std::vector<float> in_host = course::random_floats(static_cast<std::size_t>(n), course::test_seed(773));
  course::DeviceBuffer<float> in(in_host, "in"), out(static_cast<std::size_t>(n), "out");
  const course::Work bytes = course::Work::bytes(2.0 * n * sizeof(float));

  state.baseline(kCopy, bytes, [&] {
    CUDA_CHECK(cudaMemcpyAsync(out.data(), in.data(), n * sizeof(float), cudaMemcpyDeviceToDevice, 0));
  });
  for (const Staged& s : kStaged) {
    occupancy::prepare_staged_reverse(s.config, shared_bytes);
    const auto run = [&, config = s.config] {
      occupancy::staged_reverse(config, in.data(), out.data(), n, shared_bytes, 0);
    };
    if (s.config == kStaged[0].config)
      state.lab(s.name, bytes, run);
    else
      state.also_time(s.name, bytes, run);
    const occupancy::KernelFacts f = occupancy::staged_reverse_facts(s.config, shared_bytes);
    state.note("blocks_per_sm", f.blocks_per_sm, s.name);
    state.note("warps_per_sm", f.blocks_per_sm * occupancy::kReverseThreads / 32.0, s.name);
    state.note("max_dynamic_shared_bytes", f.max_dynamic_shared_bytes, s.name);
    state.note("preferred_carveout", f.preferred_carveout, s.name);
    state.check(s.name, [&, s] {
      out.poison();
      course::run_launcher(std::string(s.name) + " at " + std::to_string(shared_bytes) + " bytes",
                           [&] { occupancy::staged_reverse(s.config, in.data(), out.data(), n, shared_bytes, 0); });
      return compare_reversed(in_host, out.download(), static_cast<long long>(shared_bytes / 4));
    });
  }

  // Without the opt-in: the same kernel, its limit left at the default. What the occupancy API and a launch say.
  const occupancy::Config bare = occupancy::Config::no_opt_in;
  const occupancy::KernelFacts f = occupancy::staged_reverse_facts(bare, shared_bytes);
  state.note("default_max_dynamic_shared_bytes", f.max_dynamic_shared_bytes);
  state.note("blocks_per_sm_without_opt_in", f.blocks_per_sm);
  state.note("occupancy_error_without_opt_in", f.occupancy_error.empty() ? "cudaSuccess" : f.occupancy_error);
  const cudaError_t launched = occupancy::try_staged_reverse(bare, in.data(), out.data(), n, shared_bytes, 0);
  CUDA_CHECK(cudaDeviceSynchronize());
#if defined(COURSE_BACKEND_CPU)
  // The CPU backend also reports the rejected launch as a finding, which the next check would take for its own.
  static_cast<void>(course_cpu::take_diagnostics());
#endif
  state.note("launch_without_opt_in", cudaGetErrorName(launched));
  state.note("launch_without_opt_in_message", cudaGetErrorString(launched));
  state.note("launched_without_opt_in", launched == cudaSuccess ? 1 : 0);
  note_device(state);
  state.note("dynamic_shared_bytes", static_cast<double>(shared_bytes));
  state.measure();
}

COURSE_BENCH_CASE(OccupancyBench, SharedFootprint, shared_footprint_perf, kCopy)

}  // namespace
