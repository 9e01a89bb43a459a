#include "skeleton_diff.h"

#include <regex>
#include <sstream>

namespace course {

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

const std::regex& todo_header() {
  static const std::regex re(R"(^// TODO\(lab[0-9][0-9][^)]*\):.*)");
  return re;
}

// The first line at which two blocks of text differ (1-based within the block), or 0 if equal.
int first_difference(const std::string& a, const std::string& b, std::string* line_a, std::string* line_b) {
  std::istringstream sa(a), sb(b);
  std::string la, lb;
  for (int n = 1;; ++n) {
    const bool more_a = static_cast<bool>(std::getline(sa, la));
    const bool more_b = static_cast<bool>(std::getline(sb, lb));
    if (!more_a && !more_b) return 0;
    if (more_a != more_b || la != lb) {
      *line_a = more_a ? la : "<end of text>";
      *line_b = more_b ? lb : "<end of text>";
      return n;
    }
  }
}

}  // namespace

SplitFile split_todo_regions(const std::string& text) {
  SplitFile file;
  file.outside.emplace_back();
  std::istringstream in(text);
  std::string line;
  bool inside = false;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::string t = trim(line);
    const bool is_header = std::regex_match(t, todo_header());
    const bool is_end = t == "// END TODO";
    if (is_header) {
      if (inside && file.error.empty())
        file.error = "line " + std::to_string(number) + ": a TODO region starts inside another one (line " +
                     std::to_string(file.regions.back().first_line) + ")";
      file.regions.push_back({t, number, 0});
      inside = true;
    } else if (is_end) {
      if (!inside && file.error.empty())
        file.error = "line " + std::to_string(number) + ": '// END TODO' without a TODO region";
      if (inside) file.regions.back().last_line = number;
      inside = false;
      file.outside.emplace_back();
    } else if (!inside) {
      file.outside.back() += line + "\n";
    }
  }
  if (inside && file.error.empty())
    file.error = "the TODO region at line " + std::to_string(file.regions.back().first_line) + " has no '// END TODO'";
  return file;
}

std::string skeleton_diff(const std::string& skeleton, const std::string& skeleton_name, const std::string& solution,
                          const std::string& solution_name) {
  const SplitFile sk = split_todo_regions(skeleton);
  const SplitFile so = split_todo_regions(solution);
  if (!sk.error.empty()) return skeleton_name + ": " + sk.error;
  if (!so.error.empty()) return solution_name + ": " + so.error;
  if (sk.regions.empty()) return skeleton_name + ": has no TODO region: a skeleton must leave something to do";
  std::ostringstream out;
  const std::size_t common = std::min(sk.regions.size(), so.regions.size());
  for (std::size_t i = 0; i < common; ++i) {
    if (sk.regions[i].header != so.regions[i].header) {
      out << "TODO region " << i + 1 << " differs:\n  " << skeleton_name << ":" << sk.regions[i].first_line << ": "
          << sk.regions[i].header << "\n  " << solution_name << ":" << so.regions[i].first_line << ": "
          << so.regions[i].header;
      return out.str();
    }
  }
  if (sk.regions.size() != so.regions.size()) {
    out << skeleton_name << " has " << sk.regions.size() << " TODO regions, " << solution_name << " has "
        << so.regions.size();
    return out.str();
  }
  for (std::size_t i = 0; i < sk.outside.size(); ++i) {
    std::string la, lb;
    if (const int n = first_difference(sk.outside[i], so.outside[i], &la, &lb); n != 0) {
      const int sk_line = (i == 0 ? 0 : sk.regions[i - 1].last_line) + n;
      const int so_line = (i == 0 ? 0 : so.regions[i - 1].last_line) + n;
      out << "the files differ outside the TODO regions:\n  " << skeleton_name << ":" << sk_line << ": " << la << "\n  "
          << solution_name << ":" << so_line << ": " << lb;
      return out.str();
    }
  }
  return "";
}

}  // namespace course
