#include "course/stats.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace course {

namespace {
void require_samples(std::span<const double> samples) {
  if (samples.empty()) throw std::invalid_argument("statistics of an empty set of samples");
}
}  // namespace

double median(std::span<const double> samples) {
  require_samples(samples);
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t mid = sorted.size() / 2;
  return sorted.size() % 2 == 1 ? sorted[mid] : 0.5 * (sorted[mid - 1] + sorted[mid]);
}

double minimum(std::span<const double> samples) {
  require_samples(samples);
  return *std::min_element(samples.begin(), samples.end());
}

double maximum(std::span<const double> samples) {
  require_samples(samples);
  return *std::max_element(samples.begin(), samples.end());
}

double relative_spread(std::span<const double> samples) {
  const double mid = median(samples);
  return mid == 0.0 ? 0.0 : (maximum(samples) - minimum(samples)) / mid;
}

}  // namespace course
