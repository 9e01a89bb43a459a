// course-rewrite, pass 4 (check mode): dereferences and C-style casts subscripted in place, checked like subscripts.
//
//   *p                                   ::course_cpu::check::root(p, SITE)[0]            p a checked name
//   *(p + i * n - 1)                     ::course_cpu::check::root(p, SITE)[0 + (ll)(i * n) - (ll)(1)]
//   *(i * n + p - 1)                     ::course_cpu::check::root(p, SITE)[0 + (ll)(i * n) - (ll)(1)]
//   *p++, *p--                           ::course_cpu::check::root(p++, SITE)[0]          (the old p)
//   *++p, *--p                           ::course_cpu::check::root(++p, SITE)[0]          (the new p)
//   p->x                                 ::course_cpu::check::root(p, SITE)[0].x
//   *reinterpret_cast<const float4*>(x)  ::course_cpu::check::root(reinterpret_cast<const float4*>(x), SITE)[0]
//   *(float4*)&s[4 * i]                  ::course_cpu::check::root((float4*)&s[4 * i], SITE)[0]
//   ((float4*)(s + 4 * i))[j]            ::course_cpu::check::root(((float4*)(s + 4 * i)), SITE)[j]
//
// A checked name is what a subscript is checked for: a shared array, a pointer parameter, a local pointer or an
// `auto` local (instrument.cpp). `*(p + i)` is `p[i]`, so its messages name p and the index, and its bounds are p's.
// Every edit replaces or follows a single token, so no edit starts inside another's range.
#include "passes.h"

namespace course_rewrite {

std::string Rewriter::site_lambda(const std::string& name, bool local_pointer, bool device_param) const {
  return std::string("[] { static constinit ::course_cpu::check::Site site{\"") + escape(name) +
         "\", __FILE__, __LINE__, 0" +
         (local_pointer  ? ", true"
          : device_param ? ", false, false, true"
                         : "") +
         "}; return &site; }()";
}

bool Rewriter::unary_star(std::size_t k, const Function& fn) const {
  static const std::set<std::string_view> before_operand = {"return", "case", "throw", "else", "do", "co_return"};
  const std::size_t p = prev(k);
  if (p == npos || p <= fn.body_open) return true;
  if (is_ident(p)) return before_operand.count(toks_[p].text) > 0;
  if (toks_[p].kind != Tok::punct) return false;  // a number or a literal: a multiplication
  const std::string_view t = toks_[p].text;
  if (t == "*") {  // `x[i] * *p`, `f(x) * *p`, `2 * *p`, `n * *p` (a multiplication); not `float **pp`, `T * *pp`
    const std::size_t pp = prev(p);
    if (pp == npos) return false;
    if (is_punct(pp, ")") || is_punct(pp, "]") || toks_[pp].kind == Tok::number) return true;
    return is_ident(pp) && operand_position(pp, fn);
  }
  if (t == "]" || t == "++" || t == "--" || t == ">" || t == ">>" || t == "." || t == "->" || t == "::")
    return false;  // a multiplication, a declarator, template arguments, or a form left alone
  if (t == ")") {  // `if (c) *p = v;` but not `f(x) * y` or a C-style cast `(float)*p`
    const std::size_t open = match_back(p);
    return open != npos && (is_ident(prev(open), "if") || is_ident(prev(open), "while") ||
                            is_ident(prev(open), "for") || is_ident(prev(open), "switch"));
  }
  if (t == "," && continues_declaration(p, fn)) return false;  // `float *a = x, *b = y;`
  return true;
}

bool Rewriter::operand_position(std::size_t k, const Function& fn) const {
  static const std::set<std::string_view> before_operand = {
      "=", "+=", "-=", "*=", "/=", "%=", "+",  "-",  "*",  "/",  "%", "?", ":",
      "[", "==", "!=", "<=", ">=", "&&", "||", "&=", "|=", "^=", "^", "|", "return"};
  const std::size_t p = prev(k);
  if (p == npos || p <= fn.body_open) return false;
  if (before_operand.count(toks_[p].text)) return toks_[p].kind == Tok::punct || is_ident(p, "return");
  if (is_punct(p, "(")) {  // a call's argument or a parenthesized operand, not a for's or an if's declaration
    const std::size_t q = prev(p);
    return !(is_ident(q, "for") || is_ident(q, "if") || is_ident(q, "while") || is_ident(q, "switch"));
  }
  return is_punct(p, ",") && !continues_declaration(p, fn);
}

bool Rewriter::checked_name(std::size_t k, const Function& fn, const std::set<std::string>& local) const {
  if (!is_ident(k)) return false;
  const std::size_t p = prev(k);
  if (p != npos && (is_punct(p, ".") || is_punct(p, "->") || is_punct(p, "::"))) return false;
  const std::string name(toks_[k].text);
  return local.count(name) || global_shared_.count(name) || fn.pointer_params.count(name) ||
         fn.local_pointers.count(name) || fn.auto_locals.count(name);
}

// The text that starts a checked chain for the checked name at token k.
std::string Rewriter::checked_root(std::size_t k, const Function& fn) const {
  const std::string name(toks_[k].text);
  const bool local = fn.local_pointers.count(name) || fn.auto_locals.count(name);
  const char* root = fn.auto_locals.count(name) ? "::course_cpu::check::root_or_self(" : "::course_cpu::check::root(";
  return root + name + ", " + site_lambda(name, local, fn.device_param(name)) + ")";
}

bool Rewriter::comparison_star(std::size_t k, const Function& fn, const std::set<std::string>& local) const {
  const std::size_t p = prev(k), q = next(k), after = next(q);
  if (!is_punct(p, ">") || !checked_name(q, fn, local)) return false;
  const std::size_t before = prev(p);  // `x > *p`, `f(x) > *p`, `a[i] > *p`, `2 > *p`; `Foo<Bar> *p` declares
  if (before == npos ||
      !(is_ident(before) || is_punct(before, ")") || is_punct(before, "]") || toks_[before].kind == Tok::number))
    return false;
  for (std::string_view op : {"&&", "||", "?", ":", "]"})
    if (is_punct(after, op)) return true;
  if (is_punct(after, ")")) {  // `if (x > *p)`, `f(x > *p)`; not a lambda's parameter `[](Foo<T> *p)`
    const std::size_t open = match_back(after);
    return open != npos && open > fn.body_open && !is_punct(prev(open), "]");
  }
  if (!is_punct(after, ";")) return false;
  // `bool b = x > *p;`, `return x > *p;`, not the declaration `Foo<Bar> *p;`: an `=` or `return` before the `>`.
  for (std::size_t t = prev(p); t != npos && t > fn.body_open; t = prev(t)) {
    if (is_punct(t, ";") || is_punct(t, "{") || is_punct(t, "}")) return false;
    if (is_punct(t, "=") || is_ident(t, "return")) return true;
  }
  return false;
}

bool Rewriter::deref_at(std::size_t k, const Function& fn, const std::set<std::string>& local, Deref* d) const {
  if (!is_punct(k, "*") || !(unary_star(k, fn) || comparison_star(k, fn, local))) return false;
  const std::size_t q = next(k);
  // A postfix operator after the operand binds first: `*(p + 1)[2]` is `*((p + 1)[2])`, left alone.
  const auto postfix = [&](std::size_t t) {
    for (std::string_view op : {"[", "(", ".", "->", "++", "--"})
      if (is_punct(t, op)) return true;
    return false;
  };
  // A pointer that ++ or -- may step: not an array, not an `auto` local (it may be an iterator).
  const auto steppable = [&](std::size_t t) {
    const std::string name(toks_[t].text);
    return checked_name(t, fn, local) && !local.count(name) && !global_shared_.count(name) &&
           !fn.auto_locals.count(name);
  };
  if (is_punct(q, "++") || is_punct(q, "--")) {  // *++p
    const std::size_t name = next(q);
    if (!steppable(name) || postfix(next(name)) || is_punct(next(name), "::")) return false;
    *d = Deref{Deref::step, name, q, name};
    return true;
  }
  if (checked_name(q, fn, local)) {  // *p
    const std::size_t after = next(q);
    if ((is_punct(after, "++") || is_punct(after, "--")) && steppable(q) && !postfix(next(after))) {  // *p++
      *d = Deref{Deref::step, q, after, after};
      return true;
    }
    // (A checked name is a variable: a `<` after it compares, `*p < x`; it opens no template arguments.)
    if (postfix(after) || is_punct(after, "::")) return false;
    // `T (*name)[N] = ...;` declares a pointer to rows: not a dereference.
    if (is_punct(prev(k), "(") && is_ident(prev(prev(k))) && is_punct(after, ")") && is_punct(next(after), "["))
      return false;
    *d = Deref{Deref::plain, q, q, q};
    return true;
  }
  std::size_t last = npos;
  if (c_cast_operand(q, &last)) {  // *(float4*)&s[4 * i], *(const int*)(p + 1)
    *d = Deref{Deref::cast, q, q, last};
    return true;
  }
  if (is_punct(q, "(")) return deref_terms(k, fn, local, d);  // *(p + i - j), *(i + p)
  std::size_t close = npos;
  if (pointer_cast(q, &close) && !postfix(next(close))) {
    *d = Deref{Deref::cast, q, q, close};
    return true;
  }
  return false;
}

bool Rewriter::deref_terms(std::size_t k, const Function& fn, const std::set<std::string>& local, Deref* d) const {
  const std::size_t open = next(k), close = match(open);
  if (close >= toks_.size()) return false;
  for (std::string_view op : {"[", "(", ".", "->", "++", "--"})  // `*(p + 1)[2]` is `*((p + 1)[2])`: left alone
    if (is_punct(next(close), op)) return false;
  // The top-level terms: only binary + and - between terms that bind tighter (no unary + or - inside a term).
  std::vector<std::size_t> signs{npos}, firsts{next(open)};
  std::size_t before = open;
  for (std::size_t t = next(open); t < close; before = t, t = next(t)) {
    if (is_open(t)) {
      t = match(t);
      continue;
    }
    if (toks_[t].kind != Tok::punct) continue;
    const std::string_view s = toks_[t].text;
    if (s == "+" || s == "-") {
      // A + or - first, after an operator, or after a C-style cast `(int)-x`, is unary.
      if (toks_[before].kind == Tok::punct && (!is_close(before) || c_cast_close(before))) return false;
      signs.push_back(t);
      firsts.push_back(next(t));
      continue;
    }
    if (!(s == "*" || s == "/" || s == "%" || s == "." || s == "->" || s == "::" || s == "!" || s == "~"))
      return false;  // a comparison, a shift, ?:, an assignment, a cast's <...>: left alone
  }
  // The term that is only a checked name: first, or after a + (never `i - p`); an `auto` local only first.
  for (std::size_t j = 0; j < firsts.size(); ++j) {
    const std::size_t name = firsts[j];
    const std::size_t end = j + 1 < signs.size() ? signs[j + 1] : close;
    if (next(name) != end || !checked_name(name, fn, local)) continue;
    if (j == 0) {
      *d = Deref{Deref::offset, name, signs.size() > 1 ? signs[1] : close, close};
      return true;
    }
    if (!is_punct(signs[j], "+") || fn.auto_locals.count(std::string(toks_[name].text))) return false;
    *d = Deref{Deref::offset, name, signs[1], close, signs[j]};
    return true;
  }
  return false;
}

bool Rewriter::arrow_at(std::size_t k, const Function& fn, const std::set<std::string>& local) const {
  return is_punct(next(k), "->") && checked_name(k, fn, local) && !fn.auto_locals.count(std::string(toks_[k].text));
}

std::vector<std::size_t> Rewriter::element_member_arrays(std::size_t k, const std::set<std::string>& local) const {
  std::vector<std::size_t> arrays;
  if (!local.count(std::string(toks_[k].text))) return arrays;  // not through pointers: their memory may be global
  for (std::size_t last = subscripts_end(k); member_path_end(last) == npos;) {
    std::size_t q = last;
    while (is_punct(next(q), ".") && is_ident(next(next(q)))) {
      const std::string_view name = toks_[next(next(q))].text;
      if (name == "template" || name == "operator") return arrays;
      q = next(next(q));
    }
    if (q == last || !is_punct(next(q), "[")) break;
    arrays.push_back(q);
    last = subscripts_end(q);
  }
  return arrays;
}

bool Rewriter::object_chain(std::size_t k, const Function& fn, std::size_t* root_end, std::size_t* last) const {
  if (!is_ident(k) || !(is_punct(next(k), ".") || is_punct(next(k), "["))) return false;
  const std::string name(toks_[k].text);
  const bool reference = fn.reference_objects.count(name) > 0;
  if (!reference && !fn.shared_objects.count(name)) return false;
  const std::size_t p = prev(k);
  if ((p != npos && (is_punct(p, ".") || is_punct(p, "->") || is_punct(p, "::"))) || lambda_params_.count(k) ||
      (reference && captured_name(k)))
    return false;
  if (const std::size_t end = member_path_end(k, "."); end != npos) {
    *root_end = k;
    *last = end;
    return true;
  }
  // A reference parameter's member arrays are left as written: the object may be the thread's own, where
  // COURSE_CHECKED_MEMBER (made for __shared__ objects) would give it a shadow.
  if (reference) return false;
  std::size_t q = k;  // `st.a.b[`: a member array
  while (is_punct(next(q), ".") && is_ident(next(next(q)))) {
    const std::string_view name = toks_[next(next(q))].text;
    if (name == "template" || name == "operator") return false;
    q = next(next(q));
  }
  if (!is_punct(next(q), "[")) return false;  // st.f(), st.p->x: as written (`stage[i]`: an array-like object)
  *root_end = q;
  *last = chain_end(q);
  return true;
}

void Rewriter::instrument_deref(std::size_t k, const Deref& d, const Function& fn, bool store) {
  // The target of `=`: the root wrapped in for_store(), so that a struct or vector element is checked as a write.
  const std::string root =
      store ? "::course_cpu::check::for_store(::course_cpu::check::root(" : "::course_cpu::check::root(";
  const std::string root_end = store ? "))" : ")";
  const auto rooted = [&](const std::string& r) { return store ? "::course_cpu::check::for_store(" + r + ")" : r; };
  if (d.form != Deref::cast && fn.auto_locals.count(std::string(toks_[d.name].text))) {
    // An `auto` local may be an object with its own operator*: ::course_cpu::check::deref_auto(row, SITE, 0 + ...).
    const std::string name(toks_[d.name].text);
    edits_.push_back({k, k + 1, ""});
    std::string head = "::course_cpu::check::deref_auto(" + name + ", " + site_lambda(name, true) + ", 0";
    if (d.form == Deref::plain) {
      edits_.push_back({d.name, d.name + 1, head + ")"});
      return;
    }
    const std::size_t open = next(k);
    edits_.push_back({open, open + 1, ""});
    edits_.push_back({d.name, d.name + 1, head});
    signed_terms(d);
    edits_.push_back({d.last, d.last + 1, ")"});
    return;
  }
  switch (d.form) {
    case Deref::plain:
      edits_.push_back({k, k + 1, ""});
      edits_.push_back({d.name, d.name + 1, rooted(checked_root(d.name, fn)) + "[0]"});
      break;
    case Deref::offset: {
      const std::size_t open = next(k);
      edits_.push_back({k, k + 1, ""});
      if (d.name_op == npos) {  // *(p + ...)
        edits_.push_back({open, open + 1, ""});
        edits_.push_back({d.name, d.name + 1, rooted(checked_root(d.name, fn)) + "[0"});
      } else {  // *(i + p ...): the first term becomes the first offset, `+ p` goes
        edits_.push_back({open, open + 1, rooted(checked_root(d.name, fn)) + "[0 + static_cast<long long>("});
        edits_.push_back({prev(d.first_op) + 1, prev(d.first_op) + 1, ")"});
        edits_.push_back({d.name_op, d.name_op + 1, ""});
        edits_.push_back({d.name, d.name + 1, ""});
      }
      signed_terms(d);
      edits_.push_back({d.last, d.last + 1, "]"});
      break;
    }
    case Deref::step: {
      const std::string name(toks_[d.name].text);
      const std::string site =
          ", " + site_lambda(name, fn.local_pointers.count(name) > 0, fn.device_param(name)) + root_end + "[0]";
      if (d.first_op > d.name) {  // *p++: the old p
        edits_.push_back({k, k + 1, ""});
        edits_.push_back({d.name, d.name, root});
        edits_.push_back({d.first_op + 1, d.first_op + 1, site});
      } else {  // *++p: the new p
        edits_.push_back({k, k + 1, root});
        edits_.push_back({d.name + 1, d.name + 1, site});
      }
      break;
    }
    case Deref::cast:
      edits_.push_back({k, k + 1, root});
      edits_.push_back(
          {d.last + 1, d.last + 1, ", " + site_lambda(text(d.name, d.last + 1, false), true) + root_end + "[0]"});
      break;
  }
}

// The ')' at `close` ends a C-style cast, `(int)` or `(const float*)`: only names, `::`, `*` and `&` inside.
bool Rewriter::c_cast_close(std::size_t close) const {
  if (!is_punct(close, ")")) return false;
  const std::size_t open = match_back(close);
  if (open == npos || next(open) == close) return false;
  for (std::size_t t = next(open); t < close; t = next(t))
    if (!is_ident(t) && !is_punct(t, "::") && !is_punct(t, "*") && !is_punct(t, "&")) return false;
  return true;
}

// Each term after p in `*(p + a * n - b)` as a signed offset, `static_cast<long long>(a * n)`: an `unsigned` term does
// not wrap below 0 as it would in `0 + a - b`.
void Rewriter::signed_terms(const Deref& d) {
  for (std::size_t t = d.first_op; t < d.last;) {
    std::size_t end = next(t);  // the term after the + or - at t (deref_at saw no unary + or - in it)
    for (; end < d.last && !is_punct(end, "+") && !is_punct(end, "-"); end = next(end))
      if (is_open(end)) end = match(end);
    if (t == d.name_op) {  // `+ p`, removed
      t = end;
      continue;
    }
    edits_.push_back({next(t), next(t), "static_cast<long long>("});
    edits_.push_back({prev(end) + 1, prev(end) + 1, ")"});  // right after the term, before any blank
    t = end;
  }
}

bool Rewriter::c_cast_operand(std::size_t k, std::size_t* last) const {
  if (!is_punct(k, "(")) return false;
  const std::size_t type_close = match(k);
  if (type_close >= toks_.size() || !pointer_type(k, type_close)) return false;
  // The operand: [&] NAME[::NAME] or ( ... ), then subscripts, calls and members (which bind before the cast).
  std::size_t t = next(type_close);
  if (is_punct(t, "&")) t = next(t);
  std::size_t end = npos;
  if (is_punct(t, "(")) {
    end = match(t);
    if (end >= toks_.size()) return false;
  } else if (is_ident(t)) {
    end = t;
    while (is_punct(next(end), "::") && is_ident(next(next(end)))) end = next(next(end));
  } else {
    return false;
  }
  for (;;) {
    const std::size_t q = next(end);
    if (is_punct(q, "[") || is_punct(q, "(")) {
      end = match(q);
      if (end >= toks_.size()) return false;
    } else if ((is_punct(q, ".") || is_punct(q, "->")) && is_ident(next(q))) {
      end = next(q);
    } else {
      break;
    }
  }
  // `*(float4*)p++`: the cast of p++ (postfix binds first), so the operand takes the step; nothing may follow it.
  if (is_punct(next(end), "++") || is_punct(next(end), "--")) {
    end = next(end);
    const std::size_t q = next(end);
    if (is_punct(q, "[") || is_punct(q, "(") || is_punct(q, ".") || is_punct(q, "->") || is_punct(q, "++") ||
        is_punct(q, "--"))
      return false;
  }
  *last = end;
  return true;
}

bool Rewriter::c_cast_subscript(std::size_t k, std::size_t* close) const {
  // ( (TYPE*) operand )[ : a C-style cast to a pointer, subscripted in place.
  if (!is_punct(k, "(")) return false;
  const std::size_t end = match(k);
  if (end >= toks_.size() || !is_punct(next(end), "[")) return false;
  const std::size_t type_open = next(k);
  if (!is_punct(type_open, "(")) return false;
  const std::size_t type_close = match(type_open);
  if (type_close >= end || next(type_close) == end || !pointer_type(type_open, type_close)) return false;
  *close = end;
  return true;
}

bool Rewriter::pointer_type(std::size_t open, std::size_t close) const {
  if (next(open) == close || !is_punct(prev(close), "*")) return false;
  bool named = false;
  for (std::size_t t = next(open); t < close; t = next(t)) {
    if (is_ident(t)) {
      named = true;
    } else if (!is_punct(t, "*") && !is_punct(t, "::")) {
      return false;  // only [const] NAME[::NAME] * [const] *: no call, no arithmetic
    }
  }
  return named;
}

}  // namespace course_rewrite
