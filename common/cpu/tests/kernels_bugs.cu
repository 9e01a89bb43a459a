// Self-test kernels of the CPU backend: programs with the shared-memory bugs
// check mode must find. The @markers let the tests look up line numbers.
#include "kernels.h"

#include <cuda_runtime.h>

constexpr int T = 16;

// GEMM without the __syncthreads() between loading the tiles and using them.
__global__ void gemmNoFirstSync(const float* A, const float* B, float* C, int n) {
  __shared__ float As[T][T];
  __shared__ float Bs[T][T];
  const int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < n / T; ++t) {
    As[threadIdx.y][threadIdx.x] = A[row * n + t * T + threadIdx.x];  // @nofirst-load
    Bs[threadIdx.y][threadIdx.x] = B[(t * T + threadIdx.y) * n + col];
    for (int k = 0; k < T; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];  // @nofirst-use
    __syncthreads();
  }
  C[row * n + col] = acc;
}

// GEMM without the __syncthreads() after using the tiles.
__global__ void gemmNoSecondSync(const float* A, const float* B, float* C, int n) {
  __shared__ float As[T][T];
  __shared__ float Bs[T][T];
  const int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < n / T; ++t) {
    As[threadIdx.y][threadIdx.x] = A[row * n + t * T + threadIdx.x];  // @nosecond-load
    Bs[threadIdx.y][threadIdx.x] = B[(t * T + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < T; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];  // @nosecond-use
  }
  C[row * n + col] = acc;
}

cudaError_t run_gemm_missing_sync(int which, const float* A, const float* B, float* C, int n) {
  dim3 block(T, T), grid(n / T, n / T);
  if (which == 1)
    gemmNoFirstSync<<<grid, block>>>(A, B, C, n);
  else
    gemmNoSecondSync<<<grid, block>>>(A, B, C, n);
  return cudaDeviceSynchronize();
}

// __syncthreads() inside a branch that depends on the thread index.
__global__ void reduceSyncInIf(const float* in, float* out) {
  __shared__ float s[256];
  const unsigned tid = threadIdx.x;
  s[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) {
      s[tid] += s[tid + stride];
      __syncthreads();  // @sync-in-if
    }
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

cudaError_t run_sync_in_if(const float* in, float* out, int blocks) {
  reduceSyncInIf<<<blocks, 256>>>(in, out);
  return cudaDeviceSynchronize();
}

// Early return before a barrier: the last block has threads past n.
__global__ void stencilEarlyReturn(const float* in, float* out, int n) {
  __shared__ float tile[128];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  tile[threadIdx.x] = in[i];
  __syncthreads();  // @early-return
  out[i] = tile[threadIdx.x] + (threadIdx.x > 0 ? tile[threadIdx.x - 1] : 0.0f);
}

cudaError_t run_early_return(const float* in, float* out, int n) {
  stencilEarlyReturn<<<(n + 127) / 128, 128>>>(in, out, n);
  return cudaDeviceSynchronize();
}

// Missing bounds guard: the grid has more threads than elements.
__global__ void addNoGuard(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  c[i] = a[i] + b[i];  // @oob-global
}

cudaError_t run_oob_global(const float* a, const float* b, float* c, int n) {
  addNoGuard<<<(n + 255) / 256, 256>>>(a, b, c, n);
  return cudaDeviceSynchronize();
}

// Shared index one past the end of the array.
__global__ void shiftShared(float* out) {
  __shared__ float s[64];
  s[threadIdx.x + 1] = threadIdx.x;  // @oob-shared
  __syncthreads();
  out[threadIdx.x] = threadIdx.x;
}

cudaError_t run_oob_shared(float* out) {
  shiftShared<<<1, 64>>>(out);
  return cudaDeviceSynchronize();
}

// Only half of the shared array is written before everybody reads it.
__global__ void halfInitialized(float* out) {
  __shared__ float s[64];
  if (threadIdx.x < 32) s[threadIdx.x] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];  // @uninit
}

cudaError_t run_uninitialized(float* out) {
  halfInitialized<<<1, 64>>>(out);
  return cudaDeviceSynchronize();
}

// A host pointer passed as a kernel argument.
__global__ void scale(float* data, float f) { data[threadIdx.x] *= f; }  // @host-pointer

cudaError_t run_host_pointer(float* host) {
  scale<<<1, 32>>>(host, 2.0f);
  return cudaDeviceSynchronize();
}

// A full-mask shuffle after some lanes returned.
__global__ void shuffleAfterReturn(float* out, int n) {
  const int i = threadIdx.x;
  if (i >= n) return;
  float v = i;
  v += __shfl_down_sync(0xffffffff, v, 1);  // @shfl-exited
  out[i] = v;
}

cudaError_t run_shuffle_after_return(float* out, int n) {
  shuffleAfterReturn<<<1, 32>>>(out, n);
  return cudaDeviceSynchronize();
}

// Warp-synchronous reduction tail written correctly with __syncwarp().
__global__ void warpTail(const float* in, float* out) {
  __shared__ float s[64];
  const unsigned tid = threadIdx.x;
  s[tid] = in[tid];
  __syncthreads();
  if (tid < 32) {
    float v = s[tid] + s[tid + 32];
    __syncwarp();
    s[tid] = v;
    __syncwarp();
    for (int off = 16; off > 0; off /= 2) {
      if (tid < off) v += s[tid + off];
      __syncwarp();
      if (tid < off) s[tid] = v;
      __syncwarp();
    }
    if (tid == 0) out[0] = v;
  }
}

cudaError_t run_warp_tail(const float* in, float* out) {
  warpTail<<<1, 64>>>(in, out);
  return cudaDeviceSynchronize();
}

// A kernel template launched with deduced template arguments, with a race.
template <typename V>
__global__ void racyDeduced(V* out) {
  __shared__ V s[32];
  s[threadIdx.x] = static_cast<V>(threadIdx.x);
  out[threadIdx.x] = s[(threadIdx.x + 1) % 32];  // @deduced-race
}

cudaError_t run_racy_deduced(int* out) {
  racyDeduced<<<1, 32>>>(out);
  return cudaDeviceSynchronize();
}

// Message wording: reading a[1] of a 1-element buffer, a column past the end
// of a 2-D shared array, a null pointer, an index below 0.
__global__ void readPastOne(const float* a, float* out) {
  out[0] = a[1];  // @oob-one
}
__global__ void columnPastEnd(float* out) {
  __shared__ float As[4][5];
  As[0][threadIdx.x] = 1.0f;  // @oob-2d
  out[threadIdx.x] = 0.0f;
}
__global__ void writeNull(float* out) {
  out[threadIdx.x] = 1.0f;  // @null-pointer
}
__global__ void indexBelowZero(const float* a, float* out) {
  out[threadIdx.x] = a[static_cast<int>(threadIdx.x) - 1];  // @oob-negative
}

cudaError_t run_wording(int which, const float* a, float* out) {
  switch (which) {
    case 0:
      readPastOne<<<1, 1>>>(a, out);
      break;
    case 1:
      columnPastEnd<<<1, 6>>>(out);
      break;
    case 2:
      writeNull<<<1, 1>>>(nullptr);
      break;
    default:
      indexBelowZero<<<1, 2>>>(a, out);
      break;
  }
  return cudaDeviceSynchronize();
}

// Each half-warp synchronizes only itself: neighbours in the same half are
// ordered, the other half is not (a race on s[31 - t]).
__global__ void halfWarpSync(float* out) {
  __shared__ float s[32];
  s[threadIdx.x] = static_cast<float>(threadIdx.x);
  __syncwarp(threadIdx.x < 16 ? 0x0000ffffu : 0xffff0000u);
  float v = s[threadIdx.x ^ 1];
  v += s[31 - threadIdx.x];  // @half-warp-race
  out[threadIdx.x] = v;
}

cudaError_t run_half_warp_sync(float* out) {
  halfWarpSync<<<1, 32>>>(out);
  return cudaDeviceSynchronize();
}
