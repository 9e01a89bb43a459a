// course-rewrite, pass 2b (both modes): calls that nvcc rejects in device code and g++ accepts, refused here too
// (course_cpu/nvcc_rules.h says why; the lists below are what nvcc 13.0 was measured to reject).
//
//   std::min(a, b)                       ((::course_cpu::... static_assert(...) ...), std::min(a, b))
//   std::numeric_limits<float>::max()    the same, with the limits' message
//   sqrt(n), fmax(x, n)                  sqrt(::course_cpu::nvcc_math_argument(n)): refused where n is an integer
//
// Only in __global__ and __device__ functions (in a __host__ __device__ one nvcc only warns), outside unevaluated
// operands (sizeof, decltype, ...), and not for a function of the file's own that has such a name.
#include "passes.h"

namespace course_rewrite {

namespace {

// The standard library's constexpr function templates that nvcc refuses to call from device code (std::move,
// std::forward and <cmath>'s float and double overloads, which it accepts, are not here).
const std::set<std::string_view> kHostStd = {
    "min",           "max",         "minmax",       "clamp",          "swap",        "exchange",      "make_pair",
    "make_tuple",    "get",         "tie",          "fill",           "fill_n",      "copy",          "copy_n",
    "copy_backward", "sort",        "partial_sort", "nth_element",    "accumulate",  "inner_product", "partial_sum",
    "iota",          "max_element", "min_element",  "minmax_element", "reverse",     "rotate",        "count",
    "count_if",      "find",        "find_if",      "lower_bound",    "upper_bound", "binary_search", "equal",
    "transform",     "for_each",    "all_of",       "any_of",         "none_of",     "replace",       "unique",
    "swap_ranges",   "iter_swap"};

// <cmath> functions whose integer overloads (constexpr __host__ templates) nvcc refuses in device code: any argument
// that is an integer (fmax(x, n) too). pow, ldexp and frexp, which CUDA provides for int arguments, are not here.
const std::set<std::string_view> kRealOnly = {
    "sqrt",   "cbrt",   "rsqrt",     "exp",      "exp2",  "expm1",     "log",       "log2",    "log10",
    "log1p",  "logb",   "ilogb",     "sin",      "cos",   "tan",       "asin",      "acos",    "atan",
    "atan2",  "sinh",   "cosh",      "tanh",     "asinh", "acosh",     "atanh",     "erf",     "erfc",
    "tgamma", "lgamma", "floor",     "ceil",     "trunc", "round",     "lround",    "llround", "rint",
    "lrint",  "llrint", "nearbyint", "fabs",     "isnan", "isinf",     "isfinite",  "signbit", "fmax",
    "fmin",   "fmod",   "hypot",     "copysign", "fdim",  "remainder", "nextafter", "fma"};

}  // namespace

void Rewriter::nvcc_rules() {
  for (const Function& fn : functions_) {
    if (fn.host_too) continue;
    for (std::size_t k = fn.body_open + 1; k < fn.body_close; ++k) {
      if (!is_ident(k)) continue;
      const std::string_view t = toks_[k].text;
      if ((t == "sizeof" || t == "decltype" || t == "alignof" || t == "noexcept" || t == "typeid" ||
           t == "__alignof__" || t == "__typeof__") &&
          is_punct(next(k), "(")) {
        k = match(next(k));  // unevaluated: nvcc does not call anything there
        continue;
      }
      // std::NAME( or std::numeric_limits<...>::NAME(, not other::std:: (cuda::std:: is libcu++, for device code).
      const std::size_t before = prev(k);
      const bool qualified = before != npos && is_punct(before, "::");
      if (t == "std" && is_punct(next(k), "::") && !(qualified && is_ident(prev(before)))) {
        const std::size_t first = qualified ? before : k;
        std::size_t name = next(next(k));
        const char* message = "COURSE_CPU_NVCC_HOST_STD";
        if (is_ident(name, "numeric_limits") && is_punct(next(name), "<")) {
          std::size_t q = next(name);
          for (int angle = 0; q < fn.body_close; q = next(q)) {
            angle += is_punct(q, "<") ? 1 : is_punct(q, ">") ? -1 : is_punct(q, ">>") ? -2 : 0;
            if (angle <= 0) break;
          }
          if (!is_punct(next(q), "::") || !is_ident(next(next(q)))) continue;
          name = next(next(q));
          message = "COURSE_CPU_NVCC_HOST_LIMITS";
        } else if (!is_ident(name) || !kHostStd.count(toks_[name].text)) {
          if (is_ident(name) && kRealOnly.count(toks_[name].text) && is_punct(next(name), "(")) k = name - 1;
          continue;
        }
        std::size_t open = next(name);
        if (is_punct(open, "<")) {  // std::get<0>(t), std::max<float>(a, b)
          int angle = 0;
          for (; open < fn.body_close; open = next(open)) {
            angle += is_punct(open, "<") ? 1 : is_punct(open, ">") ? -1 : is_punct(open, ">>") ? -2 : 0;
            if (angle <= 0) break;
          }
          open = next(open);
        }
        if (!is_punct(open, "(")) continue;
        edits_.push_back(
            {first, first, "(([] { static_assert(::course_cpu::kNvccRejects, " + std::string(message) + "); }()), "});
        edits_.push_back({match(open) + 1, match(open) + 1, ")"});
        k = name;
        continue;
      }
      if (!kRealOnly.count(t) || !is_punct(next(k), "(") || device_function_names_.count(std::string(t))) continue;
      if (qualified) {  // std::sqrt and ::std::sqrt are <cmath>'s; not cuda::std::sqrt, ns::sqrt, ::sqrt
        const std::size_t scope = prev(before);
        if (!is_ident(scope, "std") || (is_punct(prev(scope), "::") && is_ident(prev(prev(scope))))) continue;
      }
      if (before != npos && (is_punct(before, ".") || is_punct(before, "->"))) continue;  // a member function
      const std::size_t open = next(k), close = match(open);
      if (close >= fn.body_close || next(open) == close) continue;
      std::size_t arg = next(open);
      int depth = 0;
      for (std::size_t q = arg; q <= close; q = next(q)) {
        if (q == close || (depth == 0 && is_punct(q, ","))) {
          edits_.push_back({arg, arg, "::course_cpu::nvcc_math_argument("});
          edits_.push_back({prev(q) + 1, prev(q) + 1, ")"});
          arg = next(q);
          continue;
        }
        if (is_open(q)) ++depth;
        if (is_close(q)) --depth;
      }
    }
  }
}

}  // namespace course_rewrite
