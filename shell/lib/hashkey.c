/* MongoDB's hashed shard-key function, BSONElementHasher::hash64 with seed 0 (src/mongo/db/hasher.cpp).
 *
 * The hash is MD5 over: the seed (int32, little-endian), then the element: its canonical type as a 4-byte
 * little-endian int, then (for elements inside documents and arrays only) the field name with its NUL, then the
 * value. Numbers are squashed to an int64 first (safeNumberLongForHash). Other scalars contribute their raw BSON
 * value bytes (strings include the int32 length and the trailing NUL). Documents, arrays and the scope of
 * code-with-scope contribute each element recursively with field names, then an EOO element, which is just the
 * canonical type 0 (an EOO has no field name and no value). The result is the first 8 digest bytes read as a
 * little-endian int64. MD5 comes from OpenSSL's EVP interface. */
#include "shell/lib/hashkey.h"

#include <math.h>
#include <openssl/evp.h>
#include <string.h>

/* The server's canonicalizeBSONType (bsontypes.h): values of one canonical type compare (and hash) alike. */
int32_t
hashkey_canonical_type (bson_type_t type)
{
   switch ((int) type) {
   case BSON_TYPE_MINKEY:
      return -1;
   case BSON_TYPE_MAXKEY:
      return 127;
   case BSON_TYPE_EOD:
   case BSON_TYPE_UNDEFINED:
      return 0;
   case BSON_TYPE_NULL:
      return 5;
   case BSON_TYPE_DOUBLE:
   case BSON_TYPE_INT32:
   case BSON_TYPE_INT64:
   case BSON_TYPE_DECIMAL128:
      return 10;
   case BSON_TYPE_UTF8:
   case BSON_TYPE_SYMBOL:
      return 15;
   case BSON_TYPE_DOCUMENT:
      return 20;
   case BSON_TYPE_ARRAY:
      return 25;
   case BSON_TYPE_BINARY:
      return 30;
   case BSON_TYPE_OID:
      return 35;
   case BSON_TYPE_BOOL:
      return 40;
   case BSON_TYPE_DATE_TIME:
      return 45;
   case BSON_TYPE_TIMESTAMP:
      return 47;
   case BSON_TYPE_REGEX:
      return 50;
   case BSON_TYPE_DBPOINTER:
      return 55;
   case BSON_TYPE_CODE:
      return 60;
   case BSON_TYPE_CODEWSCOPE:
      return 65;
   default:
      return 0;
   }
}

static void
hashkey_add (EVP_MD_CTX *ctx, const void *data, size_t len)
{
   if (len > 0) {
      EVP_DigestUpdate (ctx, data, len);
   }
}

static void
hashkey_add_le32 (EVP_MD_CTX *ctx, int32_t v)
{
   uint32_t u = (uint32_t) v;
   uint8_t b[4] = { (uint8_t) u, (uint8_t) (u >> 8), (uint8_t) (u >> 16), (uint8_t) (u >> 24) };
   hashkey_add (ctx, b, sizeof b);
}

static void
hashkey_add_le64 (EVP_MD_CTX *ctx, int64_t v)
{
   uint64_t u = (uint64_t) v;
   uint8_t b[8];
   for (int i = 0; i < 8; i++) {
      b[i] = (uint8_t) (u >> (8 * i));
   }
   hashkey_add (ctx, b, sizeof b);
}

/* A BSON string value: int32 length (including the NUL), the bytes, the NUL. */
static void
hashkey_add_string (EVP_MD_CTX *ctx, const char *s, uint32_t len)
{
   hashkey_add_le32 (ctx, (int32_t) (len + 1));
   hashkey_add (ctx, s, len);
   hashkey_add (ctx, "", 1);
}

/* Decimal128 to int64 as safeNumberLong() does it: NaN gives 0, values beyond the int64 range clamp, everything
 * else rounds half to even (Decimal128::toLong's default rounding). Decoded from the IEEE 754-2008 BID layout. */
static int64_t
hashkey_decimal_to_int64 (const bson_decimal128_t *d)
{
   const uint64_t hi = d->high, lo = d->low;
   const bool negative = (hi >> 63) != 0;
   unsigned __int128 coef;
   int exp;

   if (((hi >> 58) & 0x1f) == 0x1f) {
      return 0; /* NaN */
   }
   if (((hi >> 58) & 0x1f) == 0x1e) {
      return negative ? INT64_MIN : INT64_MAX; /* infinity */
   }
   if (((hi >> 61) & 0x3) == 0x3) {
      /* The large-coefficient form only encodes values above 10^34 - 1, which are non-canonical: zero. */
      return 0;
   }
   exp = (int) ((hi >> 49) & 0x3fff) - 6176;
   coef = ((unsigned __int128) (hi & 0x1ffffffffffffULL) << 64) | lo;
   if (coef == 0) {
      return 0;
   }
   if (exp > 0) {
      for (int i = 0; i < exp; i++) {
         coef *= 10;
         if (coef > ((unsigned __int128) 1 << 63)) {
            return negative ? INT64_MIN : INT64_MAX;
         }
      }
   } else if (exp < 0) {
      unsigned __int128 div = 1, q, r;
      if (exp < -34) {
         return 0; /* |value| < 10^34 * 10^-35 */
      }
      for (int i = 0; i < -exp; i++) {
         div *= 10;
      }
      q = coef / div;
      r = coef % div;
      if (2 * r > div || (2 * r == div && (q & 1))) {
         q++;
      }
      coef = q;
   }
   if (negative) {
      if (coef >= ((unsigned __int128) 1 << 63)) {
         return INT64_MIN;
      }
      return -(int64_t) coef;
   }
   if (coef > (unsigned __int128) INT64_MAX) {
      return INT64_MAX;
   }
   return (int64_t) coef;
}

/* BSONElement::safeNumberLongForHash(): like safeNumberLong(), except that the double 2^63 gives INT64_MIN (what
 * the old overflowing cast produced, kept for on-disk compatibility). */
static int64_t
hashkey_squash_number (const bson_value_t *v)
{
   switch (v->value_type) {
   case BSON_TYPE_INT32:
      return v->value.v_int32;
   case BSON_TYPE_INT64:
      return v->value.v_int64;
   case BSON_TYPE_DECIMAL128:
      return hashkey_decimal_to_int64 (&v->value.v_decimal128);
   case BSON_TYPE_DOUBLE: {
      const double d = v->value.v_double;
      if (isnan (d)) {
         return 0;
      }
      if (d == 9223372036854775808.0) {
         return INT64_MIN;
      }
      if (!(d < 9223372036854775808.0)) {
         return INT64_MAX;
      }
      if (d < -9223372036854775808.0) {
         return INT64_MIN;
      }
      return (int64_t) d;
   }
   default:
      return 0;
   }
}

static void
hashkey_element (EVP_MD_CTX *ctx, const bson_value_t *v);

/* Every element of an embedded document or array, with its field name, then the EOO element. */
static void
hashkey_embedded (EVP_MD_CTX *ctx, const uint8_t *data, uint32_t len)
{
   bson_t doc;
   bson_iter_t it;

   if (bson_init_static (&doc, data, len) && bson_iter_init (&it, &doc)) {
      while (bson_iter_next (&it)) {
         const char *key = bson_iter_key (&it);
         hashkey_add_le32 (ctx, hashkey_canonical_type (bson_iter_type (&it)));
         hashkey_add (ctx, key, strlen (key) + 1);
         hashkey_element (ctx, bson_iter_value (&it));
      }
   }
   hashkey_add_le32 (ctx, 0); /* EOO: canonical type 0, no field name, no value */
}

/* The value part of one element (its canonical type and field name are already added). */
static void
hashkey_element (EVP_MD_CTX *ctx, const bson_value_t *v)
{
   switch ((int) v->value_type) {
   case BSON_TYPE_INT32:
   case BSON_TYPE_INT64:
   case BSON_TYPE_DOUBLE:
   case BSON_TYPE_DECIMAL128:
      hashkey_add_le64 (ctx, hashkey_squash_number (v));
      break;
   case BSON_TYPE_UTF8:
      hashkey_add_string (ctx, v->value.v_utf8.str, v->value.v_utf8.len);
      break;
   case BSON_TYPE_SYMBOL:
      hashkey_add_string (ctx, v->value.v_symbol.symbol, v->value.v_symbol.len);
      break;
   case BSON_TYPE_CODE:
      hashkey_add_string (ctx, v->value.v_code.code, v->value.v_code.code_len);
      break;
   case BSON_TYPE_DOCUMENT:
      hashkey_embedded (ctx, v->value.v_doc.data, v->value.v_doc.data_len);
      break;
   case BSON_TYPE_ARRAY:
      hashkey_embedded (ctx, v->value.v_doc.data, v->value.v_doc.data_len);
      break;
   case BSON_TYPE_CODEWSCOPE:
      /* The code's characters with their NUL (codeWScopeCode, codeWScopeCodeLen), then the scope's elements. */
      hashkey_add (ctx, v->value.v_codewscope.code, v->value.v_codewscope.code_len);
      hashkey_add (ctx, "", 1);
      hashkey_embedded (ctx, v->value.v_codewscope.scope_data, v->value.v_codewscope.scope_len);
      break;
   case BSON_TYPE_BINARY: {
      uint8_t subtype = (uint8_t) v->value.v_binary.subtype;
      hashkey_add_le32 (ctx, (int32_t) v->value.v_binary.data_len);
      hashkey_add (ctx, &subtype, 1);
      hashkey_add (ctx, v->value.v_binary.data, v->value.v_binary.data_len);
      break;
   }
   case BSON_TYPE_OID:
      hashkey_add (ctx, v->value.v_oid.bytes, 12);
      break;
   case BSON_TYPE_BOOL: {
      uint8_t b = v->value.v_bool ? 1 : 0;
      hashkey_add (ctx, &b, 1);
      break;
   }
   case BSON_TYPE_DATE_TIME:
      hashkey_add_le64 (ctx, v->value.v_datetime);
      break;
   case BSON_TYPE_TIMESTAMP:
      /* BSON stores the increment in the low 4 bytes and the seconds in the high 4. */
      hashkey_add_le32 (ctx, (int32_t) v->value.v_timestamp.increment);
      hashkey_add_le32 (ctx, (int32_t) v->value.v_timestamp.timestamp);
      break;
   case BSON_TYPE_REGEX:
      hashkey_add (ctx, v->value.v_regex.regex, strlen (v->value.v_regex.regex) + 1);
      hashkey_add (ctx, v->value.v_regex.options, strlen (v->value.v_regex.options) + 1);
      break;
   case BSON_TYPE_DBPOINTER:
      hashkey_add_string (ctx, v->value.v_dbpointer.collection, v->value.v_dbpointer.collection_len);
      hashkey_add (ctx, v->value.v_dbpointer.oid.bytes, 12);
      break;
   default:
      /* null, undefined, MinKey, MaxKey: no value bytes */
      break;
   }
}

int64_t
hashkey_value (const bson_value_t *value)
{
   uint8_t digest[EVP_MAX_MD_SIZE];
   unsigned int digest_len = 0;
   uint64_t u = 0;
   EVP_MD_CTX *ctx = EVP_MD_CTX_new ();

   if (!ctx) {
      return 0;
   }
   if (EVP_DigestInit_ex (ctx, EVP_md5 (), NULL) != 1) {
      goto done;
   }
   hashkey_add_le32 (ctx, 0); /* the seed */
   hashkey_add_le32 (ctx, hashkey_canonical_type (value->value_type));
   hashkey_element (ctx, value);
   if (EVP_DigestFinal_ex (ctx, digest, &digest_len) != 1 || digest_len < 8) {
      goto done;
   }
   for (int i = 7; i >= 0; i--) {
      u = (u << 8) | digest[i];
   }
done:
   EVP_MD_CTX_free (ctx);
   return (int64_t) u;
}
