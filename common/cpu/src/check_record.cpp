// CPU backend of the course, check mode: the slow path of a checked access.
//
// Two accesses to a shared word by different threads in the same epoch (see
// check_state.h), at least one a write, are a race - unless both threads are
// lanes of one warp and a warp rendezvous (__syncwarp(), a shuffle, a vote)
// whose mask named both happened in between, or both are atomics (an atomic,
// check_atomic below, is recorded as a write that reads first), or one is a
// plain read and the other an atomicCAS (a CAS loop's first guess, which the
// compare-and-swap checks: Site::compare_and_swap). A read of a
// word not written since the block started reads garbage - unless its bytes
// no longer hold the fill of a block's start (check_state.h): then a write the
// checks cannot see (through a cast or local pointer, a reference) has stored
// something there. Global memory is bounds-checked against the cudaMalloc
// allocation the pointer points into, and its races are check_global.cpp's.
//
// The common case never gets here: check_fast_path.h's inlined fast path
// checks and records an access that needs no report itself (same state, same
// rules); record() below is the slow path that also writes the messages.
#include "check_messages.h"

#include <link.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace course_cpu::detail {
namespace {

// Whether p is in the program's own image (its loaded segments: code, constants, globals): on the CPU backend,
// __device__ and __constant__ variables are globals of the program.
bool in_program_image(const void* p) {
  static const std::vector<std::pair<std::uintptr_t, std::uintptr_t>> segments = [] {
    std::vector<std::pair<std::uintptr_t, std::uintptr_t>> v;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* data) {
          if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') return 0;  // a shared library
          auto& out = *static_cast<std::vector<std::pair<std::uintptr_t, std::uintptr_t>>*>(data);
          for (int i = 0; i < info->dlpi_phnum; ++i)
            if (info->dlpi_phdr[i].p_type == PT_LOAD) {
              const std::uintptr_t b = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
              out.emplace_back(b, b + info->dlpi_phdr[i].p_memsz);
            }
          return 1;  // the program comes first
        },
        &v);
    return v;
  }();
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  for (const auto& [b, e] : segments)
    if (a >= b && a < e) return true;
  return false;
}

// Memory a pointer made in device code may point to besides shared and global memory: the running thread's own
// local memory (its fiber stack) and the program's __device__ and __constant__ variables.
bool device_side_memory(const ThreadSlot& t, const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  return (a < t.stack_top && t.stack_top - a <= fiber_stack_bytes()) || in_program_image(p);
}

// True if the `bytes` bytes at p all still hold kSharedFill.
bool still_filled(const unsigned char* p, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; ++i)
    if (p[i] != static_cast<unsigned char>(kSharedFill)) return false;
  return true;
}

// True if the bytes of `word` in `mask` (bit i: byte i) all still hold kSharedFill.
bool still_filled_bytes(const unsigned char* word, std::uint8_t mask) {
  for (int i = 0; i < 4; ++i)
    if ((mask >> i & 1u) != 0 && word[i] != static_cast<unsigned char>(kSharedFill)) return false;
  return true;
}

// A plain store of the bytes the element already holds, to words that were written in this block (not the fill) and
// that no asynchronous copy is still filling.
bool stores_nothing(const check::AccessInfo& info, const Region& region, std::size_t first, std::size_t last) {
  if (last >= region.words.size() || std::memcmp(info.addr, info.stored, info.elem_size) != 0) return false;
  if (still_filled(static_cast<const unsigned char*>(info.addr), info.elem_size)) return false;
  for (std::size_t i = first; i <= last; ++i)
    if (region.words[i].copy_pending) return false;
  return true;
}

// True if a word of [first, last] was written in this block (seen or not): a struct read as a whole then reads no
// uninitialized data that matters (its padding, a member never stored to, are copied without being used).
bool partly_written(const CheckState& c, const Region& region, std::size_t first, std::size_t last) {
  for (std::size_t i = first; i <= last && i < region.words.size(); ++i) {
    const check::Shadow& s = region.words[i];
    const std::uintptr_t word = region.begin + 4 * i;
    if (s.w_epoch >= c.hot.block_first_epoch || s.unseen_epoch >= c.hot.block_first_epoch ||
        !still_filled(reinterpret_cast<const unsigned char*>(word), std::min<std::uintptr_t>(4, region.end - word)))
      return true;
  }
  return false;
}

// Race, uninitialized-read and bookkeeping for one shared word; `filled`: its
// bytes still hold the block's initial fill.
void shared_word(const Who& who, CheckState& c, check::Shadow& s, const check::AccessInfo& info, bool read, bool write,
                 const unsigned char* word, bool filled, std::uint8_t bytes, bool& reported_uninit) {
  const std::uint32_t e = c.hot.epoch;
  const unsigned me = who.t.linear;
  const BlockRun& b = who.w.block;
  const unsigned warp = me >> 5;
  const std::uint32_t my_wsync = b.warp_sync[warp];
  // Another lane of this warp is ordered before us by the warp rendezvous (__syncwarp, shuffle, vote) after its access
  // whose masks link both lanes.
  auto ordered = [&](unsigned other, std::uint32_t other_wsync) {
    return other == me || warp_ordered(b, other, other_wsync, me, my_wsync, b.warp_full[warp]);
  };
  auto writer = [&] { return OtherAccess{s.writer, s.w_site->line, s.w_site->var, s.w_wsync}; };
  if (s.copy_pending) {  // an asynchronous copy is still filling this word: no wait of its thread covered it yet
    report(who, "async-copy", info, [&] { return copy_in_flight_text(who, info, writer(), write); });
    check::note_shadow(s, read, false, e, c.hot.block_first_epoch, me, my_wsync,
                       info.site);  // the copy stays its writer
    return;
  }
  // An access the checks could not follow may have stored the fill's bits in this block.
  const bool unseen = s.unseen_epoch >= c.hot.block_first_epoch;
  // Only accesses of a common byte can race (`char` neighbours written by different threads do not); atomics do not
  // race with atomics.
  const bool atomic = info.site->atomic;
  const bool raced_writer =
      s.w_epoch == e && (s.w_bytes & bytes) != 0 && !ordered(s.writer, s.w_wsync) && !(atomic && s.w_atomic);
  if (read) {
    if (raced_writer && !(s.w_atomic && s.w_site->compare_and_swap && !atomic)) {  // a CAS loop's guess: no race
      report(who, "race", info, [&] { return read_after_write_text(who, info, writer(), my_wsync); });
    } else if (s.w_epoch < c.hot.block_first_epoch && filled && !unseen && !reported_uninit) {
      reported_uninit = true;
      report(who, "uninitialized-shared-read", info, [&] { return uninitialized_read_text(who, info); });
    } else if (s.w_epoch < c.hot.block_first_epoch && (!filled || unseen) && e > c.hot.block_first_epoch) {
      // Written where the checks could not see it, before this barrier interval (a write in this interval by
      // another thread would be a race, but which one is unknown): remember it as an earlier write of this block,
      // so that the fast path takes the next reads.
      s.w_epoch = e - 1;
      s.writer = static_cast<std::uint16_t>(me);
      s.w_wsync = 0;
      s.w_site = info.site;
      s.w_bytes = 0xF;
      s.init_bytes = 0xF;
    } else if (s.w_epoch >= c.hot.block_first_epoch && (s.init_bytes & bytes) != bytes && !unseen && !reported_uninit &&
               still_filled_bytes(word, bytes & ~s.init_bytes)) {
      // Bytes of a word whose other bytes were written (`char` flags): none of them written in this block.
      reported_uninit = true;
      report(who, "uninitialized-shared-read", info, [&] { return uninitialized_read_text(who, info); });
    }
  }
  if (write) {
    if (raced_writer) {
      report(who, "race", info, [&] { return write_after_write_text(who, info, writer(), my_wsync); });
    } else if (!info.site->compare_and_swap) {  // (a CAS loop's plain reads of its guess do not race with it)
      // A write after other threads' reads in the same epoch (write-after-read).
      const bool r1 = s.r_epoch == e && (s.r_bytes & bytes) != 0 && !ordered(s.reader, s.r_wsync);
      const bool r2 = s.r2_epoch == e && (s.r2_bytes & bytes) != 0 && !ordered(s.reader2, s.r2_wsync);
      if (r1 || r2) {
        const OtherAccess reader = r1 ? OtherAccess{s.reader, s.r_site->line, s.r_site->var, s.r_wsync}
                                      : OtherAccess{s.reader2, s.r2_site->line, s.r2_site->var, s.r2_wsync};
        report(who, "race", info, [&] { return write_after_read_text(who, info, reader, my_wsync); });
      }
    }
  }
  // An atomic is recorded as a write only (so that atomics of other threads find no reader to race with), and not
  // over this thread's own plain write of this interval (`sum = 0;` then atomicAdd(&sum, v) by the same thread), with
  // which another thread's atomic still races.
  const bool keep_plain = atomic && s.w_epoch == e && !s.w_atomic && s.writer == me;
  check::note_shadow(s, read && !atomic, write && !keep_plain, e, c.hot.block_first_epoch, me, my_wsync, info.site,
                     bytes);
  if (write && !keep_plain) s.w_atomic = atomic;
}

// An atomic's address outside shared memory: a cudaMalloc'ed buffer (bounds only), the thread's local memory or a
// __device__ variable (unchecked); anywhere else, including just past a buffer or a __shared__ array, an illegal
// address: reported, and the atomic is skipped.
bool atomic_outside_shared(const Who& who, CheckState& c, const check::AccessInfo& info, check::Access kind) {
  const auto addr = reinterpret_cast<std::uintptr_t>(info.addr);
  Allocation a;
  if (global_allocation_of(c, info.addr, &a) && addr + info.elem_size <= a.begin + a.size)
    return global_access(who, c, a, info, kind);
  if (!find_guarded_allocation(info.addr, &a) && device_side_memory(who.t, info.addr)) {
    note_block_flag(check::kBlockSynced);  // (a __device__ counter: the threadFenceReduction sample's ticket)
    return true;
  }
  // The nearest shared array below the address, if it is close (an index one or a few past its end).
  const Region* below = nullptr;
  for (const auto& r : c.statics)
    if (r->end <= addr && addr - r->end < 4096 && (below == nullptr || r->end > below->end)) below = r.get();
  if (c.arena.end > c.arena.begin && c.arena.end <= addr && addr - c.arena.end < 4096) below = &c.arena;
  who.w.illegal_address = true;
  report(who, "out-of-bounds", info, [&] {
    return atomic_address_text(who, info, below != nullptr ? addr - below->end : 0,
                               below != nullptr ? below->end - below->begin : 0, below != nullptr && below->dynamic,
                               a.size != 0 ? addr - (a.begin + a.size) : 0, a.size);
  });
  return false;
}

}  // namespace
}  // namespace course_cpu::detail

namespace course_cpu::check {

using namespace course_cpu::detail;

bool record(const AccessInfo& info, Access kind) {
  Worker* w = tl_worker;
  ThreadSlot* t = tl_slot;
  if (w == nullptr || t == nullptr || !w->checked) return true;  // host code
  CheckState& c = *w->check;
  const Who who{*w, *t};
  if (info.device_array)  // only ever past its extent (check_device_arrays.h)
    return out_of_bounds(
        who, info, kind, [&] { return array_index_text(info); }, kArrayIndexFixText);
  const auto addr = reinterpret_cast<std::uintptr_t>(info.addr);

  Region* region = nullptr;
  const int id = ensure_site(c, info.site);
  if (info.is_array) {
    region = static_region(c, info.base, info.array_bytes);
    // The fast path's cache. A member array (`st.bins`, `bk[b].keys`) lies inside the region of the struct or array
    // it belongs to, and is left to this path, which counts its words from the region's start, as bank requests of
    // one site (`bk[lane].keys[0]`, a different array per lane) must be.
    c.sites[id].begin = reinterpret_cast<std::uintptr_t>(info.base) == region->begin ? region->begin : 0;
    c.sites[id].words = region->words.data();
    if (info.bad_dim >= 0)
      return out_of_bounds(
          who, info, kind, [&] { return array_index_text(info); }, kArrayIndexFixText);
  } else {
    const auto base = reinterpret_cast<std::uintptr_t>(info.base);
    region = shared_region_of(*w, base);
    // A pointer one past a shared array (`&s[64]` of `s[64]`, cast to a float4*): its elements are the array's, past
    // its end, not the thread's own memory (a local pointer's otherwise unchecked case).
    if (region == nullptr) region = static_region_ending_at(c, base);
    if (region == nullptr) {
      Allocation a;
      // A pointer stepped to just past a buffer (`*++p` one too far) is in the buffer's guard page: still its.
      if (info.site->atomic) return atomic_outside_shared(who, c, info, kind);
      if (!global_allocation_of(c, info.base, &a) && !find_guarded_allocation(info.base, &a)) {
        if (info.site->local_pointer) return true;  // a local array, or not used where it points: unchecked
        if (info.site->device_param && device_side_memory(*t, info.addr)) {
          if (info.is_volatile) note_block_flag(check::kBlockSynced);  // a __device__ flag (check_global.cpp)
          return true;                                                 // local or __device__: unchecked
        }
        w->illegal_address = true;
        report(who, "not-a-device-pointer", info, [&] { return not_a_device_pointer_text(who, kind, info); });
        return false;
      }
      if (addr < a.begin || addr + info.elem_size > a.begin + a.size)
        return out_of_bounds(
            who, info, kind, [&] { return buffer_index_text(info, a); },
            addr >= base ? kBufferIndexFixText : kBufferStartFixText);
      return global_access(who, c, a, info, kind);  // races (check_global.cpp)
    }
    if (info.site->atomic && addr + info.elem_size > region->end && addr >= region->begin) {
      who.w.illegal_address = true;  // (the dynamic shared memory's region is found for its end address too)
      report(who, "out-of-bounds", info, [&] {
        const std::size_t past = addr >= region->end ? addr - region->end : 0;
        return atomic_address_text(who, info, past, region->end - region->begin, region->dynamic, 0, 0);
      });
      return false;
    }
    if (addr < region->begin || addr + info.elem_size > region->end)
      return out_of_bounds(
          who, info, kind, [&] { return shared_index_text(info, *region); },
          region->dynamic ? kDynamicSharedFixText : kSharedIndexFixText);
  }

  const std::size_t off = addr - region->begin;
  const std::size_t first = off / 4, last = (off + info.elem_size - 1) / 4;
  if (kind == Access::bounds) return true;  // bound to a reference parameter the callee checks itself
  if (kind == Access::none) {               // a reference bound to the element, a class-type element: bounds only
    if (!region->words.empty())
      check::note_unseen(region->words.data(), first, std::min(last, region->words.size() - 1), c.hot.epoch);
    return true;
  }
  const bool read = reads(kind);
  const bool write = writes(kind);
  if (info.stored != nullptr && stores_nothing(info, *region, first, last)) {
    // `found = 1;` by many threads: a store of the value the element already holds changes nothing any thread can
    // see, so it races with no access (a GPU keeps the same value whichever store lands last).
    note_banks(c.hot, id, t->linear, first, last, false, true);
    return true;
  }
  bool reported_uninit = info.whole && read && partly_written(c, *region, first, last);
  for (std::size_t i = first; i <= last && i < region->words.size(); ++i) {
    const std::uintptr_t word = region->begin + 4 * i;
    const std::size_t bytes = std::min<std::uintptr_t>(4, region->end - word);
    const bool filled = still_filled(reinterpret_cast<const unsigned char*>(word), bytes);
    // The bytes of word i this access covers.
    const std::uintptr_t lo = std::max(addr, word) - word, hi = std::min(addr + info.elem_size, word + 4) - word;
    const auto mask = static_cast<std::uint8_t>(((1u << hi) - 1u) & ~((1u << lo) - 1u));
    shared_word(who, c, region->words[i], info, read, write, reinterpret_cast<const unsigned char*>(word), filled, mask,
                reported_uninit);
  }
  note_banks(c.hot, id, t->linear, first, last, read, write);
  return true;
}

}  // namespace course_cpu::check

namespace course_cpu::detail {

bool check_atomic(const volatile void* address, std::size_t bytes, const char* op, const char* file, unsigned line) {
  Worker* w = tl_worker;
  if (w == nullptr || tl_slot == nullptr || !w->checked) return true;
  const check::Site* site = call_site(op, "()'s word", file, line, true);  // "atomicAdd()'s word"
  check::AccessInfo info{};
  info.site = site;
  info.base = check::untyped(address);
  info.addr = info.base;
  info.elem_size = static_cast<std::uint16_t>(bytes);
  info.is_array = false;
  info.ndims = 0;
  info.bad_dim = -1;
  // atomicExch() stores without depending on the old value: exchanging into a word no thread has written is how some
  // code initializes it (`atomicExch(&slot[t], v)`), no uninitialized read.
  const bool exchange = std::strcmp(op, "atomicExch") == 0;
  return check::record(info, exchange ? check::Access::write : check::Access::read_write);
}

}  // namespace course_cpu::detail
