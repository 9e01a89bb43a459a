#include "course/timing.h"

#include "course/cuda_check.h"
#include "course/device.h"
#include "course/device_buffer.h"
#include "course/stats.h"

#include <algorithm>
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

}  // namespace

Timing time_runs(const std::function<void()>& launch, const TimingOptions& options) {
  if (options.runs < 1) throw std::invalid_argument("time_runs: runs must be at least 1");
  if (options.warmup < 0) throw std::invalid_argument("time_runs: warmup must not be negative");
  for (int i = 0; i < options.warmup; ++i) {
    if (options.before_each) options.before_each();
    launch();
    COURSE_CHECK_LAUNCH("the timed launcher (warm-up)");
  }
  Event start, stop;
  Timing timing;
  timing.samples_ms.reserve(static_cast<std::size_t>(options.runs));
  for (int i = 0; i < options.runs; ++i) {
    if (options.before_each) options.before_each();
    if (options.flush_l2) flusher().flush();
    CUDA_CHECK(cudaEventRecord(start.get(), 0));
    launch();
    CUDA_CHECK(cudaEventRecord(stop.get(), 0));
    CUDA_CHECK(cudaEventSynchronize(stop.get()));
    COURSE_CHECK_LAUNCH("the timed launcher");  // also waits for work the launcher put on other streams
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
                         const TimingOptions& options) {
  Bracketed result;
  result.baselines.resize(baselines.size());
  for (std::size_t i = 0; i < baselines.size(); ++i) result.baselines[i].before = time_runs(baselines[i], options);
  result.lab = time_runs(lab, options);
  for (std::size_t i = baselines.size(); i-- > 0;) result.baselines[i].after = time_runs(baselines[i], options);
  return result;
}

}  // namespace course
