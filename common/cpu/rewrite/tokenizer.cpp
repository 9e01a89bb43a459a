// course-rewrite: tokenizer (see tokenizer.h).
#include "tokenizer.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace course_rewrite {
namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

// Longest first.
constexpr std::array<std::string_view, 28> kPuncts = {"<<<", ">>>", "<<=", ">>=", "->*", "...", "<=>", "::", "->", "++",
                                                      "--",  "<<",  ">>",  "<=",  ">=",  "==",  "!=",  "&&", "||", "+=",
                                                      "-=",  "*=",  "/=",  "%=",  "&=",  "|=",  "^=",  ".*"};

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  std::vector<Token> run() {
    bool line_start = true;  // only blanks since the last line break
    while (i_ < s_.size()) {
      const std::size_t begin = i_;
      const int line = line_;
      const char c = s_[i_];
      Tok kind;
      if (c == '\n') {
        ++i_;
        ++line_;
        kind = Tok::newline;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        while (i_ < s_.size() &&
               (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\r' || s_[i_] == '\f' || s_[i_] == '\v'))
          ++i_;
        kind = Tok::space;
      } else if (c == '/' && peek(1) == '/') {
        line_comment();
        kind = Tok::comment;
      } else if (c == '/' && peek(1) == '*') {
        block_comment();
        kind = Tok::comment;
      } else if (c == '#' && line_start) {
        directive();
        kind = Tok::preproc;
      } else if (ident_start(c)) {
        while (i_ < s_.size() && ident_char(s_[i_])) ++i_;
        const std::string_view word = s_.substr(begin, i_ - begin);
        if (i_ < s_.size() && s_[i_] == '"' && is_raw_prefix(word)) {
          raw_string();
          kind = Tok::string;
        } else if (i_ < s_.size() && (s_[i_] == '"' || s_[i_] == '\'') && is_prefix(word)) {
          const char q = s_[i_];
          quoted(q);
          kind = q == '"' ? Tok::string : Tok::chr;
        } else {
          kind = Tok::identifier;
        }
      } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                 (c == '.' && std::isdigit(static_cast<unsigned char>(peek(1))))) {
        number();
        kind = Tok::number;
      } else if (c == '"' || c == '\'') {
        quoted(c);
        kind = c == '"' ? Tok::string : Tok::chr;
      } else {
        std::size_t len = 1;
        for (std::string_view p : kPuncts)
          if (s_.substr(i_, p.size()) == p) {
            len = p.size();
            break;
          }
        i_ += len;
        kind = Tok::punct;
      }
      out_.push_back(Token{kind, s_.substr(begin, i_ - begin), line});
      if (kind == Tok::newline)
        line_start = true;
      else if (kind != Tok::space && kind != Tok::comment)
        line_start = false;
    }
    return std::move(out_);
  }

 private:
  char peek(std::size_t k) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }

  static bool is_prefix(std::string_view w) { return w == "u8" || w == "u" || w == "U" || w == "L"; }
  static bool is_raw_prefix(std::string_view w) {
    return w == "R" || w == "u8R" || w == "uR" || w == "UR" || w == "LR";
  }

  void advance() {
    if (s_[i_] == '\n') ++line_;
    ++i_;
  }

  void line_comment() {
    while (i_ < s_.size() && s_[i_] != '\n') {
      if (s_[i_] == '\\' && peek(1) == '\n') advance();  // continued comment line
      advance();
    }
  }

  void block_comment() {
    i_ += 2;
    while (i_ < s_.size() && !(s_[i_] == '*' && peek(1) == '/')) advance();
    i_ = std::min(i_ + 2, s_.size());
  }

  // A directive runs to the end of the line; backslash-newline continues it,
  // and a /* comment */ inside it may span lines.
  void directive() {
    while (i_ < s_.size() && s_[i_] != '\n') {
      if (s_[i_] == '\\' && peek(1) == '\n') {
        advance();
        advance();
      } else if (s_[i_] == '/' && peek(1) == '*') {
        block_comment();
      } else if (s_[i_] == '/' && peek(1) == '/') {
        line_comment();
      } else if (s_[i_] == '"' || s_[i_] == '\'') {
        quoted(s_[i_]);
      } else {
        advance();
      }
    }
  }

  void quoted(char q) {
    ++i_;
    while (i_ < s_.size() && s_[i_] != q && s_[i_] != '\n') {
      if (s_[i_] == '\\' && i_ + 1 < s_.size()) advance();
      advance();
    }
    if (i_ < s_.size() && s_[i_] == q) ++i_;
  }

  // R"delim( ... )delim"
  void raw_string() {
    ++i_;  // "
    const std::size_t d0 = i_;
    while (i_ < s_.size() && s_[i_] != '(' && s_[i_] != '\n') ++i_;
    const std::string close = ")" + std::string(s_.substr(d0, i_ - d0)) + "\"";
    const std::size_t end = s_.find(close, i_);
    const std::size_t stop = end == std::string_view::npos ? s_.size() : end + close.size();
    while (i_ < stop) advance();
  }

  // A pp-number: digits, letters, '.', digit separators and exponent signs.
  void number() {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if ((c == 'e' || c == 'E' || c == 'p' || c == 'P') && (peek(1) == '+' || peek(1) == '-')) {
        i_ += 2;
      } else if (ident_char(c) || c == '.' || (c == '\'' && std::isalnum(static_cast<unsigned char>(peek(1))))) {
        ++i_;
      } else {
        break;
      }
    }
  }

  std::string_view s_;
  std::size_t i_ = 0;
  int line_ = 1;
  std::vector<Token> out_;
};

}  // namespace

std::vector<Token> tokenize(std::string_view source) { return Lexer(source).run(); }

}  // namespace course_rewrite
