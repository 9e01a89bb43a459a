#include "course/measure.h"

#include "course/cuda_check.h"
#include "course/device.h"
#include "course/remote.h"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace course {

namespace {

std::string format(const char* pattern, auto... values) {
  char buffer[512];
  std::snprintf(buffer, sizeof buffer, pattern, values...);
  return buffer;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& n : names) text += (text.empty() ? "'" : ", '") + n + "'";
  return text.empty() ? "none" : text;
}

std::vector<PerfCase>& registry() {
  static std::vector<PerfCase> cases;  // built at static initialization, read-only afterwards
  return cases;
}

}  // namespace

bool PerfResults::checks_passed() const {
  return std::all_of(checks.begin(), checks.end(), [](const CheckOutcome& c) { return c.ok; });
}

PerfState::PerfState(Sizes sizes, TimingOptions options, std::string source)
    : sizes_(std::move(sizes)), options_(std::move(options)), source_(std::move(source)) {}

long long PerfState::size_value(const std::string& name) const {
  const auto it = sizes_.find(name);
  if (it == sizes_.end())
    throw std::invalid_argument(source_ + ": no size '" + name +
                                "' (sizes: " + (sizes_.empty() ? std::string("none") : sizes_text()) + ")");
  return it->second;
}

std::string PerfState::sizes_text() const {
  std::string text;
  for (const auto& [name, value] : sizes_) text += (text.empty() ? "" : ", ") + name + " = " + std::to_string(value);
  return text;
}

void PerfState::require_new_name(const std::string& name) const {
  if (measured_) throw std::logic_error("perf state: '" + name + "' declared after measure()");
  bool taken = lab_ && lab_->name == name;
  for (const auto* list : {&baselines_, &also_})
    for (const Declared& d : *list) taken = taken || d.name == name;
  if (name.empty() || taken)
    throw std::logic_error("perf state: every timed launcher needs a unique, non-empty name; '" + name +
                           "' is empty or declared twice");
}

void PerfState::baseline(std::string name, Work work, std::function<void()> launch) {
  require_new_name(name);
  baselines_.push_back({std::move(name), work, std::move(launch)});
}

void PerfState::lab(std::string name, Work work, std::function<void()> launch) {
  require_new_name(name);
  if (lab_) throw std::logic_error("perf state: the lab is declared twice ('" + lab_->name + "', '" + name + "')");
  lab_ = Declared{std::move(name), work, std::move(launch)};
}

void PerfState::also_time(std::string name, Work work, std::function<void()> launch) {
  require_new_name(name);
  also_.push_back({std::move(name), work, std::move(launch)});
}

void PerfState::check(std::string name, std::function<CompareResult()> check) {
  if (measured_) throw std::logic_error("perf state: check '" + name + "' declared after measure()");
  checks_.emplace_back(std::move(name), std::move(check));
}

void PerfState::verify(std::string name, std::function<CompareResult(Pick&)> verify) {
  if (measured_) throw std::logic_error("perf state: verify '" + name + "' declared after measure()");
  verifies_.emplace_back(std::move(name), std::move(verify));
}

void PerfState::note(const std::string& key, double value, const std::string& launcher) {
  add_note(key, value, launcher);
}

void PerfState::note(const std::string& key, std::string value, const std::string& launcher) {
  add_note(key, std::move(value), launcher);
}

void PerfState::add_note(const std::string& key, std::variant<double, std::string> value, const std::string& launcher) {
  if (!launcher.empty()) {
    std::vector<std::string> names;
    if (measured_) {
      names.push_back(results_.lab.name);
      for (const auto* list : {&results_.baselines, &results_.also})
        for (const Measured& m : *list) names.push_back(m.name);
    } else {
      if (lab_) names.push_back(lab_->name);
      for (const auto* list : {&baselines_, &also_})
        for (const Declared& d : *list) names.push_back(d.name);
    }
    if (std::find(names.begin(), names.end(), launcher) == names.end())
      throw std::logic_error("perf state: note '" + key + "' of launcher '" + launcher +
                             "', which is not declared (declared: " + join_names(names) + ")");
  }
  for (const Note& n : results_.notes)
    if (n.launcher == launcher && n.key == key)
      throw std::logic_error("perf state: note '" + key + "'" + (launcher.empty() ? "" : " of '" + launcher + "'") +
                             " is noted twice");
  if (key.empty()) throw std::logic_error("perf state: a note needs a non-empty key");
  results_.notes.push_back({launcher, key, std::move(value)});
}

void PerfState::adopt(TimedBuffer* buffer) {
  if (measured_) throw std::logic_error("perf state: timed buffer '" + buffer->name() + "' declared after measure()");
  buffers_.push_back(buffer);
}

void PerfState::forget(TimedBuffer* buffer) noexcept { std::erase(buffers_, buffer); }

// The options of the timed runs when the body declared timed buffers (course/timed_buffers.h): as many sets as a
// batch may hold calls, within half the free device memory and 16 GiB; each batch's sets refreshed before it; call
// i on set i; and, for the lab (`verify_calls`), every call's output verified after its batch into `calls`.
TimingOptions PerfState::timed_buffer_options(bool verify_calls, CheckOutcome& calls) {
  TimingOptions o = options_;
  if (buffers_.empty()) return o;
  std::size_t per_set = 0;
  for (const TimedBuffer* b : buffers_) per_set += b->set_bytes();
  std::size_t free = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free, &total));
  const std::size_t budget = std::min<std::size_t>(free / 2, std::size_t{16} << 30);
  o.max_batch = static_cast<int>(std::clamp<std::size_t>(budget / std::max<std::size_t>(per_set, 1), 1, 64));
  o.before_batch = [this](int n) {
    for (TimedBuffer* b : buffers_) {
      b->allocate(n);
      b->refresh(n, refresh_rng_);
    }
  };
  o.before_call = [this](int i) {
    for (TimedBuffer* b : buffers_) b->select(i);
  };
  if (!verify_calls || verifies_.empty()) return o;
  o.after_batch = [this, &calls](int n) {
    for (int i = 0; i < n; ++i) {
      for (TimedBuffer* b : buffers_) b->select(i);
      for (auto& [name, run] : verifies_) {
        ++verified_;
        CompareResult r;
        try {
          r = run(pick_);
        } catch (const std::exception& e) {
          r.ok = false;
          r.message = e.what();
        }
        if (r.ok) continue;
        ++failed_;
        if (calls.ok) {
          calls.ok = false;
          calls.message =
              format("call %d of a batch of %d back-to-back calls (each with inputs of its own), %s: ", i + 1, n,
                     name.c_str()) +
              r.message;
        }
      }
    }
    for (TimedBuffer* b : buffers_) b->select(0);
  };
  return o;
}

void PerfState::measure() {
  if (measured_) throw std::logic_error("perf state: measure() called twice");
  if (!lab_) throw std::logic_error("perf state: measure() needs the lab: declare it with state.lab(...)");
  CheckOutcome calls{"every timed call (checked on parts picked after the calls)", true, ""};
  const TimingOptions plain = timed_buffer_options(false, calls);
  const TimingOptions verified = timed_buffer_options(true, calls);
  std::vector<std::function<void()>> launches;
  for (const Declared& b : baselines_) launches.push_back(b.launch);
  const Bracketed bracket = time_bracketed(lab_->launch, launches, plain, &verified);
  results_.lab = {lab_->name, lab_->work, bracket.lab, std::nullopt};
  for (std::size_t i = 0; i < baselines_.size(); ++i)
    results_.baselines.push_back(
        {baselines_[i].name, baselines_[i].work, bracket.baselines[i].before, bracket.baselines[i].after});
  for (const Declared& a : also_) results_.also.push_back({a.name, a.work, time_runs(a.launch, plain), {}});
  if (!verifies_.empty()) {
    if (!calls.ok) calls.message += format(" (%zu of %zu checks of timed calls failed)", failed_, verified_);
    results_.checks.push_back(calls);
  }
  // The full checks below run on set 0, with contents no timed call saw.
  for (TimedBuffer* b : buffers_) {
    b->select(0);
    b->refresh(1, refresh_rng_);
  }

  for (auto& [name, run] : checks_) {
    CheckOutcome outcome{name, false, ""};
    try {
      const CompareResult r = run();
      outcome.ok = r.ok;
      outcome.message = r.message;
    } catch (const std::exception& e) {
      outcome.message = e.what();
    }
    results_.checks.push_back(std::move(outcome));
  }
  // The launchers and checks capture the body's buffers by reference: they must not outlive it.
  lab_.reset();
  baselines_.clear();
  also_.clear();
  checks_.clear();
  verifies_.clear();
  measured_ = true;
}

const PerfResults& PerfState::results() const {
  if (!measured_) throw std::logic_error("perf state: results() before measure()");
  return results_;
}

double PerfState::ratio_vs(const std::string& name) const {
  std::vector<std::string> names;
  for (const Measured& b : results().baselines) {
    if (b.name != name) {
      names.push_back(b.name);
      continue;
    }
    if (b.work.unit != results_.lab.work.unit)
      throw std::invalid_argument("perf state: the lab's work and baseline '" + name +
                                  "' are in different units (bytes and FLOPs): their rates do not divide");
    return results_.lab.rate() / b.rate();
  }
  throw std::invalid_argument("perf state: no baseline '" + name + "' was declared (declared: " + join_names(names) +
                              ")");
}

std::string PerfState::summary() const {
  const PerfResults& r = results();
  std::size_t width = r.lab.name.size();
  for (const auto* list : {&r.baselines, &r.also})
    for (const Measured& m : *list) width = std::max(width, m.name.size());
  const int w = static_cast<int>(width);
  const std::string how =
      remote::is_judge()
          ? format(
                "; each time: the median of %d batches of back-to-back calls (lab: %d per batch, run by the worker "
                "process), wall clock, after %d warm-up calls\n",
                options_.runs, r.lab.timing.batch, options_.warmup)
          : format("; each time: the median of %d runs after %d warm-up runs%s\n", options_.runs, options_.warmup,
                   options_.flush_l2 ? ", L2 flushed before each run" : "");
  std::string text = "size: " + sizes_text() + how;
  for (const Measured& b : r.baselines)
    text += format("  %-*s  baseline    %9.1f %-7s  median %.4f ms before the lab, %.4f ms after\n", w, b.name.c_str(),
                   b.rate(), b.work.rate_unit(), b.timing.median_ms, b.after ? b.after->median_ms : 0.0);
  text += format("  %-*s  lab         %9.1f %-7s  median %.4f ms, spread %.1f %%\n", w, r.lab.name.c_str(),
                 r.lab.rate(), r.lab.work.rate_unit(), r.lab.timing.median_ms, 100 * r.lab.timing.spread);
  for (const Measured& a : r.also) {
    text += format("  %-*s  also timed  %9.1f %-7s  median %.4f ms, spread %.1f %%", w, a.name.c_str(), a.rate(),
                   a.work.rate_unit(), a.timing.median_ms, 100 * a.timing.spread);
    for (const Measured& b : r.baselines)
      if (b.work.unit == a.work.unit) text += format("; %.3fx %s", a.rate() / b.rate(), b.name.c_str());
    text += "\n";
  }
  for (const CheckOutcome& c : r.checks)
    text += "  result check '" + c.name + "' after the timed runs: " + (c.ok ? "pass" : "FAIL") + "\n";
  for (const Note& n : r.notes) {
    const std::string value =
        n.value.index() == 0 ? format("%g", std::get<double>(n.value)) : "'" + std::get<std::string>(n.value) + "'";
    text += "  note " + (n.launcher.empty() ? "" : n.launcher + ": ") + n.key + " = " + value + "\n";
  }
  return text;
}

// ---- the registry and the graded run --------------------------------------------------------------------------------

const std::vector<PerfCase>& perf_cases() { return registry(); }

bool register_perf_case(PerfCase perf_case) {
  for (const PerfCase& c : registry())
    if (c.test == perf_case.test) throw std::logic_error("perf case " + perf_case.test + " is registered twice");
  registry().push_back(std::move(perf_case));
  return true;
}

const PerfCase& perf_case(const std::string& test) {
  std::vector<std::string> names;
  for (const PerfCase& c : registry()) {
    if (c.test == test) return c;
    names.push_back(c.test);
  }
  throw std::invalid_argument("no perf case '" + test + "' is registered (registered: " + join_names(names) + ")");
}

PerfGrade grade_perf_case(const PerfCase& perf_case, const TimingOptions& options) {
  if (perf_case.manifest.empty())
    throw std::logic_error(perf_case.test +
                           ": no lab manifest: build the test with course_add_lab() "
                           "(grader/cmake/CourseLab.cmake), which sets COURSE_LAB_MANIFEST");
  const Manifest& manifest = Manifest::cached(perf_case.manifest);
  const PerfEntry& entry = manifest.perf_entry(perf_case.test);
  const DeviceInfo& device = device_info();

  PerfGrade grade;
  grade.test = perf_case.test;
  grade.metric = entry.metric;
  grade.key = entry.key;
  grade.device = device.name;
  grade.threshold = manifest.threshold(entry.key, device.arch(), device.name);

  PerfState state(entry.size, options, manifest.path() + ": [[perf]] test = \"" + perf_case.test + "\"");
  perf_case.body(state);
  if (!state.measured())
    throw std::logic_error(perf_case.test + ": the perf body returned without calling state.measure()");
  const PerfResults& results = state.results();
  if (results.checks.empty())
    throw std::logic_error(perf_case.test +
                           ": the perf body declares no state.check(...); a graded measurement "
                           "must verify what the timed runs computed");
  grade.sizes = state.sizes_text();
  grade.summary = state.summary();
  grade.ratio = state.ratio_vs(perf_case.graded_baseline);
  grade.ratio_passed = grade.ratio >= grade.threshold.value;
  grade.checks_passed = results.checks_passed();
  grade.ceiling = entry.ceiling;
  grade.review_above = entry.review_above;
  bool ceiling_timed = false;
  for (const auto* list : {&results.baselines, &results.also})
    for (const Measured& m : *list)
      if (m.name == entry.ceiling && m.work.unit == results.lab.work.unit) {
        grade.ceiling_fraction = results.lab.rate() / m.rate();
        ceiling_timed = true;
      }
#if defined(COURSE_BACKEND_GPU)
  // On a GPU every ceiling is timed (cuBLAS, CUB, a copy): a name that matches nothing is a mistake in the lab's files,
  // which would silently leave results unreviewed.
  if (!entry.ceiling.empty() && !ceiling_timed)
    throw std::logic_error(manifest.path() + ": [[perf]] test = \"" + perf_case.test + "\" names the ceiling \"" +
                           entry.ceiling + "\", but its perf body timed no launcher of that name in " +
                           results.lab.work.rate_unit());
#endif
  grade.review = grade.ceiling_fraction > grade.review_above;
  for (const CheckOutcome& c : results.checks) {
    if (c.ok) continue;
    grade.check_failures += "After the timed runs at " + grade.sizes + ", the result of " + c.name +
                            " is wrong (the timed runs of the lab must compute it correctly too; the correctness " +
                            "tests use smaller sizes):\n" + c.message + "\n";
  }
  return grade;
}

}  // namespace course
