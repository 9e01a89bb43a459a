// course-rewrite, pass 4 (check mode): subscripts of the file's __device__ and __constant__ arrays.
//
//   __constant__ float w[5];   ...   w[i]      COURSE_CHECKED_DEVICE_ARRAY(w, __LINE__, read)[i]
//   __device__ int g[4][8];    ...   g[r][c] = v   COURSE_CHECKED_DEVICE_ARRAY(g, __LINE__, write)[r][c] = v
//
// Each index is checked against the declared extent (course_cpu/check_device_arrays.h): a stencil's `w[j + R + 1]`
// one past its `__constant__` weights read another variable's bytes unreported (red-team round 27). The element is
// used as it is: global memory has no shadow here. Arrays declared at namespace scope with a known extent; not in a
// function that declares the name again or takes it as a parameter.
#include "passes.h"

namespace course_rewrite {

void Rewriter::find_device_arrays() {
  for (std::size_t k = 0; k < toks_.size(); k = next(k)) {
    if (!(is_ident(k, "__constant__") || is_ident(k, "__device__")) || inside_function(k)) continue;
    // At namespace scope (`namespace ns {`, `namespace {`, `extern "C" {`), not a class's member.
    if (const std::size_t brace = enclosing_brace(k); brace != npos) {
      std::size_t b = prev(brace);
      if (is_ident(b) && is_ident(prev(b), "namespace")) b = prev(b);
      if (!is_ident(b, "namespace") && !(toks_[b].kind == Tok::string && is_ident(prev(b), "extern"))) continue;
    }
    // The declaration from here to its `;`: a name, then `[N]`; not a function (a `(` first), not a template, not
    // constexpr (indexed in constant expressions); `__align__(16)` and the like skipped; each declarator of the list.
    bool skip = false;  // `template <int N> __device__ float table[N];`, `constexpr`
    for (std::size_t t = prev(k); t != npos && !is_punct(t, ";") && !is_punct(t, "{") && !is_punct(t, "}"); t = prev(t))
      skip = skip || is_ident(t, "template") || is_ident(t, "constexpr");
    std::size_t name = npos;
    for (std::size_t t = next(k); t < toks_.size() && !skip; t = next(t)) {
      if (is_ident(t, "constexpr")) break;
      if ((is_ident(t, "__align__") || is_ident(t, "alignas") || is_ident(t, "__attribute__")) &&
          is_punct(next(t), "(")) {
        t = match(next(t));
        continue;
      }
      if (is_punct(t, "[") && name != npos && is_ident(name)) {
        // `extern __device__ int g[];`: no extent to check against
        if (!is_punct(next(t), "]")) device_arrays_[std::string(toks_[name].text)] = rank_at(t);
        name = npos;
      }
      if (is_open(t)) {  // extents, an initializer, a function's parameters
        if (is_punct(t, "(") && name != npos) break;
        t = match(t);
        continue;
      }
      if (is_punct(t, ";")) break;
      if (is_punct(t, ",") || is_punct(t, "=")) {
        name = npos;
        continue;
      }
      if (is_ident(t) || is_punct(t, "::")) name = t;
    }
  }
}

// The number of `[N]` groups from token t on: the declared array's rank.
int Rewriter::rank_at(std::size_t t) const {
  int rank = 0;
  for (; is_punct(t, "["); t = next(match(t))) ++rank;
  return rank;
}

std::set<std::string> Rewriter::device_arrays_of(const Function& fn) const {
  // Not in a member function defined in its class (a member may have the array's name), nor where fn declares the
  // name again or takes it as a parameter.
  if (const std::size_t brace = enclosing_brace(fn.body_open); brace != npos) {
    std::size_t b = prev(brace);
    if (is_ident(b) && is_ident(prev(b), "namespace")) b = prev(b);
    if (!is_ident(b, "namespace") && !(toks_[b].kind == Tok::string && is_ident(prev(b), "extern"))) return {};
  }
  std::set<std::string> all;
  for (const auto& entry : device_arrays_) all.insert(entry.first);
  std::set<std::string> names = not_declared_again(all, fn);
  if (fn.params_open != 0)
    for (std::size_t t = fn.params_open; t < match(fn.params_open); t = next(t))
      if (is_ident(t)) names.erase(std::string(toks_[t].text));
  return names;
}

bool Rewriter::device_array_subscript(std::size_t k, const std::set<std::string>& arrays) {
  if (!is_ident(k) || !is_punct(next(k), "[") || !arrays.count(std::string(toks_[k].text))) return false;
  const std::size_t p = prev(k);
  if (p != npos && (is_punct(p, ".") || is_punct(p, "->") || is_punct(p, "::"))) return false;
  const std::size_t last = subscripts_end(k);
  // Only a whole element (`table[r][c]`); a row (`table[r]`, bound, walked or decayed) is left as it is.
  int subscripts = 0;
  for (std::size_t t = next(k); is_punct(t, "["); t = next(match(t))) ++subscripts;
  if (subscripts != device_arrays_.at(std::string(toks_[k].text))) return false;
  // What messages say the thread does: `g[i] = v` writes, `g[i] += v` and `++g[i]` update, `&g[i]` accesses, any
  // other use reads.
  static const std::set<std::string_view> updates = {
      "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--"};
  const std::size_t after = next(last), before = prev(k);
  const char* kind = assigned(k, last) ? "write"
                     : (toks_[after].kind == Tok::punct && updates.count(toks_[after].text)) ||
                             is_punct(before, "++") || is_punct(before, "--")
                         ? "read_write"
                     : is_punct(before, "&") || is_punct(after, ".") || is_punct(after, "->") ? "none"
                                                                                              : "read";
  edits_.push_back(
      {k, k + 1, "COURSE_CHECKED_DEVICE_ARRAY(" + std::string(toks_[k].text) + ", __LINE__, " + kind + ")"});
  return true;
}

}  // namespace course_rewrite
