#include "bench.h"

#include "course/device.h"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace bench {

namespace {

const char* role_name(Role role) {
  switch (role) {
    case Role::solution: return "solution";
    case Role::variant: return "variant";
    case Role::baseline: return "baseline";
    case Role::yardstick: return "yardstick";
  }
  return "?";
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(ch)));
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

// Six significant digits for measurements; sizes (x) exact.
std::string number(double v, int digits = 6) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

void Series::add(double x, const course::Timing& t, double work) {
  // bytes / (ms * 1e6) is GB/s; flops / (ms * 1e6) is GFLOP/s.
  points.push_back({x, work / (t.median_ms * 1.0e6), t.median_ms, t.min_ms, t.max_ms});
}

Bench::Bench(std::string figure, std::string title, std::string x_label, std::string metric, int argc, char** argv)
    : figure_(std::move(figure)), title_(std::move(title)), x_label_(std::move(x_label)), metric_(std::move(metric)) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--out" && i + 1 < argc) {
      out_ = argv[++i];
    } else if (arg == "--runs" && i + 1 < argc) {
      runs_ = std::atoi(argv[++i]);
      if (runs_ < 1) throw std::invalid_argument("--runs must be at least 1");
    } else if (arg == "--quick") {
      quick_ = true;
      runs_ = 3;
    } else {
      extra_.push_back(arg);
    }
  }
}

Series& Bench::series(const std::string& name, const std::string& source, Role role) {
  series_.push_back(Series{name, source, role, {}});
  return series_.back();
}

course::Timing Bench::time(const std::function<void()>& launch) const {
  course::TimingOptions options;
  options.runs = runs_;
  return course::time_runs(launch, options);
}

int Bench::finish() const {
  const course::DeviceInfo& dev = course::device_info();
  int driver = 0;
  cudaDriverGetVersion(&driver);

  // The table: one row per x, one column per series (the metric; blank where a series has no point at that x).
  std::set<double> xs;
  for (const Series& s : series_)
    for (const Point& p : s.points) xs.insert(p.x);
  std::printf("\n%s — %s, %s (%s)\n", figure_.c_str(), title_.c_str(), dev.name.c_str(), metric_.c_str());
  for (std::size_t i = 0; i < series_.size(); ++i)
    std::printf("  [%zu] %s (%s)\n", i + 1, series_[i].name.c_str(), series_[i].source.c_str());
  std::printf("%14s", x_label_.c_str());
  for (std::size_t i = 0; i < series_.size(); ++i) std::printf("  %*s[%zu]", i + 1 < 10 ? 6 : 5, "", i + 1);
  std::printf("\n");
  for (double x : xs) {
    std::printf("%14.0f", x);
    for (const Series& s : series_) {
      const Point* found = nullptr;
      for (const Point& p : s.points)
        if (p.x == x) found = &p;
      if (found)
        std::printf(" %10.1f", found->value);
      else
        std::printf(" %10s", "");
    }
    std::printf("\n");
  }

  if (out_.empty()) return 0;
  std::ostringstream j;
  j << "{\n";
  j << "  \"figure\": " << quoted(figure_) << ",\n";
  j << "  \"title\": " << quoted(title_) << ",\n";
  j << "  \"subject\": " << quoted(subject_) << ",\n";
  j << "  \"gpu\": " << quoted(dev.name) << ",\n";
  j << "  \"arch\": " << quoted(dev.arch()) << ",\n";
  j << "  \"sm_count\": " << dev.sm_count << ",\n";
  j << "  \"l2_bytes\": " << dev.l2_bytes << ",\n";
  j << "  \"cuda\": " << quoted(version_text(dev.runtime_version)) << ",\n";
  j << "  \"driver\": " << quoted(version_text(driver)) << ",\n";
  j << "  \"date\": " << quoted(utc_now()) << ",\n";
  j << "  \"x_label\": " << quoted(x_label_) << ",\n";
  j << "  \"metric\": " << quoted(metric_) << ",\n";
  j << "  \"timing\": {\"warmup\": 3, \"runs\": " << runs_
    << ", \"l2_flush\": true, \"statistic\": \"median\", \"harness\": \"course::time_runs\"},\n";
  j << "  \"notes\": {";
  bool first = true;
  for (const auto& [key, value] : notes_) {
    j << (first ? "\n" : ",\n") << "    " << quoted(key) << ": " << quoted(value);
    first = false;
  }
  j << (first ? "},\n" : "\n  },\n");
  j << "  \"series\": [";
  for (std::size_t i = 0; i < series_.size(); ++i) {
    const Series& s = series_[i];
    j << (i ? ",\n" : "\n") << "    {\"name\": " << quoted(s.name) << ", \"source\": " << quoted(s.source)
      << ", \"role\": " << quoted(role_name(s.role)) << ",\n     \"points\": [";
    for (std::size_t k = 0; k < s.points.size(); ++k) {
      const Point& p = s.points[k];
      j << (k ? ",\n                " : "") << "{\"x\": " << number(p.x, 15) << ", \"value\": " << number(p.value)
        << ", \"ms\": " << number(p.ms) << ", \"min_ms\": " << number(p.min_ms) << ", \"max_ms\": "
        << number(p.max_ms) << "}";
    }
    j << "]}";
  }
  j << "\n  ]\n}\n";

  std::ofstream file(out_);
  file << j.str();
  file.close();
  if (!file) {
    std::fprintf(stderr, "%s: could not write %s\n", figure_.c_str(), out_.c_str());
    return 1;
  }
  std::printf("wrote %s\n", out_.c_str());
  return 0;
}

void check(const std::string& what, std::span<const float> got, const course::Reference& expected, double tolerance) {
  const course::CompareResult r = course::compare(got, expected, tolerance);
  if (!r.ok) throw std::runtime_error(what + " does not match the CPU reference, so it is not timed:\n" + r.message);
  std::printf("checked %-44s max relative error %.2e (tolerance %.2e)\n", what.c_str(), r.max_error, tolerance);
}

void require_gpu(const char* program) {
  const std::string reason = course::timing_unavailable_reason();
  if (!reason.empty()) {
    std::fprintf(stderr, "%s: %s\n", program, reason.c_str());
    std::exit(2);
  }
}

}  // namespace bench
