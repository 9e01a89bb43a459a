// CPU backend of the course, check mode: the element a checked subscript
// chain ends at. Converting an ElemRef to T is a read, assigning to it a
// write, `+=`/`++`/... a read and a write; each first tries the fast path
// (check_fast_path.h), then check::record().
#pragma once

#include <course_cpu/check_access.h>
#include <course_cpu/check_fast_path.h>
#include <course_cpu/unsupported.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace course_cpu::check {

// Where an element of a static __shared__ array (Root) is.
template <class Root>
struct ArrayLoc {
  static_assert(std::rank_v<Root> <= kMaxDims,
                COURSE_CPU_UNSUPPORTED("check mode checks shared arrays of at most 8 dimensions"));
  static constexpr int kRank = static_cast<int>(std::rank_v<Root>);
  const Site* site;
  const Root* root;
  unsigned bad;  // bit d: subscript d is outside its extent
  long long index[kRank];

  template <std::size_t Size, bool Volatile = false>
  COURSE_CPU_HOT bool fast(const void* p, Access kind, const void* = nullptr) const {
    return fast_static<Size>(site, untyped(root), p, bad != 0, kind);
  }
  AccessInfo info(const void* p, std::size_t elem_size) const {
    AccessInfo i;
    i.site = site;
    i.base = untyped(root);
    i.addr = p;
    i.extent = Extents<Root>::value;
    i.array_bytes = static_cast<std::uint32_t>(sizeof(Root));
    i.elem_size = static_cast<std::uint16_t>(elem_size);
    i.is_array = true;
    i.ndims = static_cast<signed char>(kRank);
    i.bad_dim = bad ? static_cast<signed char>(__builtin_ctz(bad)) : -1;
    for (int d = 0; d < kRank; ++d) i.index[d] = index[d];
    return i;
  }
};

// Where an element behind a pointer is.
template <class T>
struct PointerLoc {
  const Site* site;
  const T* base;
  long long index;

  template <std::size_t Size, bool Volatile = false>
  COURSE_CPU_HOT bool fast(const void* p, Access kind, const void* value = nullptr) const {
    return fast_pointer<Size, Volatile>(site, untyped(base), p, kind, value);
  }
  AccessInfo info(const void* p, std::size_t elem_size) const {
    AccessInfo i;
    i.site = site;
    i.base = untyped(base);
    i.addr = p;
    i.extent = nullptr;
    i.array_bytes = 0;
    i.elem_size = static_cast<std::uint16_t>(elem_size);
    i.is_array = false;
    i.ndims = 1;
    i.bad_dim = -1;
    i.index[0] = index;
    return i;
  }
};

template <class T, class Loc>
class ElemRef {
  using V = std::remove_cv_t<T>;

 public:
  using course_cpu_value_type = V;
  using course_cpu_element_type = T;

  ElemRef(const Loc& loc, T* p) : loc_(loc), p_(p) {}
  ElemRef(const ElemRef&) = default;

  operator V() const { return load(); }
  T* operator&() const { return p_; }
  // A non-const reference to the element (`swap(s[i], s[j])` with
  // `__device__ void swap(float&, float&)`): bounds-checked here; what is
  // done through the reference is not seen, like an access through a
  // pointer. Being `const volatile`, it loses to operator V() wherever a
  // value will do (the less cv-qualified object parameter wins), so reads
  // and writes through the proxy stay tracked.
  operator T&() const volatile {
    const ElemRef& self = const_cast<const ElemRef&>(*this);
    const bool ok = self.loc_.template fast<sizeof(T)>(untyped(self.p_), Access::none) ||
                    record(self.loc_.info(untyped(self.p_), sizeof(T)), Access::none);
    return ok ? *self.p_ : *static_cast<T*>(scratch(sizeof(T)));
  }

  ElemRef& operator=(const ElemRef& other) {
    const V v = other.load();
    store(v);
    return *this;
  }
  // The element's own type, so that a braced value assigns (`s[i].x = {};`, `s[i] = {1}`).
  ElemRef& operator=(const V& value) {
    store(value);
    return *this;
  }
  // U&&, not const U&: a non-const array assigned to an element that is a pointer decays to a non-const pointer
  // (`__shared__ float* rows[2]; rows[0] = buf;`). A value of the element's own type takes the overload above, so
  // that a bit-field (`*out = h.bits;`), which no U& binds, assigns too.
  template <class U>
  requires(!std::is_same_v<std::remove_reference_t<U>, V> &&
           !std::is_same_v<std::remove_reference_t<U>, const V>) ElemRef&
  operator=(U&& value) {
    const V v = static_cast<V>(static_cast<U&&>(value));
    store(v);
    return *this;
  }

#define COURSE_CPU_COMPOUND(op)                                        \
  template <class U>                                                   \
  ElemRef& operator op##=(const U& value) {                            \
    const auto rhs = static_cast<typename value_of_t<U>::type>(value); \
    if (ok(Access::read_write)) *p_ = static_cast<V>(*p_ op rhs);      \
    return *this;                                                      \
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

  // An element that is a pointer: `ptrs[i]->x` reads the pointer.
  V operator->() const requires std::is_pointer_v<V> { return load(); }

  ElemRef& operator++() { return *this += 1; }
  ElemRef& operator--() { return *this -= 1; }
  V operator++(int) { return post_step(1); }
  V operator--(int) { return post_step(-1); }

 private:
  template <class U, class = void>
  struct value_of_t {
    using type = U;
  };
  template <class U>
  struct value_of_t<U, std::void_t<typename U::course_cpu_value_type>> {
    using type = typename U::course_cpu_value_type;
  };

  COURSE_CPU_HOT bool ok(Access kind) const {
    if (loc_.template fast<sizeof(T), std::is_volatile_v<T>>(untyped(p_), kind)) [[likely]]
      return true;
    return slow(kind);
  }
  AccessInfo info() const {
    AccessInfo i = loc_.info(untyped(p_), sizeof(T));
    i.is_volatile = std::is_volatile_v<T>;
    return i;
  }
  [[gnu::noinline, gnu::cold]] bool slow(Access kind) const { return record(info(), kind); }

  V load() const { return ok(Access::read) ? static_cast<V>(*p_) : V{}; }
  void store(const V& v) {
    if (loc_.template fast<sizeof(T), std::is_volatile_v<T>>(untyped(p_), Access::write, &v)) [[likely]] {
      *p_ = v;
      return;
    }
    if (store_slow(v)) *p_ = v;
  }
  // The slow path of a store gets the value: a store of what the element already holds races with nothing.
  [[gnu::noinline, gnu::cold]] bool store_slow(const V& v) const {
    AccessInfo i = info();
    i.stored = &v;
    return record(i, Access::write);
  }
  // x++ (step 1) and x-- (step -1): the old value.
  V post_step(int step) {
    V old{};
    if (ok(Access::read_write)) {
      old = *p_;
      *p_ = static_cast<V>(step > 0 ? old + 1 : old - 1);
    }
    return old;
  }

  Loc loc_;
  T* p_;
};

// The slow path of a WholeStore (below), with the value stored.
template <class Loc>
[[gnu::noinline, gnu::cold]] bool whole_store_slow(const Loc& loc, const void* p, std::size_t size, const void* value) {
  AccessInfo info = loc.info(p, size);
  info.stored = value;
  return record(info, Access::write);
}

// `chain = value` for a chain whose element is a struct or vector type (`v4[i] = make_float4(...)`, `s[i] = item`):
// the assignment is checked as a write of the whole element (race, bounds, bank request), as ElemRef checks a store
// (the value goes to the slow path, so that a store of what the element already holds races with nothing).
template <class T, class Loc>
class WholeStore {
 public:
  WholeStore(const Loc& loc, T* p) : loc_(loc), p_(p) {}
  T& operator=(const T& value) const requires std::is_assignable_v<T&, const T&> {
    T& target = this->target(&value);
    target = value;
    return target;
  }
  // Another type (a struct's own operator= from it), or a T whose operator= takes a non-const reference: a write,
  // without the value.
  template <class U>
  requires(!std::is_same_v<std::remove_cvref_t<U>, T> || !std::is_assignable_v<T&, const T&>) T& operator=(
      U&& value) const {
    T& target = this->target(nullptr);
    target = static_cast<U&&>(value);
    return target;
  }
  operator T&() const { return *p_; }
  // An element with its own operator[] stored into (`tile[c][t] = v` with `cuda::std::array<int, 64> tile[2]`): the
  // element is bounds-checked as a whole, its own subscript is not seen (like a method call on it).
  template <class I>
  decltype(auto) operator[](I&& i) const requires requires(T& t) {
    t[static_cast<I&&>(i)];
  }
  {
    const bool ok = loc_.template fast<sizeof(T)>(untyped(p_), Access::none) ||
                    whole_slow(loc_, untyped(p_), sizeof(T), Access::none);
    return (ok ? *p_ : *static_cast<T*>(scratch(sizeof(T))))[static_cast<I&&>(i)];
  }

 private:
  // The element, or scratch memory where the store is not to be performed (reported).
  T& target(const void* value) const {
    bool ok = false;
    if constexpr (sizeof(T) % 4 == 0)  // whole words (part of a word: the slow path compares the bytes)
      ok = loc_.template fast<sizeof(T)>(untyped(p_), Access::write);
    ok = ok || whole_store_slow(loc_, untyped(p_), sizeof(T), value);
    return ok ? *p_ : *static_cast<T*>(scratch(sizeof(T)));
  }

  Loc loc_;
  T* p_;
};

// How a checked chain's element is used, as course-rewrite marks the chain's root (for_store(), for_load(),
// for_member() in check.h; only the rewriter sees the use, only the compiler the element's type):
//   any     anything else (passed on, bound to a reference, its address taken, a method called)
//   store   the target of `=`                           `s[i] = v;`
//   load    the whole right-hand side of `=`            `float4 v = s[i];`, `s[t] = s[t + 16];`
//   member  followed by a member access                 `s[i].x`, `s[i].pos.y = 0;` (member() below)
//   bound   given to a class-type reference parameter   `orderPair(s[i], s[i + 1])` for `orderPair(KV&, KV&)`, a
//           whose uses the callee checks                __device__ function of the file (course-rewrite:
//                                                       class_references.cpp): bounds only (Access::bounds)
enum class Use : unsigned char { any, store, load, member, bound };

// Where a member of an element is: the element's place, and the member's path for messages (`s[3].x`).
template <class Loc>
struct MemberLoc {
  Loc loc;
  const char* path;
  std::uint16_t element_size;

  template <std::size_t Size, bool Volatile = false>
  COURSE_CPU_HOT bool fast(const void* p, Access kind, const void* value = nullptr) const {
    return loc.template fast<Size, Volatile>(p, kind, value);
  }
  AccessInfo info(const void* p, std::size_t elem_size) const {
    AccessInfo i = loc.info(p, elem_size);
    i.member = path;
    i.index_size = element_size;
    return i;
  }
};

// A struct or vector element whose member is accessed next (Use::member): member() checks the member.
template <class T, class Loc>
struct MemberOf {
  using course_cpu_member_of = T;
  Loc loc;
  T* p;
};

// The slow path of a whole struct or vector element read or bound (Access::none).
template <class Loc>
[[gnu::noinline, gnu::cold]] bool whole_slow(const Loc& loc, const void* p, std::size_t size, Access kind) {
  AccessInfo info = loc.info(p, size);
  info.whole = true;
  return record(info, kind);
}

// The element of a subscript chain: arithmetic types (and pointers) get a tracking proxy; a struct, vector or array
// (a member array) a plain reference, so that member access and method calls keep compiling. The reference is
// checked as a read where it can only be read: through a pointer to const, or as the whole right-hand side of `=`
// (Use::load); as a write where it is the target of `=` (Use::store: a WholeStore); anything else (a reference bound
// to it, a method called) is bounds-checked only. A member access (Use::member) is checked by member().
template <Use U = Use::any, class T, class Loc>
inline decltype(auto) element(const Loc& loc, T* p) {
  constexpr bool kWhole = std::is_class_v<T> || std::is_union_v<T> || std::is_array_v<T>;
  if constexpr (kWhole && U == Use::member) {
    return MemberOf<T, Loc>{loc, p};
  } else if constexpr (kWhole && U == Use::store && !std::is_const_v<T> && !std::is_array_v<T>) {
    return WholeStore<T, Loc>(loc, p);
  } else if constexpr (kWhole) {
    // An array (a member array) decays or binds: nothing is read.
    constexpr Access kind = U == Use::bound                                                 ? Access::bounds
                            : (std::is_const_v<T> || U == Use::load) && !std::is_array_v<T> ? Access::read
                                                                                            : Access::none;
    const bool ok = loc.template fast<sizeof(T)>(untyped(p), kind) || whole_slow(loc, untyped(p), sizeof(T), kind);
    T* q = ok ? p : static_cast<T*>(scratch(sizeof(T)));
    return *q;
  } else if constexpr (U == Use::load) {
    // The whole right-hand side of `=`: the value itself (a read), as a copy is what the GPU makes; no proxy to
    // convert further (`Vec3 v = s[i].w;` with Vec3(float)) or to keep (`decltype(auto) v = s[i].x;`).
    return static_cast<std::remove_cv_t<T>>(ElemRef<T, Loc>(loc, p));
  } else {
    return ElemRef<T, Loc>(loc, p);
  }
}

// A bit-field member of a checked element (`cells[t].alive = 1`, `st.age += 1`): its value and its stores, through the
// member path's read and write (bit-fields have no address, so the bits themselves are not checked).
template <class T, class F>
class BitFieldRef {
 public:
  using V = decltype(std::declval<const F&>().read(std::declval<T&>()));
  using course_cpu_value_type = V;
  BitFieldRef(T& e, const F& of) : e_(e), of_(of) {}
  operator V() const { return of_.read(e_); }
  const BitFieldRef& operator=(const BitFieldRef& other) const { return *this = static_cast<V>(other); }
  template <class U>
  const BitFieldRef& operator=(const U& value) const {
    of_.write(e_, static_cast<V>(value));
    return *this;
  }
#define COURSE_CPU_BIT_COMPOUND(op)                         \
  template <class U>                                        \
  const BitFieldRef& operator op##=(const U& value) const { \
    return *this = of_.read(e_) op value;                   \
  }
  COURSE_CPU_BIT_COMPOUND(+)
  COURSE_CPU_BIT_COMPOUND(-)
  COURSE_CPU_BIT_COMPOUND(*)
  COURSE_CPU_BIT_COMPOUND(/)
  COURSE_CPU_BIT_COMPOUND(%)
  COURSE_CPU_BIT_COMPOUND(&)
  COURSE_CPU_BIT_COMPOUND(|)
  COURSE_CPU_BIT_COMPOUND(^)
  COURSE_CPU_BIT_COMPOUND(<<)
  COURSE_CPU_BIT_COMPOUND(>>)
#undef COURSE_CPU_BIT_COMPOUND
  const BitFieldRef& operator++() const { return *this += 1; }
  const BitFieldRef& operator--() const { return *this -= 1; }
  V operator++(int) const {
    const V old = *this;
    *this += 1;
    return old;
  }
  V operator--(int) const {
    const V old = *this;
    *this -= 1;
    return old;
  }

 private:
  T& e_;
  F of_;
};

// `s[i].pos.x` is rewritten to `member<U>(for_member(s)[i], COURSE_CPU_MEMBER_OF(.pos.x, pos))`: the macro (check.h)
// gives the member's address and value from the element, what its first name is, and the path's text. A data member
// is then checked as an element of its own type at its own address, named `s[i].pos.x`: an arithmetic member is a
// proxy (a read, a write, `+=`, ...), a struct member read, stored or bound like a struct element (U is the member's
// use). A static data member (`s[i].N`) is the variable itself, an enumerator (`s[i].Wall`) its value, neither being
// in the element. Anything that is not a checked element (an object with its own operator[]) has its member taken as
// written.
template <Use U, class X, class F>
inline decltype(auto) member(X&& x, const F& of) {
  using P = std::remove_cvref_t<X>;
  if constexpr (requires { typename P::course_cpu_member_of; }) {
    using T = typename P::course_cpu_member_of;
    T& e = *x.p;
    if constexpr (
        !requires { of.address(e); } &&
        requires { requires !std::is_enum_v<std::remove_cvref_t<decltype(of.read(e))>>; }) {
      // A bit-field (an lvalue without an address; also of a const element): read and written through the path; the
      // element counts as bound (bounds only, its words possibly written), like a method call on it.
      const bool ok = x.loc.template fast<sizeof(T)>(untyped(x.p), Access::none) ||
                      whole_slow(x.loc, untyped(x.p), sizeof(T), Access::none);
      return BitFieldRef<T, F>(ok ? e : *static_cast<T*>(scratch(sizeof(T))), of);
    } else if constexpr (!requires { of.first(static_cast<T*>(nullptr)); }) {
      // Not a data member: an enumerator, a member function; or a bit-field of an enum type (an lvalue: refused).
      static_assert(!std::is_reference_v<decltype(of.value(e))>,
                    COURSE_CPU_UNSUPPORTED("check mode does not check bit-field members of an enum type"));
      return of.value(e);
    } else if constexpr (!std::is_member_pointer_v<decltype(of.first(static_cast<T*>(nullptr)))>) {
      return *of.address(e);  // a static data member
    } else {
      using L = MemberLoc<std::remove_cvref_t<decltype(x.loc)>>;
      return element<U>(L{x.loc, of.path, static_cast<std::uint16_t>(sizeof(T))}, of.address(e));
    }
  } else {
    return *of.address(x);
  }
}

}  // namespace course_cpu::check
