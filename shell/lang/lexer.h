/* The lexer of the mongosh-literal language: turns source text into tokens (names, numbers, decoded strings,
 * punctuation, regexes and the raw words after use/show/help), each with its line, column and byte offset.
 * It validates UTF-8 as it goes and decodes string escapes; the parser pulls one token at a time. */
#ifndef SHARDSH_LEXER_H
#define SHARDSH_LEXER_H

#include <stdbool.h>
#include <stddef.h>

#include "shell/core/errors.h"

typedef enum {
   SH_TOK_EOF,
   SH_TOK_IDENT,    /* name: [A-Za-z_$] or any non-ASCII letter, then also digits */
   SH_TOK_NUMBER,   /* unsigned numeric literal; num holds its value */
   SH_TOK_STRING,   /* '...' or "..."; str/str_len hold the decoded bytes (valid UTF-8, may contain NUL) */
   SH_TOK_REGEX,    /* /pattern/flags, only from sh_lex_regex; str = pattern, flags = flags */
   SH_TOK_WORD,     /* a raw word after use/show/help, only from sh_lex_word; str = the word */
   SH_TOK_LBRACE,   /* { */
   SH_TOK_RBRACE,   /* } */
   SH_TOK_LBRACKET, /* [ */
   SH_TOK_RBRACKET, /* ] */
   SH_TOK_LPAREN,   /* ( */
   SH_TOK_RPAREN,   /* ) */
   SH_TOK_COMMA,    /* , */
   SH_TOK_COLON,    /* : */
   SH_TOK_SEMI,     /* ; */
   SH_TOK_DOT,      /* . */
   SH_TOK_PLUS,     /* + */
   SH_TOK_MINUS,    /* - */
   SH_TOK_SLASH,    /* / (the parser may rescan it as a regex) */
   SH_TOK_OTHER,    /* any other operator character (=, *, =>, ...): never valid, kept for error messages */
} sh_tok_kind_t;

/* How a numeric literal was written. */
typedef enum {
   SH_NUM_INT,   /* decimal digits only */
   SH_NUM_FLOAT, /* decimal with a fraction or an exponent */
   SH_NUM_RADIX, /* 0x, 0o or 0b */
} sh_num_form_t;

typedef struct {
   sh_tok_kind_t kind;
   sh_pos_t pos;     /* first byte of the token; pos.len is its length in bytes */
   const char *text; /* the token's source bytes (pos.len of them); borrowed from the lexer's text */
   bool nl_before;   /* a line break separates this token from the one before it */
   char *str;        /* STRING, REGEX, WORD: decoded bytes, NUL-terminated; owned, see sh_token_destroy */
   size_t str_len;
   char flags[8];      /* REGEX: the flags as written */
   double num;         /* NUMBER: the value as a JavaScript number */
   sh_num_form_t form; /* NUMBER: how it was written */
} sh_token_t;

/* Lexer state. It is a plain value: copying it saves a position, assigning the copy back rewinds to it. */
typedef struct {
   const char *src; /* the text; borrowed, need not be NUL-terminated */
   size_t len;
   size_t off; /* next byte to read */
   int line;   /* line and column (in characters) of the byte at off */
   int col;
   bool incomplete; /* set when the last error was the text ending inside a string, comment or regex */
} sh_lexer_t;

/* The outcome of sh_lex_word. */
typedef enum {
   SH_WORD_ERROR = -1, /* err is set */
   SH_WORD_NONE = 0,   /* something other than a word or the end of the statement follows (the lexer is unmoved) */
   SH_WORD_END,        /* the statement ends here: line break, ';', end of text or a // comment (lexer unmoved) */
   SH_WORD_FOUND,      /* tok is a SH_TOK_WORD and the lexer has moved past it */
} sh_word_result_t;

/* Starts lexing len bytes of src at line 1, column 1. A leading UTF-8 byte order mark and a "#!" first line are
 * skipped. src must outlive the lexer and every token it produces. */
void
sh_lex_init (sh_lexer_t *lx, const char *src, size_t len);

/* Reads the next token into tok, skipping whitespace and comments. Returns false with err set (kind SH_ERR_PARSE,
 * position of the offending bytes) on malformed input; tok is then an empty SH_TOK_EOF. On success the caller owns
 * tok and releases it with sh_token_destroy. */
bool
sh_lex_next (sh_lexer_t *lx, sh_token_t *tok, sh_error_t *err);

/* Rescans a regex literal whose opening '/' is slash, the token sh_lex_next just returned. On success tok is a
 * SH_TOK_REGEX owned by the caller. On failure err is set and tok is empty. */
bool
sh_lex_regex (sh_lexer_t *lx, const sh_token_t *slash, sh_token_t *tok, sh_error_t *err);

/* For the words after use, show and help: skips spaces, tabs and comments on the current line, then reports what
 * follows. A word is a run of characters other than whitespace, quotes, brackets, ',' and ';' that starts with a
 * letter, digit, '_', '$', '-' or a non-ASCII character. tok is filled (and owned by the caller) only for
 * SH_WORD_FOUND. */
sh_word_result_t
sh_lex_word (sh_lexer_t *lx, sh_token_t *tok, sh_error_t *err);

/* Frees what tok owns and resets it to an empty SH_TOK_EOF. tok may be NULL. */
void
sh_token_destroy (sh_token_t *tok);

/* Length (1 to 4) of the well-formed UTF-8 sequence at s, reading at most avail bytes; 0 when the bytes there are
 * not UTF-8 (bad lead byte, truncated, overlong, surrogate or above U+10FFFF). cp receives the code point when
 * not NULL. */
size_t
sh_utf8_seq_len (const char *s, size_t avail, unsigned *cp);

#endif
