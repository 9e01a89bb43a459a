// CPU backend of the course, check mode: checked subscripts.
//
// In check mode the rewriter turns every subscript of a __shared__ array, an
// extern __shared__ array or a pointer parameter inside device code into
//     COURSE_CHECKED(As, __LINE__)[i][j]      (shared arrays)
//     COURSE_CHECKED(a, __LINE__)[i]          (pointer parameters)
//     COURSE_CHECKED_LOCAL(p, __LINE__)[i]    (local pointer variables)
//     COURSE_CHECKED_SCALAR(total, __LINE__)  (every use of a __shared__ scalar of an arithmetic type)
//     COURSE_CHECKED_OBJECT(st, __LINE__)     (a data member of another __shared__ scalar: `st.count`)
//     COURSE_CHECKED_MEMBER(st.bins, __LINE__)[i]   (a member array or pointer of such a scalar)
// Each [] returns a small view that remembers the variable, the line and the
// indices; the last [] returns an ElemRef proxy (check_element.h). Converting
// the proxy to T is a read, assigning to it a write, `+=`/`++`/... a read and
// a write. `&proxy` yields the raw T* and is not tracked (so
// atomicAdd(&s[0], x) works unchanged).
//
// Every access first tries the inlined fast path (check_fast_path.h): an
// in-bounds access of a known shared array or of a cached cudaMalloc buffer
// that needs no report is checked and recorded with a few comparisons,
// without calls or allocations. Anything else (first access of a site on a
// worker, anything to report, host code) goes through check::record() in
// src/check_record.cpp, which does the full bounds, race, uninitialized-read
// and bank-conflict bookkeeping and writes the messages. Both paths keep the
// same state, so what is reported does not depend on which path saw an access.
#pragma once

#include <course_cpu/check_access.h>
#include <course_cpu/check_device_arrays.h>
#include <course_cpu/check_element.h>
#include <course_cpu/check_fast_path.h>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <type_traits>
#include <utility>

namespace course_cpu::check {

// A (sub)array of a static __shared__ array Root: Sub is T[N] (possibly
// T[N][M]...), reached by the first D subscripts.
template <class Root, class Sub, int D, Use U = Use::any>
class ArrayView {
  using Elem = std::remove_extent_t<Sub>;
  static constexpr std::size_t kExtent = std::extent_v<Sub>;

 public:
  ArrayView(const ArrayLoc<Root>& loc, Elem* first) : loc_(loc), first_(first) {}

  template <class I>
  decltype(auto) operator[](I i) const {
    if constexpr (requires { typename I::course_cpu_value_type; }) {
      return (*this)[static_cast<typename I::course_cpu_value_type>(i)];  // bins[in[i]]: the element's value
    } else {
      return at(i);
    }
  }
  // Non-subscript uses of a row (As[i] passed on) decay like the array would; `auto* row = As[i]` deduces that
  // pointer, `&As[i]` is a pointer to the row and `for (float x : As[i])` walks it (unchecked, like a pointer).
  using course_cpu_pointer_type = Elem*;
  using course_cpu_array_type = Sub;  // what a reference parameter binds (element_ref())
  // The chain with its element's use marked (for_store(), for_load(), for_member()).
  template <Use V>
  ArrayView<Root, Sub, D, V> course_cpu_for_use() const {
    return {loc_, first_};
  }
  operator Elem*() const { return first_; }
  Sub* operator&() const { return reinterpret_cast<Sub*>(first_); }
  Elem* begin() const { return first_; }
  Elem* end() const { return first_ + kExtent; }
  // `float (&row)[33] = tile[t];`: a reference to the row, bounds-checked here. What is done through it is not seen,
  // like an access through a pointer; its words count as possibly written. A template, so that only a reference to
  // the row's array type deduces it (`float* p = tile[t]` keeps the decay above, unambiguous).
  template <class R>
  requires std::is_same_v<std::remove_cv_t<R>, std::remove_cv_t<Sub>>
  operator R&() const {
    ArrayLoc<Root> row = loc_;  // messages name the row's first element
    for (int d = D; d < ArrayLoc<Root>::kRank; ++d) row.index[d] = 0;
    const bool ok = row.template fast<sizeof(Sub)>(untyped(first_), Access::none) ||
                    record(row.info(untyped(first_), sizeof(Sub)), Access::none);
    return *reinterpret_cast<R*>(ok ? static_cast<void*>(first_) : scratch(sizeof(Sub)));
  }

 private:
  template <class I>
  decltype(auto) at(I i) const {
    static_assert(std::is_integral_v<I> || std::is_enum_v<I>, "array subscript must be an integer");
    ArrayLoc<Root> next = loc_;
    const long long idx = static_cast<long long>(i);
    next.index[D] = idx;
    next.bad |= static_cast<unsigned>(static_cast<unsigned long long>(idx) >= kExtent) << D;
    Elem* e = reinterpret_cast<Elem*>(reinterpret_cast<std::uintptr_t>(first_) +
                                      static_cast<std::uintptr_t>(idx) * sizeof(Elem));
    if constexpr (std::is_array_v<Elem>) {
      return ArrayView<Root, Elem, D + 1, U>(next, reinterpret_cast<std::remove_extent_t<Elem>*>(e));
    } else {
      return element<U>(next, e);
    }
  }

  ArrayLoc<Root> loc_;
  Elem* first_;
};

// A pointer (parameter, extern __shared__ array, local pointer variable): one subscript. A pointer to an array
// (`float (*As)[33]`) takes one subscript per dimension; each access is then checked as the element at the
// flattened index `offset` + i from the pointer (As[1][2] is element 35 of As).
template <class T, Use U = Use::any>
class PointerView {
 public:
  PointerView(const Site* site, T* base, long long offset = 0) : site_(site), base_(base), offset_(offset) {}
  template <class I>
  decltype(auto) operator[](I i) const {
    if constexpr (requires { typename I::course_cpu_value_type; })
      return (*this)[static_cast<typename I::course_cpu_value_type>(i)];  // x[col[j]]: the element's value
    else
      return at(i);
  }
  using course_cpu_pointer_type = T*;
  template <Use V>
  PointerView<T, V> course_cpu_for_use() const {
    return {site_, base_, offset_};
  }
  // Non-subscript uses of a row (As[i] passed on) decay like the row would.
  operator T*() const {
    return reinterpret_cast<T*>(reinterpret_cast<std::uintptr_t>(base_) +
                                static_cast<std::uintptr_t>(offset_) * sizeof(T));
  }

 private:
  template <class I>
  decltype(auto) at(I i) const {
    static_assert(std::is_integral_v<I> || std::is_enum_v<I>, "pointer subscript must be an integer");
    const long long idx = offset_ + static_cast<long long>(i);
    if constexpr (std::is_array_v<T>) {
      using Row = std::remove_extent_t<T>;
      return PointerView<Row, U>(site_, reinterpret_cast<Row*>(base_), idx * static_cast<long long>(std::extent_v<T>));
    } else {
      T* e =
          reinterpret_cast<T*>(reinterpret_cast<std::uintptr_t>(base_) + static_cast<std::uintptr_t>(idx) * sizeof(T));
      if (reinterpret_cast<std::uintptr_t>(e) % alignof(T) != 0) [[unlikely]]
        misaligned(site_, untyped(e), alignof(T), idx);
      return element<U>(PointerLoc<T>{site_, base_, idx}, e);
    }
  }

  const Site* site_;
  T* base_;
  long long offset_;
};

// course-rewrite wraps a chain's root in one of these where it sees how the element is used (Use, check_element.h):
// `s[i] = v;` for_store(s)[i], `v = s[i];` for_load(s)[i], `s[i].x` for_member(s)[i]. A struct or vector element is
// then a WholeStore, a checked whole read, or a MemberOf; an arithmetic element is the same proxy either way. Other
// roots (an `auto` local's own object) are left as they are.
template <Use U, class X>
decltype(auto) for_use(X&& x) {
  if constexpr (requires { x.template course_cpu_for_use<U>(); })
    return x.template course_cpu_for_use<U>();
  else
    return static_cast<X&&>(x);
}
template <class X>
decltype(auto) for_store(X&& x) {
  return for_use<Use::store>(static_cast<X&&>(x));
}
template <class X>
decltype(auto) for_load(X&& x) {
  return for_use<Use::load>(static_cast<X&&>(x));
}
template <class X>
decltype(auto) for_member(X&& x) {
  return for_use<Use::member>(static_cast<X&&>(x));
}
template <class X>
decltype(auto) for_bound(X&& x) {
  return for_use<Use::bound>(static_cast<X&&>(x));
}

// The member path of a checked member access (member() in check_element.h): the member's address from the element
// (not callable where there is none: a bit-field, an enumerator; the return type names &member, so the call does not
// deduce), its value (a reference where the path names an lvalue), `&T::first` for the path's first name (a pointer
// to member for a data member, a plain pointer for a static one), and the path's text.
// A bit-field, which has no address, is read and written through `read` and `write` (BitFieldRef, check_element.h).
template <class A, class V, class F, class R, class W>
struct MemberPath {
  A address;
  V value;
  F first;
  const char* path;
  R read;
  W write;
};
template <class A, class V, class F, class R, class W>
MemberPath(A, V, F, const char*, R, W) -> MemberPath<A, V, F, R, W>;

// `auto v = s[i];` is rewritten to `auto v = ::course_cpu::check::value(s[i]);`:
// an element proxy becomes its value (a read), as `auto` copies the element
// in CUDA, and a row of a 2D array (`auto row = tile[t];`) its pointer, as the
// array decays. Anything else is passed on as it is: an lvalue (a struct
// element, which is no proxy) as the lvalue, so that an operator or function
// taking it by non-const reference still binds it (`auto` copies it anyway),
// and a temporary as a value.
// constexpr, so a macro's operand wrapped in it (`#define MAX(a, b) ...`) still makes a constant expression
// (`__shared__ float s[MAX(BS, 32)];`, `constexpr int pad = MAX(BS / 16, 1);`).
template <class X>
constexpr decltype(auto) value(X&& x) {
  if constexpr (requires { typename std::remove_cvref_t<X>::course_cpu_value_type; })
    return static_cast<typename std::remove_cvref_t<X>::course_cpu_value_type>(x);
  else if constexpr (requires { typename std::remove_cvref_t<X>::course_cpu_pointer_type; })
    return static_cast<typename std::remove_cvref_t<X>::course_cpu_pointer_type>(x);  // a row decays to a pointer
  else if constexpr (std::is_lvalue_reference_v<X>)
    return static_cast<X>(x);
  else
    return std::remove_cvref_t<X>(static_cast<X&&>(x));
}

// What a cache load (`__ldg(p)`, written out by course-rewrite as a load of `*p` or `p[i]`) returns: the element's
// value, a prvalue as the intrinsic's, also where the element is no checked proxy.
template <class X>
auto loaded(X&& x) {
  auto v = value(static_cast<X&&>(x));
  return v;
}

// `printf` in the body of a function-like macro (`#define LOG(fmt, ...) printf(fmt, __VA_ARGS__)`) is rewritten to
// this: an element proxy cannot pass through `...`, so each argument is given as its value.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
template <class... A>
inline int printf_values(const char* format, A&&... a) {
  return std::printf(format, value(static_cast<A&&>(a))...);
}
#pragma GCC diagnostic pop

// An element proxy passed to a function template's `T&` parameter (`swap(s[i], s[j])`): the element itself, so that T
// is deduced as the element's type; bounds-checked, and what the function does through it is not seen. A row of a 2D
// array given to a reference to an array (`rowsum(tile[r])` for `const float (&row)[N]`) is the row's array. Anything
// else is passed on as it is.
template <class X>
inline decltype(auto) element_ref(X&& x) {
  if constexpr (requires { typename std::remove_cvref_t<X>::course_cpu_element_type; })
    return static_cast<typename std::remove_cvref_t<X>::course_cpu_element_type&>(x);
  else if constexpr (requires { typename std::remove_cvref_t<X>::course_cpu_array_type; })
    return static_cast<typename std::remove_cvref_t<X>::course_cpu_array_type&>(x);  // a row: `float (&row)[N]`
  else
    return static_cast<X&&>(x);
}

// A function template's `T&` parameter made `A&&` by course-rewrite (`swapv(T& a, T& b)` called with elements, so
// that what it does through them is checked): the T that CUDA deduces from the argument, an element proxy's element
// type or the referenced type; binds_as: whether `T&` binds the argument, an lvalue or an element, with that T.
template <class A>
struct referenced {
  using type = std::remove_reference_t<A>;
};
template <class A>
requires requires { typename std::remove_cvref_t<A>::course_cpu_element_type; }
struct referenced<A> {
  using type = typename std::remove_cvref_t<A>::course_cpu_element_type;
};
template <class A>
using referenced_t = typename referenced<A>::type;
template <class A, class T>
inline constexpr bool binds_as = std::is_same_v<referenced_t<A>, T> && (std::is_lvalue_reference_v<A> || requires {
                                   typename std::remove_cvref_t<A>::course_cpu_element_type;
                                 });

// An element given to a function template's `T&` parameter made `A&&` (above): the element proxy itself, so that
// what the function does through it is checked; a row of a 2D array is the row's array, as element_ref() gives it.
template <class X>
inline decltype(auto) proxy_ref(X&& x) {
  if constexpr (requires { typename std::remove_cvref_t<X>::course_cpu_array_type; })
    return static_cast<typename std::remove_cvref_t<X>::course_cpu_array_type&>(x);
  else
    return static_cast<X&&>(x);
}

// `float& m = c ? s[i] : s[j];` is rewritten to `auto&& m = ::course_cpu::check::either(c, s[i], s[j]);`: two
// proxies of one kind give the chosen proxy (every use of m is checked, as with `float& r = s[i];`); otherwise (a
// shared and a global element, or an element and a local) a reference to the chosen element, bounds-checked, and
// what is done through it is not seen. Both operands' addresses are computed; only the chosen one is accessed.
template <class A, class B>
inline decltype(auto) either(bool c, A&& a, B&& b) {
  using PA = std::remove_cvref_t<A>;
  if constexpr (std::is_same_v<PA, std::remove_cvref_t<B>> && requires { typename PA::course_cpu_element_type; })
    return c ? PA(a) : PA(b);
  else
    return c ? element_ref(static_cast<A&&>(a)) : element_ref(static_cast<B&&>(b));
}

// The start of a checked subscript chain: a static array, a pointer, or a
// namespace-scope extern __shared__ array (DynamicShared<T>).
template <class X>
inline auto root(X& x, const Site* site) {
  if constexpr (std::is_array_v<X>) {
    return ArrayView<X, X, 0>(ArrayLoc<X>{site, &x, 0u, {}}, x);
  } else if constexpr (requires { x.get(); }) {
    return PointerView<std::remove_pointer_t<decltype(x.get())>>(site, x.get());
  } else {
    // A pointer; also `T* __restrict__`, which std::is_pointer does not match.
    return PointerView<std::remove_reference_t<decltype(*x)>>(site, x);
  }
}
template <class T>
inline PointerView<T> root(T* const&& pointer, const Site* site) {
  return PointerView<T>(site, pointer);
}

// A reference parameter of a class type (`__device__ void swapIf(KV& a, KV& b)`), as the pointer its uses are checked
// through: `a.key` is `member<U>(for_member(root(address_of(a), SITE))[0], .key)` (course-rewrite).
template <class T>
inline T* address_of(T& x) {
  return std::addressof(x);
}

// A __shared__ scalar as a one-element array: an arithmetic one is that array's element (scalar() below); another
// type's data members are checked as its element's, `st.count` being
// `member<U>(for_member(COURSE_CHECKED_OBJECT(st, line))[0], .count)` (course-rewrite).
template <class X>
inline X (&one_object(X& x))[1] {
  return reinterpret_cast<X(&)[1]>(x);
}

// A __shared__ scalar of an arithmetic type (`__shared__ float total;`): the only element of a one-element array, so
// that every use is an element proxy, checked like a subscript (its site has Site::scalar: messages say `total`).
template <class X>
inline decltype(auto) scalar(X& x, const Site* site) {
  static_assert(std::is_arithmetic_v<std::remove_cv_t<X>>, "check mode checks __shared__ scalars of arithmetic types");
  return root(one_object(x), site)[0];
}

// A subscript of a member of a __shared__ scalar (`st.bins[i]`, `st.p[i]`), or of such a scalar itself: a member array
// is checked like a shared array of its own (inside the struct's region), a pointer member like a local pointer
// (Site::local_pointer), an array-like object (`__shared__ cuda::std::array<float, 128> stage;`: data() and
// tuple_size, nothing else in it) like its array of elements; another object with its own operator[] is left as it is.
template <class X>
inline decltype(auto) member_root(X& x, const Site* site) {
  if constexpr (std::is_array_v<X> || std::is_pointer_v<X>) {
    return root(x, site);
  } else if constexpr (requires {
                         { x.data() } -> std::same_as<std::remove_reference_t<decltype(*x.data())>*>;
                         std::tuple_size<std::remove_cv_t<X>>::value;
                       }) {
    using E = std::remove_reference_t<decltype(*x.data())>;
    constexpr std::size_t n = std::tuple_size<std::remove_cv_t<X>>::value;
    if constexpr (n > 0 && sizeof(X) == n * sizeof(E) && std::is_trivially_copyable_v<std::remove_cv_t<X>>)
      return root(*reinterpret_cast<E(*)[n]>(x.data()), site);
    else
      return (x);
  } else {
    return (x);
  }
}

// A subscript of an `auto` local: checked like a local pointer's where the variable is a pointer, left alone where it
// is not (an object with its own operator[]).
template <class X>
inline decltype(auto) root_or_self(X& x, const Site* site) {
  if constexpr (requires { requires std::is_pointer_v<decltype(+x)>; })
    return PointerView<std::remove_pointer_t<decltype(+x)>>(site, +x);
  else
    return (x);
}
// A dereference of an `auto` local, `*row` or `*(row + i)`: checked like `row[i]` where the variable is a pointer,
// performed as written where it is an object with its own operator* (an iterator).
template <class X>
inline decltype(auto) deref_auto(X& x, const Site* site, long long offset) {
  if constexpr (requires { requires std::is_pointer_v<decltype(+x)>; })
    return PointerView<std::remove_pointer_t<decltype(+x)>>(site, +x)[offset];
  else if constexpr (requires { x + offset; })
    return *(x + offset);
  else
    return *x;  // offset is 0: `*it` of an object without +
}
}  // namespace course_cpu::check

// The lambda gives every subscript site one static Site object.
#define COURSE_CPU_SITE(name, line)                                            \
  [] {                                                                         \
    static constinit ::course_cpu::check::Site site{#name, __FILE__, line, 0}; \
    return &site;                                                              \
  }()
#define COURSE_CPU_SITE_LOCAL(name, line)                                            \
  [] {                                                                               \
    static constinit ::course_cpu::check::Site site{#name, __FILE__, line, 0, true}; \
    return &site;                                                                    \
  }()
#define COURSE_CPU_SITE_DEVICE_PARAM(name, line)                                                   \
  [] {                                                                                             \
    static constinit ::course_cpu::check::Site site{#name, __FILE__, line, 0, false, false, true}; \
    return &site;                                                                                  \
  }()
#define COURSE_CPU_SITE_SCALAR(name, line)                                                  \
  [] {                                                                                      \
    static constinit ::course_cpu::check::Site site{#name, __FILE__, line, 0, false, true}; \
    return &site;                                                                           \
  }()
// A checked subscript chain: `name` is a __shared__ array or a pointer.
#define COURSE_CHECKED(name, line) ::course_cpu::check::root(name, COURSE_CPU_SITE(name, line))
// The same for a local pointer variable (Site::local_pointer).
#define COURSE_CHECKED_LOCAL(name, line) ::course_cpu::check::root(name, COURSE_CPU_SITE_LOCAL(name, line))
// The same for a pointer parameter of a __device__ function (Site::device_param).
#define COURSE_CHECKED_DEVICE_PARAM(name, line) \
  ::course_cpu::check::root(name, COURSE_CPU_SITE_DEVICE_PARAM(name, line))
#define COURSE_CHECKED_AUTO(name, line) ::course_cpu::check::root_or_self(name, COURSE_CPU_SITE_LOCAL(name, line))
// `s[i].pos.x` is `member<U>(for_member(s)[i], COURSE_CPU_MEMBER_OF(.pos.x, pos))`.
#define COURSE_CPU_MEMBER_OF(path, first)                                                                         \
  ::course_cpu::check::MemberPath {                                                                               \
    [](auto& course_e_) -> std::add_pointer_t<decltype(((void)&(course_e_ path), (course_e_ path)))> {            \
      return __builtin_addressof(course_e_ path);                                                                 \
    },                                                                                                            \
        [](auto& course_e_) -> decltype((course_e_ path)) { return course_e_ path; },                             \
        [](auto* course_t_) -> decltype(&std::remove_cvref_t<decltype(*course_t_)>::first) { return {}; }, #path, \
        [](auto& course_e_) -> std::remove_cvref_t<decltype((course_e_ path))> { return course_e_ path; },        \
        [](auto& course_e_, const auto& course_v_) -> decltype(void((course_e_ path) = course_v_)) {              \
          (course_e_ path) = course_v_;                                                                           \
        }                                                                                                         \
  }
// Every use of a __shared__ scalar `name` of an arithmetic type.
#define COURSE_CHECKED_SCALAR(name, line) ::course_cpu::check::scalar(name, COURSE_CPU_SITE_SCALAR(name, line))
#define COURSE_CHECKED_MEMBER(path, line) ::course_cpu::check::member_root(path, COURSE_CPU_SITE_LOCAL(path, line))
#define COURSE_CHECKED_OBJECT(name, line) \
  ::course_cpu::check::root(::course_cpu::check::one_object(name), COURSE_CPU_SITE_SCALAR(name, line))
