// Bank width: warp-wide shared-memory loads 4, 8 and 16 bytes wide (float, float2, float4), lane l of every warp
// reading element l * stride of a shared array, over and over. An example of the chapter "Bank conflicts and padding"
// (docs/bank-conflicts.md, "Bank width on Hopper"), timed by the bench-only case grader/bench/cases/lab04_bank_width.cpp;
// it belongs to no lab.
//
// Each block copies `words` into its shared array, then every thread makes `loads` loads and adds up what it read. A
// load is one warp-wide request of 32 * sizeof(T) bytes, and the time it takes is the number of wavefronts (passes
// over the 32 banks) it needs. So that the compiler can neither hoist a load out of the loop nor merge two, the warp
// moves by whole 128-byte lines from one load to the next: every lane stays in its banks, at another address. Load k
// of lane l reads element l * stride + ((k / 8) % 8 + k % 8) * (128 / sizeof(T)); the check recomputes that sum.
#include <course/cuda_check.h>

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

constexpr int kBankWidthMaxStride = 33;
constexpr int kBankWidthLoadsPerStep = 8;  // loads per loop iteration, one 128-byte line apart
constexpr int kBankWidthShifts = 8;        // iteration s starts s % 8 lines into the array
static_assert((kBankWidthShifts & (kBankWidthShifts - 1)) == 0, "the loop takes the shift with a mask");

// Elements of the shared array for a T: lane 31 at the largest stride, plus the lines the loop moves over.
template <class T>
__host__ __device__ constexpr int bank_width_elements() {
  return 31 * kBankWidthMaxStride + 1 + (kBankWidthShifts + kBankWidthLoadsPerStep - 2) * (128 / sizeof(T));
}

// ---- kernels --------------------------------------------------------------------------------------------------------

// Element i of the shared array: words i * sizeof(T) / 4 onwards.
__device__ void fill(float& e, const float* words, int i) { e = words[i]; }
__device__ void fill(float2& e, const float* words, int i) { e = make_float2(words[2 * i], words[2 * i + 1]); }
__device__ void fill(float4& e, const float* words, int i) {
  e = make_float4(words[4 * i], words[4 * i + 1], words[4 * i + 2], words[4 * i + 3]);
}

__device__ void accumulate(float& sum, float v) { sum += v; }
__device__ void accumulate(float2& sum, float2 v) {
  sum.x += v.x;
  sum.y += v.y;
}
__device__ void accumulate(float4& sum, float4 v) {
  sum.x += v.x;
  sum.y += v.y;
  sum.z += v.z;
  sum.w += v.w;
}

__device__ float total(float v) { return v; }
__device__ float total(float2 v) { return v.x + v.y; }
__device__ float total(float4 v) { return (v.x + v.y) + (v.z + v.w); }

// T is float, float2 or float4; `line_step` is 1 at run time (the compiler cannot know it: see the loop).
// [docs:bank_width_kernel]
template <class T>
__global__ void bank_width_kernel(const float* __restrict__ words, int stride, int steps, int line_step,
                                  float* __restrict__ out) {
  constexpr int kLine = 128 / sizeof(T);  // elements per 128-byte line: 32 banks of 4 bytes
  constexpr int kElements = bank_width_elements<T>();
  __shared__ T tile[kElements];
  for (int e = threadIdx.x; e < kElements; e += blockDim.x) fill(tile[e], words, e);
  __syncthreads();

  const T* mine = tile + (threadIdx.x % 32) * stride;  // lane l: element l * stride
  T sum{};
  for (int s = 0; s < steps; ++s) {
    // The warp moves by whole lines: each lane stays in its banks. line_step is unknown to the compiler, so every
    // address depends on s and no load can be hoisted out of the loop.
    const T* line = mine + ((s * line_step) & (kBankWidthShifts - 1)) * kLine;
#pragma unroll
    for (int j = 0; j < kBankWidthLoadsPerStep; ++j) {
      accumulate(sum, line[j * kLine]);  // one warp-wide load: LDS (4 bytes), LDS.64 or LDS.128
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = total(sum);
}
// [/docs:bank_width_kernel]

// ---- launchers ------------------------------------------------------------------------------------------------------

// How many floats `words` must hold for width_bytes (4, 8 or 16): the shared array's 4-byte words.
int bank_width_words(int width_bytes) {
  switch (width_bytes) {
    case 4:
      return bank_width_elements<float>();
    case 8:
      return bank_width_elements<float2>() * 2;
    case 16:
      return bank_width_elements<float4>() * 4;
    default:
      throw std::invalid_argument("bank_width: width_bytes must be 4, 8 or 16, got " + std::to_string(width_bytes));
  }
}

// out[t] (blocks * threads floats) = the sum of `loads` loads of lane t % 32 from a shared array of width_bytes-byte
// elements (4: float, 8: float2, 16: float4) that holds a copy of `words` (bank_width_words(width_bytes) floats on the
// device): load k reads element (t % 32) * stride + ((k / 8) % 8 + k % 8) * (128 / width_bytes). 1 <= stride <=
// kBankWidthMaxStride; loads a positive multiple of kBankWidthLoadsPerStep; threads a multiple of 32, at most 1024.
void bank_width(int width_bytes, int stride, int loads, const float* words, float* out, int blocks, int threads,
                cudaStream_t stream) {
  bank_width_words(width_bytes);  // throws for another width
  if (stride < 1 || stride > kBankWidthMaxStride || loads < kBankWidthLoadsPerStep ||
      loads % kBankWidthLoadsPerStep != 0 || blocks < 1 || threads < 32 || threads > 1024 || threads % 32 != 0)
    throw std::invalid_argument("bank_width: stride must be 1 to " + std::to_string(kBankWidthMaxStride) +
                                ", loads a positive multiple of " + std::to_string(kBankWidthLoadsPerStep) +
                                ", blocks at least 1 and threads a multiple of 32 up to 1024; got stride = " +
                                std::to_string(stride) + ", loads = " + std::to_string(loads) +
                                ", blocks = " + std::to_string(blocks) + ", threads = " + std::to_string(threads));
  const int steps = loads / kBankWidthLoadsPerStep;
  constexpr int kLineStep = 1;
  if (width_bytes == 4) {
    bank_width_kernel<float><<<blocks, threads, 0, stream>>>(words, stride, steps, kLineStep, out);
  } else if (width_bytes == 8) {
    bank_width_kernel<float2><<<blocks, threads, 0, stream>>>(words, stride, steps, kLineStep, out);
  } else {
    bank_width_kernel<float4><<<blocks, threads, 0, stream>>>(words, stride, steps, kLineStep, out);
  }
  CUDA_CHECK(cudaGetLastError());
}
