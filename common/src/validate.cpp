#include "course/validate.h"

#include <limits>
#include <stdexcept>

namespace course {

void require_positive(const std::string& name, long long value) {
  if (value < 1) throw std::invalid_argument(name + " must be at least 1, got " + std::to_string(value));
}

std::size_t require_int_indexable(const std::string& what, std::initializer_list<long long> extents) {
  constexpr long long limit = std::numeric_limits<int>::max();
  std::string shape;
  for (long long e : extents) {
    if (!shape.empty()) shape += 'x';
    shape += std::to_string(e);
  }
  long long product = 1;
  for (long long e : extents) {
    if (e < 1) throw std::invalid_argument(what + " " + shape + ": every size must be at least 1");
    if (product > limit / e) {
      product = limit + 1;  // saturate; reported below once the whole shape is known
    } else {
      product *= e;
    }
  }
  if (product > limit)
    throw std::invalid_argument(what + " " + shape +
                                " has more than 2^31-1 elements: the labs index with 32-bit int, "
                                "which would overflow. Use a smaller size.");
  return static_cast<std::size_t>(product);
}

}  // namespace course
