// course-rewrite, pass 4 (check mode): elements given to functions. A checked subscript is an element proxy
// (course_cpu/check_element.h), which C++ would pass on as the proxy where CUDA passes the element:
//   a function template of the file    `warp_sum(s[i])` for `T warp_sum(T v)` would deduce T = the proxy, and the
//                                      copy would write the element: a `T` or `const T&` parameter gets the value (a
//                                      checked read), a `T&` the element itself (template_argument());
//   a plain __device__ function         a by-value parameter gets the value (it converts once, as in CUDA: `len(s[i])`
//                                      for `len(V3)` with V3(float)), a `const T&` the element itself (its address is
//                                      the element's); a `float&` parameter becomes `auto&&` where nothing else
//                                      changes (in its declarations too), so that the proxy passes and the
//                                      function's uses are checked (reference_params.cpp; a lambda's alike);
//   cuda::std, std and <cmath>          min/max/clamp and the math functions take values, swap binds the elements;
//   functors and callable parameters    the element itself (their operator() may be a template).
#include "passes.h"

namespace course_rewrite {

bool Rewriter::argument_of_call(std::size_t first, std::size_t last, std::size_t* open_out,
                                std::size_t* index_out) const {
  std::size_t p = prev(first), q = next(last);
  // (s[i]) is s[i], but f(s[i]) is a call
  while (p != npos && is_punct(p, "(") && match(p) == q && prev(p) != npos && !is_ident(prev(p)) &&
         !is_punct(prev(p), ">")) {
    p = prev(p);
    q = next(q);
  }
  if (p == npos || q >= toks_.size() || !(is_punct(p, "(") || is_punct(p, ",")) ||
      !(is_punct(q, ")") || is_punct(q, ",")))
    return false;
  // Back to the call's '(' over the arguments before this one, counting them.
  std::size_t index = 0;
  std::size_t open = p;
  while (open != npos && !is_punct(open, "(")) {
    if (is_punct(open, ",")) ++index;
    std::size_t k = prev(open);
    if (k != npos && is_close(k)) {  // over a bracketed group
      k = match_back(k);
      if (k == npos) return false;
      k = prev(k);
    }
    if (k != npos && (is_punct(k, "{") || is_punct(k, "[") || is_punct(k, ";"))) return false;
    open = k;
  }
  if (open == npos) return false;
  *open_out = open;
  *index_out = index;
  return true;
}

bool Rewriter::checked_reference_argument(std::size_t first, std::size_t last) const {
  std::size_t open = npos, index = 0;
  if (!argument_of_call(first, last, &open, &index)) return false;
  const std::size_t callee = prev(open);
  if (!is_ident(callee) || is_punct(prev(callee), ".") || is_punct(prev(callee), "->") || is_punct(prev(callee), "::"))
    return false;
  const auto found = checked_class_refs_.find(std::string(toks_[callee].text));
  return found != checked_class_refs_.end() && index < found->second.size() && found->second[index];
}

std::optional<Rewriter::Param> Rewriter::template_argument(std::size_t first, std::size_t last) const {
  if (braced_cuda_std_argument(prev(first), next(last))) return Param::value;
  std::size_t open = npos, index = 0;
  if (!argument_of_call(first, last, &open, &index)) return std::nullopt;
  std::size_t callee = prev(open);
  // `Box b(s[i]);`, `Box(s[i])`: a class template's arguments deduced from the constructor's (C++17): the value, as
  // nvcc deduces `Box<float>`, where the proxy would make `Box<proxy>`.
  if (callee != npos && (class_template(callee) || (is_ident(callee) && class_template(prev(callee)))))
    return Param::value;
  // `f<16>(s[i])`: the arguments not given explicitly are still deduced; `f<float&>(s[i])` binds the element.
  const bool explicit_arguments = callee != npos && is_punct(callee, ">");
  if (explicit_arguments) {
    const std::size_t gt = callee;
    callee = template_name_before(gt);
    for (std::size_t t = callee; callee != npos && t < gt; t = next(t))
      if (is_punct(t, "&") || is_punct(t, "&&")) return std::nullopt;
  }
  if (callee == npos || !is_ident(callee)) return std::nullopt;
  const std::size_t before = prev(callee);
  const bool member = before != npos && (is_punct(before, ".") || is_punct(before, "->"));
  const auto found = template_functions_.find(std::string(toks_[callee].text));
  // A member function (`op.apply(s[i])`) or explicit arguments: only a function template of the file deduces there.
  if ((member || explicit_arguments) && found == template_functions_.end()) return std::nullopt;
  // cuda::std::swap(s[i], s[j]) swaps the elements themselves (bound, bounds-checked; the swap is not seen); the rest
  // of cuda::std (max, min, clamp, ...) takes the elements' values.
  if (found == template_functions_.end() && cuda_std(callee))
    return toks_[callee].text == "swap" ? Param::reference : Param::value;
  // std::min(p[1], 1.0f) in a __host__ __device__ function (nvcc warns, and runs the host's std::min): the values, as
  // for cuda::std; std::swap and std::exchange bind the element.
  if (found == template_functions_.end() && is_punct(prev(callee), "::") && is_ident(prev(prev(callee)), "std")) {
    const std::string_view name = toks_[callee].text;
    if (name == "min" || name == "max" || name == "clamp") return Param::value;
    if (name == "swap" || name == "exchange") return index == 0 || name == "swap" ? Param::reference : Param::value;
  }
  if (found == template_functions_.end() && math_function(callee)) return Param::value;
  // A __device__ function of the file taking a value: the element's value, which converts as CUDA converts the
  // element (`len(f[i])` with `len(V3)` and V3(float): the proxy would need two user conversions).
  // Where a template and a plain function share the name (overloads, or members of different classes), the plain
  // one's parameter decides: its reference binds the element (the template then deduces the element's type, and the
  // plain function wins the tie, as in CUDA).
  // `TWICE(s[i])` with `#define TWICE(x) twice(x)`: what the macro's body gives the parameter to.
  if (found == template_functions_.end() && function_like_macros_.count(std::string(toks_[callee].text)))
    return macro_argument(callee, index);
  const std::string name(toks_[callee].text);
  // A functor or a callable parameter: a by-value `T` copies the element, a `T&` binds it, as in CUDA.
  if (found == template_functions_.end() && !function_params_.count(name))
    return callable_object(callee, first) ? std::optional<Param>(Param::reference) : std::nullopt;
  return function_argument(name, index);
}

std::optional<Rewriter::Param> Rewriter::function_argument(const std::string& name, std::size_t index) const {
  const auto found = template_functions_.find(name);
  // A __device__ function of the file taking a value: the element's value, which converts as CUDA converts the
  // element (`len(f[i])` with `len(V3)` and V3(float): the proxy would need two user conversions).
  // Where a template and a plain function share the name (overloads, or members of different classes), the plain
  // one's parameter decides: its reference binds the element (the template then deduces the element's type, and the
  // plain function wins the tie, as in CUDA).
  const auto plain = function_params_.find(name);
  if (plain != function_params_.end()) {
    const std::vector<Param>& params = plain->second;
    if (index >= params.size()) return std::nullopt;
    if (params[index] == Param::value) return Param::value;
    // A const reference binds the element itself, as in CUDA (`&e - base`, a returned reference), and converts it
    // once (`len(const V3&)` with V3(float)); what the function reads through it is not seen.
    if (params[index] == Param::const_reference) return Param::reference;
    return found == template_functions_.end() ? std::nullopt : std::optional<Param>(Param::reference);
  }
  if (found == template_functions_.end() || found->second.empty()) return std::nullopt;
  const std::vector<Param>& params = found->second;
  Param kind = index < params.size() ? params[index] : params.back();
  if (index >= params.size() && kind != Param::value_pack && kind != Param::reference_pack) return std::nullopt;
  if (kind == Param::value_pack || kind == Param::const_reference) kind = Param::value;
  if (kind == Param::reference_pack) kind = Param::reference;
  return kind;
}

std::size_t Rewriter::template_name_before(std::size_t gt) const {
  int depth = 0;
  for (std::size_t k = gt; k != npos; k = prev(k)) {
    if (is_close(k)) {
      k = match_back(k);
      if (k == npos) return npos;
      continue;
    }
    if (is_punct(k, ";") || is_punct(k, "{") || is_punct(k, "}") || is_open(k)) return npos;
    depth += is_punct(k, ">") ? 1 : is_punct(k, ">>") ? 2 : is_punct(k, "<") ? -1 : 0;
    if (depth == 0) return prev(k);
  }
  return npos;
}

bool Rewriter::braced_cuda_std_argument(std::size_t p, std::size_t q) const {
  // An item of a braced list that is a cuda::std call's argument (cuda::std::min({s[0], s[1], x})): a value, so that
  // the list has one element type; or that initializes a class template whose arguments are deduced (`Pair p{s[i],
  // s[j]};`). p and q: the tokens around the item.
  if (p == npos || q >= toks_.size() || !(is_punct(p, "{") || is_punct(p, ",")) ||
      !(is_punct(q, "}") || is_punct(q, ",")))
    return false;
  std::size_t open = p;
  while (open != npos && !is_punct(open, "{")) {  // back over the items before this one
    std::size_t k = prev(open);
    if (k != npos && is_close(k)) {
      k = match_back(k);
      if (k == npos) return false;
      k = prev(k);
    }
    if (k == npos || is_punct(k, "(") || is_punct(k, "[") || is_punct(k, ";") || is_punct(k, "}")) return false;
    open = k;
  }
  if (open == npos || match(open) == npos) return false;
  // `Pair p{s[i], s[j]};`, `Pair{s[i], s[j]}`: a class template's arguments deduced from the items.
  const std::size_t before = prev(open);
  if (class_template(before) || (before != npos && is_ident(before) && class_template(prev(before)))) return true;
  const std::size_t paren = prev(open), after = next(match(open));
  if (paren == npos || !is_punct(paren, "(") || after >= toks_.size() || !is_punct(after, ")")) return false;
  const std::size_t callee = prev(paren);
  return callee != npos && is_ident(callee) && cuda_std(callee);
}

bool Rewriter::class_template(std::size_t k) const {
  return k != npos && is_ident(k) && class_templates_.count(std::string(toks_[k].text)) && !is_punct(prev(k), ".") &&
         !is_punct(prev(k), "->");
}

bool Rewriter::cuda_std(std::size_t callee) const {
  // `cuda::std::NAME` or `::cuda::std::NAME`
  std::size_t k = callee;
  for (const char* want : {"::", "std", "::", "cuda"}) {
    k = prev(k);
    if (k == npos || !(want[0] == ':' ? is_punct(k, want) : is_ident(k, want))) return false;
  }
  return true;
}

bool Rewriter::math_function(std::size_t callee) const {
  // The overloads of these take arithmetic types (pow(float, double), sqrt(int), fmax(float, double), isnan): an
  // element proxy converts to several of them equally well, so the call would be ambiguous. Their arguments are values.
  static const std::set<std::string_view> names = {
      "abs",    "fabs",   "fabsf",   "sqrt",   "sqrtf",   "cbrt",       "cbrtf",      "rsqrt",     "rsqrtf",
      "exp",    "expf",   "exp2",    "exp2f",  "exp10",   "exp10f",     "expm1",      "expm1f",    "log",
      "logf",   "log2",   "log2f",   "log10",  "log10f",  "log1p",      "log1pf",     "pow",       "powf",
      "sin",    "sinf",   "cos",     "cosf",   "tan",     "tanf",       "asin",       "asinf",     "acos",
      "acosf",  "atan",   "atanf",   "atan2",  "atan2f",  "sinh",       "sinhf",      "cosh",      "coshf",
      "tanh",   "tanhf",  "asinh",   "asinhf", "acosh",   "acoshf",     "atanh",      "atanhf",    "erf",
      "erff",   "erfc",   "erfcf",   "tgamma", "tgammaf", "lgamma",     "lgammaf",    "ceil",      "ceilf",
      "floor",  "floorf", "trunc",   "truncf", "round",   "roundf",     "rint",       "rintf",     "nearbyint",
      "lround", "lrint",  "llround", "llrint", "fmod",    "fmodf",      "remainder",  "fmin",      "fminf",
      "fmax",   "fmaxf",  "fdim",    "fdimf",  "fma",     "fmaf",       "copysign",   "copysignf", "hypot",
      "hypotf", "ldexp",  "ldexpf",  "isnan",  "isinf",   "isfinite",   "signbit",    "min",       "max",
      "__expf", "__logf", "__sinf",  "__cosf", "__powf",  "__fdividef", "__saturatef"};
  const std::string_view name = toks_[callee].text;
  if (!names.count(name)) return false;
  // std::min, std::max: host templates, which nvcc does not compile in device code without
  // --expt-relaxed-constexpr (the course does not pass it; nvcc_rules.cpp refuses them there, and in a
  // __host__ __device__ function nvcc only warns): template_argument()'s std:: branch gives them values.
  const std::size_t before = prev(callee);
  if (before != npos && is_punct(before, "::") && is_ident(prev(before), "std") && (name == "min" || name == "max") &&
      !cuda_std(callee))
    return false;
  return true;
}

bool Rewriter::callable_object(std::size_t callee, std::size_t at) const {
  const Function* fn = nullptr;
  for (const Function& f : functions_)
    if (f.body_open < at && at < f.body_close) fn = &f;
  if (fn == nullptr) return false;
  // The parameter list: the ( ) before the body, over qualifiers and a trailing return type.
  std::size_t k = prev(fn->body_open);
  while (k != npos && !is_punct(k, ")")) k = prev(k);
  const std::size_t params = k == npos ? npos : match_back(k);
  if (params == npos) return false;
  const std::string_view name = toks_[callee].text;
  for (std::size_t t = next(params); t < callee; t = next(t)) {
    if (!is_ident(t, name) || t == callee) continue;
    const std::size_t before = prev(t), after = next(t);
    // A declarator: after a type (a name, `>`, `&`, `&&`, `*`), before `;`, `,`, `)`, `{` or `(`; not a lambda
    // (`auto f = [...]`, whose parameters the rewriter reads) and not a use (`op(x)` after `;`).
    const bool typed = before != npos && (is_ident(before) || is_punct(before, ">") || is_punct(before, "&") ||
                                          is_punct(before, "&&") || is_punct(before, "*"));
    const bool ends = is_punct(after, ";") || is_punct(after, ",") || is_punct(after, ")") || is_punct(after, "{") ||
                      (is_punct(after, "(") && t < fn->body_open);
    if (typed && ends && !is_ident(before, "return") && !is_ident(before, "auto")) return true;
  }
  return false;
}

void Rewriter::generic_lambdas(const Function& fn) {
  // auto NAME = [captures](params with auto) ... and auto NAME = [captures]<template params>(params) ...: called like a
  // function template (`relu(s[i])`).
  for (std::size_t k = fn.body_open + 1; k < fn.body_close; ++k) {
    if (!is_ident(k, "auto") || !is_ident(next(k)) || !is_punct(next(next(k)), "=")) continue;
    const std::size_t open_capture = next(next(next(k)));
    if (!is_punct(open_capture, "[")) continue;
    std::size_t open = next(match(open_capture));
    bool generic = false;
    if (is_punct(open, "<")) {  // a template lambda (C++20): `[]<class T>(T v) {...}`
      for (int depth = 0; open < fn.body_close; open = next(open)) {
        depth += is_punct(open, "<") ? 1 : is_punct(open, ">") ? -1 : is_punct(open, ">>") ? -2 : 0;
        if (depth <= 0) break;
      }
      open = next(open);
      generic = true;
    }
    if (!is_punct(open, "(")) continue;
    const std::size_t close = match(open);
    for (std::size_t t = next(open); t < close; t = next(t)) generic = generic || is_ident(t, "auto");
    if (generic) template_functions_[std::string(toks_[next(k)].text)] = parameter_kinds(open, close);
  }
}

}  // namespace course_rewrite
