// One perf measurement, declared once (in the spirit of nvbench's `state`): what the lab does (bytes moved or FLOPs),
// the baselines it is compared with, and how its result is checked. The harness times everything the same way for
// every lab — warm-up 3, median of 25 runs, L2 flushed before each run, the baselines timed before and again after
// the lab (course::time_bracketed) — then runs the checks on what the timed code left behind.
//
// A perf body is a function of the state. It reads its problem size from the state (the grader passes the size of
// the manifest's [[perf]] entry, a benchmark sweep passes others), sets up, declares and calls measure():
//
//   void matadd_perf(course::PerfState& state) {
//     const int rows = state.size<int>("rows"), cols = state.size<int>("cols");
//     ... allocate a, b, c and upload random inputs ...
//     const double bytes = double(rows) * cols * sizeof(float);
//     state.baseline("device-to-device copy", course::Work::bytes(2 * bytes), [&] { cudaMemcpyAsync(...); });
//     state.lab("matadd", course::Work::bytes(3 * bytes), [&] { matadd(a, b, c, rows, cols, 0); });
//     state.check("C", [&] { c.poison(); run_launcher(...); return course::compare(c.download(), ...); });
//     state.measure();  // times baselines, lab, baselines again; then runs the checks
//   }
//   COURSE_PERF_TEST(MatAddPerf, BandwidthVsCopy, matadd_perf, "device-to-device copy")  // course/testing.h; no ;
//
// COURSE_PERF_TEST registers the case in perf_cases(); the judge's main() defines its GoogleTest,
// MatAddPerf.BandwidthVsCopy, after every other test (course::register_perf_tests, course/testing.h). The test looks up the lab manifest's [[perf]] entry with test = "MatAddPerf.BandwidthVsCopy": its size goes to the
// state, its key selects the threshold for this GPU, its metric sentence names the ratio
//     ratio = (lab work / lab time) / (baseline work / baseline time)       (equal work: baseline time / lab time)
// against the named baseline (its time: the mean of its medians before and after the lab). The test records the
// GoogleTest properties metric, ratio, threshold, threshold_section, device, result_check and verdict, and fails
// when the ratio is below the threshold or a check fails. Two tests may share one body and grade different baselines.
//
// A sweep (the bench) runs the same bodies at other sizes, with no GoogleTest involved:
//
//   for (const course::PerfCase& c : course::perf_cases()) {   // c.body_name: "matadd_perf"
//     course::Sizes size = course::Manifest::cached(c.manifest).perf_entry(c.test).size;  // the graded size
//     size["rows"] = 4096;
//     course::PerfState state(size);              // also: TimingOptions, a name for messages
//     c.body(state);
//     double gbps = state.results().lab.rate(), r = state.ratio_vs(c.graded_baseline);
//   }
#pragma once

#include "course/compare.h"
#include "course/manifest.h"
#include "course/timed_buffers.h"
#include "course/timing.h"

#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace course {

// What one launch does: bytes moved (rates in GB/s) or floating-point operations (GFLOP/s).
struct Work {
  enum class Unit { bytes, flops };
  double amount = 0.0;
  Unit unit = Unit::bytes;
  static Work bytes(double amount) { return {amount, Unit::bytes}; }
  static Work flops(double amount) { return {amount, Unit::flops}; }
  const char* rate_unit() const { return unit == Unit::bytes ? "GB/s" : "GFLOP/s"; }
};

// One timed launcher.
struct Measured {
  std::string name;
  Work work;
  Timing timing;                // its timed runs (a baseline: those before the lab)
  std::optional<Timing> after;  // a baseline: its runs after the lab
  // The time ratios use: the median, or for a baseline the mean of its medians before and after the lab.
  double ms() const { return after ? 0.5 * (timing.median_ms + after->median_ms) : timing.median_ms; }
  // GB/s or GFLOP/s: work / time.
  double rate() const { return work.amount / (ms() * 1.0e6); }
};

// One result check, run after the timed runs.
struct CheckOutcome {
  std::string name;
  bool ok = false;
  std::string message;  // why it failed (a comparison's paragraph, or the error it threw); empty when ok
};

// A fact of one measurement that is not a time (PerfState::note): a kernel's registers, its blocks per SM, the error
// a launch returned.
struct Note {
  std::string launcher;  // the timed launcher it belongs to; "" for the measurement as a whole
  std::string key;
  std::variant<double, std::string> value;
};

struct PerfResults {
  Measured lab;
  std::vector<Measured> baselines;  // in declaration order
  std::vector<Measured> also;       // timed after the bracket, never graded
  std::vector<CheckOutcome> checks;
  std::vector<Note> notes;  // in the order noted
  bool checks_passed() const;
};

class PerfState {
 public:
  // `sizes`: the problem size the body reads; `source` names where they came from in messages (e.g. the manifest
  // and the test).
  explicit PerfState(Sizes sizes, TimingOptions options = {}, std::string source = "the perf case's sizes");

  // ---- what the body reads ------------------------------------------------------------------------------------------
  // The size `name` as T (an integer type); throws std::invalid_argument naming the source when it is missing or does
  // not fit in T.
  template <class T = long long>
  T size(const std::string& name) const {
    const long long v = size_value(name);
    if (v < static_cast<long long>(std::numeric_limits<T>::min()) ||
        v > static_cast<long long>(std::numeric_limits<T>::max()))
      throw std::invalid_argument(source_ + ": size '" + name + "' = " + std::to_string(v) + " does not fit the type " +
                                  "the perf body reads it as");
    return static_cast<T>(v);
  }
  const Sizes& sizes() const { return sizes_; }
  const TimingOptions& options() const { return options_; }
  std::string sizes_text() const;  // "n = 67108864, radius = 1"

  // ---- what the body declares (names must be unique; the lab exactly once) ------------------------------------------
  void baseline(std::string name, Work work, std::function<void()> launch);
  void lab(std::string name, Work work, std::function<void()> launch);
  // Timed (and printed) after the bracket, never graded: e.g. another template instance of the lab's kernel.
  void also_time(std::string name, Work work, std::function<void()> launch);
  // `check` recomputes and compares what the timed runs computed (poison the output, run the launcher under
  // course::run_launcher, compare with the CPU reference). An exception it throws fails the check with its message.
  void check(std::string name, std::function<CompareResult()> check);
  // `verify` checks what one timed call of the lab wrote, on a part `pick` chooses after the calls: it reads the
  // current set of the body's TimedInput/TimedOutput buffers (course/timed_buffers.h), which is the call's. It runs
  // after every batch, for every call of it (the failures are reported as one check).
  void verify(std::string name, std::function<CompareResult(Pick&)> verify);
  // A fact to keep with the measurement, never graded: a number or a text, of the launcher named `launcher` (declared
  // before the note) or, with "", of the measurement as a whole. Before or after measure(); a key is noted once per
  // launcher. The bench writes the notes into its records and the figure's JSON (grader/bench/merge.py), where the
  // docs quote them: state.note("registers", attr.numRegs, "min 2 blocks") is data/NAME:"SERIES"@X.notes.registers.
  void note(const std::string& key, double value, const std::string& launcher = "");
  void note(const std::string& key, std::string value, const std::string& launcher = "");

  // Times the baselines, the lab and the baselines again in reverse order (time_bracketed), then each also_time
  // launcher, then runs the checks. The launchers and checks are dropped afterwards (they refer to the body's
  // buffers).
  void measure();

  // ---- for TimedBuffer (course/timed_buffers.h) ----------------------------------------------------------------------
  void adopt(TimedBuffer* buffer);
  void forget(TimedBuffer* buffer) noexcept;

  // ---- after measure() ----------------------------------------------------------------------------------------------
  bool measured() const { return measured_; }
  const PerfResults& results() const;
  // The lab's rate over the rate of the declared baseline `name`; throws std::invalid_argument listing the names.
  double ratio_vs(const std::string& name) const;
  // A table of every rate and time, and the checks.
  std::string summary() const;

 private:
  long long size_value(const std::string& name) const;
  void require_new_name(const std::string& name) const;
  void add_note(const std::string& key, std::variant<double, std::string> value, const std::string& launcher);

  struct Declared {
    std::string name;
    Work work;
    std::function<void()> launch;
  };
  Sizes sizes_;
  TimingOptions options_;
  std::string source_;
  std::vector<Declared> baselines_, also_;
  std::optional<Declared> lab_;
  std::vector<std::pair<std::string, std::function<CompareResult()>>> checks_;
  std::vector<std::pair<std::string, std::function<CompareResult(Pick&)>>> verifies_;
  std::vector<TimedBuffer*> buffers_;
  Rng refresh_rng_{test_seed(0x7eed)};  // the timed buffers' window offsets
  Pick pick_{test_seed(0x91c4)};        // what verify() checks of each call
  std::size_t verified_ = 0, failed_ = 0;
  bool measured_ = false;

  TimingOptions timed_buffer_options(bool verify_calls, CheckOutcome& calls);
  PerfResults results_;
};

// ---- perf cases: the registry behind COURSE_PERF_TEST (course/testing.h) --------------------------------------------

struct PerfCase {
  std::string test;             // "Suite.Case": its [[perf]] entry in the manifest
  std::string graded_baseline;  // the declared baseline its ratio divides by
  std::function<void(PerfState&)> body;
  std::string manifest;   // path of the lab's lab.toml
  std::string body_name;  // the body's function name: cases that share a body (labs 05, 06) share a sweep
  std::string file;       // where COURSE_PERF_TEST declared it ("" for a case with no GoogleTest, as in the bench)
  int line = 0;
};

// Every case registered in this program, in registration order.
const std::vector<PerfCase>& perf_cases();
// Registers a case (at static initialization; returns true). Throws std::logic_error for a test registered twice.
bool register_perf_case(PerfCase perf_case);
// The registered case named `test`; throws std::invalid_argument when there is none.
const PerfCase& perf_case(const std::string& test);

// A graded run of a case: everything the test reports.
struct PerfGrade {
  std::string test, metric, key, device, sizes, summary;
  double ratio = 0.0;
  Threshold threshold;
  bool ratio_passed = false;      // ratio >= threshold
  bool checks_passed = false;     // every result check after the timed runs
  std::string check_failures;     // their messages, one paragraph each
  std::string ceiling;            // the library a user would call instead ([[perf]] ceiling), timed in the same run
  double ceiling_fraction = 0.0;  // lab rate / its rate; 0 when it was not timed (not on this backend)
  double review_above = 0.0;      // [[perf]] review_above
  bool review = false;            // ceiling_fraction > review_above: implausible, held for review, never credited
};

// Runs `perf_case` at its manifest size on this device (device_info(): its architecture and name choose the
// threshold). A manifest without the entry or the threshold, a body that declares no check or never measures, and a
// graded baseline the body did not declare all throw; so do launch errors during the timed runs.
PerfGrade grade_perf_case(const PerfCase& perf_case, const TimingOptions& options = {});

}  // namespace course
