/* The query engine's aggregation pipeline: $match $group $project $addFields/$set $unset $sort $limit $skip $unwind
 * $lookup $unionWith $count $facet $sample $replaceRoot/$replaceWith $documents $sortByCount, each with the server's
 * parse errors; any other stage is offered to the caller's hook (env->stage) and otherwise fails with 40324. */
#include "tests/shardsim/query/simq_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
simq_ectx_for (const bson_t *doc, const simq_env_t *env, simq_var_t *vars, simq_ectx_t *ctx)
{
   ctx->root = doc;
   ctx->current = doc;
   ctx->env = env;
   ctx->vars = vars;
}

/* Whether the caller wants the pipeline stopped (env->interrupted), asked at every 1024th document; error set. */
bool
simq_interrupted (const simq_env_t *env, size_t i, bson_error_t *error)
{
   return (i & 1023) == 0 && env && env->interrupted && env->interrupted (env->ud, error);
}

/* ---- $match ---- */

static bool
simq_stage_match (const bson_value_t *arg, const simq_docs_t *in, const simq_env_t *env, simq_var_t *vars,
                  simq_docs_t *out, bson_error_t *error)
{
   bson_t filter, empty = BSON_INITIALIZER;
   bool m;

   if (arg->value_type != BSON_TYPE_DOCUMENT || !simq_value_as_doc (arg, &filter)) {
      bson_destroy (&empty);
      return simq_fail (error, 15959, "the match filter must be an expression in an object");
   }
   /* Parse errors surface even when there is nothing to match. */
   if (in->n == 0) {
      simq_ectx_t ctx;
      simq_ectx_for (&empty, env, vars, &ctx);
      if (!simq_match_ctx (&empty, &filter, &ctx, &m, error)) {
         bson_destroy (&empty);
         return false;
      }
   }
   bson_destroy (&empty);
   for (size_t i = 0; i < in->n; i++) {
      simq_ectx_t ctx;
      if (simq_interrupted (env, i, error)) {
         return false;
      }
      simq_ectx_for (in->v[i], env, vars, &ctx);
      if (!simq_match_ctx (in->v[i], &filter, &ctx, &m, error)) {
         return false;
      }
      if (m) {
         simq_docs_push_copy (out, in->v[i]);
      }
   }
   return true;
}

/* ---- $project, $addFields, $unset ---- */

static bool
simq_stage_project (const bson_value_t *arg, const simq_docs_t *in, const simq_env_t *env, simq_var_t *vars,
                    simq_docs_t *out, bson_error_t *error)
{
   bson_t spec, empty = BSON_INITIALIZER;

   if (arg->value_type != BSON_TYPE_DOCUMENT || !simq_value_as_doc (arg, &spec)) {
      bson_destroy (&empty);
      return simq_fail (error, 15969, "$project specification must be an object");
   }
   if (in->n == 0) {
      bson_t tmp;
      simq_ectx_t ctx;
      bool ok;
      simq_ectx_for (&empty, env, vars, &ctx);
      ok = simq_project_ex (&empty, &spec, false, &ctx, &tmp, error);
      bson_destroy (&tmp);
      if (!ok) {
         bson_destroy (&empty);
         return false;
      }
   }
   bson_destroy (&empty);
   simq_proj_t *proj = NULL; /* parsed once, at the first document (a specification error is that document's) */
   for (size_t i = 0; i < in->n; i++) {
      simq_ectx_t ctx;
      bson_t res;
      if (simq_interrupted (env, i, error)) {
         simq_proj_free (proj);
         return false;
      }
      simq_ectx_for (in->v[i], env, vars, &ctx);
      if (!proj && !(proj = simq_proj_new (&spec, false, error))) {
         return false;
      }
      if (!simq_proj_apply (proj, in->v[i], &ctx, &res, error)) {
         bson_destroy (&res);
         simq_proj_free (proj);
         return false;
      }
      simq_docs_push_owned (out, bson_copy (&res));
      bson_destroy (&res);
   }
   simq_proj_free (proj);
   return true;
}

/* Flattens an $addFields specification into (path, expression) pairs: non-operator sub-objects name nested fields. */
typedef struct {
   char *path;
   bson_value_t expr; /* borrowed */
} simq_field_t;

typedef struct {
   simq_field_t *v;
   size_t n;
   size_t cap;
} simq_fields_t;

static void
simq_fields_destroy (simq_fields_t *f)
{
   for (size_t i = 0; i < f->n; i++) {
      bson_free (f->v[i].path);
   }
   bson_free (f->v);
   memset (f, 0, sizeof *f);
}

static bool
simq_flatten_fields (const bson_t *spec, const char *base, simq_fields_t *f, const char *stage, bson_error_t *error)
{
   bson_iter_t it;
   bson_iter_init (&it, spec);
   while (bson_iter_next (&it)) {
      const char *key = bson_iter_key (&it);
      char *path;
      bson_t sub;
      bson_iter_t si;
      if (key[0] == '$') {
         return simq_fail (error, 16410, "Invalid %s :: caused by :: FieldPath field names may not start with '$'.",
                           stage);
      }
      if (key[0] == '\0') {
         return simq_fail (error, 40352, "Invalid %s :: caused by :: FieldPath cannot be constructed with empty string",
                           stage);
      }
      path = base ? bson_strdup_printf ("%s.%s", base, key) : bson_strdup (key);
      if (BSON_ITER_HOLDS_DOCUMENT (&it) && simq_value_as_doc (bson_iter_value (&it), &sub) &&
          bson_count_keys (&sub) > 0 && bson_iter_init (&si, &sub) && bson_iter_next (&si) &&
          bson_iter_key (&si)[0] != '$') {
         bool ok = simq_flatten_fields (&sub, path, f, stage, error);
         bson_free (path);
         if (!ok) {
            return false;
         }
         continue;
      }
      if (f->n == f->cap) {
         f->cap = f->cap ? f->cap * 2 : 8;
         f->v = bson_realloc (f->v, f->cap * sizeof *f->v);
      }
      f->v[f->n].path = path;
      f->v[f->n].expr = *bson_iter_value (&it);
      f->n++;
   }
   return true;
}

static bool
simq_stage_add_fields (const char *name, const bson_value_t *arg, const simq_docs_t *in, const simq_env_t *env,
                       simq_var_t *vars, simq_docs_t *out, bson_error_t *error)
{
   simq_fields_t fields = { 0 };
   bson_t spec;
   bool ok = false;

   if (arg->value_type != BSON_TYPE_DOCUMENT || !simq_value_as_doc (arg, &spec)) {
      return simq_fail (error, 40272, "%s specification stage must be an object, got %s", name,
                        simq_type_name (arg->value_type));
   }
   if (!simq_flatten_fields (&spec, NULL, &fields, name, error)) {
      goto cleanup;
   }
   for (size_t i = 0; i < in->n; i++) {
      bson_t cur;
      simq_ectx_t ctx;
      if (simq_interrupted (env, i, error)) {
         goto cleanup;
      }
      bson_copy_to (in->v[i], &cur);
      simq_ectx_for (in->v[i], env, vars, &ctx);
      for (size_t f = 0; f < fields.n; f++) {
         bson_value_t v;
         bson_t next;
         bool set_ok;
         if (!simq_eval (&fields.v[f].expr, &ctx, &v, error)) {
            bson_destroy (&cur);
            goto cleanup;
         }
         if (simq_value_missing (&v)) {
            bool found;
            simq_unset_path (&cur, fields.v[f].path, &next, &found);
            set_ok = true;
         } else {
            set_ok = simq_set_path (&cur, fields.v[f].path, &v, &next, error);
         }
         simq_value_destroy (&v);
         bson_destroy (&cur);
         if (!set_ok) {
            bson_destroy (&next);
            goto cleanup;
         }
         bson_steal (&cur, &next);
      }
      simq_docs_push_owned (out, bson_copy (&cur));
      bson_destroy (&cur);
   }
   ok = true;
cleanup:
   simq_fields_destroy (&fields);
   return ok;
}

static bool
simq_stage_unset (const bson_value_t *arg, const simq_docs_t *in, const simq_env_t *env, simq_var_t *vars,
                  simq_docs_t *out, bson_error_t *error)
{
   bson_t proj = BSON_INITIALIZER;
   bson_value_t projv;
   bool ok;

   if (arg->value_type == BSON_TYPE_UTF8) {
      BSON_APPEND_INT32 (&proj, arg->value.v_utf8.str, 0);
   } else if (arg->value_type == BSON_TYPE_ARRAY) {
      bson_t arr;
      bson_iter_t it;
      simq_value_as_doc (arg, &arr);
      bson_iter_init (&it, &arr);
      while (bson_iter_next (&it)) {
         if (!BSON_ITER_HOLDS_UTF8 (&it)) {
            bson_destroy (&proj);
            return simq_fail (error, 31120,
                              "$unset specification must be a string or an array containing only string "
                              "values");
         }
         BSON_APPEND_INT32 (&proj, bson_iter_utf8 (&it, NULL), 0);
      }
      if (bson_count_keys (&arr) == 0) {
         bson_destroy (&proj);
         return simq_fail (error, 31119, "$unset specification must be a string or an array with at least one field");
      }
   } else {
      bson_destroy (&proj);
      return simq_fail (error, 31002, "$unset specification must be a string or an array");
   }
   simq_value_from_doc (&proj, false, &projv);
   ok = simq_stage_project (&projv, in, env, vars, out, error);
   simq_value_destroy (&projv);
   bson_destroy (&proj);
   return ok;
}

/* ---- $group ---- */

/* ---- $unwind ---- */

static bool
simq_stage_unwind (const bson_value_t *arg, const simq_docs_t *in, simq_docs_t *out, bson_error_t *error)
{
   const char *path = NULL, *index_field = NULL;
   bool preserve = false;

   if (arg->value_type == BSON_TYPE_UTF8) {
      path = arg->value.v_utf8.str;
   } else if (arg->value_type == BSON_TYPE_DOCUMENT) {
      bson_t spec;
      bson_iter_t it;
      simq_value_as_doc (arg, &spec);
      bson_iter_init (&it, &spec);
      while (bson_iter_next (&it)) {
         const char *k = bson_iter_key (&it);
         if (strcmp (k, "path") == 0) {
            if (!BSON_ITER_HOLDS_UTF8 (&it)) {
               return simq_fail (error, 28808, "expected a string as the path for $unwind stage, got %s",
                                 simq_type_name (bson_iter_type (&it)));
            }
            path = bson_iter_utf8 (&it, NULL);
         } else if (strcmp (k, "preserveNullAndEmptyArrays") == 0) {
            if (!BSON_ITER_HOLDS_BOOL (&it)) {
               return simq_fail (
                  error, 28809, "expected a boolean for the preserveNullAndEmptyArrays option to $unwind stage, got %s",
                  simq_type_name (bson_iter_type (&it)));
            }
            preserve = bson_iter_bool (&it);
         } else if (strcmp (k, "includeArrayIndex") == 0) {
            if (!BSON_ITER_HOLDS_UTF8 (&it)) {
               return simq_fail (error, 28810,
                                 "expected a non-empty string for the includeArrayIndex  option to "
                                 "$unwind stage, got %s",
                                 simq_type_name (bson_iter_type (&it)));
            }
            index_field = bson_iter_utf8 (&it, NULL);
            if (index_field[0] == '$') {
               return simq_fail (error, 28822,
                                 "includeArrayIndex option to $unwind stage should not be prefixed with "
                                 "a '$': %s",
                                 index_field);
            }
         } else {
            return simq_fail (error, 28811, "unrecognized option to $unwind stage: %s", k);
         }
      }
      if (!path) {
         return simq_fail (error, 28812, "no path specified to $unwind stage");
      }
   } else {
      return simq_fail (error, 15981,
                        "expected either a string or an object as specification for $unwind stage, got %s",
                        simq_type_name (arg->value_type));
   }
   if (path[0] != '$') {
      return simq_fail (error, 28818, "path option to $unwind stage should be prefixed with a '$': %s", path);
   }
   path++;

   for (size_t i = 0; i < in->n; i++) {
      bson_value_t v;
      bool present = simq_get_path (in->v[i], path, &v);
      bson_t arr;
      if (present && v.value_type == BSON_TYPE_ARRAY && simq_value_as_doc (&v, &arr) && bson_count_keys (&arr) > 0) {
         bson_iter_t it;
         int64_t idx = 0;
         bson_iter_init (&it, &arr);
         while (bson_iter_next (&it)) {
            bson_t a, b;
            if (!simq_set_path (in->v[i], path, bson_iter_value (&it), &a, error)) {
               bson_destroy (&a);
               return false;
            }
            if (index_field) {
               bson_value_t iv;
               iv.value_type = BSON_TYPE_INT64;
               iv.value.v_int64 = idx;
               if (!simq_set_path (&a, index_field, &iv, &b, error)) {
                  bson_destroy (&a);
                  bson_destroy (&b);
                  return false;
               }
               bson_destroy (&a);
               simq_docs_push_owned (out, bson_copy (&b));
               bson_destroy (&b);
            } else {
               simq_docs_push_owned (out, bson_copy (&a));
               bson_destroy (&a);
            }
            idx++;
         }
         continue;
      }
      if (present && v.value_type != BSON_TYPE_ARRAY && v.value_type != BSON_TYPE_NULL &&
          v.value_type != BSON_TYPE_UNDEFINED) {
         /* A non-array value unwinds to itself. */
         bson_t b;
         if (index_field) {
            bson_value_t nv;
            nv.value_type = BSON_TYPE_NULL;
            if (!simq_set_path (in->v[i], index_field, &nv, &b, error)) {
               bson_destroy (&b);
               return false;
            }
            simq_docs_push_owned (out, bson_copy (&b));
            bson_destroy (&b);
         } else {
            simq_docs_push_copy (out, in->v[i]);
         }
         continue;
      }
      if (preserve) {
         bson_t a, b;
         bool found;
         if (present && v.value_type == BSON_TYPE_ARRAY) {
            simq_unset_path (in->v[i], path, &a, &found); /* an empty array disappears */
         } else {
            bson_copy_to (in->v[i], &a);
         }
         if (index_field) {
            bson_value_t nv;
            nv.value_type = BSON_TYPE_NULL;
            if (!simq_set_path (&a, index_field, &nv, &b, error)) {
               bson_destroy (&a);
               bson_destroy (&b);
               return false;
            }
            bson_destroy (&a);
            simq_docs_push_owned (out, bson_copy (&b));
            bson_destroy (&b);
         } else {
            simq_docs_push_owned (out, bson_copy (&a));
            bson_destroy (&a);
         }
      }
   }
   return true;
}

/* ---- $lookup ---- */

/* ---- small stages ---- */

static bool
simq_stage_count (const bson_value_t *arg, const simq_docs_t *in, simq_docs_t *out, bson_error_t *error)
{
   const char *name;
   bson_t *doc;
   if (arg->value_type != BSON_TYPE_UTF8) {
      return simq_fail (error, 40156, "the count field must be a non-empty string");
   }
   name = arg->value.v_utf8.str;
   if (name[0] == '\0') {
      return simq_fail (error, 40157, "the count field must be a non-empty string");
   }
   if (name[0] == '$') {
      return simq_fail (error, 40158, "the count field cannot be a $-prefixed path");
   }
   if (strchr (name, '.')) {
      return simq_fail (error, 40160, "the count field cannot contain '.'");
   }
   if (in->n == 0) {
      return true;
   }
   doc = bson_new ();
   if (in->n <= INT32_MAX) {
      BSON_APPEND_INT32 (doc, name, (int32_t) in->n);
   } else {
      BSON_APPEND_INT64 (doc, name, (int64_t) in->n);
   }
   simq_docs_push_owned (out, doc);
   return true;
}

static bool
simq_stage_limit_skip (bool is_limit, const bson_value_t *arg, const simq_docs_t *in, simq_docs_t *out,
                       bson_error_t *error)
{
   int64_t n;
   if (!simq_is_number (arg)) {
      return is_limit ? simq_fail (error, 15957, "the limit must be specified as a number")
                      : simq_fail (error, 15972, "Argument to $skip must be a number");
   }
   if (!simq_is_integral_number (arg, &n)) {
      char *j = simq_value_json (arg);
      simq_fail (error, is_limit ? 15957 : 15972, "%s must be an integer: %s", is_limit ? "the limit" : "$skip", j);
      bson_free (j);
      return false;
   }
   if (is_limit && n <= 0) {
      return simq_fail (error, 15958, "the limit must be positive");
   }
   if (!is_limit && n < 0) {
      return simq_fail (error, 15956, "Argument to $skip cannot be negative");
   }
   for (size_t i = 0; i < in->n; i++) {
      if (is_limit ? (int64_t) i < n : (int64_t) i >= n) {
         simq_docs_push_copy (out, in->v[i]);
      }
   }
   return true;
}

static bool
simq_stage_sample (const bson_value_t *arg, const simq_docs_t *in, const simq_env_t *env, simq_docs_t *out,
                   bson_error_t *error)
{
   bson_t spec;
   bson_iter_t it;
   int64_t size = -1;
   size_t *idx;
   uint64_t state;

   if (arg->value_type != BSON_TYPE_DOCUMENT || !simq_value_as_doc (arg, &spec)) {
      return simq_fail (error, 28745, "the $sample stage specification must be an object");
   }
   bson_iter_init (&it, &spec);
   while (bson_iter_next (&it)) {
      if (strcmp (bson_iter_key (&it), "size") == 0) {
         if (!simq_is_number (bson_iter_value (&it))) {
            return simq_fail (error, 28746, "size argument to $sample must be a number");
         }
         size = (int64_t) simq_to_double (bson_iter_value (&it));
         if (size < 0) {
            return simq_fail (error, 28747, "size argument to $sample must not be negative");
         }
      } else {
         return simq_fail (error, 28748, "unrecognized option to $sample: %s", bson_iter_key (&it));
      }
   }
   if (size < 0) {
      return simq_fail (error, 28749, "$sample stage must specify a size");
   }
   idx = bson_malloc0 ((in->n + 1) * sizeof *idx);
   for (size_t i = 0; i < in->n; i++) {
      idx[i] = i;
   }
   state = (uint64_t) (env ? env->now_ms : 0) ^ ((uint64_t) in->n << 32) ^ 0x5DEECE66DULL;
   for (size_t i = 0; i < in->n && (int64_t) i < size; i++) {
      size_t j = i + (size_t) (simq_rand_next (&state) % (in->n - i));
      size_t t = idx[i];
      idx[i] = idx[j];
      idx[j] = t;
      simq_docs_push_copy (out, in->v[idx[i]]);
   }
   bson_free (idx);
   return true;
}

static bool
simq_stage_replace_root (bool with, const bson_value_t *arg, const simq_docs_t *in, const simq_env_t *env,
                         simq_var_t *vars, simq_docs_t *out, bson_error_t *error)
{
   bson_value_t expr;
   if (with) {
      expr = *arg;
   } else {
      bson_t spec;
      bson_iter_t it;
      if (arg->value_type != BSON_TYPE_DOCUMENT || !simq_value_as_doc (arg, &spec)) {
         return simq_fail (error, 40229, "expected an object as specification for $replaceRoot stage, got %s",
                           simq_type_name (arg->value_type));
      }
      bson_iter_init (&it, &spec);
      while (bson_iter_next (&it)) {
         if (strcmp (bson_iter_key (&it), "newRoot") != 0) {
            return simq_fail (error, 40415, "BSON field '$replaceRoot.%s' is an unknown field.", bson_iter_key (&it));
         }
      }
      if (!bson_iter_init_find (&it, &spec, "newRoot")) {
         return simq_fail (error, 40414, "BSON field '$replaceRoot.newRoot' is missing but a required field");
      }
      expr = *bson_iter_value (&it);
   }
   for (size_t i = 0; i < in->n; i++) {
      simq_ectx_t ctx;
      bson_value_t v;
      bson_t sub;
      simq_ectx_for (in->v[i], env, vars, &ctx);
      if (!simq_eval (&expr, &ctx, &v, error)) {
         return false;
      }
      if (v.value_type != BSON_TYPE_DOCUMENT || !simq_value_as_doc (&v, &sub)) {
         char *vj = simq_value_json (&v);
         char *dj = simq_doc_json (in->v[i]);
         simq_fail (error, 40228,
                    "'%s' expression must evaluate to an object, but resulting value was: %s. Type of "
                    "resulting value: '%s'. Input document: %s",
                    with ? "replacement document" : "newRoot", simq_value_missing (&v) ? "MISSING" : vj,
                    simq_type_name (v.value_type), dj);
         bson_free (vj);
         bson_free (dj);
         simq_value_destroy (&v);
         return false;
      }
      simq_docs_push_owned (out, bson_copy (&sub));
      simq_value_destroy (&v);
   }
   return true;
}

static bool
simq_stage_documents (const bson_value_t *arg, const simq_env_t *env, simq_var_t *vars, simq_docs_t *out,
                      bson_error_t *error)
{
   bson_t empty = BSON_INITIALIZER, arr;
   simq_ectx_t ctx;
   bson_value_t v;
   bson_iter_t it;
   bool ok = false;

   simq_ectx_for (&empty, env, vars, &ctx);
   if (!simq_eval (arg, &ctx, &v, error)) {
      goto cleanup;
   }
   if (v.value_type != BSON_TYPE_ARRAY || !simq_value_as_doc (&v, &arr)) {
      simq_fail (error, 5858203, "an array is expected");
      goto cleanup;
   }
   bson_iter_init (&it, &arr);
   while (bson_iter_next (&it)) {
      bson_t sub;
      if (!BSON_ITER_HOLDS_DOCUMENT (&it)) {
         simq_fail (error, 40228, "'newRoot' expression must evaluate to an object, but resulting value was: %s",
                    simq_type_name (bson_iter_type (&it)));
         goto cleanup;
      }
      simq_value_as_doc (bson_iter_value (&it), &sub);
      simq_docs_push_copy (out, &sub);
   }
   ok = true;
cleanup:
   simq_value_destroy (&v);
   bson_destroy (&empty);
   return ok;
}

static bool
simq_stage_facet (const bson_value_t *arg, const simq_docs_t *in, const simq_env_t *env, simq_var_t *vars,
                  simq_docs_t *out, bson_error_t *error)
{
   bson_t spec, *result;
   bson_iter_t it;

   if (arg->value_type != BSON_TYPE_DOCUMENT || !simq_value_as_doc (arg, &spec) || bson_count_keys (&spec) == 0) {
      return simq_fail (error, 40169, "the $facet specification must be a non-empty object, but found: %s",
                        simq_type_name (arg->value_type));
   }
   result = bson_new ();
   bson_iter_init (&it, &spec);
   while (bson_iter_next (&it)) {
      bson_t sub, arr = BSON_INITIALIZER;
      simq_docs_t res;
      if (!BSON_ITER_HOLDS_ARRAY (&it)) {
         bson_destroy (result);
         bson_destroy (&arr);
         return simq_fail (error, 40170, "arguments to $facet must be arrays, %s is type %s", bson_iter_key (&it),
                           simq_type_name (bson_iter_type (&it)));
      }
      simq_value_as_doc (bson_iter_value (&it), &sub);
      simq_docs_init (&res);
      if (!simq_run_pipeline (in, &sub, env, vars, &res, error)) {
         simq_docs_clear (&res);
         bson_destroy (result);
         bson_destroy (&arr);
         return false;
      }
      for (size_t i = 0; i < res.n; i++) {
         char key[24];
         snprintf (key, sizeof key, "%zu", i);
         bson_append_document (&arr, key, -1, res.v[i]);
      }
      bson_append_array (result, bson_iter_key (&it), (int) bson_iter_key_len (&it), &arr);
      bson_destroy (&arr);
      simq_docs_clear (&res);
   }
   simq_docs_push_owned (out, result);
   return true;
}

/* $sortByCount: expr is { $group: { _id: expr, count: { $sum: 1 } } } then { $sort: { count: -1 } }. */
static bool
simq_stage_sort_by_count (const bson_value_t *arg, const simq_docs_t *in, const simq_env_t *env, simq_var_t *vars,
                          simq_docs_t *out, bson_error_t *error)
{
   bson_t group = BSON_INITIALIZER, count, sort = BSON_INITIALIZER;
   bson_value_t gv;
   bool ok;

   if (!(arg->value_type == BSON_TYPE_UTF8 && arg->value.v_utf8.str[0] == '$') &&
       arg->value_type != BSON_TYPE_DOCUMENT) {
      bson_destroy (&group);
      bson_destroy (&sort);
      return simq_fail (error, 40148, "the sortByCount field must be defined as a $-prefixed path or an expression");
   }
   bson_append_value (&group, "_id", 3, arg);
   BSON_APPEND_DOCUMENT_BEGIN (&group, "count", &count);
   BSON_APPEND_INT32 (&count, "$sum", 1);
   bson_append_document_end (&group, &count);
   simq_value_from_doc (&group, false, &gv);
   ok = simq_stage_group (&gv, in, env, vars, out, error);
   simq_value_destroy (&gv);
   BSON_APPEND_INT32 (&sort, "count", -1);
   if (ok) {
      ok = simq_sort (out, &sort, error);
   }
   bson_destroy (&group);
   bson_destroy (&sort);
   return ok;
}

/* ---- the pipeline ---- */

/* Runs one stage other than $sort (simq_run_stages' own) over in, which it only reads, into out. */
static bool
simq_run_stage (const char *name, const bson_t *stage, const bson_value_t *arg, bool first, simq_docs_t *in,
                const simq_env_t *env, simq_var_t *vars, simq_lookup_cache_t **cache, simq_docs_t *out,
                bson_error_t *error)
{
   if (strcmp (name, "$match") == 0) {
      return simq_stage_match (arg, in, env, vars, out, error);
   }
   if (strcmp (name, "$project") == 0) {
      return simq_stage_project (arg, in, env, vars, out, error);
   }
   if (strcmp (name, "$addFields") == 0 || strcmp (name, "$set") == 0) {
      return simq_stage_add_fields (name, arg, in, env, vars, out, error);
   }
   if (strcmp (name, "$unset") == 0) {
      return simq_stage_unset (arg, in, env, vars, out, error);
   }
   if (strcmp (name, "$group") == 0) {
      return simq_stage_group (arg, in, env, vars, out, error);
   }
   if (strcmp (name, "$limit") == 0 || strcmp (name, "$skip") == 0) {
      return simq_stage_limit_skip (name[1] == 'l', arg, in, out, error);
   }
   if (strcmp (name, "$unwind") == 0) {
      return simq_stage_unwind (arg, in, out, error);
   }
   if (strcmp (name, "$lookup") == 0) {
      return simq_stage_lookup (arg, in, env, vars, cache, out, error);
   }
   if (strcmp (name, "$unionWith") == 0) {
      return simq_stage_union_with (arg, in, env, vars, out, error);
   }
   if (strcmp (name, "$count") == 0) {
      return simq_stage_count (arg, in, out, error);
   }
   if (strcmp (name, "$facet") == 0) {
      return simq_stage_facet (arg, in, env, vars, out, error);
   }
   if (strcmp (name, "$sample") == 0) {
      return simq_stage_sample (arg, in, env, out, error);
   }
   if (strcmp (name, "$replaceRoot") == 0 || strcmp (name, "$replaceWith") == 0) {
      return simq_stage_replace_root (name[8] == 'W', arg, in, env, vars, out, error);
   }
   if (strcmp (name, "$sortByCount") == 0) {
      return simq_stage_sort_by_count (arg, in, env, vars, out, error);
   }
   if (strcmp (name, "$documents") == 0) {
      if (!first) {
         return simq_fail (error, 40602, "$documents is only valid as the first stage in a pipeline");
      }
      return simq_stage_documents (arg, env, vars, out, error);
   }
   if (env && env->stage) {
      int rc = env->stage (env->ud, stage, in, out, error);
      if (rc == 1) {
         return true;
      }
      if (rc < 0) {
         return false;
      }
   }
   return simq_fail (error, 40324, "Unrecognized pipeline stage name: '%s'", name);
}

/* $sort's specification document from its argument (borrowed), or the server's error. */
static bool
simq_sort_spec_of (const bson_value_t *arg, bson_t *spec, bson_error_t *error)
{
   if (arg->value_type != BSON_TYPE_DOCUMENT || !simq_value_as_doc (arg, spec)) {
      return simq_fail (error, 15973, "the $sort key specification must be an object");
   }
   if (bson_count_keys (spec) == 0) {
      return simq_fail (error, 15976, "$sort stage must have at least one sort key");
   }
   return true;
}

bool
simq_limit_of (const bson_iter_t *at, size_t *k)
{
   bson_t stage;
   bson_iter_t si, elem = *at;
   int64_t n;
   if (!BSON_ITER_HOLDS_DOCUMENT (&elem) || !simq_value_as_doc (bson_iter_value (&elem), &stage) ||
       bson_count_keys (&stage) != 1 || !bson_iter_init (&si, &stage) || !bson_iter_next (&si) ||
       strcmp (bson_iter_key (&si), "$limit") != 0 || !simq_is_integral_number (bson_iter_value (&si), &n) || n <= 0) {
      return false;
   }
   *k = (uint64_t) n > (uint64_t) SIZE_MAX ? SIZE_MAX : (size_t) n;
   return true;
}

/* $sort over in into out; with limit (from a $limit right after it), only the first limit documents, chosen by
 * simq_sort_top without ordering the rest (the server's top-k sort). Documents that are the runner's own (!borrowed)
 * move to out, the rest of in is freed by the caller; borrowed ones are copied. */
static bool
simq_stage_sort (const bson_t *spec, bool has_limit, size_t limit, simq_docs_t *in, bool borrowed, simq_docs_t *out,
                 bson_error_t *error)
{
   size_t *order, n;
   if (!has_limit) {
      if (borrowed) {
         for (size_t i = 0; i < in->n; i++) {
            simq_docs_push_copy (out, in->v[i]);
         }
      } else {
         *out = *in;
         simq_docs_init (in);
      }
      return simq_sort (out, spec, error);
   }
   if (!simq_sort_top (in, spec, limit, &order, &n, error)) {
      return false;
   }
   for (size_t i = 0; i < n; i++) {
      if (borrowed) {
         simq_docs_push_copy (out, in->v[order[i]]);
      } else {
         simq_docs_push_owned (out, in->v[order[i]]);
         in->v[order[i]] = NULL; /* bson_destroy (NULL) is a no-op when the caller clears in */
      }
   }
   bson_free (order);
   return true;
}

/* Runs the stages left in the pipeline after *it over *cur into out. cur holds the runner's own documents (freed
 * here), except when borrowed: then they are the caller's, read in place by the first stage (which copies only what
 * it outputs: a $match its matches, a $group nothing, a $sort + $limit its first documents) and never freed here. */
static bool
simq_run_stages (simq_docs_t *cur, bool borrowed, bson_iter_t *it, bool first, const simq_env_t *env, simq_var_t *vars,
                 simq_docs_t *out, bson_error_t *error)
{
   simq_docs_t next;
   simq_lookup_cache_t *cache = NULL;
   bool ok = false;

   simq_docs_init (&next);
   while (bson_iter_next (it)) {
      bson_t stage, spec;
      bson_iter_t si, after = *it;
      const bson_value_t *arg;
      size_t limit = 0;
      bool has_limit;
      if (!BSON_ITER_HOLDS_DOCUMENT (it) || !simq_value_as_doc (bson_iter_value (it), &stage)) {
         simq_fail (error, 14, "Each element of the 'pipeline' array must be an object");
         goto cleanup;
      }
      if (bson_count_keys (&stage) != 1) {
         simq_fail (error, 40323, "A pipeline stage specification object must contain exactly one field.");
         goto cleanup;
      }
      bson_iter_init (&si, &stage);
      bson_iter_next (&si);
      arg = bson_iter_value (&si);
      if (simq_interrupted (env, 0, error)) {
         goto cleanup;
      }
      if (strcmp (bson_iter_key (&si), "$sort") == 0) {
         if (!simq_sort_spec_of (arg, &spec, error)) {
            goto cleanup;
         }
         has_limit = bson_iter_next (&after) && simq_limit_of (&after, &limit);
         if (!simq_stage_sort (&spec, has_limit, limit, cur, borrowed, &next, error)) {
            goto cleanup;
         }
         if (has_limit) {
            *it = after; /* the $limit is done */
         }
      } else if (!simq_run_stage (bson_iter_key (&si), &stage, arg, first, cur, env, vars, &cache, &next, error)) {
         goto cleanup;
      }
      first = false;
      if (borrowed) {
         simq_docs_init (cur);
         borrowed = false;
      } else {
         simq_docs_clear (cur);
      }
      *cur = next;
      simq_docs_init (&next);
   }
   for (size_t i = 0; i < cur->n; i++) {
      if (borrowed) {
         simq_docs_push_copy (out, cur->v[i]);
      } else {
         simq_docs_push_owned (out, cur->v[i]);
         cur->v[i] = NULL;
      }
   }
   cur->n = 0;
   ok = true;
cleanup:
   if (borrowed) {
      simq_docs_init (cur);
   } else {
      simq_docs_clear (cur);
   }
   simq_docs_clear (&next);
   simq_lookup_cache_free (cache);
   return ok;
}

/* Runs pipeline over the documents of *input, which it takes (input is left empty). */
bool
simq_run_pipeline_taking (simq_docs_t *input, const bson_t *pipeline, const simq_env_t *env, simq_var_t *vars,
                          simq_docs_t *out, bson_error_t *error)
{
   simq_docs_t cur = *input;
   bson_iter_t it;

   simq_docs_init (input);
   if (!bson_iter_init (&it, pipeline)) {
      simq_docs_clear (&cur);
      return simq_fail (error, 14, "'pipeline' option must be specified as an array");
   }
   return simq_run_stages (&cur, false, &it, true, env, vars, out, error);
}

/* Runs pipeline over the documents of input, which stay the caller's: the first stage reads them in place. */
bool
simq_run_pipeline (const simq_docs_t *input, const bson_t *pipeline, const simq_env_t *env, simq_var_t *vars,
                   simq_docs_t *out, bson_error_t *error)
{
   simq_docs_t view = *input; /* a borrowed view: simq_run_stages neither frees nor changes the caller's array */
   bson_iter_t it;

   if (!bson_iter_init (&it, pipeline)) {
      return simq_fail (error, 14, "'pipeline' option must be specified as an array");
   }
   return simq_run_stages (&view, true, &it, true, env, vars, out, error);
}

bool
simq_run_pipeline_after (const simq_docs_t *input, const bson_iter_t *at, const simq_env_t *env, simq_var_t *vars,
                         simq_docs_t *out, bson_error_t *error)
{
   simq_docs_t view = *input; /* borrowed, as in simq_run_pipeline */
   bson_iter_t it = *at;
   return simq_run_stages (&view, true, &it, false, env, vars, out, error);
}

bool
simq_aggregate_taking (simq_docs_t *input, const bson_t *pipeline, const simq_env_t *env, simq_docs_t *out,
                       bson_error_t *error)
{
   simq_docs_t tmp;
   bool ok;
   simq_docs_init (&tmp);
   ok = simq_run_pipeline_taking (input, pipeline, env, NULL, &tmp, error);
   if (ok) {
      for (size_t i = 0; i < tmp.n; i++) {
         simq_docs_push_owned (out, tmp.v[i]);
      }
      bson_free (tmp.v);
   } else {
      simq_docs_clear (&tmp);
   }
   return ok;
}

bool
simq_aggregate (const simq_docs_t *input, const bson_t *pipeline, const simq_env_t *env, simq_docs_t *out,
                bson_error_t *error)
{
   simq_docs_t tmp;
   bool ok;
   simq_docs_init (&tmp);
   ok = simq_run_pipeline (input, pipeline, env, NULL, &tmp, error);
   if (ok) {
      for (size_t i = 0; i < tmp.n; i++) {
         simq_docs_push_owned (out, tmp.v[i]);
      }
      bson_free (tmp.v);
   } else {
      simq_docs_clear (&tmp);
   }
   return ok;
}
