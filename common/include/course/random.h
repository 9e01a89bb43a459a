// Seeded inputs. The generator is specified here (splitmix64), not taken from <random>, whose distributions differ
// between standard libraries: the same seed gives the same inputs on every machine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace course {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next_u64();
  double uniform01();                 // in [0, 1), 53 random bits
  float uniform(float lo, float hi);  // in [lo, hi)

 private:
  std::uint64_t state_;
};

std::vector<float> random_floats(std::size_t count, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f);

// The seed a test uses: `fallback`, mixed with the COURSE_SEED environment variable when it is set (the instructor
// grader sets a secret per-run value there, so a submission cannot be tuned to fixed inputs).
std::uint64_t test_seed(std::uint64_t fallback);

}  // namespace course
