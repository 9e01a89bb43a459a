// course-rewrite, pass 3: kernel launches.
//   kernel<<<g, b, s, st>>>(args) -> ::course_cpu::launch(kernel, "kernel", __FILE__, line, g, b, s, st)(args)
// A kernel template of this file launched with fewer template arguments than
// it has parameters, or a kernel with overloads or default arguments, goes
// through ::course_cpu::launch_deduced instead; another kernel of this file
// named by one identifier is passed by its typed address.
#include "passes.h"

namespace course_rewrite {

std::size_t Rewriter::callee_start(std::size_t i) const {
  std::size_t k = prev(i);
  std::size_t start = npos;
  while (k != npos) {
    if (is_punct(k, ">") || is_punct(k, ">>") || is_punct(k, ">>>")) {
      int depth = 0;
      while (k != npos) {
        if (is_punct(k, ">"))
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
    break;
  }
  return start;
}

void Rewriter::rewrite_launches() {
  for (std::size_t i = 0; i < toks_.size(); ++i) {
    if (!is_punct(i, "<<<")) continue;
    const std::size_t start = callee_start(i);
    if (start == npos) continue;
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
    const std::string callee = text(start, i, true);
    const std::string site = "\"" + callee + "\", __FILE__, " + std::to_string(toks_[start].line) + ", ";
    // A kernel template of this file launched with fewer template arguments
    // than it has parameters (usually none): the others are deduced from
    // the arguments, by a call inside a generic lambda.
    bool deduced = false;
    for (std::size_t k = start; k < i; k = next(k)) {
      if (!is_ident(k)) continue;
      const auto it = template_kernels_.find(std::string(toks_[k].text));
      const std::size_t after = next(k);
      if (it == template_kernels_.end() || !(after == i || is_punct(after, "<"))) continue;
      deduced = (after == i ? 0 : angle_arguments(after)) < it->second;
      break;
    }
    // A kernel of this file named by one identifier: with overloads or default arguments, the call inside the
    // generic lambda resolves them as nvcc does; else its typed address, so that a function of the same name from a
    // header (`copy` after `using namespace std;`) does not make the name ambiguous.
    std::string address;
    if (!deduced && next(start) == i) {
      const auto it = kernel_decls_.find(callee);
      if (it != kernel_decls_.end()) {
        deduced = it->second.signatures.size() > 1 || it->second.defaults;
        address = it->second.address;
      }
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
}

}  // namespace course_rewrite
