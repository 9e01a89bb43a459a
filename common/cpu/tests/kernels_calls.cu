// Self-test kernels: shared elements given to functions and operators in forms where check mode must keep what CUDA
// does (found by a red-team of the rewriter, 2026-11-29): the element bound by a non-const or const reference, a
// method of an element called inside an expression, a reference explicitly given as a template argument, a template
// and a plain overload of one name, a row given to a reference to an array, helpers whose parameter's type shows, a
// virtual function, templates declared or called through function-like macros, a template lambda, a template returning
// its const T& parameter, class templates deduced from elements.
#include "kernels.h"

#include <cstring>

struct Cplx {
  float re, im;
  __device__ float bump() { return re += 1.0f; }
};
__device__ Cplx operator*(Cplx& a, Cplx& b) { return Cplx{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }

__device__ int indexOf(const float& e, const float* base) { return static_cast<int>(&e - base); }
__device__ const float& larger(const float& a, const float& b) { return a < b ? b : a; }
__device__ float loadVolatile(const volatile float& x) { return x; }
template <class T>
__device__ void scaleBy(T x, float f) {
  x *= f;
}
__device__ float pick(float& x) { return x + 1000.0f; }
template <class T>
__device__ float pick(T x) {
  return x;
}
template <int N>
__device__ float rowSum(const float (&row)[N]) {
  float s = 0.0f;
  for (int i = 0; i < N; ++i) s += row[i];
  return s;
}
__device__ void negateRow(float (&row)[8]) {
  for (float& v : row) v = -v;
}
__device__ float bitsOf(float& x) {  // sizeof of the parameter: stays a plain reference
  unsigned u = 0;
  std::memcpy(&u, &x, sizeof(x));
  return static_cast<float>(u >> 31);
}
__device__ float& same(float& x) { return x; }  // returns the reference: stays a plain reference
#define DEVICE_TEMPLATE(T) \
  template <typename T>    \
  __device__ __forceinline__
DEVICE_TEMPLATE(T) T doubled(T v) {  // a template through a function-like macro: takes the element's value
  v += v;
  return v;
}
template <class T>
__device__ const T& largest(const T& a, const T& b) {  // returns a parameter: binds the element
  return a < b ? b : a;
}
template <class T>
struct Boxed {  // its argument deduced from the constructor's: Boxed<float>, a copy of the element
  T v;
  __device__ explicit Boxed(T x) : v(x) {}
  __device__ void bump() { v += 1; }
};
template <class T>
struct Duo {  // an aggregate, its argument deduced from the items
  T a, b;
};
#define DOUBLED(x) doubled(x)
#define APPLY(f, x) f(x)
struct Scaler {  // virtual, declared without a body: stays a plain reference (a template cannot be virtual)
  __device__ virtual void apply(float& x) const = 0;
};
struct Tripler : Scaler {
  __device__ void apply(float& x) const override { x *= 3.0f; }
};

__global__ void callForms(float* out) {
  __shared__ Cplx c[32];
  __shared__ float s[32];
  __shared__ float rows[4][8];
  const int t = threadIdx.x;
  c[t] = Cplx{static_cast<float>(t), 1.0f};
  s[t] = static_cast<float>(t);
  rows[t / 8][t % 8] = static_cast<float>(t);
  __syncthreads();
  const Cplx m = c[t] * c[(t + 1) % 32];                               // t (t + 1) % 32 - 1
  float r = m.re + static_cast<float>(indexOf(s[(t + 3) % 32], s));    // + (t + 3) % 32
  r += larger(s[t], s[(t + 1) % 32]) + loadVolatile(s[(t + 5) % 32]);  // + max(t, (t + 1) % 32) + (t + 5) % 32
  r += pick(s[t]);                                                     // + t + 1000 (the plain overload)
  struct Local {
    __device__ float twice(float& x) { return 2.0f * x; }
  };
  r += Local{}.twice(s[t]) + bitsOf(s[t]) + same(s[t]);  // + 2 t + 0 + t
  r += DOUBLED(s[t]) + APPLY(doubled, s[t]);             // + 2 t + 2 t (s[t] unchanged)
  const auto tripled = []<class T>(T v) {                // a template lambda: takes the element's value
    v *= 3;
    return v;
  };
  r += tripled(s[t]);                                                // + 3 t (s[t] unchanged)
  r += static_cast<float>(&largest(s[t], s[(t + 1) % 32]) - &s[0]);  // + max(t, (t + 1) % 32)
  Boxed boxed(s[t]);
  boxed.bump();
  Duo duo{s[t], s[(t + 1) % 32]};
  duo.a += 10.0f;
  r += boxed.v + duo.a + duo.b;  // + t + 1 + t + 10 + (t + 1) % 32 (s[t] unchanged)
  __syncthreads();
  r += 2.0f + c[t].bump();                  // + 2 + t + 1 (c[t].re becomes t + 1)
  if (t == 0) scaleBy<float&>(s[1], 3.0f);  // s[1] = 3
  const Tripler tripler;
  const Scaler& scaler = tripler;
  if (t == 2) scaler.apply(s[2]);  // s[2] = 6
  if (t == 1) negateRow(rows[2]);
  __syncthreads();
  r += s[1] + s[2] + rowSum(rows[t % 4]) + c[t].re;  // + 3 + 6 + (row t % 4's sum, row 2 negated) + t + 1
  out[t] = r;
}

cudaError_t run_call_forms(float* out) {
  callForms<<<1, 32>>>(out);
  return cudaDeviceSynchronize();
}
