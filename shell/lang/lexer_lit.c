/* The lexer's literals (lexer_int.h): numbers as JavaScript reads them (decimal, hex, octal and binary, whatever
 * LC_NUMERIC says) and quoted strings with JavaScript's escapes decoded to UTF-8. */
#include <bson/bson.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "shell/lang/lexer_int.h"

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

bool
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

bool
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
