// course-rewrite, pass 4 (check mode only): checked subscripts. Inside
// __global__/__device__ functions, `name[` of a shared array or a pointer
// parameter becomes `COURSE_CHECKED(name, __LINE__)[`, of a local pointer
// variable `COURSE_CHECKED_LOCAL(name, __LINE__)[` (course_cpu/check.h), and
// every use of a __shared__ scalar `COURSE_CHECKED_SCALAR(name, __LINE__)`;
// value_contexts.cpp handles the places where the resulting element proxy
// must be read as a value or bound to a reference. A chain that is the target
// of `=` gets its root wrapped in `::course_cpu::check::for_store(...)`, so that
// a struct or vector element stored as a whole is checked as a write.
#include "passes.h"

namespace course_rewrite {

void Rewriter::instrument() {
  find_device_arrays();
  find_class_names();
  find_checked_class_refs();
  for (Function& fn : functions_) generic_lambdas(fn);
  for (Function& fn : functions_) template_reference_params(fn);  // before any call is rewritten
  for (Function& fn : functions_) {
    reference_params(fn);
    reference_lambdas(fn);
    // A shared array whose name the function declares again (`float buf[4];` in an inner block) is left unchecked,
    // so that the other declaration keeps its meaning.
    const std::set<std::string> local = not_declared_again(shared_arrays_[fn.body_open], fn);
    fn.local_pointers = local_pointers(fn, local);
    fn.shared_scalars = checked_scalars(fn);
    if (const auto objects = shared_objects_.find(fn.body_open); objects != shared_objects_.end())
      fn.shared_objects = not_declared_again(objects->second, fn);
    fn.auto_locals = auto_locals(fn, local);
    const std::set<std::string> device_arrays = device_arrays_of(fn);
    // Each edit made below records the token whose form made it (Edit::from).
    std::size_t stamped = edits_.size(), from = npos;
    const auto stamp = [&](std::size_t next_from) {
      for (; stamped < edits_.size(); ++stamped) edits_[stamped].from = from;
      from = next_from;
    };
    for (std::size_t k = fn.body_open + 1; k < fn.body_close; ++k) {
      stamp(k);
      if (is_punct(k, "&") && !in_declaration(k)) {
        reference_declaration(k, fn, local);
        continue;
      }
      if (is_punct(k, "(") && !in_declaration(k) && assigned_conditional(k, fn, local)) continue;
      if ((is_punct(k, "*") || is_punct(k, "(")) && !in_declaration(k)) {
        Deref d{};
        std::size_t close = npos, last = npos;
        if (!proxy_at(k, fn, local, &last)) continue;
        const std::string wrap = proxy_wrapper(k, last);
        if (!wrap.empty()) edits_.push_back({k, k, wrap});
        if (deref_at(k, fn, local, &d)) {
          instrument_deref(k, d, fn, wrap.empty() && assigned(k, last));
        } else if (c_cast_subscript(k, &close)) {
          const ChainMarks marks = chain_marks(k, subscripts_end(close), last, wrap);
          edits_.push_back({k, k, marks.open});
          edits_.push_back({k, k, "::course_cpu::check::root("});
          edits_.push_back({close + 1, close + 1, ", " + site_lambda(text(k, close + 1, false), true) + ")"});
          edits_.push_back({close + 1, close + 1, marks.close});
          if (!marks.tail.empty()) edits_.push_back({next(subscripts_end(close)), last + 1, marks.tail});
        }
        if (!wrap.empty()) edits_.push_back({last + 1, last + 1, ")"});
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
      if (t == "sizeof" && is_ident(next(k))) {  // `sizeof s[0]`: the operand's postfix chain, unevaluated
        std::size_t end = next(k);
        for (std::size_t q = next(end);; q = next(end)) {
          if (is_punct(q, "[")) {
            end = match(q);
          } else if ((is_punct(q, ".") || is_punct(q, "->")) && is_ident(next(q))) {
            end = next(q);
          } else {
            break;
          }
        }
        k = end;
        continue;
      }
      if (in_declaration(k)) continue;
      if (device_array_subscript(k, device_arrays)) continue;
      if (t == "auto") {
        decay_auto_initializers(k, fn, local);
        continue;
      }
      if (std::size_t root_end = npos, last = npos; object_chain(k, fn, &root_end, &last)) {
        const bool subscripted = is_punct(next(root_end), "[");  // st.bins[i], stage[i]; else st.count
        const std::string wrap = proxy_wrapper(k, last);
        const std::size_t elem_last = subscripted ? subscripts_end(root_end) : k;
        const ChainMarks marks = chain_marks(k, elem_last, last, wrap);
        if (!subscripted && marks.tail.empty()) continue;  // &st.count: the member's address, as written
        if (!wrap.empty()) edits_.push_back({k, k, wrap});
        edits_.push_back({k, k, marks.open});
        if (subscripted) {  // a chain rooted at the member array, or at the array-like object
          edits_.push_back({k, root_end + 1, "COURSE_CHECKED_MEMBER(" + text(k, root_end + 1, true) + ", __LINE__)"});
          edits_.push_back({root_end + 1, root_end + 1, marks.close});
        } else if (fn.reference_objects.count(std::string(t))) {  // a.key: member<U>(for_member(root(&a))[0], .key)
          edits_.push_back({k, k + 1, reference_root(k) + marks.close + "[0]"});
        } else {  // st.count: member<U>(for_member(root(st as a one-element array))[0], .count)
          edits_.push_back({k, k + 1, "COURSE_CHECKED_OBJECT(" + std::string(t) + ", __LINE__)" + marks.close + "[0]"});
        }
        if (!marks.tail.empty()) edits_.push_back({next(elem_last), last + 1, marks.tail});
        if (!wrap.empty()) edits_.push_back({last + 1, last + 1, ")"});
        continue;
      }
      if (whole_reference_object(k, fn)) {  // `KV t = a;`, `a = b;`: the chain `root(&a, SITE)[0]`, its use marked
        const std::string wrap = proxy_wrapper(k, k);
        const ChainMarks marks = chain_marks(k, k, k, wrap);
        edits_.push_back(
            {k, k + 1, wrap + marks.open + reference_root(k) + marks.close + "[0]" + (wrap.empty() ? "" : ")")});
        continue;
      }
      if (whole_shared_object(k, fn)) {  // `best = KV{...};`, `KV b = best;`: a write or a read of the whole object
        const ChainMarks marks = chain_marks(k, k, k, "");
        edits_.push_back(
            {k, k + 1, marks.open + "COURSE_CHECKED_OBJECT(" + std::string(t) + ", __LINE__)" + marks.close + "[0]"});
        continue;
      }
      if (arrow_at(k, fn, local)) {  // p->x: p[0].x, a member access (chain_marks)
        std::size_t last = npos;
        const bool member = proxy_at(k, fn, local, &last);
        const std::string wrap = member ? proxy_wrapper(k, last) : "";
        const ChainMarks marks = member ? chain_marks(k, k, last, wrap) : ChainMarks{};
        if (marks.tail.empty()) {  // p->f(), p->bins[i], &p->x: the element (a class), bounds-checked
          edits_.push_back({k, k + 1, checked_root(k, fn) + "[0]"});
          edits_.push_back({next(k), next(k) + 1, "."});
          continue;
        }
        if (!wrap.empty()) edits_.push_back({k, k, wrap});
        edits_.push_back({k, k, marks.open});
        edits_.push_back({k, k + 1, checked_root(k, fn) + marks.close + "[0]"});
        edits_.push_back({next(k), last + 1, marks.tail});
        if (!wrap.empty()) edits_.push_back({last + 1, last + 1, ")"});
        continue;
      }
      std::size_t last = npos;
      if (!proxy_at(k, fn, local, &last)) continue;
      const std::string wrap = proxy_wrapper(k, last);
      if (!wrap.empty()) edits_.push_back({k, k, wrap});
      // The root marked with the element's use (for_store(), for_load(), a member access: chain_marks()).
      std::size_t close = npos;
      if (checked_subscript(k, fn, local)) {
        const std::string name(t);  // local_pointers() leaves out shared arrays and pointer parameters
        const char* macro = fn.local_pointers.count(name) ? "COURSE_CHECKED_LOCAL("
                            : fn.auto_locals.count(name)  ? "COURSE_CHECKED_AUTO("
                            : fn.device_param(name)       ? "COURSE_CHECKED_DEVICE_PARAM("
                                                          : "COURSE_CHECKED(";
        // `bk[b].keys[j]`: member_root(COURSE_CHECKED(bk, __LINE__)[b].keys, SITE)[j], the member array a root.
        const std::vector<std::size_t> arrays = element_member_arrays(k, local);
        const std::size_t root_last = arrays.empty() ? k : arrays.back();
        const ChainMarks marks = chain_marks(k, subscripts_end(root_last), last, wrap);
        edits_.push_back({k, k, marks.open});
        for (std::size_t a = 0; a < arrays.size(); ++a) edits_.push_back({k, k, "::course_cpu::check::member_root("});
        edits_.push_back({k, k + 1, macro + name + ", __LINE__)"});
        for (const std::size_t a : arrays)
          edits_.push_back({a + 1, a + 1, ", " + site_lambda(text(k, a + 1, true), true) + ")"});
        edits_.push_back({root_last + 1, root_last + 1, marks.close});
        if (!marks.tail.empty()) edits_.push_back({next(subscripts_end(root_last)), last + 1, marks.tail});
      } else if (cast_subscript(k, &close)) {
        // The cast's value is a pointer: checked like a local pointer, named by the cast's text in messages.
        const ChainMarks marks = chain_marks(k, subscripts_end(close), last, wrap);
        edits_.push_back({k, k, marks.open});
        edits_.push_back({k, k, "::course_cpu::check::root("});
        edits_.push_back({close + 1, close + 1, ", " + site_lambda(text(k, close + 1, false), true) + ")"});
        edits_.push_back({close + 1, close + 1, marks.close});
        if (!marks.tail.empty()) edits_.push_back({next(subscripts_end(close)), last + 1, marks.tail});
      } else if (last == k && fn.shared_scalars.count(std::string(t))) {
        edits_.push_back({k, k + 1, "COURSE_CHECKED_SCALAR(" + std::string(t) + ", __LINE__)"});
      }
      if (!wrap.empty()) edits_.push_back({last + 1, last + 1, ")"});
    }
    stamp(npos);
  }
}

void Rewriter::unparenthesized(std::size_t* first, std::size_t* last) const {
  // `(s[i])`, `((s[i]))`: parentheses that only group (not a call's, a cast's or a declarator's), as a macro's body
  // writes its expansion (`#define FETCH_FLOAT4(p) (reinterpret_cast<float4*>(&(p))[0])`).
  for (std::size_t p = prev(*first), q = next(*last); is_punct(p, "(") && match(p) == q; p = prev(p), q = next(q)) {
    const std::size_t before = prev(p);
    if (is_ident(before) || is_punct(before, ">") || is_punct(before, "]") || is_punct(before, ")")) return;
    *first = p;
    *last = q;
  }
}

bool Rewriter::assigned(std::size_t first, std::size_t last) const {
  if (last == npos) return false;
  unparenthesized(&first, &last);
  // `&s[i] = ...` never (an address is no element); in `*(float4*)&s[i] = v` only the dereference is stored to.
  return is_punct(next(last), "=") && !is_punct(prev(first), "&");
}

bool Rewriter::loaded(std::size_t first, std::size_t last) const {
  unparenthesized(&first, &last);
  const std::size_t eq = prev(first);
  if (!is_punct(eq, "=") || !(is_punct(next(last), ";") || is_punct(next(last), ","))) return false;
  // `x = s[i]`, `T v = s[i]`, `v.f = s[i]`, `a[k] = s[i]`; not `T& name = s[i];` (it binds), `decltype(auto) name`,
  // `auto& [a, b] = s[i];` (a structured binding).
  const std::size_t name = prev(eq);
  if (is_punct(name, "]")) {
    const std::size_t open = match_back(name);
    const std::size_t p = open == npos ? npos : prev(open);
    return p != npos && !(is_ident(p, "auto") || is_punct(p, "&") || is_punct(p, "&&"));
  }
  if (!is_ident(name)) return false;
  std::size_t before = prev(name);
  while (is_ident(before, "const") || is_ident(before, "volatile")) before = prev(before);
  if (is_punct(before, ")")) {  // decltype(auto) name: a copy of a member (`= s[i].x`), a reference to an element
    const std::size_t open = match_back(before);
    if (open != npos && is_ident(prev(open), "decltype"))
      return is_punct(prev(last), ".") || is_punct(prev(last), "->");
  }
  return !(is_punct(before, "&") || is_punct(before, "&&"));
}

Rewriter::ChainMarks Rewriter::chain_marks(std::size_t first, std::size_t elem_last, std::size_t last,
                                           const std::string& wrap) const {
  // A chain given as its value to a function's by-value parameter (proxy_wrapper()) is read whole, like the whole
  // right-hand side of `=`: a struct element passed by value (`combine(s[t], s[u])`) is a checked read.
  const bool argument = wrap == kValueWrap && template_argument(first, last) == Param::value;
  // Given to a class-type reference parameter that the callee checks (class_references.cpp): bounds only.
  const bool checked_ref = wrap != kValueWrap && checked_reference_argument(first, last);
  const char* use = checked_ref             ? "bound"
                    : !wrap.empty()         ? (argument ? "load" : "any")
                    : assigned(first, last) ? "store"
                    : loaded(first, last)   ? "load"
                                            : "any";
  ChainMarks marks;
  // `s[i].pos.x`: member<U>(for_member(s)[i], COURSE_CPU_MEMBER_OF(.pos.x)); not `&s[i].x`, an address (atomicAdd's
  // operand), which stays the element's bounds-checked member.
  // Nor `return s[i].x;` from a function that returns a reference (it binds the member, as it did).
  const bool bound = is_ident(prev(first), "return") && returns_reference(first);
  if (last != elem_last && !is_punct(prev(first), "&") && !bound) {
    marks.open = std::string("::course_cpu::check::member<::course_cpu::check::Use::") + use +
                 ">(::course_cpu::check::for_member(";
    marks.close = ")";
    std::string path = text(next(elem_last), last + 1, true);
    if (path.rfind("->", 0) == 0) path = "." + path.substr(2);  // p->x: p[0].x
    marks.tail = ", COURSE_CPU_MEMBER_OF(" + path + ", " + std::string(toks_[next(next(elem_last))].text) + "))";
  } else if (std::string_view(use) != "any") {
    marks.open = std::string("::course_cpu::check::for_") + use + "(";
    marks.close = ")";
  }
  return marks;
}

bool Rewriter::checked_subscript(std::size_t k, const Function& fn, const std::set<std::string>& local) const {
  return is_punct(next(k), "[") && checked_name(k, fn, local);
}

bool Rewriter::cast_subscript(std::size_t k, std::size_t* close) const {
  std::size_t end = npos;
  if (!pointer_cast(k, &end) || !is_punct(next(end), "[")) return false;
  *close = end;
  return true;
}

bool Rewriter::pointer_cast(std::size_t k, std::size_t* close) const {
  if (!(is_ident(k, "reinterpret_cast") || is_ident(k, "static_cast") || is_ident(k, "const_cast"))) return false;
  const std::size_t p = prev(k);
  if (p != npos && (is_punct(p, ".") || is_punct(p, "->") || is_punct(p, "::"))) return false;
  std::size_t q = next(k);
  if (!is_punct(q, "<")) return false;
  int angle = 0;
  std::size_t last_in_type = npos;
  for (; q < toks_.size(); q = next(q)) {
    if (is_open(q) && !is_punct(q, "(")) return false;  // no brackets in the type: keep to T*, const T*, T**
    if (is_punct(q, "(")) q = match(q);
    angle += is_punct(q, "<") ? 1 : is_punct(q, ">") ? -1 : is_punct(q, ">>") ? -2 : 0;
    if (angle <= 0) break;
    last_in_type = q;
  }
  if (angle != 0 || last_in_type == npos || !is_punct(last_in_type, "*")) return false;  // a cast to a pointer
  const std::size_t open = next(q);
  if (!is_punct(open, "(")) return false;
  const std::size_t end = match(open);
  if (end >= toks_.size()) return false;
  *close = end;
  return true;
}

bool Rewriter::continues_declaration(std::size_t comma, const Function& fn) const {
  static const std::set<std::string_view> not_a_type = {"return",  "case",  "throw",  "goto", "else",     "do",
                                                        "typedef", "using", "delete", "new",  "co_return"};
  // Back to the start of the statement, over whole bracketed groups (an initializer's call, a subscript).
  std::size_t start = npos;
  for (std::size_t q = prev(comma); q != npos && q >= fn.body_open; q = prev(q)) {
    if (is_close(q)) {
      int depth = 0;
      for (; q != npos && q > fn.body_open; q = prev(q)) {
        if (is_close(q)) ++depth;
        if (is_open(q) && --depth == 0) break;
      }
      if (q == npos || q <= fn.body_open) return false;
      continue;
    }
    if (is_punct(q, ";") || is_punct(q, "{") || is_punct(q, "}")) {
      start = next(q);
      break;
    }
    if (is_punct(q, "(")) {  // unmatched: the start of a for's init, or a call's argument list
      if (!is_ident(prev(q), "for")) return false;
      start = next(q);
      break;
    }
  }
  if (start == npos || !is_ident(start) || not_a_type.count(toks_[start].text)) return false;
  // TYPE (names, ::, <...>) then [* & const ...] NAME then = , ; [ : the first declarator.
  std::size_t q = start;
  int angle = 0, names = 0;
  for (; q < comma; q = next(q)) {
    if (is_punct(q, "<")) {
      ++angle;
    } else if (is_punct(q, ">")) {
      --angle;
    } else if (angle == 0 && (is_punct(q, "*") || is_punct(q, "&"))) {
      break;
    } else if (angle == 0 && is_ident(q) &&
               (is_punct(next(q), "=") || is_punct(next(q), ",") || is_punct(next(q), "[") || is_punct(next(q), ";"))) {
      return names > 0;  // NAME of a declarator whose type is the names before it
    } else if (!(is_ident(q) || is_punct(q, "::") || angle > 0)) {
      return false;
    }
    if (angle == 0 && is_ident(q)) ++names;
  }
  if (q >= comma || names == 0) return false;
  while (is_punct(q, "*") || is_punct(q, "&") || is_ident(q, "const") || is_ident(q, "volatile") ||
         is_ident(q, "__restrict__"))
    q = next(q);
  return is_ident(q) && (is_punct(next(q), "=") || is_punct(next(q), ",") || is_punct(next(q), ";"));
}

std::set<std::string> Rewriter::auto_locals(const Function& fn, const std::set<std::string>& local) const {
  std::set<std::string> names;
  for (std::size_t k = fn.body_open + 1; k < fn.body_close; ++k) {
    if (!is_ident(k, "auto") || in_declaration(k)) continue;
    std::size_t p = prev(k);
    while (is_ident(p, "const") || is_ident(p, "volatile")) p = prev(p);
    if (!(is_punct(p, ";") || is_punct(p, "{") || is_punct(p, "}") || (is_punct(p, "(") && is_ident(prev(p), "for"))))
      continue;  // not at the start of a statement or of a for's init (a lambda's parameter, a return type)
    std::size_t q = next(k);
    while (is_ident(q, "const") || is_ident(q, "volatile")) q = next(q);
    for (;;) {  // each declarator: NAME = initializer [, ...]
      if (!is_ident(q) || !is_punct(next(q), "=")) break;
      const std::string name(toks_[q].text);
      if (!local.count(name) && !global_shared_.count(name) && !fn.pointer_params.count(name)) names.insert(name);
      std::size_t end = next(next(q));
      int depth = 0;
      for (; end < fn.body_close; end = next(end)) {
        if (is_open(end)) ++depth;
        if (is_close(end) && --depth < 0) break;
        if (depth == 0 && (is_punct(end, ";") || is_punct(end, ","))) break;
      }
      if (!is_punct(end, ",")) break;
      q = next(end);
    }
  }
  return names;
}

std::set<std::string> Rewriter::checked_scalars(const Function& fn) const {
  const auto found = shared_scalars_.find(fn.body_open);
  if (found == shared_scalars_.end()) return {};
  return not_declared_again(found->second, fn);
}

std::set<std::string> Rewriter::not_declared_again(std::set<std::string> names, const Function& fn) const {
  static const std::set<std::string_view> not_a_type = {"return",   "case",     "throw",  "goto",    "else",
                                                        "do",       "sizeof",   "delete", "new",     "co_return",
                                                        "co_yield", "co_await", "typeid", "alignof", "decltype"};
  for (std::size_t k = fn.body_open + 1; k < fn.body_close && !names.empty(); ++k) {
    if (!is_ident(k) || !names.count(std::string(toks_[k].text)) || in_declaration(k)) continue;
    // `T name` (a declaration or a parameter of a lambda: the name means something else there), `T* name`, `T& name`;
    // not `w * s[i]`, `m & bits[i]`, `n && q[i]` (an operand after a name: an expression, whose array stays checked).
    std::size_t p = prev(k);
    while (p != npos && (is_punct(p, "*") || is_punct(p, "&") || is_punct(p, "&&")) && is_ident(prev(p))) p = prev(p);
    if (p != npos && is_ident(p) && !not_a_type.count(toks_[p].text) && (p == prev(k) || declarator_type(p, fn)))
      names.erase(std::string(toks_[k].text));
  }
  return names;
}

bool Rewriter::declarator_type(std::size_t t, const Function& fn) const {
  static const std::set<std::string_view> qualifiers = {"const",  "volatile", "unsigned", "signed",   "long",
                                                        "short",  "struct",   "class",    "union",    "typename",
                                                        "static", "register", "extern",   "constexpr"};
  std::size_t q = t;
  while (is_punct(prev(q), "::") && is_ident(prev(prev(q)))) q = prev(prev(q));  // ns::T
  const std::size_t p = prev(q);
  if (p == npos || p <= fn.body_open) return true;
  if (is_punct(p, ";") || is_punct(p, "{") || is_punct(p, "}")) return true;
  if (is_ident(p)) return qualifiers.count(toks_[p].text) > 0;
  if (is_punct(p, "(")) return is_ident(prev(p), "for") || is_punct(prev(p), "]");  // a for's init, a lambda's
  if (is_punct(p, ",")) return continues_declaration(p, fn);
  return false;
}

std::set<std::string> Rewriter::local_pointers(const Function& fn, const std::set<std::string>& local) const {
  static const std::set<std::string_view> not_a_type = {"return",  "case",  "throw",  "goto", "else",     "do",
                                                        "typedef", "using", "delete", "new",  "co_return"};
  std::set<std::string> names;
  for (std::size_t k = fn.body_open + 1; k < fn.body_close; ++k) {
    if (!is_punct(k, "*")) continue;
    // After the '*': qualifiers, the name, then = ; or , (a declarator, not a multiplication or a dereference); or
    // a pointer to an array, `(*name)[N]...` then = or ;.
    std::size_t n = next(k);
    while (is_ident(n, "const") || is_ident(n, "volatile") || is_ident(n, "__restrict__") || is_ident(n, "__restrict"))
      n = next(n);
    if (!is_ident(n)) continue;
    std::size_t type_end = k;  // the token after the type
    if (is_punct(prev(k), "(")) {
      std::size_t q = next(n);
      if (!is_punct(q, ")") || !is_punct(next(q), "[")) continue;
      for (q = next(q); is_punct(q, "["); q = next(match(q))) {
      }
      if (!is_punct(q, "=") && !is_punct(q, ";")) continue;
      type_end = prev(k);
    } else if (!(is_punct(next(n), "=") || is_punct(next(n), ";") || is_punct(next(n), ","))) {
      continue;
    } else if (is_punct(prev(k), ",")) {  // a later declarator: `float *p = a, *q = b;`
      const std::string name(toks_[n].text);
      if (continues_declaration(prev(k), fn) && !local.count(name) && !global_shared_.count(name) &&
          !fn.pointer_params.count(name))
        names.insert(name);
      continue;
    }
    // Before it: a type (identifiers, ::, template arguments) that starts a statement or a for's init.
    std::size_t first = npos;
    int angle = 0;
    bool type = true;
    std::size_t q = prev(type_end);
    for (; q != npos && q > fn.body_open; q = prev(q)) {
      if (angle == 0 && (is_punct(q, ";") || is_punct(q, "{") || is_punct(q, "}"))) break;
      if (angle == 0 && is_punct(q, "(")) {
        if (!is_ident(prev(q), "for")) type = false;
        break;
      }
      if (is_punct(q, ">")) {
        ++angle;
      } else if (is_punct(q, ">>")) {
        angle += 2;
      } else if (is_punct(q, "<")) {
        --angle;
      } else if (!is_ident(q) && !is_punct(q, "::") &&
                 !(angle > 0 && (is_punct(q, ",") || is_punct(q, "*") || toks_[q].kind == Tok::number))) {
        type = false;
        break;
      }
      first = q;
    }
    if (!type || angle != 0 || first == npos || not_a_type.count(toks_[first].text)) continue;
    const std::string name(toks_[n].text);
    if (!local.count(name) && !global_shared_.count(name) && !fn.pointer_params.count(name)) names.insert(name);
  }
  return names;
}

// `auto v = s[i];` would make v the element proxy (reading s[i] whenever v
// is used, writing s[i] on `v = ...`). In CUDA v is a copy, so the
// initializer becomes `::course_cpu::check::value(s[i])`, which gives the
// element's value (and leaves anything else as it is). In `auto* row =
// tile[i];` it is the row's pointer, as the array decays. `auto&` and
// `const auto&` declarations are left alone.
void Rewriter::decay_auto_initializers(std::size_t k, const Function& fn, const std::set<std::string>& local) {
  std::size_t q = next(k);
  while (is_ident(q, "const") || is_ident(q, "volatile")) q = next(q);
  if (is_ident(q) && (is_punct(next(q), "{") || is_punct(next(q), "("))) {  // auto v{s[i]}; auto v(s[i]);
    const std::size_t open = next(q), close = match(open);
    if (close >= toks_.size() || next(open) == close || !is_punct(next(close), ";")) return;
    bool checked = false;
    int depth = 0;
    for (std::size_t t = next(open); t < close; t = next(t)) {
      depth += is_open(t) ? 1 : is_close(t) ? -1 : 0;
      if (depth == 0 && is_punct(t, ",")) return;  // a list: left alone
      std::size_t last = npos;
      checked = checked || proxy_at(t, fn, local, &last);
    }
    if (checked) {
      edits_.push_back({next(open), next(open), "::course_cpu::check::value("});
      edits_.push_back({close, close, ")"});
    }
    return;
  }
  for (;;) {
    while (is_punct(q, "*") || is_ident(q, "const") || is_ident(q, "volatile")) q = next(q);  // auto* p = ...
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
