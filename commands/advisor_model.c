/* The shard-key advisor's analysis: from a bounded sample of documents, one candidate key, the chunk map and the
 * shards, the figures the seed documents ask about (cardinality, frequency, monotonicity), where the next inserts
 * would land, how sampled queries would be targeted, and a verdict in plain words. Pure: no I/O, no globals. */
#include "shell/lib/checked.h"
#include "commands/advisor_model.h"
#include "shell/lib/order.h"
#include "shell/lib/hashkey.h"
#include "shell/lib/aligned.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "shell/lib/hashkey.h"

#define ADVISOR_MAX_POINTS 64 /* equality points one query may expand to */
#define ADVISOR_DEFAULT_CHUNK ((int64_t) 128 * 1024 * 1024)

/* One sampled document under one candidate. */
typedef struct {
   bson_t key;      /* extracted key (hashes for hashed fields) */
   size_t idx;      /* position in the sample */
   double order;    /* insertion rank (filled when the order is known) */
   bson_oid_t oid;  /* _id when it is an ObjectId */
   double key_rank; /* average rank among keys (ties share one rank) */
   double ord_rank;
} advisor_entry_t;

advisor_limits_t
advisor_limits_default (void)
{
   advisor_limits_t l = { .low_cardinality = 1000, .hot_share = 0.05, .monotonic = 0.7, .skew = 1.5 };
   return l;
}

/* ---- key extraction ---- */

/* The value at a dotted path, borrowed from doc. *array is set when an array is met on the way or at the end. */
static bool
advisor_path_value (const bson_t *doc, const char *path, bson_value_t *out, bool *array)
{
   bson_iter_t it, child;
   const char *seg = path;
   if (!bson_iter_init (&it, doc))
      return false;
   for (;;) {
      const char *dot = strchr (seg, '.');
      size_t len = dot ? (size_t) (dot - seg) : strlen (seg);
      bool found = false;
      while (bson_iter_next (&it)) {
         const char *k = bson_iter_key (&it);
         if (strlen (k) == len && !memcmp (k, seg, len)) {
            found = true;
            break;
         }
      }
      if (!found)
         return false;
      if (BSON_ITER_HOLDS_ARRAY (&it)) {
         *array = true;
         if (dot)
            return false;
      }
      if (!dot) {
         *out = *bson_iter_value (&it);
         return true;
      }
      if (!BSON_ITER_HOLDS_DOCUMENT (&it) || !bson_iter_recurse (&it, &child))
         return false;
      it = child;
      seg = dot + 1;
   }
}

static void
advisor_extract (const bson_t *doc, const bson_t *pattern, bool raw, bson_t *out, bool *missing, bool *array)
{
   bson_iter_t it;
   bool any_missing = false, any_array = false;
   bson_init (out);
   if (bson_iter_init (&it, pattern)) {
      while (bson_iter_next (&it)) {
         const char *f = bson_iter_key (&it);
         bson_value_t v, null_value = { .value_type = BSON_TYPE_NULL };
         bool arr = false;
         if (!advisor_path_value (doc, f, &v, &arr)) {
            v = null_value;
            any_missing = any_missing || !arr;
         }
         any_array = any_array || arr;
         if (advisor_is_hashed (&it) && !raw)
            BSON_APPEND_INT64 (out, f, hashkey_value (&v));
         else
            BSON_APPEND_VALUE (out, f, &v);
      }
   }
   if (missing)
      *missing = any_missing;
   if (array)
      *array = any_array;
}

void
advisor_extract_key (const bson_t *doc, const bson_t *pattern, bson_t *out, bool *missing, bool *array)
{
   advisor_extract (doc, pattern, false, out, missing, array);
}

/* ---- ranks and correlation ---- */

static int
advisor_entry_key_cmp (const void *a, const void *b)
{
   const advisor_entry_t *x = a, *y = b;
   int c = order_keys (&x->key, &y->key);
   if (c)
      return c;
   return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int
advisor_entry_order_cmp (const void *a, const void *b)
{
   const advisor_entry_t *x = a, *y = b;
   if (x->order != y->order)
      return x->order < y->order ? -1 : 1;
   return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int
advisor_entry_oid_cmp (const void *a, const void *b)
{
   const advisor_entry_t *x = a, *y = b;
   int c = bson_oid_compare (&x->oid, &y->oid);
   if (c)
      return c < 0 ? -1 : 1;
   return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Spearman's rank correlation between key order and insertion order (entries[i].order); ties share their average
 * rank. Sorts entries by key on the way. Returns 0 when either order is constant. */
static double
advisor_spearman (advisor_entry_t *e, size_t n)
{
   double mk = 0, mo = 0, sxy = 0, sxx = 0, syy = 0;
   if (n < 3)
      return 0;
   qsort (e, n, sizeof *e, advisor_entry_order_cmp);
   for (size_t i = 0; i < n;) {
      size_t j = i;
      while (j + 1 < n && e[j + 1].order == e[i].order)
         j++;
      for (size_t k = i; k <= j; k++)
         e[k].ord_rank = (double) (i + j) / 2.0;
      i = j + 1;
   }
   qsort (e, n, sizeof *e, advisor_entry_key_cmp);
   for (size_t i = 0; i < n;) {
      size_t j = i;
      while (j + 1 < n && !order_keys (&e[j + 1].key, &e[i].key))
         j++;
      for (size_t k = i; k <= j; k++)
         e[k].key_rank = (double) (i + j) / 2.0;
      i = j + 1;
   }
   for (size_t i = 0; i < n; i++) {
      mk += e[i].key_rank;
      mo += e[i].ord_rank;
   }
   mk /= (double) n;
   mo /= (double) n;
   for (size_t i = 0; i < n; i++) {
      double dx = e[i].key_rank - mk, dy = e[i].ord_rank - mo;
      sxy += dx * dy;
      sxx += dx * dx;
      syy += dy * dy;
   }
   if (sxx <= 0 || syy <= 0)
      return 0;
   return sxy / sqrt (sxx * syy);
}

/* ---- chunk maps ---- */

typedef struct {
   advisor_chunk_t *v;
   size_t n;
   bool owned;
} advisor_map_t;

static void
advisor_map_destroy (advisor_map_t *m)
{
   if (m->owned) {
      for (size_t i = 0; i < m->n; i++) {
         bson_destroy (&m->v[i].min);
         bson_destroy (&m->v[i].max);
      }
      bson_free (m->v);
   }
   m->v = NULL;
   m->n = 0;
}

/* A bound over pattern: the first field takes first, or MinKey (MaxKey for max) when NULL; the other fields take
 * MinKey, or MaxKey in an upper bound without a first value. */
static void
advisor_bound (const bson_t *pattern, const bson_value_t *first, bool max, bson_t *out)
{
   bson_iter_t it;
   int i = 0;
   bson_init (out);
   if (!bson_iter_init (&it, pattern))
      return;
   while (bson_iter_next (&it)) {
      const char *f = bson_iter_key (&it);
      if (i == 0 && first)
         BSON_APPEND_VALUE (out, f, first);
      else if (max && !first)
         BSON_APPEND_MAXKEY (out, f);
      else
         BSON_APPEND_MINKEY (out, f);
      i++;
   }
}

/* The hypothetical map when the candidate is not the collection's key: one chunk per shard, split evenly over the
 * hashed range for a hashed prefix (as shardCollection does) or at the quantiles of the sampled keys. sorted holds
 * the sampled keys in key order. */
static void
advisor_map_even (const bson_t *pattern, const advisor_entry_t *sorted, size_t n, const advisor_cluster_t *cluster,
                  advisor_map_t *m)
{
   bool hashed_first = false;
   size_t ns = cluster->nshards;
   advisor_pattern_hashed (pattern, &hashed_first);
   m->v = SH_ALLOC_ARRAY (advisor_chunk_t, ns);
   m->n = 0;
   m->owned = true;
   if (!ns)
      return;
   for (size_t k = 0; k < ns; k++) {
      advisor_chunk_t *c = &m->v[m->n];
      if (k == 0) {
         advisor_bound (pattern, NULL, false, &c->min);
      } else if (hashed_first) {
         bson_value_t split = { .value_type = BSON_TYPE_INT64 };
         split.value.v_int64 = (int64_t) ((double) INT64_MIN + ((double) k / (double) ns) * 18446744073709551616.0);
         advisor_bound (pattern, &split, false, &c->min);
      } else {
         const bson_t *q;
         if (!n)
            break;
         q = &sorted[k * n / ns].key;
         /* a repeated value cannot be split: skip a boundary equal to the previous one */
         if (m->n && !order_keys (q, &m->v[m->n - 1].min))
            continue;
         bson_copy_to (q, &c->min);
      }
      bson_strncpy (c->shard, cluster->shards[k], sizeof c->shard);
      if (m->n)
         bson_copy_to (&c->min, &m->v[m->n - 1].max);
      m->n++;
   }
   if (m->n)
      advisor_bound (pattern, NULL, true, &m->v[m->n - 1].max);
}

/* The chunk holding key: the last chunk whose min is <= key (binary search); -1 when below every chunk. */
static long
advisor_route (const advisor_map_t *m, const bson_t *key)
{
   size_t lo = 0, hi = m->n;
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (order_keys (&m->v[mid].min, key) <= 0)
         lo = mid + 1;
      else
         hi = mid;
   }
   return (long) lo - 1;
}

static long
advisor_shard_index (const advisor_cluster_t *cluster, const char *shard)
{
   for (size_t i = 0; i < cluster->nshards; i++) {
      if (!strcmp (cluster->shards[i], shard))
         return (long) i;
   }
   return -1;
}

/* ---- query targeting ---- */

/* What a filter says about one key field. Values are shallow copies: their data lives in the filter. */
typedef struct {
   bson_value_t points[ADVISOR_MAX_POINTS];
   size_t npoints;
   bool has_points;
   bson_value_t lo, hi;
   bool has_lo, has_hi;
} advisor_constraint_t;

static bool
advisor_is_operator_doc (const bson_iter_t *it)
{
   bson_iter_t c;
   return BSON_ITER_HOLDS_DOCUMENT (it) && bson_iter_recurse (it, &c) && bson_iter_next (&c) &&
          bson_iter_key (&c)[0] == '$';
}

static void
advisor_set_point (advisor_constraint_t *c, const bson_iter_t *it)
{
   if (c->has_points)
      return;
   c->points[0] = *bson_iter_value ((bson_iter_t *) it);
   c->npoints = 1;
   c->has_points = true;
}

/* The constraint a filter puts on field (top level and inside $and). */
static void
advisor_constraint (const bson_t *filter, const char *field, advisor_constraint_t *c)
{
   bson_iter_t it, ops, arr;
   if (!bson_iter_init (&it, filter))
      return;
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      if (!strcmp (k, "$and") && BSON_ITER_HOLDS_ARRAY (&it) && bson_iter_recurse (&it, &arr)) {
         while (bson_iter_next (&arr)) {
            bson_t sub;
            const uint8_t *data;
            uint32_t len;
            if (!BSON_ITER_HOLDS_DOCUMENT (&arr))
               continue;
            bson_iter_document (&arr, &len, &data);
            if (bson_init_static (&sub, data, len))
               advisor_constraint (&sub, field, c);
         }
         continue;
      }
      if (strcmp (k, field))
         continue;
      if (!advisor_is_operator_doc (&it)) {
         if (!BSON_ITER_HOLDS_ARRAY (&it) && !BSON_ITER_HOLDS_REGEX (&it))
            advisor_set_point (c, &it);
         continue;
      }
      bson_iter_recurse (&it, &ops);
      while (bson_iter_next (&ops)) {
         const char *op = bson_iter_key (&ops);
         if (!strcmp (op, "$eq")) {
            advisor_set_point (c, &ops);
         } else if (!strcmp (op, "$in") && BSON_ITER_HOLDS_ARRAY (&ops) && !c->has_points &&
                    bson_iter_recurse (&ops, &arr)) {
            size_t n = 0;
            bool ok = true;
            while (bson_iter_next (&arr)) {
               if (n == ADVISOR_MAX_POINTS || BSON_ITER_HOLDS_REGEX (&arr)) {
                  ok = false;
                  break;
               }
               c->points[n++] = *bson_iter_value (&arr);
            }
            if (ok && n) {
               c->npoints = n;
               c->has_points = true;
            }
         } else if (!strcmp (op, "$gt") || !strcmp (op, "$gte")) {
            c->lo = *bson_iter_value (&ops);
            c->has_lo = true;
         } else if (!strcmp (op, "$lt") || !strcmp (op, "$lte")) {
            c->hi = *bson_iter_value (&ops);
            c->has_hi = true;
         }
      }
   }
}

typedef enum { ADVISOR_T_SINGLE, ADVISOR_T_MULTI, ADVISOR_T_SCATTER } advisor_target_t;

/* Marks the shards whose chunks overlap [lo, hi]. */
static void
advisor_mark_range (const advisor_map_t *m, const advisor_cluster_t *cluster, const bson_t *lo, const bson_t *hi,
                    bool *hit)
{
   for (size_t i = 0; i < m->n; i++) {
      long s;
      if (order_keys (&m->v[i].max, lo) <= 0 || order_keys (&m->v[i].min, hi) > 0)
         continue;
      s = advisor_shard_index (cluster, m->v[i].shard);
      if (s >= 0)
         hit[s] = true;
   }
}

/* The equality prefixes of one query: up to ADVISOR_MAX_POINTS keys of up to ADVISOR_MAX_FIELDS values. */
typedef bson_value_t advisor_prefix_t[ADVISOR_MAX_FIELDS];

/* How a query with filter would be routed under the candidate and map. */
static advisor_target_t
advisor_target (const bson_t *filter, const bson_t *pattern, const advisor_map_t *m, const advisor_cluster_t *cluster)
{
   advisor_prefix_t *prefix = bson_malloc0 (sizeof *prefix * ADVISOR_MAX_POINTS);
   advisor_prefix_t *next = bson_malloc0 (sizeof *next * ADVISOR_MAX_POINTS);
   advisor_constraint_t *c = bson_malloc0 (sizeof *c);
   size_t nprefix = 1, depth = 0, reached = 0;
   bool *hit = bson_malloc0 (cluster->nshards ? cluster->nshards : 1);
   bool all_points = true, range_at_depth = false;
   bson_value_t lo_v = { .value_type = BSON_TYPE_MINKEY }, hi_v = { .value_type = BSON_TYPE_MAXKEY };
   bson_iter_t it;
   advisor_target_t t = ADVISOR_T_SCATTER;

   if (!bson_iter_init (&it, pattern) || !filter)
      goto done;
   while (bson_iter_next (&it)) {
      memset (c, 0, sizeof *c);
      advisor_constraint (filter, bson_iter_key (&it), c);
      if (c->has_points && nprefix * c->npoints <= ADVISOR_MAX_POINTS) {
         size_t np = 0;
         if (advisor_is_hashed (&it)) {
            for (size_t p = 0; p < c->npoints; p++) {
               int64_t h = hashkey_value (&c->points[p]);
               c->points[p].value_type = BSON_TYPE_INT64;
               c->points[p].value.v_int64 = h;
            }
         }
         for (size_t a = 0; a < nprefix; a++) {
            for (size_t p = 0; p < c->npoints; p++) {
               memcpy (next[np], prefix[a], sizeof prefix[a]);
               next[np][depth] = c->points[p];
               np++;
            }
         }
         memcpy (prefix, next, sizeof next[0] * np);
         nprefix = np;
         depth++;
         continue;
      }
      all_points = false;
      if (!advisor_is_hashed (&it) && (c->has_lo || c->has_hi)) {
         if (c->has_lo)
            lo_v = c->lo;
         if (c->has_hi)
            hi_v = c->hi;
         range_at_depth = true;
      }
      break;
   }
   if (depth == 0 && !range_at_depth)
      goto done; /* nothing on the first field: every shard */

   for (size_t a = 0; a < nprefix; a++) {
      bson_t lo, hi;
      bson_iter_t f;
      size_t i = 0;
      bson_init (&lo);
      bson_init (&hi);
      bson_iter_init (&f, pattern);
      while (bson_iter_next (&f)) {
         const char *name = bson_iter_key (&f);
         if (i < depth) {
            BSON_APPEND_VALUE (&lo, name, &prefix[a][i]);
            BSON_APPEND_VALUE (&hi, name, &prefix[a][i]);
         } else if (i == depth && range_at_depth) {
            BSON_APPEND_VALUE (&lo, name, &lo_v);
            BSON_APPEND_VALUE (&hi, name, &hi_v);
         } else {
            BSON_APPEND_MINKEY (&lo, name);
            BSON_APPEND_MAXKEY (&hi, name);
         }
         i++;
      }
      if (all_points) {
         long ci = advisor_route (m, &lo);
         long s = ci >= 0 ? advisor_shard_index (cluster, m->v[ci].shard) : -1;
         if (s >= 0)
            hit[s] = true;
      } else {
         advisor_mark_range (m, cluster, &lo, &hi, hit);
      }
      bson_destroy (&lo);
      bson_destroy (&hi);
   }
   for (size_t s = 0; s < cluster->nshards; s++)
      reached += hit[s];
   t = reached <= 1 ? ADVISOR_T_SINGLE : ADVISOR_T_MULTI;
done:
   bson_free (hit);
   bson_free (c);
   bson_free (next);
   bson_free (prefix);
   return t;
}

/* ---- analysis ---- */

static void
advisor_result_init (advisor_result_t *r)
{
   memset (r, 0, sizeof *r);
   bson_init (&r->key);
   bson_init (&r->server);
   for (size_t i = 0; i < ADVISOR_MCV; i++)
      bson_init (&r->mcv[i].value);
}

void
advisor_result_destroy (advisor_result_t *r)
{
   if (!r)
      return;
   bson_destroy (&r->key);
   bson_destroy (&r->server);
   for (size_t i = 0; i < ADVISOR_MCV; i++)
      bson_destroy (&r->mcv[i].value);
   bson_free (r->spread);
   r->spread = NULL;
   r->nspread = 0;
}

static size_t
advisor_array_len (const bson_t *array)
{
   return array ? bson_count_keys (array) : 0;
}

/* Extracts the keys of every document of array into e (allocated, n entries); counts missing, arrays and bytes. */
static advisor_entry_t *
advisor_entries (const bson_t *array, const bson_t *pattern, size_t *n, int64_t *missing, int64_t *arrays,
                 int64_t *bytes, bool *all_oid)
{
   size_t cap = advisor_array_len (array), i = 0;
   advisor_entry_t *e = SH_ALLOC_ARRAY (advisor_entry_t, cap);
   bson_iter_t it, idit;
   *all_oid = cap > 0;
   if (cap && bson_iter_init (&it, array)) {
      while (bson_iter_next (&it) && i < cap) {
         bson_t doc;
         const uint8_t *data;
         uint32_t len;
         bool miss = false, arr = false;
         if (!BSON_ITER_HOLDS_DOCUMENT (&it))
            continue;
         bson_iter_document (&it, &len, &data);
         if (!bson_init_static (&doc, data, len))
            continue;
         advisor_extract (&doc, pattern, false, &e[i].key, &miss, &arr);
         e[i].idx = i;
         if (bson_iter_init_find (&idit, &doc, "_id") && BSON_ITER_HOLDS_OID (&idit))
            bson_oid_copy (bson_iter_oid (&idit), &e[i].oid);
         else
            *all_oid = false;
         *missing += miss;
         *arrays += arr;
         *bytes += len;
         i++;
      }
   }
   *n = i;
   if (!i)
      *all_oid = false;
   return e;
}

static void
advisor_entries_free (advisor_entry_t *e, size_t n)
{
   for (size_t i = 0; i < n; i++)
      bson_destroy (&e[i].key);
   bson_free (e);
}

/* The document at position idx of an array document, borrowed. */
static bool
advisor_array_doc (const bson_t *array, size_t idx, bson_t *out)
{
   bson_iter_t it;
   size_t i = 0;
   if (!bson_iter_init (&it, array))
      return false;
   while (bson_iter_next (&it)) {
      if (!BSON_ITER_HOLDS_DOCUMENT (&it))
         continue;
      if (i++ == idx) {
         const uint8_t *data;
         uint32_t len;
         bson_iter_document (&it, &len, &data);
         return bson_init_static (out, data, len);
      }
   }
   return false;
}

static void
advisor_frequency (advisor_result_t *r, const advisor_entry_t *sorted, size_t n, const advisor_sample_t *sample,
                   const advisor_limits_t *limits, int64_t chunk_bytes)
{
   int64_t f1 = 0, f2 = 0, d = 0;
   size_t top_start[ADVISOR_MCV];
   int64_t top_count[ADVISOR_MCV];
   size_t ntop = 0;

   for (size_t i = 0; i < n;) {
      size_t j = i;
      int64_t cnt;
      while (j + 1 < n && !order_keys (&sorted[j + 1].key, &sorted[i].key))
         j++;
      cnt = (int64_t) (j - i + 1);
      d++;
      f1 += cnt == 1;
      f2 += cnt == 2;
      /* keep the ADVISOR_MCV largest runs, largest first (first seen wins ties) */
      if (ntop < ADVISOR_MCV || cnt > top_count[ntop - 1]) {
         size_t pos = ntop < ADVISOR_MCV ? ntop++ : ntop - 1;
         while (pos > 0 && top_count[pos - 1] < cnt) {
            top_count[pos] = top_count[pos - 1];
            top_start[pos] = top_start[pos - 1];
            pos--;
         }
         top_count[pos] = cnt;
         top_start[pos] = i;
      }
      i = j + 1;
   }
   r->distinct_sampled = d;
   r->all_unique = n > 0 && d == (int64_t) n;
   if (sample->total_docs > 0 && (int64_t) n >= sample->total_docs) {
      r->distinct_estimated = d; /* the whole collection was read */
   } else if (r->all_unique) {
      r->distinct_estimated = sample->total_docs > (int64_t) n ? sample->total_docs : (int64_t) n;
   } else {
      /* Chao1, bias-corrected: the values seen once tell how many were never seen */
      double est = (double) d + (double) f1 * (double) (f1 - 1) / (2.0 * (double) (f2 + 1));
      if (sample->total_docs > 0 && est > (double) sample->total_docs)
         est = (double) sample->total_docs;
      r->distinct_estimated = ck_from_double (est);
      if (r->distinct_estimated < d)
         r->distinct_estimated = d;
   }

   r->nmcv = ntop;
   for (size_t k = 0; k < ntop; k++) {
      bson_t doc;
      r->mcv[k].count = top_count[k];
      r->mcv[k].share = (double) top_count[k] / (double) n;
      bson_destroy (&r->mcv[k].value);
      if (advisor_array_doc (sample->docs, sorted[top_start[k]].idx, &doc))
         advisor_extract (&doc, &r->key, true, &r->mcv[k].value, NULL, NULL);
      else
         bson_init (&r->mcv[k].value);
      if (r->mcv[k].share >= limits->hot_share && top_count[k] > 1) {
         r->nhot++;
         r->hot_share += r->mcv[k].share;
      }
   }
   if (ntop && top_count[0] > 1 && r->avg_doc_bytes > 0) {
      double per_doc_of_top = r->mcv[0].share * (double) r->avg_doc_bytes;
      r->jumbo_at_docs = (int64_t) ceil ((double) chunk_bytes / per_doc_of_top);
   }
}

static void
advisor_monotonicity (advisor_result_t *r, advisor_entry_t *e, size_t n, const advisor_sample_t *sample,
                      const advisor_limits_t *limits, bool all_oid, advisor_entry_t **recent, size_t *nrecent)
{
   *recent = NULL;
   *nrecent = 0;
   if (all_oid && n >= 3) {
      qsort (e, n, sizeof *e, advisor_entry_oid_cmp);
      for (size_t i = 0; i < n; i++)
         e[i].order = (double) i;
      r->order = ADVISOR_ORDER_OBJECTID;
      r->correlation = advisor_spearman (e, n);
   } else if (sample->recent && advisor_array_len (sample->recent) >= 3) {
      int64_t miss = 0, arr = 0, bytes = 0;
      bool oid;
      advisor_entry_t *re = advisor_entries (sample->recent, &r->key, nrecent, &miss, &arr, &bytes, &oid);
      for (size_t i = 0; i < *nrecent; i++)
         re[i].order = (double) re[i].idx;
      r->order = ADVISOR_ORDER_NATURAL;
      r->correlation = advisor_spearman (re, *nrecent);
      *recent = re;
   }
   if (r->order == ADVISOR_ORDER_NONE)
      r->mono = ADVISOR_MONO_UNKNOWN;
   else if (r->correlation >= limits->monotonic)
      r->mono = ADVISOR_MONO_ASCENDING;
   else if (r->correlation <= -limits->monotonic)
      r->mono = ADVISOR_MONO_DESCENDING;
   else
      r->mono = ADVISOR_MONO_NOT;
}

/* The next inserts: a monotonic key sends all of them beyond the newest (or below the oldest) value; otherwise
 * they follow the newest quarter of the sample (the whole sample when the insertion order is unknown). */
static void
advisor_spread (advisor_result_t *r, advisor_entry_t *e, size_t n, advisor_entry_t *recent, size_t nrecent,
                const advisor_map_t *m, const advisor_cluster_t *cluster, const advisor_limits_t *limits)
{
   size_t ns = cluster->nshards;
   double *counts, total = 0;
   if (!ns || !m->n || !n)
      return;
   counts = bson_malloc0 (sizeof *counts * ns);
   r->spread = bson_malloc0 (sizeof *r->spread * ns);
   r->nspread = ns;
   if (r->mono == ADVISOR_MONO_ASCENDING || r->mono == ADVISOR_MONO_DESCENDING) {
      /* e is sorted by key here */
      const bson_t *edge = r->mono == ADVISOR_MONO_ASCENDING ? &e[n - 1].key : &e[0].key;
      long ci = advisor_route (m, edge);
      long s = ci >= 0 ? advisor_shard_index (cluster, m->v[ci].shard) : -1;
      r->spread_extrapolated = true;
      if (s >= 0) {
         counts[s] = 1;
         total = 1;
      }
   } else {
      advisor_entry_t *src = recent ? recent : e;
      size_t nsrc = recent ? nrecent : n, from = 0;
      if (r->order != ADVISOR_ORDER_NONE) {
         qsort (src, nsrc, sizeof *src, advisor_entry_order_cmp);
         from = nsrc - (nsrc / 4 ? nsrc / 4 : nsrc);
      }
      for (size_t i = from; i < nsrc; i++) {
         long ci = advisor_route (m, &src[i].key);
         long s = ci >= 0 ? advisor_shard_index (cluster, m->v[ci].shard) : -1;
         if (s >= 0) {
            counts[s]++;
            total++;
         }
      }
   }
   for (size_t s = 0; s < ns; s++) {
      bson_strncpy (r->spread[s].shard, cluster->shards[s], sizeof r->spread[s].shard);
      r->spread[s].share = total > 0 ? counts[s] / total : 0;
      r->shards_reached += r->spread[s].share > 0;
      if (r->spread[s].share > r->max_shard_share)
         r->max_shard_share = r->spread[s].share;
   }
   if (ns > 1 && r->max_shard_share > limits->skew / (double) ns)
      r->findings |= ADVISOR_F_WRITE_SKEW;
   bson_free (counts);
}

static void
advisor_queries (advisor_result_t *r, const advisor_sample_t *sample, const advisor_map_t *m,
                 const advisor_cluster_t *cluster)
{
   bson_iter_t it, f;
   int64_t rc[3] = { 0, 0, 0 }, wc[3] = { 0, 0, 0 };
   if (!sample->queries || !m->n || !bson_iter_init (&it, sample->queries))
      return;
   while (bson_iter_next (&it)) {
      bson_t q, filter;
      const uint8_t *data;
      uint32_t len;
      bool write = false, has_filter = false;
      advisor_target_t t;
      if (!BSON_ITER_HOLDS_DOCUMENT (&it))
         continue;
      bson_iter_document (&it, &len, &data);
      if (!bson_init_static (&q, data, len))
         continue;
      if (bson_iter_init_find (&f, &q, "write"))
         write = bson_iter_as_bool (&f);
      if (bson_iter_init_find (&f, &q, "filter") && BSON_ITER_HOLDS_DOCUMENT (&f)) {
         bson_iter_document (&f, &len, &data);
         has_filter = bson_init_static (&filter, data, len);
      }
      t = advisor_target (has_filter ? &filter : NULL, &r->key, m, cluster);
      (write ? wc : rc)[t]++;
   }
   r->reads = rc[0] + rc[1] + rc[2];
   r->writes = wc[0] + wc[1] + wc[2];
   if (r->reads) {
      r->read_single = 100.0 * (double) rc[0] / (double) r->reads;
      r->read_multi = 100.0 * (double) rc[1] / (double) r->reads;
      r->read_scatter = 100.0 * (double) rc[2] / (double) r->reads;
   }
   if (r->writes) {
      r->write_single = 100.0 * (double) wc[0] / (double) r->writes;
      r->write_multi = 100.0 * (double) wc[1] / (double) r->writes;
      r->write_scatter = 100.0 * (double) wc[2] / (double) r->writes;
   }
   if (r->reads + r->writes > 0 && (double) (rc[2] + wc[2]) / (double) (r->reads + r->writes) >= 0.5 &&
       cluster->nshards > 1)
      r->findings |= ADVISOR_F_SCATTER;
}

bool
advisor_analyze (const advisor_sample_t *sample, const bson_t *key, const char *origin,
                 const advisor_cluster_t *cluster, const advisor_limits_t *limits, advisor_result_t *out, char *why,
                 size_t why_len)
{
   advisor_entry_t *e = NULL, *recent = NULL;
   size_t n = 0, nrecent = 0;
   int64_t bytes = 0;
   bool all_oid = false, ok = false;
   advisor_map_t map = { .v = NULL };
   int64_t chunk_bytes = cluster->chunk_bytes > 0 ? cluster->chunk_bytes : ADVISOR_DEFAULT_CHUNK;

   advisor_result_init (out);
   if (!advisor_key_valid (key, why, why_len))
      goto done;
   bson_concat (&out->key, key);
   bson_strncpy (out->origin, origin ? origin : "given", sizeof out->origin);
   out->hashed = advisor_pattern_hashed (key, NULL);
   if (out->hashed)
      out->findings |= ADVISOR_F_HASHED_RANGES;

   e = advisor_entries (sample->docs, key, &n, &out->missing, &out->arrays, &bytes, &all_oid);
   out->sampled = (int64_t) n;
   ok = true;
   if (!n) {
      out->findings |= ADVISOR_F_NO_SAMPLE;
      goto done;
   }
   out->avg_doc_bytes = bytes / (int64_t) n;
   if (out->arrays)
      out->findings |= ADVISOR_F_ARRAY;
   if (out->missing)
      out->findings |= ADVISOR_F_MISSING;

   /* cardinality and frequency, from the keys in key order */
   qsort (e, n, sizeof *e, advisor_entry_key_cmp);
   advisor_frequency (out, e, n, sample, limits, chunk_bytes);
   if (cluster->nshards > 1 && out->distinct_estimated < (int64_t) cluster->nshards)
      out->findings |= ADVISOR_F_FEWER_THAN_SHARDS;
   /* few values, each seen again and again: the sample has met (nearly) all of them */
   if (out->distinct_estimated <= limits->low_cardinality && (double) n >= 2.0 * (double) out->distinct_sampled)
      out->findings |= ADVISOR_F_LOW_CARDINALITY;
   if (out->nhot)
      out->findings |= ADVISOR_F_HOT_VALUES;
   if (out->jumbo_at_docs && sample->total_docs >= out->jumbo_at_docs)
      out->findings |= ADVISOR_F_JUMBO_NOW;

   /* the chunk map: the collection's own when the candidate is its key, else an even split (e is in key order) */
   if (cluster->key && cluster->nchunks && advisor_same_pattern (cluster->key, key)) {
      map.v = (advisor_chunk_t *) cluster->chunks;
      map.n = cluster->nchunks;
      map.owned = false;
      out->spread_actual = true;
   } else {
      advisor_map_even (key, e, n, cluster, &map);
   }

   advisor_monotonicity (out, e, n, sample, limits, all_oid, &recent, &nrecent);
   if (out->mono == ADVISOR_MONO_ASCENDING || out->mono == ADVISOR_MONO_DESCENDING)
      out->findings |= ADVISOR_F_MONOTONIC;
   qsort (e, n, sizeof *e, advisor_entry_key_cmp);
   advisor_spread (out, e, n, recent, nrecent, &map, cluster, limits);
   advisor_queries (out, sample, &map, cluster);
done:
   advisor_map_destroy (&map);
   advisor_entries_free (recent, nrecent);
   advisor_entries_free (e, n);
   return ok;
}
