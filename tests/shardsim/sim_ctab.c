/* shardsim's chunk tables: for each sharded collection, its chunks sorted by min with the documents and bytes each
 * one holds, kept current by the store's hooks and rebuilt from config.chunks when something else changed them. On
 * top of them: routing by binary search, the chunk size that applies, splitting a chunk at given points (split and
 * multi-split changelog, versions as the split command gives them), the pre-6.0 auto-splitter with the top-chunk
 * optimisation, and jumbo flags. Callers hold sim_g.lock. */
#include "tests/shardsim/sim.h"

#include <stdlib.h>
#include <string.h>

static uint32_t
sim_raw_size (const uint8_t *raw)
{
   return (uint32_t) raw[0] | (uint32_t) raw[1] << 8 | (uint32_t) raw[2] << 16 | (uint32_t) raw[3] << 24;
}

static uint8_t *
sim_raw_dup (const bson_t *doc)
{
   uint8_t *raw = bson_malloc (doc->len);
   memcpy (raw, bson_get_data (doc), doc->len);
   return raw;
}

void
sim_chunk_min (const sim_chunk_t *c, bson_t *out)
{
   bson_init_static (out, c->min, sim_raw_size (c->min));
}

void
sim_chunk_max (const sim_chunk_t *c, bson_t *out)
{
   bson_init_static (out, c->max, sim_raw_size (c->max));
}

static void
sim_ctab_clear (sim_ctab_t *t)
{
   for (size_t i = 0; i < t->n; i++) {
      bson_free (t->v[i].min);
      bson_free (t->v[i].max);
   }
   bson_free (t->v);
   t->v = NULL;
   t->n = 0;
}

void
sim_ctab_free (sim_ctab_t *t)
{
   if (!t) {
      return;
   }
   sim_ctab_clear (t);
   sim_shcoll_destroy (&t->sc);
   free (t);
}

/* The config.chunks partition holding sc's chunks (SIZE_MAX when none) and its generation. */
static size_t
sim_ctab_part (const sim_shcoll_t *sc, uint64_t *gen)
{
   sim_coll_t *chunks = sim_coll_get ("config", "chunks");
   bson_value_t v;
   *gen = 0;
   if (!chunks) {
      return SIZE_MAX;
   }
   memset (&v, 0, sizeof v);
   if (sim_ver_ge (50)) {
      v.value_type = BSON_TYPE_BINARY;
      v.value.v_binary.subtype = BSON_SUBTYPE_UUID;
      v.value.v_binary.data = (uint8_t *) sc->uuid;
      v.value.v_binary.data_len = 16;
   } else {
      v.value_type = BSON_TYPE_UTF8;
      v.value.v_utf8.str = (char *) sc->ns;
      v.value.v_utf8.len = (uint32_t) strlen (sc->ns);
   }
   size_t p = sim_coll_find_part (chunks, &v);
   if (p != SIZE_MAX) {
      *gen = chunks->parts[p].gen;
   }
   return p;
}

static uint64_t
sim_colls_gen (void)
{
   sim_coll_t *colls = sim_coll_get ("config", "collections");
   uint64_t g = 0;
   for (size_t p = 0; colls && p < colls->nparts; p++) {
      g = colls->parts[p].gen > g ? colls->parts[p].gen : g;
   }
   return g;
}

static bool
sim_ctab_fresh (const sim_ctab_t *t)
{
   uint64_t gen;
   sim_ctab_part (&t->sc, &gen);
   return gen == t->chunks_gen && sim_colls_gen () == t->colls_gen;
}

void
sim_ctab_resync (sim_ctab_t *t)
{
   sim_ctab_part (&t->sc, &t->chunks_gen);
   t->colls_gen = sim_colls_gen ();
}

static int
sim_chunk_cmp (const void *a, const void *b)
{
   const sim_chunk_t *x = a, *y = b;
   bson_t mx, my;
   sim_chunk_min (x, &mx);
   sim_chunk_min (y, &my);
   return order_docs (&mx, &my);
}

size_t
sim_ctab_locate (const sim_ctab_t *t, const bson_t *key)
{
   size_t lo = 0, hi = t->n;
   /* The last chunk whose min is <= key. */
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      bson_t min;
      sim_chunk_min (&t->v[mid], &min);
      if (order_docs (&min, key) <= 0) {
         lo = mid + 1;
      } else {
         hi = mid;
      }
   }
   if (lo == 0) {
      return SIZE_MAX;
   }
   bson_t max;
   sim_chunk_max (&t->v[lo - 1], &max);
   return order_docs (key, &max) < 0 ? lo - 1 : SIZE_MAX;
}

size_t
sim_ctab_locate_doc (const sim_ctab_t *t, const bson_t *doc)
{
   bson_t key;
   sim_shard_key_of (&t->sc, doc, &key);
   size_t i = sim_ctab_locate (t, &key);
   bson_destroy (&key);
   return i;
}

/* Recounts the documents of coll into the chunks [first, last] of t (all chunks: first 0, last n - 1). */
static void
sim_ctab_count (sim_coll_t *coll, sim_ctab_t *t, size_t first, size_t last)
{
   for (size_t i = first; i <= last && i < t->n; i++) {
      t->v[i].docs = t->v[i].bytes = 0;
   }
   for (size_t p = 0; p < coll->nparts; p++) {
      for (size_t d = 0; d < coll->parts[p].docs.n; d++) {
         bson_t view;
         sim_pos_t pos = { p, d };
         sim_coll_view (coll, pos, &view);
         size_t i = sim_ctab_locate_doc (t, &view);
         if (i != SIZE_MAX && i >= first && i <= last) {
            t->v[i].docs++;
            t->v[i].bytes += view.len;
         }
      }
   }
}

/* Loads the chunk documents of t->sc into t (sorted, no counts). */
static void
sim_ctab_load_chunks (sim_ctab_t *t)
{
   uint64_t gen;
   size_t p = sim_ctab_part (&t->sc, &gen);
   sim_coll_t *chunks = sim_coll_get ("config", "chunks");
   size_t cap = 0;
   for (size_t i = 0; p != SIZE_MAX && i < chunks->parts[p].docs.n; i++) {
      bson_t view;
      bson_iter_t it;
      uint32_t l;
      const uint8_t *d;
      sim_pos_t pos = { p, i };
      sim_coll_view (chunks, pos, &view);
      sim_chunk_t c;
      memset (&c, 0, sizeof c);
      if (!bson_iter_init_find (&it, &view, "min") || !BSON_ITER_HOLDS_DOCUMENT (&it)) {
         continue;
      }
      bson_iter_document (&it, &l, &d);
      c.min = bson_malloc (l);
      memcpy (c.min, d, l);
      if (!bson_iter_init_find (&it, &view, "max") || !BSON_ITER_HOLDS_DOCUMENT (&it)) {
         bson_free (c.min);
         continue;
      }
      bson_iter_document (&it, &l, &d);
      c.max = bson_malloc (l);
      memcpy (c.max, d, l);
      if (bson_iter_init_find (&it, &view, "_id") && BSON_ITER_HOLDS_OID (&it)) {
         bson_oid_copy (bson_iter_oid (&it), &c.id);
      }
      if (bson_iter_init_find (&it, &view, "shard") && BSON_ITER_HOLDS_UTF8 (&it)) {
         bson_strncpy (c.shard, bson_iter_utf8 (&it, NULL), sizeof c.shard);
      }
      c.jumbo = bson_iter_init_find (&it, &view, "jumbo") && bson_iter_as_bool (&it);
      if (t->n == cap) {
         cap = cap ? cap * 2 : 8;
         t->v = bson_realloc (t->v, cap * sizeof *t->v);
      }
      t->v[t->n++] = c;
   }
   if (t->n > 1) {
      qsort (t->v, t->n, sizeof *t->v, sim_chunk_cmp);
   }
}

sim_ctab_t *
sim_ctab_get (sim_coll_t *coll)
{
   sim_ctab_t *t = coll->ctab;
   if (t && sim_ctab_fresh (t)) {
      return t;
   }
   if (!t) {
      size_t align = _Alignof(sim_ctab_t);
      size_t size = (sizeof *t + align - 1) / align * align;
      t = aligned_alloc (align, size);
      memset (t, 0, sizeof *t);
      bson_init (&t->sc.key);
      bson_init (&t->sc.doc);
      coll->ctab = t;
   }
   sim_ctab_clear (t);
   sim_shcoll_destroy (&t->sc);
   if (!sim_shcoll_load (coll->ns, &t->sc)) {
      sim_ctab_free (t);
      coll->ctab = NULL;
      return NULL;
   }
   sim_ctab_load_chunks (t);
   sim_ctab_count (coll, t, 0, t->n ? t->n - 1 : 0);
   sim_ctab_resync (t);
   return t;
}

void
sim_ctab_note (sim_coll_t *coll, const bson_t *doc, int sign)
{
   sim_ctab_t *t = coll->ctab;
   if (!t || !sim_ctab_fresh (t)) {
      return;
   }
   size_t i = sim_ctab_locate_doc (t, doc);
   if (i == SIZE_MAX) {
      return;
   }
   t->v[i].docs += sign;
   t->v[i].bytes += sign * (int64_t) doc->len;
   if (sign > 0) {
      t->v[i].written += doc->len;
   }
}

int64_t
sim_chunk_size_bytes (const sim_shcoll_t *sc)
{
   bson_iter_t it;
   if (sim_ver_ge (60) && bson_iter_init_find (&it, &sc->doc, "maxChunkSizeBytes") && BSON_ITER_HOLDS_NUMBER (&it) &&
       bson_iter_as_int64 (&it) > 0) {
      return bson_iter_as_int64 (&it);
   }
   bson_t view;
   if (sim_setting_view ("chunksize", &view) && bson_iter_init_find (&it, &view, "value") &&
       BSON_ITER_HOLDS_NUMBER (&it) && bson_iter_as_int64 (&it) > 0) {
      return bson_iter_as_int64 (&it) * 1024 * 1024;
   }
   if (sim_dyn.chunk_size_bytes > 0) {
      return sim_dyn.chunk_size_bytes;
   }
   return (sim_ver_ge (60) ? 128 : 64) * (int64_t) 1024 * 1024;
}

void
sim_ctab_mark_jumbo (sim_ctab_t *t, size_t i)
{
   bson_t chunk, doc = BSON_INITIALIZER;
   if (t->v[i].jumbo || !sim_chunk_by_id (&t->v[i].id, &chunk)) {
      bson_destroy (&doc);
      return;
   }
   bson_copy_to_excluding_noinit (&chunk, &doc, "jumbo", NULL);
   BSON_APPEND_BOOL (&doc, "jumbo", true);
   sim_chunk_replace (&chunk, &doc);
   t->v[i].jumbo = true;
   sim_ctab_resync (t);
   bson_destroy (&chunk);
   bson_destroy (&doc);
}

void
sim_ctab_split (sim_coll_t *coll, size_t i, bson_t **points, size_t npoints, const int64_t *docs, const int64_t *bytes)
{
   sim_ctab_t *t = coll->ctab;
   bson_t chunk, before = BSON_INITIALIZER;
   bson_t **pieces = NULL;
   size_t npieces = npoints + 1;
   uint32_t major, minor;
   if (!t || i >= t->n || !npoints || !sim_chunk_by_id (&t->v[i].id, &chunk)) {
      bson_destroy (&before);
      return;
   }
   sim_chunk_max_version (&t->sc, &major, &minor);
   sim_split_before_doc (&chunk, &t->sc, &before);
   bson_t cmin, cmax;
   sim_chunk_min (&t->v[i], &cmin);
   sim_chunk_max (&t->v[i], &cmax);
   char shard[64];
   bson_strncpy (shard, t->v[i].shard, sizeof shard);
   pieces = bson_malloc0 (npieces * sizeof *pieces);
   for (size_t k = 0; k < npieces; k++) {
      const bson_t *lo = k == 0 ? &cmin : points[k - 1];
      const bson_t *hi = k == npoints ? &cmax : points[k];
      bson_t rw;
      sim_chunk_rewrite_doc (&t->sc, &chunk, lo, hi, shard, major, minor + 1 + (uint32_t) k, false, &rw);
      pieces[k] = bson_new ();
      if (k == 0) {
         bson_concat (pieces[k], &rw);
      } else {
         /* A new chunk: its own _id. */
         bson_oid_t oid;
         bson_oid_init (&oid, NULL);
         BSON_APPEND_OID (pieces[k], "_id", &oid);
         bson_copy_to_excluding_noinit (&rw, pieces[k], "_id", NULL);
      }
      bson_destroy (&rw);
   }
   /* Changelog: split for two pieces, one multi-split entry per piece otherwise. */
   int64_t now = clock_wall_ms ();
   if (npieces == 2) {
      bson_t details = BSON_INITIALIZER, sub;
      BSON_APPEND_DOCUMENT (&details, "before", &before);
      BSON_APPEND_DOCUMENT_BEGIN (&details, "left", &sub);
      sim_chunk_version_doc (pieces[0], &t->sc, &sub);
      bson_append_document_end (&details, &sub);
      BSON_APPEND_DOCUMENT_BEGIN (&details, "right", &sub);
      sim_chunk_version_doc (pieces[1], &t->sc, &sub);
      bson_append_document_end (&details, &sub);
      if (sim_ver_ge (50)) { /* the 4.4-era commitChunkSplit writes no owningShard */
         BSON_APPEND_UTF8 (&details, "owningShard", shard);
      }
      sim_changelog (false, "split", t->sc.ns, "config", &details, now);
      bson_destroy (&details);
   } else {
      for (size_t k = 0; k < npieces; k++) {
         bson_t details = BSON_INITIALIZER, sub;
         BSON_APPEND_DOCUMENT (&details, "before", &before);
         BSON_APPEND_INT32 (&details, "number", (int32_t) k + 1);
         BSON_APPEND_INT32 (&details, "of", (int32_t) npieces);
         BSON_APPEND_DOCUMENT_BEGIN (&details, "chunk", &sub);
         sim_chunk_version_doc (pieces[k], &t->sc, &sub);
         bson_append_document_end (&details, &sub);
         if (sim_ver_ge (50)) { /* the 4.4-era commitChunkSplit writes no owningShard */
            BSON_APPEND_UTF8 (&details, "owningShard", shard);
         }
         sim_changelog (false, "multi-split", t->sc.ns, "config", &details, now);
         bson_destroy (&details);
      }
   }
   /* config.chunks, then the table. */
   sim_chunk_replace (&chunk, pieces[0]);
   sim_coll_t *chunks = sim_coll_ensure ("config", "chunks");
   for (size_t k = 1; k < npieces; k++) {
      sim_coll_insert (chunks, pieces[k]);
   }
   sim_chunk_t old = t->v[i];
   t->v = bson_realloc (t->v, (t->n + npoints) * sizeof *t->v);
   memmove (&t->v[i + npieces], &t->v[i + 1], (t->n - i - 1) * sizeof *t->v);
   t->n += npoints;
   for (size_t k = 0; k < npieces; k++) {
      sim_chunk_t *c = &t->v[i + k];
      bson_iter_t it;
      memset (c, 0, sizeof *c);
      c->min = sim_raw_dup (k == 0 ? &cmin : points[k - 1]);
      c->max = sim_raw_dup (k == npoints ? &cmax : points[k]);
      bson_strncpy (c->shard, shard, sizeof c->shard);
      if (bson_iter_init_find (&it, pieces[k], "_id") && BSON_ITER_HOLDS_OID (&it)) {
         bson_oid_copy (bson_iter_oid (&it), &c->id);
      }
      c->docs = docs ? docs[k] : 0;
      c->bytes = bytes ? bytes[k] : 0;
   }
   /* cmin/cmax view old's bytes: free them only now. */
   bson_free (old.min);
   bson_free (old.max);
   if (!docs) {
      sim_ctab_count (coll, t, i, i + npoints);
   }
   sim_ctab_resync (t);
   sim_dyn.splits++;
   for (size_t k = 0; k < npieces; k++) {
      bson_destroy (pieces[k]);
   }
   bson_free (pieces);
   bson_destroy (&before);
   bson_destroy (&chunk);
}

int
sim_keyent_cmp (const void *a, const void *b)
{
   const sim_keyent_t *x = a, *y = b;
   bson_t kx, ky;
   bson_init_static (&kx, x->key, sim_raw_size (x->key));
   bson_init_static (&ky, y->key, sim_raw_size (y->key));
   return order_docs (&kx, &ky);
}

static int
sim_keyent_cmp_raw (const uint8_t *a, const uint8_t *b)
{
   bson_t ka, kb;
   bson_init_static (&ka, a, sim_raw_size (a));
   bson_init_static (&kb, b, sim_raw_size (b));
   return order_docs (&ka, &kb);
}

static void
sim_keys_push (sim_keys_t *k, const bson_t *key, int64_t size)
{
   if (k->n == k->cap) {
      k->cap = k->cap ? k->cap * 2 : 64;
      k->v = bson_realloc (k->v, k->cap * sizeof *k->v);
   }
   k->v[k->n].key = sim_raw_dup (key);
   k->v[k->n].size = size;
   k->n++;
}

void
sim_keys_free (sim_keys_t *k)
{
   for (size_t i = 0; i < k->n; i++) {
      bson_free (k->v[i].key);
   }
   bson_free (k->v);
   memset (k, 0, sizeof *k);
}

/* Whether the first field of bound is MaxKey (the top chunk's max). */
static bool
sim_is_top (const sim_chunk_t *c)
{
   bson_t max;
   bson_iter_t it;
   sim_chunk_max (c, &max);
   return bson_iter_init (&it, &max) && bson_iter_next (&it) && BSON_ITER_HOLDS_MAXKEY (&it);
}

/* Chooses split points for one chunk from its sorted keys: a point every piece bytes where the key changes (never
 * the smallest key, so no piece is empty); for the top chunk the last point is the largest key (the top-chunk
 * optimisation). Points are indexes into keys; counts per piece are filled. Returns the number of points. */
static size_t
sim_split_points (const sim_keys_t *keys, int64_t piece, bool top, size_t *at, int64_t *docs, int64_t *bytes,
                  size_t max_points)
{
   size_t n = 0;
   int64_t acc = 0;
   for (size_t k = 0; k < keys->n; k++) {
      bool change = k > 0 && sim_keyent_cmp_raw (keys->v[k].key, keys->v[k - 1].key) != 0;
      if (change && acc >= piece && n < max_points) {
         at[n++] = k;
         acc = 0;
      }
      acc += keys->v[k].size;
   }
   if (top && keys->n > 1) {
      /* The last point becomes the largest key, so the new top chunk holds only the latest value. */
      size_t last = keys->n - 1;
      while (last > 0 && sim_keyent_cmp_raw (keys->v[last].key, keys->v[last - 1].key) == 0) {
         last--;
      }
      if (last > 0) {
         if (n == 0) {
            at[n++] = last;
         } else if (at[n - 1] < last) {
            at[n - 1] = last;
         }
      }
   }
   if (n == 0 && keys->n > 1) {
      /* No point at the intervals: the distinct-key boundary nearest the middle of the data. */
      int64_t total = 0, run = 0, best_gap = INT64_MAX;
      size_t best = 0;
      for (size_t k = 0; k < keys->n; k++) {
         total += keys->v[k].size;
      }
      for (size_t k = 0; k < keys->n; k++) {
         if (k > 0 && sim_keyent_cmp_raw (keys->v[k].key, keys->v[k - 1].key) != 0) {
            int64_t gap = run * 2 - total;
            gap = gap < 0 ? -gap : gap;
            if (gap < best_gap) {
               best_gap = gap;
               best = k;
            }
         }
         run += keys->v[k].size;
      }
      if (best) {
         at[n++] = best;
      }
   }
   for (size_t p = 0; p <= n; p++) {
      size_t lo = p == 0 ? 0 : at[p - 1], hi = p == n ? keys->n : at[p];
      docs[p] = (int64_t) (hi - lo);
      bytes[p] = 0;
      for (size_t k = lo; k < hi; k++) {
         bytes[p] += keys->v[k].size;
      }
   }
   return n;
}

/* The keys of the chunks cand[0..ncand) (their positions in t), gathered into keys[k] for cand[k] by one scan. */
typedef struct {
   const sim_ctab_t *t;
   const size_t *cand;
   size_t ncand;
   sim_keys_t *keys;
} sim_keys_of_t;

static void
sim_keys_of_one (void *data, const bson_t *doc, const bson_t *key)
{
   sim_keys_of_t *g = data;
   size_t i = sim_ctab_locate (g->t, key);
   for (size_t k = 0; i != SIZE_MAX && k < g->ncand; k++) {
      if (g->cand[k] == i) {
         sim_keys_push (&g->keys[k], key, doc->len);
         break;
      }
   }
}

void
sim_ctab_chunk_keys (sim_coll_t *coll, const sim_ctab_t *t, size_t i, sim_keys_t *out)
{
   sim_keys_of_t g = { t, &i, 1, out };
   memset (out, 0, sizeof *out);
   sim_coll_each_key (coll, &t->sc, sim_keys_of_one, &g);
   if (out->n > 1) {
      qsort (out->v, out->n, sizeof *out->v, sim_keyent_cmp);
   }
}

int
sim_split_or_mark_jumbo (sim_coll_t *coll, size_t i)
{
   sim_ctab_t *t = sim_ctab_get (coll);
   sim_keys_t ks;
   if (!t || i >= t->n) {
      return 0;
   }
   sim_ctab_chunk_keys (coll, t, i, &ks);
   int64_t piece = sim_chunk_size_bytes (&t->sc) / 2; /* splitVector: a point every half chunk size */
   size_t *at = bson_malloc ((ks.n + 1) * sizeof *at);
   int64_t *docs = bson_malloc ((ks.n + 2) * sizeof *docs), *bytes = bson_malloc ((ks.n + 2) * sizeof *bytes);
   size_t n = sim_split_points (&ks, piece > 0 ? piece : 1, false, at, docs, bytes, ks.n);
   if (n == 0) {
      sim_ctab_mark_jumbo (t, i);
   } else {
      bson_t **points = bson_malloc (n * sizeof *points);
      for (size_t p = 0; p < n; p++) {
         points[p] = bson_new_from_data (ks.v[at[p]].key, sim_raw_size (ks.v[at[p]].key));
      }
      sim_ctab_split (coll, i, points, n, docs, bytes);
      for (size_t p = 0; p < n; p++) {
         bson_destroy (points[p]);
      }
      bson_free (points);
   }
   bson_free (at);
   bson_free (docs);
   bson_free (bytes);
   sim_keys_free (&ks);
   return (int) n;
}

static bool
sim_autosplit_enabled (void)
{
   bson_iter_t it;
   bson_t view;
   return !sim_setting_view ("autosplit", &view) || !bson_iter_init_find (&it, &view, "enabled") ||
          bson_iter_as_bool (&it);
}

int
sim_autosplit (sim_coll_t *coll, double piece_frac, bool force)
{
   int nsplit = 0;
   sim_keys_t *keys = NULL;
   size_t *cand = NULL, ncand = 0;
   size_t *at = NULL;
   int64_t *docs = NULL, *bytes = NULL;
   bson_t **points = NULL;
   if (sim_ver_ge (60) || (!force && !sim_autosplit_enabled ())) {
      return 0;
   }
   sim_ctab_t *t = sim_ctab_get (coll);
   if (!t || !t->n) {
      return 0;
   }
   int64_t cs = sim_chunk_size_bytes (&t->sc);
   for (size_t i = 0; i < t->n; i++) {
      sim_chunk_t *c = &t->v[i];
      /* Like the router: a chunk is checked once a fifth of the chunk size was written to it, and split when it
       * holds more than the chunk size. */
      if (!force && c->written < cs / 5) {
         continue;
      }
      c->written = 0;
      if (c->bytes >= cs && !c->jumbo && !sim_balancer_chunk_busy (t->sc.ns, &c->id)) {
         cand = bson_realloc (cand, (ncand + 1) * sizeof *cand);
         cand[ncand++] = i;
      }
   }
   if (!ncand) {
      goto cleanup;
   }
   /* One scan gathers the keys of every candidate chunk. */
   keys = bson_malloc0 (ncand * sizeof *keys);
   sim_keys_of_t g = { t, cand, ncand, keys };
   sim_coll_each_key (coll, &t->sc, sim_keys_of_one, &g);
   /* Highest index first, so splitting does not shift the chunks still to do. */
   for (size_t k = ncand; k-- > 0;) {
      size_t i = cand[k];
      sim_keys_t *ks = &keys[k];
      if (ks->n > 1) {
         qsort (ks->v, ks->n, sizeof *ks->v, sim_keyent_cmp);
      }
      int64_t piece = (int64_t) ((double) cs * piece_frac);
      size_t maxp = ks->n;
      at = bson_realloc (at, (maxp + 1) * sizeof *at);
      docs = bson_realloc (docs, (maxp + 2) * sizeof *docs);
      bytes = bson_realloc (bytes, (maxp + 2) * sizeof *bytes);
      size_t n = sim_split_points (ks, piece > 0 ? piece : 1, sim_is_top (&t->v[i]), at, docs, bytes, maxp);
      if (n == 0) {
         /* One key value over the chunk size: indivisible. */
         if (ks->n > 0) {
            sim_ctab_mark_jumbo (t, i);
         }
         continue;
      }
      points = bson_realloc (points, n * sizeof *points);
      for (size_t p = 0; p < n; p++) {
         points[p] = bson_new_from_data (ks->v[at[p]].key, sim_raw_size (ks->v[at[p]].key));
      }
      sim_ctab_split (coll, i, points, n, docs, bytes);
      for (size_t p = 0; p < n; p++) {
         bson_destroy (points[p]);
      }
      nsplit++;
      /* A piece made only of one value and still over the chunk size is jumbo. */
      for (size_t p = 0; p <= n; p++) {
         size_t lo = p == 0 ? 0 : at[p - 1], hi = p == n ? ks->n : at[p];
         if (bytes[p] >= cs && hi > lo && sim_keyent_cmp_raw (ks->v[lo].key, ks->v[hi - 1].key) == 0) {
            sim_ctab_mark_jumbo (t, i + p);
         }
      }
   }
cleanup:
   for (size_t k = 0; keys && k < ncand; k++) {
      sim_keys_free (&keys[k]);
   }
   bson_free (keys);
   bson_free (cand);
   bson_free (at);
   bson_free (docs);
   bson_free (bytes);
   bson_free (points);
   return nsplit;
}

void
sim_ctab_merge (sim_coll_t *coll, size_t first, size_t last)
{
   sim_ctab_t *t = coll->ctab;
   bson_t chunk, merged, lo, hi;
   uint32_t major, minor;
   if (!t || last <= first || last >= t->n || !sim_chunk_by_id (&t->v[first].id, &chunk)) {
      return;
   }
   sim_chunk_max_version (&t->sc, &major, &minor);
   sim_chunk_min (&t->v[first], &lo);
   sim_chunk_max (&t->v[last], &hi);
   sim_chunk_rewrite_doc (&t->sc, &chunk, &lo, &hi, t->v[first].shard, major, minor + 1, false, &merged);
   bson_t **docs = bson_malloc0 ((last - first + 1) * sizeof *docs);
   size_t ndocs = 0;
   for (size_t i = first; i <= last; i++) {
      bson_t doc;
      if (sim_chunk_by_id (&t->v[i].id, &doc)) {
         docs[ndocs++] = bson_copy (&doc);
         bson_destroy (&doc);
      }
   }
   sim_merge_changelog (&t->sc, (const bson_t *const *) docs, ndocs, major, minor, t->v[first].shard);
   for (size_t k = 0; k < ndocs; k++) {
      if (k > 0) {
         sim_chunk_replace (docs[k], NULL);
      }
      bson_destroy (docs[k]);
   }
   bson_free (docs);
   sim_chunk_replace (&chunk, &merged);
   /* The table: the first entry takes the whole range and the counts. */
   sim_chunk_t *c = &t->v[first];
   uint8_t *max = sim_raw_dup (&hi);
   for (size_t i = first + 1; i <= last; i++) {
      c->docs += t->v[i].docs;
      c->bytes += t->v[i].bytes;
      bson_free (t->v[i].min);
      bson_free (t->v[i].max);
   }
   bson_free (c->max);
   c->max = max;
   c->jumbo = false;
   memmove (&t->v[first + 1], &t->v[last + 1], (t->n - last - 1) * sizeof *t->v);
   t->n -= last - first;
   sim_ctab_resync (t);
   bson_destroy (&merged);
   bson_destroy (&chunk);
}
