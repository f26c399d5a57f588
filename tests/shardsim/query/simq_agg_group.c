/* The query engine's $group stage: the accumulators ($sum, $avg, $min, $max, $first, $last, $push, $addToSet,
 * $count …) and the grouping of the input by the _id expression. */
#include "tests/shardsim/query/simq_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
   const char *path;  /* expr is "$<path>", a top-level field: read in place (NULL otherwise) */
   size_t path_len;
   bool literal; /* expr is a number: used as is, not evaluated */
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
   bson_value_t key; /* owned, or borrowed from an input document when _id is a top-level field (see key_owned) */
   simq_acc_t *accs; /* in a block of simq_acc_pool_t */
} simq_group_t;

/* The accumulators of a $group's groups, allocated a block of groups at a time (simq_acc_t holds a bson_t, which
 * libbson declares 128-byte aligned, so each block is an aligned allocation): a group of a thousand-group $group no
 * longer costs an allocation of its own. */
#define SIMQ_ACC_BLOCK 64
typedef struct {
   simq_acc_t **blocks;
   size_t nblocks, capblocks;
   size_t used; /* groups placed in the last block */
} simq_acc_pool_t;

/* Room for the n accumulators of one more group, zeroed. */
static simq_acc_t *
simq_acc_pool_take (simq_acc_pool_t *pool, size_t n)
{
   if (pool->nblocks == 0 || pool->used == SIMQ_ACC_BLOCK) {
      if (pool->nblocks == pool->capblocks) {
         pool->capblocks = pool->capblocks ? pool->capblocks * 2 : 8;
         pool->blocks = bson_realloc (pool->blocks, pool->capblocks * sizeof *pool->blocks);
      }
      pool->blocks[pool->nblocks++] =
         bson_aligned_alloc (BSON_ALIGNOF (simq_acc_t), SIMQ_ACC_BLOCK * n * sizeof (simq_acc_t));
      pool->used = 0;
   }
   simq_acc_t *accs = &pool->blocks[pool->nblocks - 1][n * pool->used++];
   memset (accs, 0, n * sizeof *accs); /* a group's own: not the whole block, most of which a small $group never uses */
   return accs;
}

static void
simq_acc_pool_destroy (simq_acc_pool_t *pool)
{
   for (size_t b = 0; b < pool->nblocks; b++) {
      bson_free (pool->blocks[b]);
   }
   bson_free (pool->blocks);
}

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
      simq_value_destroy (&a->value);
      simq_value_copy (v, &a->value);
      a->set = true;
      return true;
   case SIMQ_ACC_MIN:
   case SIMQ_ACC_MAX:
      if (simq_value_missing (v) || v->value_type == BSON_TYPE_NULL || v->value_type == BSON_TYPE_UNDEFINED) {
         return true;
      }
      if (!a->set || (spec->kind == SIMQ_ACC_MIN ? order_values (v, &a->value) < 0 : order_values (v, &a->value) > 0)) {
         simq_value_destroy (&a->value);
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

/* The field of an expression "$<field>" naming a top-level field (no dot, no variable, no embedded NUL), else
 * NULL. Such a field is read in place: what simq_eval would copy. */
static const char *
simq_top_field (const bson_value_t *e)
{
   const char *s;
   if (e->value_type != BSON_TYPE_UTF8)
      return NULL;
   s = e->value.v_utf8.str;
   if (s[0] != '$' || s[1] == '$' || s[1] == '\0' || strchr (s, '.') || strlen (s) != e->value.v_utf8.len)
      return NULL;
   return s + 1;
}

/* Parses the accumulator of one output field ({ field: { $op: expr } }) into acc; false (error set) when it is not
 * one accumulator object of a known operator. acc borrows from it. */
static bool
simq_acc_parse (const char *field, bson_iter_t *it, simq_acc_spec_t *acc, bson_error_t *error)
{
   bson_t accdoc;
   bson_iter_t ai;
   bool known = false;
   if (strchr (field, '.')) {
      return simq_fail (error, 40235, "The field name '%s' cannot contain '.'", field);
   }
   if (field[0] == '$') {
      return simq_fail (error, 40236, "The field name '%s' cannot be an operator name", field);
   }
   if (!BSON_ITER_HOLDS_DOCUMENT (it) || !simq_value_as_doc (bson_iter_value (it), &accdoc)) {
      return simq_fail (error, 40234, "The field '%s' must be an accumulator object", field);
   }
   if (bson_count_keys (&accdoc) != 1) {
      return simq_fail (error, 40238, "The field '%s' must specify one accumulator", field);
   }
   bson_iter_init (&ai, &accdoc);
   bson_iter_next (&ai);
   for (size_t i = 0; i < sizeof simq_acc_names / sizeof simq_acc_names[0]; i++) {
      if (strcmp (simq_acc_names[i].name, bson_iter_key (&ai)) == 0) {
         acc->kind = simq_acc_names[i].kind;
         known = true;
      }
   }
   if (!known) {
      return simq_fail (error, 15952, "unknown group operator '%s'", bson_iter_key (&ai));
   }
   if (acc->kind == SIMQ_ACC_COUNT) {
      bson_t cd;
      if (!BSON_ITER_HOLDS_DOCUMENT (&ai) || !simq_value_as_doc (bson_iter_value (&ai), &cd) ||
          bson_count_keys (&cd) != 0) {
         return simq_fail (error, 9, "$count takes no arguments, i.e. $count:{}");
      }
   }
   acc->field = field;
   acc->expr = *bson_iter_value (&ai);
   acc->path = simq_top_field (&acc->expr);
   acc->path_len = acc->path ? strlen (acc->path) : 0;
   acc->literal = simq_is_number (&acc->expr);
   return true;
}

/* $group over in: one document per group into out, or, with arr, appended to arr as its elements "0", "1", ...
 * (the bytes bson_append_document of each of those documents would append). */
static bool
simq_group_run (const bson_value_t *arg, const simq_docs_t *in, const simq_env_t *env, simq_var_t *vars,
                simq_docs_t *out, bson_t *arr, bson_error_t *error)
{
   bson_t spec;
   bson_iter_t it;
   bson_value_t id_expr;
   const char *id_field = NULL; /* _id is "$<id_field>", a top-level field */
   size_t id_len = 0;
   bool have_id = false, ok = false;
   simq_acc_spec_t *accs = NULL;
   size_t naccs = 0;
   simq_group_t *groups = NULL;
   size_t ngroups = 0, gcap = 0;
   simq_htab_t index; /* group key hash -> index + 1 in groups */
   simq_acc_pool_t pool = { 0 };
   simq_htab_init (&index);

   if (arg->value_type != BSON_TYPE_DOCUMENT || !simq_value_as_doc (arg, &spec)) {
      return simq_fail (error, 15947, "a group's fields must be specified in an object");
   }
   accs = bson_malloc0 ((bson_count_keys (&spec) + 1) * sizeof *accs);
   bson_iter_init (&it, &spec);
   while (bson_iter_next (&it)) {
      const char *field = bson_iter_key (&it);
      if (strcmp (field, "_id") == 0) {
         id_expr = *bson_iter_value (&it);
         have_id = true;
         continue;
      }
      if (!simq_acc_parse (field, &it, &accs[naccs], error)) {
         goto cleanup;
      }
      naccs++;
   }
   if (!have_id) {
      simq_fail (error, 15955, "a group specification must include an _id");
      goto cleanup;
   }
   /* _id "$field" on a top-level field: its value read in place (missing: null), copied only for a new group */
   id_field = simq_top_field (&id_expr);
   id_len = id_field ? strlen (id_field) : 0;

   for (size_t d = 0; d < in->n; d++) {
      simq_ectx_t ctx;
      bson_value_t key;
      simq_group_t *g = NULL;
      if (simq_interrupted (env, d, error)) {
         goto cleanup;
      }
      simq_ectx_for (in->v[d], env, vars, &ctx);
      if (id_field) {
         if (!simq_find_value_n (in->v[d], id_field, id_len, &key)) { /* no dot: simq_get_path's own answer */
            memset (&key, 0, sizeof key);
            key.value_type = BSON_TYPE_NULL;
         }
      } else if (!simq_eval (&id_expr, &ctx, &key, error)) {
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
         g->key = key; /* _id "$field": borrowed from in->v[d], which the stage only reads and outlives it */
         g->accs = simq_acc_pool_take (&pool, naccs + 1);
         for (size_t a = 0; a < naccs; a++) {
            simq_value_set_missing (&g->accs[a].value);
            bson_init (&g->accs[a].list);
         }
      } else if (!id_field) {
         simq_value_destroy (&key);
      }
      for (size_t a = 0; a < naccs; a++) {
         bson_value_t v;
         bool upd_ok, owned = false;
         /* a top-level field is read in place and a number used as is (the accumulator copies what it keeps) */
         if (accs[a].kind == SIMQ_ACC_COUNT) {
            simq_value_set_missing (&v);
         } else if (accs[a].path) {
            if (!simq_find_value_n (in->v[d], accs[a].path, accs[a].path_len, &v))
               simq_value_set_missing (&v);
         } else if (accs[a].literal) {
            v = accs[a].expr;
         } else if (!simq_eval (&accs[a].expr, &ctx, &v, error)) {
            goto cleanup;
         } else {
            owned = true;
         }
         upd_ok = simq_acc_update (&g->accs[a], &accs[a], &v, error);
         if (owned)
            simq_value_destroy (&v);
         if (!upd_ok) {
            goto cleanup;
         }
      }
   }
   for (size_t i = 0; i < ngroups; i++) {
      bson_t child, *doc = &child;
      char key[16];
      const char *kp;
      if (arr) {
         bson_uint32_to_string ((uint32_t) i, &kp, key, sizeof key);
         BSON_APPEND_DOCUMENT_BEGIN (arr, kp, &child);
      } else {
         doc = bson_new ();
      }
      BSON_APPEND_VALUE (doc, "_id", &groups[i].key);
      for (size_t a = 0; a < naccs; a++) {
         simq_acc_result (&groups[i].accs[a], &accs[a], doc);
      }
      if (arr) {
         bson_append_document_end (arr, &child);
      } else {
         simq_docs_push_owned (out, doc);
      }
   }
   ok = true;
cleanup:
   for (size_t i = 0; i < ngroups; i++) {
      if (!id_field) {
         simq_value_destroy (&groups[i].key);
      }
      for (size_t a = 0; a < naccs; a++) {
         simq_value_destroy (&groups[i].accs[a].value);
         bson_destroy (&groups[i].accs[a].list);
      }
   }
   simq_acc_pool_destroy (&pool);
   bson_free (groups);
   bson_free (accs);
   simq_htab_destroy (&index);
   return ok;
}

bool
simq_stage_group (const bson_value_t *arg, const simq_docs_t *in, const simq_env_t *env, simq_var_t *vars,
                  simq_docs_t *out, bson_error_t *error)
{
   return simq_group_run (arg, in, env, vars, out, NULL, error);
}

bool
simq_group_into_array (const bson_value_t *arg, const simq_docs_t *in, const simq_env_t *env, simq_var_t *vars,
                       bson_t *arr, bson_error_t *error)
{
   return simq_group_run (arg, in, env, vars, NULL, arr, error);
}
