// Timing a kernel the honest way: CUDA events around each run, warm-up runs first, the L2 cache flushed before
// every timed run, the device fully synchronized after it (so work on any stream is inside the measurement), and
// the median of many runs reported with its spread.
//
//   course::Timing t = course::time_runs([&] { matadd(a, b, c, rows, cols, 0); });
//   double gbps = 3.0 * bytes_per_array / (t.median_ms * 1e6);
//
// In a judge program (course/remote.h: the lab's launcher runs in another process, which CUDA events here cannot
// see) every launcher is timed instead with the wall clock over batches of back-to-back calls from an idle device to
// an idle device, without L2 flushes (timing.cpp says why); Timing::batch says how many calls a sample holds. Each
// call of a batch may use buffers of its own (TimingOptions::before_call), so no call repeats another's inputs.
//
// The perf tests do not call these directly: course::PerfState (course/measure.h) times every lab with them.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace course {

struct TimingOptions {
  int warmup = 3;
  int runs = 25;
  bool flush_l2 = true;
  // Called before each run, outside the timed region (e.g. to upload fresh inputs or re-poison the output).
  std::function<void()> before_each;
  // Calls with buffers of their own (course/timed_buffers.h; course::PerfState sets these). A run is a batch of
  // `calls` back-to-back calls (in a judge: several; with CUDA events: 1), at most max_batch; in a judge at least
  // min_batch, however long one call took in the warm-up (the tests of the batch's deferred calls ask for several).
  int max_batch = 64;
  int min_batch = 1;
  std::function<void(int calls)> before_batch;  // outside the timed region: gives the batch's buffers new contents
  std::function<void(int call)> before_call;    // inside it, before call `call` of the batch: host work only
  std::function<void(int calls)> after_batch;   // outside it: checks what the batch's calls wrote
};

struct Timing {
  std::vector<double> samples_ms;
  double median_ms = 0.0;
  double min_ms = 0.0;
  double max_ms = 0.0;
  double spread = 0.0;  // (max - min) / median
  int batch = 1;        // calls per sample: 1 with CUDA events; in a judge, the back-to-back calls of one batch
};

// Times `launch` (which enqueues GPU work). Launch errors are checked after every run.
Timing time_runs(const std::function<void()>& launch, const TimingOptions& options = {});

// A baseline timed twice: before and after the lab it is compared with.
struct Baseline {
  Timing before, after;
  double ms() const { return 0.5 * (before.median_ms + after.median_ms); }  // what the ratio uses
};

// A lab timed between its in-run baselines: each baseline runs before the lab and again after it (in reverse
// order), so a drift in clocks or temperature during the test moves both sides of every ratio.
struct Bracketed {
  Timing lab;
  std::vector<Baseline> baselines;  // in the order given
};
// `lab_options`, when given, time the lab (e.g. with checks of its calls that the baselines do not need).
Bracketed time_bracketed(const std::function<void()>& lab, const std::vector<std::function<void()>>& baselines,
                         const TimingOptions& options = {}, const TimingOptions* lab_options = nullptr);

// Bandwidth in GB/s of `bytes` moved in `ms` milliseconds.
inline double gigabytes_per_second(double bytes, double ms) { return bytes / (ms * 1.0e6); }

}  // namespace course
