// CPU backend of the course: CUDA's <cuComplex.h>, complex numbers as float2 / double2 (real part x, imaginary y).
#pragma once

#include <vector_types.h>

#include <cmath>

typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

namespace course_cpu::complex {
// |z| without overflow or underflow of the squares: the larger part times sqrt(1 + (smaller / larger)^2).
template <class T>
inline T abs(T re, T im) {
  const T a = std::fabs(re), b = std::fabs(im);
  const T v = a > b ? a : b, w = a > b ? b : a;
  if (v == 0 || std::isinf(v) || std::isinf(w) || std::isnan(v) || std::isnan(w)) return v + w;
  const T t = w / v;
  return v * std::sqrt(1 + t * t);
}
// x / y, both scaled by 1 / (|y.re| + |y.im|) first so that the squares neither overflow nor underflow.
template <class C, class T>
inline C div(T xr, T xi, T yr, T yi) {
  const T s = std::fabs(yr) + std::fabs(yi);
  const T oos = 1 / s;
  const T ars = xr * oos, ais = xi * oos, brs = yr * oos, bis = yi * oos;
  const T oos2 = 1 / (brs * brs + bis * bis);
  return C{(ars * brs + ais * bis) * oos2, (ais * brs - ars * bis) * oos2};
}
}  // namespace course_cpu::complex

inline float cuCrealf(cuFloatComplex z) { return z.x; }
inline float cuCimagf(cuFloatComplex z) { return z.y; }
inline cuFloatComplex make_cuFloatComplex(float r, float i) { return cuFloatComplex{r, i}; }
inline cuComplex make_cuComplex(float r, float i) { return cuFloatComplex{r, i}; }
inline cuFloatComplex cuConjf(cuFloatComplex z) { return cuFloatComplex{z.x, -z.y}; }
inline cuFloatComplex cuCaddf(cuFloatComplex a, cuFloatComplex b) { return cuFloatComplex{a.x + b.x, a.y + b.y}; }
inline cuFloatComplex cuCsubf(cuFloatComplex a, cuFloatComplex b) { return cuFloatComplex{a.x - b.x, a.y - b.y}; }
inline cuFloatComplex cuCmulf(cuFloatComplex a, cuFloatComplex b) {
  return cuFloatComplex{a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x};
}
inline cuFloatComplex cuCdivf(cuFloatComplex a, cuFloatComplex b) {
  return course_cpu::complex::div<cuFloatComplex>(a.x, a.y, b.x, b.y);
}
inline float cuCabsf(cuFloatComplex z) { return course_cpu::complex::abs(z.x, z.y); }
inline cuFloatComplex cuCfmaf(cuFloatComplex x, cuFloatComplex y, cuFloatComplex d) {  // x * y + d
  return cuFloatComplex{x.x * y.x + d.x - x.y * y.y, x.x * y.y + d.y + x.y * y.x};
}

inline double cuCreal(cuDoubleComplex z) { return z.x; }
inline double cuCimag(cuDoubleComplex z) { return z.y; }
inline cuDoubleComplex make_cuDoubleComplex(double r, double i) { return cuDoubleComplex{r, i}; }
inline cuDoubleComplex cuConj(cuDoubleComplex z) { return cuDoubleComplex{z.x, -z.y}; }
inline cuDoubleComplex cuCadd(cuDoubleComplex a, cuDoubleComplex b) { return cuDoubleComplex{a.x + b.x, a.y + b.y}; }
inline cuDoubleComplex cuCsub(cuDoubleComplex a, cuDoubleComplex b) { return cuDoubleComplex{a.x - b.x, a.y - b.y}; }
inline cuDoubleComplex cuCmul(cuDoubleComplex a, cuDoubleComplex b) {
  return cuDoubleComplex{a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x};
}
inline cuDoubleComplex cuCdiv(cuDoubleComplex a, cuDoubleComplex b) {
  return course_cpu::complex::div<cuDoubleComplex>(a.x, a.y, b.x, b.y);
}
inline double cuCabs(cuDoubleComplex z) { return course_cpu::complex::abs(z.x, z.y); }
inline cuDoubleComplex cuCfma(cuDoubleComplex x, cuDoubleComplex y, cuDoubleComplex d) {
  return cuDoubleComplex{x.x * y.x + d.x - x.y * y.y, x.x * y.y + d.y + x.y * y.x};
}
inline cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex z) { return cuDoubleComplex{z.x, z.y}; }
inline cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex z) {
  return cuFloatComplex{static_cast<float>(z.x), static_cast<float>(z.y)};
}
