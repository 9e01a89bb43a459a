// CPU backend of the course, check mode: what every checked subscript does.
//
// Shared memory gets one shadow record per 4-byte word, per worker. Time in a
// block is cut into barrier intervals ("epochs": a new one starts at every
// released __syncthreads() and at every block start; numbers only grow, so
// old records never need clearing). Two accesses to a word by different
// threads in the same epoch, at least one a write, are a race - unless both
// threads are lanes of one warp and a warp rendezvous (__syncwarp(), a
// shuffle, a vote) happened in that warp in between. A read of a word not
// written since the block started reads garbage. Global memory is only
// bounds-checked against the cudaMalloc allocation the pointer points into.
//
// Bank conflicts: the n-th access of each lane of a warp to the same source
// line (and variable, load or store) within one epoch forms one warp-wide
// request; its degree is the largest number of distinct 4-byte words that
// fall into one of the 32 banks (same word = broadcast).
#include <algorithm>
#include <cstring>
#include <map>
#include <sstream>

#include <course_cpu/check.h>

#include "scheduler.h"

namespace course_cpu::detail {

struct Shadow {
  std::uint32_t w_epoch = 0, r_epoch = 0, r2_epoch = 0;
  std::uint16_t writer = 0, reader = 0, reader2 = 0;
  std::uint32_t w_wsync = 0, r_wsync = 0, r2_wsync = 0;
  int w_line = 0, r_line = 0, r2_line = 0;
  const char* w_var = nullptr;
  const char* r_var = nullptr;
  const char* r2_var = nullptr;
};

struct Region {
  std::uintptr_t begin = 0, end = 0;
  bool dynamic = false;
  std::vector<Shadow> words;
};

struct Request {
  std::uint32_t word[32];
  std::uint32_t mask = 0;
};

struct SiteRequests {
  const check::Site* site;
  bool store;
  unsigned width;  // 4-byte words per access
  std::uint16_t next[32];
  std::vector<Request> requests;
};

struct CheckState {
  std::vector<std::unique_ptr<Region>> statics;  // static __shared__ arrays seen on this worker
  Region* last_static = nullptr;
  Region arena;  // extern __shared__
  std::uint32_t epoch = 1;
  std::uint32_t block_first_epoch = 1;
  std::vector<std::vector<SiteRequests>> warps;  // per warp, this epoch
  std::map<BankKey, BankStats> bank;
  std::uint64_t alloc_generation = 0;
  Allocation alloc_cache[4];
  unsigned alloc_next = 0;
};

// Defined here, where CheckState is complete.
Worker::Worker(int worker_id) : id(worker_id), stacks(fiber_stack_bytes()) {}
Worker::~Worker() = default;

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
  c.warps.resize((w.block.nthreads + 31) / 32);
  c.alloc_generation = 0;
}

void check_begin_block(Worker& w) {
  CheckState& c = *w.check;
  ++c.epoch;
  c.block_first_epoch = c.epoch;
}

namespace {

// Distinct words per bank, without sorting: per bank a short list of the
// words seen (a conflict-free request puts at most one word in each bank).
int request_degree(const Request& r, unsigned width) {
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
  for (auto& sites : c.warps) {
    for (SiteRequests& s : sites) {
      BankStats& st = c.bank[BankKey{s.site->file, s.site->line, s.site->var, s.store}];
      for (const Request& r : s.requests) {
        const int degree = request_degree(r, s.width);
        ++st.requests;
        st.wavefronts += static_cast<std::uint64_t>(degree);
        st.max_degree = std::max(st.max_degree, degree);
      }
    }
    sites.clear();
  }
  ++c.epoch;
}

void check_end_launch(const std::vector<Worker*>& workers) {
  std::vector<std::pair<BankKey, BankStats>> all;
  for (Worker* w : workers) {
    if (!w->check) continue;
    for (auto& kv : w->check->bank) all.push_back(kv);
    w->check->bank.clear();
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
  const std::uint64_t gen = allocation_generation();
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  if (c.alloc_generation == gen) {
    for (const Allocation& al : c.alloc_cache)
      if (al.size != 0 && a >= al.begin && a < al.begin + al.size) {
        *out = al;
        return true;
      }
  } else {
    for (Allocation& al : c.alloc_cache) al = Allocation{};
    c.alloc_generation = gen;
  }
  if (!find_allocation(p, out)) return false;
  c.alloc_cache[c.alloc_next++ % 4] = *out;
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

bool out_of_bounds(const Who& who, const check::AccessInfo& info, check::Access kind, const char* space,
                   const std::function<std::string()>& why) {
  who.w.illegal_address = true;
  report(who, "out-of-bounds", info, [&] {
    std::ostringstream m;
    m << "out-of-bounds " << space << " memory access in block " << who.block() << ": thread "
      << who.thread() << ' ' << verb(kind) << ' ' << element_text(info) << " at line " << info.site->line
      << ", " << why() << ". The access was not performed; on a GPU it would corrupt memory or "
      << "fail with cudaErrorIllegalAddress.";
    return m.str();
  });
  return false;
}

// Race, uninitialized-read and bookkeeping for one shared word.
void shared_word(const Who& who, CheckState& c, Shadow& s, const check::AccessInfo& info, bool read,
                 bool write, bool& reported_uninit) {
  const std::uint32_t e = c.epoch;
  const unsigned me = who.t.linear;
  const std::vector<std::uint32_t>& wsync = who.w.block.warp_sync;
  const std::uint32_t my_wsync = wsync[me >> 5];
  auto ordered = [&](unsigned other, std::uint32_t other_wsync) {
    return other == me || ((other >> 5) == (me >> 5) && other_wsync != my_wsync);
  };
  if (read) {
    if (s.w_epoch == e && !ordered(s.writer, s.w_wsync)) {
      report(who, "race", info, [&] {
        std::ostringstream m;
        m << "race on shared memory in block " << who.block() << ": thread " << who.thread() << " reads "
          << element_text(info) << " at line " << info.site->line << ", written by thread "
          << who.thread(s.writer) << " at line " << s.w_line;
        if (s.w_var && std::strcmp(s.w_var, info.site->var) != 0) m << " (as " << s.w_var << ")";
        m << " with no __syncthreads() between them. Put a __syncthreads() between the write and "
             "the read.";
        return m.str();
      });
    } else if (s.w_epoch < c.block_first_epoch && !reported_uninit) {
      reported_uninit = true;
      report(who, "uninitialized-shared-read", info, [&] {
        std::ostringstream m;
        m << "thread " << who.thread() << " of block " << who.block() << " reads " << element_text(info)
          << " at line " << info.site->line
          << " but no thread of this block has written it: shared memory starts with garbage in "
             "every block. Write it first (and __syncthreads()), or do not read it.";
        return m.str();
      });
    }
  }
  if (write) {
    if (s.w_epoch == e && !ordered(s.writer, s.w_wsync)) {
      report(who, "race", info, [&] {
        std::ostringstream m;
        m << "race on shared memory in block " << who.block() << ": thread " << who.thread() << " writes "
          << element_text(info) << " at line " << info.site->line << ", also written by thread "
          << who.thread(s.writer) << " at line " << s.w_line
          << " with no __syncthreads() between them. Which value remains depends on timing.";
        return m.str();
      });
    } else {
      // A write after other threads' reads in the same epoch (write-after-read).
      const bool r1 = s.r_epoch == e && !ordered(s.reader, s.r_wsync);
      const bool r2 = s.r2_epoch == e && !ordered(s.reader2, s.r2_wsync);
      if (r1 || r2) {
        const unsigned reader = r1 ? s.reader : s.reader2;
        const int line = r1 ? s.r_line : s.r2_line;
        const char* var = r1 ? s.r_var : s.r2_var;
        report(who, "race", info, [&] {
          std::ostringstream m;
          m << "race on shared memory in block " << who.block() << ": thread " << who.thread()
            << " writes " << element_text(info) << " at line " << info.site->line << ", which thread "
            << who.thread(reader) << " reads at line " << line;
          if (var && std::strcmp(var, info.site->var) != 0) m << " (as " << var << ")";
          m << " with no __syncthreads() between them, so it may read the new value. Put a "
               "__syncthreads() after the last read and before the next write.";
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
      s.r_line = info.site->line;
      s.r_var = info.site->var;
    } else if (s.reader != me) {
      s.r2_epoch = e;
      s.reader2 = static_cast<std::uint16_t>(me);
      s.r2_wsync = my_wsync;
      s.r2_line = info.site->line;
      s.r2_var = info.site->var;
    } else {
      s.r_wsync = my_wsync;
    }
  }
  if (write) {
    s.w_epoch = e;
    s.writer = static_cast<std::uint16_t>(me);
    s.w_wsync = my_wsync;
    s.w_line = info.site->line;
    s.w_var = info.site->var;
  }
}

void bank_request(CheckState& c, unsigned tid, const check::AccessInfo& info, std::uint32_t word,
                  unsigned width, bool store) {
  std::vector<SiteRequests>& sites = c.warps[tid >> 5];
  const unsigned lane = tid & 31;
  SiteRequests* site = nullptr;
  for (SiteRequests& s : sites)
    if (s.site == info.site && s.store == store) {
      site = &s;
      break;
    }
  if (site == nullptr) {
    sites.push_back(SiteRequests{info.site, store, width, {}, {}});
    site = &sites.back();
  }
  const unsigned n = site->next[lane]++;
  if (n >= site->requests.size()) site->requests.resize(n + 1);
  site->requests[n].word[lane] = word;
  site->requests[n].mask |= 1u << lane;
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
  static_region(*w->check, base, bytes);
}

bool record(const AccessInfo& info, Access kind) {
  Worker* w = tl_worker;
  ThreadSlot* t = tl_slot;
  if (w == nullptr || t == nullptr || !w->checked) return true;  // host code
  CheckState& c = *w->check;
  const Who who{*w, *t};
  const auto addr = reinterpret_cast<std::uintptr_t>(info.addr);

  Region* region = nullptr;
  if (info.is_array) {
    region = static_region(c, info.base, info.array_bytes);
    if (info.bad_dim >= 0)
      return out_of_bounds(who, info, kind, "shared", [&] {
        std::ostringstream m;
        m << "but " << info.site->var << " is declared " << info.site->var << extents_text(info) << " (index "
          << info.index[info.bad_dim] << " is outside 0.." << info.extent[info.bad_dim] - 1
          << " in dimension " << info.bad_dim + 1 << ")";
        return m.str();
      });
  } else {
    const auto base = reinterpret_cast<std::uintptr_t>(info.base);
    region = shared_region_of(*w, base);
    if (region == nullptr) {
      Allocation a;
      if (!global_allocation_of(c, info.base, &a)) {
        w->illegal_address = true;
        report(who, "not-a-device-pointer", info, [&] {
          std::ostringstream m;
          m << "kernel parameter '" << info.site->var << "' is not a device pointer (did you pass a host "
            << "pointer?): thread " << who.thread() << " of block " << who.block() << ' ' << verb(kind)
            << ' ' << element_text(info) << " at line " << info.site->line << ", but " << info.site->var
            << " does not point into any cudaMalloc'ed buffer. Pass the pointer you got from "
               "cudaMalloc and copy the data with cudaMemcpy.";
          return m.str();
        });
        return false;
      }
      if (addr < a.begin || addr + info.elem_size > a.begin + a.size)
        return out_of_bounds(who, info, kind, "global", [&] {
          std::ostringstream m;
          const std::size_t elems = a.size / info.elem_size;
          m << "but " << info.site->var << " points into a cudaMalloc'ed buffer of " << a.size << " bytes ("
            << elems << " elements of " << info.elem_size << " bytes)";
          if (base != a.begin)
            m << " at element " << static_cast<long long>((base - a.begin) / info.elem_size);
          if (addr >= a.begin + a.size)
            m << "; the element is " << (addr - (a.begin + a.size)) / info.elem_size
              << " elements past its end. A bounds check such as `if (i < n)` is probably missing";
          else
            m << "; the element is before its start";
          return m.str();
        });
      return true;  // global memory: bounds only
    }
    if (addr < region->begin || addr + info.elem_size > region->end)
      return out_of_bounds(who, info, kind, "shared", [&] {
        std::ostringstream m;
        const std::size_t bytes = region->end - region->begin;
        if (region->dynamic)
          m << "past the end of the dynamic shared memory (" << bytes
            << " bytes, set by the 3rd launch parameter <<<grid, block, bytes>>>)";
        else
          m << "outside the shared array it points into (" << bytes << " bytes)";
        return m.str();
      });
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
  if (read) bank_request(c, t->linear, info, static_cast<std::uint32_t>(first), width, false);
  if (write) bank_request(c, t->linear, info, static_cast<std::uint32_t>(first), width, true);
  return true;
}

}  // namespace course_cpu::check
