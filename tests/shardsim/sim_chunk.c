/* shardsim's config.chunks documents: reading a collection's chunks, rewriting one (version, history), the version
 * fields the changelog records, bounds and the documents inside a range. Callers hold sim_g.lock. */
#include "tests/shardsim/sim_admin.h"
#include "tests/shardsim/query/simq_int.h"

#include "shell/lib/hashkey.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int
sim_doc_ptr_cmp_min (const void *a, const void *b)
{
   const bson_t *x = *(bson_t *const *) a, *y = *(bson_t *const *) b;
   bson_t mx, my;
   if (!docget_sub (x, "min", BSON_TYPE_EOD, &mx) || !docget_sub (y, "min", BSON_TYPE_EOD, &my)) {
      return 0;
   }
   return order_docs (&mx, &my);
}

/* All chunks of sc, sorted by min. */
void
sim_chunks_of (const sim_shcoll_t *sc, simq_docs_t *out)
{
   sim_coll_t *chunks = sim_coll_get ("config", "chunks");
   bson_t filter = BSON_INITIALIZER;
   bson_error_t err;
   sim_hits_t hits = { 0 };
   sim_shcoll_chunk_filter (sc, &filter);
   if (chunks && sim_coll_match (chunks, &filter, 0, &hits, &err)) {
      for (size_t i = 0; i < hits.n; i++) {
         bson_t view;
         sim_coll_view (chunks, hits.v[i], &view);
         simq_docs_push_copy (out, &view);
      }
   }
   sim_hits_destroy (&hits);
   bson_destroy (&filter);
   if (out->n > 1) {
      qsort (out->v, out->n, sizeof *out->v, sim_doc_ptr_cmp_min);
   }
}

/* Replaces (doc != NULL) or deletes (doc == NULL) the chunk whose _id equals that of old. */
void
sim_chunk_replace (const bson_t *old, const bson_t *doc)
{
   sim_coll_t *chunks = sim_coll_ensure ("config", "chunks");
   bson_iter_t a;
   if (!bson_iter_init_find (&a, old, "_id")) {
      return;
   }
   /* the first chunk in storage order with that ObjectId, through the _id index */
   sim_pos_t pos;
   if (!BSON_ITER_HOLDS_OID (&a) || !sim_coll_find_id (chunks, bson_iter_value (&a), &pos)) {
      return;
   }
   if (doc) {
      sim_coll_replace (chunks, pos, doc);
   } else {
      sim_hits_t h = { 0 };
      h.v = &pos;
      h.n = 1;
      sim_coll_delete (chunks, &h);
   }
}

/* A chunk document with new shard/version/history (history newest first; the previous entries kept when
 * keep_history). */
void
sim_chunk_rewrite_doc (const sim_shcoll_t *sc, const bson_t *chunk, const bson_t *min, const bson_t *max,
                       const char *shard, uint32_t major, uint32_t minor, bool new_history, bson_t *out)
{
   bson_t cmin, cmax;
   uint32_t s, i;
   docget_sub (chunk, "min", BSON_TYPE_EOD, &cmin);
   docget_sub (chunk, "max", BSON_TYPE_EOD, &cmax);
   bson_iter_t it;
   uint32_t vs = 0, vi = 0;
   if (!new_history && bson_iter_init (&it, chunk) && bson_iter_find_descendant (&it, "history.0.validAfter", &it) &&
       BSON_ITER_HOLDS_TIMESTAMP (&it)) {
      bson_iter_timestamp (&it, &vs, &vi);
   } else {
      sim_tick (&s, &i);
      vs = s;
      vi = i;
   }
   bson_t tmp = BSON_INITIALIZER;
   sim_chunk_build (sc, min ? min : &cmin, max ? max : &cmax, shard, major, minor, vs, vi, &tmp);
   /* Keep the original _id and, for a move, append the old history after the new entry. */
   bson_iter_t src;
   bson_init (out);
   bson_iter_init (&src, &tmp);
   while (bson_iter_next (&src)) {
      const char *k = bson_iter_key (&src);
      if (!strcmp (k, "_id") && bson_iter_init_find (&it, chunk, "_id")) {
         bson_append_value (out, k, -1, bson_iter_value (&it));
      } else if (!strcmp (k, "history") && new_history && bson_iter_init_find (&it, chunk, "history") &&
                 BSON_ITER_HOLDS_ARRAY (&it)) {
         bson_t arr, old;
         bson_iter_t h;
         uint32_t n = 0;
         bson_append_array_begin (out, "history", -1, &arr);
         bson_t entry = BSON_INITIALIZER;
         BSON_APPEND_TIMESTAMP (&entry, "validAfter", vs, vi);
         BSON_APPEND_UTF8 (&entry, "shard", shard);
         BSON_APPEND_DOCUMENT (&arr, "0", &entry);
         bson_destroy (&entry);
         n = 1;
         docget_sub (chunk, "history", BSON_TYPE_EOD, &old);
         bson_iter_init (&h, &old);
         while (bson_iter_next (&h) && n < 10) {
            char key[16];
            const char *kp;
            bson_uint32_to_string (n++, &kp, key, sizeof key);
            bson_append_value (&arr, kp, -1, bson_iter_value (&h));
         }
         bson_append_array_end (out, &arr);
      } else {
         bson_append_value (out, k, -1, bson_iter_value (&src));
      }
   }
   bson_destroy (&tmp);
}

void
sim_chunk_version_doc (const bson_t *chunk, const sim_shcoll_t *sc, bson_t *out)
{
   bson_t min, max;
   bson_iter_t it;
   docget_sub (chunk, "min", BSON_TYPE_EOD, &min);
   docget_sub (chunk, "max", BSON_TYPE_EOD, &max);
   BSON_APPEND_DOCUMENT (out, "min", &min);
   BSON_APPEND_DOCUMENT (out, "max", &max);
   if (sim_ver_ge (60)) {
      /* appendShortVersion through ChunkVersion::serializeToBSON: lastmod { e: epoch, t: collection timestamp,
       * v: Timestamp (major, minor) } (ChunkVersion60Format) */
      bson_t lm;
      bson_iter_t ts;
      BSON_APPEND_DOCUMENT_BEGIN (out, "lastmod", &lm);
      BSON_APPEND_OID (&lm, "e", &sc->epoch);
      if (bson_iter_init_find (&ts, &sc->doc, "timestamp")) {
         BSON_APPEND_VALUE (&lm, "t", bson_iter_value (&ts));
      }
      if (bson_iter_init_find (&it, chunk, "lastmod")) {
         BSON_APPEND_VALUE (&lm, "v", bson_iter_value (&it));
      }
      bson_append_document_end (out, &lm);
      return;
   }
   /* 4.4/5.0: ChunkVersion::addToBSON, the legacy pair lastmod and lastmodEpoch */
   if (bson_iter_init_find (&it, chunk, "lastmod")) {
      BSON_APPEND_VALUE (out, "lastmod", bson_iter_value (&it));
   }
   BSON_APPEND_OID (out, "lastmodEpoch", &sc->epoch);
}

/* Appends ChunkVersion60Format { e, t, v } of sc's collection with placement (major, minor) as field to out. */
static void
sim_version60 (const sim_shcoll_t *sc, const char *field, uint32_t major, uint32_t minor, bson_t *out)
{
   bson_t v;
   bson_iter_t ts;
   BSON_APPEND_DOCUMENT_BEGIN (out, field, &v);
   BSON_APPEND_OID (&v, "e", &sc->epoch);
   if (bson_iter_init_find (&ts, &sc->doc, "timestamp")) {
      BSON_APPEND_VALUE (&v, "t", bson_iter_value (&ts));
   }
   BSON_APPEND_TIMESTAMP (&v, "v", major, minor);
   bson_append_document_end (out, &v);
}

void
sim_split_before_doc (const bson_t *chunk, const sim_shcoll_t *sc, bson_t *out)
{
   /* commitChunkSplit: before { min, max, lastmod: the collection version } on every version (4.4-era
    * appendLegacyWithField: lastmod and lastmodEpoch; 6.0+ ChunkVersion60Format), not the split chunk's own. */
   bson_t min, max;
   uint32_t major, minor;
   docget_sub (chunk, "min", BSON_TYPE_EOD, &min);
   docget_sub (chunk, "max", BSON_TYPE_EOD, &max);
   BSON_APPEND_DOCUMENT (out, "min", &min);
   BSON_APPEND_DOCUMENT (out, "max", &max);
   sim_chunk_max_version (sc, &major, &minor);
   if (!sim_ver_ge (60)) {
      BSON_APPEND_TIMESTAMP (out, "lastmod", major, minor);
      BSON_APPEND_OID (out, "lastmodEpoch", &sc->epoch);
      return;
   }
   sim_version60 (sc, "lastmod", major, minor, out);
}

void
sim_merge_changelog (const sim_shcoll_t *sc, const bson_t *const *chunks, size_t n, uint32_t major, uint32_t minor,
                     const char *shard)
{
   bson_t details = BSON_INITIALIZER, arr, min, max;
   if (!n) {
      bson_destroy (&details);
      return;
   }
   if (sim_ver_ge (70)) {
      /* logMergeToChangelog */
      sim_version60 (sc, "prevPlacementVersion", major, minor, &details);
      sim_version60 (sc, "mergedVersion", major, minor + 1, &details);
      BSON_APPEND_UTF8 (&details, "owningShard", shard);
      if (docget_sub (chunks[0], "min", BSON_TYPE_EOD, &min) &&
          docget_sub (chunks[n - 1], "max", BSON_TYPE_EOD, &max)) {
         BSON_APPEND_DOCUMENT (&details, "min", &min);
         BSON_APPEND_DOCUMENT (&details, "max", &max);
      }
      BSON_APPEND_INT32 (&details, "numChunks", (int32_t) n);
   } else if (!sim_ver_ge (60)) {
      /* 4.4-era commitChunkMerge: merged [the chunks' toConfigBSON as built for the merge: _id, ns, min, max,
       * shard], then prevShardVersion / mergedVersion through appendLegacyWithField (a Timestamp and a
       * <field>Epoch ObjectId); the later pre-5.0 master revision adds owningShard (5.0 follows it). */
      BSON_APPEND_ARRAY_BEGIN (&details, "merged", &arr);
      for (size_t i = 0; i < n; i++) {
         bson_t v;
         bson_iter_t it;
         char key[16];
         const char *kp;
         bson_uint32_to_string ((uint32_t) i, &kp, key, sizeof key);
         BSON_APPEND_DOCUMENT_BEGIN (&arr, kp, &v);
         if (bson_iter_init_find (&it, chunks[i], "_id")) {
            BSON_APPEND_VALUE (&v, "_id", bson_iter_value (&it));
         }
         BSON_APPEND_UTF8 (&v, "ns", sc->ns);
         if (docget_sub (chunks[i], "min", BSON_TYPE_EOD, &min) && docget_sub (chunks[i], "max", BSON_TYPE_EOD, &max)) {
            BSON_APPEND_DOCUMENT (&v, "min", &min);
            BSON_APPEND_DOCUMENT (&v, "max", &max);
         }
         BSON_APPEND_UTF8 (&v, "shard", shard);
         bson_append_document_end (&arr, &v);
      }
      bson_append_array_end (&details, &arr);
      BSON_APPEND_TIMESTAMP (&details, "prevShardVersion", major, minor);
      BSON_APPEND_OID (&details, "prevShardVersionEpoch", &sc->epoch);
      BSON_APPEND_TIMESTAMP (&details, "mergedVersion", major, minor + 1);
      BSON_APPEND_OID (&details, "mergedVersionEpoch", &sc->epoch);
      if (sim_ver_ge (50)) {
         BSON_APPEND_UTF8 (&details, "owningShard", shard);
      }
   } else {
      /* commitChunksMerge 6.0: the merged chunks' config.chunks documents, ChunkVersion60Format versions */
      BSON_APPEND_ARRAY_BEGIN (&details, "merged", &arr);
      for (size_t i = 0; i < n; i++) {
         char key[16];
         const char *kp;
         bson_uint32_to_string ((uint32_t) i, &kp, key, sizeof key);
         BSON_APPEND_DOCUMENT (&arr, kp, chunks[i]);
      }
      bson_append_array_end (&details, &arr);
      sim_version60 (sc, "prevShardVersion", major, minor, &details);
      sim_version60 (sc, "mergedVersion", major, minor + 1, &details);
      BSON_APPEND_UTF8 (&details, "owningShard", shard);
   }
   sim_changelog (false, "merge", sc->ns, "config", &details, clock_wall_ms ());
   bson_destroy (&details);
}

/* Whether bound has exactly the shard key's fields in order. */
bool
sim_bound_fits (const sim_shcoll_t *sc, const bson_t *bound)
{
   bson_iter_t a, b;
   bson_iter_init (&a, &sc->key);
   bson_iter_init (&b, bound);
   while (bson_iter_next (&a)) {
      if (!bson_iter_next (&b) || strcmp (bson_iter_key (&a), bson_iter_key (&b)) != 0) {
         return false;
      }
   }
   return !bson_iter_next (&b);
}

/* The shard key document of a query such as { uid: 5 } (hashed fields hashed); false when a key field is missing. */
bool
sim_key_from_query (const sim_shcoll_t *sc, const bson_t *query, bson_t *out)
{
   bson_iter_t it;
   bson_init (out);
   bson_iter_init (&it, &sc->key);
   while (bson_iter_next (&it)) {
      bson_value_t v;
      const char *f = bson_iter_key (&it);
      if (!simq_get_path (query, f, &v) || (v.value_type == BSON_TYPE_DOCUMENT && v.value.v_doc.data_len > 5 &&
                                            v.value.v_doc.data[4] == BSON_TYPE_UTF8 && v.value.v_doc.data[5] == '$')) {
         return false;
      }
      if (sc->hashed[0] && !strcmp (f, sc->hashed)) {
         BSON_APPEND_INT64 (out, f, hashkey_value (&v));
      } else {
         BSON_APPEND_VALUE (out, f, &v);
      }
   }
   return true;
}

const char *
sim_chunk_shard (const bson_t *chunk)
{
   const char *s = docget_utf8 (chunk, "shard", NULL);
   return s ? s : "";
}

/* Counts documents (and bytes) of ns inside [min, max). */
typedef struct {
   const bson_t *min, *max;
   int64_t *docs, *bytes;
} sim_range_count_t;

static void
sim_range_count_one (void *data, const bson_t *doc, const bson_t *key)
{
   sim_range_count_t *c = data;
   if (order_docs (c->min, key) <= 0 && order_docs (key, c->max) < 0) {
      (*c->docs)++;
      *c->bytes += doc->len;
   }
}

void
sim_range_counts (const sim_shcoll_t *sc, const bson_t *min, const bson_t *max, int64_t *docs, int64_t *bytes)
{
   sim_range_count_t c = { min, max, docs, bytes };
   *docs = *bytes = 0;
   sim_coll_each_key (sim_coll_get_ns (sc->ns), sc, sim_range_count_one, &c);
}

int64_t
sim_chunk_size_mb (const sim_shcoll_t *sc)
{
   bson_iter_t it;
   if (bson_iter_init_find (&it, &sc->doc, "maxChunkSizeBytes") && BSON_ITER_HOLDS_NUMBER (&it)) {
      return bson_iter_as_int64 (&it) / (1024 * 1024);
   }
   bson_t view;
   if (sim_setting_view ("chunksize", &view)) {
      if (bson_iter_init_find (&it, &view, "value") && BSON_ITER_HOLDS_NUMBER (&it)) {
         return bson_iter_as_int64 (&it);
      }
   }
   return sim_ver_ge (60) ? 128 : 64;
}

bool
sim_chunk_by_id (const bson_oid_t *id, bson_t *out)
{
   sim_coll_t *chunks = sim_coll_get ("config", "chunks");
   for (size_t p = 0; chunks && p < chunks->nparts; p++) {
      for (size_t i = 0; i < chunks->parts[p].docs.n; i++) {
         bson_t view;
         bson_iter_t it;
         sim_pos_t pos = { p, i };
         sim_coll_view (chunks, pos, &view);
         if (bson_iter_init_find (&it, &view, "_id") && BSON_ITER_HOLDS_OID (&it) &&
             bson_oid_equal (bson_iter_oid (&it), id)) {
            bson_copy_to (&view, out);
            return true;
         }
      }
   }
   return false;
}
