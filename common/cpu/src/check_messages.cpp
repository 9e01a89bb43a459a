// CPU backend of the course: the messages file's sentences about a kernel's
// accesses: check mode's findings, misaligned accesses and the crash reports
// of both modes. The rest (launches, barriers, warps, copies) is in
// launch_messages.cpp; check_messages.h declares both and says what, besides
// errors.cpp's CUDA error strings, a student reads from the runtime.
#include "check_messages.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace course_cpu::detail {
namespace {

std::string element_text(const check::AccessInfo& info) {
  std::ostringstream s;
  s << info.site->var;
  if (info.site->scalar) return s.str() + (info.member != nullptr ? info.member : "");  // `total`, `st.count`
  for (int d = 0; d < std::min<int>(info.ndims, check::kMaxDims); ++d) s << '[' << info.index[d] << ']';
  if (info.member != nullptr) s << info.member;  // s[3].x
  return s.str();
}

std::string extents_text(const check::AccessInfo& info) {
  std::ostringstream s;
  for (int d = 0; d < std::min<int>(info.ndims, check::kMaxDims); ++d) s << '[' << info.extent[d] << ']';
  return s.str();
}

const char* verb(check::Access kind) {
  switch (kind) {
    case check::Access::read:
      return "reads";
    case check::Access::write:
      return "writes";
    case check::Access::read_write:
      return "updates";
    default:
      return "accesses";
  }
}

// "thread (8,0) of block (3,0) writes c[1000]"
std::string who_does(const Who& who, check::Access kind, const check::AccessInfo& info) {
  return "thread " + who.thread() + " of block " + who.block() + " " + verb(kind) + " " + element_text(info);
}

// "index 1000 is past the last valid index 999" for an element of `elem`
// bytes at `addr`, reached from `base`, in the valid bytes [begin, end).
std::string index_text(long long index, std::uintptr_t base, std::uintptr_t begin, std::uintptr_t end,
                       std::size_t elem) {
  const auto es = static_cast<long long>(elem);
  const auto before = static_cast<long long>(base - begin);  // base is inside [begin, end]
  const long long first = -(before / es);
  const long long span = static_cast<long long>(end - begin) - before - es;
  const long long last = span >= 0 ? span / es : -((-span + es - 1) / es);
  std::ostringstream m;
  m << "index " << index;
  if (last < first)
    m << " is out of range: there is no valid index";
  else if (index > last)
    m << " is past the last valid index " << last;
  else if (index < first)
    m << " is before the first valid index " << first;
  else
    m << " is not aligned to the element size";
  return m.str();
}

const char* nth(int d) {
  static const char* const names[check::kMaxDims] = {"1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th"};
  return names[d < 0 ? 0 : d >= check::kMaxDims ? check::kMaxDims - 1 : d];
}

// The barrier that orders two threads. Lanes of one warp could use __syncwarp(), but only when no other warp ever
// shares the data: a tile shared by the whole block needs __syncthreads(), so that is what the advice leads with.
std::string barrier_for(unsigned a, unsigned b) {
  if ((a >> 5) != (b >> 5)) return "__syncthreads()";
  return "__syncthreads() (a __syncwarp() is enough only if no thread outside warp " + std::to_string(a >> 5) +
         " ever uses this data)";
}

// Which two lines need the barrier. Within one barrier interval the CPU backend runs threads one after another,
// so which of the two accesses it saw first says nothing about the order in the code: name both lines, neutrally.
std::string separate(int line_a, int line_b) {
  if (line_a == line_b) return " between two executions of line " + std::to_string(line_a) + ".";
  const int lo = line_a < line_b ? line_a : line_b, hi = line_a < line_b ? line_b : line_a;
  return " between line " + std::to_string(lo) + " and line " + std::to_string(hi) +
         ", in the order your code runs them (in a loop, also between one iteration's line " + std::to_string(hi) +
         " and the next iteration's line " + std::to_string(lo) + ").";
}

// " in between": also says when a warp rendezvous did happen but its mask
// left out one of the two lanes.
const char* in_between(unsigned a, std::uint32_t a_wsync, unsigned b, std::uint32_t b_wsync) {
  if ((a >> 5) == (b >> 5) && a_wsync != b_wsync)
    return " in between (the warp operation in between did not name both lanes in its mask)";
  return " in between";
}

// "<who_does>, <before> <thread> <after> <line> (as <var>) with no __syncthreads() in between"
std::string race_start(const Who& who, check::Access kind, const check::AccessInfo& info, const char* before,
                       const char* after, const OtherAccess& other, std::uint32_t my_wsync) {
  std::ostringstream m;
  m << who_does(who, kind, info) << before << who.thread(other.thread) << after << other.line;
  if (other.var && std::strcmp(other.var, info.site->var) != 0) m << " (as " << other.var << ")";
  m << " with no __syncthreads()" << in_between(who.t.linear, my_wsync, other.thread, other.wsync);
  return m.str();
}

}  // namespace

void report(const Who& who, const char* category, const check::AccessInfo& info,
            const std::function<std::string()>& message) {
  who.w.sink.add(category, info.site->file, info.site->line, info.site->var, who.w.block.linear, who.t.linear, message);
}

bool out_of_bounds(const Who& who, const check::AccessInfo& info, check::Access kind,
                   const std::function<std::string()>& why, const char* fix) {
  who.w.illegal_address = true;
  report(who, "out-of-bounds", info, [&] {
    const char* skipped = kind == check::Access::read    ? " The read was skipped and gave 0"
                          : kind == check::Access::write ? " The write was skipped"
                                                         : " The access was skipped";
    return who_does(who, kind, info) + ", but " + why() + ". " + fix + skipped +
           "; on a GPU it corrupts memory or fails with cudaErrorIllegalAddress.";
  });
  return false;
}

std::string array_index_text(const check::AccessInfo& info) {
  std::ostringstream m;
  const int d = info.bad_dim;
  m << info.site->var << " is declared " << info.site->var << extents_text(info) << ": index " << info.index[d];
  if (info.ndims > 1) m << " in the " << nth(d) << " dimension";
  if (info.index[d] < 0)
    m << " is negative";
  else
    m << " is past the last valid index " << info.extent[d] - 1;
  return m.str();
}

// The size of what an access's index counts: the element, also for an access of one of its members.
std::size_t index_unit(const check::AccessInfo& info) { return info.index_size ? info.index_size : info.elem_size; }

std::string buffer_index_text(const check::AccessInfo& info, const Allocation& a) {
  const auto base = reinterpret_cast<std::uintptr_t>(info.base);
  std::ostringstream m;
  const std::size_t unit = index_unit(info), elems = a.size / unit;
  m << index_text(info.index[0], base, a.begin, a.begin + a.size, unit) << " (" << info.site->var;
  if (base == a.begin)
    m << " has " << elems << (elems == 1 ? " element" : " elements");
  else
    m << " points at element " << (base - a.begin) / unit << " of a buffer of " << elems
      << (elems == 1 ? " element" : " elements");
  m << ", cudaMalloc'ed with " << a.size << " bytes)";
  return m.str();
}

std::string shared_index_text(const check::AccessInfo& info, const Region& region) {
  const auto base = reinterpret_cast<std::uintptr_t>(info.base);
  std::ostringstream m;
  const std::size_t bytes = region.end - region.begin;
  m << index_text(info.index[0], base, region.begin, region.end, index_unit(info)) << " (";
  if (region.dynamic)
    m << "the block's dynamic shared memory has " << bytes << " bytes";
  else
    m << info.site->var << " points into a __shared__ array of " << bytes << " bytes";
  m << ")";
  return m.str();
}

const char kArrayIndexFixText[] = "Check the index computation against the array's size (or declare the array larger).";
const char kBufferIndexFixText[] = "Guard the access with a bounds check such as `if (i < n)`, or fix the index.";
const char kBufferStartFixText[] = "Fix the index computation so that it stays inside the buffer.";
const char kDynamicSharedFixText[] =
    "Pass enough bytes as the 3rd launch parameter <<<grid, block, bytes>>> "
    "(e.g. blockDim.x * sizeof(float)), or fix the index.";
const char kSharedIndexFixText[] = "Check the index computation against the array's size.";

std::string atomic_address_text(const Who& who, const check::AccessInfo& info, std::size_t past_shared,
                                std::size_t shared_bytes, bool dynamic, std::size_t past_buffer,
                                std::size_t buffer_bytes) {
  std::ostringstream m;
  m << who_does(who, check::Access::read_write, info) << " at line " << info.site->line
    << ", but the address is in no memory the GPU can reach";
  if (shared_bytes != 0)
    m << ": it is "
      << (past_shared == 0 ? std::string("right")
                           : std::to_string(past_shared) + (past_shared == 1 ? " byte" : " bytes"))
      << " after the end of " << (dynamic ? "the block's dynamic shared memory" : "a __shared__ array") << " of "
      << shared_bytes << " bytes";
  else if (buffer_bytes != 0)
    m << ": it is "
      << (past_buffer == 0 ? std::string("right")
                           : std::to_string(past_buffer) + (past_buffer == 1 ? " byte" : " bytes"))
      << " after the end of a cudaMalloc'ed buffer of " << buffer_bytes << " bytes";
  else
    m << " (no shared memory, cudaMalloc'ed buffer, local variable of the thread or __device__ variable)";
  m << ". Check the index of the element whose address you pass (an index equal to the size is one past the end). "
       "The atomic was skipped; on a GPU it corrupts memory or fails with cudaErrorIllegalAddress.";
  return m.str();
}

std::string not_a_device_pointer_text(const Who& who, check::Access kind, const check::AccessInfo& info) {
  std::ostringstream m;
  if (info.site->device_param) {
    m << "pointer parameter '" << info.site->var << "' of a __device__ function "
      << (info.base == nullptr ? "is a null pointer" : "points into no memory the GPU can reach") << ": "
      << who_does(who, kind, info)
      << ". Pass it a pointer into a cudaMalloc'ed buffer, shared memory, the thread's own local variables or a "
         "__device__ variable.";
    return m.str();
  }
  if (info.base == nullptr)
    m << "kernel parameter '" << info.site->var << "' is a null pointer: " << who_does(who, kind, info)
      << ". Allocate the buffer with cudaMalloc before the launch and pass that pointer.";
  else
    m << "kernel parameter '" << info.site->var << "' is not a device pointer (did you pass a host "
      << "pointer?): " << who_does(who, kind, info) << ", but " << info.site->var
      << " points into no cudaMalloc'ed buffer. Pass the pointer that cudaMalloc returned, "
         "after cudaMemcpy-ing the data to it.";
  return m.str();
}

std::string uninitialized_read_text(const Who& who, const check::AccessInfo& info) {
  return who_does(who, check::Access::read, info) +
         ", which no thread of this block has written: shared memory holds garbage when a block "
         "starts. Write every element before it is read (e.g. zero-fill the part of a tile "
         "outside the matrix), with a __syncthreads() between the write and the read.";
}

std::string read_after_write_text(const Who& who, const check::AccessInfo& info, const OtherAccess& other,
                                  std::uint32_t my_wsync) {
  return race_start(who, check::Access::read, info, ", written by thread ", " at line ", other, my_wsync) +
         ", so it may get the old or the new value. Every thread must pass a " +
         barrier_for(who.t.linear, other.thread) + separate(other.line, info.site->line);
}

std::string write_after_write_text(const Who& who, const check::AccessInfo& info, const OtherAccess& other,
                                   std::uint32_t my_wsync) {
  return race_start(who, check::Access::write, info, ", also written by thread ", " at line ", other, my_wsync) +
         ", so which value remains depends on timing. Let one thread write it, or put a " +
         barrier_for(who.t.linear, other.thread) + " between the two writes.";
}

std::string write_after_read_text(const Who& who, const check::AccessInfo& info, const OtherAccess& other,
                                  std::uint32_t my_wsync) {
  return race_start(who, check::Access::write, info, ", which thread ", " reads at line ", other, my_wsync) +
         ", so that read may get the old or the new value. Every thread must pass a " +
         barrier_for(who.t.linear, other.thread) + separate(other.line, info.site->line);
}

std::string global_race_text(const Who& who, check::Access kind, const check::AccessInfo& info,
                             const GlobalWriter& other, std::uint32_t my_wsync) {
  const OtherAccess writer{other.thread, other.line, other.var, other.wsync};
  if (other.block < 0) {  // a thread of the same block
    if (kind == check::Access::read) return read_after_write_text(who, info, writer, my_wsync);
    if (kind == check::Access::write) return write_after_write_text(who, info, writer, my_wsync);
    return race_start(who, kind, info, ", written by thread ", " at line ", writer, my_wsync) +
           ". On a GPU, threads that update one element at once all read the same old value, and all but one of "
           "their updates are lost (here they run one after another and lose none). Where many threads add to one "
           "element, use atomicAdd() (or another atomic), or add the values in shared memory first and let one "
           "thread write the total.";
  }
  const dim3 g = who.w.grid_dim;
  const auto b = static_cast<std::uint64_t>(other.block);
  const uint3 block{static_cast<unsigned>(b % g.x), static_cast<unsigned>(b / g.x % g.y),
                    static_cast<unsigned>(b / (std::uint64_t{g.x} * g.y))};
  std::ostringstream m;
  m << who_does(who, kind, info) << ", which thread " << who.thread(other.thread) << " of block "
    << format_index(block, g) << " wrote at line " << other.line;
  if (other.var && std::strcmp(other.var, info.site->var) != 0) m << " (as " << other.var << ")";
  m << " in this launch. Blocks run at once and in no fixed order, and no __syncthreads() orders the threads of "
       "different blocks, so ";
  if (kind == check::Access::read)
    m << "this read may get the old value or the new one.";
  else if (kind == check::Access::write)
    m << "which value remains depends on which block runs last.";
  else
    m << "on a GPU both can read the same old value and one block's update is lost (here no update is lost).";
  m << " Let each block write its own element and combine them in a second launch, or combine them with "
       "atomicAdd() (or another atomic). A block may read what another block wrote in the same launch only if the "
       "writer called __threadfence() after writing and the reader took an atomic ticket first (as the last block "
       "of a one-pass reduction does).";
  return m.str();
}

std::string copy_in_flight_text(const Who& who, const check::AccessInfo& info, const OtherAccess& copy, bool write) {
  std::ostringstream m;
  const bool group_copy = copy.var != nullptr && std::strcmp(copy.var, kGroupCopySiteName) == 0;
  const bool pipeline_copy = copy.var != nullptr && std::strcmp(copy.var, kPipelineCopySiteName) == 0;
  const bool barrier_copy = copy.var != nullptr && std::strcmp(copy.var, kBarrierCopySiteName) == 0;
  m << who_does(who, write ? check::Access::write : check::Access::read, info) << ", which an asynchronous copy"
    << (group_copy                      ? " (cooperative_groups::memcpy_async)"
        : pipeline_copy || barrier_copy ? " (cuda::memcpy_async)"
                                        : "")
    << " started by thread " << who.thread(copy.thread) << " at line " << copy.line << " is still filling: "
    << (barrier_copy ? "the phase of the cuda::barrier that the copy was started with has not completed yet"
                     : std::string("no ") +
                           (group_copy      ? "cg::wait() or cg::wait_prior()"
                            : pipeline_copy ? "consumer_wait() or cuda::pipeline_consumer_wait_prior()"
                                            : "__pipeline_wait_prior()") +
                           " of that thread has covered the copy yet")
    << ", so " << (write ? "the copy may overwrite this value." : "this read may get the old contents.");
  if (barrier_copy) {
    m << " A copy started with cuda::memcpy_async(..., bar) is complete once the barrier's phase is: every thread "
         "the barrier counts must arrive, and a thread must wait for that phase (bar.arrive_and_wait(), or "
         "bar.wait(std::move(token)) with the token of its arrive()) before it uses the data; other threads need a "
         "__syncthreads() after that wait.";
    return m.str();
  }
  if (group_copy) {
    m << " Every thread of the group must call cg::wait(group) (or cg::wait_prior<n>(group), where n is how many "
         "newer memcpy_async calls may stay in flight), which also synchronizes the group, before any thread uses "
         "the data.";
    return m.str();
  }
  if (pipeline_copy) {
    m << " The thread that starts a copy must commit its stage (pipe.producer_commit()) and wait for it "
         "(pipe.consumer_wait(), or cuda::pipeline_consumer_wait_prior<n>(pipe), where n is how many newer stages may "
         "stay in flight), and then every thread must pass a __syncthreads() before any thread uses the data";
    if (who.t.linear == copy.thread) m << " (its own copies need only the wait)";
    m << ". A pipeline of the whole block (cuda::make_pipeline(group, &shared_state)) has that barrier in its "
         "consumer_wait().";
    return m.str();
  }
  m << " The thread that starts a copy must commit it (__pipeline_commit()) and wait for it "
       "(__pipeline_wait_prior(n), where n is how many newer groups may stay in flight), and then every thread "
       "must pass a __syncthreads() before any thread uses the data";
  if (who.t.linear == copy.thread) m << " (its own copies need only the wait)";
  m << ".";
  return m.str();
}

namespace {

// Where the address lies: "byte 4072 of a buffer cudaMalloc'ed with 16388 bytes", or of the dynamic shared memory.
std::string misaligned_place(const Who& who, std::uintptr_t address) {
  Allocation a;
  if (find_allocation(reinterpret_cast<const void*>(address), &a))
    return " (byte " + std::to_string(address - a.begin) + " of a buffer cudaMalloc'ed with " + std::to_string(a.size) +
           " bytes)";
  const auto arena = reinterpret_cast<std::uintptr_t>(who.w.arena.get());
  if (arena != 0 && address >= arena && address < arena + who.w.arena_bytes)
    return " (byte " + std::to_string(address - arena) + " of the block's extern __shared__ memory)";
  return "";
}

}  // namespace

// The type as a student writes it: "float4" for the compiler's "'float4'" or "const struct float4".
static std::string plain_type(std::string type) {
  if (type.size() >= 2 && type.front() == '\'' && type.back() == '\'') type = type.substr(1, type.size() - 2);
  for (const char* word : {"const ", "volatile ", "struct "})
    while (type.rfind(word, 0) == 0) type.erase(0, std::strlen(word));
  return type;
}

MisalignedAccess misaligned_subscript(const char* var, long long index, std::size_t alignment, std::uintptr_t address) {
  return {"accesses", std::string(var) + "[" + std::to_string(index) + "]",
          std::string(var) + "'s elements must be " + std::to_string(alignment) + "-byte aligned", alignment, address};
}

MisalignedAccess misaligned_typed(const char* type_name, unsigned char check_kind, std::size_t alignment,
                                  std::uintptr_t address) {
  const std::string type = plain_type(type_name);
  const char* verb = check_kind == 0 ? "loads" : check_kind == 1 ? "stores" : "accesses";  // 2: a copy's reference
  return {verb, "a " + type, "a " + type + " must be " + std::to_string(alignment) + "-byte aligned", alignment,
          address};
}

std::string misaligned_access_text(const Who& who, const MisalignedAccess& access) {
  std::ostringstream m;
  m << "thread " << who.thread() << " of block " << who.block() << " " << access.verb << " " << access.what
    << " at address 0x" << std::hex << access.address << std::dec << misaligned_place(who, access.address) << ", "
    << access.address % access.alignment << " bytes past a multiple of " << access.alignment << ", but "
    << access.requirement
    << ". On a GPU this access fails with cudaErrorMisalignedAddress; here the block was stopped before it. A "
       "vector type (float2, float4, int4, double2) needs an address that is a multiple of its size: use it only "
       "where the index is a multiple of the vector's width from an aligned start (a cudaMalloc pointer is; in + i "
       "is only when i is), and load single elements elsewhere.";
  return m.str();
}

// ---- crashes ----------------------------------------------------------------------

void host_access_text(char* buf, std::size_t n, const char* verb, const void* addr, std::size_t offset,
                      const Allocation& a) {
  std::snprintf(buf, n,
                "\n[course-cpu] FATAL: host code %s device memory: address %p is byte %zu of a buffer cudaMalloc'ed "
                "with %zu bytes (at %p).\n",
                verb, addr, offset, a.size, reinterpret_cast<void*>(a.begin));
}

const char kWroteText[] = "wrote";
const char kReadText[] = "read";
const char kReadOrWroteText[] = "read or wrote";

const char kHostAccessFixText[] =
    "[course-cpu] A pointer from cudaMalloc may be dereferenced only in device code: on a GPU this access is a "
    "segmentation fault too. Copy the data with cudaMemcpy (cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice) and "
    "use the host copy, or set device memory with cudaMemset or a kernel.\n";

void crash_header_text(char* buf, std::size_t n, const LaunchSite& site, uint3 block, uint3 thread) {
  std::snprintf(buf, n,
                "\n[course-cpu] FATAL: kernel '%s' (launched at %s:%d) crashed in block (%u,%u,%u), "
                "thread (%u,%u,%u).\n",
                site.kernel, site.file, site.line, block.x, block.y, block.z, thread.x, thread.y, thread.z);
}

void past_the_end_text(char* buf, std::size_t n, const void* addr, std::size_t past, const Allocation& a) {
  std::snprintf(buf, n,
                "[course-cpu] It accessed address %p, which is %zu bytes past the end of a GPU buffer "
                "(cudaMalloc of %zu bytes at %p).\n"
                "[course-cpu] On a GPU this is an illegal memory access (cudaErrorIllegalAddress): "
                "a bounds check such as `if (i < n)` is probably missing or wrong.\n",
                addr, past, a.size, reinterpret_cast<void*>(a.begin));
}

void stack_overflow_text(char* buf, std::size_t n, const void* addr) {
  std::snprintf(buf, n,
                "[course-cpu] The CUDA thread ran out of stack (address %p): local arrays are too "
                "large or recursion is too deep. Raise COURSE_CPU_STACK_KB (default 256).\n",
                addr);
}

void outside_buffers_text(char* buf, std::size_t n, const void* addr) {
  std::snprintf(buf, n,
                "[course-cpu] It accessed address %p, which is not inside any GPU buffer: a host "
                "pointer passed to the kernel, a null pointer, or an index far out of bounds.\n",
                addr);
}

const char kGeneralProtectionText[] =
    "[course-cpu] It made a general-protection fault, which comes without an address: most likely a float4, "
    "int4 or double2 load or store at an address that is not a multiple of 16 bytes (on a GPU: "
    "cudaErrorMisalignedAddress), or a wild pointer. A vector access needs an index that is a multiple of "
    "the vector's width from an aligned start.\n";

const char kCrashHintText[] =
    "[course-cpu] Run your lab's check-mode tests (their names start with labNN.check., e.g. "
    "`ctest --test-dir build -R lab01.check` for lab 01) to get the exact file, line and variable.\n";

}  // namespace course_cpu::detail
