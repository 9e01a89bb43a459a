// Unit tests of course-rewrite: tokenizer corner cases, launches, shared
// declarations, check-mode instrumentation, and line preservation (compile
// tests of its output: test_rewriter_compile.cpp).
#include "../rewrite/rewriter.h"
#include "../rewrite/tokenizer.h"
#include "rewriter_test_util.h"

#include <gtest/gtest.h>

#include <string>

using course_rewrite::Mode;
using course_rewrite::rewrite;
using rewriter_test::body;
using rewriter_test::contains;
using rewriter_test::lines;

// The start of a shared element of `s` read whole as a by-value argument: `value(for_load(s)[i])`.
const std::string kLoad = "::course_cpu::check::value(::course_cpu::check::for_load(COURSE_CHECKED(s, __LINE__))";

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
      "#pragma message \"k<<<1, 2>>>(x) __shared__\"\n";  // a #define's launches are rewritten (below)
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
  EXPECT_TRUE(
      contains(out,
               "auto v = ::course_cpu::check::value(::course_cpu::check::value(COURSE_CHECKED(s, __LINE__)[0]) + 1), "
               "w = ::course_cpu::check::value(::course_cpu::check::for_load(COURSE_CHECKED(p, __LINE__))[n]);"))
      << out;
  // In parentheses the element is still the whole right-hand side: a load.
  EXPECT_TRUE(contains(
      out,
      "const auto c = ::course_cpu::check::value((::course_cpu::check::for_load(COURSE_CHECKED(s, __LINE__))[1]));"))
      << out;
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
  EXPECT_TRUE(contains(out, "float c = n ? ::course_cpu::check::value(COURSE_CHECKED(s, __LINE__)[n]) * 2 : 0;"))
      << out;  // already a float
  EXPECT_TRUE(contains(out, "printf(\"%f %d\\n\", ::course_cpu::check::value(COURSE_CHECKED(s, __LINE__)[0]), n);"))
      << out;
  EXPECT_TRUE(contains(out, "case 1: ::course_cpu::check::for_store(COURSE_CHECKED(s, __LINE__))[1] = 2;"))
      << out;  // a label's colon
  EXPECT_TRUE(
      contains(out,
               "f(COURSE_CHECKED(s, __LINE__)[2], n ? ::course_cpu::check::value(COURSE_CHECKED(s, __LINE__)[3]) + 1 : "
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
  EXPECT_TRUE(contains(out, "auto&& q = ::course_cpu::check::root(p, ")) << out;  // *p is p[0], checked too
  EXPECT_TRUE(contains(out, "int x = n & ::course_cpu::check::value(r);")) << out;
  EXPECT_TRUE(contains(body(src), "float& r = s[n];"));  // fast mode: plain references
}

TEST(Rewriter, SharedScalarsOfArithmeticTypesAreChecked) {
  const std::string src =
      "__global__ void k(float* p, int n) {\n"
      "  __shared__ float total, tile[32];\n"
      "  __shared__ volatile unsigned int flag;\n"
      "  __shared__ float4 v;\n"
      "  __shared__ int shadow;\n"
      "  if (n == 0) total = p[0];\n"
      "  atomicAdd(&flag, 1u);\n"
      "  auto t = total;\n"
      "  p[n] = n ? total : 0;\n"
      "  v.x = sizeof(total) + shadow;\n"
      "  for (int shadow = 0; shadow < 2; ++shadow) p[shadow] = 0;\n"
      "}\n";
  const std::string out = body(src, Mode::check);
  EXPECT_EQ(lines(out), lines(src));
  EXPECT_TRUE(contains(out, "::course_cpu::check::declare_shared_scalar(total);")) << out;
  EXPECT_TRUE(contains(out, "::course_cpu::check::declare_shared_scalar(flag);")) << out;
  EXPECT_TRUE(contains(out,
                       "if (n == 0) COURSE_CHECKED_SCALAR(total, __LINE__) = "
                       "::course_cpu::check::for_load(COURSE_CHECKED(p, __LINE__))[0];"))
      << out;
  EXPECT_TRUE(contains(out, "atomicAdd(&COURSE_CHECKED_SCALAR(flag, __LINE__), 1u);")) << out;
  EXPECT_TRUE(contains(out, "auto t = ::course_cpu::check::value(COURSE_CHECKED_SCALAR(total, __LINE__));")) << out;
  EXPECT_TRUE(contains(out, "n ? ::course_cpu::check::value(COURSE_CHECKED_SCALAR(total, __LINE__)) : 0;")) << out;
  // float4: no arithmetic scalar, its member is checked (object_chain); shadow: declared again, left alone.
  EXPECT_TRUE(
      contains(out,
               "::course_cpu::check::member<::course_cpu::check::Use::store>(::course_cpu::check::for_member("
               "COURSE_CHECKED_OBJECT(v, __LINE__))[0], COURSE_CPU_MEMBER_OF(.x, x)) = sizeof(total) + shadow;"))
      << out;
  EXPECT_TRUE(contains(out, "declare_shared_scalar(v);")) << out;  // known to the block (&v.x)
  EXPECT_FALSE(contains(body(src), "COURSE_CHECKED_SCALAR"));      // fast mode: plain variables
}

// The data members of a __shared__ scalar of class type: a member is checked like p->x with p = &st, a member array
// like a shared array of its own (named `st.bins` in messages), a pointer member's subscript like a local pointer's;
// an address, a method call and a name declared again are left as written.
TEST(Rewriter, MembersOfSharedStructScalarsAreChecked) {
  const std::string src =
      "struct Acc { float sum[32]; int count; float2 pos; float* p; int get() const { return count; } };\n"
      "__global__ void k(float* out) {\n"
      "  __shared__ Acc acc, again;\n"
      "  __shared__ union { float f[8][4]; int i[32]; } tmp;\n"
      "  acc.count = 0;\n"
      "  acc.sum[threadIdx.x] = out[0];\n"
      "  tmp.f[1][2] = acc.pos.x > 0 ? acc.sum[3] : 0;\n"
      "  atomicAdd(&acc.count, 1);\n"
      "  out[1] = acc.get() + acc.p[0];\n"
      "  again.count = 2;\n"
      "  { Acc again; again.count = 1; }\n"
      "}\n";
  const std::string out = body(src, Mode::check);
  EXPECT_EQ(lines(out), lines(src));
  const std::string member = "::course_cpu::check::member<::course_cpu::check::Use::";
  EXPECT_TRUE(contains(out, member + "store>(::course_cpu::check::for_member(COURSE_CHECKED_OBJECT(acc, __LINE__))[0], "
                                     "COURSE_CPU_MEMBER_OF(.count, count)) = 0;"))
      << out;
  EXPECT_TRUE(contains(out, "::course_cpu::check::for_store(COURSE_CHECKED_MEMBER(acc.sum, __LINE__))[threadIdx.x] = "))
      << out;
  EXPECT_TRUE(contains(out, "::course_cpu::check::for_store(COURSE_CHECKED_MEMBER(tmp.f, __LINE__))[1][2] = ")) << out;
  EXPECT_TRUE(contains(out, "(COURSE_CHECKED_OBJECT(acc, __LINE__))[0], COURSE_CPU_MEMBER_OF(.pos.x, pos))) > 0"))
      << out;
  EXPECT_TRUE(contains(out, "? ::course_cpu::check::value(COURSE_CHECKED_MEMBER(acc.sum, __LINE__)[3]) : 0;")) << out;
  EXPECT_TRUE(contains(out, "atomicAdd(&acc.count, 1);")) << out;
  EXPECT_TRUE(contains(out, "= acc.get() + ::course_cpu::check::value(COURSE_CHECKED_MEMBER(acc.p, __LINE__)[0]);"))
      << out;
  EXPECT_TRUE(contains(out, "  again.count = 2;\n  { Acc again; again.count = 1; }")) << out;
  EXPECT_FALSE(contains(body(src), "COURSE_CHECKED"));  // fast mode: plain variables
}

TEST(Rewriter, LaterDeclaratorsAutoLocalsAndCastsInPlaceAreChecked) {
  const std::string src =
      "__global__ void k(float* p, int n) {\n"
      "  float *a = p, *b = p + n;\n"
      "  float x = 1.0f, *c = p;\n"
      "  n = 2, *p = 3;\n"
      "  auto row = p + n, col = p;\n"
      "  float4 v = reinterpret_cast<float4*>(p)[n] ;\n"
      "  float y = b[0] + c[1] + row[2] + col[3] + a[4];\n"
      "  auto w = reinterpret_cast<const float*>(p)[n];\n"
      "}\n";
  const std::string out = body(src, Mode::check);
  EXPECT_EQ(lines(out), lines(src));
  EXPECT_TRUE(contains(out, "COURSE_CHECKED_LOCAL(b, __LINE__)[0]")) << out;
  EXPECT_TRUE(contains(out, "COURSE_CHECKED_LOCAL(c, __LINE__)[1]")) << out;
  EXPECT_TRUE(contains(out, "COURSE_CHECKED_AUTO(row, __LINE__)[2]")) << out;
  EXPECT_TRUE(contains(out, "COURSE_CHECKED_AUTO(col, __LINE__)[3]")) << out;
  EXPECT_TRUE(contains(out, "COURSE_CHECKED_LOCAL(a, __LINE__)[4]")) << out;
  EXPECT_TRUE(contains(out,
                       "n = 2, ::course_cpu::check::for_store(::course_cpu::check::root(p, [] { static constinit "
                       "::course_cpu::check::Site site{\"p\", __FILE__, __LINE__, 0}; return &site; }()))[0] = 3;"))
      << out;  // an expression (a dereference), not a declaration
  EXPECT_TRUE(
      contains(out,
               "float4 v = ::course_cpu::check::for_load(::course_cpu::check::root(reinterpret_cast<float4*>(p), "
               "[] { static constinit ::course_cpu::check::Site site{\"reinterpret_cast<float4*>(p)\", "
               "__FILE__, __LINE__, 0, true}; return &site; }()))[n]"))
      << out;
  EXPECT_TRUE(contains(out,
                       "auto w = ::course_cpu::check::value(::course_cpu::check::for_load(::course_cpu::check::root("
                       "reinterpret_cast<const float*>(p)"))
      << out;
  EXPECT_FALSE(contains(body(src), "COURSE_CHECKED"));  // fast mode: plain subscripts
}

TEST(Rewriter, DereferencesAndCStyleCastSubscriptsAreChecked) {
  const std::string src =
      "__global__ void k(float* p, const float* q, int n, unsigned u) {\n"
      "  __shared__ float s[64];\n"
      "  float *a = p, *b = p + n;\n"
      "  *p = 1.0f;\n"
      "  if (n) *(s + n) = *(q + n * 2 - u);\n"
      "  float x = n * *a, y = (n > 1) ? *b : 0, e = p[1] * *b;\n"
      "  float4 v = *reinterpret_cast<const float4*>(q + 4 * n);\n"
      "  float w = ((const float4*)q)[n].x;\n"
      "  float (*rows)[4] = reinterpret_cast<float (*)[4]>(p);\n"
      "  float z = sizeof(float) * n, t = x * y, r = *(n > 2 ? q : b);\n"
      "  auto row = q + n;\n"
      "  float g = *row + *(row + n);\n"
      "  float h = *(rows + 1)[n] ;\n"
      "}\n";
  const std::string out = body(src, Mode::check);
  EXPECT_EQ(lines(out), lines(src));
  const auto site = [](const std::string& name, bool local) {
    return "[] { static constinit ::course_cpu::check::Site site{\"" + name + "\", __FILE__, __LINE__, 0" +
           (local ? ", true" : "") + "}; return &site; }()";
  };
  EXPECT_TRUE(contains(out, "float *a = p, *b = p + n;")) << out;
  EXPECT_TRUE(contains(
      out, "  ::course_cpu::check::for_store(::course_cpu::check::root(p, " + site("p", false) + "))[0] = 1.0f;"))
      << out;
  EXPECT_TRUE(contains(out, "if (n) ::course_cpu::check::for_store(::course_cpu::check::root(s, " + site("s", false) +
                                "))[0 + static_cast<long long>(n)] = ::course_cpu::check::root(q, " + site("q", false) +
                                ")[0 + static_cast<long long>(n * 2) - static_cast<long long>(u)];"))
      << out;
  EXPECT_TRUE(contains(out, "float x = n * ::course_cpu::check::value(::course_cpu::check::root(a, " + site("a", true) +
                                ")[0]), y = (n > 1) ? ::course_cpu::check::value(::course_cpu::check::root(b, " +
                                site("b", true) +
                                ")[0]) : 0, e = ::course_cpu::check::value(COURSE_CHECKED(p, "
                                "__LINE__)[1]) * ::course_cpu::check::value(::course_cpu::check::root(b, " +
                                site("b", true) + ")[0]);"))
      << out;
  EXPECT_TRUE(contains(out, "float4 v = ::course_cpu::check::root(reinterpret_cast<const float4*>(q + 4 * n), " +
                                site("reinterpret_cast<const float4*>(q + 4 * n)", true) + ")[0];"))
      << out;
  EXPECT_TRUE(
      contains(out,
               "float w = ::course_cpu::check::member<::course_cpu::check::Use::load>(::course_cpu::check::for_member("
               "::course_cpu::check::root(((const float4*)q), " +
                   site("((const float4*)q)", true) + "))[n], COURSE_CPU_MEMBER_OF(.x, x));"))
      << out;
  EXPECT_TRUE(contains(out, "float (*rows)[4] = reinterpret_cast<float (*)[4]>(p);")) << out;
  EXPECT_TRUE(contains(out, "float z = sizeof(float) * n, t = x * y, r = *(n > 2 ? q : b);")) << out;
  EXPECT_TRUE(contains(out, "float g = ::course_cpu::check::value(::course_cpu::check::deref_auto(row, " +
                                site("row", true) +
                                ", 0)) + ::course_cpu::check::value(::course_cpu::check::deref_auto(row, " +
                                site("row", true) + ", 0 + static_cast<long long>(n)));"))
      << out;
  EXPECT_TRUE(contains(out, "float h = *(rows + 1)[n] ;")) << out;  // *((rows + 1)[n]), not (*(rows + 1))[n]
  EXPECT_FALSE(contains(body(src), "check::")) << body(src);        // fast mode: as written
}

TEST(Rewriter, WalkingPointersOffsetsFirstAndArrowsAreChecked) {
  const std::string src =
      "struct P { float x, y; };\n"
      "__global__ void k(float* p, const P* ps, int n) {\n"
      "  __shared__ float s[64];\n"
      "  float* d = p;\n"
      "  auto it = p;\n"
      "  *d++ = *++p + *(2 * n + s - 1) + ps->x;\n"
      "  float a = *(n - s), b = *it++, c = *s++;\n"
      "  d->x;\n"
      "}\n";
  const std::string out = body(src, Mode::check);
  EXPECT_EQ(lines(out), lines(src));
  const auto site = [](const std::string& name, bool local) {
    return "[] { static constinit ::course_cpu::check::Site site{\"" + name + "\", __FILE__, __LINE__, 0" +
           (local ? ", true" : "") + "}; return &site; }()";
  };
  EXPECT_TRUE(contains(out, "  ::course_cpu::check::for_store(::course_cpu::check::root(d++, " + site("d", true) +
                                "))[0] = ::course_cpu::check::value(::course_cpu::check::root(++p, " +
                                site("p", false) + ")[0]) + ::course_cpu::check::value(::course_cpu::check::root(s, " +
                                site("s", false) +
                                ")[0 + static_cast<long long>(2 * n)   - static_cast<long long>(1)]) + " +
                                "::course_cpu::check::value(::course_cpu::check::member<::course_cpu::check::Use::any>("
                                "::course_cpu::check::for_member(::course_cpu::check::root(ps, " +
                                site("ps", false) + "))[0], COURSE_CPU_MEMBER_OF(.x, x)));"))
      << out;
  // `n - s` is no pointer arithmetic of CUDA; an `auto` local may be an iterator; an array cannot step.
  EXPECT_TRUE(contains(out, "float a = *(n - s), b = *it++, c = *s++;")) << out;
  EXPECT_TRUE(contains(out, "::course_cpu::check::for_member(::course_cpu::check::root(d, " + site("d", true) +
                                "))[0], COURSE_CPU_MEMBER_OF(.x, x));"))
      << out;  // p->x: a member access of p[0]
}

TEST(Rewriter, CudaArchInDeviceBodiesHasTheDevicePassValue) {
  const std::string src =
      "#if __CUDA_ARCH__ < 600\n"
      "__device__ double atomicAdd(double* a, double v);\n"
      "#endif\n"
      "__host__ __device__ int f() {\n"
      "#ifdef __CUDA_ARCH__\n"
      "  return __CUDA_ARCH__;\n"
      "#elif defined(__CUDA_ARCH__) || defined __CUDA_ARCH__\n"
      "#endif\n"
      "#ifndef __CUDA_ARCH__\n"
      "#endif\n"
      "#if __CUDA_ARCH__ >= 700\n"
      "#endif\n"
      "  return 0;\n"
      "}\n"
      "int host() {\n"
      "#ifdef __CUDA_ARCH__\n"
      "#endif\n"
      "  return 0;\n"
      "}\n";
  for (Mode mode : {Mode::fast, Mode::check}) {
    const std::string out = body(src, mode);
    EXPECT_EQ(lines(out), lines(src));
    EXPECT_TRUE(contains(out, "#if __CUDA_ARCH__ < 600\n")) << out;  // file scope: the host pass's view
    EXPECT_TRUE(contains(out, "#if  1 \n  return 900;\n#elif 1 || 1\n#endif\n#if  0 \n#endif\n#if 900 >= 700\n"))
        << out;
    EXPECT_TRUE(contains(out, "int host() {\n#ifdef __CUDA_ARCH__\n")) << out;
  }
}

TEST(Rewriter, KernelsOfThisFileLaunchByTypedAddressOrDeduced) {
  const std::string src =
      "__global__ void one(float* p) {}\n"
      "__global__ void two(float* p) {}\n"
      "__global__ void two(int* p) {}\n"
      "__global__ void dflt(float* p, int n = 1) {}\n"
      "void run(float* p) { one<<<1, 2>>>(p); two<<<1, 2>>>(p); dflt<<<1, 2>>>(p); other<<<1, 2>>>(p); }\n";
  const std::string out = body(src);
  EXPECT_TRUE(
      contains(out, "::course_cpu::launch(static_cast<void (*)(float* p)>(&one), \"one\", __FILE__, 5, 1, 2)(p);"))
      << out;
  EXPECT_TRUE(
      contains(out, "::course_cpu::launch_deduced([](const auto&... course_cpu_args) { (two)(course_cpu_args...); }"))
      << out;
  EXPECT_TRUE(contains(out, "{ (dflt)(course_cpu_args...); }")) << out;
  EXPECT_TRUE(contains(out, "::course_cpu::launch(other, \"other\", __FILE__, 5, 1, 2)(p);"))
      << out;  // not of this file
}

TEST(Rewriter, AKernelWithAParameterOfItsNameIsNotNamedInsideItsBody) {
  const std::string src =
      "__global__ void sum(const float* in, float* sum) { __shared__ float s[32]; sum[0] = s[0]; }\n"
      "void run(const float* in, float* out) { sum<<<1, 32>>>(in, out); }\n";
  const std::string out = body(src);
  EXPECT_FALSE(contains(out, "StaticSharedNote")) << out;  // &sum would be the parameter there
  EXPECT_TRUE(contains(out, "::course_cpu::launch(sum, \"sum\", __FILE__, 2, 1, 32)(in, out);")) << out;
}

TEST(Rewriter, SizeofWithoutParenthesesIsLeftUnevaluated) {
  const std::string src =
      "__global__ void k(int* out) { __shared__ float s[32]; out[0] = sizeof s[0] + sizeof s->x + s[1]; }\n";
  const std::string out = body(src, Mode::check);
  EXPECT_TRUE(
      contains(out, "= sizeof s[0] + sizeof s->x + ::course_cpu::check::value(COURSE_CHECKED(s, __LINE__)[1]);"))
      << out;
}

TEST(Rewriter, CastsOfElementsToReferencesBindTheElement) {
  const std::string src =
      "__global__ void k(const float* in) {\n"
      "  __shared__ float s[64];\n"
      "  reinterpret_cast<float4&>(s[4]) = reinterpret_cast<const float4&>(in[4]);\n"
      "  float2 p = (float2&)s[2];\n"
      "  float q = (float)s[3] + static_cast<float>(s[1]);\n"
      "}\n";
  const std::string out = body(src, Mode::check);
  EXPECT_TRUE(contains(out,
                       "reinterpret_cast<float4&>(::course_cpu::check::element_ref(COURSE_CHECKED(s, __LINE__)[4])) = "
                       "reinterpret_cast<const float4&>(::course_cpu::check::element_ref(COURSE_CHECKED(in, "
                       "__LINE__)[4]));"))
      << out;
  EXPECT_TRUE(contains(out, "float2 p = (float2&)::course_cpu::check::element_ref(COURSE_CHECKED(s, __LINE__)[2]);"))
      << out;
  EXPECT_TRUE(contains(out,
                       "float q = (float)::course_cpu::check::value(COURSE_CHECKED(s, __LINE__)[3]) + "
                       "static_cast<float>(::course_cpu::check::value(COURSE_CHECKED(s, __LINE__)[1]));"))
      << out;
}

TEST(Rewriter, ProxiesPassedToFunctionTemplatesAreTheElementOrItsValue) {
  const std::string src =
      "template <typename T> __device__ void swap2(T& a, T& b) {}\n"
      "template <typename T> __device__ T twice(const T& a, T b = T()) { return a + b; }\n"
      "template <typename... Ts> __device__ void many(Ts&&... xs) {}\n"
      "template <typename T> __device__ void swap3(T& a, T& b) {}\n"
      "__device__ float plain(float a) { return a; }\n"
      "__global__ void k(float* p, int n) {\n"
      "  __shared__ float s[64];\n"
      "  swap2(s[0], *p);\n"
      "  swap3<float>(s[6], s[7]);\n"
      "  float x = twice(s[n], (s[1])) + plain(s[2]) + twice<float>(s[3]);\n"
      "  many(s[4], p[5]);\n"
      "}\n";
  const std::string out = body(src, Mode::check);
  EXPECT_EQ(lines(out), lines(src));
  // A template's T& parameters take the element proxies, T deduced from them as CUDA deduces it from the elements, so
  // that what the function does through them is checked; where a call gives template arguments (the parameters'
  // order changes), the elements themselves.
  EXPECT_TRUE(contains(out,
                       "template <class CourseCpuRef0, class CourseCpuRef1, class T = "
                       "::course_cpu::check::referenced_t<CourseCpuRef0>> requires(::course_cpu::check::binds_as<"
                       "CourseCpuRef0, T> && ::course_cpu::check::binds_as<CourseCpuRef1, T>) __device__ void "
                       "swap2(CourseCpuRef0&& a, CourseCpuRef1&& b) {}"))
      << out;
  EXPECT_TRUE(contains(out,
                       "swap2(::course_cpu::check::proxy_ref(COURSE_CHECKED(s, __LINE__)[0]), "
                       "::course_cpu::check::proxy_ref(::course_cpu::check::root(p, "))
      << out;
  EXPECT_TRUE(contains(out, "template <typename T> __device__ void swap3(T& a, T& b) {}")) << out;
  EXPECT_TRUE(contains(out,
                       "swap3<float>(::course_cpu::check::element_ref(COURSE_CHECKED(s, __LINE__)[6]), "
                       "::course_cpu::check::element_ref(COURSE_CHECKED(s, __LINE__)[7]));"))
      << out;
  EXPECT_TRUE(contains(out,
                       "float x = twice(" + kLoad + "[n]), (" + kLoad + "[1]))) + plain(" + kLoad +
                           "[2])) + twice<float>(" + kLoad + "[3]));"))
      << out;  // by-value arguments are read whole (for_load): a struct element too; explicit template arguments may
               // leave some deduced
  EXPECT_TRUE(contains(out,
                       "many(::course_cpu::check::element_ref(COURSE_CHECKED(s, __LINE__)[4]), "
                       "::course_cpu::check::element_ref(COURSE_CHECKED(p, __LINE__)[5]));"))
      << out;
}

TEST(Rewriter, ReturnedElementsBraceInitializersAndGenericLambdas) {
  const std::string src =
      "__device__ float& ref(float* p) { return p[0]; }\n"
      "__device__ auto copy(float* p) { return p[1]; }\n"
      "__device__ void put(float* d) { *d = 1.0f; }\n"
      "__global__ void k(float* p, int x) {\n"
      "  auto at = [&](int i) { return *(p + i); };\n"
      "  auto get = [&] { return p[2]; };\n"
      "  auto relu = [](auto v) { return v < 0 ? 0 : v; };\n"
      "  auto v{p[3]};\n"
      "  float r = relu(*(p)) + *(p + 4 + (int)-x);\n"
      "}\n";
  const std::string out = body(src, Mode::check);
  EXPECT_EQ(lines(out), lines(src));
  // A __device__ function's pointer parameter may point to local or __device__ memory (Site::device_param).
  EXPECT_TRUE(contains(out, "float& ref(float* p) { return COURSE_CHECKED_DEVICE_PARAM(p, __LINE__)[0]; }")) << out;
  EXPECT_TRUE(contains(out,
                       "auto copy(float* p) { return "
                       "::course_cpu::check::value(COURSE_CHECKED_DEVICE_PARAM(p, __LINE__)[1]); }"))
      << out;
  EXPECT_TRUE(
      contains(out,
               "void put(float* d) { ::course_cpu::check::for_store(::course_cpu::check::root(d, [] { static "
               "constinit ::course_cpu::check::Site site{\"d\", __FILE__, __LINE__, 0, false, false, true}; return "
               "&site; }()))[0] = 1.0f; }"))
      << out;
  EXPECT_TRUE(contains(out, "{ return ::course_cpu::check::value(::course_cpu::check::root(p, ")) << out;
  EXPECT_TRUE(contains(out, "[&] { return ::course_cpu::check::value(COURSE_CHECKED(p, __LINE__)[2]); }")) << out;
  EXPECT_TRUE(contains(out, "auto v{::course_cpu::check::value(COURSE_CHECKED(p, __LINE__)[3])};")) << out;
  EXPECT_TRUE(contains(out, "float r = relu(::course_cpu::check::value(::course_cpu::check::root(p, ")) << out;
  EXPECT_TRUE(contains(out, ")[0])) + *(p + 4 + (int)-x);")) << out;  // *(p): [0]; a cast then a unary -: left alone
}

TEST(Rewriter, MacroParametersInConditionalsAndAutoInitializersAreValues) {
  const std::string src =
      "#define MAX(a, b) ((a) > (b) ? (a) : (b))\n"
      "#define SWAP(a, b) \\\n"
      "  { auto t_ = (a); (a) = (b); (b) = t_; }\n"
      "#define SQ(a) ((a) * (a))\n"
      "#define PICK(c, a) (c ? a + 1 : \"?:\")\n"
      "__global__ void k(float* p) { p[0] = MAX(p[1], 0); }\n";
  const std::string out = body(src, Mode::check);
  EXPECT_EQ(lines(out), lines(src));
  EXPECT_TRUE(contains(out,
                       "#define MAX(a, b) ((a) > (b) ? ::course_cpu::check::value((a)) : "
                       "::course_cpu::check::value((b)))"))
      << out;
  EXPECT_TRUE(
      contains(out, "#define SWAP(a, b) \\\n  { auto t_ = ::course_cpu::check::value((a)); (a) = (b); (b) = t_; }"))
      << out;
  EXPECT_TRUE(contains(out, "#define SQ(a) ((a) * (a))\n")) << out;
  EXPECT_TRUE(contains(out, "#define PICK(c, a) (c ? a + 1 : \"?:\")\n")) << out;  // not a whole operand
  EXPECT_TRUE(contains(body(src), "#define MAX(a, b) ((a) > (b) ? (a) : (b))"));   // fast mode: as written
}

TEST(Rewriter, PrintfInMacrosPassesValues) {
  const std::string src =
      "#define LOG(fmt, ...) printf(fmt, __VA_ARGS__)\n"
      "#define SHOW(x) std::printf(\"%f\", x)\n"
      "#define ERR(x) fprintf(stderr, \"%d\", x); obj.printf(x)\n"
      "__global__ void k(float* p) { LOG(\"%f\", p[0]); }\n";
  const std::string out = body(src, Mode::check);
  EXPECT_EQ(lines(out), lines(src));
  EXPECT_TRUE(contains(out, "#define LOG(fmt, ...) ::course_cpu::check::printf_values(fmt, __VA_ARGS__)\n")) << out;
  EXPECT_TRUE(contains(out, "#define SHOW(x) ::course_cpu::check::printf_values(\"%f\", x)\n")) << out;
  EXPECT_TRUE(contains(out, "#define ERR(x) fprintf(stderr, \"%d\", x); obj.printf(x)\n")) << out;
}

TEST(Rewriter, CudaStdFunctionsTakeElementValuesAndSwapTheElements) {
  const std::string src =
      "__global__ void k(float* g) {\n"
      "  __shared__ float s[32];\n"
      "  g[0] = cuda::std::max(s[1], 0.0f) + std::max(s[2], 1.0f);\n"
      "  ::cuda::std::swap(s[0], s[31]);\n"
      "  g[1] = cuda::std::min({s[3], s[4], 1.0f});\n"
      "}\n";
  const std::string out = body(src, Mode::check);
  EXPECT_EQ(lines(out), lines(src));
  EXPECT_TRUE(contains(out, "cuda::std::max(" + kLoad + "[1]), 0.0f)")) << out;
  // std::max is a host template that nvcc rejects in device code (refused at the call: nvcc_rules.cpp); its
  // arguments are values, as in a __host__ __device__ function, where nvcc only warns.
  EXPECT_TRUE(contains(out, "std::max(" + kLoad + "[2]), 1.0f)")) << out;
  EXPECT_TRUE(contains(out,
                       "::cuda::std::swap(::course_cpu::check::element_ref(COURSE_CHECKED(s, __LINE__)[0]), "
                       "::course_cpu::check::element_ref(COURSE_CHECKED(s, __LINE__)[31]));"))
      << out;
  // The items of a braced list: values, so the list has one element type.
  EXPECT_TRUE(contains(out, "cuda::std::min({" + kLoad + "[3]), " + kLoad + "[4]), 1.0f})")) << out;
}

TEST(Rewriter, AnAssignedConditionalOfElementsIsTheChosenElement) {
  const std::string src =
      "__global__ void k(float* g, int n) {\n"
      "  __shared__ float s[32];\n"
      "  (n > 1 ? s[n] : s[0]) = 1.0f;\n"
      "  ++(n ? g[n] : s[n]);\n"
      "  float v = (n ? s[1] : s[2]) + 1.0f;\n"
      "}\n";
  const std::string out = body(src, Mode::check);
  EXPECT_EQ(lines(out), lines(src));
  EXPECT_TRUE(contains(out,
                       "(::course_cpu::check::either(n > 1 , COURSE_CHECKED(s, __LINE__)[n] , "
                       "COURSE_CHECKED(s, __LINE__)[0])) = 1.0f;"))
      << out;
  EXPECT_TRUE(contains(out,
                       "++(::course_cpu::check::either(n , COURSE_CHECKED(g, __LINE__)[n] , "
                       "COURSE_CHECKED(s, __LINE__)[n]));"))
      << out;
  // Read, not assigned: the operands are values, as before.
  EXPECT_FALSE(contains(out, "either(n ,  COURSE_CHECKED(s, __LINE__)[1]")) << out;
}

TEST(Rewriter, AReferenceToAConditionalOfElementsBindsTheChosenElement) {
  const std::string src =
      "__global__ void k(float* g, int n) {\n"
      "  __shared__ float s[32];\n"
      "  float x = 0;\n"
      "  float& a = n > 1 ? s[n] : s[0];\n"
      "  float &b = (n & 1) ? x : g[n];\n"
      "  const float& c = n ? s[1] : s[2];\n"
      "  float& d = n ? x : x;\n"
      "}\n";
  const std::string out = body(src, Mode::check);
  EXPECT_EQ(lines(out), lines(src));
  EXPECT_TRUE(contains(out,
                       "auto&& a = ::course_cpu::check::either(n > 1 , COURSE_CHECKED(s, __LINE__)[n] , "
                       "COURSE_CHECKED(s, __LINE__)[0]);"))
      << out;
  EXPECT_TRUE(contains(out, "auto&& b = ::course_cpu::check::either((n & 1) , x , COURSE_CHECKED(g, __LINE__)[n]);"))
      << out;
  // A const reference may bind the value; a conditional of plain lvalues is left alone.
  EXPECT_TRUE(contains(out,
                       "const float& c = n ? ::course_cpu::check::value(COURSE_CHECKED(s, __LINE__)[1]) : "
                       "::course_cpu::check::value(COURSE_CHECKED(s, __LINE__)[2]);"))
      << out;
  EXPECT_TRUE(contains(out, "float& d = n ? x : x;")) << out;
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

TEST(Rewriter, LaunchesInMacroBodiesAndOfParenthesizedKernels) {
  const std::string src =
      "__global__ void k(float* p) {}\n"
      "#define RUN(ptr) k<<<1, 32>>>(ptr)\n"
      "#define LAUNCH(kern, g, b, ...) kern<<<g, \\\n  b>>>(__VA_ARGS__)\n"
      "#define NOT_A_LAUNCH(a, b) ((a) << (b))\n"
      "#define PASTED(n, ...) n##_k<<<1, 1>>>(__VA_ARGS__)\n"
      "void f(float* p) { RUN(p); LAUNCH(k, 1, 2, p); (k)<<<1, 2>>>(p); (*fp)<<<1, 2>>>(p); }\n"
      "void g(float* p, bool ok) { if (ok) (k)<<<1, 3>>>(p); else (k)<<<1, 4>>>(p); h(x)<<<1, 5>>>(p); }\n";
  const std::string out = body(src);
  EXPECT_EQ(lines(out), lines(src));
  // The site's line is where the macro is used.
  EXPECT_TRUE(contains(out,
                       "#define RUN(ptr) ::course_cpu::launch(static_cast<void (*)(float* p)>(&k), \"k\", "
                       "__FILE__, __LINE__, 1, 32)(ptr)\n"))
      << out;
  // A kernel named by a parameter of the macro is named in messages by the macro's argument.
  EXPECT_TRUE(contains(out, "::course_cpu::launch(kern, #kern, __FILE__, __LINE__, g, \\\n  b)(__VA_ARGS__)\n")) << out;
  EXPECT_TRUE(contains(out, "#define NOT_A_LAUNCH(a, b) ((a) << (b))\n")) << out;
  EXPECT_TRUE(contains(out, "::course_cpu::launch(static_cast<void (*)(float* p)>(&k), \"k\", __FILE__, 7, 1, 2)(p);"))
      << out;
  EXPECT_TRUE(contains(out, "::course_cpu::launch((*fp), \"*fp\", __FILE__, 7, 1, 2)(p);")) << out;
  // After `if (...)` and `else` too; a call's result (`h(x)<<<`) and a pasted name (`n##_k<<<`) are left alone.
  EXPECT_TRUE(
      contains(out, "if (ok) ::course_cpu::launch(static_cast<void (*)(float* p)>(&k), \"k\", __FILE__, 8, 1, 3)"))
      << out;
  EXPECT_TRUE(contains(out, "else ::course_cpu::launch(static_cast<void (*)(float* p)>(&k), \"k\", __FILE__, 8, 1, 4)"))
      << out;
  EXPECT_TRUE(contains(out, "h(x)<<<1, 5>>>(p);")) << out;
  EXPECT_TRUE(contains(out, "#define PASTED(n, ...) n##_k<<<1, 1>>>(__VA_ARGS__)\n")) << out;
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

TEST(Rewriter, SharedDeclarationsWithSpecifiersInAnyOrderAndTrailingAttributes) {
  const std::string src =
      "__global__ void k(int* out) {\n"
      "  __shared__ static int a[32];\n"
      "  static volatile __shared__ int b[32];\n"
      "  extern __device__ __shared__ int dyn[];\n"
      "  __shared__ float s[128] __attribute__((aligned(16)));\n"
      "}\n";
  for (Mode mode : {Mode::fast, Mode::check}) {
    const std::string out = body(src, mode);
    EXPECT_EQ(lines(out), lines(src));
    EXPECT_TRUE(contains(out, "static thread_local  int a[32];")) << out;
    EXPECT_TRUE(contains(out, " volatile static thread_local int b[32];")) << out;
    EXPECT_TRUE(contains(out, "int* const dyn = ::course_cpu::dynamic_shared<int>();")) << out;
    EXPECT_TRUE(contains(out, "static thread_local float s[128] __attribute__((aligned(16)));")) << out;
    EXPECT_TRUE(contains(out, "sizeof(s), ")) << out;  // the note of s's bytes
    EXPECT_FALSE(contains(out, "sizeof(__attribute__)")) << out;
  }
}

TEST(Rewriter, ASharedArrayDeclaredAgainInAnInnerBlockIsLeftUnchecked) {
  const std::string src =
      "__global__ void k(float* out) {\n"
      "  __shared__ float buf[64], tile[64];\n"
      "  buf[threadIdx.x] = tile[threadIdx.x];\n"
      "  for (int i = 0; i < 2; ++i) { float buf[4]; buf[3] = 1; out[i] = buf[3]; }\n"
      "}\n";
  const std::string out = body(src, Mode::check);
  EXPECT_TRUE(
      contains(out, "  buf[threadIdx.x] = ::course_cpu::check::for_load(COURSE_CHECKED(tile, __LINE__))[threadIdx.x];"))
      << out;
  EXPECT_TRUE(contains(
      out, "{ float buf[4]; buf[3] = 1; ::course_cpu::check::for_store(COURSE_CHECKED(out, __LINE__))[i] = buf[3]; }"))
      << out;
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
  EXPECT_TRUE(contains(out,
                       "::course_cpu::check::for_store(COURSE_CHECKED(As, __LINE__))[threadIdx.y][threadIdx.x] = "
                       "::course_cpu::check::for_load(COURSE_CHECKED(a, __LINE__))[n];"))
      << out;
  EXPECT_TRUE(contains(out,
                       "COURSE_CHECKED(dyn, __LINE__)[1] += ::course_cpu::check::value(COURSE_CHECKED(As, "
                       "__LINE__)[0][sizeof(As[0]) / 4]);"))
      << out;
  EXPECT_TRUE(contains(out,
                       "::course_cpu::check::for_store(COURSE_CHECKED(out, __LINE__))[0] = s.v[1] + "
                       "::course_cpu::check::value(::course_cpu::check::member<::course_cpu::check::Use::any>(::course_"
                       "cpu::check::for_member("
                       "::course_cpu::check::root(reinterpret_cast<const float4*>(a), "))
      << out;  // a cast subscripted in place: checked like a local pointer; its member as a member access
  EXPECT_TRUE(contains(out, "float* p = &COURSE_CHECKED(As, __LINE__)[0][0];")) << out;
  EXPECT_TRUE(contains(out, "static thread_local float As[TILE][TILE + 1]; ::course_cpu::check::declare_shared(As);"))
      << out;
  EXPECT_TRUE(contains(out, "void host(float* a) { a[0] = 1; }")) << out;  // host code is not instrumented
}

// Local pointer variables are checked like pointer parameters (COURSE_CHECKED_LOCAL: unknown memory passes):
// declarations at the start of a statement or a for's init, with qualifiers; not a multiplication, a dereference,
// a dereference in parentheses, a return or a cast.
TEST(Rewriter, CheckModeInstrumentsLocalPointerVariables) {
  const std::string src =
      "__global__ void k(const float* a, float* out, int n, int r) {\n"
      "  extern __shared__ float smem[];\n"
      "  float* As = smem; float* const __restrict__ Bs = smem + n;\n"
      "  const float4* in4 = reinterpret_cast<const float4*>(a);\n"
      "  for (const float* row = a + r * n; row < a; ++row) out[0] += row[1];\n"
      "  float x = r * n; x = x * out[0]; (*(&x)) = 1;\n"
      "  float (*T)[33] = reinterpret_cast<float (*)[33]>(smem);\n"
      "  As[0] = Bs[1] + in4[0].x + T[1][2] + x;\n"
      "}\n";
  const std::string out = body(src, Mode::check);
  EXPECT_EQ(lines(out), lines(src));
  EXPECT_TRUE(contains(out,
                       "::course_cpu::check::for_store(COURSE_CHECKED_LOCAL(As, __LINE__))[0] = "
                       "::course_cpu::check::value(COURSE_CHECKED_LOCAL(Bs, __LINE__)[1]) + "
                       "::course_cpu::check::value(::course_cpu::check::member<::course_cpu::check::Use::any>("
                       "::course_cpu::check::for_member(COURSE_CHECKED_LOCAL(in4, __LINE__))[0], "
                       "COURSE_CPU_MEMBER_OF(.x, x))) + ::course_cpu::check::value(COURSE_CHECKED_LOCAL(T, "
                       "__LINE__)[1][2]) + x;"))
      << out;
  EXPECT_TRUE(contains(out,
                       "COURSE_CHECKED(out, __LINE__)[0] += ::course_cpu::check::value(COURSE_CHECKED_LOCAL(row, "
                       "__LINE__)[1]);"))
      << out;
  EXPECT_TRUE(contains(out,
                       "float x = r * n; x = x * ::course_cpu::check::value(COURSE_CHECKED(out, "
                       "__LINE__)[0]);"))
      << out;
  EXPECT_FALSE(contains(out, "COURSE_CHECKED_LOCAL(n")) << out;
  EXPECT_FALSE(contains(out, "COURSE_CHECKED_LOCAL(x")) << out;
}

TEST(Rewriter, PreludeAndLineDirective) {
  const std::string out = rewrite("int x;\n", "/p/a \"q\".cu", Mode::check);
  EXPECT_TRUE(contains(out,
                       "#define COURSE_CPU_CHECK_MODE 1\n#include <course_cpu/prelude.h>\n"
                       "#line 1 \"/p/a \\\"q\\\".cu\"\nint x;\n"))
      << out;
}

// A callable declared in the function (a functor object, a callable parameter) may deduce its parameter types: its
// element arguments are the element itself; a lambda the rewriter reads, and a function, are left as they are.
TEST(Rewriter, ElementsGivenToCallableObjectsAreTheElement) {
  const std::string src =
      "template <class F> __device__ float apply(float* p, F f) { return f(p[0]); }\n"
      "__global__ void k(float* q) {\n"
      "  __shared__ float s[32];\n"
      "  MaxOp op;\n"
      "  auto id = [](float v) { return v; };\n"
      "  float m = op(s[1], s[2]) + id(s[3]) + fminf(s[4], 1.0f);\n"
      "}\n";
  const std::string out = body(src, Mode::check);
  EXPECT_EQ(lines(out), lines(src));
  EXPECT_TRUE(contains(out, "return f(::course_cpu::check::element_ref(COURSE_CHECKED_DEVICE_PARAM(p, __LINE__)[0]));"))
      << out;
  EXPECT_TRUE(contains(out,
                       "op(::course_cpu::check::element_ref(COURSE_CHECKED(s, __LINE__)[1]), "
                       "::course_cpu::check::element_ref(COURSE_CHECKED(s, __LINE__)[2]))"))
      << out;
  EXPECT_TRUE(contains(out, "id(COURSE_CHECKED(s, __LINE__)[3])")) << out;
  EXPECT_TRUE(contains(out, "fminf(" + kLoad + "[4]), 1.0f)")) << out;
}

// Functions qualified through object-like macros (`#define DEV __device__ __forceinline__`, `#define HD __host__
// __device__`, a macro made of such a macro) are __device__ functions: their bodies are checked and nvcc's device-code
// rules apply (only a warning where the macro also says __host__). They were left as host code: a race through such a
// helper went unseen.
TEST(Rewriter, FunctionsQualifiedThroughMacrosAreDeviceFunctions) {
  const std::string src =
      "#include <algorithm>\n"
      "#define DEV __device__ __forceinline__\n"
      "#define HD __host__ __device__\n"
      "#define INL HD inline\n"
      "DEV float f(float* p) { return std::min(p[0], 1.0f); }\n"
      "INL float g(float* q) { return std::min(q[1], 1.0f); }\n"
      "#define KERNEL __global__\n"
      "float h(float* r) { return r[2]; }\n";
  const std::string out = body(src, Mode::check);
  EXPECT_EQ(lines(out), lines(src));
  EXPECT_TRUE(contains(out, "for_load(COURSE_CHECKED_DEVICE_PARAM(p, __LINE__))[0]")) << out;
  EXPECT_TRUE(contains(out, "COURSE_CPU_NVCC_HOST_STD); }()), std::min(")) << out;  // refused, as nvcc does
  EXPECT_TRUE(contains(out, "for_load(COURSE_CHECKED_DEVICE_PARAM(q, __LINE__))[1]")) << out;
  EXPECT_TRUE(contains(out, "return std::min(::course_cpu::check::value(")) << out;  // __host__ __device__: a warning
  EXPECT_TRUE(contains(out, "float h(float* r) { return r[2]; }")) << out;           // host code
}

// A shift's count that is not a literal is wrapped (both modes, device code only), so that a count of the width or
// more is clamped as on a GPU (course_cpu/shifts.h); `>>` closing template arguments, literal counts, counts that call
// a template, and host code are left alone.
TEST(Rewriter, ShiftCountsAreWrappedForAGpusSemantics) {
  const std::string src =
      "template <class T> struct Box { T v; };\n"
      "__device__ unsigned f(unsigned a, int n, int* s) {\n"
      "  Box<Box<int>> b{};\n"
      "  a <<= n; a = a >> s[n] + 1;\n"
      "  return (1u << (n / 32)) - 1u + (a >> 2) + (a << max<int>(n, 1)) + b.v.v;\n"
      "}\n"
      "unsigned h(unsigned a, int n) { return a << n; }\n";
  for (const Mode mode : {Mode::fast, Mode::check}) {
    const std::string out = body(src, mode);
    EXPECT_EQ(lines(out), lines(src));
    EXPECT_TRUE(contains(out, "Box<Box<int>> b{};")) << out;
    EXPECT_TRUE(contains(out, "a <<= ::course_cpu::shift_count(n);")) << out;
    EXPECT_TRUE(contains(out, "(1u << ::course_cpu::shift_count((n / 32))) - 1u")) << out;
    EXPECT_TRUE(contains(out, "(a >> 2)")) << out;
    EXPECT_TRUE(contains(out, "(a << max<int>(n, 1))")) << out;
    EXPECT_TRUE(contains(out, "{ return a << n; }")) << out;
    EXPECT_TRUE(contains(out, mode == Mode::fast ? "a = a >> ::course_cpu::shift_count(s[n] + 1);"
                                                 : "a = a >> ::course_cpu::shift_count("))
        << out;
  }
}
