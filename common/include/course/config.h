// Per-lab thresholds, read from grader/thresholds/labNN.toml: a small TOML subset.
//
//   # comment
//   [default]                      # used for any GPU without its own section (a notice is printed)
//   min_fraction_of_copy = 0.70
//   [sm_90]                        # compute capability 9.0: H100, H200
//   min_fraction_of_copy = 0.80
//   [meta]
//   calibrated_on = "NVIDIA H200, 2026-11-22, CUDA 13.0"
//
// Values are numbers, "strings" or true/false. Errors name the file and line.
#pragma once

#include <map>
#include <stdexcept>
#include <string>

namespace course {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Config {
 public:
  static Config parse(const std::string& text, const std::string& source_name);
  static Config load(const std::string& path);

  bool has(const std::string& section, const std::string& key) const;
  double number(const std::string& section, const std::string& key) const;
  std::string string(const std::string& section, const std::string& key) const;
  const std::string& source() const { return source_; }

 private:
  struct Value {
    std::string text;
    bool is_string = false;
    int line = 0;
  };
  const Value& find(const std::string& section, const std::string& key) const;

  std::string source_;
  std::map<std::string, std::map<std::string, Value>> sections_;
};

// A lab's threshold for this GPU, from the most specific section that has the key:
//   [gpu.<name>]  this GPU model, calibrated on it (name as gpu_section_name() writes it, e.g. gpu.nvidia_h200)
//   [sm_XY]       its architecture: the lowest mark among the models of that architecture that were calibrated
//   [default]     any other GPU
// A notice says when the GPU model itself was not calibrated.
struct Threshold {
  double value = 0.0;
  std::string section;  // where it came from
  std::string notice;   // non-empty when the GPU model has no calibration of its own
};
Threshold lookup_threshold(const Config& config, const std::string& key, const std::string& arch,
                           const std::string& device_name = "");

// "NVIDIA H100 80GB HBM3" -> "gpu.nvidia_h100_80gb_hbm3": lower case, every other character an underscore.
std::string gpu_section_name(const std::string& device_name);

// grader/thresholds, or $COURSE_THRESHOLDS_DIR when that is set.
std::string thresholds_dir();
// <thresholds_dir()>/<lab>.toml
Config load_lab_config(const std::string& lab);

}  // namespace course
