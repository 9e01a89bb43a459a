// Self-test kernels of the extra intrinsics (course_cpu/device_extras.h) and runtime API, rewritten in both modes.
#include "kernels_extras.h"

#include <cuda/cmath>
#include <cuda/std/array>
#include <cuda/std/cstdint>
#include <cuda/std/limits>
#include <cuda/std/utility>
#include <math_constants.h>

__global__ void cache_hints(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __stcs(&out[5 * i], __ldcs(&in[i]));
  __stcg(&out[5 * i + 1], __ldcg(&in[i]));
  __stwb(&out[5 * i + 2], __ldca(&in[i]));
  __stwt(&out[5 * i + 3], __ldlu(&in[i]));
  out[5 * i + 4] = __ldcv(in + i);
}
cudaError_t run_cache_hints(const float* in, float* out, int n) {
  cache_hints<<<(n + 31) / 32, 32>>>(in, out, n);
  return cudaDeviceSynchronize();
}

__global__ void warp_reductions(const int* in, int* out) {
  int t = threadIdx.x;
  int lane = t % 32;
  unsigned mask = 0xffffffffu;
  if (t < 32) mask = lane < 16 ? 0x0000ffffu : 0xffff0000u;
  int v = in[t];
  unsigned u = static_cast<unsigned>(v);
  out[8 * t] = __reduce_add_sync(mask, v);
  out[8 * t + 1] = __reduce_min_sync(mask, v);
  out[8 * t + 2] = static_cast<int>(__reduce_max_sync(mask, u));
  out[8 * t + 3] = static_cast<int>(__reduce_and_sync(mask, u));
  out[8 * t + 4] = static_cast<int>(__reduce_or_sync(mask, u));
  out[8 * t + 5] = static_cast<int>(__reduce_xor_sync(mask, u));
  out[8 * t + 6] = static_cast<int>(__match_any_sync(mask, v));
  int pred = -1;
  out[8 * t + 7] = t >= 32 ? static_cast<int>(__match_all_sync(mask, v & 1, &pred)) * 2 + pred : 0;
}
cudaError_t run_warp_reductions(const int* in, int* out) {
  warp_reductions<<<1, 64>>>(in, out);
  return cudaDeviceSynchronize();
}

__global__ void trapping(int* out) {
  if (blockIdx.x == 1 && threadIdx.x == 5) __trap();
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}
#undef NDEBUG  // asserts on in every build type, on a GPU too
#include <cassert>
__global__ void asserting(const int* in, int* out) {
  const int t = threadIdx.x;
  assert(in[t] >= 0 && "inputs are counts");  // @device-assert
  out[blockIdx.x * blockDim.x + t] = in[t];
}
cudaError_t run_assert(const int* in, int* out) {
  asserting<<<2, 32>>>(in, out);
  return cudaDeviceSynchronize();
}

cudaError_t run_trap(int* out) {
  trapping<<<2, 32>>>(out);
  return cudaDeviceSynchronize();
}

// counts = {32, 40, -1, 5, 64}; one block of 1024 threads, as the CUDA sample's warp mask of shfl_scan computes it. On
// x86 a count is taken modulo the width (1u << 32 is 1); a GPU clamps it (0). Every thread adds to the vector sums.
struct ShiftBits {
  unsigned f : 12;
};
struct ShiftStream {  // a class's own operator<<, which a wrapped count must still reach with its type
  float sum = 0.0f;
  __device__ ShiftStream& operator<<(float x) {
    sum += x;
    return *this;
  }
};
__global__ void gpu_shifts(const int* counts, unsigned* out, float2* sum2, float4* sum4) {
  __shared__ int cs[5];
  const int t = threadIdx.x;
  if (t < 5) cs[t] = counts[t];
  __syncthreads();
  atomicAdd(sum2, make_float2(1.0f, 2.0f));
  atomicAdd(sum4, make_float4(1.0f, 2.0f, 3.0f, 4.0f));
  if (t != 0) return;
  const int n = counts[0];
  unsigned k = 0;
  out[k++] = (1u << n) - 1u;                                  // 0xffffffff
  out[k++] = (1 << (blockDim.x / warpSize)) - 1;              // 0xffffffff
  out[k++] = 0xffffffffu >> n;                                // 0
  out[k++] = static_cast<unsigned>(-8 >> counts[1]);          // 0xffffffff: the sign, as shr.s32
  out[k++] = 16u >> counts[1];                                // 0
  out[k++] = 1u << counts[2];                                 // 0: -1 is a count of 4294967295
  out[k++] = 3u << counts[3] + 1;                             // 192: + binds first
  out[k++] = static_cast<unsigned>(1ull << counts[4] >> 32);  // 0: 64-bit, clamped at 64
  out[k++] = static_cast<unsigned>((1ull << n) >> 16);        // 65536: 64-bit, in range
  unsigned m = 0xf0u;
  m <<= cs[0];   // a count read from shared memory (an element in check mode)
  out[k++] = m;  // 0
  unsigned short h = 0xff;
  out[k++] = h << cs[3];        // promoted to int: 0x1fe0
  out[k++] = 5u << cs[3] << 2;  // 640
  ShiftBits bits{1u};
  bits.f <<= cs[3] - 2;  // a bit-field: 8
  out[k++] = bits.f;
  ShiftStream stream;
  const float half = 1.25f;
  stream << half << half;
  out[k++] = static_cast<unsigned>(stream.sum * 2.0f);  // 5
}
cudaError_t run_gpu_shifts(const int* counts, unsigned* out, float2* sum2, float4* sum4) {
  gpu_shifts<<<1, 1024>>>(counts, out, sum2, sum4);
  return cudaDeviceSynchronize();
}

__global__ void device_math(float x, double* out) {
  int k = 0;
  unsigned u = static_cast<unsigned>(__float2int_rd(x * 1000.0f));
  out[k++] = __float2int_ru(x);
  out[k++] = __float2uint_rn(-x);
  out[k++] = __fadd_ru(x, 1e-8f);
  out[k++] = __fmul_rd(x, 3.0f);
  out[k++] = __double2float_rz(static_cast<double>(x) / 3.0);
  out[k++] = __funnelshift_l(u, 0x80000001u, 4);
  out[k++] = __byte_perm(u, 0x11223344u, 0x7350u);
  out[k++] = __dp4a(static_cast<int>(u), -0x01020304, 7);
  out[k++] = __brevll(u);
  out[k++] = erfinvf(x / 4.0f);
  out[k++] = normcdff(x);
  out[k++] = sinpif(x);
  out[k++] = rhypotf(x, 2.0f);
  out[k++] = erfcxf(x);
  out[k++] = __fns(u, 3, 2);
  out[k++] = CUDART_PI_F;
  out[k++] = umax(u, 7u) + llmin(-5LL, 3LL);
}
cudaError_t run_device_math(float x, double* out) {
  device_math<<<1, 1>>>(x, out);
  return cudaDeviceSynchronize();
}

__global__ void fill(int* out, int value) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = value + blockIdx.x * blockDim.x + threadIdx.x;
}
cudaError_t run_launch_kernel(int* out, int value) {
  void* args[] = {&out, &value};
  cudaError_t e = cudaLaunchKernel(fill, dim3(2), dim3(32), args, 0, 0);
  if (e != cudaSuccess) return e;
  return cudaDeviceSynchronize();
}

__device__ int symbol[8];
__global__ void write_through(int* p) { p[threadIdx.x] = 10 * threadIdx.x; }
cudaError_t run_symbol_address(int* host_copy, std::size_t* size) {
  int* p = nullptr;
  if (cudaError_t e = cudaGetSymbolAddress(reinterpret_cast<void**>(&p), symbol); e != cudaSuccess) return e;
  if (cudaError_t e = cudaGetSymbolSize(size, symbol); e != cudaSuccess) return e;
  write_through<<<1, 8>>>(p);
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) return e;
  return cudaMemcpyFromSymbol(host_copy, symbol, sizeof(symbol));
}

// A local array larger than the fiber stack (COURSE_CPU_STACK_KB, 256 KiB by default; a GPU allows 512 KiB).
__global__ void bigLocalArray(float* out) {
  float big[80000];  // 320 KiB
  for (int i = 0; i < 80000; ++i) big[i] = static_cast<float>(threadIdx.x + i);
  float sum = 0.0f;
  for (int i = 0; i < 80000; i += 997) sum += big[i];
  out[threadIdx.x] = sum;
}
cudaError_t run_big_local_array(float* out) {
  bigLocalArray<<<1, 64>>>(out);
  return cudaDeviceSynchronize();
}

// libcu++'s standard library and integer helpers in device code (what each out[k] holds: kernels_extras.h).
__global__ void libcu_std(const float* in, float* out, int n) {
  cuda::std::array<float, 3> a{in[0], in[1], in[2]};
  const cuda::std::int32_t i = static_cast<cuda::std::int32_t>(threadIdx.x);
  cuda::std::pair<float, int> p{cuda::std::min(a[0], a[1]), i};
  out[i * 6] = p.first;
  out[i * 6 + 1] = cuda::std::numeric_limits<float>::max();
  out[i * 6 + 2] = static_cast<float>(cuda::ceil_div(n, 16) + cuda::round_up(n, 16) + cuda::round_down(n, 16));
  out[i * 6 + 3] = static_cast<float>(cuda::ilog2(n) * 100 + cuda::ilog10(n));
  // Shared elements as arguments: max and min of their values, swap of the elements themselves.
  __shared__ float s[2];
  s[i] = in[i];
  __syncthreads();
  if (i == 0) cuda::std::swap(s[0], s[1]);
  __syncthreads();
  out[i * 6 + 4] = cuda::std::max(s[i], 0.0f);
  out[i * 6 + 5] = cuda::std::min({s[0], s[1], 1e30f}) + 10.0f * s[0];  // and of a braced list
}
cudaError_t run_libcu_std(const float* in, float* out, int n) {
  libcu_std<<<1, 2>>>(in, out, n);
  return cudaDeviceSynchronize();
}

// __shared__ cuda::std::array objects, 64 threads: one alone, checked element by element like an array (mode 1: no
// __syncthreads() between the stores and the reversed reads, a race), and an array of them stored through
// (`tiles[c][t] = v`, which once did not compile in check mode; bounds-checked as whole elements).
__global__ void sharedStdArrays(float* out, int mode) {
  __shared__ cuda::std::array<float, 64> stage;
  __shared__ cuda::std::array<int, 64> tiles[2];
  const int t = threadIdx.x;
  stage[t] = static_cast<float>(t);
  tiles[t % 2][t] = 3 * t;
  if (mode == 0) __syncthreads();
  const float mirrored = stage[63 - t];  // @stdarray-read
  out[t] = mirrored + static_cast<float>(tiles[(t + 1) % 2][63 - t]) + static_cast<float>(stage.size());
}
cudaError_t run_shared_std_arrays(float* out, int mode) {
  sharedStdArrays<<<1, 64>>>(out, mode);
  return cudaDeviceSynchronize();
}
