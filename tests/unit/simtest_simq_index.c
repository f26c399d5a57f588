/* passes: plain asan */
/* Unit tests for the query engine's index-answered and in-place paths: simq_iter_find (a walk of the document's bytes)
 * against bson_iter_init_find on every BSON type, keys that are prefixes of others, repeated and absent keys, and
 * malformed documents; and $lookup answered by the caller's index (env->equal_docs, as shardsim's partitions and range
 * indexes answer config.chunks by uuid sorted by min) against the same $lookup without it (the engine's own scan and
 * sort): the same documents, in the same order, and the same errors, whether the index hands a superset in
 * collection order, the same sorted by the leading $sort's field, exactly the matches, or refuses. Foreign values mix
 * types (numbers equal across int32/double, arrays holding the value, missing fields) and mins tie, so both the
 * equality and the order of ties show; and comparisons ($eq … $cmp) reading a top-level field, a literal or a constant
 * in place against the same through the evaluator. */
#include "tests/unit/simq_cases.h"

/* ---- simq_iter_find ---- */

static void
iter_find_compare (const char *name, const bson_t *doc, const char *key)
{
   bson_iter_t a, b;
   bool fa = bson_iter_init_find (&a, doc, key), fb = simq_iter_find (&b, doc, key);
   char what[300];
   snprintf (what, sizeof what, "simq_iter_find = bson_iter_init_find: %s, key '%s'", name, key);
   if (fa != fb) {
      UNIT_FAIL (what, "libbson %s, simq_iter_find %s\n", fa ? "found" : "absent", fb ? "found" : "absent");
   } else if (fa && (bson_iter_offset (&a) != bson_iter_offset (&b) || bson_iter_type (&a) != bson_iter_type (&b) ||
                     strcmp (bson_iter_key (&a), bson_iter_key (&b)) != 0)) {
      UNIT_FAIL (what, "libbson at %u (type %d), simq_iter_find at %u (type %d)\n", bson_iter_offset (&a),
                 (int) bson_iter_type (&a), bson_iter_offset (&b), (int) bson_iter_type (&b));
   } else if (fa && bson_iter_next (&a) != bson_iter_next (&b)) {
      UNIT_FAIL (what, "the iteration after the element differs\n");
   } else {
      UNIT_PASS (what);
   }
   /* simq_find_value: the value bson_iter_value gives, the same bytes once appended */
   bson_value_t v;
   bool fv = simq_find_value (doc, key, &v);
   snprintf (what, sizeof what, "simq_find_value = bson_iter_value: %s, key '%s'", name, key);
   if (fv != fa) {
      UNIT_FAIL (what, "libbson %s, simq_find_value %s\n", fa ? "found" : "absent", fv ? "found" : "absent");
   } else if (fa) {
      bson_t x = BSON_INITIALIZER, y = BSON_INITIALIZER;
      bson_iter_init_find (&a, doc, key);
      bson_append_value (&x, "v", 1, bson_iter_value (&a));
      bson_append_value (&y, "v", 1, &v);
      CHECK (what, bson_equal (&x, &y));
      bson_destroy (&x);
      bson_destroy (&y);
   } else {
      UNIT_PASS (what);
   }
}

static const char *const find_keys[] = { "d",  "s",   "o", "a",  "bin", "u",  "oid", "t",  "dt",  "nul",
                                         "re", "dbp", "c", "sy", "cws", "i",  "ts",  "l",  "dec", "mn",
                                         "mx", "",    "x", "ss", "b",   "dd", "z",   "re2" };

static void
test_iter_find_types (void)
{
   bson_t *doc = bson_new (), sub = BSON_INITIALIZER, scope = BSON_INITIALIZER, arr = BSON_INITIALIZER;
   bson_oid_t oid;
   bson_decimal128_t dec;
   uint8_t bytes[5] = { 1, 2, 0, 4, 5 };
   bson_oid_init_from_string (&oid, "0123456789abcdef01234567");
   bson_decimal128_from_string ("1.5", &dec);
   BSON_APPEND_INT32 (&sub, "k", 1);
   BSON_APPEND_INT32 (&scope, "v", 2);
   BSON_APPEND_INT32 (&arr, "0", 3);
   BSON_APPEND_DOUBLE (doc, "d", 1.5);
   BSON_APPEND_UTF8 (doc, "s", "text");
   BSON_APPEND_DOCUMENT (doc, "o", &sub);
   BSON_APPEND_ARRAY (doc, "a", &arr);
   BSON_APPEND_BINARY (doc, "bin", BSON_SUBTYPE_BINARY, bytes, sizeof bytes);
   BSON_APPEND_UNDEFINED (doc, "u");
   BSON_APPEND_OID (doc, "oid", &oid);
   BSON_APPEND_BOOL (doc, "t", true);
   BSON_APPEND_DATE_TIME (doc, "dt", 1234);
   BSON_APPEND_NULL (doc, "nul");
   BSON_APPEND_REGEX (doc, "re", "^a.*", "i");
   BSON_APPEND_DBPOINTER (doc, "dbp", "db.coll", &oid);
   BSON_APPEND_CODE (doc, "c", "function () {}");
   BSON_APPEND_SYMBOL (doc, "sy", "sym");
   BSON_APPEND_CODE_WITH_SCOPE (doc, "cws", "f ()", &scope);
   BSON_APPEND_INT32 (doc, "i", 7);
   BSON_APPEND_TIMESTAMP (doc, "ts", 5, 6);
   BSON_APPEND_INT64 (doc, "l", 8);
   BSON_APPEND_DECIMAL128 (doc, "dec", &dec);
   BSON_APPEND_MINKEY (doc, "mn");
   BSON_APPEND_MAXKEY (doc, "mx");
   BSON_APPEND_UTF8 (doc, "", "empty key");
   BSON_APPEND_UTF8 (doc, "s", "second s"); /* a repeated key: the first one is found */
   BSON_APPEND_REGEX (doc, "re2", "", "");
   BSON_APPEND_BINARY (doc, "b2", BSON_SUBTYPE_BINARY_DEPRECATED, bytes, sizeof bytes);
   BSON_APPEND_BINARY (doc, "uu", BSON_SUBTYPE_UUID, bytes, 0);
   BSON_APPEND_UTF8 (doc, "es", "");
   for (size_t k = 0; k < sizeof find_keys / sizeof find_keys[0]; k++) {
      iter_find_compare ("every BSON type", doc, find_keys[k]);
   }
   /* an empty document */
   bson_t empty = BSON_INITIALIZER;
   iter_find_compare ("empty document", &empty, "a");
   iter_find_compare ("empty document", &empty, "");
   bson_destroy (&empty);
   bson_destroy (&sub);
   bson_destroy (&arr);
   bson_destroy (&scope);
   bson_destroy (doc);
}

/* Malformed documents (what a walk must not read past, and leaves to libbson): a string whose length runs past the
 * end, an unknown type, a terminator before the end, a string length of 0, one that stops short of its NUL. */
static void
test_iter_find_malformed (void)
{
   bson_t *good = BCON_NEW ("a", BCON_INT32 (1), "s", BCON_UTF8 ("xy"), "b", BCON_INT32 (2));
   const uint8_t *data = bson_get_data (good);
   uint32_t len = good->len;
   for (int variant = 0; variant < 5; variant++) {
      uint8_t *copy = bson_malloc (len);
      bson_t bad;
      char name[64];
      memcpy (copy, data, len);
      /* layout: len(4) | 0x10 'a' 0 int32(4) | 0x02 's' 0 int32 len 'x' 'y' 0 | 0x10 'b' 0 int32 | 0 */
      switch (variant) {
      case 0:
         copy[14] = 0x7f; /* the string's length: far past the end */
         break;
      case 1:
         copy[11] = 0x20; /* an unknown type for "s" */
         break;
      case 2:
         copy[11] = 0x00; /* a terminator before the end */
         break;
      case 3:
         copy[14] = 0x00; /* a string length of 0 (it must count its NUL) */
         break;
      default:
         copy[14] = 0x02; /* a string length that stops before its NUL */
         break;
      }
      snprintf (name, sizeof name, "malformed document #%d", variant);
      if (!bson_init_static (&bad, copy, len)) {
         UNIT_FAIL (name, "bson_init_static refused the copy\n");
      } else {
         iter_find_compare (name, &bad, "a");
         iter_find_compare (name, &bad, "s");
         iter_find_compare (name, &bad, "b");
         iter_find_compare (name, &bad, "zz");
      }
      bson_free (copy);
   }
   bson_destroy (good);
}

/* ---- $lookup answered by the caller's index ---- */

typedef enum { IX_SUPERSET, IX_EXACT, IX_UNSORTED_ONLY, IX_REFUSE } ix_mode_t;

/* The test's index: the foreign documents, and the arrays it handed out (freed at the end). */
typedef struct {
   simq_docs_t *foreign;
   ix_mode_t mode;
   const uint8_t ***handed;
   size_t nhanded;
   int answered;
} ix_t;

static bool
ix_collection (void *ud, const char *coll, const simq_docs_t **docs)
{
   (void) coll;
   *docs = ((ix_t *) ud)->foreign;
   return true;
}

static bool
ix_equal_docs (void *ud, const char *coll, const char *field, const bson_value_t *v, const char *order_field,
               const uint8_t *const **docs, size_t *n, bool *exact)
{
   ix_t *ix = ud;
   simq_docs_t view;
   bson_t filter = BSON_INITIALIZER, cond, list;
   bson_error_t error;
   (void) coll;
   if (ix->mode == IX_REFUSE || (ix->mode == IX_UNSORTED_ONLY && order_field)) {
      return false;
   }
   BSON_APPEND_DOCUMENT_BEGIN (&filter, field, &cond);
   BSON_APPEND_ARRAY_BEGIN (&cond, "$in", &list);
   bson_append_value (&list, "0", 1, v);
   bson_append_array_end (&cond, &list);
   bson_append_document_end (&filter, &cond);
   simq_docs_init (&view);
   for (size_t i = 0; i < ix->foreign->n; i++) {
      bool m = true;
      if (ix->mode == IX_EXACT) {
         simq_match (ix->foreign->v[i], &filter, &m, &error);
      }
      if (m) {
         simq_docs_push_owned (&view, ix->foreign->v[i]); /* borrowed */
      }
   }
   bson_destroy (&filter);
   if (order_field) { /* a stable sort on order_field: what a range index on it gives */
      bson_t sort = BSON_INITIALIZER;
      BSON_APPEND_INT32 (&sort, order_field, 1);
      simq_sort (&view, &sort, &error);
      bson_destroy (&sort);
   }
   ix->handed = bson_realloc (ix->handed, (ix->nhanded + 1) * sizeof *ix->handed);
   ix->handed[ix->nhanded] = bson_malloc0 ((view.n + 1) * sizeof (uint8_t *));
   for (size_t i = 0; i < view.n; i++) {
      ix->handed[ix->nhanded][i] = bson_get_data (view.v[i]);
   }
   *docs = (const uint8_t *const *) ix->handed[ix->nhanded++];
   *n = view.n;
   *exact = ix->mode == IX_EXACT;
   bson_free (view.v);
   ix->answered++;
   return true;
}

static void
ix_reset (ix_t *ix)
{
   for (size_t i = 0; i < ix->nhanded; i++) {
      bson_free (ix->handed[i]);
   }
   bson_free (ix->handed);
   ix->handed = NULL;
   ix->nhanded = 0;
   ix->answered = 0;
}

static const char *const ix_u[] = { "\"A\"", "\"B\"", "1", "1.0", "[\"A\", \"C\"]", NULL, "\"A\"", "2" };
static const char *const ix_min[] = {
   "{\"k\": {\"$minKey\": 1}}",
   "{\"k\": {\"$maxKey\": 1}}",
   "{\"k\": 5}",
   "{\"k\": 5.0}",
   "{\"k\": \"a\"}",
   "{\"k\": 1, \"j\": 2}",
   "{\"k\": 1}",
   "{\"j\": 0}",
   "{\"k\": 5}",
   "{\"k\": -1}",
};

/* 80 foreign documents { i, u, min } in an order that is neither sorted nor its reverse; with_arrays false leaves
 * out the array u values (an index that answers exactly never holds a document whose field is an array). */
static void
ix_foreign (bool with_arrays, simq_docs_t *docs)
{
   bson_string_t *s = bson_string_new ("[");
   for (int i = 0; i < 80; i++) {
      const char *u = ix_u[(size_t) (i * 3) % (sizeof ix_u / sizeof ix_u[0])];
      const char *m = ix_min[(size_t) (i * 7) % (sizeof ix_min / sizeof ix_min[0])];
      if (!with_arrays && u && u[0] == '[') {
         u = "\"C\"";
      }
      bson_string_append_printf (s, "%s{\"i\": %d", i ? ", " : "", i);
      if (u) {
         bson_string_append_printf (s, ", \"u\": %s", u);
      }
      bson_string_append_printf (s, ", \"min\": %s}", m);
   }
   bson_string_append (s, "]");
   docs_from_json (s->str, docs);
   bson_string_free (s, true);
}

static const char *const ix_pipelines[] = {
   NULL, /* localField / foreignField alone */
   "[]",
   "[{\"$group\": {\"_id\": \"$min\", \"n\": {\"$sum\": 1}}}]",
   "[{\"$sort\": {\"min\": 1}}, {\"$limit\": 3}, {\"$project\": {\"_id\": 0, \"i\": 1, \"min\": 1}}]",
   "[{\"$sort\": {\"min\": 1}}]",
   "[{\"$sort\": {\"min\": 1}}, {\"$limit\": 1}]",
   "[{\"$sort\": {\"min\": 1}}, {\"$limit\": 100}]",
   "[{\"$sort\": {\"min\": 1}}, {\"$limit\": 2}, {\"$sort\": {\"i\": -1}}]",
   "[{\"$sort\": {\"min\": 1.0}}, {\"$limit\": 4}]",
   "[{\"$sort\": {\"min\": -1}}, {\"$limit\": 2}]",
   "[{\"$sort\": {\"i\": 1}}, {\"$limit\": 2}]",
   "[{\"$sort\": {\"min\": 1, \"i\": -1}}, {\"$limit\": 3}]",
   "[{\"$sort\": {\"min.k\": 1}}, {\"$limit\": 3}]",
   "[{\"$sort\": {\"min\": 1}}, {\"$skip\": 1}, {\"$limit\": 2}]",
   "[{\"$sort\": {\"min\": 1}}, {\"$documents\": []}]",
   "[{\"$sort\": {\"min\": 1}}, {\"$limit\": 0}]",
   "[{\"$sort\": {\"min\": 1}}, {\"$limit\": 2}, {\"$bogus\": 1}]",
   "[{\"$sort\": {\"min\": 1}}, {\"$limit\": 2}, {\"$addFields\": {\"x\": \"$$x\"}}]",
};

static const char *const ix_locals =
   "[{\"l\": \"A\"}, {\"l\": \"B\"}, {\"l\": 1}, {\"l\": 1.0}, {\"l\": \"C\"}, {\"l\": [\"A\", \"B\"]}, {\"l\": null}, "
   "{\"q\": 1}, {\"l\": \"none\"}, {\"l\": 2}, {\"l\": [\"B\"]}, {\"l\": {\"$minKey\": 1}}]";

/* The $lookup of pipeline p (NULL: none) through env, into *out (the canonical JSON, or the error code). */
static char *
ix_run (const simq_docs_t *locals, const char *p, const simq_env_t *env)
{
   char *spec = bson_strdup_printf ("[{\"$lookup\": {\"from\": \"f\", \"localField\": \"l\", \"foreignField\": \"u\", "
                                    "%s%s%s\"as\": \"m\"}}]",
                                    p ? "\"let\": {\"x\": \"$l\"}, \"pipeline\": " : "", p ? p : "", p ? ", " : "");
   simq_docs_t out;
   bson_error_t error = { 0 };
   char *res;
   if (cases_aggregate (locals, spec, env, &out, &error)) {
      res = docs_canonical (&out);
   } else {
      res = bson_strdup_printf ("error %u", error.code);
   }
   simq_docs_clear (&out);
   bson_free (spec);
   return res;
}

static void
test_lookup_index (bool with_arrays, ix_mode_t mode, const char *mode_name)
{
   simq_docs_t foreign, locals;
   ix_t ix = { 0 };
   simq_env_t plain = { 0 }, indexed = { 0 };
   ix_foreign (with_arrays, &foreign);
   docs_from_json (ix_locals, &locals);
   ix.foreign = &foreign;
   ix.mode = mode;
   plain.ud = &ix;
   plain.collection = ix_collection;
   indexed = plain;
   indexed.equal_docs = ix_equal_docs;
   for (size_t p = 0; p < sizeof ix_pipelines / sizeof ix_pipelines[0]; p++) {
      char name[400];
      char *a = ix_run (&locals, ix_pipelines[p], &plain), *b;
      int plain_answers = ix.answered;
      b = ix_run (&locals, ix_pipelines[p], &indexed);
      snprintf (name, sizeof name, "$lookup answered by the index (%s, %s) = scanned: %s", mode_name,
                with_arrays ? "arrays in the foreign field" : "no arrays", ix_pipelines[p] ? ix_pipelines[p] : "none");
      CHECK_STR (name, a, b);
      snprintf (name, sizeof name, "the index answered (%s): %s", mode_name,
                ix_pipelines[p] ? ix_pipelines[p] : "none");
      /* every local document with one plain value asks it; a refusing index still is asked */
      CHECK (name, plain_answers == 0 && (mode == IX_REFUSE ? ix.answered == 0 : ix.answered > 0));
      bson_free (a);
      bson_free (b);
      ix_reset (&ix);
   }
   simq_docs_clear (&foreign);
   simq_docs_clear (&locals);
}

/* ---- comparisons with borrowed arguments ---- */

/* A comparison's arguments read in place (a top-level "$field", a { $literal }, a constant) against the same arguments
 * through the evaluator ("$$CURRENT.field", $ifNull around the literal or constant): the same results and errors,
 * over documents whose fields mix types and are sometimes missing. */
static void
test_compare_borrowed (void)
{
   static const char *const ops[] = { "$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$cmp" };
   static const char *const args[][2] = {
      { "\"$min\"", "\"$$CURRENT.min\"" },
      { "\"$u\"", "\"$$CURRENT.u\"" },
      { "\"$nothere\"", "\"$$CURRENT.nothere\"" },
      { "{\"$literal\": {\"k\": 5}}", "{\"$ifNull\": [{\"$literal\": {\"k\": 5}}, 0]}" },
      { "{\"$literal\": {\"k\": {\"$minKey\": 1}}}", "{\"$ifNull\": [{\"$literal\": {\"k\": {\"$minKey\": 1}}}, 0]}" },
      { "{\"$literal\": \"$u\"}", "{\"$ifNull\": [{\"$literal\": \"$u\"}, 0]}" },
      { "{\"$literal\": [1, 2]}", "{\"$ifNull\": [{\"$literal\": [1, 2]}, 0]}" },
      { "\"A\"", "{\"$ifNull\": [\"A\", 0]}" },
      { "5", "{\"$ifNull\": [5, 0]}" },
      { "true", "{\"$ifNull\": [true, 0]}" },
      { "null", "{\"$ifNull\": [null, null]}" },
   };
   simq_docs_t docs;
   ix_foreign (true, &docs);
   for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
      for (size_t a = 0; a < sizeof args / sizeof args[0]; a++) {
         for (size_t b = 0; b < sizeof args / sizeof args[0]; b += 2) {
            char fast[600], plain[600], name[700];
            simq_docs_t x, y;
            bson_error_t e1 = { 0 }, e2 = { 0 };
            bool ok1, ok2;
            snprintf (fast, sizeof fast, "[{\"$project\": {\"r\": {\"%s\": [%s, %s]}}}]", ops[o], args[a][0],
                      args[b][0]);
            snprintf (plain, sizeof plain, "[{\"$project\": {\"r\": {\"%s\": [%s, %s]}}}]", ops[o], args[a][1],
                      args[b][1]);
            snprintf (name, sizeof name, "comparison with borrowed arguments = evaluated: %s", fast);
            ok1 = cases_aggregate (&docs, fast, NULL, &x, &e1);
            ok2 = cases_aggregate (&docs, plain, NULL, &y, &e2);
            if (ok1 != ok2 || (!ok1 && e1.code != e2.code)) {
               UNIT_FAIL (name, "borrowed %s (%u), evaluated %s (%u)\n", ok1 ? "ok" : "failed", e1.code,
                          ok2 ? "ok" : "failed", e2.code);
            } else if (ok1) {
               char *cx = docs_canonical (&x), *cy = docs_canonical (&y);
               CHECK_STR (name, cy, cx);
               bson_free (cx);
               bson_free (cy);
            } else {
               UNIT_PASS (name);
            }
            simq_docs_clear (&x);
            simq_docs_clear (&y);
         }
      }
      /* the wrong number of arguments: the same error, whatever the arguments are */
      char one[200], three[200];
      simq_docs_t x;
      bson_error_t e = { 0 };
      snprintf (one, sizeof one, "[{\"$project\": {\"r\": {\"%s\": [\"$min\"]}}}]", ops[o]);
      snprintf (three, sizeof three, "[{\"$project\": {\"r\": {\"%s\": [\"$min\", 1, {\"$literal\": 2}]}}}]", ops[o]);
      CHECK (one, !cases_aggregate (&docs, one, NULL, &x, &e) && e.code == 16020);
      simq_docs_clear (&x);
      CHECK (three, !cases_aggregate (&docs, three, NULL, &x, &e) && e.code == 16020);
      simq_docs_clear (&x);
   }
   simq_docs_clear (&docs);
}

int
main (void)
{
   test_iter_find_types ();
   test_iter_find_malformed ();
   test_lookup_index (true, IX_SUPERSET, "a superset");
   test_lookup_index (false, IX_SUPERSET, "a superset");
   test_lookup_index (false, IX_EXACT, "exactly the matches");
   test_lookup_index (true, IX_UNSORTED_ONLY, "collection order only");
   test_lookup_index (true, IX_REFUSE, "refusing");
   test_compare_borrowed ();
   UNIT_EXIT ();
}
