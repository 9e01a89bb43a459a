// CPU backend of the course: a stand-in for CUDA's <cuda_runtime.h> so that
// host C++ (g++) compiles code written against the CUDA runtime API.
//
// The "device" is the CPU itself (device 0). Every call is synchronous;
// streams are accepted and ignored. Names and numeric error codes are CUDA's,
// so code that prints or compares them behaves as on a GPU.
#pragma once

#include <vector_types.h>

#include <cstddef>
#include <cstring>

#define COURSE_CPU_BACKEND 1
#define CUDART_VERSION 12000

// ---------------------------------------------------------------- errors ---
enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorCudartUnloading = 4,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidPitchValue = 12,
  cudaErrorInvalidSymbol = 13,
  cudaErrorInvalidHostPointer = 16,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInsufficientDriver = 35,
  cudaErrorMissingConfiguration = 52,
  cudaErrorInvalidDeviceFunction = 98,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorNoKernelImageForDevice = 209,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorLaunchTimeout = 702,
  cudaErrorAssert = 710,
  cudaErrorHostMemoryAlreadyRegistered = 712,
  cudaErrorHostMemoryNotRegistered = 713,
  cudaErrorIllegalInstruction = 715,
  cudaErrorMisalignedAddress = 716,
  cudaErrorLaunchFailure = 719,
  cudaErrorNotPermitted = 800,
  cudaErrorNotSupported = 801,
  cudaErrorStreamCaptureUnsupported = 900,
  cudaErrorUnknown = 999
};
typedef enum cudaError cudaError_t;

const char* cudaGetErrorString(cudaError_t error);
const char* cudaGetErrorName(cudaError_t error);
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();

// ---------------------------------------------------------------- memory ---
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};

struct CUstream_st;
typedef CUstream_st* cudaStream_t;  // 0 (nullptr) is the default stream
struct CUevent_st;
typedef CUevent_st* cudaEvent_t;

cudaError_t cudaMalloc(void** devPtr, std::size_t size);
cudaError_t cudaMallocManaged(void** devPtr, std::size_t size, unsigned int flags = 1);
cudaError_t cudaFree(void* devPtr);
cudaError_t cudaMallocHost(void** ptr, std::size_t size);
cudaError_t cudaHostAlloc(void** ptr, std::size_t size, unsigned int flags);
cudaError_t cudaFreeHost(void* ptr);
cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream = 0);
cudaError_t cudaMemset(void* devPtr, int value, std::size_t count);
cudaError_t cudaMemsetAsync(void* devPtr, int value, std::size_t count, cudaStream_t stream = 0);
cudaError_t cudaMemGetInfo(std::size_t* free, std::size_t* total);

#include <course_cpu/runtime_memory.h>  // registered host memory, 2D copies, hints, pointer attributes

// Typed convenience overloads, as in CUDA's cuda_runtime.h.
template <class T>
inline cudaError_t cudaMalloc(T** devPtr, std::size_t size) {
  return cudaMalloc(reinterpret_cast<void**>(devPtr), size);
}
template <class T>
inline cudaError_t cudaMallocManaged(T** devPtr, std::size_t size, unsigned int flags = 1) {
  return cudaMallocManaged(reinterpret_cast<void**>(devPtr), size, flags);
}
template <class T>
inline cudaError_t cudaMallocHost(T** ptr, std::size_t size) {
  return cudaMallocHost(reinterpret_cast<void**>(ptr), size);
}
template <class T>
inline cudaError_t cudaHostAlloc(T** ptr, std::size_t size, unsigned int flags) {
  return cudaHostAlloc(reinterpret_cast<void**>(ptr), size, flags);
}
template <class T>
inline cudaError_t cudaMallocPitch(T** devPtr, std::size_t* pitch, std::size_t width, std::size_t height) {
  return cudaMallocPitch(reinterpret_cast<void**>(devPtr), pitch, width, height);
}
template <class T>
inline cudaError_t cudaMallocAsync(T** devPtr, std::size_t size, cudaStream_t stream) {
  return cudaMallocAsync(reinterpret_cast<void**>(devPtr), size, stream);
}
template <class T>
inline cudaError_t cudaHostGetDevicePointer(T** pDevice, void* pHost, unsigned int flags) {
  return cudaHostGetDevicePointer(reinterpret_cast<void**>(pDevice), pHost, flags);
}

// __constant__ and __device__ variables are ordinary host variables here.
template <class T>
inline cudaError_t cudaMemcpyToSymbol(T& symbol, const void* src, std::size_t count, std::size_t offset = 0,
                                      cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  if (offset + count > sizeof(T)) return cudaErrorInvalidValue;
  (void)kind;  // src may be device memory (cudaMemcpyDeviceToDevice): cudaMemcpy may read it
  // (a volatile symbol, `__device__ volatile int flags[16]`, is copied too, as nvcc's cast to void* does)
  char* bytes = const_cast<char*>(reinterpret_cast<const volatile char*>(&symbol));
  return cudaMemcpy(bytes + offset, src, count, cudaMemcpyDefault);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, std::size_t count, std::size_t offset = 0,
                                        cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  if (offset + count > sizeof(T)) return cudaErrorInvalidValue;
  (void)kind;  // dst may be device memory (cudaMemcpyDeviceToDevice): cudaMemcpy may write it
  const char* bytes = const_cast<const char*>(reinterpret_cast<const volatile char*>(&symbol));
  return cudaMemcpy(dst, bytes + offset, count, cudaMemcpyDefault);
}
template <class T>
inline cudaError_t cudaMemcpyToSymbolAsync(T& symbol, const void* src, std::size_t count, std::size_t offset = 0,
                                           cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t = 0) {
  return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const T& symbol, std::size_t count, std::size_t offset = 0,
                                             cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t = 0) {
  return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}
// A __device__ variable's device address is its address; from then on the runtime knows it as device memory (a
// kernel given the address accesses it in check mode too).
namespace course_cpu::detail {
void register_symbol(void* symbol, std::size_t size);
}  // namespace course_cpu::detail
template <class T>
inline cudaError_t cudaGetSymbolAddress(void** devPtr, T& symbol) {
  if (devPtr == nullptr) return cudaErrorInvalidValue;
  *devPtr = const_cast<void*>(static_cast<const volatile void*>(&symbol));
  course_cpu::detail::register_symbol(*devPtr, sizeof(T));
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaGetSymbolSize(std::size_t* size, const T& symbol) {
  (void)symbol;
  if (size == nullptr) return cudaErrorInvalidValue;
  *size = sizeof(T);
  return cudaSuccess;
}

// ---------------------------------------------------------------- device ---
struct cudaDeviceProp {
  char name[256];
  std::size_t totalGlobalMem;
  std::size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  std::size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;  // kHz
  std::size_t totalConstMem;
  int major;  // 0.0: this is not a GPU
  int minor;
  std::size_t textureAlignment;
  int deviceOverlap;
  int multiProcessorCount;  // = CPU worker threads
  int kernelExecTimeoutEnabled;
  int integrated;
  int canMapHostMemory;
  int computeMode;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int asyncEngineCount;
  int unifiedAddressing;
  int memoryClockRate;  // kHz
  int memoryBusWidth;   // bits
  int l2CacheSize;      // bytes
  int maxThreadsPerMultiProcessor;
  std::size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  int managedMemory;
  int concurrentManagedAccess;
  std::size_t sharedMemPerBlockOptin;
  int maxBlocksPerMultiProcessor;
  int persistingL2CacheMaxSize;
  std::size_t reservedSharedMemPerBlock;
  int cooperativeLaunch;
};

enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxBlockDimX = 2,
  cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4,
  cudaDevAttrMaxGridDimX = 5,
  cudaDevAttrMaxGridDimY = 6,
  cudaDevAttrMaxGridDimZ = 7,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrTotalConstantMemory = 9,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMaxPitch = 11,
  cudaDevAttrMaxRegistersPerBlock = 12,
  cudaDevAttrClockRate = 13,
  cudaDevAttrTextureAlignment = 14,
  cudaDevAttrGpuOverlap = 15,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrKernelExecTimeout = 17,
  cudaDevAttrIntegrated = 18,
  cudaDevAttrCanMapHostMemory = 19,
  cudaDevAttrComputeMode = 20,
  cudaDevAttrConcurrentKernels = 31,
  cudaDevAttrEccEnabled = 32,
  cudaDevAttrPciBusId = 33,
  cudaDevAttrPciDeviceId = 34,
  cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37,
  cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrAsyncEngineCount = 40,
  cudaDevAttrUnifiedAddressing = 41,
  cudaDevAttrPciDomainId = 50,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrStreamPrioritiesSupported = 78,
  cudaDevAttrGlobalL1CacheSupported = 79,
  cudaDevAttrLocalL1CacheSupported = 80,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxRegistersPerMultiprocessor = 82,
  cudaDevAttrManagedMemory = 83,
  cudaDevAttrIsMultiGpuBoard = 84,
  cudaDevAttrHostNativeAtomicSupported = 86,
  cudaDevAttrSingleToDoublePrecisionPerfRatio = 87,
  cudaDevAttrPageableMemoryAccess = 88,
  cudaDevAttrConcurrentManagedAccess = 89,
  cudaDevAttrComputePreemptionSupported = 90,
  cudaDevAttrCooperativeLaunch = 95,
  cudaDevAttrCooperativeMultiDeviceLaunch = 96,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
  cudaDevAttrMaxBlocksPerMultiprocessor = 106,
  cudaDevAttrMaxPersistingL2CacheSize = 108,
  cudaDevAttrMaxAccessPolicyWindowSize = 109,
  cudaDevAttrReservedSharedMemoryPerBlock = 111,
  cudaDevAttrMemoryPoolsSupported = 115
};

cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaDeviceReset();
cudaError_t cudaRuntimeGetVersion(int* runtimeVersion);
cudaError_t cudaDriverGetVersion(int* driverVersion);

enum cudaFuncCache {
  cudaFuncCachePreferNone = 0,
  cudaFuncCachePreferShared = 1,
  cudaFuncCachePreferL1 = 2,
  cudaFuncCachePreferEqual = 3
};
inline cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return cudaSuccess; }
inline cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache* config) {
  if (config == nullptr) return cudaErrorInvalidValue;
  *config = cudaFuncCachePreferNone;
  return cudaSuccess;
}
// sm_90 has 4-byte banks only: the setting is accepted and changes nothing.
enum cudaSharedMemConfig {
  cudaSharedMemBankSizeDefault = 0,
  cudaSharedMemBankSizeFourByte = 1,
  cudaSharedMemBankSizeEightByte = 2
};
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig config);
cudaError_t cudaDeviceGetSharedMemConfig(cudaSharedMemConfig* config);
template <class F>
inline cudaError_t cudaFuncSetSharedMemConfig(F*, cudaSharedMemConfig config) {
  return cudaDeviceSetSharedMemConfig(config);
}

#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceScheduleSpin 0x01
#define cudaDeviceScheduleYield 0x02
#define cudaDeviceScheduleBlockingSync 0x04
#define cudaDeviceBlockingSync 0x04
#define cudaDeviceScheduleMask 0x07
#define cudaDeviceMapHost 0x08
#define cudaDeviceLmemResizeToMax 0x10
#define cudaDeviceMask 0x1f
cudaError_t cudaSetDeviceFlags(unsigned int flags);
cudaError_t cudaGetDeviceFlags(unsigned int* flags);
inline cudaError_t cudaThreadSynchronize() { return cudaDeviceSynchronize(); }

enum cudaLimit {
  cudaLimitStackSize = 0x00,
  cudaLimitPrintfFifoSize = 0x01,
  cudaLimitMallocHeapSize = 0x02,
  cudaLimitDevRuntimeSyncDepth = 0x03,
  cudaLimitDevRuntimePendingLaunchCount = 0x04,
  cudaLimitMaxL2FetchGranularity = 0x05,
  cudaLimitPersistingL2CacheSize = 0x06
};
// The stack size is what every CUDA thread (a fiber) has: COURSE_CPU_STACK_KB, whatever was set.
cudaError_t cudaDeviceSetLimit(cudaLimit limit, std::size_t value);
cudaError_t cudaDeviceGetLimit(std::size_t* value, cudaLimit limit);

// --------------------------------------------------------------- streams ---
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
// The two streams every CUDA program has without creating them (the same handle values as CUDA's): the legacy
// default stream and the calling thread's default stream. Work is done when it is submitted here, so both are the
// default stream.
#define cudaStreamLegacy (reinterpret_cast<cudaStream_t>(0x1))
#define cudaStreamPerThread (reinterpret_cast<cudaStream_t>(0x2))
cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority);
cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority);
cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int* flags);
cudaError_t cudaDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority);
// Work is done when submitted: an event recorded earlier has completed, and a host function runs at once.
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags = 0);
typedef void (*cudaHostFn_t)(void* userData);
typedef void (*cudaStreamCallback_t)(cudaStream_t stream, cudaError_t status, void* userData);
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* userData);
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* userData,
                                  unsigned int flags);

// ---------------------------------------------------------------- events ---
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);
#define cudaEventRecordDefault 0x00
#define cudaEventRecordExternal 0x01
inline cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream = 0, unsigned int = 0) {
  return cudaEventRecord(event, stream);
}

// ------------------------------------------------------- kernel attributes ---
enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9
};

// cudaFuncGetAttributes, cudaFuncSetAttribute, cudaFuncSetCacheConfig, the occupancy API.
#include <course_cpu/occupancy.h>

// ------------------------------------------------ what the CPU backend lacks ---
// Refused at compile time with the backend's marker (course_cpu/unsupported.h): graded not-graded, not build-error.
#include <course_cpu/unsupported.h>
template <class F, class... Rest>
inline cudaError_t cudaLaunchCooperativeKernel(F*, Rest...) {
  static_assert(course_cpu::unsupported<F>,
                COURSE_CPU_UNSUPPORTED("cudaLaunchCooperativeKernel (a grid-wide barrier needs all blocks resident at "
                                       "once, and the CPU runs blocks one after another)"));
  return cudaErrorNotSupported;
}

// A kernel launched through a `void*` cannot be called here: the CPU backend needs its parameter types.
// cudaLaunchKernel with the kernel itself is in course_cpu/launch.h.
template <class T = void>
inline cudaError_t cudaLaunchKernel(const void*, dim3, dim3, void**, std::size_t = 0, cudaStream_t = 0) {
  static_assert(course_cpu::unsupported<T>,
                COURSE_CPU_UNSUPPORTED("cudaLaunchKernel of a kernel cast to void* (the CPU backend needs the "
                                       "kernel's parameter types: pass the kernel itself)"));
  return cudaErrorNotSupported;
}

// CUDA graphs: recording and replaying work would need a deferred stream, and streams here do their work at once.
struct CUgraph_st;
typedef CUgraph_st* cudaGraph_t;
struct CUgraphExec_st;
typedef CUgraphExec_st* cudaGraphExec_t;
struct CUgraphNode_st;
typedef CUgraphNode_st* cudaGraphNode_t;
enum cudaStreamCaptureMode {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2
};
enum cudaStreamCaptureStatus {
  cudaStreamCaptureStatusNone = 0,
  cudaStreamCaptureStatusActive = 1,
  cudaStreamCaptureStatusInvalidated = 2
};
#define COURSE_CPU_GRAPH_API(name)                                                                               \
  template <class T = void, class... A>                                                                          \
  inline cudaError_t name(A...) {                                                                                \
    static_assert(course_cpu::unsupported<T>,                                                                    \
                  COURSE_CPU_UNSUPPORTED(#name " (CUDA graphs: the CPU backend runs work when it is submitted, " \
                                               "it cannot record it for later)"));                               \
    return cudaErrorNotSupported;                                                                                \
  }
COURSE_CPU_GRAPH_API(cudaStreamBeginCapture)
COURSE_CPU_GRAPH_API(cudaStreamEndCapture)
COURSE_CPU_GRAPH_API(cudaStreamIsCapturing)
COURSE_CPU_GRAPH_API(cudaGraphCreate)
COURSE_CPU_GRAPH_API(cudaGraphInstantiate)
COURSE_CPU_GRAPH_API(cudaGraphInstantiateWithFlags)
COURSE_CPU_GRAPH_API(cudaGraphLaunch)
COURSE_CPU_GRAPH_API(cudaGraphDestroy)
COURSE_CPU_GRAPH_API(cudaGraphExecDestroy)
COURSE_CPU_GRAPH_API(cudaGraphAddKernelNode)
COURSE_CPU_GRAPH_API(cudaGraphExecUpdate)
#undef COURSE_CPU_GRAPH_API

#include <cuda_profiler_api.h>
