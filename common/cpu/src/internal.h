// CPU backend of the course: declarations shared by the runtime's sources.
#pragma once

#include <course_cpu/diagnostics.h>
#include <course_cpu/launch.h>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace course_cpu::check {
struct GlobalWord;  // course_cpu/check_fast_path.h
}  // namespace course_cpu::check

namespace course_cpu::detail {

// ---- errors (errors.cpp) ---------------------------------------------------
// A failed API call or launch sets the "last error" (cudaGetLastError).
cudaError_t set_last_error(cudaError_t e);
// A kernel that failed while running also fails the next synchronizing call.
void set_kernel_error(cudaError_t e);
cudaError_t take_kernel_error();
void reset_errors();

// ---- device memory (memory.cpp) --------------------------------------------
struct Allocation {
  std::uintptr_t begin = 0;
  std::size_t size = 0;
  bool host = false;                    // cudaMallocHost (pinned host memory is device-accessible)
  check::GlobalWord* shadow = nullptr;  // check mode: its words' last writers, once a kernel has stored to it
};
// The allocation containing p (begin <= p < begin + size).
bool find_allocation(const void* p, Allocation* out);
// The shadow of the allocation that starts at begin (check_fast_path.h's GlobalWord), made on first use; null if
// there is no such allocation or no room for its shadow.
check::GlobalWord* global_shadow(std::uintptr_t begin);
// The allocation whose guard page (right after its end) contains p.
// Lock-free; only for the fault handler.
bool find_guarded_allocation(const void* p, Allocation* out);
// Device memory (cudaMalloc) is PROT_NONE to this process while no window is open, as host code cannot touch it on a
// GPU; a kernel launch and the runtime's own copies open one. Windows nest and may be opened from any thread.
class DeviceAccessWindow {
 public:
  DeviceAccessWindow();
  ~DeviceAccessWindow();
  DeviceAccessWindow(const DeviceAccessWindow&) = delete;
  DeviceAccessWindow& operator=(const DeviceAccessWindow&) = delete;
};
// The device allocation containing p, while no window is open (a host access to it faults). Lock-free; only for the
// fault handler.
bool find_device_allocation_closed_to_host(const void* p, Allocation* out);
void install_fault_handler();           // once per process (fault_handler.cpp)
std::uint64_t allocation_generation();  // changes on every malloc/free
void release_all_allocations();         // cudaDeviceReset
std::size_t total_device_memory();      // what cudaMemGetInfo reports
// What kind of memory p points into (none: not the runtime's); its allocation.
enum class MemoryKind { none, device, managed, host };
MemoryKind memory_kind(const void* p, Allocation* out);
// cudaHostRegister / cudaHostUnregister: the range counts as pinned host memory (find_allocation finds it); with
// host false, as device memory (a __device__ variable whose address the program took: cudaGetSymbolAddress).
cudaError_t register_host_memory(void* ptr, std::size_t size, bool host = true);
cudaError_t unregister_host_memory(void* ptr);

// ---- configuration (device.cpp) ---------------------------------------------
int worker_count();               // COURSE_CPU_THREADS or hardware concurrency
std::size_t fiber_stack_bytes();  // COURSE_CPU_STACK_KB, default 256 KiB
// ---- kernel attributes (kernel_attributes.cpp) --------------------------------
std::size_t dynamic_shared_limit(const void* kernel);  // what a launch may ask for
std::size_t static_shared_bytes(const void* kernel);   // its static __shared__ arrays (0 if not known)
std::size_t max_dynamic_shared(const void* kernel);    // cudaFuncAttributes::maxDynamicSharedSizeBytes
int preferred_carveout(const void* kernel);            // percent, or -1 (no preference)

// CUDA's launch limits and those of one sm_90 SM (H100, H200): what a launch is
// checked against (launch_config.cpp), what cudaGetDeviceProperties reports,
// and the occupancy model (occupancy.cpp).
constexpr std::size_t kDefaultSharedPerBlock = 48 * 1024;
constexpr std::size_t kMaxSharedPerBlockOptin = 227 * 1024;
constexpr std::size_t kSharedPerMultiprocessor = 228 * 1024;
constexpr std::size_t kReservedSharedPerBlock = 1024;  // held by the runtime for every resident block (sm_80+)
constexpr int kThreadsPerMultiprocessor = 2048;
constexpr int kBlocksPerMultiprocessor = 32;
constexpr int kRegistersPerMultiprocessor = 65536;
constexpr unsigned kMaxThreadsPerBlock = 1024;
constexpr unsigned kMaxBlockDim[3] = {1024, 1024, 64};
constexpr unsigned kMaxGridDim[3] = {2147483647u, 65535, 65535};

// ---- diagnostics (diagnostics.cpp) ----------------------------------------------
// Formatting helpers used in messages.
std::string format_index(const uint3& v, const dim3& dims);   // "(1,0)" or "(1,0,2)"
std::string format_ranges(const std::vector<unsigned>& ids);  // "0..15, 32..47"
std::string ordinal(int n);                                   // "1st", "2nd", ...

// Collects a launch's findings on one worker; merged deterministically at the
// end of the launch. `order` is (block linear id, thread linear id): lower wins.
class DiagnosticSink {
 public:
  void add(const char* category, const char* file, int line, const char* variable, std::uint64_t block, unsigned thread,
           const std::function<std::string()>& message);
  void clear() { entries_.clear(); }

  struct Entry {
    const char* category;
    const char* file;
    int line;
    const char* variable;
    std::uint64_t block;
    unsigned thread;
    std::string message;
    std::size_t count;
  };
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
};

// Merges the sinks of all workers, stores the result for take_diagnostics()
// and prints it to stderr (unless COURSE_CPU_QUIET is set).
void publish_diagnostics(const std::vector<const DiagnosticSink*>& sinks);
// Records a diagnostic outside kernels (invalid launch).
void publish_single(const char* category, const char* file, int line, std::string message);

struct BankKey {
  const char* file;
  int line;
  const char* variable;
  bool store;
  bool operator<(const BankKey& o) const;
};
struct BankStats {
  std::uint64_t requests = 0, wavefronts = 0;
  int max_degree = 0;
};
void publish_bank_stats(const std::vector<std::pair<BankKey, BankStats>>& stats);
void mark_check_mode_active();

}  // namespace course_cpu::detail
