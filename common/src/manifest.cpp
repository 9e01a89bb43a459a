// Reads a lab's manifest with toml++, header-only: this is the one file that includes it.
#include "course/manifest.h"

#define TOML_HEADER_ONLY 1
#if __has_include(<toml++/toml.hpp>)
#include <toml++/toml.hpp>
#else
#include <toml++/toml.h>  // Debian 12's libtomlplusplus-dev (3.3) has only this name
#endif

#include <cctype>
#include <fstream>
#include <memory>
#include <mutex>
#include <regex>
#include <sstream>

namespace course {

namespace {

// Where a node is, for messages: "lab.toml:12" when toml++ knows the line, else "lab.toml".
std::string where(const std::string& path, const toml::node& node) {
  const auto line = node.source().begin.line;
  return line > 0 ? path + ":" + std::to_string(line) : path;
}

// A value as TOML writes it; a table or a list by its kind.
std::string text_of(const toml::node& node) {
  if (node.is_table()) return "a table";
  if (node.is_array()) return "a list";
  std::ostringstream out;
  out << toml::node_view<const toml::node>{node};
  return out.str();
}

// Typed access to one table; every error names the file and the dotted key.
class Table {
 public:
  Table(const std::string& path, std::string name, const toml::table& table)
      : path_(path), name_(std::move(name)), table_(table) {}

  std::string dotted(const std::string& key) const { return name_.empty() ? key : name_ + "." + key; }

  const toml::node& node(const std::string& key, const char* what) const {
    const toml::node* n = table_.get(key);
    if (n == nullptr) throw ManifestError(path_ + ": missing key '" + dotted(key) + "' (" + what + ")");
    return *n;
  }
  std::string string(const std::string& key, const char* what) const {
    const toml::node& n = node(key, what);
    if (!n.is_string()) wrong_type(key, n, "a string");
    return std::string(n.as_string()->get());
  }
  Table table(const std::string& key, const char* what) const {
    const toml::node& n = node(key, what);
    if (!n.is_table()) wrong_type(key, n, "a table");
    return Table(path_, dotted(key), *n.as_table());
  }
  long long integer(const std::string& key, const toml::node& n) const {
    if (!n.is_integer()) wrong_type(key, n, "an integer");
    return static_cast<long long>(n.as_integer()->get());
  }
  double number(const std::string& key, const toml::node& n) const {
    if (n.is_integer()) return static_cast<double>(n.as_integer()->get());
    if (!n.is_floating_point()) wrong_type(key, n, "a number");
    return n.as_floating_point()->get();
  }
  [[noreturn]] void wrong_type(const std::string& key, const toml::node& n, const char* expected) const {
    throw ManifestError(where(path_, n) + ": '" + dotted(key) + "' must be " + expected + ", not " + text_of(n));
  }
  const toml::table& raw() const { return table_; }

 private:
  const std::string& path_;
  std::string name_;
  const toml::table& table_;
};

PerfEntry read_perf_entry(const Table& t) {
  PerfEntry e;
  e.test = t.string("test", "the GoogleTest name 'Suite.Case'");
  e.key = t.string("key", "the threshold key");
  e.metric = t.string("metric", "one sentence: what the ratio divides");
  e.ceiling = t.string("ceiling", "the name of the timed launcher a user would call instead (cuBLAS, a copy)");
  const toml::node& review = t.node("review_above", "the fraction of the ceiling above which a result is reviewed");
  e.review_above = t.number("review_above", review);
  if (!(e.review_above > 0.0)) t.wrong_type("review_above", review, "a positive number");
  const Table size = t.table("size", "the problem size, e.g. { n = 67108864 }");
  for (const auto& [name, value] : size.raw()) {
    const std::string key(name.str());
    e.size[key] = size.integer(key, value);
  }
  return e;
}

std::map<std::string, double> read_threshold_section(const Table& t) {
  std::map<std::string, double> values;
  for (const auto& [name, value] : t.raw()) {
    const std::string key(name.str());
    values[key] = t.number(key, value);
  }
  return values;
}

const std::regex& arch_section() {
  static const std::regex re("sm_[0-9]+");
  return re;
}

}  // namespace

Manifest Manifest::parse(std::string_view text, const std::string& source) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    const auto& at = e.source().begin;
    throw ManifestError(source + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) +
                        ": not valid TOML: " + std::string(e.description()));
  }
  Manifest m;
  m.path_ = source;
  const Table top(m.path_, "", root);

  if (const toml::node* perf = root.get("perf")) {
    if (!perf->is_array()) top.wrong_type("perf", *perf, "a list of [[perf]] tables");
    const toml::array& entries = *perf->as_array();
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const std::string name = "perf[" + std::to_string(i) + "]";
      if (!entries[i].is_table()) top.wrong_type(name, entries[i], "a table");
      m.perf_.push_back(read_perf_entry(Table(m.path_, name, *entries[i].as_table())));
    }
  }

  if (root.get("thresholds") == nullptr) {
    if (!m.perf_.empty())
      throw ManifestError(m.path_ + ": missing table [thresholds.default] (the pass marks of the [[perf]] keys)");
    return m;
  }
  const Table thresholds = top.table("thresholds", "sections default, sm_XY and gpu.<model>");
  for (const auto& [name, value] : thresholds.raw()) {
    const std::string section(name.str());
    if (section == "gpu") {
      const Table gpus = thresholds.table("gpu", "one table per calibrated GPU model");
      for (const auto& [model, ignored] : gpus.raw()) {
        const std::string key(model.str());
        m.thresholds_["gpu." + key] = read_threshold_section(gpus.table(key, "thresholds"));
      }
    } else if (section == "default" || std::regex_match(section, arch_section())) {
      m.thresholds_[section] = read_threshold_section(thresholds.table(section, "thresholds"));
    } else {
      throw ManifestError(where(m.path_, value) + ": [thresholds." + section +
                          "]: expected 'default', 'sm_XY' or 'gpu.<model>'");
    }
  }
  return m;
}

Manifest Manifest::load(const std::string& path) {
  std::ifstream file(path);
  if (!file)
    throw ManifestError("cannot open the lab manifest " + path +
                        " (the test program was built from another checkout? re-run cmake and rebuild)");
  std::ostringstream text;
  text << file.rdbuf();
  return parse(text.str(), path);
}

const Manifest& Manifest::cached(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Manifest>> loaded;
  const std::lock_guard<std::mutex> lock(mutex);
  auto& slot = loaded[path];
  if (!slot) slot = std::make_unique<Manifest>(load(path));
  return *slot;
}

const PerfEntry& Manifest::perf_entry(const std::string& test) const {
  for (const PerfEntry& e : perf_)
    if (e.test == test) return e;
  std::string known;
  for (const PerfEntry& e : perf_) known += (known.empty() ? "" : ", ") + e.test;
  throw ManifestError(path_ + ": no [[perf]] entry with test = \"" + test +
                      "\" (entries: " + (known.empty() ? "none" : known) + "); add one, or rename the test to match");
}

Threshold Manifest::threshold(const std::string& key, const std::string& arch, const std::string& device_name) const {
  auto has = [&](const std::string& section) {
    const auto s = thresholds_.find(section);
    return s != thresholds_.end() && s->second.count(key) != 0;
  };
  const std::string model = device_name.empty() ? "" : "gpu." + gpu_model_key(device_name);
  Threshold t;
  if (!model.empty() && has(model)) {
    t.section = model;
  } else if (has(arch)) {
    t.section = arch;
    if (!device_name.empty())
      t.notice = "'" + key + "' was not calibrated on " + device_name + " itself; using the [thresholds." + arch +
                 "] value from " + path_ + " (the lowest mark among the calibrated " + arch + " GPUs)";
  } else if (has("default")) {
    t.section = "default";
    t.notice = "no '" + key + "' calibrated for " + (device_name.empty() ? arch : device_name + " (" + arch + ")") +
               " in " + path_ + "; using the [thresholds.default] value, which was calibrated on another GPU";
  } else {
    throw ManifestError(path_ + ": no value for '" + key +
                        "' in [thresholds.default] (used for any GPU without a "
                        "section of its own); add " +
                        key + " = <pass mark> there");
  }
  t.value = thresholds_.at(t.section).at(key);
  return t;
}

std::string gpu_model_key(const std::string& device_name) {
  std::string key;
  key.reserve(device_name.size());
  for (unsigned char c : device_name) {
    const auto lower = static_cast<unsigned char>(std::tolower(c));
    key += (std::isdigit(lower) || (lower >= 'a' && lower <= 'z')) ? static_cast<char>(lower) : '_';
  }
  return key;
}

}  // namespace course
