// CPU backend of the course: kernel attributes and the occupancy API of the CUDA runtime
// (cudaFuncGetAttributes, cudaFuncSetAttribute, cudaOccupancy*), included by <cuda_runtime.h>.
//
// The CPU has no SMs to fill, so occupancy comes from a model of one sm_90 SM (H100/H200), the course GPU, applied
// to the kernel's real block size and shared memory (src/occupancy.cpp; docs/cpu-backend.md). A kernel's static
// __shared__ arrays are measured: course-rewrite notes each array's size for its kernel (StaticSharedNote below).
#pragma once

#include <cstddef>

enum cudaSharedCarveout {
  cudaSharedmemCarveoutDefault = -1,
  cudaSharedmemCarveoutMaxShared = 100,
  cudaSharedmemCarveoutMaxL1 = 0
};

// Filled by cudaFuncGetAttributes; the fields of CUDA 12's struct, in its order.
struct cudaFuncAttributes {
  std::size_t sharedSizeBytes;  // static __shared__ arrays declared in the kernel's body
  std::size_t constSizeBytes;
  std::size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;  // not known on the CPU: the model's assumption (src/occupancy.cpp)
  int ptxVersion;
  int binaryVersion;  // 0: no GPU code (the CPU is compute capability 0.0)
  int cacheModeCA;
  int maxDynamicSharedSizeBytes;
  int preferredShmemCarveout;
  int clusterDimMustBeSet;
  int requiredClusterWidth;
  int requiredClusterHeight;
  int requiredClusterDepth;
  int clusterSchedulingPolicyPreference;
  int nonPortableClusterSizeAllowed;
  int reserved[16];
};

#define cudaOccupancyDefault 0x00
#define cudaOccupancyDisableCachingOverride 0x01

namespace course_cpu::detail {
cudaError_t set_kernel_attribute(const void* kernel, cudaFuncAttribute attr, int value);
cudaError_t kernel_attributes(const void* kernel, cudaFuncAttributes* out);
// Blocks of `block_size` threads with `dynamic_bytes` of dynamic shared memory that one SM holds at once.
cudaError_t occupancy_blocks(const void* kernel, int block_size, std::size_t dynamic_bytes, int* blocks);
// The dynamic shared memory per block that still lets `blocks` blocks of `block_size` threads share one SM.
cudaError_t occupancy_dynamic_shared(const void* kernel, int blocks, int block_size, std::size_t* bytes);
// Called once per static __shared__ array of a kernel (`id`: the declaration), before main.
bool note_static_shared(const void* kernel, std::size_t bytes, int id);

// course-rewrite puts `static_cast<void>(StaticSharedNote<&kernel, sizeof(array), id>::noted);` after each
// __shared__ array declared in a __global__ function's body: instantiating the kernel instantiates the note, whose
// initialization records the array's size for that kernel (or that specialization of a kernel template).
template <auto Kernel, std::size_t Bytes, int Id>
struct StaticSharedNote {
  static inline const bool noted = note_static_shared(reinterpret_cast<const void*>(Kernel), Bytes, Id);
};

// The most static shared memory a kernel may declare: ptxas stops with "uses too much shared data (..., 0xc000 max)"
// past it. course-rewrite puts `static_assert(StaticSharedFits<&kernel, bytes>::value, ...)` after each __shared__
// declaration in a kernel's body, `bytes` summing the kernel's arrays in scope there; through &kernel it is checked
// only for a kernel template's specializations that are used, as ptxas sees only those.
inline constexpr std::size_t kMaxStaticShared = 48 * 1024;
template <auto Kernel, std::size_t Bytes>
struct StaticSharedFits {
  static constexpr bool value = Bytes <= kMaxStaticShared;
};
}  // namespace course_cpu::detail

#define COURSE_CPU_STATIC_SHARED_TOO_LARGE                                                                            \
  "this kernel's static __shared__ arrays take more than 48 KB (49152 bytes), which nvcc rejects (ptxas: \"uses "     \
  "too much shared data\"). Make the tiles smaller, or use dynamic shared memory (extern __shared__, its size given " \
  "at the launch) with cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) beyond 48 KB"

// Takes any kernel (function pointer); the dynamic shared memory limit takes effect at launches, the carveout in the
// occupancy model.
template <class F>
inline cudaError_t cudaFuncSetAttribute(F* kernel, cudaFuncAttribute attr, int value) {
  return course_cpu::detail::set_kernel_attribute(reinterpret_cast<const void*>(kernel), attr, value);
}
template <class F>
inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, F* kernel) {
  return course_cpu::detail::kernel_attributes(reinterpret_cast<const void*>(kernel), attr);
}
template <class F>
inline cudaError_t cudaFuncSetCacheConfig(F*, cudaFuncCache) {
  return cudaSuccess;
}

template <class F>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, F* kernel, int blockSize,
                                                                 std::size_t dynamicSMemSize) {
  return course_cpu::detail::occupancy_blocks(reinterpret_cast<const void*>(kernel), blockSize, dynamicSMemSize,
                                              numBlocks);
}
template <class F>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, F* kernel, int blockSize,
                                                                          std::size_t dynamicSMemSize, unsigned int) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, kernel, blockSize, dynamicSMemSize);
}
template <class F>
inline cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(std::size_t* dynamicSmemSize, F* kernel, int numBlocks,
                                                             int blockSize) {
  return course_cpu::detail::occupancy_dynamic_shared(reinterpret_cast<const void*>(kernel), numBlocks, blockSize,
                                                      dynamicSmemSize);
}

// The block size (a multiple of 32, at most blockSizeLimit when given) with the most resident threads per SM, the
// largest of equals; *minGridSize: that many blocks per SM times the SMs. As CUDA's cuda_occupancy.h searches.
template <class F, class SharedOfBlockSize>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(int* minGridSize, int* blockSize, F* kernel,
                                                                  SharedOfBlockSize blockSizeToDynamicSMemSize,
                                                                  int blockSizeLimit = 0) {
  if (minGridSize == nullptr || blockSize == nullptr || blockSizeLimit < 0) return cudaErrorInvalidValue;
  cudaFuncAttributes attr;
  cudaError_t e = cudaFuncGetAttributes(&attr, kernel);
  int device = 0, sms = 0, per_sm_threads = 0;
  if (e == cudaSuccess) e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&per_sm_threads, cudaDevAttrMaxThreadsPerMultiProcessor, device);
  if (e != cudaSuccess) return e;
  const int limit =
      blockSizeLimit > 0 && blockSizeLimit < attr.maxThreadsPerBlock ? blockSizeLimit : attr.maxThreadsPerBlock;
  int best_threads = 0, best_size = 0, best_blocks = 0;
  for (int aligned = (limit + 31) / 32 * 32; aligned > 0; aligned -= 32) {
    const int size = aligned < limit ? aligned : limit;
    int blocks = 0;
    e = course_cpu::detail::occupancy_blocks(reinterpret_cast<const void*>(kernel), size,
                                             static_cast<std::size_t>(blockSizeToDynamicSMemSize(size)), &blocks);
    if (e != cudaSuccess) return e;
    if (blocks * size > best_threads) {
      best_threads = blocks * size;
      best_size = size;
      best_blocks = blocks;
    }
    if (best_threads == per_sm_threads) break;
  }
  *minGridSize = best_blocks * sms;
  *blockSize = best_size;
  return cudaSuccess;
}
template <class F>
inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int* minGridSize, int* blockSize, F* kernel,
                                                      std::size_t dynamicSMemSize = 0, int blockSizeLimit = 0) {
  return cudaOccupancyMaxPotentialBlockSizeVariableSMem(
      minGridSize, blockSize, kernel, [dynamicSMemSize](int) { return dynamicSMemSize; }, blockSizeLimit);
}
template <class F>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(int* minGridSize, int* blockSize, F* kernel,
                                                               std::size_t dynamicSMemSize, int blockSizeLimit,
                                                               unsigned int) {
  return cudaOccupancyMaxPotentialBlockSize(minGridSize, blockSize, kernel, dynamicSMemSize, blockSizeLimit);
}
