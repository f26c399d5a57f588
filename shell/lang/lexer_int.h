/* The lexer's private parts, shared by lexer.c (spaces, comments, names, punctuation, regexes, words), lexer_lit.c
 * (number and string literals) and lexer_chars.c (UTF-8, the checked character reader, identifier characters, errors
 * at a position and the buffer strings are decoded into). Not for the parser: it uses lexer.h. */
#ifndef SHARDSH_LEXER_INT_H
#define SHARDSH_LEXER_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "shell/lang/lexer.h"

/* A growable byte buffer for decoded strings: data is NUL-terminated, bson_malloc'd, owned by whoever holds it. */
typedef struct {
   char *data;
   size_t len;
   size_t cap;
} lex_buf_t;

/* Appends n bytes to b. */
void
lex_buf_put (lex_buf_t *b, const char *bytes, size_t n);

/* Appends the code point cp to b as UTF-8. */
void
lex_buf_put_cp (lex_buf_t *b, unsigned cp);

static inline sh_pos_t
lex_pos (const sh_lexer_t *lx)
{
   sh_pos_t pos;

   pos.line = lx->line;
   pos.col = lx->col;
   pos.offset = lx->off;
   pos.len = 0;
   return pos;
}

static inline int
lex_peek (const sh_lexer_t *lx, size_t ahead)
{
   if (lx->off + ahead >= lx->len) {
      return -1;
   }
   return (unsigned char) lx->src[lx->off + ahead];
}

/* Moves past one character of n bytes that is not a line break. */
static inline void
lex_skip (sh_lexer_t *lx, size_t n)
{
   lx->off += n;
   lx->col++;
}

/* Moves past n ASCII characters, none of them a line break. */
static inline void
lex_skip_ascii (sh_lexer_t *lx, size_t n)
{
   lx->off += n;
   lx->col += (int) n;
}

static inline void
lex_skip_newline (sh_lexer_t *lx)
{
   lx->off++;
   lx->line++;
   lx->col = 1;
}

static inline bool
lex_is_digit (int c)
{
   return c >= '0' && c <= '9';
}

/* Non-ASCII characters that count as white space (no-break space, byte order mark). */
static inline bool
lex_is_unicode_space (unsigned cp)
{
   return cp == 0xa0 || cp == 0xfeff;
}

/* Curly quotes pasted from documents: reported with a hint instead of being taken as names. */
static inline bool
lex_is_curly_quote (unsigned cp)
{
   return cp == 0x2018 || cp == 0x2019 || cp == 0x201c || cp == 0x201d;
}

/* Sets err to a parse error at pos (len bytes long) with the formatted message. */
void
lex_fail (sh_error_t *err, sh_pos_t pos, size_t len, const char *fmt, ...) __attribute__ ((format (printf, 4, 5)));

/* Checks the character at the lexer's position for NUL and malformed UTF-8, reporting either as an error.
 * Returns its length in bytes (0 after an error); cp receives the code point. */
size_t
lex_check_char (sh_lexer_t *lx, sh_error_t *err, unsigned *cp);

/* Byte length of the identifier character at off (0 when there is none). start selects the first-character rule. */
size_t
lex_ident_char (const sh_lexer_t *lx, size_t off, bool start);

static inline void
lex_finish (sh_lexer_t *lx, sh_token_t *tok, sh_tok_kind_t kind)
{
   tok->kind = kind;
   tok->pos.len = lx->off - tok->pos.offset;
   tok->text = lx->src + tok->pos.offset;
}

/* lexer_lit.c: the number (decimal, hex, octal, binary, with its form) or the quoted string (escapes decoded) at the
 * lexer's position into tok. False with err set (and lx->incomplete when more input could finish it). */
bool
lex_number (sh_lexer_t *lx, sh_token_t *tok, sh_error_t *err);
bool
lex_string (sh_lexer_t *lx, sh_token_t *tok, sh_error_t *err);

#endif
