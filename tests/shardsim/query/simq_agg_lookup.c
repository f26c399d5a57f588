/* The query engine's joining stages: $lookup (plain, with a pipeline, and indexed by the foreign field when the
 * local side is large) and $unionWith. */
#include "tests/shardsim/query/simq_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The indexes the $lookup stages of one pipeline built, for its later $lookup stages on the same foreign documents
 * and field (sh.status's aggregate has two on config.chunks by uuid): an index is built once per pipeline, as the
 * server's lives with its collection. The foreign documents are the env's, unchanged while the pipeline runs. */
#define SIMQ_LOOKUP_CACHED 4
struct simq_lookup_cache {
   struct {
      const simq_docs_t *docs;
      bson_t **v;
      size_t n;
      char *field;
      simq_lookup_index_t ix;
   } e[SIMQ_LOOKUP_CACHED];
   size_t n;
};

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

void
simq_lookup_cache_free (simq_lookup_cache_t *cache)
{
   for (size_t i = 0; cache && i < cache->n; i++) {
      simq_lookup_index_destroy (&cache->e[i].ix);
      bson_free (cache->e[i].field);
   }
   bson_free (cache);
}

/* The index of foreign_docs on field: *cache's (created on first use) when it has it or room for it, else local. */
static simq_lookup_index_t *
simq_lookup_cached (simq_lookup_cache_t **cache, const simq_docs_t *foreign_docs, const char *field,
                    simq_lookup_index_t *local)
{
   simq_lookup_cache_t *c;
   if (!cache) {
      return local;
   }
   if (!*cache) {
      *cache = bson_malloc0 (sizeof **cache);
   }
   c = *cache;
   for (size_t i = 0; i < c->n; i++) {
      if (c->e[i].docs == foreign_docs && c->e[i].v == foreign_docs->v && c->e[i].n == foreign_docs->n &&
          strcmp (c->e[i].field, field) == 0) {
         return &c->e[i].ix;
      }
   }
   if (c->n == SIMQ_LOOKUP_CACHED) {
      return local;
   }
   c->e[c->n].docs = foreign_docs;
   c->e[c->n].v = foreign_docs->v;
   c->e[c->n].n = foreign_docs->n;
   c->e[c->n].field = bson_strdup (field);
   c->e[c->n].ix = (simq_lookup_index_t){ .built = false };
   return &c->e[c->n++].ix;
}

static int
simq_size_cmp (const void *a, const void *b)
{
   size_t x = *(const size_t *) a, y = *(const size_t *) b;
   return x < y ? -1 : x > y;
}

/* The foreign documents equal to one of the values of list (an $in array of non-null values) on field, in the
 * foreign collection's order, appended to matched (a view: the pointers are foreign_docs' own). filter is the same
 * condition, for the documents holding arrays. */
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
         simq_docs_push_owned (matched, foreign_docs->v[hits[h]]); /* borrowed: matched is a view */
      }
   }
   bson_free (hits);
   return ok;
}

/* The documents of foreign_docs whose foreign field equals one of the values doc's local field reaches (null when it
 * reaches none), appended to matched as a view (foreign_docs' own pointers: release matched with bson_free
 * (matched->v), never simq_docs_clear); through ix (built on first use) when indexable and every value is plain. */
static bool
simq_lookup_local_matches (const bson_t *doc, const char *local, const char *foreign, const simq_docs_t *foreign_docs,
                           bool indexable, simq_lookup_index_t *ix, simq_docs_t *matched, bson_error_t *error)
{
   bool ok = true;
   /* Equality on foreignField with any of the values localField reaches (null when it reaches none). */
   simq_pvals_t pv;
   bson_t filter = BSON_INITIALIZER, cond, list;
   uint32_t k = 0;
   char key[24];
   bool plain = true; /* every value is one the index answers: not null, undefined or missing */
   simq_path_values (doc, local, &pv);
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
   simq_pvals_destroy (&pv);
   if (plain && indexable) {
      if (!ix->built) {
         simq_lookup_index_build (ix, foreign_docs, foreign);
      }
      ok = simq_lookup_indexed (ix, foreign_docs, foreign, &list, &filter, matched, error);
   } else {
      for (size_t f = 0; ok && f < foreign_docs->n; f++) {
         bool m;
         ok = simq_match (foreign_docs->v[f], &filter, &m, error);
         if (ok && m) {
            simq_docs_push_owned (matched, foreign_docs->v[f]); /* borrowed: matched is a view */
         }
      }
   }
   bson_destroy (&filter);
   return ok;
}

/* Pushes the variables of let (a document of expressions evaluated in ctx) onto *head; false (error set) when one
 * fails. The caller frees the nodes it gets down to its own list. */
static bool
simq_lookup_bind_let (const bson_value_t *let, const simq_ectx_t *ctx, simq_var_t **head, bson_error_t *error)
{
   bool ok = true;
   bson_t letdoc;
   bson_iter_t li;
   simq_value_as_doc (let, &letdoc);
   bson_iter_init (&li, &letdoc);
   while (ok && bson_iter_next (&li)) {
      simq_var_t *node = bson_malloc0 (sizeof *node);
      node->name = bson_iter_key (&li);
      node->next = *head;
      *head = node;
      ok = simq_eval (bson_iter_value (&li), ctx, &node->value, error);
   }
   return ok;
}

/* A $lookup's arguments, borrowed from its specification. */
typedef struct {
   const char *from, *local, *foreign, *as;
   const bson_value_t *let;
   bson_value_t let_v;
   bson_t pipeline;
   bool have_pipeline;
} simq_lookup_spec_t;

/* Parses a $lookup specification into ls, with the server's errors. */
static bool
simq_lookup_parse (const bson_value_t *arg, simq_lookup_spec_t *ls, bson_error_t *error)
{
   bson_t spec;
   bson_iter_t it;

   memset (ls, 0, sizeof *ls);
   if (arg->value_type != BSON_TYPE_DOCUMENT || !simq_value_as_doc (arg, &spec)) {
      return simq_fail (error, 40319, "the $lookup stage specification must be an object, but found %s",
                        simq_type_name (arg->value_type));
   }
   bson_iter_init (&it, &spec);
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      if (strcmp (k, "from") == 0) {
         if (BSON_ITER_HOLDS_UTF8 (&it)) {
            ls->from = bson_iter_utf8 (&it, NULL);
         } else if (BSON_ITER_HOLDS_DOCUMENT (&it)) {
            bson_t fd;
            bson_iter_t fi;
            simq_value_as_doc (bson_iter_value (&it), &fd);
            if (bson_iter_init_find (&fi, &fd, "coll") && BSON_ITER_HOLDS_UTF8 (&fi)) {
               ls->from = bson_iter_utf8 (&fi, NULL);
            }
         }
         if (!ls->from) {
            return simq_fail (error, 40321, "$lookup 'from' field must be a string");
         }
      } else if (strcmp (k, "localField") == 0 || strcmp (k, "foreignField") == 0 || strcmp (k, "as") == 0) {
         if (!BSON_ITER_HOLDS_UTF8 (&it)) {
            return simq_fail (error, 40321, "$lookup argument '%s' must be a string, is type %s", k,
                              simq_type_name (bson_iter_type (&it)));
         }
         if (k[0] == 'l') {
            ls->local = bson_iter_utf8 (&it, NULL);
         } else if (k[0] == 'f') {
            ls->foreign = bson_iter_utf8 (&it, NULL);
         } else {
            ls->as = bson_iter_utf8 (&it, NULL);
         }
      } else if (strcmp (k, "let") == 0) {
         if (!BSON_ITER_HOLDS_DOCUMENT (&it)) {
            return simq_fail (error, 9, "$lookup argument 'let' must be an object, is type %s",
                              simq_type_name (bson_iter_type (&it)));
         }
         ls->let_v = *bson_iter_value (&it);
         ls->let = &ls->let_v;
      } else if (strcmp (k, "pipeline") == 0) {
         if (!BSON_ITER_HOLDS_ARRAY (&it)) {
            return simq_fail (error, 9, "'pipeline' option must be specified as an array");
         }
         simq_value_as_doc (bson_iter_value (&it), &ls->pipeline);
         ls->have_pipeline = true;
      } else {
         return simq_fail (error, 9, "unknown argument to $lookup: %s", k);
      }
   }
   if (!ls->as) {
      return simq_fail (error, 9, "must specify 'as' field for a $lookup");
   }
   if ((ls->local == NULL) != (ls->foreign == NULL) || (!ls->local && !ls->have_pipeline)) {
      return simq_fail (error, 9,
                        "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be "
                        "specified");
   }
   if (!ls->from && !ls->have_pipeline) {
      return simq_fail (error, 9, "must specify 'from' field for a $lookup");
   }
   return true;
}

/* The foreign documents of a $lookup, asked of env->collection only when a document needs them (a lookup answered
 * by env->equal_docs never does), with the index of the foreign field. */
typedef struct {
   const simq_lookup_spec_t *ls;
   const simq_env_t *env;
   simq_lookup_cache_t **cache;
   const simq_docs_t *docs; /* NULL until asked */
   simq_docs_t empty;
   simq_lookup_index_t own, *ix;
   bool indexable;
} simq_lookup_foreign_t;

static void
simq_lookup_foreign_resolve (simq_lookup_foreign_t *fo)
{
   const simq_lookup_spec_t *ls = fo->ls;
   if (fo->docs) {
      return;
   }
   if (!(ls->from && fo->env && fo->env->collection && fo->env->collection (fo->env->ud, ls->from, &fo->docs))) {
      fo->docs = &fo->empty;
   }
   /* a top-level foreignField over more than a handful of documents: index it once */
   fo->indexable = ls->local && ls->foreign && !strchr (ls->foreign, '.') && fo->docs->n > 16;
   fo->ix = fo->indexable ? simq_lookup_cached (fo->cache, fo->docs, ls->foreign, &fo->own) : &fo->own;
}

/* The pipeline's leading { $sort: { f: 1 } } on a top-level field f and the valid { $limit: n } right after it: what
 * an index of the caller ordered on f answers in place of both (the server's walk of { uuid: 1, min: 1 }). */
typedef struct {
   const char *order_field; /* NULL: the pipeline does not start so */
   size_t take;             /* n, SIZE_MAX without the $limit */
   bson_iter_t last;        /* the last stage answered: the $sort or its $limit */
} simq_lookup_lead_t;

static void
simq_lookup_lead (const simq_lookup_spec_t *ls, simq_lookup_lead_t *lead)
{
   bson_iter_t it, si, ki;
   bson_t stage, spec;
   int64_t d;
   lead->order_field = NULL;
   lead->take = SIZE_MAX;
   if (!ls->have_pipeline || !bson_iter_init (&it, &ls->pipeline) || !bson_iter_next (&it) ||
       !BSON_ITER_HOLDS_DOCUMENT (&it) || !simq_value_as_doc (bson_iter_value (&it), &stage) ||
       bson_count_keys (&stage) != 1 || !bson_iter_init (&si, &stage) || !bson_iter_next (&si) ||
       strcmp (bson_iter_key (&si), "$sort") != 0 || !BSON_ITER_HOLDS_DOCUMENT (&si) ||
       !simq_value_as_doc (bson_iter_value (&si), &spec) || bson_count_keys (&spec) != 1 ||
       !bson_iter_init (&ki, &spec) || !bson_iter_next (&ki) || bson_iter_key_len (&ki) == 0 ||
       strchr (bson_iter_key (&ki), '.') || !simq_is_integral_number (bson_iter_value (&ki), &d) || d != 1) {
      return;
   }
   lead->order_field = bson_iter_key (&ki);
   lead->last = it;
   if (bson_iter_next (&it) && simq_limit_of (&it, &lead->take)) {
      lead->last = it;
   }
}

/* The argument of the pipeline's one stage when the pipeline is [{ $group: arg }] (sh.status's count of a
 * collection's chunks per shard), into *arg (borrowed from ls); false otherwise. */
static bool
simq_lookup_sole_group (const simq_lookup_spec_t *ls, bson_value_t *arg)
{
   bson_iter_t it, si;
   bson_t stage;
   if (!ls->have_pipeline || !bson_iter_init (&it, &ls->pipeline) || !bson_iter_next (&it) ||
       !BSON_ITER_HOLDS_DOCUMENT (&it) || !simq_value_as_doc (bson_iter_value (&it), &stage) ||
       bson_count_keys (&stage) != 1 || !bson_iter_init (&si, &stage) || !bson_iter_next (&si) ||
       strcmp (bson_iter_key (&si), "$group") != 0 || bson_iter_next (&it)) {
      return false;
   }
   *arg = *bson_iter_value (&si);
   return true;
}

/* The one value doc's localField reaches, when the equality has that value alone and it is neither null nor
 * undefined (which also match a missing foreign field): the values simq_lookup_local_matches would list. Borrowed
 * from doc. */
static bool
simq_lookup_sole_value (const bson_t *doc, const char *local, bson_value_t *v)
{
   simq_pvals_t pv;
   size_t k = 0;
   simq_path_values (doc, local, &pv);
   for (size_t j = 0; j < pv.n; j++) {
      const bson_value_t *x = &pv.v[j].v;
      if ((!pv.v[j].expanded && x->value_type == BSON_TYPE_ARRAY) || x->value_type == BSON_TYPE_REGEX) {
         continue;
      }
      if (k++ == 0) {
         *v = *x;
      }
   }
   simq_pvals_destroy (&pv);
   return k == 1 && v->value_type != BSON_TYPE_NULL && v->value_type != BSON_TYPE_UNDEFINED;
}

/* Whether { foreign: { $in: [v] } } matches fdoc (foreign a top-level field): a plain value by comparison, an array
 * (element matching) through the matcher. */
static bool
simq_lookup_equal (const bson_t *fdoc, const char *foreign, const bson_value_t *v, bool *m, bson_error_t *error)
{
   bson_value_t f;
   bson_t filter = BSON_INITIALIZER, cond, list;
   bool ok;
   if (!simq_find_value (fdoc, foreign, &f)) {
      *m = false;
      return true;
   }
   if (f.value_type != BSON_TYPE_ARRAY) {
      *m = order_values (&f, v) == 0;
      return true;
   }
   BSON_APPEND_DOCUMENT_BEGIN (&filter, foreign, &cond);
   BSON_APPEND_ARRAY_BEGIN (&cond, "$in", &list);
   bson_append_value (&list, "0", 1, v);
   bson_append_array_end (&cond, &list);
   bson_append_document_end (&filter, &cond);
   ok = simq_match (fdoc, &filter, m, error);
   bson_destroy (&filter);
   return ok;
}

/* Views of raw documents (bson_t, which libbson aligns to 128 bytes: not an array of pointers' memory). */
typedef struct {
   bson_t *v;
   size_t cap;
} simq_views_t;

/* doc's matches answered by env->equal_docs, when doc's localField reaches one value it answers for: views (in
 * views) of the foreign documents { foreign: v } matches appended to matched, in the collection's order, or, when
 * *lead names a leading $sort the caller's index has (then *sorted is set), in that order and at most lead->take of
 * them. Returns 1 when answered, 0 when the engine must find the matches itself, -1 on error. */
static int
simq_lookup_from_index (const simq_lookup_spec_t *ls, const simq_env_t *env, const bson_t *doc,
                        const simq_lookup_lead_t *lead, simq_views_t *views, simq_docs_t *matched, bool *sorted,
                        bson_error_t *error)
{
   const uint8_t *const *raw = NULL;
   size_t n = 0, take = SIZE_MAX;
   bson_value_t v;
   bool exact = false;

   *sorted = false;
   if (!env || !env->equal_docs || !ls->from || strchr (ls->foreign, '.') ||
       !simq_lookup_sole_value (doc, ls->local, &v)) {
      return 0;
   }
   if (lead->order_field && env->equal_docs (env->ud, ls->from, ls->foreign, &v, lead->order_field, &raw, &n, &exact)) {
      *sorted = true;
      take = lead->take;
   } else if (!env->equal_docs (env->ud, ls->from, ls->foreign, &v, NULL, &raw, &n, &exact)) {
      return 0;
   }
   if (n > views->cap) {
      bson_free (views->v);
      views->cap = n;
      views->v = bson_aligned_alloc0 (BSON_ALIGNOF (bson_t), views->cap * sizeof (bson_t));
   }
   for (size_t i = 0; i < n && matched->n < take; i++) {
      const uint8_t *d = raw[i];
      uint32_t len = (uint32_t) d[0] | (uint32_t) d[1] << 8 | (uint32_t) d[2] << 16 | (uint32_t) d[3] << 24;
      bool m;
      if (simq_interrupted (env, i, error)) {
         return -1;
      }
      bson_init_static (&views->v[i], d, len);
      m = exact;
      if (!exact && !simq_lookup_equal (&views->v[i], ls->foreign, &v, &m, error)) {
         return -1;
      }
      if (m) {
         simq_docs_push_owned (matched, &views->v[i]); /* borrowed: matched is a view */
      }
   }
   return 1;
}

bool
simq_stage_lookup (const bson_value_t *arg, const simq_docs_t *in, const simq_env_t *env, simq_var_t *vars,
                   simq_lookup_cache_t **cache, simq_docs_t *out, bson_error_t *error)
{
   simq_lookup_spec_t ls;
   simq_lookup_foreign_t fo;
   simq_lookup_lead_t lead;
   simq_views_t views = { NULL, 0 };
   bson_value_t group_arg;
   bool ok = true, group_only;

   if (!simq_lookup_parse (arg, &ls, error)) {
      return false;
   }
   memset (&fo, 0, sizeof fo);
   fo.ls = &ls;
   fo.env = env;
   fo.cache = cache;
   simq_docs_init (&fo.empty);
   simq_lookup_lead (&ls, &lead);
   group_only = simq_lookup_sole_group (&ls, &group_arg);

   for (size_t i = 0; ok && i < in->n; i++) {
      simq_docs_t matched, piped; /* matched: a view of the foreign documents (borrowed pointers) */
      const simq_docs_t *result = &matched;
      bson_t arr = BSON_INITIALIZER, next;
      bson_value_t arrv;
      simq_var_t *head = vars;
      simq_ectx_t ctx;
      bool sorted = false, in_arr = false; /* in_arr: the result is in arr already */

      simq_docs_init (&matched);
      simq_docs_init (&piped);
      simq_ectx_for (in->v[i], env, vars, &ctx);
      if (ls.local) {
         int got = simq_lookup_from_index (&ls, env, in->v[i], &lead, &views, &matched, &sorted, error);
         ok = got >= 0;
         if (got == 0) {
            simq_lookup_foreign_resolve (&fo);
            ok = simq_lookup_local_matches (in->v[i], ls.local, ls.foreign, fo.docs, fo.indexable, fo.ix, &matched,
                                            error);
         }
      } else {
         simq_lookup_foreign_resolve (&fo);
         result = fo.docs;
      }
      if (ok && ls.have_pipeline) {
         if (ls.let) {
            ok = simq_lookup_bind_let (ls.let, &ctx, &head, error);
         }
         if (ok && sorted) { /* the leading $sort (and $limit) answered by the index: the stages after them */
            ok = simq_run_pipeline_after (result, &lead.last, env, head, &piped, error);
            result = &piped;
         } else if (ok && group_only) { /* the $group's documents written into arr: what the loop below appends */
            ok =
               !simq_interrupted (env, 0, error) && simq_group_into_array (&group_arg, result, env, head, &arr, error);
            in_arr = true;
         } else if (ok) { /* the sub-pipeline's first stage reads the matches in place (simq_run_pipeline) */
            ok = simq_run_pipeline (result, &ls.pipeline, env, head, &piped, error);
            result = &piped;
         }
      }
      while (head != vars) {
         simq_var_t *node = head;
         head = head->next;
         simq_value_destroy (&node->value);
         bson_free (node);
      }
      if (ok) {
         for (size_t r = 0; !in_arr && r < result->n; r++) {
            char key[24];
            const char *kp;
            bson_uint32_to_string ((uint32_t) r, &kp, key, sizeof key);
            bson_append_document (&arr, kp, -1, result->v[r]);
         }
         simq_value_from_doc (&arr, true, &arrv);
         ok = simq_set_path (in->v[i], ls.as, &arrv, &next, error);
         simq_value_destroy (&arrv);
         if (ok) {
            simq_docs_push_owned (out, bson_copy (&next));
         }
         bson_destroy (&next);
      }
      bson_destroy (&arr);
      bson_free (matched.v); /* a view of the foreign documents: the documents are not matched's */
      simq_docs_clear (&piped);
   }
   simq_lookup_index_destroy (&fo.own);
   bson_free (views.v);
   return ok;
}

/* $unionWith: "coll" or { coll, pipeline }: the input, then the documents of coll (in the pipeline's database) run
 * through pipeline. */
bool
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
