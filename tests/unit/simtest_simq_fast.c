/* passes: plain asan */
/* Unit tests for the query engine's fast paths (tests/shardsim/query/simq_sort.c, simq_agg.c, simq_agg_lookup.c,
 * simq_agg_group.c), each checked against the plain path on tricky inputs: a $sort followed by $limit (the bounded
 * top-k) against $sort and $limit run as two pipelines (the full stable sort, then the first n); a $lookup's
 * sub-pipeline, whose first stage reads the indexed matches in place, against a scan with the query matcher and the
 * sub-pipeline's stages run one at a time over copies; $group on a top-level "$field" against the same key through
 * the expression evaluator ("$$CURRENT.field"); $group accumulators on a top-level "$field" or a number against the
 * same argument through the evaluator. Keys mix BSON types (numbers equal across int32/int64/double/decimal,
 * strings, documents, arrays, empty arrays, null, missing, MinKey, MaxKey, booleans, dates), with many equal keys, so
 * the order of ties (input order) shows. */
#include "tests/unit/simq_cases.h"

static const char *const min_values[] = {
   "{\"$minKey\": 1}",
   "{\"$maxKey\": 1}",
   "5",
   "5.0",
   "{\"$numberLong\": \"5\"}",
   "{\"$numberDecimal\": \"5\"}",
   "\"5\"",
   "\"a\"",
   "{\"x\": 1}",
   "{\"x\": {\"$minKey\": 1}}",
   "[3, 9]",
   "[]",
   "null",
   NULL, /* no min field */
   "true",
   "{\"$date\": \"2024-01-02T03:04:05Z\"}",
   "-1.5",
   "{\"x\": 1, \"y\": 2}",
   "[{\"x\": 0}]",
   "\"a\"",
   "5",
};
#define N_MIN (sizeof min_values / sizeof min_values[0])

static const char *const u_values[] = { "\"A\"", "\"B\"", "1", "1.0", "[\"A\", \"C\"]", NULL, "\"A\"" };
#define N_U (sizeof u_values / sizeof u_values[0])

/* 120 documents { i, u, min }: every min value under every u value, in an order that is neither sorted nor the
 * reverse. */
static void
fast_foreign (simq_docs_t *docs)
{
   bson_string_t *s = bson_string_new ("[");
   for (int i = 0; i < 120; i++) {
      const char *u = u_values[(size_t) (i * 5) % N_U], *m = min_values[(size_t) (i * 7) % N_MIN];
      bson_string_append_printf (s, "%s{\"i\": %d", i ? ", " : "", i);
      if (u)
         bson_string_append_printf (s, ", \"u\": %s", u);
      if (m)
         bson_string_append_printf (s, ", \"min\": %s", m);
      bson_string_append (s, "}");
   }
   bson_string_append (s, "]");
   docs_from_json (s->str, docs);
   bson_string_free (s, true);
}

static bool
fast_collection (void *ud, const char *coll, const simq_docs_t **docs)
{
   (void) coll;
   *docs = ud;
   return true;
}

/* Runs the stages of pipeline_json (a JSON array) one pipeline each over in (borrowed), into out; the last stage's
 * error in *error. replace_id, when set, replaces a $group's _id with this expression (the evaluator's path). */
static bool
fast_plain (const simq_docs_t *in, const char *pipeline_json, const char *replace_id, const simq_env_t *env,
            simq_docs_t *out, bson_error_t *error)
{
   char *wrapped = bson_strdup_printf ("{\"p\": %s}", pipeline_json);
   bson_t *w = json (wrapped);
   bson_iter_t it, st;
   simq_docs_t cur;
   bool ok = true;

   simq_docs_init (&cur);
   for (size_t i = 0; i < in->n; i++)
      simq_docs_push_copy (&cur, in->v[i]);
   bson_iter_init_find (&it, w, "p");
   bson_iter_recurse (&it, &st);
   while (ok && bson_iter_next (&st)) {
      bson_t stage, one = BSON_INITIALIZER, fixed = BSON_INITIALIZER;
      simq_docs_t next;
      bson_iter_t si;
      const uint8_t *data;
      uint32_t len;
      bson_iter_document (&st, &len, &data);
      bson_init_static (&stage, data, len);
      if (replace_id && bson_iter_init_find (&si, &stage, "$group")) {
         bson_t g;
         bson_iter_t gk;
         BSON_APPEND_DOCUMENT_BEGIN (&fixed, "$group", &g);
         bson_iter_recurse (&si, &gk);
         while (bson_iter_next (&gk)) {
            if (strcmp (bson_iter_key (&gk), "_id") == 0)
               BSON_APPEND_UTF8 (&g, "_id", replace_id);
            else
               bson_append_value (&g, bson_iter_key (&gk), -1, bson_iter_value (&gk));
         }
         bson_append_document_end (&fixed, &g);
      } else {
         bson_concat (&fixed, &stage);
      }
      BSON_APPEND_DOCUMENT (&one, "0", &fixed);
      simq_docs_init (&next);
      ok = simq_aggregate (&cur, &one, env, &next, error);
      simq_docs_clear (&cur);
      cur = next;
      bson_destroy (&one);
      bson_destroy (&fixed);
   }
   for (size_t i = 0; ok && i < cur.n; i++)
      simq_docs_push_copy (out, cur.v[i]);
   simq_docs_clear (&cur);
   bson_destroy (w);
   bson_free (wrapped);
   return ok;
}

/* Checks that a fast path's run (ok1, e1, fast) answered as the plain run (ok2, e2, plain): the same documents, or
 * the same error code; clears both result lists. */
static void
fast_same (const char *name, bool ok1, const bson_error_t *e1, simq_docs_t *fast, bool ok2, const bson_error_t *e2,
           simq_docs_t *plain)
{
   if (ok1 != ok2 || (!ok1 && e1->code != e2->code)) {
      UNIT_FAIL (name, "fast %s (%u %s), plain %s (%u %s)\n", ok1 ? "ok" : "failed", e1->code, e1->message,
                 ok2 ? "ok" : "failed", e2->code, e2->message);
   } else if (ok1) {
      char *a = docs_canonical (plain), *b = docs_canonical (fast);
      CHECK_STR (name, a, b);
      bson_free (a);
      bson_free (b);
   } else {
      UNIT_PASS (name);
   }
   simq_docs_clear (fast);
   simq_docs_clear (plain);
}

/* Compares the one-pipeline run of pipeline_json over docs with fast_plain's; errors must be the same code. */
static void
fast_compare (const char *name, const simq_docs_t *docs, const char *pipeline_json, const char *replace_id,
              const simq_env_t *env)
{
   simq_docs_t fast, plain;
   bson_error_t e1 = { 0 }, e2 = { 0 };
   bool ok1, ok2;

   simq_docs_init (&plain);
   ok1 = cases_aggregate (docs, pipeline_json, env, &fast, &e1);
   ok2 = fast_plain (docs, pipeline_json, replace_id, env, &plain, &e2);
   fast_same (name, ok1, &e1, &fast, ok2, &e2, &plain);
}

/* The sub-pipelines checked both ways: the fast shapes ($sort + $limit, $group first, $match first) and shapes that
 * are not ($sort + $skip, a dotted sort key, an invalid $limit or $sort, an empty pipeline). */
static const struct {
   const char *pipeline, *replace_id; /* replace_id: the plain path's $group _id */
} fast_pipelines[] = {
   { "[{\"$sort\": {\"min\": 1}}, {\"$limit\": 3}]", NULL },
   { "[{\"$sort\": {\"min\": 1}}, {\"$limit\": 1}]", NULL },
   { "[{\"$sort\": {\"min\": -1}}, {\"$limit\": 5}]", NULL },
   { "[{\"$sort\": {\"min\": 1}}, {\"$limit\": 1000}]", NULL },
   { "[{\"$sort\": {\"min\": 1}}, {\"$limit\": {\"$numberLong\": \"9223372036854775807\"}}]", NULL },
   { "[{\"$sort\": {\"min\": 1}}, {\"$limit\": 2.0}]", NULL },
   { "[{\"$sort\": {\"min\": 1, \"i\": -1}}, {\"$limit\": 4}]", NULL },
   { "[{\"$sort\": {\"u\": -1, \"min\": 1}}, {\"$limit\": 7}]", NULL },
   { "[{\"$sort\": {\"min.x\": 1}}, {\"$limit\": 3}]", NULL },
   { "[{\"$sort\": {\"min\": 1}}, {\"$skip\": 1}, {\"$limit\": 2}]", NULL },
   { "[{\"$sort\": {\"min\": 1}}, {\"$limit\": 2}, {\"$project\": {\"_id\": 0, \"i\": 1}}]", NULL },
   { "[{\"$sort\": {\"min\": 1}}, {\"$limit\": 3}, {\"$sort\": {\"i\": -1}}, {\"$limit\": 2}]", NULL },
   { "[{\"$sort\": {\"min\": 1}}]", NULL },
   { "[{\"$sort\": {\"min\": 1}}, {\"$limit\": 0}]", NULL },
   { "[{\"$sort\": {\"min\": 1}}, {\"$limit\": 1.5}]", NULL },
   { "[{\"$sort\": {\"min\": 2}}, {\"$limit\": 3}]", NULL },
   { "[{\"$sort\": {}}, {\"$limit\": 3}]", NULL },
   { "[{\"$match\": {\"i\": {\"$gte\": 10}}}, {\"$sort\": {\"min\": 1}}, {\"$limit\": 3}]", NULL },
   { "[{\"$group\": {\"_id\": \"$min\", \"n\": {\"$sum\": 1}, \"f\": {\"$first\": \"$i\"}}}]", "$$CURRENT.min" },
   { "[{\"$group\": {\"_id\": \"$u\", \"n\": {\"$sum\": 1}}}]", "$$CURRENT.u" },
   { "[{\"$group\": {\"_id\": \"$nothere\", \"n\": {\"$sum\": 1}}}]", "$$CURRENT.nothere" },
   /* a $lookup sub-pipeline of one $group writes its groups into the lookup's array: every accumulator kind, an
    * evaluated _id (owned keys), and a $sum that fails (decimal) */
   { "[{\"$group\": {\"_id\": \"$u\", \"p\": {\"$push\": \"$min\"}, \"s\": {\"$addToSet\": \"$min\"}, \"a\": "
     "{\"$avg\": \"$i\"}, \"x\": {\"$max\": \"$min\"}, \"y\": {\"$min\": \"$min\"}, \"l\": {\"$last\": \"$i\"}, "
     "\"c\": {\"$count\": {}}}}]",
     "$$CURRENT.u" },
   { "[{\"$group\": {\"_id\": {\"k\": \"$u\", \"m\": \"$min\"}, \"n\": {\"$sum\": \"$i\"}}}]", NULL },
   { "[{\"$group\": {\"_id\": \"$u\", \"t\": {\"$sum\": \"$min\"}}}]", "$$CURRENT.u" },
   { "[{\"$group\": {\"_id\": \"$min\", \"n\": {\"$sum\": 1}}}, {\"$sort\": {\"_id\": 1}}, {\"$limit\": 4}]",
     "$$CURRENT.min" },
   { "[]", NULL },
};
#define N_PIPELINES (sizeof fast_pipelines / sizeof fast_pipelines[0])

/* Each pipeline over the whole collection, as one pipeline and stage by stage. */
static void
test_fast_pipelines (const simq_docs_t *foreign)
{
   for (size_t p = 0; p < N_PIPELINES; p++) {
      char name[200];
      snprintf (name, sizeof name, "fast path = plain path: %s", fast_pipelines[p].pipeline);
      fast_compare (name, foreign, fast_pipelines[p].pipeline, fast_pipelines[p].replace_id, NULL);
   }
}

/* $sort + $limit for every k from 1 to past the end, on the whole collection, both directions. */
static void
test_fast_top_k (const simq_docs_t *foreign)
{
   for (int dir = -1; dir <= 1; dir += 2) {
      for (size_t k = 1; k <= foreign->n + 2; k++) {
         char pipeline[160], name[200];
         snprintf (pipeline, sizeof pipeline, "[{\"$sort\": {\"min\": %d}}, {\"$limit\": %zu}]", dir, k);
         snprintf (name, sizeof name, "fast path = plain path: $sort { min: %d } + $limit %zu", dir, k);
         fast_compare (name, foreign, pipeline, NULL, NULL);
      }
   }
}

/* Each pipeline as a $lookup sub-pipeline (localField u, foreignField u: the indexed matches, read in place) against
 * the matcher's scan ({ u: { $in: [value] } }) and the stages run one at a time. */
static void
test_fast_lookup (simq_docs_t *foreign)
{
   static const char *const locals[] = { "\"A\"", "\"B\"", "1", "\"C\"", "\"none\"", "5" };
   simq_env_t env = { 0 };
   env.ud = foreign;
   env.collection = fast_collection;
   for (size_t l = 0; l < sizeof locals / sizeof locals[0]; l++) {
      char *filter_json = bson_strdup_printf ("{\"u\": {\"$in\": [%s]}}", locals[l]);
      bson_t *filter = json (filter_json);
      simq_docs_t matched;
      size_t found = 0;
      simq_docs_init (&matched);
      for (size_t f = 0; f < foreign->n; f++) {
         bool m = false;
         bson_error_t e;
         if (simq_match (foreign->v[f], filter, &m, &e) && m) {
            simq_docs_push_copy (&matched, foreign->v[f]);
            found++;
         }
      }
      for (size_t p = 0; p < N_PIPELINES; p++) {
         char *pj = bson_strdup_printf ("{\"0\": {\"$lookup\": {\"from\": \"big\", \"localField\": \"u\", "
                                        "\"foreignField\": \"u\", \"pipeline\": %s, \"as\": \"m\"}}}",
                                        fast_pipelines[p].pipeline);
         char *inj = bson_strdup_printf ("[{\"_id\": 1, \"u\": %s}]", locals[l]);
         bson_t *pipeline = json (pj);
         simq_docs_t in, fast, plain;
         bson_error_t e1 = { 0 }, e2 = { 0 };
         char name[240];
         bool ok1, ok2;
         docs_from_json (inj, &in);
         simq_docs_init (&fast);
         simq_docs_init (&plain);
         snprintf (name, sizeof name, "fast $lookup = scan + plain stages: u %s, %s", locals[l],
                   fast_pipelines[p].pipeline);
         ok1 = simq_aggregate (&in, pipeline, &env, &fast, &e1);
         ok2 = fast_plain (&matched, fast_pipelines[p].pipeline, fast_pipelines[p].replace_id, NULL, &plain, &e2);
         if (ok1 != ok2 || (!ok1 && e1.code != e2.code)) {
            UNIT_FAIL (name, "fast %s (%u %s), plain %s (%u %s)\n", ok1 ? "ok" : "failed", e1.code, e1.message,
                       ok2 ? "ok" : "failed", e2.code, e2.message);
         } else if (ok1) {
            bson_t want = BSON_INITIALIZER, arr;
            simq_docs_t w;
            char *a, *b;
            bson_concat (&want, in.v[0]);
            BSON_APPEND_ARRAY_BEGIN (&want, "m", &arr);
            for (size_t r = 0; r < plain.n; r++) {
               char key[24];
               snprintf (key, sizeof key, "%zu", r);
               bson_append_document (&arr, key, -1, plain.v[r]);
            }
            bson_append_array_end (&want, &arr);
            simq_docs_init (&w);
            simq_docs_push_copy (&w, &want);
            a = docs_canonical (&w);
            b = docs_canonical (&fast);
            CHECK_STR (name, a, b);
            bson_free (a);
            bson_free (b);
            simq_docs_clear (&w);
            bson_destroy (&want);
         } else {
            UNIT_PASS (name);
         }
         simq_docs_clear (&in);
         simq_docs_clear (&fast);
         simq_docs_clear (&plain);
         bson_destroy (pipeline);
         bson_free (inj);
         bson_free (pj);
      }
      /* "A", "B" and 1 (also 1.0) match many documents, "C" only those whose u is an array, "none" and 5 none */
      char name[96];
      bool none = strcmp (locals[l], "\"none\"") == 0 || strcmp (locals[l], "5") == 0;
      snprintf (name, sizeof name, "fast $lookup: u %s matches what it should", locals[l]);
      CHECK (name, none ? found == 0 : found > (strcmp (locals[l], "\"C\"") == 0 ? 5u : 10u));
      simq_docs_clear (&matched);
      bson_destroy (filter);
      bson_free (filter_json);
   }
}

/* Two and three $lookup stages of one pipeline on the same collection and field share one index (the pipeline's
 * cache); run as separate pipelines each builds its own. Every document of the collection looks itself up. */
static void
test_fast_lookup_shared (simq_docs_t *foreign)
{
   static const char *const pipelines[] = {
      "[{\"$lookup\": {\"from\": \"big\", \"localField\": \"u\", \"foreignField\": \"u\", \"pipeline\": "
      "[{\"$sort\": {\"min\": 1}}, {\"$limit\": 2}], \"as\": \"a\"}}, {\"$lookup\": {\"from\": \"big\", "
      "\"localField\": \"u\", \"foreignField\": \"u\", \"pipeline\": [{\"$group\": {\"_id\": \"$min\", "
      "\"n\": {\"$sum\": 1}}}], \"as\": \"b\"}}, {\"$project\": {\"u\": 1, \"a.i\": 1, \"b\": 1}}]",
      "[{\"$lookup\": {\"from\": \"big\", \"localField\": \"u\", \"foreignField\": \"u\", \"as\": \"a\"}}, "
      "{\"$lookup\": {\"from\": \"big\", \"localField\": \"min\", \"foreignField\": \"min\", \"as\": "
      "\"b\"}}, {\"$lookup\": {\"from\": \"big\", \"localField\": \"u\", \"foreignField\": \"u\", \"as\": "
      "\"c\"}}, {\"$project\": {\"a.i\": 1, \"b.i\": 1, \"c.i\": 1}}]",
   };
   simq_env_t env = { 0 };
   env.ud = foreign;
   env.collection = fast_collection;
   for (size_t p = 0; p < sizeof pipelines / sizeof pipelines[0]; p++) {
      char name[64];
      snprintf (name, sizeof name, "$lookup stages sharing one index = one stage at a time #%zu", p);
      fast_compare (name, foreign, pipelines[p], NULL, &env);
   }
}

/* A $group accumulator on a top-level "$field" (read in place) or a number (used as is), and object expressions
 * whose fields are top-level "$field"s (appended in place), against the same arguments through the expression
 * evaluator ("$$CURRENT.field", {$literal: n}): the same groups, values and errors. The
 * fields mix types (min: decimal sums fail, $mergeObjects of non-documents fails), and some are missing. */
static void
test_fast_group_accs (const simq_docs_t *foreign)
{
   static const char *const accs[][2] = {
      { "{\"$max\": \"$min\"}", "{\"$max\": \"$$CURRENT.min\"}" },
      { "{\"$min\": \"$min\"}", "{\"$min\": \"$$CURRENT.min\"}" },
      { "{\"$first\": \"$min\"}", "{\"$first\": \"$$CURRENT.min\"}" },
      { "{\"$last\": \"$min\"}", "{\"$last\": \"$$CURRENT.min\"}" },
      { "{\"$push\": \"$min\"}", "{\"$push\": \"$$CURRENT.min\"}" },
      { "{\"$addToSet\": \"$u\"}", "{\"$addToSet\": \"$$CURRENT.u\"}" },
      { "{\"$sum\": \"$i\"}", "{\"$sum\": \"$$CURRENT.i\"}" },
      { "{\"$avg\": \"$i\"}", "{\"$avg\": \"$$CURRENT.i\"}" },
      { "{\"$sum\": \"$u\"}", "{\"$sum\": \"$$CURRENT.u\"}" },
      { "{\"$max\": \"$nothere\"}", "{\"$max\": \"$$CURRENT.nothere\"}" },
      { "{\"$sum\": \"$min\"}", "{\"$sum\": \"$$CURRENT.min\"}" },
      { "{\"$mergeObjects\": \"$min\"}", "{\"$mergeObjects\": \"$$CURRENT.min\"}" },
      { "{\"$sum\": 1}", "{\"$sum\": {\"$literal\": 1}}" },
      { "{\"$sum\": 2.5}", "{\"$sum\": {\"$literal\": 2.5}}" },
      { "{\"$sum\": {\"$numberLong\": \"3\"}}", "{\"$sum\": {\"$literal\": {\"$numberLong\": \"3\"}}}" },
      { "{\"$avg\": 1}", "{\"$avg\": {\"$literal\": 1}}" },
      { "{\"$max\": 7}", "{\"$max\": {\"$literal\": 7}}" },
      { "{\"$max\": {\"m\": \"$min\", \"x\": \"$nothere\", \"u\": \"$u\"}}",
        "{\"$max\": {\"m\": \"$$CURRENT.min\", \"x\": \"$$CURRENT.nothere\", \"u\": \"$$CURRENT.u\"}}" },
      { "{\"$push\": {\"i\": \"$i\", \"m\": \"$min\"}}",
        "{\"$push\": {\"i\": \"$$CURRENT.i\", \"m\": \"$$CURRENT.min\"}}" },
   };
   /* _id expressions, the second of each pair through the evaluator (object fields read in place in the first) */
   static const char *const ids[][2] = {
      { "\"$u\"", "\"$$CURRENT.u\"" },
      { "{\"c\": {\"$ifNull\": [\"$u\", \"$min\"]}, \"s\": \"$u\"}",
        "{\"c\": {\"$ifNull\": [\"$u\", \"$min\"]}, \"s\": \"$$CURRENT.u\"}" },
      { "{\"m\": \"$min\", \"n\": \"$nothere\"}", "{\"m\": \"$$CURRENT.min\", \"n\": \"$$CURRENT.nothere\"}" },
      { "null", "null" },
   };
   for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
      for (size_t a = 0; a < sizeof accs / sizeof accs[0]; a++) {
         char fast_p[400], plain_p[400], name[500];
         simq_docs_t fast, plain;
         bson_error_t e1 = { 0 }, e2 = { 0 };
         bool ok1, ok2;
         snprintf (fast_p, sizeof fast_p, "[{\"$group\": {\"_id\": %s, \"a\": %s, \"n\": {\"$sum\": 1}}}]", ids[k][0],
                   accs[a][0]);
         snprintf (plain_p, sizeof plain_p,
                   "[{\"$group\": {\"_id\": %s, \"a\": %s, \"n\": {\"$sum\": {\"$literal\": 1}}}}]", ids[k][1],
                   accs[a][1]);
         snprintf (name, sizeof name, "$group accumulator in place = evaluated: %s", fast_p);
         ok1 = cases_aggregate (foreign, fast_p, NULL, &fast, &e1);
         ok2 = cases_aggregate (foreign, plain_p, NULL, &plain, &e2);
         fast_same (name, ok1, &e1, &fast, ok2, &e2, &plain);
      }
   }
}

int
main (void)
{
   simq_docs_t foreign;
   fast_foreign (&foreign);
   test_fast_pipelines (&foreign);
   test_fast_top_k (&foreign);
   test_fast_lookup (&foreign);
   test_fast_lookup_shared (&foreign);
   test_fast_group_accs (&foreign);
   simq_docs_clear (&foreign);
   UNIT_EXIT ();
}
