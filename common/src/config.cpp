#include "course/config.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

#ifndef COURSE_THRESHOLDS_DIR
#define COURSE_THRESHOLDS_DIR "grader/thresholds"
#endif

namespace course {

namespace {

std::string trim(const std::string& s) {
  const auto begin = s.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  const auto end = s.find_last_not_of(" \t\r");
  return s.substr(begin, end - begin + 1);
}

// Removes a '#' comment that is not inside a "string".
std::string strip_comment(const std::string& line) {
  bool in_string = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '"') in_string = !in_string;
    if (line[i] == '#' && !in_string) return line.substr(0, i);
  }
  return line;
}

bool is_bare_key(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return true;
}

}  // namespace

Config Config::parse(const std::string& text, const std::string& source_name) {
  Config config;
  config.source_ = source_name;
  std::istringstream in(text);
  std::string raw, section;
  int number = 0;
  auto fail = [&](const std::string& why) {
    throw ConfigError(source_name + ":" + std::to_string(number) + ": " + why);
  };
  while (std::getline(in, raw)) {
    ++number;
    const std::string line = trim(strip_comment(raw));
    if (line.empty()) continue;
    if (line.front() == '[') {
      if (line.back() != ']') fail("a section header must end with ']'");
      section = trim(line.substr(1, line.size() - 2));
      if (!is_bare_key(section)) fail("bad section name '" + section + "'");
      config.sections_[section];
      continue;
    }
    const auto eq = line.find('=');
    if (eq == std::string::npos) fail("expected 'key = value' or '[section]', got '" + line + "'");
    if (section.empty()) fail("'" + line + "' comes before any [section]");
    const std::string key = trim(line.substr(0, eq));
    std::string value = trim(line.substr(eq + 1));
    if (!is_bare_key(key)) fail("bad key '" + key + "'");
    if (value.empty()) fail("key '" + key + "' has no value");
    Value v;
    v.line = number;
    if (value.front() == '"') {
      if (value.size() < 2 || value.back() != '"') fail("unterminated string for key '" + key + "'");
      v.text = value.substr(1, value.size() - 2);
      v.is_string = true;
    } else if (value == "true" || value == "false") {
      v.text = value;
    } else {
      char* end = nullptr;
      std::strtod(value.c_str(), &end);
      if (end == value.c_str() || *end != '\0') fail("value of '" + key + "' is not a number: '" + value + "'");
      v.text = value;
    }
    if (config.sections_[section].count(key)) fail("key '" + key + "' appears twice in [" + section + "]");
    config.sections_[section][key] = v;
  }
  return config;
}

Config Config::load(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw ConfigError("cannot open the configuration file " + path);
  std::ostringstream text;
  text << file.rdbuf();
  return parse(text.str(), path);
}

bool Config::has(const std::string& section, const std::string& key) const {
  const auto s = sections_.find(section);
  return s != sections_.end() && s->second.count(key) != 0;
}

const Config::Value& Config::find(const std::string& section, const std::string& key) const {
  const auto s = sections_.find(section);
  if (s == sections_.end() || !s->second.count(key))
    throw ConfigError(source_ + ": no key '" + key + "' in section [" + section + "]");
  return s->second.at(key);
}

double Config::number(const std::string& section, const std::string& key) const {
  const Value& v = find(section, key);
  if (v.is_string || v.text == "true" || v.text == "false")
    throw ConfigError(source_ + ":" + std::to_string(v.line) + ": '" + key + "' must be a number");
  return std::strtod(v.text.c_str(), nullptr);
}

std::string Config::string(const std::string& section, const std::string& key) const {
  const Value& v = find(section, key);
  if (!v.is_string) throw ConfigError(source_ + ":" + std::to_string(v.line) + ": '" + key + "' must be a string");
  return v.text;
}

std::string gpu_section_name(const std::string& device_name) {
  std::string name = "gpu.";
  bool underscore = false;  // collapse runs of separators into one underscore
  for (unsigned char c : device_name) {
    if (std::isalnum(c)) {
      if (underscore && name.size() > 4) name += '_';
      name += static_cast<char>(std::tolower(c));
      underscore = false;
    } else {
      underscore = true;
    }
  }
  return name;
}

Threshold lookup_threshold(const Config& config, const std::string& key, const std::string& arch,
                           const std::string& device_name) {
  Threshold t;
  const std::string model = device_name.empty() ? "" : gpu_section_name(device_name);
  if (!model.empty() && config.has(model, key)) {
    t.section = model;
  } else if (config.has(arch, key)) {
    t.section = arch;
    if (!device_name.empty())
      t.notice = "'" + key + "' was not calibrated on " + device_name + " itself; using the [" + arch +
                 "] value from " + config.source() + " (the lowest mark among the calibrated " + arch + " GPUs)";
  } else {
    t.section = "default";
    t.notice = "no '" + key + "' calibrated for " + arch + " in " + config.source() +
               "; using the [default] value, which was calibrated on another GPU";
  }
  t.value = config.number(t.section, key);
  return t;
}

std::string thresholds_dir() {
  const char* dir = std::getenv("COURSE_THRESHOLDS_DIR");
  return (dir != nullptr && *dir != '\0') ? dir : COURSE_THRESHOLDS_DIR;
}

Config load_lab_config(const std::string& lab) { return Config::load(thresholds_dir() + "/" + lab + ".toml"); }

}  // namespace course
