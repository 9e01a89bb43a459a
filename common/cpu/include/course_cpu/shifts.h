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

// The count as written (its type and value kept, for a left operand that is not an integer).
template <class C>
struct ShiftCount {
  C value;
};

template <class C>
constexpr ShiftCount<C> shift_count(C c) {  // by value: a `static const` member's count is no odr-use
  return ShiftCount<C>{c};
}

namespace detail {
// The count the GPU's instruction receives: its low 32 bits, unsigned (a negative count is a large one).
template <class C>
constexpr std::uint32_t gpu_count(const C& c) {
  return static_cast<std::uint32_t>(+c);  // +: an enumerator, a check-mode element proxy
}
template <class T, class C>
constexpr auto shift_left(T a, const C& count) {
  using R = decltype(+a);
  constexpr std::uint32_t bits = sizeof(R) * 8;
  const std::uint32_t n = gpu_count(count);
  if (n >= bits) return R{0};
  return static_cast<R>(static_cast<std::make_unsigned_t<R>>(+a) << n);  // as shl: the bits, never UB
}
template <class T, class C>
constexpr auto shift_right(T a, const C& count) {
  using R = decltype(+a);
  constexpr std::uint32_t bits = sizeof(R) * 8;
  const std::uint32_t n = gpu_count(count);
  if (n >= bits) return static_cast<R>(std::is_signed_v<R> && +a < 0 ? R(-1) : R(0));
  return static_cast<R>(+a >> n);
}
// A left operand shifted as the GPU does: an integer, or a check-mode element or scalar of an integer type. Anything
// else (a class or an enumeration with its own operator<<, a cuda::std::byte) gets the count as written.
template <class T>
concept gpu_shifted = std::integral<std::remove_cvref_t<T>> ||(
    requires { typename std::remove_cvref_t<T>::course_cpu_value_type; } &&
    requires(const std::remove_cvref_t<T>& t) {
      { +t } -> std::integral;
    });
}  // namespace detail

// An integer by value (a bit-field too, which no reference binds); anything else as it is.
template <std::integral T, class C>
constexpr auto operator<<(T a, ShiftCount<C> s) {
  return detail::shift_left(a, s.value);
}
template <std::integral T, class C>
constexpr auto operator>>(T a, ShiftCount<C> s) {
  return detail::shift_right(a, s.value);
}
template <class T, class C>
requires(!std::integral<std::remove_cvref_t<T>>) constexpr decltype(auto) operator<<(T&& a, ShiftCount<C> s) {
  if constexpr (detail::gpu_shifted<T>)
    return detail::shift_left(+a, s.value);
  else
    return static_cast<T&&>(a) << s.value;
}
template <class T, class C>
requires(!std::integral<std::remove_cvref_t<T>>) constexpr decltype(auto) operator>>(T&& a, ShiftCount<C> s) {
  if constexpr (detail::gpu_shifted<T>)
    return detail::shift_right(+a, s.value);
  else
    return static_cast<T&&>(a) >> s.value;
}
template <class T, class C>
constexpr T& operator<<=(T& a, ShiftCount<C> s) {
  if constexpr (std::integral<std::remove_cv_t<T>>)
    return a = static_cast<std::remove_cv_t<T>>(detail::shift_left(a, s.value));
  else
    return a <<= s.value;
}
template <class T, class C>
constexpr T& operator>>=(T& a, ShiftCount<C> s) {
  if constexpr (std::integral<std::remove_cv_t<T>>)
    return a = static_cast<std::remove_cv_t<T>>(detail::shift_right(a, s.value));
  else
    return a >>= s.value;
}

}  // namespace course_cpu
