// Adversarial suite (grader/adversarial/honest.toml): honest_float4_props. Correct code that asks the device what it
// has: the launcher reads cudaGetDeviceProperties once (the number of multiprocessors and threads each holds) to size
// a grid-stride loop, and takes a float4 path through reinterpret_cast when every row starts 16-byte aligned. Graded
// like any correct kernel.
#include "lab01_matadd.h"

#include <cstdint>

namespace {

__global__ void add_vec4_kernel(const float4* __restrict__ a, const float4* __restrict__ b, float4* __restrict__ c,
                                long long n4) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n4;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const float4 x = a[i], y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}

__global__ void add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                           long long n) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    c[i] = a[i] + b[i];
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// Enough blocks to fill every multiprocessor twice over (a grid-stride loop covers the rest).
int resident_blocks(int threads_per_block) {
  static const int blocks = [threads_per_block] {
    int device = 0;
    cudaDeviceProp prop{};
    if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) return 1024;
    return 2 * prop.multiProcessorCount * (prop.maxThreadsPerMultiProcessor / threads_per_block);
  }();
  return blocks;
}

}  // namespace

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  constexpr int kThreads = 256;
  const long long n = static_cast<long long>(rows) * cols;
  const int most = resident_blocks(kThreads);
  if (n % 4 == 0 && aligned16(a) && aligned16(b) && aligned16(c)) {
    const long long n4 = n / 4;
    const int blocks = static_cast<int>(n4 / kThreads + 1 < most ? n4 / kThreads + 1 : most);
    add_vec4_kernel<<<blocks, kThreads, 0, stream>>>(
        reinterpret_cast<const float4*>(a), reinterpret_cast<const float4*>(b), reinterpret_cast<float4*>(c), n4);
    return;
  }
  const int blocks = static_cast<int>(n / kThreads + 1 < most ? n / kThreads + 1 : most);
  add_kernel<<<blocks, kThreads, 0, stream>>>(a, b, c, n);
}
