// The bench behind the course's figures (docs/figures.md). It runs the perf cases registered in this program — the
// COURSE_PERF_TEST bodies of the lab's test.cpp and the bench-only cases of grader/bench/cases/ — at the sizes given
// on its command line, with the measurement object of the graded tests (course::PerfState, course/measure.h), and
// writes every measurement as JSON. There is one program per subject, a lab's solution or one of its variants: the
// subject's lab file is linked as it is, next to the lab's test and baseline objects (grader/bench/CMakeLists.txt),
// so nothing is renamed and every subject runs in a process of its own.
//
//   bench_lab01_solution --list
//   bench_lab01_solution --case MatAddPerf.BandwidthVsCopy --size cols=4096 --vary rows=16,32,64 --out rows.json
//   bench_lab03_solution --case TiledGemmPerf.SpeedupVsNaive --vary m,n,k=256,512,1024
//
// Sizes of each point: the case's [[perf]] entry in the lab's manifest (the graded size), then each --size KEY=V,
// then the --vary keys, all set to the point's value. A bench-only case has no [[perf]] entry: --size and --vary give
// all its sizes. --runs N and --warmup N (default 25 and 3, as graded); --no-l2-flush with --runs 1 --warmup 0 gives a
// profiler one launch of each kernel. Exit status: 0; 1 when a case stopped or a result check failed (the JSON is
// still written and says which); 2 for a bad command line, or no GPU to time on.
//
// The JSON, read by grader/bench/run_bench.py:
//   {"lab", "subject", "sources", "program", "case", "body", "graded_baseline", "backend", "date",
//    "device": {"name", "arch", "sm_count", "l2_bytes", "cuda", "driver"}, "timing": {"warmup", "runs", "l2_flush"},
//    "records": [{"sizes": {KEY: V, ...},
//                 "launchers": [{"name", "kind" (baseline | lab | also), "unit" (bytes | flops), "work", "rate",
//                                "rate_unit", "ms" (what ratios use), "median_ms", "min_ms", "max_ms",
//                                "after_median_ms" (a baseline's median after the lab),
//                                "notes": {KEY: number or text} (state.note(KEY, V, launcher); only when noted)}],
//                 "ratios": {BASELINE: lab rate / baseline rate}, "checks": [{"name", "ok", "message"}],
//                 "notes": {KEY: number or text} (state.note(KEY, V): facts of the point; only when noted)}],
//    "error": why the sweep stopped (only when it did)}
#include <course/device.h>
#include <course/manifest.h>
#include <course/measure.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <exception>
#include <fstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

namespace course_bench {
// What this program measures: defined in a file that grader/bench/CMakeLists.txt generates for each program.
extern const char* const kLab;      // "01"
extern const char* const kSubject;  // "solution" or a variant's stem
extern const char* const kSources;  // its lab file(s), relative to the repository root
}  // namespace course_bench

namespace {

class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

constexpr const char* kUsage =
    "usage: %s --list\n"
    "       %s --case SUITE.CASE [--size KEY=V]... [--vary KEY[,KEY...]=V[,V...]] [--out FILE]\n"
    "          [--runs N] [--warmup N] [--no-l2-flush]\n";

struct Args {
  bool list = false;
  std::string case_name, out;
  course::Sizes size;
  std::vector<std::string> vary;
  std::vector<long long> values;
  course::TimingOptions timing;
};

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts(1);
  for (char ch : text) {
    if (ch == separator)
      parts.emplace_back();
    else
      parts.back() += ch;
  }
  return parts;
}

long long integer(const std::string& text, const std::string& what) {
  std::size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) throw UsageError(what + ": '" + text + "' is not an integer");
  return value;
}

// "KEY=V" or "K1,K2=V1,V2": the keys and the values, each list non-empty.
std::pair<std::vector<std::string>, std::vector<long long>> assignment(const std::string& text, const char* option) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos) throw UsageError(std::string(option) + " " + text + ": expected KEY=VALUE");
  std::pair<std::vector<std::string>, std::vector<long long>> result;
  result.first = split(text.substr(0, eq), ',');
  for (const std::string& v : split(text.substr(eq + 1), ',')) result.second.push_back(integer(v, option));
  for (const std::string& key : result.first)
    if (key.empty()) throw UsageError(std::string(option) + " " + text + ": an empty size name");
  return result;
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--list") {
      a.list = true;
    } else if (arg == "--case") {
      a.case_name = value();
    } else if (arg == "--out") {
      a.out = value();
    } else if (arg == "--size") {
      const auto [keys, values] = assignment(value(), "--size");
      if (keys.size() != 1 || values.size() != 1) throw UsageError("--size takes one KEY=VALUE");
      a.size[keys[0]] = values[0];
    } else if (arg == "--vary") {
      std::tie(a.vary, a.values) = assignment(value(), "--vary");
    } else if (arg == "--runs") {
      a.timing.runs = static_cast<int>(integer(value(), "--runs"));
    } else if (arg == "--warmup") {
      a.timing.warmup = static_cast<int>(integer(value(), "--warmup"));
    } else if (arg == "--no-l2-flush") {
      a.timing.flush_l2 = false;
    } else {
      throw UsageError(arg == "--help" || arg == "-h" ? "" : "unknown argument '" + arg + "'");
    }
  }
  if (!a.list && a.case_name.empty()) throw UsageError("--case is required (--list names the cases)");
  if (a.timing.runs < 1 || a.timing.warmup < 0) throw UsageError("--runs must be at least 1, --warmup at least 0");
  return a;
}

// ---- JSON -----------------------------------------------------------------------------------------------------------

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(ch)));
      out += buffer;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

// Measurements with 6 significant digits, work and sizes exactly; null for what is not a number.
std::string number(double v, int digits = 6) {
  if (!std::isfinite(v)) return "null";
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, v);
  return buffer;
}

std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

std::string sizes_json(const course::Sizes& sizes) {
  std::string text;
  for (const auto& [key, value] : sizes)
    text += (text.empty() ? "" : ", ") + quoted(key) + ": " + std::to_string(value);
  return "{" + text + "}";
}

// The notes of `launcher` ("": the record's own) as a JSON object; "" when it has none.
std::string notes_json(const std::vector<course::Note>& notes, const std::string& launcher) {
  std::string text;
  for (const course::Note& n : notes) {
    if (n.launcher != launcher) continue;
    const std::string value =
        n.value.index() == 0 ? number(std::get<double>(n.value), 17) : quoted(std::get<std::string>(n.value));
    text += (text.empty() ? "" : ", ") + quoted(n.key) + ": " + value;
  }
  return text.empty() ? "" : "{" + text + "}";
}

std::string launcher_json(const course::Measured& m, const char* kind, const std::vector<course::Note>& notes) {
  double min_ms = m.timing.min_ms, max_ms = m.timing.max_ms;
  if (m.after) {
    min_ms = std::min(min_ms, m.after->min_ms);
    max_ms = std::max(max_ms, m.after->max_ms);
  }
  std::string text = "{\"name\": " + quoted(m.name) + ", \"kind\": \"" + kind + "\", \"unit\": \"" +
                     (m.work.unit == course::Work::Unit::bytes ? "bytes" : "flops") +
                     "\", \"work\": " + number(m.work.amount, 17) + ", \"rate\": " + number(m.rate()) +
                     ", \"rate_unit\": " + quoted(m.work.rate_unit()) + ",\n          \"ms\": " + number(m.ms()) +
                     ", \"median_ms\": " + number(m.timing.median_ms) + ", \"min_ms\": " + number(min_ms) +
                     ", \"max_ms\": " + number(max_ms);
  if (m.after) text += ", \"after_median_ms\": " + number(m.after->median_ms);
  const std::string noted = notes_json(notes, m.name);
  if (!noted.empty()) text += ",\n          \"notes\": " + noted;
  return text + "}";
}

std::string record_json(const course::PerfState& state) {
  const course::PerfResults& r = state.results();
  std::vector<std::string> launchers, ratios, checks;
  for (const course::Measured& b : r.baselines) {
    launchers.push_back(launcher_json(b, "baseline", r.notes));
    if (b.work.unit == r.lab.work.unit) ratios.push_back(quoted(b.name) + ": " + number(state.ratio_vs(b.name)));
  }
  launchers.push_back(launcher_json(r.lab, "lab", r.notes));
  for (const course::Measured& a : r.also) launchers.push_back(launcher_json(a, "also", r.notes));
  for (const course::CheckOutcome& c : r.checks)
    checks.push_back("{\"name\": " + quoted(c.name) + ", \"ok\": " + (c.ok ? "true" : "false") +
                     ", \"message\": " + quoted(c.message) + "}");
  const auto join = [](const std::vector<std::string>& items, const char* separator) {
    std::string text;
    for (const std::string& item : items) text += (text.empty() ? "" : separator) + item;
    return text;
  };
  const std::string noted = notes_json(r.notes, "");
  return "{\"sizes\": " + sizes_json(state.sizes()) + ",\n     \"launchers\": [\n        " +
         join(launchers, ",\n        ") + "],\n     \"ratios\": {" + join(ratios, ", ") + "},\n     \"checks\": [" +
         join(checks, ", ") + "]" + (noted.empty() ? "" : ",\n     \"notes\": " + noted) + "}";
}

std::string run_json(const course::PerfCase& c, const Args& a, const std::string& program,
                     const std::vector<std::string>& records, const std::string& error) {
  const course::DeviceInfo& device = course::device_info();
  int driver = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
  std::string text =
      "{\n  \"lab\": " + quoted(course_bench::kLab) + ", \"subject\": " + quoted(course_bench::kSubject) +
      ", \"sources\": " + quoted(course_bench::kSources) + ",\n  \"program\": " + quoted(program) +
      ", \"case\": " + quoted(c.test) + ", \"body\": " + quoted(c.body_name) +
      ", \"graded_baseline\": " + quoted(c.graded_baseline) +
      ",\n  \"backend\": " + (course::kBackend == course::Backend::gpu ? "\"gpu\"" : "\"cpu\"") +
      ", \"date\": " + quoted(utc_now()) + ",\n  \"device\": {\"name\": " + quoted(device.name) +
      ", \"arch\": " + quoted(device.arch()) + ", \"sm_count\": " + std::to_string(device.sm_count) +
      ", \"l2_bytes\": " + std::to_string(device.l2_bytes) +
      ", \"cuda\": " + quoted(version_text(device.runtime_version)) + ", \"driver\": " + quoted(version_text(driver)) +
      "},\n  \"timing\": {\"warmup\": " + std::to_string(a.timing.warmup) +
      ", \"runs\": " + std::to_string(a.timing.runs) + ", \"l2_flush\": " + (a.timing.flush_l2 ? "true" : "false") +
      "},\n  \"records\": [";
  for (std::size_t i = 0; i < records.size(); ++i) text += (i ? ",\n    " : "\n    ") + records[i];
  text += "]";
  if (!error.empty()) text += ",\n  \"error\": " + quoted(error);
  return text + "\n}\n";
}

// ---- the sweep ------------------------------------------------------------------------------------------------------

// The graded size of the case: its [[perf]] entry in the lab's manifest; none for a bench-only case.
course::Sizes graded_size(const course::PerfCase& c) {
  if (c.manifest.empty()) return {};
  for (const course::PerfEntry& e : course::Manifest::cached(c.manifest).perf())
    if (e.test == c.test) return e.size;
  return {};
}

int run(const Args& a, const std::string& program) {
  if (a.list) {
    for (const course::PerfCase& c : course::perf_cases())
      std::printf("%s  (body %s, graded against '%s')\n", c.test.c_str(), c.body_name.c_str(),
                  c.graded_baseline.c_str());
    return 0;
  }
  const course::PerfCase& c = course::perf_case(a.case_name);
  if (course::kBackend == course::Backend::gpu) {
    const std::string reason = course::timing_unavailable_reason();
    if (!reason.empty()) {
      std::fprintf(stderr, "%s: %s\n", program.c_str(), reason.c_str());
      return 2;
    }
  } else {
    std::printf("NOTICE: the CPU backend times the host clock: the numbers are meaningless, the code path is not\n");
  }
  course::Sizes base = graded_size(c);
  for (const auto& [key, value] : a.size) base[key] = value;
  std::vector<course::Sizes> points;
  for (long long v : a.values) {
    points.push_back(base);
    for (const std::string& key : a.vary) points.back()[key] = v;
  }
  if (a.values.empty()) points.push_back(base);

  std::vector<std::string> records;
  std::string error;
  bool checks_passed = true;
  for (const course::Sizes& sizes : points) {
    course::PerfState state(sizes, a.timing, program + " --case " + c.test);
    try {
      c.body(state);
      if (!state.measured()) throw std::logic_error("the body returned without calling state.measure()");
    } catch (const std::exception& e) {
      error = c.test + " at " + state.sizes_text() + ": " + e.what();
      std::fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
      break;
    }
    std::printf("%s (%s %s) on %s\n%s", c.test.c_str(), course_bench::kLab, course_bench::kSubject,
                course::device_info().name.c_str(), state.summary().c_str());
    std::fflush(stdout);
    checks_passed = checks_passed && state.results().checks_passed();
    records.push_back(record_json(state));
  }
  if (!a.out.empty()) {
    std::ofstream file(a.out);
    file << run_json(c, a, program, records, error);
    file.close();
    if (!file) throw std::runtime_error("could not write " + a.out);
  }
  if (!checks_passed) std::fprintf(stderr, "%s: a result check failed (see above)\n", program.c_str());
  return error.empty() && checks_passed ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string program = argc > 0 ? argv[0] : "bench";
  program = program.substr(program.find_last_of('/') + 1);  // npos + 1 == 0
  Args args;
  try {
    args = parse(argc, argv);
  } catch (const UsageError& e) {
    if (*e.what()) std::fprintf(stderr, "%s: %s\n", program.c_str(), e.what());
    std::fprintf(stderr, kUsage, program.c_str(), program.c_str());
    return 2;
  }
  try {
    return run(args, program);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", program.c_str(), e.what());
    return 1;
  }
}
