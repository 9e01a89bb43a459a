// A skeleton is its solution minus the marked TODO regions. A region is
//
//     // TODO(lab03): load one tile of A and one of B into shared memory (about 4 lines)
//     ... the student's part: the solution's code, or the skeleton's placeholder ...
//     // END TODO
//
// skeleton_diff() checks that the two files have the same regions (same TODO lines, in the same order) and are
// identical outside them, so a fix made to one cannot silently be missing from the other.
#pragma once

#include <string>
#include <vector>

namespace course {

struct TodoRegion {
  std::string header;  // the "// TODO(...)" line, trimmed
  int first_line = 0;  // 1-based line of the header
  int last_line = 0;   // line of "// END TODO"
};

struct SplitFile {
  std::vector<std::string> outside;  // text between regions: outside.size() == regions.size() + 1
  std::vector<TodoRegion> regions;
  std::string error;  // malformed markers; empty if none
};

SplitFile split_todo_regions(const std::string& text);

// Empty when the skeleton matches the solution outside the TODO regions; otherwise what differs and where.
std::string skeleton_diff(const std::string& skeleton, const std::string& skeleton_name, const std::string& solution,
                          const std::string& solution_name);

}  // namespace course
