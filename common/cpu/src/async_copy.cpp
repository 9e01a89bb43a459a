// CPU backend of the course: asynchronous copies into shared memory (<cuda_pipeline_primitives.h>).
//
// A copy is recorded by the thread that starts it (ThreadSlot::copies) and performed when one of that thread's
// __pipeline_wait_prior() calls covers its group (a copy started with a cuda::barrier or a block's pipeline: when the
// phase it joined completes, cuda_barrier.cpp), or when the thread exits. Until then shared memory keeps its old
// contents, so reading too early gives stale values, as it may on a GPU.
//
// Check mode, in addition (the shadow words of check_state.h):
//  * starting a copy is checked as a write of each destination word by the starting thread in the current barrier
//    interval (a copy into a tile that other threads still read in this interval is a race), and marks the words
//    `copy_pending`;
//  * any access of a pending word, by any thread, is reported as `async-copy` (check_record.cpp): it was not waited
//    for;
//  * a wait that completes a copy clears the mark and records the write again in the wait's interval, so another
//    thread must pass a __syncthreads() after the wait before it reads the data;
//  * the source must lie inside a cudaMalloc'ed buffer (else the launch fails with cudaErrorIllegalAddress) and the
//    destination inside shared memory.
// In both modes a size other than 4, 8 or 16 or a zfill larger than the size stops the block (a GPU traps), and a
// misaligned address stops it with cudaErrorMisalignedAddress.
#include "check_messages.h"
#include "scheduler.h"

#include <course_cpu/copy_args.h>

#include <cuda_pipeline_primitives.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

namespace course_cpu::detail {
namespace {

[[noreturn]] void stop_bad_copy(Worker& w, ThreadSlot& t, const check::Site* site, const char* category,
                                const std::string& problem) {
  const Who who{w, t};
  if (std::strcmp(category, "out-of-bounds") == 0)
    w.illegal_address = true;
  else
    w.launch_failure = true;
  w.sink.add(category, site->file, site->line, site->var, w.block.linear, t.linear,
             [&] { return bad_async_copy_text(who, site->line, problem, site->var); });
  stop_block_here(w, t);
}

// Word `word_offset` of a copy to `dst`, as a checked access of the copy's site.
check::AccessInfo word_access(const check::Site* site, const unsigned char* dst, std::size_t word_offset) {
  check::AccessInfo info{};
  info.site = site;
  info.base = dst;
  info.addr = dst + 4 * word_offset;
  info.elem_size = 4;
  info.is_array = false;
  info.ndims = 0;  // messages name the copy, not an index
  info.bad_dim = -1;
  info.index[0] = static_cast<long long>(word_offset);
  return info;
}

void set_pending(Worker& w, const PendingCopy& c, bool pending) {
  Region* r = shared_region_of(w, reinterpret_cast<std::uintptr_t>(c.dst));
  if (r == nullptr) return;
  const std::size_t first = (reinterpret_cast<std::uintptr_t>(c.dst) - r->begin) / 4;
  for (std::size_t i = first; i < first + c.size / 4 && i < r->words.size(); ++i) r->words[i].copy_pending = pending;
}

// Copies c's bytes and zero-fills the rest of its size.
void land(const PendingCopy& c) {
  std::memcpy(c.dst, c.src, c.bytes);
  std::memset(c.dst + c.bytes, 0, c.size - c.bytes);
}

// Performs copy c of thread t (check mode: clears its pending marks and records its writes in this interval).
void complete(Worker& w, const PendingCopy& c) {
  land(c);
  if (!w.checked) return;
  set_pending(w, c, false);
  for (std::uint32_t i = 0; i < c.size / 4; ++i) check::record(word_access(c.site, c.dst, i), check::Access::write);
}

}  // namespace

void async_copy(const check::Site* site, void* dst_shared, const void* src_global, std::size_t size_and_align,
                std::size_t zfill) {
  Worker* w = tl_worker;
  ThreadSlot* t = tl_slot;
  if (w == nullptr || t == nullptr) {  // host code (nvcc would not compile the call there): copy at once
    if (size_and_align <= 16 && zfill <= size_and_align) {
      std::memcpy(dst_shared, src_global, size_and_align - zfill);
      std::memset(static_cast<unsigned char*>(dst_shared) + (size_and_align - zfill), 0, zfill);
    }
    return;
  }
  if (size_and_align != 4 && size_and_align != 8 && size_and_align != 16)
    stop_bad_copy(*w, *t, site, "async-copy", bad_copy_size_text(size_and_align));
  if (zfill > size_and_align) stop_bad_copy(*w, *t, site, "async-copy", bad_copy_zfill_text(zfill, size_and_align));
  const auto dst = reinterpret_cast<std::uintptr_t>(dst_shared);
  const auto src = reinterpret_cast<std::uintptr_t>(src_global);
  for (const std::uintptr_t address : {dst, src}) {
    if (address % size_and_align == 0) continue;
    stop_misaligned(*w, *t, site->file, site->line, site->var,
                    misaligned_copy(size_and_align, address == dst, address));
  }
  const auto bytes = static_cast<std::uint32_t>(size_and_align - zfill);
  if (w->checked) {
    CheckState& c = *w->check;
    if (shared_region_of(*w, dst) == nullptr) stop_bad_copy(*w, *t, site, "async-copy", kBadCopyDestinationText);
    Allocation a;
    if (bytes > 0 && (!global_allocation_of(c, src_global, &a) || src + bytes > a.begin + a.size))
      stop_bad_copy(*w, *t, site, "out-of-bounds", bad_copy_source_text(bytes));
    for (std::size_t i = 0; i < size_and_align / 4; ++i)
      check::record(word_access(site, static_cast<unsigned char*>(dst_shared), i), check::Access::write);
  }
  t->copies.push_back(PendingCopy{static_cast<unsigned char*>(dst_shared),
                                  static_cast<const unsigned char*>(src_global), bytes,
                                  static_cast<std::uint32_t>(size_and_align), PendingCopy::kUncommitted, site});
  if (w->checked) set_pending(*w, t->copies.back(), true);
}

void async_commit() {
  ThreadSlot* t = tl_slot;
  if (t == nullptr) return;
  for (PendingCopy& c : t->copies)
    if (c.group == PendingCopy::kUncommitted) c.group = t->groups;
  ++t->groups;
}

void async_wait_prior(std::size_t prior) {
  Worker* w = tl_worker;
  ThreadSlot* t = tl_slot;
  if (w == nullptr || t == nullptr) return;
  prior = std::min<std::size_t>(prior, 8);  // CUDA's primitive waits with 8 for any larger value
  // Groups [0, groups - prior) complete; copies not yet committed stay in flight.
  const std::uint32_t done = t->groups > prior ? t->groups - static_cast<std::uint32_t>(prior) : 0;
  auto finished = [&](const PendingCopy& c) { return c.group != PendingCopy::kUncommitted && c.group < done; };
  for (const PendingCopy& c : t->copies)
    if (finished(c)) complete(*w, c);
  t->copies.erase(std::remove_if(t->copies.begin(), t->copies.end(), finished), t->copies.end());
}

const check::Site* group_copy_site(CopyApi api, const char* file, unsigned line) {
  const char* name = api == CopyApi::group      ? kGroupCopySiteName
                     : api == CopyApi::pipeline ? kPipelineCopySiteName
                                                : kBarrierCopySiteName;
  return call_site(name, "", file, line);
}

// cooperative_groups::memcpy_async and cuda::memcpy_async: this thread's share of the group's copy (a thread alone:
// rank 0 of 1).
void group_async_copy(const check::Site* site, unsigned rank, unsigned size, void* dst, const void* src,
                      std::size_t bytes) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  size = std::max(size, 1u);
  auto at_once = [&](std::size_t from, std::size_t to) {
    for (std::size_t i = from + rank; i < to; i += size) d[i] = s[i];
  };
  Worker* w = tl_worker;
  const auto da = reinterpret_cast<std::uintptr_t>(dst), sa = reinterpret_cast<std::uintptr_t>(src);
  // Asynchronous where a GPU copies asynchronously: into shared memory, from elsewhere (check mode knows the shared
  // arrays; fast mode takes the copy to be global to shared, as course kernels' copies are).
  bool async = w != nullptr && tl_slot != nullptr;
  if (async && w->checked) async = shared_region_of(*w, da) != nullptr && shared_region_of(*w, sa) == nullptr;
  std::size_t width = 16;
  while (width >= 4 && ((da ^ sa) % width != 0 || bytes < width)) width /= 2;
  if (!async || width < 4) return at_once(0, bytes);
  const std::size_t head = std::min<std::size_t>((width - sa % width) % width, bytes);
  const std::size_t chunks = (bytes - head) / width, tail = head + chunks * width;
  at_once(0, head);
  for (std::size_t i = rank; i < chunks; i += size) async_copy(site, d + head + i * width, s + head + i * width, width);
  at_once(tail, bytes);
}

// cuda::memcpy_async(..., barrier): the thread's share, to complete with the barrier's current phase (the copy joins
// it, as libcu++'s does: cp.async.mbarrier.arrive without .noinc), whether or not the thread itself arrives.
void barrier_async_copy(const void* barrier, std::uint64_t block, CopyApi api, const char* file, unsigned line,
                        unsigned rank, unsigned size, void* dst, const void* src, std::size_t bytes) {
  Worker* w = tl_worker;
  ThreadSlot* t = tl_slot;
  if (w == nullptr || t == nullptr)
    return group_async_copy(group_copy_site(api, file, line), rank, size, dst, src, bytes);
  const std::uint64_t phase = barrier_copy_phase(*w, *t, barrier, block, file, line);
  const std::size_t before = t->copies.size();
  group_async_copy(group_copy_site(api, file, line), rank, size, dst, src, bytes);
  for (std::size_t i = before; i < t->copies.size(); ++i) {
    PendingCopy& c = t->copies[i];
    c.group = PendingCopy::kWithBarrier;
    c.barrier = barrier;
    c.phase = phase;
    if (w->hot != nullptr) {
      c.epoch = w->hot->epoch;
      c.wsync = w->hot->my_wsync;
    }
  }
}

void phase_copies(Worker& w, BarrierState& s) {
  auto of_phase = [&](const PendingCopy& c) {
    return c.group == PendingCopy::kWithBarrier && c.barrier == s.key && c.phase < s.phase;
  };
  // Check mode records each copy's words as written by the thread that started it: check::record() takes the thread
  // from tl_slot and the fast-path state.
  ThreadSlot* const running = tl_slot;
  auto become = [&](const ThreadSlot& t) {
    if (w.hot == nullptr) return;
    w.hot->me = t.linear;
    w.hot->my_wsync = w.block.warp_sync[t.linear >> 5];
    w.hot->my_full = w.block.warp_full[t.linear >> 5];
    w.hot->stack_top = t.stack_top;
  };
  std::size_t kept = 0;
  for (const unsigned linear : s.copiers) {
    ThreadSlot& t = w.block.threads[linear];
    tl_slot = &t;
    become(t);
    for (const PendingCopy& c : t.copies)
      if (of_phase(c)) complete(w, c);
    t.copies.erase(std::remove_if(t.copies.begin(), t.copies.end(), of_phase), t.copies.end());
    if (std::any_of(t.copies.begin(), t.copies.end(), [&](const PendingCopy& c) { return c.barrier == s.key; }))
      s.copiers[kept++] = linear;  // copies of the current phase
  }
  s.copiers.resize(kept);
  tl_slot = running;
  if (running != nullptr) become(*running);
}

void finish_async_copies(Worker& w, ThreadSlot& t) {
  auto own = [](const PendingCopy& c) { return c.group != PendingCopy::kWithBarrier; };
  for (const PendingCopy& c : t.copies)
    if (own(c)) complete(w, c);
  t.copies.erase(std::remove_if(t.copies.begin(), t.copies.end(), own), t.copies.end());
}

void settle_async_copies(Worker& w, ThreadSlot& t, bool perform) {
  for (const PendingCopy& c : t.copies) {
    if (perform) land(c);
    if (w.checked) set_pending(w, c, false);
  }
  t.copies.clear();
}

}  // namespace course_cpu::detail
