// course-rewrite, pass 0 (check mode): accesses written where the checks cannot see them, written out first.
//
//   FETCH_FLOAT4(Bs[t][0])   with  #define FETCH_FLOAT4(p) (reinterpret_cast<float4*>(&(p))[0])
//                            ->    (reinterpret_cast<float4*>(&(Bs[t][0]))[0])
//   __ldg(&in[i])            ->    ::course_cpu::check::loaded(in[i])       (a prvalue, as the intrinsic's)
//   __ldg(in + i)            ->    ::course_cpu::check::loaded(*(in + i))
//   __ldg(cast<...>(p) + t)  ->    ::course_cpu::check::loaded(cast<...>(p)[t])
//   __stcs(&out[i], v)       ->    static_cast<void>(out[i] = (v))
//
// A function-like macro of the file whose body subscripts or casts (public SGEMM code's FETCH_FLOAT4, `#define
// sa(i, j) As[(i) * BM + (j)]`, `#define AS_F2(p) ((float2*)(p))`) is expanded in device function bodies as the
// preprocessor expands it, at the uses after its #define, its arguments kept apart from the body's tokens: the later
// passes then check the accesses it makes, which they never see in a macro's body. Only a macro defined once, outside
// any #if, without # or ## or variable arguments, and not naming itself; nested uses expand in later rounds. The cache
// load and store intrinsics (`__ldg`, `__ldcg`, `__stcs`, ...) become the plain load or store they perform, checked
// like any other (the hints change nothing on the CPU). The result keeps every line where it was.
#include "passes.h"

#include <cctype>

namespace course_rewrite {

namespace {

bool load_intrinsic(std::string_view name) {
  return name == "__ldg" || name == "__ldcg" || name == "__ldca" || name == "__ldcs" || name == "__ldlu" ||
         name == "__ldcv";
}
// Appends a piece of an expansion, with a blank where the two sides would otherwise make one token (`/` then `*pd`,
// `-` then `-j`, a name then a name), as the preprocessor keeps them apart.
void append(std::string& text, std::string_view piece) {
  if (piece.empty()) return;
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  static const std::string_view glued[] = {
      "++", "--", "->", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "==", "!=", "<=", ">=",
      "<<", ">>", "&&", "||", "::", "//", "/*", "..", ".*", "##", "<:", "<%", "%:", ":>", "%>"};
  bool glue = !text.empty() && word(text.back()) && word(piece.front());
  for (const std::string_view pair : glued)
    glue = glue || (!text.empty() && text.back() == pair[0] && piece.front() == pair[1]);
  if (glue) text += ' ';
  text += piece;
}

bool store_intrinsic(std::string_view name) {
  return name == "__stwb" || name == "__stcg" || name == "__stcs" || name == "__stwt";
}

}  // namespace

std::map<std::string, Rewriter::Expansion> Rewriter::expandable_macros() const {
  std::map<std::string, Expansion> found;
  std::map<std::string, int> defined;
  int depth = 0;
  for (std::size_t i = 0; i < toks_.size(); ++i) {
    const Token& t = toks_[i];
    if (t.kind != Tok::preproc) continue;
    std::size_t at = t.text.find_first_not_of(" \t", 1);
    const std::string_view rest = at == std::string_view::npos ? std::string_view() : t.text.substr(at);
    if (rest.rfind("if", 0) == 0) ++depth;  // #if, #ifdef, #ifndef
    if (rest.rfind("endif", 0) == 0) --depth;
    if (rest.rfind("undef", 0) == 0) {
      for (const Token& w : tokenize(rest.substr(5)))
        if (w.kind == Tok::identifier) defined[std::string(w.text)] += 2;  // never expanded
      continue;
    }
    std::size_t body = 0, params = 0;
    if (!define_body(t.text, &body, &params)) continue;
    const std::size_t name = t.text.find_first_not_of(" \t", t.text.find("define") + 6);
    const std::string macro(t.text.substr(name, (params == std::string_view::npos ? body : params) - name));
    if (++defined[macro] != 1 || params == std::string_view::npos || depth != 0) continue;
    Expansion e;
    e.defined_at = i;
    bool ok = true;
    for (const Token& p : tokenize(t.text.substr(params + 1, body - params - 2))) {
      if (p.kind == Tok::identifier) e.params.emplace_back(p.text);
      ok = ok && (is_blank(p) || p.kind == Tok::identifier || (p.kind == Tok::punct && p.text == ","));
    }
    bool accesses = false;
    const Token* last = nullptr;  // the previous token that is not blank
    for (const Token& b : tokenize(t.text.substr(body))) {
      // `(float2*)(p)`: a C-style cast to a pointer (a row given to it must decay: pointer_cast_operand())
      accesses = accesses || (last != nullptr && last->kind == Tok::punct && last->text == "*" &&
                              b.kind == Tok::punct && b.text == ")");
      if (!is_blank(b)) last = &b;
      // (a body that starts with `#x` tokenizes as a directive)
      ok = ok && b.kind != Tok::preproc && !(b.kind == Tok::punct && (b.text == "#" || b.text == "##")) &&
           !(b.kind == Tok::identifier && (b.text == macro || b.text == "__VA_ARGS__"));
      accesses = accesses || (b.kind == Tok::punct && b.text == "[") ||
                 (b.kind == Tok::identifier && (b.text == "reinterpret_cast" || load_intrinsic(b.text)));
      e.body.push_back(b);
    }
    if (ok && accesses) found[macro] = std::move(e);
  }
  for (const auto& [name, count] : defined)
    if (count != 1) found.erase(name);
  return found;
}

std::vector<std::string> Rewriter::call_arguments(std::size_t open) const {
  std::vector<std::string> args;
  const std::size_t close = match(open);
  if (close == npos) return args;
  std::string arg;
  for (std::size_t k = next(open); k <= close; ++k) {
    if (k == close || is_punct(k, ",")) {
      while (!arg.empty() && arg.back() == ' ') arg.pop_back();
      args.push_back(arg.substr(arg.find_first_not_of(' ') == std::string::npos ? 0 : arg.find_first_not_of(' ')));
      arg.clear();
      continue;
    }
    if (is_open(k)) {  // a bracketed group whole: its commas are not the call's
      const std::size_t end = match(k);
      if (end == npos || end > close) return {};
      for (std::size_t q = k; q <= end; ++q) arg += is_blank(toks_[q]) ? std::string(" ") : std::string(toks_[q].text);
      k = end;
      continue;
    }
    if (toks_[k].kind == Tok::preproc) return {};
    arg += is_blank(toks_[k]) ? std::string(" ") : std::string(toks_[k].text);
  }
  if (args.size() == 1 && args[0].empty()) args.clear();  // f()
  return args;
}

std::string Rewriter::dereferenced(const std::string& pointer) const {
  // `&X` where X is a name with subscripts and members: X itself.
  const std::vector<Token> t = tokenize(pointer);
  std::vector<const Token*> s;
  for (const Token& x : t)
    if (!is_blank(x)) s.push_back(&x);
  const auto punct = [&](std::size_t i, std::string_view p) {
    return i < s.size() && s[i]->kind == Tok::punct && s[i]->text == p;
  };
  if (s.size() >= 2 && punct(0, "&") && s[1]->kind == Tok::identifier) {
    bool postfix = true;
    int depth = 0;
    for (std::size_t i = 2; i < s.size() && postfix; ++i) {
      if (punct(i, "[")) ++depth;
      if (punct(i, "]")) --depth;
      postfix = depth > 0 || punct(i, "]") || punct(i, "[") || punct(i, ".") || punct(i, "->") ||
                (s[i]->kind == Tok::identifier && (punct(i - 1, ".") || punct(i - 1, "->")));
    }
    if (postfix && depth == 0) return pointer.substr(pointer.find('&') + 1);
  }
  // A name, or a cast written whole (`reinterpret_cast<const float4*>(p + 4 * i)`): `*` binds to it as it is.
  if (s.size() == 1 && s[0]->kind == Tok::identifier) return "*" + pointer;
  if (!s.empty() && s[0]->kind == Tok::identifier &&
      (s[0]->text == "reinterpret_cast" || s[0]->text == "static_cast" || s[0]->text == "const_cast")) {
    int depth = 0;
    std::size_t i = 1;
    for (; i < s.size(); ++i) {
      if (punct(i, "(")) ++depth;
      if (punct(i, ")") && --depth == 0) break;
    }
    if (i + 1 == s.size()) return "*" + pointer;
    // `reinterpret_cast<const float4*>(in + 1) + t`: the cast subscripted, `reinterpret_cast<...>(in + 1)[t]`, which
    // the later passes check (a dereference of a cast plus an offset they do not)
    if (i + 2 < s.size() && punct(i + 1, "+")) {
      const auto plus = static_cast<std::size_t>(s[i + 1]->text.data() - pointer.data());
      return pointer.substr(0, plus) + "[" + pointer.substr(plus + 1) + "]";
    }
  }
  return "*(" + pointer + ")";
}

std::string Rewriter::expand_for_check() {
  find_functions();
  const std::map<std::string, Expansion> macros = expandable_macros();
  for (const Function& fn : functions_) {
    for (std::size_t k = fn.body_open + 1; k < fn.body_close; ++k) {
      if (!is_ident(k) || !is_punct(next(k), "(") || is_punct(prev(k), ".") || is_punct(prev(k), "->") ||
          is_punct(prev(k), "::"))
        continue;
      const std::size_t open = next(k), close = match(open);
      if (close == npos || close >= fn.body_close) continue;
      const std::string_view name = toks_[k].text;
      const std::vector<std::string> args = call_arguments(open);
      std::string text;
      if (load_intrinsic(name) && args.size() == 1) {
        text = "::course_cpu::check::loaded(" + dereferenced(args[0]) + ")";
      } else if (store_intrinsic(name) && args.size() == 2) {
        text = "static_cast<void>(" + dereferenced(args[0]) + " = (" + args[1] + "))";
      } else if (const auto m = macros.find(std::string(name));
                 m != macros.end() && args.size() == m->second.params.size() && k > m->second.defined_at) {
        for (const Token& b : m->second.body) {
          std::size_t p = 0;
          while (p < args.size() && !(b.kind == Tok::identifier && b.text == m->second.params[p])) ++p;
          if (p < args.size()) {
            append(text, args[p]);
          } else if (b.kind == Tok::newline || b.kind == Tok::comment || (b.kind == Tok::punct && b.text == "\\")) {
            text += ' ';  // a line continuation's backslash and newline, a comment
          } else if (b.kind == Tok::space) {
            text += b.text.find('\\') != std::string_view::npos ? std::string(" ") : std::string(b.text);
          } else {
            append(text, b.text);
          }
        }
        while (!text.empty() && text.back() == ' ') text.pop_back();
        text.erase(0, text.find_first_not_of(' ') == std::string::npos ? 0 : text.find_first_not_of(' '));
      } else {
        continue;
      }
      edits_.push_back({k, close + 1, text});
      k = close;
    }
  }
  return apply();
}

}  // namespace course_rewrite
