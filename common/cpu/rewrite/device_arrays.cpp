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
    // The declaration from here to its `;`: a name, then `[N]`; not a function (a `(` first), not a template.
    std::size_t name = npos;
    for (std::size_t t = next(k); t < toks_.size(); t = next(t)) {
      if (is_punct(t, "[")) {
        if (is_punct(next(t), "]")) name = npos;  // `extern __device__ int g[];`: no extent to check against
        break;
      }
      if (!is_ident(t) && !is_punct(t, "::")) {
        name = npos;
        break;
      }
      name = t;
    }
    if (name == npos || !is_ident(name)) continue;
    bool templated = false;  // `template <int N> __device__ float table[N];`
    for (std::size_t t = prev(k); t != npos && !is_punct(t, ";") && !is_punct(t, "{") && !is_punct(t, "}"); t = prev(t))
      templated = templated || is_ident(t, "template");
    if (!templated) device_arrays_.insert(std::string(toks_[name].text));
  }
}

std::set<std::string> Rewriter::device_arrays_of(const Function& fn) const {
  std::set<std::string> names = not_declared_again(device_arrays_, fn);
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
