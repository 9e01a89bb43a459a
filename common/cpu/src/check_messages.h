// CPU backend of the course: every sentence its runtime shows a student, in
// one place. This header declares them; two sources share it:
//  * check_messages.cpp, about a kernel's accesses: check mode's findings
//    (from the slow path, check_record.cpp), misaligned accesses and the crash
//    reports of either mode (fault_handler.cpp);
//  * launch_messages.cpp, about the rest: invalid launches and kernels that
//    throw (launch_config.cpp, scheduler.cpp), barrier and warp divergence
//    (block_sync.cpp), bad asynchronous copies (async_copy.cpp), the list of
//    findings (diagnostics.cpp) and buffers a worker process cannot map
//    (memory.cpp).
// The other runtime sources build no sentence: they call these functions or
// use these constants. What stays with them is not prose: the categories
// ("race", "out-of-bounds"), which tests and the grader match; the
// "[course-cpu] file:line: category: " layout of a finding (diagnostics.cpp);
// the device's name (device.cpp).
//
// The one exception: errors.cpp's table of cudaGetErrorString/
// cudaGetErrorName texts ("invalid configuration argument", ...). Those are
// CUDA's own API strings, not the course's sentences: a lab prints them as the
// real runtime returns them, so they stay beside the error codes they name.
#pragma once

#include "check_state.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace course_cpu::detail {

// The CUDA thread doing an access, for messages.
struct Who {
  Worker& w;
  ThreadSlot& t;
  std::string block() const { return format_index(w.block.idx, w.grid_dim); }
  std::string thread() const { return format_index(t.idx, w.block_dim); }
  std::string thread(unsigned linear) const {
    const dim3 bd = w.block_dim;
    return format_index(uint3{linear % bd.x, (linear / bd.x) % bd.y, linear / (bd.x * bd.y)}, bd);
  }
};

// Adds a finding at the access's site; `message` runs only if it is needed.
void report(const Who& who, const char* category, const check::AccessInfo& info,
            const std::function<std::string()>& message);

// Reports an out-of-bounds access (and that the launch fails); returns false.
// `why` says which index is wrong and why; `fix` what to do about it.
bool out_of_bounds(const Who& who, const check::AccessInfo& info, check::Access kind,
                   const std::function<std::string()>& why, const char* fix);

// ---- why an index is out of bounds (the `why` of out_of_bounds) ----------------
// "As is declared As[16][16]: index 16 in the 2nd dimension is past the last valid index 15"
std::string array_index_text(const check::AccessInfo& info);
// "index 1000 is past the last valid index 999 (c has 1000 elements, cudaMalloc'ed with 4000 bytes)"
std::string buffer_index_text(const check::AccessInfo& info, const Allocation& a);
// The same for a pointer into a __shared__ array or the dynamic shared memory.
std::string shared_index_text(const check::AccessInfo& info, const Region& region);

// ---- what to do about an out-of-bounds index (the `fix` of out_of_bounds, check_record.cpp) ----
// An index past a __shared__ array's declared size; an index past the end of a cudaMalloc'ed buffer, or before its
// start; an index outside the dynamic shared memory, or outside a __shared__ array reached through a pointer.
extern const char kArrayIndexFixText[];
extern const char kBufferIndexFixText[];
extern const char kBufferStartFixText[];
extern const char kDynamicSharedFixText[];
extern const char kSharedIndexFixText[];

// ---- other findings ---------------------------------------------------------------
// The parameter is null or points into no cudaMalloc'ed buffer.
// An atomic's address outside every memory a GPU can reach: `past_shared` bytes past the end of a shared array of
// `shared_bytes` (0: none is close), else `past_buffer` bytes past a cudaMalloc'ed buffer of `buffer_bytes` (0: none).
std::string atomic_address_text(const Who& who, const check::AccessInfo& info, std::size_t past_shared,
                                std::size_t shared_bytes, bool dynamic, std::size_t past_buffer,
                                std::size_t buffer_bytes);
std::string not_a_device_pointer_text(const Who& who, check::Access kind, const check::AccessInfo& info);
// A load or store at an address that is not a multiple of its type's alignment (check_alignment.cpp).
struct MisalignedAccess {
  std::string verb;         // "loads", "stores", "accesses"
  std::string what;         // "a float4", "p[3]"
  std::string requirement;  // "a float4 must be 16-byte aligned"
  std::size_t alignment;
  std::uintptr_t address;
};
std::string misaligned_access_text(const Who& who, const MisalignedAccess& access);
// The access of a checked subscript var[index] (check::misaligned) and one the compiler's alignment check found, of
// UBSan's type name and TypeCheckKind (check_ubsan.cpp).
MisalignedAccess misaligned_subscript(const char* var, long long index, std::size_t alignment, std::uintptr_t address);
MisalignedAccess misaligned_typed(const char* type_name, unsigned char check_kind, std::size_t alignment,
                                  std::uintptr_t address);
// Reports a misaligned access of the running CUDA thread, fails the launch with cudaErrorMisalignedAddress and stops
// the block before the access runs; does not return (check_alignment.cpp).
[[noreturn]] void stop_misaligned(Worker& w, ThreadSlot& t, const char* file, int line, const char* variable,
                                  const MisalignedAccess& access);
// Inside a check-mode kernel (a running worker and CUDA thread), not host code.
bool in_checked_kernel();
// A read of a shared word no thread of the block has written.
std::string uninitialized_read_text(const Who& who, const check::AccessInfo& info);

// The other access of a race: by which thread, where, and that thread's warp
// rendezvous count at the time.
struct OtherAccess {
  unsigned thread;
  int line;
  const char* var;
  std::uint32_t wsync;
};
// `who` (whose warp has completed `my_wsync` rendezvous) reads a word `other` wrote,
// writes a word `other` wrote, or writes a word `other` read, with no barrier in between.
std::string read_after_write_text(const Who& who, const check::AccessInfo& info, const OtherAccess& other,
                                  std::uint32_t my_wsync);
std::string write_after_write_text(const Who& who, const check::AccessInfo& info, const OtherAccess& other,
                                   std::uint32_t my_wsync);
std::string write_after_read_text(const Who& who, const check::AccessInfo& info, const OtherAccess& other,
                                  std::uint32_t my_wsync);

// The last writer of a global word that another access races with: its thread, its block (-1: the accessing thread's
// own block), where, and its warp's rendezvous count at the time.
struct GlobalWriter {
  unsigned thread;
  long long block;
  int line;
  const char* var;
  std::uint32_t wsync;
};
// `who` reads, writes or updates (`kind`) a global word that `other` wrote in the same launch, unordered
// (check_global.cpp).
std::string global_race_text(const Who& who, check::Access kind, const check::AccessInfo& info,
                             const GlobalWriter& other, std::uint32_t my_wsync);

// `who` reads (or, if `write`, writes) a word that an asynchronous copy started by `copy` is still filling: no
// __pipeline_wait_prior of that thread has covered the copy yet (async_copy.cpp).
std::string copy_in_flight_text(const Who& who, const check::AccessInfo& info, const OtherAccess& copy, bool write);

// ---- crashes (fault_handler.cpp) ----------------------------------------------------
// Each writes its sentence into buf (n bytes) without allocating: a signal
// handler calls them.
// Host code read or wrote (`verb`) byte `offset` of a cudaMalloc'ed buffer.
void host_access_text(char* buf, std::size_t n, const char* verb, const void* addr, std::size_t offset,
                      const Allocation& a);
// Which kernel, block and thread crashed.
void crash_header_text(char* buf, std::size_t n, const LaunchSite& site, uint3 block, uint3 thread);
// The crash's cause: `past` bytes past the end of buffer a; the fiber stack's guard page; an address in no buffer.
void past_the_end_text(char* buf, std::size_t n, const void* addr, std::size_t past, const Allocation& a);
void stack_overflow_text(char* buf, std::size_t n, const void* addr);
void outside_buffers_text(char* buf, std::size_t n, const void* addr);
// The `verb` of host_access_text: the fault was a write, a read, or (no error code to tell) either.
extern const char kWroteText[];
extern const char kReadText[];
extern const char kReadOrWroteText[];
// A general-protection fault (no address: most likely a misaligned vector access).
extern const char kGeneralProtectionText[];
// What to do instead of touching device memory from host code.
extern const char kHostAccessFixText[];
// Where to get the file, line and variable of a crash.
extern const char kCrashHintText[];

// ---- launches (launch_messages.cpp) -------------------------------------------------
// Why a launch configuration is invalid (launch_config.cpp), each for the first limit it breaks: a block with a
// dimension 0; more than kMaxThreadsPerBlock threads; a block dimension too large; a grid with a dimension 0; a grid
// dimension too large; more dynamic shared memory than `shmem_limit`.
std::string empty_block_text(dim3 block);
std::string too_many_threads_text(dim3 block);
std::string block_too_large_text(dim3 block);
std::string empty_grid_text(dim3 grid);
std::string grid_too_large_text(dim3 grid);
std::string too_much_dynamic_shared_text(std::size_t shmem, std::size_t shmem_limit);
// "invalid launch of kernel 'k': <why> (cudaErrorInvalidValue)" (scheduler.cpp).
std::string invalid_launch_text(const char* kernel, const std::string& why, cudaError_t code);
// A kernel launched from device code (dynamic parallelism).
std::string device_launch_text(const char* kernel);
// A kernel threw a C++ exception (`what`, null if it is no std::exception) in `block`, which was stopped.
std::string kernel_exception_text(const char* kernel, const char* what, const std::string& block);
// __trap() in `thread` of `block`, which was stopped; and __trap() in host code (file:line).
std::string trap_text(const char* kernel, const std::string& thread, const std::string& block);
std::string trap_outside_kernel_text(const char* file, int line);
// A failed device-side assert: the line a GPU prints, and the report.
std::string device_assert_text(const char* text, const char* file, int line, const char* function, uint3 thread,
                               uint3 block);
std::string device_assert_report_text(const char* text, const char* kernel, const std::string& thread,
                                      const std::string& block);
// A worker could not map another CUDA thread's stack (it holds `held` of `bytes` each).
std::string stacks_exhausted_text(std::size_t held, std::size_t bytes);

// ---- barrier and warp divergence (launch_messages.cpp) ------------------------------
// A warp operation of block w's warp `warp` that can never complete (block_sync.cpp): `present` wait at lead's
// operation, but lanes of its mask `exited` or wait `elsewhere`.
std::string warp_divergence_text(const Worker& w, unsigned warp, const ThreadSlot& lead,
                                 const std::vector<unsigned>& present, const std::vector<unsigned>& exited,
                                 const std::vector<unsigned>& elsewhere);
// `callers` (lanes of block w's warp `warp`) call t's warp operation with a mask that leaves out their own lane.
std::string lane_outside_mask_text(const Worker& w, unsigned warp, const ThreadSlot& t,
                                   const std::vector<unsigned>& callers);
// Threads of block w wait at different __syncthreads() (`waiting`: line -> threads; `groups`: (first thread, line),
// in thread order), or some `exited` while others wait.
std::string barrier_divergence_text(const Worker& w, const std::vector<std::pair<unsigned, int>>& groups,
                                    const std::map<int, std::vector<unsigned>>& waiting,
                                    const std::vector<unsigned>& exited);

// ---- asynchronous copies (launch_messages.cpp) ------------------------------------
// A __pipeline_memcpy_async that a GPU would not run: a size other than 4, 8 or 16, zfill larger than the size, a
// destination outside shared memory or a source outside every cudaMalloc'ed buffer (`problem` says which). site_var:
// the copy's site name, which tells a part of cooperative_groups::memcpy_async or cuda::memcpy_async (named so).
std::string bad_async_copy_text(const Who& who, int line, const std::string& problem, const char* site_var);
// The `problem`s: "size 12 (not 4, 8 or 16)", "zfill 8 larger than the size 4", the destination, the source (of
// `bytes` bytes).
std::string bad_copy_size_text(std::size_t size);
std::string bad_copy_zfill_text(std::size_t zfill, std::size_t size);
extern const char kBadCopyDestinationText[];
// The names messages give the destination of a cooperative_groups::memcpy_async and of a cuda::memcpy_async (a
// site's var).
extern const char kGroupCopySiteName[];
extern const char kPipelineCopySiteName[];
extern const char kBarrierCopySiteName[];
std::string bad_copy_source_text(std::uint32_t bytes);

// ---- cuda::barrier (launch_messages.cpp) ------------------------------------------
// What a thread does with a barrier, as barrier messages say it: "arrives at" (kArrivesAt) or starts a copy with it.
extern const char kArrivesAt[];
extern const char kCopiesWith[];
// A thread arrived at (`does`) a barrier (`what`: "cuda::barrier") that init() did not set up in its block.
std::string barrier_not_initialized_text(const Who& who, const char* what, int line, const char* does);
// What the CPU backend does not support at run time (the finding `unsupported`): a block pipeline whose group has
// `expected` threads, in a block of another size.
std::string pipeline_unsupported_text(const Who& who, int line, long long expected);
// Check mode: a thread arrives at (`does`) a cuda::barrier that another thread's init() set up in the same barrier
// interval.
std::string barrier_init_race_text(const Who& who, int line, unsigned init_thread, int init_line, const char* does);
// Check mode: thread `copier`'s copy at `copy_line` joined a phase that `who`'s arrival at `line` completed, and
// nothing orders the copy before any arrival of that phase.
std::string copy_unordered_with_phase_text(const Who& who, int line, unsigned copier, int copy_line);
// A thread waits with a token two or more phases old (`token`; the barrier is at `phase`).
std::string stale_token_text(unsigned long long token, unsigned long long phase);
// A thread arrives at a cuda::barrier more times than its phase still expects (cuda_barrier.cpp).
std::string barrier_overarrival_text(const Who& who, const char* what, int line, long long update, long long pending,
                                     long long expected);
// A thread arrives at a cuda::barrier with an update below 1: arrive(0) (cuda_barrier.cpp).
std::string barrier_bad_update_text(const Who& who, const char* what, int line, long long update);
// Threads wait for a phase of a cuda::barrier that no thread can complete any more (cuda_barrier.cpp).
std::string stuck_phase_text(const Worker& w, const ThreadSlot& first, const char* what, long long pending,
                             long long expected);
// A block pipeline's thread that would wait for ever on a GPU (pipeline_stuck in <cuda/barrier>).
std::string pipeline_stuck_text(const Who& who, bool consumer, int line);
// A copy of `size` bytes whose destination (or source) address is not a multiple of the size.
MisalignedAccess misaligned_copy(std::size_t size, bool destination, std::uintptr_t address);

// ---- the list of findings (diagnostics.cpp) ----------------------------------------
// The line after the first kPrintLimit findings: "[course-cpu] ... and 3 more distinct problems\n".
std::string more_problems_text(std::size_t more);
// What follows a finding that happened more than once: " [12 occurrences]".
std::string occurrences_text(std::size_t occurrences);

// ---- device buffers shared with a worker process (memory.cpp) ----------------------
// Why import_allocation could not map a buffer another process shared: its layout cannot be one of cudaMalloc's;
// its address range is already taken in this process; mmap failed.
extern const char kImportLayoutText[];
extern const char kImportAddressTakenText[];
extern const char kImportMapFailedText[];

}  // namespace course_cpu::detail
