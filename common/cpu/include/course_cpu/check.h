// CPU backend of the course, check mode: checked subscripts.
//
// In check mode the rewriter turns every subscript of a __shared__ array, an
// extern __shared__ array or a pointer parameter inside device code into
//     COURSE_SH(As, __LINE__)[i][j]      (shared arrays)
//     COURSE_GL(a, __LINE__)[i]          (pointer parameters)
// Each [] returns a small view that remembers the variable, the line and the
// indices; the last [] returns an ElemRef proxy. Converting the proxy to T is
// a read, assigning to it a write, `+=`/`++`/... a read and a write. `&proxy`
// yields the raw T* and is not tracked (so atomicAdd(&s[0], x) works
// unchanged).
//
// Every access first tries the inlined fast path below: an in-bounds access
// of a known shared array or of a cached cudaMalloc buffer that needs no
// report is checked and recorded with a few comparisons, without calls or
// allocations. Anything else (first access of a site on a worker, anything
// to report, host code) goes through check::record() in src/check.cpp, which
// does the full bounds, race, uninitialized-read and bank-conflict
// bookkeeping and writes the messages. Both paths keep the same state, so
// what is reported does not depend on which path saw an access.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <course_cpu/launch.h>

namespace course_cpu::check {

enum class Access : unsigned char { none = 0, read = 1, write = 2, read_write = 3 };

constexpr int kMaxDims = 4;

// Where a checked subscript is written: one static object per source location.
// `id` is 0 until the runtime first sees the site, then a small dense number
// that indexes per-worker tables (written once, under a lock).
struct Site {
  const char* var;
  const char* file;
  int line;
  int id;
};

// Extents of an array type, as a static table (so views stay small).
template <class A>
struct Extents {
  static constexpr long long value[kMaxDims] = {
      static_cast<long long>(std::extent_v<A, 0>), static_cast<long long>(std::extent_v<A, 1>),
      static_cast<long long>(std::extent_v<A, 2>), static_cast<long long>(std::extent_v<A, 3>)};
};

// Everything the slow path needs to know about one access.
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

// The slow path: checks and records one access and reports what is wrong;
// false means "do not perform it" (it was out of bounds, or the pointer is
// not a device pointer). Defined in src/check.cpp.
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

// ---- state the fast path reads (owned by the worker, src/check.cpp) --------------
// One shadow record per 4-byte shared word: its last writer and up to two
// readers of the current barrier interval ("epoch").
struct Shadow {
  std::uint32_t w_epoch = 0, r_epoch = 0, r2_epoch = 0;
  std::uint16_t writer = 0, reader = 0, reader2 = 0;
  std::uint32_t w_wsync = 0, r_wsync = 0, r2_wsync = 0;
  const Site* w_site = nullptr;
  const Site* r_site = nullptr;
  const Site* r2_site = nullptr;
};

// One warp-wide shared-memory request: the word each lane asked for.
struct Request {
  std::uint32_t word[32];
  std::uint32_t mask;
};

// The requests of one (site, load/store, warp) in the current epoch.
struct BankSlot {
  std::uint32_t epoch = 0;  // the epoch the slot was opened in (else stale)
  std::uint32_t width = 1;  // 4-byte words per access
  std::uint32_t nreq = 0;   // requests in use (req may hold more)
  std::uint16_t next[32] = {};  // per lane: index of its next request
  std::vector<Request> req;
};

// Per worker and site: the static shared array the site subscripts.
struct SiteSlot {
  const Site* site = nullptr;
  std::uintptr_t begin = 0;  // the array (0: not known yet)
  Shadow* words = nullptr;
};

struct Hot {
  std::uint32_t epoch = 1, block_first_epoch = 1;
  unsigned me = 0;                           // running CUDA thread (linear id)
  const std::uint32_t* warp_sync = nullptr;  // completed warp rendezvous, per warp
  const std::uint32_t* warp_full = nullptr;  // warp_sync after the warp's last all-lanes rendezvous
  std::uint32_t nsites = 0;                  // entries of sites; bank has 64 per site
  SiteSlot* sites = nullptr;
  BankSlot* bank = nullptr;                  // [(id * 2 + store) * 32 + warp]
  // extern __shared__: pointers in [arena_begin, arena_begin + arena_span)
  // are into the arena, which has arena_end - arena_begin valid bytes.
  std::uintptr_t arena_begin = 0, arena_end = 0, arena_span = 1;
  Shadow* arena_words = nullptr;
  // The last cudaMalloc'ed buffers seen, valid while alloc_gen is current.
  std::uint64_t alloc_gen = 0;
  std::uintptr_t g_begin[4] = {}, g_size[4] = {};
};

// The running check-mode CUDA thread's worker state; null in host code and
// fast-mode launches.
extern constinit thread_local Hot* tl_hot;
// Changes on every cudaMalloc/cudaFree (src/memory.cpp).
extern std::atomic<std::uint64_t> g_allocation_generation;

// Opens a bank slot for the current epoch / makes room for request n.
void bank_open(Hot& h, BankSlot& slot, std::uint32_t index, unsigned width);
void bank_grow(BankSlot& slot, unsigned n);

inline int site_id(const Site* site) { return __atomic_load_n(&site->id, __ATOMIC_RELAXED); }

inline void bank_note(Hot& h, int id, bool store, unsigned me, std::uint32_t word, unsigned width) {
  const std::uint32_t index = ((static_cast<std::uint32_t>(id) * 2u + store) << 5) + (me >> 5);
  BankSlot& b = h.bank[index];
  if (b.epoch != h.epoch) [[unlikely]]
    bank_open(h, b, index, width);
  const unsigned lane = me & 31u;
  const unsigned n = b.next[lane]++;
  if (n >= b.nreq) [[unlikely]]
    bank_grow(b, n);
  Request& r = b.req[n];
  r.word[lane] = word;
  r.mask |= 1u << lane;
}

// Checks and records an access of shared words [first, last] that needs no
// report. False: something is to be reported; nothing was recorded and the
// caller takes the slow path.
inline bool shared_fast(Hot& h, const Site* site, int id, Shadow* words, std::size_t first,
                        std::size_t last, Access kind) {
  const bool read = kind == Access::read || kind == Access::read_write;
  const bool write = kind == Access::write || kind == Access::read_write;
  const std::uint32_t e = h.epoch;
  const unsigned me = h.me;
  const std::uint32_t my = h.warp_sync[me >> 5];
  // Ordered by an all-lanes warp rendezvous since the other access; a
  // rendezvous of only some lanes is left to the slow path.
  const std::uint32_t full = h.warp_full[me >> 5];
  auto ordered = [&](unsigned other, std::uint32_t other_wsync) {
    return other == me || ((other >> 5) == (me >> 5) && other_wsync < full);
  };
  for (std::size_t i = first; i <= last; ++i) {
    const Shadow& s = words[i];
    if (read && (s.w_epoch == e ? !ordered(s.writer, s.w_wsync) : s.w_epoch < h.block_first_epoch))
      return false;
    if (write && ((s.w_epoch == e && !ordered(s.writer, s.w_wsync)) ||
                  (s.r_epoch == e && !ordered(s.reader, s.r_wsync)) ||
                  (s.r2_epoch == e && !ordered(s.reader2, s.r2_wsync))))
      return false;
  }
  for (std::size_t i = first; i <= last; ++i) {
    Shadow& s = words[i];
    if (read) {
      if (s.r_epoch != e) {
        s.r_epoch = e;
        s.reader = static_cast<std::uint16_t>(me);
        s.r_wsync = my;
        s.r_site = site;
      } else if (s.reader != me) {
        s.r2_epoch = e;
        s.reader2 = static_cast<std::uint16_t>(me);
        s.r2_wsync = my;
        s.r2_site = site;
      } else {
        s.r_wsync = my;
      }
    }
    if (write) {
      s.w_epoch = e;
      s.writer = static_cast<std::uint16_t>(me);
      s.w_wsync = my;
      s.w_site = site;
    }
  }
  const unsigned width = static_cast<unsigned>(last - first + 1);
  if (read) bank_note(h, id, false, me, static_cast<std::uint32_t>(first), width);
  if (write) bank_note(h, id, true, me, static_cast<std::uint32_t>(first), width);
  return true;
}

// The fast path of an element of a static __shared__ array: true if the
// access was checked and recorded (perform it), false: take the slow path.
template <std::size_t Size>
inline bool fast_static(const Site* site, const void* root, const void* p, bool bad, Access kind) {
  Hot* h = tl_hot;
  if (h == nullptr) return true;  // host code, fast-mode launch: slow path would say the same
  const int id = site_id(site);
  if (bad || static_cast<std::uint32_t>(id) >= h->nsites) return false;
  const SiteSlot& s = h->sites[id];
  const auto b = reinterpret_cast<std::uintptr_t>(root);
  if (s.begin != b) return false;
  if (kind == Access::none) return true;
  const std::size_t off = reinterpret_cast<std::uintptr_t>(p) - b;
  return shared_fast(*h, site, id, s.words, off / 4, (off + Size - 1) / 4, kind);
}

// The fast path of an element behind a pointer (parameter, extern __shared__).
template <std::size_t Size>
inline bool fast_pointer(const Site* site, const void* base, const void* p, Access kind) {
  Hot* h = tl_hot;
  if (h == nullptr) return true;
  const auto b = reinterpret_cast<std::uintptr_t>(base);
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  if (h->alloc_gen == g_allocation_generation.load(std::memory_order_relaxed)) {
    for (int k = 0; k < 4; ++k) {
      const std::uintptr_t begin = h->g_begin[k];
      if (b - begin < h->g_size[k]) return a >= begin && (a - begin) + Size <= h->g_size[k];
    }
  }
  if (b - h->arena_begin < h->arena_span) {
    if (a < h->arena_begin || a + Size > h->arena_end) return false;
    if (kind == Access::none) return true;
    const int id = site_id(site);
    if (static_cast<std::uint32_t>(id) >= h->nsites || h->sites[id].site != site) return false;
    const std::size_t off = a - h->arena_begin;
    return shared_fast(*h, site, id, h->arena_words, off / 4, (off + Size - 1) / 4, kind);
  }
  return false;
}

// Where an element of a static __shared__ array (Root) is.
template <class Root>
struct ArrayLoc {
  static_assert(std::rank_v<Root> <= kMaxDims, "check mode supports shared arrays of at most 4 dimensions");
  static constexpr int kRank = static_cast<int>(std::rank_v<Root>);
  const Site* site;
  const Root* root;
  unsigned bad;  // bit d: subscript d is outside its extent
  long long index[kRank];

  template <std::size_t Size>
  bool fast(const void* p, Access kind) const {
    return fast_static<Size>(site, root, p, bad != 0, kind);
  }
  AccessInfo info(const void* p, std::size_t elem_size) const {
    AccessInfo i;
    i.site = site;
    i.base = root;
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

  template <std::size_t Size>
  bool fast(const void* p, Access kind) const {
    return fast_pointer<Size>(site, base, p, kind);
  }
  AccessInfo info(const void* p, std::size_t elem_size) const {
    AccessInfo i;
    i.site = site;
    i.base = base;
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

  ElemRef(const Loc& loc, T* p) : loc_(loc), p_(p) {}
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
    if (ok(Access::read_write)) *p_ = static_cast<V>(*p_ op rhs);              \
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
    if (ok(Access::read_write)) { old = *p_; *p_ = static_cast<V>(old + 1); }
    return old;
  }
  V operator--(int) {
    V old{};
    if (ok(Access::read_write)) { old = *p_; *p_ = static_cast<V>(old - 1); }
    return old;
  }

 private:
  template <class U, class = void>
  struct value_of_t { using type = U; };
  template <class U>
  struct value_of_t<U, std::void_t<typename U::course_cpu_value_type>> {
    using type = typename U::course_cpu_value_type;
  };

  bool ok(Access kind) const {
    if (loc_.template fast<sizeof(T)>(p_, kind)) [[likely]]
      return true;
    return slow(kind);
  }
  [[gnu::noinline, gnu::cold]] bool slow(Access kind) const { return record(loc_.info(p_, sizeof(T)), kind); }

  V load() const { return ok(Access::read) ? static_cast<V>(*p_) : V{}; }
  void store(const V& v) {
    if (ok(Access::write)) *p_ = v;
  }

  Loc loc_;
  T* p_;
};

// The element of a subscript chain: arithmetic types get a tracking proxy;
// class types (float4, structs) a plain reference, bounds-checked only, so
// member access `s[i].x` keeps compiling.
template <class T, class Loc>
inline decltype(auto) element(const Loc& loc, T* p) {
  if constexpr (std::is_class_v<T> || std::is_union_v<T>) {
    const bool ok = loc.template fast<sizeof(T)>(p, Access::none) || record(loc.info(p, sizeof(T)), Access::none);
    T* q = ok ? p : static_cast<T*>(scratch(sizeof(T)));
    return *q;
  } else {
    return ElemRef<T, Loc>(loc, p);
  }
}

// A (sub)array of a static __shared__ array Root: Sub is T[N] (possibly
// T[N][M]...), reached by the first D subscripts.
template <class Root, class Sub, int D>
class ArrayView {
  using Elem = std::remove_extent_t<Sub>;
  static constexpr std::size_t kExtent = std::extent_v<Sub>;

 public:
  ArrayView(const ArrayLoc<Root>& loc, Elem* first) : loc_(loc), first_(first) {}

  template <class I>
  decltype(auto) operator[](I i) const {
    static_assert(std::is_integral_v<I> || std::is_enum_v<I>, "array subscript must be an integer");
    ArrayLoc<Root> next = loc_;
    const long long idx = static_cast<long long>(i);
    next.index[D] = idx;
    next.bad |= static_cast<unsigned>(static_cast<unsigned long long>(idx) >= kExtent) << D;
    Elem* e = reinterpret_cast<Elem*>(reinterpret_cast<std::uintptr_t>(first_) +
                                      static_cast<std::uintptr_t>(idx) * sizeof(Elem));
    if constexpr (std::is_array_v<Elem>) {
      return ArrayView<Root, Elem, D + 1>(next, reinterpret_cast<std::remove_extent_t<Elem>*>(e));
    } else {
      return element(next, e);
    }
  }
  // Non-subscript uses of a row (As[i] passed on) decay like the array would.
  operator Elem*() const { return first_; }

 private:
  ArrayLoc<Root> loc_;
  Elem* first_;
};

// A pointer (parameter, extern __shared__ array): one subscript.
template <class T>
class PointerView {
 public:
  PointerView(const Site* site, T* base) : site_(site), base_(base) {}
  template <class I>
  decltype(auto) operator[](I i) const {
    static_assert(std::is_integral_v<I> || std::is_enum_v<I>, "pointer subscript must be an integer");
    const long long idx = static_cast<long long>(i);
    T* e = reinterpret_cast<T*>(reinterpret_cast<std::uintptr_t>(base_) +
                                static_cast<std::uintptr_t>(idx) * sizeof(T));
    return element(PointerLoc<T>{site_, base_, idx}, e);
  }

 private:
  const Site* site_;
  T* base_;
};

// `auto v = s[i];` is rewritten to `auto v = ::course_cpu::check::value(s[i]);`:
// an element proxy becomes its value (a read), as `auto` copies the element
// in CUDA; anything else is passed on as `auto` would copy it.
template <class X>
inline auto value(X&& x) {
  if constexpr (requires { typename std::remove_cvref_t<X>::course_cpu_value_type; })
    return static_cast<typename std::remove_cvref_t<X>::course_cpu_value_type>(x);
  else
    return static_cast<X&&>(x);
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

}  // namespace course_cpu::check

// The lambda gives every subscript site one static Site object.
#define COURSE_CPU_SITE(name, line)                                            \
  [] {                                                                         \
    static constinit ::course_cpu::check::Site site{#name, __FILE__, line, 0}; \
    return &site;                                                              \
  }()
#define COURSE_SH(name, line) ::course_cpu::check::root(name, COURSE_CPU_SITE(name, line))
#define COURSE_GL(name, line) ::course_cpu::check::root(name, COURSE_CPU_SITE(name, line))
