// CPU backend of the course: the messages file's sentences about all but a
// kernel's accesses: invalid launches, kernels that throw, barrier and warp
// divergence, bad asynchronous copies, the list of findings and buffers a
// worker process cannot map. Accesses and crashes are in check_messages.cpp;
// check_messages.h declares both.
#include "check_messages.h"

#include <cstring>
#include <iomanip>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

namespace course_cpu::detail {

namespace {

const char* op_name(WarpOp op) {
  switch (op) {
    case WarpOp::sync:
      return "__syncwarp()";
    case WarpOp::shfl_idx:
      return "__shfl_sync()";
    case WarpOp::shfl_up:
      return "__shfl_up_sync()";
    case WarpOp::shfl_down:
      return "__shfl_down_sync()";
    case WarpOp::shfl_xor:
      return "__shfl_xor_sync()";
    case WarpOp::ballot:
      return "__ballot_sync()/__any_sync()/__all_sync()";
    case WarpOp::activemask:
      return "__activemask()";
  }
  return "warp operation";
}

// The operation a thread waits at, as the student wrote it.
std::string op_text(const ThreadSlot& t) { return t.what != nullptr ? t.what : op_name(t.op); }

// "threads 0..15" for 1-D blocks; 2-D/3-D blocks name linear ids.
std::string threads_text(const Worker& w, const std::vector<unsigned>& ids) {
  const bool one_d = w.block_dim.y == 1 && w.block_dim.z == 1;
  std::string s = ids.size() == 1 ? "thread " : "threads ";
  if (!one_d) s += "(linear id) ";
  return s + format_ranges(ids);
}

}  // namespace

// ---- launches -------------------------------------------------------------------

std::string empty_block_text(dim3 block) {
  std::ostringstream m;
  m << "block of " << block.x << "x" << block.y << "x" << block.z
    << " threads: every block dimension must be at least 1";
  return m.str();
}

std::string too_many_threads_text(dim3 block) {
  const unsigned long long threads = 1ull * block.x * block.y * block.z;
  std::ostringstream m;
  m << "block of " << threads << " threads (" << block.x << "x" << block.y << "x" << block.z << "): at most "
    << kMaxThreadsPerBlock << " threads per block are allowed (dim3 block(16, 16) has 256)";
  return m.str();
}

std::string block_too_large_text(dim3 block) {
  std::ostringstream m;
  m << "block dimensions " << block.x << "x" << block.y << "x" << block.z
    << ": blockDim.x and blockDim.y may be at most " << kMaxBlockDim[0] << ", blockDim.z at most " << kMaxBlockDim[2];
  return m.str();
}

std::string empty_grid_text(dim3 grid) {
  std::ostringstream m;
  m << "grid of " << grid.x << "x" << grid.y << "x" << grid.z
    << " blocks: every grid dimension must be at least 1 (round the division up: "
       "(n + block - 1) / block)";
  return m.str();
}

std::string grid_too_large_text(dim3 grid) {
  std::ostringstream m;
  m << "grid of " << grid.x << "x" << grid.y << "x" << grid.z << " blocks: gridDim.x may be at most " << kMaxGridDim[0]
    << ", gridDim.y and gridDim.z at most " << kMaxGridDim[1];
  return m.str();
}

std::string too_much_dynamic_shared_text(std::size_t shmem, std::size_t shmem_limit) {
  std::ostringstream m;
  m << shmem << " bytes of dynamic shared memory: the limit is " << shmem_limit << " bytes";
  if (shmem_limit < kMaxSharedPerBlockOptin && shmem <= kMaxSharedPerBlockOptin)
    m << " unless raised with cudaFuncSetAttribute(kernel, "
         "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) (at most "
      << kMaxSharedPerBlockOptin << ")";
  return m.str();
}

std::string invalid_launch_text(const char* kernel, const std::string& why, cudaError_t code) {
  return std::string("invalid launch of kernel '") + kernel + "': " + why + " (" + cudaGetErrorName(code) + ")";
}

std::string device_launch_text(const char* kernel) {
  return std::string("kernel '") + kernel +
         "' launched from device code: dynamic parallelism is not supported by the "
         "CPU backend";
}

std::string kernel_exception_text(const char* kernel, const char* what, const std::string& block) {
  if (what != nullptr)
    return "kernel '" + std::string(kernel) + "' threw a C++ exception (" + what + ") in block " + block +
           ", which was stopped. Device code must not throw.";
  return "kernel '" + std::string(kernel) + "' threw a C++ exception in block " + block +
         ", which was stopped. Device code must not throw.";
}

std::string trap_text(const char* kernel, const std::string& thread, const std::string& block) {
  return "kernel '" + std::string(kernel) + "' executed __trap() in thread " + thread + " of block " + block +
         ", which was stopped; the launch fails with cudaErrorLaunchFailure.";
}

std::string device_assert_text(const char* text, const char* file, int line, const char* function, uint3 thread,
                               uint3 block) {
  std::ostringstream m;  // as a GPU prints it
  m << file << ":" << line << ": " << function << ": block: [" << block.x << "," << block.y << "," << block.z
    << "], thread: [" << thread.x << "," << thread.y << "," << thread.z << "] Assertion `" << text << "` failed.";
  return m.str();
}

std::string device_assert_report_text(const char* text, const char* kernel, const std::string& thread,
                                      const std::string& block) {
  return "kernel '" + std::string(kernel) + "': assert(" + text + ") failed in thread " + thread + " of block " +
         block +
         ", which was stopped; the launch fails with cudaErrorAssert, as on a GPU. The condition is what the kernel "
         "expected to hold there: check the values it tests.";
}

std::string trap_outside_kernel_text(const char* file, int line) {
  return std::string("__trap() called outside a kernel (") + file + ":" + std::to_string(line) + ")";
}

std::string stacks_exhausted_text(std::size_t held, std::size_t bytes) {
  std::ostringstream m;
  m << "out of memory for the CUDA threads' stacks: a worker holds " << held << " stacks of " << bytes / 1024
    << " KiB and could not map another (" << worker_count()
    << " worker threads run blocks at once). Run fewer workers (COURSE_CPU_THREADS=N), smaller stacks "
       "(COURSE_CPU_STACK_KB), or raise the process's memory limit";
  return m.str();
}

// ---- barrier and warp divergence ----------------------------------------------------

std::string warp_divergence_text(const Worker& w, unsigned warp, const ThreadSlot& lead,
                                 const std::vector<unsigned>& present, const std::vector<unsigned>& exited,
                                 const std::vector<unsigned>& elsewhere) {
  std::ostringstream m;
  m << "block " << block_text(w) << ", warp " << warp << ": " << threads_text(w, present) << " wait at "
    << op_text(lead) << " on line " << lead.line << ", which needs every lane of its mask 0x" << std::hex << lead.mask
    << std::dec << ", but ";
  if (!exited.empty()) m << threads_text(w, exited) << " exited";
  if (!exited.empty() && !elsewhere.empty()) m << " and ";
  if (!elsewhere.empty()) {
    const ThreadSlot& o = w.block.threads[elsewhere.front()];
    m << threads_text(w, elsewhere) << " wait at "
      << (o.state == ThreadState::at_barrier ? std::string("__syncthreads()") : op_text(o)) << " on line " << o.line;
  }
  m << ". Keep every lane named in the mask on the same path (no early return before it), or "
       "pass a mask of only the lanes that take part.";
  return m.str();
}

std::string lane_outside_mask_text(const Worker& w, unsigned warp, const ThreadSlot& t,
                                   const std::vector<unsigned>& callers) {
  std::ostringstream m;
  m << "block " << block_text(w) << ", warp " << warp << ": " << threads_text(w, callers) << " call " << op_text(t)
    << " on line " << t.line << " with the mask 0x" << std::hex << std::setw(8) << std::setfill('0') << t.mask
    << std::dec << ", which leaves out " << (callers.size() == 1 ? "its own lane" : "their own lanes")
    << " (undefined on a GPU: every calling lane must be in the mask it passes). Pass a mask that names every lane "
       "that calls: 0xffffffff where the whole warp does, or in a branch the lanes that take it "
       "(__ballot_sync(0xffffffff, "
       "condition) before the branch).";
  return m.str();
}

std::string barrier_divergence_text(const Worker& w, const std::vector<std::pair<unsigned, int>>& groups,
                                    const std::map<int, std::vector<unsigned>>& waiting,
                                    const std::vector<unsigned>& exited) {
  const BlockRun& b = w.block;
  const int first_line = groups.front().second;
  auto at = [&](int line) {
    const auto released = b.barrier_releases.find(line);
    const int times = released == b.barrier_releases.end() ? 0 : released->second;
    return "__syncthreads() on line " + std::to_string(line) + " (" + ordinal(times + 1) + " time)";
  };
  std::ostringstream m;
  m << "block " << block_text(w) << ": ";
  if (groups.size() == 1) {
    m << threads_text(w, exited) << " exited without reaching the __syncthreads() at line " << first_line << " that "
      << threads_text(w, waiting.at(first_line)) << " wait at";
  } else {
    for (std::size_t i = 0; i < groups.size(); ++i) {
      const int line = groups[i].second;
      if (i > 0) m << (i + 1 == groups.size() && exited.empty() ? " and " : ", while ");
      m << threads_text(w, waiting.at(line)) << " wait at " << at(line);
    }
    if (!exited.empty()) m << ", and " << threads_text(w, exited) << " exited";
  }
  m << ". Every thread of a block must reach each __syncthreads() the same number of times: do "
       "not call it inside a branch or loop that depends on the thread index, and do not return "
       "before it (guard the work, not the barrier).";
  return m.str();
}

// ---- asynchronous copies ----------------------------------------------------------

std::string bad_async_copy_text(const Who& who, int line, const std::string& problem, const char* site_var) {
  // A copy of cooperative_groups::memcpy_async or cuda::memcpy_async (made of 4-, 8- or 16-byte copies, which the
  // site's name tells), or __pipeline_memcpy_async itself.
  const auto is = [&](const char* name) { return site_var != nullptr && std::strcmp(site_var, name) == 0; };
  const char* api = is(kGroupCopySiteName)                                  ? "cooperative_groups::memcpy_async"
                    : is(kPipelineCopySiteName) || is(kBarrierCopySiteName) ? "cuda::memcpy_async"
                                                                            : nullptr;
  std::string m = "thread " + who.thread() + " of block " + who.block() + " calls " +
                  (api != nullptr ? api : "__pipeline_memcpy_async") + " at line " + std::to_string(line) + " with " +
                  problem +
                  ". A GPU does not run such a copy (the kernel stops with an error); here the block was stopped. ";
  if (api != nullptr)
    return m +
           "Copy only bytes that lie inside a cudaMalloc'ed buffer (check the copy's size and its source offset "
           "against the buffer's end) into __shared__ memory.";
  return m +
         "Copy 4, 8 or 16 bytes from a cudaMalloc'ed buffer into __shared__ memory, both addresses a multiple of "
         "the size, with zfill (the 4th argument) at most the size.";
}

std::string bad_copy_size_text(std::size_t size) { return "size " + std::to_string(size) + " (not 4, 8 or 16)"; }

std::string bad_copy_zfill_text(std::size_t zfill, std::size_t size) {
  return "zfill " + std::to_string(zfill) + " larger than the size " + std::to_string(size);
}

const char kBadCopyDestinationText[] = "a destination that is not __shared__ memory";
const char kGroupCopySiteName[] = "cooperative_groups::memcpy_async's destination";
const char kPipelineCopySiteName[] = "cuda::memcpy_async's destination";
const char kBarrierCopySiteName[] = "cuda::memcpy_async's destination (with a cuda::barrier)";

std::string bad_copy_source_text(std::uint32_t bytes) {
  return "a source that is not inside a cudaMalloc'ed buffer (or whose " + std::to_string(bytes) +
         " bytes run past its end)";
}

const char kArrivesAt[] = "arrives at";
const char kCopiesWith[] = "starts a cuda::memcpy_async with";

std::string barrier_not_initialized_text(const Who& who, const char* what, int line, const char* does) {
  return "thread " + who.thread() + " of block " + who.block() + " " + does + " a " + what + " at line " +
         std::to_string(line) +
         " that init() did not set up in this block, so on a GPU what it does is undefined (it may hang: a "
         "__shared__ barrier holds whatever that memory held). Every block must set its barrier up before any of its "
         "threads uses it: `if (threadIdx.x == 0) init(&bar, blockDim.x * blockDim.y * blockDim.z);` then "
         "`__syncthreads();`.";
}

std::string pipeline_unsupported_text(const Who& who, int line, long long expected) {
  return "the CPU backend does not support this use of the cuda::pipeline at line " + std::to_string(line) +
         " (thread " + who.thread() + " of block " + who.block() + "): its group has " + std::to_string(expected) +
         " threads and the block has " + std::to_string(who.w.block.nthreads) +
         "; it supports a pipeline of the whole block (cuda::make_pipeline(cooperative_groups::this_thread_block(), "
         "&state)). This is a gap of the backend, not a mistake in your code: the grader marks the lab not-graded on "
         "the CPU backend, and a GPU grades it.";
}

std::string barrier_init_race_text(const Who& who, int line, unsigned init_thread, int init_line, const char* does) {
  return "thread " + who.thread() + " of block " + who.block() + " " + does + " the cuda::barrier at line " +
         std::to_string(line) + ", which thread " + who.thread(init_thread) + " set up with init() at line " +
         std::to_string(init_line) +
         " with no __syncthreads() in between, so on a GPU it may use the barrier before it is set up. Put a "
         "__syncthreads() between init() and the barrier's first use.";
}

std::string copy_unordered_with_phase_text(const Who& who, int line, unsigned copier, int copy_line) {
  return "thread " + who.thread(copier) + " of block " + who.block() + " starts a cuda::memcpy_async at line " +
         std::to_string(copy_line) + " that joins the phase of the cuda::barrier that thread " + who.thread() +
         "'s arrival at line " + std::to_string(line) +
         " completes, but nothing orders the copy before any arrival of that phase (thread " + who.thread(copier) +
         " has not arrived since, and no __syncthreads() or __syncwarp() of its warp lies between the copy and an "
         "arrival). On a GPU the phase may complete before the copy starts, and the copy then joins the next phase: "
         "the data is not there when the waiting threads read it. Let every thread that copies arrive after its "
         "copy, or synchronize the copying threads with an arriving one (__syncwarp(), or __syncthreads()) before "
         "that thread arrives.";
}

std::string stale_token_text(unsigned long long token, unsigned long long phase) {
  return " (a thread there waits with the token of phase " + std::to_string(token) + ", and the barrier is at phase " +
         std::to_string(phase) +
         ": a GPU keeps only a token's parity, so a token two or more phases old waits for a phase still to come, "
         "here the current one; wait for each token before arriving twice more)";
}

std::string barrier_overarrival_text(const Who& who, const char* what, int line, long long update, long long pending,
                                     long long expected) {
  return "thread " + who.thread() + " of block " + who.block() + " arrives " + std::to_string(update) +
         (update == 1 ? " time" : " times") + " at a " + what + " at line " + std::to_string(line) +
         " whose phase expects only " + std::to_string(pending) + " more of its " + std::to_string(expected) +
         " arrivals, so on a GPU what it does is undefined. A phase needs exactly the count given to init(): arrive "
         "once per thread and phase (or arrive(n) for n threads), with init(&bar, count) counting every thread "
         "that arrives.";
}

std::string barrier_bad_update_text(const Who& who, const char* what, int line, long long update) {
  return "thread " + who.thread() + " of block " + who.block() + " calls arrive(" + std::to_string(update) + ") at a " +
         what + " at line " + std::to_string(line) +
         ", so on a GPU what it does is undefined: the update must be at least 1 (the number of arrivals it makes, "
         "arrive() for one).";
}

std::string stuck_phase_text(const Worker& w, const ThreadSlot& first, const char* what, long long pending,
                             long long expected) {
  const BlockRun& b = w.block;
  std::map<int, std::vector<unsigned>> phase, sync, warp;
  std::vector<unsigned> exited;
  for (const ThreadSlot& t : b.threads) {
    if (t.state == ThreadState::at_phase)
      phase[t.line].push_back(t.linear);
    else if (t.state == ThreadState::at_barrier)
      sync[t.line].push_back(t.linear);
    else if (t.state == ThreadState::at_warp)
      warp[t.line].push_back(t.linear);
    else if (t.state == ThreadState::exited)
      exited.push_back(t.linear);
  }
  std::ostringstream m;
  m << "block " << block_text(w) << ": " << threads_text(w, phase.at(first.line)) << " wait at line " << first.line
    << " for a phase of a " << what << " that still expects " << pending << " of its " << expected
    << " arrivals, and no thread can arrive any more: ";
  std::vector<std::string> others;
  for (const auto& [line, ids] : phase)
    if (line != first.line)
      others.push_back(threads_text(w, ids) + " wait for a phase at line " + std::to_string(line));
  for (const auto& [line, ids] : sync)
    others.push_back(threads_text(w, ids) + " wait at the __syncthreads() on line " + std::to_string(line));
  for (const auto& [line, ids] : warp)
    others.push_back(threads_text(w, ids) + " wait at a warp operation on line " + std::to_string(line));
  if (!exited.empty()) others.push_back(threads_text(w, exited) + " exited");
  for (std::size_t i = 0; i < others.size(); ++i)
    m << (i == 0 ? "" : i + 1 == others.size() ? " and " : ", ") << others[i];
  if (others.empty()) m << "every thread waits";
  m << ". On a GPU the block hangs. Every phase needs the count given to init(&bar, count): each of those threads "
       "must arrive (arrive(), arrive_and_wait()) once per phase, whether or not it waits, before a thread waits "
       "for that phase.";
  return m.str();
}

std::string pipeline_stuck_text(const Who& who, bool consumer, int line) {
  const std::string where = "thread " + who.thread() + " of block " + who.block() + " ";
  if (consumer)
    return where + "calls consumer_wait() at line " + std::to_string(line) +
           " of a cuda::pipeline with no stage committed since the last consumer_release(), so on a GPU it waits for "
           "ever. Commit a stage (producer_acquire(), cuda::memcpy_async(..., pipe), producer_commit()) before "
           "waiting for it.";
  return where + "calls producer_acquire() at line " + std::to_string(line) +
         " of a cuda::pipeline whose every stage holds data not yet released, so on a GPU it waits for ever (the "
         "stage is freed only by consumer_release()). Call pipe.consumer_release() once a stage's data is used, "
         "before its stage is acquired again.";
}

MisalignedAccess misaligned_copy(std::size_t size, bool destination, std::uintptr_t address) {
  const std::string which = destination ? "destination" : "source";
  return {"copies", std::to_string(size) + " bytes (__pipeline_memcpy_async, " + which + ")",
          "a copy of " + std::to_string(size) + " bytes needs " + which + " addresses that are a multiple of " +
              std::to_string(size),
          size, address};
}

// ---- the list of findings ----------------------------------------------------------

std::string more_problems_text(std::size_t more) {
  return "[course-cpu] ... and " + std::to_string(more) + " more distinct problems\n";
}

std::string occurrences_text(std::size_t occurrences) { return " [" + std::to_string(occurrences) + " occurrences]"; }

// ---- device buffers shared with a worker process -----------------------------------

const char kImportLayoutText[] = "an allocation with an impossible layout";
const char kImportAddressTakenText[] = "the address of a device buffer is taken in the worker";
const char kImportMapFailedText[] = "mapping a device buffer failed";

}  // namespace course_cpu::detail
