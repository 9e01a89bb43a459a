// CPU reference for lab 01: C = A + B in double precision. The scale of each element is |a| + |b|, the size of the
// float rounding error of one addition.
#pragma once

#include "course/compare.h"

#include <cmath>
#include <span>
#include <stdexcept>

namespace course {

inline Reference matadd_reference(std::span<const float> a, std::span<const float> b) {
  if (a.size() != b.size()) throw std::invalid_argument("matadd_reference: A and B differ in size");
  Reference ref;
  ref.value.resize(a.size());
  ref.scale.resize(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ref.value[i] = static_cast<double>(a[i]) + static_cast<double>(b[i]);
    ref.scale[i] = std::fabs(static_cast<double>(a[i])) + std::fabs(static_cast<double>(b[i]));
  }
  return ref;
}

}  // namespace course
