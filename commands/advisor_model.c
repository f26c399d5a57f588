/* The shard-key advisor's analysis: from a bounded sample of documents, one candidate key, the chunk map and the
 * shards, the figures the seed documents ask about (cardinality, frequency, monotonicity), where the next inserts
 * would land, how sampled queries would be targeted, and a verdict in plain words. Pure: no I/O, no globals. */
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

#define ADVISOR_MAX_FIELDS 16 /* key fields analysed */
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

/* ---- key patterns ---- */

static bool
advisor_is_hashed (const bson_iter_t *it)
{
   return BSON_ITER_HOLDS_UTF8 (it) && !strcmp (bson_iter_utf8 (it, NULL), "hashed");
}

static bool
advisor_is_one (const bson_iter_t *it)
{
   return BSON_ITER_HOLDS_NUMBER (it) && bson_iter_as_double (it) == 1.0;
}

bool
advisor_key_valid (const bson_t *pattern, char *why, size_t why_len)
{
   bson_iter_t it;
   int fields = 0, hashed = 0;
   if (!pattern || !bson_iter_init (&it, pattern)) {
      bson_snprintf (why, why_len, "the key is not a document");
      return false;
   }
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      if (!*k || k[0] == '$') {
         bson_snprintf (why, why_len, "'%s' cannot be a shard key field", k);
         return false;
      }
      if (advisor_is_hashed (&it)) {
         hashed++;
      } else if (!advisor_is_one (&it)) {
         bson_snprintf (why, why_len, "shard key field '%s' must be 1 or \"hashed\"", k);
         return false;
      }
      fields++;
   }
   if (!fields || fields > ADVISOR_MAX_FIELDS) {
      bson_snprintf (why, why_len, fields ? "a shard key has at most %d fields" : "the key has no fields",
                     ADVISOR_MAX_FIELDS);
      return false;
   }
   if (hashed > 1) {
      bson_snprintf (why, why_len, "a shard key has at most one hashed field");
      return false;
   }
   return true;
}

bool
advisor_key_from_index (const bson_t *index_key, bson_t *out)
{
   bson_iter_t it;
   int hashed = 0, fields = 0;
   bool ok = false;
   bson_init (out);
   if (!bson_iter_init (&it, index_key))
      goto done;
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      if (!*k || k[0] == '$' || strstr (k, "$**"))
         goto done;
      if (advisor_is_hashed (&it)) {
         hashed++;
         BSON_APPEND_UTF8 (out, k, "hashed");
      } else if (advisor_is_one (&it)) {
         BSON_APPEND_INT32 (out, k, 1);
      } else {
         goto done; /* descending, text, 2d, 2dsphere, … */
      }
      fields++;
   }
   ok = fields && fields <= ADVISOR_MAX_FIELDS && hashed <= 1;
done:
   if (!ok)
      bson_reinit (out);
   return ok;
}

/* Same fields in the same order, hashed in the same place. */
static bool
advisor_same_pattern (const bson_t *a, const bson_t *b)
{
   bson_iter_t ia, ib;
   if (!bson_iter_init (&ia, a) || !bson_iter_init (&ib, b))
      return false;
   for (;;) {
      bool na = bson_iter_next (&ia), nb = bson_iter_next (&ib);
      if (!na || !nb)
         return na == nb;
      if (strcmp (bson_iter_key (&ia), bson_iter_key (&ib)) || advisor_is_hashed (&ia) != advisor_is_hashed (&ib))
         return false;
   }
}

static int
advisor_field_count (const bson_t *pattern)
{
   return (int) bson_count_keys (pattern);
}

/* The first field's name (borrowed from pattern), or "". */
static const char *
advisor_first_field (const bson_t *pattern)
{
   bson_iter_t it;
   if (bson_iter_init (&it, pattern) && bson_iter_next (&it))
      return bson_iter_key (&it);
   return "";
}

static bool
advisor_pattern_hashed (const bson_t *pattern, bool *first)
{
   bson_iter_t it;
   bool any = false, at_first = false;
   int i = 0;
   if (bson_iter_init (&it, pattern)) {
      while (bson_iter_next (&it)) {
         if (advisor_is_hashed (&it)) {
            any = true;
            at_first = i == 0;
         }
         i++;
      }
   }
   if (first)
      *first = at_first;
   return any;
}

char *
advisor_key_string (const bson_t *key)
{
   bson_string_t *s = bson_string_new ("{");
   bson_iter_t it;
   bool first = true;
   if (bson_iter_init (&it, key)) {
      while (bson_iter_next (&it)) {
         bson_string_append_printf (s, "%s%s: ", first ? "" : ", ", bson_iter_key (&it));
         if (advisor_is_hashed (&it))
            bson_string_append (s, "\"hashed\"");
         else if (BSON_ITER_HOLDS_NUMBER (&it))
            bson_string_append_printf (s, "%g", bson_iter_as_double (&it));
         else
            bson_string_append (s, "?");
         first = false;
      }
   }
   bson_string_append (s, "}");
   return bson_string_free (s, false);
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
      r->distinct_estimated = (int64_t) llround (est);
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

/* ---- variants, ranking and verdicts ---- */

static bool
advisor_single_range (const advisor_result_t *r)
{
   return advisor_field_count (&r->key) == 1 && !r->hashed && r->sampled > 0 && !r->arrays;
}

/* A coarse prefix for { coarse: 1, field: 1 }: a non-monotonic field that repeats (not unique), the most distinct
 * values first, then the lowest top share. NULL when none. */
static const char *
advisor_pick_coarse (const advisor_result_t *v, size_t n, const char *exclude)
{
   const advisor_result_t *best = NULL;
   for (size_t i = 0; i < n; i++) {
      const advisor_result_t *r = &v[i];
      if (!advisor_single_range (r) || !strcmp (advisor_first_field (&r->key), exclude) ||
          r->mono == ADVISOR_MONO_ASCENDING || r->mono == ADVISOR_MONO_DESCENDING || r->all_unique ||
          r->distinct_estimated < 2)
         continue;
      if (!best || r->distinct_estimated > best->distinct_estimated ||
          (r->distinct_estimated == best->distinct_estimated && r->nmcv && best->nmcv &&
           r->mcv[0].share < best->mcv[0].share))
         best = r;
   }
   return best ? advisor_first_field (&best->key) : NULL;
}

/* A fine suffix for { field: 1, fine: 1 }: an ascending field (one growing stack per coarse value, as the seeds'
 * multi-hotspot), else a unique one, the most distinct values first; else _id. */
static const char *
advisor_pick_fine (const advisor_result_t *v, size_t n, const char *exclude)
{
   const advisor_result_t *best = NULL;
   int best_class = 0;
   for (size_t i = 0; i < n; i++) {
      const advisor_result_t *r = &v[i];
      int cls;
      if (!advisor_single_range (r) || !strcmp (advisor_first_field (&r->key), exclude))
         continue;
      cls = r->mono == ADVISOR_MONO_ASCENDING ? 2 : r->all_unique ? 1 : 0;
      if (!cls)
         continue;
      if (!best || cls > best_class || (cls == best_class && r->distinct_estimated > best->distinct_estimated)) {
         best = r;
         best_class = cls;
      }
   }
   if (best)
      return advisor_first_field (&best->key);
   return strcmp (exclude, "_id") ? "_id" : NULL;
}

static bool
advisor_known (const advisor_result_t *v, size_t n, const bson_t *keys, size_t nkeys, const bson_t *key)
{
   for (size_t i = 0; i < n; i++) {
      if (advisor_same_pattern (&v[i].key, key))
         return true;
   }
   for (size_t i = 0; i < nkeys; i++) {
      if (advisor_same_pattern (&keys[i], key))
         return true;
   }
   return false;
}

/* Appends key to keys unless known; takes ownership of key either way. */
static size_t
advisor_add_variant (const advisor_result_t *v, size_t n, bson_t *keys, char (*origins)[128], size_t nkeys, size_t max,
                     bson_t *key, const char *what, const bson_t *of)
{
   char *of_s;
   if (nkeys >= max || advisor_known (v, n, keys, nkeys, key)) {
      bson_destroy (key);
      return nkeys;
   }
   of_s = advisor_key_string (of);
   bson_init (&keys[nkeys]);
   bson_concat (&keys[nkeys], key);
   bson_snprintf (origins[nkeys], sizeof origins[nkeys], "%s of %s", what, of_s);
   bson_free (of_s);
   bson_destroy (key);
   return nkeys + 1;
}

size_t
advisor_variants (const advisor_result_t *results, size_t n, bson_t *keys, char (*origins)[128], size_t max)
{
   size_t nkeys = 0;
   for (size_t i = 0; i < n; i++) {
      const advisor_result_t *r = &results[i];
      const char *f, *other;
      bson_t k;
      if (!advisor_single_range (r))
         continue;
      f = advisor_first_field (&r->key);
      if (r->findings & ADVISOR_F_MONOTONIC) {
         bson_init (&k);
         BSON_APPEND_UTF8 (&k, f, "hashed");
         nkeys = advisor_add_variant (results, n, keys, origins, nkeys, max, &k, "hashed variant", &r->key);
         if ((other = advisor_pick_coarse (results, n, f))) {
            bson_init (&k);
            BSON_APPEND_INT32 (&k, other, 1);
            BSON_APPEND_INT32 (&k, f, 1);
            nkeys = advisor_add_variant (results, n, keys, origins, nkeys, max, &k, "compound variant", &r->key);
         }
      }
      if ((r->findings & (ADVISOR_F_LOW_CARDINALITY | ADVISOR_F_HOT_VALUES)) &&
          (other = advisor_pick_fine (results, n, f))) {
         bson_init (&k);
         BSON_APPEND_INT32 (&k, f, 1);
         BSON_APPEND_INT32 (&k, other, 1);
         nkeys = advisor_add_variant (results, n, keys, origins, nkeys, max, &k, "compound variant", &r->key);
      }
   }
   return nkeys;
}

const char *
advisor_count_string (int64_t v, char *buf, size_t len)
{
   char tmp[32];
   size_t n, o = 0;
   bson_snprintf (tmp, sizeof tmp, "%" PRId64, v < 0 ? -v : v);
   n = strlen (tmp);
   if (v < 0 && o + 1 < len)
      buf[o++] = '-';
   for (size_t i = 0; i < n && o + 2 < len; i++) {
      if (i && (n - i) % 3 == 0)
         buf[o++] = ',';
      buf[o++] = tmp[i];
   }
   buf[o] = '\0';
   return buf;
}

static void
advisor_part (bson_string_t *s, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));

static void
advisor_part (bson_string_t *s, const char *fmt, ...)
{
   va_list ap;
   char *p;
   va_start (ap, fmt);
   p = bson_strdupv_printf (fmt, ap);
   va_end (ap);
   if (s->len)
      bson_string_append (s, "; ");
   bson_string_append (s, p);
   bson_free (p);
}

/* {f: 1, fine: 1} for a single-field candidate, as text; NULL when no fine field is known. */
static char *
advisor_compound_text (const char *first, const char *second)
{
   bson_t k = BSON_INITIALIZER;
   char *s;
   BSON_APPEND_INT32 (&k, first, 1);
   BSON_APPEND_INT32 (&k, second, 1);
   s = advisor_key_string (&k);
   bson_destroy (&k);
   return s;
}

static void
advisor_verdict (advisor_result_t *r, const advisor_result_t *all, size_t n, size_t nshards,
                 const advisor_limits_t *limits)
{
   bson_string_t *s = bson_string_new (NULL);
   char a[32], b[32];
   bool single = advisor_field_count (&r->key) == 1 && !r->hashed;
   const char *f = advisor_first_field (&r->key);
   int score = 100;
   bool suggested_fine = false;

   if (r->findings & ADVISOR_F_NO_SAMPLE) {
      advisor_part (s, "no documents sampled: the collection is empty or missing, nothing to measure");
      score = 0;
      goto done;
   }
   if (r->findings & ADVISOR_F_ARRAY) {
      advisor_part (s, "arrays in %s: a shard key cannot hold arrays (sh.shardCollection fails)", f);
      score = 0;
      goto done;
   }
   if (r->findings & ADVISOR_F_MONOTONIC) {
      bool asc = r->mono == ADVISOR_MONO_ASCENDING;
      const char *coarse = single ? advisor_pick_coarse (all, n, f) : NULL;
      advisor_part (s, "%s: every insert goes to the %s chunk on one shard", asc ? "ascending" : "descending",
                    asc ? "MaxKey" : "MinKey");
      if (single) {
         bson_string_append_printf (s, "; consider {%s: \"hashed\"}", f);
         if (coarse) {
            char *c = advisor_compound_text (coarse, f);
            bson_string_append_printf (s, ", or %s", c);
            bson_free (c);
         }
      }
      score -= 45;
   }
   if (r->findings & (ADVISOR_F_LOW_CARDINALITY | ADVISOR_F_FEWER_THAN_SHARDS)) {
      const char *fine = single ? advisor_pick_fine (all, n, f) : NULL;
      if (r->distinct_estimated == r->distinct_sampled)
         advisor_part (s, "%s distinct value%s: at most %s chunk%s",
                       advisor_count_string (r->distinct_sampled, a, sizeof a), r->distinct_sampled == 1 ? "" : "s", a,
                       r->distinct_sampled == 1 ? "" : "s");
      else
         advisor_part (s, "about %s distinct values (%s seen): at most about %s chunks",
                       advisor_count_string (r->distinct_estimated, a, sizeof a),
                       advisor_count_string (r->distinct_sampled, b, sizeof b), a);
      if (r->findings & ADVISOR_F_FEWER_THAN_SHARDS)
         bson_string_append_printf (s, ", fewer than the %zu shards: adding shards will not help", nshards);
      else
         bson_string_append (s, ", adding shards will not help");
      if (fine) {
         char *c = advisor_compound_text (f, fine);
         bson_string_append_printf (s, "; consider %s", c);
         bson_free (c);
         suggested_fine = true;
      }
      score -= (r->findings & ADVISOR_F_FEWER_THAN_SHARDS) ? 60 : 40;
   }
   if (r->findings & ADVISOR_F_HOT_VALUES) {
      const char *fine = single && !suggested_fine ? advisor_pick_fine (all, n, f) : NULL;
      if (r->nhot == 1)
         advisor_part (s, "the most common value holds %.0f%% of documents: its chunk will %s jumbo",
                       100.0 * r->hot_share, (r->findings & ADVISOR_F_JUMBO_NOW) ? "already be" : "become");
      else
         advisor_part (s, "the top %zu values hold %.0f%% of documents: their chunks will %s jumbo", r->nhot,
                       100.0 * r->hot_share, (r->findings & ADVISOR_F_JUMBO_NOW) ? "already be" : "become");
      if (r->jumbo_at_docs && !(r->findings & ADVISOR_F_JUMBO_NOW))
         bson_string_append_printf (s, " (from about %s documents)",
                                    advisor_count_string (r->jumbo_at_docs, a, sizeof a));
      if (fine) {
         char *c = advisor_compound_text (f, fine);
         bson_string_append_printf (s, "; consider %s", c);
         bson_free (c);
      }
      score -= (r->findings & ADVISOR_F_JUMBO_NOW) ? 35 : 25;
   }
   if ((r->findings & ADVISOR_F_WRITE_SKEW) && !(r->findings & ADVISOR_F_MONOTONIC)) {
      size_t top = 0;
      for (size_t i = 1; i < r->nspread; i++) {
         if (r->spread[i].share > r->spread[top].share)
            top = i;
      }
      advisor_part (s, "next inserts concentrate on %s (%.0f%%)", r->nspread ? r->spread[top].shard : "one shard",
                    100.0 * r->max_shard_share);
      score -= 20;
   }
   if (r->findings & ADVISOR_F_SCATTER) {
      double q = (double) (r->reads + r->writes);
      double sc = (r->read_scatter * (double) r->reads + r->write_scatter * (double) r->writes) / q;
      advisor_part (s, "%.0f%% of sampled queries would go to every shard: they do not name %s", sc, f);
      score -= (int) lround (0.3 * sc);
   }
   if (r->findings & ADVISOR_F_MISSING) {
      double m = 100.0 * (double) r->missing / (double) r->sampled;
      if (m >= 1.0) {
         advisor_part (s, "%.0f%% of documents lack the key (they share one null value)", m);
         score -= 5;
      }
   }
   if (score == 100) {
      bson_string_t *g = bson_string_new ("good: ");
      if (r->all_unique)
         bson_string_append_printf (g, "every sampled value distinct (up to %s chunks)",
                                    advisor_count_string (r->distinct_estimated, a, sizeof a));
      else
         bson_string_append_printf (g, "about %s distinct values (up to that many chunks)",
                                    advisor_count_string (r->distinct_estimated, a, sizeof a));
      bson_string_append_printf (g, ", no value above %.0f%%", 100.0 * limits->hot_share);
      if (r->mono == ADVISOR_MONO_NOT)
         bson_string_append (g, ", not monotonic");
      if (r->nspread > 1)
         bson_string_append_printf (g, ", next inserts spread over %d of %zu shards", r->shards_reached, r->nspread);
      bson_string_append (g, s->str);
      bson_string_free (s, true);
      s = g;
   }
   if (r->mono == ADVISOR_MONO_UNKNOWN)
      advisor_part (s, "insertion order unknown (no ObjectId _id, no natural order): monotonicity not measured");
   if (r->findings & ADVISOR_F_HASHED_RANGES) {
      advisor_part (s, "hashed: range queries on %s go to every shard", f);
      score -= 1;
   }
done:
   r->score = score < 0 ? 0 : score;
   bson_strncpy (r->verdict, s->str, sizeof r->verdict);
   bson_string_free (s, true);
}

void
advisor_rank (advisor_result_t *results, size_t n, size_t nshards, const advisor_limits_t *limits)
{
   for (size_t i = 0; i < n; i++)
      advisor_verdict (&results[i], results, n, nshards, limits);
   /* stable insertion sort: best score first, then more distinct values, then the original order */
   for (size_t i = 1; i < n; i++) {
      advisor_result_t tmp = results[i];
      size_t j = i;
      while (j > 0 &&
             (results[j - 1].score < tmp.score ||
              (results[j - 1].score == tmp.score && results[j - 1].distinct_estimated < tmp.distinct_estimated))) {
         results[j] = results[j - 1];
         j--;
      }
      results[j] = tmp;
   }
}

/* ---- the server's figures beside shardsh's ---- */

static bool
advisor_sub (const bson_t *doc, const char *path, bson_iter_t *it)
{
   bson_iter_t root;
   return doc && bson_iter_init (&root, doc) && bson_iter_find_descendant (&root, path, it);
}

static double
advisor_num (const bson_t *doc, const char *path, double dflt)
{
   bson_iter_t it;
   return advisor_sub (doc, path, &it) && BSON_ITER_HOLDS_NUMBER (&it) ? bson_iter_as_double (&it) : dflt;
}

static const char *
advisor_mono_name (advisor_mono_t m)
{
   switch (m) {
   case ADVISOR_MONO_ASCENDING:
   case ADVISOR_MONO_DESCENDING:
      return "monotonic";
   case ADVISOR_MONO_NOT:
      return "not monotonic";
   case ADVISOR_MONO_UNKNOWN:
   default:
      return "unknown";
   }
}

void
advisor_attach_server (advisor_result_t *r, const bson_t *reply, const char *error)
{
   bson_string_t *diff = bson_string_new (NULL);
   bson_iter_t it, mcv;
   double srv_sampled, srv_total, srv_distinct, srv_top = -1, srv_corr;
   double srv_reads, srv_writes;
   const char *srv_mono = "unknown";
   char a[32], b[32], c[32], d[32], e[32];

   r->has_server = true;
   bson_reinit (&r->server);
   if (error || !reply) {
      BSON_APPEND_UTF8 (&r->server, "error", error ? error : "no reply");
      bson_snprintf (r->server_note, sizeof r->server_note, "the server's analyzeShardKey failed: %s",
                     error ? error : "no reply");
      goto done;
   }
   srv_total = advisor_num (reply, "keyCharacteristics.numDocsTotal", -1);
   srv_sampled = advisor_num (reply, "keyCharacteristics.numDocsSampled", -1);
   srv_distinct = advisor_num (reply, "keyCharacteristics.numDistinctValues", -1);
   srv_corr = advisor_num (reply, "keyCharacteristics.monotonicity.recordIdCorrelationCoefficient", 0);
   if (advisor_sub (reply, "keyCharacteristics.monotonicity.type", &it) && BSON_ITER_HOLDS_UTF8 (&it))
      srv_mono = bson_iter_utf8 (&it, NULL);
   if (advisor_sub (reply, "keyCharacteristics.mostCommonValues", &it) && BSON_ITER_HOLDS_ARRAY (&it) &&
       bson_iter_recurse (&it, &mcv) && bson_iter_next (&mcv) && BSON_ITER_HOLDS_DOCUMENT (&mcv)) {
      bson_iter_t f;
      if (bson_iter_recurse (&mcv, &f) && bson_iter_find (&f, "frequency") && BSON_ITER_HOLDS_NUMBER (&f) &&
          srv_sampled > 0)
         srv_top = bson_iter_as_double (&f) / srv_sampled;
   }
   srv_reads = advisor_num (reply, "readDistribution.sampleSize.total", 0);
   srv_writes = advisor_num (reply, "writeDistribution.sampleSize.total", 0);

   BSON_APPEND_INT64 (&r->server, "numDocsTotal", (int64_t) srv_total);
   BSON_APPEND_INT64 (&r->server, "numDocsSampled", (int64_t) srv_sampled);
   BSON_APPEND_INT64 (&r->server, "numDistinctValues", (int64_t) srv_distinct);
   if (srv_top >= 0)
      BSON_APPEND_DOUBLE (&r->server, "topShare", srv_top);
   BSON_APPEND_UTF8 (&r->server, "monotonicity", srv_mono);
   BSON_APPEND_DOUBLE (&r->server, "correlation", srv_corr);
   BSON_APPEND_INT64 (&r->server, "sampledReads", (int64_t) srv_reads);
   BSON_APPEND_INT64 (&r->server, "sampledWrites", (int64_t) srv_writes);
   if (srv_reads > 0) {
      BSON_APPEND_DOUBLE (&r->server, "readSingleShard",
                          advisor_num (reply, "readDistribution.percentageOfSingleShardReads", 0));
      BSON_APPEND_DOUBLE (&r->server, "readMultiShard",
                          advisor_num (reply, "readDistribution.percentageOfMultiShardReads", 0));
      BSON_APPEND_DOUBLE (&r->server, "readScatterGather",
                          advisor_num (reply, "readDistribution.percentageOfScatterGatherReads", 0));
   }
   if (srv_writes > 0) {
      BSON_APPEND_DOUBLE (&r->server, "writeSingleShard",
                          advisor_num (reply, "writeDistribution.percentageOfSingleShardWrites", 0));
      BSON_APPEND_DOUBLE (&r->server, "writeMultiShard",
                          advisor_num (reply, "writeDistribution.percentageOfMultiShardWrites", 0));
      BSON_APPEND_DOUBLE (&r->server, "writeScatterGather",
                          advisor_num (reply, "writeDistribution.percentageOfScatterGatherWrites", 0));
   }

   /* cardinality: the server counts exactly over its own sample; shardsh estimates the whole from its sample */
   if (srv_distinct >= 0) {
      double ours = (double) r->distinct_estimated;
      bool exact = srv_total > 0 && srv_sampled >= srv_total;
      double ratio = ours > 0 ? srv_distinct / ours : 0;
      double ratio_seen = r->distinct_sampled > 0 ? srv_distinct / (double) r->distinct_sampled : 0;
      if (!(ratio >= 0.5 && ratio <= 2.0) &&
          !(!exact && srv_sampled == (double) r->sampled && ratio_seen >= 0.5 && ratio_seen <= 2.0))
         advisor_part (diff,
                       "distinct values: the server counted %s in %s documents%s, shardsh saw %s in %s and estimates %s"
                       " (sample size: %s)",
                       advisor_count_string ((int64_t) srv_distinct, a, sizeof a),
                       advisor_count_string ((int64_t) srv_sampled, b, sizeof b), exact ? " (all of them)" : "",
                       advisor_count_string (r->distinct_sampled, c, sizeof c),
                       advisor_count_string (r->sampled, d, sizeof d),
                       advisor_count_string (r->distinct_estimated, e, sizeof e),
                       srv_sampled > (double) r->sampled ? "a larger sample meets more of the rare values"
                                                         : "a sample counts only the values it meets");
   }
   /* frequency: within three standard errors of shardsh's sample, plus two points */
   if (srv_top >= 0 && r->nmcv) {
      double p = r->mcv[0].share;
      double tol = 3.0 * sqrt (p * (1.0 - p) / (double) (r->sampled ? r->sampled : 1)) + 0.02;
      if (fabs (srv_top - p) > tol)
         advisor_part (diff,
                       "top value: the server %.1f%%, shardsh %.1f%% (sample size: shardsh's %s documents give"
                       " +/-%.1f points)",
                       100.0 * srv_top, 100.0 * p, advisor_count_string (r->sampled, a, sizeof a), 100.0 * tol);
   }
   /* monotonicity: the server correlates the key with record ids; shardsh with the ObjectId time or natural order */
   if (strcmp (srv_mono, advisor_mono_name (r->mono)) != 0)
      advisor_part (diff,
                    "monotonicity: the server says %s (correlation %.2f with record ids), shardsh %s (%.2f with %s)",
                    srv_mono, srv_corr, advisor_mono_name (r->mono), r->correlation,
                    r->order == ADVISOR_ORDER_OBJECTID  ? "the ObjectId time of _id"
                    : r->order == ADVISOR_ORDER_NATURAL ? "natural order"
                                                        : "no known insertion order");
   /* query targeting */
   if (srv_reads + srv_writes == 0 && r->reads + r->writes == 0) {
      /* nothing sampled on either side: not a disagreement */
   } else if ((srv_reads + srv_writes > 0) != (r->reads + r->writes > 0)) {
      advisor_part (diff, "sampled queries: the server holds %s reads and %s writes, shardsh read %s and %s",
                    advisor_count_string ((int64_t) srv_reads, a, sizeof a),
                    advisor_count_string ((int64_t) srv_writes, b, sizeof b),
                    advisor_count_string (r->reads, c, sizeof c), advisor_count_string (r->writes, d, sizeof d));
   } else if (srv_reads > 0 && r->reads > 0 &&
              fabs (advisor_num (reply, "readDistribution.percentageOfSingleShardReads", 0) - r->read_single) > 10) {
      advisor_part (diff, "single-shard reads: the server %.0f%%, shardsh %.0f%% (different sampled queries)",
                    advisor_num (reply, "readDistribution.percentageOfSingleShardReads", 0), r->read_single);
   }
   if (diff->len)
      bson_snprintf (r->server_note, sizeof r->server_note, "differs: %s", diff->str);
   else
      bson_snprintf (r->server_note, sizeof r->server_note, "agrees on cardinality, frequency and monotonicity%s",
                     srv_reads + srv_writes > 0 ? " and query targeting" : "");
done:
   BSON_APPEND_UTF8 (&r->server, "note", r->server_note);
   bson_string_free (diff, true);
}

/* ---- --json ---- */

static const char *
advisor_order_name (advisor_order_t o)
{
   return o == ADVISOR_ORDER_OBJECTID ? "objectid" : o == ADVISOR_ORDER_NATURAL ? "natural" : "unknown";
}

void
advisor_result_to_bson (const advisor_result_t *r, bson_t *out)
{
   bson_t sub, arr, item;
   char k[16];
   const char *key;
   static const struct {
      unsigned bit;
      const char *name;
   } names[] = {
      { ADVISOR_F_ARRAY, "array" },
      { ADVISOR_F_MISSING, "missing" },
      { ADVISOR_F_FEWER_THAN_SHARDS, "fewerValuesThanShards" },
      { ADVISOR_F_LOW_CARDINALITY, "lowCardinality" },
      { ADVISOR_F_HOT_VALUES, "hotValues" },
      { ADVISOR_F_JUMBO_NOW, "jumboNow" },
      { ADVISOR_F_MONOTONIC, "monotonic" },
      { ADVISOR_F_WRITE_SKEW, "writeSkew" },
      { ADVISOR_F_SCATTER, "scatterGather" },
      { ADVISOR_F_HASHED_RANGES, "hashedRanges" },
      { ADVISOR_F_NO_SAMPLE, "noSample" },
   };

   bson_init (out);
   BSON_APPEND_DOCUMENT (out, "key", &r->key);
   BSON_APPEND_UTF8 (out, "origin", r->origin);
   BSON_APPEND_INT32 (out, "score", r->score);
   BSON_APPEND_UTF8 (out, "verdict", r->verdict);
   BSON_APPEND_ARRAY_BEGIN (out, "findings", &arr);
   for (size_t i = 0, n = 0; i < sizeof names / sizeof names[0]; i++) {
      if (r->findings & names[i].bit) {
         bson_uint32_to_string ((uint32_t) n++, &key, k, sizeof k);
         BSON_APPEND_UTF8 (&arr, key, names[i].name);
      }
   }
   bson_append_array_end (out, &arr);
   BSON_APPEND_INT64 (out, "sampled", r->sampled);
   BSON_APPEND_INT64 (out, "missing", r->missing);
   BSON_APPEND_INT64 (out, "arrays", r->arrays);

   BSON_APPEND_DOCUMENT_BEGIN (out, "cardinality", &sub);
   BSON_APPEND_INT64 (&sub, "distinctSampled", r->distinct_sampled);
   BSON_APPEND_INT64 (&sub, "distinctEstimated", r->distinct_estimated);
   BSON_APPEND_BOOL (&sub, "allUnique", r->all_unique);
   BSON_APPEND_INT64 (&sub, "maxChunks", r->distinct_estimated);
   bson_append_document_end (out, &sub);

   BSON_APPEND_DOCUMENT_BEGIN (out, "frequency", &sub);
   BSON_APPEND_ARRAY_BEGIN (&sub, "mostCommonValues", &arr);
   for (size_t i = 0; i < r->nmcv; i++) {
      bson_uint32_to_string ((uint32_t) i, &key, k, sizeof k);
      BSON_APPEND_DOCUMENT_BEGIN (&arr, key, &item);
      BSON_APPEND_DOCUMENT (&item, "value", &r->mcv[i].value);
      BSON_APPEND_INT64 (&item, "count", r->mcv[i].count);
      BSON_APPEND_DOUBLE (&item, "share", r->mcv[i].share);
      bson_append_document_end (&arr, &item);
   }
   bson_append_array_end (&sub, &arr);
   BSON_APPEND_INT32 (&sub, "hotValues", (int32_t) r->nhot);
   BSON_APPEND_DOUBLE (&sub, "hotShare", r->hot_share);
   BSON_APPEND_INT64 (&sub, "avgDocSizeBytes", r->avg_doc_bytes);
   BSON_APPEND_INT64 (&sub, "jumboAtDocs", r->jumbo_at_docs);
   bson_append_document_end (out, &sub);

   BSON_APPEND_DOCUMENT_BEGIN (out, "monotonicity", &sub);
   BSON_APPEND_UTF8 (&sub, "type",
                     r->mono == ADVISOR_MONO_ASCENDING    ? "ascending"
                     : r->mono == ADVISOR_MONO_DESCENDING ? "descending"
                                                          : advisor_mono_name (r->mono));
   BSON_APPEND_DOUBLE (&sub, "correlation", r->correlation);
   BSON_APPEND_UTF8 (&sub, "order", advisor_order_name (r->order));
   bson_append_document_end (out, &sub);

   BSON_APPEND_DOCUMENT_BEGIN (out, "writeSpread", &sub);
   BSON_APPEND_UTF8 (&sub, "basis",
                     r->spread_actual ? "chunk map"
                     : r->hashed      ? "even split of the hashed range"
                                      : "even split of the sampled range");
   BSON_APPEND_BOOL (&sub, "extrapolated", r->spread_extrapolated);
   BSON_APPEND_INT32 (&sub, "shardsReached", r->shards_reached);
   BSON_APPEND_DOCUMENT_BEGIN (&sub, "shares", &item);
   for (size_t i = 0; i < r->nspread; i++)
      BSON_APPEND_DOUBLE (&item, r->spread[i].shard, r->spread[i].share);
   bson_append_document_end (&sub, &item);
   bson_append_document_end (out, &sub);

   BSON_APPEND_DOCUMENT_BEGIN (out, "queries", &sub);
   BSON_APPEND_INT64 (&sub, "reads", r->reads);
   BSON_APPEND_INT64 (&sub, "writes", r->writes);
   if (r->reads) {
      BSON_APPEND_DOUBLE (&sub, "readSingleShard", r->read_single);
      BSON_APPEND_DOUBLE (&sub, "readMultiShard", r->read_multi);
      BSON_APPEND_DOUBLE (&sub, "readScatterGather", r->read_scatter);
   }
   if (r->writes) {
      BSON_APPEND_DOUBLE (&sub, "writeSingleShard", r->write_single);
      BSON_APPEND_DOUBLE (&sub, "writeMultiShard", r->write_multi);
      BSON_APPEND_DOUBLE (&sub, "writeScatterGather", r->write_scatter);
   }
   bson_append_document_end (out, &sub);

   if (r->has_server)
      BSON_APPEND_DOCUMENT (out, "server", &r->server);
}
