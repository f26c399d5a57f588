/* The query engine's aggregation pipeline: $match $group $project $addFields/$set $unset $sort $limit $skip $unwind
 * $lookup $unionWith $count $facet $sample $replaceRoot/$replaceWith $documents $sortByCount, each with the server's
 * parse errors; any other stage is offered to the caller's hook (env->stage) and otherwise fails with 40324. */
#include "tests/shardsim/query/simq_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool
simq_run_pipeline (const simq_docs_t *input, const bson_t *pipeline, const simq_env_t *env, simq_var_t *vars,
                   simq_docs_t *out, bson_error_t *error);
static bool
simq_run_pipeline_taking (simq_docs_t *input, const bson_t *pipeline, const simq_env_t *env, simq_var_t *vars,
                          simq_docs_t *out, bson_error_t *error);

static void
simq_ectx_for (const bson_t *doc, const simq_env_t *env, simq_var_t *vars, simq_ectx_t *ctx)
{
   ctx->root = doc;
   ctx->current = doc;
   ctx->env = env;
   ctx->vars = vars;
}

/* Whether the caller wants the pipeline stopped (env->interrupted), asked at every 1024th document; error set. */
static bool
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
         simq_proj_destroy (proj);
         return false;
      }
      simq_ectx_for (in->v[i], env, vars, &ctx);
      if (!proj && !(proj = simq_proj_new (&spec, false, error))) {
         return false;
      }
      if (!simq_proj_apply (proj, in->v[i], &ctx, &res, error)) {
         bson_destroy (&res);
         simq_proj_destroy (proj);
         return false;
      }
      simq_docs_push_owned (out, bson_copy (&res));
      bson_destroy (&res);
   }
   simq_proj_destroy (proj);
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
simq_fields_free (simq_fields_t *f)
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
         simq_value_free (&v);
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
   simq_fields_free (&fields);
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
   simq_value_free (&projv);
   bson_destroy (&proj);
   return ok;
}

/* ---- $group ---- */

typedef enum {
   SIMQ_ACC_SUM,
   SIMQ_ACC_AVG,
   SIMQ_ACC_FIRST,
   SIMQ_ACC_LAST,
   SIMQ_ACC_PUSH,
   SIMQ_ACC_ADDTOSET,
   SIMQ_ACC_MIN,
   SIMQ_ACC_MAX,
   SIMQ_ACC_COUNT,
   SIMQ_ACC_MERGE
} simq_acc_kind_t;

typedef struct {
   const char *field;
   simq_acc_kind_t kind;
   bson_value_t expr; /* borrowed */
} simq_acc_spec_t;

typedef struct {
   bool set;
   int widest; /* numeric sum: 0 int32, 1 int64, 2 double */
   int64_t i;
   double d;
   bool decimal;
   size_t count;
   bson_value_t value; /* owned: $first/$last/$min/$max */
   bson_t list;        /* $push / $addToSet / $mergeObjects accumulation */
   uint32_t list_n;
} simq_acc_t;

typedef struct {
   bson_value_t key; /* owned */
   simq_acc_t *accs;
} simq_group_t;

static const struct {
   const char *name;
   simq_acc_kind_t kind;
} simq_acc_names[] = {
   { "$sum", SIMQ_ACC_SUM },     { "$avg", SIMQ_ACC_AVG },
   { "$first", SIMQ_ACC_FIRST }, { "$last", SIMQ_ACC_LAST },
   { "$push", SIMQ_ACC_PUSH },   { "$addToSet", SIMQ_ACC_ADDTOSET },
   { "$min", SIMQ_ACC_MIN },     { "$max", SIMQ_ACC_MAX },
   { "$count", SIMQ_ACC_COUNT }, { "$mergeObjects", SIMQ_ACC_MERGE },
};

static void
simq_acc_add_number (simq_acc_t *a, const bson_value_t *v)
{
   int64_t x;
   a->count++;
   switch (v->value_type) {
   case BSON_TYPE_DECIMAL128:
      a->decimal = true;
      return;
   case BSON_TYPE_DOUBLE:
      if (a->widest < 2) {
         a->d = (double) a->i;
         a->widest = 2;
      }
      a->d += v->value.v_double;
      return;
   case BSON_TYPE_INT32:
   case BSON_TYPE_INT64:
      x = v->value_type == BSON_TYPE_INT32 ? v->value.v_int32 : v->value.v_int64;
      if (v->value_type == BSON_TYPE_INT64 && a->widest < 1) {
         a->widest = 1;
      }
      if (a->widest == 2) {
         a->d += (double) x;
      } else {
         int64_t before = a->i;
         if (__builtin_add_overflow (before, x, &a->i)) {
            a->d = (double) before + (double) x;
            a->widest = 2;
         }
      }
      return;
   default:
      return;
   }
}

static bool
simq_acc_update (simq_acc_t *a, const simq_acc_spec_t *spec, const bson_value_t *v, bson_error_t *error)
{
   char key[24];
   switch (spec->kind) {
   case SIMQ_ACC_SUM:
   case SIMQ_ACC_AVG:
      if (v->value_type == BSON_TYPE_ARRAY && spec->kind == SIMQ_ACC_SUM) {
         return true; /* arrays are not summed by the accumulator */
      }
      if (simq_is_number (v)) {
         simq_acc_add_number (a, v);
      }
      if (a->decimal) {
         return simq_fail (error, 238, "shardsim: %s on decimal128 values is not implemented",
                           spec->kind == SIMQ_ACC_SUM ? "$sum" : "$avg");
      }
      return true;
   case SIMQ_ACC_COUNT: {
      bson_value_t one;
      one.value_type = BSON_TYPE_INT32;
      one.value.v_int32 = 1;
      simq_acc_add_number (a, &one);
      return true;
   }
   case SIMQ_ACC_FIRST:
      if (!a->set) {
         simq_value_copy (v, &a->value);
         a->set = true;
      }
      return true;
   case SIMQ_ACC_LAST:
      simq_value_free (&a->value);
      simq_value_copy (v, &a->value);
      a->set = true;
      return true;
   case SIMQ_ACC_MIN:
   case SIMQ_ACC_MAX:
      if (simq_value_missing (v) || v->value_type == BSON_TYPE_NULL || v->value_type == BSON_TYPE_UNDEFINED) {
         return true;
      }
      if (!a->set || (spec->kind == SIMQ_ACC_MIN ? order_values (v, &a->value) < 0 : order_values (v, &a->value) > 0)) {
         simq_value_free (&a->value);
         simq_value_copy (v, &a->value);
         a->set = true;
      }
      return true;
   case SIMQ_ACC_PUSH:
      if (!simq_value_missing (v)) {
         snprintf (key, sizeof key, "%u", a->list_n++);
         bson_append_value (&a->list, key, -1, v);
      }
      return true;
   case SIMQ_ACC_ADDTOSET:
      if (!simq_value_missing (v)) {
         bson_iter_t it;
         bson_iter_init (&it, &a->list);
         while (bson_iter_next (&it)) {
            if (order_values (bson_iter_value (&it), v) == 0) {
               return true;
            }
         }
         snprintf (key, sizeof key, "%u", a->list_n++);
         bson_append_value (&a->list, key, -1, v);
      }
      return true;
   case SIMQ_ACC_MERGE:
      if (simq_value_missing (v) || v->value_type == BSON_TYPE_NULL) {
         return true;
      }
      if (v->value_type != BSON_TYPE_DOCUMENT) {
         return simq_fail (error, 40400, "$mergeObjects requires object inputs, but input is of type %s",
                           simq_type_name (v->value_type));
      } else {
         bson_t sub;
         bson_iter_t it;
         simq_value_as_doc (v, &sub);
         bson_iter_init (&it, &sub);
         while (bson_iter_next (&it)) {
            bson_t next;
            if (!simq_set_path (&a->list, bson_iter_key (&it), bson_iter_value (&it), &next, error)) {
               bson_destroy (&next);
               return false;
            }
            bson_destroy (&a->list);
            bson_steal (&a->list, &next);
         }
      }
      return true;
   }
   return true;
}

static void
simq_acc_result (simq_acc_t *a, const simq_acc_spec_t *spec, bson_t *dst)
{
   const char *f = spec->field;
   switch (spec->kind) {
   case SIMQ_ACC_SUM:
   case SIMQ_ACC_COUNT:
      if (a->widest == 2) {
         BSON_APPEND_DOUBLE (dst, f, a->d);
      } else if (a->widest == 0 && a->i >= INT32_MIN && a->i <= INT32_MAX) {
         BSON_APPEND_INT32 (dst, f, (int32_t) a->i);
      } else {
         BSON_APPEND_INT64 (dst, f, a->i);
      }
      return;
   case SIMQ_ACC_AVG:
      if (a->count == 0) {
         BSON_APPEND_NULL (dst, f);
      } else {
         BSON_APPEND_DOUBLE (dst, f, (a->widest == 2 ? a->d : (double) a->i) / (double) a->count);
      }
      return;
   case SIMQ_ACC_FIRST:
   case SIMQ_ACC_LAST:
   case SIMQ_ACC_MIN:
   case SIMQ_ACC_MAX:
      if (!a->set || simq_value_missing (&a->value)) {
         BSON_APPEND_NULL (dst, f);
      } else {
         BSON_APPEND_VALUE (dst, f, &a->value);
      }
      return;
   case SIMQ_ACC_PUSH:
   case SIMQ_ACC_ADDTOSET:
      BSON_APPEND_ARRAY (dst, f, &a->list);
      return;
   case SIMQ_ACC_MERGE:
      BSON_APPEND_DOCUMENT (dst, f, &a->list);
      return;
   }
}

static bool
simq_stage_group (const bson_value_t *arg, const simq_docs_t *in, const simq_env_t *env, simq_var_t *vars,
                  simq_docs_t *out, bson_error_t *error)
{
   bson_t spec;
   bson_iter_t it;
   bson_value_t id_expr;
   bool have_id = false, ok = false;
   simq_acc_spec_t *accs = NULL;
   size_t naccs = 0;
   simq_group_t *groups = NULL;
   size_t ngroups = 0, gcap = 0;
   simq_htab_t index; /* group key hash -> index + 1 in groups */
   simq_htab_init (&index);

   if (arg->value_type != BSON_TYPE_DOCUMENT || !simq_value_as_doc (arg, &spec)) {
      return simq_fail (error, 15947, "a group's fields must be specified in an object");
   }
   accs = bson_malloc0 ((bson_count_keys (&spec) + 1) * sizeof *accs);
   bson_iter_init (&it, &spec);
   while (bson_iter_next (&it)) {
      const char *field = bson_iter_key (&it);
      bson_t accdoc;
      bson_iter_t ai;
      bool known = false;
      if (strcmp (field, "_id") == 0) {
         id_expr = *bson_iter_value (&it);
         have_id = true;
         continue;
      }
      if (strchr (field, '.')) {
         simq_fail (error, 40235, "The field name '%s' cannot contain '.'", field);
         goto cleanup;
      }
      if (field[0] == '$') {
         simq_fail (error, 40236, "The field name '%s' cannot be an operator name", field);
         goto cleanup;
      }
      if (!BSON_ITER_HOLDS_DOCUMENT (&it) || !simq_value_as_doc (bson_iter_value (&it), &accdoc)) {
         simq_fail (error, 40234, "The field '%s' must be an accumulator object", field);
         goto cleanup;
      }
      if (bson_count_keys (&accdoc) != 1) {
         simq_fail (error, 40238, "The field '%s' must specify one accumulator", field);
         goto cleanup;
      }
      bson_iter_init (&ai, &accdoc);
      bson_iter_next (&ai);
      for (size_t i = 0; i < sizeof simq_acc_names / sizeof simq_acc_names[0]; i++) {
         if (strcmp (simq_acc_names[i].name, bson_iter_key (&ai)) == 0) {
            accs[naccs].kind = simq_acc_names[i].kind;
            known = true;
         }
      }
      if (!known) {
         simq_fail (error, 15952, "unknown group operator '%s'", bson_iter_key (&ai));
         goto cleanup;
      }
      if (accs[naccs].kind == SIMQ_ACC_COUNT) {
         bson_t cd;
         if (!BSON_ITER_HOLDS_DOCUMENT (&ai) || !simq_value_as_doc (bson_iter_value (&ai), &cd) ||
             bson_count_keys (&cd) != 0) {
            simq_fail (error, 9, "$count takes no arguments, i.e. $count:{}");
            goto cleanup;
         }
      }
      accs[naccs].field = field;
      accs[naccs].expr = *bson_iter_value (&ai);
      naccs++;
   }
   if (!have_id) {
      simq_fail (error, 15955, "a group specification must include an _id");
      goto cleanup;
   }

   for (size_t d = 0; d < in->n; d++) {
      simq_ectx_t ctx;
      bson_value_t key;
      simq_group_t *g = NULL;
      if (simq_interrupted (env, d, error)) {
         goto cleanup;
      }
      simq_ectx_for (in->v[d], env, vars, &ctx);
      if (!simq_eval (&id_expr, &ctx, &key, error)) {
         goto cleanup;
      }
      if (simq_value_missing (&key)) {
         key.value_type = BSON_TYPE_NULL;
      }
      /* The group whose key compares equal (the first key seen stays the group's _id), through the hash map. */
      uint64_t h = simq_hash_value (&key);
      size_t probe = 0;
      for (uintptr_t gi; !g && (gi = simq_htab_next (&index, h, &probe)) != 0;) {
         if (order_values (&groups[gi - 1].key, &key) == 0) {
            g = &groups[gi - 1];
         }
      }
      if (!g) {
         if (ngroups == gcap) {
            gcap = gcap ? gcap * 2 : 8;
            groups = bson_realloc (groups, gcap * sizeof *groups);
         }
         g = &groups[ngroups++];
         simq_htab_add (&index, h, (uintptr_t) ngroups);
         g->key = key;
         /* simq_acc_t holds a bson_t, which libbson declares 128-byte aligned: malloc gives only 16 */
         g->accs = bson_aligned_alloc0 (BSON_ALIGNOF (simq_acc_t), (naccs + 1) * sizeof (simq_acc_t));
         for (size_t a = 0; a < naccs; a++) {
            simq_value_set_missing (&g->accs[a].value);
            bson_init (&g->accs[a].list);
         }
      } else {
         simq_value_free (&key);
      }
      for (size_t a = 0; a < naccs; a++) {
         bson_value_t v;
         bool upd_ok;
         if (accs[a].kind == SIMQ_ACC_COUNT) {
            simq_value_set_missing (&v);
         } else if (!simq_eval (&accs[a].expr, &ctx, &v, error)) {
            goto cleanup;
         }
         upd_ok = simq_acc_update (&g->accs[a], &accs[a], &v, error);
         simq_value_free (&v);
         if (!upd_ok) {
            goto cleanup;
         }
      }
   }
   for (size_t i = 0; i < ngroups; i++) {
      bson_t *doc = bson_new ();
      BSON_APPEND_VALUE (doc, "_id", &groups[i].key);
      for (size_t a = 0; a < naccs; a++) {
         simq_acc_result (&groups[i].accs[a], &accs[a], doc);
      }
      simq_docs_push_owned (out, doc);
   }
   ok = true;
cleanup:
   for (size_t i = 0; i < ngroups; i++) {
      simq_value_free (&groups[i].key);
      for (size_t a = 0; a < naccs; a++) {
         simq_value_free (&groups[i].accs[a].value);
         bson_destroy (&groups[i].accs[a].list);
      }
      bson_free (groups[i].accs);
   }
   bson_free (groups);
   bson_free (accs);
   simq_htab_destroy (&index);
   return ok;
}

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

/* $lookup's equality on a top-level foreignField, indexed once per stage instead of a scan of the foreign collection
 * per input document (as the server uses the foreign collection's index). Documents are grouped by distinct value
 * (simq_hash_value → group; each group lists its documents in collection order), so many documents with one value
 * (a collection's chunks under one uuid) cost one probe; documents whose field holds an array (element matching)
 * are kept apart and matched in full. */
typedef struct {
   size_t first; /* the foreign document whose value stands for the group */
   size_t *v;    /* foreign indexes, ascending */
   size_t n, cap;
} simq_lookup_group_t;

typedef struct {
   simq_htab_t by_value; /* simq_hash_value (field) -> group index + 1 */
   simq_lookup_group_t *groups;
   size_t ngroups, capgroups;
   size_t *arrays; /* foreign indexes whose field is an array */
   size_t narrays, caparrays;
   bool built;
} simq_lookup_index_t;

static void
simq_size_push (size_t **v, size_t *n, size_t *cap, size_t x)
{
   if (*n == *cap) {
      *cap = *cap ? *cap * 2 : 8;
      *v = bson_realloc (*v, *cap * sizeof **v);
   }
   (*v)[(*n)++] = x;
}

/* The group of documents whose field equals v, or NULL. */
static simq_lookup_group_t *
simq_lookup_group (simq_lookup_index_t *ix, const simq_docs_t *foreign_docs, const char *foreign, const bson_value_t *v,
                   uint64_t hash)
{
   size_t probe = 0;
   uintptr_t val;
   bson_iter_t fi;
   while ((val = simq_htab_next (&ix->by_value, hash, &probe)) != 0) {
      simq_lookup_group_t *g = &ix->groups[val - 1];
      if (bson_iter_init_find (&fi, foreign_docs->v[g->first], foreign) &&
          order_values (bson_iter_value (&fi), v) == 0) {
         return g;
      }
   }
   return NULL;
}

static void
simq_lookup_index_build (simq_lookup_index_t *ix, const simq_docs_t *foreign_docs, const char *foreign)
{
   simq_htab_init (&ix->by_value);
   for (size_t f = 0; f < foreign_docs->n; f++) {
      bson_iter_t it;
      const bson_value_t *v;
      uint64_t hash;
      simq_lookup_group_t *g;
      if (!bson_iter_init_find (&it, foreign_docs->v[f], foreign)) {
         continue; /* missing: equal only to null, which the indexed path never looks up */
      }
      if (BSON_ITER_HOLDS_ARRAY (&it)) {
         simq_size_push (&ix->arrays, &ix->narrays, &ix->caparrays, f);
         continue;
      }
      v = bson_iter_value (&it);
      hash = simq_hash_value (v);
      g = simq_lookup_group (ix, foreign_docs, foreign, v, hash);
      if (!g) {
         if (ix->ngroups == ix->capgroups) {
            ix->capgroups = ix->capgroups ? ix->capgroups * 2 : 16;
            ix->groups = bson_realloc (ix->groups, ix->capgroups * sizeof *ix->groups);
         }
         g = &ix->groups[ix->ngroups++];
         *g = (simq_lookup_group_t){ .first = f };
         simq_htab_add (&ix->by_value, hash, (uintptr_t) ix->ngroups);
      }
      simq_size_push (&g->v, &g->n, &g->cap, f);
   }
   ix->built = true;
}

static void
simq_lookup_index_destroy (simq_lookup_index_t *ix)
{
   if (!ix->built) {
      return;
   }
   simq_htab_destroy (&ix->by_value);
   for (size_t g = 0; g < ix->ngroups; g++) {
      bson_free (ix->groups[g].v);
   }
   bson_free (ix->groups);
   bson_free (ix->arrays);
}

static int
simq_size_cmp (const void *a, const void *b)
{
   size_t x = *(const size_t *) a, y = *(const size_t *) b;
   return x < y ? -1 : x > y;
}

/* The foreign documents equal to one of the values of list (an $in array of non-null values) on field, in the
 * foreign collection's order, appended to matched. filter is the same condition, for the documents holding arrays. */
static bool
simq_lookup_indexed (simq_lookup_index_t *ix, const simq_docs_t *foreign_docs, const char *foreign, const bson_t *list,
                     const bson_t *filter, simq_docs_t *matched, bson_error_t *error)
{
   size_t *hits = NULL, nhits = 0, cap = 0;
   bson_iter_t it;
   bool ok = true;
   bson_iter_init (&it, list);
   while (bson_iter_next (&it)) {
      const bson_value_t *v = bson_iter_value (&it);
      simq_lookup_group_t *g = simq_lookup_group (ix, foreign_docs, foreign, v, simq_hash_value (v));
      for (size_t j = 0; g && j < g->n; j++) {
         simq_size_push (&hits, &nhits, &cap, g->v[j]);
      }
   }
   for (size_t a = 0; ok && a < ix->narrays; a++) {
      bool m;
      ok = simq_match (foreign_docs->v[ix->arrays[a]], filter, &m, error);
      if (ok && m) {
         simq_size_push (&hits, &nhits, &cap, ix->arrays[a]);
      }
   }
   if (nhits > 1) {
      qsort (hits, nhits, sizeof *hits, simq_size_cmp);
   }
   for (size_t h = 0; ok && h < nhits; h++) {
      if (h == 0 || hits[h] != hits[h - 1]) {
         simq_docs_push_copy (matched, foreign_docs->v[hits[h]]);
      }
   }
   bson_free (hits);
   return ok;
}

static bool
simq_stage_lookup (const bson_value_t *arg, const simq_docs_t *in, const simq_env_t *env, simq_var_t *vars,
                   simq_docs_t *out, bson_error_t *error)
{
   bson_t spec, pipeline;
   bson_iter_t it;
   const char *from = NULL, *local = NULL, *foreign = NULL, *as = NULL;
   const bson_value_t *let = NULL;
   bson_value_t let_v, pipe_v;
   bool have_pipeline = false;
   const simq_docs_t *foreign_docs = NULL;
   simq_docs_t empty;
   simq_lookup_index_t ix = { .built = false };
   bool indexable;

   simq_docs_init (&empty);
   if (arg->value_type != BSON_TYPE_DOCUMENT || !simq_value_as_doc (arg, &spec)) {
      return simq_fail (error, 40319, "the $lookup stage specification must be an object, but found %s",
                        simq_type_name (arg->value_type));
   }
   bson_iter_init (&it, &spec);
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      if (strcmp (k, "from") == 0) {
         if (BSON_ITER_HOLDS_UTF8 (&it)) {
            from = bson_iter_utf8 (&it, NULL);
         } else if (BSON_ITER_HOLDS_DOCUMENT (&it)) {
            bson_t fd;
            bson_iter_t fi;
            simq_value_as_doc (bson_iter_value (&it), &fd);
            if (bson_iter_init_find (&fi, &fd, "coll") && BSON_ITER_HOLDS_UTF8 (&fi)) {
               from = bson_iter_utf8 (&fi, NULL);
            }
         }
         if (!from) {
            return simq_fail (error, 40321, "$lookup 'from' field must be a string");
         }
      } else if (strcmp (k, "localField") == 0 || strcmp (k, "foreignField") == 0 || strcmp (k, "as") == 0) {
         if (!BSON_ITER_HOLDS_UTF8 (&it)) {
            return simq_fail (error, 40321, "$lookup argument '%s' must be a string, is type %s", k,
                              simq_type_name (bson_iter_type (&it)));
         }
         if (k[0] == 'l') {
            local = bson_iter_utf8 (&it, NULL);
         } else if (k[0] == 'f') {
            foreign = bson_iter_utf8 (&it, NULL);
         } else {
            as = bson_iter_utf8 (&it, NULL);
         }
      } else if (strcmp (k, "let") == 0) {
         if (!BSON_ITER_HOLDS_DOCUMENT (&it)) {
            return simq_fail (error, 9, "$lookup argument 'let' must be an object, is type %s",
                              simq_type_name (bson_iter_type (&it)));
         }
         let_v = *bson_iter_value (&it);
         let = &let_v;
      } else if (strcmp (k, "pipeline") == 0) {
         if (!BSON_ITER_HOLDS_ARRAY (&it)) {
            return simq_fail (error, 9, "'pipeline' option must be specified as an array");
         }
         pipe_v = *bson_iter_value (&it);
         simq_value_as_doc (&pipe_v, &pipeline);
         have_pipeline = true;
      } else {
         return simq_fail (error, 9, "unknown argument to $lookup: %s", k);
      }
   }
   if (!as) {
      return simq_fail (error, 9, "must specify 'as' field for a $lookup");
   }
   if ((local == NULL) != (foreign == NULL) || (!local && !have_pipeline)) {
      return simq_fail (error, 9,
                        "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be "
                        "specified");
   }
   if (!from && !have_pipeline) {
      return simq_fail (error, 9, "must specify 'from' field for a $lookup");
   }
   if (!(from && env && env->collection && env->collection (env->ud, from, &foreign_docs))) {
      foreign_docs = &empty;
   }
   /* a top-level foreignField over more than a handful of documents: index it once */
   indexable = local && foreign && !strchr (foreign, '.') && foreign_docs->n > 16;

   for (size_t i = 0; i < in->n; i++) {
      simq_docs_t matched, piped;
      const simq_docs_t *result = &matched;
      bson_t arr = BSON_INITIALIZER, next;
      bson_value_t arrv;
      simq_var_t *head = vars;
      simq_ectx_t ctx;
      bool ok = true;

      simq_docs_init (&matched);
      simq_docs_init (&piped);
      simq_ectx_for (in->v[i], env, vars, &ctx);
      if (local) {
         /* Equality on foreignField with any of the values localField reaches (null when it reaches none). */
         simq_pvals_t pv;
         bson_t filter = BSON_INITIALIZER, cond, list;
         uint32_t k = 0;
         char key[24];
         bool plain = true; /* every value is one the index answers: not null, undefined or missing */
         simq_path_values (in->v[i], local, &pv);
         BSON_APPEND_DOCUMENT_BEGIN (&filter, foreign, &cond);
         BSON_APPEND_ARRAY_BEGIN (&cond, "$in", &list);
         for (size_t j = 0; j < pv.n; j++) {
            bool is_whole_array = !pv.v[j].expanded && pv.v[j].v.value_type == BSON_TYPE_ARRAY;
            if (is_whole_array || pv.v[j].v.value_type == BSON_TYPE_REGEX) {
               continue;
            }
            snprintf (key, sizeof key, "%u", k++);
            bson_append_value (&list, key, -1, &pv.v[j].v);
            plain = plain && pv.v[j].v.value_type != BSON_TYPE_NULL && pv.v[j].v.value_type != BSON_TYPE_UNDEFINED;
         }
         if (k == 0) {
            bson_append_null (&list, "0", 1);
            plain = false;
         }
         bson_append_array_end (&cond, &list);
         bson_append_document_end (&filter, &cond);
         simq_pvals_free (&pv);
         if (plain && indexable) {
            if (!ix.built) {
               simq_lookup_index_build (&ix, foreign_docs, foreign);
            }
            ok = simq_lookup_indexed (&ix, foreign_docs, foreign, &list, &filter, &matched, error);
         } else {
            for (size_t f = 0; ok && f < foreign_docs->n; f++) {
               bool m;
               ok = simq_match (foreign_docs->v[f], &filter, &m, error);
               if (ok && m) {
                  simq_docs_push_copy (&matched, foreign_docs->v[f]);
               }
            }
         }
         bson_destroy (&filter);
      } else {
         for (size_t f = 0; f < foreign_docs->n; f++) {
            simq_docs_push_copy (&matched, foreign_docs->v[f]);
         }
      }
      if (ok && have_pipeline) {
         if (let) {
            bson_t letdoc;
            bson_iter_t li;
            simq_value_as_doc (let, &letdoc);
            bson_iter_init (&li, &letdoc);
            while (ok && bson_iter_next (&li)) {
               simq_var_t *node = bson_malloc0 (sizeof *node);
               node->name = bson_iter_key (&li);
               node->next = head;
               head = node;
               ok = simq_eval (bson_iter_value (&li), &ctx, &node->value, error);
            }
         }
         if (ok) {
            ok = simq_run_pipeline_taking (&matched, &pipeline, env, head, &piped, error);
            result = &piped;
         }
      }
      while (head != vars) {
         simq_var_t *node = head;
         head = head->next;
         simq_value_free (&node->value);
         bson_free (node);
      }
      if (ok) {
         for (size_t r = 0; r < result->n; r++) {
            char key[24];
            snprintf (key, sizeof key, "%zu", r);
            bson_append_document (&arr, key, -1, result->v[r]);
         }
         simq_value_from_doc (&arr, true, &arrv);
         ok = simq_set_path (in->v[i], as, &arrv, &next, error);
         simq_value_free (&arrv);
         if (ok) {
            simq_docs_push_owned (out, bson_copy (&next));
         }
         bson_destroy (&next);
      }
      bson_destroy (&arr);
      simq_docs_clear (&matched);
      simq_docs_clear (&piped);
      if (!ok) {
         simq_lookup_index_destroy (&ix);
         return false;
      }
   }
   simq_lookup_index_destroy (&ix);
   return true;
}

/* $unionWith: "coll" or { coll, pipeline }: the input, then the documents of coll (in the pipeline's database) run
 * through pipeline. */
static bool
simq_stage_union_with (const bson_value_t *arg, const simq_docs_t *in, const simq_env_t *env, simq_var_t *vars,
                       simq_docs_t *out, bson_error_t *error)
{
   const char *coll = NULL;
   bson_t spec, pipeline = BSON_INITIALIZER;
   bool have_pipeline = false, ok = true;
   const simq_docs_t *docs = NULL;
   simq_docs_t empty;

   if (arg->value_type == BSON_TYPE_UTF8) {
      coll = arg->value.v_utf8.str;
   } else if (arg->value_type == BSON_TYPE_DOCUMENT && simq_value_as_doc (arg, &spec)) {
      bson_iter_t it;
      bson_iter_init (&it, &spec);
      while (bson_iter_next (&it)) {
         if (strcmp (bson_iter_key (&it), "coll") == 0 && BSON_ITER_HOLDS_UTF8 (&it)) {
            coll = bson_iter_utf8 (&it, NULL);
         } else if (strcmp (bson_iter_key (&it), "pipeline") == 0 && BSON_ITER_HOLDS_ARRAY (&it)) {
            simq_value_as_doc (bson_iter_value (&it), &pipeline);
            have_pipeline = true;
         } else {
            return simq_fail (error, 40415, "BSON field '$unionWith.%s' is an unknown field.", bson_iter_key (&it));
         }
      }
   } else {
      return simq_fail (error, 40451, "the $unionWith stage specification must be an object or string, but found %s",
                        simq_type_name (arg->value_type));
   }
   if (!coll) {
      return simq_fail (error, 40414, "BSON field '$unionWith.coll' is missing but a required field");
   }
   for (size_t i = 0; i < in->n; i++) {
      simq_docs_push_copy (out, in->v[i]);
   }
   simq_docs_init (&empty);
   if (!(env && env->collection && env->collection (env->ud, coll, &docs))) {
      docs = &empty;
   }
   if (have_pipeline) {
      ok = simq_run_pipeline (docs, &pipeline, env, vars, out, error);
   } else {
      for (size_t i = 0; i < docs->n; i++) {
         simq_docs_push_copy (out, docs->v[i]);
      }
   }
   simq_docs_clear (&empty);
   return ok;
}

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
         simq_value_free (&v);
         return false;
      }
      simq_docs_push_owned (out, bson_copy (&sub));
      simq_value_free (&v);
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
   simq_value_free (&v);
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
   simq_value_free (&gv);
   BSON_APPEND_INT32 (&sort, "count", -1);
   if (ok) {
      ok = simq_sort (out, &sort, error);
   }
   bson_destroy (&group);
   bson_destroy (&sort);
   return ok;
}

/* ---- the pipeline ---- */

/* Runs one stage over in (the runner's own documents: a stage may take them, leaving in empty) into out. */
static bool
simq_run_stage (const char *name, const bson_t *stage, const bson_value_t *arg, bool first, simq_docs_t *in,
                const simq_env_t *env, simq_var_t *vars, simq_docs_t *out, bson_error_t *error)
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
   if (strcmp (name, "$sort") == 0) {
      bson_t spec;
      if (arg->value_type != BSON_TYPE_DOCUMENT || !simq_value_as_doc (arg, &spec)) {
         return simq_fail (error, 15973, "the $sort key specification must be an object");
      }
      if (bson_count_keys (&spec) == 0) {
         return simq_fail (error, 15976, "$sort stage must have at least one sort key");
      }
      /* the runner owns its documents: they move to out in their new order instead of being copied */
      *out = *in;
      simq_docs_init (in);
      return simq_sort (out, &spec, error);
   }
   if (strcmp (name, "$limit") == 0 || strcmp (name, "$skip") == 0) {
      return simq_stage_limit_skip (name[1] == 'l', arg, in, out, error);
   }
   if (strcmp (name, "$unwind") == 0) {
      return simq_stage_unwind (arg, in, out, error);
   }
   if (strcmp (name, "$lookup") == 0) {
      return simq_stage_lookup (arg, in, env, vars, out, error);
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

/* Runs pipeline over the documents of *input, which it takes (input is left empty). */
static bool
simq_run_pipeline_taking (simq_docs_t *input, const bson_t *pipeline, const simq_env_t *env, simq_var_t *vars,
                          simq_docs_t *out, bson_error_t *error)
{
   simq_docs_t cur = *input, next;
   bson_iter_t it;
   bool ok = false, first = true;

   simq_docs_init (input);
   simq_docs_init (&next);
   if (!bson_iter_init (&it, pipeline)) {
      simq_fail (error, 14, "'pipeline' option must be specified as an array");
      goto cleanup;
   }
   while (bson_iter_next (&it)) {
      bson_t stage;
      bson_iter_t si;
      if (!BSON_ITER_HOLDS_DOCUMENT (&it) || !simq_value_as_doc (bson_iter_value (&it), &stage)) {
         simq_fail (error, 14, "Each element of the 'pipeline' array must be an object");
         goto cleanup;
      }
      if (bson_count_keys (&stage) != 1) {
         simq_fail (error, 40323, "A pipeline stage specification object must contain exactly one field.");
         goto cleanup;
      }
      bson_iter_init (&si, &stage);
      bson_iter_next (&si);
      if (simq_interrupted (env, 0, error)) {
         goto cleanup;
      }
      if (!simq_run_stage (bson_iter_key (&si), &stage, bson_iter_value (&si), first, &cur, env, vars, &next, error)) {
         goto cleanup;
      }
      first = false;
      simq_docs_clear (&cur);
      cur = next;
      simq_docs_init (&next);
   }
   for (size_t i = 0; i < cur.n; i++) {
      simq_docs_push_owned (out, cur.v[i]);
      cur.v[i] = NULL;
   }
   cur.n = 0;
   ok = true;
cleanup:
   simq_docs_clear (&cur);
   simq_docs_clear (&next);
   return ok;
}

static bool
simq_run_pipeline (const simq_docs_t *input, const bson_t *pipeline, const simq_env_t *env, simq_var_t *vars,
                   simq_docs_t *out, bson_error_t *error)
{
   simq_docs_t cur;
   simq_docs_init (&cur);
   for (size_t i = 0; i < input->n; i++) {
      if (simq_interrupted (env, i, error)) {
         simq_docs_clear (&cur);
         return false;
      }
      simq_docs_push_copy (&cur, input->v[i]);
   }
   return simq_run_pipeline_taking (&cur, pipeline, env, vars, out, error);
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
