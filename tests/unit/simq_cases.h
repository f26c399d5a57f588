/* Helpers shared by the query engine's unit tests (simtest_simq*.c): documents written as relaxed
 * extended JSON (with the $x-spelled operators libbson's reader would take for legacy syntax) and results compared as
 * canonical extended JSON, so numeric types must match exactly. */
#ifndef SHARDSH_SIMQ_CASES_H
#define SHARDSH_SIMQ_CASES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bson/bson.h>

#include "tests/shardsim/query/simq.h"
#include "tests/unit/unit.h"

/* ---- helpers ---- */

/* libbson's JSON reader takes "$type", "$regex" and "$options" keys for legacy binary / regex syntax, so the
 * tables spell those operators "$xtype", "$xregex", "$xoptions" and this copy renames them. */
static inline void
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

static inline bson_t *
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
static inline void
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

/* Runs pipeline_json (a JSON array of stages) over docs with env (NULL: none) into out (initialised here); false with
 * error set when the pipeline fails. */
static inline bool
cases_aggregate (const simq_docs_t *docs, const char *pipeline_json, const simq_env_t *env, simq_docs_t *out,
                 bson_error_t *error)
{
   char *wrapped = bson_strdup_printf ("{\"p\": %s}", pipeline_json);
   bson_t *w = json (wrapped), pipeline;
   bson_iter_t it;
   const uint8_t *data;
   uint32_t len;
   bool ok;

   bson_iter_init_find (&it, w, "p");
   bson_iter_array (&it, &len, &data);
   bson_init_static (&pipeline, data, len);
   simq_docs_init (out);
   ok = simq_aggregate (docs, &pipeline, env, out, error);
   bson_destroy (w);
   bson_free (wrapped);
   return ok;
}
/* The array as canonical JSON: [ {...}, {...} ]. Caller frees. */
static inline char *
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

static inline char *
expected_canonical (const char *array_json)
{
   simq_docs_t d;
   char *s;
   docs_from_json (array_json, &d);
   s = docs_canonical (&d);
   simq_docs_clear (&d);
   return s;
}

static inline char *
doc_canonical_json (const char *doc_json)
{
   bson_t *b = json (doc_json);
   char *s = bson_as_canonical_extended_json (b, NULL);
   bson_destroy (b);
   return s;
}

/* ---- value ordering ---- */

#endif
