#include "course/compare.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace course {

std::string Layout::element(std::size_t index) const {
  index += first;
  if (cols == 0) return name + "[" + std::to_string(index) + "]";
  return name + "[" + std::to_string(index / cols) + "][" + std::to_string(index % cols) + "]";
}

namespace {

bool is_poison(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits == 0xFFFFFFFFu;  // what DeviceBuffer::poison() writes
}

std::string describe_value(float got) {
  // The poison's bits also survive arithmetic on the CPU (x86 keeps a NaN operand's payload: 0 * poison is poison); a
  // GPU makes such a result its canonical NaN. So the bits say "unwritten" on a GPU, "unwritten or computed from it" here.
  if (is_poison(got))
    return "nan (still the poison value: no thread wrote this element, or it was computed from a value no thread "
           "wrote)";
  std::ostringstream out;
  out.precision(9);
  out << got;
  return out.str();
}

}  // namespace

CompareResult compare(std::span<const float> got, const Reference& expected, double tolerance, const Layout& layout) {
  if (got.size() != expected.value.size())
    throw std::invalid_argument("compare: " + std::to_string(got.size()) + " outputs but " +
                                std::to_string(expected.value.size()) + " reference values");
  if (!expected.scale.empty() && expected.scale.size() != expected.value.size())
    throw std::invalid_argument("compare: reference scale and value sizes differ");

  CompareResult r;
  r.checked = got.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double want = expected.value[i];
    const double scale = expected.scale.empty() ? std::fabs(want) : expected.scale[i];
    const double diff = std::fabs(static_cast<double>(got[i]) - want);
    // Relative to the scale; an exact zero with a zero scale is an exact match.
    const double error = diff == 0.0 ? 0.0 : (scale > 0.0 ? diff / scale : HUGE_VAL);
    const bool bad = !std::isfinite(got[i]) || !(error <= tolerance);
    if (std::isfinite(got[i]) && error > r.max_error) {
      r.max_error = error;
      r.max_error_index = i;
    }
    if (!bad) continue;
    if (!r.first_bad) {
      r.first_bad = i;
      r.first_got = got[i];
      r.first_expected = want;
    }
    ++r.bad_count;
  }
  r.ok = r.bad_count == 0;
  if (!r.ok) {
    std::ostringstream out;
    out.precision(9);
    out << r.bad_count << " of " << r.checked << " elements of " << layout.name << " are wrong (relative tolerance "
        << tolerance << "). First wrong element: " << layout.element(*r.first_bad) << ": got "
        << describe_value(r.first_got) << ", expected " << r.first_expected << ".";
    if (r.max_error > tolerance)
      out << " Largest relative error among finite outputs: " << r.max_error << " at "
          << layout.element(r.max_error_index) << ".";
    r.message = out.str();
  }
  return r;
}

bool same_bits(std::span<const float> a, std::span<const float> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

}  // namespace course
