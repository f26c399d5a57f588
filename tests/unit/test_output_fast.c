/* passes: plain asan */
/* The output formatter's fast paths against the slow ways they replace: values read with libbson's inline accessors
 * (output_iter_value) against bson_iter_value, on every BSON type and on every one-byte corruption of a document;
 * the key order read in one pass with the first iterators kept; the word-at-a-time measuring and escaping against a
 * character at every position of a word; identifier keys against keyStrRegExp spelled out; quoting without escapes
 * against output_quoted; and sh.status's chunk-count rows against the same rows built field by field. */
#include <bson/bson.h>
#include <stdlib.h>
#include <string.h>

#include "commands/status_coll.h"
#include "shell/core/output.h"
#include "shell/core/output_int.h"
#include "shell/lib/bsonvalid.h"
#include "tests/unit/unit.h"

/* A document holding every type the formatter meets, the rarer ones included. */
static void
build_all_types (bson_t *doc)
{
   bson_t sub;
   bson_oid_t oid;
   bson_decimal128_t dec;
   const uint8_t bin[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

   bson_oid_init_from_string (&oid, "6b094ab2ce51e9526409f111");
   bson_decimal128_from_string ("-1.5E+3", &dec);
   bson_init (doc);
   BSON_APPEND_DOUBLE (doc, "d", -2.5);
   BSON_APPEND_UTF8 (doc, "s", "shard0001");
   bson_append_utf8 (doc, "nul", 3, "a\0b", 3);
   BSON_APPEND_UTF8 (doc, "empty", "");
   BSON_APPEND_DOCUMENT_BEGIN (doc, "doc", &sub);
   BSON_APPEND_INT32 (&sub, "x", 1);
   bson_append_document_end (doc, &sub);
   BSON_APPEND_ARRAY_BEGIN (doc, "arr", &sub);
   BSON_APPEND_INT32 (&sub, "0", 7);
   bson_append_array_end (doc, &sub);
   BSON_APPEND_BINARY (doc, "uuid", BSON_SUBTYPE_UUID, bin, 16);
   BSON_APPEND_BINARY (doc, "bin", BSON_SUBTYPE_BINARY, bin, 5);
   BSON_APPEND_BINARY (doc, "old", BSON_SUBTYPE_BINARY_DEPRECATED, bin, 6);
   BSON_APPEND_UNDEFINED (doc, "u");
   BSON_APPEND_OID (doc, "oid", &oid);
   BSON_APPEND_BOOL (doc, "t", true);
   BSON_APPEND_BOOL (doc, "f", false);
   BSON_APPEND_DATE_TIME (doc, "date", -1234567);
   BSON_APPEND_NULL (doc, "null");
   BSON_APPEND_REGEX (doc, "re", "^a/b", "im");
   BSON_APPEND_DBPOINTER (doc, "ptr", "db.coll", &oid);
   BSON_APPEND_CODE (doc, "code", "function () {}");
   BSON_APPEND_SYMBOL (doc, "sym", "sym");
   BSON_APPEND_DOCUMENT_BEGIN (doc, "scope", &sub);
   bson_append_document_end (doc, &sub);
   BSON_APPEND_INT32 (doc, "i32", -7);
   BSON_APPEND_TIMESTAMP (doc, "ts", 1795771058, 1003);
   BSON_APPEND_INT64 (doc, "i64", INT64_MIN);
   BSON_APPEND_DECIMAL128 (doc, "dec", &dec);
   BSON_APPEND_MINKEY (doc, "min");
   BSON_APPEND_MAXKEY (doc, "max");
   {
      bson_t scope = BSON_INITIALIZER;
      BSON_APPEND_INT32 (&scope, "n", 1);
      BSON_APPEND_CODE_WITH_SCOPE (doc, "cws", "f(n)", &scope);
      bson_destroy (&scope);
   }
}

/* Whether two values read from the same element agree in everything the formatter reads of them. */
static bool
same_value (const bson_value_t *a, const bson_value_t *b)
{
   if (a->value_type != b->value_type) {
      return false;
   }
   switch (a->value_type) {
   case BSON_TYPE_DOUBLE:
      return memcmp (&a->value.v_double, &b->value.v_double, sizeof (double)) == 0;
   case BSON_TYPE_UTF8:
      return a->value.v_utf8.len == b->value.v_utf8.len &&
             memcmp (a->value.v_utf8.str, b->value.v_utf8.str, a->value.v_utf8.len) == 0;
   case BSON_TYPE_DOCUMENT:
   case BSON_TYPE_ARRAY:
      return a->value.v_doc.data == b->value.v_doc.data && a->value.v_doc.data_len == b->value.v_doc.data_len;
   case BSON_TYPE_OID:
      return memcmp (&a->value.v_oid, &b->value.v_oid, sizeof a->value.v_oid) == 0;
   case BSON_TYPE_BOOL:
      return a->value.v_bool == b->value.v_bool;
   case BSON_TYPE_DATE_TIME:
      return a->value.v_datetime == b->value.v_datetime;
   case BSON_TYPE_INT32:
      return a->value.v_int32 == b->value.v_int32;
   case BSON_TYPE_INT64:
      return a->value.v_int64 == b->value.v_int64;
   case BSON_TYPE_TIMESTAMP:
      return a->value.v_timestamp.timestamp == b->value.v_timestamp.timestamp &&
             a->value.v_timestamp.increment == b->value.v_timestamp.increment;
   case BSON_TYPE_BINARY:
      return a->value.v_binary.subtype == b->value.v_binary.subtype &&
             a->value.v_binary.data_len == b->value.v_binary.data_len &&
             a->value.v_binary.data == b->value.v_binary.data;
   case BSON_TYPE_DECIMAL128:
      return a->value.v_decimal128.high == b->value.v_decimal128.high &&
             a->value.v_decimal128.low == b->value.v_decimal128.low;
   default:
      return true; /* the rarer types come from bson_iter_value on both sides */
   }
}

/* Walks doc (len bytes at data) with libbson's iterator, reading each value both with output_iter_value and with
 * bson_iter_value. Returns the number of elements read, or -1 when the two disagree. */
static int
compare_values (const uint8_t *data, uint32_t len)
{
   bson_t doc;
   bson_iter_t it;
   bson_value_t v;
   int n = 0;

   if (!bson_init_static (&doc, data, len) || !bson_iter_init (&it, &doc)) {
      return 0;
   }
   while (bson_iter_next (&it)) {
      output_iter_value (&it, &v);
      if (!same_value (bson_iter_value (&it), &v)) {
         return -1;
      }
      n++;
   }
   return n;
}

/* The keys of doc in the order output_key_order gives, joined by commas, read through its kept iterators (in
 * insertion order) or its slots. */
static char *
key_order_str (const bson_t *doc)
{
   output_saved_iter_t saved[OUTPUT_SAVED_ITERS];
   output_slot_t *order;
   size_t count;
   bson_string_t *s = bson_string_new (NULL);

   if (!output_key_order (doc, saved, &order, &count)) {
      bson_string_append (s, "corrupt");
      return bson_string_free (s, false);
   }
   if (order) {
      for (size_t i = 0; i < count; i++) {
         bson_iter_t at;
         if (bson_iter_init_from_data_at_offset (&at, bson_get_data (doc), doc->len, order[i].offset,
                                                 order[i].key_len)) {
            bson_string_append_printf (s, "%s%s", i ? "," : "", bson_iter_key (&at));
         }
      }
   } else {
      bson_iter_t it;
      for (size_t i = 0; i < count; i++) {
         if (i < OUTPUT_SAVED_ITERS) {
            it = saved[i].iter;
         } else if (!bson_iter_next (&it)) {
            break;
         }
         bson_string_append_printf (s, "%s%s", i ? "," : "", bson_iter_key (&it));
      }
   }
   bson_free (order);
   return bson_string_free (s, false);
}

static void
test_elems (void)
{
   bson_t doc;
   uint8_t *copy;
   uint32_t len;
   int agree = 0, cases = 0;

   build_all_types (&doc);
   len = doc.len;
   CHECK ("iter_value: every type read as bson_iter_value reads it",
          compare_values (bson_get_data (&doc), len) == (int) bson_count_keys (&doc));

   /* every byte of the document set to values that break lengths, types, terminators and booleans: whatever
    * libbson's iterator accepts, output_iter_value reads as bson_iter_value does (ASan checks the reads) */
   copy = bson_malloc (len);
   for (uint32_t i = 0; i < len; i++) {
      static const uint8_t values[] = { 0, 1, 2, 4, 5, 0x0b, 0x7f, 0x80, 0xff };
      for (size_t v = 0; v < sizeof values; v++) {
         bson_t c;
         memcpy (copy, bson_get_data (&doc), len);
         copy[i] = values[v];
         cases++;
         agree += compare_values (copy, len) >= 0;
         if (bson_init_static (&c, copy, len)) {
            bson_free (key_order_str (&c));
         }
      }
   }
   CHECK ("iter_value: every one-byte corruption read as bson_iter_value reads it", agree == cases);
   bson_free (copy);

   {
      /* the keys in insertion order, more of them than output_key_order keeps iterators for */
      bson_string_t *want = bson_string_new (NULL);
      bson_iter_t it;
      char *got = key_order_str (&doc);

      bson_iter_init (&it, &doc);
      for (int i = 0; bson_iter_next (&it); i++) {
         bson_string_append_printf (want, "%s%s", i ? "," : "", bson_iter_key (&it));
      }
      CHECK ("key order: no array-index key: insertion order, past the kept iterators", strcmp (got, want->str) == 0);
      bson_free (got);
      bson_string_free (want, true);
   }
   bson_destroy (&doc);
   {
      bson_t d = BSON_INITIALIZER;
      char *got;
      BSON_APPEND_INT32 (&d, "a", 1);
      BSON_APPEND_INT32 (&d, "10", 2);
      BSON_APPEND_INT32 (&d, "2", 3);
      BSON_APPEND_INT32 (&d, "01", 4);
      got = key_order_str (&d);
      CHECK ("key order: array-index keys first, ascending, then the rest in insertion order",
             strcmp (got, "2,10,a,01") == 0);
      bson_free (got);
      bson_destroy (&d);
   }
}

/* output_measure_n by its definition, one byte at a time. */
static void
measure_slow (const char *s, size_t len, size_t *units, size_t *width)
{
   size_t u = 0, w = 0;
   for (size_t i = 0; i < len; i++) {
      unsigned char c = (unsigned char) s[i];
      if (c == 0x1b && i + 3 < len && s[i + 1] == '[' && s[i + 2] >= '0' && s[i + 2] <= '9') {
         size_t q = i + 3;
         if (s[q] >= '0' && s[q] <= '9' && q + 1 < len) {
            q++;
         }
         if (s[q] == 'm') {
            i = q;
            continue;
         }
      }
      if ((c & 0xc0) == 0x80) {
         continue;
      }
      w++;
      u += c >= 0xf0 ? 2 : 1;
   }
   *units = u;
   *width = w;
}

static void
test_measure (void)
{
   static const char *const specials[] = { "\x1b[32m", "\xc3\xa9", "\xf0\x9f\x98\x80", "\x1b", "\x80", "\x7f" };
   int bad = 0, cases = 0;

   for (size_t sp = 0; sp < sizeof specials / sizeof specials[0]; sp++) {
      for (size_t pos = 0; pos < 20; pos++) {
         for (size_t total = pos; total < 26; total++) {
            char buf[64];
            size_t n = 0, u1, w1, u2, w2;
            memset (buf, 'a', pos);
            n = pos;
            memcpy (buf + n, specials[sp], strlen (specials[sp]));
            n += strlen (specials[sp]);
            memset (buf + n, 'b', total - pos);
            n += total - pos;
            output_measure_n (buf, n, &u1, &w1);
            measure_slow (buf, n, &u2, &w2);
            cases++;
            bad += u1 != u2 || w1 != w2;
         }
      }
   }
   CHECK ("measure: a colour code, a wide or an invalid byte at every position of a word counted", bad == 0 && cases);
}

/* keyStrRegExp, /^[a-zA-Z_][a-zA-Z_0-9]*$/, spelled out. */
static bool
identifier_slow (const char *k, size_t len)
{
   if (len == 0 || !((k[0] >= 'a' && k[0] <= 'z') || (k[0] >= 'A' && k[0] <= 'Z') || k[0] == '_')) {
      return false;
   }
   for (size_t i = 1; i < len; i++) {
      char c = k[i];
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) {
         return false;
      }
   }
   return true;
}

static void
test_identifier (void)
{
   int bad = 0;

   for (int first = 1; first < 256; first++) {
      for (int second = 1; second < 256; second++) {
         char k[4] = { (char) first, (char) second, 'x', 0 };
         bad += output_is_identifier_n (k, 3) != identifier_slow (k, 3);
         bad += output_is_identifier (k) != identifier_slow (k, 3);
      }
   }
   CHECK ("identifier: every pair of leading bytes classified as keyStrRegExp does", bad == 0);
   CHECK ("identifier: the empty key is quoted", !output_is_identifier_n ("", 0));
}

/* output_quoted on s, as a new string. */
static char *
quoted (const char *s, bool color)
{
   output_opts_t o = output_opts_default (OUTPUT_PRETTY, color);
   output_ctx_t ctx;
   bson_string_t *out = bson_string_new (NULL);

   memset (&ctx, 0, sizeof ctx);
   ctx.opts = &o;
   output_quoted (out, &ctx, s);
   return bson_string_free (out, false);
}

static void
test_escape_positions (void)
{
   int bad = 0;

   /* one byte b among plain letters, at every position of the first two words: escaped as it is alone */
   for (int b = 1; b < 256; b++) {
      char one[2] = { (char) b, 0 };
      char *alone = quoted (one, false);
      size_t alen = strlen (alone);
      for (size_t pos = 0; pos < 17; pos++) {
         char s[32], expected[64];
         char *got;
         memset (s, 'a', 24);
         s[pos] = (char) b;
         s[24] = 0;
         /* the quote alone chose, the letters before, b's escape, the letters after */
         bson_snprintf (expected, sizeof expected, "%c%.*s%.*s%.*s%c", alone[0], (int) pos, s, (int) (alen - 2),
                        alone + 1, (int) (23 - pos), s + pos + 1, alone[alen - 1]);
         got = quoted (s, false);
         bad += strcmp (got, expected) != 0;
         bson_free (got);
      }
      bson_free (alone);
   }
   CHECK ("escape: every byte at every position of a word escaped as it is alone", bad == 0);

   /* with ', " and ` all in the string the quote is ' and every ' is escaped, wherever it falls in a word */
   bad = 0;
   for (size_t pos = 0; pos < 17; pos++) {
      char s[32], expected[64];
      char *got;
      memset (s, 'a', 24);
      s[pos] = '\'';
      s[22] = '"';
      s[23] = '`';
      s[24] = 0;
      bson_snprintf (expected, sizeof expected, "'%.*s\\'%.*s'", (int) pos, s, (int) (23 - pos), s + pos + 1);
      got = quoted (s, false);
      bad += strcmp (got, expected) != 0;
      bson_free (got);
   }
   CHECK ("escape: a single quote at every position of a word escaped inside single quotes", bad == 0);
}

static void
test_quoted_plain (void)
{
   static const char *const texts[] = { "0", "-9223372036854775808", "6b094ab2ce51e9526409f111", "-1.5E+3", "NaN" };
   int bad = 0;

   for (int color = 0; color < 2; color++) {
      output_opts_t o = output_opts_default (OUTPUT_PRETTY, color != 0);
      output_ctx_t ctx;
      memset (&ctx, 0, sizeof ctx);
      ctx.opts = &o;
      for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
         bson_string_t *out = bson_string_new (NULL);
         char *slow = quoted (texts[i], color != 0);
         output_quoted_plain (out, &ctx, texts[i], strlen (texts[i]));
         bad += strcmp (out->str, slow) != 0;
         bson_string_free (out, true);
         bson_free (slow);
      }
   }
   CHECK ("quoted_plain: numbers and hex quoted as output_quoted quotes them, with and without colour", bad == 0);
}

/* sh.status's chunkMetadata from unordered aggregate groups: the rows (a string shard and an int32 count appended
 * directly, other values as values) must be the rows built field by field, in shard order. */
static void
test_status_counts (void)
{
   bson_t coll = BSON_INITIALIZER, counts = BSON_INITIALIZER, empty = BSON_INITIALIZER, colls = BSON_INITIALIZER;
   bson_t expected = BSON_INITIALIZER, got, arr, d;
   bson_iter_t it, f;
   const char *shards[] = { "shard0003", "shard0001",
                            "a-very-long-shard-name-that-does-not-fit-the-short-row-buffer-xyz", "shard0002" };
   status_coll_rows_t rows = { &counts, &empty, &empty };
   char k[16];
   const char *kk;

   BSON_APPEND_UTF8 (&coll, "_id", "db.c");
   for (uint32_t i = 0; i < 4; i++) {
      bson_uint32_to_string (i, &kk, k, sizeof k);
      BSON_APPEND_DOCUMENT_BEGIN (&counts, kk, &d);
      BSON_APPEND_UTF8 (&d, "_id", shards[i]);
      BSON_APPEND_INT32 (&d, "nChunks", (int32_t) (i + 1) * 7);
      bson_append_document_end (&counts, &d);
   }
   /* a group whose count is a long and one whose shard is null: built field by field */
   BSON_APPEND_DOCUMENT_BEGIN (&counts, "4", &d);
   BSON_APPEND_UTF8 (&d, "_id", "shard0000");
   BSON_APPEND_INT64 (&d, "nChunks", 5);
   bson_append_document_end (&counts, &d);
   BSON_APPEND_DOCUMENT_BEGIN (&counts, "5", &d);
   BSON_APPEND_NULL (&d, "_id");
   BSON_APPEND_INT32 (&d, "nChunks", 1);
   bson_append_document_end (&counts, &d);
   status_collection_render (&coll, &rows, false, &colls);

   /* null sorts before strings; strings by their bytes */
   BSON_APPEND_ARRAY_BEGIN (&expected, "chunkMetadata", &arr);
   {
      struct {
         const char *shard;
         int64_t n;
         bool is_long;
      } want[] = {
         { NULL, 1, false },         { "a-very-long-shard-name-that-does-not-fit-the-short-row-buffer-xyz", 21, false },
         { "shard0000", 5, true },   { "shard0001", 14, false },
         { "shard0002", 28, false }, { "shard0003", 7, false }
      };
      for (uint32_t i = 0; i < 6; i++) {
         bson_uint32_to_string (i, &kk, k, sizeof k);
         BSON_APPEND_DOCUMENT_BEGIN (&arr, kk, &d);
         if (want[i].shard)
            BSON_APPEND_UTF8 (&d, "shard", want[i].shard);
         else
            BSON_APPEND_NULL (&d, "shard");
         if (want[i].is_long)
            BSON_APPEND_INT64 (&d, "nChunks", want[i].n);
         else
            BSON_APPEND_INT32 (&d, "nChunks", (int32_t) want[i].n);
         bson_append_document_end (&arr, &d);
      }
   }
   bson_append_array_end (&expected, &arr);

   CHECK ("status counts: rendered", bson_iter_init_find (&it, &colls, "db.c") && BSON_ITER_HOLDS_DOCUMENT (&it) &&
                                        bson_iter_recurse (&it, &f) && bson_iter_find (&f, "chunkMetadata") &&
                                        BSON_ITER_HOLDS_ARRAY (&f));
   {
      const uint8_t *data;
      uint32_t len;
      bson_t want_arr;
      bson_iter_t w;
      bson_iter_array (&f, &len, &data);
      CHECK ("status counts: the array is valid BSON",
             bsonvalid_data (data, len) && bson_init_static (&got, data, len));
      bson_iter_init_find (&w, &expected, "chunkMetadata");
      bson_iter_array (&w, &len, &data);
      bson_init_static (&want_arr, data, len);
      CHECK ("status counts: the rows equal the rows built field by field, in shard order",
             bson_equal (&got, &want_arr));
   }
   bson_destroy (&coll);
   bson_destroy (&counts);
   bson_destroy (&empty);
   bson_destroy (&colls);
   bson_destroy (&expected);
}

int
main (void)
{
   test_elems ();
   test_measure ();
   test_identifier ();
   test_escape_positions ();
   test_quoted_plain ();
   test_status_counts ();
   UNIT_EXIT ();
}
