#include "remote_memory.h"

#include <unistd.h>

#include <cstring>
#include <map>
#include <mutex>

#if defined(COURSE_BACKEND_CPU)
#include <course_cpu/sharing.h>
#else
#include <cuda.h>
#endif

namespace course::remote {

namespace {

struct Imported {
  std::uint64_t id;
  std::uintptr_t begin;  // the buffer's first byte, locally
  std::uint64_t size;
};
std::map<std::uint64_t, Imported>& imported() {
  static std::map<std::uint64_t, Imported> map;
  return map;
}

}  // namespace

void* local_address(std::uint64_t id, std::uint64_t offset) {
  const auto it = imported().find(id);
  if (it == imported().end() || offset > it->second.size) return nullptr;  // one past the end is a valid pointer
  return reinterpret_cast<void*>(it->second.begin + offset);
}

#if defined(COURSE_BACKEND_CPU)

bool export_pointer(const void* p, wire::Allocation* out, int* fd, std::uint64_t* offset) {
  course_cpu::SharedAllocation a{};
  if (!course_cpu::export_allocation(p, &a)) return false;
  std::memset(out, 0, sizeof *out);
  *out = wire::Allocation{a.id, a.begin, a.size, a.map_base, a.map_len, {}};
  *fd = a.fd;
  *offset = reinterpret_cast<std::uintptr_t>(p) - a.begin;
  return true;
}

bool import_allocation(const wire::Allocation& a, int fd, std::string* why) {
  const course_cpu::SharedAllocation shared{a.id, a.begin, a.size, a.map_base, a.map_len, fd};
  if (!course_cpu::import_allocation(shared, why)) {
    close(fd);
    return false;
  }
  imported()[a.id] = Imported{a.id, a.begin, a.size};
  return true;
}

void forget_allocation(std::uint64_t id) {
  course_cpu::forget_allocation(id);
  imported().erase(id);
}

#else  // GPU

namespace {

// The driver's virtual-memory calls, looked up through the runtime (cudaGetDriverEntryPointByVersion) rather than
// linked: a program linked with libcuda does not even start on a machine without the driver (CI builds and lists
// the GPU tests there), and the runtime finds the driver the same way it always does.
struct Driver {
  decltype(&::cuMemGetAllocationGranularity) granularity = nullptr;
  decltype(&::cuMemCreate) create = nullptr;
  decltype(&::cuMemRelease) release = nullptr;
  decltype(&::cuMemAddressReserve) reserve = nullptr;
  decltype(&::cuMemAddressFree) address_free = nullptr;
  decltype(&::cuMemMap) map = nullptr;
  decltype(&::cuMemUnmap) unmap = nullptr;
  decltype(&::cuMemSetAccess) set_access = nullptr;
  decltype(&::cuMemExportToShareableHandle) export_handle = nullptr;
  decltype(&::cuMemImportFromShareableHandle) import_handle = nullptr;
  bool ok = false;
};

template <class F>
bool entry(const char* name, F* out) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult status{};
  if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &status) != cudaSuccess ||
      status != cudaDriverEntryPointSuccess || p == nullptr)
    return false;
  *out = reinterpret_cast<F>(p);
  return true;
}

const Driver& driver() {
  static const Driver d = [] {
    Driver x;
    x.ok = entry("cuMemGetAllocationGranularity", &x.granularity) && entry("cuMemCreate", &x.create) &&
           entry("cuMemRelease", &x.release) && entry("cuMemAddressReserve", &x.reserve) &&
           entry("cuMemAddressFree", &x.address_free) && entry("cuMemMap", &x.map) && entry("cuMemUnmap", &x.unmap) &&
           entry("cuMemSetAccess", &x.set_access) && entry("cuMemExportToShareableHandle", &x.export_handle) &&
           entry("cuMemImportFromShareableHandle", &x.import_handle);
    return x;
  }();
  return d;
}

struct Exported {
  std::uint64_t id;
  CUdeviceptr map_base;
  std::size_t mapped;    // bytes mapped (a multiple of the granularity)
  std::size_t reserved;  // mapped + one granule left unmapped after the buffer
  CUdeviceptr begin;
  std::size_t size;
  CUmemGenericAllocationHandle handle;
  int fd;
};

std::mutex g_mutex;
std::map<CUdeviceptr, Exported>& exported() {  // by begin
  static std::map<CUdeviceptr, Exported> map;
  return map;
}
std::uint64_t g_next_id = 1;

struct Mapped {
  CUdeviceptr map_base;
  std::size_t mapped, reserved;
  CUmemGenericAllocationHandle handle;
};
std::map<std::uint64_t, Mapped>& mapped() {
  static std::map<std::uint64_t, Mapped> map;
  return map;
}

CUmemAllocationProp properties(int device) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return prop;
}

bool map_and_enable(CUdeviceptr base, std::size_t mapped, CUmemGenericAllocationHandle handle, int device) {
  if (driver().map(base, mapped, 0, handle, 0) != CUDA_SUCCESS) return false;
  CUmemAccessDesc access{};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = device;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  if (driver().set_access(base, mapped, &access, 1) != CUDA_SUCCESS) {
    driver().unmap(base, mapped);
    return false;
  }
  return true;
}

}  // namespace

// The judge's device allocations (course::allocate_device_bytes in judge builds).
void* allocate_shared(std::size_t bytes, cudaError_t* error) {
  int device = 0;
  cudaGetDevice(&device);
  cudaFree(nullptr);  // the runtime's primary context is current from here on
  if (!driver().ok) {
    *error = cudaErrorInsufficientDriver;
    return nullptr;
  }
  const CUmemAllocationProp prop = properties(device);
  std::size_t granule = 0;
  if (driver().granularity(&granule, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS) {
    *error = cudaErrorMemoryAllocation;
    return nullptr;
  }
  const std::size_t size256 = (bytes + 255) / 256 * 256;
  const std::size_t mapped = (size256 + granule - 1) / granule * granule;
  const std::size_t reserved = mapped + granule;
  Exported e{0, 0, mapped, reserved, 0, bytes, 0, -1};
  if (driver().create(&e.handle, mapped, &prop, 0) != CUDA_SUCCESS) {
    *error = cudaErrorMemoryAllocation;
    return nullptr;
  }
  if (driver().reserve(&e.map_base, reserved, granule, 0, 0) != CUDA_SUCCESS) {
    driver().release(e.handle);
    *error = cudaErrorMemoryAllocation;
    return nullptr;
  }
  if (!map_and_enable(e.map_base, mapped, e.handle, device) ||
      driver().export_handle(&e.fd, e.handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) != CUDA_SUCCESS) {
    driver().address_free(e.map_base, reserved);
    driver().release(e.handle);
    *error = cudaErrorMemoryAllocation;
    return nullptr;
  }
  e.begin = e.map_base + mapped - size256;  // the buffer ends (to 256 bytes) where the mapping ends
  std::lock_guard lock(g_mutex);
  e.id = g_next_id++;
  exported()[e.begin] = e;
  *error = cudaSuccess;
  return reinterpret_cast<void*>(e.begin);
}

bool free_shared(void* p) {
  Exported e{};
  {
    std::lock_guard lock(g_mutex);
    const auto it = exported().find(reinterpret_cast<CUdeviceptr>(p));
    if (it == exported().end()) return false;
    e = it->second;
    exported().erase(it);
  }
  cudaDeviceSynchronize();
  driver().unmap(e.map_base, e.mapped);
  driver().address_free(e.map_base, e.reserved);
  driver().release(e.handle);
  close(e.fd);
  return true;
}

bool export_pointer(const void* p, wire::Allocation* out, int* fd, std::uint64_t* offset) {
  const auto a = reinterpret_cast<CUdeviceptr>(p);
  std::lock_guard lock(g_mutex);
  auto it = exported().upper_bound(a);
  if (it == exported().begin()) return false;
  --it;
  const Exported& e = it->second;
  if (a > e.begin + e.size) return false;
  std::memset(out, 0, sizeof *out);
  out->id = e.id;
  out->begin = e.begin - e.map_base;  // the buffer's offset in its mapping
  out->size = e.size;
  out->map_base = 0;
  out->map_len = e.mapped;
  *fd = e.fd;
  *offset = a - e.begin;
  return true;
}

bool import_allocation(const wire::Allocation& a, int fd, std::string* why) {
  int device = 0;
  cudaGetDevice(&device);
  cudaFree(nullptr);
  if (!driver().ok) {
    close(fd);
    *why = "the CUDA driver has no virtual-memory calls";
    return false;
  }
  const CUmemAllocationProp prop = properties(device);
  std::size_t granule = 0;
  driver().granularity(&granule, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
  if (granule == 0 || a.map_len == 0 || a.map_len % granule != 0 || a.begin + a.size > a.map_len + 256) {
    close(fd);
    *why = "an allocation with an impossible layout";
    return false;
  }
  Mapped m{0, a.map_len, a.map_len + granule, 0};
  if (driver().import_handle(&m.handle, reinterpret_cast<void*>(static_cast<std::uintptr_t>(fd)),
                             CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) != CUDA_SUCCESS) {
    close(fd);
    *why = "importing a device buffer failed";
    return false;
  }
  close(fd);
  if (driver().reserve(&m.map_base, m.reserved, granule, 0, 0) != CUDA_SUCCESS) {
    driver().release(m.handle);
    *why = "reserving addresses for a device buffer failed";
    return false;
  }
  if (!map_and_enable(m.map_base, m.mapped, m.handle, device)) {
    driver().address_free(m.map_base, m.reserved);
    driver().release(m.handle);
    *why = "mapping a device buffer failed";
    return false;
  }
  mapped()[a.id] = m;
  imported()[a.id] = Imported{a.id, static_cast<std::uintptr_t>(m.map_base + a.begin), a.size};
  return true;
}

void forget_allocation(std::uint64_t id) {
  const auto it = mapped().find(id);
  if (it == mapped().end()) return;
  cudaDeviceSynchronize();
  driver().unmap(it->second.map_base, it->second.mapped);
  driver().address_free(it->second.map_base, it->second.reserved);
  driver().release(it->second.handle);
  mapped().erase(it);
  imported().erase(id);
}

#endif

}  // namespace course::remote
