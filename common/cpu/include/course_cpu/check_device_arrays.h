// CPU backend of the course, check mode: the file's own __device__ and __constant__ arrays
// (`__constant__ float weights[2 * R + 1];`, `__device__ int table[64];`). course-rewrite writes each subscript of
// one in device code as `COURSE_CHECKED_DEVICE_ARRAY(weights, __LINE__, kind)[i]`: the index is checked against the
// declared extent and the element itself is used (a plain reference: these arrays have no shadow, and their races
// are not checked; a volatile element counts as the block's atomic access for the order between blocks). An index
// past the extent is reported as out-of-bounds, like a __shared__ array's, and the access goes to a zeroed scratch
// element instead.
#pragma once

#include <course_cpu/check_access.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace course_cpu::check {

template <class Root, class Sub, int D>
class DeviceArrayView {
  using Elem = std::remove_extent_t<Sub>;
  static constexpr int kRank = static_cast<int>(std::rank_v<Root>);
  static_assert(kRank <= kMaxDims, "check mode checks __device__ arrays of at most 8 dimensions");

 public:
  DeviceArrayView(const Site* site, Sub* sub, Access kind, const long long* index)
      : site_(site), sub_(sub), kind_(kind) {
    for (int d = 0; d < D; ++d) index_[d] = index[d];
  }

  template <class I>
  decltype(auto) operator[](I i) const {
    if constexpr (requires { typename I::course_cpu_value_type; }) {
      return (*this)[static_cast<typename I::course_cpu_value_type>(i)];  // weights[s[t]]: the element's value
    } else {
      const long long idx = static_cast<long long>(i);  // also a class that converts to an integer
      Elem* e = static_cast<unsigned long long>(idx) < std::extent_v<Sub>
                    ? &(*sub_)[idx]
                    : static_cast<Elem*>(past_extent(idx, sizeof(Elem)));
      if constexpr (std::is_array_v<Elem>) {
        long long index[kRank > 0 ? kRank : 1];
        for (int d = 0; d < D; ++d) index[d] = index_[d];
        index[D] = idx;
        return DeviceArrayView<Root, Elem, D + 1>(site_, e, kind_, index);
      } else {
        if constexpr (std::is_volatile_v<Elem>) note_relaxed_access();  // a flag another block sets (check_global)
        return static_cast<Elem&>(*e);
      }
    }
  }
  // A row given on (`float* row = table[r];`) decays as the array would; bound to a reference to its array type
  // (`rowsum(table[r])` for `const float (&row)[8]`) it is the row.
  operator std::remove_extent_t<Sub>*() const { return *sub_; }
  template <class R>
  requires std::is_same_v<std::remove_cv_t<R>, std::remove_cv_t<Sub>>
  operator R&() const { return *sub_; }

 private:
  // Reports the index (an out-of-bounds finding, when check mode runs a thread) and gives scratch memory to use.
  void* past_extent(long long idx, std::size_t elem_size) const {
    AccessInfo info;
    info.site = site_;
    info.base = nullptr;
    info.addr = nullptr;
    info.extent = Extents<Root>::value;
    info.array_bytes = static_cast<std::uint32_t>(sizeof(Root));
    info.elem_size = static_cast<std::uint16_t>(elem_size);
    info.is_array = true;
    info.device_array = true;
    info.ndims = static_cast<signed char>(kRank);
    info.bad_dim = static_cast<signed char>(D);
    for (int d = 0; d < D; ++d) info.index[d] = index_[d];
    info.index[D] = idx;
    for (int d = D + 1; d < kRank; ++d) info.index[d] = 0;
    record(info, kind_);
    return scratch(elem_size);
  }

  const Site* site_;
  Sub* sub_;
  Access kind_;
  long long index_[kRank > 0 ? kRank : 1] = {};
};

template <class X>
inline DeviceArrayView<X, X, 0> device_array(X& x, const Site* site, Access kind) {
  static_assert(std::is_array_v<X>, "a __device__ or __constant__ array");
  return DeviceArrayView<X, X, 0>(site, &x, kind, nullptr);
}

}  // namespace course_cpu::check

#define COURSE_CHECKED_DEVICE_ARRAY(name, line, kind) \
  ::course_cpu::check::device_array(name, COURSE_CPU_SITE(name, line), ::course_cpu::check::Access::kind)
