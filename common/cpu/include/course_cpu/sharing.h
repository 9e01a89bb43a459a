// CPU backend of the course: sharing device memory with another process (the judge/worker split, course/remote.h).
// Every device allocation is a memfd mapped at an address the worker can map it at too: the judge exports an
// allocation (its memfd travels over a Unix socket), the worker imports it at the same address, so a device pointer
// names the same bytes in both, and check mode in the worker knows the buffer's bounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace course_cpu {

struct SharedAllocation {
  std::uint64_t id;         // unique in the exporting process
  std::uintptr_t begin;     // the first byte (the device pointer cudaMalloc returned)
  std::size_t size;         // bytes requested
  std::uintptr_t map_base;  // the mapping, guard page included
  std::size_t map_len;
  int fd;  // the memfd (owned by the allocation in the exporter; by the import after a successful import)
};

// The device allocation containing p; false for host memory or an address in no allocation.
bool export_allocation(const void* p, SharedAllocation* out);
// Maps an exported allocation at the same address; false (and why) when that cannot be done.
bool import_allocation(const SharedAllocation& allocation, std::string* why);
// Unmaps an imported allocation (the exporter freed it).
void forget_allocation(std::uint64_t id);
// The address ranges of device allocations (memory.cpp): a judge's, and any process's that is not a worker, then a
// worker's own; 32 TiB each.
inline constexpr std::uintptr_t kDeviceArenaStart[2] = {std::uintptr_t{0x2000} << 32, std::uintptr_t{0x4000} << 32};
inline constexpr std::uintptr_t kDeviceArenaSize = std::uintptr_t{0x2000} << 32;

// Called once by a worker before any allocation: its own device allocations then come from an address range apart
// from the judge's, so that every allocation the judge exports can be mapped at its address here.
void use_worker_arena();

}  // namespace course_cpu
