/* passes: plain asan */
/* Unit tests for the simulator's query engine (tests/shardsim/query/simq*.c): value ordering, paths, matching,
 * projection, sorting, updates and upsert seeds, table-driven (helpers in simq_cases.h). Aggregation is in
 * simtest_simq_agg.c. */
#include "tests/unit/simq_cases.h"

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
   UNIT_EXIT ();
}
