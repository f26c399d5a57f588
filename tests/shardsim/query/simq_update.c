/* The query engine's document rewriting: projections (find and $project share one implementation: inclusion,
 * exclusion, computed fields, _id rules, dotted paths through arrays, find's $slice and $elemMatch), update
 * operators and replacement updates with the server's error codes, and the seed document of an upsert. */
#include "tests/shardsim/query/simq_int.h"
#include "shell/lib/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- projection ---- */

typedef enum { SIMQ_P_SUB, SIMQ_P_INCLUDE, SIMQ_P_EXCLUDE, SIMQ_P_EXPR, SIMQ_P_SLICE, SIMQ_P_ELEMMATCH } simq_pkind_t;

typedef struct simq_pnode {
   char *name;
   simq_pkind_t kind;
   bson_value_t arg; /* borrowed from the projection spec */
   struct simq_pnode *children;
   struct simq_pnode *next;
} simq_pnode_t;

static void
simq_pnode_free (simq_pnode_t *n)
{
   while (n) {
      simq_pnode_t *next = n->next;
      simq_pnode_free (n->children);
      bson_free (n->name);
      bson_free (n);
      n = next;
   }
}

static simq_pnode_t *
simq_pnode_child (simq_pnode_t *parent, const char *name, size_t len)
{
   simq_pnode_t **tail = &parent->children;
   for (simq_pnode_t *c = parent->children; c; c = c->next) {
      if (strlen (c->name) == len && memcmp (c->name, name, len) == 0) {
         return c;
      }
      tail = &c->next;
   }
   *tail = bson_malloc0 (sizeof (simq_pnode_t));
   (*tail)->name = bson_strndup (name, len);
   (*tail)->kind = SIMQ_P_SUB;
   return *tail;
}

typedef struct {
   bool find_syntax;
   int mode; /* 0 undecided, 1 inclusion, -1 exclusion */
   bool id_set;
   bool id_included;
   bool has_elemmatch;
   const char *prefix;
} simq_pparse_t;

static bool
simq_pparse (simq_pparse_t *pp, simq_pnode_t *root, const bson_t *spec, const char *base, bson_error_t *error);

/* Adds one projection field (path relative to root, full path for messages). */
static bool
simq_pparse_field (simq_pparse_t *pp, simq_pnode_t *root, const char *path, const char *full, const bson_value_t *v,
                   bson_error_t *error)
{
   simq_pnode_t *node = root;
   const char *p = path;
   bool is_id = strcmp (full, "_id") == 0;
   simq_pkind_t kind;
   bson_t sub;

   if (pp->find_syntax && (strstr (path, ".$") || strcmp (path, "$") == 0)) {
      return simq_fail (error, 238, "shardsim: the positional projection operator '%s' is not implemented", full);
   }
   if (v->value_type == BSON_TYPE_DOCUMENT && simq_value_as_doc (v, &sub)) {
      bson_iter_t it;
      if (bson_count_keys (&sub) > 0 && bson_iter_init (&it, &sub) && bson_iter_next (&it) &&
          bson_iter_key (&it)[0] == '$') {
         const char *op = bson_iter_key (&it);
         if (pp->find_syntax && strcmp (op, "$slice") == 0) {
            kind = SIMQ_P_SLICE;
         } else if (pp->find_syntax && strcmp (op, "$elemMatch") == 0) {
            kind = SIMQ_P_ELEMMATCH;
            pp->has_elemmatch = true;
         } else {
            kind = SIMQ_P_EXPR;
         }
      } else {
         /* A nested projection: { a: { b: 1 } } is { "a.b": 1 }. */
         char *nested = bson_strdup_printf ("%s", path);
         simq_pnode_t *n = root;
         bool ok;
         const char *q = nested;
         if (bson_count_keys (&sub) == 0) {
            bson_free (nested);
            return simq_fail (error, 51270, "%san empty object is not a valid value. Found empty object at path %s",
                              pp->prefix, full);
         }
         while (q) {
            const char *dot = strchr (q, '.');
            size_t len = dot ? (size_t) (dot - q) : strlen (q);
            n = simq_pnode_child (n, q, len);
            q = dot ? dot + 1 : NULL;
         }
         ok = simq_pparse (pp, n, &sub, full, error);
         bson_free (nested);
         return ok;
      }
   } else if (v->value_type == BSON_TYPE_BOOL || simq_is_number (v)) {
      kind = simq_truthy (v) ? SIMQ_P_INCLUDE : SIMQ_P_EXCLUDE;
   } else {
      kind = SIMQ_P_EXPR; /* "$field", literals */
   }

   if (is_id && (kind == SIMQ_P_INCLUDE || kind == SIMQ_P_EXCLUDE)) {
      pp->id_set = true;
      pp->id_included = kind == SIMQ_P_INCLUDE;
   } else if (kind == SIMQ_P_INCLUDE || kind == SIMQ_P_EXPR) {
      if (pp->mode < 0) {
         if (kind == SIMQ_P_EXPR) {
            return simq_fail (error, 31252, "%sCannot use expression other than $meta in exclusion projection",
                              pp->prefix);
         }
         return simq_fail (error, 31253, "%sCannot do inclusion on field %s in exclusion projection", pp->prefix, full);
      }
      pp->mode = 1;
   } else if (kind == SIMQ_P_EXCLUDE) {
      if (pp->mode > 0) {
         return simq_fail (error, 31254, "%sCannot do exclusion on field %s in inclusion projection", pp->prefix, full);
      }
      pp->mode = -1;
   }

   while (p) {
      const char *dot = strchr (p, '.');
      size_t len = dot ? (size_t) (dot - p) : strlen (p);
      if (len == 0) {
         return simq_fail (error, 40352, "%sFieldPath cannot be constructed with empty string", pp->prefix);
      }
      node = simq_pnode_child (node, p, len);
      if (node->kind != SIMQ_P_SUB && dot) {
         return simq_fail (error, 31250, "%sPath collision at %s", pp->prefix, full);
      }
      p = dot ? dot + 1 : NULL;
   }
   if (node->kind != SIMQ_P_SUB || node->children) {
      return simq_fail (error, 31250, "%sPath collision at %s", pp->prefix, full);
   }
   node->kind = kind;
   node->arg = *v;
   return true;
}

static bool
simq_pparse (simq_pparse_t *pp, simq_pnode_t *root, const bson_t *spec, const char *base, bson_error_t *error)
{
   bson_iter_t it;
   if (!bson_iter_init (&it, spec)) {
      return simq_fail (error, 2, "invalid projection");
   }
   while (bson_iter_next (&it)) {
      const char *key = bson_iter_key (&it);
      char *full = base ? bson_strdup_printf ("%s.%s", base, key) : bson_strdup (key);
      bool ok;
      if (key[0] == '$' && !pp->find_syntax) {
         ok = simq_fail (error, 16410, "%sFieldPath field names may not start with '$'.", pp->prefix);
      } else {
         ok = simq_pparse_field (pp, root, key, full, bson_iter_value (&it), error);
      }
      bson_free (full);
      if (!ok) {
         return false;
      }
   }
   return true;
}

static void
simq_project_value (const simq_pnode_t *node, bool inclusion, const bson_value_t *v, const simq_ectx_t *ctx,
                    bson_t *dst, const char *key, int key_len);

/* Projects one embedded document (node's children describe it). */
static void
simq_project_doc (const simq_pnode_t *node, bool inclusion, const bson_t *doc, const simq_ectx_t *ctx, bson_t *dst)
{
   bson_iter_t it;
   if (!bson_iter_init (&it, doc)) {
      return;
   }
   while (bson_iter_next (&it)) {
      const char *key = bson_iter_key (&it);
      const simq_pnode_t *c = NULL;
      for (c = node->children; c; c = c->next) {
         if (strcmp (c->name, key) == 0) {
            break;
         }
      }
      if (!c) {
         if (!inclusion) {
            bson_append_value (dst, key, (int) bson_iter_key_len (&it), bson_iter_value (&it));
         }
         continue;
      }
      simq_project_value (c, inclusion, bson_iter_value (&it), ctx, dst, key, (int) bson_iter_key_len (&it));
   }
}

static void
simq_slice_value (const bson_value_t *arg, const bson_value_t *v, bson_t *dst, const char *key, int key_len)
{
   bson_t arr, out = BSON_INITIALIZER;
   bson_iter_t it;
   int64_t n = 0, skip = 0, limit = 0, count, i = 0, kept = 0;
   bson_t argdoc;
   bson_iter_t ai;
   bson_value_t slice_arg;

   if (v->value_type != BSON_TYPE_ARRAY || !simq_value_as_doc (v, &arr)) {
      bson_append_value (dst, key, key_len, v);
      bson_destroy (&out);
      return;
   }
   simq_value_as_doc (arg, &argdoc);
   bson_iter_init (&ai, &argdoc);
   bson_iter_next (&ai);
   slice_arg = *bson_iter_value (&ai);
   count = bson_count_keys (&arr);
   if (slice_arg.value_type == BSON_TYPE_ARRAY) {
      bson_t sa;
      bson_iter_t si;
      simq_value_as_doc (&slice_arg, &sa);
      bson_iter_init (&si, &sa);
      if (bson_iter_next (&si)) {
         simq_is_integral_number (bson_iter_value (&si), &skip);
      }
      if (bson_iter_next (&si)) {
         simq_is_integral_number (bson_iter_value (&si), &limit);
      }
      if (skip < 0) {
         skip = count + skip < 0 ? 0 : count + skip;
      }
   } else {
      simq_is_integral_number (&slice_arg, &n);
      if (n >= 0) {
         skip = 0;
         limit = n;
      } else {
         skip = count + n < 0 ? 0 : count + n;
         limit = -n;
      }
   }
   bson_iter_init (&it, &arr);
   while (bson_iter_next (&it)) {
      if (i >= skip && kept < limit) {
         char k[24];
         snprintf (k, sizeof k, "%lld", (long long) kept++);
         bson_append_value (&out, k, -1, bson_iter_value (&it));
      }
      i++;
   }
   bson_append_array (dst, key, key_len, &out);
   bson_destroy (&out);
}

static void
simq_project_value (const simq_pnode_t *node, bool inclusion, const bson_value_t *v, const simq_ectx_t *ctx,
                    bson_t *dst, const char *key, int key_len)
{
   switch (node->kind) {
   case SIMQ_P_INCLUDE:
      bson_append_value (dst, key, key_len, v);
      return;
   case SIMQ_P_EXCLUDE:
   case SIMQ_P_EXPR: /* computed later */
   case SIMQ_P_ELEMMATCH:
      return;
   case SIMQ_P_SLICE:
      simq_slice_value (&node->arg, v, dst, key, key_len);
      return;
   case SIMQ_P_SUB:
      break;
   }
   if (v->value_type == BSON_TYPE_DOCUMENT) {
      bson_t sub, out = BSON_INITIALIZER;
      simq_value_as_doc (v, &sub);
      simq_project_doc (node, inclusion, &sub, ctx, &out);
      bson_append_document (dst, key, key_len, &out);
      bson_destroy (&out);
   } else if (v->value_type == BSON_TYPE_ARRAY) {
      /* The sub-projection applies to each element; inclusion drops scalars, exclusion keeps them. */
      bson_t arr, out = BSON_INITIALIZER;
      bson_iter_t it;
      uint32_t i = 0;
      simq_value_as_doc (v, &arr);
      bson_iter_init (&it, &arr);
      while (bson_iter_next (&it)) {
         char k[24];
         snprintf (k, sizeof k, "%u", i);
         if (BSON_ITER_HOLDS_DOCUMENT (&it) || BSON_ITER_HOLDS_ARRAY (&it)) {
            simq_project_value (node, inclusion, bson_iter_value (&it), ctx, &out, k, -1);
            i++;
         } else if (!inclusion) {
            bson_append_value (&out, k, -1, bson_iter_value (&it));
            i++;
         }
      }
      bson_append_array (dst, key, key_len, &out);
      bson_destroy (&out);
   } else if (!inclusion) {
      bson_append_value (dst, key, key_len, v);
   }
}

/* Computed fields and $elemMatch results, set after the copy in spec order. */
static bool
simq_project_computed (const simq_pnode_t *node, const char *base, const bson_t *doc, const simq_ectx_t *ctx,
                       bson_t *out, bson_error_t *error)
{
   for (const simq_pnode_t *c = node->children; c; c = c->next) {
      char *path = base ? bson_strdup_printf ("%s.%s", base, c->name) : bson_strdup (c->name);
      bool ok = true;
      if (c->kind == SIMQ_P_EXPR || c->kind == SIMQ_P_ELEMMATCH) {
         bson_value_t v;
         simq_value_set_missing (&v);
         if (c->kind == SIMQ_P_EXPR) {
            ok = simq_eval (&c->arg, ctx, &v, error);
         } else {
            /* find's { a: { $elemMatch: filter } }: the first matching element, as a one-element array. */
            simq_pvals_t pv;
            bson_t argdoc, filter;
            bson_iter_t ai;
            simq_value_as_doc (&c->arg, &argdoc);
            bson_iter_init (&ai, &argdoc);
            bson_iter_next (&ai);
            simq_value_as_doc (bson_iter_value (&ai), &filter);
            simq_path_values (doc, path, &pv);
            for (size_t i = 0; ok && i < pv.n && simq_value_missing (&v); i++) {
               bool m = false;
               bson_t elem, one = BSON_INITIALIZER;
               if (!pv.v[i].expanded || pv.v[i].v.value_type != BSON_TYPE_DOCUMENT) {
                  bson_destroy (&one);
                  continue;
               }
               simq_value_as_doc (&pv.v[i].v, &elem);
               ok = simq_match_ctx (&elem, &filter, ctx, &m, error);
               if (ok && m) {
                  bson_append_value (&one, "0", 1, &pv.v[i].v);
                  simq_value_from_doc (&one, true, &v);
               }
               bson_destroy (&one);
            }
            simq_pvals_free (&pv);
         }
         if (ok && !simq_value_missing (&v) && !base && !strchr (path, '.') && !bson_has_field (out, path)) {
            /* a new top-level field: simq_set_path would copy out and append it at the end; append in place */
            bson_append_value (out, path, -1, &v);
         } else if (ok && !simq_value_missing (&v)) {
            bson_t next;
            ok = simq_set_path (out, path, &v, &next, error);
            if (ok) {
               bson_destroy (out);
               bson_steal (out, &next);
            } else {
               bson_destroy (&next);
            }
         }
         simq_value_free (&v);
      } else if (c->kind == SIMQ_P_SUB) {
         ok = simq_project_computed (c, path, doc, ctx, out, error);
      }
      bson_free (path);
      if (!ok) {
         return false;
      }
   }
   return true;
}

/* A parsed projection: the tree and the inclusion mode depend on the specification only, so $project parses it once
 * for all its input documents. */
struct simq_proj {
   simq_pnode_t root;
   bool inclusion;
   bool copy_all; /* find's empty projection: the document as it is */
};

simq_proj_t *
simq_proj_new (const bson_t *projection, bool find_syntax, bson_error_t *error)
{
   simq_proj_t *p = bson_malloc0 (sizeof *p);
   simq_pparse_t pp = { 0 };

   pp.find_syntax = find_syntax;
   pp.prefix = find_syntax ? "" : "Invalid $project :: caused by :: ";
   if (bson_count_keys (projection) == 0) {
      if (!find_syntax) {
         simq_fail (error, 51272, "%sprojection specification must have at least one field", pp.prefix);
         simq_proj_destroy (p);
         return NULL;
      }
      p->copy_all = true;
      return p;
   }
   if (!simq_pparse (&pp, &p->root, projection, NULL, error)) {
      simq_proj_destroy (p);
      return NULL;
   }
   p->inclusion = pp.mode > 0 || (pp.mode == 0 && pp.has_elemmatch) || (pp.mode == 0 && pp.id_set && pp.id_included);
   /* _id follows its own rule: included unless excluded by name. */
   {
      simq_pnode_t *id = NULL;
      for (simq_pnode_t *c = p->root.children; c; c = c->next) {
         if (strcmp (c->name, "_id") == 0) {
            id = c;
         }
      }
      if (!id && !pp.id_set && p->inclusion) {
         id = simq_pnode_child (&p->root, "_id", 3);
         id->kind = SIMQ_P_INCLUDE;
      } else if (id && pp.id_set) {
         id->kind = pp.id_included ? (p->inclusion ? SIMQ_P_INCLUDE : SIMQ_P_SUB) : SIMQ_P_EXCLUDE;
      }
   }
   return p;
}

bool
simq_proj_apply (const simq_proj_t *p, const bson_t *doc, const simq_ectx_t *ctx, bson_t *out, bson_error_t *error)
{
   simq_ectx_t local = { doc, doc, NULL, NULL };

   bson_init (out);
   if (ctx) {
      local.env = ctx->env;
      local.vars = ctx->vars;
   }
   if (p->copy_all) {
      bson_destroy (out);
      bson_copy_to (doc, out);
      return true;
   }
   simq_project_doc (&p->root, p->inclusion, doc, &local, out);
   return simq_project_computed (&p->root, NULL, doc, &local, out, error);
}

void
simq_proj_destroy (simq_proj_t *p)
{
   if (p) {
      simq_pnode_free (p->root.children);
      bson_free (p);
   }
}

bool
simq_project_ex (const bson_t *doc, const bson_t *projection, bool find_syntax, const simq_ectx_t *ctx, bson_t *out,
                 bson_error_t *error)
{
   simq_proj_t *p = simq_proj_new (projection, find_syntax, error);
   bool ok;
   if (!p) {
      bson_init (out);
      return false;
   }
   ok = simq_proj_apply (p, doc, ctx, out, error);
   simq_proj_destroy (p);
   return ok;
}

bool
simq_project (const bson_t *doc, const bson_t *projection, bson_t *out, bson_error_t *error)
{
   return simq_project_ex (doc, projection, true, NULL, out, error);
}

/* ---- updates ---- */

typedef struct {
   const char *op;
   const char *path;
   const char *to; /* $rename target */
   bson_value_t arg;
} simq_upd_t;

static int
simq_path_cmp (const char *a, const char *b)
{
   /* Component-wise, so "a.b" sorts with "a" before "a0". */
   for (;;) {
      const char *da = strchr (a, '.'), *db = strchr (b, '.');
      size_t la = da ? (size_t) (da - a) : strlen (a), lb = db ? (size_t) (db - b) : strlen (b);
      int c = memcmp (a, b, la < lb ? la : lb);
      if (c != 0) {
         return c;
      }
      if (la != lb) {
         return la < lb ? -1 : 1;
      }
      if (!da || !db) {
         return da ? 1 : (db ? -1 : 0);
      }
      a = da + 1;
      b = db + 1;
   }
}

static int
simq_upd_cmp (const void *pa, const void *pb)
{
   const simq_upd_t *a = pa, *b = pb;
   return simq_path_cmp (a->path, b->path);
}

/* Is a a (component-wise) prefix of b, or equal? */
static bool
simq_path_prefix (const char *a, const char *b)
{
   size_t la = strlen (a);
   return strncmp (a, b, la) == 0 && (b[la] == '\0' || b[la] == '.');
}

static bool
simq_get_update_value (const bson_t *doc, const char *path, bson_value_t *out)
{
   return simq_get_path (doc, path, out);
}

static bool
simq_replace_doc (bson_t *cur, bson_t *next)
{
   bson_destroy (cur);
   bson_steal (cur, next);
   return true;
}

static bool
simq_set_into (bson_t *cur, const char *path, const bson_value_t *v, bson_error_t *error)
{
   bson_t next;
   if (!simq_set_path (cur, path, v, &next, error)) {
      bson_destroy (&next);
      return false;
   }
   return simq_replace_doc (cur, &next);
}

static bool
simq_id_json_fail (bson_error_t *error, int code, const char *fmt, const bson_t *doc, const char *field)
{
   bson_value_t id;
   char *j;
   if (!simq_get_path (doc, "_id", &id)) {
      return simq_fail (error, code, fmt, "{}", field);
   }
   j = simq_value_json (&id);
   {
      char *wrapped = bson_strdup_printf ("{_id: %s}", j);
      simq_fail (error, code, fmt, wrapped, field);
      bson_free (wrapped);
   }
   bson_free (j);
   return false;
}

/* Builds a new array value from the elements of cur (may be missing) with edits applied by the caller. */
static void
simq_array_append_all (bson_t *arr, uint32_t *k, const bson_value_t *v)
{
   char key[24];
   snprintf (key, sizeof key, "%u", (*k)++);
   bson_append_value (arr, key, -1, v);
}

static bool
simq_apply_push (bson_t *cur, const simq_upd_t *u, bool add_to_set, bson_error_t *error)
{
   bson_value_t existing, each, slice_v, sort_v, pos_v;
   bson_t arr = BSON_INITIALIZER, argdoc, eachdoc;
   bson_value_t *items = NULL, *olds = NULL;
   size_t nitems = 0, nolds = 0;
   bool has_each = false, has_slice = false, has_sort = false, has_pos = false, ok = false;
   int64_t slice = 0, position = 0;
   uint32_t k = 0;
   bson_iter_t it;
   bson_t olddoc;
   simq_docs_t sortdocs;

   simq_docs_init (&sortdocs);
   if (u->arg.value_type == BSON_TYPE_DOCUMENT && simq_value_as_doc (&u->arg, &argdoc) &&
       bson_iter_init_find (&it, &argdoc, "$each")) {
      has_each = true;
      each = *bson_iter_value (&it);
      if (each.value_type != BSON_TYPE_ARRAY) {
         simq_fail (error, 2, "The argument to $each in %s must be an array but it was of type: %s",
                    add_to_set ? "$addToSet" : "$push", simq_type_name (each.value_type));
         goto cleanup;
      }
      bson_iter_init (&it, &argdoc);
      while (bson_iter_next (&it)) {
         const char *k2 = bson_iter_key (&it);
         if (strcmp (k2, "$each") == 0) {
            continue;
         }
         if (!add_to_set && strcmp (k2, "$slice") == 0) {
            has_slice = true;
            slice_v = *bson_iter_value (&it);
            if (!simq_is_integral_number (&slice_v, &slice)) {
               simq_fail (error, 2, "The value for $slice must be an integer value but was given type: %s",
                          simq_type_name (slice_v.value_type));
               goto cleanup;
            }
         } else if (!add_to_set && strcmp (k2, "$sort") == 0) {
            has_sort = true;
            sort_v = *bson_iter_value (&it);
         } else if (!add_to_set && strcmp (k2, "$position") == 0) {
            has_pos = true;
            pos_v = *bson_iter_value (&it);
            if (!simq_is_integral_number (&pos_v, &position)) {
               simq_fail (error, 2, "The value for $position must be an integer value, not of type: %s",
                          simq_type_name (pos_v.value_type));
               goto cleanup;
            }
         } else {
            simq_fail (error, 2, "Unrecognized clause in %s: %s", add_to_set ? "$addToSet" : "$push", k2);
            goto cleanup;
         }
      }
   }
   if (has_each) {
      simq_value_as_doc (&each, &eachdoc);
      items = bson_malloc0 ((bson_count_keys (&eachdoc) + 1) * sizeof *items);
      bson_iter_init (&it, &eachdoc);
      while (bson_iter_next (&it)) {
         items[nitems++] = *bson_iter_value (&it);
      }
   } else {
      items = bson_malloc0 (sizeof *items);
      items[nitems++] = u->arg;
   }

   if (simq_get_update_value (cur, u->path, &existing)) {
      if (existing.value_type != BSON_TYPE_ARRAY) {
         char *msg = bson_strdup_printf ("The field '%s' must be an array but is of type %s in document %%s", u->path,
                                         simq_type_name (existing.value_type));
         simq_id_json_fail (error, 2, msg, cur, u->path);
         bson_free (msg);
         goto cleanup;
      }
      simq_value_as_doc (&existing, &olddoc);
      olds = bson_malloc0 ((bson_count_keys (&olddoc) + 1) * sizeof *olds);
      bson_iter_init (&it, &olddoc);
      while (bson_iter_next (&it)) {
         olds[nolds++] = *bson_iter_value (&it);
      }
   }

   if (add_to_set) {
      for (size_t i = 0; i < nolds; i++) {
         simq_array_append_all (&arr, &k, &olds[i]);
      }
      for (size_t i = 0; i < nitems; i++) {
         bool dup = false;
         for (size_t j = 0; j < nolds && !dup; j++) {
            dup = order_values (&olds[j], &items[i]) == 0;
         }
         for (size_t j = 0; j < i && !dup; j++) {
            dup = order_values (&items[j], &items[i]) == 0;
         }
         if (!dup) {
            simq_array_append_all (&arr, &k, &items[i]);
         }
      }
   } else {
      size_t at = nolds;
      if (has_pos) {
         if (position < 0) {
            at = (int64_t) nolds + position < 0 ? 0 : (size_t) ((int64_t) nolds + position);
         } else {
            at = (size_t) position < nolds ? (size_t) position : nolds;
         }
      }
      /* Collect the combined list as single-field documents so $sort can reuse simq_sort. */
      for (size_t i = 0; i <= nolds; i++) {
         if (i == at) {
            for (size_t j = 0; j < nitems; j++) {
               bson_t *d = bson_new ();
               bson_append_value (d, "v", 1, &items[j]);
               simq_docs_push_owned (&sortdocs, d);
            }
         }
         if (i < nolds) {
            bson_t *d = bson_new ();
            bson_append_value (d, "v", 1, &olds[i]);
            simq_docs_push_owned (&sortdocs, d);
         }
      }
      if (has_sort) {
         bson_t sortspec = BSON_INITIALIZER;
         int64_t dir;
         bool sorted;
         if (simq_is_integral_number (&sort_v, &dir)) {
            BSON_APPEND_INT32 (&sortspec, "v", (int32_t) dir);
         } else if (sort_v.value_type == BSON_TYPE_DOCUMENT) {
            bson_t sd;
            simq_value_as_doc (&sort_v, &sd);
            bson_iter_init (&it, &sd);
            while (bson_iter_next (&it)) {
               char *p = bson_strdup_printf ("v.%s", bson_iter_key (&it));
               bson_append_value (&sortspec, p, -1, bson_iter_value (&it));
               bson_free (p);
            }
         }
         sorted = simq_sort (&sortdocs, &sortspec, error);
         bson_destroy (&sortspec);
         if (!sorted) {
            simq_fail (error, 2,
                       "The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort "
                       "embedded fields");
            goto cleanup;
         }
      }
      {
         size_t from = 0, to = sortdocs.n;
         if (has_slice) {
            if (slice >= 0) {
               to = (size_t) slice < to ? (size_t) slice : to;
            } else {
               from = (int64_t) to + slice < 0 ? 0 : (size_t) ((int64_t) to + slice);
            }
         }
         for (size_t i = from; i < to; i++) {
            bson_value_t v;
            simq_get_path (sortdocs.v[i], "v", &v);
            simq_array_append_all (&arr, &k, &v);
         }
      }
   }
   {
      bson_value_t nv;
      simq_value_from_doc (&arr, true, &nv);
      ok = simq_set_into (cur, u->path, &nv, error);
      simq_value_free (&nv);
   }
cleanup:
   bson_free (items);
   bson_free (olds);
   bson_destroy (&arr);
   simq_docs_clear (&sortdocs);
   return ok;
}

static bool
simq_apply_pull (bson_t *cur, const simq_upd_t *u, bool pull_all, bson_error_t *error)
{
   bson_value_t existing;
   bson_t olddoc, arr = BSON_INITIALIZER, cond_doc;
   bson_iter_t it;
   uint32_t k = 0;
   bool ok = false, object_form = false, value_form = false;

   if (pull_all && u->arg.value_type != BSON_TYPE_ARRAY) {
      simq_fail (error, 2, "$pullAll requires an array argument but was given a %s",
                 simq_type_name (u->arg.value_type));
      goto cleanup;
   }
   if (!simq_get_update_value (cur, u->path, &existing)) {
      ok = true;
      goto cleanup;
   }
   if (existing.value_type != BSON_TYPE_ARRAY) {
      simq_fail (error, 2, "Cannot apply %s to a non-array value", pull_all ? "$pullAll" : "$pull");
      goto cleanup;
   }
   if (!pull_all && u->arg.value_type == BSON_TYPE_DOCUMENT && simq_value_as_doc (&u->arg, &cond_doc)) {
      bson_iter_t ci;
      if (bson_iter_init (&ci, &cond_doc) && bson_iter_next (&ci) && bson_iter_key (&ci)[0] == '$' &&
          strcmp (bson_iter_key (&ci), "$and") != 0 && strcmp (bson_iter_key (&ci), "$or") != 0 &&
          strcmp (bson_iter_key (&ci), "$nor") != 0) {
         value_form = true;
      } else {
         object_form = true;
      }
   }
   simq_value_as_doc (&existing, &olddoc);
   bson_iter_init (&it, &olddoc);
   while (bson_iter_next (&it)) {
      const bson_value_t *e = bson_iter_value (&it);
      bool remove = false;
      if (pull_all) {
         bson_t list;
         bson_iter_t li;
         simq_value_as_doc (&u->arg, &list);
         bson_iter_init (&li, &list);
         while (!remove && bson_iter_next (&li)) {
            remove = order_values (e, bson_iter_value (&li)) == 0;
         }
      } else if (value_form) {
         bson_t wrap = BSON_INITIALIZER, filter = BSON_INITIALIZER;
         bson_append_value (&wrap, "v", 1, e);
         bson_append_value (&filter, "v", 1, &u->arg);
         ok = simq_match (&wrap, &filter, &remove, error);
         bson_destroy (&wrap);
         bson_destroy (&filter);
         if (!ok) {
            goto cleanup;
         }
         ok = false;
      } else if (object_form) {
         if (e->value_type == BSON_TYPE_DOCUMENT) {
            bson_t ed;
            simq_value_as_doc (e, &ed);
            if (!simq_match (&ed, &cond_doc, &remove, error)) {
               goto cleanup;
            }
         }
      } else {
         remove = order_values (e, &u->arg) == 0;
      }
      if (!remove) {
         simq_array_append_all (&arr, &k, e);
      }
   }
   {
      bson_value_t nv;
      simq_value_from_doc (&arr, true, &nv);
      ok = simq_set_into (cur, u->path, &nv, error);
      simq_value_free (&nv);
   }
cleanup:
   bson_destroy (&arr);
   return ok;
}

static bool
simq_apply_arith (bson_t *cur, const simq_upd_t *u, bool is_mul, bson_error_t *error)
{
   bson_value_t existing, result;
   const bson_value_t *a = &u->arg;

   if (!simq_is_number (a)) {
      char *j = simq_value_json (a);
      simq_fail (error, 14, "Cannot %s with non-numeric argument: {%s: %s}", is_mul ? "multiply" : "increment", u->path,
                 j);
      bson_free (j);
      return false;
   }
   memset (&result, 0, sizeof result);
   if (!simq_get_update_value (cur, u->path, &existing)) {
      if (!is_mul) {
         result = *a;
      } else {
         result.value_type = a->value_type;
         if (a->value_type == BSON_TYPE_DECIMAL128) {
            return simq_fail (error, 238, "shardsim: $mul on decimal128 values is not implemented");
         }
         /* value 0 of the argument's type: zeroed union */
      }
      return simq_set_into (cur, u->path, &result, error);
   }
   if (!simq_is_number (&existing)) {
      char *msg = bson_strdup_printf ("Cannot apply %s to a value of non-numeric type. %%s has the field '%s' of "
                                      "non-numeric type %s",
                                      is_mul ? "$mul" : "$inc", u->path, simq_type_name (existing.value_type));
      simq_id_json_fail (error, 14, msg, cur, u->path);
      bson_free (msg);
      return false;
   }
   if (existing.value_type == BSON_TYPE_DECIMAL128 || a->value_type == BSON_TYPE_DECIMAL128) {
      return simq_fail (error, 238, "shardsim: %s on decimal128 values is not implemented", is_mul ? "$mul" : "$inc");
   }
   if (existing.value_type == BSON_TYPE_DOUBLE || a->value_type == BSON_TYPE_DOUBLE) {
      double x = simq_to_double (&existing), y = simq_to_double (a);
      result.value_type = BSON_TYPE_DOUBLE;
      result.value.v_double = is_mul ? x * y : x + y;
   } else {
      int64_t x = existing.value_type == BSON_TYPE_INT32 ? existing.value.v_int32 : existing.value.v_int64;
      int64_t y = a->value_type == BSON_TYPE_INT32 ? a->value.v_int32 : a->value.v_int64;
      int64_t r;
      bool over = is_mul ? __builtin_mul_overflow (x, y, &r) : __builtin_add_overflow (x, y, &r);
      if (over) {
         return simq_fail (error, 2, "Failed to apply %s operations to current value for field '%s'",
                           is_mul ? "$mul" : "$inc", u->path);
      }
      if (existing.value_type == BSON_TYPE_INT32 && a->value_type == BSON_TYPE_INT32 && r >= INT32_MIN &&
          r <= INT32_MAX) {
         result.value_type = BSON_TYPE_INT32;
         result.value.v_int32 = (int32_t) r;
      } else {
         result.value_type = BSON_TYPE_INT64;
         result.value.v_int64 = r;
      }
   }
   return simq_set_into (cur, u->path, &result, error);
}

static bool
simq_apply_one (bson_t *cur, const simq_upd_t *u, bool is_insert, bson_error_t *error)
{
   const char *op = u->op;
   bson_value_t existing;

   if (strcmp (op, "$set") == 0 || (strcmp (op, "$setOnInsert") == 0 && is_insert)) {
      return simq_set_into (cur, u->path, &u->arg, error);
   }
   if (strcmp (op, "$setOnInsert") == 0) {
      return true;
   }
   if (strcmp (op, "$unset") == 0) {
      bson_t next;
      bool found;
      simq_unset_path (cur, u->path, &next, &found);
      return simq_replace_doc (cur, &next);
   }
   if (strcmp (op, "$inc") == 0 || strcmp (op, "$mul") == 0) {
      return simq_apply_arith (cur, u, op[1] == 'm', error);
   }
   if (strcmp (op, "$min") == 0 || strcmp (op, "$max") == 0) {
      if (simq_get_update_value (cur, u->path, &existing)) {
         int c = order_values (&u->arg, &existing);
         if ((op[2] == 'i' && c >= 0) || (op[2] == 'a' && c <= 0)) {
            return true;
         }
      }
      return simq_set_into (cur, u->path, &u->arg, error);
   }
   if (strcmp (op, "$currentDate") == 0) {
      int64_t now_ms = clock_wall_ms ();
      bson_value_t now;
      bool as_ts = false;
      if (u->arg.value_type == BSON_TYPE_DOCUMENT) {
         bson_t d;
         bson_iter_t it;
         simq_value_as_doc (&u->arg, &d);
         if (!bson_iter_init_find (&it, &d, "$type") || !BSON_ITER_HOLDS_UTF8 (&it) ||
             (strcmp (bson_iter_utf8 (&it, NULL), "date") != 0 &&
              strcmp (bson_iter_utf8 (&it, NULL), "timestamp") != 0)) {
            return simq_fail (error, 2,
                              "The '$type' string field is required to be 'date' or 'timestamp': "
                              "{$currentDate: {field : {$type: 'date'}}}");
         }
         as_ts = strcmp (bson_iter_utf8 (&it, NULL), "timestamp") == 0;
      } else if (u->arg.value_type != BSON_TYPE_BOOL) {
         return simq_fail (error, 2,
                           "%s is not valid type for $currentDate. Please use a boolean ('true') or a "
                           "$type expression ({$type: 'timestamp/date'}).",
                           simq_type_name (u->arg.value_type));
      }
      memset (&now, 0, sizeof now);
      if (as_ts) {
         now.value_type = BSON_TYPE_TIMESTAMP;
         now.value.v_timestamp.timestamp = (uint32_t) (now_ms / 1000);
         now.value.v_timestamp.increment = 1;
      } else {
         now.value_type = BSON_TYPE_DATE_TIME;
         now.value.v_datetime = now_ms;
      }
      return simq_set_into (cur, u->path, &now, error);
   }
   if (strcmp (op, "$rename") == 0) {
      bson_value_t copy;
      bson_t next;
      bool found, ok;
      if (!simq_get_update_value (cur, u->path, &existing)) {
         return true;
      }
      simq_value_copy (&existing, &copy);
      simq_unset_path (cur, u->path, &next, &found);
      simq_replace_doc (cur, &next);
      ok = simq_set_into (cur, u->to, &copy, error);
      simq_value_free (&copy);
      return ok;
   }
   if (strcmp (op, "$push") == 0 || strcmp (op, "$addToSet") == 0) {
      return simq_apply_push (cur, u, op[1] == 'a', error);
   }
   if (strcmp (op, "$pull") == 0 || strcmp (op, "$pullAll") == 0) {
      return simq_apply_pull (cur, u, strcmp (op, "$pullAll") == 0, error);
   }
   if (strcmp (op, "$pop") == 0) {
      int64_t dir;
      bson_t olddoc, arr = BSON_INITIALIZER;
      bson_iter_t it;
      uint32_t n, i = 0, k = 0;
      bson_value_t nv;
      bool ok;
      if (!simq_is_integral_number (&u->arg, &dir) || (dir != 1 && dir != -1)) {
         bson_destroy (&arr);
         return simq_fail (error, 9, "$pop expects 1 or -1, found: %s", "value");
      }
      if (!simq_get_update_value (cur, u->path, &existing)) {
         bson_destroy (&arr);
         return true;
      }
      if (existing.value_type != BSON_TYPE_ARRAY) {
         bson_destroy (&arr);
         return simq_fail (error, 14, "Path '%s' contains an element of non-array type '%s'", u->path,
                           simq_type_name (existing.value_type));
      }
      simq_value_as_doc (&existing, &olddoc);
      n = bson_count_keys (&olddoc);
      bson_iter_init (&it, &olddoc);
      while (bson_iter_next (&it)) {
         if (n > 0 && ((dir == 1 && i == n - 1) || (dir == -1 && i == 0))) {
            i++;
            continue;
         }
         i++;
         simq_array_append_all (&arr, &k, bson_iter_value (&it));
      }
      simq_value_from_doc (&arr, true, &nv);
      bson_destroy (&arr);
      ok = simq_set_into (cur, u->path, &nv, error);
      simq_value_free (&nv);
      return ok;
   }
   return simq_fail (error, 9,
                     "Unknown modifier: %s. Expected a valid update modifier or pipeline-style update "
                     "specified as an array",
                     op);
}

static const char *const simq_update_ops[] = { "$set",      "$unset", "$inc",         "$mul",    "$push",
                                               "$addToSet", "$pull",  "$pullAll",     "$pop",    "$setOnInsert",
                                               "$min",      "$max",   "$currentDate", "$rename", NULL };

static bool
simq_replacement (const bson_t *doc, const bson_t *update, bool is_insert, bson_t *out, bool *modified,
                  bson_error_t *error)
{
   bson_value_t old_id, new_id;
   bool have_old = simq_get_path (doc, "_id", &old_id);
   bool have_new = simq_get_path (update, "_id", &new_id);
   bson_iter_t it;

   if (bson_iter_init (&it, update)) {
      while (bson_iter_next (&it)) {
         if (bson_iter_key (&it)[0] == '$') {
            return simq_fail (error, 52,
                              "The dollar ($) prefixed field '%s' in '%s' is not allowed in the context "
                              "of an update's replacement document. Consider using an aggregation "
                              "pipeline with $replaceWith.",
                              bson_iter_key (&it), bson_iter_key (&it));
         }
      }
   }
   if (have_old && have_new && !is_insert && order_values (&old_id, &new_id) != 0) {
      char *j = simq_value_json (&new_id);
      simq_fail (error, 66,
                 "After applying the update, the (immutable) field '_id' was found to have been altered "
                 "to _id: %s",
                 j);
      bson_free (j);
      return false;
   }
   if (have_new) {
      bson_append_value (out, "_id", 3, &new_id);
   } else if (have_old) {
      bson_append_value (out, "_id", 3, &old_id);
   }
   bson_iter_init (&it, update);
   while (bson_iter_next (&it)) {
      if (strcmp (bson_iter_key (&it), "_id") != 0) {
         bson_append_value (out, bson_iter_key (&it), (int) bson_iter_key_len (&it), bson_iter_value (&it));
      }
   }
   *modified = !bson_equal (doc, out);
   return true;
}

bool
simq_apply_update (const bson_t *doc, const bson_t *update, bool is_insert, bson_t *out, bool *modified,
                   bson_error_t *error)
{
   simq_upd_t *ups = NULL;
   size_t n = 0, cap;
   bson_iter_t it;
   bool ok = false, first_is_op;
   bson_value_t old_id, new_id;
   bool had_id;

   bson_init (out);
   *modified = false;
   first_is_op = bson_iter_init (&it, update) && bson_iter_next (&it) && bson_iter_key (&it)[0] == '$';
   if (!first_is_op) {
      return simq_replacement (doc, update, is_insert, out, modified, error);
   }

   cap = 16;
   ups = bson_malloc0 (cap * sizeof *ups);
   bson_iter_init (&it, update);
   while (bson_iter_next (&it)) {
      const char *op = bson_iter_key (&it);
      bool known = false;
      bson_t fields;
      bson_iter_t fi;
      for (size_t i = 0; simq_update_ops[i]; i++) {
         known = known || strcmp (simq_update_ops[i], op) == 0;
      }
      if (!known) {
         simq_fail (error, 9,
                    "Unknown modifier: %s. Expected a valid update modifier or pipeline-style update "
                    "specified as an array",
                    op);
         goto cleanup;
      }
      if (!BSON_ITER_HOLDS_DOCUMENT (&it)) {
         simq_fail (error, 9,
                    "Modifiers operate on fields but we found type %s instead. For example: {$mod: "
                    "{<field>: ...}} not {%s: %s}",
                    simq_type_name (bson_iter_type (&it)), op, "...");
         goto cleanup;
      }
      simq_value_as_doc (bson_iter_value (&it), &fields);
      bson_iter_init (&fi, &fields);
      while (bson_iter_next (&fi)) {
         const char *path = bson_iter_key (&fi);
         if (path[0] == '\0') {
            simq_fail (error, 56, "An empty update path is not valid.");
            goto cleanup;
         }
         if (strstr (path, "$")) {
            simq_fail (error, 238, "shardsim: positional update paths ('%s') are not implemented", path);
            goto cleanup;
         }
         if (n + 2 >= cap) {
            cap *= 2;
            ups = bson_realloc (ups, cap * sizeof *ups);
         }
         ups[n].op = op;
         ups[n].path = path;
         ups[n].to = NULL;
         ups[n].arg = *bson_iter_value (&fi);
         if (strcmp (op, "$rename") == 0) {
            if (!BSON_ITER_HOLDS_UTF8 (&fi)) {
               simq_fail (error, 2, "The 'to' field for $rename must be a string: %s: %s", path, "...");
               goto cleanup;
            }
            ups[n].to = bson_iter_utf8 (&fi, NULL);
            if (ups[n].to[0] == '\0') {
               simq_fail (error, 56, "An empty update path is not valid.");
               goto cleanup;
            }
            if (strcmp (ups[n].to, path) == 0) {
               simq_fail (error, 2, "The source and target field for $rename must differ: %s: \"%s\"", path, path);
               goto cleanup;
            }
            /* The target takes part in conflict detection as its own entry. */
            ups[n + 1] = ups[n];
            ups[n + 1].path = ups[n].to;
            ups[n + 1].op = "$rename-target";
            n++;
         }
         n++;
      }
   }
   /* Two operations on the same path, or on a path and its prefix, conflict. */
   for (size_t i = 0; i < n; i++) {
      for (size_t j = i + 1; j < n; j++) {
         if (simq_path_prefix (ups[i].path, ups[j].path) || simq_path_prefix (ups[j].path, ups[i].path)) {
            const char *longer = strlen (ups[i].path) >= strlen (ups[j].path) ? ups[i].path : ups[j].path;
            const char *shorter = longer == ups[i].path ? ups[j].path : ups[i].path;
            simq_fail (error, 40, "Updating the path '%s' would create a conflict at '%s'", longer, shorter);
            goto cleanup;
         }
      }
   }
   qsort (ups, n, sizeof *ups, simq_upd_cmp);

   bson_destroy (out);
   bson_copy_to (doc, out);
   for (size_t i = 0; i < n; i++) {
      if (strcmp (ups[i].op, "$rename-target") == 0) {
         continue;
      }
      if (!simq_apply_one (out, &ups[i], is_insert, error)) {
         goto cleanup;
      }
   }
   had_id = simq_get_path (doc, "_id", &old_id);
   if (had_id && (!simq_get_path (out, "_id", &new_id) || order_values (&old_id, &new_id) != 0 ||
                  old_id.value_type != new_id.value_type)) {
      simq_fail (error, 66, "Performing an update on the path '_id' would modify the immutable field '_id'");
      goto cleanup;
   }
   *modified = !bson_equal (doc, out);
   ok = true;
cleanup:
   bson_free (ups);
   if (!ok) {
      bson_reinit (out);
      *modified = false;
   }
   return ok;
}

/* ---- upsert seed ---- */

static void
simq_seed_from (const bson_t *query, bson_t *seed)
{
   bson_iter_t it;
   if (!bson_iter_init (&it, query)) {
      return;
   }
   while (bson_iter_next (&it)) {
      const char *key = bson_iter_key (&it);
      const bson_value_t *v = bson_iter_value (&it);
      bson_value_t eq;
      bson_t sub, next;
      bson_error_t ignored;

      if (key[0] == '$') {
         if (strcmp (key, "$and") == 0 && v->value_type == BSON_TYPE_ARRAY && simq_value_as_doc (v, &sub)) {
            bson_iter_t ai;
            bson_iter_init (&ai, &sub);
            while (bson_iter_next (&ai)) {
               bson_t clause;
               if (BSON_ITER_HOLDS_DOCUMENT (&ai) && simq_value_as_doc (bson_iter_value (&ai), &clause)) {
                  simq_seed_from (&clause, seed);
               }
            }
         }
         continue;
      }
      if (v->value_type == BSON_TYPE_REGEX) {
         continue;
      }
      eq = *v;
      if (v->value_type == BSON_TYPE_DOCUMENT && simq_value_as_doc (v, &sub)) {
         bson_iter_t si;
         if (bson_iter_init (&si, &sub) && bson_iter_next (&si) && bson_iter_key (&si)[0] == '$') {
            if (strcmp (bson_iter_key (&si), "$eq") != 0 || bson_count_keys (&sub) != 1) {
               continue;
            }
            eq = *bson_iter_value (&si);
         }
      }
      if (simq_set_path (seed, key, &eq, &next, &ignored)) {
         bson_destroy (seed);
         bson_steal (seed, &next);
      } else {
         bson_destroy (&next);
      }
   }
}

void
simq_upsert_seed (const bson_t *query, bson_t *out)
{
   bson_t seed = BSON_INITIALIZER;
   bson_value_t id;
   bson_iter_t it;

   simq_seed_from (query, &seed);
   bson_init (out);
   /* _id goes first, as in the server's upsert documents. */
   if (simq_get_path (&seed, "_id", &id)) {
      bson_append_value (out, "_id", 3, &id);
   }
   if (bson_iter_init (&it, &seed)) {
      while (bson_iter_next (&it)) {
         if (strcmp (bson_iter_key (&it), "_id") != 0) {
            bson_append_value (out, bson_iter_key (&it), (int) bson_iter_key_len (&it), bson_iter_value (&it));
         }
      }
   }
   bson_destroy (&seed);
}
