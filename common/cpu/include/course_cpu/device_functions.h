// CPU backend of the course: CUDA device intrinsics for host C++.
// Barriers and warp operations are implemented by the fiber scheduler
// (src/block_sync.cpp); the macros pass the caller's __LINE__ so diagnostics
// can name the barrier.
#pragma once

#include <course_cpu/launch.h>
#include <course_cpu/unsupported.h>

#include <math.h>

#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <type_traits>

namespace course_cpu::detail {

enum class WarpOp : int { sync, shfl_idx, shfl_up, shfl_down, shfl_xor, ballot, activemask };
enum class BlockReduce : int { none, count, all, any };

void syncthreads(int line);
int syncthreads_reduce(int predicate, BlockReduce op, int line);
void syncwarp(int line, unsigned mask = 0xffffffffu, const char* what = nullptr);
// One warp rendezvous. `bits` is the calling lane's value; the result is the
// value of the source lane (shuffles) or the ballot of the predicates. `what`
// names the operation in messages when it is not the intrinsic of `op`
// (a cooperative-groups tile's "tile.sync()").
std::uint64_t warp_exchange(WarpOp op, unsigned mask, std::uint64_t bits, int arg, int width, int line,
                            const char* what = nullptr);
// The lanes of the running thread's warp that reach this __activemask() together (block_sync.cpp): `call` tells
// apart the calls of one line (__COUNTER__), which the compiler may merge into one call of either value.
unsigned activemask(int line, int call = 0);
// The lanes of the running thread's warp that have not exited.
unsigned warp_lanes();

// Shuffles take the value type, also through check-mode element proxies.
template <class V, class = void>
struct value_of {
  using type = V;
};
template <class V>
struct value_of<V, std::void_t<typename V::course_cpu_value_type>> {
  using type = typename V::course_cpu_value_type;
};

template <class V>
inline typename value_of<V>::type shuffle(WarpOp op, int line, unsigned mask, const V& var, int arg, int width = 32,
                                          const char* what = nullptr) {
  using T = typename value_of<V>::type;
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>, "shuffles move values of at most 8 bytes");
  const T value = var;
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  bits = warp_exchange(op, mask, bits, arg, width, line, what);
  T result;
  std::memcpy(&result, &bits, sizeof(T));
  return result;
}

}  // namespace course_cpu::detail

// ---- inline PTX -----------------------------------------------------------------
namespace course_cpu {
// `asm("mov.u32 %0, %%laneid;" : "=r"(lane));` or `asm volatile("cp.async.ca.shared.global ...")` in device code: the
// rewriter replaces the asm expression by a call of this, since PTX does not run on a CPU (the gcc assembler would
// reject it as x86 code, which would read as the student's build error).
template <class T = void>
inline void inline_ptx() {
  static_assert(unsupported<T>, COURSE_CPU_UNSUPPORTED(
                                    "inline PTX (an asm statement in device code): PTX runs only on a GPU; grade this "
                                    "file on a GPU machine, or write the operation in CUDA C++ (cp.async: "
                                    "__pipeline_memcpy_async from <cuda_pipeline.h>)"));
}
}  // namespace course_cpu

// ---- qualifiers ---------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __constant__
// A __managed__ variable is in its own section, so that the runtime knows its address range (memory.cpp): a kernel
// given its address (`kernel<<<g, b>>>(&counter)`) accesses device-accessible memory, as on a GPU. CUDA does not allow
// const __managed__ variables, so the section never mixes read-only and writable data.
#define __managed__ __attribute__((section("course_managed"), used))
#define __device_builtin__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __grid_constant__  // a const kernel parameter read in place: here every parameter is an argument copy
// Fallback for headers the rewriter did not see: a static __shared__ array is
// per block, and a worker thread runs one block at a time.
#define __shared__ static thread_local

// ---- synchronization ---------------------------------------------------------
#define __syncthreads() ::course_cpu::detail::syncthreads(__LINE__)
#define __syncthreads_count(p) \
  ::course_cpu::detail::syncthreads_reduce((p), ::course_cpu::detail::BlockReduce::count, __LINE__)
#define __syncthreads_and(p) \
  ::course_cpu::detail::syncthreads_reduce((p), ::course_cpu::detail::BlockReduce::all, __LINE__)
#define __syncthreads_or(p) \
  ::course_cpu::detail::syncthreads_reduce((p), ::course_cpu::detail::BlockReduce::any, __LINE__)
#define __syncwarp(...) ::course_cpu::detail::syncwarp(__LINE__ __VA_OPT__(, ) __VA_ARGS__)

#define __shfl_sync(mask, ...) \
  ::course_cpu::detail::shuffle(::course_cpu::detail::WarpOp::shfl_idx, __LINE__, mask, __VA_ARGS__)
#define __shfl_up_sync(mask, ...) \
  ::course_cpu::detail::shuffle(::course_cpu::detail::WarpOp::shfl_up, __LINE__, mask, __VA_ARGS__)
#define __shfl_down_sync(mask, ...) \
  ::course_cpu::detail::shuffle(::course_cpu::detail::WarpOp::shfl_down, __LINE__, mask, __VA_ARGS__)
#define __shfl_xor_sync(mask, ...) \
  ::course_cpu::detail::shuffle(::course_cpu::detail::WarpOp::shfl_xor, __LINE__, mask, __VA_ARGS__)
#define __ballot_sync(mask, pred)                                                                         \
  static_cast<unsigned>(::course_cpu::detail::warp_exchange(::course_cpu::detail::WarpOp::ballot, (mask), \
                                                            static_cast<bool>(pred) ? 1u : 0u, 0, 32, __LINE__))
#define __any_sync(mask, pred) (__ballot_sync((mask), (pred)) != 0u)
#define __all_sync(mask, pred) (__ballot_sync((mask), (pred)) == ((mask) & ::course_cpu::detail::warp_lanes()))

#define __activemask() ::course_cpu::detail::activemask(__LINE__, __COUNTER__)
inline long long clock64() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// ---- atomics (correct across blocks running on several OS threads) ------------
// In check mode each atomic is checked as a read-modify-write of its address (src/check_record.cpp, check_atomic):
// bounds, uninitialized shared words, and races with plain accesses of other threads (atomics do not race with
// atomics); an address in no memory a GPU can reach is reported and the atomic skipped (it returns 0).
namespace course_cpu::check {
struct Hot;
extern constinit thread_local Hot* tl_hot;  // set while a check-mode launch runs a CUDA thread
}  // namespace course_cpu::check
namespace course_cpu::detail {
// Check mode: the running block has called __threadfence(), so another block that has made an atomic access may read
// what it wrote before (src/check_global.cpp).
void note_threadfence();
bool check_atomic(const volatile void* address, std::size_t bytes, const char* op, const char* file, unsigned line);
template <class T>
[[gnu::always_inline]] inline bool atomic_checked(T* a, const char* op, const std::source_location& at) {
  return ::course_cpu::check::tl_hot == nullptr || check_atomic(a, sizeof(T), op, at.file_name(), at.line());
}
template <class T, class F>
inline T atomic_update(T* address, F f) {
  std::atomic_ref<T> ref(*address);
  T old = ref.load(std::memory_order_relaxed);
  while (!ref.compare_exchange_weak(old, f(old), std::memory_order_seq_cst)) {
  }
  return old;
}
}  // namespace course_cpu::detail

inline void __threadfence() {
  if (::course_cpu::check::tl_hot != nullptr) ::course_cpu::detail::note_threadfence();
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_system() { __threadfence(); }

// Every atomic takes its caller's location (for check mode) and skips what check mode reports.
#define COURSE_CPU_ATOMIC_AT std::source_location at = std::source_location::current()
#define COURSE_CPU_ATOMIC_CHECKED(name)                            \
  if (!::course_cpu::detail::atomic_checked(a, name, at)) return { \
    }

// atomicMax/atomicMin exist for integer types only, as in CUDA (code that needs them for float writes its own with
// atomicCAS, and must not meet a second definition here).
#define COURSE_CPU_ATOMIC_MINMAX(T)                                                    \
  inline T atomicMax(T* a, T v, COURSE_CPU_ATOMIC_AT) {                                \
    COURSE_CPU_ATOMIC_CHECKED("atomicMax");                                            \
    return ::course_cpu::detail::atomic_update(a, [v](T o) { return o < v ? v : o; }); \
  }                                                                                    \
  inline T atomicMin(T* a, T v, COURSE_CPU_ATOMIC_AT) {                                \
    COURSE_CPU_ATOMIC_CHECKED("atomicMin");                                            \
    return ::course_cpu::detail::atomic_update(a, [v](T o) { return v < o ? v : o; }); \
  }

#define COURSE_CPU_ATOMIC_REF(name, T, call)       \
  inline T name(T* a, T v, COURSE_CPU_ATOMIC_AT) { \
    COURSE_CPU_ATOMIC_CHECKED(#name);              \
    return std::atomic_ref<T>(*a).call(v);         \
  }
#define COURSE_CPU_ATOMIC_INT(T)                                   \
  COURSE_CPU_ATOMIC_REF(atomicAdd, T, fetch_add)                   \
  COURSE_CPU_ATOMIC_REF(atomicSub, T, fetch_sub)                   \
  COURSE_CPU_ATOMIC_REF(atomicExch, T, exchange)                   \
  COURSE_CPU_ATOMIC_REF(atomicAnd, T, fetch_and)                   \
  COURSE_CPU_ATOMIC_REF(atomicOr, T, fetch_or)                     \
  COURSE_CPU_ATOMIC_REF(atomicXor, T, fetch_xor)                   \
  COURSE_CPU_ATOMIC_MINMAX(T)                                      \
  inline T atomicCAS(T* a, T compare, T v, COURSE_CPU_ATOMIC_AT) { \
    COURSE_CPU_ATOMIC_CHECKED("atomicCAS");                        \
    std::atomic_ref<T>(*a).compare_exchange_strong(compare, v);    \
    return compare;                                                \
  }
COURSE_CPU_ATOMIC_INT(int)
COURSE_CPU_ATOMIC_INT(unsigned int)
COURSE_CPU_ATOMIC_INT(unsigned long long)
COURSE_CPU_ATOMIC_INT(long long)
#undef COURSE_CPU_ATOMIC_INT
#undef COURSE_CPU_ATOMIC_MINMAX
#undef COURSE_CPU_ATOMIC_REF

inline float atomicAdd(float* a, float v, COURSE_CPU_ATOMIC_AT) {
  COURSE_CPU_ATOMIC_CHECKED("atomicAdd");
  return ::course_cpu::detail::atomic_update(a, [v](float o) { return o + v; });
}
inline float atomicExch(float* a, float v, COURSE_CPU_ATOMIC_AT) {
  COURSE_CPU_ATOMIC_CHECKED("atomicExch");
  return std::atomic_ref<float>(*a).exchange(v);
}
// atomicAdd for double is an ordinary function, as in CUDA's headers: the CUDA Programming Guide's old definition for
// GPUs before sm_60 under a bare `#if __CUDA_ARCH__ < 600` is a redefinition in nvcc 13's host pass (measured), and here
// alike; the guard `#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600 ... #else <definition> #endif` compiles in both.
inline double atomicAdd(double* a, double v, COURSE_CPU_ATOMIC_AT) {
  COURSE_CPU_ATOMIC_CHECKED("atomicAdd");
  return ::course_cpu::detail::atomic_update(a, [v](double o) { return o + v; });
}

// sm_90's vector forms: each component is added atomically on its own, as on a GPU (the vector is not one atomic
// update). A GPU takes them for global memory only.
inline float2 atomicAdd(float2* a, float2 v, COURSE_CPU_ATOMIC_AT) {
  COURSE_CPU_ATOMIC_CHECKED("atomicAdd");
  const auto add = [](float* p, float x) {
    return ::course_cpu::detail::atomic_update(p, [x](float o) { return o + x; });
  };
  return float2{add(&a->x, v.x), add(&a->y, v.y)};
}
inline float4 atomicAdd(float4* a, float4 v, COURSE_CPU_ATOMIC_AT) {
  COURSE_CPU_ATOMIC_CHECKED("atomicAdd");
  const auto add = [](float* p, float x) {
    return ::course_cpu::detail::atomic_update(p, [x](float o) { return o + x; });
  };
  return float4{add(&a->x, v.x), add(&a->y, v.y), add(&a->z, v.z), add(&a->w, v.w)};
}

inline unsigned int atomicInc(unsigned int* a, unsigned int limit, COURSE_CPU_ATOMIC_AT) {
  COURSE_CPU_ATOMIC_CHECKED("atomicInc");
  return course_cpu::detail::atomic_update(a, [limit](unsigned int o) { return o >= limit ? 0u : o + 1u; });
}
inline unsigned int atomicDec(unsigned int* a, unsigned int limit, COURSE_CPU_ATOMIC_AT) {
  COURSE_CPU_ATOMIC_CHECKED("atomicDec");
  return course_cpu::detail::atomic_update(a,
                                           [limit](unsigned int o) { return (o == 0u || o > limit) ? limit : o - 1u; });
}
#undef COURSE_CPU_ATOMIC_AT
#undef COURSE_CPU_ATOMIC_CHECKED
// Block/system-scoped variants behave like the device-wide ones here.
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd

// ---- math -----------------------------------------------------------------------
// <math.h> puts sqrtf, expf, fmaf, fminf, fmaxf, fabsf, ... in the global namespace.
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __frcp_rn(float a) { return 1.0f / a; }
inline float __fsqrt_rn(float a) { return std::sqrt(a); }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline float __fdividef(float a, float b) { return a / b; }
inline float __expf(float x) { return std::exp(x); }
inline float __exp10f(float x) { return std::pow(10.0f, x); }
inline float __logf(float x) { return std::log(x); }
inline float __log2f(float x) { return std::log2(x); }
inline float __log10f(float x) { return std::log10(x); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __tanf(float x) { return std::tan(x); }
inline float __powf(float a, float b) { return std::pow(a, b); }
inline void __sincosf(float x, float* s, float* c) {
  *s = std::sin(x);
  *c = std::cos(x);
}
inline float __saturatef(float x) { return x >= 1.0f ? 1.0f : (x > 0.0f ? x : 0.0f); }  // NaN -> 0, as on a GPU
inline int __float_as_int(float x) { return std::bit_cast<int>(x); }
inline float __int_as_float(int x) { return std::bit_cast<float>(x); }
inline unsigned __float_as_uint(float x) { return std::bit_cast<unsigned>(x); }
inline float __uint_as_float(unsigned x) { return std::bit_cast<float>(x); }
inline long long __double_as_longlong(double x) { return std::bit_cast<long long>(x); }
inline double __longlong_as_double(long long x) { return std::bit_cast<double>(x); }
// float -> int as on a GPU: rounded, then saturated to int's range; NaN gives 0.
inline int course_cpu_saturated_int(float rounded) {
  if (std::isnan(rounded)) return 0;
  if (rounded >= 2147483648.0f) return 2147483647;
  if (rounded < -2147483648.0f) return -2147483647 - 1;
  return static_cast<int>(rounded);
}
inline int __float2int_rn(float x) { return course_cpu_saturated_int(__builtin_roundevenf(x)); }
inline int __float2int_rz(float x) { return course_cpu_saturated_int(std::trunc(x)); }
inline float __int2float_rn(int x) { return static_cast<float>(x); }
inline int __popc(unsigned x) { return std::popcount(x); }
inline int __popcll(unsigned long long x) { return std::popcount(x); }
inline int __clz(int x) { return std::countl_zero(static_cast<unsigned>(x)); }
inline int __clzll(long long x) { return std::countl_zero(static_cast<unsigned long long>(x)); }
inline int __ffs(int x) { return x == 0 ? 0 : std::countr_zero(static_cast<unsigned>(x)) + 1; }
inline int __ffsll(long long x) { return x == 0 ? 0 : std::countr_zero(static_cast<unsigned long long>(x)) + 1; }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
// The low 24 bits of each operand (sign-extended for __mul24), the low 32 bits of the product.
inline int __mul24(int a, int b) {
  const auto low24 = [](int v) { return static_cast<std::int32_t>(static_cast<std::uint32_t>(v) << 8) >> 8; };
  return static_cast<int>(static_cast<std::uint32_t>(static_cast<std::int64_t>(low24(a)) * low24(b)));
}
inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
inline int __mulhi(int a, int b) { return static_cast<int>((static_cast<long long>(a) * b) >> 32); }
inline unsigned __umulhi(unsigned a, unsigned b) {
  return static_cast<unsigned>((static_cast<unsigned long long>(a) * b) >> 32);
}
template <class T>
inline T __ldg(const T* p) {
  return *p;
}

// CUDA's device min/max overloads (global namespace).
#define COURSE_CPU_MINMAX(T)                       \
  inline T min(T a, T b) { return b < a ? b : a; } \
  inline T max(T a, T b) { return a < b ? b : a; }
COURSE_CPU_MINMAX(int)
COURSE_CPU_MINMAX(unsigned int)
COURSE_CPU_MINMAX(long)
COURSE_CPU_MINMAX(unsigned long)
COURSE_CPU_MINMAX(long long)
COURSE_CPU_MINMAX(unsigned long long)
COURSE_CPU_MINMAX(float)
COURSE_CPU_MINMAX(double)
#undef COURSE_CPU_MINMAX
inline unsigned int min(int a, unsigned int b) { return min(static_cast<unsigned int>(a), b); }
inline unsigned int min(unsigned int a, int b) { return min(a, static_cast<unsigned int>(b)); }
inline unsigned int max(int a, unsigned int b) { return max(static_cast<unsigned int>(a), b); }
inline unsigned int max(unsigned int a, int b) { return max(a, static_cast<unsigned int>(b)); }
inline double min(float a, double b) { return min(static_cast<double>(a), b); }
inline double min(double a, float b) { return min(a, static_cast<double>(b)); }
inline double max(float a, double b) { return max(static_cast<double>(a), b); }
inline double max(double a, float b) { return max(a, static_cast<double>(b)); }
