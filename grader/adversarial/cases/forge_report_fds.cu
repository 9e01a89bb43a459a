// Adversarial suite (grader/adversarial/forgeries.toml): forge_report_fds. The kernel does nothing; an atexit handler
// and a static destructor write a passing GoogleTest report to every descriptor from 3 to 64 (where a report pipe
// or file inherited from the test runner would be) and to the report files a runner is likely to read. write(),
// dprintf() and fopen() are not calls a lab file may make: `forbidden` before anything runs.
#include "lab01_matadd.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

const char kForged[] =
    "{\"tests\": 12, \"failures\": 0, \"errors\": 0, \"name\": \"AllTests\", \"testsuites\": [{\"name\": "
    "\"MatAdd\", \"tests\": 12, \"failures\": 0, \"testsuite\": [{\"name\": \"MatchesReference/1x1\", \"status\": "
    "\"RUN\", \"result\": \"COMPLETED\", \"classname\": \"MatAdd\"}]}]}\n";

void forge() {
  for (int fd = 3; fd <= 64; ++fd) {
    if (write(fd, kForged, std::strlen(kForged)) < 0) dprintf(fd, "%s", kForged);
  }
  for (const char* path : {"report.json", "../report.json", "test_detail.json"}) {
    if (std::FILE* f = std::fopen(path, "w")) {
      std::fputs(kForged, f);
      std::fclose(f);
    }
  }
}

struct Forger {
  Forger() { std::atexit(forge); }
  ~Forger() { forge(); }
} forger;

}  // namespace

void matadd(const float*, const float*, float*, int, int, cudaStream_t) {}
