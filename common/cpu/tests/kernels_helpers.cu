// Self-test kernels: shared elements handed to __device__ helpers that take non-const references (an out-parameter,
// an accumulator, a swap, a volatile read). Check mode checks what the helper does through the reference, as it
// checks the element's own uses; these once went unseen (a race through `acc += ...`, a read of a never-written
// element through `return x;`), as did the same through a helper declared before its definition or a lambda. A struct element passed by value, or an operand of a struct's operator, is a read of
// the whole element, checked like `Pair v = s[i];` (it was bounds-checked only).
#include "kernels.h"

#include <algorithm>

__device__ void storeTo(float& dst, float v) { dst = v; }
__device__ void accumulate(float& acc, const float* in, int i) { acc += in[i]; }
__device__ void swapFloats(float& a, float& b) {
  const float t = a;
  a = b;
  b = t;
}
__device__ float readBack(volatile float& x) { return x; }
template <class T>
__device__ void swapPair(T& a, T& b) {  // a template's T&: the elements stay proxies, T is float
  const T t = a;
  a = b;
  b = t;
}
// Declared before the kernel, defined after it (its declarations and definition change together).
__device__ void addLater(float& acc, float v);
typedef float real;  // an alias of an arithmetic type: `real&` is checked like `float&`
__device__ void addReal(real& acc, real v) { acc += v; }
__device__ void addLater(float&, float);

__global__ void referenceHelpers(const float* in, float* out, int bug) {
  __shared__ float s[64];
  __shared__ float never[64];
  const int t = threadIdx.x;
  storeTo(s[t], in[t]);
  if (bug != 1) __syncthreads();
  accumulate(s[(t + 1) % 64], in, t);  // @helper-accumulate
  __syncthreads();
  const auto addHere = [](float& acc, float v) { acc += v; };
  if (bug == 3) addLater(s[(t + 1) % 64], 0.5f);  // @helper-declared-first
  if (bug == 4) addHere(s[(t + 1) % 64], 0.5f);   // @helper-lambda
  if (bug == 6) addReal(s[(t + 1) % 64], 0.0f);   // @helper-alias
  if (bug != 3 && bug != 4 && bug != 6) __syncthreads();
  addLater(s[t], 0.5f);
  addHere(s[t], 0.5f);
  __syncthreads();
  if (t % 2 == 0) swapFloats(s[t], s[t + 1]);
  __syncthreads();
  if (t % 2 == 1) swapPair(s[t - 1], s[t]);  // back
  if (bug != 5) __syncthreads();
  if (t % 2 == 0) swapPair(s[t], s[t + 1]);  // @helper-template
  __syncthreads();
  float extra = 0.0f;
  if (bug == 2) extra = readBack(never[t]);  // @helper-uninitialized
  float local = 1.0f;
  storeTo(local, 2.0f);  // a local variable: the same helper, a plain reference
  out[t] = s[t] + local + extra;
}

__device__ void addLater(float& acc, float v) { acc += v; }

cudaError_t run_reference_helpers(const float* in, float* out, int bug) {
  referenceHelpers<<<1, 64>>>(in, out, bug);
  return cudaDeviceSynchronize();
}

struct Pair {
  float sum;
  int count;
};
__device__ Pair combine(Pair a, Pair b) { return Pair{a.sum + b.sum, a.count + b.count}; }
__device__ Pair operator+(const Pair& a, const Pair& b) { return combine(a, b); }

__global__ void structArguments(const float* in, float* out, int bug) {
  __shared__ Pair s[64];
  const int t = threadIdx.x;
  s[t] = Pair{in[t], 1};
  for (int stride = 32; stride > 0; stride /= 2) {
    if (bug != 1 || stride != 32) __syncthreads();
    if (t < stride) s[t] = stride % 2 == 0 ? combine(s[t], s[t + stride]) : s[t] + s[t + stride];  // @pair-combine
  }
  __syncthreads();
  if (t == 0) out[0] = s[0].sum + 1000.0f * static_cast<float>(s[0].count);
}

cudaError_t run_struct_arguments(const float* in, float* out, int bug) {
  structArguments<<<1, 64>>>(in, out, bug);
  return cudaDeviceSynchronize();
}

// Helpers qualified through macros (`#define ... __device__ __forceinline__`, `__host__ __device__`) are device code:
// their accesses are checked (a race through them once went unseen: they were taken for host functions), and the
// __host__ __device__ one still runs on the host, std::min and all.
#define HELPER_DEVICE __device__ __forceinline__
#define HELPER_BOTH __host__ __device__
HELPER_DEVICE void putAt(float* p, int i, float v) { p[i] = v; }
HELPER_BOTH inline float clampAt(const float* p, int i) { return std::min(p[i], 40.0f); }  // @macro-helper-read

__global__ void macroHelpers(float* out, int bug) {
  __shared__ float s[64];
  const int t = threadIdx.x;
  putAt(s, t, static_cast<float>(t));
  if (bug == 0) __syncthreads();
  out[t] = clampAt(s, (t + 1) % 64);
}

cudaError_t run_macro_helpers(float* out, int bug) {
  const float host[2] = {1.0f, 50.0f};
  if (clampAt(host, 1) != 40.0f) return cudaErrorUnknown;
  macroHelpers<<<1, 64>>>(out, bug);
  return cudaDeviceSynchronize();
}
