/* Output formatting of scalars, as mongosh prints them through util.inspect and the BSON classes' inspectors:
 * strings (quotes chosen as util.inspect chooses them, escapes, cuts and line splits), JS numbers, ISO dates,
 * binary (UUID, MD5, Binary.createFromBase64), regexes, which keys need quotes and their order, and the ANSI colours.
 * Everything appends to a string the caller owns. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "shell/core/output.h"
#include "shell/core/output_int.h"
#include "shell/lib/ascii.h"
#include "shell/lib/utf8.h"

/* Appends text wrapped in the SGR codes of style when colours are on. */
void
output_stylize_n (bson_string_t *out, const output_ctx_t *ctx, const char *text, size_t len, output_style_t style)
{
   static const char *const open[] = { "",         "\x1b[32m", "\x1b[33m", "\x1b[1m",
                                       "\x1b[90m", "\x1b[36m", "\x1b[35m", "\x1b[31m" };
   static const char *const close[] = { "",         "\x1b[39m", "\x1b[39m", "\x1b[22m",
                                        "\x1b[39m", "\x1b[39m", "\x1b[39m", "\x1b[39m" };

   if (ctx->opts->color && style != OUTPUT_STYLE_NONE) {
      output_append (out, open[style]);
      output_append_n (out, text, len);
      output_append (out, close[style]);
   } else {
      output_append_n (out, text, len);
   }
}

void
output_stylize (bson_string_t *out, const output_ctx_t *ctx, const char *text, output_style_t style)
{
   output_stylize_n (out, ctx, text, strlen (text), style);
}

void
output_grow (bson_string_t *out, size_t n)
{
   size_t need = (size_t) out->len + n + 1;
   size_t alloc = out->alloc ? out->alloc : 16;

   while (alloc < need) {
      alloc *= 2;
   }
   BSON_ASSERT (alloc <= UINT32_MAX);
   out->str = bson_realloc (out->str, alloc);
   out->alloc = (uint32_t) alloc;
}

const char *
output_int_str (char *buf, size_t size, int64_t v)
{
   char *p = buf + size - 1;
   uint64_t u = v < 0 ? (uint64_t) 0 - (uint64_t) v : (uint64_t) v;

   BSON_ASSERT (size >= 21);
   *p = '\0';
   do {
      *--p = (char) ('0' + u % 10);
      u /= 10;
   } while (u);
   if (v < 0) {
      *--p = '-';
   }
   return p;
}

void
output_spaces (bson_string_t *out, long n)
{
   if (n <= 0) {
      return;
   }
   output_reserve (out, (size_t) n);
   memset (out->str + out->len, ' ', (size_t) n);
   out->len += (uint32_t) n;
   out->str[out->len] = '\0';
}

/* Most of what the formatter handles is plain ASCII, so it is read eight bytes at a time (shell/lib/ascii.h) and only
 * a word that may hold something special is looked at byte by byte. True when the len bytes at s are all ASCII (so
 * String.length is len) and, with no_esc, none is ESC (then the width is len too). */
static bool
output_ascii (const unsigned char *s, size_t len, bool no_esc)
{
   return ascii_only (s, len, no_esc ? 0x1b : -1);
}

/* How many bytes from s on strEscape copies as they are: printable ASCII other than the backslash and, when the
 * quote is ', the single quote. */
static size_t
output_plain_run (const char *s, size_t len, char quote)
{
   size_t i = 0;

   for (; i + 8 <= len; i += 8) {
      uint64_t v;

      memcpy (&v, s + i, 8);
      if ((v & ASCII_HIGHS) || ascii_word_below (v, 0x20) || ascii_word_has (v, 0x7f) || ascii_word_has (v, '\\') ||
          (quote == '\'' && ascii_word_has (v, '\''))) {
         break;
      }
   }
   while (i < len && s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\' && !(s[i] == '\'' && quote == '\'')) {
      i++;
   }
   return i;
}

/* Measures s as JS would after removeColors(): *units is String.length (UTF-16 code units) and *width the
 * number of code points (our stand-in for getStringWidth, which also knows wide and zero-width characters). */
void
output_measure_n (const char *s, size_t len, size_t *units, size_t *width)
{
   size_t u = 0, w = 0;
   const unsigned char *end = (const unsigned char *) s + len;

   if (output_ascii ((const unsigned char *) s, len, true)) {
      *units = len;
      *width = len;
      return;
   }
   for (const unsigned char *p = (const unsigned char *) s; p < end; p++) {
      if (p[0] == 0x1b && end - p >= 4 && p[1] == '[' && p[2] >= '0' && p[2] <= '9') {
         const unsigned char *q = p + 3;
         if (*q >= '0' && *q <= '9' && q + 1 < end) {
            q++;
         }
         if (*q == 'm') {
            p = q;
            continue;
         }
      }
      if ((*p & 0xc0) == 0x80) {
         continue; /* continuation byte */
      }
      w++;
      u += (*p >= 0xf0) ? 2 : 1;
   }
   *units = u;
   *width = w;
}

void
output_measure (const char *s, size_t *units, size_t *width)
{
   output_measure_n (s, strlen (s), units, width);
}

/* Decodes one UTF-8 sequence at s (n bytes left). Returns its length in bytes and sets *cp; an invalid byte
 * decodes as U+FFFD of length 1, as TextDecoder does in the JS driver. */
size_t
output_utf8_next (const unsigned char *s, size_t n, uint32_t *cp)
{
   size_t need;
   uint32_t c;

   if (s[0] < 0x80) {
      *cp = s[0];
      return 1;
   } else if (s[0] >= 0xc2 && s[0] <= 0xdf) {
      need = 2;
      c = s[0] & 0x1f;
   } else if (s[0] >= 0xe0 && s[0] <= 0xef) {
      need = 3;
      c = s[0] & 0x0f;
   } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
      need = 4;
      c = s[0] & 0x07;
   } else {
      *cp = 0xfffd;
      return 1;
   }
   if (need > n) {
      *cp = 0xfffd;
      return 1;
   }
   for (size_t i = 1; i < need; i++) {
      if ((s[i] & 0xc0) != 0x80) {
         *cp = 0xfffd;
         return 1;
      }
      c = (c << 6) | (s[i] & 0x3f);
   }
   if ((need == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) || (need == 4 && (c < 0x10000 || c > 0x10ffff))) {
      *cp = 0xfffd;
      return 1;
   }
   *cp = c;
   return need;
}

static void
output_append_cp (bson_string_t *out, uint32_t cp)
{
   char buf[4];
   size_t n = utf8_encode (cp, buf);
   output_append_n (out, buf, n); /* by length: a U+0000 would end a "%.*s" */
}

static bool
output_contains (const char *s, size_t len, const char *needle)
{
   size_t nl = strlen (needle);

   for (size_t i = 0; i + nl <= len; i++) {
      if (memcmp (s + i, needle, nl) == 0) {
         return true;
      }
   }
   return false;
}

/* strEscape: quotes s (len bytes of UTF-8) the way util.inspect does. Single quotes by default; double quotes
 * when s has a ' but no "; backticks when it has both but no ` or ${; otherwise single quotes with \'.
 * Backslash, C0 and C1 controls and DEL are escaped. A lone high surrogate (from a cut) is given as hex. */
static void
output_str_escape (bson_string_t *out, const char *s, size_t len, bool lone_high_surrogate, uint32_t surrogate)
{
   char quote = '\'';

   if (memchr (s, '\'', len)) {
      if (!memchr (s, '"', len)) {
         quote = '"';
      } else if (!memchr (s, '`', len) && !output_contains (s, len, "${")) {
         quote = '`';
      }
   }
   output_append_c (out, quote);
   for (size_t i = 0; i < len;) {
      uint32_t cp;
      size_t n, run = i;

      /* a run of printable ASCII that needs no escape goes in one piece */
      run += output_plain_run (s + i, len - i, quote);
      if (run > i) {
         output_append_n (out, s + i, run - i);
         i = run;
         continue;
      }
      n = output_utf8_next ((const unsigned char *) s + i, len - i, &cp);

      if ((cp == '\'' && quote == '\'') || cp == '\\') {
         output_append_c (out, '\\');
         output_append_c (out, (char) cp);
      } else if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) {
         switch (cp) {
         case '\b':
            OUTPUT_LIT (out, "\\b");
            break;
         case '\t':
            OUTPUT_LIT (out, "\\t");
            break;
         case '\n':
            OUTPUT_LIT (out, "\\n");
            break;
         case '\f':
            OUTPUT_LIT (out, "\\f");
            break;
         case '\r':
            OUTPUT_LIT (out, "\\r");
            break;
         default:
            bson_string_append_printf (out, "\\x%02X", (unsigned) cp);
            break;
         }
      } else if (n == 1 && cp < 0x80) {
         output_append_c (out, (char) cp);
      } else {
         output_append_cp (out, cp);
      }
      i += n;
   }
   if (lone_high_surrogate) {
      bson_string_append_printf (out, "\\u%x", (unsigned) surrogate);
   }
   output_append_c (out, quote);
}

/* A string value inside a document or array (formatPrimitive): cut at maxStringLength, split after each
 * newline when it is too long for the line, each piece escaped and coloured green. */
void
output_inspect_string (bson_string_t *out, const output_ctx_t *ctx, const char *s, size_t len)
{
   size_t units = 0, cut = len, remaining = 0, counted = 0;
   bool lone = false;
   uint32_t surrogate = 0;

   /* nothing to cut (units never exceed bytes) and all ASCII: a byte is a unit */
   if ((ctx->max_string_length < 0 || len <= (size_t) ctx->max_string_length) &&
       output_ascii ((const unsigned char *) s, len, false)) {
      units = len;
      counted = len;
   }
   for (size_t i = counted; i < len;) {
      uint32_t cp;
      size_t n, u;

      if (ctx->max_string_length < 0 && (unsigned char) s[i] < 0x80) {
         units++; /* nothing to cut: an ASCII byte is one unit */
         i++;
         continue;
      }
      n = output_utf8_next ((const unsigned char *) s + i, len - i, &cp);
      u = cp >= 0x10000 ? 2 : 1;
      if (ctx->max_string_length >= 0 && cut == len && units + u > (size_t) ctx->max_string_length) {
         cut = i;
         if (u == 2 && units + 1 == (size_t) ctx->max_string_length) {
            lone = true;
            surrogate = 0xd800 + ((cp - 0x10000) >> 10);
         }
      }
      units += u;
      i += n;
   }
   if (cut < len) {
      remaining = units - (size_t) ctx->max_string_length;
      units = (size_t) ctx->max_string_length;
   }

   if (units > OUTPUT_MIN_LINE_LENGTH && (double) units > ctx->break_length - ctx->indentation_lvl - 4) {
      size_t start = 0;

      while (start < cut) {
         const char *nl = memchr (s + start, '\n', cut - start);
         size_t end = nl ? (size_t) (nl - s) + 1 : cut;
         bson_string_t *piece = bson_string_new (NULL);

         if (start > 0) {
            OUTPUT_LIT (out, " +\n");
            output_spaces (out, ctx->indentation_lvl + 2);
         }
         output_str_escape (piece, s + start, end - start, lone && end == cut, surrogate);
         output_stylize (out, ctx, piece->str, OUTPUT_STYLE_STRING);
         bson_string_free (piece, true);
         start = end;
      }
      if (cut == 0) {
         bson_string_t *piece = bson_string_new (NULL);
         output_str_escape (piece, s, 0, lone, surrogate);
         output_stylize (out, ctx, piece->str, OUTPUT_STYLE_STRING);
         bson_string_free (piece, true);
      }
   } else if (!ctx->opts->color) {
      output_str_escape (out, s, cut, lone, surrogate); /* uncoloured: straight into out */
   } else {
      bson_string_t *piece = bson_string_new (NULL);

      output_str_escape (piece, s, cut, lone, surrogate);
      output_stylize (out, ctx, piece->str, OUTPUT_STYLE_STRING);
      bson_string_free (piece, true);
   }
   if (remaining > 0) {
      bson_string_append_printf (out, "... %zu more character%s", remaining, remaining > 1 ? "s" : "");
   }
}

/* Appends a plain string quoted as util.inspect quotes it (no splitting, no limit), coloured green. */
void
output_quoted (bson_string_t *out, const output_ctx_t *ctx, const char *s)
{
   bson_string_t *piece;

   if (!ctx->opts->color) {
      output_str_escape (out, s, strlen (s), false, 0);
      return;
   }
   piece = bson_string_new (NULL);
   output_str_escape (piece, s, strlen (s), false, 0);
   output_stylize (out, ctx, piece->str, OUTPUT_STYLE_STRING);
   bson_string_free (piece, true);
}

void
output_quoted_plain (bson_string_t *out, const output_ctx_t *ctx, const char *s, size_t len)
{
   if (ctx->opts->color) {
      output_quoted (out, ctx, s);
      return;
   }
   output_reserve (out, len + 2);
   out->str[out->len] = '\'';
   memcpy (out->str + out->len + 1, s, len);
   out->str[out->len + 1 + len] = '\'';
   out->len += (uint32_t) (len + 2);
   out->str[out->len] = '\0';
}

/* Number.prototype.toString for a double: the shortest digits that read back as d, in fixed notation for
 * exponents in [-7, 20] and as 1.5e+21 otherwise. -0 gives "0"; the caller handles util.inspect's "-0". */
static void
output_js_number (bson_string_t *out, double d)
{
   char buf[40], digits[24];
   int ndigits = 0, exp10 = 0, point;
   const char *e;

   if (isnan (d)) {
      OUTPUT_LIT (out, "NaN");
      return;
   }
   if (isinf (d)) {
      output_append (out, d < 0 ? "-Infinity" : "Infinity");
      return;
   }
   if (d == 0) {
      OUTPUT_LIT (out, "0");
      return;
   }
   for (int prec = 1; prec <= 17; prec++) {
      snprintf (buf, sizeof buf, "%.*e", prec - 1, d);
      if (strtod (buf, NULL) == d) {
         break;
      }
   }
   /* buf is [-]d[.ddd]e±xx; the decimal separator depends on the locale, so take only the digits. */
   e = strchr (buf, 'e');
   for (const char *p = buf; p < e; p++) {
      if (*p >= '0' && *p <= '9' && ndigits < (int) sizeof digits - 1) {
         digits[ndigits++] = *p;
      }
   }
   while (ndigits > 1 && digits[ndigits - 1] == '0') {
      ndigits--;
   }
   digits[ndigits] = '\0';
   exp10 = atoi (e + 1);
   point = exp10 + 1; /* ECMAScript's n: the value is 0.digits × 10^n */

   if (d < 0) {
      output_append_c (out, '-');
   }
   if (ndigits <= point && point <= 21) {
      output_append (out, digits);
      for (int i = ndigits; i < point; i++) {
         output_append_c (out, '0');
      }
   } else if (0 < point && point <= 21) {
      bson_string_append_printf (out, "%.*s.%s", point, digits, digits + point);
   } else if (-6 < point && point <= 0) {
      OUTPUT_LIT (out, "0.");
      for (int i = point; i < 0; i++) {
         output_append_c (out, '0');
      }
      output_append (out, digits);
   } else {
      output_append_c (out, digits[0]);
      if (ndigits > 1) {
         bson_string_append_printf (out, ".%s", digits + 1);
      }
      bson_string_append_printf (out, "e%c%d", point - 1 < 0 ? '-' : '+', abs (point - 1));
   }
}

void
output_shortest_double (bson_string_t *out, double d)
{
   output_js_number (out, d);
}

/* util.inspect's formatNumber: a JS number, yellow, with -0 kept. */
void
output_number (bson_string_t *out, const output_ctx_t *ctx, double d)
{
   bson_string_t *num = bson_string_new (NULL);

   if (d == 0 && signbit (d)) {
      OUTPUT_LIT (num, "-0");
   } else {
      output_js_number (num, d);
   }
   output_stylize (out, ctx, num->str, OUTPUT_STYLE_NUMBER);
   bson_string_free (num, true);
}

/* Date.prototype.toISOString for milliseconds since the epoch (|ms| <= 8.64e15), proleptic Gregorian. */
void
output_iso_date (bson_string_t *out, int64_t ms)
{
   int64_t days = ms / 86400000, rem = ms % 86400000;
   int64_t era, doe, yoe, doy, mp, y;
   int m, dd;

   if (rem < 0) {
      rem += 86400000;
      days--;
   }
   /* days since 1970-01-01 to a civil date (the usual era/day-of-era decomposition). */
   days += 719468;
   era = (days >= 0 ? days : days - 146096) / 146097;
   doe = days - era * 146097;
   yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
   doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
   mp = (5 * doy + 2) / 153;
   dd = (int) (doy - (153 * mp + 2) / 5 + 1);
   m = (int) (mp < 10 ? mp + 3 : mp - 9);
   y = yoe + era * 400 + (m <= 2);

   if (y >= 0 && y <= 9999) {
      bson_string_append_printf (out, "%04" PRId64, y);
   } else {
      bson_string_append_printf (out, "%c%06" PRId64, y < 0 ? '-' : '+', y < 0 ? -y : y);
   }
   bson_string_append_printf (out, "-%02d-%02dT%02d:%02d:%02d.%03dZ", m, dd, (int) (rem / 3600000),
                              (int) (rem / 60000 % 60), (int) (rem / 1000 % 60), (int) (rem % 1000));
}

static void
output_base64 (bson_string_t *out, const uint8_t *data, uint32_t len)
{
   static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

   for (uint32_t i = 0; i < len; i += 3) {
      uint32_t n = (uint32_t) data[i] << 16;
      uint32_t left = len - i;

      if (left > 1) {
         n |= (uint32_t) data[i + 1] << 8;
      }
      if (left > 2) {
         n |= data[i + 2];
      }
      output_append_c (out, alphabet[(n >> 18) & 63]);
      output_append_c (out, alphabet[(n >> 12) & 63]);
      output_append_c (out, left > 1 ? alphabet[(n >> 6) & 63] : '=');
      output_append_c (out, left > 2 ? alphabet[n & 63] : '=');
   }
}

/* Whether a Binary is a script's value shown as text (OUTPUT_SHOWN_TAG, OUTPUT_SHOWN_SUBTYPE); its text (borrowed
 * from data) in *text and *len. */
static bool
output_shown_text (bson_subtype_t subtype, const uint8_t *data, uint32_t len, const char **text, size_t *tlen)
{
   if ((int) subtype != OUTPUT_SHOWN_SUBTYPE || len < sizeof OUTPUT_SHOWN_TAG - 1 ||
       memcmp (data, OUTPUT_SHOWN_TAG, sizeof OUTPUT_SHOWN_TAG - 1) != 0) {
      return false;
   }
   *text = (const char *) data + sizeof OUTPUT_SHOWN_TAG - 1;
   *tlen = len - (sizeof OUTPUT_SHOWN_TAG - 1);
   return true;
}

/* The bson library's Binary as mongosh prints it (a script's value shown as text: OUTPUT_SHOWN_TAG): UUID('…') for a
 * 16-byte subtype 4, MD5('hex') for subtype 5, otherwise Binary.createFromBase64('…', subtype). */
void
output_binary (bson_string_t *out, const output_ctx_t *ctx, bson_subtype_t subtype, const uint8_t *data, uint32_t len)
{
   bson_string_t *b64;
   const char *shown;
   size_t shown_len;
   char sub[16];

   if (subtype == BSON_SUBTYPE_UUID && len == 16) {
      OUTPUT_LIT (out, "UUID('");
      for (uint32_t i = 0; i < 16; i++) {
         if (i == 4 || i == 6 || i == 8 || i == 10) {
            output_append_c (out, '-');
         }
         bson_string_append_printf (out, "%02x", data[i]);
      }
      OUTPUT_LIT (out, "')");
      return;
   }
   if (output_shown_text (subtype, data, len, &shown, &shown_len)) {
      const char *p = shown, *end = shown + shown_len, *nl;
      for (; (nl = memchr (p, '\n', (size_t) (end - p))); p = nl + 1) {
         output_append_n (out, p, (size_t) (nl + 1 - p));
         output_spaces (out, ctx->indentation_lvl);
      }
      output_append_n (out, p, (size_t) (end - p));
      return;
   }
   if (subtype == BSON_SUBTYPE_MD5) {
      OUTPUT_LIT (out, "MD5('");
      for (uint32_t i = 0; i < len; i++) {
         bson_string_append_printf (out, "%02x", data[i]);
      }
      OUTPUT_LIT (out, "')");
      return;
   }
   b64 = bson_string_new (NULL);
   output_base64 (b64, data, len);
   OUTPUT_LIT (out, "Binary.createFromBase64(");
   output_quoted (out, ctx, b64->str);
   OUTPUT_LIT (out, ", ");
   bson_snprintf (sub, sizeof sub, "%d", (int) subtype);
   output_stylize (out, ctx, sub, OUTPUT_STYLE_NUMBER);
   OUTPUT_LIT (out, ")");
   bson_string_free (b64, true);
}

/* A BSON regex as the JS driver turns it into a RegExp (options i, m kept, s becomes g, the rest dropped) and
 * RegExp.prototype.toString prints it: '/' escaped outside classes, line breaks escaped, flags in g-i-m order. */
void
output_regex (bson_string_t *out, const output_ctx_t *ctx, const char *pattern, const char *options)
{
   bson_string_t *re = bson_string_new ("/");
   bool in_class = false;

   if (!*pattern) {
      OUTPUT_LIT (re, "(?:)");
   }
   for (const char *p = pattern; *p; p++) {
      if (*p == '\\' && p[1]) {
         output_append_c (re, *p++);
         output_append_c (re, *p);
         continue;
      }
      if (*p == '[') {
         in_class = true;
      } else if (*p == ']') {
         in_class = false;
      }
      if (*p == '/' && !in_class) {
         OUTPUT_LIT (re, "\\/");
      } else if (*p == '\n') {
         OUTPUT_LIT (re, "\\n");
      } else if (*p == '\r') {
         OUTPUT_LIT (re, "\\r");
      } else {
         output_append_c (re, *p);
      }
   }
   output_append_c (re, '/');
   if (strchr (options, 's')) {
      output_append_c (re, 'g');
   }
   if (strchr (options, 'i')) {
      output_append_c (re, 'i');
   }
   if (strchr (options, 'm')) {
      output_append_c (re, 'm');
   }
   output_stylize (out, ctx, re->str, OUTPUT_STYLE_REGEXP);
   bson_string_free (re, true);
}

/* Which bytes keyStrRegExp allows: 2 anywhere (letters, '_'), 1 after the first character (digits), 0 never. */
static const unsigned char output_ident_class[256] = {
   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2,
   2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 2, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
   2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/* keyStrRegExp: /^[a-zA-Z_][a-zA-Z_0-9]*$/ */
bool
output_is_identifier_n (const char *key, size_t len)
{
   if (len == 0 || output_ident_class[(unsigned char) key[0]] != 2) {
      return false;
   }
   for (size_t i = 1; i < len; i++) {
      if (!output_ident_class[(unsigned char) key[i]]) {
         return false;
      }
   }
   return true;
}

bool
output_is_identifier (const char *key)
{
   return output_is_identifier_n (key, strlen (key));
}

/* True when key is a JS array index ("0", "17", up to 2^32 - 2): such keys come first in a JS object. */
bool
output_index_key (const char *key, uint32_t *index)
{
   uint64_t v = 0;

   if (key[0] < '0' || key[0] > '9' || (key[0] == '0' && key[1]) || strlen (key) > 10) {
      return false;
   }
   for (const char *p = key; *p; p++) {
      if (*p < '0' || *p > '9') {
         return false;
      }
      v = v * 10 + (uint64_t) (*p - '0');
   }
   if (v > 4294967294u) {
      return false;
   }
   *index = (uint32_t) v;
   return true;
}

/* The order of a document's keys as a JS object holds them (output_key_order), found in the same pass that keeps the
 * first elements' iterators for the formatter. output_int.h's output_iter_value reads each element's value. */

/* Where the element iter is on starts, and the array index its key holds. */
static output_slot_t
output_slot (bson_iter_t *iter, uint32_t index)
{
   output_slot_t slot;

   slot.offset = bson_iter_offset (iter);
   slot.key_len = bson_iter_key_len (iter);
   slot.index = index;
   return slot;
}

bool
output_key_order (const bson_t *doc, output_saved_iter_t *saved, output_slot_t **order, size_t *count)
{
   bson_iter_t iter;
   size_t n = 0, cap = 8, nindex = 0;
   output_slot_t *slots;
   bool *is_index;

   *order = NULL;
   *count = 0;
   if (!bson_iter_init (&iter, doc)) {
      return false;
   }
   /* one pass for the usual document, whose keys are not array indexes: insertion order, and the first elements'
    * iterators kept for the caller's pass */
   while (bson_iter_next (&iter)) {
      const char *key = bson_iter_key_unsafe (&iter);
      uint32_t v;

      if (*key >= '0' && *key <= '9' && output_index_key (key, &v)) {
         nindex++;
         break;
      }
      if (n < OUTPUT_SAVED_ITERS) {
         saved[n].iter = iter;
      }
      n++;
   }
   if (nindex == 0) {
      *count = n; /* insertion order: no slots needed */
      return true;
   }
   n = 0;
   nindex = 0;
   BSON_ASSERT (bson_iter_init (&iter, doc));
   slots = bson_malloc (cap * sizeof *slots);
   is_index = bson_malloc (cap * sizeof *is_index);
   while (bson_iter_next (&iter)) {
      uint32_t v = 0;

      if (n == cap) {
         cap *= 2;
         slots = bson_realloc (slots, cap * sizeof *slots);
         is_index = bson_realloc (is_index, cap * sizeof *is_index);
      }
      is_index[n] = output_index_key (bson_iter_key (&iter), &v);
      nindex += is_index[n];
      slots[n++] = output_slot (&iter, v);
   }
   if (nindex > 0) {
      /* index keys first, insertion-sorted by value (documents rarely have more than a few), then the rest */
      output_slot_t *sorted = bson_malloc (n * sizeof *sorted);
      size_t k = 0;

      for (size_t i = 0; i < n; i++) {
         if (is_index[i]) {
            size_t j = k++;

            while (j > 0 && sorted[j - 1].index > slots[i].index) {
               sorted[j] = sorted[j - 1];
               j--;
            }
            sorted[j] = slots[i];
         }
      }
      for (size_t i = 0; i < n; i++) {
         if (!is_index[i]) {
            sorted[k++] = slots[i];
         }
      }
      bson_free (slots);
      slots = sorted;
   }
   bson_free (is_index);
   *order = slots;
   *count = n;
   return true;
}

static bool
output_is_shown (const bson_iter_t *it, const char **text, size_t *len)
{
   bson_subtype_t sub;
   uint32_t n;
   const uint8_t *data;

   if (!BSON_ITER_HOLDS_BINARY (it)) {
      return false;
   }
   bson_iter_binary (it, &sub, &n, &data);
   return output_shown_text (sub, data, n, text, len);
}

bool
output_has_shown (const uint8_t *data, uint32_t len)
{
   bson_iter_t it, sub;
   const char *text;
   size_t n;

   if (!bson_iter_init_from_data (&it, data, len)) {
      return false;
   }
   while (bson_iter_next (&it)) {
      if (output_is_shown (&it, &text, &n)) {
         return true;
      }
      if ((BSON_ITER_HOLDS_DOCUMENT (&it) || BSON_ITER_HOLDS_ARRAY (&it)) && bson_iter_recurse (&it, &sub) &&
          output_has_shown (sub.raw, sub.len)) {
         return true;
      }
   }
   return false;
}

void
output_shown_plain (const uint8_t *data, uint32_t len, bool is_array, bson_t *dst)
{
   bson_iter_t it;
   uint32_t index = 0;

   if (!bson_iter_init_from_data (&it, data, len)) {
      return;
   }
   while (bson_iter_next (&it)) {
      char buf[16], num[64];
      const char *key = bson_iter_key (&it), *text;
      size_t n;
      bson_t child;

      if (is_array) {
         bson_uint32_to_string (index, &key, buf, sizeof buf);
      }
      if (output_is_shown (&it, &text, &n)) {
         bool int32 = n > 7 && !strncmp (text, "Int32(", 6), dbl = n > 8 && !strncmp (text, "Double(", 7);
         if (int32 || dbl) {
            bson_snprintf (num, sizeof num, "%.*s", (int) (n - (int32 ? 7 : 8)), text + (int32 ? 6 : 7));
         }
         if (int32) {
            BSON_APPEND_INT32 (dst, key, (int32_t) strtol (num, NULL, 10));
         } else if (dbl) {
            BSON_APPEND_DOUBLE (dst, key, strtod (num, NULL));
         } else if (is_array) {
            BSON_APPEND_NULL (dst, key);
         } else {
            continue;
         }
      } else if (BSON_ITER_HOLDS_DOCUMENT (&it) || BSON_ITER_HOLDS_ARRAY (&it)) {
         bson_iter_t sub;
         bool arr = BSON_ITER_HOLDS_ARRAY (&it);

         bson_iter_recurse (&it, &sub);
         if (arr) {
            BSON_APPEND_ARRAY_BEGIN (dst, key, &child);
         } else {
            BSON_APPEND_DOCUMENT_BEGIN (dst, key, &child);
         }
         output_shown_plain (sub.raw, sub.len, arr, &child);
         if (arr) {
            bson_append_array_end (dst, &child);
         } else {
            bson_append_document_end (dst, &child);
         }
      } else {
         bson_append_iter (dst, key, -1, &it);
      }
      index++;
   }
}
