// The buffers of a perf measurement: every timed call gets inputs of its own, and what it wrote is checked.
//
// A submission must not be able to pass the perf test by computing once and replaying the result, or by skipping
// calls. So a perf body declares its inputs and outputs through the state:
//
//   course::TimedInput a(state, n, course::test_seed(111), "A");   // float inputs, random in [-1, 1)
//   course::TimedOutput c(state, n, "C");
//   state.lab("matadd", work, [&] { matadd(a.data(), b.data(), c.data(), rows, cols, 0); });
//   state.verify("C", [&](course::Pick& pick) { ... compare c.gather(...) with a reference from a.host() ... });
//
// Each holds several sets of device memory, one per call of a timing batch (course/timing.h). Before every batch the
// judge gives each input set new contents: a window of a larger random pool, at an offset drawn then (a multiple of
// 64 elements, so vector loads stay aligned), and poisons each output set (0xFF bytes: NaN). Call i of the batch
// reads and writes set i. After the batch the judge checks every call's output on a part it picks then (the verify
// functions, with a Pick drawn from the secret seed), so a call that was skipped, replayed or computed only in part
// is found whichever it was. data() and host() are the current set's; outside a batch that is set 0, with contents
// the timed calls never saw, which the body's full checks (state.check) use after the timed runs.
#pragma once

#include "course/compare.h"
#include "course/random.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace course {

class PerfState;

// The judge's choices of what to check, drawn after the calls (from the secret seed: the worker cannot know them).
class Pick {
 public:
  explicit Pick(std::uint64_t seed) : rng_(seed) {}
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng_.next_u64() % n); }
  // The first index of a window of `width` elements (at most `size`) somewhere in [0, size).
  std::size_t window(std::size_t size, std::size_t width) { return below(size - std::min(width, size) + 1); }

 private:
  Rng rng_;
};

// A buffer with one set of device memory per call of a batch (PerfState drives it: the body only declares it).
class TimedBuffer {
 public:
  TimedBuffer(PerfState& state, std::size_t count, std::string name);
  virtual ~TimedBuffer();
  TimedBuffer(const TimedBuffer&) = delete;
  TimedBuffer& operator=(const TimedBuffer&) = delete;

  float* data() { return sets_.at(current_); }  // the current set, on the device
  std::size_t size() const { return count_; }
  const std::string& name() const { return name_; }

  // ---- for PerfState ----------------------------------------------------------------------------------------------
  std::size_t set_bytes() const { return count_ * sizeof(float); }
  void allocate(int sets);                       // sets beyond the first (set 0 exists from the start)
  virtual void refresh(int sets, Rng& rng) = 0;  // new contents for sets 0 .. sets-1 (before a batch)
  virtual void select(int set) { current_ = static_cast<std::size_t>(set); }

 protected:
  std::size_t count_;
  std::string name_;
  std::vector<float*> sets_;
  std::size_t current_ = 0;
  PerfState* state_;
};

class TimedInput : public TimedBuffer {
 public:
  // Values uniform in [lo, hi) from `seed`: a pool of count + slack values, each set a window of it.
  TimedInput(PerfState& state, std::size_t count, std::uint64_t seed, std::string name, float lo = -1.0f,
             float hi = 1.0f);
  ~TimedInput() override;

  std::span<const float> host() const;  // the current set's values
  // The sum of the current set's values and of their magnitudes, in double (for the reduction's check; computed
  // from prefix sums of the pool, so each call costs O(1) after the first).
  Reference sum() const;

  void refresh(int sets, Rng& rng) override;

 private:
  std::vector<float> pool_;             // count + slack values
  float* device_pool_ = nullptr;        // the same, on the device
  std::vector<std::size_t> offsets_;    // per set: where its window starts in the pool
  mutable std::vector<double> prefix_;  // sums of the pool's 64-value blocks, then of their magnitudes
};

class TimedOutput : public TimedBuffer {
 public:
  TimedOutput(PerfState& state, std::size_t count, std::string name);

  void poison();                                                          // the current set
  std::vector<float> download() const;                                    // the current set, whole
  std::vector<float> gather(std::size_t first, std::size_t count) const;  // elements [first, first + count)

  void refresh(int sets, Rng& rng) override;  // poisons them
};

}  // namespace course
