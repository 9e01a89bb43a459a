// CPU backend of the course: CUDA math functions that <math.h> lacks (sinpi, normcdf, erfinv, erfcx, rhypot, ...).
// Each is computed in long double (64-bit significand) and rounded once to the result type, so the float versions
// are correctly rounded or within 1 ulp, and the double versions within about 1 ulp: as accurate as CUDA's or more.
#pragma once

#include <cmath>
#include <limits>

namespace course_cpu::math {
using LD = long double;
constexpr LD kPi = 3.141592653589793238462643383279502884L;
constexpr LD kSqrt2 = 1.414213562373095048801688724209698079L;
constexpr LD kSqrtPi = 1.772453850905516027298167483341145183L;

// sin(pi x) (cosine: cos = true), with the argument reduced exactly: x = n/2 + f, |f| <= 1/4.
inline LD sin_cos_pi(LD x, bool cosine) {
  if (!std::isfinite(x)) return std::numeric_limits<LD>::quiet_NaN();
  const LD r = std::fmod(x, 2.0L);  // exact
  const LD n = std::nearbyint(2.0L * r);
  const LD f = r - n / 2.0L;  // exact
  int q = (static_cast<int>(n) % 4 + 4) % 4;
  if (cosine) q = (q + 1) % 4;  // cos(pi x) = sin(pi (x + 1/2))
  const LD s = std::sin(kPi * f), c = std::cos(kPi * f);
  LD v = q == 0 ? s : q == 1 ? c : q == 2 ? -s : -c;
  if (cosine && v == 0) v = 0;  // cospi(n + 1/2) is +0
  if (!cosine && v == 0) v = std::copysign(0.0L, x);
  return v;
}

// erfc(x) = b for 0 < b <= 1/2 (so x >= 0.47): Newton's method on log erfc, which is concave, from
// x0 = sqrt(-log b) >= x (erfc(x) <= exp(-x^2)): the iterates decrease monotonically to x.
inline LD erfcinv_tail(LD b) {
  const LD target = std::log(b);
  LD x = std::sqrt(-target);
  for (int i = 0; i < 100; ++i) {
    const LD e = std::erfc(x);
    const LD g = std::log(e) - target;
    const LD slope = -2.0L / kSqrtPi * std::exp(-x * x) / e;
    const LD step = g / slope;
    x -= step;
    if (!(std::fabs(step) > x * 1e-19L)) break;
  }
  return x;
}
// erf(x) = a for |a| <= 1/2: Halley's method on erf from the series' first terms.
inline LD erfinv_center(LD a) {
  const LD a2 = a * a;
  LD x = kSqrtPi / 2 * a * (1 + a2 * (kPi / 12 + a2 * (7 * kPi * kPi / 480 + a2 * 127 * kPi * kPi * kPi / 40320)));
  for (int i = 0; i < 6; ++i) {
    const LD f = std::erf(x) - a;
    const LD d = 2.0L / kSqrtPi * std::exp(-x * x);
    const LD step = f / (d + x * f);
    x -= step;
    if (!(std::fabs(step) > std::fabs(x) * 1e-19L)) break;
  }
  return x;
}
inline LD erfinv(LD a) {
  if (std::isnan(a) || a < -1 || a > 1) return std::numeric_limits<LD>::quiet_NaN();
  if (a == 1) return std::numeric_limits<LD>::infinity();
  if (a == -1) return -std::numeric_limits<LD>::infinity();
  if (std::fabs(a) <= 0.5L) return erfinv_center(a);
  return a > 0 ? erfcinv_tail(1 - a) : -erfcinv_tail(1 + a);  // 1 - |a| is exact
}
inline LD erfcinv(LD b) {
  if (std::isnan(b) || b < 0 || b > 2) return std::numeric_limits<LD>::quiet_NaN();
  if (b == 0) return std::numeric_limits<LD>::infinity();
  if (b == 2) return -std::numeric_limits<LD>::infinity();
  if (b <= 0.5L) return erfcinv_tail(b);
  if (b < 1.5L) return erfinv_center(1 - b);  // exact
  return -erfcinv_tail(2 - b);                // exact
}
// exp(x^2) erfc(x); for x > 26 the asymptotic series (x^2 would lose bits in exp).
inline LD erfcx(LD x) {
  if (std::isnan(x)) return x;
  if (x <= 26) return std::exp(x * x) * std::erfc(x);
  const LD inv2x2 = 1 / (2 * x * x);
  LD term = 1, sum = 1;
  for (int k = 1; k < 12; ++k) {
    term *= -(2 * k - 1) * inv2x2;
    sum += term;
  }
  return sum / (x * kSqrtPi);
}
// sqrt of a sum of squares; +inf if any argument is infinite, even when another is NaN.
template <class... T>
inline LD norm(T... v) {
  if ((std::isinf(v) || ...)) return std::numeric_limits<LD>::infinity();
  return std::sqrt(((static_cast<LD>(v) * static_cast<LD>(v)) + ...));
}
}  // namespace course_cpu::math

#define COURSE_CPU_MATH1(name, namef, expr) \
  inline double name(double x) {            \
    const ::course_cpu::math::LD v = x;     \
    return static_cast<double>(expr);       \
  }                                         \
  inline float namef(float x) {             \
    const ::course_cpu::math::LD v = x;     \
    return static_cast<float>(expr);        \
  }
COURSE_CPU_MATH1(sinpi, sinpif, ::course_cpu::math::sin_cos_pi(v, false))
COURSE_CPU_MATH1(cospi, cospif, ::course_cpu::math::sin_cos_pi(v, true))
COURSE_CPU_MATH1(normcdf, normcdff, std::erfc(-v / ::course_cpu::math::kSqrt2) / 2)
COURSE_CPU_MATH1(rcbrt, rcbrtf, 1 / std::cbrt(v))
COURSE_CPU_MATH1(erfinv, erfinvf, ::course_cpu::math::erfinv(v))
COURSE_CPU_MATH1(erfcinv, erfcinvf, ::course_cpu::math::erfcinv(v))
COURSE_CPU_MATH1(erfcx, erfcxf, ::course_cpu::math::erfcx(v))
COURSE_CPU_MATH1(normcdfinv, normcdfinvf, -::course_cpu::math::kSqrt2* ::course_cpu::math::erfcinv(2 * v))
#undef COURSE_CPU_MATH1
inline void sincospi(double x, double* s, double* c) {
  *s = sinpi(x);
  *c = cospi(x);
}
inline void sincospif(float x, float* s, float* c) {
  *s = sinpif(x);
  *c = cospif(x);
}
inline double rhypot(double x, double y) { return static_cast<double>(1 / ::course_cpu::math::norm(x, y)); }
inline float rhypotf(float x, float y) { return static_cast<float>(1 / ::course_cpu::math::norm(x, y)); }
inline double norm3d(double a, double b, double c) { return static_cast<double>(::course_cpu::math::norm(a, b, c)); }
inline float norm3df(float a, float b, float c) { return static_cast<float>(::course_cpu::math::norm(a, b, c)); }
inline double rnorm3d(double a, double b, double c) {
  return static_cast<double>(1 / ::course_cpu::math::norm(a, b, c));
}
inline float rnorm3df(float a, float b, float c) { return static_cast<float>(1 / ::course_cpu::math::norm(a, b, c)); }
inline double norm4d(double a, double b, double c, double d) {
  return static_cast<double>(::course_cpu::math::norm(a, b, c, d));
}
inline float norm4df(float a, float b, float c, float d) {
  return static_cast<float>(::course_cpu::math::norm(a, b, c, d));
}
inline double rnorm4d(double a, double b, double c, double d) {
  return static_cast<double>(1 / ::course_cpu::math::norm(a, b, c, d));
}
inline float rnorm4df(float a, float b, float c, float d) {
  return static_cast<float>(1 / ::course_cpu::math::norm(a, b, c, d));
}
inline float fdividef(float x, float y) { return x / y; }
