/* Unit tests for the simulator's query engine (tests/shardsim/query/simq*.c): value ordering, matching, projection,
 * sorting, updates, upsert seeds and aggregation, table-driven with documents written as relaxed extended JSON and
 * results compared as canonical extended JSON (so numeric types must match exactly). Includes the exact pipelines
 * mongosh's sh.status() and getShardDistribution() send (mongosh-sh-helpers.md §4.2-4.5, §5.1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bson/bson.h>

#include "tests/shardsim/query/simq.h"
#include "tests/unit/unit.h"

/* ---- helpers ---- */

/* libbson's JSON reader takes "$type", "$regex" and "$options" keys for legacy binary / regex syntax, so the
 * tables spell those operators "$xtype", "$xregex", "$xoptions" and this copy renames them. */
static void
rename_xtype (const bson_t *src, bson_t *dst)
{
   bson_iter_t it;
   bson_iter_init (&it, src);
   while (bson_iter_next (&it)) {
      const char *key = bson_iter_key (&it);
      if (strcmp (key, "$xtype") == 0 || strcmp (key, "$xregex") == 0 || strcmp (key, "$xoptions") == 0) {
         key = strcmp (key, "$xtype") == 0 ? "$type" : (strcmp (key, "$xregex") == 0 ? "$regex" : "$options");
      }
      if (BSON_ITER_HOLDS_DOCUMENT (&it) || BSON_ITER_HOLDS_ARRAY (&it)) {
         const uint8_t *data;
         uint32_t len;
         bson_t sub, child;
         bson_iter_document (&it, &len, &data);
         if (BSON_ITER_HOLDS_ARRAY (&it)) {
            bson_iter_array (&it, &len, &data);
         }
         bson_init_static (&sub, data, len);
         if (BSON_ITER_HOLDS_ARRAY (&it)) {
            bson_append_array_begin (dst, key, -1, &child);
            rename_xtype (&sub, &child);
            bson_append_array_end (dst, &child);
         } else {
            bson_append_document_begin (dst, key, -1, &child);
            rename_xtype (&sub, &child);
            bson_append_document_end (dst, &child);
         }
      } else {
         bson_append_value (dst, key, -1, bson_iter_value (&it));
      }
   }
}

static bson_t *
json (const char *s)
{
   bson_error_t error;
   bson_t *b = bson_new_from_json ((const uint8_t *) s, -1, &error), *r;
   if (!b) {
      fprintf (stderr, "bad test JSON: %s: %s\n", s, error.message);
      abort ();
   }
   r = bson_new ();
   rename_xtype (b, r);
   bson_destroy (b);
   return r;
}

/* Parses {"a": [ ...docs ]} (given as the array text) into docs. */
static void
docs_from_json (const char *array_json, simq_docs_t *docs)
{
   char *wrapped = bson_strdup_printf ("{\"a\": %s}", array_json);
   bson_t *w = json (wrapped);
   bson_iter_t it, ai;
   simq_docs_init (docs);
   if (bson_iter_init_find (&it, w, "a") && bson_iter_recurse (&it, &ai)) {
      while (bson_iter_next (&ai)) {
         const uint8_t *data;
         uint32_t len;
         bson_t sub;
         bson_iter_document (&ai, &len, &data);
         bson_init_static (&sub, data, len);
         simq_docs_push_copy (docs, &sub);
      }
   }
   bson_destroy (w);
   bson_free (wrapped);
}

/* The array as canonical JSON: [ {...}, {...} ]. Caller frees. */
static char *
docs_canonical (const simq_docs_t *docs)
{
   bson_t wrap = BSON_INITIALIZER, arr;
   char key[24], *s;
   BSON_APPEND_ARRAY_BEGIN (&wrap, "r", &arr);
   for (size_t i = 0; i < docs->n; i++) {
      snprintf (key, sizeof key, "%zu", i);
      bson_append_document (&arr, key, -1, docs->v[i]);
   }
   bson_append_array_end (&wrap, &arr);
   s = bson_as_canonical_extended_json (&wrap, NULL);
   bson_destroy (&wrap);
   return s;
}

static char *
expected_canonical (const char *array_json)
{
   simq_docs_t d;
   char *s;
   docs_from_json (array_json, &d);
   s = docs_canonical (&d);
   simq_docs_clear (&d);
   return s;
}

static char *
doc_canonical_json (const char *doc_json)
{
   bson_t *b = json (doc_json);
   char *s = bson_as_canonical_extended_json (b, NULL);
   bson_destroy (b);
   return s;
}

/* ---- value ordering ---- */

static void
test_compare (void)
{
   static const struct {
      const char *a, *b;
      int sign;
   } cases[] = {
      { "{\"v\": {\"$minKey\": 1}}", "{\"v\": null}", -1 },
      { "{\"v\": null}", "{\"v\": 0}", -1 },
      { "{\"v\": 1}", "{\"v\": {\"$numberLong\": \"1\"}}", 0 },
      { "{\"v\": 1}", "{\"v\": 1.0}", 0 },
      { "{\"v\": 2}", "{\"v\": 1.5}", 1 },
      { "{\"v\": {\"$numberDecimal\": \"1.5\"}}", "{\"v\": 1.5}", 0 },
      { "{\"v\": {\"$numberDecimal\": \"2\"}}", "{\"v\": 1}", 1 },
      { "{\"v\": {\"$numberLong\": \"9007199254740993\"}}", "{\"v\": 9007199254740992.0}", 1 },
      { "{\"v\": {\"$numberDouble\": \"NaN\"}}", "{\"v\": -1e300}", -1 },
      { "{\"v\": 100}", "{\"v\": \"a\"}", -1 },
      { "{\"v\": \"a\"}", "{\"v\": \"b\"}", -1 },
      { "{\"v\": \"ab\"}", "{\"v\": \"a\"}", 1 },
      { "{\"v\": \"z\"}", "{\"v\": {}}", -1 },
      { "{\"v\": {\"a\": 1}}", "{\"v\": {\"a\": 2}}", -1 },
      { "{\"v\": {\"a\": 1}}", "{\"v\": {\"b\": 0}}", -1 },
      { "{\"v\": {\"a\": 1}}", "{\"v\": {\"a\": 1, \"b\": 1}}", -1 },
      { "{\"v\": {}}", "{\"v\": []}", -1 },
      { "{\"v\": [1, 2]}", "{\"v\": [1, 3]}", -1 },
      { "{\"v\": []}", "{\"v\": {\"$binary\": {\"base64\": \"\", \"subType\": \"00\"}}}", -1 },
      { "{\"v\": {\"$binary\": {\"base64\": \"AAAA\", \"subType\": \"00\"}}}",
        "{\"v\": {\"$oid\": \"000000000000000000000000\"}}", -1 },
      { "{\"v\": {\"$oid\": \"000000000000000000000001\"}}", "{\"v\": false}", -1 },
      { "{\"v\": false}", "{\"v\": true}", -1 },
      { "{\"v\": true}", "{\"v\": {\"$date\": {\"$numberLong\": \"0\"}}}", -1 },
      { "{\"v\": {\"$date\": {\"$numberLong\": \"5\"}}}", "{\"v\": {\"$timestamp\": {\"t\": 0, \"i\": 0}}}", -1 },
      { "{\"v\": {\"$timestamp\": {\"t\": 1, \"i\": 2}}}", "{\"v\": {\"$timestamp\": {\"t\": 1, \"i\": 3}}}", -1 },
      { "{\"v\": {\"$timestamp\": {\"t\": 1, \"i\": 2}}}",
        "{\"v\": {\"$regularExpression\": {\"pattern\": \"a\", \"options\": \"\"}}}", -1 },
      { "{\"v\": {\"$regularExpression\": {\"pattern\": \"a\", \"options\": \"\"}}}", "{\"v\": {\"$maxKey\": 1}}", -1 },
   };
   for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      bson_t *a = json (cases[i].a), *b = json (cases[i].b);
      bson_iter_t ia, ib;
      int c, c2;
      char name[64];
      bson_iter_init_find (&ia, a, "v");
      bson_iter_init_find (&ib, b, "v");
      c = order_values (bson_iter_value (&ia), bson_iter_value (&ib));
      c2 = order_values (bson_iter_value (&ib), bson_iter_value (&ia));
      snprintf (name, sizeof name, "compare %zu", i);
      if ((c < 0 ? -1 : c > 0) == cases[i].sign && (c2 < 0 ? -1 : c2 > 0) == -cases[i].sign) {
         UNIT_PASS (name);
      } else {
         UNIT_FAIL (name, "%s vs %s gave %d / %d, want sign %d", cases[i].a, cases[i].b, c, c2, cases[i].sign);
      }
      bson_destroy (a);
      bson_destroy (b);
   }
}

static void
test_get_path (void)
{
   bson_t *d = json ("{\"a\": {\"b\": {\"c\": 5}}, \"arr\": [10, 20]}");
   bson_value_t v;
   CHECK ("get_path nested", simq_get_path (d, "a.b.c", &v) && v.value_type == BSON_TYPE_INT32 && v.value.v_int32 == 5);
   CHECK ("get_path array index", simq_get_path (d, "arr.1", &v) && v.value.v_int32 == 20);
   CHECK ("get_path missing", !simq_get_path (d, "a.x", &v));
   bson_destroy (d);
   CHECK_STR ("code name 2", "BadValue", simq_code_name (2));
   CHECK_STR ("code name 168", "InvalidPipelineOperator", simq_code_name (168));
   CHECK_STR ("code name 40324", "Location40324", simq_code_name (40324));
   CHECK_STR ("code name 31254", "Location31254", simq_code_name (31254));
}

/* ---- matching ---- */

static const struct {
   const char *filter, *doc;
   bool match;
} match_cases[] = {
   /* equality, embedded documents, arrays */
   { "{}", "{\"a\": 1}", true },
   { "{\"a\": 1}", "{\"a\": 1}", true },
   { "{\"a\": 1}", "{\"a\": 1.0}", true },
   { "{\"a\": 1}", "{\"a\": {\"$numberLong\": \"1\"}}", true },
   { "{\"a\": 1}", "{\"a\": \"1\"}", false },
   { "{\"a\": 1}", "{\"b\": 1}", false },
   { "{\"tags\": \"x\"}", "{\"tags\": [\"y\", \"x\"]}", true },
   { "{\"tags\": \"z\"}", "{\"tags\": [\"y\", \"x\"]}", false },
   { "{\"tags\": [\"y\", \"x\"]}", "{\"tags\": [\"y\", \"x\"]}", true },
   { "{\"tags\": [\"x\", \"y\"]}", "{\"tags\": [\"y\", \"x\"]}", false },
   { "{\"tags\": [\"x\"]}", "{\"tags\": [[\"x\"], \"y\"]}", true },
   { "{\"a\": {\"b\": 1}}", "{\"a\": {\"b\": 1}}", true },
   { "{\"a\": {\"b\": 1}}", "{\"a\": {\"b\": 1, \"c\": 2}}", false },
   { "{\"a.b\": 1}", "{\"a\": {\"b\": 1, \"c\": 2}}", true },
   { "{\"a.b\": 1}", "{\"a\": [{\"b\": 2}, {\"b\": 1}]}", true },
   { "{\"a.b\": 3}", "{\"a\": [{\"b\": 2}, {\"b\": [1, 3]}]}", true },
   { "{\"a.1\": 20}", "{\"a\": [10, 20]}", true },
   { "{\"a.1.b\": 2}", "{\"a\": [{\"b\": 1}, {\"b\": 2}]}", true },
   { "{\"min.uid\": {\"$minKey\": 1}}", "{\"min\": {\"uid\": {\"$minKey\": 1}}}", true },
   /* null and missing */
   { "{\"a\": null}", "{\"b\": 1}", true },
   { "{\"a\": null}", "{\"a\": null}", true },
   { "{\"a\": null}", "{\"a\": 0}", false },
   { "{\"a.b\": null}", "{\"a\": [{\"b\": 1}, {\"c\": 1}]}", true },
   { "{\"a\": null}", "{\"a\": [1, null]}", true },
   { "{\"a\": {\"$ne\": null}}", "{\"b\": 1}", false },
   { "{\"dropped\": {\"$ne\": true}, \"unsplittable\": {\"$ne\": true}}", "{\"_id\": \"app.users\"}", true },
   { "{\"dropped\": {\"$ne\": true}}", "{\"dropped\": true}", false },
   /* comparisons and type bracketing */
   { "{\"a\": {\"$gt\": 5}}", "{\"a\": 6}", true },
   { "{\"a\": {\"$gt\": 5}}", "{\"a\": 5}", false },
   { "{\"a\": {\"$gte\": 5}}", "{\"a\": 5.0}", true },
   { "{\"a\": {\"$lt\": 5}}", "{\"a\": \"abc\"}", false },
   { "{\"a\": {\"$gt\": 5}}", "{\"a\": \"abc\"}", false },
   { "{\"a\": {\"$lte\": 5}}", "{\"a\": [9, 4]}", true },
   { "{\"a\": {\"$gt\": 5, \"$lt\": 8}}", "{\"a\": [9, 4]}", true },
   { "{\"a\": {\"$elemMatch\": {\"$gt\": 5, \"$lt\": 8}}}", "{\"a\": [9, 4]}", false },
   { "{\"a\": {\"$elemMatch\": {\"$gt\": 5, \"$lt\": 8}}}", "{\"a\": [9, 6]}", true },
   { "{\"a\": {\"$gt\": {\"$minKey\": 1}}}", "{\"a\": \"x\"}", true },
   { "{\"a\": {\"$lt\": {\"$maxKey\": 1}}}", "{\"a\": {\"z\": 1}}", true },
   { "{\"a\": {\"$gte\": null}}", "{\"b\": 1}", true },
   { "{\"a\": {\"$gt\": null}}", "{\"b\": 1}", false },
   { "{\"a\": {\"$gt\": {\"$numberDouble\": \"NaN\"}}}", "{\"a\": 1}", false },
   { "{\"a\": {\"$lt\": 5}}", "{\"a\": {\"$numberDouble\": \"NaN\"}}", false },
   { "{\"a\": {\"$eq\": {\"$numberDouble\": \"NaN\"}}}", "{\"a\": {\"$numberDouble\": \"NaN\"}}", true },
   { "{\"a\": {\"$lt\": \"b\"}}", "{\"a\": \"abc\"}", true },
   { "{\"a\": {\"$gt\": {\"$numberDecimal\": \"1.5\"}}}", "{\"a\": 2}", true },
   { "{\"ping\": {\"$gt\": {\"$date\": \"2024-01-01T00:00:00Z\"}}}",
     "{\"ping\": {\"$date\": \"2024-01-02T00:00:00Z\"}}", true },
   { "{\"ping\": {\"$gt\": {\"$date\": \"2024-01-01T00:00:00Z\"}}}", "{\"ping\": 5}", false },
   { "{\"a\": {\"$eq\": [1, 2]}}", "{\"a\": [1, 2]}", true },
   { "{\"state\": {\"$eq\": 2}}", "{\"state\": 2}", true },
   /* $in $nin $ne */
   { "{\"a\": {\"$in\": [1, 2]}}", "{\"a\": 2}", true },
   { "{\"a\": {\"$in\": [1, 2]}}", "{\"a\": [5, 1]}", true },
   { "{\"a\": {\"$in\": [1, 2]}}", "{\"a\": 3}", false },
   { "{\"a\": {\"$in\": [null]}}", "{\"b\": 3}", true },
   { "{\"a\": {\"$in\": [{\"$regularExpression\": {\"pattern\": \"^x\", \"options\": \"\"}}]}}", "{\"a\": \"xyz\"}",
     true },
   { "{\"a\": {\"$nin\": [1, 2]}}", "{\"a\": 3}", true },
   { "{\"a\": {\"$nin\": [1, 2]}}", "{\"a\": [3, 2]}", false },
   { "{\"a\": {\"$ne\": 1}}", "{\"a\": [2, 1]}", false },
   { "{\"a\": {\"$ne\": 1}}", "{\"a\": 2}", true },
   /* $exists */
   { "{\"details.errmsg\": {\"$exists\": false}}", "{\"details\": {\"note\": \"success\"}}", true },
   { "{\"details.errmsg\": {\"$exists\": true}}", "{\"details\": {\"errmsg\": \"boom\"}}", true },
   { "{\"a\": {\"$exists\": true}}", "{\"a\": null}", true },
   { "{\"a.b\": {\"$exists\": false}}", "{\"a\": [{\"c\": 1}]}", true },
   { "{\"a.b\": {\"$exists\": true}}", "{\"a\": [{\"c\": 1}, {\"b\": 1}]}", true },
   { "{\"a\": {\"$exists\": 0}}", "{\"b\": 1}", true },
   /* $regex */
   { "{\"s\": {\"$xregex\": \"^ab\"}}", "{\"s\": \"abc\"}", true },
   { "{\"s\": {\"$xregex\": \"^AB\", \"$xoptions\": \"i\"}}", "{\"s\": \"abc\"}", true },
   { "{\"s\": {\"$xregex\": \"^AB\"}}", "{\"s\": \"abc\"}", false },
   { "{\"s\": {\"$regularExpression\": {\"pattern\": \"c$\", \"options\": \"\"}}}", "{\"s\": \"abc\"}", true },
   { "{\"s\": {\"$xregex\": \"\\\\d+\"}}", "{\"s\": \"ab12\"}", true },
   { "{\"s\": {\"$xregex\": \"^[\\\\d]+$\"}}", "{\"s\": \"ab12\"}", false },
   { "{\"s\": {\"$xregex\": \"^b\", \"$xoptions\": \"m\"}}", "{\"s\": \"a\\nb\"}", true },
   { "{\"s\": {\"$xregex\": \"^b\"}}", "{\"s\": \"a\\nb\"}", false },
   { "{\"s\": {\"$xregex\": \"a b # comment\", \"$xoptions\": \"x\"}}", "{\"s\": \"xaby\"}", true },
   { "{\"s\": {\"$xregex\": \"a.b\", \"$xoptions\": \"s\"}}", "{\"s\": \"a\\nb\"}", true },
   { "{\"s\": {\"$xregex\": \"\\\\w+\\\\s\\\\w+\"}}", "{\"s\": \"ab cd\"}", true },
   { "{\"s\": {\"$xregex\": \"x\"}}", "{\"s\": 5}", false },
   { "{\"s\": {\"$xregex\": \"^a\"}}", "{\"s\": [\"b\", \"ab\"]}", true },
   { "{\"_id\": {\"$xregex\": \"^app\\\\.\"}}", "{\"_id\": \"app.users\"}", true },
   { "{\"s\": {\"$not\": {\"$regularExpression\": {\"pattern\": \"^a\", \"options\": \"\"}}}}", "{\"s\": \"ba\"}",
     true },
   /* $type */
   { "{\"a\": {\"$xtype\": \"string\"}}", "{\"a\": \"x\"}", true },
   { "{\"a\": {\"$xtype\": 2}}", "{\"a\": \"x\"}", true },
   { "{\"a\": {\"$xtype\": \"number\"}}", "{\"a\": 1.5}", true },
   { "{\"a\": {\"$xtype\": \"number\"}}", "{\"a\": \"1\"}", false },
   { "{\"a\": {\"$xtype\": \"array\"}}", "{\"a\": []}", true },
   { "{\"a\": {\"$xtype\": \"string\"}}", "{\"a\": [1, \"x\"]}", true },
   { "{\"a\": {\"$xtype\": [\"int\", \"long\"]}}", "{\"a\": {\"$numberLong\": \"5\"}}", true },
   { "{\"a\": {\"$xtype\": \"minKey\"}}", "{\"a\": {\"$minKey\": 1}}", true },
   { "{\"a\": {\"$xtype\": \"null\"}}", "{\"b\": 1}", false },
   { "{\"a\": {\"$xtype\": 16}}", "{\"a\": 1}", true },
   { "{\"a\": {\"$xtype\": \"objectId\"}}", "{\"a\": {\"$oid\": \"000000000000000000000001\"}}", true },
   /* $size $all $elemMatch $mod */
   { "{\"a\": {\"$size\": 2}}", "{\"a\": [1, 2]}", true },
   { "{\"a\": {\"$size\": 1}}", "{\"a\": [1, 2]}", false },
   { "{\"a\": {\"$size\": 0}}", "{\"a\": []}", true },
   { "{\"a\": {\"$all\": [1, 2]}}", "{\"a\": [2, 3, 1]}", true },
   { "{\"a\": {\"$all\": [1, 4]}}", "{\"a\": [2, 3, 1]}", false },
   { "{\"a\": {\"$all\": []}}", "{\"a\": [1]}", false },
   { "{\"a\": {\"$all\": [{\"$elemMatch\": {\"b\": 1}}]}}", "{\"a\": [{\"b\": 1}]}", true },
   { "{\"a\": {\"$elemMatch\": {\"b\": 1, \"c\": 2}}}", "{\"a\": [{\"b\": 1}, {\"c\": 2}]}", false },
   { "{\"a\": {\"$elemMatch\": {\"b\": 1, \"c\": 2}}}", "{\"a\": [{\"b\": 1, \"c\": 2}]}", true },
   { "{\"a\": {\"$elemMatch\": {\"$or\": [{\"b\": 5}, {\"c\": 2}]}}}", "{\"a\": [{\"b\": 1, \"c\": 2}]}", true },
   { "{\"a\": {\"$elemMatch\": {\"b\": 1}}}", "{\"a\": {\"b\": 1}}", false },
   { "{\"a\": {\"$mod\": [4, 1]}}", "{\"a\": 9}", true },
   { "{\"a\": {\"$mod\": [4, 1]}}", "{\"a\": 10}", false },
   /* logical */
   { "{\"$and\": [{\"a\": 1}, {\"b\": 2}]}", "{\"a\": 1, \"b\": 2}", true },
   { "{\"$and\": [{\"a\": 1}, {\"b\": 3}]}", "{\"a\": 1, \"b\": 2}", false },
   { "{\"$or\": [{\"a\": 5}, {\"b\": 2}]}", "{\"a\": 1, \"b\": 2}", true },
   { "{\"$nor\": [{\"a\": 5}, {\"b\": 3}]}", "{\"a\": 1, \"b\": 2}", true },
   { "{\"$nor\": [{\"a\": 1}]}", "{\"a\": 1, \"b\": 2}", false },
   { "{\"a\": {\"$not\": {\"$gt\": 5}}}", "{\"a\": 3}", true },
   { "{\"a\": {\"$not\": {\"$gt\": 5}}}", "{\"b\": 3}", true },
   { "{\"a\": {\"$not\": {\"$gt\": 5}}}", "{\"a\": 7}", false },
   { "{\"what\": \"moveChunk.from\", \"$or\": [{\"details.errmsg\": {\"$exists\": true}}, {\"details.note\": {\"$ne\": "
     "\"success\"}}]}",
     "{\"what\": \"moveChunk.from\", \"details\": {\"note\": \"aborted\"}}", true },
   /* $expr */
   { "{\"$expr\": {\"$gt\": [\"$a\", \"$b\"]}}", "{\"a\": 5, \"b\": 3}", true },
   { "{\"$expr\": {\"$gt\": [\"$a\", \"$b\"]}}", "{\"a\": 1, \"b\": 3}", false },
   { "{\"$expr\": {\"$eq\": [{\"$toHashedIndexKey\": \"$x\"}, {\"$numberLong\": \"-944302157085130861\"}]}}",
     "{\"x\": 42}", true },
   { "{\"$comment\": \"hi\", \"a\": 1}", "{\"a\": 1}", true },
};

static void
test_match (void)
{
   for (size_t i = 0; i < sizeof match_cases / sizeof match_cases[0]; i++) {
      bson_t *f = json (match_cases[i].filter), *d = json (match_cases[i].doc);
      bson_error_t error;
      bool m = false, ok = simq_match (d, f, &m, &error);
      char name[64];
      snprintf (name, sizeof name, "match %zu", i);
      if (!ok) {
         UNIT_FAIL (name, "%s on %s failed: %s", match_cases[i].filter, match_cases[i].doc, error.message);
      } else if (m != match_cases[i].match) {
         UNIT_FAIL (name, "%s on %s gave %d", match_cases[i].filter, match_cases[i].doc, (int) m);
      } else {
         UNIT_PASS (name);
      }
      bson_destroy (f);
      bson_destroy (d);
   }
}

static const struct {
   const char *filter;
   int code;
} match_errors[] = {
   { "{\"a\": {\"$foo\": 1}}", 2 },
   { "{\"$foo\": 1}", 2 },
   { "{\"$and\": []}", 2 },
   { "{\"$or\": {\"a\": 1}}", 2 },
   { "{\"$or\": [1]}", 2 },
   { "{\"a\": {\"$in\": 5}}", 2 },
   { "{\"a\": {\"$xoptions\": \"i\"}}", 2 },
   { "{\"a\": {\"$xregex\": \"(\"}}", 51091 },
   { "{\"a\": {\"$xregex\": \"a\", \"$xoptions\": \"q\"}}", 51108 },
   { "{\"a\": {\"$xtype\": \"nope\"}}", 2 },
   { "{\"a\": {\"$xtype\": 100}}", 2 },
   { "{\"a\": {\"$size\": 1.5}}", 2 },
   { "{\"a\": {\"$mod\": [0, 1]}}", 2 },
   { "{\"a\": {\"$not\": {}}}", 2 },
   { "{\"a\": {\"$ne\": {\"$regularExpression\": {\"pattern\": \"a\", \"options\": \"\"}}}}", 2 },
   { "{\"$expr\": {\"$bogus\": 1}}", 168 },
   { "{\"b\": 1, \"a\": {\"$where\": 1}}", 2 },
};

static void
test_match_errors (void)
{
   bson_t *d = json ("{\"a\": 1, \"b\": 2}");
   for (size_t i = 0; i < sizeof match_errors / sizeof match_errors[0]; i++) {
      bson_t *f = json (match_errors[i].filter);
      bson_error_t error = { 0 };
      bool m, ok = simq_match (d, f, &m, &error);
      char name[64];
      snprintf (name, sizeof name, "match error %d #%zu", match_errors[i].code, i);
      if (ok || error.domain != SIMQ_ERROR_DOMAIN || (int) error.code != match_errors[i].code) {
         UNIT_FAIL (name, "%s: ok=%d code=%u (%s)", match_errors[i].filter, (int) ok, error.code, error.message);
      } else {
         UNIT_PASS (name);
      }
      bson_destroy (f);
   }
   bson_destroy (d);
}

/* ---- projection ---- */

static const struct {
   const char *doc, *proj, *expected;
   int code;
} project_cases[] = {
   { "{\"_id\": 1, \"a\": 1, \"b\": 2}", "{\"a\": 1}", "{\"_id\": 1, \"a\": 1}", 0 },
   { "{\"_id\": 1, \"a\": 1, \"b\": 2}", "{\"a\": 1, \"_id\": 0}", "{\"a\": 1}", 0 },
   { "{\"_id\": 1, \"a\": 1, \"b\": 2}", "{\"a\": 0}", "{\"_id\": 1, \"b\": 2}", 0 },
   { "{\"_id\": 1, \"a\": 1, \"b\": 2}", "{\"_id\": 0}", "{\"a\": 1, \"b\": 2}", 0 },
   { "{\"_id\": 1, \"a\": 1, \"b\": 2}", "{\"_id\": 1}", "{\"_id\": 1}", 0 },
   { "{\"_id\": 1, \"a\": 1, \"b\": 2}", "{}", "{\"_id\": 1, \"a\": 1, \"b\": 2}", 0 },
   { "{\"_id\": 1, \"a\": 1, \"b\": 2}", "{\"b\": true, \"a\": true}", "{\"_id\": 1, \"a\": 1, \"b\": 2}", 0 },
   { "{\"_id\": 1, \"a\": {\"x\": 1, \"y\": 2}}", "{\"a.x\": 1}", "{\"_id\": 1, \"a\": {\"x\": 1}}", 0 },
   { "{\"_id\": 1, \"a\": {\"x\": 1, \"y\": 2}}", "{\"a\": {\"y\": 1}}", "{\"_id\": 1, \"a\": {\"y\": 2}}", 0 },
   { "{\"_id\": 1, \"a\": {\"x\": 1, \"y\": 2}}", "{\"a.x\": 0}", "{\"_id\": 1, \"a\": {\"y\": 2}}", 0 },
   { "{\"_id\": 1, \"a\": [{\"b\": 1, \"c\": 2}, 3, {\"c\": 4}]}", "{\"a.b\": 1}",
     "{\"_id\": 1, \"a\": [{\"b\": 1}, {}]}", 0 },
   { "{\"_id\": 1, \"a\": [{\"b\": 1, \"c\": 2}, 3]}", "{\"a.b\": 0}", "{\"_id\": 1, \"a\": [{\"c\": 2}, 3]}", 0 },
   { "{\"_id\": 1, \"a\": 5}", "{\"c\": \"$a\"}", "{\"_id\": 1, \"c\": 5}", 0 },
   { "{\"_id\": 1, \"a\": [1, 2, 3, 4]}", "{\"a\": {\"$slice\": 2}}", "{\"_id\": 1, \"a\": [1, 2]}", 0 },
   { "{\"_id\": 1, \"a\": [1, 2, 3, 4]}", "{\"a\": {\"$slice\": -1}}", "{\"_id\": 1, \"a\": [4]}", 0 },
   { "{\"_id\": 1, \"a\": [1, 2, 3, 4]}", "{\"a\": {\"$slice\": [1, 2]}}", "{\"_id\": 1, \"a\": [2, 3]}", 0 },
   { "{\"_id\": 1, \"a\": [{\"k\": 1}, {\"k\": 2}], \"b\": 1}", "{\"a\": {\"$elemMatch\": {\"k\": 2}}}",
     "{\"_id\": 1, \"a\": [{\"k\": 2}]}", 0 },
   /* sh.status() config.version findOne projection (exclusion) */
   { "{\"_id\": 1, \"minCompatibleVersion\": 5, \"currentVersion\": 6, \"clusterId\": {\"$oid\": "
     "\"65f000000000000000000001\"}}",
     "{\"minCompatibleVersion\": 0, \"excluding\": 0, \"upgradeId\": 0, \"upgradeState\": 0}",
     "{\"_id\": 1, \"currentVersion\": 6, \"clusterId\": {\"$oid\": \"65f000000000000000000001\"}}", 0 },
   { "{\"_id\": 1, \"a\": 1, \"b\": 2}", "{\"a\": 1, \"b\": 0}", NULL, 31254 },
   { "{\"_id\": 1, \"a\": 1, \"b\": 2}", "{\"a\": 0, \"b\": 1}", NULL, 31253 },
   { "{\"_id\": 1, \"a\": 1, \"b\": 2}", "{\"a\": 0, \"c\": \"$b\"}", NULL, 31252 },
   { "{\"_id\": 1, \"a\": 1}", "{\"a\": 1, \"a.b\": 1}", NULL, 31250 },
   { "{\"_id\": 1, \"a\": [1]}", "{\"a.$\": 1}", NULL, 238 },
};

static void
test_project (void)
{
   for (size_t i = 0; i < sizeof project_cases / sizeof project_cases[0]; i++) {
      bson_t *d = json (project_cases[i].doc), *p = json (project_cases[i].proj), out;
      bson_error_t error = { 0 };
      bool ok = simq_project (d, p, &out, &error);
      char name[64];
      snprintf (name, sizeof name, "project %zu", i);
      if (project_cases[i].code) {
         if (ok || (int) error.code != project_cases[i].code) {
            UNIT_FAIL (name, "%s: want code %d got ok=%d code=%u", project_cases[i].proj, project_cases[i].code,
                       (int) ok, error.code);
         } else {
            UNIT_PASS (name);
         }
      } else if (!ok) {
         UNIT_FAIL (name, "%s failed: %s", project_cases[i].proj, error.message);
      } else {
         char *got = bson_as_canonical_extended_json (&out, NULL);
         char *want = doc_canonical_json (project_cases[i].expected);
         CHECK_STR (name, want, got);
         bson_free (got);
         bson_free (want);
      }
      bson_destroy (&out);
      bson_destroy (d);
      bson_destroy (p);
   }
}

/* ---- sort ---- */

static const struct {
   const char *docs, *sort, *ids;
   int code;
} sort_cases[] = {
   { "[{\"_id\": 1, \"a\": 3}, {\"_id\": 2, \"a\": 1}, {\"_id\": 3, \"a\": 2}]", "{\"a\": 1}", "2 3 1", 0 },
   { "[{\"_id\": 1, \"a\": 3}, {\"_id\": 2, \"a\": 1}, {\"_id\": 3, \"a\": 2}]", "{\"a\": -1}", "1 3 2", 0 },
   { "[{\"_id\": 1, \"a\": 1, \"b\": 1}, {\"_id\": 2, \"a\": 1, \"b\": 2}, {\"_id\": 3, \"a\": 0, \"b\": 9}]",
     "{\"a\": -1, \"b\": 1}", "1 2 3", 0 },
   /* stability */
   { "[{\"_id\": 1, \"a\": 1}, {\"_id\": 2, \"a\": 0}, {\"_id\": 3, \"a\": 1}, {\"_id\": 4, \"a\": 0}]", "{\"a\": 1}",
     "2 4 1 3", 0 },
   /* missing sorts as null, before numbers; across types */
   { "[{\"_id\": 1, \"a\": \"x\"}, {\"_id\": 2}, {\"_id\": 3, \"a\": 5}, {\"_id\": 4, \"a\": null}]", "{\"a\": 1}",
     "2 4 3 1", 0 },
   /* arrays: ascending uses the smallest element, descending the largest; [] sorts before null */
   { "[{\"_id\": 1, \"a\": [5, 1]}, {\"_id\": 2, \"a\": 3}, {\"_id\": 3, \"a\": [4, 6]}]", "{\"a\": 1}", "1 2 3", 0 },
   { "[{\"_id\": 1, \"a\": [5, 1]}, {\"_id\": 2, \"a\": 3}, {\"_id\": 3, \"a\": [4, 6]}]", "{\"a\": -1}", "3 1 2", 0 },
   { "[{\"_id\": 1, \"a\": null}, {\"_id\": 2, \"a\": []}, {\"_id\": 3, \"a\": 0}]", "{\"a\": 1}", "2 1 3", 0 },
   /* chunk bounds: MinKey first, documents by field */
   { "[{\"_id\": 1, \"min\": {\"uid\": 100}}, {\"_id\": 2, \"min\": {\"uid\": {\"$minKey\": 1}}}, {\"_id\": 3, "
     "\"min\": "
     "{\"uid\": 0}}]",
     "{\"min\": 1}", "2 3 1", 0 },
   { "[{\"_id\": 1, \"x\": {\"y\": 2}}, {\"_id\": 2, \"x\": {\"y\": 1}}]", "{\"x.y\": 1}", "2 1", 0 },
   { "[{\"_id\": 1}]", "{\"a\": 2}", "", 15975 },
   { "[{\"_id\": 1}]", "{\"a\": \"up\"}", "", 15975 },
};

static char *
ids_of (const simq_docs_t *docs)
{
   char buf[512] = "";
   for (size_t i = 0; i < docs->n; i++) {
      bson_iter_t it;
      char one[32];
      if (bson_iter_init_find (&it, docs->v[i], "_id")) {
         snprintf (one, sizeof one, "%s%d", i ? " " : "",
                   bson_iter_as_int64 (&it) > 0 ? (int) bson_iter_as_int64 (&it) : 0);
         strncat (buf, one, sizeof buf - strlen (buf) - 1);
      }
   }
   return bson_strdup (buf);
}

static void
test_sort (void)
{
   for (size_t i = 0; i < sizeof sort_cases / sizeof sort_cases[0]; i++) {
      simq_docs_t docs;
      bson_t *s = json (sort_cases[i].sort);
      bson_error_t error = { 0 };
      char name[64];
      bool ok;
      docs_from_json (sort_cases[i].docs, &docs);
      ok = simq_sort (&docs, s, &error);
      snprintf (name, sizeof name, "sort %zu", i);
      if (sort_cases[i].code) {
         CHECK (name, !ok && (int) error.code == sort_cases[i].code);
      } else if (!ok) {
         UNIT_FAIL (name, "failed: %s", error.message);
      } else {
         char *ids = ids_of (&docs);
         CHECK_STR (name, sort_cases[i].ids, ids);
         bson_free (ids);
      }
      simq_docs_clear (&docs);
      bson_destroy (s);
   }
}

/* ---- updates ---- */

static const struct {
   const char *doc, *update;
   bool is_insert;
   const char *expected;
   bool modified;
   int code;
} update_cases[] = {
   { "{\"_id\": 1, \"a\": 1}", "{\"$set\": {\"a\": 2}}", false, "{\"_id\": 1, \"a\": 2}", true, 0 },
   { "{\"_id\": 1, \"a\": 1}", "{\"$set\": {\"a\": 1}}", false, "{\"_id\": 1, \"a\": 1}", false, 0 },
   { "{\"_id\": 1}", "{\"$set\": {\"z\": 1, \"b\": 2}}", false, "{\"_id\": 1, \"b\": 2, \"z\": 1}", true, 0 },
   { "{\"_id\": 1}", "{\"$set\": {\"a.b.c\": 1}}", false, "{\"_id\": 1, \"a\": {\"b\": {\"c\": 1}}}", true, 0 },
   { "{\"_id\": 1, \"a\": [1, 2]}", "{\"$set\": {\"a.1\": 5}}", false, "{\"_id\": 1, \"a\": [1, 5]}", true, 0 },
   { "{\"_id\": 1, \"a\": [1]}", "{\"$set\": {\"a.3\": 5}}", false, "{\"_id\": 1, \"a\": [1, null, null, 5]}", true,
     0 },
   { "{\"_id\": \"balancer\", \"stopped\": true}", "{\"$set\": {\"stopped\": false}}", false,
     "{\"_id\": \"balancer\", \"stopped\": false}", true, 0 },
   { "{\"_id\": \"app.users\", \"key\": {\"uid\": 1}}", "{\"$set\": {\"noBalance\": true}}", false,
     "{\"_id\": \"app.users\", \"key\": {\"uid\": 1}, \"noBalance\": true}", true, 0 },
   { "{\"_id\": 1, \"a\": 1, \"b\": 2}", "{\"$unset\": {\"a\": 1}}", false, "{\"_id\": 1, \"b\": 2}", true, 0 },
   { "{\"_id\": 1, \"a\": 1}", "{\"$unset\": {\"x\": 1}}", false, "{\"_id\": 1, \"a\": 1}", false, 0 },
   { "{\"_id\": 1, \"a\": [1, 2]}", "{\"$unset\": {\"a.0\": 1}}", false, "{\"_id\": 1, \"a\": [null, 2]}", true, 0 },
   { "{\"_id\": 1, \"n\": 1}", "{\"$inc\": {\"n\": 2}}", false, "{\"_id\": 1, \"n\": 3}", true, 0 },
   { "{\"_id\": 1, \"n\": 1}", "{\"$inc\": {\"n\": 0.5}}", false, "{\"_id\": 1, \"n\": 1.5}", true, 0 },
   { "{\"_id\": 1, \"n\": 2147483647}", "{\"$inc\": {\"n\": 1}}", false,
     "{\"_id\": 1, \"n\": {\"$numberLong\": \"2147483648\"}}", true, 0 },
   { "{\"_id\": 1}", "{\"$inc\": {\"n\": 5}}", false, "{\"_id\": 1, \"n\": 5}", true, 0 },
   { "{\"_id\": 1, \"n\": 3}", "{\"$mul\": {\"n\": 4}}", false, "{\"_id\": 1, \"n\": 12}", true, 0 },
   { "{\"_id\": 1}", "{\"$mul\": {\"n\": 4}}", false, "{\"_id\": 1, \"n\": 0}", true, 0 },
   { "{\"_id\": 1, \"n\": 3}", "{\"$min\": {\"n\": 1}}", false, "{\"_id\": 1, \"n\": 1}", true, 0 },
   { "{\"_id\": 1, \"n\": 3}", "{\"$min\": {\"n\": 5}}", false, "{\"_id\": 1, \"n\": 3}", false, 0 },
   { "{\"_id\": 1, \"n\": 3}", "{\"$max\": {\"n\": 5}}", false, "{\"_id\": 1, \"n\": 5}", true, 0 },
   { "{\"_id\": 1, \"a\": 1}", "{\"$rename\": {\"a\": \"b\"}}", false, "{\"_id\": 1, \"b\": 1}", true, 0 },
   { "{\"_id\": 1, \"t\": [1]}", "{\"$push\": {\"t\": 2}}", false, "{\"_id\": 1, \"t\": [1, 2]}", true, 0 },
   { "{\"_id\": 1}", "{\"$push\": {\"t\": 2}}", false, "{\"_id\": 1, \"t\": [2]}", true, 0 },
   { "{\"_id\": 1, \"t\": [1, 5]}", "{\"$push\": {\"t\": {\"$each\": [3, 2], \"$sort\": 1, \"$slice\": -3}}}", false,
     "{\"_id\": 1, \"t\": [2, 3, 5]}", true, 0 },
   { "{\"_id\": 1, \"t\": [1, 5]}", "{\"$push\": {\"t\": {\"$each\": [9], \"$position\": 0}}}", false,
     "{\"_id\": 1, \"t\": [9, 1, 5]}", true, 0 },
   { "{\"_id\": 1, \"t\": [1, 2]}", "{\"$addToSet\": {\"t\": 2}}", false, "{\"_id\": 1, \"t\": [1, 2]}", false, 0 },
   { "{\"_id\": 1, \"t\": [1, 2]}", "{\"$addToSet\": {\"t\": {\"$each\": [2, 3, 3]}}}", false,
     "{\"_id\": 1, \"t\": [1, 2, 3]}", true, 0 },
   { "{\"_id\": 1, \"t\": [1, 2, 3, 2]}", "{\"$pull\": {\"t\": 2}}", false, "{\"_id\": 1, \"t\": [1, 3]}", true, 0 },
   { "{\"_id\": 1, \"t\": [1, 5, 7]}", "{\"$pull\": {\"t\": {\"$gte\": 5}}}", false, "{\"_id\": 1, \"t\": [1]}", true,
     0 },
   { "{\"_id\": 1, \"t\": [{\"k\": 1}, {\"k\": 2}]}", "{\"$pull\": {\"t\": {\"k\": 2}}}", false,
     "{\"_id\": 1, \"t\": [{\"k\": 1}]}", true, 0 },
   { "{\"_id\": 1, \"t\": [1, 2, 3]}", "{\"$pullAll\": {\"t\": [1, 3]}}", false, "{\"_id\": 1, \"t\": [2]}", true, 0 },
   { "{\"_id\": 1, \"t\": [1, 2, 3]}", "{\"$pop\": {\"t\": 1}}", false, "{\"_id\": 1, \"t\": [1, 2]}", true, 0 },
   { "{\"_id\": 1, \"t\": [1, 2, 3]}", "{\"$pop\": {\"t\": -1}}", false, "{\"_id\": 1, \"t\": [2, 3]}", true, 0 },
   { "{\"_id\": 1}", "{\"$setOnInsert\": {\"a\": 1}}", false, "{\"_id\": 1}", false, 0 },
   { "{\"_id\": 1}", "{\"$setOnInsert\": {\"a\": 1}}", true, "{\"_id\": 1, \"a\": 1}", true, 0 },
   /* enableAutoSplit's upsert: seed { _id: "autosplit" } then $set */
   { "{\"_id\": \"autosplit\"}", "{\"$set\": {\"enabled\": true}}", true, "{\"_id\": \"autosplit\", \"enabled\": true}",
     true, 0 },
   /* replacement keeps _id first */
   { "{\"_id\": 1, \"a\": 1}", "{\"b\": 2}", false, "{\"_id\": 1, \"b\": 2}", true, 0 },
   { "{\"_id\": 1, \"a\": 1}", "{\"b\": 2, \"_id\": 1}", false, "{\"_id\": 1, \"b\": 2}", true, 0 },
   { "{\"_id\": 1, \"a\": 1}", "{}", false, "{\"_id\": 1}", true, 0 },
   /* errors */
   { "{\"_id\": 1, \"a\": 1}", "{\"b\": 2, \"_id\": 2}", false, NULL, false, 66 },
   { "{\"_id\": 1, \"a\": 1}", "{\"$set\": {\"_id\": 2}}", false, NULL, false, 66 },
   { "{\"_id\": 1, \"a\": 1}", "{\"$unset\": {\"_id\": 1}}", false, NULL, false, 66 },
   { "{\"_id\": 1, \"a\": 1}", "{\"$foo\": {\"a\": 1}}", false, NULL, false, 9 },
   { "{\"_id\": 1, \"a\": 1}", "{\"$set\": {\"a\": 1}, \"b\": 1}", false, NULL, false, 9 },
   { "{\"_id\": 1, \"a\": 1}", "{\"$set\": 1}", false, NULL, false, 9 },
   { "{\"_id\": 1, \"a\": 1}", "{\"$set\": {\"a\": 1}, \"$inc\": {\"a\": 1}}", false, NULL, false, 40 },
   { "{\"_id\": 1, \"a\": 1}", "{\"$set\": {\"a\": 1, \"a.b\": 1}}", false, NULL, false, 40 },
   { "{\"_id\": 1, \"a\": \"x\"}", "{\"$inc\": {\"a\": 1}}", false, NULL, false, 14 },
   { "{\"_id\": 1, \"a\": 1}", "{\"$inc\": {\"a\": \"x\"}}", false, NULL, false, 14 },
   { "{\"_id\": 1, \"a\": 5}", "{\"$set\": {\"a.b\": 1}}", false, NULL, false, 28 },
   { "{\"_id\": 1, \"a\": 5}", "{\"$push\": {\"a\": 1}}", false, NULL, false, 2 },
   { "{\"_id\": 1, \"a\": 5}", "{\"$set\": {\"\": 1}}", false, NULL, false, 56 },
   { "{\"_id\": 1, \"a\": 5}", "{\"$rename\": {\"a\": \"a\"}}", false, NULL, false, 2 },
   { "{\"_id\": 1, \"a\": 5}", "{\"$pop\": {\"a\": 1}}", false, NULL, false, 14 },
   { "{\"_id\": 1, \"a\": [5]}", "{\"$set\": {\"a.$\": 1}}", false, NULL, false, 238 },
};

static void
test_update (void)
{
   for (size_t i = 0; i < sizeof update_cases / sizeof update_cases[0]; i++) {
      bson_t *d = json (update_cases[i].doc), *u = json (update_cases[i].update), out;
      bson_error_t error = { 0 };
      bool modified = false, ok = simq_apply_update (d, u, update_cases[i].is_insert, &out, &modified, &error);
      char name[64];
      snprintf (name, sizeof name, "update %zu", i);
      if (update_cases[i].code) {
         if (ok || (int) error.code != update_cases[i].code) {
            UNIT_FAIL (name, "%s: want code %d got ok=%d code=%u (%s)", update_cases[i].update, update_cases[i].code,
                       (int) ok, error.code, error.message);
         } else {
            UNIT_PASS (name);
         }
      } else if (!ok) {
         UNIT_FAIL (name, "%s failed: %s", update_cases[i].update, error.message);
      } else {
         char *got = bson_as_canonical_extended_json (&out, NULL);
         char *want = doc_canonical_json (update_cases[i].expected);
         if (strcmp (got, want) != 0 || modified != update_cases[i].modified) {
            UNIT_FAIL (name, "%s: expected %s (modified %d) got %s (modified %d)", update_cases[i].update, want,
                       (int) update_cases[i].modified, got, (int) modified);
         } else {
            UNIT_PASS (name);
         }
         bson_free (got);
         bson_free (want);
      }
      bson_destroy (&out);
      bson_destroy (d);
      bson_destroy (u);
   }
}

static const struct {
   const char *query, *seed;
} seed_cases[] = {
   { "{\"_id\": \"autosplit\"}", "{\"_id\": \"autosplit\"}" },
   { "{\"a\": 1, \"_id\": 5}", "{\"_id\": 5, \"a\": 1}" },
   { "{\"a.b\": 1, \"c\": {\"$gt\": 1}}", "{\"a\": {\"b\": 1}}" },
   { "{\"a\": {\"$eq\": 3}, \"r\": {\"$regularExpression\": {\"pattern\": \"x\", \"options\": \"\"}}}", "{\"a\": 3}" },
   { "{\"$and\": [{\"a\": 1}, {\"b\": 2}], \"$or\": [{\"c\": 1}]}", "{\"a\": 1, \"b\": 2}" },
   { "{\"d\": {\"x\": 1}}", "{\"d\": {\"x\": 1}}" },
};

static void
test_seed (void)
{
   for (size_t i = 0; i < sizeof seed_cases / sizeof seed_cases[0]; i++) {
      bson_t *q = json (seed_cases[i].query), out;
      char name[64], *got, *want;
      simq_upsert_seed (q, &out);
      got = bson_as_canonical_extended_json (&out, NULL);
      want = doc_canonical_json (seed_cases[i].seed);
      snprintf (name, sizeof name, "upsert seed %zu", i);
      CHECK_STR (name, want, got);
      bson_free (got);
      bson_free (want);
      bson_destroy (&out);
      bson_destroy (q);
   }
}

/* ---- aggregation ---- */

#define NOW_MS 1704164645000 /* 2024-01-02T03:04:05Z */

static const char *lookup_foreign =
   "[{\"_id\": \"shard01\", \"host\": \"shard01/h1:27018\"}, {\"_id\": \"shard02\", \"host\": \"shard02/h2:27018\"}]";

typedef struct {
   simq_docs_t shards;
   int stage_calls;
} test_env_t;

static bool
test_collection (void *ud, const char *coll, const simq_docs_t **docs)
{
   test_env_t *t = ud;
   if (strcmp (coll, "shards") == 0) {
      *docs = &t->shards;
      return true;
   }
   return false;
}

static int
test_stage (void *ud, const bson_t *stage, const simq_docs_t *in, simq_docs_t *out, bson_error_t *error)
{
   test_env_t *t = ud;
   bson_iter_t it;
   (void) in;
   t->stage_calls++;
   if (bson_iter_init_find (&it, stage, "$collStats")) {
      bson_t *d = BCON_NEW ("shard", "shard01", "storageStats", "{", "count", BCON_INT32 (1200), "}");
      simq_docs_push_owned (out, d);
      return 1;
   }
   if (bson_iter_init_find (&it, stage, "$failHere")) {
      bson_set_error (error, SIMQ_ERROR_DOMAIN, 6789102, "hook failed");
      return -1;
   }
   return 0;
}

static const struct {
   const char *name, *input, *pipeline, *expected;
   int code;
} agg_cases[] = {
   /* --- sh.status() §4.2: active mongoses by version --- */
   { "sh.status mongos $group",
     "[{\"_id\": \"m1:27017\", \"ping\": {\"$date\": \"2024-01-02T03:04:00Z\"}, \"mongoVersion\": \"8.0.4\"},"
     " {\"_id\": \"m2:27017\", \"ping\": {\"$date\": \"2024-01-02T03:03:30Z\"}, \"mongoVersion\": \"8.0.4\"},"
     " {\"_id\": \"m3:27017\", \"ping\": {\"$date\": \"2024-01-02T03:04:01Z\"}, \"mongoVersion\": \"7.0.2\"},"
     " {\"_id\": \"old:27017\", \"ping\": {\"$date\": \"2023-12-01T00:00:00Z\"}, \"mongoVersion\": \"6.0.1\"}]",
     "[{\"$match\": {\"ping\": {\"$gt\": {\"$date\": \"2024-01-02T03:03:01Z\"}}}}, {\"$group\": {\"_id\": "
     "\"$mongoVersion\", \"num\": {\"$sum\": 1}}}, {\"$sort\": {\"num\": -1}}]",
     "[{\"_id\": \"8.0.4\", \"num\": 2}, {\"_id\": \"7.0.2\", \"num\": 1}]", 0 },
   /* --- sh.status() §4.3 step 3: successful migrations --- */
   { "sh.status changelog success",
     "[{\"what\": \"moveChunk.from\", \"time\": {\"$date\": \"2024-01-02T01:00:00Z\"}, \"details\": {\"note\": "
     "\"success\", \"from\": \"shard01\", \"to\": \"shard02\"}},"
     " {\"what\": \"moveChunk.from\", \"time\": {\"$date\": \"2024-01-02T02:00:00Z\"}, \"details\": {\"note\": "
     "\"success\", \"from\": \"shard02\", \"to\": \"shard01\"}},"
     " {\"what\": \"moveChunk.from\", \"time\": {\"$date\": \"2024-01-02T02:30:00Z\"}, \"details\": {\"errmsg\": "
     "\"boom\", \"note\": \"aborted\", \"from\": \"shard01\", \"to\": \"shard02\"}},"
     " {\"what\": \"moveChunk.from\", \"time\": {\"$date\": \"2023-12-30T02:00:00Z\"}, \"details\": {\"note\": "
     "\"success\"}},"
     " {\"what\": \"split\", \"time\": {\"$date\": \"2024-01-02T02:00:00Z\"}, \"details\": {\"note\": \"success\"}}]",
     "[{\"$match\": {\"time\": {\"$gt\": {\"$date\": \"2024-01-01T03:04:05Z\"}}, \"what\": \"moveChunk.from\", "
     "\"details.errmsg\": {\"$exists\": false}, \"details.note\": \"success\"}}, {\"$group\": {\"_id\": {\"msg\": "
     "\"$details.errmsg\"}, \"count\": {\"$sum\": 1}}}, {\"$project\": {\"_id\": {\"$ifNull\": [\"$_id.msg\", "
     "\"Success\"]}, \"count\": \"$count\"}}]",
     "[{\"_id\": \"Success\", \"count\": 2}]", 0 },
   /* --- sh.status() §4.3 step 4: failed migrations --- */
   { "sh.status changelog failures",
     "[{\"what\": \"moveChunk.from\", \"time\": {\"$date\": \"2024-01-02T01:00:00Z\"}, \"details\": {\"note\": "
     "\"success\", \"from\": \"shard01\", \"to\": \"shard02\"}},"
     " {\"what\": \"moveChunk.from\", \"time\": {\"$date\": \"2024-01-02T02:30:00Z\"}, \"details\": {\"errmsg\": "
     "\"boom\", \"note\": \"aborted\", \"from\": \"shard01\", \"to\": \"shard02\"}},"
     " {\"what\": \"moveChunk.from\", \"time\": {\"$date\": \"2024-01-02T02:40:00Z\"}, \"details\": {\"errmsg\": "
     "\"boom\", \"from\": \"shard01\", \"to\": \"shard02\"}},"
     " {\"what\": \"moveChunk.from\", \"time\": {\"$date\": \"2024-01-02T02:50:00Z\"}, \"details\": {\"note\": "
     "\"aborted\", \"from\": \"shard02\", \"to\": \"shard01\"}}]",
     "[{\"$match\": {\"time\": {\"$gt\": {\"$date\": \"2024-01-01T03:04:05Z\"}}, \"what\": \"moveChunk.from\", "
     "\"$or\": "
     "[{\"details.errmsg\": {\"$exists\": true}}, {\"details.note\": {\"$ne\": \"success\"}}]}}, {\"$group\": "
     "{\"_id\": "
     "{\"msg\": \"$details.errmsg\", \"from\": \"$details.from\", \"to\": \"$details.to\"}, \"count\": {\"$sum\": "
     "1}}}, "
     "{\"$project\": {\"_id\": {\"$ifNull\": [\"$_id.msg\", \"aborted\"]}, \"from\": \"$_id.from\", \"to\": "
     "\"$_id.to\", \"count\": \"$count\"}}]",
     "[{\"_id\": \"boom\", \"from\": \"shard01\", \"to\": \"shard02\", \"count\": 2}, {\"_id\": \"aborted\", \"from\": "
     "\"shard02\", \"to\": \"shard01\", \"count\": 1}]",
     0 },
   { "sh.status changelog none", "[]",
     "[{\"$match\": {\"what\": \"moveChunk.from\"}}, {\"$group\": {\"_id\": {\"msg\": \"$details.errmsg\"}, \"count\": "
     "{\"$sum\": 1}}}, {\"$project\": {\"_id\": {\"$ifNull\": [\"$_id.msg\", \"Success\"]}, \"count\": \"$count\"}}]",
     "[]", 0 },
   /* --- sh.status() §4.5a: chunks per shard (uuid filter) --- */
   { "sh.status chunks per shard",
     "[{\"uuid\": {\"$binary\": {\"base64\": \"AAAAAAAAAAAAAAAAAAAAAQ==\", \"subType\": \"04\"}}, \"shard\": "
     "\"shard02\", "
     "\"min\": {\"uid\": 0}},"
     " {\"uuid\": {\"$binary\": {\"base64\": \"AAAAAAAAAAAAAAAAAAAAAQ==\", \"subType\": \"04\"}}, \"shard\": "
     "\"shard01\", "
     "\"min\": {\"uid\": {\"$minKey\": 1}}},"
     " {\"uuid\": {\"$binary\": {\"base64\": \"AAAAAAAAAAAAAAAAAAAAAQ==\", \"subType\": \"04\"}}, \"shard\": "
     "\"shard02\", "
     "\"min\": {\"uid\": 100}},"
     " {\"uuid\": {\"$binary\": {\"base64\": \"AAAAAAAAAAAAAAAAAAAAAg==\", \"subType\": \"04\"}}, \"shard\": "
     "\"shard03\", "
     "\"min\": {\"x\": 1}}]",
     "[{\"$match\": {\"uuid\": {\"$binary\": {\"base64\": \"AAAAAAAAAAAAAAAAAAAAAQ==\", \"subType\": \"04\"}}}}, "
     "{\"$group\": {\"_id\": \"$shard\", \"cnt\": {\"$sum\": 1}}}, {\"$project\": {\"_id\": 0, \"shard\": \"$_id\", "
     "\"nChunks\": \"$cnt\"}}, {\"$sort\": {\"shard\": 1}}]",
     "[{\"shard\": \"shard01\", \"nChunks\": 1}, {\"shard\": \"shard02\", \"nChunks\": 2}]", 0 },
   { "sh.status chunks per shard (4.4 ns filter)",
     "[{\"ns\": \"app.users\", \"shard\": \"shard01\"}, {\"ns\": \"app.other\", \"shard\": \"shard01\"}]",
     "[{\"$match\": {\"ns\": \"app.users\"}}, {\"$group\": {\"_id\": \"$shard\", \"cnt\": {\"$sum\": 1}}}, "
     "{\"$project\": {\"_id\": 0, \"shard\": \"$_id\", \"nChunks\": \"$cnt\"}}, {\"$sort\": {\"shard\": 1}}]",
     "[{\"shard\": \"shard01\", \"nChunks\": 1}]", 0 },
   /* --- getShardDistribution §5.1 step 3: countDocuments --- */
   { "getShardDistribution countDocuments",
     "[{\"uuid\": 1, \"shard\": \"shard01\"}, {\"uuid\": 1, \"shard\": \"shard02\"}, {\"uuid\": 1, \"shard\": "
     "\"shard01\"}, {\"uuid\": 2, \"shard\": \"shard01\"}]",
     "[{\"$match\": {\"uuid\": 1, \"shard\": \"shard01\"}}, {\"$group\": {\"_id\": 1, \"n\": {\"$sum\": 1}}}]",
     "[{\"_id\": 1, \"n\": 2}]", 0 },
   { "getShardDistribution countDocuments empty", "[{\"uuid\": 2, \"shard\": \"shard01\"}]",
     "[{\"$match\": {\"uuid\": 1, \"shard\": \"shard01\"}}, {\"$group\": {\"_id\": 1, \"n\": {\"$sum\": 1}}}]", "[]",
     0 },
   { "getShardDistribution $collStats via hook", "[]", "[{\"$collStats\": {\"storageStats\": {}}}]",
     "[{\"shard\": \"shard01\", \"storageStats\": {\"count\": 1200}}]", 0 },
   /* --- convertShardKeyToHashed: $documents + $limit + $project $toHashedIndexKey --- */
   { "convertShardKeyToHashed pipeline", "[]",
     "[{\"$documents\": [{}]}, {\"$limit\": 1}, {\"$project\": {\"_id\": {\"$toHashedIndexKey\": {\"$literal\": "
     "42}}}}]",
     "[{\"_id\": {\"$numberLong\": \"-944302157085130861\"}}]", 0 },
   /* --- getShardLocation: stage hook then $match/$project --- */
   { "unknown stage via hook", "[]", "[{\"$listClusterCatalog\": {\"shards\": true}}]", NULL, 40324 },
   { "hook error", "[]", "[{\"$failHere\": {}}]", NULL, 6789102 },

   /* --- $group accumulators --- */
   { "$group accumulators",
     "[{\"k\": \"a\", \"v\": 1}, {\"k\": \"b\", \"v\": 5}, {\"k\": \"a\", \"v\": 3.5}, {\"k\": \"a\", \"v\": \"x\"}, "
     "{\"k\": \"a\"}]",
     "[{\"$match\": {\"k\": \"a\"}}, {\"$group\": {\"_id\": \"$k\", \"sum\": {\"$sum\": \"$v\"}, \"avg\": {\"$avg\": "
     "\"$v\"}, \"first\": {\"$first\": \"$v\"}, \"last\": {\"$last\": \"$v\"}, \"push\": {\"$push\": \"$v\"}, \"set\": "
     "{\"$addToSet\": \"$k\"}, \"min\": {\"$min\": \"$v\"}, \"max\": {\"$max\": \"$v\"}, \"n\": {\"$count\": {}}}}]",
     "[{\"_id\": \"a\", \"sum\": 4.5, \"avg\": 2.25, \"first\": 1, \"last\": null, \"push\": [1, 3.5, \"x\"], \"set\": "
     "[\"a\"], \"min\": 1, \"max\": \"x\", \"n\": 4}]",
     0 },
   { "$group _id null and int64 sum", "[{\"v\": {\"$numberLong\": \"5\"}}, {\"v\": 2}]",
     "[{\"$group\": {\"_id\": null, \"s\": {\"$sum\": \"$v\"}, \"m\": {\"$mergeObjects\": {\"a\": \"$v\"}}}}]",
     "[{\"_id\": null, \"s\": {\"$numberLong\": \"7\"}, \"m\": {\"a\": 2}}]", 0 },
   { "$group numeric keys merge", "[{\"k\": 1}, {\"k\": 1.0}, {\"k\": {\"$numberLong\": \"1\"}}]",
     "[{\"$group\": {\"_id\": \"$k\", \"n\": {\"$sum\": 1}}}]", "[{\"_id\": 1, \"n\": 3}]", 0 },
   { "$group missing key is null", "[{\"a\": 1}, {\"k\": null}]",
     "[{\"$group\": {\"_id\": \"$k\", \"n\": {\"$sum\": 1}}}]", "[{\"_id\": null, \"n\": 2}]", 0 },
   { "$group no _id", "[]", "[{\"$group\": {\"n\": {\"$sum\": 1}}}]", NULL, 15955 },
   { "$group bad accumulator", "[]", "[{\"$group\": {\"_id\": 1, \"n\": {\"$bogus\": 1}}}]", NULL, 15952 },
   { "$group not accumulator object", "[]", "[{\"$group\": {\"_id\": 1, \"n\": 1}}]", NULL, 40234 },
   { "$group dotted field", "[]", "[{\"$group\": {\"_id\": 1, \"a.b\": {\"$sum\": 1}}}]", NULL, 40235 },

   /* --- $project / $addFields / $set / $unset --- */
   { "$project inclusion and computed", "[{\"_id\": 1, \"a\": 1, \"b\": {\"c\": 2, \"d\": 3}, \"e\": 4}]",
     "[{\"$project\": {\"a\": 1, \"b.c\": 1, \"x\": {\"$add\": [\"$a\", \"$e\"]}}}]",
     "[{\"_id\": 1, \"a\": 1, \"b\": {\"c\": 2}, \"x\": 5}]", 0 },
   { "$project exclusion", "[{\"_id\": 1, \"a\": 1, \"b\": 2}]", "[{\"$project\": {\"a\": 0, \"_id\": 0}}]",
     "[{\"b\": 2}]", 0 },
   { "$project literal", "[{\"_id\": 1}]", "[{\"$project\": {\"_id\": 0, \"s\": \"text\", \"t\": {\"$literal\": 1}}}]",
     "[{\"s\": \"text\", \"t\": 1}]", 0 },
   { "$project mixed", "[{\"_id\": 1}]", "[{\"$project\": {\"a\": 1, \"b\": 0}}]", NULL, 31254 },
   { "$project empty", "[{\"_id\": 1}]", "[{\"$project\": {}}]", NULL, 51272 },
   { "$addFields", "[{\"_id\": 1, \"a\": {\"x\": 1}}]",
     "[{\"$addFields\": {\"b\": \"$a.x\", \"a.y\": 2, \"c\": {\"d\": {\"$literal\": 3}}}}]",
     "[{\"_id\": 1, \"a\": {\"x\": 1, \"y\": 2}, \"b\": 1, \"c\": {\"d\": 3}}]", 0 },
   { "$set replaces and $$REMOVE", "[{\"_id\": 1, \"a\": 1, \"b\": 2}]",
     "[{\"$set\": {\"a\": \"new\", \"b\": \"$$REMOVE\"}}]", "[{\"_id\": 1, \"a\": \"new\"}]", 0 },
   { "$unset", "[{\"_id\": 1, \"a\": 1, \"b\": {\"c\": 1, \"d\": 2}}]", "[{\"$unset\": [\"a\", \"b.c\"]}]",
     "[{\"_id\": 1, \"b\": {\"d\": 2}}]", 0 },
   { "$unset string", "[{\"_id\": 1, \"a\": 1}]", "[{\"$unset\": \"a\"}]", "[{\"_id\": 1}]", 0 },
   { "$unset bad", "[]", "[{\"$unset\": 1}]", NULL, 31002 },

   /* --- $sort $limit $skip $count --- */
   { "$sort $skip $limit", "[{\"_id\": 3}, {\"_id\": 1}, {\"_id\": 4}, {\"_id\": 2}]",
     "[{\"$sort\": {\"_id\": 1}}, {\"$skip\": 1}, {\"$limit\": 2}]", "[{\"_id\": 2}, {\"_id\": 3}]", 0 },
   { "$limit zero", "[]", "[{\"$limit\": 0}]", NULL, 15958 },
   { "$skip negative", "[]", "[{\"$skip\": -1}]", NULL, 15956 },
   { "$sort empty", "[]", "[{\"$sort\": {}}]", NULL, 15976 },
   { "$count", "[{\"a\": 1}, {\"a\": 2}, {\"a\": 3}]", "[{\"$match\": {\"a\": {\"$gte\": 2}}}, {\"$count\": \"n\"}]",
     "[{\"n\": 2}]", 0 },
   { "$count nothing", "[]", "[{\"$count\": \"n\"}]", "[]", 0 },
   { "$count dollar", "[]", "[{\"$count\": \"$n\"}]", NULL, 40158 },
   { "$count dot", "[]", "[{\"$count\": \"a.b\"}]", NULL, 40160 },

   /* --- $unwind --- */
   { "$unwind string",
     "[{\"_id\": 1, \"t\": [\"a\", \"b\"]}, {\"_id\": 2, \"t\": []}, {\"_id\": 3}, {\"_id\": 4, \"t\": "
     "\"s\"}]",
     "[{\"$unwind\": \"$t\"}]", "[{\"_id\": 1, \"t\": \"a\"}, {\"_id\": 1, \"t\": \"b\"}, {\"_id\": 4, \"t\": \"s\"}]",
     0 },
   { "$unwind preserve + index",
     "[{\"_id\": 1, \"t\": [\"a\"]}, {\"_id\": 2, \"t\": []}, {\"_id\": 3}, {\"_id\": 5, \"t\": null}]",
     "[{\"$unwind\": {\"path\": \"$t\", \"includeArrayIndex\": \"i\", \"preserveNullAndEmptyArrays\": true}}]",
     "[{\"_id\": 1, \"t\": \"a\", \"i\": {\"$numberLong\": \"0\"}}, {\"_id\": 2, \"i\": null}, {\"_id\": 3, \"i\": "
     "null}, {\"_id\": 5, \"t\": null, \"i\": null}]",
     0 },
   { "$unwind no dollar", "[]", "[{\"$unwind\": \"t\"}]", NULL, 28818 },
   { "$unwind bad spec", "[]", "[{\"$unwind\": 5}]", NULL, 15981 },
   { "$unwind bad option", "[]", "[{\"$unwind\": {\"path\": \"$t\", \"x\": 1}}]", NULL, 28811 },

   /* --- $lookup --- */
   { "$lookup localField/foreignField", "[{\"_id\": 1, \"shard\": \"shard02\"}, {\"_id\": 2, \"shard\": \"nope\"}]",
     "[{\"$lookup\": {\"from\": \"shards\", \"localField\": \"shard\", \"foreignField\": \"_id\", \"as\": \"s\"}}]",
     "[{\"_id\": 1, \"shard\": \"shard02\", \"s\": [{\"_id\": \"shard02\", \"host\": \"shard02/h2:27018\"}]}, "
     "{\"_id\": "
     "2, \"shard\": \"nope\", \"s\": []}]",
     0 },
   { "$lookup array local", "[{\"_id\": 1, \"l\": [\"shard01\", \"shard02\"]}]",
     "[{\"$lookup\": {\"from\": \"shards\", \"localField\": \"l\", \"foreignField\": \"_id\", \"as\": \"s\"}}, "
     "{\"$project\": {\"n\": {\"$size\": \"$s\"}}}]",
     "[{\"_id\": 1, \"n\": 2}]", 0 },
   { "$lookup pipeline with let", "[{\"_id\": 1, \"want\": \"shard01\"}]",
     "[{\"$lookup\": {\"from\": \"shards\", \"let\": {\"w\": \"$want\"}, \"pipeline\": [{\"$match\": {\"$expr\": "
     "{\"$eq\": [\"$_id\", \"$$w\"]}}}, {\"$project\": {\"_id\": 1}}], \"as\": \"s\"}}]",
     "[{\"_id\": 1, \"want\": \"shard01\", \"s\": [{\"_id\": \"shard01\"}]}]", 0 },
   { "$lookup unknown collection", "[{\"_id\": 1}]",
     "[{\"$lookup\": {\"from\": \"nothing\", \"localField\": \"a\", \"foreignField\": \"b\", \"as\": \"s\"}}]",
     "[{\"_id\": 1, \"s\": []}]", 0 },
   { "$lookup missing as", "[]",
     "[{\"$lookup\": {\"from\": \"shards\", \"localField\": \"a\", \"foreignField\": \"b\"}}]", NULL, 9 },

   /* --- $unionWith --- */
   { "$unionWith pipeline", "[{\"_id\": 1}]",
     "[{\"$unionWith\": {\"coll\": \"shards\", \"pipeline\": [{\"$sort\": {\"_id\": -1}}, {\"$limit\": 1}, "
     "{\"$project\": {\"_id\": 1}}]}}]",
     "[{\"_id\": 1}, {\"_id\": \"shard02\"}]", 0 },
   { "$unionWith name", "[]", "[{\"$unionWith\": \"shards\"}, {\"$count\": \"n\"}]", "[{\"n\": 2}]", 0 },
   { "$unionWith unknown collection", "[{\"_id\": 1}]", "[{\"$unionWith\": {\"coll\": \"nothing\"}}]", "[{\"_id\": 1}]",
     0 },
   { "$unionWith missing coll", "[]", "[{\"$unionWith\": {\"pipeline\": []}}]", NULL, 40414 },

   /* --- $facet $sample $replaceRoot $replaceWith $documents $sortByCount --- */
   { "$facet", "[{\"a\": 1}, {\"a\": 2}, {\"a\": 3}]",
     "[{\"$facet\": {\"n\": [{\"$count\": \"c\"}], \"big\": [{\"$match\": {\"a\": {\"$gt\": 1}}}, {\"$project\": "
     "{\"_id\": 0}}]}}]",
     "[{\"n\": [{\"c\": 3}], \"big\": [{\"a\": 2}, {\"a\": 3}]}]", 0 },
   { "$facet bad", "[]", "[{\"$facet\": {\"x\": 1}}]", NULL, 40170 },
   { "$sample all", "[{\"_id\": 1}]", "[{\"$sample\": {\"size\": 5}}]", "[{\"_id\": 1}]", 0 },
   { "$sample size 0", "[{\"_id\": 1}]", "[{\"$sample\": {\"size\": 0}}]", "[]", 0 },
   { "$sample no size", "[]", "[{\"$sample\": {}}]", NULL, 28749 },
   { "$replaceRoot", "[{\"_id\": 1, \"d\": {\"x\": 1}}]", "[{\"$replaceRoot\": {\"newRoot\": \"$d\"}}]", "[{\"x\": 1}]",
     0 },
   { "$replaceWith", "[{\"_id\": 1, \"d\": {\"x\": 1}}]",
     "[{\"$replaceWith\": {\"$mergeObjects\": [\"$d\", {\"id\": \"$_id\"}]}}]", "[{\"x\": 1, \"id\": 1}]", 0 },
   { "$replaceRoot not object", "[{\"_id\": 1}]", "[{\"$replaceRoot\": {\"newRoot\": \"$nope\"}}]", NULL, 40228 },
   { "$documents", "[{\"ignored\": 1}]", "[{\"$documents\": [{\"a\": 1}, {\"a\": 2}]}]", "[{\"a\": 1}, {\"a\": 2}]",
     0 },
   { "$documents not first", "[]", "[{\"$match\": {}}, {\"$documents\": []}]", NULL, 40602 },
   { "$sortByCount", "[{\"k\": \"a\"}, {\"k\": \"b\"}, {\"k\": \"b\"}]", "[{\"$sortByCount\": \"$k\"}]",
     "[{\"_id\": \"b\", \"count\": 2}, {\"_id\": \"a\", \"count\": 1}]", 0 },

   /* --- pipeline-level errors --- */
   { "unknown stage", "[]", "[{\"$bogus\": {}}]", NULL, 40324 },
   { "stage with two fields", "[]", "[{\"$match\": {}, \"$limit\": 1}]", NULL, 40323 },
   { "stage not an object", "[]", "[1]", NULL, 14 },
   { "$match unknown operator on empty input", "[]", "[{\"$match\": {\"a\": {\"$nope\": 1}}}]", NULL, 2 },

   /* --- expressions --- */
   { "expr arithmetic",
     "[{\"a\": 7, \"b\": 2, \"d\": {\"$date\": \"2024-01-02T00:00:00Z\"}, \"l\": {\"$numberLong\": \"3\"}}]",
     "[{\"$project\": {\"_id\": 0, \"add\": {\"$add\": [\"$a\", \"$b\", 1]}, \"addl\": {\"$add\": [\"$a\", \"$l\"]}, "
     "\"sub\": {\"$subtract\": [\"$a\", \"$b\"]}, \"mul\": {\"$multiply\": [\"$a\", \"$b\"]}, \"div\": {\"$divide\": "
     "[\"$a\", \"$b\"]}, \"mod\": {\"$mod\": [\"$a\", \"$b\"]}, \"dplus\": {\"$add\": [\"$d\", 1000]}, \"ddiff\": "
     "{\"$subtract\": [\"$d\", {\"$date\": \"2024-01-01T00:00:00Z\"}]}, \"nul\": {\"$add\": [\"$a\", \"$zz\"]}, "
     "\"abs\": {\"$abs\": -3}, \"fl\": {\"$floor\": 2.5}, \"ce\": {\"$ceil\": 2.5}}}]",
     "[{\"add\": 10, \"addl\": {\"$numberLong\": \"10\"}, \"sub\": 5, \"mul\": 14, \"div\": 3.5, \"mod\": 1, "
     "\"dplus\": "
     "{\"$date\": \"2024-01-02T00:00:01Z\"}, \"ddiff\": {\"$numberLong\": \"86400000\"}, \"nul\": null, \"abs\": 3, "
     "\"fl\": 2.0, \"ce\": 3.0}]",
     0 },
   { "expr overflow to long", "[{\"a\": 2147483647}]",
     "[{\"$project\": {\"_id\": 0, \"x\": {\"$add\": [\"$a\", 1]}, \"y\": {\"$multiply\": [\"$a\", 2]}}}]",
     "[{\"x\": {\"$numberLong\": \"2147483648\"}, \"y\": {\"$numberLong\": \"4294967294\"}}]", 0 },
   { "expr comparisons and logic", "[{\"a\": 5, \"s\": \"x\"}]",
     "[{\"$project\": {\"_id\": 0, \"eq\": {\"$eq\": [\"$a\", 5.0]}, \"ne\": {\"$ne\": [\"$a\", 5]}, \"gt\": {\"$gt\": "
     "[\"$a\", 4]}, \"gte\": {\"$gte\": [\"$a\", 6]}, \"lt\": {\"$lt\": [\"$a\", \"$s\"]}, \"lte\": {\"$lte\": [5, "
     "\"$a\"]}, \"cmp\": {\"$cmp\": [\"$s\", \"w\"]}, \"and\": {\"$and\": [1, \"$a\"]}, \"or\": {\"$or\": [0, null]}, "
     "\"not\": {\"$not\": [\"$nope\"]}, \"missEqNull\": {\"$eq\": [\"$nope\", null]}}}]",
     "[{\"eq\": true, \"ne\": false, \"gt\": true, \"gte\": false, \"lt\": true, \"lte\": true, \"cmp\": 1, \"and\": "
     "true, \"or\": false, \"not\": true, \"missEqNull\": false}]",
     0 },
   { "expr cond ifNull switch", "[{\"a\": 5, \"n\": null}]",
     "[{\"$project\": {\"_id\": 0, \"c1\": {\"$cond\": [{\"$gt\": [\"$a\", 3]}, \"big\", \"small\"]}, \"c2\": "
     "{\"$cond\": "
     "{\"if\": false, \"then\": 1, \"else\": 2}}, \"i1\": {\"$ifNull\": [\"$n\", \"$nope\", \"dflt\"]}, \"i2\": "
     "{\"$ifNull\": [\"$a\", 0]}, \"sw\": {\"$switch\": {\"branches\": [{\"case\": {\"$eq\": [\"$a\", 1]}, \"then\": "
     "\"one\"}, {\"case\": {\"$eq\": [\"$a\", 5]}, \"then\": \"five\"}], \"default\": \"other\"}}}}]",
     "[{\"c1\": \"big\", \"c2\": 2, \"i1\": \"dflt\", \"i2\": 5, \"sw\": \"five\"}]", 0 },
   { "expr strings", "[{\"s\": \"Hello,World\", \"n\": 42, \"d\": 2.5}]",
     "[{\"$project\": {\"_id\": 0, \"cat\": {\"$concat\": [\"$s\", \"!\"]}, \"catnull\": {\"$concat\": [\"a\", "
     "\"$nope\"]}, \"split\": {\"$split\": [\"$s\", \",\"]}, \"sub\": {\"$substr\": [\"$s\", 0, 5]}, \"subcp\": "
     "{\"$substrCP\": [\"$s\", 6, 100]}, \"lo\": {\"$toLower\": \"$s\"}, \"up\": {\"$toUpper\": \"$s\"}, \"ts\": "
     "{\"$toString\": \"$n\"}, \"td\": {\"$toString\": \"$d\"}, \"tb\": {\"$toString\": true}, \"len\": "
     "{\"$strLenBytes\": \"$s\"}, \"ti\": {\"$toInt\": \"17\"}, \"tl\": {\"$toLong\": 5}, \"tdb\": {\"$toDouble\": "
     "\"2.5\"}, \"tbool\": {\"$toBool\": 0}}}]",
     "[{\"cat\": \"Hello,World!\", \"catnull\": null, \"split\": [\"Hello\", \"World\"], \"sub\": \"Hello\", "
     "\"subcp\": "
     "\"World\", \"lo\": \"hello,world\", \"up\": \"HELLO,WORLD\", \"ts\": \"42\", \"td\": \"2.5\", \"tb\": \"true\", "
     "\"len\": 11, \"ti\": 17, \"tl\": {\"$numberLong\": \"5\"}, \"tdb\": 2.5, \"tbool\": false}]",
     0 },
   { "expr arrays", "[{\"t\": [3, 1, 2], \"o\": [{\"k\": 1}, {\"k\": 2}, {\"j\": 3}]}]",
     "[{\"$project\": {\"_id\": 0, \"size\": {\"$size\": \"$t\"}, \"at\": {\"$arrayElemAt\": [\"$t\", -1]}, \"oob\": "
     "{\"$arrayElemAt\": [\"$t\", 9]}, \"first\": {\"$first\": \"$t\"}, \"last\": {\"$last\": \"$t\"}, \"in\": "
     "{\"$in\": "
     "[2, \"$t\"]}, \"max\": {\"$max\": \"$t\"}, \"min\": {\"$min\": [4, 2, null]}, \"sum\": {\"$sum\": \"$t\"}, "
     "\"avg\": "
     "{\"$avg\": \"$t\"}, \"ks\": \"$o.k\", \"isA\": {\"$isArray\": \"$t\"}, \"cc\": {\"$concatArrays\": [\"$t\", "
     "[9]]}, "
     "\"rev\": {\"$reverseArray\": \"$t\"}, \"sl\": {\"$slice\": [\"$t\", 1, 1]}, \"map\": {\"$map\": {\"input\": "
     "\"$t\", "
     "\"as\": \"x\", \"in\": {\"$multiply\": [\"$$x\", 10]}}}, \"filt\": {\"$filter\": {\"input\": \"$t\", \"cond\": "
     "{\"$gte\": [\"$$this\", 2]}}}, \"let\": {\"$let\": {\"vars\": {\"v\": 5}, \"in\": {\"$add\": [\"$$v\", 1]}}}}}]",
     "[{\"size\": 3, \"at\": 2, \"first\": 3, \"last\": 2, \"in\": true, \"max\": 3, \"min\": 2, \"sum\": 6, \"avg\": "
     "2.0, \"ks\": [1, 2], \"isA\": true, \"cc\": [3, 1, 2, 9], \"rev\": [2, 1, 3], \"sl\": [1], \"map\": [30, 10, "
     "20], "
     "\"filt\": [3, 2], \"let\": 6}]",
     0 },
   { "expr variables", "[{\"_id\": 1, \"a\": 2}]",
     "[{\"$project\": {\"_id\": 0, \"root\": \"$$ROOT\", \"cur\": \"$$CURRENT.a\", \"now\": \"$$NOW\", \"ty\": "
     "{\"$xtype\": "
     "\"$nope\"}, \"ty2\": {\"$xtype\": \"$a\"}}}]",
     "[{\"root\": {\"_id\": 1, \"a\": 2}, \"cur\": 2, \"now\": {\"$date\": \"2024-01-02T03:04:05Z\"}, \"ty\": "
     "\"missing\", \"ty2\": \"int\"}]",
     0 },
   { "expr $toHashedIndexKey", "[{\"k\": \"abc\", \"o\": {\"a\": \"abc\", \"b\": {\"$numberLong\": \"123\"}}}]",
     "[{\"$project\": {\"_id\": 0, \"h\": {\"$toHashedIndexKey\": \"$k\"}, \"ho\": {\"$toHashedIndexKey\": \"$o\"}, "
     "\"hn\": {\"$toHashedIndexKey\": null}}}]",
     "[{\"h\": {\"$numberLong\": \"8478485326885698097\"}, \"ho\": {\"$numberLong\": \"4771603801758380216\"}, \"hn\": "
     "{\"$numberLong\": \"2338878944348059895\"}}]",
     0 },
   { "expr unknown operator", "[{\"a\": 1}]", "[{\"$project\": {\"x\": {\"$bogus\": 1}}}]", NULL, 168 },
   { "expr two-field operator object", "[{\"a\": 1}]", "[{\"$project\": {\"x\": {\"$add\": [1], \"$sub\": 1}}}]", NULL,
     15983 },
   { "expr $add string", "[{\"a\": \"s\"}]", "[{\"$project\": {\"x\": {\"$add\": [\"$a\", 1]}}}]", NULL, 14 },
   { "expr $divide zero", "[{\"a\": 1}]", "[{\"$project\": {\"x\": {\"$divide\": [\"$a\", 0]}}}]", NULL, 2 },
   { "expr $mod zero", "[{\"a\": 1}]", "[{\"$project\": {\"x\": {\"$mod\": [\"$a\", 0]}}}]", NULL, 16610 },
   { "expr $size non-array", "[{\"a\": 1}]", "[{\"$project\": {\"x\": {\"$size\": \"$a\"}}}]", NULL, 17124 },
   { "expr $concat int", "[{\"a\": 1}]", "[{\"$project\": {\"x\": {\"$concat\": [\"$a\"]}}}]", NULL, 16702 },
   { "expr $arrayElemAt non-array", "[{\"a\": 1}]", "[{\"$project\": {\"x\": {\"$arrayElemAt\": [\"$a\", 0]}}}]", NULL,
     28689 },
   { "expr $eq arity", "[{\"a\": 1}]", "[{\"$project\": {\"x\": {\"$eq\": [1]}}}]", NULL, 16020 },
   { "expr $in non-array", "[{\"a\": 1}]", "[{\"$project\": {\"x\": {\"$in\": [1, 1]}}}]", NULL, 40081 },
   { "expr $split non-string", "[{\"a\": 1}]", "[{\"$project\": {\"x\": {\"$split\": [\"$a\", \",\"]}}}]", NULL,
     40085 },
   { "expr $toString object", "[{\"a\": {}}]", "[{\"$project\": {\"x\": {\"$toString\": \"$a\"}}}]", NULL, 241 },
   { "expr undefined variable", "[{\"a\": 1}]", "[{\"$project\": {\"x\": \"$$nope\"}}]", NULL, 17276 },
   { "expr $cond missing if", "[{\"a\": 1}]", "[{\"$project\": {\"x\": {\"$cond\": {\"then\": 1, \"else\": 2}}}}]",
     NULL, 17080 },
   { "expr $ifNull one arg", "[{\"a\": 1}]", "[{\"$project\": {\"x\": {\"$ifNull\": [1]}}}]", NULL, 1257300 },
   { "expr decimal arithmetic refused", "[{\"a\": {\"$numberDecimal\": \"1.5\"}}]",
     "[{\"$project\": {\"x\": {\"$add\": [\"$a\", 1]}}}]", NULL, 238 },
};

static void
test_aggregate (void)
{
   test_env_t t;
   simq_env_t env = { 0 };

   docs_from_json (lookup_foreign, &t.shards);
   t.stage_calls = 0;
   env.ud = &t;
   env.collection = test_collection;
   env.stage = test_stage;
   env.now_ms = NOW_MS;

   for (size_t i = 0; i < sizeof agg_cases / sizeof agg_cases[0]; i++) {
      simq_docs_t in, out;
      char *wrapped = bson_strdup_printf ("{\"p\": %s}", agg_cases[i].pipeline);
      bson_t *w = json (wrapped), pipeline;
      bson_iter_t it;
      bson_error_t error = { 0 };
      const uint8_t *data;
      uint32_t len;
      char name[96];
      bool ok;

      bson_iter_init_find (&it, w, "p");
      bson_iter_array (&it, &len, &data);
      bson_init_static (&pipeline, data, len);
      docs_from_json (agg_cases[i].input, &in);
      simq_docs_init (&out);
      ok = simq_aggregate (&in, &pipeline, &env, &out, &error);
      snprintf (name, sizeof name, "aggregate %s", agg_cases[i].name);
      if (agg_cases[i].code) {
         if (ok || (int) error.code != agg_cases[i].code) {
            UNIT_FAIL (name, "want code %d got ok=%d code=%u (%s)", agg_cases[i].code, (int) ok, error.code,
                       error.message);
         } else {
            UNIT_PASS (name);
         }
      } else if (!ok) {
         UNIT_FAIL (name, "failed: %u %s", error.code, error.message);
      } else {
         char *got = docs_canonical (&out), *want = expected_canonical (agg_cases[i].expected);
         CHECK_STR (name, want, got);
         bson_free (got);
         bson_free (want);
      }
      simq_docs_clear (&in);
      simq_docs_clear (&out);
      bson_destroy (w);
      bson_free (wrapped);
   }
   CHECK ("aggregate stage hook was consulted", t.stage_calls >= 3);
   simq_docs_clear (&t.shards);
}

static bool
test_big_collection (void *ud, const char *coll, const simq_docs_t **docs)
{
   *docs = ud;
   (void) coll;
   return true;
}

/* $lookup on a top-level foreignField over more than 16 documents answers from an index built once per stage: each
 * local value must find exactly what a scan with the query matcher ({k: {$in: [value]}}) finds, in collection
 * order: strings, numbers equal across int32/int64/double, documents, array elements, and nothing for a missing
 * field (a null local value still matches documents without the field, through the scan). */
static void
test_lookup_indexed (void)
{
   static const char *const values[] = { "\"a\"",          "\"b\"",      "1",   "{\"$numberLong\": \"1\"}", "1.0", "2",
                                         "[\"a\", \"z\"]", "{\"x\": 1}", "null" };
   static const char *const probes[] = { "\"a\"",      "\"z\"",    "1",   "{\"$numberDouble\": \"2.0\"}",
                                         "{\"x\": 1}", "\"none\"", "null" };
   bson_string_t *foreign_json = bson_string_new ("[");
   simq_docs_t foreign;
   simq_env_t env = { 0 };
   for (int i = 0; i < 60; i++) {
      if (i % 10 == 9)
         bson_string_append_printf (foreign_json, "%s{\"i\": %d}", i ? ", " : "", i); /* no k at all */
      else
         bson_string_append_printf (foreign_json, "%s{\"i\": %d, \"k\": %s}", i ? ", " : "", i,
                                    values[i % (int) (sizeof values / sizeof values[0])]);
   }
   bson_string_append (foreign_json, "]");
   docs_from_json (foreign_json->str, &foreign);
   env.ud = &foreign;
   env.collection = test_big_collection;
   for (size_t p = 0; p < sizeof probes / sizeof probes[0]; p++) {
      char *input = bson_strdup_printf ("[{\"_id\": 1, \"l\": %s}]", probes[p]);
      char *filter_json = bson_strdup_printf ("{\"k\": {\"$in\": [%s]}}", probes[p]);
      bson_t *filter = json (filter_json);
      bson_t *pipeline = json ("{\"0\": {\"$lookup\": {\"from\": \"big\", \"localField\": \"l\", \"foreignField\": "
                               "\"k\", \"as\": \"m\"}}, \"1\": {\"$project\": {\"_id\": 0, \"m.i\": 1}}}");
      bson_string_t *want = bson_string_new ("[{\"m\": [");
      simq_docs_t in, out;
      bson_error_t error = { 0 };
      char name[96];
      bool first = true;
      for (size_t f = 0; f < foreign.n; f++) {
         bool m = false;
         bson_iter_t it;
         simq_match (foreign.v[f], filter, &m, &error);
         if (m && bson_iter_init_find (&it, foreign.v[f], "i")) {
            bson_string_append_printf (want, "%s{\"i\": %d}", first ? "" : ", ", bson_iter_int32 (&it));
            first = false;
         }
      }
      bson_string_append (want, "]}]");
      docs_from_json (input, &in);
      simq_docs_init (&out);
      snprintf (name, sizeof name, "aggregate $lookup indexed, local value %s", probes[p]);
      if (!simq_aggregate (&in, pipeline, &env, &out, &error)) {
         UNIT_FAIL (name, "failed: %u %s", error.code, error.message);
      } else {
         char *got = docs_canonical (&out), *expected = expected_canonical (want->str);
         CHECK_STR (name, expected, got);
         /* every probe but "none" matches something, so the comparison above is not of two empty lists */
         snprintf (name, sizeof name, "aggregate $lookup indexed, local value %s finds documents", probes[p]);
         CHECK (name, !first || strcmp (probes[p], "\"none\"") == 0);
         bson_free (got);
         bson_free (expected);
      }
      simq_docs_clear (&in);
      simq_docs_clear (&out);
      bson_string_free (want, true);
      bson_destroy (pipeline);
      bson_destroy (filter);
      bson_free (filter_json);
      bson_free (input);
   }
   simq_docs_clear (&foreign);
   bson_string_free (foreign_json, true);
}

/* $sample picks a random subset of the requested size without repeats. */
static void
test_sample (void)
{
   simq_docs_t in, out;
   bson_t *p = json ("{\"0\": {\"$sample\": {\"size\": 3}}}");
   simq_env_t env = { 0 };
   bson_error_t error;
   bool ok, distinct = true;

   docs_from_json ("[{\"_id\": 1}, {\"_id\": 2}, {\"_id\": 3}, {\"_id\": 4}, {\"_id\": 5}]", &in);
   simq_docs_init (&out);
   env.now_ms = NOW_MS;
   ok = simq_aggregate (&in, p, &env, &out, &error);
   for (size_t i = 0; ok && i < out.n; i++) {
      for (size_t j = i + 1; j < out.n; j++) {
         distinct = distinct && !bson_equal (out.v[i], out.v[j]);
      }
   }
   CHECK ("aggregate $sample size and distinct", ok && out.n == 3 && distinct);
   simq_docs_clear (&in);
   simq_docs_clear (&out);
   bson_destroy (p);
}

int
main (void)
{
   test_compare ();
   test_get_path ();
   test_match ();
   test_match_errors ();
   test_project ();
   test_sort ();
   test_update ();
   test_seed ();
   test_aggregate ();
   test_lookup_indexed ();
   test_sample ();
   UNIT_EXIT ();
}
