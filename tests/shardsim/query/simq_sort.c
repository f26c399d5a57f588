/* The query engine's sorting: the server's sort order over documents (simq_sort, behind $sort, find's sort and
 * $push's $sort) and its bounded form (simq_sort_top) for a $sort followed by a $limit, which keeps the first k
 * documents of that order without ordering the rest, as the server's top-k sort (and a walk of an index on the sort
 * key) does. Both order by the same keys and break ties by input position, so the top k are exactly the first k of
 * the full sort. */
#include "tests/shardsim/query/simq_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
   size_t index;
   bson_value_t *keys; /* one per sort field, borrowed from the document or the static undefined/null */
} simq_sort_item_t;

typedef struct {
   const char **paths;
   int *dirs;
   size_t nfields;
} simq_sort_spec_t;

static _Thread_local const simq_sort_spec_t *simq_sort_current;

/* Sort order of two items under spec: the keys field by field, then the input position (a total order). */
static int
simq_sort_items_cmp (const simq_sort_spec_t *spec, const simq_sort_item_t *a, const simq_sort_item_t *b)
{
   for (size_t i = 0; i < spec->nfields; i++) {
      int c = order_values (&a->keys[i], &b->keys[i]);
      if (c != 0) {
         return c * spec->dirs[i];
      }
   }
   return a->index < b->index ? -1 : (a->index > b->index ? 1 : 0);
}

static int
simq_sort_cmp (const void *pa, const void *pb)
{
   return simq_sort_items_cmp (simq_sort_current, pa, pb);
}

/* The sort key of one document for one field: the smallest (ascending) or largest (descending) of the values the
 * path reaches, with arrays replaced by their elements; an empty array counts as undefined (below null), and a
 * missing field as null. */
static void
simq_sort_key (const bson_t *doc, const char *path, int dir, bson_value_t *key)
{
   simq_pvals_t pv;
   bool have = false, saw_empty_array = false;

   if (!strchr (path, '.')) { /* a top-level field holding no array is its own key; a missing one is null */
      if (!simq_get_path (doc, path, key)) {
         memset (key, 0, sizeof *key);
         key->value_type = BSON_TYPE_NULL;
         return;
      }
      if (key->value_type != BSON_TYPE_ARRAY) {
         return;
      }
   }
   simq_path_values (doc, path, &pv);
   for (size_t i = 0; i < pv.n; i++) {
      const bson_value_t *v = &pv.v[i].v;
      if (v->value_type == BSON_TYPE_ARRAY && !pv.v[i].expanded) {
         bson_t arr;
         if (simq_value_as_doc (v, &arr) && bson_count_keys (&arr) == 0) {
            saw_empty_array = true;
         }
         continue;
      }
      if (!have || order_values (v, key) * dir < 0) {
         *key = *v;
         have = true;
      }
   }
   if (!have) {
      memset (key, 0, sizeof *key);
      key->value_type = saw_empty_array ? BSON_TYPE_UNDEFINED : BSON_TYPE_NULL;
   }
   simq_pvals_destroy (&pv);
}

static void
simq_sort_item_fill (const simq_sort_spec_t *spec, const bson_t *doc, size_t index, simq_sort_item_t *item)
{
   item->index = index;
   for (size_t f = 0; f < spec->nfields; f++) {
      simq_sort_key (doc, spec->paths[f], spec->dirs[f], &item->keys[f]);
   }
}

static void
simq_sort_spec_destroy (simq_sort_spec_t *spec)
{
   bson_free (spec->paths);
   bson_free (spec->dirs);
}

/* Parses a sort specification into spec (destroy it on every path); false with the server's error when a field is
 * not 1 or -1 or a name is empty. */
static bool
simq_sort_spec_parse (const bson_t *sort, simq_sort_spec_t *spec, bson_error_t *error)
{
   bson_iter_t it;
   size_t n = bson_count_keys (sort);

   *spec = (simq_sort_spec_t){ 0 };
   spec->paths = bson_malloc0 ((n + 1) * sizeof (char *));
   spec->dirs = bson_malloc0 ((n + 1) * sizeof (int));
   if (!bson_iter_init (&it, sort)) {
      return simq_fail (error, 2, "invalid sort specification");
   }
   while (bson_iter_next (&it)) {
      int64_t d;
      if (!simq_is_integral_number (bson_iter_value (&it), &d) || (d != 1 && d != -1)) {
         if (BSON_ITER_HOLDS_DOCUMENT (&it)) {
            return simq_fail (error, 17312, "$meta is the only expression supported by $sort right now");
         }
         return simq_fail (error, 15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)");
      }
      if (bson_iter_key_len (&it) == 0) {
         return simq_fail (error, 40352, "FieldPath cannot be constructed with empty string");
      }
      spec->paths[spec->nfields] = bson_iter_key (&it);
      spec->dirs[spec->nfields] = (int) d;
      spec->nfields++;
   }
   return true;
}

bool
simq_sort (simq_docs_t *docs, const bson_t *sort, bson_error_t *error)
{
   simq_sort_spec_t spec;
   simq_sort_item_t *items = NULL;
   bson_value_t *keys = NULL;
   bson_t **sorted = NULL;

   if (!simq_sort_spec_parse (sort, &spec, error)) {
      simq_sort_spec_destroy (&spec);
      return false;
   }
   if (spec.nfields == 0 || docs->n < 2) { /* {} leaves the order alone; the specification is still validated */
      simq_sort_spec_destroy (&spec);
      return true;
   }
   items = bson_malloc0 (docs->n * sizeof *items);
   keys = bson_malloc0 (docs->n * spec.nfields * sizeof *keys);
   for (size_t i = 0; i < docs->n; i++) {
      items[i].keys = &keys[i * spec.nfields];
      simq_sort_item_fill (&spec, docs->v[i], i, &items[i]);
   }
   simq_sort_current = &spec;
   qsort (items, docs->n, sizeof *items, simq_sort_cmp);
   simq_sort_current = NULL;
   sorted = bson_malloc0 (docs->n * sizeof (bson_t *));
   for (size_t i = 0; i < docs->n; i++) {
      sorted[i] = docs->v[items[i].index];
   }
   memcpy (docs->v, sorted, docs->n * sizeof (bson_t *));
   bson_free (items);
   bson_free (keys);
   bson_free (sorted);
   simq_sort_spec_destroy (&spec);
   return true;
}

/* Restores the max-heap order (the last of the sort order on top) below slot i of heap[0..n). */
static void
simq_sort_heap_down (const simq_sort_spec_t *spec, simq_sort_item_t *heap, size_t n, size_t i)
{
   for (;;) {
      size_t l = 2 * i + 1, r = l + 1, top = i;
      if (l < n && simq_sort_items_cmp (spec, &heap[l], &heap[top]) > 0) {
         top = l;
      }
      if (r < n && simq_sort_items_cmp (spec, &heap[r], &heap[top]) > 0) {
         top = r;
      }
      if (top == i) {
         return;
      }
      simq_sort_item_t t = heap[i];
      heap[i] = heap[top];
      heap[top] = t;
      i = top;
   }
}

static void
simq_sort_heap_up (const simq_sort_spec_t *spec, simq_sort_item_t *heap, size_t i)
{
   while (i > 0) {
      size_t parent = (i - 1) / 2;
      if (simq_sort_items_cmp (spec, &heap[i], &heap[parent]) <= 0) {
         return;
      }
      simq_sort_item_t t = heap[i];
      heap[i] = heap[parent];
      heap[parent] = t;
      i = parent;
   }
}

bool
simq_sort_top (const simq_docs_t *docs, const bson_t *sort, size_t k, size_t **order, size_t *n, bson_error_t *error)
{
   simq_sort_spec_t spec;
   simq_sort_item_t *heap, cand;
   bson_value_t *keys;
   size_t cap = k < docs->n ? k : docs->n, used = 0;

   *order = NULL;
   *n = 0;
   if (!simq_sort_spec_parse (sort, &spec, error)) {
      simq_sort_spec_destroy (&spec);
      return false;
   }
   heap = bson_malloc0 ((cap + 1) * sizeof *heap);
   keys = bson_malloc0 ((cap + 1) * (spec.nfields + 1) * sizeof *keys);
   for (size_t i = 0; i <= cap; i++) {
      heap[i].keys = &keys[i * (spec.nfields + 1)];
   }
   cand = heap[cap]; /* the spare slot: a candidate's keys, swapped into the heap when it wins */
   for (size_t i = 0; cap > 0 && i < docs->n; i++) {
      simq_sort_item_fill (&spec, docs->v[i], i, &cand);
      if (used < cap) {
         bson_value_t *spare = heap[used].keys;
         heap[used] = cand;
         cand.keys = spare;
         simq_sort_heap_up (&spec, heap, used++);
      } else if (simq_sort_items_cmp (&spec, &cand, &heap[0]) < 0) {
         simq_sort_item_t out = heap[0];
         heap[0] = cand;
         cand.keys = out.keys;
         simq_sort_heap_down (&spec, heap, used, 0);
      }
   }
   simq_sort_current = &spec;
   if (used > 1) {
      qsort (heap, used, sizeof *heap, simq_sort_cmp);
   }
   simq_sort_current = NULL;
   *order = bson_malloc0 ((used + 1) * sizeof **order);
   for (size_t i = 0; i < used; i++) {
      (*order)[i] = heap[i].index;
   }
   *n = used;
   bson_free (heap);
   bson_free (keys);
   simq_sort_spec_destroy (&spec);
   return true;
}
