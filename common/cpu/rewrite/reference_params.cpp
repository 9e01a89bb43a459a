// course-rewrite, pass 4 (check mode): reference parameters that an element binds, made so that the element stays a
// proxy and what the function does through the parameter is checked, where that changes nothing else:
//   a plain __device__ function's `float&`      `auto&&` (reference_params(); its declarations alike)
//   a lambda's `float&`                          `auto&&` (reference_lambdas())
//   a function template's `T&`                   `A&&`, T deduced from A as CUDA deduces it from the element
//                                                (template_reference_params())
#include "passes.h"

namespace course_rewrite {

void Rewriter::reference_params(Function& fn) {
  // Only where making the function an (abbreviated) template changes nothing else: one definition of the name, its
  // declarations without a body (`__device__ void acc(float& a, float b);` before the kernel) saying the same types
  // (they become the same template), not virtual, every other use of the name a call (no address taken), and
  // parameters `[volatile] ARITHMETIC& name` (a non-const reference binds only that type).
  if (fn.kernel || fn.is_template) return;
  const std::size_t fname = prev(fn.params_open);
  if (!is_ident(fname) || !plain_body(fn.body_open, fn.body_close)) return;
  for (std::size_t q = prev(fname);
       q != npos && !is_punct(q, ";") && !is_punct(q, "{") && !is_punct(q, "}") && toks_[q].kind != Tok::preproc;
       q = prev(q))
    if (is_punct(q, "&") || is_punct(q, "&&") || is_ident(q, "decltype")) return;
  for (std::size_t q = next(match(fn.params_open)); q < fn.body_open; q = next(q))
    if (is_punct(q, "&") || is_punct(q, "&&") || is_ident(q, "decltype")) return;  // a trailing return type
  for (const Function& other : functions_)
    if (&other != &fn && fname > other.body_open && fname < other.body_close) return;
  const std::string name(toks_[fname].text);
  if (definitions_[name] != 1 || !only_called(fname)) return;
  std::vector<std::size_t> lists = {fn.params_open};
  const auto declared = declarations_.find(name);
  if (declared != declarations_.end()) lists.insert(lists.end(), declared->second.begin(), declared->second.end());
  for (const std::size_t open : lists)
    if (virtual_function(open)) return;
  reference_edits(lists, fn);
}

bool Rewriter::virtual_function(std::size_t open) const {
  // `virtual` before the name, `override`, `final` or `= 0` after the parameters: a template cannot be virtual.
  for (std::size_t q = prev(prev(open)); q != npos && !is_punct(q, ";") && !is_punct(q, "{") && !is_punct(q, "}");
       q = prev(q))
    if (toks_[q].kind == Tok::preproc)
      break;
    else if (is_ident(q, "virtual"))
      return true;
  for (std::size_t q = next(match(open)); q < toks_.size() && !is_punct(q, ";") && !is_punct(q, "{"); q = next(q))
    if (is_ident(q, "override") || is_ident(q, "final") || is_punct(q, "=")) return true;
  return false;
}

void Rewriter::reference_lambdas(Function& fn) {
  // `auto add = [&](float& a, float b) { a += b; };` called as `add(s[i], v)`: its `float&` parameters become
  // `auto&&` (a generic lambda), under reference_params()' conditions.
  for (std::size_t k = fn.body_open + 1; k < fn.body_close; ++k) {
    if (!is_ident(k, "auto") || !is_ident(next(k)) || !is_punct(next(next(k)), "=")) continue;
    const std::size_t capture = next(next(next(k)));
    if (!is_punct(capture, "[") || match(capture) == npos) continue;
    const std::size_t open = next(match(capture));
    if (!is_punct(open, "(") || match(open) == npos) continue;
    std::size_t body = next(match(open));
    bool plain = true;
    for (; body < fn.body_close && !is_punct(body, "{"); body = next(body))  // mutable, noexcept, -> TYPE
      plain = plain && !is_punct(body, "&") && !is_punct(body, "&&") && !is_ident(body, "decltype");
    if (!plain || body >= fn.body_close || match(body) == npos || !plain_body(body, match(body))) continue;
    if (!only_called(next(k))) continue;
    // Its parameters' names mean them only: fn.proxy_refs holds names for the whole of fn's body.
    bool own_names = true;
    for (const auto& [first, last] : parameters(open)) {
      if (!arithmetic_reference(first, last, true)) continue;
      for (std::size_t q = next(fn.body_open); q < fn.body_close; q = next(q))
        own_names = own_names && (!is_ident(q, toks_[prev(last)].text) || (q > open && q < match(body)));
    }
    if (!own_names) continue;
    for (const auto& [first, last] : parameters(open))
      if (arithmetic_reference(first, last, true)) lambda_params_.insert(prev(last));
    reference_edits({open}, fn);
  }
}

bool Rewriter::plain_body(std::size_t open, std::size_t close) const {
  // Nothing in the body shows a parameter's type (sizeof, decltype), makes a copy of it the rewriter does not see
  // (`auto`, a lambda's capture).
  for (std::size_t k = next(open); k < close; k = next(k)) {
    if (is_ident(k, "sizeof") || is_ident(k, "decltype") || is_ident(k, "auto")) return false;
    if (is_punct(k, "[") && (!is_ident(prev(k)) || is_ident(prev(k), "return")) && !is_punct(prev(k), "]") &&
        !is_punct(prev(k), ")"))
      return false;
  }
  return true;
}

bool Rewriter::only_called(std::size_t name) const {
  for (std::size_t k = 0; k < toks_.size(); k = next(k))
    if (k != name && is_ident(k, toks_[name].text) && !is_punct(next(k), "(")) return false;
  return true;
}

void Rewriter::reference_edits(const std::vector<std::size_t>& lists, Function& fn) {
  // lists: the parameter lists of one function (its definition first, then its declarations without a body). Each
  // parameter that is `[volatile] ARITHMETIC& name` in the definition, and the same type in every declaration,
  // becomes `auto&&` in all of them; if a declaration differs, none does.
  const auto defined = parameters(lists.front());
  std::vector<std::size_t> refs;
  for (std::size_t j = 0; j < defined.size(); ++j)
    if (arithmetic_reference(defined[j].first, defined[j].second, true)) refs.push_back(j);
  if (refs.empty()) return;
  std::vector<std::pair<std::size_t, std::size_t>> changed;  // [first token, the '&'] of each parameter changed
  for (const std::size_t open : lists) {
    const auto params = open == lists.front() ? defined : parameters(open);
    if (params.size() != defined.size()) return;
    for (const std::size_t j : refs) {
      const auto [first, last] = params[j];
      if (!arithmetic_reference(first, last, false)) return;
      std::size_t amp = first;
      while (!is_punct(amp, "&")) amp = next(amp);
      std::size_t a = first, b = defined[j].first;  // the same type tokens as the definition's
      for (; a != amp && !is_punct(b, "&"); a = next(a), b = next(b))
        if (toks_[a].text != toks_[b].text) return;
      if (a != amp || !is_punct(b, "&")) return;
      changed.emplace_back(first, amp);
    }
  }
  for (const auto& [first, amp] : changed) {
    const std::string spacing = amp + 1 < toks_.size() && is_blank(toks_[amp + 1]) ? "" : " ";
    edits_.push_back({first, amp + 1, "auto&&" + spacing});
  }
  for (const std::size_t j : refs) fn.proxy_refs.insert(std::string(toks_[prev(defined[j].second)].text));
}

std::vector<std::pair<std::size_t, std::size_t>> Rewriter::parameters(std::size_t open) const {
  std::vector<std::pair<std::size_t, std::size_t>> params;
  const std::size_t close = match(open);
  if (close == npos) return params;
  std::size_t start = next(open);
  for (std::size_t k = start; k <= close && k < toks_.size(); k = next(k)) {
    if (k != close && !is_punct(k, ",")) {
      if (is_open(k)) k = match(k);
      if (k == npos) return {};
      continue;
    }
    if (start != k) params.emplace_back(start, k);
    start = next(k);
  }
  return params;
}

bool Rewriter::arithmetic_reference(std::size_t first, std::size_t last, bool named) const {
  std::vector<std::size_t> t;
  for (std::size_t q = first; q < last; q = next(q)) t.push_back(q);
  // TYPE... & NAME, or (a declaration) TYPE... & [NAME]
  std::size_t amp = t.size();
  if (t.size() >= 3 && is_punct(t[t.size() - 2], "&") && is_ident(t.back())) amp = t.size() - 2;
  if (!named && t.size() >= 2 && is_punct(t.back(), "&")) amp = t.size() - 1;
  if (amp == t.size()) return false;
  bool any_type = false;
  for (std::size_t j = 0; j < amp; ++j) {
    const bool type = arithmetic_word(t[j]);
    if (!type && !is_ident(t[j], "volatile")) return false;
    any_type = any_type || type;
  }
  return any_type;
}

void Rewriter::template_reference_params(Function& fn) {
  // `template <class T> __device__ void swapv(T& a, T& b)` called with elements (`swapv(s[i], s[j])`, a bitonic sort's
  // compare-exchange): each `T& name`, T a type parameter of the template, becomes `CourseCpuRefN&& name`; T moves to
  // the end of the template's parameters with the default `referenced_t<CourseCpuRefN>` (the element's type, as CUDA
  // deduces it), and a requires-clause keeps nvcc's rule that the argument is an lvalue of type T. The element then
  // stays a proxy, and what the function does through it is checked. Under reference_params()' conditions, and only
  // where every use of the name is a call without template arguments (the template parameters' order changes).
  if (fn.kernel || !fn.is_template) return;
  const std::size_t fname = prev(fn.params_open);
  if (!is_ident(fname) || !plain_body(fn.body_open, fn.body_close)) return;
  const std::size_t tkw = template_keyword(fname);
  if (tkw == npos || !is_ident(tkw, "template") || !is_punct(next(tkw), "<")) return;
  const std::size_t lt = next(tkw);
  std::size_t gt = next(lt);
  for (int depth = 1; gt < fname; gt = next(gt)) {
    if (is_open(gt)) {
      gt = match(gt);
      continue;
    }
    depth += is_punct(gt, "<") ? 1 : is_punct(gt, ">") ? -1 : is_punct(gt, ">>") ? -2 : 0;
    if (depth <= 0) break;
  }
  if (gt >= fname || !is_punct(gt, ">")) return;
  for (std::size_t q = lt; q < gt; ++q)
    if (toks_[q].kind == Tok::newline) return;  // the list is rewritten on one line: keep the lines
  // No reference returned (it may be a parameter), no constraint of its own, nothing that names the types.
  for (std::size_t q = next(gt); q < fn.body_open; q = q == prev(fn.params_open) ? match(fn.params_open) : next(q))
    if (is_punct(q, "&") || is_punct(q, "&&") || is_ident(q, "decltype") || is_ident(q, "requires")) return;
  for (const Function& other : functions_)
    if (&other != &fn && fname > other.body_open && fname < other.body_close) return;
  const std::string name(toks_[fname].text);
  if (definitions_[name] != 1 || declarations_.count(name) || !only_called(fname)) return;
  // The template's type parameters (`class T`, `typename T`), and the other parameters as they are written.
  struct TemplateParam {
    std::string written, type;  // type: the name of a `class T` / `typename T`, else empty
  };
  std::vector<TemplateParam> kept;
  std::set<std::string> types;
  std::vector<std::pair<std::size_t, std::size_t>> tparams;
  for (std::size_t k = next(lt), start = k, depth = 0; k <= gt; k = next(k)) {
    if (is_open(k)) {
      k = match(k);
      continue;
    }
    if (k == gt || (depth == 0 && is_punct(k, ","))) {
      tparams.emplace_back(start, k);
      start = next(k);
    } else if (is_punct(k, "<")) {
      ++depth;
    } else if (is_punct(k, ">") && depth > 0) {
      --depth;
    } else if (is_punct(k, ">>")) {
      return;
    }
  }
  for (const auto& [first, last] : tparams) {
    TemplateParam param{text(first, last, false), ""};
    if (next(first) < last && next(next(first)) >= last && (is_ident(first, "class") || is_ident(first, "typename")) &&
        is_ident(next(first)))
      types.insert(param.type = std::string(toks_[next(first)].text));
    kept.push_back(param);
  }
  const auto params = parameters(fn.params_open);
  std::map<std::string, std::string> moved;  // T -> the parameter type it is deduced from
  std::string added, clause;
  std::vector<std::size_t> changed;
  for (std::size_t j = 0; j < params.size(); ++j) {
    const auto [first, last] = params[j];
    const std::size_t amp = next(first), id = next(amp);
    if (!is_ident(first) || !types.count(std::string(toks_[first].text)) || !is_punct(amp, "&") || !is_ident(id) ||
        next(id) != last)
      continue;
    const std::string t(toks_[first].text), ref = "CourseCpuRef" + std::to_string(changed.size());
    const std::string spacing = is_blank(toks_[amp + 1]) ? "" : " ";
    edits_.push_back({first, amp + 1, ref + "&&" + spacing});
    added += ", class " + ref;
    clause += std::string(clause.empty() ? "" : " && ") + "::course_cpu::check::binds_as<" + ref + ", " + t + ">";
    moved.emplace(t, ref);
    fn.proxy_refs.insert(std::string(toks_[id].text));
    changed.push_back(j);
  }
  if (changed.empty()) return;
  std::string list;
  for (const TemplateParam& param : kept)
    if (!moved.count(param.type)) list += (list.empty() ? "" : ", ") + param.written;
  list += (list.empty() ? added.substr(2) : added);
  for (const auto& [t, ref] : moved) list += ", class " + t + " = ::course_cpu::check::referenced_t<" + ref + ">";
  edits_.push_back({next(lt), gt + 1, list + "> requires(" + clause + ")"});
  std::vector<Param>& kinds = template_functions_[name];
  for (const std::size_t j : changed)
    if (j < kinds.size()) kinds[j] = Param::proxy;
}

}  // namespace course_rewrite
