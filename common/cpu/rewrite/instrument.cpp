// course-rewrite, pass 4 (check mode only): checked subscripts. Inside
// __global__/__device__ functions, `name[` of a shared array or a pointer
// parameter becomes `COURSE_CHECKED(name, __LINE__)[` (course_cpu/check.h);
// value_contexts.cpp handles the places where the resulting element proxy
// must be read as a value or bound to a reference.
#include "passes.h"

namespace course_rewrite {

void Rewriter::instrument() {
  for (Function& fn : functions_) {
    const std::set<std::string>& local = shared_arrays_[fn.body_open];
    for (std::size_t k = fn.body_open + 1; k < fn.body_close; ++k) {
      if (is_punct(k, "&") && !in_declaration(k)) {
        reference_declaration(k, fn, local);
        continue;
      }
      if (!is_ident(k)) continue;
      const std::string_view t = toks_[k].text;
      if ((t == "sizeof" || t == "decltype" || t == "alignof" || t == "__typeof__" || t == "typeid" ||
           t == "__alignof__") &&
          is_punct(next(k), "(")) {
        k = match(next(k));  // unevaluated: leave alone
        continue;
      }
      if (in_declaration(k)) continue;
      if (t == "auto") {
        decay_auto_initializers(k, fn, local);
        continue;
      }
      std::size_t last = npos;
      if (!proxy_at(k, fn, local, &last)) continue;
      const bool as_value = value_context(k, last);
      if (as_value) edits_.push_back({k, k, "::course_cpu::check::value("});
      if (checked_subscript(k, fn, local))
        edits_.push_back({k, k + 1, "COURSE_CHECKED(" + std::string(t) + ", __LINE__)"});
      if (as_value) edits_.push_back({last + 1, last + 1, ")"});
    }
  }
}

bool Rewriter::checked_subscript(std::size_t k, const Function& fn, const std::set<std::string>& local) const {
  if (!is_ident(k) || !is_punct(next(k), "[")) return false;
  const std::size_t p = prev(k);
  if (p != npos && (is_punct(p, ".") || is_punct(p, "->") || is_punct(p, "::"))) return false;
  const std::string name(toks_[k].text);
  return local.count(name) || global_shared_.count(name) || fn.pointer_params.count(name);
}

// `auto v = s[i];` would make v the element proxy (reading s[i] whenever v
// is used, writing s[i] on `v = ...`). In CUDA v is a copy, so the
// initializer becomes `::course_cpu::check::value(s[i])`, which gives the
// element's value (and leaves anything else as it is). `auto&`, `auto*`
// and `const auto&` declarations are left alone.
void Rewriter::decay_auto_initializers(std::size_t k, const Function& fn, const std::set<std::string>& local) {
  std::size_t q = next(k);
  while (is_ident(q, "const") || is_ident(q, "volatile")) q = next(q);
  for (;;) {
    if (!is_ident(q) || !is_punct(next(q), "=")) return;
    const std::size_t first = next(next(q));
    int depth = 0;
    bool angle = false, checked = false;
    std::size_t end = first;
    for (; end < toks_.size(); end = next(end)) {
      if (is_open(end)) {
        ++depth;
      } else if (is_close(end)) {
        if (depth == 0) break;
        --depth;
      } else if (depth == 0 && (is_punct(end, ";") || is_punct(end, ","))) {
        break;
      } else if (is_punct(end, "<")) {
        angle = true;
      }
      std::size_t last = npos;
      checked = checked || proxy_at(end, fn, local, &last);
    }
    if (end >= toks_.size() || end == first) return;
    if (is_punct(end, ",") && angle) return;  // perhaps a comma of template arguments
    if (checked) {
      edits_.push_back({first, first, "::course_cpu::check::value("});
      edits_.push_back({end, end, ")"});
    }
    if (!is_punct(end, ",")) return;
    q = next(end);
  }
}

bool Rewriter::in_declaration(std::size_t k) const {
  for (auto [b, e] : declaration_ranges_)
    if (k > b && k < e) return true;
  return false;
}

}  // namespace course_rewrite
