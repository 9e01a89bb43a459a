// CPU backend of the course: the memory API of cuda_runtime.h beyond cudaMalloc/cudaMemcpy/cudaMemset (registered
// and mapped host memory, pitched 2D copies, stream-ordered allocation, managed-memory hints, pointer attributes).
// Included by cuda_runtime.h at this point of its memory section, after the types it uses; implemented in
// src/runtime_extras.cpp and src/memory.cpp.
#pragma once

// Flags of cudaHostAlloc, cudaHostRegister, cudaMallocManaged. Pinned host memory is device-accessible as it is.
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04
#define cudaHostRegisterDefault 0x00
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02
#define cudaHostRegisterIoMemory 0x04
#define cudaHostRegisterReadOnly 0x08
#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02
#define cudaMemAttachSingle 0x04
#define cudaCpuDeviceId (-1)
#define cudaInvalidDeviceId (-2)
// Registered host memory counts as pinned host memory (cudaMallocHost) until it is unregistered.
cudaError_t cudaHostRegister(void* ptr, std::size_t size, unsigned int flags);
cudaError_t cudaHostUnregister(void* ptr);
cudaError_t cudaHostGetDevicePointer(void** pDevice, void* pHost, unsigned int flags);
cudaError_t cudaHostGetFlags(unsigned int* flags, void* pHost);

// Pitched 2D memory: rows of `width` bytes, `pitch` bytes apart (cudaMallocPitch: a multiple of 512).
cudaError_t cudaMallocPitch(void** devPtr, std::size_t* pitch, std::size_t width, std::size_t height);
cudaError_t cudaMemcpy2D(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                         std::size_t height, cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DAsync(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                              std::size_t height, cudaMemcpyKind kind, cudaStream_t stream = 0);
cudaError_t cudaMemset2D(void* devPtr, std::size_t pitch, int value, std::size_t width, std::size_t height);
cudaError_t cudaMemset2DAsync(void* devPtr, std::size_t pitch, int value, std::size_t width, std::size_t height,
                              cudaStream_t stream = 0);
cudaError_t cudaMemcpyPeer(void* dst, int dstDevice, const void* src, int srcDevice, std::size_t count);
cudaError_t cudaMemcpyPeerAsync(void* dst, int dstDevice, const void* src, int srcDevice, std::size_t count,
                                cudaStream_t stream = 0);

// Stream-ordered allocation: the stream is synchronous, so these are cudaMalloc and cudaFree.
cudaError_t cudaMallocAsync(void** devPtr, std::size_t size, cudaStream_t stream);
cudaError_t cudaFreeAsync(void* devPtr, cudaStream_t stream);

// Managed-memory hints: validated, then nothing to do (the CPU is the only processor).
enum cudaMemoryAdvise {
  cudaMemAdviseSetReadMostly = 1,
  cudaMemAdviseUnsetReadMostly = 2,
  cudaMemAdviseSetPreferredLocation = 3,
  cudaMemAdviseUnsetPreferredLocation = 4,
  cudaMemAdviseSetAccessedBy = 5,
  cudaMemAdviseUnsetAccessedBy = 6
};
cudaError_t cudaMemPrefetchAsync(const void* devPtr, std::size_t count, int dstDevice, cudaStream_t stream = 0);
cudaError_t cudaMemAdvise(const void* devPtr, std::size_t count, cudaMemoryAdvise advice, int device);

enum cudaMemoryType {
  cudaMemoryTypeUnregistered = 0,
  cudaMemoryTypeHost = 1,
  cudaMemoryTypeDevice = 2,
  cudaMemoryTypeManaged = 3
};
struct cudaPointerAttributes {
  cudaMemoryType type;
  int device;
  void* devicePointer;
  void* hostPointer;
};
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr);
