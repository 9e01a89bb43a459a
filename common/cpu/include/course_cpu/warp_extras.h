// CPU backend of the course: the warp reductions (__reduce_*_sync) and matches (__match_*_sync) of sm_80/sm_70, on
// top of the warp rendezvous of __shfl_sync (device_functions.h): every lane of `mask` must take part, so each lane
// reads the value of every lane of the mask with one indexed shuffle per lane, and computes the result itself.
#pragma once

#include <course_cpu/device_functions.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace course_cpu::detail {

// The values of the lanes of `mask` (lane l at values[l]), as bits; what the shuffles name in messages: `what`.
template <class T>
inline void gather_lanes(int line, unsigned mask, T value, std::uint64_t (&values)[32], const char* what) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8);
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  for (int lane = 0; lane < 32; ++lane)
    if ((mask >> lane) & 1u) values[lane] = warp_exchange(WarpOp::shfl_idx, mask, bits, lane, 32, line, what);
}

enum class WarpReduce { add, min, max, and_, or_, xor_ };

// The overloads of __reduce_*_sync: unsigned for an unsigned int argument, else int.
template <class V>
using reduce_type = std::conditional_t<std::is_same_v<typename value_of<V>::type, unsigned>, unsigned, int>;

template <class V>
inline reduce_type<V> warp_reduce(int line, unsigned mask, const V& var, WarpReduce op, const char* what) {
  using T = reduce_type<V>;
  const T value = static_cast<T>(static_cast<typename value_of<V>::type>(var));
  std::uint64_t values[32] = {};
  gather_lanes(line, mask, value, values, what);
  bool first = true;
  T r = 0;
  for (int lane = 0; lane < 32; ++lane) {
    if (!((mask >> lane) & 1u)) continue;
    T v;
    std::memcpy(&v, &values[lane], sizeof(T));
    if (first) {
      r = v;
      first = false;
      continue;
    }
    switch (op) {
      case WarpReduce::add:
        r = static_cast<T>(static_cast<unsigned>(r) + static_cast<unsigned>(v));  // wraps, as on a GPU
        break;
      case WarpReduce::min:
        r = v < r ? v : r;
        break;
      case WarpReduce::max:
        r = r < v ? v : r;
        break;
      case WarpReduce::and_:
        r &= v;
        break;
      case WarpReduce::or_:
        r |= v;
        break;
      case WarpReduce::xor_:
        r ^= v;
        break;
    }
  }
  return r;
}

template <class V>
inline unsigned match_any(int line, unsigned mask, const V& var) {
  using T = typename value_of<V>::type;
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "__match_any_sync takes a 32- or 64-bit value");
  std::uint64_t values[32] = {};
  gather_lanes<T>(line, mask, static_cast<T>(var), values, "__match_any_sync");
  const unsigned me = (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % 32u;
  unsigned same = 0;
  for (int lane = 0; lane < 32; ++lane)
    if (((mask >> lane) & 1u) && values[lane] == values[me]) same |= 1u << lane;
  return same;
}

template <class V>
inline unsigned match_all(int line, unsigned mask, const V& var, int* pred) {
  using T = typename value_of<V>::type;
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "__match_all_sync takes a 32- or 64-bit value");
  std::uint64_t values[32] = {};
  gather_lanes<T>(line, mask, static_cast<T>(var), values, "__match_all_sync");
  bool all = true;
  const int first = mask == 0 ? 0 : __builtin_ctz(mask);
  for (int lane = 0; lane < 32; ++lane)
    if (((mask >> lane) & 1u) && values[lane] != values[first]) all = false;
  *pred = all ? 1 : 0;
  return all ? mask : 0u;
}

}  // namespace course_cpu::detail

#define COURSE_CPU_WARP_REDUCE(op, name, mask, value) \
  ::course_cpu::detail::warp_reduce(__LINE__, (mask), (value), ::course_cpu::detail::WarpReduce::op, name)
// add, min and max take int or unsigned; and, or and xor unsigned.
#define __reduce_add_sync(mask, value) COURSE_CPU_WARP_REDUCE(add, "__reduce_add_sync", mask, value)
#define __reduce_min_sync(mask, value) COURSE_CPU_WARP_REDUCE(min, "__reduce_min_sync", mask, value)
#define __reduce_max_sync(mask, value) COURSE_CPU_WARP_REDUCE(max, "__reduce_max_sync", mask, value)
#define __reduce_and_sync(mask, value) \
  COURSE_CPU_WARP_REDUCE(and_, "__reduce_and_sync", mask, static_cast<unsigned>(value))
#define __reduce_or_sync(mask, value) \
  COURSE_CPU_WARP_REDUCE(or_, "__reduce_or_sync", mask, static_cast<unsigned>(value))
#define __reduce_xor_sync(mask, value) \
  COURSE_CPU_WARP_REDUCE(xor_, "__reduce_xor_sync", mask, static_cast<unsigned>(value))
#define __match_any_sync(mask, value) ::course_cpu::detail::match_any(__LINE__, (mask), (value))
#define __match_all_sync(mask, value, pred) ::course_cpu::detail::match_all(__LINE__, (mask), (value), (pred))
