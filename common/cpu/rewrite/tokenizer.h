// course-rewrite: a C++ tokenizer that keeps every byte of the input.
// Concatenating the texts of all tokens gives the input back exactly, so the
// rewriter can change a few tokens and leave everything else (comments,
// spacing, line breaks) as the student wrote it.
#pragma once

#include <string_view>
#include <vector>

namespace course_rewrite {

enum class Tok {
  identifier,
  number,
  string,   // "..." with any prefix, and raw strings R"d(...)d"
  chr,      // '...'
  punct,    // operators and punctuation; <<< and >>> are single tokens
  comment,  // // ... and /* ... */
  space,    // blanks without a line break
  newline,  // one '\n'
  preproc,  // a whole preprocessor directive, with its continuation lines
};

struct Token {
  Tok kind;
  std::string_view text;
  int line;  // 1-based line of the first character
};

std::vector<Token> tokenize(std::string_view source);

// Whitespace, line breaks and comments: skipped when looking at neighbours.
inline bool is_blank(const Token& t) {
  return t.kind == Tok::space || t.kind == Tok::newline || t.kind == Tok::comment;
}

}  // namespace course_rewrite
