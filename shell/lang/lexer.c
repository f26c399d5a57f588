/* The lexer of the mongosh-literal language: whitespace and comments, names, punctuation, regex literals and raw
 * words, each token with its position (numbers and strings: lexer_lit.c). Every byte is checked: NUL bytes and
 * malformed UTF-8 are errors at the byte, wherever they appear. */
#include "shell/lang/lexer_int.h"

#include <bson/bson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a byte is, for the lexer's fast paths: LEX_NAME, an ASCII character that may continue an identifier (letters,
 * digits, '_', '$'); LEX_PLAIN, a printable ASCII character other than '/' and '#', in front of which there is no
 * space or comment to skip; and above those two bits the kind of the one-character token lex_next reads the byte as
 * (SH_TOK_EOF for none; not '.', which may start a number, nor '/' or '=', which may start a comment or "=>"). */
enum { LEX_NAME = 1, LEX_PLAIN = 2 };
#define LEX_ONE(kind) (LEX_PLAIN | (kind) << 2)
_Static_assert(SH_TOK_OTHER < 64, "a token kind fits above the two bits");
/* clang-format off */
static const unsigned char lex_class[256] = {
   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
   0, 2, 2, 0, 3, 2, 2, 2, LEX_ONE (SH_TOK_LPAREN), LEX_ONE (SH_TOK_RPAREN), 2, LEX_ONE (SH_TOK_PLUS), LEX_ONE (SH_TOK_COMMA), LEX_ONE (SH_TOK_MINUS), 2, 0,
   3, 3, 3, 3, 3, 3, 3, 3, 3, 3, LEX_ONE (SH_TOK_COLON), LEX_ONE (SH_TOK_SEMI), 2, 2, 2, 2,
   2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
   3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, LEX_ONE (SH_TOK_LBRACKET), 2, LEX_ONE (SH_TOK_RBRACKET), 2, 3,
   2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
   3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, LEX_ONE (SH_TOK_LBRACE), 2, LEX_ONE (SH_TOK_RBRACE), 2, 0,
   /* 0x80 to 0xff: 0 */
};
/* clang-format on */

/* An ASCII character that may continue an identifier. */
static inline bool
lex_ascii_ident (char ch)
{
   return lex_class[(unsigned char) ch] & LEX_NAME;
}

/* Skips white space and comments. With stop_at_newline it stops in front of a line break (a // comment is skipped
 * up to it). saw_nl is set when a line break was crossed, inside a block comment included. */
static bool
lex_skip_space (sh_lexer_t *lx, sh_error_t *err, bool stop_at_newline, bool *saw_nl)
{
   unsigned cp;
   size_t n;

   while (lx->off < lx->len) {
      int c = lex_peek (lx, 0);

      if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
         lex_skip (lx, 1);
      } else if (c == '\n') {
         if (stop_at_newline) {
            return true;
         }
         *saw_nl = true;
         lex_skip_newline (lx);
      } else if ((c == '/' && lex_peek (lx, 1) == '/') ||
                 (c == '#' && lex_peek (lx, 1) == '!' && lx->line == 1 && lx->col == 1)) {
         /* A // comment, or the "#!" first line of an executable script. */
         lex_skip_ascii (lx, 2);
         while (lx->off < lx->len && lex_peek (lx, 0) != '\n') {
            if (!(n = lex_check_char (lx, err, &cp))) {
               return false;
            }
            lex_skip (lx, n);
         }
      } else if (c == '/' && lex_peek (lx, 1) == '*') {
         sh_pos_t open = lex_pos (lx);

         lex_skip (lx, 1);
         lex_skip (lx, 1);
         for (;;) {
            if (lx->off >= lx->len) {
               lx->incomplete = true;
               lex_fail (err, open, 2, "unterminated comment");
               return false;
            }
            if (lex_peek (lx, 0) == '*' && lex_peek (lx, 1) == '/') {
               lex_skip (lx, 1);
               lex_skip (lx, 1);
               break;
            }
            if (lex_peek (lx, 0) == '\n') {
               *saw_nl = true;
               lex_skip_newline (lx);
               continue;
            }
            if (!(n = lex_check_char (lx, err, &cp))) {
               return false;
            }
            lex_skip (lx, n);
         }
      } else if (c >= 0x80) {
         n = sh_utf8_seq_len (lx->src + lx->off, lx->len - lx->off, &cp);
         if (n == 0 || !lex_is_unicode_space (cp)) {
            return true;
         }
         lex_skip (lx, n);
      } else {
         return true;
      }
   }
   return true;
}

void
sh_lex_init (sh_lexer_t *lx, const char *src, size_t len)
{
   memset (lx, 0, sizeof *lx);
   lx->src = src;
   lx->len = len;
   lx->line = 1;
   lx->col = 1;
   if (len >= 3 && memcmp (src, "\xef\xbb\xbf", 3) == 0) {
      lx->off = 3;
   }
}

void
sh_token_destroy (sh_token_t *tok)
{
   if (!tok) {
      return;
   }
   bson_free (tok->str);
   memset (tok, 0, sizeof *tok);
   tok->kind = SH_TOK_EOF;
}

/* A NUL-terminated copy of n bytes of s; s need not be NUL-terminated (bson_strndup may read one byte more). */
static char *
lex_strndup (const char *s, size_t n)
{
   char *out = bson_malloc (n + 1);

   memcpy (out, s, n);
   out[n] = '\0';
   return out;
}

/* tok starts as kind with no string, flags or number, set field by field (cheaper than clearing it): new fields too */
static inline void
lex_tok_begin (sh_lexer_t *lx, sh_token_t *tok, sh_tok_kind_t kind)
{
   tok->kind = kind;
   tok->str = NULL;
   tok->str_len = 0;
   memset (tok->flags, 0, sizeof tok->flags);
   tok->num = 0;
   tok->form = SH_NUM_INT;
   lx->incomplete = false;
}

/* Not inlined into sh_lex_next: its one-character fast path then saves no registers. */
__attribute__ ((noinline)) static bool
lex_next (sh_lexer_t *lx, sh_token_t *tok, sh_error_t *err)
{
   bool saw_nl = false;
   unsigned cp = 0;
   size_t n;
   int c;

   /* pos, text and nl_before are set below; the rest stay empty unless a string, regex or number fills them */
   lex_tok_begin (lx, tok, SH_TOK_EOF);
   /* a printable ASCII character other than '/' and '#' starts no space or comment: nothing to skip (most tokens) */
   if ((lx->off >= lx->len || !(lex_class[(unsigned char) lx->src[lx->off]] & LEX_PLAIN)) &&
       !lex_skip_space (lx, err, false, &saw_nl)) {
      return false;
   }
   tok->nl_before = saw_nl;
   tok->pos = lex_pos (lx);
   tok->text = lx->src + lx->off;
   if (lx->off >= lx->len) {
      tok->kind = SH_TOK_EOF;
      return true;
   }
   c = lex_peek (lx, 0);
   switch (c) {
   case '{':
      lex_skip (lx, 1);
      lex_finish (lx, tok, SH_TOK_LBRACE);
      return true;
   case '}':
      lex_skip (lx, 1);
      lex_finish (lx, tok, SH_TOK_RBRACE);
      return true;
   case '[':
      lex_skip (lx, 1);
      lex_finish (lx, tok, SH_TOK_LBRACKET);
      return true;
   case ']':
      lex_skip (lx, 1);
      lex_finish (lx, tok, SH_TOK_RBRACKET);
      return true;
   case '(':
      lex_skip (lx, 1);
      lex_finish (lx, tok, SH_TOK_LPAREN);
      return true;
   case ')':
      lex_skip (lx, 1);
      lex_finish (lx, tok, SH_TOK_RPAREN);
      return true;
   case ',':
      lex_skip (lx, 1);
      lex_finish (lx, tok, SH_TOK_COMMA);
      return true;
   case ':':
      lex_skip (lx, 1);
      lex_finish (lx, tok, SH_TOK_COLON);
      return true;
   case ';':
      lex_skip (lx, 1);
      lex_finish (lx, tok, SH_TOK_SEMI);
      return true;
   case '+':
      lex_skip (lx, 1);
      lex_finish (lx, tok, SH_TOK_PLUS);
      return true;
   case '-':
      lex_skip (lx, 1);
      lex_finish (lx, tok, SH_TOK_MINUS);
      return true;
   case '/':
      lex_skip (lx, 1);
      lex_finish (lx, tok, SH_TOK_SLASH);
      return true;
   case '.':
      if (lex_is_digit (lex_peek (lx, 1))) {
         return lex_number (lx, tok, err);
      }
      lex_skip (lx, 1);
      lex_finish (lx, tok, SH_TOK_DOT);
      return true;
   case '"':
   case '\'':
      return lex_string (lx, tok, err);
   case '`':
      lex_fail (err, tok->pos, 1, "template literals (`...`) are not supported; use '...' or \"...\"");
      return false;
   case '=':
      lex_skip (lx, 1);
      if (lex_peek (lx, 0) == '>') {
         lex_skip (lx, 1);
      }
      lex_finish (lx, tok, SH_TOK_OTHER);
      return true;
   default:
      break;
   }
   if (lex_is_digit (c)) {
      return lex_number (lx, tok, err);
   }
   /* an ASCII name character that is not a digit (a digit was taken above) starts a name without more checks */
   if ((c < 0x80 && lex_ascii_ident ((char) c)) || lex_ident_char (lx, lx->off, true)) {
      /* ASCII letters, digits, _ and $ in one pass (most names), then lex_ident_char for whatever follows (nothing
       * when it is ASCII: the pass took every ASCII name character) */
      for (;;) {
         const char *from = lx->src + lx->off, *q = from, *end = lx->src + lx->len;
         while (q < end && lex_ascii_ident (*q))
            q++;
         lex_skip_ascii (lx, (size_t) (q - from));
         if (q == end || (unsigned char) *q < 0x80 || !(n = lex_ident_char (lx, lx->off, false)))
            break;
         lex_skip (lx, n);
      }
      lex_finish (lx, tok, SH_TOK_IDENT);
      return true;
   }
   if (c > 0x20 && c < 0x7f) {
      lex_skip (lx, 1);
      lex_finish (lx, tok, SH_TOK_OTHER);
      return true;
   }
   if (c < 0x80 && c != 0) {
      lex_fail (err, tok->pos, 1, "unexpected control character U+%04X", (unsigned) c);
      return false;
   }
   if (!(n = lex_check_char (lx, err, &cp))) {
      return false;
   }
   if (lex_is_curly_quote (cp)) {
      lex_fail (err, tok->pos, n, "unexpected '%.*s': strings need straight quotes, ' or \"", (int) n, tok->text);
      return false;
   }
   lex_fail (err, tok->pos, n, "unexpected character '%.*s' (U+%04X)", (int) n, tok->text, cp);
   return false;
}

bool
sh_lex_next (sh_lexer_t *lx, sh_token_t *tok, sh_error_t *err)
{
   /* a one-character token right here (most punctuation): made as lex_next would make it, without its work */
   if (lx->off < lx->len) {
      sh_tok_kind_t kind = (sh_tok_kind_t) (lex_class[(unsigned char) lx->src[lx->off]] >> 2);
      if (kind != SH_TOK_EOF) {
         lex_tok_begin (lx, tok, kind);
         tok->pos = lex_pos (lx);
         tok->pos.len = 1;
         tok->text = lx->src + lx->off;
         tok->nl_before = false;
         lex_skip (lx, 1);
         return true;
      }
   }
   if (!lex_next (lx, tok, err)) {
      sh_token_destroy (tok);
      return false;
   }
   return true;
}

bool
sh_lex_regex (sh_lexer_t *lx, const sh_token_t *slash, sh_token_t *tok, sh_error_t *err)
{
   bool in_class = false, ok = false;
   size_t body, body_end, n, i;
   unsigned cp;
   char flags[8] = { 0 };
   int nflags = 0;

   memset (tok, 0, sizeof *tok);
   tok->pos = slash->pos;
   tok->nl_before = slash->nl_before;
   body = lx->off;
   lx->incomplete = false;
   for (;;) {
      int c = lex_peek (lx, 0);

      if (c == -1) {
         lx->incomplete = true;
         lex_fail (err, slash->pos, 1, "unterminated regex");
         goto done;
      }
      if (c == '\n') {
         lex_fail (err, slash->pos, 1, "unterminated regex (a line break ends it)");
         goto done;
      }
      if (c == '/' && !in_class) {
         break;
      }
      if (c == '\\') {
         lex_skip (lx, 1);
         c = lex_peek (lx, 0);
         if (c == -1 || c == '\n') {
            continue;
         }
      } else if (c == '[') {
         in_class = true;
      } else if (c == ']') {
         in_class = false;
      }
      if (!(n = lex_check_char (lx, err, &cp))) {
         goto done;
      }
      lex_skip (lx, n);
   }
   body_end = lx->off;
   lex_skip (lx, 1);
   while ((n = lex_ident_char (lx, lx->off, false)) > 0) {
      sh_pos_t at = lex_pos (lx);
      char f = lx->src[lx->off];

      if (n != 1 || strchr ("imsux", f) == NULL || f == '\0') {
         lex_fail (err, at, n, "regex flag '%.*s' is not supported (BSON regexes take i, m, s, u and x)", (int) n,
                   lx->src + lx->off);
         goto done;
      }
      if (strchr (flags, f)) {
         lex_fail (err, at, 1, "regex flag '%c' is given twice", f);
         goto done;
      }
      /* Keep the flags sorted, as BSON requires. */
      for (i = (size_t) nflags; i > 0 && flags[i - 1] > f; i--) {
         flags[i] = flags[i - 1];
      }
      flags[i] = f;
      nflags++;
      lex_skip (lx, 1);
   }
   lex_finish (lx, tok, SH_TOK_REGEX);
   tok->str = lex_strndup (lx->src + body, body_end - body);
   tok->str_len = body_end - body;
   memcpy (tok->flags, flags, sizeof flags);
   ok = true;
done:
   if (!ok) {
      sh_token_destroy (tok);
   }
   return ok;
}

/* Characters that end a raw word. */
static bool
lex_word_stop (const sh_lexer_t *lx)
{
   int c = lex_peek (lx, 0);

   if (c == -1 || c <= ' ' || c == 0x7f || strchr ("'\"`(){}[],;", c) != NULL) {
      return true;
   }
   if (c == '/' && (lex_peek (lx, 1) == '/' || lex_peek (lx, 1) == '*')) {
      return true;
   }
   if (c >= 0x80) {
      unsigned cp = 0;
      size_t n = sh_utf8_seq_len (lx->src + lx->off, lx->len - lx->off, &cp);

      return n > 0 && lex_is_unicode_space (cp);
   }
   return false;
}

sh_word_result_t
sh_lex_word (sh_lexer_t *lx, sh_token_t *tok, sh_error_t *err)
{
   sh_lexer_t saved = *lx;
   bool saw_nl = false;
   unsigned cp;
   size_t n;
   int c;

   memset (tok, 0, sizeof *tok);
   lx->incomplete = false;
   if (!lex_skip_space (lx, err, true, &saw_nl)) {
      return SH_WORD_ERROR;
   }
   c = lex_peek (lx, 0);
   if (saw_nl || c == -1 || c == '\n' || c == ';') {
      *lx = saved;
      return SH_WORD_END;
   }
   if (!(lex_is_digit (c) || c == '-' || lex_ident_char (lx, lx->off, true) > 0)) {
      *lx = saved;
      return SH_WORD_NONE;
   }
   tok->pos = lex_pos (lx);
   while (!lex_word_stop (lx)) {
      if (!(n = lex_check_char (lx, err, &cp))) {
         return SH_WORD_ERROR;
      }
      lex_skip (lx, n);
   }
   lex_finish (lx, tok, SH_TOK_WORD);
   tok->str = lex_strndup (tok->text, tok->pos.len);
   tok->str_len = tok->pos.len;
   return SH_WORD_FOUND;
}
