// CPU backend of the course: running a grid.
//
// Blocks are spread over worker OS threads (worker_pool.h) with a fixed
// assignment (block b runs on worker b % W, in increasing order), so a run's
// results and diagnostics do not depend on timing. Inside a block each CUDA
// thread is a Boost.Context fiber; the worker resumes every runnable fiber in
// thread-id order until it blocks (at a __syncthreads(), a warp operation, a
// wait for a cuda::barrier's phase or its end), completes the phase its last
// arrival made due, runs again the threads that a completed phase made
// runnable, then lets block_sync.cpp complete the warp
// rendezvous and release the barrier. Barrier divergence is reported, and the
// block's fibers are unwound instead of hanging.
#include "scheduler.h"

#include "check_messages.h"
#include "worker_pool.h"

#include <algorithm>
#include <exception>
#include <functional>
#include <mutex>

// The CUDA built-in variables (declared in course_cpu/launch.h).
constinit thread_local uint3 threadIdx{0, 0, 0};
constinit thread_local uint3 blockIdx{0, 0, 0};
constinit thread_local dim3 blockDim{1, 1, 1};
constinit thread_local dim3 gridDim{1, 1, 1};

namespace course_cpu::detail {

namespace ctx = boost::context;

constinit thread_local unsigned char* tl_dynamic_shared = nullptr;
constinit thread_local Worker* tl_worker = nullptr;
constinit thread_local ThreadSlot* tl_slot = nullptr;
const LaunchSite* volatile g_running_site = nullptr;

std::string block_text(const Worker& w) { return format_index(w.block.idx, w.grid_dim); }

void fail_block(Worker& w, const char* category, int line, std::string message) {
  w.launch_failure = true;
  w.block.aborted = true;
  w.sink.add(category, w.block.site->file, line, "", w.block.linear, 0, [&] { return std::move(message); });
}

void stop_block_here(Worker& w, ThreadSlot& t) {
  w.block.aborted = true;
  for (;;) t.sink = std::move(t.sink).resume();  // never resumed: the scheduler unwinds this fiber
}

namespace {

void resume(Worker& w, ThreadSlot& s) {
  threadIdx = s.idx;
  tl_slot = &s;
  if (w.hot != nullptr) {
    w.hot->me = s.linear;
    w.hot->my_wsync = w.block.warp_sync[s.linear >> 5];
    w.hot->my_full = w.block.warp_full[s.linear >> 5];
    w.hot->stack_top = s.stack_top;
  }
  check::tl_hot = w.hot;
  s.fiber = std::move(s.fiber).resume();
  check::tl_hot = nullptr;
  tl_slot = nullptr;
}

void run_block(Worker& w, std::uint64_t linear, KernelThunk thunk, const void* closure) {
  BlockRun& b = w.block;
  const dim3 g = w.grid_dim, bd = w.block_dim;
  b.linear = linear;
  ++b.serial;
  b.idx = uint3{static_cast<unsigned>(linear % g.x), static_cast<unsigned>((linear / g.x) % g.y),
                static_cast<unsigned>(linear / (std::uint64_t{g.x} * g.y))};
  b.aborted = false;
  b.barrier_releases.clear();
  b.barriers.clear();
  b.phases_due = false;
  std::fill(b.warp_sync.begin(), b.warp_sync.end(), 0u);
  std::fill(b.warp_full.begin(), b.warp_full.end(), 0u);
  for (auto& m : b.warp_masks) m.clear();
  blockIdx = b.idx;
  if (w.checked) check_begin_block(w);

  for (unsigned t = 0; t < b.nthreads; ++t) {
    ThreadSlot& s = b.threads[t];
    s.state = ThreadState::runnable;
    s.linear = t;
    s.idx = uint3{t % bd.x, (t / bd.x) % bd.y, t / (bd.x * bd.y)};
    s.reduce = BlockReduce::none;
    s.predicate = 0;
    s.copies.clear();
    s.groups = 0;
    s.barrier = nullptr;
    s.stack_top = 0;  // set by the fiber when it starts (its stack comes from the pool)
    ThreadSlot* slot = &s;
    s.fiber = ctx::fiber(
        std::allocator_arg, PooledStack{&w.stacks}, [slot, &w, thunk, closure](ctx::fiber&& sink) -> ctx::fiber {
          slot->sink = std::move(sink);
          const char top = 0;
          slot->stack_top = reinterpret_cast<std::uintptr_t>(&top) + 64;  // and what the compiler puts above `top`
          if (w.hot != nullptr) w.hot->stack_top = slot->stack_top;
          try {
            thunk(closure);
          } catch (const ctx::detail::forced_unwind&) {
            throw;  // the block is being aborted: let Boost unwind us
          } catch (const std::exception& e) {
            fail_block(w, "kernel-exception", w.block.site->line,
                       kernel_exception_text(w.block.site->kernel, e.what(), block_text(w)));
          } catch (...) {
            fail_block(w, "kernel-exception", w.block.site->line,
                       kernel_exception_text(w.block.site->kernel, nullptr, block_text(w)));
          }
          if (!slot->copies.empty() && !w.block.aborted) finish_async_copies(w, *slot);
          slot->state = ThreadState::exited;
          return std::move(slot->sink);
        });
  }

  for (;;) {
    for (ThreadSlot& s : b.threads) {
      if (s.state == ThreadState::runnable) resume(w, s);
      if (b.aborted) break;
      if (b.phases_due) complete_due_phases(w);
    }
    if (b.aborted) break;
    bool all_exited = true, any_warp = false, any_runnable = false;
    for (const ThreadSlot& s : b.threads) {
      all_exited &= s.state == ThreadState::exited;
      any_warp |= s.state == ThreadState::at_warp;
      any_runnable |= s.state == ThreadState::runnable;  // a cuda::barrier phase completed after its turn
    }
    if (any_runnable) continue;
    if (all_exited) break;
    if (any_warp) {
      if (resolve_warps(w)) continue;
      if (b.aborted) break;  // resolve_warps reported the divergence
    }
    if (!release_barrier(w)) break;
  }
  // Unwinds suspended fibers (their destructors throw forced_unwind inside them).
  for (ThreadSlot& s : b.threads) {
    s.fiber = ctx::fiber();
    s.sink = ctx::fiber();
    if (!s.copies.empty()) settle_async_copies(w, s, !b.aborted);
  }
  if (w.checked) check_end_epoch(w);
}

std::mutex g_launch_mutex;

}  // namespace

// ---- the launch ----------------------------------------------------------------------
void run_grid(const LaunchSite& site, dim3 grid, dim3 block, std::size_t shmem, bool checked, KernelThunk thunk,
              const void* closure) {
  if (checked) mark_check_mode_active();
  if (tl_slot != nullptr) {
    publish_single("invalid-launch", site.file, site.line, device_launch_text(site.kernel));
    set_last_error(cudaErrorNotSupported);
    return;
  }
  cudaError_t code = cudaSuccess;
  const std::string why = validation_error(grid, block, shmem, dynamic_shared_limit(site.kernel_address), &code);
  if (code != cudaSuccess) {
    set_last_error(code);
    publish_single("invalid-launch", site.file, site.line, invalid_launch_text(site.kernel, why, code));
    return;
  }

  std::lock_guard launch_lock(g_launch_mutex);
  install_fault_handler();
  const DeviceAccessWindow device_memory;  // kernels use device memory
  WorkerPool& workers = worker_pool();
  const std::uint64_t total_blocks = 1ull * grid.x * grid.y * grid.z;
  const unsigned nthreads = block.x * block.y * block.z;
  const int nworkers = worker_count();
  g_running_site = &site;
  if (checked) check_global_begin_launch(total_blocks);

  const std::function<void(Worker&)> job = [&](Worker& w) {
    w.sink.clear();
    w.checked = checked;
    w.illegal_address = w.misaligned_address = w.launch_failure = w.assert_failed = false;
    w.grid_dim = grid;
    w.block_dim = block;
    gridDim = grid;
    blockDim = block;
    if (w.arena_capacity < shmem || !w.arena) {
      w.arena_capacity = std::max<std::size_t>(shmem, 1024);
      w.arena.reset(new unsigned char[w.arena_capacity]);  // 16-byte aligned
    }
    w.arena_bytes = shmem;
    tl_dynamic_shared = w.arena.get();
    BlockRun& b = w.block;
    b.site = &site;
    b.nthreads = nthreads;
    b.threads.resize(nthreads);
    b.warp_sync.assign((nthreads + 31) / 32, 0u);
    b.warp_full.assign((nthreads + 31) / 32, 0u);
    b.warp_masks.resize((nthreads + 31) / 32);
    w.hot = nullptr;
    if (checked) check_begin_launch(w);
    for (std::uint64_t blk = static_cast<std::uint64_t>(w.id); blk < total_blocks;
         blk += static_cast<std::uint64_t>(nworkers))
      run_block(w, blk, thunk, closure);
    tl_dynamic_shared = nullptr;
  };
  workers.run(job);
  g_running_site = nullptr;

  const std::vector<Worker*> all = workers.workers();
  std::vector<const DiagnosticSink*> sinks;
  bool illegal = false, misaligned = false, failure = false, assertion = false;
  for (Worker* w : all) {
    sinks.push_back(&w->sink);
    illegal |= w->illegal_address;
    misaligned |= w->misaligned_address;
    failure |= w->launch_failure;
    assertion |= w->assert_failed;
  }
  if (checked) check_end_launch(all);
  publish_diagnostics(sinks);
  if (illegal)
    set_kernel_error(cudaErrorIllegalAddress);
  else if (misaligned)
    set_kernel_error(cudaErrorMisalignedAddress);
  else if (assertion)
    set_kernel_error(cudaErrorAssert);
  else if (failure)
    set_kernel_error(cudaErrorLaunchFailure);
}

}  // namespace course_cpu::detail
