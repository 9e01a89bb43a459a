// course-rewrite, pass 1: the __global__/__device__ functions with a body,
// their pointer parameters, and the kernel templates of the file.
#include "passes.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace course_rewrite {

void Rewriter::find_device_macros() {
  // Macros that stand for __device__ (`#define DEV __device__ __forceinline__`, `#define HD __host__ __device__`,
  // `#define DEVICE_TEMPLATE(T) template <typename T> __device__`, and macros made of such macros): a function they
  // qualify is a __device__ function. Not __global__. And the macros that say `template`.
  std::map<std::string, std::string> bodies;
  for (const Token& t : toks_) {
    std::size_t body = 0, params = 0;
    if (t.kind != Tok::preproc || !define_body(t.text, &body, &params)) continue;
    const std::size_t name = t.text.find_first_not_of(" \t", t.text.find("define") + 6);
    const std::size_t name_end = params == std::string_view::npos ? body : params;
    const std::string macro(t.text.substr(name, name_end - name));
    bodies[macro] += " " + std::string(t.text.substr(body)) + " ";
    if (params == std::string_view::npos) continue;
    function_like_macros_.insert(macro);
    MacroDefinition& def = macro_definitions_[macro];
    def = {};
    for (const Token& p : tokenize(t.text.substr(params + 1, body - params - 2)))
      if (p.kind == Tok::identifier) def.params.emplace_back(p.text);
    for (const Token& b : tokenize(t.text.substr(body)))
      if (!is_blank(b) && b.kind != Tok::newline) def.body.push_back(b);
  }
  const auto has_word = [](const std::string& text, const std::string& word) {
    for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
      const auto part = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
      if ((at == 0 || !part(text[at - 1])) && (at + word.size() >= text.size() || !part(text[at + word.size()])))
        return true;
    }
    return false;
  };
  for (const auto& [name, body] : bodies)
    if (has_word(body, "template")) template_macros_.insert(name);
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [name, body] : bodies) {
      if (device_macros_.count(name) || has_word(body, "__global__")) continue;
      bool device = has_word(body, "__device__"), host = has_word(body, "__host__");
      for (const auto& [other, host_too] : device_macros_)
        if (has_word(body, other)) {
          device = true;
          host = host || host_too;
        }
      if (device) {
        device_macros_[name] = host;
        grew = true;
      }
    }
  }
}

void Rewriter::find_functions() {
  find_device_macros();
  find_arithmetic_aliases();
  std::set<std::size_t> seen_bodies;
  for (std::size_t i = 0; i < toks_.size(); ++i) {
    const bool device_macro = is_ident(i) && device_macros_.count(std::string(toks_[i].text));
    if (!is_ident(i, "__global__") && !is_ident(i, "__device__") && !device_macro) continue;
    // Walk to the parameter list's '(' (skipping attribute-like groups);
    // a ';', '=' or '{' first means a variable, not a function.
    std::size_t k = next(i);
    if (device_macro && function_like_macros_.count(std::string(toks_[i].text)) && is_punct(k, "(") && match(k) != npos)
      k = next(match(k));  // over the macro's arguments: DEVICE_TEMPLATE(T) T twice(T v)
    std::size_t open = npos;
    while (k < toks_.size()) {
      if (is_punct(k, ";") || is_punct(k, "=") || is_punct(k, "{")) break;
      if (is_punct(k, "(")) {
        const std::size_t p = prev(k);
        if (is_ident(p, "__launch_bounds__") || is_ident(p, "__align__") || is_ident(p, "alignas") ||
            is_ident(p, "__attribute__") || is_ident(p, "decltype") || is_ident(p, "__declspec")) {
          k = next(match(k));
          continue;
        }
        open = k;
        break;
      }
      k = next(k);
    }
    if (open == npos) continue;
    if (is_ident(i, "__global__") && is_ident(prev(open))) {
      const std::size_t t = template_keyword(i);
      if (t != npos) {
        const int params = angle_arguments(next(t));
        int& known = template_kernels_[std::string(toks_[prev(open)].text)];
        known = std::max(known, params);
      }
    }
    const std::size_t close = match(open);
    if (is_ident(prev(open)) && template_keyword(i) != npos)
      template_functions_[std::string(toks_[prev(open)].text)] = template_parameter_kinds(i, open);
    if (is_ident(prev(open)) && template_keyword(i) == npos) {
      // A plain function's parameters; overloads that differ in them leave the name unknown (empty).
      const auto [it, added] =
          function_params_.emplace(std::string(toks_[prev(open)].text), parameter_kinds(open, close));
      if (!added && it->second != parameter_kinds(open, close)) it->second.clear();
    }
    if (is_ident(i, "__global__") && is_ident(prev(open)) && template_keyword(i) == npos) {
      KernelDecls& d = kernel_decls_[std::string(toks_[prev(open)].text)];
      d.signatures.insert(text(open, close + 1, true));
      for (std::size_t k = next(open); k < close; k = is_open(k) ? match(k) : next(k))
        d.defaults = d.defaults || is_punct(k, "=");
    }
    // Qualifiers and trailing return types until the body or a ';'.
    std::size_t b = next(close);
    while (b < toks_.size() && !is_punct(b, "{") && !is_punct(b, ";")) {
      if (is_punct(b, "(")) b = match(b);
      b = next(b);
    }
    if (b < toks_.size() && is_punct(b, ";") && is_ident(prev(open)))
      declarations_[std::string(toks_[prev(open)].text)].push_back(open);
    if (b >= toks_.size() || !is_punct(b, "{") || seen_bodies.count(b)) continue;
    seen_bodies.insert(b);
    Function f{b, match(b), pointer_params(open, close), {}, ""};
    f.kernel = is_ident(i, "__global__");
    f.params_open = open;
    f.is_template = template_keyword(i) != npos;
    if (is_ident(prev(open))) ++definitions_[std::string(toks_[prev(open)].text)];
    const auto host = [&](std::size_t q) {
      const auto m = device_macros_.find(std::string(toks_[q].text));
      return is_ident(q, "__host__") || (m != device_macros_.end() && m->second);
    };
    for (std::size_t q = prev(i), n = 0; q != npos && is_ident(q) && n < 3; q = prev(q), ++n)
      f.host_too = f.host_too || host(q);
    for (std::size_t q = i; q < open; q = next(q)) f.host_too = f.host_too || host(q);
    if (is_ident(prev(open))) device_function_names_.insert(std::string(toks_[prev(open)].text));
    if (f.kernel && is_ident(prev(open))) {
      f.kernel_address = kernel_address(prev(open), open, close);
      if (template_keyword(i) == npos) kernel_decls_[std::string(toks_[prev(open)].text)].address = f.kernel_address;
    }
    functions_.push_back(std::move(f));
  }
  find_function_templates();
}

void Rewriter::find_function_templates() {
  // Every function template of the file, whatever its qualifiers are written as (`#define DEV __device__
  // __forceinline__`, a member template of a struct, `__host__ __device__` behind a macro): a by-value `T` parameter
  // deduces the element proxy from `f(s[i])`, and the copy would write the element (calls.cpp).
  for (std::size_t i = 0; i < toks_.size(); ++i) {
    std::size_t k = next(i);
    if (template_macro(i)) {  // `DEVICE_TEMPLATE(T) T twice(T v)`, `TPL __device__ T thrice(T v)`
      if (is_punct(k, "(") && match(k) != npos)
        k = match(k);
      else
        k = i;
    } else if (is_ident(i, "template") && is_punct(k, "<")) {
      for (int depth = 0; k < toks_.size(); k = next(k)) {  // to the template parameter list's '>'
        if (is_open(k)) {
          k = match(k);
          continue;
        }
        depth += is_punct(k, "<") ? 1 : is_punct(k, ">") ? -1 : is_punct(k, ">>") ? -2 : 0;
        if (depth <= 0) break;
      }
    } else {
      continue;
    }
    // The declaration after it: a function if a '(' after a name comes before any ';', '=', '{' or class key.
    const std::size_t header_end = k;
    for (k = next(k); k < toks_.size(); k = next(k)) {
      // A class template: its constructor's arguments are deduced (`Box b(s[i]);`, class_template()).
      if ((is_ident(k, "struct") || is_ident(k, "class")) && is_ident(next(k)) && !is_punct(next(next(k)), "<"))
        class_templates_.insert(std::string(toks_[next(k)].text));
      if (is_punct(k, ";") || is_punct(k, "=") || is_punct(k, "{") || is_ident(k, "template") || is_ident(k, "class") ||
          is_ident(k, "struct") || is_ident(k, "union") || is_ident(k, "concept") || is_ident(k, "using") ||
          is_ident(k, "operator") || toks_[k].kind == Tok::preproc)
        break;
      if (is_punct(k, "<")) {  // a return type's template arguments (`Vec<T, 4>`)
        int depth = 0;
        for (; k < toks_.size(); k = next(k)) {
          if (is_open(k)) k = match(k);
          depth += is_punct(k, "<") ? 1 : is_punct(k, ">") ? -1 : is_punct(k, ">>") ? -2 : 0;
          if (depth <= 0 || is_punct(k, ";") || is_punct(k, "{")) break;
        }
        continue;
      }
      if (!is_punct(k, "(")) continue;
      const std::size_t p = prev(k);
      if (is_ident(p, "__launch_bounds__") || is_ident(p, "__align__") || is_ident(p, "alignas") ||
          is_ident(p, "__attribute__") || is_ident(p, "decltype") || is_ident(p, "__declspec") ||
          is_ident(p, "requires") || is_ident(p, "noexcept") || is_ident(p, "__nv_pure__")) {
        k = match(k);
        continue;
      }
      if (is_ident(p)) template_functions_.emplace(std::string(toks_[p].text), template_parameter_kinds(header_end, k));
      break;
    }
  }
}

std::vector<Rewriter::Param> Rewriter::template_parameter_kinds(std::size_t from, std::size_t open) const {
  // A template returning a reference (`const T& maxref(const T& a, const T& b)`) may return its `const T&` parameter:
  // that binds the element itself (a value would be a temporary, the returned reference dangling). from: a token
  // after the template parameter list, before the return type.
  std::vector<Param> kinds = parameter_kinds(open, match(open));
  for (std::size_t k = from; k < open; k = next(k))
    if (is_punct(k, "&") || is_punct(k, "&&")) {
      std::replace(kinds.begin(), kinds.end(), Param::const_reference, Param::reference);
      break;
    }
  return kinds;
}

std::vector<Rewriter::Param> Rewriter::parameter_kinds(std::size_t open, std::size_t close) const {
  std::vector<Param> kinds;
  Param kind = Param::value;
  bool any = false, is_const = false, is_volatile = false, pack = false;
  int angle = 0;
  const auto finish = [&] {
    if (any) kinds.push_back(pack ? (kind == Param::reference ? Param::reference_pack : Param::value_pack) : kind);
    kind = Param::value;
    any = is_const = is_volatile = pack = false;
  };
  for (std::size_t k = next(open); k < close; k = next(k)) {
    if (is_open(k)) {
      // `const float (&row)[33]`: a reference to an array (or a function) binds the argument itself.
      for (std::size_t q = next(k); q < match(k); q = next(q))
        if (is_punct(k, "(") && (is_punct(q, "&") || is_punct(q, "&&"))) kind = Param::reference;
      k = match(k);
      any = true;
      continue;
    }
    angle += is_punct(k, "<") ? 1 : is_punct(k, ">") ? -1 : is_punct(k, ">>") ? -2 : 0;
    if (angle == 0 && is_punct(k, ",")) {
      finish();
      continue;
    }
    if (is_punct(k, "=") && angle == 0) {  // a default argument: skip to the next parameter
      while (next(k) < close && !(is_punct(next(k), ",") && angle == 0)) {
        k = next(k);
        if (is_open(k)) k = match(k);
      }
      continue;
    }
    any = true;
    is_const = is_const || is_ident(k, "const");
    is_volatile = is_volatile || is_ident(k, "volatile");
    if (is_punct(k, "...")) pack = true;
    if (angle == 0 && is_punct(k, "&&")) kind = Param::reference;  // a forwarding reference: keeps an lvalue
    // `const volatile T&` cannot bind a value: the element itself.
    if (angle == 0 && is_punct(k, "&")) kind = is_const && !is_volatile ? Param::const_reference : Param::reference;
  }
  finish();
  return kinds;
}

std::size_t Rewriter::template_keyword(std::size_t i) const {
  for (std::size_t k = prev(i); k != npos; k = prev(k)) {
    if (toks_[k].kind == Tok::preproc || is_punct(k, ";") || is_punct(k, "{") || is_punct(k, "}")) return npos;
    if (is_ident(k, "template") || template_macro(k)) return k;
  }
  return npos;
}

bool Rewriter::template_macro(std::size_t k) const {
  return is_ident(k) && template_macros_.count(std::string(toks_[k].text)) &&
         (!function_like_macros_.count(std::string(toks_[k].text)) || is_punct(next(k), "("));
}

int Rewriter::angle_arguments(std::size_t lt) const {
  if (!is_punct(lt, "<")) return 0;
  int angle = 1, nest = 0, count = 0;
  bool any = false;
  for (std::size_t k = next(lt); k < toks_.size(); k = next(k)) {
    if (toks_[k].kind == Tok::punct) {
      const std::string_view t = toks_[k].text;
      if (is_open(k))
        ++nest;
      else if (is_close(k))
        --nest;
      else if (nest == 0 && t == "<")
        ++angle;
      else if (nest == 0 && (t == ">" || t == ">>")) {
        angle -= t == ">" ? 1 : 2;
        if (angle <= 0) break;
      } else if (nest == 0 && angle == 1 && t == ",")
        ++count;
      else if (nest == 0 && angle == 1 && t == "...")
        return 1 << 20;
    }
    any = true;
  }
  return any ? count + 1 : 0;
}

std::string Rewriter::kernel_address(std::size_t name, std::size_t open, std::size_t close) const {
  for (std::size_t k = next(open); k < close; k = next(k)) {
    if (is_punct(k, "=") || toks_[k].kind == Tok::preproc) return "";  // a default argument cannot be in the type
    if (is_ident(k, toks_[name].text)) return "";  // a parameter named like the kernel hides it in the body
  }
  std::string args;
  const std::size_t t = template_keyword(name);
  if (t != npos) {
    // The template's parameter names, in order: the last name of each parameter (`typename T`, `int TILE = 16`,
    // `class... Ts` -> `Ts...`).
    const std::size_t lt = next(t);
    if (!is_punct(lt, "<")) return "";
    int depth = 0;
    std::string last;
    bool pack = false;
    for (std::size_t k = next(lt); k < toks_.size(); k = next(k)) {
      const bool end = depth == 0 && (is_punct(k, ",") || is_punct(k, ">") || is_punct(k, ">>"));
      if (end) {
        static const std::set<std::string> unnamed = {"typename", "class", "int",  "unsigned", "long", "short",
                                                      "char",     "bool",  "auto", "size_t",   ""};
        if (unnamed.count(last)) return "";
        args += (args.empty() ? "" : ", ") + last + (pack ? "..." : "");
        if (!is_punct(k, ",")) break;
        last.clear();
        pack = false;
        continue;
      }
      if (is_punct(k, "=") && depth == 0) {  // a default: skip to the parameter's end
        for (k = next(k); k < toks_.size(); k = next(k)) {
          if (depth == 0 && (is_punct(k, ",") || is_punct(k, ">") || is_punct(k, ">>"))) break;
          depth += nesting_step(k);
        }
        k = prev(k);
        continue;
      }
      depth += nesting_step(k);
      if (is_punct(k, "...")) pack = true;
      if (is_ident(k) && depth == 0) last = std::string(toks_[k].text);
    }
    args = "<" + args + ">";
  }
  return "static_cast<void (*)" + text(open, close + 1, false) + ">(&" + std::string(toks_[name].text) + args + ")";
}

std::set<std::string> Rewriter::pointer_params(std::size_t open, std::size_t close) const {
  std::set<std::string> names;
  std::size_t start = next(open);
  int depth = 0;
  for (std::size_t k = start; k <= close && k < toks_.size(); ++k) {
    if (is_blank(toks_[k])) continue;
    const bool end = (k == close) || (depth == 0 && is_punct(k, ","));
    if (!end) {
      depth += nesting_step(k);
      continue;
    }
    // One parameter: tokens [start, k).
    int stars = 0;
    bool bad = false, array = false;
    std::string name;
    for (std::size_t q = start; q < k; ++q) {
      if (is_blank(toks_[q])) continue;
      if (is_punct(q, "=")) break;  // default argument
      if (is_punct(q, "*"))
        ++stars;
      else if (is_punct(q, "&") || is_punct(q, "&&") || is_punct(q, "("))
        bad = true;
      else if (is_punct(q, "["))
        array = true;
      else if (is_ident(q) && !array)
        name = std::string(toks_[q].text);
    }
    if (!bad && !name.empty() && ((stars == 1 && !array) || (stars == 0 && array))) names.insert(name);
    start = next(k);
    depth = 0;
  }
  return names;
}

}  // namespace course_rewrite
