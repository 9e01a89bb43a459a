// CPU reference for lab 05: out[i] = in[i - radius] + ... + in[i + radius] in double precision, inputs outside
// [0, n) counting as 0. The scale of each output is the sum of the magnitudes of its terms, which bounds the float
// rounding error of the sum in any order of additions (and stays meaningful when the terms cancel).
#pragma once

#include "course/compare.h"

#include <cmath>
#include <cstddef>
#include <span>
#include <stdexcept>

namespace course {

inline Reference stencil_reference(std::span<const float> in, int radius) {
  if (radius < 0) throw std::invalid_argument("stencil_reference: radius must not be negative");
  const long long n = static_cast<long long>(in.size());
  Reference ref;
  ref.value.resize(in.size());
  ref.scale.resize(in.size());
  for (long long i = 0; i < n; ++i) {
    double sum = 0.0, magnitude = 0.0;
    for (long long j = i - radius; j <= i + radius; ++j) {
      if (j < 0 || j >= n) continue;  // the boundary policy: outside [0, n) counts as 0
      sum += static_cast<double>(in[static_cast<std::size_t>(j)]);
      magnitude += std::fabs(static_cast<double>(in[static_cast<std::size_t>(j)]));
    }
    ref.value[static_cast<std::size_t>(i)] = sum;
    ref.scale[static_cast<std::size_t>(i)] = magnitude;
  }
  return ref;
}

// Relative tolerance (against the scale above) for a float sum of 2 * radius + 1 terms: each of its 2 * radius
// additions rounds by at most 2^-24 of the running magnitude, whatever the order; twice that bound, for margin.
inline double stencil_tolerance(int radius) { return 2.0 * (2.0 * radius + 1.0) * 0x1p-24; }

}  // namespace course
