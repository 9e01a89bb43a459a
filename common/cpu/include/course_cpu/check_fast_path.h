// CPU backend of the course, check mode: the inlined fast path.
//
// An in-bounds access of a known shared array or of a cached cudaMalloc
// buffer that needs no report is checked and recorded here with a few
// comparisons, without calls or allocations. Anything else goes through
// check::record() (src/check_record.cpp). Both paths keep the state below,
// with the same rules (note_shadow, note_banks), so what is reported does not
// depend on which path saw an access.
#pragma once

#include <course_cpu/check_access.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

// The functions of the per-access fast path (here, and the locations' fast()
// and ElemRef::ok in check_element.h) are always inlined: left to the
// compiler's heuristics, a kernel with many accesses stops inlining them
// halfway and pays a call per access. What is rare (reports, new sites,
// growing) stays out of line.
#define COURSE_CPU_HOT [[gnu::always_inline]] inline

namespace course_cpu::check {

// ---- state the fast path reads (owned by the worker, src/check_state.cpp) -------
// One shadow record per 4-byte shared word: its last writer and up to two
// readers of the current barrier interval ("epoch"), and whether an
// asynchronous copy into it has started and no wait has covered it yet (its
// issuing thread is then the writer; src/async_copy.cpp). The byte masks say
// which of the word's bytes the writer and readers touched: accesses of
// different bytes (`char`, `short`, `bool` arrays) do not race. unseen_epoch:
// the last epoch in which an access the checks cannot follow may have written
// the word (a reference bound to it, a struct element through a pointer to
// non-const): a read of a word that still holds the fill is then no
// uninitialized read, since the fill's bits may have been stored (`-1`).
struct Shadow {
  std::uint32_t w_epoch = 0, r_epoch = 0, r2_epoch = 0;
  std::uint16_t writer = 0, reader = 0, reader2 = 0;
  bool copy_pending = false;
  bool w_atomic = false;  // the last write was an atomic one (Site::atomic)
  std::uint8_t w_bytes = 0xF, r_bytes = 0xF, r2_bytes = 0xF;
  // The bytes written in this block (valid while w_epoch is an epoch of this block): a `char` of a word whose
  // neighbours were written is still uninitialized.
  std::uint8_t init_bytes = 0;
  std::uint32_t w_wsync = 0, r_wsync = 0, r2_wsync = 0;
  std::uint32_t unseen_epoch = 0;
  const Site* w_site = nullptr;
  const Site* r_site = nullptr;
  const Site* r2_site = nullptr;
};
static_assert(sizeof(Shadow) == 64, "one shadow word per cache line");

// One warp-wide shared-memory request: the word each lane asked for. Lane l
// takes part in request n of its slot iff the slot's next[l] > n (each lane
// fills its requests in order), so no mask is kept per access.
// Words are counted from the start of the array or arena (at most 227 KiB,
// so 16 bits hold them); a request's degree does not change when every word
// moves by the same amount, so where the array starts does not matter.
struct Request {
  std::uint16_t word[32];
};

// The requests of one (site, load/store, warp) in the current epoch. 128
// bytes, so that finding a warp's slot is a shift.
struct alignas(128) BankSlot {
  std::uint32_t epoch = 0;      // the epoch the slot was opened in (else stale)
  std::uint32_t width = 1;      // 4-byte words per access
  std::uint32_t capacity = 0;   // requests req holds
  std::uint16_t next[32] = {};  // per lane: index of its next request (the slot has max(next) requests)
  Request* req = nullptr;       // = storage.data()
  std::vector<Request> storage;
};
static_assert(sizeof(BankSlot) == 128, "a bank slot is 128 bytes");

// Per worker and site: the static shared array the site subscripts.
struct SiteSlot {
  const Site* site = nullptr;
  std::uintptr_t begin = 0;  // the array (0: not known yet, or left to the slow path)
  Shadow* words = nullptr;
};

// How many cudaMalloc'ed buffers a worker remembers.
constexpr int kCachedBuffers = 4;

// One shadow record per 4-byte word of a cudaMalloc'ed buffer that a check-mode kernel has stored to (made at its
// first such store, src/check_global.cpp): the word's last writer. Blocks run on several OS threads, so `key`, which
// says whose record it is, is read and written atomically: the launch (bits 32..63; an earlier launch's record means
// "not written in this launch"), the writer's block (its linear id, bits 1..31) and whether the write was atomic or
// volatile (bit 0: such accesses do not race with each other).
struct GlobalWord {
  std::uint64_t key;
  std::uint32_t epoch;   // the writer's barrier interval (Hot::epoch of the worker that ran its block)
  std::uint32_t wsync;   // the warp rendezvous its warp had completed
  std::uint32_t site;    // Site::id of the store
  std::uint16_t thread;  // linear id in its block
  std::uint8_t bytes;    // the bytes of the word it wrote
  std::uint8_t same;     // 1: a plain store of the bytes the word held (`*found = 1;`), which only a change races with
};
static_assert(sizeof(GlobalWord) == 24, "24 bytes of shadow per 4-byte word");
constexpr std::uint64_t kLaunchBits = 0xffffffff00000000ull;
constexpr std::uint64_t kAtomicWrite = 1;

// Per block of a check-mode launch (src/check_global.cpp): whether one of its threads has called __threadfence()
// (fenced), and whether one has made an atomic or volatile access outside shared memory (synced).
constexpr std::uint8_t kBlockFenced = 1, kBlockSynced = 2;

struct Hot {
  std::uint32_t epoch = 1, block_first_epoch = 1;
  // The running CUDA thread (linear id), the warp rendezvous its warp has
  // completed, and that count after the warp's last rendezvous of all its
  // lanes. Set whenever the scheduler resumes a thread: rendezvous complete
  // only in the scheduler, between resumes (src/scheduler.cpp).
  unsigned me = 0;
  std::uint32_t my_wsync = 0, my_full = 0;
  std::uint32_t nsites = 0;  // entries of sites; bank has 64 per site
  SiteSlot* sites = nullptr;
  BankSlot* bank = nullptr;  // [(id * 2 + store) * 32 + warp]
  // extern __shared__: pointers in [arena_begin, arena_begin + arena_span)
  // are into the arena, which has arena_end - arena_begin valid bytes.
  std::uintptr_t arena_begin = 0, arena_end = 0, arena_span = 1;
  Shadow* arena_words = nullptr;
  // The last cudaMalloc'ed buffers seen, valid while alloc_gen is current.
  std::uint64_t alloc_gen = 0;
  std::uintptr_t g_begin[kCachedBuffers] = {}, g_size[kCachedBuffers] = {};
  GlobalWord* g_shadow[kCachedBuffers] = {};  // null: no check-mode kernel has stored to the buffer yet
  // This launch (bits 32..63 of a GlobalWord key) and the running block's key; the running block's flags.
  std::uint64_t launch_key = 0, block_key = 0;
  std::uint8_t* block_flags = nullptr;
  // The running thread's stack, [stack_top - stack_bytes, stack_top) (0 until its fiber has started): the local
  // variables a __device__ function's pointer or reference parameter may point to.
  std::uintptr_t stack_top = 0, stack_bytes = 0;
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

// ---- recording (shared with the slow path) ----------------------------------------
// Thread `me` (whose warp has completed `wsync` rendezvous) accessed the
// `bytes` of word s in epoch e at `site`: it becomes the writer, or the word's
// first or second reader.
// block_first: the block's first epoch (the bytes written before it were another block's).
COURSE_CPU_HOT void note_shadow(Shadow& s, bool read, bool write, std::uint32_t e, std::uint32_t block_first,
                                unsigned me, std::uint32_t wsync, const Site* site, std::uint8_t bytes = 0xF) {
  if (read) {
    if (s.r_epoch != e) {
      s.r_epoch = e;
      s.reader = static_cast<std::uint16_t>(me);
      s.r_wsync = wsync;
      s.r_site = site;
      s.r_bytes = bytes;
    } else if (s.reader != me) {
      s.r2_epoch = e;
      s.reader2 = static_cast<std::uint16_t>(me);
      s.r2_wsync = wsync;
      s.r2_site = site;
      s.r2_bytes = bytes;
    } else {
      s.r_wsync = wsync;
      s.r_bytes |= bytes;
    }
  }
  if (write) {
    s.init_bytes = static_cast<std::uint8_t>((s.w_epoch >= block_first ? s.init_bytes : 0) | bytes);
    s.w_epoch = e;
    s.writer = static_cast<std::uint16_t>(me);
    s.w_wsync = wsync;
    s.w_site = site;
    s.w_bytes = bytes;
    s.w_atomic = false;  // an atomic write sets it after this (check_record.cpp)
  }
}

COURSE_CPU_HOT void bank_note(Hot& h, int id, bool store, unsigned me, std::uint32_t word, unsigned width) {
  const std::uint32_t index = ((static_cast<std::uint32_t>(id) * 2u + store) << 5) + (me >> 5);
  BankSlot& b = h.bank[index];
  if (b.epoch != h.epoch) [[unlikely]]
    bank_open(h, b, index, width);
  const unsigned lane = me & 31u;
  const unsigned n = b.next[lane]++;
  if (n >= b.capacity) [[unlikely]]
    bank_grow(b, n);
  b.req[n].word[lane] = static_cast<std::uint16_t>(word);
}

// The load and/or store request of thread `me` for shared words [first, last].
COURSE_CPU_HOT void note_banks(Hot& h, int id, unsigned me, std::size_t first, std::size_t last, bool read,
                               bool write) {
  const unsigned width = static_cast<unsigned>(last - first + 1);
  if (read) bank_note(h, id, false, me, static_cast<std::uint32_t>(first), width);
  if (write) bank_note(h, id, true, me, static_cast<std::uint32_t>(first), width);
}

// An access the checks cannot follow (Access::none) of shared words [first, last] in epoch e.
COURSE_CPU_HOT void note_unseen(Shadow* words, std::size_t first, std::size_t last, std::uint32_t e) {
  for (std::size_t i = first; i <= last; ++i) words[i].unseen_epoch = e;
}

// ---- the fast path ----------------------------------------------------------------
// Checks and records an access of shared words [first, last] that needs no
// report. False: something is to be reported; nothing was recorded and the
// caller takes the slow path.
COURSE_CPU_HOT bool shared_fast(Hot& h, const Site* site, int id, Shadow* words, std::size_t first, std::size_t last,
                                Access kind) {
  const bool read = reads(kind);
  const bool write = writes(kind);
  const std::uint32_t e = h.epoch;
  const unsigned me = h.me;
  const std::uint32_t my = h.my_wsync;
  // Ordered by an all-lanes warp rendezvous since the other access; a
  // rendezvous of only some lanes is left to the slow path.
  const std::uint32_t full = h.my_full;
  auto ordered = [&](unsigned other, std::uint32_t other_wsync) __attribute__((always_inline)) {
    return other == me || ((other >> 5) == (me >> 5) && other_wsync < full);
  };
  // Whether word s can be accessed without a report.
  auto clean = [&](const Shadow& s) __attribute__((always_inline)) {
    if (s.copy_pending) return false;
    if (read && (s.w_epoch == e ? !ordered(s.writer, s.w_wsync) : s.w_epoch < h.block_first_epoch)) return false;
    return !write ||
           !((s.w_epoch == e && !ordered(s.writer, s.w_wsync)) || (s.r_epoch == e && !ordered(s.reader, s.r_wsync)) ||
             (s.r2_epoch == e && !ordered(s.reader2, s.r2_wsync)));
  };
  if (first == last) [[likely]] {  // one word (most accesses): no loops, which compile to much slower code here
    if (!clean(words[first])) return false;
    note_shadow(words[first], read, write, e, h.block_first_epoch, me, my, site);
    note_banks(h, id, me, first, first, read, write);
    return true;
  }
  for (std::size_t i = first; i <= last; ++i)
    if (!clean(words[i])) return false;
  for (std::size_t i = first; i <= last; ++i) note_shadow(words[i], read, write, e, h.block_first_epoch, me, my, site);
  note_banks(h, id, me, first, last, read, write);
  return true;
}

// The fast path of an element of a static __shared__ array: true if the
// access was checked and recorded (perform it), false: take the slow path.
template <std::size_t Size>
COURSE_CPU_HOT bool fast_static(const Site* site, const void* root, const void* p, bool bad, Access kind) {
  Hot* h = tl_hot;
  if (h == nullptr) return true;  // host code, fast-mode launch: slow path would say the same
  const int id = site_id(site);
  if (bad || static_cast<std::uint32_t>(id) >= h->nsites) return false;
  const SiteSlot& s = h->sites[id];
  const auto b = reinterpret_cast<std::uintptr_t>(root);
  if (s.begin != b) return false;
  const std::size_t off = reinterpret_cast<std::uintptr_t>(p) - b;
  if (kind == Access::bounds) return true;
  if (kind == Access::none) {
    note_unseen(s.words, off / 4, (off + Size - 1) / 4, h->epoch);
    return true;
  }
  if constexpr (Size < 4) return false;  // part of a word: the slow path compares the bytes
  return shared_fast(*h, site, id, s.words, off / 4, (off + Size - 1) / 4, kind);
}

// The fast path of an access of words w[0 .. Size/4) of a buffer with a shadow: false if another thread of this block
// wrote one of them in this barrier interval (unordered), or another block in this launch: the slow path decides
// (check_global.cpp). Else checked, and recorded if it writes (a plain access: volatile ones take the slow path).
// `value`: a plain store's new value, stored here already, before the record says who wrote the word, so that another
// block that sees the record sees the value too (and can tell a store of the same value, `*found = 1;`, from a change).
template <std::size_t Size>
COURSE_CPU_HOT bool global_fast(Hot& h, const Site* site, GlobalWord* w, void* p, Access kind, const void* value) {
  constexpr std::size_t n = Size / 4;
  const int id = site_id(site);
  if (id == 0) return false;  // a site not seen yet
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t key = __atomic_load_n(&w[i].key, __ATOMIC_ACQUIRE);
    if ((key & kLaunchBits) != h.launch_key) continue;                       // not written in this launch
    if ((key | kAtomicWrite) != (h.block_key | kAtomicWrite)) return false;  // another block's write
    const GlobalWord& g = w[i];
    if (g.epoch != h.epoch || g.thread == h.me) continue;
    if ((g.thread >> 5) == (h.me >> 5) && g.wsync < h.my_full) continue;  // ordered by a warp rendezvous
    return false;
  }
  if (writes(kind)) {
    if (value != nullptr) __builtin_memcpy(p, value, Size);
    const std::uint64_t key = h.block_key;
    for (std::size_t i = 0; i < n; ++i) {
      w[i].epoch = h.epoch;
      w[i].wsync = h.my_wsync;
      w[i].site = static_cast<std::uint32_t>(id);
      w[i].thread = static_cast<std::uint16_t>(h.me);
      w[i].bytes = 0xF;
      w[i].same = 0;
      __atomic_store_n(&w[i].key, key, __ATOMIC_RELEASE);
    }
  }
  return true;
}

// The fast path of an element behind a pointer (parameter, extern __shared__). `value`: a plain store's value (the
// caller stores it too), or null.
template <std::size_t Size, bool Volatile = false>
COURSE_CPU_HOT bool fast_pointer(const Site* site, const void* base, const void* p, Access kind,
                                 const void* value = nullptr) {
  Hot* h = tl_hot;
  if (h == nullptr) return true;
  const auto b = reinterpret_cast<std::uintptr_t>(base);
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  if (h->alloc_gen == g_allocation_generation.load(std::memory_order_relaxed)) {
    for (int k = 0; k < kCachedBuffers; ++k) {
      const std::uintptr_t begin = h->g_begin[k];
      if (b - begin < h->g_size[k]) {
        if (a < begin || (a - begin) + Size > h->g_size[k]) return false;
        if (kind == Access::none || kind == Access::bounds) return true;
        GlobalWord* shadow = h->g_shadow[k];
        if (shadow == nullptr) return !writes(kind);            // the first store makes the shadow (slow path)
        if constexpr (Size % 4 != 0 || Volatile) return false;  // parts of words, volatile: the slow path
        if (((a - begin) & 3u) != 0) return false;
        return global_fast<Size>(*h, site, shadow + (a - begin) / 4, const_cast<void*>(p), kind, value);
      }
    }
  }
  if (b - h->arena_begin < h->arena_span) {
    if (a < h->arena_begin || a + Size > h->arena_end) return false;
    const std::size_t off = a - h->arena_begin;
    if (kind == Access::bounds) return true;
    if (kind == Access::none) {
      note_unseen(h->arena_words, off / 4, (off + Size - 1) / 4, h->epoch);
      return true;
    }
    if constexpr (Size < 4) return false;  // part of a word: the slow path compares the bytes
    const int id = site_id(site);
    if (static_cast<std::uint32_t>(id) >= h->nsites || h->sites[id].site != site) return false;
    return shared_fast(*h, site, id, h->arena_words, off / 4, (off + Size - 1) / 4, kind);
  }
  // The thread's own local variable through a __device__ function's parameter or a local pointer (`accumulate(acc, v)`
  // with `float4& acc`, in a loop): performed unchecked, as check::record() decides, without its lookups.
  if (a < h->stack_top && h->stack_top - a <= h->stack_bytes) return site->device_param || site->local_pointer;
  return false;
}

}  // namespace course_cpu::check
