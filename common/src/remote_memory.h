// Device memory that the judge and the worker share (course/remote.h).
//   CPU backend: every cudaMalloc is a memfd; the worker maps it at the same address (course_cpu/sharing.h).
//   GPU: the judge allocates through the CUDA virtual memory API with a POSIX file descriptor as the shareable handle
//        (cuMemCreate + cuMemExportToShareableHandle): the descriptor crosses the sandbox like any other, where legacy
//        CUDA IPC handles need the two processes in one PID namespace. The buffer ends where the mapping ends, with
//        an unmapped reserved range after it, so a kernel that writes past the end faults instead of corrupting.
#pragma once

#include "remote_wire.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace course::remote {

// Judge: the shareable allocation containing `p`: its description and the descriptor to attach (owned by the
// allocation: do not close it). False when `p` is in no device allocation of this process.
bool export_pointer(const void* p, wire::Allocation* out, int* fd, std::uint64_t* offset);

#if !defined(COURSE_BACKEND_CPU)
// Judge, GPU: course::allocate_device_bytes / free_device_bytes in judge builds (shareable VMM allocations).
void* allocate_shared(std::size_t bytes, cudaError_t* error);
bool free_shared(void* p);  // false: not such an allocation
#endif

// Worker: maps an exported allocation (takes ownership of `fd`); false and why when it cannot.
bool import_allocation(const wire::Allocation& allocation, int fd, std::string* why);
// Worker: the local address of byte `offset` of allocation `id`, or nullptr when unknown / out of range.
void* local_address(std::uint64_t id, std::uint64_t offset);
// Worker: unmaps allocation `id`.
void forget_allocation(std::uint64_t id);

}  // namespace course::remote
