// CPU backend of the course, check mode: what every checked subscript does.
//
// Shared memory gets one shadow record per 4-byte word, per worker. Time in a
// block is cut into barrier intervals ("epochs": a new one starts at every
// released __syncthreads() and at every block start; numbers only grow, so
// old records never need clearing). Two accesses to a word by different
// threads in the same epoch, at least one a write, are a race - unless both
// threads are lanes of one warp and a warp rendezvous (__syncwarp(), a
// shuffle, a vote) whose mask named both happened in between. A read of a word not
// written since the block started reads garbage. Global memory is only
// bounds-checked against the cudaMalloc allocation the pointer points into.
//
// Bank conflicts: the n-th access of each lane of a warp to the same source
// line (and variable, load or store) within one epoch forms one warp-wide
// request; its degree is the largest number of distinct 4-byte words that
// fall into one of the 32 banks (same word = broadcast).
//
// The common case never gets here: check.h's inlined fast path checks and
// records an access that needs no report itself (same state, same rules);
// record() below is the slow path that also writes the messages.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>

#include <course_cpu/check.h>

#include "scheduler.h"

namespace course_cpu::check {
constinit thread_local Hot* tl_hot = nullptr;
}  // namespace course_cpu::check

namespace course_cpu::detail {

using check::BankSlot;
using check::Request;
using check::Shadow;

struct Region {
  std::uintptr_t begin = 0, end = 0;
  bool dynamic = false;
  std::uint32_t filled_epoch = 0;  // block (its first epoch) whose start filled it
  std::vector<Shadow> words;
};

struct CheckState {
  check::Hot hot;  // what the inlined fast path (check.h) reads
  std::vector<std::unique_ptr<Region>> statics;  // static __shared__ arrays seen on this worker
  Region* last_static = nullptr;
  Region arena;  // extern __shared__
  std::vector<check::SiteSlot> sites;  // by Site::id
  std::vector<BankSlot> bank;          // by (id * 2 + store) * 32 + warp
  std::vector<std::uint32_t> active;   // bank slots opened in this epoch
  std::vector<BankStats> stats;        // by id * 2 + store, this launch
  unsigned alloc_next = 0;
};

// Defined here, where CheckState is complete.
Worker::Worker(int worker_id) : id(worker_id), stacks(fiber_stack_bytes()) {}
Worker::~Worker() = default;

namespace {

std::mutex g_site_mutex;
int g_site_count = 0;

// COURSE_CPU_CHECK_SLOW_PATH=1 sends every access through check::record()
// (the fast path finds no cached site, arena or buffer): the self-tests
// compare both paths' findings.
bool slow_path_only() {
  static const bool only = [] {
    const char* env = std::getenv("COURSE_CPU_CHECK_SLOW_PATH");
    return env != nullptr && *env != '\0' && *env != '0';
  }();
  return only;
}

// The site's dense id (assigned on first use) with room for it in c's tables.
int ensure_site(CheckState& c, const check::Site* site) {
  int id = check::site_id(site);
  if (id == 0) {
    std::lock_guard lock(g_site_mutex);
    id = check::site_id(site);
    if (id == 0) {
      id = ++g_site_count;
      __atomic_store_n(&const_cast<check::Site*>(site)->id, id, __ATOMIC_RELEASE);
    }
  }
  const auto need = static_cast<std::size_t>(id) + 1;
  if (c.sites.size() < need) {
    const std::size_t n = std::max(need, c.sites.size() * 2);
    c.sites.resize(n);
    c.bank.resize(n * 64);
    c.stats.resize(n * 2);
    c.hot.sites = c.sites.data();
    c.hot.bank = c.bank.data();
    c.hot.nsites = slow_path_only() ? 0 : static_cast<std::uint32_t>(n);
  }
  c.sites[id].site = site;
  return id;
}

}  // namespace

void check_begin_launch(Worker& w) {
  if (!w.check) w.check = std::make_unique<CheckState>();
  CheckState& c = *w.check;
  const auto begin = reinterpret_cast<std::uintptr_t>(w.arena.get());
  if (c.arena.begin != begin || c.arena.words.size() < w.arena_capacity / 4 + 1) {
    c.arena.words.assign(w.arena_capacity / 4 + 1, Shadow{});
  }
  c.arena.begin = begin;
  c.arena.end = begin + w.arena_bytes;
  c.arena.dynamic = true;
  check::Hot& h = c.hot;
  h.arena_begin = begin;
  h.arena_end = c.arena.end;
  h.arena_span = slow_path_only() ? 0 : std::max<std::size_t>(w.arena_capacity, 1);
  h.arena_words = c.arena.words.data();
  h.warp_sync = w.block.warp_sync.data();
  h.warp_full = w.block.warp_full.data();
  h.alloc_gen = 0;
  for (int k = 0; k < 4; ++k) h.g_begin[k] = h.g_size[k] = 0;
  w.hot = &h;
}

// Shared memory starts every block filled with this byte (float NaN, int -1),
// so reads of uninitialized shared memory give the same values on every run
// and for every worker count (they are reported too).
constexpr int kSharedFill = 0xff;

void check_begin_block(Worker& w) {
  check::Hot& h = w.check->hot;
  ++h.epoch;
  h.block_first_epoch = h.epoch;
  if (w.arena_bytes != 0) std::memset(w.arena.get(), kSharedFill, w.arena_bytes);
}

namespace {

// Distinct words per bank, without sorting: per bank a short list of the
// words seen (a conflict-free request puts at most one word in each bank).
int request_degree(const Request& r, unsigned width) {
  if (width == 1) {
    // Common case: every bank holds at most one distinct word (degree 1).
    std::uint32_t banks = 0;
    std::uint32_t seen[32];
    bool simple = true;
    for (std::uint32_t m = r.mask; m != 0 && simple; m &= m - 1) {
      const std::uint32_t w = r.word[__builtin_ctz(m)];
      const std::uint32_t bit = 1u << (w % 32);
      if (!(banks & bit)) {
        banks |= bit;
        seen[w % 32] = w;
      } else {
        simple = seen[w % 32] == w;
      }
    }
    if (simple) return banks ? 1 : 0;
  }
  std::uint32_t words[32][32 * 4];
  std::uint8_t count[32] = {};
  int degree = 0;
  for (unsigned lane = 0; lane < 32; ++lane) {
    if (!(r.mask & (1u << lane))) continue;
    for (unsigned k = 0; k < width; ++k) {
      const std::uint32_t w = r.word[lane] + k;
      const unsigned bank = w % 32;
      bool seen = false;
      for (unsigned q = 0; q < count[bank] && !seen; ++q) seen = words[bank][q] == w;
      if (!seen && count[bank] < 32 * 4) {
        words[bank][count[bank]++] = w;
        degree = std::max<int>(degree, count[bank]);
      }
    }
  }
  return degree;
}

}  // namespace

void check_end_epoch(Worker& w) {
  CheckState& c = *w.check;
  for (const std::uint32_t index : c.active) {
    const BankSlot& s = c.bank[index];
    BankStats& st = c.stats[index >> 5];  // (id * 2 + store)
    for (std::uint32_t n = 0; n < s.nreq; ++n) {
      const int degree = request_degree(s.req[n], s.width);
      ++st.requests;
      st.wavefronts += static_cast<std::uint64_t>(degree);
      st.max_degree = std::max(st.max_degree, degree);
    }
  }
  c.active.clear();
  ++c.hot.epoch;
}

void check_end_launch(const std::vector<Worker*>& workers) {
  std::vector<std::pair<BankKey, BankStats>> all;
  for (Worker* w : workers) {
    w->hot = nullptr;
    if (!w->check) continue;
    CheckState& c = *w->check;
    for (std::size_t k = 0; k < c.stats.size(); ++k) {
      BankStats& st = c.stats[k];
      if (st.requests == 0) continue;
      const check::Site* site = c.sites[k / 2].site;
      all.emplace_back(BankKey{site->file, site->line, site->var, (k & 1) != 0}, st);
      st = BankStats{};
    }
  }
  publish_bank_stats(all);
}

namespace {

Region* static_region(CheckState& c, const void* base, std::size_t bytes) {
  const auto b = reinterpret_cast<std::uintptr_t>(base);
  if (c.last_static && c.last_static->begin == b) return c.last_static;
  for (auto& r : c.statics)
    if (r->begin == b) return c.last_static = r.get();
  auto r = std::make_unique<Region>();
  r->begin = b;
  r->end = b + bytes;
  r->words.assign((bytes + 3) / 4, Shadow{});
  c.statics.push_back(std::move(r));
  return c.last_static = c.statics.back().get();
}

// The shared region a pointer points into (the arena also when it has 0 bytes).
Region* shared_region_of(Worker& w, std::uintptr_t p) {
  CheckState& c = *w.check;
  if (p >= c.arena.begin && p < c.arena.begin + std::max<std::size_t>(w.arena_capacity, 1)) return &c.arena;
  for (auto& r : c.statics)
    if (p >= r->begin && p < r->end) return r.get();
  return nullptr;
}

bool global_allocation_of(CheckState& c, const void* p, Allocation* out) {
  if (slow_path_only()) return find_allocation(p, out);
  const std::uint64_t gen = allocation_generation();
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  check::Hot& h = c.hot;
  if (h.alloc_gen == gen) {
    for (int k = 0; k < 4; ++k)
      if (h.g_size[k] != 0 && a >= h.g_begin[k] && a < h.g_begin[k] + h.g_size[k]) {
        *out = Allocation{h.g_begin[k], h.g_size[k], false};
        return true;
      }
  } else {
    for (int k = 0; k < 4; ++k) h.g_begin[k] = h.g_size[k] = 0;
    h.alloc_gen = gen;
  }
  if (!find_allocation(p, out)) return false;
  const unsigned k = c.alloc_next++ % 4;
  h.g_begin[k] = out->begin;
  h.g_size[k] = out->size;
  return true;
}

std::string element_text(const check::AccessInfo& info) {
  std::ostringstream s;
  s << info.site->var;
  for (int d = 0; d < std::min<int>(info.ndims, check::kMaxDims); ++d) s << '[' << info.index[d] << ']';
  return s.str();
}

std::string extents_text(const check::AccessInfo& info) {
  std::ostringstream s;
  for (int d = 0; d < std::min<int>(info.ndims, check::kMaxDims); ++d) s << '[' << info.extent[d] << ']';
  return s.str();
}

const char* verb(check::Access kind) {
  switch (kind) {
    case check::Access::read: return "reads";
    case check::Access::write: return "writes";
    case check::Access::read_write: return "updates";
    default: return "accesses";
  }
}

struct Who {
  Worker& w;
  ThreadSlot& t;
  std::string block() const { return format_index(w.block.idx, w.grid_dim); }
  std::string thread() const { return format_index(t.idx, w.block_dim); }
  std::string thread(unsigned linear) const {
    const dim3 bd = w.block_dim;
    return format_index(uint3{linear % bd.x, (linear / bd.x) % bd.y, linear / (bd.x * bd.y)}, bd);
  }
};

void report(const Who& who, const char* category, const check::AccessInfo& info,
            const std::function<std::string()>& message) {
  who.w.sink.add(category, info.site->file, info.site->line, info.site->var, who.w.block.linear, who.t.linear, message);
}

// "thread (8,0) of block (3,0) writes c[1000]"
std::string who_does(const Who& who, check::Access kind, const check::AccessInfo& info) {
  return "thread " + who.thread() + " of block " + who.block() + " " + verb(kind) + " " + element_text(info);
}

// `why` says which index is wrong and why; `fix` what to do about it.
bool out_of_bounds(const Who& who, const check::AccessInfo& info, check::Access kind,
                   const std::function<std::string()>& why, const char* fix) {
  who.w.illegal_address = true;
  report(who, "out-of-bounds", info, [&] {
    const char* skipped = kind == check::Access::read    ? " The read was skipped and gave 0"
                          : kind == check::Access::write ? " The write was skipped"
                                                         : " The access was skipped";
    return who_does(who, kind, info) + ", but " + why() + ". " + fix + skipped +
           "; on a GPU it corrupts memory or fails with cudaErrorIllegalAddress.";
  });
  return false;
}

// "index 1000 is past the last valid index 999" for an element of `elem`
// bytes at `addr`, reached from `base`, in the valid bytes [begin, end).
std::string index_text(long long index, std::uintptr_t base, std::uintptr_t begin, std::uintptr_t end,
                       std::size_t elem) {
  const auto es = static_cast<long long>(elem);
  const auto before = static_cast<long long>(base - begin);  // base is inside [begin, end]
  const long long first = -(before / es);
  const long long span = static_cast<long long>(end - begin) - before - es;
  const long long last = span >= 0 ? span / es : -((-span + es - 1) / es);
  std::ostringstream m;
  m << "index " << index;
  if (last < first) m << " is out of range: there is no valid index";
  else if (index > last) m << " is past the last valid index " << last;
  else if (index < first) m << " is before the first valid index " << first;
  else m << " is not aligned to the element size";
  return m.str();
}

const char* nth(int d) {
  static const char* const names[] = {"1st", "2nd", "3rd", "4th"};
  return names[d < 0 ? 0 : d > 3 ? 3 : d];
}

// The barrier that orders two threads. Lanes of one warp could use __syncwarp(), but only when no other warp ever
// shares the data: a tile shared by the whole block needs __syncthreads(), so that is what the advice leads with.
std::string barrier_for(unsigned a, unsigned b) {
  if ((a >> 5) != (b >> 5)) return "__syncthreads()";
  return "__syncthreads() (a __syncwarp() is enough only if no thread outside warp " + std::to_string(a >> 5) +
         " ever uses this data)";
}

// Which two lines need the barrier. Within one barrier interval the CPU backend runs threads one after another,
// so which of the two accesses it saw first says nothing about the order in the code: name both lines, neutrally.
std::string separate(int line_a, int line_b) {
  if (line_a == line_b) return " between two executions of line " + std::to_string(line_a) + ".";
  const int lo = line_a < line_b ? line_a : line_b, hi = line_a < line_b ? line_b : line_a;
  return " between line " + std::to_string(lo) + " and line " + std::to_string(hi) +
         ", in the order your code runs them (in a loop, also between one iteration's line " + std::to_string(hi) +
         " and the next iteration's line " + std::to_string(lo) + ").";
}

// " in between": also says when a warp rendezvous did happen but its mask
// left out one of the two lanes.
const char* in_between(unsigned a, std::uint32_t a_wsync, unsigned b, std::uint32_t b_wsync) {
  if ((a >> 5) == (b >> 5) && a_wsync != b_wsync)
    return " in between (the warp operation in between did not name both lanes in its mask)";
  return " in between";
}

// Race, uninitialized-read and bookkeeping for one shared word.
void shared_word(const Who& who, CheckState& c, Shadow& s, const check::AccessInfo& info, bool read,
                 bool write, bool& reported_uninit) {
  const std::uint32_t e = c.hot.epoch;
  const unsigned me = who.t.linear;
  const BlockRun& b = who.w.block;
  const unsigned warp = me >> 5;
  const std::uint32_t my_wsync = b.warp_sync[warp];
  // Another lane of this warp is ordered before us by a warp rendezvous
  // (__syncwarp, shuffle, vote) after its access whose mask named both lanes.
  auto ordered = [&](unsigned other, std::uint32_t other_wsync) {
    if (other == me) return true;
    if ((other >> 5) != warp) return false;
    if (other_wsync < b.warp_full[warp]) return true;
    const std::uint32_t both = (1u << (other & 31)) | (1u << (me & 31));
    for (std::uint32_t s = other_wsync; s < my_wsync && s < b.warp_masks[warp].size(); ++s)
      if ((b.warp_masks[warp][s] & both) == both) return true;
    return false;
  };
  if (read) {
    if (s.w_epoch == e && !ordered(s.writer, s.w_wsync)) {
      report(who, "race", info, [&] {
        std::ostringstream m;
        m << who_does(who, check::Access::read, info) << ", written by thread " << who.thread(s.writer)
          << " at line " << s.w_site->line;
        if (std::strcmp(s.w_site->var, info.site->var) != 0) m << " (as " << s.w_site->var << ")";
        m << " with no __syncthreads()" << in_between(me, my_wsync, s.writer, s.w_wsync)
          << ", so it may get the old or the new value. Every thread must pass a "
          << barrier_for(me, s.writer) << separate(s.w_site->line, info.site->line);
        return m.str();
      });
    } else if (s.w_epoch < c.hot.block_first_epoch && !reported_uninit) {
      reported_uninit = true;
      report(who, "uninitialized-shared-read", info, [&] {
        std::ostringstream m;
        m << who_does(who, check::Access::read, info)
          << ", which no thread of this block has written: shared memory holds garbage when a block "
             "starts. Write every element before it is read (e.g. zero-fill the part of a tile "
             "outside the matrix), with a __syncthreads() between the write and the read.";
        return m.str();
      });
    }
  }
  if (write) {
    if (s.w_epoch == e && !ordered(s.writer, s.w_wsync)) {
      report(who, "race", info, [&] {
        std::ostringstream m;
        m << who_does(who, check::Access::write, info) << ", also written by thread "
          << who.thread(s.writer) << " at line " << s.w_site->line;
        if (std::strcmp(s.w_site->var, info.site->var) != 0) m << " (as " << s.w_site->var << ")";
        m << " with no __syncthreads()" << in_between(me, my_wsync, s.writer, s.w_wsync)
          << ", so which value remains depends on timing. Let "
             "one thread write it, or put a "
          << barrier_for(me, s.writer) << " between the two writes.";
        return m.str();
      });
    } else {
      // A write after other threads' reads in the same epoch (write-after-read).
      const bool r1 = s.r_epoch == e && !ordered(s.reader, s.r_wsync);
      const bool r2 = s.r2_epoch == e && !ordered(s.reader2, s.r2_wsync);
      if (r1 || r2) {
        const unsigned reader = r1 ? s.reader : s.reader2;
        const int line = r1 ? s.r_site->line : s.r2_site->line;
        const char* var = r1 ? s.r_site->var : s.r2_site->var;
        const std::uint32_t reader_wsync = r1 ? s.r_wsync : s.r2_wsync;
        report(who, "race", info, [&] {
          std::ostringstream m;
          m << who_does(who, check::Access::write, info) << ", which thread " << who.thread(reader)
            << " reads at line " << line;
          if (var && std::strcmp(var, info.site->var) != 0) m << " (as " << var << ")";
          m << " with no __syncthreads()" << in_between(me, my_wsync, reader, reader_wsync)
            << ", so that read may get the old or the new value. Every thread must pass a "
            << barrier_for(me, reader) << separate(line, info.site->line);
          return m.str();
        });
      }
    }
  }
  if (read) {
    if (s.r_epoch != e) {
      s.r_epoch = e;
      s.reader = static_cast<std::uint16_t>(me);
      s.r_wsync = my_wsync;
      s.r_site = info.site;
    } else if (s.reader != me) {
      s.r2_epoch = e;
      s.reader2 = static_cast<std::uint16_t>(me);
      s.r2_wsync = my_wsync;
      s.r2_site = info.site;
    } else {
      s.r_wsync = my_wsync;
    }
  }
  if (write) {
    s.w_epoch = e;
    s.writer = static_cast<std::uint16_t>(me);
    s.w_wsync = my_wsync;
    s.w_site = info.site;
  }
}

}  // namespace
}  // namespace course_cpu::detail

namespace course_cpu::check {

using namespace course_cpu::detail;

void* scratch(std::size_t bytes) {
  thread_local std::vector<unsigned char> buffer;
  if (buffer.size() < bytes) buffer.resize(bytes);
  std::memset(buffer.data(), 0, bytes);
  return buffer.data();
}

void declare_shared_region(const void* base, std::size_t bytes) {
  Worker* w = tl_worker;
  if (w == nullptr || tl_slot == nullptr || !w->checked) return;
  CheckState& c = *w->check;
  Region* r = static_region(c, base, bytes);
  if (r->filled_epoch != c.hot.block_first_epoch) {  // the block's first thread to get here
    r->filled_epoch = c.hot.block_first_epoch;
    std::memset(const_cast<void*>(base), kSharedFill, r->end - r->begin);
  }
}

void bank_open(Hot& h, BankSlot& slot, std::uint32_t index, unsigned width) {
  slot.epoch = h.epoch;
  slot.width = width;
  slot.nreq = 0;
  std::fill(std::begin(slot.next), std::end(slot.next), std::uint16_t{0});
  tl_worker->check->active.push_back(index);
}

void bank_grow(BankSlot& slot, unsigned n) {
  while (slot.nreq <= n) {
    if (slot.nreq < slot.req.size()) slot.req[slot.nreq].mask = 0;
    else slot.req.push_back(Request{{}, 0});
    ++slot.nreq;
  }
}

bool record(const AccessInfo& info, Access kind) {
  Worker* w = tl_worker;
  ThreadSlot* t = tl_slot;
  if (w == nullptr || t == nullptr || !w->checked) return true;  // host code
  CheckState& c = *w->check;
  const Who who{*w, *t};
  const auto addr = reinterpret_cast<std::uintptr_t>(info.addr);

  Region* region = nullptr;
  const int id = ensure_site(c, info.site);
  if (info.is_array) {
    region = static_region(c, info.base, info.array_bytes);
    c.sites[id].begin = region->begin;  // the fast path's cache
    c.sites[id].words = region->words.data();
    if (info.bad_dim >= 0)
      return out_of_bounds(
          who, info, kind,
          [&] {
            std::ostringstream m;
            const int d = info.bad_dim;
            m << info.site->var << " is declared " << info.site->var << extents_text(info) << ": index "
              << info.index[d];
            if (info.ndims > 1) m << " in the " << nth(d) << " dimension";
            if (info.index[d] < 0) m << " is negative";
            else m << " is past the last valid index " << info.extent[d] - 1;
            return m.str();
          },
          "Check the index computation against the array's size (or declare the array larger).");
  } else {
    const auto base = reinterpret_cast<std::uintptr_t>(info.base);
    region = shared_region_of(*w, base);
    if (region == nullptr) {
      Allocation a;
      if (!global_allocation_of(c, info.base, &a)) {
        w->illegal_address = true;
        report(who, "not-a-device-pointer", info, [&] {
          std::ostringstream m;
          if (base == 0)
            m << "kernel parameter '" << info.site->var << "' is a null pointer: " << who_does(who, kind, info)
              << ". Allocate the buffer with cudaMalloc before the launch and pass that pointer.";
          else
            m << "kernel parameter '" << info.site->var << "' is not a device pointer (did you pass a host "
              << "pointer?): " << who_does(who, kind, info) << ", but " << info.site->var
              << " points into no cudaMalloc'ed buffer. Pass the pointer that cudaMalloc returned, "
                 "after cudaMemcpy-ing the data to it.";
          return m.str();
        });
        return false;
      }
      if (addr < a.begin || addr + info.elem_size > a.begin + a.size)
        return out_of_bounds(
            who, info, kind,
            [&] {
              std::ostringstream m;
              const std::size_t elems = a.size / info.elem_size;
              m << index_text(info.index[0], base, a.begin, a.begin + a.size, info.elem_size) << " ("
                << info.site->var;
              if (base == a.begin) m << " has " << elems << (elems == 1 ? " element" : " elements");
              else
                m << " points at element " << (base - a.begin) / info.elem_size << " of a buffer of " << elems
                  << (elems == 1 ? " element" : " elements");
              m << ", cudaMalloc'ed with " << a.size << " bytes)";
              return m.str();
            },
            addr >= base ? "Guard the access with a bounds check such as `if (i < n)`, or fix the index."
                         : "Fix the index computation so that it stays inside the buffer.");
      return true;  // global memory: bounds only
    }
    if (addr < region->begin || addr + info.elem_size > region->end)
      return out_of_bounds(
          who, info, kind,
          [&] {
            std::ostringstream m;
            const std::size_t bytes = region->end - region->begin;
            m << index_text(info.index[0], base, region->begin, region->end, info.elem_size) << " (";
            if (region->dynamic) m << "the block's dynamic shared memory has " << bytes << " bytes";
            else m << info.site->var << " points into a __shared__ array of " << bytes << " bytes";
            m << ")";
            return m.str();
          },
          region->dynamic ? "Pass enough bytes as the 3rd launch parameter <<<grid, block, bytes>>> "
                            "(e.g. blockDim.x * sizeof(float)), or fix the index."
                          : "Check the index computation against the array's size.");
  }

  if (kind == Access::none) return true;  // class-type elements: bounds only
  const bool read = kind == Access::read || kind == Access::read_write;
  const bool write = kind == Access::write || kind == Access::read_write;
  const std::size_t off = addr - region->begin;
  const std::size_t first = off / 4, last = (off + info.elem_size - 1) / 4;
  bool reported_uninit = false;
  for (std::size_t i = first; i <= last && i < region->words.size(); ++i)
    shared_word(who, c, region->words[i], info, read, write, reported_uninit);
  const unsigned width = static_cast<unsigned>(last - first + 1);
  if (read) check::bank_note(c.hot, id, false, t->linear, static_cast<std::uint32_t>(first), width);
  if (write) check::bank_note(c.hot, id, true, t->linear, static_cast<std::uint32_t>(first), width);
  return true;
}

}  // namespace course_cpu::check
