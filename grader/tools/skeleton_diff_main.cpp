// course-skeleton-diff <skeleton.cu> <solution.cu>: exit 0 when the skeleton equals the solution outside its TODO
// regions; otherwise prints where they differ and exits 1.
#include "skeleton_diff.h"

#include <fstream>
#include <iostream>
#include <sstream>

namespace {
bool read(const char* path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  *text = buffer.str();
  return true;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: course-skeleton-diff <skeleton.cu> <solution.cu>\n";
    return 2;
  }
  std::string skeleton, solution;
  for (int i : {1, 2}) {
    if (!read(argv[i], i == 1 ? &skeleton : &solution)) {
      std::cerr << "cannot read " << argv[i] << "\n";
      return 2;
    }
  }
  const std::string diff = course::skeleton_diff(skeleton, argv[1], solution, argv[2]);
  if (!diff.empty()) {
    std::cerr << diff << "\n";
    return 1;
  }
  std::cout << argv[1] << " matches " << argv[2] << " outside its TODO regions\n";
  return 0;
}
