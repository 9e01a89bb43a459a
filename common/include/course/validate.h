// Validation of problem sizes given to a lab (by a test, the bench or the grader): a clear error naming the
// problem instead of a crash or a silently wrong result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace course {

// `value` must be at least 1. Throws std::invalid_argument: "<name> must be at least 1, got 0".
void require_positive(const std::string& name, long long value);

// The product of the extents must fit a 32-bit signed index (the labs index with int).
// Returns the product. Throws std::invalid_argument naming the sizes.
std::size_t require_int_indexable(const std::string& what, std::initializer_list<long long> extents);

}  // namespace course
