#include "course/timing.h"

#include "course/cuda_check.h"
#include "course/device.h"
#include "course/device_buffer.h"
#include "course/remote.h"
#include "course/stats.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

namespace course {

namespace {

// RAII CUDA event.
class Event {
 public:
  Event() { CUDA_CHECK(cudaEventCreate(&event_)); }
  ~Event() { CUDA_CHECK_NOEXCEPT(cudaEventDestroy(event_)); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_{};
};

// Writing a buffer four times the size of L2 evicts whatever the previous run left there, so every timed run starts
// from DRAM, like the first touch of real data would.
class L2Flusher {
 public:
  L2Flusher() {
    const std::size_t l2 = std::max<std::size_t>(device_info().l2_bytes, 8u << 20);
    buffer_ = DeviceBuffer<unsigned char>(4 * l2, "L2 flush buffer");
  }
  void flush() { CUDA_CHECK(cudaMemsetAsync(buffer_.data(), 0, buffer_.bytes(), 0)); }

 private:
  DeviceBuffer<unsigned char> buffer_;
};

L2Flusher& flusher() {
  static L2Flusher instance;  // one per process, created at the first timed run
  return instance;
}

// After a launch: its errors, from the worker's report when the launcher ran there (course/remote.h).
void check_launched(const char* what) {
  if (std::optional<remote::Outcome> o = remote::take_outcome()) {
    if (!o->failure.empty()) throw std::runtime_error(std::string(what) + ": " + o->failure);
    const cudaError_t e = o->launch != cudaSuccess ? o->launch : o->run;
    if (e != cudaSuccess) throw CudaError(e, describe_cuda_failure(e, what, __FILE__, __LINE__));
    return;
  }
  COURSE_CHECK_LAUNCH(what);  // also waits for work the launcher put on other streams
}

// Timing in a judge (course/remote.h): the lab's launcher runs in the worker, a process of its own, whose GPU work
// CUDA events in the judge cannot see. So a judge times every launcher, its own baselines and the worker's lab alike,
// with its wall clock over a batch of `n` back-to-back calls between an idle device and an idle device, divided by
// `n`: the worker runs the batch and synchronizes its device (all streams) before it answers. Each call of the batch
// may name buffers of its own (TimingOptions::before_call picks them), so that no call can replay another's result. A batch lasts about
// kBatchMs, which spreads the call's round trip (tens of microseconds) over the batch. No L2 flush between runs: a
// flush is GPU work in the judge's context, and every switch between the judge's and the worker's contexts costs
// about 0.2 ms on an H100 (measured: grader/calibration/CALIBRATION.md); the graded sizes either exceed the L2 or are
// compute-bound. For the same reason the worker's context is warmed before each of its batches (remote::warm_worker):
// the judge's refresh of the batch's inputs is GPU work in the judge's context.
constexpr double kBatchMs = 2.0;
constexpr int kMaxBatch = 64;

// One batch of n calls; `remote`: the launches go to the worker (its context is warmed first, outside the clock).
// Returns the time per call; *made_remote_calls says whether they did.
double wall_clock_batch(const std::function<void()>& launch, int n, const TimingOptions& options, const char* what,
                        bool remote, bool* made_remote_calls = nullptr) {
  if (options.before_each) options.before_each();
  if (options.before_batch) options.before_batch(n);
  CUDA_CHECK(cudaDeviceSynchronize());
  if (remote) remote::warm_worker();
  remote::begin_batch(n);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    if (options.before_call) options.before_call(i);
    launch();
  }
  const int remote_calls = remote::end_batch();
  if (made_remote_calls) *made_remote_calls = remote_calls > 0;
  const cudaError_t sync = cudaDeviceSynchronize();
  const auto stop = std::chrono::steady_clock::now();
  if (sync != cudaSuccess) throw CudaError(sync, describe_cuda_failure(sync, what, __FILE__, __LINE__));
  check_launched(what);
  if (options.after_batch) options.after_batch(n);
  return std::chrono::duration<double, std::milli>(stop - start).count() / n;
}

Timing judge_time_runs(const std::function<void()>& launch, const TimingOptions& options) {
  double single_ms = 0.0;
  bool remote = false;  // learnt in the warm-up: do the launches go to the worker?
  for (int i = 0; i < std::max(options.warmup, 1); ++i)
    single_ms = wall_clock_batch(launch, 1, options, "the timed launcher (warm-up)", remote, &remote);
  const int most = std::clamp(options.max_batch, 1, kMaxBatch);
  const int least = std::clamp(options.min_batch, 1, most);
  const int n = std::clamp(static_cast<int>(std::ceil(kBatchMs / std::max(single_ms, 1e-3))), least, most);
  Timing timing;
  for (int i = 0; i < options.runs; ++i)
    timing.samples_ms.push_back(wall_clock_batch(launch, n, options, "the timed launcher", remote));
  timing.batch = n;
  return timing;
}

}  // namespace

Timing time_runs(const std::function<void()>& launch, const TimingOptions& options) {
  if (options.runs < 1) throw std::invalid_argument("time_runs: runs must be at least 1");
  if (options.warmup < 0) throw std::invalid_argument("time_runs: warmup must not be negative");
  if (remote::is_judge()) {
    Timing timing = judge_time_runs(launch, options);
    timing.median_ms = median(timing.samples_ms);
    timing.min_ms = minimum(timing.samples_ms);
    timing.max_ms = maximum(timing.samples_ms);
    timing.spread = relative_spread(timing.samples_ms);
    return timing;
  }
  auto one_call = [&](bool timed, Event* start, Event* stop) {
    if (options.before_each) options.before_each();
    if (options.before_batch) options.before_batch(1);
    if (timed && options.flush_l2) flusher().flush();
    if (options.before_call) options.before_call(0);
    if (start) CUDA_CHECK(cudaEventRecord(start->get(), 0));
    launch();
    if (stop) CUDA_CHECK(cudaEventRecord(stop->get(), 0));
    if (stop) CUDA_CHECK(cudaEventSynchronize(stop->get()));
    check_launched(timed ? "the timed launcher" : "the timed launcher (warm-up)");  // also waits for other streams
    if (options.after_batch) options.after_batch(1);
  };
  for (int i = 0; i < options.warmup; ++i) one_call(false, nullptr, nullptr);
  Event start, stop;
  Timing timing;
  timing.samples_ms.reserve(static_cast<std::size_t>(options.runs));
  for (int i = 0; i < options.runs; ++i) {
    one_call(true, &start, &stop);
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    timing.samples_ms.push_back(ms);
  }
  timing.median_ms = median(timing.samples_ms);
  timing.min_ms = minimum(timing.samples_ms);
  timing.max_ms = maximum(timing.samples_ms);
  timing.spread = relative_spread(timing.samples_ms);
  return timing;
}

Bracketed time_bracketed(const std::function<void()>& lab, const std::vector<std::function<void()>>& baselines,
                         const TimingOptions& options, const TimingOptions* lab_options) {
  Bracketed result;
  result.baselines.resize(baselines.size());
  for (std::size_t i = 0; i < baselines.size(); ++i) result.baselines[i].before = time_runs(baselines[i], options);
  result.lab = time_runs(lab, lab_options ? *lab_options : options);
  for (std::size_t i = baselines.size(); i-- > 0;) result.baselines[i].after = time_runs(baselines[i], options);
  return result;
}

}  // namespace course
