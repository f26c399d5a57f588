/* The lexer of the mongosh-literal language: whitespace and comments, names, numbers, strings with JavaScript
 * escapes, regex literals and raw words, each token with its position. Every byte is checked: NUL bytes and
 * malformed UTF-8 are errors at the byte, wherever they appear. */
#include "shell/lang/lexer.h"

#include <bson/bson.h>
#include <locale.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growable byte buffer for decoded strings. */
typedef struct {
   char *data;
   size_t len;
   size_t cap;
} lex_buf_t;

static void
lex_buf_put (lex_buf_t *b, const char *bytes, size_t n)
{
   if (b->len + n + 1 > b->cap) {
      size_t cap = b->cap ? b->cap : 32;
      while (cap < b->len + n + 1) {
         cap *= 2;
      }
      b->data = bson_realloc (b->data, cap);
      b->cap = cap;
   }
   memcpy (b->data + b->len, bytes, n);
   b->len += n;
   b->data[b->len] = '\0';
}

static void
lex_buf_put_cp (lex_buf_t *b, unsigned cp)
{
   char out[4];
   size_t n;

   if (cp < 0x80) {
      out[0] = (char) cp;
      n = 1;
   } else if (cp < 0x800) {
      out[0] = (char) (0xc0 | (cp >> 6));
      out[1] = (char) (0x80 | (cp & 0x3f));
      n = 2;
   } else if (cp < 0x10000) {
      out[0] = (char) (0xe0 | (cp >> 12));
      out[1] = (char) (0x80 | ((cp >> 6) & 0x3f));
      out[2] = (char) (0x80 | (cp & 0x3f));
      n = 3;
   } else {
      out[0] = (char) (0xf0 | (cp >> 18));
      out[1] = (char) (0x80 | ((cp >> 12) & 0x3f));
      out[2] = (char) (0x80 | ((cp >> 6) & 0x3f));
      out[3] = (char) (0x80 | (cp & 0x3f));
      n = 4;
   }
   lex_buf_put (b, out, n);
}

size_t
sh_utf8_seq_len (const char *s, size_t avail, unsigned *cp)
{
   const unsigned char *u = (const unsigned char *) s;
   unsigned c, min;
   size_t n, i;

   if (avail == 0) {
      return 0;
   }
   if (u[0] < 0x80) {
      n = 1;
      c = u[0];
      min = 0;
   } else if ((u[0] & 0xe0) == 0xc0) {
      n = 2;
      c = u[0] & 0x1fu;
      min = 0x80;
   } else if ((u[0] & 0xf0) == 0xe0) {
      n = 3;
      c = u[0] & 0x0fu;
      min = 0x800;
   } else if ((u[0] & 0xf8) == 0xf0) {
      n = 4;
      c = u[0] & 0x07u;
      min = 0x10000;
   } else {
      return 0;
   }
   if (n > avail) {
      return 0;
   }
   for (i = 1; i < n; i++) {
      if ((u[i] & 0xc0) != 0x80) {
         return 0;
      }
      c = (c << 6) | (u[i] & 0x3fu);
   }
   if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) {
      return 0;
   }
   if (cp) {
      *cp = c;
   }
   return n;
}

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

static void
lex_fail (sh_error_t *err, sh_pos_t pos, size_t len, const char *fmt, ...) __attribute__ ((format (printf, 4, 5)));

static void
lex_fail (sh_error_t *err, sh_pos_t pos, size_t len, const char *fmt, ...)
{
   char msg[512];
   va_list ap;

   va_start (ap, fmt);
   vsnprintf (msg, sizeof msg, fmt, ap);
   va_end (ap);
   pos.len = len;
   sh_error_set_at (err, SH_ERR_PARSE, pos, "%s", msg);
}

/* Checks the character at the lexer's position for NUL and malformed UTF-8, reporting either as an error.
 * Returns its length in bytes (0 after an error); cp receives the code point. */
static size_t
lex_check_char (sh_lexer_t *lx, sh_error_t *err, unsigned *cp)
{
   size_t n = sh_utf8_seq_len (lx->src + lx->off, lx->len - lx->off, cp);

   if (n == 0) {
      lex_fail (err, lex_pos (lx), 1, "invalid UTF-8 byte 0x%02x", (unsigned char) lx->src[lx->off]);
      return 0;
   }
   if (*cp == 0) {
      lex_fail (err, lex_pos (lx), 1, "unexpected NUL byte");
      return 0;
   }
   return n;
}

/* Non-ASCII characters that count as white space (no-break space, byte order mark). */
static bool
lex_is_unicode_space (unsigned cp)
{
   return cp == 0xa0 || cp == 0xfeff;
}

/* Curly quotes pasted from documents: reported with a hint instead of being taken as names. */
static bool
lex_is_curly_quote (unsigned cp)
{
   return cp == 0x2018 || cp == 0x2019 || cp == 0x201c || cp == 0x201d;
}

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

/* Byte length of the identifier character at off (0 when there is none). start selects the first-character rule. */
static size_t
lex_ident_char (const sh_lexer_t *lx, size_t off, bool start)
{
   unsigned char c;
   unsigned cp = 0;
   size_t n;

   if (off >= lx->len) {
      return 0;
   }
   c = (unsigned char) lx->src[off];
   if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$') {
      return 1;
   }
   if (c >= '0' && c <= '9') {
      return start ? 0 : 1;
   }
   if (c < 0x80) {
      return 0;
   }
   n = sh_utf8_seq_len (lx->src + off, lx->len - off, &cp);
   if (n == 0 || lex_is_unicode_space (cp) || lex_is_curly_quote (cp) || cp == 0x2028 || cp == 0x2029) {
      return 0;
   }
   return n;
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

static inline void
lex_finish (sh_lexer_t *lx, sh_token_t *tok, sh_tok_kind_t kind)
{
   tok->kind = kind;
   tok->pos.len = lx->off - tok->pos.offset;
   tok->text = lx->src + tok->pos.offset;
}

static int
lex_hex_digit (int c)
{
   if (c >= '0' && c <= '9') {
      return c - '0';
   }
   if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
   }
   if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
   }
   return -1;
}

/* Converts decimal number text to a double the way JavaScript does, whatever LC_NUMERIC says. */
static double
lex_strtod (const char *text, size_t len)
{
   char stack[64];
   char *buf = len < sizeof stack ? stack : bson_malloc (len + 1);
   locale_t c_locale;
   double v;

   memcpy (buf, text, len);
   buf[len] = '\0';
   c_locale = newlocale (LC_NUMERIC_MASK, "C", (locale_t) 0);
   if (c_locale != (locale_t) 0) {
      v = strtod_l (buf, NULL, c_locale);
      freelocale (c_locale);
   } else {
      v = strtod (buf, NULL);
   }
   if (buf != stack) {
      bson_free (buf);
   }
   return v;
}

static inline bool
lex_is_digit (int c)
{
   return c >= '0' && c <= '9';
}

static bool
lex_number (sh_lexer_t *lx, sh_token_t *tok, sh_error_t *err)
{
   int c = lex_peek (lx, 0);
   int next = lex_peek (lx, 1);
   bool ok = false;

   tok->form = SH_NUM_INT;
   if (c == '0' && (next == 'x' || next == 'X' || next == 'o' || next == 'O' || next == 'b' || next == 'B')) {
      int base = (next == 'x' || next == 'X') ? 16 : (next == 'o' || next == 'O') ? 8 : 2;
      int digits = 0, d;
      double v = 0;

      lex_skip (lx, 2);
      while ((d = lex_hex_digit (lex_peek (lx, 0))) >= 0 && d < base) {
         v = v * base + d;
         digits++;
         lex_skip (lx, 1);
      }
      tok->form = SH_NUM_RADIX;
      tok->num = v;
      if (digits == 0) {
         goto bad;
      }
   } else {
      int digits = 0;

      while (lex_is_digit (lex_peek (lx, 0))) {
         lex_skip (lx, 1);
         digits++;
      }
      if (lex_peek (lx, 0) == '.') {
         tok->form = SH_NUM_FLOAT;
         lex_skip (lx, 1);
         while (lex_is_digit (lex_peek (lx, 0))) {
            lex_skip (lx, 1);
            digits++;
         }
      }
      if (digits == 0) {
         goto bad;
      }
      if (lex_peek (lx, 0) == 'e' || lex_peek (lx, 0) == 'E') {
         tok->form = SH_NUM_FLOAT;
         lex_skip (lx, 1);
         if (lex_peek (lx, 0) == '+' || lex_peek (lx, 0) == '-') {
            lex_skip (lx, 1);
         }
         if (!lex_is_digit (lex_peek (lx, 0))) {
            goto bad;
         }
         while (lex_is_digit (lex_peek (lx, 0))) {
            lex_skip (lx, 1);
         }
      }
      if (c == '0' && lex_is_digit (next)) {
         lex_finish (lx, tok, SH_TOK_NUMBER);
         lex_fail (err, tok->pos, tok->pos.len, "number '%.*s' starts with 0 (legacy octal is not supported)",
                   (int) (tok->pos.len > 40 ? 40 : tok->pos.len), tok->text);
         goto done;
      }
      if (tok->form == SH_NUM_INT && lx->off - tok->pos.offset <= 15) {
         /* at most 15 decimal digits: the integer is exact in a double, no strtod (nor a locale) needed */
         double v = 0;
         for (size_t i = tok->pos.offset; i < lx->off; i++)
            v = v * 10 + (lx->src[i] - '0');
         tok->num = v;
      } else {
         tok->num = lex_strtod (lx->src + tok->pos.offset, lx->off - tok->pos.offset);
      }
   }
   if (lex_ident_char (lx, lx->off, false) == 0) {
      lex_finish (lx, tok, SH_TOK_NUMBER);
      ok = true;
      goto done;
   }
bad:
   /* Take the rest of the word so the message shows all of it. */
   while (lx->off < lx->len) {
      size_t n = lex_ident_char (lx, lx->off, false);

      if (n == 0) {
         break;
      }
      lex_skip (lx, n);
   }
   lex_finish (lx, tok, SH_TOK_NUMBER);
   lex_fail (err, tok->pos, tok->pos.len, "invalid number '%.*s'", (int) (tok->pos.len > 40 ? 40 : tok->pos.len),
             tok->text);
done:
   return ok;
}

/* Reads exactly count hex digits at the lexer's position into *value; false if they are not all there. */
static bool
lex_hex_run (const sh_lexer_t *lx, size_t at, int count, unsigned *value)
{
   int i;

   *value = 0;
   for (i = 0; i < count; i++) {
      int d = at + (size_t) i < lx->len ? lex_hex_digit ((unsigned char) lx->src[at + (size_t) i]) : -1;

      if (d < 0) {
         return false;
      }
      *value = *value * 16 + (unsigned) d;
   }
   return true;
}

/* Decodes one escape sequence; the lexer is at the backslash. Appends the result to buf. */
static bool
lex_escape (sh_lexer_t *lx, lex_buf_t *buf, sh_error_t *err)
{
   sh_pos_t at = lex_pos (lx);
   int c = lex_peek (lx, 1);
   unsigned cp = 0, low;
   size_t n;
   char ch;

   switch (c) {
   case 'n':
      ch = '\n';
      break;
   case 't':
      ch = '\t';
      break;
   case 'r':
      ch = '\r';
      break;
   case 'b':
      ch = '\b';
      break;
   case 'f':
      ch = '\f';
      break;
   case 'v':
      ch = '\v';
      break;
   case '0':
      if (lex_is_digit (lex_peek (lx, 2))) {
         lex_fail (err, at, 3, "octal escape sequences are not supported");
         return false;
      }
      ch = '\0';
      break;
   case '1':
   case '2':
   case '3':
   case '4':
   case '5':
   case '6':
   case '7':
      lex_fail (err, at, 2, "octal escape sequences are not supported");
      return false;
   case '\n':
      lex_skip_ascii (lx, 1);
      lex_skip_newline (lx);
      return true;
   case '\r':
      lex_skip_ascii (lx, 2);
      if (lex_peek (lx, 0) == '\n') {
         lex_skip_newline (lx);
      }
      return true;
   case 'x':
      if (!lex_hex_run (lx, lx->off + 2, 2, &cp)) {
         lex_fail (err, at, 2, "invalid \\x escape: expected two hex digits");
         return false;
      }
      lex_buf_put_cp (buf, cp);
      lex_skip_ascii (lx, 4);
      return true;
   case 'u':
      if (lex_peek (lx, 2) == '{') {
         size_t i = lx->off + 3;
         int digits = 0, d;

         while (i < lx->len && (d = lex_hex_digit ((unsigned char) lx->src[i])) >= 0) {
            cp = cp * 16 + (unsigned) d;
            if (cp > 0x10ffff) {
               break;
            }
            digits++;
            i++;
         }
         if (digits == 0 || i >= lx->len || lx->src[i] != '}' || cp > 0x10ffff) {
            lex_fail (err, at, 2, "invalid \\u{...} escape: expected 1 to 6 hex digits up to 10FFFF");
            return false;
         }
         n = i + 1 - lx->off;
      } else {
         if (!lex_hex_run (lx, lx->off + 2, 4, &cp)) {
            lex_fail (err, at, 2, "invalid \\u escape: expected four hex digits");
            return false;
         }
         n = 6;
         if (cp >= 0xd800 && cp <= 0xdbff && lex_peek (lx, 6) == '\\' && lex_peek (lx, 7) == 'u' &&
             lex_hex_run (lx, lx->off + 8, 4, &low) && low >= 0xdc00 && low <= 0xdfff) {
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
            n = 12;
         }
      }
      if (cp >= 0xd800 && cp <= 0xdfff) {
         lex_fail (err, at, n, "invalid \\u escape: lone surrogate %04X cannot be sent as UTF-8", cp);
         return false;
      }
      lex_buf_put_cp (buf, cp);
      lex_skip_ascii (lx, n);
      return true;
   case -1:
      return true; /* the caller reports the unterminated string */
   default:
      /* \\, \', \", \/ and unknown escapes all stand for the character itself. */
      lex_skip_ascii (lx, 1);
      if (!(n = lex_check_char (lx, err, &cp))) {
         return false;
      }
      lex_buf_put (buf, lx->src + lx->off, n);
      lex_skip (lx, n);
      return true;
   }
   lex_buf_put (buf, &ch, 1);
   lex_skip_ascii (lx, 2);
   return true;
}

static bool
lex_string (sh_lexer_t *lx, sh_token_t *tok, sh_error_t *err)
{
   int quote = lex_peek (lx, 0);
   lex_buf_t buf = { 0 };
   bool ok = false;
   unsigned cp;
   size_t n;

   lex_buf_put (&buf, "", 0);
   lex_skip (lx, 1);
   for (;;) {
      int c = lex_peek (lx, 0);

      if (c == -1 || (c == '\\' && lex_peek (lx, 1) == -1)) {
         lx->incomplete = true;
         lex_fail (err, tok->pos, 1, "unterminated string");
         goto done;
      }
      if (c == '\n') {
         lex_fail (err, tok->pos, 1, "unterminated string (a line break ends it; write \\n, or end the line with \\)");
         goto done;
      }
      if (c == quote) {
         lex_skip (lx, 1);
         break;
      }
      if (c == '\\') {
         if (!lex_escape (lx, &buf, err)) {
            goto done;
         }
         continue;
      }
      if (!(n = lex_check_char (lx, err, &cp))) {
         goto done;
      }
      lex_buf_put (&buf, lx->src + lx->off, n);
      lex_skip (lx, n);
   }
   lex_finish (lx, tok, SH_TOK_STRING);
   tok->str = buf.data;
   tok->str_len = buf.len;
   buf.data = NULL;
   ok = true;
done:
   bson_free (buf.data);
   return ok;
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
