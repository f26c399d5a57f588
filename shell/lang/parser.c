/* The mongosh-literal parser: a recursive-descent parser over the lexer's tokens. Statements are member/call chains
 * (sh.moveChunk(...), db.getSiblingDB("config").chunks.find({})) or the keywords use, show, help and exit; call
 * arguments are built straight into BSON with bson_append_*, following JavaScript's rules for numbers and the
 * constructors mongosh offers (ObjectId, ISODate, NumberLong, Timestamp, UUID, BinData, MinKey, ...). */
#include "shell/lang/parser.h"
#include "shell/lib/clock.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "shell/lang/lexer.h"

/* How many brackets may be open at once. Deeper input is an error, so recursion stays bounded. */
#define PARSE_MAX_DEPTH 100

static const char *const parse_js_hint =
   "shardsh accepts mongosh-style statements, not JavaScript: calls such as sh.status() or "
   "db.adminCommand({...}), and use <db>, show <what>, help, exit";

typedef struct {
   sh_tok_kind_t kind; /* SH_TOK_LBRACE, SH_TOK_LBRACKET or SH_TOK_LPAREN */
   sh_pos_t pos;
} parse_open_t;

typedef struct {
   sh_lexer_t lx;
   sh_token_t tok;    /* the current token, not consumed yet */
   sh_pos_t prev_end; /* position just after the last consumed token */
   sh_error_t *err;
   parse_open_t open[PARSE_MAX_DEPTH];
   int depth;
   bool incomplete; /* the error is the text ending inside an open bracket, string, regex or comment */
} parser_t;

/* Arguments of a call: an array document and where each argument starts (pos.len spans the whole argument). */
typedef struct {
   bson_t arr;
   sh_pos_t *pos;
   int argc;
   sh_pos_t close;
} parse_args_t;

/* Keys already used in one document, to refuse duplicates. Open addressing over owned copies of the keys. */
typedef struct {
   char **keys;
   size_t *lens;
   size_t cap;
   size_t n;
} parse_keyset_t;

static bool
p_value (parser_t *p, bson_t *dst, const char *key, int key_len);

/* ---------------------------------------------------------------------------------------------------------------
 * Tokens and errors
 */

static bool
p_fail (parser_t *p, sh_pos_t pos, const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));

static bool
p_fail (parser_t *p, sh_pos_t pos, const char *fmt, ...)
{
   char msg[768];
   va_list ap;
   size_t i;

   va_start (ap, fmt);
   vsnprintf (msg, sizeof msg, fmt, ap);
   va_end (ap);
   /* Messages quote the user's text: keep its control characters (an escape sequence, say) off the terminal. */
   for (i = 0; msg[i]; i++) {
      if ((unsigned char) msg[i] < 0x20 || msg[i] == 0x7f) {
         msg[i] = '?';
      }
   }
   sh_error_set_at (p->err, SH_ERR_PARSE, pos, "%s", msg);
   return false;
}

/* Moves to the next token. */
static bool
p_advance (parser_t *p)
{
   p->prev_end.line = p->lx.line;
   p->prev_end.col = p->lx.col;
   p->prev_end.offset = p->lx.off;
   p->prev_end.len = 0;
   sh_token_release (&p->tok);
   if (!sh_lex_next (&p->lx, &p->tok, p->err)) {
      p->incomplete = p->lx.incomplete;
      return false;
   }
   return true;
}

/* Length of the first at most max bytes of s (len bytes of UTF-8), cut at a character boundary. */
static int
p_clip (const char *s, size_t len, size_t max)
{
   if (len <= max) {
      return (int) len;
   }
   while (max > 0 && ((unsigned char) s[max] & 0xc0) == 0x80) {
      max--;
   }
   return (int) max;
}

/* Describes a token for messages: "end of input", "'='", "name 'foo'", "number 5", "string \"abc\"". */
static void
p_describe (const sh_token_t *tok, char *buf, size_t size)
{
   int n = p_clip (tok->text, tok->pos.len, 40);
   const char *more = (size_t) n < tok->pos.len ? "..." : "";

   switch (tok->kind) {
   case SH_TOK_EOF:
      snprintf (buf, size, "end of input");
      break;
   case SH_TOK_IDENT:
   case SH_TOK_WORD:
      snprintf (buf, size, "name '%.*s%s'", n, tok->text, more);
      break;
   case SH_TOK_NUMBER:
      snprintf (buf, size, "number %.*s%s", n, tok->text, more);
      break;
   case SH_TOK_STRING:
      snprintf (buf, size, "string %.*s%s", n, tok->text, more);
      break;
   case SH_TOK_REGEX:
      snprintf (buf, size, "regex %.*s%s", n, tok->text, more);
      break;
   default:
      snprintf (buf, size, "'%.*s'", n, tok->text);
      break;
   }
}

static char
p_bracket_char (sh_tok_kind_t kind)
{
   switch (kind) {
   case SH_TOK_LBRACE:
      return '{';
   case SH_TOK_RBRACE:
      return '}';
   case SH_TOK_LBRACKET:
      return '[';
   case SH_TOK_RBRACKET:
      return ']';
   case SH_TOK_LPAREN:
      return '(';
   case SH_TOK_RPAREN:
      return ')';
   default:
      return '?';
   }
}

static bool
p_is_closer (sh_tok_kind_t kind)
{
   return kind == SH_TOK_RBRACE || kind == SH_TOK_RBRACKET || kind == SH_TOK_RPAREN;
}

/* The opener a closer matches. */
static sh_tok_kind_t
p_opener_of (sh_tok_kind_t closer)
{
   return closer == SH_TOK_RBRACE ? SH_TOK_LBRACE : closer == SH_TOK_RBRACKET ? SH_TOK_LBRACKET : SH_TOK_LPAREN;
}

/* Reports the current token as unexpected. The end of the text inside brackets points at the unclosed bracket, and
 * a closer that matches nothing points at itself; anything else says what was expected. Always returns false. */
static bool
p_unexpected (parser_t *p, const char *expected)
{
   const sh_token_t *tok = &p->tok;
   char what[96];

   if (tok->kind == SH_TOK_EOF && p->depth > 0) {
      const parse_open_t *open = &p->open[p->depth - 1];
      sh_pos_t pos = open->pos;

      p->incomplete = true;
      pos.len = 1;
      p_fail (p, pos, "unclosed '%c'", p_bracket_char (open->kind));
      sh_error_hint (p->err, "the text ended before the matching '%c'",
                     p_bracket_char (open->kind == SH_TOK_LBRACE     ? SH_TOK_RBRACE
                                     : open->kind == SH_TOK_LBRACKET ? SH_TOK_RBRACKET
                                                                     : SH_TOK_RPAREN));
      return false;
   }
   if (p_is_closer (tok->kind)) {
      if (p->depth == 0) {
         return p_fail (p, tok->pos, "unmatched '%c'", p_bracket_char (tok->kind));
      }
      if (p->open[p->depth - 1].kind != p_opener_of (tok->kind)) {
         const parse_open_t *open = &p->open[p->depth - 1];

         return p_fail (p, tok->pos, "mismatched '%c': the '%c' at %d:%d is still open", p_bracket_char (tok->kind),
                        p_bracket_char (open->kind), open->pos.line, open->pos.col);
      }
   }
   p_describe (tok, what, sizeof what);
   return p_fail (p, tok->pos, "%s, found %s", expected, what);
}

/* Consumes an opening bracket, remembering it for error messages. */
static bool
p_open (parser_t *p)
{
   if (p->depth >= PARSE_MAX_DEPTH) {
      return p_fail (p, p->tok.pos, "nesting deeper than %d levels", PARSE_MAX_DEPTH);
   }
   p->open[p->depth].kind = p->tok.kind;
   p->open[p->depth].pos = p->tok.pos;
   p->depth++;
   return p_advance (p);
}

/* Consumes the closing bracket the caller has checked is there. */
static bool
p_close (parser_t *p)
{
   p->depth--;
   return p_advance (p);
}

/* A NUL-terminated copy of n bytes of s, which need not be NUL-terminated itself. */
static char *
p_strndup (const char *s, size_t n)
{
   char *out = bson_malloc (n + 1);

   memcpy (out, s, n);
   out[n] = '\0';
   return out;
}

static bool
p_is_ident (const sh_token_t *tok, const char *name)
{
   return tok->kind == SH_TOK_IDENT && tok->pos.len == strlen (name) && memcmp (tok->text, name, tok->pos.len) == 0;
}

static bool
p_in_list (const char *text, size_t len, const char *const *list)
{
   size_t i;

   for (i = 0; list[i]; i++) {
      if (strlen (list[i]) == len && memcmp (list[i], text, len) == 0) {
         return true;
      }
   }
   return false;
}

static bool
p_appended (parser_t *p, bool ok, sh_pos_t pos)
{
   if (!ok) {
      return p_fail (p, pos, "value too large for a BSON document");
   }
   return true;
}

/* ---------------------------------------------------------------------------------------------------------------
 * Numbers, dates and binary helpers
 */

/* A JavaScript number goes over the wire as int32 when it is an integer in int32 range (and not -0), else as a
 * double: 1, 1.0 and 1e3 are int32; 1.5, 3000000000 and -0 are doubles. */
static bool
p_append_number (bson_t *dst, const char *key, int key_len, double v)
{
   if (v >= INT32_MIN && v <= INT32_MAX && v == (double) (int32_t) v && !(v == 0 && signbit (v))) {
      return bson_append_int32 (dst, key, key_len, (int32_t) v);
   }
   return bson_append_double (dst, key, key_len, v);
}

/* Parses an optionally signed decimal integer (spaces allowed after the sign) into *out. Returns 0 on success,
 * 1 when it is not a plain integer, 2 when it does not fit in int64. */
static int
p_parse_int64 (const char *s, size_t len, int64_t *out)
{
   bool neg = false;
   uint64_t v = 0, limit;
   size_t i = 0;

   if (i < len && (s[i] == '-' || s[i] == '+')) {
      neg = s[i] == '-';
      i++;
      while (i < len && (s[i] == ' ' || s[i] == '\t')) {
         i++;
      }
   }
   if (i >= len) {
      return 1;
   }
   limit = neg ? (uint64_t) INT64_MAX + 1 : (uint64_t) INT64_MAX;
   for (; i < len; i++) {
      if (s[i] < '0' || s[i] > '9') {
         return 1;
      }
      if (v > (limit - (uint64_t) (s[i] - '0')) / 10) {
         return 2;
      }
      v = v * 10 + (uint64_t) (s[i] - '0');
   }
   if (neg) {
      *out = v == (uint64_t) INT64_MAX + 1 ? INT64_MIN : -(int64_t) v;
   } else {
      *out = (int64_t) v;
   }
   return 0;
}

static int64_t
p_days_from_civil (int64_t y, unsigned m, unsigned d)
{
   int64_t era;
   unsigned yoe, doy, doe;

   y -= m <= 2;
   era = (y >= 0 ? y : y - 399) / 400;
   yoe = (unsigned) (y - era * 400);
   doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
   doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
   return era * 146097 + (int64_t) doe - 719468;
}

/* Reads exactly n digits at s[*i]. */
static bool
p_digits (const char *s, size_t len, size_t *i, int n, int *out)
{
   int k;

   *out = 0;
   for (k = 0; k < n; k++) {
      if (*i >= len || s[*i] < '0' || s[*i] > '9') {
         return false;
      }
      *out = *out * 10 + (s[*i] - '0');
      (*i)++;
   }
   return true;
}

/* Parses the ISO 8601 forms mongosh's ISODate accepts: YYYY-MM-DD, optionally followed by T (or a space) and
 * HH[:MM[:SS[.fff]]], optionally followed by Z or +hh[:mm] / -hh[:mm]. Dashes and colons may be left out. No zone
 * means UTC. Returns milliseconds since the epoch. */
static bool
p_parse_iso_date (const char *s, size_t len, int64_t *ms)
{
   static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
   int y, mo, d, h = 0, mi = 0, sec = 0, frac = 0, tzh = 0, tzm = 0, dim;
   int tzsign = 0;
   size_t i = 0;

   if (!p_digits (s, len, &i, 4, &y)) {
      return false;
   }
   if (i < len && s[i] == '-') {
      i++;
   }
   if (!p_digits (s, len, &i, 2, &mo)) {
      return false;
   }
   if (i < len && s[i] == '-') {
      i++;
   }
   if (!p_digits (s, len, &i, 2, &d)) {
      return false;
   }
   if (i < len && (s[i] == 'T' || s[i] == 't' || s[i] == ' ')) {
      i++;
      if (!p_digits (s, len, &i, 2, &h)) {
         return false;
      }
      if (i < len && s[i] == ':') {
         i++;
      }
      if (i < len && s[i] >= '0' && s[i] <= '9') {
         if (!p_digits (s, len, &i, 2, &mi)) {
            return false;
         }
         if (i < len && s[i] == ':') {
            i++;
         }
         if (i < len && s[i] >= '0' && s[i] <= '9') {
            if (!p_digits (s, len, &i, 2, &sec)) {
               return false;
            }
            if (i < len && s[i] == '.') {
               int scale = 100, nd = 0;

               i++;
               while (i < len && s[i] >= '0' && s[i] <= '9') {
                  frac += (s[i] - '0') * scale;
                  scale /= 10;
                  nd++;
                  i++;
               }
               if (nd == 0) {
                  return false;
               }
            }
         }
      }
   }
   if (i < len && (s[i] == 'Z' || s[i] == 'z')) {
      i++;
   } else if (i < len && (s[i] == '+' || s[i] == '-')) {
      tzsign = s[i] == '-' ? -1 : 1;
      i++;
      if (!p_digits (s, len, &i, 2, &tzh)) {
         return false;
      }
      if (i < len && s[i] == ':') {
         i++;
      }
      if (i < len && !p_digits (s, len, &i, 2, &tzm)) {
         return false;
      }
   }
   if (i != len) {
      return false;
   }
   if (mo < 1 || mo > 12 || h > 23 || mi > 59 || sec > 59 || tzh > 23 || tzm > 59) {
      return false;
   }
   dim = mdays[mo - 1];
   if (mo == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)) {
      dim = 29;
   }
   if (d < 1 || d > dim) {
      return false;
   }
   *ms = p_days_from_civil (y, (unsigned) mo, (unsigned) d) * 86400000 + (int64_t) ((h * 60 + mi) * 60 + sec) * 1000 +
         frac - (int64_t) tzsign * (tzh * 60 + tzm) * 60000;
   return true;
}

/* What JavaScript's Date() returns: the current local time as "Sat Nov 22 2025 03:28:00 GMT+0000 (UTC)". */
static void
p_date_string (char *buf, size_t size)
{
   static const char *const days[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
   static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                         "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
   time_t now = time (NULL);
   struct tm tm;
   long off;

   if (!localtime_r (&now, &tm)) {
      snprintf (buf, size, "Invalid Date");
      return;
   }
   off = tm.tm_gmtoff / 60;
   snprintf (buf, size, "%s %s %02d %04d %02d:%02d:%02d GMT%c%02ld%02ld (%s)", days[tm.tm_wday % 7],
             months[tm.tm_mon % 12], tm.tm_mday, tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec,
             off < 0 ? '-' : '+', labs (off) / 60, labs (off) % 60, tm.tm_zone ? tm.tm_zone : "local time");
}

/* Fills buf with random bytes for UUID(); falls back to a time-seeded generator if the kernel will not help. */
static void
p_random_bytes (uint8_t *buf, size_t n)
{
   static uint64_t counter;
   size_t got = 0;

   while (got < n) {
      ssize_t r = getrandom (buf + got, n - got, 0);

      if (r <= 0) {
         break;
      }
      got += (size_t) r;
   }
   if (got < n) {
      uint64_t x = (uint64_t) clock_wall_ms () ^ ((uint64_t) (uintptr_t) buf << 16) ^ (++counter * 0x9e3779b97f4a7c15u);

      for (; got < n; got++) {
         x ^= x << 13;
         x ^= x >> 7;
         x ^= x << 17;
         buf[got] = (uint8_t) x;
      }
   }
}

static int
p_base64_value (char c)
{
   if (c >= 'A' && c <= 'Z') {
      return c - 'A';
   }
   if (c >= 'a' && c <= 'z') {
      return c - 'a' + 26;
   }
   if (c >= '0' && c <= '9') {
      return c - '0' + 52;
   }
   if (c == '+') {
      return 62;
   }
   if (c == '/') {
      return 63;
   }
   return -1;
}

/* Decodes padded standard base64. out must hold len / 4 * 3 bytes. */
static bool
p_base64_decode (const char *s, size_t len, uint8_t *out, size_t *out_len)
{
   size_t i, n = 0, pad = 0;

   if (len % 4 != 0) {
      return false;
   }
   if (len > 0 && s[len - 1] == '=') {
      pad++;
      if (s[len - 2] == '=') {
         pad++;
      }
   }
   for (i = 0; i < len; i += 4) {
      int v[4], k;
      uint32_t w = 0;

      for (k = 0; k < 4; k++) {
         bool in_pad = i + (size_t) k >= len - pad;

         v[k] = in_pad ? 0 : p_base64_value (s[i + (size_t) k]);
         if (v[k] < 0) {
            return false;
         }
         w = (w << 6) | (uint32_t) v[k];
      }
      out[n++] = (uint8_t) (w >> 16);
      if (i + 4 < len || pad < 2) {
         out[n++] = (uint8_t) (w >> 8);
      }
      if (i + 4 < len || pad < 1) {
         out[n++] = (uint8_t) w;
      }
   }
   *out_len = n;
   return true;
}

/* Decodes exactly out_len bytes of hex, skipping dashes at the positions listed in dashes (or none). */
static bool
p_hex_decode (const char *s, size_t len, uint8_t *out, size_t out_len)
{
   size_t i, n = 0;
   int hi = -1;

   for (i = 0; i < len; i++) {
      char c = s[i];
      int d = (c >= '0' && c <= '9')   ? c - '0'
              : (c >= 'a' && c <= 'f') ? c - 'a' + 10
              : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                       : -1;

      if (d < 0 || n >= out_len) {
         return false;
      }
      if (hi < 0) {
         hi = d;
      } else {
         out[n++] = (uint8_t) (hi * 16 + d);
         hi = -1;
      }
   }
   return n == out_len && hi < 0;
}

/* Decodes a UUID written as 32 hex digits, with or without dashes in the 8-4-4-4-12 layout. */
static bool
p_uuid_decode (const char *s, size_t len, uint8_t out[16])
{
   char hex[32];
   size_t i, n = 0;

   if (len == 36) {
      for (i = 0; i < len; i++) {
         if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-') {
               return false;
            }
         } else {
            hex[n++] = s[i];
         }
      }
      return p_hex_decode (hex, n, out, 16);
   }
   return len == 32 && p_hex_decode (s, len, out, 16);
}

/* ---------------------------------------------------------------------------------------------------------------
 * Documents and arrays
 */

static uint64_t
p_hash (const char *s, size_t len)
{
   uint64_t h = 1469598103934665603u;
   size_t i;

   for (i = 0; i < len; i++) {
      h = (h ^ (unsigned char) s[i]) * 1099511628211u;
   }
   return h;
}

static void
p_keyset_release (parse_keyset_t *ks)
{
   size_t i;

   for (i = 0; i < ks->cap; i++) {
      bson_free (ks->keys[i]);
   }
   bson_free (ks->keys);
   bson_free (ks->lens);
   memset (ks, 0, sizeof *ks);
}

/* Slot of key in ks: where it is, or the empty slot where it would go. ks->cap is a power of two. */
static size_t
p_keyset_slot (const parse_keyset_t *ks, const char *key, size_t len)
{
   size_t i = (size_t) p_hash (key, len) & (ks->cap - 1);

   while (ks->keys[i] && !(ks->lens[i] == len && memcmp (ks->keys[i], key, len) == 0)) {
      i = (i + 1) & (ks->cap - 1);
   }
   return i;
}

/* Adds a copy of key; false if it was already there. */
static bool
p_keyset_add (parse_keyset_t *ks, const char *key, size_t len)
{
   size_t i;

   if ((ks->n + 1) * 2 > ks->cap) {
      parse_keyset_t bigger = { 0 };

      bigger.cap = ks->cap ? ks->cap * 2 : 16;
      bigger.keys = bson_malloc0 (bigger.cap * sizeof (char *));
      bigger.lens = bson_malloc0 (bigger.cap * sizeof (size_t));
      for (i = 0; i < ks->cap; i++) {
         if (ks->keys[i]) {
            size_t j = p_keyset_slot (&bigger, ks->keys[i], ks->lens[i]);

            bigger.keys[j] = ks->keys[i];
            bigger.lens[j] = ks->lens[i];
            ks->keys[i] = NULL;
         }
      }
      bigger.n = ks->n;
      p_keyset_release (ks);
      *ks = bigger;
   }
   i = p_keyset_slot (ks, key, len);
   if (ks->keys[i]) {
      return false;
   }
   ks->keys[i] = bson_malloc (len + 1);
   memcpy (ks->keys[i], key, len);
   ks->keys[i][len] = '\0';
   ks->lens[i] = len;
   ks->n++;
   return true;
}

/* Reads a document key: a name (a.b and $name included), a quoted string or a number. On success *key is owned by
 * the caller. */
static bool
p_key (parser_t *p, char **key, size_t *key_len, sh_pos_t *key_pos)
{
   bson_string_t *s = NULL;
   bool ok = false;

   *key = NULL;
   *key_pos = p->tok.pos;
   if (p->tok.kind == SH_TOK_IDENT) {
      s = bson_string_new (NULL);
      bson_string_append_printf (s, "%.*s", (int) p->tok.pos.len, p->tok.text);
      if (!p_advance (p)) {
         goto done;
      }
      /* Dotted bare keys such as a.b (not valid JavaScript, but what people type for shard keys). */
      while (p->tok.kind == SH_TOK_DOT && p->tok.pos.offset == p->prev_end.offset) {
         if (!p_advance (p)) {
            goto done;
         }
         if (p->tok.kind != SH_TOK_IDENT || p->tok.pos.offset != p->prev_end.offset) {
            p_unexpected (p, "expected a name after '.' in a key");
            goto done;
         }
         bson_string_append_printf (s, ".%.*s", (int) p->tok.pos.len, p->tok.text);
         if (!p_advance (p)) {
            goto done;
         }
      }
      key_pos->len = p->prev_end.offset - key_pos->offset;
      *key_len = s->len;
      *key = bson_string_free (s, false);
      s = NULL;
   } else if (p->tok.kind == SH_TOK_STRING) {
      if (memchr (p->tok.str, '\0', p->tok.str_len)) {
         p_fail (p, p->tok.pos, "a key cannot contain a NUL character");
         goto done;
      }
      *key = p->tok.str;
      *key_len = p->tok.str_len;
      p->tok.str = NULL;
      if (!p_advance (p)) {
         goto done;
      }
   } else if (p->tok.kind == SH_TOK_NUMBER) {
      double v = p->tok.num;

      if (v == floor (v) && v < 1e21) {
         *key = bson_strdup_printf ("%.0f", v);
      } else {
         *key = p_strndup (p->tok.text, p->tok.pos.len);
      }
      *key_len = strlen (*key);
      if (!p_advance (p)) {
         goto done;
      }
   } else {
      p_unexpected (p, "expected a key or '}'");
      goto done;
   }
   ok = true;
done:
   if (s) {
      bson_string_free (s, true);
   }
   if (!ok) {
      bson_free (*key);
      *key = NULL;
   }
   return ok;
}

static bool
p_document (parser_t *p, bson_t *dst, const char *key, int key_len)
{
   sh_pos_t open = p->tok.pos;
   parse_keyset_t keys = { 0 };
   bson_t child;
   bool began = false, ok = false;
   char *k = NULL;
   size_t k_len = 0;
   sh_pos_t k_pos;

   if (!p_open (p)) {
      goto done;
   }
   if (!p_appended (p, bson_append_document_begin (dst, key, key_len, &child), open)) {
      goto done;
   }
   began = true;
   while (p->tok.kind != SH_TOK_RBRACE) {
      if (!p_key (p, &k, &k_len, &k_pos)) {
         goto done;
      }
      if (!p_keyset_add (&keys, k, k_len)) {
         p_fail (p, k_pos, "duplicate key '%.*s'", p_clip (k, k_len, 60), k);
         goto done;
      }
      if (p->tok.kind != SH_TOK_COLON) {
         p_unexpected (p, "expected ':' after key");
         goto done;
      }
      if (!p_advance (p) || !p_value (p, &child, k, (int) k_len)) {
         goto done;
      }
      bson_free (k);
      k = NULL;
      if (p->tok.kind == SH_TOK_COMMA) {
         if (!p_advance (p)) {
            goto done;
         }
      } else if (p->tok.kind != SH_TOK_RBRACE) {
         p_unexpected (p, "expected ',' or '}' after value");
         goto done;
      }
   }
   ok = p_close (p);
done:
   if (began) {
      bson_append_document_end (dst, &child);
   }
   bson_free (k);
   p_keyset_release (&keys);
   return ok;
}

static bool
p_array (parser_t *p, bson_t *dst, const char *key, int key_len)
{
   sh_pos_t open = p->tok.pos;
   bson_t child;
   bool began = false, ok = false;
   uint32_t i = 0;

   if (!p_open (p)) {
      goto done;
   }
   if (!p_appended (p, bson_append_array_begin (dst, key, key_len, &child), open)) {
      goto done;
   }
   began = true;
   while (p->tok.kind != SH_TOK_RBRACKET) {
      char buf[16];
      const char *ikey;
      size_t ikey_len = bson_uint32_to_string (i++, &ikey, buf, sizeof buf);

      if (!p_value (p, &child, ikey, (int) ikey_len)) {
         goto done;
      }
      if (p->tok.kind == SH_TOK_COMMA) {
         if (!p_advance (p)) {
            goto done;
         }
      } else if (p->tok.kind != SH_TOK_RBRACKET) {
         p_unexpected (p, "expected ',' or ']' after value");
         goto done;
      }
   }
   ok = p_close (p);
done:
   if (began) {
      bson_append_array_end (dst, &child);
   }
   return ok;
}

/* A Database object as a call argument: `db` (the current database) or db.getSiblingDB("name") / getSisterDB. */
static bool
p_dbref (parser_t *p, bson_t *dst, const char *key, int key_len)
{
   sh_pos_t pos = p->tok.pos;
   char *buf = NULL;
   size_t tag = strlen (SH_DBREF_TAG), len = 0;
   bool ok = false;

   if (!p_advance (p)) {
      return false;
   }
   if (p->tok.kind == SH_TOK_DOT) {
      if (!p_advance (p)) {
         return false;
      }
      if (!p_is_ident (&p->tok, "getSiblingDB") && !p_is_ident (&p->tok, "getSisterDB")) {
         return p_fail (p, p->tok.pos,
                        "only db or db.getSiblingDB(\"name\") can be passed as a database (expressions are not "
                        "supported)");
      }
      if (!p_advance (p)) {
         return false;
      }
      if (p->tok.kind != SH_TOK_LPAREN) {
         return p_unexpected (p, "expected '(' after getSiblingDB");
      }
      if (!p_open (p)) {
         return false;
      }
      if (p->tok.kind != SH_TOK_STRING) {
         return p_unexpected (p, "expected a database name string");
      }
      len = p->tok.str_len;
      if (len == 0 || len > 1024 || memchr (p->tok.str, '\0', len) || memchr (p->tok.str, '.', len)) {
         return p_fail (p, p->tok.pos, "invalid database name");
      }
   }
   buf = bson_malloc (tag + len + 1);
   memcpy (buf, SH_DBREF_TAG, tag);
   if (len) {
      memcpy (buf + tag, p->tok.str, len);
   }
   buf[tag + len] = '\0';
   if (!p_appended (
          p, bson_append_binary (dst, key, key_len, BSON_SUBTYPE_USER, (const uint8_t *) buf, (uint32_t) (tag + len)),
          pos)) {
      goto done;
   }
   if (len) {
      if (!p_advance (p)) {
         goto done;
      }
      if (p->tok.kind != SH_TOK_RPAREN) {
         p_unexpected (p, "expected ')' after the database name");
         goto done;
      }
      if (!p_close (p)) {
         goto done;
      }
   }
   ok = true;
done:
   bson_free (buf);
   return ok;
}

bool
sh_value_dbref (const bson_iter_t *it, const char **name, uint32_t *len)
{
   bson_subtype_t sub;
   const uint8_t *data;
   uint32_t n;
   size_t tag = strlen (SH_DBREF_TAG);

   if (!BSON_ITER_HOLDS_BINARY (it)) {
      return false;
   }
   bson_iter_binary (it, &sub, &n, &data);
   if (sub != BSON_SUBTYPE_USER || n < tag || memcmp (data, SH_DBREF_TAG, tag) != 0) {
      return false;
   }
   *name = (const char *) data + tag;
   *len = n - (uint32_t) tag;
   return true;
}

/* Parses "(a, b, ...)" into args (initialised here; the caller destroys args->arr and frees args->pos). The current
 * token is the '('. */
static bool
p_args (parser_t *p, parse_args_t *args)
{
   size_t cap = 0;
   bool ok = false;

   bson_init (&args->arr);
   args->pos = NULL;
   args->argc = 0;
   if (!p_open (p)) {
      goto done;
   }
   while (p->tok.kind != SH_TOK_RPAREN) {
      char buf[16];
      const char *ikey;
      size_t ikey_len = bson_uint32_to_string ((uint32_t) args->argc, &ikey, buf, sizeof buf);
      sh_pos_t start = p->tok.pos;

      if (p_is_ident (&p->tok, "db") ? !p_dbref (p, &args->arr, ikey, (int) ikey_len)
                                     : !p_value (p, &args->arr, ikey, (int) ikey_len)) {
         goto done;
      }
      if ((size_t) args->argc == cap) {
         cap = cap ? cap * 2 : 4;
         args->pos = bson_realloc (args->pos, cap * sizeof (sh_pos_t));
      }
      start.len = p->prev_end.offset - start.offset;
      args->pos[args->argc++] = start;
      if (p->tok.kind == SH_TOK_COMMA) {
         if (!p_advance (p)) {
            goto done;
         }
      } else if (p->tok.kind != SH_TOK_RPAREN) {
         p_unexpected (p, "expected ',' or ')' after argument");
         goto done;
      }
   }
   args->close = p->tok.pos;
   ok = p_close (p);
done:
   return ok;
}

/* ---------------------------------------------------------------------------------------------------------------
 * Constructors: ObjectId("..."), NumberLong(5), Timestamp(1, 2), ...
 */

typedef enum {
   CTOR_OBJECTID,
   CTOR_ISODATE,
   CTOR_DATE,
   CTOR_LONG,
   CTOR_INT,
   CTOR_DECIMAL,
   CTOR_DOUBLE,
   CTOR_TIMESTAMP,
   CTOR_UUID,
   CTOR_BINDATA,
   CTOR_HEXDATA,
   CTOR_MINKEY,
   CTOR_MAXKEY,
} ctor_kind_t;

static const struct {
   const char *name;
   ctor_kind_t kind;
} p_ctors[] = {
   { "ObjectId", CTOR_OBJECTID },   { "ISODate", CTOR_ISODATE },
   { "Date", CTOR_DATE },           { "NumberLong", CTOR_LONG },
   { "Long", CTOR_LONG },           { "NumberInt", CTOR_INT },
   { "Int32", CTOR_INT },           { "NumberDecimal", CTOR_DECIMAL },
   { "Decimal128", CTOR_DECIMAL },  { "Double", CTOR_DOUBLE },
   { "Timestamp", CTOR_TIMESTAMP }, { "UUID", CTOR_UUID },
   { "BinData", CTOR_BINDATA },     { "HexData", CTOR_HEXDATA },
   { "MinKey", CTOR_MINKEY },       { "MaxKey", CTOR_MAXKEY },
};

/* Looks a constructor up by the name token; false if there is none of that name. */
static bool
p_ctor_find (const sh_token_t *tok, ctor_kind_t *kind)
{
   size_t i;

   for (i = 0; i < sizeof p_ctors / sizeof p_ctors[0]; i++) {
      if (p_is_ident (tok, p_ctors[i].name)) {
         *kind = p_ctors[i].kind;
         return true;
      }
   }
   return false;
}

/* Positions it on argument i of args. */
static void
p_arg (const parse_args_t *args, int i, bson_iter_t *it)
{
   bson_iter_init (it, &args->arr);
   for (int k = 0; k <= i; k++) {
      bson_iter_next (it);
   }
}

/* A numeric argument as a double (int32, int64 or double); false for other types. */
static bool
p_arg_number (const parse_args_t *args, int i, double *v)
{
   bson_iter_t it;

   p_arg (args, i, &it);
   if (!BSON_ITER_HOLDS_NUMBER (&it)) {
      return false;
   }
   *v = bson_iter_as_double (&it);
   return true;
}

/* The source text of argument i (a number literal keeps its exact digits this way). */
static const char *
p_arg_text (const parser_t *p, const parse_args_t *args, int i, size_t *len)
{
   *len = args->pos[i].len;
   return p->lx.src + args->pos[i].offset;
}

static bool
p_ctor_arity (parser_t *p, const char *name, const parse_args_t *args, int min, int max, const char *usage)
{
   if (args->argc < min) {
      sh_pos_t pos = args->close;

      pos.len = 1;
      return p_fail (p, pos, "%s needs %s", name, usage);
   }
   if (args->argc > max) {
      return p_fail (p, args->pos[max], "too many arguments to %s: it takes %s", name, usage);
   }
   return true;
}

/* NumberLong(n) / NumberLong("n") and NumberInt(n) / NumberInt("n"): the integer value of argument 0. */
static bool
p_ctor_integer (parser_t *p, const char *name, const parse_args_t *args, int64_t min, int64_t max, int64_t *out)
{
   bson_iter_t it;
   const char *text;
   size_t len;
   double v;
   int rc;

   p_arg (args, 0, &it);
   if (BSON_ITER_HOLDS_UTF8 (&it)) {
      uint32_t slen;

      text = bson_iter_utf8 (&it, &slen);
      len = slen;
   } else if (BSON_ITER_HOLDS_NUMBER (&it)) {
      text = p_arg_text (p, args, 0, &len);
   } else {
      return p_fail (p, args->pos[0], "%s takes an integer or a string of digits", name);
   }
   rc = p_parse_int64 (text, len, out);
   if (rc == 1 && BSON_ITER_HOLDS_NUMBER (&it)) {
      /* Written as 1e3 or 0x10: use the number's value when it is an exact integer. */
      v = bson_iter_as_double (&it);
      if (v != floor (v) || isnan (v)) {
         return p_fail (p, args->pos[0], "%s needs an integer, not %.*s", name, p_clip (text, len, 40), text);
      }
      if (v < -9223372036854775808.0 || v >= 9223372036854775808.0) {
         rc = 2;
      } else {
         *out = (int64_t) v;
         rc = 0;
      }
   }
   if (rc == 1) {
      return p_fail (p, args->pos[0], "invalid %s value '%.*s': expected an integer", name, p_clip (text, len, 40),
                     text);
   }
   if (rc == 2 || *out < min || *out > max) {
      return p_fail (p, args->pos[0], "%s value %.*s is out of range", name, p_clip (text, len, 40), text);
   }
   return true;
}

/* A date argument: a number of milliseconds or an ISO string. */
static bool
p_ctor_date_arg (parser_t *p, const char *name, const parse_args_t *args, int64_t *ms)
{
   bson_iter_t it;
   double v;

   p_arg (args, 0, &it);
   if (BSON_ITER_HOLDS_UTF8 (&it)) {
      uint32_t len;
      const char *s = bson_iter_utf8 (&it, &len);

      if (!p_parse_iso_date (s, len, ms)) {
         p_fail (p, args->pos[0], "invalid date %.*s for %s",
                 p_clip (p->lx.src + args->pos[0].offset, args->pos[0].len, 60), p->lx.src + args->pos[0].offset, name);
         sh_error_hint (p->err, "use an ISO 8601 date such as \"2024-05-01\" or \"2024-05-01T12:00:00Z\"");
         return false;
      }
      return true;
   }
   if (p_arg_number (args, 0, &v)) {
      if (isnan (v) || fabs (v) > 8.64e15) {
         return p_fail (p, args->pos[0], "invalid date for %s: milliseconds out of range", name);
      }
      *ms = (int64_t) v;
      return true;
   }
   return p_fail (p, args->pos[0], "%s takes milliseconds since the epoch or an ISO date string", name);
}

/* Timestamp(t, i) and Timestamp({t: .., i: ..}). */
static bool
p_ctor_timestamp (parser_t *p, const parse_args_t *args, uint32_t *t, uint32_t *inc)
{
   double v[2] = { 0, 0 };
   bson_iter_t it, child;
   bool have[2] = { false, false };
   int k;

   if (!p_ctor_arity (p, "Timestamp", args, 0, 2, "(t, i) or ({t: .., i: ..})")) {
      return false;
   }
   if (args->argc == 0) {
      *t = *inc = 0;
      return true;
   }
   p_arg (args, 0, &it);
   if (args->argc == 1 && BSON_ITER_HOLDS_DOCUMENT (&it)) {
      bson_iter_recurse (&it, &child);
      while (bson_iter_next (&child)) {
         const char *key = bson_iter_key (&child);

         k = strcmp (key, "t") == 0 ? 0 : strcmp (key, "i") == 0 ? 1 : -1;
         if (k < 0 || !BSON_ITER_HOLDS_NUMBER (&child)) {
            return p_fail (p, args->pos[0], "Timestamp takes {t: <seconds>, i: <increment>}");
         }
         v[k] = bson_iter_as_double (&child);
         have[k] = true;
      }
      if (!have[0] || !have[1]) {
         return p_fail (p, args->pos[0], "Timestamp takes {t: <seconds>, i: <increment>}");
      }
      k = 0;
   } else {
      if (!p_ctor_arity (p, "Timestamp", args, 2, 2, "(t, i) or ({t: .., i: ..})")) {
         return false;
      }
      for (k = 0; k < 2; k++) {
         if (!p_arg_number (args, k, &v[k])) {
            return p_fail (p, args->pos[k], "Timestamp takes numbers: (t, i)");
         }
      }
   }
   for (k = 0; k < 2; k++) {
      if (!(v[k] >= 0 && v[k] <= 4294967295.0 && v[k] == floor (v[k]))) {
         return p_fail (p, args->pos[args->argc == 2 ? k : 0], "Timestamp %s must be an integer from 0 to 4294967295",
                        k == 0 ? "t" : "i");
      }
   }
   *t = (uint32_t) v[0];
   *inc = (uint32_t) v[1];
   return true;
}

/* Builds the value of a constructor call into dst. The current token is the '(' after the name. */
static bool
p_ctor_call (parser_t *p, bson_t *dst, const char *key, int key_len, ctor_kind_t kind, const char *name, bool is_new,
             sh_pos_t name_pos)
{
   parse_args_t args = { 0 };
   bson_iter_t it;
   bool ok = false;
   uint8_t *bin = NULL;
   int64_t i64 = 0;
   double v;

   if (!p_args (p, &args)) {
      goto done;
   }
   switch (kind) {
   case CTOR_OBJECTID: {
      bson_oid_t oid;

      if (!p_ctor_arity (p, name, &args, 0, 1, "a string of 24 hex digits")) {
         goto done;
      }
      if (args.argc == 0) {
         bson_oid_init (&oid, NULL);
      } else {
         uint32_t len;
         const char *s;

         p_arg (&args, 0, &it);
         if (!BSON_ITER_HOLDS_UTF8 (&it)) {
            p_fail (p, args.pos[0], "%s takes a string of 24 hex digits", name);
            goto done;
         }
         s = bson_iter_utf8 (&it, &len);
         if (!bson_oid_is_valid (s, len)) {
            p_fail (p, args.pos[0], "invalid ObjectId %.*s: expected 24 hex digits",
                    p_clip (p->lx.src + args.pos[0].offset, args.pos[0].len, 60), p->lx.src + args.pos[0].offset);
            goto done;
         }
         bson_oid_init_from_string (&oid, s);
      }
      ok = p_appended (p, bson_append_oid (dst, key, key_len, &oid), name_pos);
      break;
   }
   case CTOR_DATE:
      if (!is_new) {
         char buf[128];

         if (args.argc > 0) {
            p_fail (p, args.pos[0],
                    "Date() without new ignores its arguments and returns the current time as a "
                    "string; use new Date(...) or ISODate(...)");
            goto done;
         }
         p_date_string (buf, sizeof buf);
         ok = p_appended (p, bson_append_utf8 (dst, key, key_len, buf, -1), name_pos);
         break;
      }
      /* new Date(...) is ISODate(...). */
      /* fall through */
   case CTOR_ISODATE:
      if (!p_ctor_arity (p, name, &args, 0, 1, "milliseconds or an ISO date string")) {
         goto done;
      }
      if (args.argc == 0) {
         i64 = clock_wall_ms ();
      } else if (!p_ctor_date_arg (p, name, &args, &i64)) {
         goto done;
      }
      ok = p_appended (p, bson_append_date_time (dst, key, key_len, i64), name_pos);
      break;
   case CTOR_LONG:
      if (!p_ctor_arity (p, name, &args, 1, 1, "an integer or a string of digits") ||
          !p_ctor_integer (p, name, &args, INT64_MIN, INT64_MAX, &i64)) {
         goto done;
      }
      ok = p_appended (p, bson_append_int64 (dst, key, key_len, i64), name_pos);
      break;
   case CTOR_INT:
      if (!p_ctor_arity (p, name, &args, 1, 1, "an integer or a string of digits") ||
          !p_ctor_integer (p, name, &args, INT32_MIN, INT32_MAX, &i64)) {
         goto done;
      }
      ok = p_appended (p, bson_append_int32 (dst, key, key_len, (int32_t) i64), name_pos);
      break;
   case CTOR_DECIMAL: {
      bson_decimal128_t dec;
      const char *s;
      size_t len;

      if (!p_ctor_arity (p, name, &args, 1, 1, "a string such as \"1.25\"")) {
         goto done;
      }
      p_arg (&args, 0, &it);
      if (BSON_ITER_HOLDS_UTF8 (&it)) {
         uint32_t slen;

         s = bson_iter_utf8 (&it, &slen);
         len = slen;
      } else if (BSON_ITER_HOLDS_NUMBER (&it)) {
         s = p_arg_text (p, &args, 0, &len);
      } else {
         p_fail (p, args.pos[0], "%s takes a string such as \"1.25\"", name);
         goto done;
      }
      if (len > INT32_MAX || !bson_decimal128_from_string_w_len (s, (int) len, &dec)) {
         p_fail (p, args.pos[0], "invalid decimal %.*s", p_clip (p->lx.src + args.pos[0].offset, args.pos[0].len, 60),
                 p->lx.src + args.pos[0].offset);
         goto done;
      }
      ok = p_appended (p, bson_append_decimal128 (dst, key, key_len, &dec), name_pos);
      break;
   }
   case CTOR_DOUBLE:
      if (!p_ctor_arity (p, name, &args, 1, 1, "a number")) {
         goto done;
      }
      if (!p_arg_number (&args, 0, &v)) {
         p_fail (p, args.pos[0], "%s takes a number", name);
         goto done;
      }
      ok = p_appended (p, bson_append_double (dst, key, key_len, v), name_pos);
      break;
   case CTOR_TIMESTAMP: {
      uint32_t t = 0, inc = 0;

      if (!p_ctor_timestamp (p, &args, &t, &inc)) {
         goto done;
      }
      ok = p_appended (p, bson_append_timestamp (dst, key, key_len, t, inc), name_pos);
      break;
   }
   case CTOR_UUID: {
      uint8_t uuid[16];

      if (!p_ctor_arity (p, name, &args, 0, 1, "a string of 32 hex digits")) {
         goto done;
      }
      if (args.argc == 0) {
         p_random_bytes (uuid, sizeof uuid);
         uuid[6] = (uint8_t) ((uuid[6] & 0x0f) | 0x40);
         uuid[8] = (uint8_t) ((uuid[8] & 0x3f) | 0x80);
      } else {
         uint32_t len;
         const char *s;

         p_arg (&args, 0, &it);
         if (!BSON_ITER_HOLDS_UTF8 (&it)) {
            p_fail (p, args.pos[0], "UUID takes a string of 32 hex digits");
            goto done;
         }
         s = bson_iter_utf8 (&it, &len);
         if (!p_uuid_decode (s, len, uuid)) {
            p_fail (p, args.pos[0], "invalid UUID %.*s: expected 32 hex digits, optionally as 8-4-4-4-12",
                    p_clip (p->lx.src + args.pos[0].offset, args.pos[0].len, 60), p->lx.src + args.pos[0].offset);
            goto done;
         }
      }
      ok = p_appended (p, bson_append_binary (dst, key, key_len, BSON_SUBTYPE_UUID, uuid, 16), name_pos);
      break;
   }
   case CTOR_BINDATA:
   case CTOR_HEXDATA: {
      const char *what = kind == CTOR_BINDATA ? "base64" : "hex";
      uint32_t len;
      size_t bin_len = 0;
      const char *s;

      if (!p_ctor_arity (p, name, &args, 2, 2, kind == CTOR_BINDATA ? "(subtype, \"base64\")" : "(subtype, \"hex\")")) {
         goto done;
      }
      if (!p_arg_number (&args, 0, &v) || !(v >= 0 && v <= 255 && v == floor (v))) {
         p_fail (p, args.pos[0], "%s subtype must be an integer from 0 to 255", name);
         goto done;
      }
      p_arg (&args, 1, &it);
      if (!BSON_ITER_HOLDS_UTF8 (&it)) {
         p_fail (p, args.pos[1], "%s takes its data as a %s string", name, what);
         goto done;
      }
      s = bson_iter_utf8 (&it, &len);
      bin = bson_malloc (len / 2 + len / 4 * 3 + 1);
      if (kind == CTOR_BINDATA ? !p_base64_decode (s, len, bin, &bin_len)
                               : (len % 2 != 0 || !p_hex_decode (s, len, bin, bin_len = len / 2))) {
         p_fail (p, args.pos[1], "invalid %s data in %s", what, name);
         goto done;
      }
      if (bin_len > INT32_MAX - 64) {
         p_fail (p, args.pos[1], "binary data too large");
         goto done;
      }
      ok =
         p_appended (p, bson_append_binary (dst, key, key_len, (bson_subtype_t) v, bin, (uint32_t) bin_len), name_pos);
      break;
   }
   case CTOR_MINKEY:
   case CTOR_MAXKEY:
      if (!p_ctor_arity (p, name, &args, 0, 0, "no arguments")) {
         goto done;
      }
      ok = p_appended (
         p, kind == CTOR_MINKEY ? bson_append_minkey (dst, key, key_len) : bson_append_maxkey (dst, key, key_len),
         name_pos);
      break;
   default:
      p_fail (p, name_pos, "unknown function '%s' in a value", name);
      break;
   }
done:
   bson_free (bin);
   bson_destroy (&args.arr);
   bson_free (args.pos);
   return ok;
}

/* A value that starts with a name: true, null, NaN, MinKey, ObjectId(...), new Date(...), ... */
static bool
p_name_value (parser_t *p, bson_t *dst, const char *key, int key_len)
{
   static const char *const js_words[] = { "function", "this",  "typeof", "void", "delete", "class", "async",
                                           "await",    "yield", "var",    "let",  "const",  NULL };
   sh_pos_t pos = p->tok.pos;
   ctor_kind_t kind;
   char name[64];
   bool is_new = false;

   if (p_is_ident (&p->tok, "true") || p_is_ident (&p->tok, "false")) {
      return p_appended (p, bson_append_bool (dst, key, key_len, p->tok.text[0] == 't'), pos) && p_advance (p);
   }
   if (p_is_ident (&p->tok, "null")) {
      return p_appended (p, bson_append_null (dst, key, key_len), pos) && p_advance (p);
   }
   if (p_is_ident (&p->tok, "undefined")) {
      return p_appended (p, bson_append_undefined (dst, key, key_len), pos) && p_advance (p);
   }
   if (p_is_ident (&p->tok, "NaN")) {
      return p_appended (p, bson_append_double (dst, key, key_len, NAN), pos) && p_advance (p);
   }
   if (p_is_ident (&p->tok, "Infinity")) {
      return p_appended (p, bson_append_double (dst, key, key_len, INFINITY), pos) && p_advance (p);
   }
   if (p_is_ident (&p->tok, "new")) {
      is_new = true;
      if (!p_advance (p)) {
         return false;
      }
      if (p->tok.kind != SH_TOK_IDENT) {
         return p_unexpected (p, "expected a constructor name after 'new'");
      }
   }
   snprintf (name, sizeof name, "%.*s", p_clip (p->tok.text, p->tok.pos.len, sizeof name - 1), p->tok.text);
   if (p_in_list (p->tok.text, p->tok.pos.len, js_words)) {
      return p_fail (p, p->tok.pos, "unexpected '%s': %s", name, parse_js_hint);
   }
   if (!p_ctor_find (&p->tok, &kind)) {
      sh_pos_t at = p->tok.pos;

      if (!p_advance (p)) {
         return false;
      }
      if (p->tok.kind == SH_TOK_LPAREN || is_new) {
         return p_fail (p, at, "unknown function '%s' in a value", name);
      }
      p_fail (p, at, "unexpected name '%s': values must be literals (variables are not supported)", name);
      sh_error_hint (p->err, "%s", parse_js_hint);
      return false;
   }
   pos = p->tok.pos;
   if (!p_advance (p)) {
      return false;
   }
   if (p->tok.kind != SH_TOK_LPAREN) {
      if (kind == CTOR_MINKEY) {
         return p_appended (p, bson_append_minkey (dst, key, key_len), pos);
      }
      if (kind == CTOR_MAXKEY) {
         return p_appended (p, bson_append_maxkey (dst, key, key_len), pos);
      }
      return p_unexpected (p, is_new ? "expected '(' after the constructor name" : "expected '(' after the name");
   }
   return p_ctor_call (p, dst, key, key_len, kind, name, is_new, pos);
}

/* Appends one value under key. */
static bool
p_value (parser_t *p, bson_t *dst, const char *key, int key_len)
{
   sh_pos_t pos = p->tok.pos;

   switch (p->tok.kind) {
   case SH_TOK_STRING:
      if (p->tok.str_len > INT32_MAX - 64) {
         return p_fail (p, pos, "string too large");
      }
      return p_appended (p, bson_append_utf8 (dst, key, key_len, p->tok.str, (int) p->tok.str_len), pos) &&
             p_advance (p);
   case SH_TOK_NUMBER:
      return p_appended (p, p_append_number (dst, key, key_len, p->tok.num), pos) && p_advance (p);
   case SH_TOK_PLUS:
   case SH_TOK_MINUS: {
      bool neg = p->tok.kind == SH_TOK_MINUS;
      double v;

      if (!p_advance (p)) {
         return false;
      }
      if (p->tok.kind == SH_TOK_NUMBER) {
         v = p->tok.num;
      } else if (p_is_ident (&p->tok, "Infinity")) {
         v = INFINITY;
      } else if (p_is_ident (&p->tok, "NaN")) {
         v = NAN;
      } else {
         return p_unexpected (p, neg ? "expected a number after '-'" : "expected a number after '+'");
      }
      return p_appended (p, p_append_number (dst, key, key_len, neg ? -v : v), pos) && p_advance (p);
   }
   case SH_TOK_LBRACE:
      return p_document (p, dst, key, key_len);
   case SH_TOK_LBRACKET:
      return p_array (p, dst, key, key_len);
   case SH_TOK_SLASH: {
      sh_token_t re;

      if (!sh_lex_regex (&p->lx, &p->tok, &re, p->err)) {
         p->incomplete = p->lx.incomplete;
         return false;
      }
      sh_token_release (&p->tok);
      p->tok = re;
      return p_appended (p, bson_append_regex_w_len (dst, key, key_len, re.str, (int) re.str_len, re.flags), pos) &&
             p_advance (p);
   }
   case SH_TOK_IDENT:
      return p_name_value (p, dst, key, key_len);
   default:
      return p_unexpected (p, "expected a value");
   }
}

/* ---------------------------------------------------------------------------------------------------------------
 * Statements
 */

/* Zeroed memory for n segments. sh_seg_t embeds a bson_t, which libbson declares with a large alignment (128 bytes
 * here), more than malloc promises; so segments come from aligned_alloc and go back with free. Aborts when out of
 * memory, as bson_malloc does. */
static sh_seg_t *
p_segs_new (size_t n)
{
   size_t align = _Alignof(sh_seg_t);
   size_t bytes = (n * sizeof (sh_seg_t) + align - 1) / align * align;
   sh_seg_t *segs = aligned_alloc (align, bytes);

   if (!segs) {
      fprintf (stderr, "shardsh: out of memory\n");
      abort ();
   }
   memset (segs, 0, bytes);
   return segs;
}

static void
p_seg_release (sh_seg_t *seg)
{
   bson_free (seg->name);
   bson_destroy (&seg->args);
   bson_free (seg->arg_pos);
}

static void
p_stmt_release (sh_stmt_t *st)
{
   size_t i;

   bson_free (st->word);
   bson_free (st->word2);
   for (i = 0; i < st->nsegs; i++) {
      p_seg_release (&st->segs[i]);
   }
   free (st->segs);
   memset (st, 0, sizeof *st);
}

/* Reads the call arguments of seg; the current token is the '('. */
static bool
p_seg_call (parser_t *p, sh_seg_t *seg)
{
   parse_args_t args = { 0 };
   bool ok = false;

   if (!p_args (p, &args)) {
      goto done;
   }
   bson_destroy (&seg->args);
   bson_steal (&seg->args, &args.arr);
   bson_init (&args.arr);
   seg->is_call = true;
   seg->argc = args.argc;
   seg->arg_pos = args.pos;
   seg->close_pos = args.close;
   seg->close_pos.len = 1;
   args.pos = NULL;
   ok = true;
done:
   bson_destroy (&args.arr);
   bson_free (args.pos);
   return ok;
}

/* A member/call chain: root(.name | .name(args) | ["name"] | ["name"](args))*. */
static bool
p_chain (parser_t *p, sh_stmt_t *st)
{
   sh_seg_t **tmp = NULL;
   size_t n = 0, cap = 0, i;
   bool ok = false;

   for (;;) {
      sh_seg_t *seg;

      if (n == cap) {
         cap = cap ? cap * 2 : 4;
         tmp = bson_realloc (tmp, cap * sizeof *tmp);
      }
      seg = tmp[n++] = p_segs_new (1);
      bson_init (&seg->args);
      if (n == 1) {
         /* The root: the caller has checked it is a name. */
      } else if (p->tok.kind == SH_TOK_DOT) {
         if (!p_advance (p)) {
            goto done;
         }
         if (p->tok.kind != SH_TOK_IDENT) {
            p_unexpected (p, "expected a name after '.'");
            goto done;
         }
      } else {
         /* ["name"] */
         if (!p_open (p)) {
            goto done;
         }
         if (p->tok.kind != SH_TOK_STRING) {
            p_unexpected (p, "expected a quoted name inside '[...]'");
            goto done;
         }
         if (memchr (p->tok.str, '\0', p->tok.str_len)) {
            p_fail (p, p->tok.pos, "a name cannot contain a NUL character");
            goto done;
         }
         seg->bracket = true;
      }
      seg->pos = p->tok.pos;
      seg->name = seg->bracket ? bson_strdup (p->tok.str) : p_strndup (p->tok.text, p->tok.pos.len);
      if (!p_advance (p)) {
         goto done;
      }
      if (seg->bracket) {
         if (p->tok.kind != SH_TOK_RBRACKET) {
            p_unexpected (p, "expected ']' after the name");
            goto done;
         }
         if (!p_close (p)) {
            goto done;
         }
      }
      if (p->tok.kind == SH_TOK_LPAREN && !p->tok.nl_before && !p_seg_call (p, seg)) {
         goto done;
      }
      /* A line that starts with '.' continues the chain; '[' continues it only on the same line. */
      if (!(p->tok.kind == SH_TOK_DOT || (p->tok.kind == SH_TOK_LBRACKET && !p->tok.nl_before))) {
         break;
      }
   }
   st->segs = p_segs_new (n);
   st->nsegs = n;
   for (i = 0; i < n; i++) {
      /* Copy the fields, then give the copy its own args: a bson_t must not be moved byte by byte. */
      st->segs[i] = *tmp[i];
      bson_copy_to (&tmp[i]->args, &st->segs[i].args);
      bson_destroy (&tmp[i]->args);
      free (tmp[i]);
      tmp[i] = NULL;
   }
   n = 0;
   ok = true;
done:
   for (i = 0; i < n; i++) {
      p_seg_release (tmp[i]);
      free (tmp[i]);
   }
   bson_free (tmp);
   return ok;
}

/* use <db>, show <what> [arg], help [topic]: the current token is the keyword and `first` the word after it (owned
 * by this function), or an empty token when the statement ends after the keyword. */
static bool
p_keyword (parser_t *p, sh_stmt_t *st, sh_token_t *first)
{
   sh_token_t extra = { 0 };
   sh_word_result_t r;
   bool ok = false;
   int max = st->kind == SH_STMT_SHOW ? 2 : 1;

   if (first->kind == SH_TOK_WORD) {
      st->word = first->str;
      st->word_pos = first->pos;
      first->str = NULL;
   } else if (st->kind == SH_STMT_USE) {
      p_fail (p, p->tok.pos, "expected a database name after 'use'");
      goto done;
   } else if (st->kind == SH_STMT_SHOW) {
      p_fail (p, p->tok.pos, "expected what to show after 'show'");
      sh_error_hint (p->err, "try show dbs, show collections, show shards, show zones or show balancer");
      goto done;
   }
   if (st->word) {
      r = sh_lex_word (&p->lx, &extra, p->err);
      if (r == SH_WORD_ERROR) {
         p->incomplete = p->lx.incomplete;
         goto done;
      }
      if (r == SH_WORD_FOUND && max == 2) {
         st->word2 = extra.str;
         st->word2_pos = extra.pos;
         extra.str = NULL;
         sh_token_release (&extra);
         r = sh_lex_word (&p->lx, &extra, p->err);
         if (r == SH_WORD_ERROR) {
            p->incomplete = p->lx.incomplete;
            goto done;
         }
      }
      if (r == SH_WORD_FOUND) {
         p_fail (p, extra.pos, "unexpected '%.*s' after '%.*s %s'", p_clip (extra.str, extra.str_len, 40), extra.str,
                 (int) p->tok.pos.len, p->tok.text, st->word);
         goto done;
      }
   }
   /* Whatever follows must end the statement; the caller checks the next token. */
   ok = p_advance (p);
done:
   sh_token_release (first);
   sh_token_release (&extra);
   return ok;
}

/* One statement; the current token is its first. Leaves the token after it current. */
static bool
p_statement (parser_t *p, sh_stmt_t *st)
{
   static const char *const js_words[] = {
      "var",  "let",    "const",  "function",  "if",    "else",     "for",   "while",    "do",     "return",
      "new",  "class",  "switch", "case",      "try",   "catch",    "throw", "typeof",   "delete", "void",
      "this", "import", "export", "async",     "await", "yield",    "break", "continue", "with",   "debugger",
      "true", "false",  "null",   "undefined", "NaN",   "Infinity", NULL
   };
   static const struct {
      const char *word;
      sh_stmt_kind_t kind;
   } keywords[] = { { "use", SH_STMT_USE },
                    { "show", SH_STMT_SHOW },
                    { "help", SH_STMT_HELP },
                    { "exit", SH_STMT_EXIT },
                    { "quit", SH_STMT_EXIT } };
   char what[96];
   size_t i;

   st->pos = p->tok.pos;
   if (p->tok.kind != SH_TOK_IDENT) {
      if (p_is_closer (p->tok.kind) || p->tok.kind == SH_TOK_EOF) {
         return p_unexpected (p, "expected a statement");
      }
      p_describe (&p->tok, what, sizeof what);
      p_fail (p, p->tok.pos, "expected a statement, found %s", what);
      sh_error_hint (p->err, "%s", parse_js_hint);
      return false;
   }
   for (i = 0; i < sizeof keywords / sizeof keywords[0]; i++) {
      sh_lexer_t saved = p->lx;
      sh_token_t word = { 0 };
      sh_word_result_t r;

      if (!p_is_ident (&p->tok, keywords[i].word)) {
         continue;
      }
      r = sh_lex_word (&p->lx, &word, p->err);
      if (r == SH_WORD_ERROR) {
         p->incomplete = p->lx.incomplete;
         return false;
      }
      if (r == SH_WORD_NONE || (r == SH_WORD_FOUND && keywords[i].kind == SH_STMT_EXIT)) {
         /* Not the keyword after all (use(...), help.x, exit foo): an ordinary chain. */
         sh_token_release (&word);
         p->lx = saved;
         break;
      }
      st->kind = keywords[i].kind;
      if (st->kind == SH_STMT_EXIT) {
         return p_advance (p);
      }
      return p_keyword (p, st, &word);
   }
   if (p_in_list (p->tok.text, p->tok.pos.len, js_words)) {
      p_fail (p, p->tok.pos, "unexpected '%.*s': %s", (int) p->tok.pos.len, p->tok.text, parse_js_hint);
      return false;
   }
   st->kind = SH_STMT_CHAIN;
   if (!p_chain (p, st)) {
      return false;
   }
   /* exit() and quit() are the exit statement too. */
   if (st->nsegs == 1 && st->segs[0].is_call && st->segs[0].argc == 0 &&
       (strcmp (st->segs[0].name, "exit") == 0 || strcmp (st->segs[0].name, "quit") == 0)) {
      p_seg_release (&st->segs[0]);
      free (st->segs);
      st->segs = NULL;
      st->nsegs = 0;
      st->kind = SH_STMT_EXIT;
   }
   return true;
}

/* After a statement: the next token must be ';', the end of the text, or on a new line. */
static bool
p_statement_end (parser_t *p)
{
   char what[96];

   if (p->tok.kind == SH_TOK_EOF || p->tok.kind == SH_TOK_SEMI || p->tok.nl_before) {
      return true;
   }
   if (p_is_closer (p->tok.kind)) {
      return p_unexpected (p, "expected the end of the statement");
   }
   p_describe (&p->tok, what, sizeof what);
   p_fail (p, p->tok.pos, "unexpected %s after the statement; %s", what,
           "shardsh accepts mongosh-style statements, not JavaScript expressions");
   sh_error_hint (p->err, "%s", parse_js_hint);
   return false;
}

static void
p_init (parser_t *p, const char *text, size_t len, sh_error_t *err)
{
   memset (p, 0, sizeof *p);
   sh_lex_init (&p->lx, text, len);
   p->err = err;
   p->prev_end.line = 1;
   p->prev_end.col = 1;
}

static bool
p_script (parser_t *p, sh_script_t *out)
{
   size_t cap = 0;

   if (p->lx.len > INT32_MAX) {
      sh_pos_t start = { 1, 1, 0, 0 };

      return p_fail (p, start, "input too large");
   }
   if (!p_advance (p)) {
      return false;
   }
   while (p->tok.kind != SH_TOK_EOF) {
      sh_stmt_t *st;

      if (p->tok.kind == SH_TOK_SEMI) {
         if (!p_advance (p)) {
            return false;
         }
         continue;
      }
      if (out->n == cap) {
         cap = cap ? cap * 2 : 8;
         out->stmts = bson_realloc (out->stmts, cap * sizeof (sh_stmt_t));
      }
      st = &out->stmts[out->n++];
      memset (st, 0, sizeof *st);
      if (!p_statement (p, st)) {
         return false;
      }
      st->pos.len = st->pos.len ? st->pos.len : 1;
      st->end_pos = p->prev_end;
      if (!p_statement_end (p)) {
         return false;
      }
   }
   return true;
}

bool
sh_parse_script (const char *name, const char *text, size_t len, sh_script_t *out, sh_error_t *err)
{
   parser_t p;
   bool ok;

   memset (out, 0, sizeof *out);
   sh_error_clear (err);
   if (!text) {
      len = 0;
   }
   out->name = bson_strdup (name ? name : "<eval>");
   out->source = bson_malloc (len + 1);
   if (len) {
      memcpy (out->source, text, len);
   }
   out->source[len] = '\0';
   out->source_len = len;
   p_init (&p, out->source, len, err);
   ok = p_script (&p, out);
   sh_token_release (&p.tok);
   if (!ok) {
      sh_script_destroy (out);
   }
   return ok;
}

void
sh_script_destroy (sh_script_t *script)
{
   size_t i;

   if (!script) {
      return;
   }
   for (i = 0; i < script->n; i++) {
      p_stmt_release (&script->stmts[i]);
   }
   bson_free (script->stmts);
   bson_free (script->name);
   bson_free (script->source);
   memset (script, 0, sizeof *script);
}

bool
sh_parse_needs_more (const char *text, size_t len)
{
   sh_script_t script = { 0 };
   sh_error_t err;
   parser_t p;
   bool ok;

   if (!text) {
      return false;
   }
   p_init (&p, text, len, &err);
   ok = p_script (&p, &script);
   sh_token_release (&p.tok);
   sh_script_destroy (&script);
   return !ok && p.incomplete;
}

bool
sh_parse_value (const char *text, size_t len, bson_t *doc, const char *key, sh_error_t *err)
{
   bson_t tmp = BSON_INITIALIZER;
   parser_t p;
   bool ok = false;

   sh_error_clear (err);
   if (!key) {
      key = "";
   }
   p_init (&p, text ? text : "", text ? len : 0, err);
   if (p.lx.len > INT32_MAX) {
      sh_pos_t start = { 1, 1, 0, 0 };

      p_fail (&p, start, "input too large");
      goto done;
   }
   if (!p_advance (&p) || !p_value (&p, &tmp, key, (int) strlen (key))) {
      goto done;
   }
   if (p.tok.kind != SH_TOK_EOF) {
      p_unexpected (&p, "expected the end of the value");
      goto done;
   }
   if (!bson_concat (doc, &tmp)) {
      sh_pos_t start = { 1, 1, 0, 0 };

      p_fail (&p, start, "value too large for the document");
      goto done;
   }
   ok = true;
done:
   sh_token_release (&p.tok);
   bson_destroy (&tmp);
   return ok;
}
