// Unit tests of course-rewrite: tokenizer corner cases, launches, shared
// declarations, check-mode instrumentation, and line preservation.
#include "../rewrite/rewriter.h"
#include "../rewrite/tokenizer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

using course_rewrite::Mode;
using course_rewrite::rewrite;

namespace {

// The rewritten body (after the #line directive).
std::string body(const std::string& src, Mode mode = Mode::fast) {
  const std::string out = rewrite(src, "/abs/lab.cu", mode);
  const std::string marker = "#line 1 \"/abs/lab.cu\"\n";
  const auto at = out.find(marker);
  EXPECT_NE(at, std::string::npos);
  return out.substr(at + marker.size());
}

int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST(Tokenizer, RoundTripsEveryByte) {
  const std::string src =
      "#include <x.h> // c\n#define M(a) \\\n  a<<<1,2>>>\nauto s = R\"xy(a)\" <<< )xy\"; /* <<< \n */ "
      "char c = '\\''; int v = 1'000 + 0x1p-3 + .5e+2;\n";
  std::string joined;
  for (const auto& t : course_rewrite::tokenize(src)) joined += t.text;
  EXPECT_EQ(joined, src);
}

TEST(Rewriter, LeavesCommentsStringsAndDirectivesAlone) {
  const std::string src =
      "// k<<<1, 2>>>(x); __shared__ float a[4];\n"
      "/* k<<<1, 2>>>(x);\n __shared__ */\n"
      "const char* s = \"k<<<1,2>>>(x) __shared__\";\n"
      "const char* r = R\"d(k<<<1,2>>>(x) )\" __shared__)d\";\n"
      "#define LAUNCH k<<<1, 2>>>(x)\n";
  EXPECT_EQ(body(src), src);
  EXPECT_EQ(body(src, Mode::check), src);
}

TEST(Rewriter, SimpleLaunch) {
  const std::string out = body("void f() { matAdd<<<grid, block>>>(a, b, c, n); }\n");
  EXPECT_TRUE(contains(out, "::course_cpu::launch(matAdd, \"matAdd\", __FILE__, 1, grid, block)(a, b, c, n);")) << out;
}

TEST(Rewriter, TemplateAndQualifiedCallees) {
  const std::string out = body(
      "void f() {\n"
      "  gemm<float, 32><<<g, b, 0, stream>>>(std::vector<int>{1, 2}.size(), cast<int>(x), a < b, c > d);\n"
      "  ns::inner::k<<<1, 2>>>(p);\n"
      "  ::k2<Tile<4>><<<dim3(n >> 1), 64>>>(q);\n"
      "}\n");
  EXPECT_TRUE(contains(out,
                       "::course_cpu::launch(gemm<float, 32>, \"gemm<float,32>\", __FILE__, 2, g, b, 0, stream)"
                       "(std::vector<int>{1, 2}.size(), cast<int>(x), a < b, c > d);"))
      << out;
  EXPECT_TRUE(contains(out, "::course_cpu::launch(ns::inner::k, \"ns::inner::k\", __FILE__, 3, 1, 2)(p);")) << out;
  EXPECT_TRUE(
      contains(out, "::course_cpu::launch(::k2<Tile<4>>, \"::k2<Tile<4>>\", __FILE__, 4, dim3(n >> 1), 64)(q);"))
      << out;
}

TEST(Rewriter, KernelTemplateWithoutTemplateArgumentsIsDeduced) {
  const std::string src =
      "template <typename T>\n"
      "__global__ void axpy(T a, const T* x, T* y) { y[0] += a * x[0]; }\n"
      "template <int N> __global__ void fixed(float* p) {}\n"
      "template <int N, typename T> __global__ void part(T* p) {}\n"
      "void f(float* x, float* y) {\n"
      "  axpy<<<1, 32>>>(2.0f, x, y);\n"
      "  axpy<float><<<1, 32>>>(2.0f, x, y);\n"
      "  fixed<4><<<1, 2>>>(x);\n"
      "  part<4><<<1, 2>>>(x);\n"
      "}\n";
  const std::string out = body(src);
  EXPECT_EQ(lines(out), lines(src));
  EXPECT_TRUE(
      contains(out,
               "::course_cpu::launch_deduced([](const auto&... course_cpu_args) { (axpy)(course_cpu_args...); }, "
               "\"axpy\", __FILE__, 6, 1, 32)(2.0f, x, y);"))
      << out;
  EXPECT_TRUE(contains(out, "::course_cpu::launch(axpy<float>, \"axpy<float>\", __FILE__, 7, 1, 32)(2.0f, x, y);"))
      << out;
  EXPECT_TRUE(contains(out, "::course_cpu::launch(fixed<4>, \"fixed<4>\", __FILE__, 8, 1, 2)(x);")) << out;
  EXPECT_TRUE(contains(out,
                       "::course_cpu::launch_deduced([](const auto&... course_cpu_args) { (part<4>)"
                       "(course_cpu_args...); }, \"part<4>\", __FILE__, 9, 1, 2)(x);"))
      << out;
}

TEST(Rewriter, AutoFromACheckedSubscriptIsAValue) {
  const std::string src =
      "__global__ void k(float* p, int n) {\n"
      "  __shared__ float s[32];\n"
      "  auto v = s[0] + 1, w = p[n];\n"
      "  const auto c = (s[1]);\n"
      "  const auto& r = s[2];\n"
      "  auto q = n;\n"
      "  auto t = f<int, 2>(s[3]);\n"
      "}\n";
  const std::string out = body(src, Mode::check);
  EXPECT_EQ(lines(out), lines(src));
  EXPECT_TRUE(contains(out,
                       "auto v = ::course_cpu::check::value(COURSE_CHECKED(s, __LINE__)[0] + 1), "
                       "w = ::course_cpu::check::value(COURSE_CHECKED(p, __LINE__)[n]);"))
      << out;
  EXPECT_TRUE(contains(out, "const auto c = ::course_cpu::check::value((COURSE_CHECKED(s, __LINE__)[1]));")) << out;
  EXPECT_TRUE(contains(out, "const auto& r = COURSE_CHECKED(s, __LINE__)[2];")) << out;
  EXPECT_TRUE(contains(out, "auto q = n;")) << out;
  // A comma that may separate template arguments: left alone (f's result is a value anyway).
  EXPECT_TRUE(contains(out, "auto t = f<int, 2>(COURSE_CHECKED(s, __LINE__)[3]);")) << out;
}

TEST(Rewriter, ProxiesWhereCppNeedsTheElementsValue) {
  const std::string src =
      "__global__ void k(float* p, int n) {\n"
      "  __shared__ float s[32];\n"
      "  float a = (n < 4) ? s[n] : 0;\n"
      "  float b = n ? 1 : (p[n]);\n"
      "  float c = n ? s[n] * 2 : 0;\n"
      "  printf(\"%f %d\\n\", s[0], n);\n"
      "  switch (n) { case 1: s[1] = 2; }\n"
      "  f(s[2], n ? s[3] + 1 : s[4]);\n"
      "}\n";
  const std::string out = body(src, Mode::check);
  EXPECT_EQ(lines(out), lines(src));
  EXPECT_TRUE(contains(out, "float a = (n < 4) ? ::course_cpu::check::value(COURSE_CHECKED(s, __LINE__)[n]) : 0;"))
      << out;
  EXPECT_TRUE(contains(out, "float b = n ? 1 : (::course_cpu::check::value(COURSE_CHECKED(p, __LINE__)[n]));")) << out;
  EXPECT_TRUE(contains(out, "float c = n ? COURSE_CHECKED(s, __LINE__)[n] * 2 : 0;")) << out;  // already a float
  EXPECT_TRUE(contains(out, "printf(\"%f %d\\n\", ::course_cpu::check::value(COURSE_CHECKED(s, __LINE__)[0]), n);"))
      << out;
  EXPECT_TRUE(contains(out, "case 1: COURSE_CHECKED(s, __LINE__)[1] = 2;")) << out;  // a label's colon
  EXPECT_TRUE(contains(out,
                       "f(COURSE_CHECKED(s, __LINE__)[2], n ? COURSE_CHECKED(s, __LINE__)[3] + 1 : "
                       "::course_cpu::check::value(COURSE_CHECKED(s, __LINE__)[4]));"))
      << out;
}

TEST(Rewriter, ReferencesToSharedElementsBecomeProxies) {
  const std::string src =
      "__global__ void k(float* p, int n) {\n"
      "  __shared__ float s[32];\n"
      "  float& r = s[n];\n"
      "  const float &c = p[n];\n"
      "  auto& a = s[1];\n"
      "  auto v = r;\n"
      "  float w = n ? r : 0;\n"
      "  float& q = *p;\n"
      "  int x = n & r;\n"
      "}\n";
  const std::string out = body(src, Mode::check);
  EXPECT_EQ(lines(out), lines(src));
  EXPECT_TRUE(contains(out, "auto&& r = COURSE_CHECKED(s, __LINE__)[n];")) << out;
  EXPECT_TRUE(contains(out, "const auto& c = COURSE_CHECKED(p, __LINE__)[n];")) << out;
  EXPECT_TRUE(contains(out, "auto&& a = COURSE_CHECKED(s, __LINE__)[1];")) << out;
  EXPECT_TRUE(contains(out, "auto v = ::course_cpu::check::value(r);")) << out;  // a copy, as in CUDA
  EXPECT_TRUE(contains(out, "float w = n ? ::course_cpu::check::value(r) : 0;")) << out;
  EXPECT_TRUE(contains(out, "float& q = *p;")) << out;  // not a shared element
  EXPECT_TRUE(contains(out, "int x = n & r;")) << out;
  EXPECT_TRUE(contains(body(src), "float& r = s[n];"));  // fast mode: plain references
}

TEST(Rewriter, StaticSharedArraysOfKernelsAreNoted) {
  const std::string src =
      "template <typename T, int TILE = 16, class... Rest>\n"
      "__global__ void k(const T* a, int n) {\n"
      "  __shared__ T As[TILE][TILE], total;\n"
      "}\n"
      "__global__ void plain(float* out) { __shared__ float s[8]; extern __shared__ float d[]; }\n"
      "__device__ void helper() { __shared__ float h[4]; }\n"
      "template <typename> __global__ void unnamed(float* o) { __shared__ float u[2]; }\n";
  for (Mode mode : {Mode::fast, Mode::check}) {
    const std::string out = body(src, mode);
    EXPECT_EQ(lines(out), lines(src));
    EXPECT_TRUE(contains(out,
                         "static_cast<void>(::course_cpu::detail::StaticSharedNote<static_cast<void (*)(const T* a, "
                         "int n)>(&k<T, TILE, Rest...>), sizeof(As) + sizeof(total), "))
        << out;
    EXPECT_TRUE(contains(out, "StaticSharedNote<static_cast<void (*)(float* out)>(&plain), sizeof(s), ")) << out;
    EXPECT_FALSE(contains(out, "sizeof(h)")) << out;  // a __device__ function: its kernel is not known
    EXPECT_FALSE(contains(out, "sizeof(u)")) << out;  // an unnamed template parameter cannot be named
  }
}

TEST(Rewriter, MultiLineLaunchKeepsLines) {
  const std::string src =
      "void f() {\n"
      "  kernel<<<grid,   // the grid\n"
      "           block,\n"
      "           bytes>>>(a,\n"
      "                    b);\n"
      "  int after = __LINE__;\n"
      "}\n";
  const std::string out = body(src);
  EXPECT_EQ(lines(out), lines(src));
  EXPECT_TRUE(contains(out, "::course_cpu::launch(kernel, \"kernel\", __FILE__, 2, grid,   // the grid\n")) << out;
  EXPECT_TRUE(contains(out, "bytes)(a,\n")) << out;
}

TEST(Rewriter, SharedDeclarations) {
  const std::string src =
      "extern __shared__ float file_scope[];\n"
      "__global__ void k(float* out) {\n"
      "  __shared__ float tile[16][17], other[4];\n"
      "  extern __shared__ __align__(16)\n"
      "      unsigned char smem[];\n"
      "  static __shared__ int count;\n"
      "  out[0] = tile[0][1] + other[2] + smem[3] + file_scope[4];\n"
      "}\n";
  const std::string out = body(src);
  EXPECT_EQ(lines(out), lines(src));
  EXPECT_TRUE(contains(out, "static ::course_cpu::DynamicShared<float> file_scope;\n")) << out;
  EXPECT_TRUE(contains(out, "static thread_local float tile[16][17], other[4];")) << out;
  EXPECT_TRUE(contains(out, "unsigned char* const smem = ::course_cpu::dynamic_shared<unsigned char>();\n\n")) << out;
  EXPECT_TRUE(contains(out, "static thread_local int count;")) << out;
}

TEST(Rewriter, CheckModeInstrumentsSharedAndPointerParameterSubscripts) {
  const std::string src =
      "template <int TILE>\n"
      "__global__ void __launch_bounds__(256) k(const float* __restrict__ a, float* out, int n, S s) {\n"
      "  __shared__ float As[TILE][TILE + 1];\n"
      "  extern __shared__ float dyn[];\n"
      "  As[threadIdx.y][threadIdx.x] = a[n];\n"
      "  dyn[1] += As[0][sizeof(As[0]) / 4];\n"
      "  out[0] = s.v[1] + reinterpret_cast<const float4*>(a)[0].x;\n"
      "  float* p = &As[0][0];\n"
      "}\n"
      "void host(float* a) { a[0] = 1; }\n";
  const std::string out = body(src, Mode::check);
  EXPECT_EQ(lines(out), lines(src));
  EXPECT_TRUE(contains(out, "COURSE_CHECKED(As, __LINE__)[threadIdx.y][threadIdx.x] = COURSE_CHECKED(a, __LINE__)[n];"))
      << out;
  EXPECT_TRUE(contains(out, "COURSE_CHECKED(dyn, __LINE__)[1] += COURSE_CHECKED(As, __LINE__)[0][sizeof(As[0]) / 4];"))
      << out;
  EXPECT_TRUE(contains(out, "COURSE_CHECKED(out, __LINE__)[0] = s.v[1] + reinterpret_cast<const float4*>(a)[0].x;"))
      << out;
  EXPECT_TRUE(contains(out, "float* p = &COURSE_CHECKED(As, __LINE__)[0][0];")) << out;
  EXPECT_TRUE(contains(out, "static thread_local float As[TILE][TILE + 1]; ::course_cpu::check::declare_shared(As);"))
      << out;
  EXPECT_TRUE(contains(out, "void host(float* a) { a[0] = 1; }")) << out;  // host code is not instrumented
}

TEST(Rewriter, PreludeAndLineDirective) {
  const std::string out = rewrite("int x;\n", "/p/a \"q\".cu", Mode::check);
  EXPECT_TRUE(contains(out,
                       "#define COURSE_CPU_CHECK_MODE 1\n#include <course_cpu/prelude.h>\n"
                       "#line 1 \"/p/a \\\"q\\\".cu\"\nint x;\n"))
      << out;
}

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
      {"coalesced.cu",
       "#include <cooperative_groups.h>\n"
       "__global__ void k() { auto g = cooperative_groups::coalesced_threads(); }\n"},
      {"half.cu", "#include <cuda_fp16.h>\n__global__ void k(__half* h) {}\n"},
      {"cooperative_launch.cu",
       "#include <cuda_runtime.h>\n__global__ void k() {}\n"
       "void f() { void* args[1]; cudaLaunchCooperativeKernel((void*)k, 1, 1, args); }\n"},
      {"big_tile.cu",
       "#include <cooperative_groups.h>\n"
       "__global__ void k() { auto t = "
       "cooperative_groups::tiled_partition<64>(cooperative_groups::this_thread_block()); }\n"},
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
