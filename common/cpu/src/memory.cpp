// CPU backend of the course: "device" memory.
//
// Each cudaMalloc is its own shared mapping of a memfd with a PROT_NONE guard page right after it,
// and the buffer is placed so that it ends as close to the guard page as
// 16-byte alignment allows: in fast mode a write just past the end of a GPU
// buffer faults immediately and the fault handler (fault_handler.cpp) names
// the kernel, block and thread. A registry (begin -> size) lets check mode
// and cudaMemcpy validate pointers.
//
// Host code cannot touch device memory: on a GPU a host dereference of a cudaMalloc pointer is a segmentation fault,
// and here it faults too. Each device allocation is PROT_NONE except while a DeviceAccessWindow is open (a kernel
// runs, or the runtime copies); fault_handler.cpp names such a fault. Managed and pinned host memory stay accessible,
// as on a GPU.
//
// Why a memfd: the judge/worker split (course/remote.h). The judge allocates the buffers; the worker, which runs the
// student's kernel in another process, maps the same memfd at the same address (export_allocation /
// import_allocation), so a device pointer means the same bytes in both processes.
#include "check_messages.h"
#include "internal.h"

#include <course_cpu/check.h>
#include <course_cpu/sharing.h>

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <shared_mutex>

namespace course_cpu::check {
// Starts at 1: a fast-path cache with generation 0 is never current.
std::atomic<std::uint64_t> g_allocation_generation{1};
}  // namespace course_cpu::check

namespace course_cpu::detail {
namespace {

struct Mapping {
  std::size_t size;     // bytes requested
  void* map_base;       // mmap start
  std::size_t map_len;  // including the guard page
  bool host;
  std::uint64_t id;         // unique in this process (imported: the exporter's id)
  int fd;                   // the memfd behind the mapping (-1 for host allocations)
  bool imported;            // mapped from another process (import_allocation)
  bool guarded;             // PROT_NONE to host code (cudaMalloc, not managed or host memory)
  bool registered = false;  // cudaHostRegister: the program's own memory, not mapped here
  // Check mode: the record of its words' last writers (check_fast_path.h), made by the first store of a check-mode
  // kernel (global_shadow below); null before, or where it would not fit in kMaxShadowBytes.
  check::GlobalWord* shadow = nullptr;
};
std::atomic<std::uint64_t> g_next_id{1};

std::size_t page_size() {
  static const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

// Device allocations live in address ranges of their own, the same in every process: a judge's (and any process
// that is not a worker) from 32 TiB, a worker's own (a launcher's workspace) from 64 TiB. The kernel places
// libraries, thread and fiber stacks and large heap blocks top-down from just below the stack (near 128 TiB), so an
// allocation of the judge can always be mapped at its address in the worker; with the kernel's choice of address it
// could land where the worker already had something, and an honest lab failed at random ("the address of a device
// buffer is taken in the worker": measured once in 18 honest check-mode runs on an H100 machine).
std::atomic<int> g_arena{0};
std::atomic<std::uintptr_t> g_arena_next{0};

// `len` bytes of address space, PROT_NONE, in this process's arena (a range already in use there is skipped); the
// kernel's choice where the arena cannot be used (an address space smaller than 47 bits). Offsets wrap around.
void* reserve_device_range(std::size_t len) {
  const std::uintptr_t start = kDeviceArenaStart[g_arena.load(std::memory_order_relaxed)];
  constexpr int kFlags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
  for (int tries = 0; tries < 64 && len < kDeviceArenaSize; ++tries) {
    const std::uintptr_t offset = g_arena_next.fetch_add(len, std::memory_order_relaxed) % kDeviceArenaSize;
    if (offset + len > kDeviceArenaSize) continue;  // the end of the arena: the next offset wraps around
    void* want = reinterpret_cast<void*>(start + offset);
    void* got = mmap(want, len, PROT_NONE, kFlags | MAP_FIXED_NOREPLACE, -1, 0);
    if (got == want) return got;
    if (got != MAP_FAILED) {
      munmap(got, len);  // a kernel older than MAP_FIXED_NOREPLACE took the address as a hint
      break;
    }
    if (errno != EEXIST) break;
  }
  return mmap(nullptr, len, PROT_NONE, kFlags, -1, 0);
}

// The fault handler reads a fixed table without locks (it may run while the
// faulting thread holds no lock, but it must never block).
constexpr int kGuardSlots = 4096;
struct GuardSlot {
  std::atomic<std::uintptr_t> begin{0};
  std::atomic<std::size_t> size{0};
  std::atomic<bool> guarded{false};  // Mapping::guarded
};
GuardSlot g_guard_table[kGuardSlots];

struct Registry {
  std::shared_mutex mutex;
  std::map<std::uintptr_t, Mapping> allocations;
  std::size_t device_bytes = 0;
  std::size_t shadow_bytes = 0;  // address space of all shadows (mapped without reserve: touched pages only)
};

// The address space all buffers' shadows may take: 6 bytes per byte of a buffer. Within it every buffer a check-mode
// test stores to (the labs' check-mode sizes are at most a few MiB) is checked, and an address-space limit (the
// grader's sandbox sets 8 GiB) keeps room for the worker stacks and the program.
constexpr std::size_t kMaxShadowBytes = std::size_t{1} << 30;

std::size_t shadow_length(std::size_t size) { return (size + 3) / 4 * sizeof(check::GlobalWord); }
Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: kernels may run during exit
  return *r;
}

void guard_table_insert(std::uintptr_t begin, std::size_t size, bool guarded) {
  for (GuardSlot& s : g_guard_table) {
    std::uintptr_t expected = 0;
    if (s.begin.load() == 0 && s.begin.compare_exchange_strong(expected, begin)) {
      s.size.store(size);
      s.guarded.store(guarded);
      return;
    }
  }
}
void guard_table_erase(std::uintptr_t begin) {
  for (GuardSlot& s : g_guard_table)
    if (s.begin.load() == begin) {
      s.size.store(0);
      s.guarded.store(false);
      s.begin.store(0);
      return;
    }
}

// The window: how many DeviceAccessWindows are open in this process (under g_window_mutex, which is taken before the
// registry's mutex), and whether device memory is accessible now (read by the fault handler).
std::mutex g_window_mutex;
int g_windows_open = 0;
std::atomic<bool> g_device_accessible{false};

int data_protection(bool guarded) { return !guarded || g_windows_open > 0 ? PROT_READ | PROT_WRITE : PROT_NONE; }
void protect(const Mapping& m, int prot) { mprotect(m.map_base, m.map_len - page_size(), prot); }

}  // namespace

DeviceAccessWindow::DeviceAccessWindow() {
  std::lock_guard window(g_window_mutex);
  if (g_windows_open++ > 0) return;
  Registry& r = registry();
  std::shared_lock lock(r.mutex);
  for (auto& [begin, m] : r.allocations)
    if (m.guarded) protect(m, PROT_READ | PROT_WRITE);
  g_device_accessible.store(true);
}

DeviceAccessWindow::~DeviceAccessWindow() {
  std::lock_guard window(g_window_mutex);
  if (--g_windows_open > 0) return;
  g_device_accessible.store(false);
  Registry& r = registry();
  std::shared_lock lock(r.mutex);
  for (auto& [begin, m] : r.allocations)
    if (m.guarded) protect(m, PROT_NONE);
}

bool find_device_allocation_closed_to_host(const void* p, Allocation* out) {
  if (g_device_accessible.load(std::memory_order_relaxed)) return false;
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  for (const GuardSlot& s : g_guard_table) {
    const std::uintptr_t begin = s.begin.load(std::memory_order_relaxed);
    if (begin == 0 || !s.guarded.load(std::memory_order_relaxed)) continue;
    const std::size_t size = s.size.load(std::memory_order_relaxed);
    if (a >= begin && a < begin + size) {
      *out = Allocation{begin, size, false};
      return true;
    }
  }
  return false;
}

std::size_t total_device_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const std::size_t phys = pages > 0 ? static_cast<std::size_t>(pages) * page_size() : (8ull << 30);
  return phys / 2;  // the "GPU" gets half of the machine's RAM
}

// Where the linker put the section of the __managed__ variables (device_functions.h); null in a program without any.
extern "C" {
extern char __start_course_managed[] __attribute__((weak));
extern char __stop_course_managed[] __attribute__((weak));
}

bool find_allocation(const void* p, Allocation* out) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  Registry& r = registry();
  std::shared_lock lock(r.mutex);
  auto it = r.allocations.upper_bound(a);
  if (it == r.allocations.begin() || a >= std::prev(it)->first + std::prev(it)->second.size) {
    // The program's __managed__ variables, together one managed allocation.
    const auto begin = reinterpret_cast<std::uintptr_t>(__start_course_managed);
    const auto end = reinterpret_cast<std::uintptr_t>(__stop_course_managed);
    if (begin == 0 || a < begin || a >= end) return false;
    if (out) *out = Allocation{begin, end - begin, false};
    return true;
  }
  --it;
  if (out) *out = Allocation{it->first, it->second.size, it->second.host, it->second.shadow};
  return true;
}

check::GlobalWord* global_shadow(std::uintptr_t begin) {
  Registry& r = registry();
  std::unique_lock lock(r.mutex);
  auto it = r.allocations.find(begin);
  if (it == r.allocations.end()) return nullptr;
  Mapping& m = it->second;
  if (m.shadow != nullptr) return m.shadow;
  const std::size_t len = shadow_length(m.size);
  if (r.shadow_bytes + len > kMaxShadowBytes) return nullptr;
  void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  r.shadow_bytes += len;
  m.shadow = static_cast<check::GlobalWord*>(p);
  // Every worker's cache of buffers (check::Hot) is refreshed, so that the next access of any worker sees the shadow.
  check::g_allocation_generation.fetch_add(1, std::memory_order_release);
  return m.shadow;
}

bool find_guarded_allocation(const void* p, Allocation* out) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const std::size_t page = page_size();
  for (const GuardSlot& s : g_guard_table) {
    const std::uintptr_t begin = s.begin.load(std::memory_order_relaxed);
    if (begin == 0) continue;
    const std::size_t size = s.size.load(std::memory_order_relaxed);
    const std::uintptr_t guard = begin + ((size + 15) & ~std::size_t{15});
    if (a >= begin + size && a < guard + page) {
      *out = Allocation{begin, size, false};
      return true;
    }
  }
  return false;
}

std::uint64_t allocation_generation() { return check::g_allocation_generation.load(std::memory_order_acquire); }

namespace {
// Whether a memfd of `bytes` stays within the process's file-size limit. A memfd counts against RLIMIT_FSIZE, and
// growing one past it kills the process (SIGXFSZ): the grader's sandbox limits files to 64 MiB, so a larger
// allocation in the sandboxed worker (a student's own workspace) is anonymous memory instead. Only the judge's
// buffers, which have no such limit, are shared with another process (export_allocation needs the memfd).
bool fits_file_size_limit(std::size_t bytes) {
  rlimit r{};
  return getrlimit(RLIMIT_FSIZE, &r) != 0 || r.rlim_cur == RLIM_INFINITY || bytes <= r.rlim_cur;
}

cudaError_t allocate(void** ptr, std::size_t size, bool host, bool managed) {
  if (ptr == nullptr) return set_last_error(cudaErrorInvalidValue);
  *ptr = nullptr;
  if (size == 0) return cudaSuccess;  // as CUDA: success, null pointer
  Registry& r = registry();
  const std::size_t page = page_size();
  const std::size_t data = (size + 15) & ~std::size_t{15};
  if (size > total_device_memory()) return set_last_error(cudaErrorMemoryAllocation);
  const std::size_t map_len = ((data + page - 1) / page) * page + page;
  {
    std::shared_lock lock(r.mutex);
    if (!host && r.device_bytes + size > total_device_memory()) return set_last_error(cudaErrorMemoryAllocation);
  }
  int fd = -1;
  if (!host && fits_file_size_limit(map_len - page)) {
    fd = memfd_create("course-device-memory", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, static_cast<off_t>(map_len - page)) != 0) {
      if (fd >= 0) close(fd);
      return set_last_error(cudaErrorMemoryAllocation);
    }
  }
  install_fault_handler();  // names a host access to device memory
  const bool guarded = !host && !managed;
  std::lock_guard window(g_window_mutex);
  // Reserve data + guard, then map the memfd over the data pages (shared: the worker sees the same bytes).
  void* base = host ? mmap(nullptr, map_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
                    : reserve_device_range(map_len);
  if (base == MAP_FAILED ||
      (fd >= 0 && mmap(base, map_len - page, data_protection(guarded), MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) ||
      (fd < 0 && mprotect(base, map_len - page, data_protection(guarded)) != 0)) {
    if (base != MAP_FAILED) munmap(base, map_len);
    if (fd >= 0) close(fd);
    return set_last_error(cudaErrorMemoryAllocation);
  }
  char* guard = static_cast<char*>(base) + map_len - page;
  char* p = guard - data;
  {
    std::unique_lock lock(r.mutex);
    r.allocations[reinterpret_cast<std::uintptr_t>(p)] =
        Mapping{size, base, map_len, host, g_next_id++, fd, false, guarded};
    if (!host) r.device_bytes += size;
    check::g_allocation_generation.fetch_add(1, std::memory_order_release);
  }
  guard_table_insert(reinterpret_cast<std::uintptr_t>(p), size, guarded);
  *ptr = p;
  return cudaSuccess;
}

cudaError_t release(void* ptr, bool host, bool registered = false) {
  if (ptr == nullptr) return cudaSuccess;
  Registry& r = registry();
  Mapping m{};
  {
    std::unique_lock lock(r.mutex);
    auto it = r.allocations.find(reinterpret_cast<std::uintptr_t>(ptr));
    if (it == r.allocations.end() || it->second.host != host || it->second.registered != registered)
      return set_last_error(registered ? cudaErrorHostMemoryNotRegistered : cudaErrorInvalidValue);
    m = it->second;
    if (!host) r.device_bytes -= m.size;
    if (m.shadow != nullptr) r.shadow_bytes -= shadow_length(m.size);
    r.allocations.erase(it);
    check::g_allocation_generation.fetch_add(1, std::memory_order_release);
  }
  if (m.shadow != nullptr) munmap(m.shadow, shadow_length(m.size));
  if (m.registered) return cudaSuccess;  // cudaHostUnregister, cudaDeviceReset: the memory stays the program's
  guard_table_erase(reinterpret_cast<std::uintptr_t>(ptr));
  munmap(m.map_base, m.map_len);
  if (m.fd >= 0) close(m.fd);
  return cudaSuccess;
}

// A device-side range [p, p + count) must lie inside one allocation.
bool valid_device_range(const void* p, std::size_t count) {
  Allocation a;
  if (!find_allocation(p, &a)) return false;
  return reinterpret_cast<std::uintptr_t>(p) + count <= a.begin + a.size;
}
}  // namespace

void release_all_allocations() {
  Registry& r = registry();
  std::vector<Mapping> all;
  std::vector<void*> begins;
  {
    std::shared_lock lock(r.mutex);
    for (auto& [begin, m] : r.allocations) {
      all.push_back(m);
      begins.push_back(reinterpret_cast<void*>(begin));
    }
  }
  for (std::size_t i = 0; i < all.size(); ++i) release(begins[i], all[i].host, all[i].registered);
}

MemoryKind memory_kind(const void* p, Allocation* out) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  {
    Registry& r = registry();
    std::shared_lock lock(r.mutex);
    auto it = r.allocations.upper_bound(a);
    if (it != r.allocations.begin() && a < std::prev(it)->first + std::prev(it)->second.size) {
      --it;
      if (out) *out = Allocation{it->first, it->second.size, it->second.host};
      if (it->second.host) return MemoryKind::host;
      return it->second.guarded || it->second.registered ? MemoryKind::device : MemoryKind::managed;
    }
  }
  return find_allocation(p, out) ? MemoryKind::managed : MemoryKind::none;  // __managed__ variables
}

cudaError_t register_host_memory(void* ptr, std::size_t size, bool host) {
  const auto begin = reinterpret_cast<std::uintptr_t>(ptr);
  Registry& r = registry();
  std::unique_lock lock(r.mutex);
  auto it = r.allocations.lower_bound(begin);
  if (it != r.allocations.end() && it->first < begin + size) return cudaErrorHostMemoryAlreadyRegistered;
  if (it != r.allocations.begin() && std::prev(it)->first + std::prev(it)->second.size > begin)
    return std::prev(it)->second.registered ? cudaErrorHostMemoryAlreadyRegistered : cudaErrorInvalidValue;
  Mapping m{size, ptr, 0, host, g_next_id++, -1, false, false};
  m.registered = true;
  r.allocations[begin] = m;
  check::g_allocation_generation.fetch_add(1, std::memory_order_release);
  return cudaSuccess;
}
cudaError_t unregister_host_memory(void* ptr) { return release(ptr, true, true); }

}  // namespace course_cpu::detail

namespace course_cpu::detail {

bool export_allocation(const void* p, SharedAllocation* out) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  Registry& r = registry();
  std::shared_lock lock(r.mutex);
  auto it = r.allocations.upper_bound(a);
  if (it == r.allocations.begin()) return false;
  --it;
  const Mapping& m = it->second;
  if (m.host || m.fd < 0 || a >= it->first + std::max<std::size_t>(m.size, 1)) return false;
  *out = SharedAllocation{m.id, it->first, m.size, reinterpret_cast<std::uintptr_t>(m.map_base), m.map_len, m.fd};
  return true;
}

void use_worker_arena() { detail::g_arena.store(1, std::memory_order_relaxed); }

bool import_allocation(const SharedAllocation& a, std::string* why) {
  const std::size_t page = page_size();
  const std::size_t data = (a.size + 15) & ~std::size_t{15};
  if (a.fd < 0 || a.map_len < 2 * page || a.map_len % page != 0 || a.begin + data != a.map_base + a.map_len - page) {
    *why = kImportLayoutText;
    return false;
  }
  void* base = reinterpret_cast<void*>(a.map_base);
  void* got =
      mmap(base, a.map_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (got != base) {
    if (got != MAP_FAILED) munmap(got, a.map_len);
    *why = kImportAddressTakenText;
    return false;
  }
  install_fault_handler();
  std::lock_guard window(g_window_mutex);
  if (mmap(base, a.map_len - page, data_protection(true), MAP_SHARED | MAP_FIXED, a.fd, 0) == MAP_FAILED) {
    munmap(base, a.map_len);
    *why = kImportMapFailedText;
    return false;
  }
  Registry& r = registry();
  {
    std::unique_lock lock(r.mutex);
    r.allocations[a.begin] = Mapping{a.size, base, a.map_len, false, a.id, a.fd, true, true};
    r.device_bytes += a.size;
    check::g_allocation_generation.fetch_add(1, std::memory_order_release);
  }
  guard_table_insert(a.begin, a.size, true);
  return true;
}

void forget_allocation(std::uint64_t id) {
  Registry& r = registry();
  void* found = nullptr;
  {
    std::shared_lock lock(r.mutex);
    for (auto& [begin, m] : r.allocations)
      if (m.id == id && m.imported) found = reinterpret_cast<void*>(begin);
  }
  if (found) release(found, false);
}

}  // namespace course_cpu::detail

namespace course_cpu {
bool export_allocation(const void* p, SharedAllocation* out) { return detail::export_allocation(p, out); }
bool import_allocation(const SharedAllocation& a, std::string* why) { return detail::import_allocation(a, why); }
void use_worker_arena() { detail::use_worker_arena(); }
void forget_allocation(std::uint64_t id) { detail::forget_allocation(id); }
}  // namespace course_cpu

using namespace course_cpu::detail;

cudaError_t cudaMalloc(void** devPtr, std::size_t size) { return allocate(devPtr, size, false, false); }
cudaError_t cudaMallocManaged(void** devPtr, std::size_t size, unsigned int) {
  return allocate(devPtr, size, false, true);
}
cudaError_t cudaFree(void* devPtr) { return release(devPtr, false); }
cudaError_t cudaMallocHost(void** ptr, std::size_t size) { return allocate(ptr, size, true, false); }
cudaError_t cudaHostAlloc(void** ptr, std::size_t size, unsigned int) { return allocate(ptr, size, true, false); }
cudaError_t cudaFreeHost(void* ptr) { return release(ptr, true); }

cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind) {
  if (cudaError_t e = take_kernel_error(); e != cudaSuccess) return e;  // synchronizing call
  if (count == 0) return cudaSuccess;
  if (dst == nullptr || src == nullptr) return set_last_error(cudaErrorInvalidValue);
  bool dst_device = false, src_device = false;
  switch (kind) {
    case cudaMemcpyHostToHost:
      break;
    case cudaMemcpyHostToDevice:
      dst_device = true;
      break;
    case cudaMemcpyDeviceToHost:
      src_device = true;
      break;
    case cudaMemcpyDeviceToDevice:
      dst_device = src_device = true;
      break;
    case cudaMemcpyDefault:
      break;  // unified addressing: anything goes
    default:
      return set_last_error(cudaErrorInvalidMemcpyDirection);
  }
  if ((dst_device && !valid_device_range(dst, count)) || (src_device && !valid_device_range(src, count)))
    return set_last_error(cudaErrorInvalidValue);
  const DeviceAccessWindow window;
  std::memmove(dst, src, count);
  return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpy(dst, src, count, kind);
}
cudaError_t cudaMemset(void* devPtr, int value, std::size_t count) {
  if (count == 0) return cudaSuccess;
  if (!valid_device_range(devPtr, count)) return set_last_error(cudaErrorInvalidValue);
  const DeviceAccessWindow window;
  std::memset(devPtr, value, count);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* devPtr, int value, std::size_t count, cudaStream_t) {
  return cudaMemset(devPtr, value, count);
}
cudaError_t cudaMemGetInfo(std::size_t* free, std::size_t* total) {
  if (free == nullptr || total == nullptr) return set_last_error(cudaErrorInvalidValue);
  Registry& r = registry();
  std::shared_lock lock(r.mutex);
  *total = total_device_memory();
  *free = *total - r.device_bytes;
  return cudaSuccess;
}
