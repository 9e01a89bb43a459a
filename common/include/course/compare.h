// Compare a kernel's output with a double-precision CPU reference, by relative error.
//
// For each element, error = |got - expected| / scale, where scale is what the result's rounding error is
// proportional to: |expected| for a simple value, or the sum of the magnitudes of the terms (e.g. sum_k |a_ik*b_kj|
// for a dot product), which stays meaningful when terms cancel. NaN and Inf never pass.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace course {

// How elements are named in messages: "C[3][17]" for a matrix, "out[41]" for a vector.
struct Layout {
  std::string name = "out";
  std::size_t rows = 0;  // 0: a vector
  std::size_t cols = 0;
  std::size_t first = 0;  // the compared elements start at this index of the whole (a window of it)
  std::string element(std::size_t index) const;
};

struct Reference {
  std::vector<double> value;
  std::vector<double> scale;  // empty: |value| is the scale
};

struct CompareResult {
  bool ok = true;
  std::size_t checked = 0;
  std::size_t bad_count = 0;
  std::optional<std::size_t> first_bad;
  float first_got = 0.0f;
  double first_expected = 0.0;
  double max_error = 0.0;  // largest relative error among finite outputs
  std::size_t max_error_index = 0;
  std::string message;  // a paragraph for the student; empty when ok
};

// `tolerance` is the largest relative error that passes.
CompareResult compare(std::span<const float> got, const Reference& expected, double tolerance,
                      const Layout& layout = {});

// True if `a` and `b` hold the same bits (used to check that a kernel left its inputs alone).
bool same_bits(std::span<const float> a, std::span<const float> b);

}  // namespace course
