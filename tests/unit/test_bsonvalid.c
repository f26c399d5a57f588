/* passes: plain asan */
/* Unit tests for shell/lib/bsonvalid.c, the BSON check every server reply and every printed document passes: valid
 * documents of every type pass, damage at any level fails (including the two kinds libbson 1.23's bson_validate lets
 * through), and over a deterministic sweep of byte mutations nothing it accepts is refused by libbson's own check
 * or by libbson's JSON writer (which reads every element). */
#include <stdio.h>
#include <string.h>

#include <bson/bson.h>

#include "shell/core/output.h"
#include "shell/lib/bsonvalid.h"
#include "tests/unit/unit.h"

/* Every BSON type, nested twice, as canonical Extended JSON. */
static const char *const seeds[] = {
   "{\"d\": {\"$numberDouble\": \"1.5\"}, \"s\": \"caf\\u00e9 \\u65e5\\u672c\", \"o\": {\"a\": [1, {\"b\": null}]}, "
   "\"bin\": {\"$binary\": {\"base64\": \"AAEC\", \"subType\": \"00\"}}, \"u\": {\"$undefined\": true}, "
   "\"oid\": {\"$oid\": \"5f0000000000000000000001\"}, \"t\": true, \"dt\": {\"$date\": {\"$numberLong\": \"1\"}}, "
   "\"n\": null, \"re\": {\"$regularExpression\": {\"pattern\": \"^a.c$\", \"options\": \"i\"}}, "
   "\"ptr\": {\"$dbPointer\": {\"$ref\": \"db.c\", \"$id\": {\"$oid\": \"5f0000000000000000000002\"}}}, "
   "\"code\": {\"$code\": \"x = 1\"}, \"sym\": {\"$symbol\": \"sy\"}, "
   "\"cws\": {\"$code\": \"y\", \"$scope\": {\"k\": {\"$numberInt\": \"3\"}}}, \"i\": {\"$numberInt\": \"7\"}, "
   "\"ts\": {\"$timestamp\": {\"t\": 1, \"i\": 2}}, \"l\": {\"$numberLong\": \"9\"}, "
   "\"dec\": {\"$numberDecimal\": \"1.10\"}, \"mn\": {\"$minKey\": 1}, \"mx\": {\"$maxKey\": 1}}",
   "{\"ok\": {\"$numberDouble\": \"1.0\"}, \"$clusterTime\": {\"clusterTime\": {\"$timestamp\": {\"t\": 5, \"i\": 1}}, "
   "\"signature\": {\"hash\": {\"$binary\": {\"base64\": \"AAAAAAAAAAAAAAAAAAAAAAAAAAA=\", \"subType\": \"00\"}}, "
   "\"keyId\": {\"$numberLong\": \"0\"}}}, \"operationTime\": {\"$timestamp\": {\"t\": 5, \"i\": 1}}}",
   "{\"cursor\": {\"firstBatch\": [{\"_id\": \"shard01\", \"host\": \"rs1/h:1\"}, {\"_id\": \"shard02\", \"tags\": "
   "[\"Z\\u00fc\"]}], \"id\": {\"$numberLong\": \"0\"}, \"ns\": \"config.shards\"}, \"ok\": 1}",
};

static bson_t *
from_json (const char *json)
{
   bson_error_t error;
   bson_t *b = bson_new_from_json ((const uint8_t *) json, -1, &error);
   if (!b) {
      fprintf (stderr, "bad seed: %s\n", error.message);
   }
   return b;
}

static void
check_seeds (void)
{
   for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
      char name[64];
      bson_t *b = from_json (seeds[i]);
      bson_snprintf (name, sizeof name, "seed %zu is valid", i);
      CHECK (name, b && bsonvalid_bson (b) && bson_validate (b, BSON_VALIDATE_NONE, NULL));
      bson_destroy (b);
   }
   CHECK ("NULL is not valid", !bsonvalid_bson (NULL));
   CHECK ("four bytes are not a document", !bsonvalid_data ((const uint8_t *) "\x04\0\0\0", 4));
   CHECK ("the empty document is valid", bsonvalid_data ((const uint8_t *) "\x05\0\0\0\0", 5));
   CHECK ("a length prefix that is not the length", !bsonvalid_data ((const uint8_t *) "\x06\0\0\0\0", 5));
   CHECK ("no terminator", !bsonvalid_data ((const uint8_t *) "\x05\0\0\0\x01", 5));
}

/* {a: <bytes>} with the string's bytes as given (len of them). */
static void
string_doc (bson_t *b, const char *bytes, int len)
{
   bson_init (b);
   bson_append_utf8 (b, "a", 1, bytes, len);
}

static void
check_utf8 (void)
{
   bson_t b;
   string_doc (&b, "\xc3\xa9\xe6\x97\xa5", 5);
   CHECK ("utf8: two- and three-byte sequences", bsonvalid_bson (&b));
   bson_destroy (&b);
   string_doc (&b, "long enough ascii then \xf0\x9f\x98\x80", 27);
   CHECK ("utf8: a four-byte sequence after eight-byte words", bsonvalid_bson (&b));
   bson_destroy (&b);
   string_doc (&b, "a\0b", 3);
   CHECK ("utf8: a NUL inside a string value", bsonvalid_bson (&b));
   bson_destroy (&b);
   string_doc (&b, "abcdefgh\xff", 9);
   CHECK ("utf8: a byte that starts no sequence (after a word)", !bsonvalid_bson (&b));
   bson_destroy (&b);
   string_doc (&b, "\xc3", 1);
   CHECK ("utf8: a truncated sequence", !bsonvalid_bson (&b));
   bson_destroy (&b);
   string_doc (&b, "\xed\xa0\x80", 3);
   CHECK ("utf8: a surrogate", !bsonvalid_bson (&b));
   bson_destroy (&b);

   bson_init (&b);
   bson_append_int32 (&b, "k\xff", 2, 1);
   CHECK ("utf8: a key that is not UTF-8", !bsonvalid_bson (&b) && !bson_validate (&b, BSON_VALIDATE_NONE, NULL));
   bson_destroy (&b);
   bson_init (&b);
   bson_append_int32 (&b, "", 0, 1);
   CHECK ("an empty key", bsonvalid_bson (&b));
   bson_destroy (&b);

   bson_init (&b);
   bson_append_code (&b, "c", 1, "\xff");
   CHECK ("utf8: code that is not UTF-8", !bsonvalid_bson (&b));
   bson_destroy (&b);
   bson_init (&b);
   bson_append_symbol (&b, "s", 1, "\xfe", 1);
   CHECK ("utf8: a symbol that is not UTF-8", !bsonvalid_bson (&b));
   bson_destroy (&b);
   bson_init (&b);
   bson_append_regex (&b, "r", 1, "\xc0\xaf", "i");
   CHECK ("utf8: a regex that is not UTF-8 (overlong)", !bsonvalid_bson (&b));
   bson_destroy (&b);
}

/* {[a: "\xff\xfe",] d: {x: 1}} with the byte from_end bytes before its end set to b; *len is its length. */
static uint8_t *
damaged (bool bad_string, size_t from_end, uint8_t b, size_t *len)
{
   bson_t doc, sub;
   uint8_t *copy;

   bson_init (&doc);
   if (bad_string) {
      bson_append_utf8 (&doc, "a", 1, "\xff\xfe", 2);
   }
   BSON_APPEND_DOCUMENT_BEGIN (&doc, "d", &sub);
   BSON_APPEND_INT32 (&sub, "x", 1);
   bson_append_document_end (&doc, &sub);
   *len = doc.len;
   copy = bson_malloc (doc.len);
   memcpy (copy, bson_get_data (&doc), doc.len);
   copy[doc.len - from_end] = b;
   bson_destroy (&doc);
   return copy;
}

/* The two kinds of damage libbson 1.23's bson_validate lets through (see bsonvalid.h). */
static void
check_holes (void)
{
   bson_t view;
   output_opts_t o = output_opts_default (OUTPUT_PRETTY, false);
   size_t len;
   char *s;
   /* x's type (before "x\0", its int32 and the two terminators) made 0x33: after the bad string libbson stops
    * looking at the document */
   uint8_t *copy = damaged (true, 9, 0x33, &len);

   CHECK ("hole: a broken element after a string that is not UTF-8", !bsonvalid_data (copy, len));
   bson_init_static (&view, copy, len);
   s = output_format_doc (&view, &o);
   CHECK_STR ("hole: the printer shows it as invalid", OUTPUT_INVALID_BSON, s);
   bson_free (s);
   bson_free (copy);

   /* the nested document's terminator made 1: it still fits its parent */
   copy = damaged (false, 2, 0x01, &len);
   CHECK ("hole: a nested document without its terminator", !bsonvalid_data (copy, len));
   bson_free (copy);
}

static void
check_depth (void)
{
   /* a document holding n nested ones, {a: {a: ... {}}}: each level around the innermost ({}, 5 bytes) adds its length,
    * its element's type and "a\0" (7 bytes before the next level) and its terminator (after it) */
   for (int n = BSONVALID_MAX_DEPTH - 1; n <= BSONVALID_MAX_DEPTH; n++) {
      size_t len = 5 + 8 * (size_t) n, at = 0;
      uint8_t *d = bson_malloc0 (len);
      char name[64];
      for (int i = 0; i < n; i++) {
         uint32_t l = (uint32_t) (len - 8 * (size_t) i);
         d[at] = (uint8_t) l;
         d[at + 1] = (uint8_t) (l >> 8);
         d[at + 4] = BSON_TYPE_DOCUMENT;
         d[at + 5] = 'a';
         at += 7;
      }
      d[at] = 5;
      bson_snprintf (name, sizeof name, "depth: %d levels %s", n + 1,
                     n + 1 <= BSONVALID_MAX_DEPTH ? "pass" : "are too deep");
      CHECK (name, bsonvalid_data (d, len) == (n + 1 <= BSONVALID_MAX_DEPTH));
      bson_free (d);
   }
}

/* Every byte of every seed replaced by a few values (a replay: no randomness). Whatever bsonvalid accepts, libbson's
 * bson_validate accepts and libbson's JSON writer reads to the end. */
static void
check_mutations (void)
{
   static const int deltas[] = { 0x00, 0xff, 0x7f, 0x80, 0x10, 0x03, 0x04, 0x05, 0x02, 0x0c };
   size_t tried = 0, accepted = 0, looser = 0, unreadable = 0, stricter = 0;

   for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
      bson_t *b = from_json (seeds[i]);
      uint8_t *copy;
      if (!b) {
         looser++;
         continue;
      }
      copy = bson_malloc (b->len);
      for (size_t at = 0; at < b->len; at++) {
         for (size_t k = 0; k < sizeof deltas / sizeof deltas[0]; k++) {
            bson_t view;
            bool ours, theirs;
            memcpy (copy, bson_get_data (b), b->len);
            if (copy[at] == (uint8_t) deltas[k]) {
               continue;
            }
            copy[at] = (uint8_t) deltas[k];
            tried++;
            ours = bsonvalid_data (copy, b->len);
            theirs = bson_init_static (&view, copy, b->len) && bson_validate (&view, BSON_VALIDATE_NONE, NULL);
            if (ours) {
               char *json = bson_as_canonical_extended_json (&view, NULL);
               accepted++;
               looser += !theirs;
               unreadable += json == NULL;
               bson_free (json);
            } else if (theirs) {
               stricter++;
            }
         }
      }
      bson_free (copy);
      bson_destroy (b);
   }
   printf ("# mutations: %zu tried, %zu accepted, %zu refused where bson_validate accepts\n", tried, accepted,
           stricter);
   CHECK ("mutations: some tried", tried > 1000);
   CHECK ("mutations: some still valid (values changed in place)", accepted > 50);
   CHECK ("mutations: nothing accepted that bson_validate refuses", looser == 0);
   CHECK ("mutations: everything accepted reads to the end as JSON", unreadable == 0);
}

int
main (void)
{
   check_seeds ();
   check_utf8 ();
   check_holes ();
   check_depth ();
   check_mutations ();
   UNIT_EXIT ();
}
