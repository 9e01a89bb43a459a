// CPU backend of the course, check mode: checked subscripts.
//
// In check mode the rewriter turns every subscript of a __shared__ array, an
// extern __shared__ array or a pointer parameter inside device code into
//     COURSE_SH(As, __LINE__)[i][j]      (shared arrays)
//     COURSE_GL(a, __LINE__)[i]          (pointer parameters)
// Each [] returns a view that remembers the variable, the line and the
// indices; the last [] returns an ElemRef proxy. Converting the proxy to T is
// a read, assigning to it a write, `+=`/`++`/... a read and a write; all of
// them go through check::record() (src/check.cpp), which does the bounds,
// race, uninitialized-read and bank-conflict bookkeeping. `&proxy` yields the
// raw T* and is not tracked (so atomicAdd(&s[0], x) works unchanged).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <course_cpu/launch.h>

namespace course_cpu::check {

enum class Access : unsigned char { none = 0, read = 1, write = 2, read_write = 3 };

constexpr int kMaxDims = 4;

// Where a checked subscript is written: one static object per source location.
struct Site {
  const char* var;
  const char* file;
  int line;
};

// Extents of an array type, as a static table (so views stay small).
template <class A>
struct Extents {
  static constexpr long long value[kMaxDims] = {
      static_cast<long long>(std::extent_v<A, 0>), static_cast<long long>(std::extent_v<A, 1>),
      static_cast<long long>(std::extent_v<A, 2>), static_cast<long long>(std::extent_v<A, 3>)};
};

struct AccessInfo {
  const Site* site;
  const void* base;               // the array's first byte, or the pointer's value
  const void* addr;               // the element accessed
  const long long* extent;        // arrays only: each dimension's size
  std::uint32_t array_bytes;      // arrays only
  std::uint16_t elem_size;
  bool is_array;                  // a static __shared__ array, else a pointer
  signed char ndims;              // subscripts applied so far
  signed char bad_dim;            // first subscript outside its extent, or -1
  long long index[kMaxDims];      // subscript values
};

// Returns true if the access may be performed.
// Checks and records one access; false means "do not perform it" (it was out
// of bounds, or the pointer is not a device pointer). Defined in src/check.cpp.
bool record(const AccessInfo& info, Access kind);
// Storage that absorbs accesses that must not happen.
void* scratch(std::size_t bytes);
// Makes a static __shared__ array known to the running block, so pointers into
// it (passed to __device__ functions) are recognized as shared memory. The
// rewriter emits a call right after each such declaration in check mode.
void declare_shared_region(const void* base, std::size_t bytes);
template <class A>
inline void declare_shared(A& array) {
  declare_shared_region(&array, sizeof(A));
}

template <class T>
class ElemRef {
  using V = std::remove_cv_t<T>;

 public:
  using course_cpu_value_type = V;

  ElemRef(const AccessInfo& info, T* p) : info_(info), p_(p) {}
  ElemRef(const ElemRef&) = default;

  operator V() const { return load(); }
  T* operator&() const { return p_; }

  ElemRef& operator=(const ElemRef& other) {
    const V v = other.load();
    store(v);
    return *this;
  }
  template <class U>
  ElemRef& operator=(const U& value) {
    const V v = static_cast<V>(value);
    store(v);
    return *this;
  }

#define COURSE_CPU_COMPOUND(op)                                                  \
  template <class U>                                                           \
  ElemRef& operator op##=(const U& value) {                                    \
    const auto rhs = static_cast<typename value_of_t<U>::type>(value);         \
    if (record(info_, Access::read_write)) *p_ = static_cast<V>(*p_ op rhs);  \
    return *this;                                                              \
  }
  COURSE_CPU_COMPOUND(+)
  COURSE_CPU_COMPOUND(-)
  COURSE_CPU_COMPOUND(*)
  COURSE_CPU_COMPOUND(/)
  COURSE_CPU_COMPOUND(%)
  COURSE_CPU_COMPOUND(&)
  COURSE_CPU_COMPOUND(|)
  COURSE_CPU_COMPOUND(^)
  COURSE_CPU_COMPOUND(<<)
  COURSE_CPU_COMPOUND(>>)
#undef COURSE_CPU_COMPOUND

  ElemRef& operator++() { return *this += 1; }
  ElemRef& operator--() { return *this -= 1; }
  V operator++(int) {
    V old{};
    if (record(info_, Access::read_write)) { old = *p_; *p_ = static_cast<V>(old + 1); }
    return old;
  }
  V operator--(int) {
    V old{};
    if (record(info_, Access::read_write)) { old = *p_; *p_ = static_cast<V>(old - 1); }
    return old;
  }

 private:
  template <class U, class = void>
  struct value_of_t { using type = U; };
  template <class U>
  struct value_of_t<U, std::void_t<typename U::course_cpu_value_type>> {
    using type = typename U::course_cpu_value_type;
  };

  V load() const { return record(info_, Access::read) ? static_cast<V>(*p_) : V{}; }
  void store(const V& v) {
    if (record(info_, Access::write)) *p_ = v;
  }

  AccessInfo info_;
  T* p_;
};

// The element of a subscript chain: arithmetic types get a tracking proxy;
// class types (float4, structs) a plain reference, bounds-checked only, so
// member access `s[i].x` keeps compiling.
template <class T>
inline decltype(auto) element(const AccessInfo& info, T* p) {
  if constexpr (std::is_class_v<T> || std::is_union_v<T>) {
    T* q = record(info, Access::none) ? p : static_cast<T*>(scratch(sizeof(T)));
    return *q;
  } else {
    return ElemRef<T>(info, p);
  }
}

// A (sub)array of a static __shared__ array: A is T[N] (possibly T[N][M]...).
template <class A>
class ArrayView {
  using Elem = std::remove_extent_t<A>;
  static constexpr std::size_t kExtent = std::extent_v<A>;

 public:
  ArrayView(const AccessInfo& info, Elem* first) : info_(info), first_(first) {}

  template <class I>
  decltype(auto) operator[](I i) const {
    static_assert(std::is_integral_v<I> || std::is_enum_v<I>, "array subscript must be an integer");
    AccessInfo next = info_;
    const long long idx = static_cast<long long>(i);
    if (next.ndims < kMaxDims) next.index[next.ndims] = idx;
    if (next.bad_dim < 0 && (idx < 0 || idx >= static_cast<long long>(kExtent)))
      next.bad_dim = next.ndims;
    ++next.ndims;
    Elem* e = reinterpret_cast<Elem*>(reinterpret_cast<std::uintptr_t>(first_) +
                                      static_cast<std::uintptr_t>(idx) * sizeof(Elem));
    next.addr = e;
    if constexpr (std::is_array_v<Elem>) {
      return ArrayView<Elem>(next, reinterpret_cast<std::remove_extent_t<Elem>*>(e));
    } else {
      next.elem_size = static_cast<std::uint16_t>(sizeof(Elem));
      return element(next, e);
    }
  }
  // Non-subscript uses of a row (As[i] passed on) decay like the array would.
  operator Elem*() const { return first_; }

 private:
  AccessInfo info_;
  Elem* first_;
};

// A pointer (parameter, extern __shared__ array): one subscript.
template <class T>
class PointerView {
 public:
  explicit PointerView(const AccessInfo& info) : info_(info) {}
  template <class I>
  decltype(auto) operator[](I i) const {
    static_assert(std::is_integral_v<I> || std::is_enum_v<I>, "pointer subscript must be an integer");
    AccessInfo next = info_;
    next.index[0] = static_cast<long long>(i);
    next.ndims = 1;
    T* e = reinterpret_cast<T*>(reinterpret_cast<std::uintptr_t>(info_.base) +
                                static_cast<std::uintptr_t>(next.index[0]) * sizeof(T));
    next.addr = e;
    next.elem_size = static_cast<std::uint16_t>(sizeof(T));
    return element(next, e);
  }

 private:
  AccessInfo info_;
};

inline AccessInfo root_info(const Site* site, bool is_array, const void* base, std::size_t bytes,
                            const long long* extent) {
  AccessInfo info;
  info.site = site;
  info.base = base;
  info.addr = base;
  info.extent = extent;
  info.array_bytes = static_cast<std::uint32_t>(bytes);
  info.elem_size = 0;
  info.is_array = is_array;
  info.ndims = 0;
  info.bad_dim = -1;
  return info;
}

// The start of a checked subscript chain: a static array, a pointer, or a
// namespace-scope extern __shared__ array (DynamicShared<T>).
template <class X>
inline auto root(X& x, const Site* site) {
  if constexpr (std::is_array_v<X>) {
    return ArrayView<X>(root_info(site, true, &x, sizeof(X), Extents<X>::value), x);
  } else if constexpr (requires { x.get(); }) {
    return PointerView<std::remove_pointer_t<decltype(x.get())>>(
        root_info(site, false, x.get(), 0, nullptr));
  } else {
    // A pointer; also `T* __restrict__`, which std::is_pointer does not match.
    return PointerView<std::remove_reference_t<decltype(*x)>>(root_info(site, false, x, 0, nullptr));
  }
}
template <class T>
inline PointerView<T> root(T* const&& pointer, const Site* site) {
  return PointerView<T>(root_info(site, false, pointer, 0, nullptr));
}

}  // namespace course_cpu::check

// The lambda gives every subscript site one static Site object.
#define COURSE_CPU_SITE(name, line)                                          \
  [] {                                                                       \
    static constexpr ::course_cpu::check::Site site{#name, __FILE__, line}; \
    return &site;                                                            \
  }()
#define COURSE_SH(name, line) ::course_cpu::check::root(name, COURSE_CPU_SITE(name, line))
#define COURSE_GL(name, line) ::course_cpu::check::root(name, COURSE_CPU_SITE(name, line))
