/* MongoDB's ordering of BSON values, written once for both programs (libbson only): the shell's collector, the
 * shard-key advisor, the pre-flight and the simulated cluster's query engine all compare with it. It follows the
 * server's BSONElement::woCompare / compareElementValues: canonical type first (hashkey_canonical_type), then
 * numbers by value across int32, int64, double and decimal (NaN below every number), strings and symbols by bytes,
 * documents element by element (type, field name, value), binary by length, subtype then bytes, and so on. */
#include "shell/lib/order.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "shell/lib/hashkey.h"

static long double
order_decimal_ld (const bson_decimal128_t *d)
{
   char buf[BSON_DECIMAL128_STRING];
   bson_decimal128_to_string (d, buf);
   if (strcmp (buf, "NaN") == 0) {
      return (long double) NAN;
   }
   if (strcmp (buf, "Infinity") == 0) {
      return (long double) INFINITY;
   }
   if (strcmp (buf, "-Infinity") == 0) {
      return -(long double) INFINITY;
   }
   return strtold (buf, NULL);
}

long double
order_number_ld (const bson_value_t *v)
{
   switch (v->value_type) {
   case BSON_TYPE_INT32:
      return v->value.v_int32;
   case BSON_TYPE_INT64:
      return (long double) v->value.v_int64;
   case BSON_TYPE_DOUBLE:
      return v->value.v_double;
   case BSON_TYPE_DECIMAL128:
      return order_decimal_ld (&v->value.v_decimal128);
   default:
      return 0;
   }
}

static int
order_i64 (int64_t a, int64_t b)
{
   return a < b ? -1 : (a > b ? 1 : 0);
}

/* An int64 against a double, exactly (no rounding of the integer to double). NaN is below every number. */
static int
order_int_double (int64_t i, double d)
{
   int64_t t;
   double frac;
   if (isnan (d)) {
      return 1;
   }
   if (d >= 9223372036854775808.0) {
      return -1;
   }
   if (d < -9223372036854775808.0) {
      return 1;
   }
   t = (int64_t) d; /* exact: |d| < 2^63 */
   if (i != t) {
      return i < t ? -1 : 1;
   }
   frac = d - (double) t;
   return frac > 0 ? -1 : (frac < 0 ? 1 : 0);
}

static int
order_numbers (const bson_value_t *a, const bson_value_t *b)
{
   long double x, y;
   bool xn, yn;

   if ((a->value_type == BSON_TYPE_INT32 || a->value_type == BSON_TYPE_INT64) &&
       (b->value_type == BSON_TYPE_INT32 || b->value_type == BSON_TYPE_INT64)) {
      int64_t i = a->value_type == BSON_TYPE_INT32 ? a->value.v_int32 : a->value.v_int64;
      int64_t j = b->value_type == BSON_TYPE_INT32 ? b->value.v_int32 : b->value.v_int64;
      return order_i64 (i, j);
   }
   if (a->value_type != BSON_TYPE_DECIMAL128 && b->value_type != BSON_TYPE_DECIMAL128) {
      if (a->value_type == BSON_TYPE_DOUBLE && b->value_type == BSON_TYPE_DOUBLE) {
         double p = a->value.v_double, q = b->value.v_double;
         if (isnan (p) || isnan (q)) {
            return isnan (p) && isnan (q) ? 0 : (isnan (p) ? -1 : 1);
         }
         return p < q ? -1 : (p > q ? 1 : 0);
      }
      if (a->value_type == BSON_TYPE_DOUBLE) {
         return -order_int_double (b->value_type == BSON_TYPE_INT32 ? b->value.v_int32 : b->value.v_int64,
                                   a->value.v_double);
      }
      return order_int_double (a->value_type == BSON_TYPE_INT32 ? a->value.v_int32 : a->value.v_int64,
                               b->value.v_double);
   }
   /* Decimal128 compares through long double: exact for most values, approximate beyond its 64-bit mantissa. */
   x = order_number_ld (a);
   y = order_number_ld (b);
   xn = isnan (x);
   yn = isnan (y);
   /* NaN sorts below every other number and equals itself. */
   if (xn || yn) {
      return xn && yn ? 0 : (xn ? -1 : 1);
   }
   return x < y ? -1 : (x > y ? 1 : 0);
}

static int
order_bytes (const char *a, size_t alen, const char *b, size_t blen)
{
   int c = memcmp (a, b, alen < blen ? alen : blen);
   if (c != 0) {
      return c < 0 ? -1 : 1;
   }
   return alen < blen ? -1 : (alen > blen ? 1 : 0);
}

static int
order_embedded (const uint8_t *adata, uint32_t alen, const uint8_t *bdata, uint32_t blen)
{
   bson_t a, b;
   if (!bson_init_static (&a, adata, alen) || !bson_init_static (&b, bdata, blen)) {
      return 0;
   }
   return order_docs (&a, &b);
}

int
order_values (const bson_value_t *a, const bson_value_t *b)
{
   int ca = hashkey_canonical_type (a->value_type), cb = hashkey_canonical_type (b->value_type);
   int c;

   if (ca != cb) {
      return ca < cb ? -1 : 1;
   }
   switch ((int) a->value_type) {
   case BSON_TYPE_DOUBLE:
   case BSON_TYPE_INT32:
   case BSON_TYPE_INT64:
   case BSON_TYPE_DECIMAL128:
      return order_numbers (a, b);
   case BSON_TYPE_UTF8:
   case BSON_TYPE_SYMBOL: {
      const char *as = a->value_type == BSON_TYPE_UTF8 ? a->value.v_utf8.str : a->value.v_symbol.symbol;
      size_t al = a->value_type == BSON_TYPE_UTF8 ? a->value.v_utf8.len : a->value.v_symbol.len;
      const char *bs = b->value_type == BSON_TYPE_UTF8 ? b->value.v_utf8.str : b->value.v_symbol.symbol;
      size_t bl = b->value_type == BSON_TYPE_UTF8 ? b->value.v_utf8.len : b->value.v_symbol.len;
      return order_bytes (as, al, bs, bl);
   }
   case BSON_TYPE_DOCUMENT:
   case BSON_TYPE_ARRAY:
      return order_embedded (a->value.v_doc.data, a->value.v_doc.data_len, b->value.v_doc.data,
                             b->value.v_doc.data_len);
   case BSON_TYPE_BINARY:
      if (a->value.v_binary.data_len != b->value.v_binary.data_len) {
         return a->value.v_binary.data_len < b->value.v_binary.data_len ? -1 : 1;
      }
      if (a->value.v_binary.subtype != b->value.v_binary.subtype) {
         return (uint8_t) a->value.v_binary.subtype < (uint8_t) b->value.v_binary.subtype ? -1 : 1;
      }
      if (a->value.v_binary.data_len == 0) {
         return 0;
      }
      c = memcmp (a->value.v_binary.data, b->value.v_binary.data, a->value.v_binary.data_len);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
   case BSON_TYPE_OID:
      c = memcmp (a->value.v_oid.bytes, b->value.v_oid.bytes, 12);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
   case BSON_TYPE_BOOL:
      return (int) a->value.v_bool - (int) b->value.v_bool;
   case BSON_TYPE_DATE_TIME:
      return order_i64 (a->value.v_datetime, b->value.v_datetime);
   case BSON_TYPE_TIMESTAMP: {
      uint64_t x = ((uint64_t) a->value.v_timestamp.timestamp << 32) | a->value.v_timestamp.increment;
      uint64_t y = ((uint64_t) b->value.v_timestamp.timestamp << 32) | b->value.v_timestamp.increment;
      return x < y ? -1 : (x > y ? 1 : 0);
   }
   case BSON_TYPE_REGEX:
      c = strcmp (a->value.v_regex.regex, b->value.v_regex.regex);
      if (c == 0) {
         c = strcmp (a->value.v_regex.options, b->value.v_regex.options);
      }
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
   case BSON_TYPE_DBPOINTER:
      c = order_bytes (a->value.v_dbpointer.collection, a->value.v_dbpointer.collection_len,
                       b->value.v_dbpointer.collection, b->value.v_dbpointer.collection_len);
      if (c == 0) {
         c = memcmp (a->value.v_dbpointer.oid.bytes, b->value.v_dbpointer.oid.bytes, 12);
      }
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
   case BSON_TYPE_CODE:
      return order_bytes (a->value.v_code.code, a->value.v_code.code_len, b->value.v_code.code,
                          b->value.v_code.code_len);
   case BSON_TYPE_CODEWSCOPE:
      c = order_bytes (a->value.v_codewscope.code, a->value.v_codewscope.code_len, b->value.v_codewscope.code,
                       b->value.v_codewscope.code_len);
      if (c == 0) {
         c = order_embedded (a->value.v_codewscope.scope_data, a->value.v_codewscope.scope_len,
                             b->value.v_codewscope.scope_data, b->value.v_codewscope.scope_len);
      }
      return c;
   default:
      return 0; /* null, undefined, MinKey, MaxKey: one value each */
   }
}

int
order_docs (const bson_t *a, const bson_t *b)
{
   bson_iter_t ia, ib;
   bool ha, hb;

   if (!bson_iter_init (&ia, a) || !bson_iter_init (&ib, b)) {
      return 0;
   }
   for (;;) {
      int c;
      ha = bson_iter_next (&ia);
      hb = bson_iter_next (&ib);
      if (!ha || !hb) {
         return ha == hb ? 0 : (ha ? 1 : -1);
      }
      /* As BSONElement::woCompare: canonical type, then field name, then value. */
      c = hashkey_canonical_type (bson_iter_type (&ia)) - hashkey_canonical_type (bson_iter_type (&ib));
      if (c != 0) {
         return c < 0 ? -1 : 1;
      }
      c = strcmp (bson_iter_key (&ia), bson_iter_key (&ib));
      if (c != 0) {
         return c < 0 ? -1 : 1;
      }
      c = order_values (bson_iter_value (&ia), bson_iter_value (&ib));
      if (c != 0) {
         return c;
      }
   }
}

int
order_keys (const bson_t *a, const bson_t *b)
{
   bson_iter_t ia, ib;

   if (!bson_iter_init (&ia, a) || !bson_iter_init (&ib, b)) {
      return 0;
   }
   for (;;) {
      bool ha = bson_iter_next (&ia), hb = bson_iter_next (&ib);
      int c;
      if (!ha || !hb) {
         return ha == hb ? 0 : (ha ? 1 : -1);
      }
      c = order_values (bson_iter_value (&ia), bson_iter_value (&ib));
      if (c != 0) {
         return c;
      }
   }
}
