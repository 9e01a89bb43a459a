// CPU backend of the course: cuda::barrier (<cuda/barrier>), for a barrier that every thread of the block arrives at.
//
// Its wait is a __syncthreads() (block_sync.cpp) at the wait's line, after the copies the thread started with the
// barrier are performed (async_copy.cpp). A barrier that init() did not set up in the running block is barrier
// divergence; one set up for a number of threads other than the block's, or arrive(n) with n other than 1, stops the
// block with the finding `unsupported` (the grader's runtime gap: grader/course_grader/diagnostics.py, runtime_gap).
// A block pipeline's stage is such a barrier (<cuda/pipeline>); pipeline_stuck reports a thread that would wait for
// ever on a GPU.
#include "check_messages.h"
#include "scheduler.h"

#include <cuda/barrier>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>

namespace course_cpu::detail {
namespace {

[[noreturn]] void stop_at_barrier(Worker& w, ThreadSlot& t, const char* category, const char* file, unsigned line,
                                  std::string message) {
  w.launch_failure = true;
  w.block.aborted = true;
  w.sink.add(category, file, static_cast<int>(line), "", w.block.linear, t.linear, [&] { return std::move(message); });
  for (;;) t.sink = std::move(t.sink).resume();  // never resumed: the scheduler unwinds this fiber
}

}  // namespace

std::uint64_t barrier_block() {
  Worker* w = tl_worker;
  return w != nullptr && tl_slot != nullptr ? w->block.serial : 0;
}

void barrier_arrive(const void* barrier, std::ptrdiff_t expected, std::uint64_t block, std::ptrdiff_t update,
                    const char* file, unsigned line, const char* what) {
  Worker* w = tl_worker;
  ThreadSlot* t = tl_slot;
  if (w == nullptr || t == nullptr) return;  // host code
  const Who who{*w, *t};
  if (block != w->block.serial)
    stop_at_barrier(*w, *t, "barrier-divergence", file, line,
                    barrier_not_initialized_text(who, what, static_cast<int>(line)));
  if (update != 1 || expected != static_cast<std::ptrdiff_t>(w->block.nthreads))
    stop_at_barrier(*w, *t, "unsupported", file, line,
                    barrier_unsupported_text(who, what, static_cast<int>(line), expected, update));
}

void barrier_wait(const void* barrier, unsigned line) {
  Worker* w = tl_worker;
  ThreadSlot* t = tl_slot;
  if (w != nullptr && t != nullptr) arrival_copies(*w, *t, barrier);
  syncthreads(static_cast<int>(line));
}

void pipeline_stuck(bool consumer, const char* file, unsigned line) {
  Worker* w = tl_worker;
  ThreadSlot* t = tl_slot;
  if (w == nullptr || t == nullptr) std::abort();  // a block pipeline exists only in a kernel
  stop_at_barrier(*w, *t, "barrier-divergence", file, line,
                  pipeline_stuck_text(Who{*w, *t}, consumer, static_cast<int>(line)));
}

}  // namespace course_cpu::detail
