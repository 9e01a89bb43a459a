// CPU backend of the course: cuda::barrier (<cuda/barrier>) and the stages of a block's cuda::pipeline.
//
// A barrier counts arrivals per phase, as libcu++'s does: init(&bar, count) sets up a barrier of the running block
// for `count` arrivals per phase; arrive(n) counts n of them and returns the phase it arrived at (its token). A copy
// started with cuda::memcpy_async(..., bar) joins the phase current when it starts (libcu++'s cp.async.mbarrier.arrive
// without .noinc), whichever thread starts it and whether or not that thread arrives (BarrierState::copiers).
//
// The arrival that counts a phase's last expected arrival makes the phase due; it completes when that thread waits
// for it, blocks elsewhere or exits (complete_due_phases, called by the scheduler), so that what the thread does
// between arrive() and wait() happens before the phase completes, as it may on a GPU. Completing a phase starts the
// next one and makes runnable every thread that waits for it (BarrierState::waiters). Only a wait tells that a
// phase's copies have landed, so the first wait that sees the phase complete observes it (observe(), in that thread):
// it performs the phase's copies (async_copy.cpp), each recorded as a write by the thread that started it, and, in
// check mode, ends the barrier interval (check_end_epoch), so that what every thread did before its arrival is
// ordered before what every waiting thread does after its wait. Until then the copies stay pending: a read of them is
// `async-copy`, in the arriving thread before its wait, or anywhere after a phase that no thread waited for.
// wait(token) returns at once if that phase has completed, and otherwise leaves the thread waiting
// (ThreadState::at_phase) until it does; wait_parity(p) waits for the current phase if its parity is p. So threads
// may wait at different lines, arrive without waiting (producers and consumers), and a barrier may count any number
// of the block's threads (one per warp, say).
//
// Ending the interval at a phase is block-wide, as a __syncthreads() is: races between accesses that only the phase
// seems to order (of threads the barrier does not count, or of a thread after its arrival) are not reported; and bank
// conflicts are counted per interval, so the requests of a warp whose lanes a phase completion splits are counted in
// two parts. When no thread can run and some wait for a phase, the phase can never complete (a GPU hangs): reported
// as barrier divergence. Arriving at (or copying with) a barrier that init() did not set up in this block, with
// arrive(0), or more times than its phase still expects, is barrier divergence too; in check mode, arriving or copying
// after another thread's init() with no __syncthreads() in between is a race, and so is a copy that nothing orders
// before any arrival of its phase (check_copies_ordered: on a GPU the phase may complete before the copy starts, which
// then joins the next phase). A token two or more phases old waits by its parity, as on a GPU. A block pipeline whose
// group is not the whole block stops with the finding `unsupported` (the grader's runtime gap:
// grader/course_grader/diagnostics.py, runtime_gap), since its producer_acquire() is a __syncthreads().
#include "check_messages.h"
#include "scheduler.h"

#include <cuda/barrier>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace course_cpu::detail {
namespace {

[[noreturn]] void stop_at_barrier(Worker& w, ThreadSlot& t, const char* category, const char* file, unsigned line,
                                  std::string message) {
  w.launch_failure = true;
  w.sink.add(category, file, static_cast<int>(line), "", w.block.linear, t.linear, [&] { return std::move(message); });
  stop_block_here(w, t);
}

BarrierState* find_barrier(BlockRun& b, const void* key) {
  const auto it =
      std::find_if(b.barriers.begin(), b.barriers.end(), [&](const BarrierState& s) { return s.key == key; });
  return it == b.barriers.end() ? nullptr : &*it;
}

// A thread observes the phases of `s` completed so far (its wait for one returns): their copies land, each a write
// of the thread that started it, and (check mode) the barrier interval ends. Until then a completed phase orders
// nothing, and its copies stay pending: on a GPU only a wait tells that they have landed.
void observe(Worker& w, BarrierState& s) {
  if (s.observed == s.phase) return;
  s.observed = s.phase;
  phase_copies(w, s);
  if (w.checked) check_end_epoch(w);
}

// The phase of `s` completes: its waiters may go on (the first to run observes it: barrier_wait).
void complete_phase(Worker& w, BarrierState& s) {
  ++s.phase;
  s.pending = s.expected;
  s.due = false;
  s.arrivals.clear();
  for (const unsigned linear : s.waiters) {
    ThreadSlot& t = w.block.threads[linear];
    if (t.state == ThreadState::at_phase && t.barrier == s.key && t.barrier_phase < s.phase)
      t.state = ThreadState::runnable;
  }
  s.waiters.clear();
}

// A phase that is due completes before anything else happens to its barrier (another arrival, a copy, a wait of the
// thread that made it due, another init()).
void settle(Worker& w, BarrierState& s) {
  if (s.due) complete_phase(w, s);
}

// Check mode: another thread's init() with no barrier in between (or a warp rendezvous that named both lanes) may
// come after this use of the barrier on a GPU (`does`: kArrivesAt, kCopiesWith).
void check_init_race(Worker& w, ThreadSlot& t, const BarrierState& s, const char* file, unsigned line,
                     const char* does) {
  if (w.hot == nullptr || s.init_line == 0 || s.init_epoch != w.hot->epoch || s.init_thread == t.linear) return;
  if (warp_ordered(w.block, s.init_thread, s.init_wsync, t.linear, w.hot->my_wsync, w.hot->my_full)) return;
  const Who who{w, t};
  w.sink.add("race", file, static_cast<int>(line), "", w.block.linear, t.linear,
             [&] { return barrier_init_race_text(who, static_cast<int>(line), s.init_thread, s.init_line, does); });
}

// Check mode, at an arrival of t in the current phase of s: t's own copies of that phase are ordered before it, and
// the phase keeps its arrivals (copy_ordered).
void note_arrival(Worker& w, ThreadSlot& t, BarrierState& s) {
  for (PendingCopy& c : t.copies)
    if (c.group == PendingCopy::kWithBarrier && c.barrier == s.key && c.phase == s.phase) c.ordered = true;
  s.arrivals.push_back({t.linear, w.hot->epoch, w.hot->my_wsync, w.hot->my_full});
}

// Whether copy c of thread `copier` is ordered before an arrival of the current phase of s: its own thread's, one in a
// later barrier interval, or one of a lane of its warp after a warp rendezvous that named both lanes.
bool copy_ordered(const BlockRun& b, const BarrierState& s, unsigned copier, const PendingCopy& c) {
  return c.ordered || std::any_of(s.arrivals.begin(), s.arrivals.end(), [&](const BarrierState::Arrival& a) {
           return c.epoch < a.epoch || warp_ordered(b, copier, c.wsync, a.thread, a.wsync, a.full);
         });
}

// Check mode, as the last arrival of the current phase of s is counted: each copy of the phase must be ordered before
// one of its arrivals; else on a GPU the phase may complete before the copy starts, and the copy joins the next phase.
void check_copies_ordered(Worker& w, ThreadSlot& t, const BarrierState& s, const char* file, unsigned line) {
  for (const unsigned linear : s.copiers) {
    for (const PendingCopy& c : w.block.threads[linear].copies) {
      if (c.group != PendingCopy::kWithBarrier || c.barrier != s.key || c.phase != s.phase) continue;
      if (copy_ordered(w.block, s, linear, c)) continue;
      const Who who{w, t};
      const int copy_line = c.site != nullptr ? c.site->line : 0;
      w.sink.add("race", c.site != nullptr ? c.site->file : file, copy_line, "", w.block.linear, linear,
                 [&] { return copy_unordered_with_phase_text(who, static_cast<int>(line), linear, copy_line); });
      return;  // one finding per phase
    }
  }
}

}  // namespace

std::uint64_t barrier_block() {
  Worker* w = tl_worker;
  return w != nullptr && tl_slot != nullptr ? w->block.serial : 0;
}

std::uint64_t barrier_init(const void* barrier, std::ptrdiff_t expected, unsigned line) {
  Worker* w = tl_worker;
  ThreadSlot* t = tl_slot;
  if (w == nullptr || t == nullptr) return 0;  // host code
  BlockRun& b = w->block;
  BarrierState* s = find_barrier(b, barrier);
  if (s == nullptr) s = &b.barriers.emplace_back();
  settle(*w, *s);
  std::vector<unsigned> copiers = std::move(s->copiers);  // copies started before init(): its first phase's
  *s = BarrierState{barrier, expected, expected, 0, "cuda::barrier"};
  s->copiers = std::move(copiers);
  if (w->hot != nullptr) {
    s->init_epoch = w->hot->epoch;
    s->init_wsync = w->hot->my_wsync;
  }
  s->init_thread = t->linear;
  s->init_line = static_cast<int>(line);
  return b.serial;
}

std::uint64_t barrier_arrive(const void* barrier, std::ptrdiff_t expected, std::uint64_t block, std::ptrdiff_t update,
                             const char* file, unsigned line, const char* what) {
  Worker* w = tl_worker;
  ThreadSlot* t = tl_slot;
  if (w == nullptr || t == nullptr) return 0;  // host code
  const Who who{*w, *t};
  BlockRun& b = w->block;
  if (block != b.serial)
    stop_at_barrier(*w, *t, "barrier-divergence", file, line,
                    barrier_not_initialized_text(who, what, static_cast<int>(line), kArrivesAt));
  const bool pipeline = what != std::string_view("cuda::barrier");
  if (pipeline && expected != static_cast<std::ptrdiff_t>(b.nthreads))
    stop_at_barrier(*w, *t, "unsupported", file, line,
                    pipeline_unsupported_text(who, static_cast<int>(line), expected));
  BarrierState* s = find_barrier(b, barrier);
  if (s == nullptr) s = &b.barriers.emplace_back(BarrierState{barrier});
  if (s->expected == 0) {  // a pipeline's stage (set up by make_pipeline()) at its first arrival
    s->expected = s->pending = expected;
    s->what = what;
  }
  settle(*w, *s);
  check_init_race(*w, *t, *s, file, line, kArrivesAt);
  if (update < 1)
    stop_at_barrier(*w, *t, "barrier-divergence", file, line,
                    barrier_bad_update_text(who, what, static_cast<int>(line), update));
  if (update > s->pending)
    stop_at_barrier(*w, *t, "barrier-divergence", file, line,
                    barrier_overarrival_text(who, what, static_cast<int>(line), update, s->pending, s->expected));
  const std::uint64_t phase = s->phase;
  if (w->hot != nullptr) note_arrival(*w, *t, *s);
  s->pending -= update;
  if (s->pending == 0) {  // completes when this thread blocks or exits: complete_due_phases()
    if (w->hot != nullptr) check_copies_ordered(*w, *t, *s, file, line);
    s->due = true;
    b.phases_due = true;
  }
  return phase;
}

std::uint64_t barrier_copy_phase(Worker& w, ThreadSlot& t, const void* barrier, std::uint64_t block, const char* file,
                                 unsigned line) {
  if (block != kAnyBlock && block != w.block.serial)
    stop_at_barrier(w, t, "barrier-divergence", file, line,
                    barrier_not_initialized_text(Who{w, t}, "cuda::barrier", static_cast<int>(line), kCopiesWith));
  BarrierState* s = find_barrier(w.block, barrier);
  // A pipeline's stage before its first arrival.
  if (s == nullptr) s = &w.block.barriers.emplace_back(BarrierState{barrier});
  settle(w, *s);
  check_init_race(w, t, *s, file, line, kCopiesWith);
  if (s->copiers.empty() || s->copiers.back() != t.linear) s->copiers.push_back(t.linear);
  return s->phase;
}

void complete_due_phases(Worker& w) {
  w.block.phases_due = false;
  for (BarrierState& s : w.block.barriers) settle(w, s);
}

void barrier_wait(const void* barrier, std::uint64_t phase, unsigned line) {
  Worker* w = tl_worker;
  ThreadSlot* t = tl_slot;
  if (w == nullptr || t == nullptr) return;  // host code
  BarrierState* s = find_barrier(w->block, barrier);
  if (s == nullptr) return;
  settle(*w, *s);  // this thread's own last arrival: the phase completes here, and the thread goes on at once
  if (phase + 2 <= s->phase) {
    // A token two or more phases old: a GPU compares only its parity, so it waits for the current phase if that has
    // the token's parity, and else (the phase before has completed) returns at once.
    if ((phase & 1) != (s->phase & 1)) return observe(*w, *s);
    t->stale_token = static_cast<std::int64_t>(phase);
    phase = s->phase;
  }
  if (s->phase > phase) return observe(*w, *s);
  s->waiters.push_back(t->linear);
  t->state = ThreadState::at_phase;
  t->barrier = barrier;
  t->barrier_phase = phase;
  t->line = static_cast<int>(line);
  t->sink = std::move(t->sink).resume();  // the scheduler resumes it once the phase has completed
  t->stale_token = -1;
  if (BarrierState* done = find_barrier(w->block, barrier)) observe(*w, *done);  // (the vector may have grown)
}

void barrier_wait_parity(const void* barrier, bool parity, unsigned line) {
  Worker* w = tl_worker;
  if (w == nullptr || tl_slot == nullptr) return;  // host code
  BarrierState* s = find_barrier(w->block, barrier);
  if (s == nullptr) return;
  settle(*w, *s);
  if ((s->phase & 1) == static_cast<std::uint64_t>(parity))
    barrier_wait(barrier, s->phase, line);
  else
    observe(*w, *s);
}

bool report_stuck_phases(Worker& w) {
  BlockRun& b = w.block;
  const auto first = std::find_if(b.threads.begin(), b.threads.end(),
                                  [](const ThreadSlot& t) { return t.state == ThreadState::at_phase; });
  if (first == b.threads.end()) return false;
  const BarrierState* s = find_barrier(b, first->barrier);
  std::string text = stuck_phase_text(w, *first, s != nullptr ? s->what : "cuda::barrier",
                                      s != nullptr ? s->pending : 0, s != nullptr ? s->expected : 0);
  const auto stale = std::find_if(b.threads.begin(), b.threads.end(), [](const ThreadSlot& t) {
    return t.state == ThreadState::at_phase && t.stale_token >= 0;
  });
  if (stale != b.threads.end()) {
    const std::string note = stale_token_text(static_cast<unsigned long long>(stale->stale_token),
                                              static_cast<unsigned long long>(stale->barrier_phase));
    const std::size_t at = text.find(". On a GPU the block hangs.");
    text.insert(at == std::string::npos ? text.size() : at, note);
  }
  fail_block(w, "barrier-divergence", first->line, std::move(text));
  return true;
}

void pipeline_stuck(bool consumer, const char* file, unsigned line) {
  Worker* w = tl_worker;
  ThreadSlot* t = tl_slot;
  if (w == nullptr || t == nullptr) std::abort();  // a block pipeline exists only in a kernel
  stop_at_barrier(*w, *t, "barrier-divergence", file, line,
                  pipeline_stuck_text(Who{*w, *t}, consumer, static_cast<int>(line)));
}

}  // namespace course_cpu::detail
