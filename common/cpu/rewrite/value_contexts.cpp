// course-rewrite, pass 4 (check mode): element proxies where C++ needs the element itself.
//
// A checked subscript is an element proxy (course_cpu/check_element.h). C++ reads a proxy as its element's value
// wherever a value of the element's type is expected, but not in these places, which get help here:
//   `c ? s[i] : 0`      the conditional's type would be int (the proxy converts to int, 0 not to the proxy): the
//                       operand becomes ::course_cpu::check::value(s[i]), a float, as on the GPU;
//   printf("%f", s[i])  a class object cannot pass through `...`: the argument becomes its value;
//   float& r = s[i];    a reference cannot bind to a proxy: the declaration becomes `auto&& r = s[i];`, so r is the
//                       proxy and every use of r reads or writes s[i] (checked), like a reference on the GPU;
//   swap(s[i], s[j])    an argument of a function template of this file whose parameter is deduced: `T` or
//                       `const T&` gets the value (a checked read), `T&` the element itself (bounds-checked; what the
//                       function does through the reference is not seen), as a proxy would deduce T = the proxy.
#include "passes.h"

namespace course_rewrite {

std::size_t Rewriter::subscripts_end(std::size_t k) const {
  std::size_t last = k;
  for (std::size_t q = next(k); is_punct(q, "["); q = next(last)) last = match(q);
  return last;
}

std::size_t Rewriter::member_path_end(std::size_t last, std::string_view first_op) const {
  std::size_t end = npos;
  for (std::size_t q = next(last); is_punct(q, end == npos ? first_op : ".") && is_ident(next(q)); q = next(next(q))) {
    const std::string_view name = toks_[next(q)].text;
    if (name == "template" || name == "operator") return npos;
    end = next(q);
  }
  if (end == npos) return npos;
  const std::size_t after = next(end);
  if (is_punct(after, "(") || is_punct(after, "[") || is_punct(after, "->") || is_punct(after, "::")) return npos;
  if (is_punct(after, "<")) {  // `s[i].get<0>()` (a member template) or `s[i].key < w` (a comparison)
    int angle = 0;
    for (std::size_t q = after; q < toks_.size(); q = next(q)) {
      if (is_punct(q, ";") || is_punct(q, "{") || is_punct(q, "}") || is_punct(q, "&&") || is_punct(q, "||")) break;
      if (is_open(q)) {
        q = match(q);
        continue;
      }
      if (is_close(q)) break;
      angle += is_punct(q, "<") ? 1 : is_punct(q, ">") ? -1 : is_punct(q, ">>") ? -2 : 0;
      if (angle <= 0) return is_punct(next(q), "(") ? npos : end;
    }
  }
  return end;
}

std::size_t Rewriter::chain_end(std::size_t k) const {
  const std::size_t last = subscripts_end(k);
  const std::size_t member = member_path_end(last);
  return member == npos ? last : member;
}

bool Rewriter::proxy_at(std::size_t k, const Function& fn, const std::set<std::string>& local,
                        std::size_t* last) const {
  if (checked_subscript(k, fn, local)) {
    *last = chain_end(k);
    return true;
  }
  std::size_t close = npos;
  if (cast_subscript(k, &close) || c_cast_subscript(k, &close)) {
    *last = chain_end(close);
    return true;
  }
  Deref d{};
  if (deref_at(k, fn, local, &d)) {
    *last = d.last;
    return true;
  }
  if (arrow_at(k, fn, local)) {  // p->x.y: a member access like p[0].x.y
    const std::size_t member = member_path_end(k, "->");
    if (member == npos) return false;
    *last = member;
    return true;
  }
  if (!is_ident(k)) return false;
  const std::string name(toks_[k].text);
  if (!fn.proxy_refs.count(name) && !fn.shared_scalars.count(name)) return false;
  const std::size_t p = prev(k), q = next(k);
  if (p != npos && (is_punct(p, ".") || is_punct(p, "->") || is_punct(p, "::"))) return false;
  if (is_punct(q, "[") || is_punct(q, "(") || is_punct(q, ".") || is_punct(q, "->")) return false;
  *last = k;
  return true;
}

bool Rewriter::value_context(std::size_t first, std::size_t last) const {
  std::size_t p = prev(first), q = next(last);
  if (binary_operand(p, q)) return true;
  while (p != npos && is_punct(p, "(") && match(p) == q) {  // (s[i]) is s[i]
    p = prev(p);
    q = next(q);
  }
  if (p == npos || q >= toks_.size()) return false;
  if (is_punct(p, "?") && is_punct(q, ":")) return true;
  const bool ends = is_punct(q, ";") || is_punct(q, ")") || is_punct(q, "]") || is_punct(q, "}") || is_punct(q, ",") ||
                    is_punct(q, ":");
  if (is_punct(p, ":") && ends) {
    // The third operand: a `?` before this `:` at the same depth, with as many `?` as `:` in between.
    int colons = 0;
    for (std::size_t k = prev(p); k != npos; k = prev(k)) {
      if (is_close(k)) {
        int depth = 0;  // skip back over the bracketed group
        for (; k != npos; k = prev(k)) {
          if (is_close(k)) ++depth;
          if (is_open(k) && --depth == 0) break;
        }
        if (k == npos) return false;
        continue;
      }
      if (is_open(k) || is_punct(k, ";") || is_punct(k, ",")) return false;
      if (is_punct(k, ":")) ++colons;
      if (is_punct(k, "?") && colons-- == 0) return true;
    }
    return false;
  }
  if (is_punct(p, ",") && (is_punct(q, ",") || is_punct(q, ")"))) {
    // An argument of printf(...): find the call's '('.
    for (std::size_t k = prev(p); k != npos; k = prev(k)) {
      if (is_close(k)) {
        int depth = 0;
        for (; k != npos; k = prev(k)) {
          if (is_close(k)) ++depth;
          if (is_open(k) && --depth == 0) break;
        }
        if (k == npos) return false;
        continue;
      }
      if (is_punct(k, "(")) return is_ident(prev(k), "printf");
      if (is_open(k) || is_punct(k, ";")) return false;
    }
  }
  return false;
}

std::optional<Rewriter::Param> Rewriter::template_argument(std::size_t first, std::size_t last) const {
  std::size_t p = prev(first), q = next(last);
  if (braced_cuda_std_argument(p, q)) return Param::value;
  // (s[i]) is s[i], but f(s[i]) is a call
  while (p != npos && is_punct(p, "(") && match(p) == q && prev(p) != npos && !is_ident(prev(p)) &&
         !is_punct(prev(p), ">")) {
    p = prev(p);
    q = next(q);
  }
  if (p == npos || q >= toks_.size() || !(is_punct(p, "(") || is_punct(p, ",")) ||
      !(is_punct(q, ")") || is_punct(q, ",")))
    return std::nullopt;
  // Back to the call's '(' over the arguments before this one, counting them.
  std::size_t index = 0;
  std::size_t open = p;
  while (open != npos && !is_punct(open, "(")) {
    if (is_punct(open, ",")) ++index;
    std::size_t k = prev(open);
    if (k != npos && is_close(k)) {  // over a bracketed group
      k = match_back(k);
      if (k == npos) return std::nullopt;
      k = prev(k);
    }
    if (k != npos && (is_punct(k, "{") || is_punct(k, "[") || is_punct(k, ";"))) return std::nullopt;
    open = k;
  }
  std::size_t callee = open == npos ? npos : prev(open);
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
  const auto plain = function_params_.find(std::string(toks_[callee].text));
  if (plain != function_params_.end()) {
    const std::vector<Param>& params = plain->second;
    if (index >= params.size()) return std::nullopt;
    if (params[index] == Param::value) return Param::value;
    // A const reference binds the element itself, as in CUDA (`&e - base`, a returned reference), and converts it
    // once (`len(const V3&)` with V3(float)); what the function reads through it is not seen.
    if (params[index] == Param::const_reference) return Param::reference;
    return found == template_functions_.end() ? std::nullopt : std::optional<Param>(Param::reference);
  }
  if (found == template_functions_.end() || found->second.empty()) {
    // A functor or a callable parameter: a by-value `T` copies the element, a `T&` binds it, as in CUDA.
    if (found == template_functions_.end() && callable_object(callee, first)) return Param::reference;
    return std::nullopt;
  }
  const std::vector<Param>& params = found->second;
  Param kind = index < params.size() ? params[index] : params.back();
  if (index >= params.size() && kind != Param::value_pack && kind != Param::reference_pack) return std::nullopt;
  if (kind == Param::value_pack || kind == Param::const_reference) kind = Param::value;
  if (kind == Param::reference_pack) kind = Param::reference;
  return kind;
}

bool Rewriter::binary_operand(std::size_t p, std::size_t q) const {
  // An operand of a binary operator is read as its value: `acc + s[i]` with a `V3 operator+(V3, V3)` and a converting
  // constructor V3(float) needs proxy -> float -> V3, two user conversions, where CUDA needs one (it did not compile).
  static const std::set<std::string_view> binary = {
      "+", "-", "*",  "/",  "%",  "<",  ">",  "<=", ">=", "==", "!=", "&&", "||",  "^",
      "|", "&", "<<", ">>", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="};
  const auto op = [&](std::size_t k) { return toks_[k].kind == Tok::punct && binary.count(toks_[k].text); };
  // (s[i]) is s[i]; f(s[i]), f<2>(s[i]), (T)(s[i]) are not parentheses around an operand.
  while (p != npos && q < toks_.size() && is_punct(p, "(") && match(p) == q && prev(p) != npos && !is_ident(prev(p)) &&
         !is_punct(prev(p), ">") && !is_punct(prev(p), ")") && !is_punct(prev(p), "]")) {
    p = prev(p);
    q = next(q);
  }
  if (p == npos || q >= toks_.size()) return false;
  // Token k ends an operand, so a `+`, `-`, `*` or `&` after it is binary (`n * s[i]`, not `*s[i]`).
  const auto ends_operand = [&](std::size_t k) {
    if (k == npos) return false;
    // `(const float4*)&s[i]`: a cast's ')' ends no operand
    if (toks_[k].kind == Tok::number || toks_[k].kind == Tok::chr || is_punct(k, "]") ||
        (is_punct(k, ")") && !c_cast_close(k)))
      return true;
    static const std::set<std::string_view> keywords = {"return", "case", "sizeof", "throw", "co_return", "else"};
    return is_ident(k) && !keywords.count(toks_[k].text);
  };
  // Not where the element itself is needed: `&s[i] + 1`, `++s[i] + 1`, `s[i]++ * 2`, `x + s[i] = ...`.
  const bool element_before =
      is_punct(p, "++") || is_punct(p, "--") || ((is_punct(p, "&") || is_punct(p, "*")) && !ends_operand(prev(p)));
  // Nor where the chain goes on (`1.0f + p[t].inc()`: the method runs on the element).
  if (element_before || is_punct(q, "++") || is_punct(q, "--") || is_punct(q, "=") || is_punct(q, ".") ||
      is_punct(q, "->") || is_punct(q, "(") || is_punct(q, "["))
    return false;
  const auto assigns = [&](std::size_t k) {
    const std::string_view t = toks_[k].text;
    return t.size() >= 2 && t.back() == '=' && t != "<=" && t != ">=" && t != "==" && t != "!=";
  };
  if (op(q) && !assigns(q)) return true;  // the left operand (of a compound assignment, it is the element)
  return op(p) && (assigns(p) || ends_operand(prev(p)));  // the right operand
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
  // the list has one element type. p and q: the tokens around the item.
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
  const std::size_t paren = prev(open), after = next(match(open));
  if (paren == npos || !is_punct(paren, "(") || after >= toks_.size() || !is_punct(after, ")")) return false;
  const std::size_t callee = prev(paren);
  return callee != npos && is_ident(callee) && cuda_std(callee);
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
  // --expt-relaxed-constexpr (the course does not pass it); left as they are, so both builds fail alike.
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
  // auto NAME = [captures](params with auto) ...: called like a function template (`relu(s[i])`).
  for (std::size_t k = fn.body_open + 1; k < fn.body_close; ++k) {
    if (!is_ident(k, "auto") || !is_ident(next(k)) || !is_punct(next(next(k)), "=")) continue;
    const std::size_t open_capture = next(next(next(k)));
    if (!is_punct(open_capture, "[")) continue;
    const std::size_t open = next(match(open_capture));
    if (!is_punct(open, "(")) continue;
    const std::size_t close = match(open);
    bool generic = false;
    for (std::size_t t = next(open); t < close; t = next(t)) generic = generic || is_ident(t, "auto");
    if (generic) template_functions_[std::string(toks_[next(k)].text)] = parameter_kinds(open, close);
  }
}

bool Rewriter::returns_reference(std::size_t k) const {
  // The innermost function or lambda body around k: a '{' after `(...)` that is not if/for/while/switch/catch.
  int depth = 0;
  for (std::size_t b = prev(k); b != npos; b = prev(b)) {
    if (is_punct(b, "}")) ++depth;
    if (!is_punct(b, "{") || depth-- > 0) continue;
    depth = 0;
    std::size_t h = prev(b), arrow = npos;
    for (std::size_t t = h;
         t != npos && !is_punct(t, ")") && !is_punct(t, ";") && !is_punct(t, "{") && !is_punct(t, "}"); t = prev(t))
      if (is_punct(t, "->")) arrow = t;
    while (h != npos && !is_punct(h, ")") && !is_punct(h, "]") && (is_ident(h) || arrow != npos) && !is_punct(h, ";"))
      h = prev(h);
    if (is_punct(h, "]")) return false;  // `[&] { ... }`: a lambda without parameters, its return type deduced
    if (!is_punct(h, ")")) continue;     // a plain block, else, do, a struct, an initializer
    const std::size_t open = match_back(h);
    const std::size_t before = open == npos ? npos : prev(open);
    if (before == npos) return false;
    for (std::string_view w : {"if", "for", "while", "switch", "catch"})
      if (is_ident(before, w)) goto outward;
    if (arrow != npos) {  // a trailing return type
      for (std::size_t t = arrow; t < b; t = next(t))
        if (is_punct(t, "&") || is_punct(t, "&&") || is_ident(t, "decltype")) return true;
      return false;
    }
    if (is_punct(before, "]") || is_punct(before, ">")) return false;  // a lambda: its return type is deduced
    for (std::size_t t = prev(before); t != npos; t = prev(t)) {       // a function's return type
      if (is_punct(t, ";") || is_punct(t, "{") || is_punct(t, "}") || toks_[t].kind == Tok::preproc) break;
      if (is_punct(t, "&") || is_punct(t, "&&") || is_ident(t, "decltype")) return true;
    }
    return false;
  outward:;
  }
  return false;
}

bool Rewriter::reference_cast_operand(std::size_t first, std::size_t last) const {
  const std::size_t p = prev(first);
  if (p == npos) return false;
  // (T&)s[i], (const float4&)s[i]: a C-style cast to a reference
  if (is_punct(p, ")") && c_cast_close(p) && is_punct(prev(p), "&")) return true;
  // reinterpret_cast<float4&>(s[i]), static_cast<const float&>(s[i]), const_cast<float&>(s[i])
  if (!is_punct(p, "(") || match(p) != next(last)) return false;
  const std::size_t angle = prev(p);
  if (!is_punct(angle, ">") || !(is_punct(prev(angle), "&") || is_punct(prev(angle), "&&"))) return false;
  for (std::size_t t = prev(angle); t != npos; t = prev(t)) {
    if (is_punct(t, "<"))
      return is_ident(prev(t), "reinterpret_cast") || is_ident(prev(t), "static_cast") ||
             is_ident(prev(t), "const_cast");
    if (is_punct(t, ";") || is_punct(t, "(") || is_punct(t, ")") || is_punct(t, "{") || is_punct(t, "}")) break;
  }
  return false;
}

std::string Rewriter::proxy_wrapper(std::size_t first, std::size_t last) const {
  if (lvalue_operands_.count(first)) return "";  // an operand of either(...)
  // A reference cast binds the element itself (bounds-checked; what is done through it is not seen).
  if (reference_cast_operand(first, last)) return "::course_cpu::check::element_ref(";
  if (value_context(first, last)) return kValueWrap;
  // `return s[i];` from a lambda or an `auto` function returns a copy, as CUDA does: never the proxy (which would
  // read the element later); a function that returns a reference keeps it.
  if (is_ident(prev(first), "return") && is_punct(next(last), ";") && !returns_reference(first)) return kValueWrap;
  const std::optional<Param> kind = template_argument(first, last);
  if (!kind) return "";
  return *kind == Param::reference ? "::course_cpu::check::element_ref(" : kValueWrap;
}

void Rewriter::reference_params(Function& fn) {
  // Only where making the function an (abbreviated) template changes nothing else: one definition of the name and no
  // declaration without a body (a call would take the non-template), not virtual, every other use of the name a call
  // (no address taken), and parameters `[volatile] ARITHMETIC& name` (a non-const reference binds only that type).
  if (fn.kernel || fn.is_template) return;
  const std::size_t fname = prev(fn.params_open);
  if (!is_ident(fname)) return;
  // Nor where the parameter's type shows (sizeof, decltype), a copy of it may be made that the rewriter does not see
  // (`auto`, a lambda's capture), a reference to it is returned, or `auto` parameters are not allowed (a local class).
  for (std::size_t k = fn.body_open; k < fn.body_close; k = next(k)) {
    if (is_ident(k, "sizeof") || is_ident(k, "decltype") || is_ident(k, "auto")) return;
    if (is_punct(k, "[") && (!is_ident(prev(k)) || is_ident(prev(k), "return")) && !is_punct(prev(k), "]") &&
        !is_punct(prev(k), ")"))
      return;
  }
  for (std::size_t q = prev(fname);
       q != npos && !is_punct(q, ";") && !is_punct(q, "{") && !is_punct(q, "}") && toks_[q].kind != Tok::preproc;
       q = prev(q))
    if (is_punct(q, "&") || is_punct(q, "&&") || is_ident(q, "decltype")) return;
  for (std::size_t q = next(match(fn.params_open)); q < fn.body_open; q = next(q))
    if (is_punct(q, "&") || is_punct(q, "&&") || is_ident(q, "decltype")) return;  // a trailing return type
  for (const Function& other : functions_)
    if (&other != &fn && fname > other.body_open && fname < other.body_close) return;
  const std::string_view name = toks_[fname].text;
  if (declared_only_.count(std::string(name)) || definitions_[std::string(name)] != 1) return;
  for (std::size_t k = 0; k < toks_.size(); k = next(k))
    if (k != fname && is_ident(k, name) && !is_punct(next(k), "(")) return;
  for (std::size_t q = prev(fname); q != npos && !is_punct(q, ";") && !is_punct(q, "{") && !is_punct(q, "}");
       q = prev(q))
    if (toks_[q].kind == Tok::preproc)
      break;
    else if (is_ident(q, "virtual"))
      return;
  static const std::set<std::string_view> arithmetic = {
      "float",  "double", "int",     "unsigned", "signed",  "long",    "short",    "char",     "bool",
      "size_t", "int8_t", "int16_t", "int32_t",  "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t"};
  const std::size_t close = match(fn.params_open);
  std::size_t start = next(fn.params_open);
  for (std::size_t k = start; k <= close && k < toks_.size(); k = next(k)) {
    if (k != close && !is_punct(k, ",")) {
      if (is_open(k)) k = match(k);
      continue;
    }
    // One parameter, tokens [start, k): [volatile] TYPE... & NAME
    std::vector<std::size_t> t;
    for (std::size_t q = start; q < k; q = next(q)) t.push_back(q);
    start = next(k);
    if (t.size() < 3 || !is_punct(t[t.size() - 2], "&") || !is_ident(t.back())) continue;
    bool simple = true, any_type = false;
    for (std::size_t j = 0; j + 2 < t.size(); ++j) {
      const bool type = is_ident(t[j]) && arithmetic.count(toks_[t[j]].text);
      any_type = any_type || type;
      simple = simple && (type || is_ident(t[j], "volatile"));
    }
    if (!simple || !any_type) continue;
    const std::string spacing = is_blank(toks_[t[t.size() - 2] + 1]) ? "" : " ";
    edits_.push_back({t.front(), t[t.size() - 2] + 1, "auto&&" + spacing});
    fn.proxy_refs.insert(std::string(toks_[t.back()].text));
  }
}

void Rewriter::reference_declaration(std::size_t k, Function& fn, const std::set<std::string>& local) {
  // [const] TYPE & name = <proxy> ;   with TYPE made of names, ::, <...> and cv-qualifiers, after a ; { or }.
  const std::size_t name = next(k);
  if (!is_ident(name) || !is_punct(next(name), "=")) return;
  const std::size_t init = next(next(name));
  std::size_t last = npos;
  // `float& m = c ? s[i] : s[j];`: a conditional whose operands are both elements is an lvalue in CUDA.
  std::size_t question = npos, colon = npos;
  if (!proxy_at(init, fn, local, &last) || !is_punct(next(last), ";")) {
    if (!conditional_of_proxies(init, fn, local, &question, &colon, &last)) return;
  }
  std::size_t type = k;
  bool is_const = false;
  int angle = 0;
  for (std::size_t q = prev(k); q != npos; q = prev(q)) {
    if (is_punct(q, ";") || is_punct(q, "{") || is_punct(q, "}")) break;
    if (is_punct(q, ">")) {
      ++angle;
    } else if (is_punct(q, "<")) {
      --angle;
    } else if (!is_ident(q) && !is_punct(q, "::") &&
               !(angle > 0 && (is_punct(q, ",") || toks_[q].kind == Tok::number))) {
      return;  // not a declaration (`a & b = ...`, a cast, a pointer)
    }
    is_const = is_const || is_ident(q, "const");
    type = q;
  }
  if (type == k || angle != 0) return;
  if (question != npos) {
    if (is_const) return;  // a const reference may bind the value the operands are wrapped in
    either_edits(init, question, colon, last);
  }
  const std::string spacing = k + 1 < toks_.size() && is_blank(toks_[k + 1]) ? "" : " ";
  edits_.push_back({type, k + 1, (is_const ? "const auto&" : "auto&&") + spacing});
  fn.proxy_refs.insert(std::string(toks_[name].text));
}

void Rewriter::either_edits(std::size_t init, std::size_t question, std::size_t colon, std::size_t last) {
  // `either(c, s[i], s[j])`: the element proxy both operands make, or a reference to the chosen element.
  edits_.push_back({init, init, "::course_cpu::check::either("});
  edits_.push_back({question, question + 1, ","});
  edits_.push_back({colon, colon + 1, ","});
  edits_.push_back({last + 1, last + 1, ")"});
  lvalue_operands_.insert(next(question));
  lvalue_operands_.insert(next(colon));
}

bool Rewriter::assigned_conditional(std::size_t k, const Function& fn, const std::set<std::string>& local) {
  const std::size_t close = match(k);
  if (close == npos || close >= fn.body_close) return false;
  std::size_t after = next(close);
  const std::size_t before = prev(k);
  while (is_punct(after, ".") && is_ident(next(after))) after = next(next(after));  // (c ? s[i] : s[j]).x = v
  static const std::set<std::string_view> assign = {
      "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--"};
  const bool assigned = (after != npos && toks_[after].kind == Tok::punct && assign.count(toks_[after].text)) ||
                        (before != npos && (is_punct(before, "++") || is_punct(before, "--")));
  if (!assigned) return false;
  std::size_t question = npos, colon = npos, last = npos;
  if (!conditional_of_proxies(next(k), fn, local, &question, &colon, &last, close)) return false;
  either_edits(next(k), question, colon, last);
  return true;
}

bool Rewriter::conditional_of_proxies(std::size_t init, const Function& fn, const std::set<std::string>& local,
                                      std::size_t* question, std::size_t* colon, std::size_t* last,
                                      std::size_t close) const {
  // c ? X : Y ;  (or up to `close`) with one `?` at depth 0 and X, Y proxies
  std::size_t q = init;
  while (q < toks_.size() && q != close && !is_punct(q, "?")) {
    if (is_punct(q, ";") || is_punct(q, ",") || is_punct(q, ":") || is_punct(q, "=") || is_close(q)) return false;
    if (is_open(q)) q = match(q);
    q = next(q);
  }
  if (q >= toks_.size() || q == close || q == init) return false;
  // Each operand runs to the `:` or `;` at depth 0; at least one of them is a whole proxy (the other an lvalue of the
  // element's type, as CUDA requires).
  const auto operand = [&](std::size_t first, std::string_view end, std::size_t* op_last, bool* proxy) {
    std::size_t k = first, final_tok = npos;
    while (k < toks_.size() && !(end.empty() ? k == close : is_punct(k, end))) {
      if (is_punct(k, ";") || is_punct(k, "?") || is_punct(k, ":") || is_punct(k, ",") || is_close(k)) return false;
      if (is_open(k)) k = match(k);
      final_tok = k;
      k = next(k);
    }
    if (final_tok == npos || k >= toks_.size()) return false;
    std::size_t proxy_last = npos;
    *proxy = proxy_at(first, fn, local, &proxy_last) && proxy_last == final_tok;
    *op_last = final_tok;
    return true;
  };
  std::size_t x_last = npos, y_last = npos;
  bool x_proxy = false, y_proxy = false;
  if (!operand(next(q), ":", &x_last, &x_proxy)) return false;
  const std::size_t c = next(x_last);
  if (!operand(next(c), close == npos ? ";" : "", &y_last, &y_proxy) || !(x_proxy || y_proxy)) return false;
  *question = q;
  *colon = c;
  *last = y_last;
  return true;
}

}  // namespace course_rewrite
