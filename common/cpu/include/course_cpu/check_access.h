// CPU backend of the course, check mode: what one checked access is, and the
// runtime's entry points for it (src/check_record.cpp, src/check_state.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace course_cpu::check {

// none: bound to a reference (or pointer) whose uses are not seen: bounds only, and its words count as possibly written.
// bounds: bound to a reference parameter whose every use the callee checks itself (a class-type `KV&` of a __device__
// function of the file): bounds only.
enum class Access : unsigned char { none = 0, read = 1, write = 2, read_write = 3, bounds = 4 };

inline bool reads(Access kind) { return kind == Access::read || kind == Access::read_write; }
inline bool writes(Access kind) { return kind == Access::write || kind == Access::read_write; }

// Dimensions of a checked __shared__ array (nvcc takes more; kernels rarely use more than 3).
constexpr int kMaxDims = 8;

// Where a checked subscript is written: one static object per source location.
// `id` is 0 until the runtime first sees the site, then a small dense number
// that indexes per-worker tables (written once, under a lock).
struct Site {
  const char* var;
  const char* file;
  int line;
  int id;
  // A local pointer variable: where it points into no shared array and no cudaMalloc'ed buffer (a local array, a
  // pointer past the end that is never used there), the access is performed unchecked instead of reported.
  bool local_pointer = false;
  // A __shared__ scalar (COURSE_CHECKED_SCALAR), checked as a one-element array: messages name it without an index.
  bool scalar = false;
  // A pointer parameter of a __device__ function: it may also point to the thread's local memory or to a __device__
  // or __constant__ variable, where the access is performed unchecked; anywhere else it is reported.
  bool device_param = false;
  // An atomic read-modify-write (atomicAdd() and the others: course_cpu/device_functions.h, check_atomic): it races
  // with no other atomic, and with every plain access of another thread in the same barrier interval.
  bool atomic = false;
  // atomicCAS(): a lock-free update loop (`old = *p; do { assumed = old; old = atomicCAS(p, assumed, f(assumed)); }
  // while (assumed != old);`, the CUDA Programming Guide's pattern) reads the word plainly for a first guess, which the
  // compare-and-swap checks: a plain read and another thread's atomicCAS of the same word do not race.
  bool compare_and_swap = false;
};

// Extents of an array type, as a static table (so views stay small).
template <class A, class = std::make_index_sequence<kMaxDims>>
struct Extents;
template <class A, std::size_t... D>
struct Extents<A, std::index_sequence<D...>> {
  static constexpr long long value[kMaxDims] = {static_cast<long long>(std::extent_v<A, D>)...};
};

// Everything the slow path needs to know about one access.
struct AccessInfo {
  const Site* site;
  const void* base;           // the array's first byte, or the pointer's value
  const void* addr;           // the element accessed
  const long long* extent;    // arrays only: each dimension's size
  std::uint32_t array_bytes;  // arrays only
  std::uint16_t elem_size;
  bool is_array;                 // a static __shared__ array, else a pointer
  signed char ndims;             // subscripts applied so far
  signed char bad_dim;           // first subscript outside its extent, or -1
  long long index[kMaxDims];     // subscript values
  const void* stored = nullptr;  // a plain store's new value (elem_size bytes), else null
  const char* member = nullptr;  // a member access's path (".pos.x"), named after the element in messages
  std::uint16_t index_size = 0;  // a member access: the size of the element its index counts (else elem_size)
  // A struct or vector element read as a whole (copied): its padding and members never stored to are copied too,
  // harmlessly, so it is an uninitialized read only where none of its words was written.
  bool whole = false;
  // An element of a __device__ or __constant__ array of the file past its extent (check_device_arrays.h): reported.
  bool device_array = false;
  // A volatile element (`volatile int* flags`): outside shared memory, its loads and stores do not race with each
  // other or with atomics (PTX treats them as relaxed operations), but `+=` on it is still a read and a write.
  bool is_volatile = false;
};

// The slow path: checks and records one access and reports what is wrong;
// false means "do not perform it" (it was out of bounds, or the pointer is
// not a device pointer). Defined in src/check_record.cpp.
bool record(const AccessInfo& info, Access kind);
// A shared element's address as the runtime takes it: volatile elements
// (`volatile float* v`, `__shared__ volatile float s[64]`) are checked like
// any other.
inline const void* untyped(const volatile void* p) { return const_cast<const void*>(p); }

// A checked subscript whose element address is not a multiple of the element type's alignment: reports it and stops
// the block (inside a check-mode kernel; returns in host code). src/check_alignment.cpp.
void misaligned(const Site* site, const void* address, std::size_t alignment, long long index);
// A volatile access outside shared memory and the cudaMalloc'ed buffers (a `__device__ volatile int flags[16]`
// element): the running block may take other blocks' fenced writes as ordered before its later reads, as after an
// atomic (src/check_global.cpp).
void note_relaxed_access();
// Storage that absorbs accesses that must not happen.
void* scratch(std::size_t bytes);
// Makes a static __shared__ array known to the running block, so pointers into
// it (passed to __device__ functions) are recognized as shared memory. The
// rewriter emits a call right after each such declaration in check mode.
void declare_shared_region(const void* base, std::size_t bytes);
template <class A>
inline void declare_shared(A& array) {
  declare_shared_region(untyped(&array), sizeof(A));
}
// The same for a __shared__ scalar (`__shared__ Stats st;`, so that `atomicAdd(&st.count, 1)` is known to be shared
// memory), but not an object of the runtime's own (cuda::barrier, cuda::pipeline_shared_state, which the block's
// fill would overwrite): only trivial types.
template <class T>
inline void declare_shared_scalar(T& object) {
  if constexpr (std::is_trivial_v<T>) declare_shared_region(untyped(&object), sizeof(T));
}

}  // namespace course_cpu::check
