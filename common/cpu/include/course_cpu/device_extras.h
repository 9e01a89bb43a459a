// CPU backend of the course: CUDA device intrinsics beyond the basic set of device_functions.h, with a GPU's
// (sm_90) results: cache-hint loads and stores, conversions and arithmetic with an explicit rounding mode,
// integer and byte intrinsics, warp reductions and matches, __trap. Math functions: math_extras.h.
#pragma once

#include <course_cpu/device_functions.h>
#include <course_cpu/math_extras.h>
#include <course_cpu/unsupported.h>

#include <cassert>
#include <cfenv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

// ---- cache-hint loads and stores: the hint changes only caching, so they are plain accesses ------------------
#define COURSE_CPU_LOAD_HINT(name) \
  template <class T>               \
  inline T name(const T* p) {      \
    return *p;                     \
  }
COURSE_CPU_LOAD_HINT(__ldcs)
COURSE_CPU_LOAD_HINT(__ldcg)
COURSE_CPU_LOAD_HINT(__ldca)
COURSE_CPU_LOAD_HINT(__ldlu)
COURSE_CPU_LOAD_HINT(__ldcv)
#undef COURSE_CPU_LOAD_HINT
#define COURSE_CPU_STORE_HINT(name)                       \
  template <class T>                                      \
  inline void name(T* p, std::type_identity_t<T> value) { \
    *p = value;                                           \
  }
COURSE_CPU_STORE_HINT(__stcs)
COURSE_CPU_STORE_HINT(__stcg)
COURSE_CPU_STORE_HINT(__stwb)
COURSE_CPU_STORE_HINT(__stwt)
#undef COURSE_CPU_STORE_HINT

namespace course_cpu::detail {

// f() evaluated in rounding mode `mode` (FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD). f must read its operands from
// volatile objects and store its result in one, so that the compiler neither folds it nor moves it out of the mode.
template <class F>
inline auto in_rounding_mode(int mode, F f) {
  const int saved = std::fegetround();
  std::fesetround(mode);
  const auto result = f();
  std::fesetround(saved);
  return result;
}
#define COURSE_CPU_ROUNDED(mode, T, expr)            \
  ::course_cpu::detail::in_rounding_mode(mode, [&] { \
    volatile T r_ = (expr);                          \
    return static_cast<T>(r_);                       \
  })

// CUDA's float -> integer conversion: round (r), then saturate to [lo, hi]; NaN gives 0.
template <class I, class F>
inline I to_integer(F x, F (*round)(F)) {
  if (std::isnan(x)) return 0;
  const long double r = round(x);
  constexpr long double lo = static_cast<long double>(std::numeric_limits<I>::min());
  // hi + 1 is a power of two, exact in long double
  constexpr long double above = static_cast<long double>(std::numeric_limits<I>::max()) + 1.0L;
  if (r < lo) return std::numeric_limits<I>::min();
  if (r >= above) return std::numeric_limits<I>::max();
  return static_cast<I>(r);
}
inline float round_rn(float x) { return __builtin_roundevenf(x); }
inline float round_rz(float x) { return std::trunc(x); }
inline float round_rd(float x) { return std::floor(x); }
inline float round_ru(float x) { return std::ceil(x); }
inline double round_rn(double x) { return __builtin_roundeven(x); }
inline double round_rz(double x) { return std::trunc(x); }
inline double round_rd(double x) { return std::floor(x); }
inline double round_ru(double x) { return std::ceil(x); }

}  // namespace course_cpu::detail

// ---- conversions (__float2int_rn, __float2int_rz and __int2float_rn are in device_functions.h) -----------------
#define COURSE_CPU_TO_INT(F, from, I, to, mode)                                                                  \
  inline I __##from##2##to##_##mode(F x) {                                                                       \
    return ::course_cpu::detail::to_integer<I, F>(x, static_cast<F (*)(F)>(::course_cpu::detail::round_##mode)); \
  }
#define COURSE_CPU_TO_INT_ALL(F, from, I, to) \
  COURSE_CPU_TO_INT(F, from, I, to, rn)       \
  COURSE_CPU_TO_INT(F, from, I, to, rz)       \
  COURSE_CPU_TO_INT(F, from, I, to, rd)       \
  COURSE_CPU_TO_INT(F, from, I, to, ru)
COURSE_CPU_TO_INT(float, float, int, int, rd)
COURSE_CPU_TO_INT(float, float, int, int, ru)
COURSE_CPU_TO_INT_ALL(float, float, unsigned int, uint)
COURSE_CPU_TO_INT_ALL(float, float, long long, ll)
COURSE_CPU_TO_INT_ALL(float, float, unsigned long long, ull)
COURSE_CPU_TO_INT_ALL(double, double, int, int)
COURSE_CPU_TO_INT_ALL(double, double, unsigned int, uint)
COURSE_CPU_TO_INT_ALL(double, double, long long, ll)
COURSE_CPU_TO_INT_ALL(double, double, unsigned long long, ull)
#undef COURSE_CPU_TO_INT_ALL
#undef COURSE_CPU_TO_INT

// Conversions to floating point in each rounding mode (rn: the default mode).
#define COURSE_CPU_CONVERT(From, To, name, mode)                                 \
  inline To name(From x) {                                                       \
    volatile From vx = x;                                                        \
    return COURSE_CPU_ROUNDED(mode, To, static_cast<To>(static_cast<From>(vx))); \
  }
#define COURSE_CPU_TO_FP(From, from, To, to)                        \
  COURSE_CPU_CONVERT(From, To, __##from##2##to##_rz, FE_TOWARDZERO) \
  COURSE_CPU_CONVERT(From, To, __##from##2##to##_rd, FE_DOWNWARD)   \
  COURSE_CPU_CONVERT(From, To, __##from##2##to##_ru, FE_UPWARD)
#define COURSE_CPU_TO_FP_RN(From, from, To, to) COURSE_CPU_CONVERT(From, To, __##from##2##to##_rn, FE_TONEAREST)
COURSE_CPU_TO_FP(int, int, float, float)
COURSE_CPU_TO_FP_RN(unsigned int, uint, float, float)
COURSE_CPU_TO_FP(unsigned int, uint, float, float)
COURSE_CPU_TO_FP_RN(long long, ll, float, float)
COURSE_CPU_TO_FP(long long, ll, float, float)
COURSE_CPU_TO_FP_RN(unsigned long long, ull, float, float)
COURSE_CPU_TO_FP(unsigned long long, ull, float, float)
COURSE_CPU_TO_FP_RN(double, double, float, float)
COURSE_CPU_TO_FP(double, double, float, float)
COURSE_CPU_TO_FP_RN(long long, ll, double, double)
COURSE_CPU_TO_FP(long long, ll, double, double)
COURSE_CPU_TO_FP_RN(unsigned long long, ull, double, double)
COURSE_CPU_TO_FP(unsigned long long, ull, double, double)
#undef COURSE_CPU_TO_FP
#undef COURSE_CPU_TO_FP_RN
#undef COURSE_CPU_CONVERT
inline double __int2double_rn(int x) { return static_cast<double>(x); }  // exact
inline double __uint2double_rn(unsigned int x) { return static_cast<double>(x); }
inline int __double2hiint(double x) { return static_cast<int>(std::bit_cast<std::uint64_t>(x) >> 32); }
inline int __double2loint(double x) { return static_cast<int>(std::bit_cast<std::uint64_t>(x) & 0xffffffffu); }
inline double __hiloint2double(int hi, int lo) {
  return std::bit_cast<double>((static_cast<std::uint64_t>(static_cast<unsigned>(hi)) << 32) |
                               static_cast<unsigned>(lo));
}

// ---- arithmetic in a rounding mode (the _rn ones device_functions.h lacks, then _rz, _rd, _ru) ------------------
#define COURSE_CPU_OP2(name, T, op, mode)         \
  inline T name(T a, T b) {                       \
    volatile T va = a, vb = b;                    \
    return COURSE_CPU_ROUNDED(mode, T, va op vb); \
  }
#define COURSE_CPU_OP2_DIRECTED(prefix, T, op)      \
  COURSE_CPU_OP2(prefix##_rz, T, op, FE_TOWARDZERO) \
  COURSE_CPU_OP2(prefix##_rd, T, op, FE_DOWNWARD)   \
  COURSE_CPU_OP2(prefix##_ru, T, op, FE_UPWARD)
COURSE_CPU_OP2_DIRECTED(__fadd, float, +)
COURSE_CPU_OP2_DIRECTED(__fsub, float, -)
COURSE_CPU_OP2_DIRECTED(__fmul, float, *)
COURSE_CPU_OP2_DIRECTED(__fdiv, float, /)
COURSE_CPU_OP2(__dadd_rz, double, +, FE_TOWARDZERO)
COURSE_CPU_OP2(__dadd_rd, double, +, FE_DOWNWARD)
COURSE_CPU_OP2(__dadd_ru, double, +, FE_UPWARD)
COURSE_CPU_OP2(__dmul_rz, double, *, FE_TOWARDZERO)
COURSE_CPU_OP2(__dmul_rd, double, *, FE_DOWNWARD)
COURSE_CPU_OP2(__dmul_ru, double, *, FE_UPWARD)
COURSE_CPU_OP2(__dsub_rn, double, -, FE_TONEAREST)
COURSE_CPU_OP2_DIRECTED(__dsub, double, -)
COURSE_CPU_OP2(__ddiv_rn, double, /, FE_TONEAREST)
COURSE_CPU_OP2_DIRECTED(__ddiv, double, /)
#undef COURSE_CPU_OP2_DIRECTED
#undef COURSE_CPU_OP2

#define COURSE_CPU_OP1(name, T, expr, mode)   \
  inline T name(T a) {                        \
    volatile T va = a;                        \
    return COURSE_CPU_ROUNDED(mode, T, expr); \
  }
COURSE_CPU_OP1(__frcp_rz, float, 1.0f / va, FE_TOWARDZERO)
COURSE_CPU_OP1(__frcp_rd, float, 1.0f / va, FE_DOWNWARD)
COURSE_CPU_OP1(__frcp_ru, float, 1.0f / va, FE_UPWARD)
COURSE_CPU_OP1(__fsqrt_rz, float, std::sqrt(static_cast<float>(va)), FE_TOWARDZERO)
COURSE_CPU_OP1(__fsqrt_rd, float, std::sqrt(static_cast<float>(va)), FE_DOWNWARD)
COURSE_CPU_OP1(__fsqrt_ru, float, std::sqrt(static_cast<float>(va)), FE_UPWARD)
COURSE_CPU_OP1(__drcp_rn, double, 1.0 / va, FE_TONEAREST)
COURSE_CPU_OP1(__drcp_rz, double, 1.0 / va, FE_TOWARDZERO)
COURSE_CPU_OP1(__drcp_rd, double, 1.0 / va, FE_DOWNWARD)
COURSE_CPU_OP1(__drcp_ru, double, 1.0 / va, FE_UPWARD)
COURSE_CPU_OP1(__dsqrt_rn, double, std::sqrt(static_cast<double>(va)), FE_TONEAREST)
COURSE_CPU_OP1(__dsqrt_rz, double, std::sqrt(static_cast<double>(va)), FE_TOWARDZERO)
COURSE_CPU_OP1(__dsqrt_rd, double, std::sqrt(static_cast<double>(va)), FE_DOWNWARD)
COURSE_CPU_OP1(__dsqrt_ru, double, std::sqrt(static_cast<double>(va)), FE_UPWARD)
#undef COURSE_CPU_OP1
// 1/sqrt(x), rounded once: long double keeps 64 bits, and the exact value is never a float midpoint.
inline float __frsqrt_rn(float x) { return static_cast<float>(1.0L / std::sqrt(static_cast<long double>(x))); }

#define COURSE_CPU_FMA(name, T, mode)                                                                         \
  inline T name(T a, T b, T c) {                                                                              \
    volatile T va = a, vb = b, vc = c;                                                                        \
    return COURSE_CPU_ROUNDED(mode, T, std::fma(static_cast<T>(va), static_cast<T>(vb), static_cast<T>(vc))); \
  }
COURSE_CPU_FMA(__fmaf_rz, float, FE_TOWARDZERO)
COURSE_CPU_FMA(__fmaf_rd, float, FE_DOWNWARD)
COURSE_CPU_FMA(__fmaf_ru, float, FE_UPWARD)
COURSE_CPU_FMA(__fma_rz, double, FE_TOWARDZERO)
COURSE_CPU_FMA(__fma_rd, double, FE_DOWNWARD)
COURSE_CPU_FMA(__fma_ru, double, FE_UPWARD)
#undef COURSE_CPU_FMA
#undef COURSE_CPU_ROUNDED

// ---- integer intrinsics --------------------------------------------------------------------------------------
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift) {
  const std::uint64_t both = (static_cast<std::uint64_t>(hi) << 32) | lo;
  return static_cast<unsigned>((both << (shift & 31u)) >> 32);
}
inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned shift) {
  const std::uint64_t both = (static_cast<std::uint64_t>(hi) << 32) | lo;
  return static_cast<unsigned>((both << (shift < 32u ? shift : 32u)) >> 32);
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift) {
  const std::uint64_t both = (static_cast<std::uint64_t>(hi) << 32) | lo;
  return static_cast<unsigned>(both >> (shift & 31u));
}
inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned shift) {
  const std::uint64_t both = (static_cast<std::uint64_t>(hi) << 32) | lo;
  return static_cast<unsigned>(both >> (shift < 32u ? shift : 32u));
}
// Byte n of the result is byte (s >> 4n) & 7 of the 8 bytes y:x (x holds bytes 0..3).
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  const std::uint64_t bytes = (static_cast<std::uint64_t>(y) << 32) | x;
  unsigned r = 0;
  for (int n = 0; n < 4; ++n) r |= static_cast<unsigned>((bytes >> (8 * ((s >> (4 * n)) & 7u))) & 0xffu) << (8 * n);
  return r;
}
inline unsigned __sad(int x, int y, unsigned z) {
  return static_cast<unsigned>(x > y ? static_cast<long long>(x) - y : static_cast<long long>(y) - x) + z;
}
inline unsigned __usad(unsigned x, unsigned y, unsigned z) { return (x > y ? x - y : y - x) + z; }
inline int __hadd(int x, int y) { return static_cast<int>((static_cast<long long>(x) + y) >> 1); }
inline int __rhadd(int x, int y) { return static_cast<int>((static_cast<long long>(x) + y + 1) >> 1); }
inline unsigned __uhadd(unsigned x, unsigned y) { return static_cast<unsigned>((std::uint64_t{x} + y) >> 1); }
inline unsigned __urhadd(unsigned x, unsigned y) { return static_cast<unsigned>((std::uint64_t{x} + y + 1) >> 1); }
inline long long __mul64hi(long long x, long long y) {
  return static_cast<long long>((static_cast<__int128>(x) * y) >> 64);
}
inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(x) * y) >> 64);
}
inline unsigned long long __brevll(unsigned long long x) {
  return (static_cast<unsigned long long>(__brev(static_cast<unsigned>(x))) << 32) |
         __brev(static_cast<unsigned>(x >> 32));
}
// Dot products of 4 bytes (dp4a) and of 2 halfwords with 2 bytes (dp2a), accumulated into c (wrapping).
namespace course_cpu::detail {
template <class Lane, class T>
inline Lane lane_of(T v, int width, int i) {
  using U = std::make_unsigned_t<Lane>;
  return static_cast<Lane>(static_cast<U>(static_cast<unsigned>(v) >> (width * i)));
}
}  // namespace course_cpu::detail
inline int __dp4a(int a, int b, int c) {
  using course_cpu::detail::lane_of;
  unsigned r = static_cast<unsigned>(c);
  for (int i = 0; i < 4; ++i) r += static_cast<unsigned>(lane_of<signed char>(a, 8, i) * lane_of<signed char>(b, 8, i));
  return static_cast<int>(r);
}
inline unsigned __dp4a(unsigned a, unsigned b, unsigned c) {
  using course_cpu::detail::lane_of;
  for (int i = 0; i < 4; ++i)
    c += static_cast<unsigned>(lane_of<unsigned char>(a, 8, i)) * lane_of<unsigned char>(b, 8, i);
  return c;
}
inline int __dp4a(char4 a, char4 b, int c) {
  return __dp4a(static_cast<int>(std::bit_cast<unsigned>(a)), static_cast<int>(std::bit_cast<unsigned>(b)), c);
}
inline unsigned __dp4a(uchar4 a, uchar4 b, unsigned c) {
  return __dp4a(std::bit_cast<unsigned>(a), std::bit_cast<unsigned>(b), c);
}
#define COURSE_CPU_DP2A(name, T, Half, Byte, first)                                                                 \
  inline T name(T a, T b, T c) {                                                                                    \
    using course_cpu::detail::lane_of;                                                                              \
    unsigned r = static_cast<unsigned>(c);                                                                          \
    for (int i = 0; i < 2; ++i)                                                                                     \
      r += static_cast<unsigned>(static_cast<long long>(lane_of<Half>(a, 16, i)) * lane_of<Byte>(b, 8, first + i)); \
    return static_cast<T>(r);                                                                                       \
  }
COURSE_CPU_DP2A(__dp2a_lo, int, short, signed char, 0)
COURSE_CPU_DP2A(__dp2a_hi, int, short, signed char, 2)
COURSE_CPU_DP2A(__dp2a_lo, unsigned, unsigned short, unsigned char, 0)
COURSE_CPU_DP2A(__dp2a_hi, unsigned, unsigned short, unsigned char, 2)
#undef COURSE_CPU_DP2A
inline unsigned umin(unsigned a, unsigned b) { return b < a ? b : a; }
inline unsigned umax(unsigned a, unsigned b) { return a < b ? b : a; }
inline long long llmin(long long a, long long b) { return b < a ? b : a; }
inline long long llmax(long long a, long long b) { return a < b ? b : a; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return b < a ? b : a; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a < b ? b : a; }
// The n-th set bit of mask from bit base, upward (offset > 0) or downward (offset < 0); 0xffffffff if none.
inline unsigned __fns(unsigned mask, unsigned base, int offset) {
  if (offset == 0) return base < 32u && ((mask >> base) & 1u) ? base : 0xffffffffu;
  int count = (offset > 0 ? offset : -offset) - 1;
  const int step = offset > 0 ? 1 : -1;
  for (long pos = base; pos >= 0 && pos < 32; pos += step)
    if ((mask >> pos) & 1u) {
      if (count == 0) return static_cast<unsigned>(pos);
      --count;
    }
  return 0xffffffffu;
}

// ---- misc -------------------------------------------------------------------------------------------------------
inline void __nanosleep(unsigned) {}  // a hint; sleeping would only slow the fibers of the block
namespace course_cpu::detail {
// runtime_extras.cpp: stops the block; the launch fails with cudaErrorLaunchFailure, as after a trap on a GPU.
[[noreturn]] void trap(const char* file, int line);
}  // namespace course_cpu::detail
#define __trap() ::course_cpu::detail::trap(__FILE__, __LINE__)
// assert() in device code: course-rewrite writes `assert(c)` as `COURSE_CPU_DEVICE_ASSERT("c", c)`, which is still
// <cassert>'s assert where it is used (so NDEBUG, wherever it is defined, turns it off as with nvcc). A condition that
// fails in a kernel prints what a GPU prints, stops the block and fails the launch with cudaErrorAssert; in host code
// (a __host__ __device__ function) it reports as <cassert> does and aborts. `text` is the condition as written, before
// check mode instruments it.
namespace course_cpu::detail {
[[noreturn]] void device_assert_fail(const char* text, const char* file, int line, const char* function);
constexpr bool device_assert_holds(bool holds, const char* text, const char* file, int line, const char* function) {
  if (!holds) device_assert_fail(text, file, line, function);
  return true;
}
}  // namespace course_cpu::detail
#define COURSE_CPU_DEVICE_ASSERT(text, ...)                                                                  \
  assert(::course_cpu::detail::device_assert_holds(static_cast<bool>(__VA_ARGS__), text, __FILE__, __LINE__, \
                                                   __PRETTY_FUNCTION__))

// Address-space queries: fast mode does not know where a block's shared arrays are.
#define COURSE_CPU_ADDRESS_SPACE(name, Result)                                                                       \
  template <class T>                                                                                                 \
  inline Result name(const T*) {                                                                                     \
    static_assert(course_cpu::unsupported<T>,                                                                        \
                  COURSE_CPU_UNSUPPORTED(#name " (the CPU backend does not keep shared, local and global memory in " \
                                               "separate address spaces)"));                                         \
    return 0;                                                                                                        \
  }
COURSE_CPU_ADDRESS_SPACE(__isShared, unsigned)
COURSE_CPU_ADDRESS_SPACE(__isGlobal, unsigned)
COURSE_CPU_ADDRESS_SPACE(__isLocal, unsigned)
COURSE_CPU_ADDRESS_SPACE(__isConstant, unsigned)
COURSE_CPU_ADDRESS_SPACE(__cvta_generic_to_shared, std::size_t)
COURSE_CPU_ADDRESS_SPACE(__cvta_generic_to_global, std::size_t)
#undef COURSE_CPU_ADDRESS_SPACE

#include <course_cpu/warp_extras.h>
