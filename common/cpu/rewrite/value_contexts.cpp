// course-rewrite, pass 4 (check mode): element proxies where C++ needs the element itself.
//
// A checked subscript is an element proxy (course_cpu/check_element.h). C++ reads a proxy as its element's value
// wherever a value of the element's type is expected, but not in these places, which get help here:
//   `c ? s[i] : 0`      the conditional's type would be int (the proxy converts to int, 0 not to the proxy): the
//                       operand becomes ::course_cpu::check::value(s[i]), a float, as on the GPU;
//   printf("%f", s[i])  a class object cannot pass through `...`: the argument becomes its value;
//   float& r = s[i];    a reference cannot bind to a proxy: the declaration becomes `auto&& r = s[i];`, so r is the
//                       proxy and every use of r reads or writes s[i] (checked), like a reference on the GPU;
//   x + s[i]            an operand of a binary operator: the value, so that it converts as the element would;
//   f(s[i])             an argument: calls.cpp.
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
    const std::vector<std::size_t> arrays = element_member_arrays(k, local);
    *last = chain_end(arrays.empty() ? k : arrays.back());
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
  if (std::size_t root_end = npos; object_chain(k, fn, &root_end, last)) return true;  // st.x, st.bins[i]
  if (arrow_at(k, fn, local)) {  // p->x.y: a member access like p[0].x.y
    const std::size_t member = member_path_end(k, "->");
    if (member == npos) return false;
    *last = member;
    return true;
  }
  if (!is_ident(k)) return false;
  const std::string name(toks_[k].text);
  if (!fn.proxy_refs.count(name) && !fn.shared_scalars.count(name)) return false;
  if (lambda_params_.count(k)) return false;  // its declaration
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

bool Rewriter::pointer_cast_operand(std::size_t first, std::size_t last) const {
  std::size_t p = prev(first), q = next(last);
  while (p != npos && is_punct(p, "(") && match(p) == q && is_punct(prev(p), ")") && c_cast_close(prev(p))) {
    p = prev(p);  // (float2*)(As[r])
    q = next(q);
  }
  if (p == npos) return false;
  // (float2*)As[r], (F4P)As[r], (uintptr_t)As[r]: a C-style cast (not `if (c) As[r] = ...`, a call's parentheses)
  if (is_punct(p, ")") && (c_cast_close(p) || array_pointer_cast_close(p))) {
    const std::size_t open = match_back(p), before = open == npos ? npos : prev(open);
    if (is_punct(prev(p), "&") || is_punct(prev(p), "&&")) return false;  // a reference cast (reference_cast_operand)
    return before == npos || is_ident(before, "return") ||
           !(is_ident(before) || is_punct(before, ")") || is_punct(before, "]") || is_punct(before, ">"));
  }
  // reinterpret_cast<float4*>(As[r]), static_cast<CF4P>(rows[i]), reinterpret_cast<float (*)[4]>(S[1])
  if (!is_punct(p, "(") || match(p) != q) return false;
  const std::size_t angle = prev(p);
  if (!is_punct(angle, ">") || is_punct(prev(angle), "&") || is_punct(prev(angle), "&&")) return false;
  int depth = 0;
  for (std::size_t t = angle; t != npos; t = prev(t)) {
    if (is_close(t) && !is_punct(t, ">")) {
      t = match_back(t);
      if (t == npos) return false;
      continue;
    }
    if (is_punct(t, ">")) ++depth;
    if (is_punct(t, ">>")) depth += 2;
    if (is_punct(t, "<") && --depth == 0)
      return is_ident(prev(t), "reinterpret_cast") || is_ident(prev(t), "static_cast") ||
             is_ident(prev(t), "const_cast");
    if (is_punct(t, ";") || is_punct(t, "{") || is_punct(t, "}")) break;
  }
  return false;
}

bool Rewriter::array_pointer_cast_close(std::size_t close) const {
  const std::size_t open = match_back(close);
  if (open == npos) return false;
  std::size_t t = next(open);
  bool named = false;
  for (; t < close && (is_ident(t) || is_punct(t, "::")); t = next(t)) named = true;
  // ( * ) then one or more [N]
  if (!named || !is_punct(t, "(") || !is_punct(next(t), "*") || !is_punct(next(next(t)), ")")) return false;
  t = next(next(next(t)));
  if (!is_punct(t, "[")) return false;
  while (t < close && is_punct(t, "[")) t = next(match(t));
  return t == close;
}

std::string Rewriter::proxy_wrapper(std::size_t first, std::size_t last) const {
  if (lvalue_operands_.count(first)) return "";  // an operand of either(...)
  // A reference cast binds the element itself (bounds-checked; what is done through it is not seen).
  if (reference_cast_operand(first, last)) return "::course_cpu::check::element_ref(";
  // A cast (not to a reference) takes the operand's value: a row decays (`reinterpret_cast<float4*>(As[r])`, which a
  // C++ cast cannot reach through the row's conversion), an element is read.
  if (value_context(first, last) || pointer_cast_operand(first, last)) return kValueWrap;
  // `return s[i];` from a lambda or an `auto` function returns a copy, as CUDA does: never the proxy (which would
  // read the element later); a function that returns a reference keeps it.
  if (is_ident(prev(first), "return") && is_punct(next(last), ";") && !returns_reference(first)) return kValueWrap;
  const std::optional<Param> kind = template_argument(first, last);
  if (!kind) return "";
  if (*kind == Param::proxy) return "::course_cpu::check::proxy_ref(";
  return *kind == Param::reference ? "::course_cpu::check::element_ref(" : kValueWrap;
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
