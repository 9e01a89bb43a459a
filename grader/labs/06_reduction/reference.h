// CPU reference for lab 06: the sum of n floats, accumulated in double with Kahan-Babuska (Neumaier) compensation,
// so the reference itself is exact to about 1e-16 of the sum of magnitudes for any n the course uses. The scale is
// sum |x|, which bounds the float rounding error of the sum in any order of additions.
#pragma once

#include "course/compare.h"

#include <cmath>
#include <cstddef>
#include <span>

namespace course {

inline Reference reduce_reference(std::span<const float> x) {
  double sum = 0.0, compensation = 0.0, magnitude = 0.0;
  for (float f : x) {
    const double v = static_cast<double>(f);
    const double t = sum + v;
    compensation += std::fabs(sum) >= std::fabs(v) ? (sum - t) + v : (v - t) + sum;
    sum = t;
    magnitude += std::fabs(v);
  }
  Reference ref;
  ref.value = {sum + compensation};
  ref.scale = {magnitude};
  return ref;
}

// Relative tolerance (against sum |x|) for a float sum of n terms. A tree of additions rounds about log2(n) times
// along any path from an input to the result; a thread that first adds its share serially (grid-stride) adds up to
// its share's length more. 2^-24 per rounding, allowing log2(n) tree levels plus serial runs of up to sqrt(n).
inline double reduce_tolerance(std::size_t n) {
  const double count = static_cast<double>(n < 1 ? 1 : n);
  return (std::log2(count) + std::sqrt(count) + 8.0) * 0x1p-24;
}

}  // namespace course
