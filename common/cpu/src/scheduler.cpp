// CPU backend of the course: running a grid.
//
// Blocks are spread over worker OS threads with a fixed assignment (block b
// runs on worker b % W, in increasing order), so a run's results and
// diagnostics do not depend on timing. Inside a block each CUDA thread is a
// Boost.Context fiber; the worker resumes every runnable fiber in thread-id
// order until it blocks (at a __syncthreads(), a warp operation or its end),
// then completes the warp rendezvous whose lanes are all present, and
// finally releases the block barrier once every thread waits at the same
// __syncthreads(). Anything else is barrier divergence: reported, and the
// block's fibers are unwound instead of hanging.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <sstream>
#include <thread>

#include "scheduler.h"

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

// ---- stacks -----------------------------------------------------------------
namespace {
std::size_t page_bytes() {
  static const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return page;
}
}  // namespace

StackPool::StackPool(std::size_t stack_bytes)
    : stack_bytes_((stack_bytes + page_bytes() - 1) / page_bytes() * page_bytes()) {}

StackPool::~StackPool() {
  for (void* m : maps_) munmap(m, stack_bytes_ + page_bytes());
}

ctx::stack_context StackPool::allocate() {
  if (free_.empty()) {
    void* m = mmap(nullptr, stack_bytes_ + page_bytes(), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) throw std::bad_alloc();
    mprotect(m, page_bytes(), PROT_NONE);  // stacks grow down: guard at the bottom
    maps_.push_back(m);
    free_.push_back(static_cast<char*>(m) + page_bytes() + stack_bytes_);
  }
  ctx::stack_context sctx;
  sctx.sp = free_.back();
  sctx.size = stack_bytes_;
  free_.pop_back();
  return sctx;
}

void StackPool::deallocate(ctx::stack_context& sctx) noexcept { free_.push_back(sctx.sp); }

bool StackPool::in_guard_page(const void* p) const {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  for (void* m : maps_) {
    const auto g = reinterpret_cast<std::uintptr_t>(m);
    if (a >= g && a < g + page_bytes()) return true;
  }
  return false;
}


// ---- worker pool ----------------------------------------------------------------
namespace {

// Worker 0 is the launching thread; workers 1..W-1 are long-lived threads, so
// static __shared__ arrays (thread_local) and fiber stacks are reused.
class WorkerPool {
 public:
  WorkerPool() {
    const int n = worker_count();
    for (int i = 0; i < n; ++i) workers_.push_back(std::make_unique<Worker>(i));
    for (int i = 1; i < n; ++i) {
      std::thread([this, i] { loop(*workers_[i]); }).detach();
    }
  }

  void run(const std::function<void(Worker&)>& job) {
    {
      std::lock_guard lock(mutex_);
      job_ = &job;
      pending_ = static_cast<int>(workers_.size()) - 1;
      ++generation_;
    }
    start_.notify_all();
    enter(*workers_[0], job);
    std::unique_lock lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    job_ = nullptr;
  }

  std::vector<Worker*> workers() const {
    std::vector<Worker*> out;
    for (auto& w : workers_) out.push_back(w.get());
    return out;
  }

 private:
  static void enter(Worker& w, const std::function<void(Worker&)>& job) {
    static thread_local bool stack_installed = false;
    if (!stack_installed) {
      install_fault_stack_for_thread();
      stack_installed = true;
    }
    tl_worker = &w;
    job(w);
    tl_worker = nullptr;
  }

  void loop(Worker& w) {
    std::uint64_t seen = 0;
    for (;;) {
      const std::function<void(Worker&)>* job;
      {
        std::unique_lock lock(mutex_);
        start_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        job = job_;
      }
      enter(w, *job);
      {
        std::lock_guard lock(mutex_);
        if (--pending_ == 0) done_.notify_one();
      }
    }
  }

  std::vector<std::unique_ptr<Worker>> workers_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  std::uint64_t generation_ = 0;
  int pending_ = 0;
  const std::function<void(Worker&)>* job_ = nullptr;
};

WorkerPool& pool() {
  static WorkerPool* p = new WorkerPool;  // never destroyed: its threads live until exit
  return *p;
}

// ---- messages --------------------------------------------------------------------
const char* op_name(WarpOp op) {
  switch (op) {
    case WarpOp::sync: return "__syncwarp()";
    case WarpOp::shfl_idx: return "__shfl_sync()";
    case WarpOp::shfl_up: return "__shfl_up_sync()";
    case WarpOp::shfl_down: return "__shfl_down_sync()";
    case WarpOp::shfl_xor: return "__shfl_xor_sync()";
    case WarpOp::ballot: return "__ballot_sync()/__any_sync()/__all_sync()";
  }
  return "warp operation";
}

std::string block_text(const Worker& w) { return format_index(w.block.idx, w.grid_dim); }

// "threads 0..15" for 1-D blocks; 2-D/3-D blocks name linear ids.
std::string threads_text(const Worker& w, const std::vector<unsigned>& ids) {
  const bool one_d = w.block_dim.y == 1 && w.block_dim.z == 1;
  std::string s = ids.size() == 1 ? "thread " : "threads ";
  if (!one_d) s += "(linear id) ";
  return s + format_ranges(ids);
}

// ---- one block --------------------------------------------------------------------
void resume(Worker& w, ThreadSlot& s) {
  threadIdx = s.idx;
  tl_slot = &s;
  if (w.hot != nullptr) w.hot->me = s.linear;
  check::tl_hot = w.hot;
  s.fiber = std::move(s.fiber).resume();
  check::tl_hot = nullptr;
  tl_slot = nullptr;
}

void fail_block(Worker& w, const char* category, int line, std::string message) {
  w.launch_failure = true;
  w.block.aborted = true;
  w.sink.add(category, w.block.site->file, line, "", w.block.linear, 0,
             [&] { return std::move(message); });
}

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
    for (;;) {
      int leader = -1;
      for (unsigned l = 0; l < count; ++l)
        if (b.threads[first + l].state == ThreadState::at_warp) { leader = static_cast<int>(l); break; }
      if (leader < 0) break;
      const ThreadSlot& lead = b.threads[first + leader];
      // Lanes outside the block (a partial last warp) count as absent.
      const unsigned mask = (lead.mask | (1u << leader)) & existing;
      std::vector<unsigned> exited, elsewhere, present;
      for (unsigned l = 0; l < count; ++l) {
        if (!(mask & (1u << l))) continue;
        const ThreadSlot& t = b.threads[first + l];
        if (t.state == ThreadState::exited) exited.push_back(first + l);
        else if (t.state == ThreadState::at_warp && t.op == lead.op) present.push_back(first + l);
        else elsewhere.push_back(first + l);
      }
      if (!exited.empty() || !elsewhere.empty()) {
        std::ostringstream m;
        m << "block " << block_text(w) << ", warp " << warp << ": "
          << threads_text(w, present) << " wait at " << op_name(lead.op) << " on line " << lead.line
          << ", which needs every lane of its mask 0x" << std::hex << lead.mask << std::dec << ", but ";
        if (!exited.empty()) m << threads_text(w, exited) << " exited";
        if (!exited.empty() && !elsewhere.empty()) m << " and ";
        if (!elsewhere.empty()) {
          const ThreadSlot& o = b.threads[elsewhere.front()];
          m << threads_text(w, elsewhere) << " wait at "
            << (o.state == ThreadState::at_barrier ? std::string("__syncthreads()") : op_name(o.op))
            << " on line " << o.line;
        }
        m << ". Keep every lane named in the mask on the same path (no early return before it), or "
             "pass a mask of only the lanes that take part.";
        fail_block(w, "barrier-divergence", lead.line, m.str());
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
          case WarpOp::shfl_idx: src = seg + (t.arg & (width - 1)); break;
          case WarpOp::shfl_up: src = lane - t.arg >= seg ? lane - t.arg : lane; break;
          case WarpOp::shfl_down: src = lane + t.arg < seg + width ? lane + t.arg : lane; break;
          case WarpOp::shfl_xor: src = (lane ^ t.arg) < seg + width ? (lane ^ t.arg) : lane; break;
          default: break;
        }
        if (src < 0 || src >= static_cast<int>(count) || !(mask & (1u << src))) src = lane;
        if (t.op == WarpOp::ballot) {
          std::uint64_t ballot = 0;
          for (unsigned q : present)
            if (b.threads[q].bits) ballot |= 1ull << (q - first);
          t.result = ballot;
        } else {
          t.result = b.threads[first + src].bits;
        }
      }
      for (unsigned p : present) b.threads[p].state = ThreadState::runnable;
      ++b.warp_sync[warp];
      if (w.checked) {  // for check mode's race ordering (check.cpp)
        b.warp_masks[warp].push_back(mask);
        if (mask == existing) b.warp_full[warp] = b.warp_sync[warp];
      }
      progressed = true;
    }
  }
  return progressed;
}

// Releases the block barrier if every thread waits at the same __syncthreads().
bool release_barrier(Worker& w) {
  BlockRun& b = w.block;
  std::map<int, std::vector<unsigned>> waiting;  // line -> threads
  std::vector<unsigned> exited;
  for (const ThreadSlot& t : b.threads) {
    if (t.state == ThreadState::at_barrier) waiting[t.line].push_back(t.linear);
    else exited.push_back(t.linear);  // all others have exited at this point
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
  auto at = [&](int line) {
    return "__syncthreads() on line " + std::to_string(line) + " (" +
           ordinal(b.barrier_releases[line] + 1) + " time)";
  };
  std::ostringstream m;
  m << "block " << block_text(w) << ": ";
  if (groups.size() == 1) {
    m << threads_text(w, exited) << " exited without reaching the __syncthreads() at line "
      << first_line << " that " << threads_text(w, waiting[first_line]).substr(0) << " wait at";
  } else {
    for (std::size_t i = 0; i < groups.size(); ++i) {
      const int line = groups[i].second;
      if (i > 0) m << (i + 1 == groups.size() && exited.empty() ? " and " : ", while ");
      m << threads_text(w, waiting[line]) << " wait at " << at(line);
    }
    if (!exited.empty()) m << ", and " << threads_text(w, exited) << " exited";
  }
  m << ". Every thread of a block must reach each __syncthreads() the same number of times: do "
       "not call it inside a branch or loop that depends on the thread index, and do not return "
       "before it (guard the work, not the barrier).";
  fail_block(w, "barrier-divergence", first_line, m.str());
  return false;
}

void run_block(Worker& w, std::uint64_t linear, KernelThunk thunk, const void* closure) {
  BlockRun& b = w.block;
  const dim3 g = w.grid_dim, bd = w.block_dim;
  b.linear = linear;
  b.idx = uint3{static_cast<unsigned>(linear % g.x), static_cast<unsigned>((linear / g.x) % g.y),
                static_cast<unsigned>(linear / (std::uint64_t{g.x} * g.y))};
  b.aborted = false;
  b.barrier_releases.clear();
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
    ThreadSlot* slot = &s;
    s.fiber = ctx::fiber(std::allocator_arg, PooledStack{&w.stacks},
                         [slot, &w, thunk, closure](ctx::fiber&& sink) -> ctx::fiber {
                           slot->sink = std::move(sink);
                           try {
                             thunk(closure);
                           } catch (const ctx::detail::forced_unwind&) {
                             throw;  // the block is being aborted: let Boost unwind us
                           } catch (const std::exception& e) {
                             fail_block(w, "kernel-exception", w.block.site->line,
                                        "kernel '" + std::string(w.block.site->kernel) +
                                            "' threw a C++ exception (" + e.what() + ") in block " +
                                            block_text(w) + ", which was stopped. Device code must not throw.");
                           } catch (...) {
                             fail_block(w, "kernel-exception", w.block.site->line,
                                        "kernel '" + std::string(w.block.site->kernel) +
                                            "' threw a C++ exception in block " + block_text(w) +
                                            ", which was stopped. Device code must not throw.");
                           }
                           slot->state = ThreadState::exited;
                           return std::move(slot->sink);
                         });
  }

  for (;;) {
    for (ThreadSlot& s : b.threads) {
      if (s.state == ThreadState::runnable) resume(w, s);
      if (b.aborted) break;
    }
    if (b.aborted) break;
    bool all_exited = true, any_warp = false;
    for (const ThreadSlot& s : b.threads) {
      all_exited &= s.state == ThreadState::exited;
      any_warp |= s.state == ThreadState::at_warp;
    }
    if (all_exited) break;
    if (any_warp) {
      if (resolve_warps(w)) continue;
      break;  // resolve_warps reported the divergence
    }
    if (!release_barrier(w)) break;
  }
  // Unwinds suspended fibers (their destructors throw forced_unwind inside them).
  for (ThreadSlot& s : b.threads) {
    s.fiber = ctx::fiber();
    s.sink = ctx::fiber();
  }
  if (w.checked) check_end_epoch(w);
}

std::string validation_error(dim3 grid, dim3 block, std::size_t shmem, std::size_t shmem_limit,
                             cudaError_t* code) {
  const unsigned long long threads = 1ull * block.x * block.y * block.z;
  std::ostringstream m;
  *code = cudaErrorInvalidConfiguration;
  if (threads == 0) {
    m << "block of " << block.x << "x" << block.y << "x" << block.z
      << " threads: every block dimension must be at least 1";
  } else if (threads > 1024) {
    m << "block of " << threads << " threads (" << block.x << "x" << block.y << "x" << block.z
      << "): at most 1024 threads per block are allowed (dim3 block(16, 16) has 256)";
  } else if (block.x > 1024 || block.y > 1024 || block.z > 64) {
    m << "block dimensions " << block.x << "x" << block.y << "x" << block.z
      << ": blockDim.x and blockDim.y may be at most 1024, blockDim.z at most 64";
  } else if (grid.x == 0 || grid.y == 0 || grid.z == 0) {
    m << "grid of " << grid.x << "x" << grid.y << "x" << grid.z
      << " blocks: every grid dimension must be at least 1 (round the division up: "
         "(n + block - 1) / block)";
  } else if (grid.x > 2147483647u || grid.y > 65535 || grid.z > 65535) {
    m << "grid of " << grid.x << "x" << grid.y << "x" << grid.z
      << " blocks: gridDim.x may be at most 2147483647, gridDim.y and gridDim.z at most 65535";
  } else if (shmem > shmem_limit) {
    *code = shmem > kMaxSharedPerBlockOptin ? cudaErrorInvalidValue : cudaErrorInvalidValue;
    m << shmem << " bytes of dynamic shared memory: the limit is " << shmem_limit << " bytes";
    if (shmem_limit < kMaxSharedPerBlockOptin && shmem <= kMaxSharedPerBlockOptin)
      m << " unless raised with cudaFuncSetAttribute(kernel, "
           "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) (at most "
        << kMaxSharedPerBlockOptin << ")";
  } else {
    *code = cudaSuccess;
  }
  return m.str();
}

std::mutex g_launch_mutex;

}  // namespace

// ---- device-side entry points ------------------------------------------------------
namespace {
void wait_here(ThreadSlot* self) { self->sink = std::move(self->sink).resume(); }
}  // namespace

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

void syncwarp(int line, unsigned mask) { warp_exchange(WarpOp::sync, mask, 0, 0, 32, line); }

std::uint64_t warp_exchange(WarpOp op, unsigned mask, std::uint64_t bits, int arg, int width, int line) {
  ThreadSlot* self = tl_slot;
  if (self == nullptr) return op == WarpOp::ballot ? (bits ? 1u : 0u) : bits;
  self->state = ThreadState::at_warp;
  self->op = op;
  self->mask = mask;
  self->bits = bits;
  self->arg = arg;
  self->width = width;
  self->line = line;
  wait_here(self);
  return self->result;
}

unsigned activemask() {
  ThreadSlot* self = tl_slot;
  if (self == nullptr) return 1u;
  const BlockRun& b = tl_worker->block;
  const unsigned first = self->linear & ~31u;
  unsigned m = 0;
  for (unsigned l = 0; l < 32 && first + l < b.nthreads; ++l)
    if (b.threads[first + l].state != ThreadState::exited) m |= 1u << l;
  return m;
}

// ---- the launch ----------------------------------------------------------------------
void run_grid(const LaunchSite& site, dim3 grid, dim3 block, std::size_t shmem, bool checked,
              KernelThunk thunk, const void* closure) {
  if (checked) mark_check_mode_active();
  if (tl_slot != nullptr) {
    publish_single("invalid-launch", site.file, site.line,
                   std::string("kernel '") + site.kernel +
                       "' launched from device code: dynamic parallelism is not supported by the "
                       "CPU backend");
    set_last_error(cudaErrorNotSupported);
    return;
  }
  cudaError_t code = cudaSuccess;
  const std::string why = validation_error(grid, block, shmem, dynamic_shared_limit(site.kernel_address), &code);
  if (code != cudaSuccess) {
    set_last_error(code);
    publish_single("invalid-launch", site.file, site.line,
                   std::string("invalid launch of kernel '") + site.kernel + "': " + why + " (" +
                       cudaGetErrorName(code) + ")");
    return;
  }

  std::lock_guard launch_lock(g_launch_mutex);
  install_fault_handler();
  WorkerPool& workers = pool();
  const std::uint64_t total_blocks = 1ull * grid.x * grid.y * grid.z;
  const unsigned nthreads = block.x * block.y * block.z;
  const int nworkers = worker_count();
  g_running_site = &site;

  const std::function<void(Worker&)> job = [&](Worker& w) {
    w.sink.clear();
    w.checked = checked;
    w.illegal_address = w.launch_failure = false;
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
  bool illegal = false, failure = false;
  for (Worker* w : all) {
    sinks.push_back(&w->sink);
    illegal |= w->illegal_address;
    failure |= w->launch_failure;
  }
  if (checked) check_end_launch(all);
  publish_diagnostics(sinks);
  if (illegal) set_kernel_error(cudaErrorIllegalAddress);
  else if (failure) set_kernel_error(cudaErrorLaunchFailure);
}

}  // namespace course_cpu::detail
