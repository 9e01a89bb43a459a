// course-rewrite, pass 4 (check mode): the reference parameters of a class type of a __device__ function.
//
//   __device__ void swapIf(KV& a, KV& b) { if (b.key < a.key) { KV t = a; a = b; b = t; } }
//
// An element given to `KV& a` is bound as it is (a struct element has no proxy), so what the function does through
// `a` would be unseen: a missing barrier between two phases of a sort that swaps structs went unreported. Each use of
// such a parameter is checked instead as the same use of `*p` would be with `p = &a`, a pointer parameter of a
// __device__ function: `a.key` becomes `member<U>(for_member(root(address_of(a), SITE))[0], .key)` (object_chain()
// with this root), a whole use (`KV t = a;`, `a = b;`, `f(a)`) `root(address_of(a), SITE)[0]`. Where `a` refers to
// the thread's own local variable or to a __device__ variable the access is performed unchecked, as for a pointer
// parameter. The parameter itself is not changed, so a use the rewriter does not see (a macro's body, an
// unevaluated operand) still compiles as written.
#include "passes.h"

#include <regex>

namespace course_rewrite {

void Rewriter::find_class_names() {
  for (std::size_t k = 0; k < toks_.size(); ++k) {
    if (!is_ident(k, "struct") && !is_ident(k, "class") && !is_ident(k, "union")) continue;
    if (is_ident(prev(k), "enum")) continue;  // `enum class Color {`: not a class
    std::size_t n = next(k);
    while (is_ident(n, "__align__") || is_ident(n, "alignas") || is_ident(n, "__attribute__") ||
           is_ident(n, "__declspec")) {
      n = next(n);
      if (is_punct(n, "(") && match(n) != npos) n = next(match(n));
    }
    if (is_ident(n) && (is_punct(next(n), "{") || is_punct(next(n), ":") || is_ident(next(n), "final"))) {
      class_names_.insert(std::string(toks_[n].text));
      continue;
    }
    // `typedef struct [tag] { ... } Name;`
    const std::size_t open = is_punct(n, "{") ? n : is_ident(n) && is_punct(next(n), "{") ? next(n) : npos;
    if (!is_ident(prev(k), "typedef") || open == npos || match(open) == npos) continue;
    const std::size_t name = next(match(open));
    if (is_ident(name) && is_punct(next(name), ";")) class_names_.insert(std::string(toks_[name].text));
  }
}

bool Rewriter::class_name(std::string_view name) const {
  static const std::regex vector_type(R"((u?char|u?short|u?int|u?long|u?longlong|float|double)[1-4](_16a|_32a)?)");
  return class_names_.count(std::string(name)) > 0 || std::regex_match(name.begin(), name.end(), vector_type);
}

std::set<std::string> Rewriter::reference_objects(const Function& fn) const {
  std::set<std::string> names;
  if (fn.kernel || !is_punct(fn.params_open, "(")) return names;
  for (const auto& [first, last] : parameters(fn.params_open)) {
    std::vector<std::size_t> t;
    for (std::size_t q = first; q < last; q = next(q)) t.push_back(q);
    // [const] [struct|class|union] NAME [<...>] [const] & name
    if (t.size() < 3 || !is_punct(t[t.size() - 2], "&") || !is_ident(t.back())) continue;
    std::size_t type = npos;
    bool plain = true;
    for (std::size_t j = 0; j + 2 < t.size() && plain; ++j) {
      if (is_ident(t[j], "const") || is_ident(t[j], "struct") || is_ident(t[j], "class") || is_ident(t[j], "union"))
        continue;
      if (type == npos && is_ident(t[j])) {
        type = t[j];
        if (is_punct(next(type), "<")) {  // a class template's arguments: skip to the matching '>'
          int depth = 0;
          for (++j; j + 2 < t.size(); ++j) {
            depth += is_punct(t[j], "<") ? 1 : is_punct(t[j], ">") ? -1 : is_punct(t[j], ">>") ? -2 : 0;
            if (depth <= 0) break;
          }
          plain = depth == 0;
        }
        continue;
      }
      plain = false;  // volatile, a second name, '*', '::': left alone
    }
    if (plain && type != npos && class_name(toks_[type].text)) names.insert(std::string(toks_[t.back()].text));
  }
  return not_declared_again(names, fn);
}

void Rewriter::find_checked_class_refs() {
  for (Function& fn : functions_) {
    fn.reference_objects = reference_objects(fn);
    const std::size_t fname = prev(fn.params_open);
    if (fn.kernel || !is_ident(fname)) continue;
    const std::string name(toks_[fname].text);
    if (definitions_[name] != 1) continue;  // overloads: which one a call takes is the compiler's to say
    const std::set<std::string>& checked = fn.reference_objects;
    std::vector<bool> flags;
    bool any = false;
    for (const auto& [first, last] : parameters(fn.params_open)) {
      const bool is = is_ident(prev(last)) && checked.count(std::string(toks_[prev(last)].text)) > 0;
      flags.push_back(is);
      any = any || is;
    }
    if (any) checked_class_refs_[name] = flags;
  }
}

bool Rewriter::captured_name(std::size_t k) const {
  std::size_t q = prev(k);
  while (q != npos && (is_punct(q, ",") || is_punct(q, "&") || is_punct(q, "=") || is_ident(q) || is_punct(q, "*")))
    q = prev(q);
  if (q == npos || !is_punct(q, "[")) return false;
  const std::size_t close = match(q);
  if (close == npos || close < k) return false;
  const std::size_t after = next(close);
  return is_punct(after, "(") || is_punct(after, "{") || is_punct(after, "<") || is_ident(after, "mutable");
}

bool Rewriter::whole_reference_object(std::size_t k, const Function& fn) const {
  if (!is_ident(k) || !fn.reference_objects.count(std::string(toks_[k].text)) || lambda_params_.count(k)) return false;
  const std::size_t p = prev(k), n = next(k);
  if (p != npos && (is_punct(p, ".") || is_punct(p, "->") || is_punct(p, "::") || is_ident(p, "goto"))) return false;
  for (std::string_view op : {".", "->", "(", "[", "::", "<", ".*", "->*"})
    if (is_punct(n, op)) return false;  // a member, a call of its operator(), a subscript of its operator[]
  if (is_punct(n, ":") && (is_punct(p, ";") || is_punct(p, "{") || is_punct(p, "}"))) return false;  // a label
  return !captured_name(k);
}

bool Rewriter::whole_shared_object(std::size_t k, const Function& fn) const {
  // Only as the target or the whole right-hand side of `=` (other uses stay as written: bound, bounds-free).
  if (!is_ident(k) || !fn.shared_objects.count(std::string(toks_[k].text)) || lambda_params_.count(k)) return false;
  const std::size_t p = prev(k), n = next(k);
  if (p != npos && (is_punct(p, ".") || is_punct(p, "->") || is_punct(p, "::") || is_punct(p, "&"))) return false;
  return !captured_name(k) && (assigned(k, k) || loaded(k, k));
}

std::string Rewriter::reference_root(std::size_t k) const {
  const std::string name(toks_[k].text);
  return "::course_cpu::check::root(::course_cpu::check::address_of(" + name + "), " +
         "[] { static constinit ::course_cpu::check::Site site{\"" + escape(name) +
         "\", __FILE__, __LINE__, 0, false, true, true}; return &site; }())";
}

}  // namespace course_rewrite
