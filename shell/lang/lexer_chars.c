/* The lexer's characters (lexer_int.h): UTF-8 sequences, the checked reader that refuses NUL bytes and malformed
 * UTF-8, which characters continue a name, errors at a position and the buffer decoded strings grow in. */
#include <bson/bson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "shell/lang/lexer_int.h"
#include "shell/lib/utf8.h"

void
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

void
lex_buf_put_cp (lex_buf_t *b, unsigned cp)
{
   char out[4];
   lex_buf_put (b, out, utf8_encode (cp, out));
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

void
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
size_t
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

/* Byte length of the identifier character at off (0 when there is none). start selects the first-character rule. */
size_t
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
