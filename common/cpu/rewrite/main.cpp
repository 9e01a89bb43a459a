// course-rewrite --mode fast|check <input.cu> <output.cpp>
// Rewrites a CUDA source file so that g++ can compile it for the CPU backend.
#include "rewriter.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  if (argc != 5 || std::string(argv[1]) != "--mode" ||
      (std::string(argv[2]) != "fast" && std::string(argv[2]) != "check")) {
    std::cerr << "usage: course-rewrite --mode fast|check <input.cu> <output.cpp>\n";
    return 2;
  }
  const auto mode = std::string(argv[2]) == "check" ? course_rewrite::Mode::check : course_rewrite::Mode::fast;
  const fs::path input = fs::absolute(argv[3]).lexically_normal();
  std::ifstream in(input, std::ios::binary);
  if (!in) {
    std::cerr << "course-rewrite: cannot read " << input << "\n";
    return 1;
  }
  std::ostringstream source;
  source << in.rdbuf();
  const std::string result = course_rewrite::rewrite(source.str(), input.string(), mode);
  const fs::path output(argv[4]);
  if (output.has_parent_path()) fs::create_directories(output.parent_path());
  std::ofstream out(output, std::ios::binary);
  out << result;
  if (!out) {
    std::cerr << "course-rewrite: cannot write " << output << "\n";
    return 1;
  }
  return 0;
}
