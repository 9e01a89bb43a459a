// What every bench program shares: its command line, a check against the CPU reference, timing through the course
// harness (course::time_runs: warm-up, L2 flush before every run, median of 25), a printed table and the JSON file
// that docs/figures/make_figures.py draws.
//
//   bench::Bench b("matadd", "matAdd against a device-to-device copy", "elements", "GB/s", argc, argv);
//   bench::Series& s = b.series("reference", "solutions/01_matadd/matadd.cu", bench::Role::solution);
//   bench::check("matadd reference", got, reference, tolerance);  // throws: a wrong kernel is never timed or plotted
//   s.add(n, b.time([&] { matadd(...); }), 3 * bytes);              // x, the harness's timing, bytes (or FLOPs) done
//   return b.finish();                                             // prints the table, writes --out FILE
//
// JSON (one file per figure, docs/data/<figure>.json):
//   { "figure", "title", "subject", "gpu", "arch", "sm_count", "l2_bytes", "cuda" (runtime, "13.0"), "driver",
//     "date" (UTC, ISO 8601), "x_label", "metric" ("GB/s" | "GFLOP/s"), "timing": {warmup, runs, l2_flush, ...},
//     "notes": {...}, "series": [ { "name", "source", "role", "points": [ {x, value, ms, min_ms, max_ms} ] } ] }
// (bank_conflicts.json also gets Nsight Compute's counts from add_ncu_counts.py: "ncu_bank_conflicts", and "ncu"
// in each profiled series.)
// A ratio figure (speed-up over a baseline) divides a series by the series with role "baseline" measured in the
// same run at the same x; the JSON keeps both, never only the ratio.
#pragma once

#include "course/compare.h"
#include "course/timing.h"

#include <deque>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace bench {

// What a series is, so the figure can style it: the lab's reference solution, a correct variant a student might
// write, the baseline the grader compares with, or an outside yardstick (a copy, cuBLAS).
enum class Role { solution, variant, baseline, yardstick };

struct Point {
  double x = 0;
  double value = 0;  // in the figure's metric
  double ms = 0, min_ms = 0, max_ms = 0;
};

struct Series {
  std::string name;
  std::string source;  // the file that holds the kernel, relative to the repository root
  Role role = Role::solution;
  std::vector<Point> points;
  // Records one measurement: `work` bytes (GB/s) or floating-point operations (GFLOP/s) done in t.median_ms.
  void add(double x, const course::Timing& t, double work);
};

class Bench {
 public:
  // Parses --out FILE (write the JSON there), --runs N (timed runs per point, default 25) and --quick (a smoke test:
  // 3 runs; the caller also trims its sizes). Other arguments are left for the caller in extra_args().
  Bench(std::string figure, std::string title, std::string x_label, std::string metric, int argc, char** argv);

  Series& series(const std::string& name, const std::string& source, Role role);
  course::Timing time(const std::function<void()>& launch) const;
  bool quick() const { return quick_; }
  const std::vector<std::string>& extra_args() const { return extra_; }
  void note(const std::string& key, const std::string& value) { notes_[key] = value; }
  void set_subject(std::string subject) { subject_ = std::move(subject); }

  // Prints one table (rows: x, columns: series) and writes the JSON. Returns main's exit status.
  int finish() const;

 private:
  std::string figure_, title_, subject_, x_label_, metric_, out_;
  int runs_ = 25;
  bool quick_ = false;
  std::vector<std::string> extra_;
  std::deque<Series> series_;  // finish() keeps this order; a deque keeps the references series() returned
  std::map<std::string, std::string> notes_;
};

// Throws std::runtime_error naming `what` when `got` does not match the CPU reference: the bench stops before it
// times (and plots) a wrong kernel.
void check(const std::string& what, std::span<const float> got, const course::Reference& expected, double tolerance);

// Exits with a clear message unless a CUDA GPU is present (the bench only times; it has no CPU fallback).
void require_gpu(const char* program);

}  // namespace bench
