// A lab's manifest, grader/labs/NN_name/lab.toml, as the C++ harness needs it: the [[perf]] entries and the
// thresholds. The schema and its validation live in grader/course_grader/manifest.py (CMake runs it at configure
// time); this reader checks what it uses and names the file and the key in every error. Read with toml++ (in
// manifest.cpp only: no public header includes it).
//
//   [[perf]]
//   test = "StencilPerf.SpeedupVsGlobal"      # the GoogleTest that measures it
//   key = "min_speedup_vs_global"             # its threshold key
//   metric = "stencil() bandwidth / ..."      # one sentence: what the ratio divides
//   size = { n = 67108864, radius = 1 }       # the problem size the perf test times
//
//   [thresholds.default]                      # any GPU without a section of its own (a notice is printed)
//   [thresholds.sm_90]                        # an architecture: the lowest mark among its calibrated models
//   [thresholds.gpu.nvidia_h200]              # one GPU model, calibrated on it (grader/course.toml [gpus])
//
//   const course::Manifest& m = course::Manifest::cached(COURSE_LAB_MANIFEST);
//   const course::PerfEntry& e = m.perf_entry("StencilPerf.SpeedupVsGlobal");
//   course::Threshold t = m.threshold(e.key, "sm_90", "NVIDIA H200");  // [thresholds.gpu.nvidia_h200]
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace course {

// A manifest that cannot be used; the message names the file, the key and what was expected.
class ManifestError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Problem sizes by name, e.g. {"n": 67108864, "radius": 1}.
using Sizes = std::map<std::string, long long>;

// One [[perf]] table.
struct PerfEntry {
  std::string test;    // "Suite.Case"
  std::string key;     // threshold key
  std::string metric;  // one sentence
  Sizes size;
  std::string ceiling;        // the timed launcher that is the library a user would call instead (its declared name)
  double review_above = 0.0;  // lab rate / ceiling rate above this: implausible, held for review (never credited)
};

// A threshold for one GPU, from the most specific section that has the key:
//   gpu.<model>  this GPU model, calibrated on it (model as gpu_model_key() writes it)
//   sm_XY        its architecture: the lowest mark among the calibrated models of that architecture
//   default      any other GPU
struct Threshold {
  double value = 0.0;
  std::string section;  // where it came from, without "thresholds.": "gpu.nvidia_h200", "sm_90" or "default"
  std::string notice;   // non-empty when this GPU model has no calibration of its own
};

class Manifest {
 public:
  // `source` names the text in error messages (the file's path).
  static Manifest parse(std::string_view text, const std::string& source);
  static Manifest load(const std::string& path);
  // load(path), once per path and process.
  static const Manifest& cached(const std::string& path);

  const std::string& path() const { return path_; }
  const std::vector<PerfEntry>& perf() const { return perf_; }
  // The [[perf]] entry whose test is `test` ("Suite.Case"); throws a ManifestError that lists the entries.
  const PerfEntry& perf_entry(const std::string& test) const;
  // The threshold `key` for a GPU of architecture `arch` ("sm_90") named `device_name` ("NVIDIA H200"; empty: the
  // model is unknown, so no model section applies and no notice names it).
  Threshold threshold(const std::string& key, const std::string& arch, const std::string& device_name = "") const;
  // Section ("default", "sm_90", "gpu.nvidia_h200") -> key -> value.
  const std::map<std::string, std::map<std::string, double>>& thresholds() const { return thresholds_; }

 private:
  std::string path_;
  std::vector<PerfEntry> perf_;
  std::map<std::string, std::map<std::string, double>> thresholds_;
};

// "NVIDIA H100 80GB HBM3" -> "nvidia_h100_80gb_hbm3": lower case, every character outside [a-z0-9] an underscore
// (the same rule as gpu_key() in grader/course_grader/manifest.py and the keys of grader/course.toml [gpus]).
std::string gpu_model_key(const std::string& device_name);

}  // namespace course
