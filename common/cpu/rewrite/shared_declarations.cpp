// course-rewrite, pass 2: __shared__ declarations.
//   __shared__ T a[N];         -> static thread_local T a[N];
//   extern __shared__ T s[];   -> T* const s = ::course_cpu::dynamic_shared<T>();  (in a function)
//                                 static ::course_cpu::DynamicShared<T> s;         (at namespace scope)
// The names of shared arrays, and of shared scalars of an arithmetic type in a
// function, are remembered for pass 4 (check mode), which also gets a
// declare_shared() call after each such declaration inside a function.
#include "passes.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

namespace course_rewrite {

void Rewriter::add_shared_name(const std::string& name, bool in_function, const Function* fn) {
  if (in_function)
    shared_arrays_[fn->body_open].insert(name);
  else
    global_shared_.insert(name);
}

bool Rewriter::arithmetic_word(std::size_t k) const {
  static const std::set<std::string_view> words = {"float",   "double",   "int",     "unsigned", "signed",  "short",
                                                   "long",    "char",     "bool",    "size_t",   "int8_t",  "uint8_t",
                                                   "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t"};
  return is_ident(k) && (words.count(toks_[k].text) || arithmetic_aliases_.count(std::string(toks_[k].text)));
}

bool Rewriter::arithmetic_type(std::size_t b, std::size_t e) const {
  bool any = false;
  for (std::size_t k = b; k < e; k = next(k)) {
    if (is_punct(k, "::") || is_ident(k, "volatile") || is_ident(k, "const") || is_ident(k, "std")) continue;
    if (!arithmetic_word(k)) return false;
    any = true;
  }
  return any;
}

void Rewriter::find_arithmetic_aliases() {
  // `typedef unsigned int uint;`, `using real = float;`: names of arithmetic types (a `uint&` parameter, a
  // `__shared__ real total;`), also of other such names.
  for (std::size_t k = 0; k < toks_.size(); k = next(k)) {
    std::size_t first = npos, last = npos, name = npos;
    if (is_ident(k, "typedef")) {
      first = next(k);
      for (last = first; last < toks_.size() && !is_punct(last, ";"); last = next(last)) name = last;
      if (name == npos || !is_ident(name)) continue;
      last = name;
    } else if (is_ident(k, "using") && is_ident(next(k)) && is_punct(next(next(k)), "=")) {
      name = next(k);
      first = next(next(name));
      for (last = first; last < toks_.size() && !is_punct(last, ";"); last = next(last)) {
      }
    } else {
      continue;
    }
    if (last >= toks_.size() || first >= last || !arithmetic_type(first, last)) continue;
    arithmetic_aliases_.insert(std::string(toks_[name].text));
  }
}

std::size_t Rewriter::enclosing_brace(std::size_t i) const {
  for (std::size_t k = prev(i); k != npos; k = prev(k)) {
    if (is_close(k)) {
      k = match_back(k);
      if (k == npos) return npos;
    } else if (is_punct(k, "{")) {
      return k;
    }
  }
  return npos;
}

void Rewriter::rewrite_shared() {
  // Per kernel (its body's `{`): the `{` of the block each earlier declaration of static shared memory is in, and its
  // bytes, to sum those still in scope at a later one.
  std::map<std::size_t, std::vector<std::pair<std::size_t, std::string>>> kernel_shared;
  for (std::size_t i = 0; i < toks_.size(); ++i) {
    if (!is_ident(i, "__shared__")) continue;
    const Function* fn = nullptr;
    const bool in_function = inside_function(i, &fn);
    std::size_t semi = i;
    while (semi < toks_.size() && !is_punct(semi, ";")) {
      if (is_open(semi)) semi = match(semi);
      ++semi;
    }
    if (semi >= toks_.size()) continue;
    // The other declaration specifiers, in any order (`static volatile __shared__`, `__shared__ static`,
    // `extern __device__ __shared__`): `extern` makes it the dynamic array; `static` goes, as the replacement has it.
    static const std::set<std::string_view> specifiers = {"static",     "extern", "volatile", "const",
                                                          "__device__", "inline", "constexpr"};
    std::size_t first = i, ext = npos;
    for (std::size_t k = prev(i); k != npos && is_ident(k); k = prev(k)) {
      if (!specifiers.count(toks_[k].text)) break;
      if (is_ident(k, "extern")) ext = k;
      first = k;
    }
    for (std::size_t k = next(i); k < semi && is_ident(k) && specifiers.count(toks_[k].text); k = next(k))
      if (is_ident(k, "extern")) ext = k;  // `__shared__ extern float buffer[];` (the Programming Guide's spelling)
    if (ext != npos) {
      rewrite_extern_shared(first, i, semi, in_function, fn);
      continue;
    }
    // alignas right after a leading __shared__ (`__shared__ alignas(16) float a[64];`) must stay in front of the
    // specifiers that replace it, as g++ rejects attributes between decl-specifiers; after other specifiers
    // (`static __shared__ alignas(16)`) nvcc rejects it too, and so it stays where it is.
    std::size_t specifiers_at = next(i);
    while (first == i && specifiers_at < semi && is_ident(specifiers_at, "alignas") &&
           is_punct(next(specifiers_at), "("))
      specifiers_at = next(match(next(specifiers_at)));
    if (specifiers_at == next(i)) {
      edits_.push_back({i, i + 1, "static thread_local"});
    } else {
      edits_.push_back({i, i + 1, ""});
      edits_.push_back({specifiers_at, specifiers_at, "static thread_local "});
    }
    for (std::size_t k = first; k < semi; k = next(k)) {
      if (is_punct(k, "[") || is_punct(k, "=") || is_punct(k, ",")) break;
      if (is_ident(k, "static")) edits_.push_back({k, k + 1, ""});
    }
    // Declarators: `T a[N][M], b[K], c;` -> arrays a and b; a, b and c declared.
    std::vector<std::string> arrays, declared, scalars;
    int depth = 0;
    std::size_t last_ident = npos, type_end = npos;
    for (std::size_t k = next(i); k <= semi; k = next(k)) {
      if ((is_ident(k, "__attribute__") || is_ident(k, "__align__") || is_ident(k, "alignas")) &&
          is_punct(next(k), "(")) {
        k = match(next(k));  // an attribute, before or after a declarator: no name
        continue;
      }
      if (toks_[k].kind == Tok::punct) {
        const bool ends = depth == 0 && (is_punct(k, "[") || is_punct(k, ",") || is_punct(k, ";"));
        if (ends && last_ident != npos) {
          if (type_end == npos) type_end = last_ident;  // the first declarator's name ends the type
          declared.push_back(std::string(toks_[last_ident].text));
          if (is_punct(k, "["))
            arrays.push_back(declared.back());
          else
            scalars.push_back(declared.back());
          last_ident = npos;
        }
        depth += nesting_step(k);
      } else if (is_ident(k) && depth == 0) {
        last_ident = k;
      }
    }
    for (const std::string& a : arrays) add_shared_name(a, in_function, fn);
    // Every scalar is made known to the block (a pointer to it, `atomicAdd(&st.count, 1)`, is shared memory); those of
    // an arithmetic type become element proxies (`total += v`), the others' data members are checked (object_chain).
    const std::vector<std::string> regions = in_function ? scalars : std::vector<std::string>{};
    if (in_function && type_end != npos)
      for (const std::string& s : scalars)
        (arithmetic_type(next(i), type_end) ? shared_scalars_ : shared_objects_)[fn->body_open].insert(s);
    declaration_ranges_.push_back({i, semi});
    std::string after;
    if (mode_ == Mode::check && in_function) {
      for (const std::string& a : arrays) after += " ::course_cpu::check::declare_shared(" + a + ");";
      for (const std::string& s : regions) after += " ::course_cpu::check::declare_shared_scalar(" + s + ");";
    }
    if (in_function && !fn->kernel_address.empty() && !declared.empty()) {
      // The kernel's static shared memory, for cudaFuncGetAttributes and the occupancy API.
      std::string bytes;
      for (const std::string& d : declared) bytes += (bytes.empty() ? "sizeof(" : " + sizeof(") + d + ")";
      after += " static_cast<void>(::course_cpu::detail::StaticSharedNote<" + fn->kernel_address + ", " + bytes + ", " +
               std::to_string(i) + ">::noted);";
      // ptxas rejects a kernel with more than 48 KB of static shared memory: so does the backend, for the arrays in
      // scope here that the kernel names again (ptxas drops an array that is never used). ptxas also counts arrays of
      // blocks already closed and of __device__ functions the kernel calls; they cannot be named here, and are not.
      std::set<std::string_view> used;
      for (std::size_t k = next(semi); k < fn->body_close; k = next(k))
        if (is_ident(k) && std::find(declared.begin(), declared.end(), toks_[k].text) != declared.end())
          used.insert(toks_[k].text);
      std::string used_bytes;
      for (const std::string& d : declared)
        if (used.count(d) > 0) used_bytes += (used_bytes.empty() ? "sizeof(" : " + sizeof(") + d + ")";
      if (used_bytes.empty()) used_bytes = "0";
      auto& earlier = kernel_shared[fn->body_open];
      std::string in_scope = used_bytes;
      for (const auto& [open, b] : earlier)
        if (open != npos && match(open) > i) in_scope += " + " + b;
      earlier.emplace_back(enclosing_brace(i), used_bytes);
      after += " static_assert(::course_cpu::detail::StaticSharedFits<" + fn->kernel_address + ", " + in_scope +
               ">::value, COURSE_CPU_STATIC_SHARED_TOO_LARGE);";
    }
    if (!after.empty()) edits_.push_back({semi + 1, semi + 1, after});
  }
}

void Rewriter::rewrite_extern_shared(std::size_t ext, std::size_t shared, std::size_t semi, bool in_function,
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
    if (is_ident(k, "extern")) continue;  // after __shared__
    if (is_ident(k) && is_punct(next(k), "[")) {
      name = k;
      break;
    }
    if (!type.empty()) type += ' ';
    type += toks_[k].text;
  }
  if (name == npos || type.empty()) return;  // not understood: leave it to the compiler
  const std::string n(toks_[name].text);
  std::string replacement = in_function ? type + "* const " + n + " = ::course_cpu::dynamic_shared<" + type + ">();"
                                        : "static ::course_cpu::DynamicShared<" + type + "> " + n + ";";
  edits_.push_back({ext, semi + 1, replacement});
  add_shared_name(n, in_function, fn);
  declaration_ranges_.push_back({ext, semi});
}

}  // namespace course_rewrite
