// CPU backend of the course: cuda::barrier (<cuda/barrier>) and the stages of a block's cuda::pipeline.
//
// A barrier counts arrivals per phase, as libcu++'s does: init(&bar, count) sets up a barrier of the running block
// for `count` arrivals per phase; arrive(n) counts n of them and returns the phase it arrived at (its token); the
// arrival that completes the phase performs the copies started with the barrier by the threads that have arrived
// (async_copy.cpp), starts the next phase, makes runnable every thread that waits for the completed phase and, in
// check mode, ends the barrier interval (check_end_epoch), so that what every thread did before its arrival is
// ordered before what every waiting thread does after its wait. wait(token) returns at once if that phase has
// completed, and otherwise leaves the thread waiting (ThreadState::at_phase) until it does. So threads may wait at
// different lines, arrive without waiting (producers and consumers), and a barrier may count any number of the
// block's threads (one per warp, say).
//
// Ending the interval at a phase orders the accesses of threads that arrived but did not wait, too, so a race between
// such a thread's accesses after its arrival and accesses before the phase's completion is not reported; and bank
// conflicts are counted per interval, so the requests of a warp whose lanes a phase completion splits are counted in
// two parts. When no thread can run and some wait for a phase, the phase can never complete (a GPU hangs): reported
// as barrier divergence. Arriving at a barrier that init() did not set up in this block, or more times than its
// phase still expects, is barrier divergence too; in check mode, arriving after another thread's init() with no
// __syncthreads() in between is a race; a block pipeline whose group is not the whole block stops with the
// finding `unsupported` (the grader's runtime gap: grader/course_grader/diagnostics.py, runtime_gap), since its
// producer_acquire() is a __syncthreads().
#include "check_messages.h"
#include "scheduler.h"

#include <cuda/barrier>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

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

// The phase of `s` completes: its copies land, its waiters may go on, and (check mode) the barrier interval ends.
void complete_phase(Worker& w, BarrierState& s) {
  ++s.phase;
  s.pending = s.expected;
  phase_copies(w, s.key);
  for (ThreadSlot& t : w.block.threads)
    if (t.state == ThreadState::at_phase && t.barrier == s.key && t.barrier_phase < s.phase)
      t.state = ThreadState::runnable;
  if (w.checked) check_end_epoch(w);
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
  *s = BarrierState{barrier, expected, expected, 0, "cuda::barrier"};
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
                    barrier_not_initialized_text(who, what, static_cast<int>(line)));
  const bool pipeline = what != std::string_view("cuda::barrier");
  if (pipeline && expected != static_cast<std::ptrdiff_t>(b.nthreads))
    stop_at_barrier(*w, *t, "unsupported", file, line,
                    pipeline_unsupported_text(who, static_cast<int>(line), expected));
  BarrierState* s = find_barrier(b, barrier);
  if (s == nullptr) {  // a pipeline's stage: set up by make_pipeline()
    s = &b.barriers.emplace_back();
    *s = BarrierState{barrier, expected, expected, 0, what};
  }
  // Check mode: another thread's init() with no barrier in between (a warp rendezvous of all lanes orders its own
  // warp) may come after this arrival on a GPU.
  if (w->hot != nullptr && s->init_line != 0 && s->init_epoch == w->hot->epoch && s->init_thread != t->linear &&
      !((s->init_thread >> 5) == (t->linear >> 5) && s->init_wsync < w->hot->my_full))
    w->sink.add("race", file, static_cast<int>(line), "", b.linear, t->linear,
                [&] { return barrier_init_race_text(who, static_cast<int>(line), s->init_thread, s->init_line); });
  if (update < 1 || update > s->pending)
    stop_at_barrier(*w, *t, "barrier-divergence", file, line,
                    barrier_overarrival_text(who, what, static_cast<int>(line), update, s->pending, s->expected));
  arrive_copies(*t, barrier);
  const std::uint64_t phase = s->phase;
  s->pending -= update;
  if (s->pending == 0) complete_phase(*w, *s);
  return phase;
}

void barrier_wait(const void* barrier, std::uint64_t phase, unsigned line) {
  Worker* w = tl_worker;
  ThreadSlot* t = tl_slot;
  if (w == nullptr || t == nullptr) return;  // host code
  const BarrierState* s = find_barrier(w->block, barrier);
  if (s == nullptr || s->phase > phase) return;
  t->state = ThreadState::at_phase;
  t->barrier = barrier;
  t->barrier_phase = phase;
  t->line = static_cast<int>(line);
  t->sink = std::move(t->sink).resume();  // the scheduler resumes it once the phase has completed
}

bool report_stuck_phases(Worker& w) {
  BlockRun& b = w.block;
  const auto first = std::find_if(b.threads.begin(), b.threads.end(),
                                  [](const ThreadSlot& t) { return t.state == ThreadState::at_phase; });
  if (first == b.threads.end()) return false;
  const BarrierState* s = find_barrier(b, first->barrier);
  fail_block(w, "barrier-divergence", first->line,
             stuck_phase_text(w, *first, s != nullptr ? s->what : "cuda::barrier", s != nullptr ? s->pending : 0,
                              s != nullptr ? s->expected : 0));
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
