// course-rewrite, pass 3: kernel launches.
//   kernel<<<g, b, s, st>>>(args) -> ::course_cpu::launch(kernel, "kernel", __FILE__, line, g, b, s, st)(args)
// A kernel template of this file launched with fewer template arguments than
// it has parameters, or a kernel with overloads or default arguments, goes
// through ::course_cpu::launch_deduced instead; another kernel of this file
// named by one identifier is passed by its typed address. Launches in a #define's body are rewritten alike.
#include "passes.h"

#include <set>
#include <string_view>

namespace course_rewrite {

std::size_t Rewriter::callee_start(std::size_t i) const {
  std::size_t k = prev(i);
  // `ks[k]<<<...>>>`, `table.ks[i][j]<<<...>>>`: a kernel pointer taken from an array (subscripts and all).
  while (k != npos && is_punct(k, "]")) {
    const std::size_t open = match_back(k);
    if (open == npos) return npos;
    k = prev(open);
  }
  if (k != npos && k != prev(i) && is_punct(k, ")")) return npos;  // `f()[k]<<<`: left as written
  if (is_punct(k, ")")) {  // `(k)<<<...>>>`, `(*f)<<<...>>>`: a parenthesized expression, not a call's result
    const std::size_t open = match_back(k);
    if (open == npos) return npos;
    const std::size_t before = prev(open);
    // After a keyword (`return (k)<<<`, `else (k)<<<`) or the condition of if/while/for/switch it starts a
    // statement or an operand; after a name, `)`, `]` or `>` it would be a call's or a subscript's result.
    static const std::set<std::string_view> keywords = {"return", "else", "do", "case", "co_return"};
    const bool keyword = before != npos && is_ident(before) && keywords.count(toks_[before].text) > 0;
    bool condition = false;
    if (before != npos && is_punct(before, ")")) {
      const std::size_t cond = match_back(before);
      const std::size_t head = cond == npos ? npos : prev(cond);
      condition = head != npos && (is_ident(head, "if") || is_ident(head, "while") || is_ident(head, "for") ||
                                   is_ident(head, "switch"));
    }
    if (before != npos && !keyword && !condition && (is_ident(before) || is_close(before) || is_punct(before, ">")))
      return npos;
    return open;
  }
  std::size_t start = npos;
  while (k != npos) {
    if (is_punct(k, ">") || is_punct(k, ">>") || is_punct(k, ">>>")) {
      int depth = 0;
      while (k != npos) {
        if (is_punct(k, ")") || is_punct(k, "]")) {  // `k<(1 << 8)>`, `k<(N > 2)>`: a parenthesized argument
          k = match_back(k);
          if (k == npos) break;
        } else if (is_punct(k, ">"))
          depth += 1;
        else if (is_punct(k, ">>"))
          depth += 2;
        else if (is_punct(k, ">>>"))
          depth += 3;
        else if (is_punct(k, "<"))
          depth -= 1;
        else if (is_punct(k, "<<"))
          depth -= 2;
        if (depth <= 0) break;
        k = prev(k);
      }
      if (k == npos) break;
      k = prev(k);
    }
    if (!is_ident(k)) break;
    start = k;
    const std::size_t p = prev(k);
    if (p != npos && is_punct(p, "::")) {
      start = p;
      const std::size_t q = prev(p);
      if (q != npos && (is_ident(q) || is_punct(q, ">"))) {
        k = q;
        continue;
      }
    }
    if (p != npos && (is_punct(p, ".") || is_punct(p, "->")) && prev(p) != npos && is_ident(prev(p))) {
      k = prev(p);  // a member: `table.k<<<`, `p->k<<<`
      continue;
    }
    break;
  }
  return start;
}

void Rewriter::rewrite_launches() {
  for (std::size_t i = 0; i < toks_.size(); ++i) {
    if (!is_punct(i, "<<<")) continue;
    const std::size_t start = callee_start(i);
    if (start == npos) continue;
    if (is_punct(prev(start), "#")) continue;  // `n##_k<<<` in a macro: a pasted name, left as written
    // The matching >>> and the argument list.
    std::size_t close = npos;
    int depth = 0;
    for (std::size_t q = next(i); q < toks_.size(); q = next(q)) {
      if (is_open(q))
        ++depth;
      else if (is_close(q))
        --depth;
      else if (depth == 0 && is_punct(q, ">>>")) {
        close = q;
        break;
      }
      if (depth < 0) break;
    }
    if (close == npos || !is_punct(next(close), "(")) continue;
    // `(k)` is looked up as `k`: the callee's tokens are [first, end).
    const bool parenthesized = is_punct(start, "(") && match(start) == prev(i);
    const std::size_t first = parenthesized ? next(start) : start;
    const std::size_t end = parenthesized ? prev(i) : i;
    const std::string callee = text(first, end, true);
    // The kernel's name in messages; in a macro whose parameter names the kernel, the argument (#kern).
    const bool macro_param = macro_body_ && next(first) == end && macro_params_.count(callee) > 0;
    const std::string name = macro_param ? "#" + callee : "\"" + escape(callee) + "\"";
    const std::string line = macro_body_ ? "__LINE__" : std::to_string(toks_[start].line);
    const std::string site = name + ", __FILE__, " + line + ", ";
    // A kernel template of this file launched with fewer template arguments
    // than it has parameters (usually none): the others are deduced from
    // the arguments, by a call inside a generic lambda.
    bool deduced = false;
    for (std::size_t k = first; k < end; k = next(k)) {
      if (!is_ident(k)) continue;
      const auto it = template_kernels_.find(std::string(toks_[k].text));
      const std::size_t after = next(k);
      if (it == template_kernels_.end() || !(after == end || is_punct(after, "<"))) continue;
      deduced = (after == end ? 0 : angle_arguments(after)) < it->second;
      break;
    }
    // A kernel of this file named by one identifier: with overloads or default arguments, the call inside the
    // generic lambda resolves them as nvcc does; else its typed address, so that a function of the same name from a
    // header (`copy` after `using namespace std;`) does not make the name ambiguous.
    std::string address;
    if (!deduced && next(first) == end) {
      const auto it = kernel_decls_.find(callee);
      if (it != kernel_decls_.end()) {
        deduced = it->second.signatures.size() > 1 || it->second.defaults;
        address = it->second.address;
      }
    }
    // A macro's parameter may name any kernel of the file: deduced if any of them needs it.
    if (macro_param && address.empty()) {
      deduced = !template_kernels_.empty();
      for (const auto& [kernel, decls] : kernel_decls_)
        deduced = deduced || decls.signatures.size() > 1 || decls.defaults;
    }
    if (deduced) {
      edits_.push_back({start, start, "::course_cpu::launch_deduced([](const auto&... course_cpu_args) { ("});
      edits_.push_back({i, i + 1, ")(course_cpu_args...); }, " + site});
    } else if (!address.empty()) {
      edits_.push_back({start, i + 1, "::course_cpu::launch(" + address + ", " + site});
    } else {
      edits_.push_back({start, start, "::course_cpu::launch("});
      edits_.push_back({i, i + 1, ", " + site});
    }
    edits_.push_back({close, close + 1, ")"});
  }
  for (std::size_t k = 0; k < toks_.size(); ++k)
    if (toks_[k].kind == Tok::preproc) set_directive(k, macro_launches(directive(k)));
}

std::string Rewriter::macro_launches(std::string_view directive) const {
  std::size_t body = 0, params = 0;
  if (directive.find("<<<") == std::string_view::npos || !define_body(directive, &body, &params))
    return std::string(directive);
  const std::string text(directive.substr(body));
  Rewriter sub(text, mode_);
  sub.kernel_decls_ = kernel_decls_;
  sub.template_kernels_ = template_kernels_;
  sub.macro_body_ = true;
  if (params != std::string_view::npos)
    for (const Token& t : tokenize(directive.substr(params + 1, body - params - 2)))
      if (t.kind == Tok::identifier) sub.macro_params_.insert(std::string(t.text));
  sub.rewrite_launches();
  return std::string(directive.substr(0, body)) + sub.apply();
}

}  // namespace course_rewrite
