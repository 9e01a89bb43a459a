// CPU backend of the course: the arguments of the asynchronous copies of <cooperative_groups/memcpy_async.h>,
// <cuda/pipeline> and <cuda/barrier>, and what they share of libcu++ (cuda::thread_scope; cuda::aligned_size_t<N>, a byte count that
// promises N-byte alignment of both addresses).
#pragma once

#include <course_cpu/cuda_std.h>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace cuda {

enum thread_scope { thread_scope_system = 0, thread_scope_device = 1, thread_scope_block = 2, thread_scope_thread = 3 };

}  // namespace cuda

// libcu++ declares the scopes in cuda::std and brings them into cuda; here cuda::std is the host's std, so they are
// brought into it (`cuda::barrier<cuda::std::thread_scope_block>` compiles, as with nvcc).
namespace std {  // NOLINT(cert-dcl58-cpp)
using ::cuda::thread_scope;
using ::cuda::thread_scope_block;
using ::cuda::thread_scope_device;
using ::cuda::thread_scope_system;
using ::cuda::thread_scope_thread;
}  // namespace std

namespace cuda {

template <std::size_t Alignment>
struct aligned_size_t {
  static constexpr std::size_t align = Alignment;
  std::size_t value;
  explicit aligned_size_t(std::size_t size) : value(size) {}
  operator std::size_t() const { return value; }
};

}  // namespace cuda

namespace course_cpu::detail {

// Which API started a copy: messages name it and its wait.
enum class CopyApi { group = 0, pipeline = 1, barrier = 2 };

template <class T>
inline constexpr bool is_copy_count = std::is_integral_v<T>;
template <std::size_t N>
inline constexpr bool is_copy_count<::cuda::aligned_size_t<N>> = true;

// A pointer argument as nvcc sees it: a pointer (__restrict__ too, which std::is_pointer does not take for one), an
// array (its first element's address), or check mode's view of a row of a shared array (`tile[s]`), its pointer.
template <class P>
auto copy_pointer(P&& p) {
  using D = std::decay_t<P>;
  if constexpr (requires { typename D::course_cpu_pointer_type; }) {
    return static_cast<typename D::course_cpu_pointer_type>(p);
  } else {
    auto* pointer = p;
    return pointer;
  }
}
template <class P>
using copy_pointee_t = std::remove_pointer_t<decltype(copy_pointer(std::declval<P>()))>;
// cooperative_groups::memcpy_async(..., T* dst, const T* src, ...): one element type T, and a destination that is not
// const.
template <class Dst, class Src>
inline constexpr bool same_copy_elements =
    !std::is_const_v<copy_pointee_t<Dst>> &&
    std::is_same_v<copy_pointee_t<Dst>, std::remove_const_t<copy_pointee_t<Src>>>;

}  // namespace course_cpu::detail

namespace course_cpu::detail {
// libcu++'s cuda::memcpy_async(T* dst, const T* src, ...) also has a (void* dst, const void* src, ...) overload: any
// element types, and a destination that is not const.
template <class Dst, class Src>
inline constexpr bool cuda_copy_elements = !std::is_const_v<copy_pointee_t<Dst>>;
}  // namespace course_cpu::detail

namespace cuda {
// What libcu++'s cuda::memcpy_async returns (for logging; nothing depends on it).
enum async_contract_fulfillment { none, async };
}  // namespace cuda
