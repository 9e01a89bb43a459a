// CPU backend of the course: synchronization inside a block.
//
// A CUDA thread that reaches a __syncthreads() or a warp operation (__syncwarp,
// shuffle, vote) records what it waits for and yields to the scheduler
// (scheduler.cpp). Once no thread can run, the scheduler completes the warp
// rendezvous whose lanes are all present, and finally releases the block
// barrier once every thread waits at the same __syncthreads(). Anything else is
// barrier divergence: reported, and the block is stopped instead of hanging.
#include "check_messages.h"
#include "scheduler.h"

#include <execinfo.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace course_cpu::detail {
namespace {

void wait_here(ThreadSlot* self) { self->sink = std::move(self->sink).resume(); }

// What a shuffle from a lane outside its mask returns.
constexpr std::uint64_t kUndefinedShuffle = ~std::uint64_t{0};

}  // namespace

// Completes every warp rendezvous whose lanes are all present. Returns true if
// any thread became runnable; reports divergence (and aborts) if a rendezvous
// can never complete.
bool resolve_warps(Worker& w) {
  BlockRun& b = w.block;
  bool progressed = false;
  const unsigned nwarps = (b.nthreads + 31) / 32;
  for (unsigned warp = 0; warp < nwarps; ++warp) {
    const unsigned first = warp * 32;
    const unsigned count = std::min(32u, b.nthreads - first);
    const unsigned existing = count == 32 ? 0xffffffffu : ((1u << count) - 1u);
    bool completed = false;  // a rendezvous of this warp completed in this call
    for (;;) {
      int leader = -1;
      for (unsigned l = 0; l < count; ++l)
        if (b.threads[first + l].state == ThreadState::at_warp && b.threads[first + l].op != WarpOp::activemask) {
          leader = static_cast<int>(l);
          break;
        }
      if (leader < 0) break;
      // A lane must be in the mask it passes (PTX: undefined otherwise): `__shfl_sync(0, ...)`, or all 32 lanes
      // calling with 0x0000ffff. Reported at its own call, before lanes of other masks complete and leave.
      for (unsigned l = 0; l < count; ++l) {
        const ThreadSlot& t = b.threads[first + l];
        if (t.state == ThreadState::at_warp && t.op != WarpOp::activemask && !(t.mask & (1u << l))) {
          std::vector<unsigned> callers;
          for (unsigned q = l; q < count; ++q) {
            const ThreadSlot& c = b.threads[first + q];
            if (c.state == ThreadState::at_warp && c.op == t.op && c.line == t.line && c.mask == t.mask &&
                !(c.mask & (1u << q)))
              callers.push_back(first + q);
          }
          fail_block(w, "barrier-divergence", t.line, lane_outside_mask_text(w, warp, t, callers));
          return false;
        }
      }
      const ThreadSlot& lead = b.threads[first + leader];
      // Lanes outside the block (a partial last warp) count as absent.
      const unsigned mask = (lead.mask | (1u << leader)) & existing;
      std::vector<unsigned> exited, elsewhere, present;
      for (unsigned l = 0; l < count; ++l) {
        if (!(mask & (1u << l))) continue;
        const ThreadSlot& t = b.threads[first + l];
        if (t.state == ThreadState::exited)
          exited.push_back(first + l);
        else if (t.state == ThreadState::at_warp && t.op == lead.op)
          present.push_back(first + l);
        else
          elsewhere.push_back(first + l);
      }
      // A lane released by this call, waiting at __activemask() or for a cuda::barrier's phase may still come: wait
      // for the next round (release_barrier reports a phase that can never complete).
      const bool may_come = std::any_of(elsewhere.begin(), elsewhere.end(), [&](unsigned t) {
        return b.threads[t].state == ThreadState::runnable || b.threads[t].state == ThreadState::at_phase ||
               (b.threads[t].state == ThreadState::at_warp && b.threads[t].op == WarpOp::activemask);
      });
      if (may_come) break;
      if (!exited.empty() || !elsewhere.empty()) {
        fail_block(w, "barrier-divergence", lead.line, warp_divergence_text(w, warp, lead, present, exited, elsewhere));
        return false;
      }
      // Everyone is here: exchange values. Lane-relative arithmetic follows
      // the CUDA programming guide (segments of `width` lanes).
      for (unsigned p : present) {
        ThreadSlot& t = b.threads[p];
        const int lane = static_cast<int>(p - first);
        int width = t.width;
        if (width <= 0 || width > 32 || (width & (width - 1)) != 0) width = 32;
        const int seg = lane & ~(width - 1);
        int src = lane;
        switch (t.op) {
          case WarpOp::shfl_idx:
            src = seg + (t.arg & (width - 1));
            break;
          case WarpOp::shfl_up:
            src = lane - t.arg >= seg ? lane - t.arg : lane;
            break;
          case WarpOp::shfl_down:
            src = lane + t.arg < seg + width ? lane + t.arg : lane;
            break;
          case WarpOp::shfl_xor:
            src = (lane ^ t.arg) < seg + width ? (lane ^ t.arg) : lane;
            break;
          default:
            break;
        }
        if (t.op == WarpOp::ballot) {
          std::uint64_t ballot = 0;
          for (unsigned q : present)
            if (b.threads[q].bits) ballot |= 1ull << (q - first);
          t.result = ballot;
        } else if (src != lane && (src >= static_cast<int>(count) || !(mask & (1u << src)))) {
          // A lane outside the mask (or past the block's last thread) is read: the value is undefined on a GPU.
          // Here it is all one bits (a float NaN, an int -1, like uninitialized shared memory in check mode), so
          // a result that depends on it is wrong on every run instead of plausible.
          t.result = kUndefinedShuffle;
        } else {
          t.result = b.threads[first + src].bits;
        }
      }
      for (unsigned p : present) b.threads[p].state = ThreadState::runnable;
      completed = true;
      ++b.warp_sync[warp];
      if (w.checked) {  // for check mode's race ordering (check_record.cpp)
        b.warp_masks[warp].push_back(mask);
        if (mask == existing) b.warp_full[warp] = b.warp_sync[warp];
      }
      progressed = true;
    }
    if (completed) continue;
    // __activemask(): once no lane can run and no other rendezvous of the warp can complete, the lanes waiting at one
    // __activemask() call, reached by the same calls (its `bits`: activemask() in this file), are those that reached
    // it together, as a GPU's converged lanes do; lanes that exited or wait elsewhere (on the other side of a branch)
    // are not in the mask. Of several such points the one on the first line goes first, a heuristic for the side of
    // a branch before the point where the warp reconverges. It orders nothing.
    int lead = -1;
    for (unsigned l = 0; l < count; ++l) {
      const ThreadSlot& t = b.threads[first + l];
      if (t.state == ThreadState::at_warp && t.op == WarpOp::activemask &&
          (lead < 0 || t.line < b.threads[first + static_cast<unsigned>(lead)].line))
        lead = static_cast<int>(l);
    }
    if (lead < 0) continue;
    const ThreadSlot& point = b.threads[first + static_cast<unsigned>(lead)];
    unsigned active = 0;
    for (unsigned l = 0; l < count; ++l) {
      const ThreadSlot& t = b.threads[first + l];
      if (t.state == ThreadState::at_warp && t.op == WarpOp::activemask && t.line == point.line && t.bits == point.bits)
        active |= 1u << l;
    }
    for (unsigned l = 0; l < count; ++l)
      if (active & (1u << l)) {
        b.threads[first + l].result = active;
        b.threads[first + l].state = ThreadState::runnable;
      }
    progressed = true;
  }
  return progressed;
}

// Releases the block barrier if every thread waits at the same __syncthreads(). Threads that wait for a
// cuda::barrier's phase when nothing can run any more are reported first (cuda_barrier.cpp).
bool release_barrier(Worker& w) {
  BlockRun& b = w.block;
  if (report_stuck_phases(w)) return false;
  std::map<int, std::vector<unsigned>> waiting;  // line -> threads
  std::vector<unsigned> exited;
  for (const ThreadSlot& t : b.threads) {
    if (t.state == ThreadState::at_barrier)
      waiting[t.line].push_back(t.linear);
    else
      exited.push_back(t.linear);  // all others have exited at this point
  }
  if (waiting.size() == 1 && exited.empty()) {
    const int line = waiting.begin()->first;
    int count = 0, all = 1, any = 0;
    for (const ThreadSlot& t : b.threads) {
      count += t.predicate != 0;
      all &= t.predicate != 0;
      any |= t.predicate != 0;
    }
    for (ThreadSlot& t : b.threads) {
      t.reduce_result = t.reduce == BlockReduce::count ? count : t.reduce == BlockReduce::all ? all : any;
      t.state = ThreadState::runnable;
    }
    ++b.barrier_releases[line];
    if (w.checked) check_end_epoch(w);
    return true;
  }
  // Barrier divergence. Name the groups in thread order.
  std::vector<std::pair<unsigned, int>> groups;  // (first thread, line)
  for (auto& [line, ids] : waiting) groups.emplace_back(ids.front(), line);
  std::sort(groups.begin(), groups.end());
  const int first_line = groups.front().second;
  fail_block(w, "barrier-divergence", first_line, barrier_divergence_text(w, groups, waiting, exited));
  return false;
}

// ---- device-side entry points ------------------------------------------------------
void syncthreads(int line) { syncthreads_reduce(0, BlockReduce::none, line); }

int syncthreads_reduce(int predicate, BlockReduce op, int line) {
  ThreadSlot* self = tl_slot;
  if (self == nullptr) return predicate;  // host code: nothing to wait for
  self->state = ThreadState::at_barrier;
  self->line = line;
  self->reduce = op;
  self->predicate = predicate;
  wait_here(self);
  return self->reduce_result;
}

void syncwarp(int line, unsigned mask, const char* what) { warp_exchange(WarpOp::sync, mask, 0, 0, 32, line, what); }

std::uint64_t warp_exchange(WarpOp op, unsigned mask, std::uint64_t bits, int arg, int width, int line,
                            const char* what) {
  ThreadSlot* self = tl_slot;
  if (self == nullptr) return op == WarpOp::ballot ? (bits ? 1u : 0u) : bits;
  self->state = ThreadState::at_warp;
  self->op = op;
  self->mask = mask;
  self->bits = bits;
  self->arg = arg;
  self->width = width;
  self->line = line;
  self->what = what;
  wait_here(self);
  return self->result;
}

unsigned warp_lanes() {
  ThreadSlot* self = tl_slot;
  if (self == nullptr) return 1u;
  const BlockRun& b = tl_worker->block;
  const unsigned first = self->linear & ~31u;
  unsigned m = 0;
  for (unsigned l = 0; l < 32 && first + l < b.nthreads; ++l)
    if (b.threads[first + l].state != ThreadState::exited) m |= 1u << l;
  return m;
}

unsigned activemask(int line, int call) {
  if (tl_slot == nullptr) return 1u;
  // Where the call comes from: the return addresses of the calls that led here. Lanes at one line that came by
  // different calls (the two sides of `c ? __activemask() : __activemask()`, a helper called from both sides of a
  // branch) are not together; lanes that came by the same calls are.
  void* frames[12];
  const int n = backtrace(frames, 12);
  std::uint64_t path = (1469598103934665603ull ^ static_cast<std::uint64_t>(call)) * 1099511628211ull;  // FNV-1a
  for (int k = 1; k < n; ++k) path = (path ^ reinterpret_cast<std::uintptr_t>(frames[k])) * 1099511628211ull;
  return static_cast<unsigned>(warp_exchange(WarpOp::activemask, 0, path, 0, 32, line, "__activemask()"));
}

bool warp_ordered(const BlockRun& b, unsigned earlier, std::uint32_t earlier_wsync, unsigned later,
                  std::uint32_t later_wsync, std::uint32_t later_full) {
  const unsigned warp = later >> 5;
  if ((earlier >> 5) != warp) return false;
  if (earlier_wsync < later_full) return true;
  // The lanes ordered after `earlier`'s access so far: a rendezvous that names one of them orders all it names.
  std::uint32_t reach = 1u << (earlier & 31);
  const std::vector<std::uint32_t>& masks = b.warp_masks[warp];
  for (std::uint32_t k = earlier_wsync; k < later_wsync && k < masks.size(); ++k) {
    if ((masks[k] & reach) != 0) reach |= masks[k];
    if ((reach >> (later & 31)) & 1u) return true;
  }
  return false;
}

}  // namespace course_cpu::detail
