// Compile tests of course-rewrite: its output, with the CPU backend's headers, compiled by the real compiler in both
// modes (idioms of public CUDA code; errors that point at the student's line; the marker of what the backend lacks).
#include "../rewrite/rewriter.h"
#include "rewriter_test_util.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

using course_rewrite::Mode;
using course_rewrite::rewrite;

using rewriter_test::contains;

// Compiles rewritten code with the real compiler.
namespace {
int compile(const std::string& cu_name, const std::string& source, Mode mode, std::string* diagnostics) {
  const std::string dir = COURSE_CPU_TEST_TMP;
  const std::string cu = dir + "/" + cu_name;
  std::ofstream(cu) << source;
  const std::string cpp = cu + (mode == Mode::check ? ".check.cpp" : ".fast.cpp");
  std::ofstream(cpp) << rewrite(source, cu, mode);
  const std::string log = cpp + ".log";
  const std::string cmd = std::string(COURSE_CPU_CXX) + " -std=c++20 -fsyntax-only -Wno-unknown-pragmas -I" +
                          COURSE_CPU_INCLUDE + " " + cpp + " > " + log + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  *diagnostics = ss.str();
  return rc;
}

const char* kTricky = R"cu(#include <cuda_runtime.h>
#include <vector>
// Comments with <<< and >>> and __shared__ must not confuse the rewriter.
namespace ns {
template <typename T, int TILE>
__global__ void tiled(const T* __restrict__ a, T* out, int n) {
  __shared__ T tile[TILE][TILE + 1];
  extern __shared__ unsigned char raw[];
  T* dyn = reinterpret_cast<T*>(raw);
  const int x = threadIdx.x, y = threadIdx.y;
  tile[y][x] = x < n ? a[y * n + x] : T(0);
  __syncthreads();
#pragma unroll
  for (int k = 0; k < TILE; ++k) dyn[x] = tile[x][k];
  out[y * n + x] = tile[x][y] + max(x, y) + min(1.0f, 2.0f) + fmaxf(tile[0][0], 1.0f);
}
}  // namespace ns
__device__ float warpSum(float v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
  return v;
}
__global__ void reduce(const float* in, float* out) {
  extern __shared__ float s[];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  float v = warpSum(s[threadIdx.x]);
  if (threadIdx.x == 0) atomicAdd(&out[0], v);
  s[threadIdx.x]++;
  s[threadIdx.x] *= 2;
}
template <typename T, typename S>
__global__ void scaled(const T* in, T* out, S factor) {
  __shared__ T s[32];
  s[threadIdx.x] = in[threadIdx.x] * factor;
  __syncthreads();
  out[threadIdx.x] = s[31 - threadIdx.x];
}
void host(float* a, float* o, int n, cudaStream_t st) {
  const char* msg = "kernel<<<1,1>>>()";
  ns::tiled<float, 16><<<dim3(1, 1), dim3(16, 16),
                          256 * sizeof(float), st>>>(a, o,
                                                    n);
  reduce<<<1, 32, 32 * sizeof(float)>>>(a, o);
  ns::tiled<float, 16><<<1, 1>>>(a, o, n);
  scaled<<<1, 32>>>(a, o, 2.0);
  (void)msg;
}
)cu";
}  // namespace

TEST(RewriterCompile, TrickyFileCompilesInBothModes) {
  std::string log;
  EXPECT_EQ(compile("tricky.cu", kTricky, Mode::fast, &log), 0) << log;
  EXPECT_EQ(compile("tricky.cu", kTricky, Mode::check, &log), 0) << log;
}

namespace {
const char* kIdioms = R"cu(#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>
#include <cstdio>
namespace cg = cooperative_groups;
__device__ void warpReduce(volatile float* s, int t) { s[t] += s[t + 32]; }
__device__ void swap2(float& a, float& b) { float t = a; a = b; b = t; }
template <int N>
__global__ void idioms(const float* in, float* out, int n) {
  __shared__ float s[64];
  __shared__ volatile int flags[32];
  __shared__ alignas(16) float aligned[64];
  auto tile = cg::tiled_partition<N>(cg::this_thread_block());
  float& r = s[threadIdx.x];
  r = in[threadIdx.x];
  flags[threadIdx.x % 32] = 1;
  cg::this_thread_block().sync();
  float v = threadIdx.x < n ? s[threadIdx.x] : 0;
  v = cg::reduce(tile, v, cg::plus<float>()) + tile.shfl_down(s[threadIdx.x], 1);
  if (threadIdx.x < 32) warpReduce(s, threadIdx.x);
  swap2(s[0], s[1]);
  reinterpret_cast<float4*>(s)[0] = make_float4(v, v, v, v);
  reinterpret_cast<float4*>(aligned)[0] = reinterpret_cast<float4*>(s)[0];
  printf("%f %d\n", s[0], flags[0]);
  out[threadIdx.x] = v + r;
}
void host(const float* in, float* out) {
  int grid = 0, block = 0, blocks = 0;
  cudaFuncAttributes attr;
  cudaFuncGetAttributes(&attr, idioms<32>);
  cudaFuncSetAttribute(idioms<32>, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared);
  cudaOccupancyMaxPotentialBlockSize(&grid, &block, idioms<32>, 0, 0);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, idioms<16>, block, 0);
  idioms<32><<<grid, 64>>>(in, out, 64);
}
// 48 KB of static shared memory is allowed; an array the kernel never names again is dropped by ptxas.
__global__ void full(float* out) {
  __shared__ float a[8192];
  __shared__ float b[4096], unused[20000];
  a[threadIdx.x] = b[threadIdx.x] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = a[threadIdx.x + 1] + b[threadIdx.x + 1];
}
// Kernels through pointers: an array's element, a struct's member, the pointer in parentheses.
struct Kernels {
  void (*one)(float*);
  void (*each[2])(float*);
};
void table(float* out) {
  void (*ks[2])(float*) = {full, full};
  Kernels t{full, {full, full}};
  Kernels* p = &t;
  for (int k = 0; k < 2; ++k) ks[k]<<<1, 32>>>(out);
  t.one<<<1, 32>>>(out);
  p->one<<<1, 32>>>(out);
  t.each[1]<<<1, 32>>>(out);
  (ks[0])<<<1, 32>>>(out);
}
// `__shared__ extern` (the Programming Guide's order), a __grid_constant__ parameter, 64-bit vector types, and template
// arguments with shifts at a launch.
__global__ void guide_order(const __grid_constant__ int n, float* out) {
  __shared__ extern float buffer[];
  buffer[threadIdx.x] = n;
  const long2 l = make_long2(1, 2);
  const ulonglong4 u = make_ulonglong4(1, 2, 3, 4);
  __syncthreads();
  out[threadIdx.x] = buffer[threadIdx.x] + l.y + u.w;
}
template <int B>
__global__ void shifted(float* out) {
  out[threadIdx.x] = B;
}
void more(float* out) {
  guide_order<<<1, 32, 32 * sizeof(float)>>>(4, out);
  shifted<(1 << 8)><<<1, 32>>>(out);
  shifted<(1024 >> 2)><<<1, 32>>>(out);
}
// A __device__ function's reference parameters of class types (checked through their address in check mode), used in
// every way an expression can: compared, called, subscripted, captured, copied, stored whole and braced, addressed.
struct RefKV {
  int key;
  float v;
  __device__ bool operator<(const RefKV& o) const { return key < o.key; }
  __device__ int operator()(int x) const { return key + x; }
  __device__ float& operator[](int) { return v; }
};
typedef struct {
  float x, y;
} RefP2;
template <class T>
struct RefBox {
  T val;
};
__device__ void refForms(RefKV& a, const RefKV& b, RefP2& p, RefBox<float>& box, float2& f, int* out) {
  if (b < a) {
    const RefKV t = a;
    a = b;
    a.v = t.v;
  }
  a.key += a(1) + static_cast<int>(a[0]);
  auto c = [&a](int x) { return a.key + x; };
  auto d = [=]() { return a.v + b.v; };
  p.x = p.y;
  box.val = f.x + d();
  f = make_float2(1.0f, 2.0f);
  const RefKV* q = &a;
  RefKV& r = a;
  r.key = q->key + c(2);
  int both[2] = {a.key, b.key};
  a = {both[1], 2.0f};
  out[0] = sizeof(a) + both[0];
}
// Rows of 2D shared arrays given to casts of every form (a typedef'd or aliased pointer, __restrict__, an integer, a
// macro's C-style cast), cache loads whose type and value category are the intrinsic's, and macros whose arguments
// would glue to their bodies' tokens (`/ *pd`, `- -j`) or that are defined after a function of the same name.
#include <cstdint>
typedef float4* RowF4;
using RowCF4 = const float4*;
#define AS_F2(p) ((float2*)(p))
#define AT_DIV(s, n, d) s[n / d]
#define REV(p, i) (p)[-i]
__device__ int AT(const float* p, int i) { return static_cast<int>(p[i + 1]); }
__global__ void castForms(const float* in, float* out, const int* pd) {
  __shared__ __align__(16) float As[2][8];
  As[threadIdx.x / 8][threadIdx.x % 8] = in[threadIdx.x];
  __syncthreads();
  const float4 a = ((RowF4)As[1])[0];
  const float4 b = reinterpret_cast<RowCF4>(As[0])[1];
  const float4 c = reinterpret_cast<float4* __restrict__>(As[1])[1];
  const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(As[1]);
  const float2 e = AS_F2(As[0])[1];
  decltype(__ldg(in)) v = __ldg(in);
  v += 1.0f;
  const float* mid = in + 8;
  out[threadIdx.x] = a.x + b.y + c.z + e.x + v + static_cast<float>(at % 16) + AT_DIV(in, 4, *pd) + REV(mid, -2) +
                     AT(in, 0);
}
#define AT(p, i) (p)[i]
)cu";
}  // namespace

TEST(RewriterCompile, PublicIdiomsCompileInBothModes) {
  std::string log;
  EXPECT_EQ(compile("idioms.cu", kIdioms, Mode::fast, &log), 0) << log;
  EXPECT_EQ(compile("idioms.cu", kIdioms, Mode::check, &log), 0) << log;
}

// A feature the backend lacks fails with its marker, in an error placed in the backend's own headers (what the
// grader's diagnostics.backend_gap recognizes as not the student's mistake).
TEST(RewriterCompile, UnsupportedFeaturesFailWithTheBackendsMarker) {
  const std::string headers = std::string(COURSE_CPU_INCLUDE);
  const char* cases[][2] = {
      {"grid.cu",
       "#include <cooperative_groups.h>\n"
       "__global__ void k() { auto g = cooperative_groups::this_grid(); g.sync(); }\n"},
      {"coalesced_partition.cu",
       "#include <cooperative_groups.h>\n"
       "__global__ void k() { auto g = cooperative_groups::coalesced_threads(); auto t = "
       "cooperative_groups::tiled_partition<4>(g); }\n"},
      {"coalesced_as_group.cu",
       "#include <cooperative_groups.h>\n"
       "__device__ void f(const cooperative_groups::thread_group& g) { g.sync(); }\n"
       "__global__ void k() { f(cooperative_groups::coalesced_threads()); }\n"},
      {"labeled.cu",
       "#include <cooperative_groups.h>\n"
       "__global__ void k() { auto g = cooperative_groups::labeled_partition(cooperative_groups::this_thread_block(), "
       "1); }\n"},
      {"half.cu", "#include <cuda_fp16.h>\n__global__ void k(__half* h) {}\n"},
      {"partitioned_pipeline.cu",  // a block's pipeline of producers and consumers: only a unified one is provided
       "#include <cooperative_groups.h>\n#include <cuda/pipeline>\n"
       "__global__ void k() {\n"
       "  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;\n"
       "  auto pipe = cuda::make_pipeline(cooperative_groups::this_thread_block(), &state,\n"
       "                                  threadIdx.x < 32 ? cuda::pipeline_role::producer : "
       "cuda::pipeline_role::consumer);\n"
       "}\n"},
      {"barrier_drop.cu",  // a barrier threads leave: only one that every thread of the block arrives at
       "#include <cuda/barrier>\n"
       "__global__ void k() { __shared__ cuda::barrier<cuda::thread_scope_block> bar; bar.arrive_and_drop(); }\n"},
      {"tma.cu",  // libcu++'s Hopper bulk copies that go with a barrier
       "#include <cuda/barrier>\n"
       "__global__ void k() { cuda::device::experimental::fence_proxy_async_shared_cta(); }\n"},
      {"device_barrier.cu",
       "#include <cuda/barrier>\n"
       "__device__ cuda::barrier<cuda::thread_scope_device> grid_barrier;\n__global__ void k() {}\n"},
      {"cooperative_launch.cu",
       "#include <cuda_runtime.h>\n__global__ void k() {}\n"
       "void f() { void* args[1]; cudaLaunchCooperativeKernel((void*)k, 1, 1, args); }\n"},
      {"big_tile.cu",
       "#include <cooperative_groups.h>\n"
       "__global__ void k() { auto t = "
       "cooperative_groups::tiled_partition<64>(cooperative_groups::this_thread_block()); }\n"},
      {"inline_ptx.cu",
       "#include <cuda_runtime.h>\n"
       "__global__ void k(unsigned* out) {\n"
       "  unsigned lane;\n"
       "  asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(lane));\n"
       "  out[0] = lane;\n"
       "}\n"},
  };
  int index = 0;
  for (const auto& c : cases) {
    for (Mode mode : {++index % 2 ? Mode::fast : Mode::check}) {  // the same headers in both: one mode each
      std::string log;
      EXPECT_NE(compile(c[0], c[1], mode, &log), 0) << c[0];
      bool marked = false;
      std::istringstream lines_of_log(log);
      for (std::string line; std::getline(lines_of_log, line);)
        marked = marked || (line.rfind(headers, 0) == 0 && contains(line, "error: ") &&
                            contains(line, "course-cpu-unsupported: "));
      EXPECT_TRUE(marked) << c[0] << ":\n" << log;
    }
  }
}

TEST(RewriterCompile, CompilerErrorsPointAtTheOriginalLine) {
  std::string src;
  for (int line = 1; line <= 30; ++line) {
    if (line == 3)
      src += "__global__ void k(float* a) {\n";
    else if (line == 5)
      src += "  __shared__ float s[8];\n";
    else if (line == 6)
      src += "  extern __shared__\n";
    else if (line == 7)
      src += "     float d[];\n";
    else if (line == 9)
      src += "}\n";
    else if (line == 12)
      src += "void h(float* p) { k<<<1,\n";
    else if (line == 13)
      src += "  32>>>(p); }\n";
    else if (line == 17)
      src += "int broken = undeclared_name;\n";
    else
      src += "// filler line " + std::to_string(line) + "\n";
  }
  for (Mode mode : {Mode::fast, Mode::check}) {
    std::string log;
    EXPECT_NE(compile("line17.cu", src, mode, &log), 0);
    EXPECT_TRUE(contains(log, "line17.cu:17:")) << log;
  }
}

// Valid-looking CUDA that nvcc 13 rejects is rejected here too: the Programming Guide's old atomicAdd(double*) under a
// bare `#if __CUDA_ARCH__ < 600` is a redefinition in nvcc's host pass (checked with nvcc 13.0 for sm_90).
// Calls of the standard library's constexpr __host__ functions and <cmath>'s integer overloads in device code, which
// nvcc 13.0 rejects ("calling a constexpr __host__ function ... is not allowed"): refused in both modes at the call's
// line, with the reason; in host code and __host__ __device__ functions (where nvcc only warns) they compile.
TEST(RewriterCompile, HostConstexprCallsInDeviceCodeFailAsWithNvcc) {
  const char* cases[][3] = {
      {"std_min.cu", "#include <algorithm>\n__global__ void k(float* o) {\n  o[0] = std::min(o[1], 2.0f);\n}\n",
       "constexpr __host__"},
      {"limits.cu",
       "#include <limits>\n__global__ void k(float* o) {\n  o[0] = std::numeric_limits<float>::max();\n}\n", "FLT_MAX"},
      {"int_sqrt.cu", "__device__ float f(int n) {\n  return sqrt(n);\n}\n", "sqrtf((float)n)"},
      {"int_fmax.cu", "__global__ void k(float* o, int n) {\n  o[0] = fmax(o[1], n);\n}\n", "sqrtf((float)n)"},
  };
  for (const auto& c : cases) {
    for (Mode mode : {Mode::fast, Mode::check}) {
      std::string log;
      EXPECT_NE(compile(c[0], c[1], mode, &log), 0) << c[0];
      EXPECT_TRUE(contains(log, std::string(c[0]) + ":2:") || contains(log, std::string(c[0]) + ":3:")) << log;
      EXPECT_TRUE(contains(log, c[2])) << c[0] << ": " << log;
    }
  }
  const std::string accepted =
      "#include <cmath>\n#include <limits>\n#include <utility>\n"
      "__global__ void k(float* o, double* d, int n) {\n"
      "  o[0] = std::abs(o[1]) + std::sqrt(o[1]) + std::fmax(o[1], 1.0f) + floorf(n) + sqrt(float(n)) + "
      "sqrt(n * 1.0f);\n"
      "  d[0] = pow(n, 2) + pow(2.0, n) + ldexp(d[1], n) + frexp(d[1], &n) + abs(n) + fabsf(n) + min(n, 3);\n"
      "  float a = std::move(o[2]);\n"
      "  o[3] = a + sizeof(std::min(1, 2)) + isnan(o[1]) + fma(o[1], 2.0f, 1.0f);\n"
      "}\n"
      "struct V { __device__ float max() const { return 1; } };\n"
      "__device__ float sqrt(int n) { return sqrtf(static_cast<float>(n)); }\n"
      "__host__ __device__ float hd(float a) { return std::min(a, 2.0f); }\n"
      "__global__ void k2(float* o) { V v; o[0] = v.max() + hd(o[1]) + sqrt(4); }\n"
      "void host(float* o, int n) { o[0] = std::min(1.0f, 2.0f) + std::sqrt(n) + std::numeric_limits<float>::max(); "
      "}\n";
  for (Mode mode : {Mode::fast, Mode::check}) {
    std::string log;
    EXPECT_EQ(compile("accepted_calls.cu", accepted, mode, &log), 0) << log;
  }
}

TEST(RewriterCompile, WhatNvccRejectsFailsHereToo) {
  const std::string src =
      "#include <cuda_runtime.h>\n"
      "#if __CUDA_ARCH__ < 600\n"
      "__device__ double atomicAdd(double* address, double val) {\n"
      "  auto* word = reinterpret_cast<unsigned long long*>(address);\n"
      "  unsigned long long old = *word, assumed;\n"
      "  do {\n"
      "    assumed = old;\n"
      "    old = atomicCAS(word, assumed, __double_as_longlong(val + __longlong_as_double(assumed)));\n"
      "  } while (assumed != old);\n"
      "  return __longlong_as_double(old);\n"
      "}\n"
      "#endif\n"
      "__global__ void k(const double* in, double* sum) { atomicAdd(sum, in[threadIdx.x]); }\n";
  for (Mode mode : {Mode::fast, Mode::check}) {
    std::string log;
    EXPECT_NE(compile("old_atomic_add.cu", src, mode, &log), 0) << log;
    EXPECT_TRUE(contains(log, "old_atomic_add.cu:3:")) << log;
  }
  // nvcc 13: "attribute does not apply to any entity" (alignas after `static __shared__`; first, it is accepted).
  const std::string late_alignas =
      "#include <cuda_runtime.h>\n"
      "__global__ void k(float* out) {\n"
      "  static __shared__ alignas(16) float s[4];\n"
      "  s[threadIdx.x] = 1.0f;\n"
      "  out[threadIdx.x] = s[3 - threadIdx.x];\n"
      "}\n";
  for (Mode mode : {Mode::fast, Mode::check}) {
    std::string log;
    EXPECT_NE(compile("late_alignas.cu", late_alignas, mode, &log), 0) << log;
    EXPECT_TRUE(contains(log, "late_alignas.cu:3:")) << log;
  }
  // ptxas: "uses too much shared data (0xcb20 bytes, 0xc000 max)": static shared memory over 48 KB, in one array, in
  // two arrays in scope together, and in the one specialization of a kernel template that is launched.
  const std::string too_large =
      "#include <cuda_runtime.h>\n"
      "__global__ void one(float* out) {\n"
      "  __shared__ float a[13000];\n"
      "  a[threadIdx.x] = 1.0f;\n"
      "  out[threadIdx.x] = a[threadIdx.x + 1];\n"
      "}\n"
      "__global__ void two(float* out) {\n"
      "  __shared__ float a[8192];\n"
      "  if (out) {\n"
      "    __shared__ float b[4097];\n"
      "    a[threadIdx.x] = b[threadIdx.x] = 1.0f;\n"
      "    out[0] = b[threadIdx.x + 1];\n"
      "  }\n"
      "  out[threadIdx.x] = a[threadIdx.x + 1];\n"
      "}\n"
      "template <int N>\n"
      "__global__ void tile(float* out) {\n"
      "  __shared__ float a[N];\n"
      "  a[threadIdx.x] = 1.0f;\n"
      "  out[threadIdx.x] = a[threadIdx.x + 1];\n"
      "}\n"
      "void host(float* out) { tile<64><<<1, 32>>>(out); tile<12289><<<1, 32>>>(out); }\n";
  for (Mode mode : {Mode::fast, Mode::check}) {
    std::string log;
    EXPECT_NE(compile("too_large.cu", too_large, mode, &log), 0) << log;
    for (const char* at : {"too_large.cu:3:", "too_large.cu:10:", "too_large.cu:18:"})
      EXPECT_TRUE(contains(log, at)) << at << " | " << log;
    EXPECT_TRUE(contains(log, "more than 48 KB")) << log;
  }
}
