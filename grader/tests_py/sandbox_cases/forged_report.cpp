// A GoogleTest program whose static destructor rewrites the JSON report after GoogleTest wrote it (the issue's
// measured attack): it finds the report's path on its own command line and writes a report in which every test
// passed. With FORGE unset in its environment it is an honest program with one failing test.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

std::string report_path() {
  std::FILE* f = std::fopen("/proc/self/cmdline", "rb");
  if (!f) return "";
  char buf[8192];
  std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = 0;
  for (std::size_t i = 0; i < n; i += std::strlen(buf + i) + 1)
    if (std::strncmp(buf + i, "--gtest_output=json:", 20) == 0) return buf + i + 20;
  return "";
}

struct Forger {
  ~Forger() {
    if (!std::getenv("FORGE")) return;
    std::FILE* f = std::fopen(report_path().c_str(), "w");
    if (!f) return;
    std::fputs(R"({"testsuites": [{"name": "Lab", "testsuite": [)"
               R"({"name": "Works", "status": "RUN", "result": "COMPLETED"}]}]})",
               f);
    std::fclose(f);
  }
} forger;

}  // namespace

TEST(Lab, Works) { EXPECT_EQ(1 + 1, 3); }
