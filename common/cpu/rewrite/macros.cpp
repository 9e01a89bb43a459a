// course-rewrite, pass 4 (check mode): function-like macros whose parameters are operands of `?:` or initialize an
// `auto` variable, or that call printf.
//
//   #define MAX(a, b) ((a) > (b) ? (a) : (b))       MAX(s[i], 0) is a float in CUDA; with the element proxy
//                                                    the conditional's type would be int (value_contexts.cpp)
//   #define SWAP(a, b) { auto t = (a); (a) = (b); (b) = t; }   t must be a copy, not the proxy
//
// In the body of such a macro, a parameter that is a whole operand of `?:` (`a` or `(a)`), or the whole initializer
// of `auto name =`, becomes `::course_cpu::check::value((a))`: the element's value where the argument is an element
// proxy, the argument itself otherwise. `printf(` (or `std::printf(`) becomes `::course_cpu::check::printf_values(`,
// which passes each argument's value, so `#define LOG(fmt, ...) printf(fmt, __VA_ARGS__)` prints elements as the GPU
// does. The directive keeps its lines.
#include "passes.h"

#include <algorithm>
#include <cctype>
#include <regex>

namespace course_rewrite {

namespace {

struct Body {
  std::vector<Token> toks;
  std::size_t next(std::size_t i) const {
    do ++i;
    while (i < toks.size() && is_blank(toks[i]));
    return i;
  }
  bool punct(std::size_t i, std::string_view p) const {
    return i < toks.size() && toks[i].kind == Tok::punct && toks[i].text == p;
  }
  bool open(std::size_t i) const { return punct(i, "(") || punct(i, "[") || punct(i, "{"); }
  bool close(std::size_t i) const { return punct(i, ")") || punct(i, "]") || punct(i, "}"); }
  std::size_t match(std::size_t i) const {
    int depth = 0;
    for (std::size_t k = i; k < toks.size(); ++k) {
      if (open(k)) ++depth;
      if (close(k) && --depth == 0) return k;
    }
    return toks.size();
  }
  // The operand from token `first`: up to (not including) the first token at depth 0 that is one of `stops`, or a
  // closing bracket of an enclosing group. Its last token, or npos if it is empty.
  std::size_t operand_end(std::size_t first, std::initializer_list<std::string_view> stops) const {
    std::size_t last = static_cast<std::size_t>(-1);
    for (std::size_t k = first; k < toks.size(); k = next(k)) {
      if (close(k)) break;
      bool stop = false;
      for (std::string_view s : stops) stop = stop || punct(k, s);
      if (stop) break;
      if (open(k)) k = match(k);
      last = k;
    }
    return last;
  }
};

}  // namespace

bool define_body(std::string_view directive, std::size_t* body, std::size_t* params) {
  std::size_t at = directive.find_first_not_of(" \t", 1);
  if (at == std::string_view::npos || directive.substr(at, 6) != "define") return false;
  at = directive.find_first_not_of(" \t", at + 6);
  if (at == std::string_view::npos) return false;
  std::size_t name_end = at;
  while (name_end < directive.size() &&
         (std::isalnum(static_cast<unsigned char>(directive[name_end])) || directive[name_end] == '_'))
    ++name_end;
  if (name_end == at) return false;
  *params = std::string_view::npos;
  *body = name_end;
  if (name_end < directive.size() && directive[name_end] == '(') {
    const std::size_t params_end = directive.find(')', name_end);
    if (params_end == std::string_view::npos) return false;
    *params = name_end;
    *body = params_end + 1;
  }
  return true;
}

std::string Rewriter::macro_with_values(std::string_view directive) const {
  // #define NAME(params) body
  std::size_t body_at = 0, params_at = 0;
  if (!define_body(directive, &body_at, &params_at) || params_at == std::string_view::npos)
    return std::string(directive);  // another directive, or an object-like macro
  const std::size_t params_end = body_at - 1;
  std::set<std::string_view> params;
  for (const Token& t : tokenize(directive.substr(params_at + 1, params_end - params_at - 1)))
    if (t.kind == Tok::identifier) params.insert(t.text);

  const std::string_view body_text = directive.substr(params_end + 1);
  Body body{tokenize(body_text)};
  std::vector<std::pair<std::size_t, bool>> marks;  // (token, true: before it / false: after it)
  // `printf(` and `std::printf(` (never a member's): the arguments may be proxies, which `...` cannot take.
  std::vector<std::pair<std::size_t, std::size_t>> printfs;  // tokens [first, last] replaced
  for (std::size_t k = 0; k < body.toks.size(); ++k) {
    if (body.toks[k].kind != Tok::identifier || body.toks[k].text != "printf" || !body.punct(body.next(k), "("))
      continue;
    std::size_t first = k, before = static_cast<std::size_t>(-1);
    for (std::size_t q = 0; q < k; q = body.next(q)) before = q;  // the token before printf
    if (before != static_cast<std::size_t>(-1) && (body.punct(before, ".") || body.punct(before, "->"))) continue;
    if (before != static_cast<std::size_t>(-1) && body.punct(before, "::")) {
      std::size_t std_tok = static_cast<std::size_t>(-1);
      for (std::size_t q = 0; q < before; q = body.next(q)) std_tok = q;
      if (std_tok == static_cast<std::size_t>(-1) || body.toks[std_tok].text != "std") continue;
      first = std_tok;
    }
    printfs.push_back({first, k});
  }
  // A whole operand that is one parameter, `a` or `(a)`, from token first to token last.
  const auto wrap = [&](std::size_t first, std::size_t last) {
    if (last == static_cast<std::size_t>(-1) || first >= body.toks.size()) return;
    const bool bare = first == last && body.toks[first].kind == Tok::identifier && params.count(body.toks[first].text);
    const std::size_t inner = body.next(first);
    const bool parenthesized = body.punct(first, "(") && body.match(first) == last && inner < last &&
                               body.next(inner) == last && body.toks[inner].kind == Tok::identifier &&
                               params.count(body.toks[inner].text);
    if (!bare && !parenthesized) return;
    marks.push_back({first, true});
    marks.push_back({last, false});
  };
  for (std::size_t k = 0; k < body.toks.size(); ++k) {
    if (body.punct(k, "?")) {
      const std::size_t second = body.next(k);
      const std::size_t second_last = body.operand_end(second, {":"});
      wrap(second, second_last);
      if (second_last == static_cast<std::size_t>(-1)) continue;
      const std::size_t colon = body.next(second_last);
      if (!body.punct(colon, ":")) continue;
      const std::size_t third = body.next(colon);
      wrap(third, body.operand_end(third, {",", ";", "?", ":"}));
    } else if (body.toks[k].kind == Tok::identifier && body.toks[k].text == "auto") {
      const std::size_t name = body.next(k);
      if (name >= body.toks.size() || body.toks[name].kind != Tok::identifier || !body.punct(body.next(name), "="))
        continue;
      const std::size_t init = body.next(body.next(name));
      wrap(init, body.operand_end(init, {",", ";"}));
    }
  }
  if (marks.empty() && printfs.empty()) return std::string(directive);
  std::string out(directive.substr(0, params_end + 1));
  for (std::size_t k = 0; k < body.toks.size(); ++k) {
    for (const auto& [token, before] : marks)
      if (token == k && before) out += "::course_cpu::check::value(";
    const auto call = std::find_if(printfs.begin(), printfs.end(), [&](const auto& f) { return f.first == k; });
    if (call != printfs.end()) {
      out += "::course_cpu::check::printf_values";
      k = call->second;
      continue;
    }
    out += body.toks[k].text;
    for (const auto& [token, before] : marks)
      if (token == k && !before) out += ")";
  }
  return out;
}

void Rewriter::instrument_macros() {
  for (std::size_t k = 0; k < toks_.size(); ++k)
    if (toks_[k].kind == Tok::preproc) set_directive(k, macro_with_values(directive(k)));
}

// Both modes: inline PTX (`asm(...)`) in device bodies is refused with the backend's gap marker; and
// `__CUDA_ARCH__` in the directives inside a __global__ or __device__ function's body. nvcc compiles
// such a body in its device pass, where __CUDA_ARCH__ is the GPU's architecture; this backend compiles one pass, so
// there the directive is given the device pass's answer (sm_90): `#ifdef __CUDA_ARCH__` becomes `#if 1`,
// `#ifndef __CUDA_ARCH__` `#if 0`, `defined(__CUDA_ARCH__)` 1 and `__CUDA_ARCH__` 900 (in the code too). Directives
// elsewhere keep the host pass's answer (undefined), as nvcc's host pass sees them.
namespace {
std::string device_pass_directive(const std::string& directive) {
  static const std::regex ifdef(R"(^(\s*#\s*)ifdef(\s+)__CUDA_ARCH__\b)");
  static const std::regex ifndef(R"(^(\s*#\s*)ifndef(\s+)__CUDA_ARCH__\b)");
  static const std::regex defined(R"(\bdefined\s*(\(\s*__CUDA_ARCH__\s*\)|\s__CUDA_ARCH__\b))");
  static const std::regex arch(R"(\b__CUDA_ARCH__\b)");
  std::string out = std::regex_replace(directive, ifdef, "$1if$2 1 ");
  out = std::regex_replace(out, ifndef, "$1if$2 0 ");
  out = std::regex_replace(out, defined, "1");
  return std::regex_replace(out, arch, "900");
}
}  // namespace

void Rewriter::device_directives() {
  // A file that defines its own assert macro keeps it.
  bool own_assert = false;
  for (const Token& t : toks_) {
    std::size_t body = 0, params = 0;
    if (t.kind == Tok::preproc && define_body(t.text, &body, &params)) {
      const std::string_view d = t.text;
      const std::size_t name = d.find("define") + 6;
      const std::size_t first = d.find_first_not_of(" \t", name);
      own_assert =
          own_assert ||
          (first != std::string_view::npos && d.substr(first, 6) == "assert" &&
           (first + 6 == d.size() || !(std::isalnum(static_cast<unsigned char>(d[first + 6])) || d[first + 6] == '_')));
    }
  }
  for (const Function& fn : functions_)
    for (std::size_t k = fn.body_open + 1; k < fn.body_close; ++k) {
      if (is_ident(k, "asm") || is_ident(k, "__asm__") || is_ident(k, "__asm")) {
        // Inline PTX: `asm [volatile] ( ... )` becomes a call that refuses it (course_cpu/device_functions.h).
        std::size_t open = next(k);
        while (is_ident(open, "volatile") || is_ident(open, "__volatile__") || is_ident(open, "goto"))
          open = next(open);
        if (!is_punct(open, "(") || match(open) >= toks_.size()) continue;
        edits_.push_back({k, match(open) + 1, "::course_cpu::inline_ptx()"});
        k = match(open);
        continue;
      }
      if (is_ident(k, "assert") && !own_assert && is_punct(next(k), "(") && match(next(k)) < fn.body_close &&
          !is_punct(prev(k), ".") && !is_punct(prev(k), "->") && !is_punct(prev(k), "::")) {
        // A device-side assert fails the launch with cudaErrorAssert, as on a GPU, where <cassert>'s would abort the
        // process (red-team round 27); its text as written, before check mode instruments it.
        const std::size_t open = next(k);
        edits_.push_back({k, k + 1, "COURSE_CPU_DEVICE_ASSERT"});
        edits_.push_back({next(open), next(open), "\"" + escape(text(next(open), match(open), false)) + "\", "});
        continue;
      }
      if (is_ident(k, "__CUDA_ARCH__")) {  // in the code: the macro's value
        edits_.push_back({k, k + 1, "900"});
        continue;
      }
      if (toks_[k].kind != Tok::preproc || toks_[k].text.find("__CUDA_ARCH__") == std::string_view::npos) continue;
      set_directive(k, device_pass_directive(directive(k)));
    }
}

std::optional<Rewriter::Param> Rewriter::macro_argument(std::size_t macro, std::size_t index) const {
  // An element given to a function-like macro of the file (`TWICE(s[i])` with `#define TWICE(x) twice(x)`, or
  // `CALL(twice, s[i])` with `#define CALL(f, x) f(x)`): where the body gives that parameter, as a whole argument, to
  // functions of the file, what their parameters take (see template_argument()); else the proxy as it is.
  const auto def = macro_definitions_.find(std::string(toks_[macro].text));
  if (def == macro_definitions_.end() || index >= def->second.params.size()) return std::nullopt;
  const std::vector<Token>& b = def->second.body;
  const auto punct = [&](std::size_t j, std::string_view text) {
    return j < b.size() && b[j].kind == Tok::punct && b[j].text == text;
  };
  std::optional<Param> result;
  for (std::size_t j = 0; j < b.size(); ++j) {
    if (b[j].kind != Tok::identifier || b[j].text != def->second.params[index]) continue;
    if (j == 0 || !(punct(j - 1, "(") || punct(j - 1, ",")) || !(punct(j + 1, ")") || punct(j + 1, ",")))
      return std::nullopt;
    // Back to the call's '(', counting the arguments before this one.
    std::size_t o = j - 1, arg = 0;
    for (int depth = 0;; --o) {
      if (punct(o, ")") || punct(o, "]") || punct(o, "}")) ++depth;
      if ((punct(o, "(") || punct(o, "[") || punct(o, "{")) && depth-- == 0) break;
      if (depth == 0 && punct(o, ",")) ++arg;
      if (o == 0) return std::nullopt;
    }
    if (!punct(o, "(") || o == 0 || b[o - 1].kind != Tok::identifier) return std::nullopt;
    std::string callee(b[o - 1].text);
    // The callee a parameter of the macro: the name given for it (`CALL(twice, s[i])`).
    const std::vector<std::string>& params = def->second.params;
    const auto named = std::find(params.begin(), params.end(), callee);
    if (named != params.end()) {
      const std::size_t wanted = static_cast<std::size_t>(named - params.begin());
      std::size_t k = next(next(macro)), n = 0;
      for (; k < toks_.size() && n < wanted; k = next(k)) {
        if (is_open(k)) k = match(k);
        if (k == npos || is_punct(k, ")")) return std::nullopt;
        if (is_punct(k, ",")) ++n;
      }
      if (k >= toks_.size() || !is_ident(k) || !(is_punct(next(k), ",") || is_punct(next(k), ")"))) return std::nullopt;
      callee = std::string(toks_[k].text);
    }
    const std::optional<Param> kind = function_argument(callee, arg);
    if (!kind || (result && *result != *kind)) return std::nullopt;
    result = kind;
  }
  return result;
}

}  // namespace course_rewrite
