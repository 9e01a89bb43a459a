// Unit tests of course-rewrite: how a checked chain's element is used, as the marks on its root tell the runtime
// (Use in course_cpu/check_element.h): the target of `=`, the whole right-hand side of `=`, a member access; and
// dereference forms that multiply or step.
#include "rewriter_test_util.h"

#include <gtest/gtest.h>

#include <string>

using course_rewrite::Mode;
using rewriter_test::body;
using rewriter_test::contains;
using rewriter_test::lines;

namespace {
const std::string kMember = "::course_cpu::check::member<::course_cpu::check::Use::";
const std::string kForMember = "(::course_cpu::check::for_member(";
}  // namespace

// `s[i].x` (a member, or a path of members) becomes member<U>(for_member(ROOT)[i], COURSE_CPU_MEMBER_OF(.x, x)), with U
// the member's own use: stored to, read as the whole right-hand side, anything else.
TEST(RewriterUses, MemberAccessesAreMarkedWithTheirUse) {
  const std::string src =
      "struct Item { float x; float3 pos; };\n"
      "__global__ void k(Item* g, int n) {\n"
      "  __shared__ Item s[32];\n"
      "  s[n].x = 1.0f;\n"
      "  float a = s[n].pos.y;\n"
      "  g[n].pos = s[n + 1].pos;\n"
      "  a += s[n].x * 2;\n"
      "  reinterpret_cast<float2*>(g)[n].y = a;\n"
      "}\n";
  const std::string out = body(src, Mode::check);
  EXPECT_EQ(lines(out), lines(src));
  EXPECT_TRUE(contains(
      out, kMember + "store>" + kForMember + "COURSE_CHECKED(s, __LINE__))[n], COURSE_CPU_MEMBER_OF(.x, x)) = 1.0f;"))
      << out;
  EXPECT_TRUE(contains(out, "float a = " + kMember + "load>" + kForMember +
                                "COURSE_CHECKED(s, __LINE__))[n], COURSE_CPU_MEMBER_OF(.pos.y, pos));"))
      << out;
  EXPECT_TRUE(contains(out, kMember + "store>" + kForMember + "COURSE_CHECKED(g, __LINE__))[n], " +
                                "COURSE_CPU_MEMBER_OF(.pos, pos)) = " + kMember + "load>" + kForMember +
                                "COURSE_CHECKED(s, __LINE__))[n + 1], COURSE_CPU_MEMBER_OF(.pos, pos));"))
      << out;
  EXPECT_TRUE(contains(out, "a += ::course_cpu::check::value(" + kMember + "any>" + kForMember +
                                "COURSE_CHECKED(s, __LINE__))[n], COURSE_CPU_MEMBER_OF(.x, x))) * 2;"))
      << out;
  EXPECT_TRUE(contains(out, kMember + "store>" + kForMember + "::course_cpu::check::root(reinterpret_cast<float2*>(g)"))
      << out;
  EXPECT_TRUE(contains(out, "[n], COURSE_CPU_MEMBER_OF(.y, y)) = a;")) << out;
  EXPECT_FALSE(contains(body(src), "COURSE_CPU_MEMBER_OF"));  // fast mode: plain members
}

// `p->x` is the member access of p[0]: marked the same way, and read as a value where a proxy would not be (`?:`).
TEST(RewriterUses, ArrowsAreMemberAccesses) {
  const std::string src =
      "__global__ void k(Item* g, int n) {\n"
      "  g->x = 1.0f;\n"
      "  float a = n ? g->pos.y : 0;\n"
      "  g->reset();\n"
      "  atomicAdd(&g->count, 1);\n"
      "}\n";
  const std::string out = body(src, Mode::check);
  EXPECT_EQ(lines(out), lines(src));
  EXPECT_TRUE(contains(out, kMember + "store>" + kForMember + "::course_cpu::check::root(g, ")) << out;
  EXPECT_TRUE(contains(out, "}()))[0], COURSE_CPU_MEMBER_OF(.x, x)) = 1.0f;")) << out;
  EXPECT_TRUE(contains(out, "float a = n ? ::course_cpu::check::value(" + kMember + "any>" + kForMember)) << out;
  EXPECT_TRUE(contains(out, "}()))[0], COURSE_CPU_MEMBER_OF(.pos.y, pos))) : 0;")) << out;
  EXPECT_TRUE(contains(out, "}())[0].reset();")) << out;
  EXPECT_TRUE(contains(out, "atomicAdd(&::course_cpu::check::root(g, ")) << out;
  EXPECT_TRUE(contains(out, "}())[0].count, 1);")) << out;
}

// A method call, a pointer member's target, a member's address (atomicAdd's operand) and a member template keep the
// element's plain reference: bounds-checked, as before. A member array's subscript, `s[n].bins[2]`, is checked as an
// array of its own rooted at the element's member (member_root), named `s[n].bins` in messages; through a pointer
// (`g[n].bins[2]`: its memory may be global) the element's plain reference is kept.
TEST(RewriterUses, MembersThatAreNoElementsKeepThePlainReference) {
  const std::string src =
      "__global__ void k(Item* g, int n) {\n"
      "  __shared__ Item s[32];\n"
      "  s[n].reset(1);\n"
      "  s[n].bins[2] = 0;\n"
      "  g[n].bins[2] = 0;\n"
      "  s[n].next->x = 0;\n"
      "  atomicAdd(&s[n].count, 1);\n"
      "  float v = s[n].template get<0>();\n"
      "}\n";
  const std::string out = body(src, Mode::check);
  EXPECT_FALSE(contains(out, "COURSE_CPU_MEMBER_OF")) << out;
  EXPECT_FALSE(contains(out, "for_member")) << out;
  EXPECT_TRUE(contains(out, "COURSE_CHECKED(s, __LINE__)[n].reset(1);")) << out;
  EXPECT_TRUE(
      contains(out,
               "::course_cpu::check::for_store(::course_cpu::check::member_root(COURSE_CHECKED(s, __LINE__)[n]"
               ".bins, [] { static constinit ::course_cpu::check::Site site{\"s[n].bins\", __FILE__, __LINE__, 0, "
               "true}; return &site; }()))[2] = 0;"))
      << out;
  EXPECT_TRUE(contains(out, "COURSE_CHECKED(g, __LINE__)[n].bins[2] = 0;")) << out;  // through a pointer
  EXPECT_TRUE(contains(out, "atomicAdd(&COURSE_CHECKED(s, __LINE__)[n].count, 1);")) << out;
}

// The whole right-hand side of `=` is read as a whole (for_load); a reference's initializer is not (it reads nothing),
// nor an operand of a larger expression.
TEST(RewriterUses, WholeRightHandSidesAreLoads) {
  const std::string src =
      "__global__ void k(Item* g, int n) {\n"
      "  __shared__ Item s[32];\n"
      "  Item c = s[n], d = g[n];\n"
      "  s[n] = s[n + 1];\n"
      "  Item& r = s[n];\n"
      "  const Item&& rr = g[n];\n"
      "  float f = -g[n].x;\n"
      "}\n";
  const std::string out = body(src, Mode::check);
  EXPECT_EQ(lines(out), lines(src));
  EXPECT_TRUE(contains(out,
                       "Item c = ::course_cpu::check::for_load(COURSE_CHECKED(s, __LINE__))[n], d = "
                       "::course_cpu::check::for_load(COURSE_CHECKED(g, __LINE__))[n];"))
      << out;
  EXPECT_TRUE(contains(out,
                       "::course_cpu::check::for_store(COURSE_CHECKED(s, __LINE__))[n] = "
                       "::course_cpu::check::for_load(COURSE_CHECKED(s, __LINE__))[n + 1];"))
      << out;
  EXPECT_TRUE(contains(out, "auto&& r = COURSE_CHECKED(s, __LINE__)[n];")) << out;  // a proxy where s[n] is one
  EXPECT_TRUE(contains(out, "const Item&& rr = COURSE_CHECKED(g, __LINE__)[n];")) << out;
  EXPECT_TRUE(contains(out, "float f = -" + kMember + "any>")) << out;
}

// `n * *p` is a multiplication of a dereference (checked as p[0]), not the declarator `T * *pp`; `*(float4*)p++` is
// the cast of p++ dereferenced (checked, and p steps once).
TEST(RewriterDerefs, MultipliedAndSteppedCastDereferencesAreChecked) {
  const std::string src =
      "__global__ void k(float* p, int n) {\n"
      "  float x = n * *p, y = (n + 1) * *p;\n"
      "  float * *pp = &p;\n"
      "  float4 v = *(float4*)p++;\n"
      "  *(float2*)p-- = make_float2(x, y);\n"
      "}\n";
  const std::string out = body(src, Mode::check);
  EXPECT_EQ(lines(out), lines(src));
  EXPECT_TRUE(contains(out, "float x = n * ::course_cpu::check::value(::course_cpu::check::root(p, ")) << out;
  EXPECT_TRUE(contains(out, "y = (n + 1) * ::course_cpu::check::value(::course_cpu::check::root(p, ")) << out;
  EXPECT_TRUE(contains(out, "float * *pp = &p;")) << out;
  EXPECT_TRUE(contains(out, "float4 v = ::course_cpu::check::root((float4*)p++, ")) << out;
  EXPECT_TRUE(contains(out, "::course_cpu::check::for_store(::course_cpu::check::root((float2*)p--, ")) << out;
  EXPECT_FALSE(contains(out, "[0]++")) << out;
  EXPECT_FALSE(contains(out, "[0]--")) << out;
}

// A dereference compared: `*p < x` (a checked name opens no template arguments) and `x > *p` where the `>` compares
// (closed by `)`, `&&`, `||`, `?`, `:`, `]`, or a `;` after an `=` or `return`); not the declarations `Foo<T> *p;`
// and `Foo<T> *p = q;` nor a lambda's parameter `[](Foo<T> *p)`.
TEST(RewriterDerefs, ComparedDereferencesAreChecked) {
  const std::string src =
      "__global__ void k(int* p, const int* in) {\n"
      "  if (*p < in[0]) return;\n"
      "  if (in[1] > *p) return;\n"
      "  bool b = in[2] > *p;\n"
      "  int c = (in[3] > *p && b) ? 1 : 0;\n"
      "  Box<int> *p;\n"
      "  Box<int> *q = nullptr;\n"
      "  auto f = [](Box<int> *p) { return p; };\n"
      "}\n";
  const std::string out = body(src, Mode::check);
  EXPECT_EQ(lines(out), lines(src));
  const std::string deref = "::course_cpu::check::value(::course_cpu::check::root(p, ";
  EXPECT_TRUE(contains(out, "if (" + deref)) << out;
  EXPECT_TRUE(contains(out, "> " + deref)) << out;
  EXPECT_TRUE(contains(out, "bool b = ::course_cpu::check::value(COURSE_CHECKED(in, __LINE__)[2]) > " + deref)) << out;
  EXPECT_TRUE(contains(out, "[3]) > " + deref)) << out;
  EXPECT_TRUE(contains(out, "  Box<int> *p;\n")) << out;
  EXPECT_TRUE(contains(out, "  Box<int> *q = nullptr;\n")) << out;
  EXPECT_TRUE(contains(out, "[](Box<int> *p) { return p; };")) << out;
}

// A __device__ function's reference parameter of a class type (`KV& a`): each use is checked as the same use of `*p`
// would be with p = &a, through root(address_of(a), SITE) (a site named `a`, of a __device__ function's parameter):
// members with their use marked, whole uses as a store or a load; what is not an expression of `a` (a capture, a call
// of its operator(), a member function, an unevaluated operand, a parameter of another kind) stays as written.
TEST(RewriterUses, ClassReferenceParametersAreChecked) {
  const std::string src =
      "struct KV { int key; float v; __device__ int get() const { return key; } };\n"
      "enum class Mode { a, b };\n"
      "__device__ void swapIf(KV& a, KV& b) { if (b.key < a.key) { KV t = a; a = b; b = t; } }\n"
      "__device__ int read(const KV& e, const float4& f, Mode& m, volatile KV& w, int& n) {\n"
      "  auto g = [e](int x) { return e.key + x; };\n"
      "  return e.get() + g(1) + sizeof(e) + f.w + n;\n"
      "}\n";
  const std::string out = body(src, Mode::check);
  EXPECT_EQ(lines(out), lines(src));
  const auto root = [](const std::string& name) {
    return "::course_cpu::check::root(::course_cpu::check::address_of(" + name +
           "), [] { static constinit ::course_cpu::check::Site site{\"" + name +
           "\", __FILE__, __LINE__, 0, false, true, true}; return &site; }())";
  };
  EXPECT_TRUE(contains(out, kMember + "any>" + kForMember + root("b") + ")[0], COURSE_CPU_MEMBER_OF(.key, key))"))
      << out;
  EXPECT_TRUE(contains(out, "KV t = ::course_cpu::check::for_load(" + root("a") + ")[0];")) << out;
  EXPECT_TRUE(contains(out, "::course_cpu::check::for_store(" + root("a") + ")[0] = ::course_cpu::check::for_load(" +
                                root("b") + ")[0];"))
      << out;
  EXPECT_TRUE(contains(out, kMember + "any>" + kForMember + root("f") + ")[0], COURSE_CPU_MEMBER_OF(.w, w))")) << out;
  // As written: the capture (inside the lambda, `e` is the closure's copy: checked, and unchecked where it lies on the
  // thread's stack), a member function, sizeof, an enum, a volatile object, an arithmetic reference (made a proxy by
  // reference_params(), not here).
  EXPECT_TRUE(contains(out, "([e](int x) {")) << out;
  EXPECT_TRUE(contains(out, "return e.get() + g(1) + sizeof(e) + ")) << out;
  EXPECT_FALSE(contains(out, "address_of(m)")) << out;
  EXPECT_FALSE(contains(out, "address_of(w)")) << out;
  EXPECT_FALSE(contains(out, "address_of(n)")) << out;
  EXPECT_FALSE(contains(body(src), "address_of"));  // fast mode: as written
}

// Check mode's pass 0: a function-like macro of the file that subscripts or casts is expanded in device code as the
// preprocessor would (public SGEMM's FETCH_FLOAT4, index macros naming the array), so that its accesses are
// instrumented; the cache intrinsics become the plain load or store they make. Left as written: a macro with # or ##,
// one defined twice or under #if, one whose arguments the call does not match, and host code.
TEST(RewriterUses, AccessMacrosAndCacheIntrinsicsAreWrittenOut) {
  const std::string src =
      "#define FETCH_FLOAT4(p) (reinterpret_cast<float4*>(&(p))[0])\n"
      "#define SA(i, j) \\\n"
      "  As[(i) * 16 + (j)]\n"
      "#define NAMED(x) s_##x[0]\n"
      "#define FIRST(x) #x[0]\n"
      "#define SHOW(a, i) printf(#a \"%f\", a[i])\n"
      "#define TWICE(p) p[0]\n"
      "#define TWICE(p) p[0]\n"
      "#if 0\n"
      "#define HIDDEN(p) p[1]\n"
      "#endif\n"
      "__global__ void k(const float* in, float* out, int n) {\n"
      "  __shared__ float As[256];\n"
      "  SA(threadIdx.x, 1) = __ldg(&in[n]) + __ldg(in + n) + __ldcs(in);\n"
      "  float4 v = FETCH_FLOAT4(As[4 * threadIdx.x]);\n"
      "  __stcs(&out[n], v.x + TWICE(As) + HIDDEN(As));\n"
      "  __stcg(out + 1, SA(1));\n"
      "  SHOW(As, FIRST(q));\n"
      "}\n"
      "void host(float* p) { float4 w = FETCH_FLOAT4(p[0]); }\n";
  const std::string out = body(src, Mode::check);
  EXPECT_EQ(lines(out), lines(src));
  EXPECT_TRUE(contains(out,
                       "::course_cpu::check::for_store(COURSE_CHECKED(As, __LINE__))[(threadIdx.x) * 16 + (1)] = "
                       "::course_cpu::check::loaded(COURSE_CHECKED(in, __LINE__)[n]) + ::course_cpu::check::loaded("
                       "::course_cpu::check::root(in, "))
      << out;
  EXPECT_TRUE(contains(out, "())[0 + static_cast<long long>(n)]) + ::course_cpu::check::loaded(")) << out;  // *(in + n)
  EXPECT_TRUE(contains(out, "())[0]);\n")) << out;                                                          // *in
  EXPECT_TRUE(contains(out,
                       "float4 v = (::course_cpu::check::for_load(::course_cpu::check::root(reinterpret_cast<float4*>"
                       "(&(COURSE_CHECKED(As, __LINE__)[4 * threadIdx.x]))"))
      << out;
  EXPECT_TRUE(contains(out,
                       "static_cast<void>(::course_cpu::check::for_store(COURSE_CHECKED(out, __LINE__))[n] = (v.x "
                       "+ TWICE(As) + HIDDEN(As)));"))
      << out;
  EXPECT_TRUE(contains(out, "[0 + static_cast<long long>(1)] = (SA(1)));")) << out;  // SA takes two arguments
  EXPECT_TRUE(contains(out, "  SHOW(As, FIRST(q));\n")) << out;                      // # in their bodies
  EXPECT_TRUE(contains(out, "void host(float* p) { float4 w = FETCH_FLOAT4(p[0]); }")) << out;
  EXPECT_FALSE(contains(body(src), "course_cpu::check"));  // fast mode: as written
}
