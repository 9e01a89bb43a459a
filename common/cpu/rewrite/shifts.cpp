// course-rewrite, pass 2c (both modes): shifts by a count that is not a literal take a GPU's semantics.
//
//   a << n, a >> n, a <<= n, a >>= n    a << ::course_cpu::shift_count(n), ...
//
// In C++ a shift by the operand's width or more is undefined; x86 takes the count modulo the width (`1u << 32` is 1),
// while a GPU's shl/shr clamp it to the width (`1u << 32` is 0, `-8 >> 40` is -1). Code relies on the GPU's result:
// the CUDA sample's warp mask `(1 << (blockDim.x / warpSize)) - 1` is all ones for 1024 threads on a GPU and 0 on x86
// (red-team round 27). course_cpu/shifts.h gives the wrapped count's operators the GPU's semantics.
//
// Only in the bodies of __global__ and __device__ functions; a count that is a single literal is left alone, and so
// is a shift whose operands this pass cannot delimit (a `>>` that may close template arguments, a count that calls a
// template), `operator<<` called by name, and a compound shift of a member (`h.bits <<= n`: a bit-field binds no
// reference); those keep x86's semantics. A left operand that is not an integer (a class or an enumeration with its
// own operator<<) gets the count as written.
#include "passes.h"

namespace course_rewrite {

namespace {

// Operators that end a shift's right operand (those that bind less tightly than << and >>).
const std::set<std::string_view> kEndsCount = {
    ";",  ",", "?", ":",  "=",  "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",  "<<=", ">>=", "<<",
    ">>", "<", ">", "<=", ">=", "==", "!=", "&",  "^",  "|",  "&&", "||", "<=>", "<<<", ">>>"};

}  // namespace

bool Rewriter::shift_operator(std::size_t k) const {
  if (!(is_punct(k, "<<") || is_punct(k, ">>") || is_punct(k, "<<=") || is_punct(k, ">>="))) return false;
  if (is_ident(prev(k), "operator")) return false;  // `operator<<(n)` called by name
  // `h.f <<= n`: a member may be a bit-field, which no reference binds (the compound shift keeps x86's semantics).
  if ((is_punct(k, "<<=") || is_punct(k, ">>=")) && is_ident(prev(k)) &&
      (is_punct(prev(prev(k)), ".") || is_punct(prev(prev(k)), "->")))
    return false;
  if (is_punct(k, "<<") || is_punct(k, "<<=")) return true;
  // `>>` may close two template argument lists (`Box<Box<int>> b;`): not a shift where a `<` comes before it in the
  // same statement and nesting (`a < b >> c` too, left as it is).
  for (std::size_t t = prev(k); t != npos; t = prev(t)) {
    if (is_close(t)) {
      t = match_back(t);
      if (t == npos) return false;
      continue;
    }
    if (is_open(t) || is_punct(t, ";")) return true;
    if (is_punct(t, "<")) return false;
  }
  return true;
}

std::size_t Rewriter::shift_count_end(std::size_t op, std::size_t limit) const {
  const std::size_t first = next(op);
  std::size_t last = npos;
  for (std::size_t t = first; t < limit; t = next(t)) {
    if (is_open(t)) {
      t = match(t);
      if (t >= limit) return npos;
      last = t;
      continue;
    }
    if (is_close(t) || (toks_[t].kind == Tok::punct && kEndsCount.count(toks_[t].text))) {
      if (is_punct(t, "<") && is_ident(last)) return npos;  // `n << f<3>(x)`: a template's arguments
      break;
    }
    last = t;
  }
  if (last == npos) return npos;
  if (last == first && toks_[first].kind == Tok::number) return npos;  // `x << 2`: a literal, < 32 in practice
  return last;
}

void Rewriter::gpu_shifts() {
  std::set<std::size_t> done;  // a token inside two functions' bodies (a class's member in a kernel) once
  for (const Function& fn : functions_) {
    for (std::size_t k = fn.body_open + 1; k < fn.body_close; ++k) {
      if (!shift_operator(k) || !done.insert(k).second) continue;
      const std::size_t last = shift_count_end(k, fn.body_close);
      if (last == npos) continue;
      edits_.push_back({next(k), next(k), "::course_cpu::shift_count("});
      edits_.push_back({last + 1, last + 1, ")"});
    }
  }
}

}  // namespace course_rewrite
