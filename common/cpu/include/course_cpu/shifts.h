// CPU backend of the course: shifts with a GPU's semantics. course-rewrite (rewrite/shifts.cpp) wraps the count of a
// shift in device code that is not a literal, `a << ::course_cpu::shift_count(n)`; these operators then shift as
// sm_90's shl and shr do: a count of the (promoted) left operand's width or more is clamped to the width, so `1u << 32`
// is 0 and `-8 >> 40` is -1 (x86 takes the count modulo the width: `1u << 32` is 1). The count is taken as the
// 32-bit unsigned value the GPU's instruction receives, so a negative count is a large one.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>

namespace course_cpu {

struct ShiftCount {
  std::uint32_t n;
  // Where the left operand is not an integer (a class with its own operator<<), the count converts back.
  constexpr operator std::uint32_t() const { return n; }
};

template <class C>
constexpr ShiftCount shift_count(const C& c) {
  return ShiftCount{static_cast<std::uint32_t>(+c)};  // +: an enumerator, a check-mode element proxy
}

namespace detail {
template <class T>
constexpr auto shift_left(T a, ShiftCount s) {
  using R = decltype(+a);
  constexpr std::uint32_t bits = sizeof(R) * 8;
  if (s.n >= bits) return R{0};
  return static_cast<R>(static_cast<std::make_unsigned_t<R>>(+a) << s.n);  // as shl: the bits, never UB
}
template <class T>
constexpr auto shift_right(T a, ShiftCount s) {
  using R = decltype(+a);
  constexpr std::uint32_t bits = sizeof(R) * 8;
  if (s.n >= bits) return static_cast<R>(std::is_signed_v<R> && +a < 0 ? R(-1) : R(0));
  return static_cast<R>(+a >> s.n);
}
// A left operand the operators take: an integer, or a class that converts to one (a check-mode element proxy).
template <class T>
concept shiftable = std::integral<std::remove_cvref_t<T>> ||
    (std::is_class_v<std::remove_cvref_t<T>>&& requires(const std::remove_cvref_t<T>& t) {
      { +t } -> std::integral;
    });
}  // namespace detail

template <class T>
requires detail::shiftable<T>
constexpr auto operator<<(const T& a, ShiftCount s) { return detail::shift_left(+a, s); }
template <class T>
requires detail::shiftable<T>
constexpr auto operator>>(const T& a, ShiftCount s) { return detail::shift_right(+a, s); }
template <class T>
requires std::integral<T>
constexpr T& operator<<=(T& a, ShiftCount s) { return a = static_cast<T>(detail::shift_left(a, s)); }
template <class T>
requires std::integral<T>
constexpr T& operator>>=(T& a, ShiftCount s) { return a = static_cast<T>(detail::shift_right(a, s)); }
}  // namespace course_cpu
