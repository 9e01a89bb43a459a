// course-rewrite: the rewriting passes (see rewriter.h).
//
// All changes are recorded as edits of token ranges and applied at the end.
// An edit never changes the number of lines: if the replaced tokens spanned
// line breaks, the same number of line breaks is appended to the replacement.
#include "rewriter.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "tokenizer.h"

namespace course_rewrite {
namespace {

struct Edit {
  std::size_t begin, end;  // token range [begin, end); begin == end inserts before begin
  std::string text;
};

// A __global__/__device__ function with a body.
struct Function {
  std::size_t body_open, body_close;  // the { and } tokens
  std::set<std::string> pointer_params;
};

class Rewriter {
 public:
  Rewriter(std::string_view source, Mode mode) : toks_(tokenize(source)), mode_(mode) {}

  std::string run() {
    find_functions();
    rewrite_shared();
    rewrite_launches();
    if (mode_ == Mode::check) instrument();
    for (std::size_t i = 0; i < toks_.size(); ++i)
      if (is_ident(i, "__noinline__")) edits_.push_back({i, i + 1, "__attribute__((noinline))"});
    return apply();
  }

 private:
  // ---- token helpers -------------------------------------------------------------
  bool is_ident(std::size_t i) const { return i < toks_.size() && toks_[i].kind == Tok::identifier; }
  bool is_ident(std::size_t i, std::string_view w) const { return is_ident(i) && toks_[i].text == w; }
  bool is_punct(std::size_t i, std::string_view p) const {
    return i < toks_.size() && toks_[i].kind == Tok::punct && toks_[i].text == p;
  }
  std::size_t next(std::size_t i) const {  // next non-blank token after i (or size)
    do ++i;
    while (i < toks_.size() && is_blank(toks_[i]));
    return i;
  }
  std::size_t prev(std::size_t i) const {  // previous non-blank token before i (or npos)
    while (i > 0) {
      --i;
      if (!is_blank(toks_[i])) return i;
    }
    return npos;
  }
  // The token closing the bracket opened at i: ( [ { (and < when angle).
  std::size_t match(std::size_t i) const {
    int depth = 0;
    for (std::size_t k = i; k < toks_.size(); ++k) {
      if (toks_[k].kind != Tok::punct) continue;
      const std::string_view t = toks_[k].text;
      if (t == "(" || t == "[" || t == "{") ++depth;
      else if (t == ")" || t == "]" || t == "}") {
        if (--depth == 0) return k;
      }
    }
    return toks_.size();
  }
  bool inside_function(std::size_t i, const Function** f = nullptr) const {
    for (const Function& fn : functions_)
      if (i > fn.body_open && i < fn.body_close) {
        if (f) *f = &fn;
        return true;
      }
    return false;
  }
  std::string text(std::size_t b, std::size_t e, bool compact) const {
    std::string s;
    for (std::size_t k = b; k < e; ++k) {
      if (is_blank(toks_[k])) {
        if (!compact && !s.empty() && s.back() != ' ') s += ' ';
        continue;
      }
      s += toks_[k].text;
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
  }

  // ---- pass 1: device functions and their pointer parameters --------------------------
  void find_functions() {
    std::set<std::size_t> seen_bodies;
    for (std::size_t i = 0; i < toks_.size(); ++i) {
      if (!is_ident(i, "__global__") && !is_ident(i, "__device__")) continue;
      // Walk to the parameter list's '(' (skipping attribute-like groups);
      // a ';', '=' or '{' first means a variable, not a function.
      std::size_t k = next(i);
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
      // Qualifiers and trailing return types until the body or a ';'.
      std::size_t b = next(close);
      while (b < toks_.size() && !is_punct(b, "{") && !is_punct(b, ";")) {
        if (is_punct(b, "(")) b = match(b);
        b = next(b);
      }
      if (b >= toks_.size() || !is_punct(b, "{") || seen_bodies.count(b)) continue;
      seen_bodies.insert(b);
      Function f{b, match(b), pointer_params(open, close)};
      functions_.push_back(std::move(f));
    }
  }

  // The `template` keyword starting the declaration that contains token i, or npos.
  std::size_t template_keyword(std::size_t i) const {
    for (std::size_t k = prev(i); k != npos; k = prev(k)) {
      if (toks_[k].kind == Tok::preproc || is_punct(k, ";") || is_punct(k, "{") || is_punct(k, "}"))
        return npos;
      if (is_ident(k, "template")) return k;
    }
    return npos;
  }

  // The number of arguments (or parameters) in the <...> list opened at token
  // lt; a parameter pack counts as very many.
  int angle_arguments(std::size_t lt) const {
    if (!is_punct(lt, "<")) return 0;
    int angle = 1, nest = 0, count = 0;
    bool any = false;
    for (std::size_t k = next(lt); k < toks_.size(); k = next(k)) {
      if (toks_[k].kind == Tok::punct) {
        const std::string_view t = toks_[k].text;
        if (t == "(" || t == "[" || t == "{") ++nest;
        else if (t == ")" || t == "]" || t == "}") --nest;
        else if (nest == 0 && t == "<") ++angle;
        else if (nest == 0 && (t == ">" || t == ">>")) {
          angle -= t == ">" ? 1 : 2;
          if (angle <= 0) break;
        } else if (nest == 0 && angle == 1 && t == ",") ++count;
        else if (nest == 0 && angle == 1 && t == "...") return 1 << 20;
      }
      any = true;
    }
    return any ? count + 1 : 0;
  }

  // Names of parameters declared as `T* name` (one '*') or `T name[]`.
  std::set<std::string> pointer_params(std::size_t open, std::size_t close) const {
    std::set<std::string> names;
    std::size_t start = next(open);
    int depth = 0;
    for (std::size_t k = start; k <= close && k < toks_.size(); ++k) {
      if (is_blank(toks_[k])) continue;
      const bool end = (k == close) || (depth == 0 && is_punct(k, ","));
      if (!end) {
        const std::string_view t = toks_[k].text;
        if (toks_[k].kind == Tok::punct) {
          if (t == "(" || t == "[" || t == "{" || t == "<") ++depth;
          if (t == ")" || t == "]" || t == "}" || t == ">") --depth;
          if (t == ">>") depth -= 2;
        }
        continue;
      }
      // One parameter: tokens [start, k).
      int stars = 0;
      bool bad = false, array = false;
      std::string name;
      for (std::size_t q = start; q < k; ++q) {
        if (is_blank(toks_[q])) continue;
        if (is_punct(q, "=")) break;  // default argument
        if (is_punct(q, "*")) ++stars;
        else if (is_punct(q, "&") || is_punct(q, "&&") || is_punct(q, "(")) bad = true;
        else if (is_punct(q, "[")) array = true;
        else if (is_ident(q) && !array) name = std::string(toks_[q].text);
      }
      if (!bad && !name.empty() && ((stars == 1 && !array) || (stars == 0 && array)))
        names.insert(name);
      start = next(k);
      depth = 0;
    }
    return names;
  }

  // ---- pass 2: __shared__ declarations ---------------------------------------------------
  void rewrite_shared() {
    for (std::size_t i = 0; i < toks_.size(); ++i) {
      if (!is_ident(i, "__shared__")) continue;
      const Function* fn = nullptr;
      const bool in_function = inside_function(i, &fn);
      std::size_t semi = i;
      while (semi < toks_.size() && !is_punct(semi, ";")) {
        if (is_punct(semi, "(") || is_punct(semi, "[") || is_punct(semi, "{")) semi = match(semi);
        ++semi;
      }
      if (semi >= toks_.size()) continue;
      const std::size_t before = prev(i);
      if (before != npos && is_ident(before, "extern")) {
        rewrite_extern_shared(before, i, semi, in_function, fn);
        continue;
      }
      const bool has_static = before != npos && is_ident(before, "static");
      edits_.push_back({i, i + 1, has_static ? "thread_local" : "static thread_local"});
      // Declarators: `T a[N][M], b[K], c;` -> arrays a and b.
      std::vector<std::string> arrays;
      int depth = 0;
      std::size_t last_ident = npos;
      for (std::size_t k = next(i); k < semi; k = next(k)) {
        const std::string_view t = toks_[k].text;
        if (toks_[k].kind == Tok::punct) {
          if (t == "[" && depth == 0 && last_ident != npos) {
            arrays.push_back(std::string(toks_[last_ident].text));
            last_ident = npos;
          }
          if (t == "(" || t == "[" || t == "{" || t == "<") ++depth;
          else if (t == ")" || t == "]" || t == "}" || t == ">") --depth;
          else if (t == ">>") depth -= 2;
          else if (t == "," && depth == 0) last_ident = npos;
        } else if (is_ident(k) && depth == 0) {
          last_ident = k;
        }
      }
      for (const std::string& a : arrays) {
        if (in_function) shared_arrays_[fn->body_open].insert(a);
        else global_shared_.insert(a);
        declarations_.insert(i);
      }
      declaration_ranges_.push_back({i, semi});
      if (mode_ == Mode::check && in_function && !arrays.empty()) {
        std::string reg;
        for (const std::string& a : arrays) reg += " ::course_cpu::check::declare_shared(" + a + ");";
        edits_.push_back({semi + 1, semi + 1, reg});
      }
    }
  }

  void rewrite_extern_shared(std::size_t ext, std::size_t shared, std::size_t semi, bool in_function,
                             const Function* fn) {
    // extern __shared__ [__align__(n)] T name[];
    std::size_t name = npos;
    std::string type;
    for (std::size_t k = next(shared); k < semi; k = next(k)) {
      if (is_ident(k, "__align__") || is_ident(k, "alignas") || is_ident(k, "__attribute__")) {
        k = match(next(k));
        continue;
      }
      if (is_punct(k, "[")) break;
      if (is_ident(k) && is_punct(next(k), "[")) {
        name = k;
        break;
      }
      if (!type.empty()) type += ' ';
      type += toks_[k].text;
    }
    if (name == npos || type.empty()) return;  // not understood: leave it to the compiler
    const std::string n(toks_[name].text);
    std::string replacement =
        in_function ? type + "* const " + n + " = ::course_cpu::dynamic_shared<" + type + ">();"
                    : "static ::course_cpu::DynamicShared<" + type + "> " + n + ";";
    edits_.push_back({ext, semi + 1, replacement});
    if (in_function) shared_arrays_[fn->body_open].insert(n);
    else global_shared_.insert(n);
    declaration_ranges_.push_back({ext, semi});
  }

  // ---- pass 3: launches ------------------------------------------------------------------
  void rewrite_launches() {
    for (std::size_t i = 0; i < toks_.size(); ++i) {
      if (!is_punct(i, "<<<")) continue;
      // The callee: [::] name [<...>] { :: name [<...>] }
      std::size_t k = prev(i);
      std::size_t start = npos;
      while (k != npos) {
        if (is_punct(k, ">") || is_punct(k, ">>") || is_punct(k, ">>>")) {
          int depth = 0;
          while (k != npos) {
            if (is_punct(k, ">")) depth += 1;
            else if (is_punct(k, ">>")) depth += 2;
            else if (is_punct(k, ">>>")) depth += 3;
            else if (is_punct(k, "<")) depth -= 1;
            else if (is_punct(k, "<<")) depth -= 2;
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
      if (start == npos) continue;
      // The matching >>> and the argument list.
      std::size_t close = npos;
      int depth = 0;
      for (std::size_t q = next(i); q < toks_.size(); q = next(q)) {
        if (is_punct(q, "(") || is_punct(q, "[") || is_punct(q, "{")) ++depth;
        else if (is_punct(q, ")") || is_punct(q, "]") || is_punct(q, "}")) --depth;
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
      if (deduced) {
        edits_.push_back({start, start, "::course_cpu::launch_deduced([](const auto&... course_cpu_args) { ("});
        edits_.push_back({i, i + 1, ")(course_cpu_args...); }, " + site});
      } else {
        edits_.push_back({start, start, "::course_cpu::launch("});
        edits_.push_back({i, i + 1, ", " + site});
      }
      edits_.push_back({close, close + 1, ")"});
    }
  }

  // ---- pass 4 (check mode): checked subscripts -----------------------------------------------
  void instrument() {
    for (const Function& fn : functions_) {
      const std::set<std::string>& local = shared_arrays_[fn.body_open];
      for (std::size_t k = fn.body_open + 1; k < fn.body_close; ++k) {
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
        if (!is_punct(next(k), "[")) continue;
        const std::size_t p = prev(k);
        if (p != npos && (is_punct(p, ".") || is_punct(p, "->") || is_punct(p, "::"))) continue;
        const std::string name(t);
        const char* macro = nullptr;
        if (local.count(name) || global_shared_.count(name)) macro = "COURSE_SH";
        else if (fn.pointer_params.count(name)) macro = "COURSE_GL";
        if (macro == nullptr) continue;
        edits_.push_back({k, k + 1, std::string(macro) + "(" + name + ", __LINE__)"});
      }
    }
  }

  // True if `name[` at k will be instrumented.
  bool checked_subscript(std::size_t k, const Function& fn, const std::set<std::string>& local) const {
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
  void decay_auto_initializers(std::size_t k, const Function& fn, const std::set<std::string>& local) {
    std::size_t q = next(k);
    while (is_ident(q, "const") || is_ident(q, "volatile")) q = next(q);
    for (;;) {
      if (!is_ident(q) || !is_punct(next(q), "=")) return;
      const std::size_t first = next(next(q));
      int depth = 0;
      bool angle = false, checked = false;
      std::size_t end = first;
      for (; end < toks_.size(); end = next(end)) {
        if (toks_[end].kind == Tok::punct) {
          const std::string_view t = toks_[end].text;
          if (t == "(" || t == "[" || t == "{") ++depth;
          else if (t == ")" || t == "]" || t == "}") {
            if (depth == 0) break;
            --depth;
          } else if (depth == 0 && (t == ";" || t == ",")) break;
          else if (t == "<") angle = true;
        }
        checked = checked || checked_subscript(end, fn, local);
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

  bool in_declaration(std::size_t k) const {
    for (auto [b, e] : declaration_ranges_)
      if (k > b && k < e) return true;
    return false;
  }

  // ---- output ---------------------------------------------------------------------------------
  std::string apply() {
    std::stable_sort(edits_.begin(), edits_.end(), [](const Edit& a, const Edit& b) {
      if (a.begin != b.begin) return a.begin < b.begin;
      return (a.end - a.begin) < (b.end - b.begin);  // insertions before replacements
    });
    std::string out;
    std::size_t i = 0;
    std::size_t e = 0;
    while (i < toks_.size() || e < edits_.size()) {
      if (e < edits_.size() && edits_[e].begin == i) {
        const Edit& ed = edits_[e++];
        if (ed.end < i) continue;  // overlapped by an earlier edit
        out += ed.text;
        int lines = 0;
        for (std::size_t k = ed.begin; k < ed.end; ++k)
          lines += static_cast<int>(std::count(toks_[k].text.begin(), toks_[k].text.end(), '\n'));
        lines -= static_cast<int>(std::count(ed.text.begin(), ed.text.end(), '\n'));
        out.append(static_cast<std::size_t>(std::max(lines, 0)), '\n');
        i = std::max(i, ed.end);
        continue;
      }
      if (i >= toks_.size()) break;
      out += toks_[i].text;
      ++i;
    }
    return out;
  }

  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  std::vector<Token> toks_;
  Mode mode_;
  std::vector<Edit> edits_;
  std::vector<Function> functions_;
  std::map<std::string, int> template_kernels_;  // __global__ templates of this file -> parameters
  std::map<std::size_t, std::set<std::string>> shared_arrays_;  // body '{' -> names
  std::set<std::string> global_shared_;
  std::set<std::size_t> declarations_;
  std::vector<std::pair<std::size_t, std::size_t>> declaration_ranges_;
};

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string rewrite(std::string_view source, const std::string& path, Mode mode) {
  std::string out = "// Generated by course-rewrite --mode ";
  out += mode == Mode::check ? "check" : "fast";
  out += " from " + path + ". Do not edit.\n";
  if (mode == Mode::check) out += "#define COURSE_CPU_CHECK_MODE 1\n";
  out += "#include <course_cpu/prelude.h>\n";
  out += "#line 1 \"" + escape(path) + "\"\n";
  out += Rewriter(source, mode).run();
  return out;
}

}  // namespace course_rewrite
