/* The parser's names in values: true, false, null, undefined, NaN, Infinity, and the constructors mongosh offers
 * (ObjectId, ISODate, Date, NumberLong, NumberInt, NumberDecimal, Double, Timestamp, UUID, BinData, HexData, MinKey,
 * MaxKey), each checked for its arguments and appended to BSON, with the number, date and binary decoding they
 * need. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "shell/lang/parser_int.h"
#include "shell/lib/clock.h"

/* ---------------------------------------------------------------------------------------------------------------
 * Numbers, dates and binary helpers
 */

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
 * Constructors: ObjectId("..."), NumberLong(5), Timestamp(1, 2), ...
 */

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

bool
parser_ctor_find (const sh_token_t *tok, ctor_kind_t *kind)
{
   size_t i;

   for (i = 0; i < sizeof p_ctors / sizeof p_ctors[0]; i++) {
      if (parser_is_ident (tok, p_ctors[i].name)) {
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
      return parser_fail (p, pos, "%s needs %s", name, usage);
   }
   if (args->argc > max) {
      return parser_fail (p, args->pos[max], "too many arguments to %s: it takes %s", name, usage);
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
      return parser_fail (p, args->pos[0], "%s takes an integer or a string of digits", name);
   }
   rc = p_parse_int64 (text, len, out);
   if (rc == 1 && BSON_ITER_HOLDS_NUMBER (&it)) {
      /* Written as 1e3 or 0x10: use the number's value when it is an exact integer. */
      v = bson_iter_as_double (&it);
      if (v != floor (v) || isnan (v)) {
         return parser_fail (p, args->pos[0], "%s needs an integer, not %.*s", name, parser_clip (text, len, 40), text);
      }
      if (v < -9223372036854775808.0 || v >= 9223372036854775808.0) {
         rc = 2;
      } else {
         *out = (int64_t) v;
         rc = 0;
      }
   }
   if (rc == 1) {
      return parser_fail (p, args->pos[0], "invalid %s value '%.*s': expected an integer", name,
                          parser_clip (text, len, 40), text);
   }
   if (rc == 2 || *out < min || *out > max) {
      return parser_fail (p, args->pos[0], "%s value %.*s is out of range", name, parser_clip (text, len, 40), text);
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
         parser_fail (p, args->pos[0], "invalid date %.*s for %s",
                      parser_clip (p->lx.src + args->pos[0].offset, args->pos[0].len, 60),
                      p->lx.src + args->pos[0].offset, name);
         sh_error_hint (p->err, "use an ISO 8601 date such as \"2024-05-01\" or \"2024-05-01T12:00:00Z\"");
         return false;
      }
      return true;
   }
   if (p_arg_number (args, 0, &v)) {
      if (isnan (v) || fabs (v) > 8.64e15) {
         return parser_fail (p, args->pos[0], "invalid date for %s: milliseconds out of range", name);
      }
      *ms = (int64_t) v;
      return true;
   }
   return parser_fail (p, args->pos[0], "%s takes milliseconds since the epoch or an ISO date string", name);
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
            return parser_fail (p, args->pos[0], "Timestamp takes {t: <seconds>, i: <increment>}");
         }
         v[k] = bson_iter_as_double (&child);
         have[k] = true;
      }
      if (!have[0] || !have[1]) {
         return parser_fail (p, args->pos[0], "Timestamp takes {t: <seconds>, i: <increment>}");
      }
      k = 0;
   } else {
      if (!p_ctor_arity (p, "Timestamp", args, 2, 2, "(t, i) or ({t: .., i: ..})")) {
         return false;
      }
      for (k = 0; k < 2; k++) {
         if (!p_arg_number (args, k, &v[k])) {
            return parser_fail (p, args->pos[k], "Timestamp takes numbers: (t, i)");
         }
      }
   }
   for (k = 0; k < 2; k++) {
      if (!(v[k] >= 0 && v[k] <= 4294967295.0 && v[k] == floor (v[k]))) {
         return parser_fail (p, args->pos[args->argc == 2 ? k : 0],
                             "Timestamp %s must be an integer from 0 to 4294967295", k == 0 ? "t" : "i");
      }
   }
   *t = (uint32_t) v[0];
   *inc = (uint32_t) v[1];
   return true;
}

/* One constructor call being built: where its value goes, the constructor's name as written, and its arguments. */
typedef struct {
   parser_t *p;
   bson_t *dst;
   const char *key;
   int key_len;
   const char *name;
   sh_pos_t name_pos;
   const parse_args_t *args;
} ctor_call_t;

/* Fails at argument i with "<what> <argument text>...": the argument's text as written, clipped to 60 bytes. */
static bool
p_ctor_fail_text (ctor_call_t *c, int i, const char *what, const char *expected)
{
   const char *text = c->p->lx.src + c->args->pos[i].offset;

   return parser_fail (c->p, c->args->pos[i], "%s %.*s%s", what, parser_clip (text, c->args->pos[i].len, 60), text,
                       expected);
}

/* ObjectId() or ObjectId("24 hex digits"). */
static bool
p_ctor_objectid (ctor_call_t *c)
{
   bson_oid_t oid;
   bson_iter_t it;

   if (!p_ctor_arity (c->p, c->name, c->args, 0, 1, "a string of 24 hex digits")) {
      return false;
   }
   if (c->args->argc == 0) {
      bson_oid_init (&oid, NULL);
   } else {
      uint32_t len;
      const char *s;

      p_arg (c->args, 0, &it);
      if (!BSON_ITER_HOLDS_UTF8 (&it)) {
         return parser_fail (c->p, c->args->pos[0], "%s takes a string of 24 hex digits", c->name);
      }
      s = bson_iter_utf8 (&it, &len);
      if (!bson_oid_is_valid (s, len)) {
         return p_ctor_fail_text (c, 0, "invalid ObjectId", ": expected 24 hex digits");
      }
      bson_oid_init_from_string (&oid, s);
   }
   return parser_appended (c->p, bson_append_oid (c->dst, c->key, c->key_len, &oid), c->name_pos);
}

/* Date() without new (the current time as a string), new Date(...) and ISODate(...) (a BSON date). */
static bool
p_ctor_date (ctor_call_t *c, bool as_string)
{
   int64_t ms = 0;

   if (as_string) {
      char buf[128];

      if (c->args->argc > 0) {
         return parser_fail (c->p, c->args->pos[0],
                             "Date() without new ignores its arguments and returns the current time as a "
                             "string; use new Date(...) or ISODate(...)");
      }
      p_date_string (buf, sizeof buf);
      return parser_appended (c->p, bson_append_utf8 (c->dst, c->key, c->key_len, buf, -1), c->name_pos);
   }
   if (!p_ctor_arity (c->p, c->name, c->args, 0, 1, "milliseconds or an ISO date string")) {
      return false;
   }
   if (c->args->argc == 0) {
      ms = clock_wall_ms ();
   } else if (!p_ctor_date_arg (c->p, c->name, c->args, &ms)) {
      return false;
   }
   return parser_appended (c->p, bson_append_date_time (c->dst, c->key, c->key_len, ms), c->name_pos);
}

/* NumberLong(...) / Long(...) as int64 and NumberInt(...) / Int32(...) as int32. */
static bool
p_ctor_int (ctor_call_t *c, bool is_long)
{
   int64_t i64 = 0;

   if (!p_ctor_arity (c->p, c->name, c->args, 1, 1, "an integer or a string of digits") ||
       !p_ctor_integer (c->p, c->name, c->args, is_long ? INT64_MIN : INT32_MIN, is_long ? INT64_MAX : INT32_MAX,
                        &i64)) {
      return false;
   }
   return parser_appended (c->p,
                           is_long ? bson_append_int64 (c->dst, c->key, c->key_len, i64)
                                   : bson_append_int32 (c->dst, c->key, c->key_len, (int32_t) i64),
                           c->name_pos);
}

/* NumberDecimal("1.25") / Decimal128(...): a string, or a number kept with its exact digits. */
static bool
p_ctor_decimal (ctor_call_t *c)
{
   bson_decimal128_t dec;
   bson_iter_t it;
   const char *s;
   size_t len;

   if (!p_ctor_arity (c->p, c->name, c->args, 1, 1, "a string such as \"1.25\"")) {
      return false;
   }
   p_arg (c->args, 0, &it);
   if (BSON_ITER_HOLDS_UTF8 (&it)) {
      uint32_t slen;

      s = bson_iter_utf8 (&it, &slen);
      len = slen;
   } else if (BSON_ITER_HOLDS_NUMBER (&it)) {
      s = p_arg_text (c->p, c->args, 0, &len);
   } else {
      return parser_fail (c->p, c->args->pos[0], "%s takes a string such as \"1.25\"", c->name);
   }
   if (len > INT32_MAX || !bson_decimal128_from_string_w_len (s, (int) len, &dec)) {
      return p_ctor_fail_text (c, 0, "invalid decimal", "");
   }
   return parser_appended (c->p, bson_append_decimal128 (c->dst, c->key, c->key_len, &dec), c->name_pos);
}

/* Double(n). */
static bool
p_ctor_double (ctor_call_t *c)
{
   double v;

   if (!p_ctor_arity (c->p, c->name, c->args, 1, 1, "a number")) {
      return false;
   }
   if (!p_arg_number (c->args, 0, &v)) {
      return parser_fail (c->p, c->args->pos[0], "%s takes a number", c->name);
   }
   return parser_appended (c->p, bson_append_double (c->dst, c->key, c->key_len, v), c->name_pos);
}

/* UUID() (a random version 4 UUID) or UUID("32 hex digits", dashes allowed). */
static bool
p_ctor_uuid (ctor_call_t *c)
{
   uint8_t uuid[16];
   bson_iter_t it;

   if (!p_ctor_arity (c->p, c->name, c->args, 0, 1, "a string of 32 hex digits")) {
      return false;
   }
   if (c->args->argc == 0) {
      p_random_bytes (uuid, sizeof uuid);
      uuid[6] = (uint8_t) ((uuid[6] & 0x0f) | 0x40);
      uuid[8] = (uint8_t) ((uuid[8] & 0x3f) | 0x80);
   } else {
      uint32_t len;
      const char *s;

      p_arg (c->args, 0, &it);
      if (!BSON_ITER_HOLDS_UTF8 (&it)) {
         return parser_fail (c->p, c->args->pos[0], "UUID takes a string of 32 hex digits");
      }
      s = bson_iter_utf8 (&it, &len);
      if (!p_uuid_decode (s, len, uuid)) {
         return p_ctor_fail_text (c, 0, "invalid UUID", ": expected 32 hex digits, optionally as 8-4-4-4-12");
      }
   }
   c->p->binary = true;
   return parser_appended (c->p, bson_append_binary (c->dst, c->key, c->key_len, BSON_SUBTYPE_UUID, uuid, 16),
                           c->name_pos);
}

/* BinData(subtype, "base64") and HexData(subtype, "hex"). */
static bool
p_ctor_binary (ctor_call_t *c, bool is_base64)
{
   const char *what = is_base64 ? "base64" : "hex";
   uint8_t *bin = NULL;
   bson_iter_t it;
   uint32_t len;
   size_t bin_len = 0;
   const char *s;
   double v;
   bool ok = false;

   if (!p_ctor_arity (c->p, c->name, c->args, 2, 2, is_base64 ? "(subtype, \"base64\")" : "(subtype, \"hex\")")) {
      return false;
   }
   if (!p_arg_number (c->args, 0, &v) || !(v >= 0 && v <= 255 && v == floor (v))) {
      return parser_fail (c->p, c->args->pos[0], "%s subtype must be an integer from 0 to 255", c->name);
   }
   p_arg (c->args, 1, &it);
   if (!BSON_ITER_HOLDS_UTF8 (&it)) {
      return parser_fail (c->p, c->args->pos[1], "%s takes its data as a %s string", c->name, what);
   }
   s = bson_iter_utf8 (&it, &len);
   bin = bson_malloc (len / 2 + len / 4 * 3 + 1);
   if (is_base64 ? !p_base64_decode (s, len, bin, &bin_len)
                 : (len % 2 != 0 || !p_hex_decode (s, len, bin, bin_len = len / 2))) {
      parser_fail (c->p, c->args->pos[1], "invalid %s data in %s", what, c->name);
   } else if (bin_len > INT32_MAX - 64) {
      parser_fail (c->p, c->args->pos[1], "binary data too large");
   } else {
      c->p->binary = true;
      ok = parser_appended (
         c->p, bson_append_binary (c->dst, c->key, c->key_len, (bson_subtype_t) v, bin, (uint32_t) bin_len),
         c->name_pos);
   }
   bson_free (bin);
   return ok;
}

bool
parser_ctor_build (parser_t *p, bson_t *dst, const char *key, int key_len, ctor_kind_t kind, const char *name,
                   bool is_new, sh_pos_t name_pos, const parse_args_t *args)
{
   ctor_call_t c = {
      .p = p, .dst = dst, .key = key, .key_len = key_len, .name = name, .name_pos = name_pos, .args = args
   };
   uint32_t t = 0, inc = 0;
   bool ok = false;

   switch (kind) {
   case CTOR_OBJECTID:
      ok = p_ctor_objectid (&c);
      break;
   case CTOR_DATE:
   case CTOR_ISODATE:
      /* new Date(...) is ISODate(...). */
      ok = p_ctor_date (&c, kind == CTOR_DATE && !is_new);
      break;
   case CTOR_LONG:
   case CTOR_INT:
      ok = p_ctor_int (&c, kind == CTOR_LONG);
      break;
   case CTOR_DECIMAL:
      ok = p_ctor_decimal (&c);
      break;
   case CTOR_DOUBLE:
      ok = p_ctor_double (&c);
      break;
   case CTOR_TIMESTAMP:
      ok = p_ctor_timestamp (p, c.args, &t, &inc) &&
           parser_appended (p, bson_append_timestamp (dst, key, key_len, t, inc), name_pos);
      break;
   case CTOR_UUID:
      ok = p_ctor_uuid (&c);
      break;
   case CTOR_BINDATA:
   case CTOR_HEXDATA:
      ok = p_ctor_binary (&c, kind == CTOR_BINDATA);
      break;
   case CTOR_MINKEY:
   case CTOR_MAXKEY:
      ok = p_ctor_arity (p, name, c.args, 0, 0, "no arguments") &&
           parser_appended (
              p, kind == CTOR_MINKEY ? bson_append_minkey (dst, key, key_len) : bson_append_maxkey (dst, key, key_len),
              name_pos);
      break;
   default:
      parser_fail (p, name_pos, "unknown function '%s' in a value", name);
      break;
   }
   return ok;
}
