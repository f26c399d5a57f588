/* The query engine's projections: find and $project share one implementation (inclusion, exclusion, computed
 * fields, _id rules, dotted paths through arrays, find's $slice and $elemMatch), parsed once per specification. */
#include "tests/shardsim/query/simq_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
      char *joined = base ? bson_strdup_printf ("%s.%s", base, c->name) : NULL;
      const char *path = joined ? joined : c->name;
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
            simq_pvals_destroy (&pv);
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
         simq_value_destroy (&v);
      } else if (c->kind == SIMQ_P_SUB) {
         ok = simq_project_computed (c, path, doc, ctx, out, error);
      }
      bson_free (joined);
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
         simq_proj_free (p);
         return NULL;
      }
      p->copy_all = true;
      return p;
   }
   if (!simq_pparse (&pp, &p->root, projection, NULL, error)) {
      simq_proj_free (p);
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
simq_proj_free (simq_proj_t *p)
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
   simq_proj_free (p);
   return ok;
}

bool
simq_project (const bson_t *doc, const bson_t *projection, bson_t *out, bson_error_t *error)
{
   return simq_project_ex (doc, projection, true, NULL, out, error);
}
