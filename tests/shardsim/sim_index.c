/* shardsim's indexes over the document store, kept current by the store's hooks (sim_store.c) so that they are never
 * stale, and (all but the range index, below) built lazily on first use so that collections nobody asks about (the
 * bulk loader's documents) pay nothing:
 *   - the _id index of a collection: a simq_htab_t multimap from simq_hash_value (_id) to the stored document, so
 *     the duplicate-key check of an insert costs O(1) instead of a scan (equality is order_values, as the scan
 *     had it: 1, 1.0 and NumberLong(1) are the same _id);
 *   - the range index of a partition (config.chunks per collection, config.tags per namespace): its documents ordered
 *     by their embedded-document min, ties in storage order (exactly the order of a stable sort { min: 1 }), with a
 *     count of what keeps the [min, max) ranges from being pairwise disjoint (counted when first asked for, then
 *     kept: a walk in min order, such as sh.status's $lookup, needs only the order). It starts with the partition's
 *     first document (the config server's { uuid: 1, min: 1 } index exists from a collection's first chunk on; the
 *     large scenario's million chunks, inserted in min order, cost one comparison each) and is rebuilt on next use
 *     after a document without an embedded-document min or a replacement with a tie dropped it. find { uuid } sort
 *     { min: 1 } limit n walks it, updateZoneKeyRange checks overlaps and split finds the chunk holding a key by
 *     binary search;
 *   - the unique secondary indexes of a collection: per index a multimap from the hash of each key a document
 *     generates to the document, built on the first write that asks and rebuilt whenever the index list changed,
 *     so that insert and update refuse a duplicate key (E11000) as the server does;
 *   - the greatest lastmod of a partition (the collection version a split or a migration starts from).
 * Callers hold sim_g.lock. */
#include "tests/shardsim/sim.h"

#include <string.h>

/* The range index of one partition. */
typedef struct sim_rindex {
   const uint8_t **v; /* the documents, ordered by (min, storage position) */
   size_t n;
   size_t cap;
   size_t nconflicts;    /* entries without a max above their min, plus adjacent entries whose ranges overlap */
   bool conflicts_known; /* nconflicts is counted (on first need: a walk in min order asks only the order) */
   size_t nloose;        /* documents whose partition value is not held whole by the partition key */
} sim_rindex_t;

static uint32_t
sim_raw_len (const uint8_t *raw)
{
   return (uint32_t) raw[0] | (uint32_t) raw[1] << 8 | (uint32_t) raw[2] << 16 | (uint32_t) raw[3] << 24;
}

static void
sim_raw_view (const uint8_t *raw, bson_t *out)
{
   bson_init_static (out, raw, sim_raw_len (raw));
}

/* ---- the _id index ---- */

/* The _id of a stored document; false when it has none (such documents are not indexed, and the scan this index
 * replaces never matched them either). */
static bool
sim_raw_id (const uint8_t *raw, bson_value_t *out)
{
   bson_t doc;
   bson_iter_t it;
   sim_raw_view (raw, &doc);
   if (!bson_iter_init_find (&it, &doc, "_id")) {
      return false;
   }
   *out = *bson_iter_value (&it);
   return true;
}

static void
sim_ids_add (simq_htab_t *ids, const uint8_t *raw)
{
   bson_value_t id;
   if (sim_raw_id (raw, &id)) {
      simq_htab_add (ids, simq_hash_value (&id), (uintptr_t) raw);
   }
}

static void
sim_ids_remove (simq_htab_t *ids, const uint8_t *raw)
{
   bson_value_t id;
   if (sim_raw_id (raw, &id)) {
      bool found = simq_htab_remove (ids, simq_hash_value (&id), (uintptr_t) raw);
      BSON_ASSERT (found);
   }
}

bool
sim_coll_has_id (sim_coll_t *coll, const bson_value_t *id)
{
   if (!coll->ids) {
      coll->ids = bson_malloc (sizeof *coll->ids);
      simq_htab_init (coll->ids);
      for (size_t p = 0; p < coll->nparts; p++) {
         for (size_t i = 0; i < coll->parts[p].docs.n; i++) {
            sim_ids_add (coll->ids, coll->parts[p].docs.v[i]);
         }
      }
   }
   size_t probe = 0;
   uintptr_t v;
   while ((v = simq_htab_next (coll->ids, simq_hash_value (id), &probe)) != 0) {
      bson_value_t other;
      if (sim_raw_id ((const uint8_t *) v, &other) && order_values (&other, id) == 0) {
         return true;
      }
   }
   return false;
}

bool
sim_coll_find_id (sim_coll_t *coll, const bson_value_t *id, sim_pos_t *pos)
{
   bool found = false;
   sim_coll_has_id (coll, id); /* builds the index on first use */
   size_t probe = 0;
   uintptr_t v;
   while ((v = simq_htab_next (coll->ids, simq_hash_value (id), &probe)) != 0) {
      const uint8_t *raw = (const uint8_t *) v;
      bson_value_t other;
      if (!sim_raw_id (raw, &other) || order_values (&other, id) != 0) {
         continue;
      }
      size_t p = sim_coll_part_of (coll, raw);
      for (size_t i = 0; p != SIZE_MAX && i < coll->parts[p].docs.n; i++) {
         if (coll->parts[p].docs.v[i] == raw) {
            sim_pos_t at = { p, i };
            if (!found || at.part < pos->part || (at.part == pos->part && at.idx < pos->idx)) {
               *pos = at;
            }
            found = true;
            break;
         }
      }
   }
   return found;
}

/* ---- the unique secondary indexes ---- */

/* One unique index other than _id_: its key fields and, once built, a multimap from the hash of each key a document
 * generates to the stored document (a document with an array under a key field generates one key per element). */
typedef struct {
   char *name;
   bson_t *pattern;
   char **fields;
   size_t nfields;
   bool sparse;
   bson_t *partial; /* partialFilterExpression; NULL when none */
   simq_htab_t tab;
} sim_uidx_t;

struct sim_uniq {
   sim_uidx_t *v;
   size_t n;
   bson_t **specs; /* coll->indexes.v as it was when built: a different list means a rebuild */
   size_t nspecs;
};

static const bson_value_t sim_null_value = { .value_type = BSON_TYPE_NULL };
static const bson_value_t sim_undefined_value = { .value_type = BSON_TYPE_UNDEFINED };

/* The keys doc generates for u, nfields values each, into *n tuples (bson_free the array); values borrow from doc.
 * None when the index leaves doc out (sparse and no key field present, or outside the partial filter). The first
 * key field holding a non-empty array is expanded element by element; an empty array is undefined, a missing field
 * null (as the server's key generation has them). */
static bson_value_t *
sim_ukeys (const sim_uidx_t *u, const bson_t *doc, size_t *n)
{
   bson_value_t *one = bson_malloc (u->nfields * sizeof *one);
   size_t expand = SIZE_MAX, present = 0;
   *n = 0;
   for (size_t f = 0; f < u->nfields; f++) {
      bson_value_t v;
      if (!simq_get_path (doc, u->fields[f], &v)) {
         one[f] = sim_null_value;
         continue;
      }
      present++;
      one[f] = v;
      if (v.value_type == BSON_TYPE_ARRAY && expand == SIZE_MAX) {
         expand = f;
      }
   }
   bool matched = true;
   bson_error_t err;
   if ((u->sparse && !present) || (u->partial && (!simq_match (doc, u->partial, &matched, &err) || !matched))) {
      bson_free (one);
      return NULL;
   }
   if (expand == SIZE_MAX) {
      *n = 1;
      return one;
   }
   bson_t arr;
   bson_iter_t it;
   size_t cap = 4;
   bson_value_t *keys = bson_malloc (cap * u->nfields * sizeof *keys);
   bson_init_static (&arr, one[expand].value.v_doc.data, one[expand].value.v_doc.data_len);
   bson_iter_init (&it, &arr);
   while (bson_iter_next (&it)) {
      if (*n == cap) {
         cap *= 2;
         keys = bson_realloc (keys, cap * u->nfields * sizeof *keys);
      }
      memcpy (keys + *n * u->nfields, one, u->nfields * sizeof *one);
      keys[*n * u->nfields + expand] = *bson_iter_value (&it);
      (*n)++;
   }
   if (*n == 0) {
      memcpy (keys, one, u->nfields * sizeof *one);
      keys[expand] = sim_undefined_value;
      *n = 1;
   }
   bson_free (one);
   return keys;
}

static uint64_t
sim_ukey_hash (const sim_uidx_t *u, const bson_value_t *key)
{
   uint64_t h = 1469598103934665603ULL;
   for (size_t f = 0; f < u->nfields; f++) {
      h = (h ^ simq_hash_value (&key[f])) * 1099511628211ULL;
   }
   return h;
}

static bool
sim_ukey_equal (const sim_uidx_t *u, const bson_value_t *a, const bson_value_t *b)
{
   for (size_t f = 0; f < u->nfields; f++) {
      if (order_values (&a[f], &b[f]) != 0) {
         return false;
      }
   }
   return true;
}

/* Adds (add true) or removes every key of a stored document. */
static void
sim_uidx_note (sim_uidx_t *u, const uint8_t *raw, bool add)
{
   bson_t doc;
   size_t n;
   sim_raw_view (raw, &doc);
   bson_value_t *keys = sim_ukeys (u, &doc, &n);
   for (size_t k = 0; k < n; k++) {
      uint64_t h = sim_ukey_hash (u, keys + k * u->nfields);
      if (add) {
         simq_htab_add (&u->tab, h, (uintptr_t) raw);
      } else {
         bool found = simq_htab_remove (&u->tab, h, (uintptr_t) raw);
         BSON_ASSERT (found);
      }
   }
   bson_free (keys);
}

/* Whether a stored document other than self holds key. */
static bool
sim_uidx_holds (const sim_uidx_t *u, const bson_value_t *key, const uint8_t *self)
{
   size_t probe = 0;
   uintptr_t v;
   while ((v = simq_htab_next (&u->tab, sim_ukey_hash (u, key), &probe)) != 0) {
      bson_t other;
      size_t n;
      bool same = false;
      if ((const uint8_t *) v == self) {
         continue;
      }
      sim_raw_view ((const uint8_t *) v, &other);
      bson_value_t *keys = sim_ukeys (u, &other, &n);
      for (size_t k = 0; k < n && !same; k++) {
         same = sim_ukey_equal (u, keys + k * u->nfields, key);
      }
      bson_free (keys);
      if (same) {
         return true;
      }
   }
   return false;
}

static void
sim_dupkey_set (sim_dupkey_t *dup, const sim_uidx_t *u, const bson_value_t *key)
{
   bson_reinit (&dup->key_pattern);
   bson_reinit (&dup->key_value);
   bson_strncpy (dup->index, u->name, sizeof dup->index);
   bson_concat (&dup->key_pattern, u->pattern);
   for (size_t f = 0; f < u->nfields; f++) {
      bson_append_value (&dup->key_value, u->fields[f], -1, &key[f]);
   }
}

static void
sim_uniq_free (struct sim_uniq *q)
{
   if (!q) {
      return;
   }
   for (size_t i = 0; i < q->n; i++) {
      sim_uidx_t *u = &q->v[i];
      bson_free (u->name);
      bson_destroy (u->pattern);
      for (size_t f = 0; f < u->nfields; f++) {
         bson_free (u->fields[f]);
      }
      bson_free (u->fields);
      if (u->partial) {
         bson_destroy (u->partial);
      }
      simq_htab_destroy (&u->tab);
   }
   bson_free (q->v);
   bson_free (q->specs);
   bson_free (q);
}

static void
sim_uidx_init (sim_uidx_t *u, const bson_t *spec, const bson_t *key)
{
   bson_iter_t it;
   bson_t partial;
   memset (u, 0, sizeof *u);
   u->name = bson_strdup (docget_utf8 (spec, "name", ""));
   u->pattern = bson_copy (key);
   u->nfields = bson_count_keys (key);
   u->fields = bson_malloc0 ((u->nfields ? u->nfields : 1) * sizeof *u->fields);
   size_t f = 0;
   bson_iter_init (&it, key);
   while (bson_iter_next (&it) && f < u->nfields) {
      u->fields[f++] = bson_strdup (bson_iter_key (&it));
   }
   u->sparse = docget_bool (spec, "sparse");
   if (docget_sub (spec, "partialFilterExpression", BSON_TYPE_DOCUMENT, &partial)) {
      u->partial = bson_copy (&partial);
   }
   simq_htab_init (&u->tab);
}

/* The unique indexes of coll, built (every document entered) when coll->indexes changed since the last build. When
 * dup is given, the first duplicate key met while building is recorded there (and true returned). */
static struct sim_uniq *
sim_uniq_get (sim_coll_t *coll, sim_dupkey_t *dup, bool *found)
{
   struct sim_uniq *q = coll->uniq;
   if (q && q->nspecs == coll->indexes.n &&
       (q->nspecs == 0 || !memcmp (q->specs, coll->indexes.v, q->nspecs * sizeof *q->specs))) {
      return q;
   }
   sim_uniq_free (q);
   q = coll->uniq = bson_malloc0 (sizeof *q);
   q->nspecs = coll->indexes.n;
   q->specs = bson_malloc ((q->nspecs ? q->nspecs : 1) * sizeof *q->specs);
   memcpy (q->specs, coll->indexes.v, q->nspecs * sizeof *q->specs);
   for (size_t i = 0; i < coll->indexes.n; i++) {
      const bson_t *spec = coll->indexes.v[i];
      bson_t key;
      if (!docget_bool (spec, "unique") || !strcmp (docget_utf8 (spec, "name", ""), "_id_") ||
          !docget_sub (spec, "key", BSON_TYPE_DOCUMENT, &key) || bson_empty (&key)) {
         continue;
      }
      q->v = bson_realloc (q->v, (q->n + 1) * sizeof *q->v);
      sim_uidx_init (&q->v[q->n++], spec, &key);
   }
   for (size_t i = 0; i < q->n; i++) {
      sim_uidx_t *u = &q->v[i];
      for (size_t p = 0; p < coll->nparts; p++) {
         for (size_t d = 0; d < coll->parts[p].docs.n; d++) {
            const uint8_t *raw = coll->parts[p].docs.v[d];
            bson_t doc;
            size_t n;
            sim_raw_view (raw, &doc);
            bson_value_t *keys = found && !*found ? sim_ukeys (u, &doc, &n) : NULL;
            for (size_t k = 0; keys && k < n && !*found; k++) {
               if (sim_uidx_holds (u, keys + k * u->nfields, raw)) {
                  sim_dupkey_set (dup, u, keys + k * u->nfields);
                  *found = true;
               }
            }
            bson_free (keys);
            sim_uidx_note (u, raw, true);
         }
      }
   }
   return q;
}

void
sim_dupkey_init (sim_dupkey_t *dup)
{
   dup->index[0] = '\0';
   bson_init (&dup->key_pattern);
   bson_init (&dup->key_value);
}

void
sim_dupkey_destroy (sim_dupkey_t *dup)
{
   bson_destroy (&dup->key_pattern);
   bson_destroy (&dup->key_value);
}

bool
sim_coll_dup_check (sim_coll_t *coll, const bson_t *doc, const uint8_t *self, sim_dupkey_t *dup)
{
   bson_iter_t it;
   if (!self && bson_iter_init_find (&it, doc, "_id") && sim_coll_has_id (coll, bson_iter_value (&it))) {
      bson_reinit (&dup->key_pattern);
      bson_reinit (&dup->key_value);
      bson_strncpy (dup->index, "_id_", sizeof dup->index);
      BSON_APPEND_INT32 (&dup->key_pattern, "_id", 1);
      BSON_APPEND_VALUE (&dup->key_value, "_id", bson_iter_value (&it));
      return false;
   }
   struct sim_uniq *q = sim_uniq_get (coll, NULL, NULL);
   for (size_t i = 0; i < q->n; i++) {
      sim_uidx_t *u = &q->v[i];
      size_t n;
      bson_value_t *keys = sim_ukeys (u, doc, &n);
      for (size_t k = 0; k < n; k++) {
         if (sim_uidx_holds (u, keys + k * u->nfields, self)) {
            sim_dupkey_set (dup, u, keys + k * u->nfields);
            bson_free (keys);
            return false;
         }
      }
      bson_free (keys);
   }
   return true;
}

bool
sim_coll_unique_verify (sim_coll_t *coll, sim_dupkey_t *dup)
{
   bool found = false;
   sim_uniq_free (coll->uniq);
   coll->uniq = NULL;
   sim_uniq_get (coll, dup, &found);
   return !found;
}

static void
sim_uniq_added (sim_coll_t *coll, const uint8_t *raw)
{
   for (size_t i = 0; coll->uniq && i < coll->uniq->n; i++) {
      sim_uidx_note (&coll->uniq->v[i], raw, true);
   }
}

static void
sim_uniq_removing (sim_coll_t *coll, const uint8_t *raw)
{
   for (size_t i = 0; coll->uniq && i < coll->uniq->n; i++) {
      sim_uidx_note (&coll->uniq->v[i], raw, false);
   }
}

/* ---- the greatest lastmod of a partition ---- */

static bool
sim_raw_lastmod (const uint8_t *raw, uint32_t *t, uint32_t *i)
{
   bson_t doc;
   bson_iter_t it;
   sim_raw_view (raw, &doc);
   if (!bson_iter_init_find (&it, &doc, "lastmod") || !BSON_ITER_HOLDS_TIMESTAMP (&it)) {
      return false;
   }
   bson_iter_timestamp (&it, t, i);
   return true;
}

void
sim_part_max_lastmod (sim_coll_t *coll, size_t part, uint32_t *t, uint32_t *i)
{
   sim_part_t *p = &coll->parts[part];
   if (!p->vmax_known) {
      p->vmax_t = p->vmax_i = 0;
      for (size_t k = 0; k < p->docs.n; k++) {
         uint32_t a, b;
         if (sim_raw_lastmod (p->docs.v[k], &a, &b) && (a > p->vmax_t || (a == p->vmax_t && b > p->vmax_i))) {
            p->vmax_t = a;
            p->vmax_i = b;
         }
      }
      p->vmax_known = true;
   }
   *t = p->vmax_t;
   *i = p->vmax_i;
}

static void
sim_vmax_added (sim_part_t *p, const uint8_t *raw)
{
   uint32_t a, b;
   if (p->vmax_known && sim_raw_lastmod (raw, &a, &b) && (a > p->vmax_t || (a == p->vmax_t && b > p->vmax_i))) {
      p->vmax_t = a;
      p->vmax_i = b;
   }
}

static void
sim_vmax_removing (sim_part_t *p, const uint8_t *raw)
{
   uint32_t a, b;
   if (p->vmax_known && sim_raw_lastmod (raw, &a, &b) && a == p->vmax_t && b == p->vmax_i) {
      p->vmax_known = false; /* another document may hold the same version: recount on next use */
   }
}

/* A replacement whose version is not below the greatest one takes its place (a split rewrites the newest chunk):
 * nothing to recount. */
static void
sim_vmax_replaced (sim_part_t *p, const uint8_t *old, const uint8_t *raw)
{
   uint32_t a, b;
   if (p->vmax_known && sim_raw_lastmod (raw, &a, &b) && (a > p->vmax_t || (a == p->vmax_t && b >= p->vmax_i))) {
      p->vmax_t = a;
      p->vmax_i = b;
      return;
   }
   sim_vmax_removing (p, old);
   sim_vmax_added (p, raw);
}

/* ---- the range index ---- */

/* The embedded document under field of a stored document; false when absent or not a document. */
static bool
sim_raw_sub (const uint8_t *raw, const char *field, bson_t *out)
{
   bson_t doc;
   bson_value_t v;
   sim_raw_view (raw, &doc);
   if (!simq_find_value (&doc, field, &v) || v.value_type != BSON_TYPE_DOCUMENT) {
      return false;
   }
   return bson_init_static (out, v.value.v_doc.data, v.value.v_doc.data_len);
}

/* Whether a document's partition value is held whole by its partition key (sim_store.c keeps "s:" + the string or
 * the binary's hex digits in 128 bytes and stops a string at an embedded NUL): then documents of one partition hold
 * one value. */
static bool
sim_raw_tight (const sim_coll_t *coll, const uint8_t *raw)
{
   bson_t doc;
   bson_value_t v;
   sim_raw_view (raw, &doc);
   if (!coll->part_field || !simq_find_value (&doc, coll->part_field, &v)) {
      return false;
   }
   if (v.value_type == BSON_TYPE_UTF8) {
      return v.value.v_utf8.len < 100 && strlen (v.value.v_utf8.str) == v.value.v_utf8.len;
   }
   /* The key has no subtype: only UUIDs count (another subtype with the same bytes is loose). */
   return v.value_type == BSON_TYPE_BINARY && v.value.v_binary.subtype == BSON_SUBTYPE_UUID &&
          v.value.v_binary.data_len < 50;
}

/* Whether a document lacks a max above its min (it then keeps the ranges from being known disjoint). */
static bool
sim_rindex_bad (const uint8_t *raw)
{
   bson_t min, max;
   return !sim_raw_sub (raw, "min", &min) || !sim_raw_sub (raw, "max", &max) || order_docs (&min, &max) >= 0;
}

/* Whether the ranges of two neighbours (a before b) overlap; documents without a proper range count once, as bad. */
static bool
sim_rindex_clash (const uint8_t *a, const uint8_t *b)
{
   bson_t amax, bmin;
   if (sim_rindex_bad (a) || sim_rindex_bad (b)) {
      return false;
   }
   sim_raw_sub (a, "max", &amax);
   sim_raw_sub (b, "min", &bmin);
   return order_docs (&amax, &bmin) > 0;
}

static int
sim_min_cmp_raw (const uint8_t *a, const uint8_t *b)
{
   bson_t x, y;
   sim_raw_sub (a, "min", &x);
   sim_raw_sub (b, "min", &y);
   return order_docs (&x, &y);
}

/* A document with its min located once, for building an index: comparisons then cost no field lookup. (Raw
 * pointers, not bson_t views: a static bson_t points into itself and cannot be moved by copying.) */
typedef struct {
   const uint8_t *raw;
   const uint8_t *min; /* the embedded document */
} sim_rent_t;

static int
sim_rent_docs_cmp (const uint8_t *a, const uint8_t *b)
{
   bson_t x, y;
   sim_raw_view (a, &x);
   sim_raw_view (b, &y);
   return order_docs (&x, &y);
}

static int
sim_rent_cmp (const sim_rent_t *a, const sim_rent_t *b)
{
   return sim_rent_docs_cmp (a->min, b->min);
}

/* Merge sort of v[0, n) by min, stable (v is in storage order when it is built). tmp has room for n entries. */
static void
sim_rindex_sort (sim_rent_t *v, sim_rent_t *tmp, size_t n)
{
   if (n < 2) {
      return;
   }
   size_t half = n / 2;
   sim_rindex_sort (v, tmp, half);
   sim_rindex_sort (v + half, tmp, n - half);
   if (sim_rent_cmp (&v[half - 1], &v[half]) <= 0) {
      return; /* already in order: ascending inserts build in linear time */
   }
   size_t i = 0, j = half, k = 0;
   while (i < half && j < n) {
      tmp[k++] = sim_rent_cmp (&v[j], &v[i]) < 0 ? v[j++] : v[i++];
   }
   while (i < half) {
      tmp[k++] = v[i++];
   }
   while (j < n) {
      tmp[k++] = v[j++];
   }
   memcpy (v, tmp, k * sizeof *v);
}

static void
sim_rindex_destroy (sim_rindex_t *r)
{
   if (r) {
      bson_free (r->v);
      bson_free (r);
   }
}

/* The conflicts entry i takes part in: its own badness and its clashes with both neighbours. */
static size_t
sim_rindex_conflicts_at (const sim_rindex_t *r, size_t i)
{
   size_t c = sim_rindex_bad (r->v[i]) ? 1 : 0;
   if (i > 0 && sim_rindex_clash (r->v[i - 1], r->v[i])) {
      c++;
   }
   if (i + 1 < r->n && sim_rindex_clash (r->v[i], r->v[i + 1])) {
      c++;
   }
   return c;
}

/* Builds the index of partition p; NULL when some document has no embedded-document min. */
static sim_rindex_t *
sim_rindex_build (sim_coll_t *coll, size_t p)
{
   sim_raw_t *docs = &coll->parts[p].docs;
   sim_rindex_t *r = bson_malloc0 (sizeof *r);
   size_t cap = docs->n ? docs->n : 1;
   sim_rent_t *ents = bson_malloc (cap * sizeof *ents);
   r->cap = cap;
   r->v = bson_malloc (r->cap * sizeof *r->v);
   for (size_t i = 0; i < docs->n; i++) {
      sim_rent_t *e = &ents[i];
      bson_t min;
      e->raw = docs->v[i];
      if (!sim_raw_sub (docs->v[i], "min", &min)) {
         bson_free (ents);
         sim_rindex_destroy (r);
         return NULL;
      }
      e->min = bson_get_data (&min);
      r->nloose += sim_raw_tight (coll, docs->v[i]) ? 0 : 1;
   }
   sim_rent_t *tmp = bson_malloc (cap * sizeof *tmp);
   sim_rindex_sort (ents, tmp, docs->n);
   bson_free (tmp);
   for (size_t i = 0; i < docs->n; i++) {
      r->v[r->n++] = ents[i].raw;
   }
   bson_free (ents);
   return r;
}

/* The first entry whose min is above raw's min (upper bound). */
static size_t
sim_rindex_upper (const sim_rindex_t *r, const uint8_t *raw)
{
   size_t lo = 0, hi = r->n;
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (sim_min_cmp_raw (r->v[mid], raw) <= 0) {
         lo = mid + 1;
      } else {
         hi = mid;
      }
   }
   return lo;
}

/* The first entry whose min is not below raw's min (lower bound). */
static size_t
sim_rindex_lower (const sim_rindex_t *r, const uint8_t *raw)
{
   size_t lo = 0, hi = r->n;
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (sim_min_cmp_raw (r->v[mid], raw) < 0) {
         lo = mid + 1;
      } else {
         hi = mid;
      }
   }
   return lo;
}

static void
sim_rindex_insert_at (sim_rindex_t *r, size_t i, const uint8_t *raw)
{
   if (r->n == r->cap) {
      r->cap = r->cap ? r->cap * 2 : 16;
      r->v = bson_realloc (r->v, r->cap * sizeof *r->v);
   }
   if (r->conflicts_known && i > 0 && i < r->n && sim_rindex_clash (r->v[i - 1], r->v[i])) {
      r->nconflicts--;
   }
   memmove (&r->v[i + 1], &r->v[i], (r->n - i) * sizeof *r->v);
   r->v[i] = raw;
   r->n++;
   if (r->conflicts_known) {
      r->nconflicts += sim_rindex_conflicts_at (r, i);
   }
}

static void
sim_rindex_remove_at (sim_rindex_t *r, size_t i)
{
   if (r->conflicts_known) {
      r->nconflicts -= sim_rindex_conflicts_at (r, i);
   }
   memmove (&r->v[i], &r->v[i + 1], (r->n - i - 1) * sizeof *r->v);
   r->n--;
   if (r->conflicts_known && i > 0 && i < r->n && sim_rindex_clash (r->v[i - 1], r->v[i])) {
      r->nconflicts++;
   }
}

/* Where raw sits in the index; SIZE_MAX when it is not there. */
static size_t
sim_rindex_find (const sim_rindex_t *r, const uint8_t *raw)
{
   bson_t min;
   if (!sim_raw_sub (raw, "min", &min)) {
      return SIZE_MAX;
   }
   for (size_t i = sim_rindex_lower (r, raw); i < r->n && sim_min_cmp_raw (r->v[i], raw) == 0; i++) {
      if (r->v[i] == raw) {
         return i;
      }
   }
   return SIZE_MAX;
}

/* Drops the range index of partition p (rebuilt on next use). */
static void
sim_rindex_drop (sim_coll_t *coll, size_t p)
{
   sim_rindex_destroy (coll->parts[p].rindex);
   coll->parts[p].rindex = NULL;
}

const uint8_t *const *
sim_part_by_min (sim_coll_t *coll, size_t part, size_t *n, bool *disjoint, bool *tight)
{
   sim_part_t *p = &coll->parts[part];
   if (!p->rindex) {
      p->rindex = sim_rindex_build (coll, part);
      if (!p->rindex) {
         return NULL;
      }
   }
   *n = p->rindex->n;
   if (disjoint && !p->rindex->conflicts_known) { /* what sim_rindex_conflicts_at counts, each bad test once */
      sim_rindex_t *r = p->rindex;
      bool prev_bad = false;
      r->nconflicts = 0;
      for (size_t i = 0; i < r->n; i++) {
         bool bad = sim_rindex_bad (r->v[i]);
         bson_t amax, bmin;
         r->nconflicts += bad ? 1 : 0;
         if (i > 0 && !bad && !prev_bad && sim_raw_sub (r->v[i - 1], "max", &amax) &&
             sim_raw_sub (r->v[i], "min", &bmin) && order_docs (&amax, &bmin) > 0) {
            r->nconflicts++;
         }
         prev_bad = bad;
      }
      r->conflicts_known = true;
   }
   if (disjoint) {
      *disjoint = p->rindex->nconflicts == 0;
   }
   if (tight) {
      *tight = p->rindex->nloose == 0;
   }
   return p->rindex->v;
}

int
sim_part_find_containing (sim_coll_t *coll, size_t part, const bson_t *key, bson_t *view)
{
   size_t n = 0;
   bool disjoint = false;
   const uint8_t *const *ord = sim_part_by_min (coll, part, &n, &disjoint, NULL);
   if (!ord || !disjoint) {
      return -1;
   }
   /* the last entry whose min is not above key */
   size_t lo = 0, hi = n;
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      bson_t min;
      sim_raw_sub (ord[mid], "min", &min);
      if (order_docs (&min, key) <= 0) {
         lo = mid + 1;
      } else {
         hi = mid;
      }
   }
   bson_t max;
   if (lo == 0 || !sim_raw_sub (ord[lo - 1], "max", &max) || order_docs (key, &max) >= 0) {
      return 0;
   }
   sim_raw_view (ord[lo - 1], view);
   return 1;
}

/* ---- the store's hooks ---- */

void
sim_index_added (sim_coll_t *coll, size_t part, const uint8_t *raw)
{
   sim_rindex_t *r = coll->parts[part].rindex;
   bson_t min;
   if (coll->ids) {
      sim_ids_add (coll->ids, raw);
   }
   sim_uniq_added (coll, raw);
   sim_vmax_added (&coll->parts[part], raw);
   if (!r && coll->part_field && coll->parts[part].docs.n == 1) {
      /* A partition's first document starts its range index, as the config server's { uuid: 1, min: 1 } index
       * exists from a collection's first chunk on: documents that come in min order then cost one comparison
       * each, and the first walk in min order (sh.status) finds the index built. */
      r = coll->parts[part].rindex = bson_malloc0 (sizeof *r);
   }
   if (!r) {
      return;
   }
   if (!sim_raw_sub (raw, "min", &min)) {
      sim_rindex_drop (coll, part);
      return;
   }
   /* Appended: the last in storage order, so after every equal min. */
   size_t i = r->n && sim_min_cmp_raw (r->v[r->n - 1], raw) <= 0 ? r->n : sim_rindex_upper (r, raw);
   sim_rindex_insert_at (r, i, raw);
   r->nloose += sim_raw_tight (coll, raw) ? 0 : 1;
}

void
sim_index_removing (sim_coll_t *coll, size_t part, const uint8_t *raw)
{
   sim_rindex_t *r = coll->parts[part].rindex;
   if (coll->ids) {
      sim_ids_remove (coll->ids, raw);
   }
   sim_uniq_removing (coll, raw);
   sim_vmax_removing (&coll->parts[part], raw);
   if (!r) {
      return;
   }
   size_t i = sim_rindex_find (r, raw);
   BSON_ASSERT (i != SIZE_MAX);
   sim_rindex_remove_at (r, i);
   r->nloose -= sim_raw_tight (coll, raw) ? 0 : 1;
}

void
sim_index_replaced (sim_coll_t *coll, size_t part, const uint8_t *old, const uint8_t *raw)
{
   sim_rindex_t *r = coll->parts[part].rindex;
   bson_t min;
   if (coll->ids) {
      sim_ids_remove (coll->ids, old);
      sim_ids_add (coll->ids, raw);
   }
   sim_uniq_removing (coll, old);
   sim_uniq_added (coll, raw);
   sim_vmax_replaced (&coll->parts[part], old, raw);
   if (!r) {
      return;
   }
   size_t i = sim_rindex_find (r, old);
   BSON_ASSERT (i != SIZE_MAX);
   sim_rindex_remove_at (r, i);
   r->nloose -= sim_raw_tight (coll, old) ? 0 : 1;
   if (!sim_raw_sub (raw, "min", &min)) {
      sim_rindex_drop (coll, part);
      return;
   }
   /* The document keeps its storage position: among equal mins its place would need every neighbour's position,
    * so a tie drops the index instead (rebuilt, in storage order, on next use). */
   size_t lo = sim_rindex_lower (r, raw);
   if (lo < r->n && sim_min_cmp_raw (r->v[lo], raw) == 0) {
      sim_rindex_drop (coll, part);
      return;
   }
   sim_rindex_insert_at (r, lo, raw);
   r->nloose += sim_raw_tight (coll, raw) ? 0 : 1;
}

void
sim_index_free (sim_coll_t *coll)
{
   if (coll->ids) {
      simq_htab_destroy (coll->ids);
      bson_free (coll->ids);
      coll->ids = NULL;
   }
   sim_uniq_free (coll->uniq);
   coll->uniq = NULL;
   for (size_t p = 0; p < coll->nparts; p++) {
      sim_rindex_drop (coll, p);
   }
}
