// course-rewrite: the rewriting passes over one file's tokens (see rewriter.h).
//
// All changes are recorded as edits of token ranges and applied at the end
// (rewriter.cpp). An edit never changes the number of lines: if the replaced
// tokens spanned line breaks, the same number of line breaks is appended to
// the replacement.
#pragma once

#include "rewriter.h"
#include "tokenizer.h"

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace course_rewrite {

// The text of a C++ string literal's contents: \ and " escaped (rewriter.cpp).
std::string escape(const std::string& s);

// In a `#define NAME body` or `#define NAME(params) body` directive: where the body starts, and where the parameter
// list starts (`(`, or npos for an object-like macro). False for any other directive (macros.cpp).
bool define_body(std::string_view directive, std::size_t* body, std::size_t* params);

// What proxy_wrapper() puts before a chain that is read as its value.
inline constexpr const char* kValueWrap = "::course_cpu::check::value(";

struct Edit {
  std::size_t begin, end;  // token range [begin, end); begin == end inserts before begin
  std::string text;
  // Check mode's instrument(): the token whose form made this edit (where that form starts). An insertion after it
  // closes that form, so among insertions at one place the form that started later, the inner one, closes first
  // (Rewriter::apply()). SIZE_MAX: edits made elsewhere, applied in the order they were made.
  std::size_t from = static_cast<std::size_t>(-1);
};

// A __global__/__device__ function with a body.
struct Function {
  std::size_t body_open, body_close;  // the { and } tokens
  std::set<std::string> pointer_params;
  // Check mode: local references bound to a shared element (`float& r = s[i];`), which become element proxies.
  std::set<std::string> proxy_refs;
  // A __global__ function: the expression of its address as a `void (*)(...)`, for the notes of its static
  // __shared__ arrays (course_cpu/occupancy.h); empty if it cannot be written (another kind of function, a default
  // argument, an unnamed template parameter, a parameter named like the kernel).
  std::string kernel_address;
  // Check mode: local pointer variables (`float* Bs = smem + n;`, `const float4* in4 = ...;`), whose subscripts are
  // checked like a pointer parameter's where they point into shared or global memory (course_cpu/check.h).
  std::set<std::string> local_pointers;
  // Check mode: __shared__ scalars of an arithmetic type (`__shared__ float total;`), whose every use becomes an element
  // proxy like a subscript's (COURSE_CHECKED_SCALAR); left out when the name is declared again in the function.
  std::set<std::string> shared_scalars;
  // Check mode: the other __shared__ scalars (`__shared__ Stats st;`, `__shared__ union {...} tmp;`), whose data
  // members are checked (object_chain()); left out when the name is declared again in the function.
  std::set<std::string> shared_objects;
  // Check mode: reference parameters of a class type of a __device__ function (`KV& a`, `const float4& v`), whose data
  // members and whole uses are checked like `p->key` and `*p` with p = &a (class_references.cpp); left out when the
  // name is declared again in the function.
  std::set<std::string> reference_objects;
  // Check mode: `auto` locals (`auto row = A + r * k;`), whose subscripts are checked like a local pointer's where the
  // variable is a pointer, and left as they are where it is not (COURSE_CHECKED_AUTO).
  std::set<std::string> auto_locals;
  // A __global__ function; else a __device__ one, whose pointer parameters come from device code
  // (COURSE_CHECKED_DEVICE_PARAM).
  bool kernel = false;
  // The parameter list's '(' and whether the function is a template (check mode: reference_params()).
  std::size_t params_open = 0;
  bool is_template = false;
  // A __host__ __device__ function: nvcc compiles it for the host too (its device-only rules are warnings there).
  bool host_too = false;
  bool device_param(const std::string& name) const { return !kernel && pointer_params.count(name) > 0; }
};

class Rewriter {
 public:
  Rewriter(std::string_view source, Mode mode) : toks_(tokenize(source)), mode_(mode) {}

  std::string run();  // rewriter.cpp

 private:
  // ---- token helpers -------------------------------------------------------------
  bool is_ident(std::size_t i) const { return i < toks_.size() && toks_[i].kind == Tok::identifier; }
  bool is_ident(std::size_t i, std::string_view w) const { return is_ident(i) && toks_[i].text == w; }
  bool is_punct(std::size_t i, std::string_view p) const {
    return i < toks_.size() && toks_[i].kind == Tok::punct && toks_[i].text == p;
  }
  // ( [ { and ) ] }
  bool is_open(std::size_t i) const { return is_punct(i, "(") || is_punct(i, "[") || is_punct(i, "{"); }
  bool is_close(std::size_t i) const { return is_punct(i, ")") || is_punct(i, "]") || is_punct(i, "}"); }
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
  // The token closing the bracket opened at i: ( [ {.
  std::size_t match(std::size_t i) const {
    int depth = 0;
    for (std::size_t k = i; k < toks_.size(); ++k) {
      if (is_open(k))
        ++depth;
      else if (is_close(k) && --depth == 0)
        return k;
    }
    return toks_.size();
  }
  // The token opening the bracket closed at i: ) ] }; npos if there is none.
  std::size_t match_back(std::size_t i) const {
    int depth = 0;
    for (std::size_t k = i; k != npos; k = prev(k)) {
      if (is_close(k))
        ++depth;
      else if (is_open(k) && --depth == 0)
        return k;
    }
    return npos;
  }
  // The change of the nesting depth of ( [ { < at token k (> and >> close).
  int nesting_step(std::size_t k) const {
    if (is_open(k) || is_punct(k, "<")) return 1;
    if (is_close(k) || is_punct(k, ">")) return -1;
    return is_punct(k, ">>") ? -2 : 0;
  }
  bool inside_function(std::size_t i, const Function** f = nullptr) const {
    for (const Function& fn : functions_)
      if (i > fn.body_open && i < fn.body_close) {
        if (f) *f = &fn;
        return true;
      }
    return false;
  }
  std::string text(std::size_t b, std::size_t e, bool compact) const;

  // ---- pass 1: device functions and their pointer parameters (find_functions.cpp) ----
  void find_functions();
  // The `template` keyword starting the declaration that contains token i, or npos.
  std::size_t template_keyword(std::size_t i) const;
  // The number of arguments (or parameters) in the <...> list opened at token
  // lt; a parameter pack counts as very many.
  int angle_arguments(std::size_t lt) const;
  // Names of parameters declared as `T* name` (one '*') or `T name[]`.
  std::set<std::string> pointer_params(std::size_t open, std::size_t close) const;
  // How a parameter takes its argument: by value, by reference (T&, T&&, const volatile T&, an array's reference), by
  // const reference (const T&), or a pack of either.
  // proxy: the element proxy itself (a template's `T&` made `CourseCpuRefN&&`, template_reference_params()).
  enum class Param { value, reference, const_reference, value_pack, reference_pack, proxy };
  std::vector<Param> parameter_kinds(std::size_t open, std::size_t close) const;
  // A function template's, whose return type follows token `from` and whose parameter list opens at `open`.
  std::vector<Param> template_parameter_kinds(std::size_t from, std::size_t open) const;
  // `static_cast<void (*)(params)>(&name<template parameters>)` for the __global__ function whose name is at token
  // `name` and parameter list at [open, close]; "" if it cannot be written.
  std::string kernel_address(std::size_t name, std::size_t open, std::size_t close) const;

  // ---- pass 2: __shared__ declarations (shared_declarations.cpp) ------------------
  void rewrite_shared();
  void rewrite_extern_shared(std::size_t ext, std::size_t shared, std::size_t semi, bool in_function,
                             const Function* fn);
  void add_shared_name(const std::string& name, bool in_function, const Function* fn);
  // True if tokens [b, e) name an arithmetic type: float, unsigned int, volatile int, size_t, ...
  bool arithmetic_type(std::size_t b, std::size_t e) const;
  bool arithmetic_word(std::size_t k) const;  // one name of such a type, or an alias of one (below)
  void find_arithmetic_aliases();             // pass 1: `typedef unsigned int uint;`, `using real = float;`
  std::set<std::string> arithmetic_aliases_;
  // The `{` of the innermost block that holds token i (npos at namespace scope).
  std::size_t enclosing_brace(std::size_t i) const;
  // The shared scalars of fn that no other declaration in its body names (a shadowing local keeps its own meaning).
  std::set<std::string> checked_scalars(const Function& fn) const;
  // `names` less those the function declares again (`T name`, `T* name`, `T& name` outside their __shared__
  // declaration): the other declaration gives the name another meaning in some scope.
  std::set<std::string> not_declared_again(std::set<std::string> names, const Function& fn) const;
  // The type name at token t, before a `*` or `&`, starts a declaration (after `;`, `{`, `}`, a qualifier, a for's or a
  // lambda's `(`, or a `,` that continues a declaration), not an operand of an expression (`w * s[i]`).
  bool declarator_type(std::size_t t, const Function& fn) const;

  // ---- pass 2b, both modes: calls nvcc rejects in device code (nvcc_rules.cpp) ----------
  // In the bodies of __global__ and __device__ functions: a call of the standard library's constexpr __host__
  // functions (std::min, std::numeric_limits<T>::max()) gets a static_assert with the reason at the call, and each
  // argument of a <cmath> function that nvcc refuses for integers is wrapped in ::course_cpu::nvcc_math_argument().
  void nvcc_rules();
  // The names of the __device__/__global__ functions this file defines (a student's own `sqrt` is no <cmath> one).
  std::set<std::string> device_function_names_;
  // Macros that stand for __device__ -> whether they also say __host__ (find_device_macros()).
  std::map<std::string, bool> device_macros_;
  std::set<std::string> function_like_macros_;  // of the file's #defines
  struct MacroDefinition {
    std::vector<std::string> params;
    std::vector<Token> body;  // without blanks (a `\` line continuation included)
  };
  std::map<std::string, MacroDefinition> macro_definitions_;  // the function-like ones
  std::set<std::string> template_macros_;                     // macros whose body says `template`
  std::set<std::string> class_templates_;                     // the file's (`template <class T> struct Box`)
  bool class_template(std::size_t k) const;                   // a class template's name at k, not a member's
  bool template_macro(std::size_t k) const;  // a use of one of them at k (a function-like one with its arguments)
  std::map<std::string, int> definitions_;   // __device__ functions with a body: how many per name
  // __device__ functions declared without a body (`__device__ void acc(float& a, float b);` before the kernel that
  // calls it): the '(' of each such declaration's parameter list, per name.
  std::map<std::string, std::vector<std::size_t>> declarations_;

  // ---- pass 2c, both modes: shifts by a count that is not a literal, with a GPU's semantics (shifts.cpp) ----
  void gpu_shifts();
  // `<<`, `>>`, `<<=` or `>>=` at k is a shift (not a `>>` that may close template arguments).
  bool shift_operator(std::size_t k) const;
  // The last token of the count of the shift at op (before limit); npos where it is a single literal or cannot be
  // delimited.
  std::size_t shift_count_end(std::size_t op, std::size_t limit) const;

  // ---- pass 3: launches (launches.cpp) ---------------------------------------------
  void rewrite_launches();
  // The first token of the callee before the <<< at i: [::] name [<...>] { :: name [<...>] }, or a parenthesized
  // expression `(k)`; npos if there is none.
  std::size_t callee_start(std::size_t i) const;
  // A #define whose body launches a kernel (`#define RUN(p) k<<<1, 32>>>(p)`): the directive with its launches
  // rewritten as in code, the site's line being the expansion's (__LINE__).
  std::string macro_launches(std::string_view directive) const;

  // ---- pass 4 (check mode): checked subscripts (instrument.cpp) --------------------
  void instrument();
  // True if `name[` at k will be instrumented.
  bool checked_subscript(std::size_t k, const Function& fn, const std::set<std::string>& local) const;
  void decay_auto_initializers(std::size_t k, const Function& fn, const std::set<std::string>& local);
  bool in_declaration(std::size_t k) const;
  // Names declared in the body of fn as `T* name = ...;` / `T* name;` (one '*', at the start of a statement or of
  // a for's init), that are not shared arrays or pointer parameters.
  std::set<std::string> local_pointers(const Function& fn, const std::set<std::string>& local) const;
  // True if the declarator list that token `comma` continues starts a declaration (`float *p = a, *q = b;`: the
  // second declarator's ','), at the start of a statement or of a for's init.
  bool continues_declaration(std::size_t comma, const Function& fn) const;
  // Names declared `auto name = ...` (also `const auto`, and later declarators of the same declaration).
  std::set<std::string> auto_locals(const Function& fn, const std::set<std::string>& local) const;
  // `reinterpret_cast<T*>(...)[` (or static_cast, const_cast) at token k: a cast to a pointer subscripted in place;
  // `close` is its ')'.
  bool cast_subscript(std::size_t k, std::size_t* close) const;
  // `reinterpret_cast<T*>(...)` (or static_cast, const_cast) at token k: a cast to a pointer; `close` is its ')'.
  bool pointer_cast(std::size_t k, std::size_t* close) const;

  // ---- pass 4 (check mode): the file's __device__ and __constant__ arrays (device_arrays.cpp) ----------------------
  void find_device_arrays();
  std::map<std::string, int> device_arrays_;  // name -> rank
  int rank_at(std::size_t t) const;
  // Those fn neither declares again nor takes as a parameter.
  std::set<std::string> device_arrays_of(const Function& fn) const;
  // `name[` at k subscripts one of `arrays`: its chain's root is written out checked; true if so.
  bool device_array_subscript(std::size_t k, const std::set<std::string>& arrays);

  // ---- pass 4 (check mode): function-like macros (macros.cpp) -----------------------------------------
  // A parameter that is a whole operand of `?:` or the initializer of `auto x =` in a #define's body becomes
  // `::course_cpu::check::value((a))`, so that MAX(s[i], 0) is a float and SWAP's `auto t = (a)` a copy.
  void instrument_macros();
  std::string macro_with_values(std::string_view directive) const;
  // Both modes, in device function bodies: `__CUDA_ARCH__` gets the device pass's value, inline PTX is refused (macros.cpp).
  void device_directives();

  // ---- pass 4 (check mode): dereferences, C-style casts subscripted in place (dereferences.cpp) ----
  struct Deref {
    // *p, *(p + i - j) or *(i + p - j), *reinterpret_cast<T*>(x) or *(T*)x, *p++ / *p-- / *++p / *--p
    enum Form { plain, offset, cast, step } form;
    std::size_t name;      // p, or the cast's keyword
    std::size_t first_op;  // offset: the first top-level + or - (== last for `*(p)`); step: the ++ or --
    std::size_t last;      // the last token of the dereferenced expression
    std::size_t name_op = static_cast<std::size_t>(-1);  // offset: the + before p where p is not the first term
  };
  // A unary `*` at token k whose operand check mode can check as a subscript (forms above).
  bool deref_at(std::size_t k, const Function& fn, const std::set<std::string>& local, Deref* d) const;
  // `*(` at token k: the forms with terms, p among them.
  bool deref_terms(std::size_t k, const Function& fn, const std::set<std::string>& local, Deref* d) const;
  // store: the dereference is the target of `=` (its root wrapped in ::course_cpu::check::for_store()).
  void instrument_deref(std::size_t k, const Deref& d, const Function& fn, bool store = false);
  // Widens [first, last] over parentheses that only group it.
  void unparenthesized(std::size_t* first, std::size_t* last) const;
  // The token after `last` is `=` (an assignment, not `==`) and the one before `first` no `&`: the proxy from `first`
  // to `last` is stored to.
  bool assigned(std::size_t first, std::size_t last) const;
  // Tokens [first, last] are the whole right-hand side of `=` (`v = s[i];`, `float4 v = s[i], w;`), not the
  // initializer of a reference: the element is read as a whole.
  bool loaded(std::size_t first, std::size_t last) const;
  // The edits that mark how the checked chain [first, last] is used (Use in course_cpu/check_element.h): `open` goes
  // before its root, `close` right after the root, and its member path, if any (after its last subscript,
  // elem_last), is replaced by `tail` (`, COURSE_CPU_MEMBER_OF(.pos.x))`). A chain wrapped in value() or
  // element_ref() is marked only by its member path. Push `open` before the root's own edits, `close` after them.
  struct ChainMarks {
    std::string open, close, tail;
  };
  ChainMarks chain_marks(std::size_t first, std::size_t elem_last, std::size_t last, const std::string& wrap) const;
  // `p->member` at token k (p a checked pointer, not an `auto` local): `root(p, SITE)[0].member`.
  bool arrow_at(std::size_t k, const Function& fn, const std::set<std::string>& local) const;
  // A data member of a __shared__ scalar of class type at token k (fn.shared_objects): `st.count`, `st.pos.x`, checked
  // like `p->count` with p = &st (*root_end = k), or a member array subscripted, `st.bins[i]`, `tmp.rows[r][c].x`,
  // checked like a shared array of its own named `st.bins` (*root_end: the path's last name). *last: the chain's end.
  bool object_chain(std::size_t k, const Function& fn, std::size_t* root_end, std::size_t* last) const;
  // `bk[b].keys[j]`, `tiles[t].rows[r][c].x`: the member arrays subscripted after an element of the static __shared__
  // array at token k (the last name of each member path), each checked as an array of its own (member_root() in
  // course_cpu/check.h); empty for other chains.
  std::vector<std::size_t> element_member_arrays(std::size_t k, const std::set<std::string>& local) const;
  void signed_terms(const Deref& d);
  bool c_cast_close(std::size_t close) const;
  // The identifier at token k stands where only an operand can (after `=`, an arithmetic or logical operator, `?`,
  // `:`, `[`, `return`, a call's `(` or `,`): `n * *p` is then a multiplication, not the declarator `T * *p`.
  bool operand_position(std::size_t k, const Function& fn) const;
  // The `*` at token k is a dereference (not a multiplication or a declarator), as far as tokens tell.
  bool unary_star(std::size_t k, const Function& fn) const;
  // The `*` at token k dereferences a checked name right after a `>` that compares (`if (x > *p)`, `b = x > *p;`),
  // which unary_star() leaves alone as a possible template's `>` (`Foo<Bar> *p;` declares).
  bool comparison_star(std::size_t k, const Function& fn, const std::set<std::string>& local) const;
  // A shared array, a pointer parameter, a local pointer or an auto local at token k (not a member's name).
  bool checked_name(std::size_t k, const Function& fn, const std::set<std::string>& local) const;
  // `::course_cpu::check::root(p, SITE)` for the checked name at token k (root_or_self for an auto local).
  std::string checked_root(std::size_t k, const Function& fn) const;
  // `[] { static constinit Site site{"name", __FILE__, __LINE__, 0[, true]}; return &site; }()`
  std::string site_lambda(const std::string& name, bool local_pointer, bool device_param = false) const;
  // `((T*)x)[` at the '(' token k: a C-style cast to a pointer, subscripted in place; `close` is the outer ')'.
  bool c_cast_subscript(std::size_t k, std::size_t* close) const;
  // `(T*)operand` at token k (the cast's '('): a C-style cast to a pointer of a name, a `&name...` or a parenthesized
  // expression, with the operand's subscripts, calls and members; `last` is the operand's last token.
  bool c_cast_operand(std::size_t k, std::size_t* last) const;
  // Between the parentheses at open and close, a pointer type: [const] NAME[::NAME] * [const] * ...
  bool pointer_type(std::size_t open, std::size_t close) const;

  // ---- pass 4 (check mode): where an element proxy must be a value (value_contexts.cpp, calls.cpp)
  // If an element proxy starts at token k (a checked subscript chain, or a proxy reference), its last token.
  bool proxy_at(std::size_t k, const Function& fn, const std::set<std::string>& local, std::size_t* last) const;
  // The last `]` of the subscripts `[..][..]` that start right after token k.
  std::size_t subscripts_end(std::size_t k) const;
  // After a chain's last `]`: the last token of a member path `.pos.x` that is neither called nor subscripted nor
  // followed by `->` (a method, a member array, a pointer member's target keep today's element reference), or npos.
  // With first_op "->": the path of `p->x.y` from p.
  std::size_t member_path_end(std::size_t last, std::string_view first_op = ".") const;
  // The last token of the checked chain whose subscripts start right after token k: its member path's, or its `]`.
  std::size_t chain_end(std::size_t k) const;
  // Tokens [first, last] (with any parentheses around them) are the 2nd or 3rd operand of `?:`, or an argument of
  // printf: places where C++ would not read a proxy as its element's value (`c ? s[i] : 0` is an int).
  bool value_context(std::size_t first, std::size_t last) const;
  // Tokens [first, last] are a whole argument of a call to a function template of this file whose parameters are
  // deduced (`swap(s[i], s[j])`, `warp_sum(s[tid])`): a proxy would deduce the proxy type, which `T&` cannot bind and
  // `T` computes in. The argument's parameter kind, or nothing.
  std::optional<Param> template_argument(std::size_t first, std::size_t last) const;
  // Tokens [first, last] are a whole argument of a call: the call's '(' and the argument's index.
  bool argument_of_call(std::size_t first, std::size_t last, std::size_t* open, std::size_t* index) const;
  // ... of a call to a __device__ function of the file (one definition) at a parameter that is one of its
  // reference_objects(): the callee checks its uses, so the argument is bound with Use::bound.
  bool checked_reference_argument(std::size_t first, std::size_t last) const;
  // What a function of the file named `name` takes as its argument `index` (template_argument()'s rules).
  std::optional<Param> function_argument(const std::string& name, std::size_t index) const;
  // An element given as argument `index` of the function-like macro used at `macro` (macros.cpp).
  std::optional<Param> macro_argument(std::size_t macro, std::size_t index) const;
  // The name before the `<...>` closed at gt (`f<16>`), or npos.
  std::size_t template_name_before(std::size_t gt) const;
  // Whether the chain between tokens p and q is an operand of a binary operator (read as its value).
  bool binary_operand(std::size_t p, std::size_t q) const;
  // Whether the identifier at `callee`, called at token `at`, names a callable object declared in the enclosing
  // function, as a parameter (`F f`, `const Op& op`) or a local (`MaxOp op;`), whose operator() the rewriter cannot
  // see: it may be a template deducing the proxy type. Its arguments get the element itself (element_ref).
  bool callable_object(std::size_t callee, std::size_t at) const;
  // The identifier at `callee` names a math function of <cmath> or CUDA's math API, whose overloads an element proxy
  // would make ambiguous (`pow(x[i], 2.0)`): its proxy arguments become values.
  bool math_function(std::size_t callee) const;
  // The callee token is qualified cuda::std:: (libcu++'s standard library, which device code may call).
  bool cuda_std(std::size_t callee) const;
  bool braced_cuda_std_argument(std::size_t p, std::size_t q) const;
  // What a proxy [first, last] is wrapped in where it stands: `::course_cpu::check::value(` (?:, printf, a template's
  // `T` or `const T&`), `::course_cpu::check::element_ref(` (a template's `T&`: the element itself), or "".
  std::string proxy_wrapper(std::size_t first, std::size_t last) const;
  // Tokens [first, last] are the operand of a cast to a reference (`reinterpret_cast<float4&>(s[i])`, `(float2&)s[i]`).
  bool reference_cast_operand(std::size_t first, std::size_t last) const;
  // Tokens [first, last] are the whole operand of a cast, not to a reference (`reinterpret_cast<float4*>(As[r])`,
  // `(float2*)As[r]`, `(F4P)As[r]`, `reinterpret_cast<uintptr_t>(As[r])`): its value is taken.
  bool pointer_cast_operand(std::size_t first, std::size_t last) const;
  // `(float (*)[4])`, `(const T(*)[N][M])`: a C-style cast to a pointer to an array, ending at `close`.
  bool array_pointer_cast_close(std::size_t close) const;
  // The innermost function or lambda around token k returns a reference (`float& f(...)`, `-> float&`,
  // `decltype(auto)`); a lambda without a trailing return type, or a function returning a value, does not.
  bool returns_reference(std::size_t k) const;
  // `auto name = [...](auto x, auto& y) {...}` in fn's body: called like a function template of the file.
  void generic_lambdas(const Function& fn);
  // Check mode: `__device__ void add(float& dst, float v)` takes `auto&& dst`, so that an element passed to it stays a
  // proxy and what the function does through dst is checked (calls.cpp).
  void reference_params(Function& fn);
  // The same for the `float&` parameters of `auto NAME = [...](...) {...};` lambdas of fn's body, only called.
  void reference_lambdas(Function& fn);
  // The same for a function template's `T&` parameters (`swapv(T& a, T& b)`).
  void template_reference_params(Function& fn);
  std::set<std::size_t> lambda_params_;  // the names of reference_lambdas()' parameters where they are declared
  // reference_params()' conditions: the body at [open, close] shows no parameter's type and copies none unseen; every
  // use of the name at `name` but that one is a call.
  bool plain_body(std::size_t open, std::size_t close) const;
  bool only_called(std::size_t name) const;
  bool virtual_function(std::size_t open) const;  // the function whose parameter list opens at `open`
  // Makes the arithmetic reference parameters of the lists at `lists` (a definition, then its declarations) `auto&&`.
  void reference_edits(const std::vector<std::size_t>& lists, Function& fn);
  // reference_params(): the parameters of the list at `open` as token ranges [first, last) (empty if unbalanced), and
  // whether one is `[volatile] ARITHMETIC... & [name]` (`named`: with its name).
  std::vector<std::pair<std::size_t, std::size_t>> parameters(std::size_t open) const;
  bool arithmetic_reference(std::size_t first, std::size_t last, bool named) const;
  // ---- pass 0, check mode: accesses in macros and cache intrinsics written out (expansions.cpp) ----------
 public:
  // The source with the file's access macros expanded in device code and the cache load/store intrinsics made plain
  // loads and stores, keeping every line where it was.
  std::string expand_for_check();

 private:
  struct Expansion {
    std::vector<std::string> params;
    std::vector<Token> body;     // with blanks
    std::size_t defined_at = 0;  // the #define's token: uses before it are not the macro's
  };
  std::map<std::string, Expansion> expandable_macros() const;
  // The arguments of the call whose '(' is at `open`, as text (empty if it cannot be split as the preprocessor does).
  std::vector<std::string> call_arguments(std::size_t open) const;
  // The object a pointer expression points to: `&X` -> X, `p` -> *p, anything else -> *(...).
  std::string dereferenced(const std::string& pointer) const;

  // ---- check mode: class-type reference parameters (class_references.cpp) ----------
  // The classes, structs and unions the file defines, and CUDA's vector types: what a reference parameter's type must
  // name for its uses to be checked.
  void find_class_names();
  bool class_name(std::string_view name) const;
  std::set<std::string> class_names_;
  // Sets every function's reference_objects, and per __device__ function of the file with one definition, which of
  // its parameters they are.
  std::map<std::string, std::vector<bool>> checked_class_refs_;
  void find_checked_class_refs();
  // fn's reference parameters `[const] [struct] NAME[<...>] & name` of a class NAME (fn.reference_objects).
  std::set<std::string> reference_objects(const Function& fn) const;
  // The name at token k is a lambda's capture (`[a]`, `[&a]`, `[=, &a]`): not an expression.
  bool captured_name(std::size_t k) const;
  // A whole use of a reference object at token k (`KV t = a;`, `a = b;`, `f(a)`, `&a`): not a member access, a call,
  // a subscript, a capture or a label. Replaced by `root(&a, SITE)[0]`, as `*p` is.
  bool whole_reference_object(std::size_t k, const Function& fn) const;
  // A __shared__ scalar of a class type at token k stored or read whole (`best = KV{-1, 0};`, `KV b = best;`): checked
  // as a write or a read of its words (its members are checked by object_chain()).
  bool whole_shared_object(std::size_t k, const Function& fn) const;
  // The text that starts a checked chain at the reference object at token k: `root(address_of(a), SITE)`.
  std::string reference_root(std::size_t k) const;
  void find_function_templates();
  void find_device_macros();
  // `float& r = s[i];` at the `&` token k: becomes `auto&& r = s[i];` (a proxy that reads and writes s[i] at each
  // use); r is remembered in fn.proxy_refs.
  // A non-const `float& m = c ? s[i] : s[j];` becomes `auto&& m = ::course_cpu::check::either(c, s[i], s[j]);`.
  void reference_declaration(std::size_t k, Function& fn, const std::set<std::string>& local);
  // The initializer from token init is `c ? X : Y ;` where X or Y is a whole proxy: the `?`, the `:` and Y's last token.
  // With `close` (a `)`), the conditional is the text from init up to that token instead.
  bool conditional_of_proxies(std::size_t init, const Function& fn, const std::set<std::string>& local,
                              std::size_t* question, std::size_t* colon, std::size_t* last,
                              std::size_t close = npos) const;
  // `(c ? s[i] : s[j]) = v;` (or `+=`, ..., `++`) at the `(` token k: the conditional assigned to becomes
  // `(::course_cpu::check::either(c, s[i], s[j]))`, an lvalue of the chosen element as in CUDA. False: not that form.
  bool assigned_conditional(std::size_t k, const Function& fn, const std::set<std::string>& local);
  // Rewrites the conditional of proxies [init, last] with its `?` and `:` into either(c, X, Y).
  void either_edits(std::size_t init, std::size_t question, std::size_t colon, std::size_t last);

  // ---- output (rewriter.cpp) ----------------------------------------------------------
  // Directives (preprocessor tokens) are rewritten by several passes; each reads the text the earlier ones left
  // (directive) and replaces it (set_directive); run() turns the results into edits.
  std::string directive(std::size_t k) const {
    const auto it = directives_.find(k);
    return it != directives_.end() ? it->second : std::string(toks_[k].text);
  }
  void set_directive(std::size_t k, std::string text) { directives_[k] = std::move(text); }
  std::string apply();

  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  std::vector<Token> toks_;
  Mode mode_;
  std::vector<Edit> edits_;
  std::vector<Function> functions_;
  std::map<std::string, int> template_kernels_;  // __global__ templates of this file -> parameters
  // The non-template __global__ functions of this file by name: their parameter lists as written, whether any
  // declaration has a default argument, and the definition's typed address (Function::kernel_address).
  struct KernelDecls {
    std::set<std::string> signatures;
    bool defaults = false;
    std::string address;
  };
  std::map<std::string, KernelDecls> kernel_decls_;
  std::map<std::string, std::vector<Param>> template_functions_;  // function templates -> parameters
  std::map<std::string, std::vector<Param>> function_params_;     // __device__ functions -> parameters (if one set)
  std::map<std::size_t, std::set<std::string>> shared_arrays_;    // body '{' -> names
  std::map<std::size_t, std::set<std::string>> shared_scalars_;   // body '{' -> names of arithmetic __shared__ scalars
  std::map<std::size_t, std::set<std::string>> shared_objects_;   // body '{' -> names of the other __shared__ scalars
  std::set<std::string> global_shared_;
  std::vector<std::pair<std::size_t, std::size_t>> declaration_ranges_;
  std::set<std::size_t> lvalue_operands_;  // first tokens of proxies that are operands of either(...): not wrapped
  std::map<std::size_t, std::string> directives_;  // rewritten directives by token
  bool macro_body_ = false;             // this Rewriter rewrites the launches of a #define's body (macro_launches)
  std::set<std::string> macro_params_;  // and these are the macro's parameters
};

}  // namespace course_rewrite
