// CPU reference for the GEMM labs (02, 03, 04, 07): C = A·B in double precision, the checks on a GEMM's sizes, and what
// their tests share: the shape a test runs, its name and call text, and the check of C's sampled rows.
//
// A is m x k, B is k x n, C is m x n, all row-major. The scale of C[i][j] is sum_p |a_ip * b_pj|: the float rounding
// error of the dot product is proportional to it, and it stays meaningful when the terms cancel (the value itself
// can be near 0 while the error is not).
#pragma once

#include "course/compare.h"
#include "course/timed_buffers.h"
#include "course/validate.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace course {

// The sizes of one GEMM a test runs: C (m x n) = A (m x k) · B (k x n).
struct GemmShape {
  int m = 0, n = 0, k = 0;
  // A test parameter's name: "17x33x9".
  std::string name() const { return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k); }
  // What a failure message says was called: "naive_gemm(a, b, c, m=17, n=33, k=9, stream 0)".
  std::string call(const std::string& launcher) const {
    return launcher + "(a, b, c, m=" + std::to_string(m) + ", n=" + std::to_string(n) + ", k=" + std::to_string(k) +
           ", stream 0)";
  }
  // How a failure message names C's elements; with row_step > 1, of C's rows 0, row_step, 2 * row_step, ...
  Layout c_layout(int row_step = 1) const {
    if (row_step == 1) return {"C", static_cast<std::size_t>(m), static_cast<std::size_t>(n)};
    return {"C (rows 0, " + std::to_string(row_step) + ", ...)",
            static_cast<std::size_t>((m + row_step - 1) / row_step), static_cast<std::size_t>(n)};
  }
};

// How GoogleTest prints a shape in failure messages: "m=17 n=33 k=9".
inline void PrintTo(const GemmShape& s, std::ostream* os) { *os << "m=" << s.m << " n=" << s.n << " k=" << s.k; }

struct GemmSizes {
  std::size_t a = 0, b = 0, c = 0;  // element counts of A (m x k), B (k x n) and C (m x n)
};

// The sizes a GEMM launcher may be given: m, n, k >= 1 and every matrix indexable with a 32-bit int.
// Throws std::invalid_argument with a sentence that names the bad size ("GEMM size M must be at least 1, got 0").
inline GemmSizes gemm_sizes(long long m, long long n, long long k) {
  require_positive("GEMM size M", m);
  require_positive("GEMM size N", n);
  require_positive("GEMM size K", k);
  GemmSizes s;
  s.a = require_int_indexable("GEMM matrix A (M x K)", {m, k});
  s.b = require_int_indexable("GEMM matrix B (K x N)", {k, n});
  s.c = require_int_indexable("GEMM matrix C (M x N)", {m, n});
  return s;
}

// The largest relative error (|got - expected| / scale) a float GEMM may have.
//
// Each C[i][j] is a float dot product of length k. The classic bound for summing k float products in any order
// (each product rounded once, each of the k-1 additions once) is gamma_k = k*u / (1 - k*u), u = 2^-24, times
// sum_p |a_ip * b_pj|: exactly our scale. So any summation order (naive, tiled, fused multiply-add or not) passes
// with tolerance (k + 1) * 2^-24, and a factor of 2 covers the 1/(1 - k*u) term for every k the labs use
// (k*u < 2^-4 up to k = 2^20). Typical errors are far smaller (~sqrt(k)*u). A real bug drops, repeats or misplaces
// whole rows, columns or tiles of terms (16 or more of the k), an error of ~16/k of the scale or more: at k = 2048,
// the largest k tested, 7.8e-3 against a tolerance of 2.4e-4.
inline double gemm_tolerance(long long k) { return 2.0 * static_cast<double>(k + 1) * 0x1.0p-24; }

// C = A·B for the rows 0, row_step, 2*row_step, ... of C (all rows by default; a step > 1 keeps the check of a
// large timed run cheap). The result has those rows only, in order: ceil(m / row_step) x n.
inline Reference gemm_reference(std::span<const float> a, std::span<const float> b, int m, int n, int k,
                                int row_step = 1) {
  const GemmSizes s = gemm_sizes(m, n, k);
  if (a.size() != s.a || b.size() != s.b)
    throw std::invalid_argument("gemm_reference: A has " + std::to_string(a.size()) + " elements and B " +
                                std::to_string(b.size()) + ", expected " + std::to_string(s.a) + " and " +
                                std::to_string(s.b));
  if (row_step < 1) throw std::invalid_argument("gemm_reference: row_step must be at least 1");
  const std::size_t rows = (static_cast<std::size_t>(m) + row_step - 1) / row_step;
  const std::size_t cols = static_cast<std::size_t>(n);
  Reference ref;
  ref.value.assign(rows * cols, 0.0);
  ref.scale.assign(rows * cols, 0.0);
  const auto some_rows = [&](std::size_t first, std::size_t last) {
    for (std::size_t r = first; r < last; ++r) {
      const std::size_t i = r * static_cast<std::size_t>(row_step);
      double* value = &ref.value[r * cols];
      double* scale = &ref.scale[r * cols];
      for (std::size_t p = 0; p < static_cast<std::size_t>(k); ++p) {  // i-p-j order: B is read row by row
        const double aip = a[i * k + p];
        const float* brow = &b[p * cols];
        for (std::size_t j = 0; j < cols; ++j) {
          const double term = aip * static_cast<double>(brow[j]);
          value[j] += term;
          scale[j] += std::fabs(term);
        }
      }
    }
  };
  // Rows in parallel once there is enough work: at 1024^3 one core took 4 s, while the grader held the GPU for it.
  const double work = static_cast<double>(rows) * static_cast<double>(cols) * static_cast<double>(k);
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads = work < 1e7 ? 1 : std::min({cores, rows, std::size_t{32}});
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(some_rows, rows * t / threads, rows * (t + 1) / threads);
  some_rows(0, rows / threads);
  for (std::thread& t : pool) t.join();
  return ref;
}

// The rows 0, row_step, 2*row_step, ... of a row-major m x n matrix (to compare with gemm_reference(..., row_step)).
inline std::vector<float> sample_rows(std::span<const float> c, int m, int n, int row_step) {
  std::vector<float> out;
  for (std::size_t i = 0; i < static_cast<std::size_t>(m); i += static_cast<std::size_t>(row_step))
    out.insert(out.end(), c.begin() + i * n, c.begin() + (i + 1) * n);
  return out;
}

// A perf test's check after its timed runs: C's rows 0, row_step, 2 * row_step, ... against the reference from A and B,
// computed at the first call and kept in `reference` (the reference of the whole of a 4096^3 C would take minutes; a
// test that checks several kernels on the same inputs computes it once).
inline CompareResult compare_gemm_rows(std::span<const float> c, std::span<const float> a, std::span<const float> b,
                                       const GemmShape& s, int row_step, std::optional<Reference>& reference) {
  if (!reference) reference = gemm_reference(a, b, s.m, s.n, s.k, row_step);
  return compare(sample_rows(c, s.m, s.n, row_step), *reference, gemm_tolerance(s.k), s.c_layout(row_step));
}

// A perf test's check of one timed call (course::PerfState::verify): `rows` rows of C picked by `pick`, against the
// reference from the call's own A and B.
inline CompareResult verify_gemm_rows(Pick& pick, const TimedInput& a, const TimedInput& b, TimedOutput& c, int m,
                                      int n, int k, int rows = 2) {
  const std::size_t cols = static_cast<std::size_t>(n), depth = static_cast<std::size_t>(k);
  for (int t = 0; t < rows; ++t) {
    const std::size_t row = pick.below(static_cast<std::size_t>(m));
    const CompareResult r =
        compare(c.gather(row * cols, cols), gemm_reference(a.host().subspan(row * depth, depth), b.host(), 1, n, k),
                gemm_tolerance(k), {"C", static_cast<std::size_t>(m), cols, row * cols});
    if (!r.ok) return r;
  }
  return CompareResult{};
}

}  // namespace course
