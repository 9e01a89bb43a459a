// CPU backend of the course: the block scheduler's data structures, shared by
// scheduler.cpp (running blocks as fibers), block_sync.cpp (barriers, warp
// rendezvous), the check_*.cpp files (check mode) and fault_handler.cpp
// (naming the faulting CUDA thread).
#pragma once

#include "internal.h"
#include "stack_pool.h"

#include <course_cpu/check.h>
#include <course_cpu/device_functions.h>

#include <boost/context/fiber.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace course_cpu::detail {

// at_phase: waiting for a phase of a cuda::barrier (or a block pipeline's stage) to complete (cuda_barrier.cpp).
enum class ThreadState : std::uint8_t { runnable, at_barrier, at_warp, at_phase, exited };

// An asynchronous copy a CUDA thread started and no wait has covered yet (async_copy.cpp).
struct PendingCopy {
  static constexpr std::uint32_t kUncommitted = ~0u;
  static constexpr std::uint32_t kWithBarrier = ~0u - 1;  // cuda::memcpy_async(..., bar): done with a phase of bar
  unsigned char* dst;
  const unsigned char* src;
  std::uint32_t bytes;  // copied from src; the rest of `size` is zero-filled
  std::uint32_t size;
  std::uint32_t group;  // the thread's commit count when it was committed, or kUncommitted, or kWithBarrier
  const check::Site* site;
  // kWithBarrier: the cuda::barrier (or block pipeline stage) and its phase when the copy started; the copy completes
  // with that phase, as libcu++'s does (the starting thread need not arrive).
  const void* barrier = nullptr;
  std::uint64_t phase = 0;
  // Check mode: the barrier interval and the warp rendezvous count of its thread when the copy started, and whether
  // its own thread has arrived in its phase since (the copy is then ordered before an arrival of its phase).
  std::uint32_t epoch = 0, wsync = 0;
  bool ordered = false;
};

// One CUDA thread of the running block.
struct ThreadSlot {
  boost::context::fiber fiber;  // the CUDA thread (held by the scheduler)
  boost::context::fiber sink;   // the scheduler (held by the thread while it runs)
  ThreadState state = ThreadState::runnable;
  unsigned linear = 0;  // x + y*Dx + z*Dx*Dy
  uint3 idx{};
  int line = 0;  // of the barrier / warp operation it waits at
  // at_phase: the cuda::barrier (a block pipeline's stage key) and the phase it waits to complete
  const void* barrier = nullptr;
  std::uint64_t barrier_phase = 0;
  std::int64_t stale_token = -1;  // a token two or more phases old it waits with (a GPU compares only the parity)
  // __syncthreads_count/and/or
  BlockReduce reduce = BlockReduce::none;
  int predicate = 0;
  int reduce_result = 0;
  // warp rendezvous
  WarpOp op = WarpOp::sync;
  unsigned mask = 0;
  std::uint64_t bits = 0, result = 0;
  int arg = 0, width = 32;
  const char* what = nullptr;  // the operation's name in messages, if not op's intrinsic
  // asynchronous copies into shared memory (async_copy.cpp)
  std::vector<PendingCopy> copies;
  std::uint32_t groups = 0;  // groups committed
  // The top of the thread's fiber stack as its body starts: its local variables lie below, within the worker's
  // stack size (check mode: a pointer there is the thread's own local memory).
  std::uintptr_t stack_top = 0;
};

struct CheckState;  // check_state.h

// A cuda::barrier (or a block pipeline's stage) of the running block: init()'s count, the arrivals its current phase
// still expects, and the phases completed (cuda_barrier.cpp).
struct BarrierState {
  const void* key = nullptr;
  std::ptrdiff_t expected = 0, pending = 0;
  std::uint64_t phase = 0;
  const char* what = "cuda::barrier";  // as messages name it
  std::uint64_t observed = 0;          // phases that some thread's wait has seen complete (their copies are done)
  // Check mode: the barrier interval init() ran in, its thread, line and the warp rendezvous its warp had completed.
  std::uint32_t init_epoch = 0, init_wsync = 0;
  unsigned init_thread = 0;
  int init_line = 0;
  // The threads that wait for the current phase, and those with copies started with the barrier that no wait has
  // observed yet (in the order of their first copy).
  std::vector<unsigned> waiters, copiers;
  // The last arrival of the current phase has been counted: the phase completes when the arriving thread waits, blocks
  // or exits (settle, complete_due_phases), so that what it does between arrive() and wait() is checked as unordered.
  bool due = false;
  // Check mode, the current phase's arrivals (a copy must be ordered before one): each arriving thread with its barrier
  // interval and the warp rendezvous its warp had completed (all, and of all lanes).
  struct Arrival {
    unsigned thread;
    std::uint32_t epoch, wsync, full;
  };
  std::vector<Arrival> arrivals;
};

// The block a worker is running, reused from block to block.
struct BlockRun {
  const LaunchSite* site = nullptr;
  std::uint64_t linear = 0;  // block linear id: x + y*Gx + z*Gx*Gy
  std::uint64_t serial = 0;  // blocks this worker has run, this one included (a cuda::barrier's init belongs to one)
  uint3 idx{};
  unsigned nthreads = 0;
  std::vector<ThreadSlot> threads;
  std::vector<std::uint32_t> warp_sync;  // completed warp rendezvous, per warp
  // Per warp: warp_sync right after its last rendezvous of all the warp's
  // lanes, and the lanes of each rendezvous (warp_masks[w][s]: the s-th).
  std::vector<std::uint32_t> warp_full;
  std::vector<std::vector<std::uint32_t>> warp_masks;
  std::map<int, int> barrier_releases;  // __syncthreads() line -> times released
  std::vector<BarrierState> barriers;   // cuda::barrier and block pipeline stages, in order of first use
  bool phases_due = false;              // some barrier's phase is due (BarrierState::due)
  bool aborted = false;
};

struct Worker {
  explicit Worker(int worker_id);
  ~Worker();
  int id;
  StackPool stacks;
  BlockRun block;
  DiagnosticSink sink;
  std::unique_ptr<CheckState> check;  // check-mode launches only
  check::Hot* hot = nullptr;          // check-mode launch running: its fast-path state
  bool checked = false;
  bool illegal_address = false;            // this launch: an out-of-bounds access was stopped
  bool misaligned_address = false;         // this launch: a misaligned access stopped a block (check_alignment.cpp)
  bool launch_failure = false;             // this launch: a block was aborted
  bool assert_failed = false;              // this launch: a device-side assert failed (runtime_extras.cpp)
  std::unique_ptr<unsigned char[]> arena;  // extern __shared__ memory
  std::size_t arena_capacity = 0;
  std::size_t arena_bytes = 0;  // this launch's dynamic shared memory size
  dim3 grid_dim, block_dim;
};

extern constinit thread_local Worker* tl_worker;
extern constinit thread_local ThreadSlot* tl_slot;

// Which kernel is running (for the fault handler); null between launches.
extern const LaunchSite* volatile g_running_site;

// block_sync.cpp, check mode: whether what lane `earlier` did when its warp had completed `earlier_wsync` rendezvous
// is ordered before what lane `later` does now (its warp at `later_wsync` rendezvous, `later_full` after its last
// rendezvous of all lanes): both lanes of one warp, linked by the rendezvous in between, each of which orders the lanes
// its mask names (transitively: a __syncwarp of lanes 0..15 and then one of lanes 15 and 31 order lane 3 before 31).
bool warp_ordered(const BlockRun& b, unsigned earlier, std::uint32_t earlier_wsync, unsigned later,
                  std::uint32_t later_wsync, std::uint32_t later_full);

// diagnostics.cpp: the site of a runtime call at file:line that messages name `what` + `suffix` (an asynchronous copy's
// destination, "atomicAdd" + "()'s word"), one per call site and name, kept for the process. `what` and `file` are
// string literals (their address is the key of a small per-worker cache); `atomic` marks an atomic's site.
const check::Site* call_site(const char* what, const char* suffix, const char* file, unsigned line,
                             bool atomic = false);

// scheduler.cpp
std::string block_text(const Worker& w);  // the running block's index, "(3,0)"
// Reports a finding that stops the running block (its fibers are unwound).
void fail_block(Worker& w, const char* category, int line, std::string message);
// Called by the running CUDA thread t, after its finding: stops the block and never returns (the scheduler unwinds
// the thread's fiber).
[[noreturn]] void stop_block_here(Worker& w, ThreadSlot& t);

// block_sync.cpp: completes the warp rendezvous whose lanes are all present /
// releases the block barrier. False: nothing can run any more (divergence).
bool resolve_warps(Worker& w);
bool release_barrier(Worker& w);

// launch_config.cpp: why a launch configuration is invalid ("" and
// cudaSuccess in *code if it is valid).
std::string validation_error(dim3 grid, dim3 block, std::size_t shmem, std::size_t shmem_limit, cudaError_t* code);

// check_state.cpp, check_banks.cpp: hooks the scheduler calls for check-mode launches.
void check_begin_launch(Worker& w);
void check_begin_block(Worker& w);
void check_end_epoch(Worker& w);  // a __syncthreads() released, or the block ended
void check_end_launch(const std::vector<Worker*>& workers);

// async_copy.cpp: performs (and, in check mode, records) the copies of t that are still pending at its exit, but
// those started with a cuda::barrier, which complete with their phase.
void finish_async_copies(Worker& w, ThreadSlot& t);
// async_copy.cpp: performs the copies started with barrier s in phases that have completed, each as its thread's
// write (s.copiers keeps the threads with later copies).
void phase_copies(Worker& w, BarrierState& s);
// async_copy.cpp, as the block ends: performs (`perform`) or drops (the block was stopped) the copies t still has
// pending, whose phase never completed, and in check mode clears their marks (so no later block sees them pending).
void settle_async_copies(Worker& w, ThreadSlot& t, bool perform);
// cuda_barrier.cpp: the phase of `barrier` (set up by block `block`, or kAnyBlock) that a copy t starts at file:line
// joins (t becomes one of its copiers). Stops the block if init() did not set the barrier up in this block.
std::uint64_t barrier_copy_phase(Worker& w, ThreadSlot& t, const void* barrier, std::uint64_t block, const char* file,
                                 unsigned line);
// cuda_barrier.cpp: completes the phases whose last arrival was counted (the scheduler calls it once the arriving
// thread has blocked or exited).
void complete_due_phases(Worker& w);
// cuda_barrier.cpp: reports threads that wait for a cuda::barrier phase no thread can complete any more (on a GPU the
// block hangs); false if no thread waits for one.
bool report_stuck_phases(Worker& w);

// fault_handler.cpp
void install_fault_stack_for_thread();  // once per worker thread

}  // namespace course_cpu::detail
