#include "course/random.h"

#include <cstdlib>
#include <string>

namespace course {

// splitmix64 (Steele, Lea, Flood 2014): a tiny generator with good statistical quality for test inputs.
std::uint64_t Rng::next_u64() {
  std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double Rng::uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

float Rng::uniform(float lo, float hi) { return static_cast<float>(lo + (static_cast<double>(hi) - lo) * uniform01()); }

std::vector<float> random_floats(std::size_t count, std::uint64_t seed, float lo, float hi) {
  Rng rng(seed);
  std::vector<float> values(count);
  for (float& v : values) v = rng.uniform(lo, hi);
  return values;
}

std::uint64_t test_seed(std::uint64_t fallback) {
  const char* env = std::getenv("COURSE_SEED");
  if (env == nullptr || *env == '\0') return fallback;
  // Mix rather than replace, so the different inputs of one test stay different from each other.
  Rng mixer(std::hash<std::string>{}(env) ^ (fallback * 0x9E3779B97F4A7C15ull));
  return mixer.next_u64();
}

}  // namespace course
