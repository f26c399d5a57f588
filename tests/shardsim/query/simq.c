/* The simulated cluster's query engine, core: document arrays, error codes and names, MongoDB's value ordering, path
 * lookup and traversal and document rebuilding for updates. Matching is in simq_match.c, expressions in simq_expr.c,
 * projection and updates in simq_update.c, sorting in simq_sort.c, aggregation in simq_agg.c. */
#include "tests/shardsim/query/simq_int.h"
#include "shell/lib/hashkey.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- document arrays ---- */

void
simq_docs_init (simq_docs_t *docs)
{
   docs->v = NULL;
   docs->n = 0;
   docs->cap = 0;
}

void
simq_docs_push_owned (simq_docs_t *docs, bson_t *doc)
{
   if (docs->n == docs->cap) {
      size_t cap = docs->cap ? docs->cap * 2 : 8;
      docs->v = bson_realloc (docs->v, cap * sizeof (bson_t *));
      docs->cap = cap;
   }
   docs->v[docs->n++] = doc;
}

void
simq_docs_push_copy (simq_docs_t *docs, const bson_t *doc)
{
   simq_docs_push_owned (docs, bson_copy (doc));
}

void
simq_docs_clear (simq_docs_t *docs)
{
   for (size_t i = 0; i < docs->n; i++) {
      bson_destroy (docs->v[i]);
   }
   bson_free (docs->v);
   simq_docs_init (docs);
}

/* ---- errors ---- */

bool
simq_fail (bson_error_t *error, int code, const char *fmt, ...)
{
   va_list ap;
   if (!error) {
      return false;
   }
   error->domain = SIMQ_ERROR_DOMAIN;
   error->code = (uint32_t) code;
   va_start (ap, fmt);
   vsnprintf (error->message, sizeof error->message, fmt, ap);
   va_end (ap);
   return false;
}

static const struct {
   int code;
   const char *name;
} simq_code_names[] = {
   { 1, "InternalError" },
   { 2, "BadValue" },
   { 4, "NoSuchKey" },
   { 9, "FailedToParse" },
   { 11, "UserNotFound" },
   { 13, "Unauthorized" },
   { 14, "TypeMismatch" },
   { 15, "Overflow" },
   { 16, "InvalidLength" },
   { 17, "ProtocolError" },
   { 18, "AuthenticationFailed" },
   { 20, "IllegalOperation" },
   { 22, "InvalidBSON" },
   { 23, "AlreadyInitialized" },
   { 26, "NamespaceNotFound" },
   { 27, "IndexNotFound" },
   { 28, "PathNotViable" },
   { 40, "ConflictingUpdateOperators" },
   { 43, "CursorNotFound" },
   { 48, "NamespaceExists" },
   { 52, "DollarPrefixedFieldName" },
   { 53, "InvalidIdField" },
   { 56, "EmptyFieldName" },
   { 57, "DottedFieldName" },
   { 59, "CommandNotFound" },
   { 61, "ShardKeyNotFound" },
   { 66, "ImmutableField" },
   { 67, "CannotCreateIndex" },
   { 70, "ShardNotFound" },
   { 72, "InvalidOptions" },
   { 73, "InvalidNamespace" },
   { 85, "IndexOptionsConflict" },
   { 87, "CannotSplit" },
   { 91, "ShutdownInProgress" },
   { 96, "OperationFailed" },
   { 115, "CommandNotSupported" },
   { 117, "ConflictingOperationInProgress" },
   { 118, "NamespaceNotSharded" },
   { 153, "ChunkTooBig" },
   { 163, "ZoneStillInUse" },
   { 168, "InvalidPipelineOperator" },
   { 177, "ZoneNotFound" },
   { 178, "RangeOverlapConflict" },
   { 186, "ClientMetadataCannotBeMutated" },
   { 223, "IllegalOpMsgFlag" },
   { 238, "NotImplemented" },
   { 241, "ConversionFailure" },
   { 265, "OrphanedRangeCleanUpFailed" },
   { 323, "APIStrictError" },
   { 334, "MechanismUnavailable" },
   { 338, "ReshardCollectionInProgress" },
   { 339, "NoSuchReshardCollection" },
   { 341, "ReshardCollectionAborted" },
   { 352, "UnsupportedOpQueryCommand" },
   { 354, "LoadBalancerSupportMismatch" },
   { 361, "CollectionUUIDMismatch" },
   { 414, "AddOrRemoveShardInProgress" },
   { 11000, "DuplicateKey" },
   { 13297, "DatabaseDifferCase" },
   { 13388, "StaleConfig" },
   { 40415, "IDLUnknownField" },
};

const char *
simq_code_name (int code)
{
   static _Thread_local char location[32];
   for (size_t i = 0; i < sizeof simq_code_names / sizeof simq_code_names[0]; i++) {
      if (simq_code_names[i].code == code) {
         return simq_code_names[i].name;
      }
   }
   snprintf (location, sizeof location, "Location%d", code);
   return location;
}

/* ---- value helpers ---- */

const char *
simq_type_name (bson_type_t type)
{
   switch ((int) type) {
   case BSON_TYPE_EOD:
      return "missing";
   case BSON_TYPE_DOUBLE:
      return "double";
   case BSON_TYPE_UTF8:
      return "string";
   case BSON_TYPE_DOCUMENT:
      return "object";
   case BSON_TYPE_ARRAY:
      return "array";
   case BSON_TYPE_BINARY:
      return "binData";
   case BSON_TYPE_UNDEFINED:
      return "undefined";
   case BSON_TYPE_OID:
      return "objectId";
   case BSON_TYPE_BOOL:
      return "bool";
   case BSON_TYPE_DATE_TIME:
      return "date";
   case BSON_TYPE_NULL:
      return "null";
   case BSON_TYPE_REGEX:
      return "regex";
   case BSON_TYPE_DBPOINTER:
      return "dbPointer";
   case BSON_TYPE_CODE:
      return "javascript";
   case BSON_TYPE_SYMBOL:
      return "symbol";
   case BSON_TYPE_CODEWSCOPE:
      return "javascriptWithScope";
   case BSON_TYPE_INT32:
      return "int";
   case BSON_TYPE_TIMESTAMP:
      return "timestamp";
   case BSON_TYPE_INT64:
      return "long";
   case BSON_TYPE_DECIMAL128:
      return "decimal";
   case BSON_TYPE_MINKEY:
      return "minKey";
   case BSON_TYPE_MAXKEY:
      return "maxKey";
   default:
      return "unknown";
   }
}

bool
simq_is_number (const bson_value_t *v)
{
   return v->value_type == BSON_TYPE_INT32 || v->value_type == BSON_TYPE_INT64 || v->value_type == BSON_TYPE_DOUBLE ||
          v->value_type == BSON_TYPE_DECIMAL128;
}

static long double
simq_to_ld (const bson_value_t *v)
{
   return order_number_ld (v);
}

double
simq_to_double (const bson_value_t *v)
{
   return (double) simq_to_ld (v);
}

bool
simq_is_integral_number (const bson_value_t *v, int64_t *out)
{
   long double d;
   switch (v->value_type) {
   case BSON_TYPE_INT32:
      *out = v->value.v_int32;
      return true;
   case BSON_TYPE_INT64:
      *out = v->value.v_int64;
      return true;
   case BSON_TYPE_DOUBLE:
   case BSON_TYPE_DECIMAL128:
      d = simq_to_ld (v);
      if (isnan (d) || d != floorl (d) || d < -9223372036854775808.0L || d >= 9223372036854775808.0L) {
         return false;
      }
      *out = (int64_t) d;
      return true;
   default:
      return false;
   }
}

bool
simq_truthy (const bson_value_t *v)
{
   switch (v->value_type) {
   case BSON_TYPE_EOD:
   case BSON_TYPE_NULL:
   case BSON_TYPE_UNDEFINED:
      return false;
   case BSON_TYPE_BOOL:
      return v->value.v_bool;
   case BSON_TYPE_INT32:
   case BSON_TYPE_INT64:
   case BSON_TYPE_DOUBLE:
   case BSON_TYPE_DECIMAL128:
      return simq_to_ld (v) != 0;
   default:
      return true;
   }
}

char *
simq_doc_json (const bson_t *doc)
{
   char *s = bson_as_relaxed_extended_json (doc, NULL);
   return s ? s : bson_strdup ("{}");
}

char *
simq_value_json (const bson_value_t *v)
{
   bson_t tmp = BSON_INITIALIZER;
   char *full, *out;
   size_t len;

   if (v->value_type == BSON_TYPE_EOD) {
      bson_destroy (&tmp);
      return bson_strdup ("missing");
   }
   bson_append_value (&tmp, "v", 1, v);
   full = bson_as_relaxed_extended_json (&tmp, NULL);
   bson_destroy (&tmp);
   /* full is { "v" : <json> } */
   if (!full || strlen (full) < 10) {
      bson_free (full);
      return bson_strdup ("?");
   }
   len = strlen (full);
   out = bson_strndup (full + 8, len - 10);
   bson_free (full);
   return out;
}

bool
simq_value_as_doc (const bson_value_t *v, bson_t *view)
{
   if (v->value_type != BSON_TYPE_DOCUMENT && v->value_type != BSON_TYPE_ARRAY) {
      return false;
   }
   return bson_init_static (view, v->value.v_doc.data, v->value.v_doc.data_len);
}

void
simq_value_from_doc (const bson_t *doc, bool is_array, bson_value_t *out)
{
   out->value_type = is_array ? BSON_TYPE_ARRAY : BSON_TYPE_DOCUMENT;
   out->value.v_doc.data_len = doc->len;
   out->value.v_doc.data = bson_malloc (doc->len);
   memcpy (out->value.v_doc.data, bson_get_data (doc), doc->len);
}

void
simq_value_set_missing (bson_value_t *v)
{
   memset (v, 0, sizeof *v);
   v->value_type = BSON_TYPE_EOD;
}

bool
simq_value_missing (const bson_value_t *v)
{
   return v->value_type == BSON_TYPE_EOD;
}

void
simq_value_copy (const bson_value_t *src, bson_value_t *dst)
{
   if (src->value_type == BSON_TYPE_EOD) {
      simq_value_set_missing (dst);
      return;
   }
   bson_value_copy (src, dst);
}

void
simq_value_destroy (bson_value_t *v)
{
   if (v->value_type != BSON_TYPE_EOD) {
      bson_value_destroy (v);
   }
   simq_value_set_missing (v);
}

void
simq_append_value (bson_t *doc, const char *key, int key_len, const bson_value_t *v)
{
   if (v->value_type != BSON_TYPE_EOD) {
      bson_append_value (doc, key, key_len, v);
   }
}

/* ---- hashing consistent with the comparison ---- */

/* 64-bit mixing (the finaliser of MurmurHash3 / splitmix64). */
static uint64_t
simq_mix (uint64_t h, uint64_t v)
{
   h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
   h ^= h >> 33;
   h *= 0xFF51AFD7ED558CCDull;
   h ^= h >> 33;
   h *= 0xC4CEB9FE1A85EC53ull;
   h ^= h >> 33;
   return h;
}

static uint64_t
simq_mix_bytes (uint64_t h, const void *data, size_t len)
{
   const uint8_t *p = data;
   h = simq_mix (h, (uint64_t) len);
   while (len >= 8) {
      uint64_t w;
      memcpy (&w, p, 8);
      h = simq_mix (h, w);
      p += 8;
      len -= 8;
   }
   if (len) {
      uint64_t w = 0;
      memcpy (&w, p, len);
      h = simq_mix (h, w);
   }
   return h;
}

/* A number's hash, from its value as a long double: integral values that fit an int64 hash as that int64 (so 1, 1.0,
 * NumberLong(1) and NumberDecimal("1") collide), NaNs alike, every other value as the bits of its double.
 * simq_compare_numbers compares int/int and int/double exactly and anything with a decimal through long double; two
 * numbers it calls equal have the same long double, so the same hash (also where long double is only a double: int64s
 * that round alike then collide, which costs a comparison, never a wrong answer). */
static uint64_t
simq_hash_number (uint64_t h, const bson_value_t *v)
{
   long double x;
   double d;
   uint64_t bits;

   x = simq_to_ld (v);
   if (isnan (x)) {
      return simq_mix (h, 0x7FF8000000000001ull);
   }
   if (x >= -9223372036854775808.0L && x < 9223372036854775808.0L && x == floorl (x)) {
      return simq_mix (h, (uint64_t) (int64_t) x);
   }
   d = (double) x;
   memcpy (&bits, &d, sizeof bits);
   return simq_mix (h, bits);
}

static uint64_t
simq_hash_embedded (uint64_t h, const uint8_t *data, uint32_t len)
{
   bson_t doc;
   bson_iter_t it;
   if (!bson_init_static (&doc, data, len) || !bson_iter_init (&it, &doc)) {
      return h;
   }
   while (bson_iter_next (&it)) {
      /* As order_docs: canonical type, field name, value. */
      h = simq_mix (h, (uint64_t) hashkey_canonical_type (bson_iter_type (&it)));
      h = simq_mix_bytes (h, bson_iter_key (&it), bson_iter_key_len (&it));
      h = simq_mix (h, simq_hash_value (bson_iter_value (&it)));
   }
   return simq_mix (h, 0xE0D);
}

uint64_t
simq_hash_value (const bson_value_t *v)
{
   uint64_t h = simq_mix (0x5348415244534855ull, (uint64_t) (int64_t) hashkey_canonical_type (v->value_type));

   switch ((int) v->value_type) {
   case BSON_TYPE_DOUBLE:
   case BSON_TYPE_INT32:
   case BSON_TYPE_INT64:
   case BSON_TYPE_DECIMAL128:
      return simq_hash_number (h, v);
   case BSON_TYPE_UTF8:
      return simq_mix_bytes (h, v->value.v_utf8.str, v->value.v_utf8.len);
   case BSON_TYPE_SYMBOL:
      return simq_mix_bytes (h, v->value.v_symbol.symbol, v->value.v_symbol.len);
   case BSON_TYPE_DOCUMENT:
   case BSON_TYPE_ARRAY:
      return simq_hash_embedded (h, v->value.v_doc.data, v->value.v_doc.data_len);
   case BSON_TYPE_BINARY:
      h = simq_mix (h, (uint64_t) (uint8_t) v->value.v_binary.subtype);
      return simq_mix_bytes (h, v->value.v_binary.data, v->value.v_binary.data_len);
   case BSON_TYPE_OID:
      return simq_mix_bytes (h, v->value.v_oid.bytes, 12);
   case BSON_TYPE_BOOL:
      return simq_mix (h, v->value.v_bool ? 1 : 0);
   case BSON_TYPE_DATE_TIME:
      return simq_mix (h, (uint64_t) v->value.v_datetime);
   case BSON_TYPE_TIMESTAMP:
      return simq_mix (h, ((uint64_t) v->value.v_timestamp.timestamp << 32) | v->value.v_timestamp.increment);
   case BSON_TYPE_REGEX:
      h = simq_mix_bytes (h, v->value.v_regex.regex, strlen (v->value.v_regex.regex));
      return simq_mix_bytes (h, v->value.v_regex.options, strlen (v->value.v_regex.options));
   case BSON_TYPE_DBPOINTER:
      h = simq_mix_bytes (h, v->value.v_dbpointer.collection, v->value.v_dbpointer.collection_len);
      return simq_mix_bytes (h, v->value.v_dbpointer.oid.bytes, 12);
   case BSON_TYPE_CODE:
      return simq_mix_bytes (h, v->value.v_code.code, v->value.v_code.code_len);
   case BSON_TYPE_CODEWSCOPE:
      h = simq_mix_bytes (h, v->value.v_codewscope.code, v->value.v_codewscope.code_len);
      return simq_hash_embedded (h, v->value.v_codewscope.scope_data, v->value.v_codewscope.scope_len);
   default:
      return h; /* null, undefined, MinKey, MaxKey: one value per canonical type */
   }
}

/* ---- paths ---- */

/* The size of the value of an element of type t at d[v], within len bytes; false when it is not a known type or does
 * not fit (then the walk leaves the document to libbson). */
static bool
simq_raw_value_size (uint8_t t, const uint8_t *d, uint32_t len, uint32_t v, uint64_t *sz)
{
   uint32_t rem = len - v;
   int32_t l = 0;
   const uint8_t *nul;
   if (t == 0x02 || t == 0x03 || t == 0x04 || t == 0x05 || t == 0x0C || t == 0x0D || t == 0x0E) {
      if (rem < 4) {
         return false;
      }
      memcpy (&l, d + v, 4);
      l = (int32_t) BSON_UINT32_FROM_LE ((uint32_t) l);
      if (l < 0) {
         return false;
      }
   }
   switch (t) {
   case 0x01: /* double */
   case 0x09: /* date */
   case 0x11: /* timestamp */
   case 0x12: /* int64 */
      *sz = 8;
      break;
   case 0x02: /* string, code, symbol: int32 length (with the NUL) then the bytes */
   case 0x0D:
   case 0x0E:
      *sz = 4 + (uint64_t) l;
      if (l < 1 || *sz > rem || d[v + *sz - 1] != 0) {
         return false;
      }
      break;
   case 0x03: /* document, array: int32 total length */
   case 0x04:
      *sz = (uint64_t) l;
      if (l < 5) {
         return false;
      }
      break;
   case 0x05: /* binary: length, subtype, bytes */
      *sz = 5 + (uint64_t) l;
      break;
   case 0x06: /* undefined, null, MaxKey, MinKey */
   case 0x0A:
   case 0x7F:
   case 0xFF:
      *sz = 0;
      break;
   case 0x07: /* ObjectId */
      *sz = 12;
      break;
   case 0x08: /* boolean */
      *sz = 1;
      break;
   case 0x0B: /* regex: two C strings */
      if (!(nul = memchr (d + v, 0, rem)) || !(nul = memchr (nul + 1, 0, (size_t) (d + len - nul - 1)))) {
         return false;
      }
      *sz = (uint64_t) (nul - (d + v)) + 1;
      break;
   case 0x0C: /* DBPointer: string then ObjectId */
      *sz = 4 + (uint64_t) l + 12;
      if (l < 1) {
         return false;
      }
      break;
   case 0x10: /* int32 */
      *sz = 4;
      break;
   case 0x13: /* decimal128 */
      *sz = 16;
      break;
   default:
      return false;
   }
   return *sz <= rem;
}

int
simq_raw_find (const bson_t *doc, const char *key, size_t klen, uint32_t *off, uint32_t *val, uint64_t *size)
{
   const uint8_t *d = bson_get_data (doc);
   const uint32_t len = doc->len;
   const uint8_t *end = d + len, *ke = (const uint8_t *) key + klen, *p, *kp;
   uint32_t o = 4, e, v; /* locals, written out once found */
   uint64_t sz;
   while (o + 1 < len && d[o] != 0) { /* a 0 type before len - 1: malformed */
      for (p = d + o + 1, kp = (const uint8_t *) key; p < end && kp < ke && *p == *kp; p++)
         kp++; /* the key compared in line (keys are short: a call per element cost more), then its NUL */
      while (p < end && *p != 0)
         p++;
      e = (uint32_t) (p - d);
      if (e == len || !simq_raw_value_size (d[o], d, len, v = e + 1, &sz))
         return -1; /* no NUL after the key, or a value the walk cannot size */
      if (kp == ke && e - o - 1 == klen) {
         *off = o;
         *val = v;
         *size = sz;
         return 1;
      }
      o = v + (uint32_t) sz;
   }
   return len >= 5 && o + 1 == len && d[o] == 0 ? 0 : -1;
}

bool
simq_iter_find (bson_iter_t *iter, const bson_t *doc, const char *key)
{
   const uint8_t *d = bson_get_data (doc);
   uint32_t o, v;
   uint64_t sz;
   size_t klen = strlen (key);
   int found = simq_raw_find (doc, key, klen, &o, &v, &sz);
   if (found == 1 && bson_iter_init_from_data_at_offset (iter, d, doc->len, o, (uint32_t) klen)) {
      return true;
   }
   if (found == 0) {
      return false;
   }
   return bson_iter_init_find (iter, doc, key);
}

static int32_t
simq_raw_i32 (const uint8_t *p)
{
   uint32_t x;
   memcpy (&x, p, 4);
   return (int32_t) BSON_UINT32_FROM_LE (x);
}

/* The value of type t at d[v] (sz bytes, located by simq_raw_find) as bson_iter_value gives it, borrowed from d;
 * false for the types left to libbson (regex, DBPointer, code, symbol, code with scope) and for a string without
 * its NUL or a document too short to be one. */
static bool
simq_raw_value (uint8_t t, const uint8_t *d, uint32_t v, uint64_t sz, bson_value_t *out)
{
   uint64_t u;
   memset (out, 0, sizeof *out);
   out->value_type = (bson_type_t) t;
   switch (t) {
   case BSON_TYPE_DOUBLE:
      memcpy (&u, d + v, 8);
      u = BSON_UINT64_FROM_LE (u);
      memcpy (&out->value.v_double, &u, 8);
      return true;
   case BSON_TYPE_UTF8:
      if (sz < 5 || d[v + sz - 1] != 0) {
         return false;
      }
      out->value.v_utf8.str = (char *) (d + v + 4);
      out->value.v_utf8.len = (uint32_t) (sz - 5);
      return true;
   case BSON_TYPE_DOCUMENT:
   case BSON_TYPE_ARRAY:
      if (sz < 5) {
         return false;
      }
      out->value.v_doc.data = (uint8_t *) (d + v);
      out->value.v_doc.data_len = (uint32_t) sz;
      return true;
   case BSON_TYPE_BINARY:
      out->value.v_binary.subtype = (bson_subtype_t) d[v + 4];
      out->value.v_binary.data = (uint8_t *) (d + v + 5);
      out->value.v_binary.data_len = (uint32_t) (sz - 5);
      return out->value.v_binary.subtype != BSON_SUBTYPE_BINARY_DEPRECATED;
   case BSON_TYPE_OID:
      memcpy (out->value.v_oid.bytes, d + v, 12);
      return true;
   case BSON_TYPE_BOOL:
      out->value.v_bool = d[v] != 0;
      return d[v] <= 1;
   case BSON_TYPE_DATE_TIME:
      memcpy (&u, d + v, 8);
      out->value.v_datetime = (int64_t) BSON_UINT64_FROM_LE (u);
      return true;
   case BSON_TYPE_INT32:
      out->value.v_int32 = simq_raw_i32 (d + v);
      return true;
   case BSON_TYPE_TIMESTAMP:
      out->value.v_timestamp.increment = (uint32_t) simq_raw_i32 (d + v);
      out->value.v_timestamp.timestamp = (uint32_t) simq_raw_i32 (d + v + 4);
      return true;
   case BSON_TYPE_INT64:
      memcpy (&u, d + v, 8);
      out->value.v_int64 = (int64_t) BSON_UINT64_FROM_LE (u);
      return true;
   case BSON_TYPE_DECIMAL128:
      memcpy (&u, d + v, 8);
      out->value.v_decimal128.low = BSON_UINT64_FROM_LE (u);
      memcpy (&u, d + v + 8, 8);
      out->value.v_decimal128.high = BSON_UINT64_FROM_LE (u);
      return true;
   case BSON_TYPE_UNDEFINED:
   case BSON_TYPE_NULL:
   case BSON_TYPE_MINKEY:
   case BSON_TYPE_MAXKEY:
      return true;
   default:
      return false;
   }
}

bool
simq_find_value (const bson_t *doc, const char *key, bson_value_t *out)
{
   return simq_find_value_n (doc, key, strlen (key), out);
}

bool
simq_find_value_n (const bson_t *doc, const char *key, size_t klen, bson_value_t *out)
{
   const uint8_t *d = bson_get_data (doc);
   uint32_t o, v;
   uint64_t sz;
   bson_iter_t it;
   int found = simq_raw_find (doc, key, klen, &o, &v, &sz);
   if (found == 1 && simq_raw_value (d[o], d, v, sz, out)) {
      return true;
   }
   if (found == 0 || !simq_iter_find (&it, doc, key)) {
      return false;
   }
   *out = *bson_iter_value (&it);
   return true;
}

bool
simq_get_path (const bson_t *doc, const char *path, bson_value_t *out)
{
   bson_iter_t it, child;
   if (!strchr (path, '.')) {
      return simq_find_value (doc, path, out);
   }
   if (!bson_iter_init (&it, doc) || !bson_iter_find_descendant (&it, path, &child)) {
      return false;
   }
   *out = *bson_iter_value (&child);
   return true;
}

static bool
simq_all_digits (const char *s, size_t len)
{
   if (len == 0) {
      return false;
   }
   for (size_t i = 0; i < len; i++) {
      if (s[i] < '0' || s[i] > '9') {
         return false;
      }
   }
   return true;
}

static void
simq_pvals_push (simq_pvals_t *pv, const bson_value_t *v, bool expanded)
{
   if (pv->n == pv->cap) {
      pv->cap = pv->cap ? pv->cap * 2 : 8;
      pv->v = bson_realloc (pv->v, pv->cap * sizeof *pv->v);
   }
   pv->v[pv->n].v = *v;
   pv->v[pv->n].expanded = expanded;
   pv->n++;
}

void
simq_pvals_destroy (simq_pvals_t *pv)
{
   bson_free (pv->v);
   memset (pv, 0, sizeof *pv);
}

/* Finds the field named by comp[0..len) in the document or array view. */
static bool
simq_find_field (const bson_t *doc, const char *comp, size_t len, bson_value_t *out)
{
   bson_iter_t it;
   if (!bson_iter_init (&it, doc)) {
      return false;
   }
   while (bson_iter_next (&it)) {
      if (bson_iter_key_len (&it) == len && memcmp (bson_iter_key (&it), comp, len) == 0) {
         *out = *bson_iter_value (&it);
         return true;
      }
   }
   return false;
}

static void
simq_collect (const bson_value_t *cur, const char *path, simq_pvals_t *out);

static void
simq_collect_in_doc (const bson_t *doc, const char *path, simq_pvals_t *out)
{
   const char *dot = strchr (path, '.');
   size_t len = dot ? (size_t) (dot - path) : strlen (path);
   bson_value_t child;

   if (!simq_find_field (doc, path, len, &child)) {
      out->missing = true;
      return;
   }
   if (!dot) {
      simq_pvals_push (out, &child, false);
      if (child.value_type == BSON_TYPE_ARRAY) {
         bson_t arr;
         bson_iter_t it;
         if (simq_value_as_doc (&child, &arr) && bson_iter_init (&it, &arr)) {
            while (bson_iter_next (&it)) {
               simq_pvals_push (out, bson_iter_value (&it), true);
            }
         }
      }
      return;
   }
   simq_collect (&child, dot + 1, out);
}

/* cur is the value reached so far; path is what remains of the path (non-empty). */
static void
simq_collect (const bson_value_t *cur, const char *path, simq_pvals_t *out)
{
   bson_t view;

   if (cur->value_type == BSON_TYPE_DOCUMENT) {
      if (simq_value_as_doc (cur, &view)) {
         simq_collect_in_doc (&view, path, out);
      }
      return;
   }
   if (cur->value_type == BSON_TYPE_ARRAY && simq_value_as_doc (cur, &view)) {
      const char *dot = strchr (path, '.');
      size_t len = dot ? (size_t) (dot - path) : strlen (path);
      bson_iter_t it;

      if (simq_all_digits (path, len)) {
         /* A numeric component names an array element ... */
         simq_collect_in_doc (&view, path, out);
      }
      /* ... and the path also applies to every embedded document in the array. */
      if (bson_iter_init (&it, &view)) {
         while (bson_iter_next (&it)) {
            if (BSON_ITER_HOLDS_DOCUMENT (&it)) {
               bson_t sub;
               if (simq_value_as_doc (bson_iter_value (&it), &sub)) {
                  simq_collect_in_doc (&sub, path, out);
               }
            } else if (!simq_all_digits (path, len)) {
               out->missing = true;
            }
         }
      }
      return;
   }
   out->missing = true;
}

void
simq_path_values (const bson_t *doc, const char *path, simq_pvals_t *out)
{
   memset (out, 0, sizeof *out);
   simq_collect_in_doc (doc, path, out);
}

/* ---- rebuilding documents ---- */

static bool
simq_set_in (const bson_t *src, bool is_array, const char *path, const bson_value_t *val, bson_t *dst, const char *full,
             bson_error_t *error);

/* Appends to dst the value to store under a path component: val itself at the leaf, else a rebuilt or new child. */
static bool
simq_set_child (const bson_value_t *existing, const char *rest, const bson_value_t *val, bson_t *dst, const char *key,
                size_t key_len, const char *full, bson_error_t *error)
{
   bson_t child_src, child_dst;
   bool ok;

   if (!rest) {
      bson_append_value (dst, key, (int) key_len, val);
      return true;
   }
   if (existing && (existing->value_type == BSON_TYPE_DOCUMENT || existing->value_type == BSON_TYPE_ARRAY)) {
      bool is_array = existing->value_type == BSON_TYPE_ARRAY;
      simq_value_as_doc (existing, &child_src);
      ok = simq_set_in (&child_src, is_array, rest, val, &child_dst, full, error);
      if (ok) {
         if (is_array) {
            bson_append_array (dst, key, (int) key_len, &child_dst);
         } else {
            bson_append_document (dst, key, (int) key_len, &child_dst);
         }
      }
      bson_destroy (&child_dst);
      return ok;
   }
   if (existing) {
      char *json = simq_value_json (existing);
      const char *dot = strchr (rest, '.');
      int rlen = dot ? (int) (dot - rest) : (int) strlen (rest);
      simq_fail (error, 28, "Cannot create field '%.*s' in element {%.*s: %s}", rlen, rest, (int) key_len, key, json);
      bson_free (json);
      return false;
   }
   bson_init (&child_src);
   ok = simq_set_in (&child_src, false, rest, val, &child_dst, full, error);
   if (ok) {
      bson_append_document (dst, key, (int) key_len, &child_dst);
   }
   bson_destroy (&child_src);
   bson_destroy (&child_dst);
   return ok;
}

static bool
simq_set_in (const bson_t *src, bool is_array, const char *path, const bson_value_t *val, bson_t *dst, const char *full,
             bson_error_t *error)
{
   const char *dot = strchr (path, '.');
   size_t len = dot ? (size_t) (dot - path) : strlen (path);
   const char *rest = dot ? dot + 1 : NULL;
   bson_iter_t it;
   bool done = false;

   bson_init (dst);
   if (is_array && !simq_all_digits (path, len)) {
      return simq_fail (error, 28, "Cannot create field '%.*s' in element {%s: [...]}", (int) len, path, full);
   }
   if (bson_iter_init (&it, src)) {
      while (bson_iter_next (&it)) {
         if (!done && bson_iter_key_len (&it) == len && memcmp (bson_iter_key (&it), path, len) == 0) {
            if (!simq_set_child (bson_iter_value (&it), rest, val, dst, path, len, full, error)) {
               return false;
            }
            done = true;
         } else {
            bson_append_value (dst, bson_iter_key (&it), (int) bson_iter_key_len (&it), bson_iter_value (&it));
         }
      }
   }
   if (done) {
      return true;
   }
   if (is_array) {
      /* Pad with nulls up to the index. */
      uint32_t count = bson_count_keys (src);
      long idx = strtol (path, NULL, 10);
      char key[24];
      for (long i = count; i < idx; i++) {
         snprintf (key, sizeof key, "%ld", i);
         bson_append_null (dst, key, -1);
      }
      snprintf (key, sizeof key, "%ld", idx);
      return simq_set_child (NULL, rest, val, dst, key, strlen (key), full, error);
   }
   return simq_set_child (NULL, rest, val, dst, path, len, full, error);
}

bool
simq_set_path (const bson_t *src, const char *path, const bson_value_t *val, bson_t *dst, bson_error_t *error)
{
   return simq_set_in (src, false, path, val, dst, path, error);
}

static void
simq_unset_in (const bson_t *src, bool is_array, const char *path, bson_t *dst, bool *found)
{
   const char *dot = strchr (path, '.');
   size_t len = dot ? (size_t) (dot - path) : strlen (path);
   bson_iter_t it;

   bson_init (dst);
   if (!bson_iter_init (&it, src)) {
      return;
   }
   while (bson_iter_next (&it)) {
      const char *key = bson_iter_key (&it);
      int klen = (int) bson_iter_key_len (&it);
      if ((size_t) klen == len && memcmp (key, path, len) == 0) {
         if (!dot) {
            *found = true;
            if (is_array) {
               bson_append_null (dst, key, klen);
            }
            continue;
         }
         if (BSON_ITER_HOLDS_DOCUMENT (&it) || BSON_ITER_HOLDS_ARRAY (&it)) {
            bson_t child_src, child_dst;
            bool arr = BSON_ITER_HOLDS_ARRAY (&it);
            simq_value_as_doc (bson_iter_value (&it), &child_src);
            simq_unset_in (&child_src, arr, dot + 1, &child_dst, found);
            if (arr) {
               bson_append_array (dst, key, klen, &child_dst);
            } else {
               bson_append_document (dst, key, klen, &child_dst);
            }
            bson_destroy (&child_dst);
            continue;
         }
      }
      bson_append_value (dst, key, klen, bson_iter_value (&it));
   }
}

void
simq_unset_path (const bson_t *src, const char *path, bson_t *dst, bool *found)
{
   *found = false;
   simq_unset_in (src, false, path, dst, found);
}

uint64_t
simq_rand_next (uint64_t *state)
{
   uint64_t x = *state ? *state : 0x9E3779B97F4A7C15ULL;
   x ^= x >> 12;
   x ^= x << 25;
   x ^= x >> 27;
   *state = x;
   return x * 0x2545F4914F6CDD1DULL;
}
