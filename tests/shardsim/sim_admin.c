/* shardsim's sharding administration commands (enableSharding, shardCollection, addShard, removeShard, zones,
 * moveChunk, moveRange, split, mergeChunks, balancer control, refine/reshard, analyzeShardKey …): each validates its
 * request with the reference's errors and changes config.* the way the real server's would (chunk versions,
 * history, changelog). The sim_op_* functions are also what the scenarios are built with. Callers hold sim_g.lock. */
#include "tests/shardsim/sim.h"
#include "tests/shardsim/query/simq_int.h"

#include "shell/lib/hashkey.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SIM_ERR(err, code, ...) bson_set_error ((err), SIMQ_ERROR_DOMAIN, (uint32_t) (code), __VA_ARGS__)

/* ---- small document helpers ---- */

static bool
sim_sub (const bson_t *doc, const char *field, bson_t *out)
{
   bson_iter_t it;
   uint32_t l;
   const uint8_t *d;
   if (!bson_iter_init_find (&it, doc, field)) {
      return false;
   }
   if (BSON_ITER_HOLDS_DOCUMENT (&it)) {
      bson_iter_document (&it, &l, &d);
   } else if (BSON_ITER_HOLDS_ARRAY (&it)) {
      bson_iter_array (&it, &l, &d);
   } else {
      return false;
   }
   return bson_init_static (out, d, l);
}

/* True when some index of coll (which may be NULL) has a key that starts with the fields of key, in order: the
 * supporting index the server requires for a shard key. With same_kind, each field must also be of the same kind
 * (hashed, written as a string, or ranged). */
static bool
sim_has_prefix_index (const sim_coll_t *coll, const bson_t *key, bool same_kind)
{
   for (size_t i = 0; coll && i < coll->indexes.n; i++) {
      bson_t ik;
      bson_iter_t a, b;
      bool prefix = true;
      if (!sim_sub (coll->indexes.v[i], "key", &ik)) {
         continue;
      }
      bson_iter_init (&a, key);
      bson_iter_init (&b, &ik);
      while (prefix && bson_iter_next (&a)) {
         prefix = bson_iter_next (&b) && !strcmp (bson_iter_key (&a), bson_iter_key (&b)) &&
                  (!same_kind || BSON_ITER_HOLDS_UTF8 (&a) == BSON_ITER_HOLDS_UTF8 (&b));
      }
      if (prefix) {
         return true;
      }
   }
   return false;
}

const char *
sim_str (const bson_t *doc, const char *field)
{
   bson_iter_t it;
   if (bson_iter_init_find (&it, doc, field) && BSON_ITER_HOLDS_UTF8 (&it)) {
      return bson_iter_utf8 (&it, NULL);
   }
   return NULL;
}

static bool
sim_has (const bson_t *doc, const char *field)
{
   bson_iter_t it;
   return bson_iter_init_find (&it, doc, field) && !BSON_ITER_HOLDS_NULL (&it);
}

/* Whether a config.collections document forbids migrations (setAllowMigrations false): permitMigrations from 5.0,
 * allowMigrations in 4.4. */
bool
sim_migrations_forbidden (const bson_t *coll_doc)
{
   bson_iter_t it;
   return (bson_iter_init_find (&it, coll_doc, "permitMigrations") && !bson_iter_as_bool (&it)) ||
          (bson_iter_init_find (&it, coll_doc, "allowMigrations") && !bson_iter_as_bool (&it));
}

/* Copies doc into out with the fields of set replaced in place (or appended) and the fields named in unset (a
 * NULL-terminated list, may be NULL) removed. */
static void
sim_doc_set (const bson_t *doc, const bson_t *set, const char *const *unset, bson_t *out)
{
   bson_iter_t it, s;
   bson_init (out);
   bson_iter_init (&it, doc);
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      bool drop = false;
      for (int i = 0; unset && unset[i]; i++) {
         drop = drop || !strcmp (unset[i], k);
      }
      if (drop) {
         continue;
      }
      if (set && bson_iter_init_find (&s, set, k)) {
         bson_append_value (out, k, -1, bson_iter_value (&s));
      } else {
         bson_append_value (out, k, -1, bson_iter_value (&it));
      }
   }
   if (set) {
      bson_iter_init (&s, set);
      while (bson_iter_next (&s)) {
         if (!bson_iter_init_find (&it, doc, bson_iter_key (&s))) {
            bson_append_value (out, bson_iter_key (&s), -1, bson_iter_value (&s));
         }
      }
   }
}

/* Finds the document of coll whose _id is the string id. */
static bool
sim_find_by_sid (sim_coll_t *coll, const char *id, sim_pos_t *pos)
{
   for (size_t p = 0; coll && p < coll->nparts; p++) {
      for (size_t i = 0; i < coll->parts[p].docs.n; i++) {
         bson_t view;
         sim_pos_t at = { p, i };
         sim_coll_view (coll, at, &view);
         const char *s = sim_str (&view, "_id");
         if (s && !strcmp (s, id)) {
            *pos = at;
            return true;
         }
      }
   }
   return false;
}

bool
sim_setting_view (const char *id, bson_t *view)
{
   sim_coll_t *settings = sim_coll_get ("config", "settings");
   sim_pos_t pos;
   if (!settings || !sim_find_by_sid (settings, id, &pos)) {
      return false;
   }
   sim_coll_view (settings, pos, view);
   return true;
}

/* Applies set/unset to the document with string _id id in config.<name>; upserts { _id: id, …set } when absent
 * and upsert is true. */
static void
sim_config_update (const char *name, const char *id, const bson_t *set, const char *const *unset, bool upsert)
{
   sim_coll_t *coll = sim_coll_ensure ("config", name);
   sim_pos_t pos;
   bson_t out;
   if (sim_find_by_sid (coll, id, &pos)) {
      bson_t view;
      sim_coll_view (coll, pos, &view);
      sim_doc_set (&view, set, unset, &out);
      sim_coll_replace (coll, pos, &out);
      bson_destroy (&out);
   } else if (upsert) {
      bson_t base = BSON_INITIALIZER;
      BSON_APPEND_UTF8 (&base, "_id", id);
      sim_doc_set (&base, set, unset, &out);
      sim_coll_insert (coll, &out);
      bson_destroy (&out);
      bson_destroy (&base);
   }
}

/* Splits "db.coll"; false when it is not a valid namespace. */
static bool
sim_split_ns (const char *ns, char *db, size_t dblen, const char **coll)
{
   const char *dot = ns ? strchr (ns, '.') : NULL;
   if (!dot || dot == ns || !dot[1] || (size_t) (dot - ns) >= dblen) {
      return false;
   }
   memcpy (db, ns, (size_t) (dot - ns));
   db[dot - ns] = '\0';
   *coll = dot + 1;
   return strpbrk (db, " /\\\"$") == NULL;
}

static void
sim_admin_error (bson_t *reply, const bson_error_t *err)
{
   sim_reply_error (reply, (int) err->code, "%s", err->message);
}

/* ---- chunks ---- */

static int
sim_doc_ptr_cmp_min (const void *a, const void *b)
{
   const bson_t *x = *(bson_t *const *) a, *y = *(bson_t *const *) b;
   bson_t mx, my;
   if (!sim_sub (x, "min", &mx) || !sim_sub (y, "min", &my)) {
      return 0;
   }
   return order_docs (&mx, &my);
}

/* All chunks of sc, sorted by min. */
static void
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
   sim_hits_free (&hits);
   bson_destroy (&filter);
   if (out->n > 1) {
      qsort (out->v, out->n, sizeof *out->v, sim_doc_ptr_cmp_min);
   }
}

/* Replaces (doc != NULL) or deletes (doc == NULL) the chunk whose _id equals that of old. */
static void
sim_chunk_put (const bson_t *old, const bson_t *doc)
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
static void
sim_chunk_rewrite (const sim_shcoll_t *sc, const bson_t *chunk, const bson_t *min, const bson_t *max, const char *shard,
                   uint32_t major, uint32_t minor, bool new_history, bson_t *out)
{
   bson_t cmin, cmax;
   uint32_t s, i;
   sim_sub (chunk, "min", &cmin);
   sim_sub (chunk, "max", &cmax);
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
         sim_sub (chunk, "history", &old);
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

static void
sim_version_doc (const bson_t *chunk, const sim_shcoll_t *sc, bson_t *out)
{
   bson_t min, max;
   bson_iter_t it;
   sim_sub (chunk, "min", &min);
   sim_sub (chunk, "max", &max);
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
   if (!sim_ver_ge (60)) {
      sim_version_doc (chunk, sc, out);
      return;
   }
   /* commitChunkSplit from 6.0: before { min, max, lastmod: the collection version } */
   bson_t min, max;
   uint32_t major, minor;
   sim_sub (chunk, "min", &min);
   sim_sub (chunk, "max", &max);
   BSON_APPEND_DOCUMENT (out, "min", &min);
   BSON_APPEND_DOCUMENT (out, "max", &max);
   sim_chunk_max_version (sc, &major, &minor);
   sim_version60 (sc, "lastmod", major, minor, out);
}

void
sim_merge_changelog (const sim_shcoll_t *sc, const bson_t *const *chunks, size_t n, uint32_t major, uint32_t minor,
                     const char *shard)
{
   bson_t details = BSON_INITIALIZER, arr, ver, min, max;
   if (!n) {
      bson_destroy (&details);
      return;
   }
   if (sim_ver_ge (70)) {
      /* logMergeToChangelog */
      sim_version60 (sc, "prevPlacementVersion", major, minor, &details);
      sim_version60 (sc, "mergedVersion", major, minor + 1, &details);
      BSON_APPEND_UTF8 (&details, "owningShard", shard);
      if (sim_sub (chunks[0], "min", &min) && sim_sub (chunks[n - 1], "max", &max)) {
         BSON_APPEND_DOCUMENT (&details, "min", &min);
         BSON_APPEND_DOCUMENT (&details, "max", &max);
      }
      BSON_APPEND_INT32 (&details, "numChunks", (int32_t) n);
   } else {
      BSON_APPEND_ARRAY_BEGIN (&details, "merged", &arr);
      for (size_t i = 0; i < n; i++) {
         bson_t v;
         char key[16];
         const char *kp;
         bson_uint32_to_string ((uint32_t) i, &kp, key, sizeof key);
         if (sim_ver_ge (60)) {
            /* commitChunksMerge 6.0: the merged chunks' config.chunks documents */
            BSON_APPEND_DOCUMENT (&arr, kp, chunks[i]);
            continue;
         }
         BSON_APPEND_DOCUMENT_BEGIN (&arr, kp, &v);
         sim_version_doc (chunks[i], sc, &v);
         bson_append_document_end (&arr, &v);
      }
      bson_append_array_end (&details, &arr);
      if (sim_ver_ge (60)) {
         sim_version60 (sc, "prevShardVersion", major, minor, &details);
         sim_version60 (sc, "mergedVersion", major, minor + 1, &details);
      } else {
         BSON_APPEND_DOCUMENT_BEGIN (&details, "mergedVersion", &ver);
         BSON_APPEND_TIMESTAMP (&ver, "lastmod", major, minor + 1);
         bson_append_document_end (&details, &ver);
      }
      BSON_APPEND_UTF8 (&details, "owningShard", shard);
   }
   sim_changelog (false, "merge", sc->ns, "config", &details, clock_wall_ms ());
   bson_destroy (&details);
}

/* Whether bound has exactly the shard key's fields in order. */
static bool
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
static bool
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

static const char *
sim_chunk_shard (const bson_t *chunk)
{
   const char *s = sim_str (chunk, "shard");
   return s ? s : "";
}

/* The zone whose range contains [min, max) of ns, or NULL; zone copied into out. */
static bool
sim_zone_of_range (const char *ns, const bson_t *min, const bson_t *max, char *out, size_t outlen)
{
   sim_coll_t *tags = sim_coll_get ("config", "tags");
   bson_t filter = BSON_INITIALIZER;
   bson_error_t err;
   sim_hits_t hits = { 0 };
   bool found = false;
   BSON_APPEND_UTF8 (&filter, "ns", ns);
   if (tags && sim_coll_match (tags, &filter, 0, &hits, &err)) {
      for (size_t i = 0; i < hits.n && !found; i++) {
         bson_t view, tmin, tmax;
         sim_coll_view (tags, hits.v[i], &view);
         if (sim_sub (&view, "min", &tmin) && sim_sub (&view, "max", &tmax) && order_docs (&tmin, min) <= 0 &&
             order_docs (max, &tmax) <= 0 && sim_str (&view, "tag")) {
            bson_strncpy (out, sim_str (&view, "tag"), outlen);
            found = true;
         }
      }
   }
   sim_hits_free (&hits);
   bson_destroy (&filter);
   return found;
}

static bool
sim_shard_has_zone (const char *shard, const char *zone)
{
   bson_t doc, tags;
   bool yes = false;
   if (!sim_shard_get (shard, &doc)) {
      return false;
   }
   if (sim_sub (&doc, "tags", &tags)) {
      bson_iter_t it;
      bson_iter_init (&it, &tags);
      while (bson_iter_next (&it)) {
         yes = yes || (BSON_ITER_HOLDS_UTF8 (&it) && !strcmp (bson_iter_utf8 (&it, NULL), zone));
      }
   }
   bson_destroy (&doc);
   return yes;
}

static bool
sim_shard_draining (const char *shard)
{
   bson_t doc;
   bson_iter_t it;
   bool yes = false;
   if (sim_shard_get (shard, &doc)) {
      yes = bson_iter_init_find (&it, &doc, "draining") && bson_iter_as_bool (&it);
      bson_destroy (&doc);
   }
   return yes;
}

/* The details of a moveChunk.to (8 steps) or moveChunk.from (6 steps) changelog entry, as the shards write them:
 * "step i of n" timings in ms (the cloning step, clone_step, takes clone_ms; the others 0), the range, both shards
 * and the success note. d is initialised by the caller. */
static void
sim_migration_steps (bson_t *d, int nsteps, int clone_step, int64_t clone_ms, const bson_t *min, const bson_t *max,
                     const char *to, const char *from)
{
   for (int step = 1; step <= nsteps; step++) {
      char k[32];
      bson_snprintf (k, sizeof k, "step %d of %d", step, nsteps);
      BSON_APPEND_INT32 (d, k, step == clone_step ? (int32_t) clone_ms : 0);
   }
   BSON_APPEND_DOCUMENT (d, "min", min);
   BSON_APPEND_DOCUMENT (d, "max", max);
   BSON_APPEND_UTF8 (d, "to", to);
   BSON_APPEND_UTF8 (d, "from", from);
   BSON_APPEND_UTF8 (d, "note", "success");
}

/* Counts documents (and bytes) of ns inside [min, max). */
static void
sim_range_counts (const sim_shcoll_t *sc, const bson_t *min, const bson_t *max, int64_t *docs, int64_t *bytes)
{
   *docs = *bytes = 0;
   sim_coll_t *coll = sim_coll_get_ns (sc->ns);
   for (size_t p = 0; coll && p < coll->nparts; p++) {
      for (size_t i = 0; i < coll->parts[p].docs.n; i++) {
         bson_t view, key;
         sim_pos_t at = { p, i };
         sim_coll_view (coll, at, &view);
         sim_shard_key_of (sc, &view, &key);
         if (order_docs (min, &key) <= 0 && order_docs (&key, max) < 0) {
            (*docs)++;
            *bytes += view.len;
         }
         bson_destroy (&key);
      }
   }
}

void
sim_migrate_log_start (const sim_shcoll_t *sc, const bson_t *min, const bson_t *max, const char *from, const char *to)
{
   bson_t details = BSON_INITIALIZER;
   BSON_APPEND_DOCUMENT (&details, "min", min);
   BSON_APPEND_DOCUMENT (&details, "max", max);
   BSON_APPEND_UTF8 (&details, "from", from);
   BSON_APPEND_UTF8 (&details, "to", to);
   sim_changelog (false, "moveChunk.start", sc->ns, from, &details, clock_wall_ms ());
   bson_destroy (&details);
}

/* commitChunkMigration: moves [lo, hi) (NULL: the chunk's own bounds) of chunk to shard to. The moved range keeps
 * the chunk's _id and gets (major + 1, 0); from 6.0 (moveRange) the parts of the chunk left and right of it stay on
 * the donor as new chunks with (major + 1, 1), (major + 1, 2) and the chunk's history; then one other chunk of the
 * donor, the control chunk, gets the next minor. Writes moveChunk.start (log_start), .to, .commit and .from. */
static void
sim_migrate_commit_range (const sim_shcoll_t *sc, const bson_t *chunk, const bson_t *lo, const bson_t *hi,
                          const char *to, bool log_start, int64_t ndocs, int64_t nbytes, int64_t clone_ms)
{
   char from[64];
   uint32_t major, minor, next = 1;
   bson_t cmin, cmax, moved, details = BSON_INITIALIZER, counts;
   int64_t now = clock_wall_ms ();
   bson_strncpy (from, sim_chunk_shard (chunk), sizeof from);
   sim_sub (chunk, "min", &cmin);
   sim_sub (chunk, "max", &cmax);
   const bson_t *min = lo ? lo : &cmin, *max = hi ? hi : &cmax;
   if (ndocs < 0 || nbytes < 0) {
      sim_range_counts (sc, min, max, &ndocs, &nbytes);
   }
   if (log_start) {
      sim_migrate_log_start (sc, min, max, from, to);
   }
   BSON_APPEND_DOCUMENT (&details, "min", min);
   BSON_APPEND_DOCUMENT (&details, "max", max);
   BSON_APPEND_UTF8 (&details, "from", from);
   BSON_APPEND_UTF8 (&details, "to", to);

   sim_chunk_max_version (sc, &major, &minor);
   simq_docs_t all;
   simq_docs_init (&all);
   sim_chunks_of (sc, &all);
   /* the pieces of a moved range: left, then right */
   const bson_t *piece_lo[2] = { &cmin, max }, *piece_hi[2] = { min, &cmax };
   for (int k = 0; k < 2; k++) {
      if (order_docs (piece_lo[k], piece_hi[k]) >= 0) {
         continue;
      }
      bson_t piece, piece2 = BSON_INITIALIZER;
      bson_oid_t oid;
      sim_chunk_rewrite (sc, chunk, piece_lo[k], piece_hi[k], from, major + 1, next++, false, &piece);
      bson_oid_init (&oid, NULL);
      BSON_APPEND_OID (&piece2, "_id", &oid);
      bson_copy_to_excluding_noinit (&piece, &piece2, "_id", NULL);
      sim_coll_insert (sim_coll_ensure ("config", "chunks"), &piece2);
      bson_destroy (&piece2);
      bson_destroy (&piece);
   }
   /* The donor's control chunk (one other chunk of the donor, taken before the commit) gets the next minor. */
   for (size_t i = 0; i < all.n; i++) {
      bson_t omin;
      sim_sub (all.v[i], "min", &omin);
      if (!strcmp (sim_chunk_shard (all.v[i]), from) && order_docs (&omin, &cmin) != 0) {
         bson_t bumped;
         sim_chunk_rewrite (sc, all.v[i], NULL, NULL, from, major + 1, next, false, &bumped);
         sim_chunk_put (all.v[i], &bumped);
         bson_destroy (&bumped);
         break;
      }
   }
   simq_docs_clear (&all);
   sim_chunk_rewrite (sc, chunk, min, max, to, major + 1, 0, true, &moved);
   sim_chunk_put (chunk, &moved);
   bson_destroy (&moved);

   bson_t to_details = BSON_INITIALIZER;
   sim_migration_steps (&to_details, 8, 5, clone_ms > 0 ? clone_ms : 2, min, max, to, from);
   sim_changelog (false, "moveChunk.to", sc->ns, to, &to_details, now);
   bson_destroy (&to_details);

   BSON_APPEND_DOCUMENT_BEGIN (&details, "counts", &counts);
   BSON_APPEND_INT64 (&counts, "cloned", ndocs);
   BSON_APPEND_INT64 (&counts, "clonedBytes", nbytes);
   BSON_APPEND_INT64 (&counts, "catchup", 0);
   BSON_APPEND_INT64 (&counts, "steady", 0);
   bson_append_document_end (&details, &counts);
   sim_changelog (false, "moveChunk.commit", sc->ns, from, &details, now);
   bson_destroy (&details);

   bson_t from_details = BSON_INITIALIZER;
   sim_migration_steps (&from_details, 6, 4, clone_ms > 0 ? clone_ms : 3, min, max, to, from);
   sim_changelog (false, "moveChunk.from", sc->ns, from, &from_details, now);
   bson_destroy (&from_details);
}

void
sim_migrate_commit (const sim_shcoll_t *sc, const bson_t *chunk, const char *to, bool log_start, int64_t ndocs,
                    int64_t nbytes, int64_t clone_ms)
{
   sim_migrate_commit_range (sc, chunk, NULL, NULL, to, log_start, ndocs, nbytes, clone_ms);
}

/* Moves chunk (a config.chunks document of sc) to shard to, with the migration's changelog. */
static void
sim_move_chunk_doc (const sim_shcoll_t *sc, const bson_t *chunk, const char *to)
{
   sim_migrate_commit (sc, chunk, to, true, -1, -1, 0);
}

/* Checks whether chunk may move to shard to (exists, not draining, zone); err set when not. */
static bool
sim_check_destination (const sim_shcoll_t *sc, const bson_t *chunk, const char *to, bson_error_t *err)
{
   bson_t min, max;
   char zone[128];
   if (!sim_shard_get (to, NULL)) {
      SIM_ERR (err, 70, "Shard %s not found", to);
      return false;
   }
   if (sim_shard_draining (to)) {
      SIM_ERR (err, 20, "Destination shard %s is draining", to);
      return false;
   }
   sim_sub (chunk, "min", &min);
   sim_sub (chunk, "max", &max);
   if (sim_zone_of_range (sc->ns, &min, &max, zone, sizeof zone) && !sim_shard_has_zone (to, zone)) {
      char *smin = sim_bson_str (&min), *smax = sim_bson_str (&max);
      SIM_ERR (err, 20, "Chunk [%s, %s) of %s belongs to zone %s, which shard %s is not part of", smin, smax, sc->ns,
               zone, to);
      bson_free (smin);
      bson_free (smax);
      return false;
   }
   if (sim_migrations_forbidden (&sc->doc)) {
      SIM_ERR (err, 117, "Collection is undergoing changes so moveChunk is not allowed.");
      return false;
   }
   return true;
}

/* The checks of a manual moveChunk/moveRange once the chunk is known. 4.4/5.0: the config server's
 * Balancer::moveSingleChunk runs BalancerChunkSelectionPolicy::checkMoveAllowed, i.e.
 * BalancerPolicy::isShardSuitableReceiver (20 "X is currently draining." / "X is not in the correct zone Z"). 6.0+:
 * _configsvrMoveRange (Balancer::moveRange) checks neither: zones are not checked at all, and a draining recipient
 * is refused only when the migration commits (70). The donor's allowMigrations check applies to all. */
static bool
sim_check_manual_move (const sim_shcoll_t *sc, const bson_t *chunk, const char *to, bson_error_t *err)
{
   bson_t min, max;
   char zone[128];
   if (!sim_ver_ge (60)) {
      if (sim_shard_draining (to)) {
         SIM_ERR (err, 20, "%s is currently draining.", to);
         return false;
      }
      sim_sub (chunk, "min", &min);
      sim_sub (chunk, "max", &max);
      if (sim_zone_of_range (sc->ns, &min, &max, zone, sizeof zone) && !sim_shard_has_zone (to, zone)) {
         SIM_ERR (err, 20, "%s is not in the correct zone %s", to, zone);
         return false;
      }
   } else if (sim_shard_draining (to)) {
      /* 6.0+: only the commit refuses it (ShardingCatalogManager::commitChunkMigration, ShardNotFound). */
      SIM_ERR (err, 70, "Shard %s is currently draining", to);
      return false;
   }
   if (sim_migrations_forbidden (&sc->doc)) {
      SIM_ERR (err, 117, "Collection is undergoing changes so moveChunk is not allowed.");
      return false;
   }
   return true;
}

/* The donor's size check of a migration (MigrationChunkClonerSource::_storeCurrentRecordId): with avg the donor's
 * average document size of the collection, a chunk of more than 2 * max (chunk size / avg, 1) documents (250001 when
 * the donor holds none) fails with 153 ChunkTooBig, unless forceJumbo (then startClone clones it as a jumbo chunk).
 * max_chunk_bytes <= 0 takes the collection's chunk size. */
static bool
sim_check_range_size (const sim_shcoll_t *sc, const bson_t *min, const bson_t *max, int64_t ndocs,
                      int64_t max_chunk_bytes, bool force_jumbo, bson_error_t *err);

static bool
sim_check_chunk_size (const sim_shcoll_t *sc, const bson_t *chunk, int64_t max_chunk_bytes, bool force_jumbo,
                      bson_error_t *err)
{
   bson_t min, max;
   if (!sim_sub (chunk, "min", &min) || !sim_sub (chunk, "max", &max)) {
      return true;
   }
   return sim_check_range_size (sc, &min, &max, -1, max_chunk_bytes, force_jumbo, err);
}

/* The average document size of sc's documents on shard (0 when it holds none), from the chunk table. */
static int64_t
sim_donor_avg_size (const sim_shcoll_t *sc, const char *shard)
{
   sim_coll_t *coll = sim_coll_get_ns (sc->ns);
   sim_ctab_t *t = coll ? sim_ctab_get (coll) : NULL;
   int64_t total = 0, bytes = 0;
   for (size_t k = 0; t && k < t->n; k++) {
      if (!strcmp (t->v[k].shard, shard)) {
         total += t->v[k].docs;
         bytes += t->v[k].bytes;
      }
   }
   return total > 0 ? (bytes / total > 0 ? bytes / total : 5) : 0;
}

/* As sim_check_chunk_size for the range [min, max) of the chunk holding min, with ndocs documents (-1: the whole
 * chunk's count from the chunk table). */
static bool
sim_check_range_size (const sim_shcoll_t *sc, const bson_t *min_in, const bson_t *max_in, int64_t ndocs,
                      int64_t max_chunk_bytes, bool force_jumbo, bson_error_t *err)
{
   sim_coll_t *coll = sim_coll_get_ns (sc->ns);
   sim_ctab_t *t = coll ? sim_ctab_get (coll) : NULL;
   const bson_t *min = min_in, *max = max_in;
   if (force_jumbo || !t) {
      return true;
   }
   size_t i = sim_ctab_locate (t, min);
   if (i == SIZE_MAX) {
      return true;
   }
   const char *donor = t->v[i].shard;
   int64_t total = 0, bytes = 0;
   for (size_t k = 0; k < t->n; k++) {
      if (!strcmp (t->v[k].shard, donor)) {
         total += t->v[k].docs;
         bytes += t->v[k].bytes;
      }
   }
   int64_t cs = max_chunk_bytes > 0 ? max_chunk_bytes : sim_chunk_size_bytes (sc);
   int64_t avg = 0, max_recs = 250001;
   if (total > 0) {
      avg = bytes / total > 0 ? bytes / total : 5; /* BSONObj::kMinBSONLength */
      max_recs = 2 * (cs / avg > 1 ? cs / avg : 1);
   }
   if (ndocs < 0) {
      ndocs = t->v[i].docs;
   }
   if (ndocs <= max_recs) {
      return true;
   }
   char *a = sim_bson_str (min), *b = sim_bson_str (max);
   SIM_ERR (err, 153,
            "Cannot move chunk: the maximum number of documents for a chunk is %lld, the maximum chunk size is %lld, "
            "average document size is %lld. Found %lld documents in chunk  ns: %s %s -> %s",
            (long long) max_recs, (long long) cs, (long long) avg, (long long) ndocs, sc->ns, a, b);
   bson_free (a);
   bson_free (b);
   return false;
}

/* Splits the chunk containing middle at middle. errmsg-only failures use code 0. */
static bool
sim_split_at (const sim_shcoll_t *sc, const bson_t *middle, bson_error_t *err)
{
   bson_t chunk, min, max;
   if (!sim_chunk_find (sc, middle, &chunk, NULL)) {
      char *s = sim_bson_str (middle);
      SIM_ERR (err, 0, "no chunk found for split key %s", s);
      bson_free (s);
      return false;
   }
   sim_sub (&chunk, "min", &min);
   sim_sub (&chunk, "max", &max);
   if (order_docs (&min, middle) == 0) {
      char *s = sim_bson_str (middle), *a = sim_bson_str (&min), *b = sim_bson_str (&max);
      SIM_ERR (err, 0, "new split key %s is a boundary key of existing chunk [%s,%s)", s, a, b);
      bson_free (s);
      bson_free (a);
      bson_free (b);
      bson_destroy (&chunk);
      return false;
   }
   uint32_t major, minor;
   sim_chunk_max_version (sc, &major, &minor);
   const char *shard = sim_chunk_shard (&chunk);
   bson_t left, right, details = BSON_INITIALIZER, sub;
   sim_chunk_rewrite (sc, &chunk, NULL, middle, shard, major, minor + 1, false, &left);
   sim_chunk_rewrite (sc, &chunk, middle, NULL, shard, major, minor + 2, false, &right);
   /* The right half is a new chunk: give it its own _id. */
   bson_t right2 = BSON_INITIALIZER;
   bson_oid_t oid;
   bson_oid_init (&oid, NULL);
   BSON_APPEND_OID (&right2, "_id", &oid);
   bson_copy_to_excluding_noinit (&right, &right2, "_id", NULL);
   BSON_APPEND_DOCUMENT_BEGIN (&details, "before", &sub);
   sim_split_before_doc (&chunk, sc, &sub);
   bson_append_document_end (&details, &sub);
   BSON_APPEND_DOCUMENT_BEGIN (&details, "left", &sub);
   sim_version_doc (&left, sc, &sub);
   bson_append_document_end (&details, &sub);
   BSON_APPEND_DOCUMENT_BEGIN (&details, "right", &sub);
   sim_version_doc (&right2, sc, &sub);
   bson_append_document_end (&details, &sub);
   BSON_APPEND_UTF8 (&details, "owningShard", shard);
   sim_chunk_put (&chunk, &left);
   sim_coll_insert (sim_coll_ensure ("config", "chunks"), &right2);
   sim_changelog (false, "split", sc->ns, "config", &details, clock_wall_ms ());
   bson_destroy (&right2);
   bson_destroy (&details);
   bson_destroy (&left);
   bson_destroy (&right);
   bson_destroy (&chunk);
   return true;
}

static int
sim_key_doc_cmp (const void *a, const void *b)
{
   return order_docs (*(bson_t *const *) a, *(bson_t *const *) b);
}

/* The median shard key of the documents inside chunk; false (CannotSplit) when it cannot be split. */
static bool
sim_chunk_median (const sim_shcoll_t *sc, const bson_t *chunk, bson_t *out, bson_error_t *err)
{
   bson_t min, max;
   simq_docs_t keys;
   simq_docs_init (&keys);
   sim_sub (chunk, "min", &min);
   sim_sub (chunk, "max", &max);
   sim_coll_t *coll = sim_coll_get_ns (sc->ns);
   for (size_t p = 0; coll && p < coll->nparts; p++) {
      for (size_t i = 0; i < coll->parts[p].docs.n; i++) {
         bson_t view, key;
         sim_pos_t at = { p, i };
         sim_coll_view (coll, at, &view);
         sim_shard_key_of (sc, &view, &key);
         if (order_docs (&min, &key) <= 0 && order_docs (&key, &max) < 0) {
            simq_docs_push_copy (&keys, &key);
         }
         bson_destroy (&key);
      }
   }
   bool ok = false;
   /* Sort keys by value (the documents are shard-key documents, so compare them whole). */
   if (keys.n > 1) {
      qsort (keys.v, keys.n, sizeof *keys.v, sim_key_doc_cmp);
   }
   if (keys.n >= 2) {
      size_t m = keys.n / 2;
      /* Move forward past keys equal to min so the split point is not a chunk boundary. */
      while (m < keys.n && order_docs (keys.v[m], &min) == 0) {
         m++;
      }
      if (m < keys.n && order_docs (keys.v[0], keys.v[keys.n - 1]) != 0) {
         bson_copy_to (keys.v[m], out);
         ok = true;
      }
   }
   if (!ok) {
      SIM_ERR (err, 87, "Unable to find median in chunk because chunk is indivisible.");
   }
   simq_docs_clear (&keys);
   return ok;
}

/* ---- sim_op_*: the operations, shared by the commands and the scenarios ---- */

/* calculateHashedSplitPoints' values for n chunks, sorted: symmetric around 0 (0 itself when n is even), n - 1 of
 * them into out (room for n). Returns how many. */
static size_t
sim_hashed_split_values (int n, int64_t *out)
{
   size_t k = 0;
   if (n <= 1) {
      return 0;
   }
   int64_t interval = (INT64_MAX / n) * 2, cur = 0;
   if (n % 2 == 0) {
      out[k++] = 0;
      cur += interval;
   } else {
      cur += interval / 2;
   }
   for (int j = 0; j < (n - 1) / 2; j++) {
      out[k++] = cur;
      out[k++] = -cur;
      cur += interval;
   }
   for (size_t a = 1; a < k; a++) {
      for (size_t b = a; b > 0 && out[b - 1] > out[b]; b--) {
         int64_t t = out[b];
         out[b] = out[b - 1];
         out[b - 1] = t;
      }
   }
   return k;
}

/* A split point of sc's key: the fields of prefix_from before the hashed field, the hashed field = value, MinKey for
 * the fields after it. out is initialised by the caller. */
static void
sim_hashed_point (const sim_shcoll_t *sc, const bson_t *prefix_from, int64_t value, bson_t *out)
{
   bson_iter_t k, v;
   bool after = false;
   bson_iter_init (&k, &sc->key);
   while (bson_iter_next (&k)) {
      const char *f = bson_iter_key (&k);
      if (after) {
         BSON_APPEND_MINKEY (out, f);
      } else if (!strcmp (f, sc->hashed)) {
         BSON_APPEND_INT64 (out, f, value);
         after = true;
      } else if (bson_iter_init_find (&v, prefix_from, f)) {
         bson_append_value (out, f, -1, bson_iter_value (&v));
      } else {
         BSON_APPEND_MINKEY (out, f);
      }
   }
}

bool
sim_op_shard_collection (const char *ns, const bson_t *key, bool unique, int nchunks, bool presplit_zones,
                         bson_error_t *err)
{
   char db[128], primary[64];
   const char *cname;
   bson_iter_t it;
   if (!sim_split_ns (ns, db, sizeof db, &cname)) {
      SIM_ERR (err, 73, "Invalid namespace specified '%s'", ns);
      return false;
   }
   /* Key pattern: ascending fields or exactly one hashed field. */
   int nfields = 0, nhashed = 0;
   bool bad = false;
   bson_iter_init (&it, key);
   while (bson_iter_next (&it)) {
      nfields++;
      if (BSON_ITER_HOLDS_UTF8 (&it) && !strcmp (bson_iter_utf8 (&it, NULL), "hashed")) {
         nhashed++;
      } else if (!BSON_ITER_HOLDS_NUMBER (&it) || bson_iter_as_double (&it) != 1.0) {
         bad = true;
      }
   }
   if (nfields == 0) {
      SIM_ERR (err, 72, "cannot have empty shard key");
      return false;
   }
   if (bad || nhashed > 1) {
      char *s = sim_bson_str (key);
      SIM_ERR (err, 72,
               "Unsupported shard key pattern %s. Pattern must either be a single hashed field, or a list of "
               "ascending fields",
               s);
      bson_free (s);
      return false;
   }
   if (nhashed && unique) {
      SIM_ERR (err, 72,
               "Hashed shard keys cannot be declared unique. It's possible to ensure uniqueness on the hashed field by "
               "declaring an additional (non-hashed) unique index on the field.");
      return false;
   }
   if (!strcmp (db, "admin") || !strcmp (db, "local") ||
       (!strcmp (db, "config") && strcmp (cname, "system.sessions") != 0)) {
      SIM_ERR (err, 20, "can't shard %s database", db);
      return false;
   }
   sim_shcoll_t sc;
   if (sim_shcoll_load (ns, &sc)) {
      bool same = bson_equal (&sc.key, key) && sc.unique == unique;
      sim_shcoll_destroy (&sc);
      if (same) {
         return true;
      }
      if (sim_ver_ge (50)) {
         SIM_ERR (err, 23, "sharding already enabled for collection %s", ns);
      } else {
         char *s = sim_bson_str (key);
         SIM_ERR (err, 23, "sharding already enabled for collection %s with options { shardKey: %s, unique: %s }", ns,
                  s, unique ? "true" : "false");
         bson_free (s);
      }
      return false;
   }
   sim_shcoll_destroy (&sc);
   if (!sim_ver_ge (60) && strcmp (db, "config") != 0) {
      sim_coll_t *dbs = sim_coll_get ("config", "databases");
      sim_pos_t pos;
      bool partitioned = false;
      if (dbs && sim_find_by_sid (dbs, db, &pos)) {
         bson_t view;
         sim_coll_view (dbs, pos, &view);
         partitioned = bson_iter_init_find (&it, &view, "partitioned") && bson_iter_as_bool (&it);
      }
      if (!partitioned) {
         SIM_ERR (err, 20, "sharding not enabled for db %s", db);
         return false;
      }
   }
   if (!sim_db_ensure (db, primary)) {
      SIM_ERR (err, 70, "No shards found");
      return false;
   }
   if (!strcmp (db, "config")) {
      /* config.system.sessions lives on a shard (the first), not on the config server. */
      simq_docs_t shards;
      simq_docs_init (&shards);
      sim_shards_list (&shards);
      if (shards.n && sim_str (shards.v[0], "_id")) {
         bson_strncpy (primary, sim_str (shards.v[0], "_id"), sizeof primary);
      }
      simq_docs_clear (&shards);
   }
   bool existed = sim_coll_get (db, cname) != NULL;
   sim_coll_t *coll = sim_coll_ensure (db, cname);
   bool empty = sim_coll_count (coll) == 0;
   if (nchunks > 0 && (!nhashed || !empty)) {
      SIM_ERR (err, 72,
               "numInitialChunks is only supported when the collection is empty and has a hashed field in the shard "
               "key pattern");
      return false;
   }
   /* A supporting index: an index whose key starts with the shard key. Created automatically on an empty
    * collection. */
   bool supported = sim_has_prefix_index (coll, key, true);
   if (!supported && !empty) {
      SIM_ERR (err, 72,
               "Please create an index that starts with the proposed shard key before sharding the collection");
      return false;
   }
   if (!supported) {
      bson_string_t *name = bson_string_new (NULL);
      bson_iter_init (&it, key);
      while (bson_iter_next (&it)) {
         if (name->len) {
            bson_string_append (name, "_");
         }
         if (BSON_ITER_HOLDS_UTF8 (&it)) {
            bson_string_append_printf (name, "%s_hashed", bson_iter_key (&it));
         } else {
            bson_string_append_printf (name, "%s_1", bson_iter_key (&it));
         }
      }
      bson_t *idx = bson_new ();
      BSON_APPEND_INT32 (idx, "v", 2);
      BSON_APPEND_DOCUMENT (idx, "key", key);
      BSON_APPEND_UTF8 (idx, "name", name->str);
      if (unique) {
         BSON_APPEND_BOOL (idx, "unique", true);
      }
      simq_docs_push_owned (&coll->indexes, idx);
      bson_string_free (name, true);
   }
   /* Zones already defined for ns (presplitHashedZones or a ranged key) shape the initial chunks. */
   simq_docs_t zones;
   simq_docs_init (&zones);
   sim_coll_t *tags = sim_coll_get ("config", "tags");
   if (tags) {
      bson_t f = BSON_INITIALIZER;
      bson_error_t e;
      BSON_APPEND_UTF8 (&f, "ns", ns);
      sim_coll_collect (tags, &f, &zones, &e);
      bson_destroy (&f);
      if (zones.n > 1) {
         qsort (zones.v, zones.n, sizeof *zones.v, sim_doc_ptr_cmp_min);
      }
   }
   if (presplit_zones && (!nhashed || !zones.n || !empty)) {
      simq_docs_clear (&zones);
      SIM_ERR (err, 72,
               "presplitHashedZones is only supported for an empty collection with a hashed shard key and zones "
               "defined for it");
      return false;
   }
   bson_t cdoc = BSON_INITIALIZER;
   sim_collection_doc (ns, key, unique, coll->uuid, &cdoc);
   sim_coll_insert (sim_coll_ensure ("config", "collections"), &cdoc);
   bson_destroy (&cdoc);
   if (!sim_shcoll_load (ns, &sc)) {
      simq_docs_clear (&zones);
      sim_shcoll_destroy (&sc);
      SIM_ERR (err, 1, "internal error: collection entry missing");
      return false;
   }
   int64_t now = clock_wall_ms ();
   bson_t details = BSON_INITIALIZER;
   BSON_APPEND_DOCUMENT (&details, "shardKey", key);
   BSON_APPEND_UTF8 (&details, "collection", ns);
   BSON_APPEND_BINARY (&details, "uuid", BSON_SUBTYPE_UUID, coll->uuid, 16);
   BSON_APPEND_BOOL (&details, "empty", empty);
   BSON_APPEND_BOOL (&details, "fromMapReduce", false);
   BSON_APPEND_UTF8 (&details, "primary", primary);
   /* InitialSplitPolicy::calculateOptimizationStrategy: hashed split points only for an empty collection without
    * zones; zone-aligned chunks for an empty collection with zones (hashed or not); otherwise one chunk on the
    * primary. */
   /* The default number of hashed initial chunks: 2 per shard up to 7.0 (SplitPointsBasedSplitPolicy with
    * numInitialChunks 0); one per shard from 8.0, whose policy no longer takes numInitialChunks ("a single chunk is
    * allocated to every shard"). */
   int per_default = sim_ver_ge (80) ? (int) sim_g.nshards : 2 * (int) sim_g.nshards;
   /* From 8.0 an explicit numInitialChunks is accepted and ignored: SERVER-76405 (7.2) made one chunk per shard
    * the default, SERVER-74747 / SERVER-82611 (7.3) took numInitialChunks out of the initial split policies, and
    * SERVER-83005 kept the field in the request IDL only, for compatibility. 7.0.x keeps the 4.4-6.0 behaviour. */
   int asked = sim_ver_ge (80) ? 0 : nchunks;
   int n = nhashed && empty && !zones.n ? (asked > 0 ? asked : per_default) : 1;
   if (zones.n && empty) {
      /* Chunks aligned to the zone ranges (AbstractTagsBasedSplitPolicy::createFirstChunks, and 4.4's
       * generateShardCollectionInitialZonedChunks): each range on the next shard of its zone (round-robin per zone),
       * each gap between ranges on the next shard of all non-draining shards (round-robin; the server takes the
       * registry's order, shuffled from 6.0: shardsim takes config.shards' order). */
      uint32_t s, i;
      sim_tick (&s, &i);
      bson_t cur = BSON_INITIALIZER, gmax = BSON_INITIALIZER;
      bson_iter_init (&it, key);
      while (bson_iter_next (&it)) {
         BSON_APPEND_MINKEY (&cur, bson_iter_key (&it));
         BSON_APPEND_MAXKEY (&gmax, bson_iter_key (&it));
      }
      uint32_t minor = 0;
      sim_coll_t *chunks = sim_coll_ensure ("config", "chunks");
      simq_docs_t shards;
      simq_docs_init (&shards);
      sim_shards_list (&shards);
      size_t holes = 0;
      for (size_t z = 0; z <= zones.n; z++) {
         bson_t zmin, zmax, chunk;
         const bson_t *lo = z < zones.n && sim_sub (zones.v[z], "min", &zmin) ? &zmin : &gmax;
         if (order_docs (&cur, lo) < 0) {
            /* the next non-draining shard, round-robin */
            const char *hole_owner = primary;
            size_t live = 0;
            for (size_t k = 0; k < shards.n; k++) {
               live += !sim_shard_draining (sim_str (shards.v[k], "_id"));
            }
            for (size_t k = 0, nth = live ? holes % live : 0; live && k < shards.n; k++) {
               if (!sim_shard_draining (sim_str (shards.v[k], "_id")) && nth-- == 0) {
                  hole_owner = sim_str (shards.v[k], "_id");
                  break;
               }
            }
            holes++;
            bson_init (&chunk);
            sim_chunk_build (&sc, &cur, lo, hole_owner, 1, minor++, s, i, &chunk);
            sim_coll_insert (chunks, &chunk);
            bson_destroy (&chunk);
         }
         if (z == zones.n || !sim_sub (zones.v[z], "max", &zmax)) {
            break;
         }
         const char *zone = sim_str (zones.v[z], "tag");
         const char *owner = primary;
         /* the zone's shards round-robin: count the earlier ranges of the same zone */
         size_t nth = 0, nzs = 0;
         for (size_t y = 0; zone && y < z; y++) {
            const char *zy = sim_str (zones.v[y], "tag");
            nth += zy && !strcmp (zy, zone);
         }
         for (size_t k = 0; zone && k < shards.n; k++) {
            nzs += sim_shard_has_zone (sim_str (shards.v[k], "_id"), zone);
         }
         for (size_t k = 0, left = nzs ? nth % nzs : 0; zone && k < shards.n; k++) {
            if (sim_shard_has_zone (sim_str (shards.v[k], "_id"), zone) && left-- == 0) {
               owner = sim_str (shards.v[k], "_id");
               break;
            }
         }
         if (presplit_zones && zone && nzs > 1) {
            /* PresplitHashedZonesSplitPolicy::buildSplitInfoForTag: one chunk per shard of the zone, at the hashed
             * split points of calculateHashedSplitPoints (the range's fields before the hashed one as prefix,
             * MinKey after it), the k-th piece on the zone's k-th shard. */
            int64_t vals[64];
            size_t nv = sim_hashed_split_values (nzs < 64 ? (int) nzs : 64, vals);
            bson_t from = BSON_INITIALIZER;
            bson_concat (&from, lo);
            size_t k = 0;
            for (size_t piece = 0; piece <= nv; piece++) {
               bson_t to = BSON_INITIALIZER;
               if (piece < nv) {
                  sim_hashed_point (&sc, lo, vals[piece], &to);
               } else {
                  bson_concat (&to, &zmax);
               }
               const char *piece_owner = owner;
               for (; k < shards.n; k++) {
                  if (sim_shard_has_zone (sim_str (shards.v[k], "_id"), zone)) {
                     piece_owner = sim_str (shards.v[k++], "_id");
                     break;
                  }
               }
               bson_init (&chunk);
               sim_chunk_build (&sc, &from, &to, piece_owner, 1, minor++, s, i, &chunk);
               sim_coll_insert (chunks, &chunk);
               bson_destroy (&chunk);
               bson_reinit (&from);
               bson_concat (&from, &to);
               bson_destroy (&to);
            }
            bson_destroy (&from);
         } else {
            bson_init (&chunk);
            sim_chunk_build (&sc, lo, &zmax, owner, 1, minor++, s, i, &chunk);
            sim_coll_insert (chunks, &chunk);
            bson_destroy (&chunk);
         }
         bson_reinit (&cur);
         bson_concat (&cur, &zmax);
      }
      n = (int) minor;
      simq_docs_clear (&shards);
      bson_destroy (&cur);
      bson_destroy (&gmax);
   } else {
      sim_create_initial_chunks (&sc, primary, n);
   }
   BSON_APPEND_INT32 (&details, "numChunks", n);
   sim_changelog (false, "shardCollection.start", ns, "config", &details, now);
   bson_reinit (&details);
   uint32_t major, minor;
   sim_chunk_max_version (&sc, &major, &minor);
   bson_t ver;
   BSON_APPEND_DOCUMENT_BEGIN (&details, "version", &ver);
   BSON_APPEND_TIMESTAMP (&ver, "t", major, minor);
   BSON_APPEND_OID (&ver, "e", &sc.epoch);
   bson_append_document_end (&details, &ver);
   BSON_APPEND_INT32 (&details, "numChunks", n);
   sim_changelog (false, "shardCollection.end", ns, "config", &details, now);
   bson_destroy (&details);
   simq_docs_clear (&zones);
   sim_shcoll_destroy (&sc);
   (void) existed;
   return true;
}

bool
sim_op_split (const char *ns, const bson_t *middle, bson_error_t *err)
{
   sim_shcoll_t sc;
   bool ok = false;
   if (!sim_shcoll_load (ns, &sc)) {
      SIM_ERR (err, 118, "ns %s is not sharded", ns);
      goto done;
   }
   if (!sim_bound_fits (&sc, middle)) {
      char *a = sim_bson_str (middle), *b = sim_bson_str (&sc.key);
      SIM_ERR (err, 0, "new split key %s is not valid for shard key pattern %s", a, b);
      bson_free (a);
      bson_free (b);
      goto done;
   }
   ok = sim_split_at (&sc, middle, err);
done:
   sim_shcoll_destroy (&sc);
   return ok;
}

bool
sim_op_move_chunk (const char *ns, const bson_t *key, const char *to, bson_error_t *err)
{
   sim_shcoll_t sc;
   bson_t chunk;
   bool ok = false;
   if (!sim_shcoll_load (ns, &sc)) {
      SIM_ERR (err, 118, "ns %s is not sharded", ns);
      goto done;
   }
   if (!sim_chunk_find (&sc, key, &chunk, NULL)) {
      char *s = sim_bson_str (key);
      SIM_ERR (err, 0, "no chunk found for shard key %s", s);
      bson_free (s);
      goto done;
   }
   if (sim_check_destination (&sc, &chunk, to, err)) {
      if (strcmp (sim_chunk_shard (&chunk), to) != 0) {
         sim_move_chunk_doc (&sc, &chunk, to);
      }
      ok = true;
   }
   bson_destroy (&chunk);
done:
   sim_shcoll_destroy (&sc);
   return ok;
}

bool
sim_op_add_shard_to_zone (const char *shard, const char *zone, bson_error_t *err)
{
   bson_t doc, tags, out, set = BSON_INITIALIZER, arr;
   if (!sim_shard_get (shard, &doc)) {
      SIM_ERR (err, 70, "shard %s does not exist", shard);
      bson_destroy (&set);
      return false;
   }
   uint32_t n = 0;
   bool have = false;
   BSON_APPEND_ARRAY_BEGIN (&set, "tags", &arr);
   if (sim_sub (&doc, "tags", &tags)) {
      bson_iter_t it;
      bson_iter_init (&it, &tags);
      while (bson_iter_next (&it)) {
         char key[16];
         const char *kp;
         have = have || (BSON_ITER_HOLDS_UTF8 (&it) && !strcmp (bson_iter_utf8 (&it, NULL), zone));
         bson_uint32_to_string (n++, &kp, key, sizeof key);
         bson_append_value (&arr, kp, -1, bson_iter_value (&it));
      }
   }
   if (!have) {
      char key[16];
      const char *kp;
      bson_uint32_to_string (n++, &kp, key, sizeof key);
      BSON_APPEND_UTF8 (&arr, kp, zone);
   }
   bson_append_array_end (&set, &arr);
   sim_doc_set (&doc, &set, NULL, &out);
   sim_pos_t pos;
   sim_coll_t *shards = sim_coll_get ("config", "shards");
   if (sim_find_by_sid (shards, shard, &pos)) {
      sim_coll_replace (shards, pos, &out);
   }
   bson_destroy (&out);
   bson_destroy (&set);
   bson_destroy (&doc);
   return true;
}

/* Extends a zone bound to the full shard key (missing trailing fields MinKey). */
static void
sim_extend_bound (const sim_shcoll_t *sc, const bson_t *bound, bson_t *out)
{
   bson_iter_t k, b;
   bson_init (out);
   bson_iter_init (&k, &sc->key);
   while (bson_iter_next (&k)) {
      if (bson_iter_init_find (&b, bound, bson_iter_key (&k))) {
         bson_append_value (out, bson_iter_key (&k), -1, bson_iter_value (&b));
      } else {
         BSON_APPEND_MINKEY (out, bson_iter_key (&k));
      }
   }
}

/* Views a stored document (raw BSON, its length in the first four bytes). */
static void
sim_raw_view (const uint8_t *raw, bson_t *out)
{
   bson_init_static (out, raw,
                     (uint32_t) raw[0] | (uint32_t) raw[1] << 8 | (uint32_t) raw[2] << 16 | (uint32_t) raw[3] << 24);
}

/* The overlap check of updateZoneKeyRange through the range index of ns's config.tags partition (sim_index.c): when
 * that partition holds ns's ranges only and they are pairwise disjoint (always, unless config.tags was written by
 * hand), the existing ranges overlapping [min, max) are one run of the index, found by two binary searches, instead
 * of a scan of every range. Sets *identical (the same bounds and zone exist) and, when some other range overlaps,
 * *have_clash with *clash viewing the first of them in storage order (the one a scan reports). Returns false when the
 * index cannot answer (the caller scans). */
static bool
sim_zone_overlap_indexed (sim_coll_t *tags, const char *ns, const bson_t *min, const bson_t *max, const char *zone,
                          bool *identical, bool *have_clash, bson_t *clash)
{
   bson_value_t v;
   size_t n = 0;
   bool disjoint = false, tight = false;
   if (strlen (ns) >= 100) {
      return false; /* the partition key might not hold it whole */
   }
   memset (&v, 0, sizeof v);
   v.value_type = BSON_TYPE_UTF8;
   v.value.v_utf8.str = (char *) ns;
   v.value.v_utf8.len = (uint32_t) strlen (ns);
   size_t p = sim_coll_find_part (tags, &v);
   if (p == SIZE_MAX) {
      return true; /* no range of ns yet */
   }
   const uint8_t *const *ord = sim_part_by_min (tags, p, &n, &disjoint, &tight);
   if (!ord || !disjoint || !tight) {
      return false;
   }
   /* Disjoint ranges sorted by min have their maxes sorted too: the overlapping ones are [lo, hi), lo the first
    * whose max is above min, hi the first whose min is not below max. */
   size_t lo = 0, hi = n;
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      bson_t doc, tmax;
      sim_raw_view (ord[mid], &doc);
      sim_sub (&doc, "max", &tmax);
      if (order_docs (&tmax, min) <= 0) {
         lo = mid + 1;
      } else {
         hi = mid;
      }
   }
   size_t first = lo;
   hi = n;
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      bson_t doc, tmin;
      sim_raw_view (ord[mid], &doc);
      sim_sub (&doc, "min", &tmin);
      if (order_docs (&tmin, max) < 0) {
         lo = mid + 1;
      } else {
         hi = mid;
      }
   }
   const uint8_t *best = NULL;
   size_t best_pos = SIZE_MAX;
   for (size_t k = first; k < lo; k++) {
      bson_t doc, tmin, tmax;
      sim_raw_view (ord[k], &doc);
      sim_sub (&doc, "min", &tmin);
      sim_sub (&doc, "max", &tmax);
      const char *tz = sim_str (&doc, "tag");
      if (order_docs (&tmin, min) == 0 && order_docs (&tmax, max) == 0 && tz && !strcmp (tz, zone)) {
         *identical = true;
         continue;
      }
      if (!best) {
         best = ord[k];
         continue;
      }
      /* Several overlap (a wide new range): the scan would report the first stored. */
      const sim_raw_t *docs = &tags->parts[p].docs;
      if (best_pos == SIZE_MAX) {
         for (best_pos = 0; docs->v[best_pos] != best; best_pos++) {
         }
      }
      size_t pos = 0;
      while (docs->v[pos] != ord[k]) {
         pos++;
      }
      if (pos < best_pos) {
         best = ord[k];
         best_pos = pos;
      }
   }
   if (best) {
      sim_raw_view (best, clash);
      *have_clash = true;
   }
   return true;
}

/* Whether every element of bound may be stored in config.tags: no array, no regular expression, and embedded
 * documents without top-level $-prefixed fields (ShardKeyPattern::checkShardKeyIsValidForMetadataStorage). On failure
 * err is 2 BadValue "Shard key element <field: value> is not valid for storage". */
static bool
sim_bound_storable (const bson_t *bound, bson_error_t *err)
{
   bson_iter_t it, sub;
   bson_iter_init (&it, bound);
   while (bson_iter_next (&it)) {
      bool bad = BSON_ITER_HOLDS_ARRAY (&it) || BSON_ITER_HOLDS_REGEX (&it);
      if (BSON_ITER_HOLDS_DOCUMENT (&it) && bson_iter_recurse (&it, &sub)) {
         while (!bad && bson_iter_next (&sub)) {
            bad = bson_iter_key (&sub)[0] == '$';
         }
      }
      if (bad) {
         bson_t one = BSON_INITIALIZER;
         bson_append_value (&one, bson_iter_key (&it), -1, bson_iter_value (&it));
         char *s = sim_bson_str (&one);
         size_t l = strlen (s);
         /* "{ f: v }" -> "f: v", the element as the server prints it */
         SIM_ERR (err, 2, "Shard key element %.*s is not valid for storage", l > 4 ? (int) (l - 4) : (int) l,
                  l > 4 ? s + 2 : s);
         bson_free (s);
         bson_destroy (&one);
         return false;
      }
   }
   return true;
}

/* Whether min and max name the same fields in the same order (ChunkRange::extractKeyPattern, used for a collection
 * that is not sharded); err is 61 ShardKeyNotFound otherwise. */
static bool
sim_bounds_same_fields (const bson_t *min, const bson_t *max, bson_error_t *err)
{
   bson_iter_t a, b;
   bson_iter_init (&a, min);
   bson_iter_init (&b, max);
   for (;;) {
      bool na = bson_iter_next (&a), nb = bson_iter_next (&b);
      if (!na && !nb) {
         return true;
      }
      if (na != nb || strcmp (bson_iter_key (&a), bson_iter_key (&b)) != 0) {
         char *x = sim_bson_str (min), *y = sim_bson_str (max);
         SIM_ERR (err, 61, "the shard key of min %s doesn't match with the shard key of max %s", x, y);
         bson_free (x);
         bson_free (y);
         return false;
      }
   }
}

bool
sim_op_update_zone_range (const char *ns, const bson_t *min_in, const bson_t *max_in, const char *zone,
                          bson_error_t *err)
{
   bson_t min, max;
   sim_shcoll_t sc;
   bool ok = false;
   bool sharded = sim_shcoll_load (ns, &sc);
   bson_init (&min);
   bson_init (&max);
   if (order_docs (min_in, max_in) >= 0) {
      char *a = sim_bson_str (min_in), *b = sim_bson_str (max_in);
      SIM_ERR (err, 9, "min: %s should be less than max: %s", a, b);
      bson_free (a);
      bson_free (b);
      goto done;
   }
   /* assignKeyRangeToZone checks the bounds can be stored before anything else; removeKeyRangeFromZone does not. */
   if (zone && (!sim_bound_storable (min_in, err) || !sim_bound_storable (max_in, err))) {
      goto done;
   }
   if (zone) {
      /* The zone must exist on some shard. */
      simq_docs_t shards;
      simq_docs_init (&shards);
      sim_shards_list (&shards);
      bool found = false;
      for (size_t i = 0; i < shards.n && !found; i++) {
         found = sim_shard_has_zone (sim_str (shards.v[i], "_id"), zone);
      }
      simq_docs_clear (&shards);
      if (!found) {
         SIM_ERR (err, 177, "zone %s does not exist", zone);
         goto done;
      }
   }
   if (sharded) {
      /* includeFullShardKey: both bounds must be a prefix of the shard key (min first), then they are extended. */
      const bson_t *bounds[2] = { min_in, max_in };
      for (int b = 0; b < 2; b++) {
         bson_iter_t k, f;
         bson_iter_init (&k, &sc.key);
         bson_iter_init (&f, bounds[b]);
         bool prefix = true;
         while (prefix && bson_iter_next (&f)) {
            prefix = bson_iter_next (&k) && !strcmp (bson_iter_key (&k), bson_iter_key (&f));
         }
         if (!prefix) {
            char *a = sim_bson_str (bounds[b]), *k2 = sim_bson_str (&sc.key);
            SIM_ERR (err, 61, "%s: %s is not a prefix of the shard key %s of ns: %s", b ? "max" : "min", a, k2, ns);
            bson_free (a);
            bson_free (k2);
            goto done;
         }
      }
      sim_extend_bound (&sc, min_in, &min);
      sim_extend_bound (&sc, max_in, &max);
      /* checkHashedShardKeyRange (assign only): the extended bounds' hashed field is NumberLong, MinKey or MaxKey. */
      bson_iter_t hm, hx;
      if (zone && sc.hashed[0] && bson_iter_init_find (&hm, &min, sc.hashed) &&
          bson_iter_init_find (&hx, &max, sc.hashed)) {
         bool okm = BSON_ITER_HOLDS_INT64 (&hm) || BSON_ITER_HOLDS_MINKEY (&hm) || BSON_ITER_HOLDS_MAXKEY (&hm);
         bool okx = BSON_ITER_HOLDS_INT64 (&hx) || BSON_ITER_HOLDS_MINKEY (&hx) || BSON_ITER_HOLDS_MAXKEY (&hx);
         if (!okm || !okx) {
            char *a = sim_bson_str (&min), *b = sim_bson_str (&max), *k2 = sim_bson_str (&sc.key);
            SIM_ERR (err, 72,
                     "there exists a field in the range %s -->> %s not of type NumberLong, MinKey, or MaxKey which "
                     "corresponds to a hashed field in the shard key pattern %s",
                     a, b, k2);
            bson_free (a);
            bson_free (b);
            bson_free (k2);
            goto done;
         }
      }
   } else {
      if (!sim_bounds_same_fields (min_in, max_in, err)) {
         goto done;
      }
      bson_concat (&min, min_in);
      bson_concat (&max, max_in);
   }
   sim_coll_t *tags = sim_coll_ensure ("config", "tags");
   sim_hits_t hits = { 0 }, del = { 0 };
   bool identical = false, have_clash = false;
   bson_t clash; /* the existing range the new one overlaps (the first in storage order) */
   if (!zone || !sim_zone_overlap_indexed (tags, ns, &min, &max, zone, &identical, &have_clash, &clash)) {
      bson_t filter = BSON_INITIALIZER;
      bson_error_t e;
      BSON_APPEND_UTF8 (&filter, "ns", ns);
      sim_coll_match (tags, &filter, 0, &hits, &e);
      bson_destroy (&filter);
      for (size_t i = 0; i < hits.n && !have_clash; i++) {
         bson_t view, tmin, tmax;
         sim_coll_view (tags, hits.v[i], &view);
         if (!sim_sub (&view, "min", &tmin) || !sim_sub (&view, "max", &tmax)) {
            continue;
         }
         const char *tz = sim_str (&view, "tag");
         bool same_bounds = order_docs (&tmin, &min) == 0 && order_docs (&tmax, &max) == 0;
         if (!zone) {
            /* removeKeyRangeFromZone deletes { ns, min, max } exactly: a wrong max removes nothing. */
            if (order_docs (&tmin, &min) == 0 && order_docs (&tmax, &max) == 0) {
               sim_pos_t p = hits.v[i];
               if (del.n == del.cap) {
                  del.cap = del.cap ? del.cap * 2 : 4;
                  del.v = bson_realloc (del.v, del.cap * sizeof *del.v);
               }
               del.v[del.n++] = p;
            }
            continue;
         }
         if (same_bounds && tz && !strcmp (tz, zone)) {
            identical = true;
            continue;
         }
         if (order_docs (&min, &tmax) < 0 && order_docs (&tmin, &max) < 0) {
            clash = view;
            have_clash = true;
         }
      }
   }
   if (have_clash) {
      bson_t tmin, tmax;
      const char *tz = sim_str (&clash, "tag");
      sim_sub (&clash, "min", &tmin);
      sim_sub (&clash, "max", &tmax);
      char *a = sim_bson_str (&min), *b = sim_bson_str (&max), *c = sim_bson_str (&tmin), *d = sim_bson_str (&tmax);
      SIM_ERR (err, 178, "Zone range: %s -->> %s  on  %s is overlapping with existing: %s -->> %s  on  %s", a, b, zone,
               c, d, tz ? tz : "");
      bson_free (a);
      bson_free (b);
      bson_free (c);
      bson_free (d);
      sim_hits_free (&hits);
      sim_hits_free (&del);
      goto done;
   }
   sim_hits_free (&hits);
   if (!zone) {
      sim_coll_delete (tags, &del);
   } else if (!identical) {
      bson_t doc = BSON_INITIALIZER;
      bson_oid_t oid;
      bson_oid_init (&oid, NULL);
      BSON_APPEND_OID (&doc, "_id", &oid);
      BSON_APPEND_UTF8 (&doc, "ns", ns);
      BSON_APPEND_DOCUMENT (&doc, "min", &min);
      BSON_APPEND_DOCUMENT (&doc, "max", &max);
      BSON_APPEND_UTF8 (&doc, "tag", zone);
      sim_coll_insert (tags, &doc);
      bson_destroy (&doc);
   }
   sim_hits_free (&del);
   uint32_t s, i;
   sim_tick (&s, &i);
   ok = true;
done:
   bson_destroy (&min);
   bson_destroy (&max);
   sim_shcoll_destroy (&sc);
   return ok;
}

bool
sim_op_add_shard (const char *name, const char *host, bson_error_t *err)
{
   simq_docs_t shards;
   simq_docs_init (&shards);
   sim_shards_list (&shards);
   bool ok = true;
   for (size_t i = 0; i < shards.n && ok; i++) {
      const char *id = sim_str (shards.v[i], "_id"), *h = sim_str (shards.v[i], "host");
      if (id && !strcmp (id, name)) {
         if (!h || strcmp (h, host) != 0) {
            SIM_ERR (err, 20, "A shard named %s already exists", name);
            ok = false;
         } else {
            ok = true;
            simq_docs_clear (&shards);
            return true; /* idempotent */
         }
      } else if (h && !strcmp (h, host)) {
         SIM_ERR (err, 20, "'%s' is already a member of the existing shard '%s'.", host, id ? id : "");
         ok = false;
      }
   }
   simq_docs_clear (&shards);
   if (!ok) {
      return false;
   }
   bson_t doc = BSON_INITIALIZER, details = BSON_INITIALIZER;
   sim_shard_doc (name, host, NULL, &doc);
   sim_coll_insert (sim_coll_ensure ("config", "shards"), &doc);
   BSON_APPEND_UTF8 (&details, "name", name);
   BSON_APPEND_UTF8 (&details, "host", host);
   sim_changelog (false, "addShard", "", "config", &details, clock_wall_ms ());
   bson_destroy (&doc);
   bson_destroy (&details);
   sim_g.nshards++;
   return true;
}

/* ---- commands ---- */

static const char *
sim_first_string (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   bson_iter_init (&it, ctx->cmd);
   bson_iter_next (&it);
   if (!BSON_ITER_HOLDS_UTF8 (&it)) {
      sim_reply_error (reply, 14, "BSON field '%s.%s' is the wrong type '%s', expected type 'string'", ctx->name,
                       ctx->name, BSON_ITER_HOLDS_NUMBER (&it) ? "int" : "object");
      return NULL;
   }
   return bson_iter_utf8 (&it, NULL);
}

/* The namespace named by the command's first field; NULL (error replied) when it is invalid. */
static const char *
sim_first_ns (sim_ctx_t *ctx, bson_t *reply)
{
   const char *ns = sim_first_string (ctx, reply);
   char db[128];
   const char *coll;
   if (ns && !sim_split_ns (ns, db, sizeof db, &coll)) {
      sim_reply_error (reply, 73, "Invalid namespace specified '%s'", ns);
      return NULL;
   }
   return ns;
}

static void
sim_cmd_enable_sharding (sim_ctx_t *ctx, bson_t *reply)
{
   const char *db = sim_first_string (ctx, reply);
   if (!db) {
      return;
   }
   if (!*db || strpbrk (db, " ./\\\"$")) {
      sim_reply_error (reply, 73, "Invalid db name specified: %s", db);
      return;
   }
   if (!strcmp (db, "admin") || !strcmp (db, "local")) {
      sim_reply_error (reply, 72, "Enabling sharding on the %s database is not allowed", db);
      return;
   }
   const char *want = sim_str (ctx->cmd, "primaryShard");
   if (want && !sim_shard_get (want, NULL)) {
      sim_reply_error (reply, 70, "Shard %s not found", want);
      return;
   }
   if (!strcmp (db, "config")) {
      sim_reply_ok (reply);
      return;
   }
   sim_coll_t *dbs = sim_coll_ensure ("config", "databases");
   for (size_t p = 0; p < dbs->nparts; p++) {
      for (size_t i = 0; i < dbs->parts[p].docs.n; i++) {
         bson_t view;
         sim_pos_t pos = { p, i };
         sim_coll_view (dbs, pos, &view);
         const char *id = sim_str (&view, "_id");
         if (id && strcasecmp (id, db) == 0 && strcmp (id, db) != 0) {
            sim_reply_error (reply, 13297,
                             "database already exists with different case already have: [%s] trying to "
                             "create [%s]",
                             id, db);
            return;
         }
      }
   }
   char primary[64];
   sim_db_primary (db, primary);
   if (!primary[0]) {
      if (want) {
         bson_t doc = BSON_INITIALIZER;
         sim_database_doc (db, want, true, &doc);
         sim_coll_insert (dbs, &doc);
         bson_destroy (&doc);
      } else if (!sim_db_ensure (db, primary)) {
         sim_reply_error (reply, 70, "No shards found");
         return;
      }
   } else if (want && strcmp (want, primary) != 0) {
      sim_reply_error (reply, 117,
                       "database %s could not be created :: caused by :: database already exists with a "
                       "different primary shard %s",
                       db, primary);
      return;
   }
   if (!sim_ver_ge (70)) {
      bson_t set = BSON_INITIALIZER;
      BSON_APPEND_BOOL (&set, "partitioned", true);
      sim_config_update ("databases", db, &set, NULL, false);
      bson_destroy (&set);
   }
   uint32_t s, i;
   sim_tick (&s, &i);
   sim_reply_ok (reply);
}

static void
sim_cmd_shard_collection (sim_ctx_t *ctx, bson_t *reply)
{
   bson_t key;
   bson_error_t err;
   bson_iter_t it;
   const char *ns = sim_first_ns (ctx, reply);
   if (!ns) {
      return;
   }
   if (!sim_sub (ctx->cmd, "key", &key)) {
      sim_reply_error (reply, 40414, "BSON field 'shardCollection.key' is missing but a required field");
      return;
   }
   bool unique = bson_iter_init_find (&it, ctx->cmd, "unique") && bson_iter_as_bool (&it);
   int64_t want = bson_iter_init_find (&it, ctx->cmd, "numInitialChunks") ? bson_iter_as_int64 (&it) : 0;
   bool presplit = bson_iter_init_find (&it, ctx->cmd, "presplitHashedZones") && bson_iter_as_bool (&it);
   /* shardCollection's coordinator: at most 8192 initial chunks per shard and 1,000,000 in all, code 72. */
   int64_t per_shards = 8192 * (int64_t) sim_g.nshards;
   if (want < 0 || want > per_shards || want > 1000000) {
      sim_reply_error (reply, 72,
                       "numInitialChunks cannot be more than either: %lld, 8192 * number of shards; or 1000000",
                       (long long) per_shards);
      return;
   }
   int nchunks = (int) want;
   if (!sim_op_shard_collection (ns, &key, unique, nchunks, presplit, &err)) {
      sim_admin_error (reply, &err);
      return;
   }
   BSON_APPEND_UTF8 (reply, "collectionsharded", ns);
   if (!sim_ver_ge (60)) {
      sim_coll_t *c = sim_coll_get_ns (ns);
      if (c) {
         BSON_APPEND_BINARY (reply, "collectionUUID", BSON_SUBTYPE_UUID, c->uuid, 16);
      }
   }
   sim_reply_ok (reply);
}

static void
sim_cmd_add_shard (sim_ctx_t *ctx, bson_t *reply)
{
   bson_error_t err;
   const char *url = sim_first_string (ctx, reply);
   if (!url) {
      return;
   }
   const char *slash = strchr (url, '/');
   const char *hosts = slash ? slash + 1 : url;
   if (!*hosts || !strchr (hosts, ':') || (slash && slash == url)) {
      sim_reply_error (reply, 9, "FailedToParse: invalid url '%s'", url);
      return;
   }
   char name[64];
   const char *given = sim_str (ctx->cmd, "name");
   if (given) {
      bson_strncpy (name, given, sizeof name);
   } else if (slash) {
      size_t l = (size_t) (slash - url) < sizeof name - 1 ? (size_t) (slash - url) : sizeof name - 1;
      memcpy (name, url, l);
      name[l] = '\0';
   } else {
      bson_snprintf (name, sizeof name, "shard%04d", sim_g.nshards);
   }
   if (!sim_op_add_shard (name, url, &err)) {
      sim_admin_error (reply, &err);
      return;
   }
   BSON_APPEND_UTF8 (reply, "shardAdded", name);
   sim_reply_ok (reply);
}

/* Counts the chunks still on a draining shard (jumbo ones also into *jumbo), as the config server's
 * ShardingCatalogManager::removeShard reports them (_getDrainingProgress: totalChunks, jumboChunks). It moves none:
 * the balancer drains the shard (BalancerPolicy::balance, draining shards first). */
static int64_t
sim_drain_count (const char *shard, int64_t *jumbo)
{
   int64_t remaining = 0;
   *jumbo = 0;
   simq_docs_t colls;
   simq_docs_init (&colls);
   bson_error_t e;
   sim_coll_t *cc = sim_coll_get ("config", "collections");
   if (cc) {
      sim_coll_collect (cc, NULL, &colls, &e);
   }
   for (size_t c = 0; c < colls.n; c++) {
      const char *ns = sim_str (colls.v[c], "_id");
      sim_shcoll_t sc;
      if (!ns || !sim_shcoll_load (ns, &sc)) {
         sim_shcoll_destroy (&sc);
         continue;
      }
      simq_docs_t chunks;
      simq_docs_init (&chunks);
      sim_chunks_of (&sc, &chunks);
      for (size_t k = 0; k < chunks.n; k++) {
         if (strcmp (sim_chunk_shard (chunks.v[k]), shard) != 0) {
            continue;
         }
         remaining++;
         bson_iter_t it;
         if (bson_iter_init_find (&it, chunks.v[k], "jumbo") && bson_iter_as_bool (&it)) {
            (*jumbo)++;
         }
      }
      simq_docs_clear (&chunks);
      sim_shcoll_destroy (&sc);
   }
   simq_docs_clear (&colls);
   return remaining;
}

static void
sim_cmd_remove_shard (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   bson_iter_init (&it, ctx->cmd);
   bson_iter_next (&it);
   if (!BSON_ITER_HOLDS_UTF8 (&it)) {
      sim_reply_error (reply, 14, "Field 'removeShard' must be of type string");
      return;
   }
   const char *shard = bson_iter_utf8 (&it, NULL);
   if (!sim_shard_get (shard, NULL)) {
      sim_reply_error (reply, 70, "Shard %s not found", shard);
      return;
   }
   simq_docs_t shards;
   simq_docs_init (&shards);
   sim_shards_list (&shards);
   size_t nshards = shards.n;
   bool other_draining = false;
   for (size_t i = 0; i < shards.n; i++) {
      const char *id = sim_str (shards.v[i], "_id");
      if (id && strcmp (id, shard) != 0 && sim_shard_draining (id)) {
         other_draining = true;
      }
   }
   simq_docs_clear (&shards);
   if (nshards <= 1) {
      sim_reply_error (reply, 20, "Operation not allowed because it would remove the last shard");
      return;
   }
   if (other_draining && !sim_ver_ge (60)) {
      sim_reply_error (reply, 117, "Can't have more than one draining shard at a time");
      return;
   }
   /* Databases whose primary is this shard. */
   bson_t dbs_arr = BSON_INITIALIZER;
   int64_t ndbs = 0;
   sim_coll_t *dbs = sim_coll_get ("config", "databases");
   for (size_t p = 0; dbs && p < dbs->nparts; p++) {
      for (size_t i = 0; i < dbs->parts[p].docs.n; i++) {
         bson_t view;
         sim_pos_t pos = { p, i };
         sim_coll_view (dbs, pos, &view);
         const char *primary = sim_str (&view, "primary"), *id = sim_str (&view, "_id");
         if (primary && id && !strcmp (primary, shard)) {
            char key[16];
            const char *kp;
            bson_uint32_to_string ((uint32_t) ndbs++, &kp, key, sizeof key);
            BSON_APPEND_UTF8 (&dbs_arr, kp, id);
         }
      }
   }
   int64_t jumbo = 0;
   if (!sim_shard_draining (shard)) {
      bson_t set = BSON_INITIALIZER, details = BSON_INITIALIZER;
      BSON_APPEND_BOOL (&set, "draining", true);
      sim_config_update ("shards", shard, &set, NULL, false);
      BSON_APPEND_UTF8 (&details, "shard", shard);
      sim_changelog (false, "removeShard.start", "", "config", &details, clock_wall_ms ());
      bson_destroy (&set);
      bson_destroy (&details);
      BSON_APPEND_UTF8 (reply, "msg", "draining started successfully");
      BSON_APPEND_UTF8 (reply, "state", "started");
      BSON_APPEND_UTF8 (reply, "shard", shard);
      if (ndbs) {
         BSON_APPEND_UTF8 (reply, "note", "you need to drop or movePrimary these databases");
      }
      BSON_APPEND_ARRAY (reply, "dbsToMove", &dbs_arr);
      if (sim_ver_ge (80)) {
         bson_t empty = BSON_INITIALIZER;
         BSON_APPEND_ARRAY (reply, "collectionsToMove", &empty);
         bson_destroy (&empty);
      }
      sim_reply_ok (reply);
      goto cleanup;
   }
   int64_t remaining = sim_drain_count (shard, &jumbo);
   if (remaining == 0 && ndbs == 0) {
      sim_coll_t *shards_coll = sim_coll_get ("config", "shards");
      sim_pos_t pos;
      if (sim_find_by_sid (shards_coll, shard, &pos)) {
         sim_hits_t h = { &pos, 1, 1 };
         sim_coll_delete (shards_coll, &h);
      }
      bson_t details = BSON_INITIALIZER;
      BSON_APPEND_UTF8 (&details, "shard", shard);
      sim_changelog (false, "removeShard", "", "config", &details, clock_wall_ms ());
      bson_destroy (&details);
      sim_g.nshards--;
      BSON_APPEND_UTF8 (reply, "msg", "removeshard completed successfully");
      BSON_APPEND_UTF8 (reply, "state", "completed");
      BSON_APPEND_UTF8 (reply, "shard", shard);
      sim_reply_ok (reply);
      goto cleanup;
   }
   bson_t rem;
   BSON_APPEND_UTF8 (reply, "msg", "draining ongoing");
   BSON_APPEND_UTF8 (reply, "state", "ongoing");
   BSON_APPEND_DOCUMENT_BEGIN (reply, "remaining", &rem);
   BSON_APPEND_INT64 (&rem, "chunks", remaining);
   BSON_APPEND_INT64 (&rem, "dbs", ndbs);
   BSON_APPEND_INT64 (&rem, "jumboChunks", jumbo);
   if (sim_ver_ge (80)) {
      BSON_APPEND_INT64 (&rem, "collectionsToMove", 0);
   }
   bson_append_document_end (reply, &rem);
   if (ndbs) {
      BSON_APPEND_UTF8 (reply, "note", "you need to drop or movePrimary these databases");
   }
   BSON_APPEND_ARRAY (reply, "dbsToMove", &dbs_arr);
   if (sim_ver_ge (80)) {
      bson_t empty = BSON_INITIALIZER;
      BSON_APPEND_ARRAY (reply, "collectionsToMove", &empty);
      bson_destroy (&empty);
   }
   sim_reply_ok (reply);
cleanup:
   bson_destroy (&dbs_arr);
}

static void
sim_cmd_move_primary (sim_ctx_t *ctx, bson_t *reply)
{
   const char *db = sim_first_string (ctx, reply);
   if (!db) {
      return;
   }
   const char *to = sim_str (ctx->cmd, "to");
   if (!to) {
      sim_reply_error (reply, 40414, "BSON field 'movePrimary.to' is missing but a required field");
      return;
   }
   char primary[64];
   sim_db_primary (db, primary);
   if (!primary[0]) {
      sim_reply_error (reply, 26, "Database %s not found", db);
      return;
   }
   if (!sim_shard_get (to, NULL)) {
      sim_reply_error (reply, 70, "Shard %s not found", to);
      return;
   }
   if (strcmp (primary, to) != 0) {
      bson_t set = BSON_INITIALIZER, details = BSON_INITIALIZER;
      BSON_APPEND_UTF8 (&set, "primary", to);
      sim_config_update ("databases", db, &set, NULL, false);
      BSON_APPEND_UTF8 (&details, "database", db);
      BSON_APPEND_UTF8 (&details, "from", primary);
      BSON_APPEND_UTF8 (&details, "to", to);
      sim_changelog (false, "movePrimary.start", db, primary, &details, clock_wall_ms ());
      sim_changelog (false, "movePrimary.commit", db, primary, &details, clock_wall_ms ());
      bson_destroy (&set);
      bson_destroy (&details);
   }
   sim_reply_ok (reply);
}

static void
sim_append_shard_canonical (bson_t *out, const bson_t *doc)
{
   static const char *order[] = { "_id",  "host",  "draining",     "maxSize",
                                  "tags", "state", "topologyTime", "replSetConfigVersion",
                                  NULL };
   bson_iter_t it;
   for (int i = 0; order[i]; i++) {
      if (bson_iter_init_find (&it, doc, order[i])) {
         bson_append_value (out, order[i], -1, bson_iter_value (&it));
      }
   }
}

static void
sim_cmd_list_shards (sim_ctx_t *ctx, bson_t *reply)
{
   simq_docs_t shards;
   bson_t arr, filter;
   bson_iter_t it;
   /* 8.3's filter: { draining: <bool> } and nothing else (SERVER-107014); older servers ignore the field */
   int draining = -1;
   if (sim_ver_ge (83) && sim_sub (ctx->cmd, "filter", &filter) && bson_iter_init (&it, &filter)) {
      while (bson_iter_next (&it)) {
         if (strcmp (bson_iter_key (&it), "draining") != 0) {
            sim_reply_error (reply, 40415, "BSON field 'ListShardsFilter.%s' is an unknown field.",
                             bson_iter_key (&it));
            return;
         }
         if (!BSON_ITER_HOLDS_BOOL (&it)) {
            sim_reply_error (reply, 14,
                             "BSON field 'ListShardsFilter.draining' is the wrong type '%s', expected type 'bool'",
                             simq_type_name (bson_iter_type (&it)));
            return;
         }
         draining = bson_iter_bool (&it);
      }
   }
   simq_docs_init (&shards);
   sim_shards_list (&shards);
   BSON_APPEND_ARRAY_BEGIN (reply, "shards", &arr);
   uint32_t k = 0;
   for (size_t i = 0; i < shards.n; i++) {
      if (draining >= 0 && sim_bool_field (shards.v[i], "draining") != (bool) draining) {
         continue;
      }
      bson_t d;
      char key[16];
      const char *kp;
      bson_uint32_to_string (k++, &kp, key, sizeof key);
      BSON_APPEND_DOCUMENT_BEGIN (&arr, kp, &d);
      sim_append_shard_canonical (&d, shards.v[i]);
      bson_append_document_end (&arr, &d);
   }
   bson_append_array_end (reply, &arr);
   simq_docs_clear (&shards);
   sim_reply_ok (reply);
}

static void
sim_cmd_add_shard_to_zone (sim_ctx_t *ctx, bson_t *reply)
{
   bson_error_t err;
   const char *shard = sim_first_string (ctx, reply);
   if (!shard) {
      return;
   }
   const char *zone = sim_str (ctx->cmd, "zone");
   if (!zone) {
      sim_reply_error (reply, 4, "Missing expected field \"zone\"");
      return;
   }
   if (!sim_op_add_shard_to_zone (shard, zone, &err)) {
      sim_admin_error (reply, &err);
      return;
   }
   sim_reply_ok (reply);
}

static void
sim_cmd_remove_shard_from_zone (sim_ctx_t *ctx, bson_t *reply)
{
   const char *shard = sim_first_string (ctx, reply);
   if (!shard) {
      return;
   }
   const char *zone = sim_str (ctx->cmd, "zone");
   bson_t doc, tags, set = BSON_INITIALIZER, arr, out;
   if (!zone) {
      sim_reply_error (reply, 4, "Missing expected field \"zone\"");
      goto cleanup_set;
   }
   if (!sim_shard_get (shard, &doc)) {
      sim_reply_error (reply, 70, "shard %s does not exist", shard);
      goto cleanup_set;
   }
   if (sim_shard_has_zone (shard, zone)) {
      /* Last shard in the zone while a range still uses it → ZoneStillInUse. */
      simq_docs_t shards;
      simq_docs_init (&shards);
      sim_shards_list (&shards);
      int holders = 0;
      for (size_t i = 0; i < shards.n; i++) {
         holders += sim_shard_has_zone (sim_str (shards.v[i], "_id"), zone);
      }
      simq_docs_clear (&shards);
      sim_coll_t *tagc = sim_coll_get ("config", "tags");
      bool used = false;
      for (size_t p = 0; tagc && p < tagc->nparts && !used; p++) {
         for (size_t i = 0; i < tagc->parts[p].docs.n && !used; i++) {
            bson_t view;
            sim_pos_t pos = { p, i };
            sim_coll_view (tagc, pos, &view);
            const char *t = sim_str (&view, "tag");
            used = t && !strcmp (t, zone);
         }
      }
      if (holders <= 1 && used) {
         sim_reply_error (reply, 163, "cannot remove a shard from zone if a chunk range is associated with it");
         goto cleanup;
      }
   }
   uint32_t n = 0;
   BSON_APPEND_ARRAY_BEGIN (&set, "tags", &arr);
   if (sim_sub (&doc, "tags", &tags)) {
      bson_iter_t it;
      bson_iter_init (&it, &tags);
      while (bson_iter_next (&it)) {
         if (BSON_ITER_HOLDS_UTF8 (&it) && !strcmp (bson_iter_utf8 (&it, NULL), zone)) {
            continue;
         }
         char key[16];
         const char *kp;
         bson_uint32_to_string (n++, &kp, key, sizeof key);
         bson_append_value (&arr, kp, -1, bson_iter_value (&it));
      }
      bson_append_array_end (&set, &arr);
      sim_doc_set (&doc, &set, NULL, &out);
      sim_pos_t pos;
      sim_coll_t *shards_coll = sim_coll_get ("config", "shards");
      if (sim_find_by_sid (shards_coll, shard, &pos)) {
         sim_coll_replace (shards_coll, pos, &out);
      }
      bson_destroy (&out);
   } else {
      bson_append_array_end (&set, &arr);
   }
   sim_reply_ok (reply);
cleanup:
   bson_destroy (&doc);
cleanup_set:
   bson_destroy (&set);
}

static void
sim_cmd_update_zone_key_range (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   bson_t min, max;
   bson_error_t err;
   bson_iter_init (&it, ctx->cmd);
   bson_iter_next (&it);
   if (!BSON_ITER_HOLDS_UTF8 (&it)) {
      sim_reply_error (reply, 14, "\"updateZoneKeyRange\" had the wrong type. Expected string, found %s",
                       BSON_ITER_HOLDS_NUMBER (&it) ? "int" : "object");
      return;
   }
   const char *ns = bson_iter_utf8 (&it, NULL);
   char db[128];
   const char *coll;
   if (!sim_split_ns (ns, db, sizeof db, &coll)) {
      sim_reply_error (reply, 73, "%s is not a valid namespace", ns);
      return;
   }
   const char *names[2] = { "min", "max" };
   bson_t *bounds[2] = { &min, &max };
   for (int i = 0; i < 2; i++) {
      if (!bson_iter_init_find (&it, ctx->cmd, names[i])) {
         sim_reply_error (reply, 4, "The field '%s' cannot be parsed due to Missing expected field \"%s\"", names[i],
                          names[i]);
         return;
      }
      if (!sim_sub (ctx->cmd, names[i], bounds[i]) || !BSON_ITER_HOLDS_DOCUMENT (&it)) {
         sim_reply_error (reply, 14,
                          "The field '%s' cannot be parsed due to \"%s\" had the wrong type. Expected "
                          "object",
                          names[i], names[i]);
         return;
      }
      if (bson_empty (bounds[i])) {
         sim_reply_error (reply, 2, "The field '%s' cannot be empty", names[i]);
         return;
      }
   }
   if (!bson_iter_init_find (&it, ctx->cmd, "zone")) {
      sim_reply_error (reply, 4, "Missing expected field \"zone\"");
      return;
   }
   const char *zone = NULL;
   if (BSON_ITER_HOLDS_UTF8 (&it)) {
      zone = bson_iter_utf8 (&it, NULL);
   } else if (!BSON_ITER_HOLDS_NULL (&it)) {
      sim_reply_error (reply, 14, "\"zone\" had the wrong type. Expected string or null, found %s",
                       BSON_ITER_HOLDS_INT32 (&it)    ? "int"
                       : BSON_ITER_HOLDS_NUMBER (&it) ? "double"
                                                      : "object");
      return;
   }
   if (!sim_op_update_zone_range (ns, &min, &max, zone, &err)) {
      sim_admin_error (reply, &err);
      return;
   }
   sim_reply_ok (reply);
}

/* 6.0+ moveChunk's argument checks, in the order of the typed command (72 InvalidOptions each). */
static bool
sim_target_args_ok (sim_ctx_t *ctx, bson_error_t *err)
{
   bson_t bounds;
   bool have_find = sim_has (ctx->cmd, "find"), have_bounds = sim_sub (ctx->cmd, "bounds", &bounds);
   if (have_bounds && bson_count_keys (&bounds) != 2) {
      SIM_ERR (err, 72, "bounds can only have exactly 2 elements");
      return false;
   }
   if (have_find && have_bounds) {
      SIM_ERR (err, 72, "cannot specify bounds and query at the same time");
      return false;
   }
   if (!have_find && !have_bounds) {
      SIM_ERR (err, 72, "need to specify query or bounds");
      return false;
   }
   return true;
}

/* The chunk a moveChunk/split request designates (find or bounds); errors follow the version's style. */
static bool
sim_target_chunk (sim_ctx_t *ctx, const sim_shcoll_t *sc, bool typed, bool for_split, bson_t *chunk, bson_error_t *err)
{
   bson_t find, bounds, middle;
   bool have_find = sim_sub (ctx->cmd, "find", &find);
   bool have_bounds = sim_sub (ctx->cmd, "bounds", &bounds);
   bool have_middle = for_split && sim_sub (ctx->cmd, "middle", &middle);
   (void) have_middle;
   if (!typed && !for_split && (have_find ? bson_empty (&find) : true) == (have_bounds ? bson_empty (&bounds) : true)) {
      /* 4.4/5.0 errmsgRun: getObjectField of each; both empty (absent, not objects, {}) or both given. */
      SIM_ERR (err, 0, "need to specify either a find query, or both lower and upper bounds.");
      return false;
   }
   if (!typed && !for_split) {
      have_find = have_find && !bson_empty (&find);
      have_bounds = !have_find;
   }
   if (for_split) {
      /* cluster_split_cmd.cpp: FieldParser's default ({} / []) is "not given". */
      have_find = have_find && !bson_empty (&find);
      have_bounds = have_bounds && !bson_empty (&bounds);
   }
   if (have_find && have_bounds) {
      if (for_split) {
         SIM_ERR (err, 0, "cannot specify bounds and find at the same time");
      } else {
         SIM_ERR (err, typed ? 72 : 0, "cannot specify bounds and query at the same time");
      }
      return false;
   }
   if (!have_find && !have_bounds) {
      if (for_split) {
         SIM_ERR (err, 0, "need to specify find/bounds or middle");
      } else if (typed) {
         SIM_ERR (err, 72, "need to specify query or bounds");
      } else {
         SIM_ERR (err, 0, "need to specify either a find query, or both lower and upper bounds.");
      }
      return false;
   }
   if (have_find) {
      bson_t key;
      if (!sim_key_from_query (sc, &find, &key)) {
         char *s = sim_bson_str (&find);
         SIM_ERR (err, typed ? 656450 : 0, "no shard key found in chunk query %s", s);
         bson_free (s);
         bson_destroy (&key);
         return false;
      }
      bool ok = sim_chunk_find (sc, &key, chunk, NULL);
      bson_destroy (&key);
      if (!ok) {
         SIM_ERR (err, typed ? 656452 : 0, "no chunk found for the query");
      }
      return ok;
   }
   bson_iter_t it;
   bson_t lo, hi;
   int n = 0;
   bson_iter_init (&it, &bounds);
   while (bson_iter_next (&it)) {
      n++;
   }
   if (n != 2 || !sim_sub (&bounds, "0", &lo) || !sim_sub (&bounds, "1", &hi)) {
      if (for_split) {
         SIM_ERR (err, 0, n < 1 ? "lower bound not specified" : "upper bound not specified");
      } else {
         SIM_ERR (err, typed ? 72 : 0, "bounds can only have exactly 2 elements");
      }
      return false;
   }
   if (!sim_bound_fits (sc, &lo) || !sim_bound_fits (sc, &hi)) {
      char *a = sim_bson_str (&lo), *b = sim_bson_str (&hi), *k = sim_bson_str (&sc->key);
      SIM_ERR (err, typed ? 656451 : 0, "shard key bounds [%s,%s) are not valid for shard key pattern %s", a, b, k);
      bson_free (a);
      bson_free (b);
      bson_free (k);
      return false;
   }
   bson_t found;
   if (sim_chunk_find (sc, &lo, &found, NULL)) {
      bson_t fmin, fmax;
      if (sim_sub (&found, "min", &fmin) && sim_sub (&found, "max", &fmax) && order_docs (&fmin, &lo) == 0 &&
          order_docs (&fmax, &hi) == 0) {
         bson_copy_to (&found, chunk);
         bson_destroy (&found);
         return true;
      }
      bson_destroy (&found);
   }
   char *a = sim_bson_str (&lo), *b = sim_bson_str (&hi);
   SIM_ERR (err, typed ? 656452 : 0, "no chunk found with the shard key bounds [%s, %s)", a, b);
   bson_free (a);
   bson_free (b);
   return false;
}

static void
sim_not_sharded (bson_t *reply, const char *ns)
{
   sim_reply_error (reply, 118, "Collection %s is not sharded.", ns);
}

/* moveChunk. 4.4/5.0 follow cluster_move_chunk_cmd.cpp's errmsgRun (sharded check first, then 'to', then the shard,
 * then find/bounds); 6.0+ its typed run (the IDL requires 'to', then the sharded check, the 72 argument checks, the
 * shard, the chunk), which sends _configsvrMoveRange. */
static void
sim_cmd_move_chunk (sim_ctx_t *ctx, bson_t *reply)
{
   int64_t started = clock_wall_ms ();
   bson_error_t err;
   bson_t chunk;
   sim_shcoll_t sc;
   bson_iter_t it;
   bool typed = sim_ver_ge (60);
   const char *ns = sim_first_ns (ctx, reply);
   memset (&sc, 0, sizeof sc);
   bson_init (&sc.key);
   bson_init (&sc.doc);
   if (!ns) {
      goto done;
   }
   bool have_to = bson_iter_init_find (&it, ctx->cmd, "to");
   if (typed && !have_to) {
      sim_reply_error (reply, 40414, "BSON field 'moveChunk.to' is missing but a required field");
      goto done;
   }
   if (typed && !BSON_ITER_HOLDS_UTF8 (&it)) {
      sim_reply_error (reply, 14, "BSON field 'moveChunk.to' is the wrong type '%s', expected type 'string'",
                       BSON_ITER_HOLDS_INT32 (&it)    ? "int"
                       : BSON_ITER_HOLDS_NUMBER (&it) ? "double"
                                                      : "object");
      goto done;
   }
   sim_shcoll_destroy (&sc);
   if (!sim_shcoll_load (ns, &sc)) {
      sim_not_sharded (reply, ns);
      goto done;
   }
   if (!have_to || !BSON_ITER_HOLDS_UTF8 (&it)) {
      sim_reply_error (reply, 14, "'to' must be of type String");
      goto done;
   }
   const char *to = bson_iter_utf8 (&it, NULL);
   if (!typed && !to[0]) {
      sim_reply_error (reply, 0, "you have to specify where you want to move the chunk");
      goto done;
   }
   if (typed && !sim_target_args_ok (ctx, &err)) {
      sim_admin_error (reply, &err);
      goto done;
   }
   if (!sim_shard_get (to, NULL)) {
      sim_reply_error (reply, 70, "Could not move chunk in %s to %s because that shard does not exist", ns, to);
      goto done;
   }
   if (!sim_target_chunk (ctx, &sc, typed, false, &chunk, &err)) {
      sim_admin_error (reply, &err);
      goto done;
   }
   int64_t max_bytes = 0;
   if (!typed && bson_iter_init_find (&it, ctx->cmd, "maxChunkSizeBytes") && BSON_ITER_HOLDS_NUMBER (&it)) {
      max_bytes = bson_iter_as_int64 (&it); /* 4.4/5.0 pass it on to the donor */
   }
   bool force_jumbo = bson_iter_init_find (&it, ctx->cmd, "forceJumbo") && bson_iter_as_bool (&it);
   if (strcmp (sim_chunk_shard (&chunk), to) != 0 &&
       (!sim_check_manual_move (&sc, &chunk, to, &err) ||
        !sim_check_chunk_size (&sc, &chunk, max_bytes, force_jumbo, &err))) {
      bson_destroy (&chunk);
      sim_admin_error (reply, &err);
      goto done;
   }
   if (strcmp (sim_chunk_shard (&chunk), to) != 0) {
      sim_move_chunk_doc (&sc, &chunk, to);
   }
   bson_destroy (&chunk);
   BSON_APPEND_INT32 (reply, "millis", (int32_t) (clock_wall_ms () - started));
   sim_reply_ok (reply);
done:
   sim_shcoll_destroy (&sc);
}

typedef struct {
   bson_t *key;
   int64_t size;
} sim_keysize_t;

static int
sim_keysize_cmp (const void *a, const void *b)
{
   return order_docs (((const sim_keysize_t *) a)->key, ((const sim_keysize_t *) b)->key);
}

/* The shard keys (sorted) and sizes of sc's documents inside [lo, hi) into *out (*n of them; free with
 * sim_keysizes_free). */
static void
sim_range_keys (const sim_shcoll_t *sc, const bson_t *lo, const bson_t *hi, sim_keysize_t **out, size_t *n)
{
   size_t cap = 0;
   *out = NULL;
   *n = 0;
   sim_coll_t *coll = sim_coll_get_ns (sc->ns);
   for (size_t p = 0; coll && p < coll->nparts; p++) {
      for (size_t i = 0; i < coll->parts[p].docs.n; i++) {
         bson_t view, key;
         sim_pos_t at = { p, i };
         sim_coll_view (coll, at, &view);
         sim_shard_key_of (sc, &view, &key);
         if (order_docs (lo, &key) <= 0 && order_docs (&key, hi) < 0) {
            if (*n == cap) {
               cap = cap ? cap * 2 : 64;
               *out = bson_realloc (*out, cap * sizeof **out);
            }
            (*out)[*n].key = bson_copy (&key);
            (*out)[*n].size = view.len;
            (*n)++;
         }
         bson_destroy (&key);
      }
   }
   if (*n > 1) {
      qsort (*out, *n, sizeof **out, sim_keysize_cmp);
   }
}

static void
sim_keysizes_free (sim_keysize_t *v, size_t n)
{
   for (size_t i = 0; i < n; i++) {
      bson_destroy (v[i].key);
   }
   bson_free (v);
}

/* computeOtherBound (migration_source_manager.cpp): the first split point autoSplitVector finds in [lo, hi) for one
 * chunk of max_bytes (forward: from lo; backward: from hi), or hi (forward) / lo (backward) when the range holds no
 * more than one chunk of data. autoSplitVector counts documents: a chunk is max_bytes / the average document size of
 * the donor, and a split point never falls between equal keys. out is initialised here. */
static void
sim_other_bound (const sim_shcoll_t *sc, const char *donor, const bson_t *lo, const bson_t *hi, int64_t max_bytes,
                 bool forward, bson_t *out)
{
   sim_keysize_t *v;
   size_t n;
   int64_t avg = sim_donor_avg_size (sc, donor);
   sim_range_keys (sc, lo, hi, &v, &n);
   int64_t per = avg > 0 ? max_bytes / avg : 0;
   bson_init (out);
   if (per < 1) {
      per = 1;
   }
   if (avg == 0 || (int64_t) n <= per) {
      bson_concat (out, forward ? hi : lo);
   } else if (forward) {
      size_t at = (size_t) per;
      while (at < n && order_docs (v[at].key, v[at - 1].key) == 0) {
         at++;
      }
      bson_concat (out, at < n ? v[at].key : hi);
   } else {
      size_t at = n - (size_t) per; /* the new min: the last `per` documents move */
      while (at > 0 && order_docs (v[at].key, v[at - 1].key) == 0) {
         at--;
      }
      bson_concat (out, at > 0 ? v[at].key : lo);
   }
   sim_keysizes_free (v, n);
}

/* moveRange (6.0+): cluster_move_range_cmd.cpp, then _configsvrMoveRange (Balancer::moveRange: no zone or draining
 * check) and the donor's _shardsvrMoveRange / MigrationSourceManager: a move onto the owner returns at once, a
 * missing bound is computed (computeOtherBound), the size check runs on the range, and the range is split out of its
 * chunk only when the migration commits. */
static void
sim_cmd_move_range (sim_ctx_t *ctx, bson_t *reply)
{
   bson_error_t err;
   bson_t min, max, chunk, cmin, cmax, lo, hi;
   sim_shcoll_t sc;
   bson_iter_t it;
   bool have_chunk = false;
   const char *ns = sim_first_ns (ctx, reply);
   memset (&sc, 0, sizeof sc);
   bson_init (&sc.key);
   bson_init (&sc.doc);
   bson_init (&lo);
   bson_init (&hi);
   if (!ns) {
      goto done;
   }
   const char *to = sim_str (ctx->cmd, "toShard");
   if (!to) {
      sim_reply_error (reply, 40414, "BSON field 'moveRange.toShard' is missing but a required field");
      goto done;
   }
   bool have_min = sim_sub (ctx->cmd, "min", &min) && sim_has (ctx->cmd, "min");
   bool have_max = sim_sub (ctx->cmd, "max", &max) && sim_has (ctx->cmd, "max");
   if (!have_min && (!sim_ver_ge (70) || !have_max)) {
      sim_reply_error (reply, 72, "Missing required parameter 'min'");
      goto done;
   }
   sim_shcoll_destroy (&sc);
   if (!sim_shcoll_load (ns, &sc)) {
      sim_not_sharded (reply, ns);
      goto done;
   }
   /* the config server resolves the destination (ShardRegistry: "Shard X not found") before the donor looks at
    * the bounds */
   if (!sim_shard_get (to, NULL)) {
      sim_reply_error (reply, 70, "Shard %s not found", to);
      goto done;
   }
   if ((have_min && !sim_bound_fits (&sc, &min)) || (have_max && !sim_bound_fits (&sc, &max))) {
      char *k = sim_bson_str (&sc.key);
      sim_reply_error (reply, 656451, "shard key bounds are not valid for shard key pattern %s", k);
      bson_free (k);
      goto done;
   }
   if (have_min) {
      have_chunk = sim_chunk_find (&sc, &min, &chunk, NULL);
   } else {
      /* getChunkForMaxBound: the chunk ending at max, else the one containing it. */
      simq_docs_t all;
      simq_docs_init (&all);
      sim_chunks_of (&sc, &all);
      for (size_t i = 0; i < all.n && !have_chunk; i++) {
         bson_t a, b;
         sim_sub (all.v[i], "min", &a);
         sim_sub (all.v[i], "max", &b);
         if (order_docs (&a, &max) < 0 && order_docs (&max, &b) <= 0) {
            bson_copy_to (all.v[i], &chunk);
            have_chunk = true;
         }
      }
      simq_docs_clear (&all);
   }
   if (!have_chunk) {
      sim_reply_error (reply, 656452, "no chunk found for the range");
      goto done;
   }
   sim_sub (&chunk, "min", &cmin);
   sim_sub (&chunk, "max", &cmax);
   const char *from = sim_chunk_shard (&chunk);
   if (!strcmp (from, to)) {
      sim_reply_ok (reply); /* the range is already on the destination: nothing is checked, split or moved */
      goto done;
   }
   if (!sim_check_manual_move (&sc, &chunk, to, &err)) {
      sim_admin_error (reply, &err);
      goto done;
   }
   int64_t cs = sim_chunk_size_bytes (&sc);
   bson_destroy (&lo);
   bson_destroy (&hi);
   if (have_min) {
      bson_copy_to (&min, &lo);
   } else {
      sim_other_bound (&sc, from, &cmin, &max, cs, false, &lo);
   }
   if (have_max) {
      /* a max past the chunk's end moves the rest of the chunk */
      bson_copy_to (order_docs (&max, &cmax) < 0 ? &max : &cmax, &hi);
   } else {
      sim_other_bound (&sc, from, &min, &cmax, cs, true, &hi);
   }
   if (order_docs (&lo, &hi) >= 0) {
      char *a = sim_bson_str (&lo), *b = sim_bson_str (&hi);
      sim_reply_error (reply, 9, "min: %s should be less than max: %s", a, b);
      bson_free (a);
      bson_free (b);
      goto done;
   }
   sim_keysize_t *keys;
   size_t nkeys;
   sim_range_keys (&sc, &lo, &hi, &keys, &nkeys);
   sim_keysizes_free (keys, nkeys);
   bool force_jumbo = bson_iter_init_find (&it, ctx->cmd, "forceJumbo") && bson_iter_as_bool (&it);
   if (!sim_check_range_size (&sc, &lo, &hi, (int64_t) nkeys, 0, force_jumbo, &err)) {
      sim_admin_error (reply, &err);
      goto done;
   }
   /* The commit splits [lo, hi) out of the chunk as it moves it (no split changelog entry). */
   sim_migrate_commit_range (&sc, &chunk, &lo, &hi, to, true, -1, -1, 0);
   sim_reply_ok (reply);
done:
   if (have_chunk) {
      bson_destroy (&chunk);
   }
   bson_destroy (&lo);
   bson_destroy (&hi);
   sim_shcoll_destroy (&sc);
}

/* FieldParser::extract's error for a field of the wrong type: "wrong type for 'F' field, expected T, found
 * <BSONElement::toString>". */
static bool
sim_field_type_ok (const bson_t *cmd, const char *field, bool want_array, bson_t *reply)
{
   bson_iter_t it;
   if (!bson_iter_init_find (&it, cmd, field)) {
      return true;
   }
   /* A BSONObj field takes any embedded object (isABSONObj: documents and arrays), a BSONArray field arrays only. */
   if (BSON_ITER_HOLDS_ARRAY (&it) || (!want_array && BSON_ITER_HOLDS_DOCUMENT (&it))) {
      return true;
   }
   bson_t one = BSON_INITIALIZER;
   bson_append_iter (&one, field, -1, &it);
   char *j = sim_bson_str (&one);
   size_t n = strlen (j);
   /* "{ f: v }" -> "f: v" */
   if (n >= 4 && j[0] == '{' && j[n - 1] == '}') {
      j[n - 2] = '\0';
   }
   sim_reply_error (reply, 0, "wrong type for '%s' field, expected %s, found %s", field,
                    want_array ? "array" : "object", n >= 4 ? j + 2 : j);
   bson_free (j);
   bson_destroy (&one);
   return false;
}

/* Whether cmd's field is a non-empty document or array (FieldParser's default {} / [] counts as absent). */
static bool
sim_nonempty (const bson_t *cmd, const char *field)
{
   bson_t sub;
   return sim_sub (cmd, field, &sub) && !bson_empty (&sub);
}

static void
sim_cmd_split (sim_ctx_t *ctx, bson_t *reply)
{
   bson_error_t err;
   bson_t middle, chunk, median;
   sim_shcoll_t sc;
   const char *ns = sim_first_ns (ctx, reply);
   memset (&sc, 0, sizeof sc);
   bson_init (&sc.key);
   bson_init (&sc.doc);
   if (!ns) {
      goto done;
   }
   /* cluster_split_cmd.cpp SplitCollectionCmd::errmsgRun: the routing info first (118 for an unsharded
    * namespace), then find, bounds (each element), find with bounds, middle, none, find with middle, bounds with
    * middle. */
   sim_shcoll_destroy (&sc);
   if (!sim_shcoll_load (ns, &sc)) {
      sim_not_sharded (reply, ns);
      goto done;
   }
   if (!sim_field_type_ok (ctx->cmd, "find", false, reply) || !sim_field_type_ok (ctx->cmd, "bounds", true, reply)) {
      goto done;
   }
   bool have_find = sim_nonempty (ctx->cmd, "find"), have_bounds = sim_nonempty (ctx->cmd, "bounds");
   if (have_bounds) {
      bson_t b;
      bson_iter_t bi;
      sim_sub (ctx->cmd, "bounds", &b);
      if (!bson_iter_init_find (&bi, &b, "0")) {
         sim_reply_error (reply, 0, "lower bound not specified");
         goto done;
      }
      if (!bson_iter_init_find (&bi, &b, "1")) {
         sim_reply_error (reply, 0, "upper bound not specified");
         goto done;
      }
   }
   if (have_find && have_bounds) {
      sim_reply_error (reply, 0, "cannot specify bounds and find at the same time");
      goto done;
   }
   if (!sim_field_type_ok (ctx->cmd, "middle", false, reply)) {
      goto done;
   }
   bool have_middle = sim_nonempty (ctx->cmd, "middle");
   if (!have_find && !have_bounds && !have_middle) {
      sim_reply_error (reply, 0, "need to specify find/bounds or middle");
      goto done;
   }
   if (have_middle && have_find) {
      sim_reply_error (reply, 0, "cannot specify find and middle together");
      goto done;
   }
   if (have_middle && have_bounds) {
      sim_reply_error (reply, 0, "cannot specify bounds and middle together");
      goto done;
   }
   if (have_middle) {
      sim_sub (ctx->cmd, "middle", &middle);
      if (!sim_bound_fits (&sc, &middle)) {
         char *a = sim_bson_str (&middle), *b = sim_bson_str (&sc.key);
         sim_reply_error (reply, 0, "new split key %s is not valid for shard key pattern %s", a, b);
         bson_free (a);
         bson_free (b);
         goto done;
      }
      if (!sim_split_at (&sc, &middle, &err)) {
         sim_admin_error (reply, &err);
         goto done;
      }
      sim_reply_ok (reply);
      goto done;
   }
   if (!sim_target_chunk (ctx, &sc, false, true, &chunk, &err)) {
      sim_admin_error (reply, &err);
      goto done;
   }
   bson_init (&median);
   bool ok = sim_chunk_median (&sc, &chunk, &median, &err) && sim_split_at (&sc, &median, &err);
   bson_destroy (&median);
   bson_destroy (&chunk);
   if (!ok) {
      sim_admin_error (reply, &err);
      goto done;
   }
   sim_reply_ok (reply);
done:
   sim_shcoll_destroy (&sc);
}

static void
sim_cmd_merge_chunks (sim_ctx_t *ctx, bson_t *reply)
{
   bson_t bounds, lo, hi;
   sim_shcoll_t sc;
   simq_docs_t all;
   simq_docs_init (&all);
   memset (&sc, 0, sizeof sc);
   bson_init (&sc.key);
   bson_init (&sc.doc);
   const char *ns = sim_first_ns (ctx, reply);
   if (!ns) {
      goto done;
   }
   /* cluster_merge_chunks_cmd.cpp ClusterMergeChunksCommand::errmsgRun: bounds (FieldParser, vector of objects),
    * their count, an empty min or max, then the routing info (118), then the shard key pattern. */
   bson_iter_t bit;
   if (bson_iter_init_find (&bit, ctx->cmd, "bounds") && !BSON_ITER_HOLDS_ARRAY (&bit)) {
      bson_t one = BSON_INITIALIZER;
      bson_append_iter (&one, "bounds", -1, &bit);
      char *j = sim_bson_str (&one);
      size_t jn = strlen (j);
      if (jn >= 4) {
         j[jn - 2] = '\0';
      }
      sim_reply_error (reply, 0, "wrong type for 'bounds' field, expected vector array, found %s", jn >= 4 ? j + 2 : j);
      bson_free (j);
      bson_destroy (&one);
      goto done;
   }
   if (!sim_sub (ctx->cmd, "bounds", &bounds)) {
      sim_reply_error (reply, 0, "no bounds were specified");
      goto done;
   }
   int n = 0;
   bson_iter_t it;
   bson_iter_init (&it, &bounds);
   while (bson_iter_next (&it)) {
      n++;
   }
   if (n == 0) {
      sim_reply_error (reply, 0, "no bounds were specified");
      goto done;
   }
   if (n != 2) {
      sim_reply_error (reply, 0, "only a min and max bound may be specified");
      goto done;
   }
   if (!sim_sub (&bounds, "0", &lo) || bson_empty (&lo)) {
      sim_reply_error (reply, 0, "no min key specified");
      goto done;
   }
   if (!sim_sub (&bounds, "1", &hi) || bson_empty (&hi)) {
      sim_reply_error (reply, 0, "no max key specified");
      goto done;
   }
   sim_shcoll_destroy (&sc);
   if (!sim_shcoll_load (ns, &sc)) {
      sim_not_sharded (reply, ns);
      goto done;
   }
   if (!sim_bound_fits (&sc, &lo) || !sim_bound_fits (&sc, &hi)) {
      char *a = sim_bson_str (&lo), *b = sim_bson_str (&hi), *k = sim_bson_str (&sc.key);
      sim_reply_error (reply, 0, "shard key bounds [%s,%s) are not valid for shard key pattern %s", a, b, k);
      bson_free (a);
      bson_free (b);
      bson_free (k);
      goto done;
   }
   sim_chunks_of (&sc, &all);
   size_t first = SIZE_MAX, last = SIZE_MAX;
   for (size_t i = 0; i < all.n; i++) {
      bson_t cmin, cmax;
      sim_sub (all.v[i], "min", &cmin);
      sim_sub (all.v[i], "max", &cmax);
      if (order_docs (&cmin, &lo) == 0) {
         first = i;
      }
      if (order_docs (&cmax, &hi) == 0) {
         last = i;
      }
   }
   char *a = sim_bson_str (&lo), *b = sim_bson_str (&hi);
   bool bad = first == SIZE_MAX || last == SIZE_MAX || last < first;
   const char *owner = bad ? "" : sim_chunk_shard (all.v[first]);
   for (size_t i = first; !bad && i <= last; i++) {
      bad = strcmp (sim_chunk_shard (all.v[i]), owner) != 0;
   }
   if (bad) {
      /* The mongos sends the merge to the owner of the chunk holding min (findIntersectingChunk), which names
       * itself in the error. */
      bson_t holder;
      char named[64] = "";
      if (sim_chunk_find (&sc, &lo, &holder, NULL)) {
         bson_strncpy (named, sim_chunk_shard (&holder), sizeof named);
         bson_destroy (&holder);
      }
      owner = named;
      sim_reply_error (reply, 20,
                       "could not merge chunks, shard %s does not contain a sequence of chunks that exactly fills "
                       "the range [%s, %s)",
                       owner[0] ? owner : "(none)", a, b);
      bson_free (a);
      bson_free (b);
      goto done;
   }
   bson_free (a);
   bson_free (b);
   if (last > first) {
      uint32_t major, minor;
      sim_chunk_max_version (&sc, &major, &minor);
      bson_t merged;
      char shard[64];
      bson_strncpy (shard, owner, sizeof shard);
      sim_chunk_rewrite (&sc, all.v[first], &lo, &hi, shard, major, minor + 1, false, &merged);
      sim_merge_changelog (&sc, (const bson_t *const *) &all.v[first], last - first + 1, major, minor, shard);
      for (size_t i = first + 1; i <= last; i++) {
         sim_chunk_put (all.v[i], NULL);
      }
      sim_chunk_put (all.v[first], &merged);
      bson_destroy (&merged);
   }
   sim_reply_ok (reply);
done:
   simq_docs_clear (&all);
   sim_shcoll_destroy (&sc);
}

static bool
sim_balancer_stopped (void)
{
   bson_iter_t it;
   bson_t view;
   if (!sim_setting_view ("balancer", &view)) {
      return false;
   }
   if (bson_iter_init_find (&it, &view, "stopped") && bson_iter_as_bool (&it)) {
      return true;
   }
   const char *mode = sim_str (&view, "mode");
   return mode && strcmp (mode, "full") != 0;
}

static void
sim_cmd_balancer_start_stop (sim_ctx_t *ctx, bson_t *reply)
{
   bool start = !strcmp (ctx->name, "balancerStart");
   bson_t set = BSON_INITIALIZER;
   BSON_APPEND_BOOL (&set, "stopped", !start);
   BSON_APPEND_UTF8 (&set, "mode", start ? "full" : "off");
   sim_config_update ("settings", "balancer", &set, NULL, true);
   if (!sim_ver_ge (60)) {
      bson_reinit (&set);
      BSON_APPEND_BOOL (&set, "enabled", start);
      sim_config_update ("settings", "autosplit", &set, NULL, true);
   }
   if (sim_ver_ge (70)) {
      /* From 7.0 _configsvrBalancerStart/Stop also call BalancerConfiguration::changeAutoMergeSettings (true/false):
       * config.settings { _id: "automerge", enabled } (configsvr_control_balancer_command.cpp). */
      bson_reinit (&set);
      BSON_APPEND_BOOL (&set, "enabled", start);
      sim_config_update ("settings", "automerge", &set, NULL, true);
   }
   bson_destroy (&set);
   uint32_t s, i;
   sim_tick (&s, &i);
   if (start && sim_ver_ge (80)) {
      /* 8.0: ShardingLogging::logAction "balancer.start", empty namespace and details. */
      bson_t empty = BSON_INITIALIZER;
      sim_changelog (true, "balancer.start", "", "config", &empty, clock_wall_ms ());
      bson_destroy (&empty);
   }
   if (!start && sim_dyn.live) {
      /* balancerStop waits for the current round to finish, up to maxTimeMS. */
      bson_iter_t it;
      int64_t max_ms = bson_iter_init_find (&it, ctx->cmd, "maxTimeMS") && BSON_ITER_HOLDS_NUMBER (&it)
                          ? bson_iter_as_int64 (&it)
                          : 0;
      if (!sim_balancer_wait_round (max_ms > 0 ? clock_wall_ms () + max_ms : INT64_MAX)) {
         sim_reply_error (reply, 50, "operation exceeded time limit");
         return;
      }
   }
   if (!start && sim_ver_ge (80)) {
      /* 8.0: "balancer.stop" is logged once the current round was joined. */
      bson_t empty = BSON_INITIALIZER;
      sim_changelog (true, "balancer.stop", "", "config", &empty, clock_wall_ms ());
      bson_destroy (&empty);
   }
   sim_reply_ok (reply);
}

static void
sim_cmd_balancer_status (sim_ctx_t *ctx, bson_t *reply)
{
   (void) ctx;
   /* Balancer::report: the mode of the settings as last parsed (kBalancerModes[mode]; autoSplitOnly up to 6.0); a
    * document that does not parse leaves the previous settings in force. */
   static char last_mode[16] = "full";
   char mode[16];
   int ws, we;
   if (sim_balancer_settings (mode, &ws, &we)) {
      bson_strncpy (last_mode, mode, sizeof last_mode);
   }
   BSON_APPEND_UTF8 (reply, "mode", last_mode);
   BSON_APPEND_BOOL (reply, "inBalancerRound", sim_dyn.live && sim_dyn.in_round);
   if (sim_dyn.live) {
      /* The live balancer's own rounds (sim_balancer.c), skipped ones included (_endRound counts them too). */
      BSON_APPEND_INT64 (reply, "numBalancerRounds", sim_g.balancer_rounds + sim_dyn.rounds + sim_dyn.rounds_skipped);
   } else {
      /* A round every 10 s while the balancer is on (the real default interval). */
      BSON_APPEND_INT64 (reply, "numBalancerRounds",
                         sim_g.balancer_rounds + (clock_wall_ms () - sim_g.start_ms) / 10000);
   }
   if (sim_ver_ge (80)) {
      BSON_APPEND_INT64 (reply, "term", 1);
   }
   sim_reply_ok (reply);
}

static int64_t
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

static bool
sim_generic_arg (const char *k)
{
   static const char *generic[] = { "$db",        "lsid",      "$clusterTime",         "$readPreference",
                                    "comment",    "maxTimeMS", "readConcern",          "writeConcern",
                                    "apiVersion", "apiStrict", "apiDeprecationErrors", "txnNumber",
                                    NULL };
   for (int i = 0; generic[i]; i++) {
      if (!strcmp (generic[i], k)) {
         return true;
      }
   }
   return false;
}

/* Whether a zone range bound of sc's namespace (extended to the full shard key) falls strictly inside one of the
 * chunks in all: the chunk the balancer would split first (BalancerChunkSelectionPolicy::selectChunksToSplit). */
static bool
sim_chunks_cut_by_zone (const sim_shcoll_t *sc, const simq_docs_t *all)
{
   sim_coll_t *tags = sim_coll_get ("config", "tags");
   bson_t filter = BSON_INITIALIZER;
   sim_hits_t hits = { 0 };
   bson_error_t e;
   bool cut = false;
   BSON_APPEND_UTF8 (&filter, "ns", sc->ns);
   if (tags && sim_coll_match (tags, &filter, 0, &hits, &e)) {
      for (size_t h = 0; h < hits.n && !cut; h++) {
         bson_t view, b;
         static const char *fields[] = { "min", "max" };
         sim_coll_view (tags, hits.v[h], &view);
         for (int f = 0; f < 2 && !cut; f++) {
            if (!sim_sub (&view, fields[f], &b)) {
               continue;
            }
            bson_t full;
            sim_extend_bound (sc, &b, &full);
            for (size_t i = 0; i < all->n && !cut; i++) {
               bson_t cmin, cmax;
               cut = sim_sub (all->v[i], "min", &cmin) && sim_sub (all->v[i], "max", &cmax) &&
                     order_docs (&cmin, &full) < 0 && order_docs (&full, &cmax) < 0;
            }
            bson_destroy (&full);
         }
      }
   }
   sim_hits_free (&hits);
   bson_destroy (&filter);
   return cut;
}

static void
sim_cmd_balancer_collection_status (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   sim_shcoll_t sc;
   simq_docs_t all, shards;
   simq_docs_init (&all);
   simq_docs_init (&shards);
   memset (&sc, 0, sizeof sc);
   bson_init (&sc.key);
   bson_init (&sc.doc);
   const char *ns = sim_first_ns (ctx, reply);
   if (!ns) {
      goto done;
   }
   bson_iter_init (&it, ctx->cmd);
   bson_iter_next (&it);
   while (bson_iter_next (&it)) {
      if (!sim_generic_arg (bson_iter_key (&it))) {
         sim_reply_error (reply, 40415, "BSON field 'balancerCollectionStatus.%s' is an unknown field.",
                          bson_iter_key (&it));
         goto done;
      }
   }
   sim_shcoll_destroy (&sc);
   if (!sim_shcoll_load (ns, &sc)) {
      sim_reply_error (reply, 118, "Collection unsharded or undefined");
      goto done;
   }
   sim_chunks_of (&sc, &all);
   sim_shards_list (&shards);
   const char *violation = NULL;
   /* Balancer::getBalancerStatusForNs: from 6.0 a defragmenting collection first; then a chunk that a zone range
    * boundary cuts (selectChunksToSplit: zoneViolation); then the reason of the first migration the policy picks
    * (draining, zone violation, imbalance). */
   if (sim_ver_ge (60) && bson_iter_init_find (&it, &sc.doc, "defragmentCollection") && bson_iter_as_bool (&it)) {
      violation = "defragmentingChunks";
   }
   if (!violation && sim_chunks_cut_by_zone (&sc, &all)) {
      violation = "zoneViolation";
   }
   for (size_t i = 0; i < all.n && !violation; i++) {
      if (sim_shard_draining (sim_chunk_shard (all.v[i]))) {
         violation = "draining";
      }
   }
   for (size_t i = 0; i < all.n && !violation; i++) {
      bson_t cmin, cmax;
      char zone[128];
      sim_sub (all.v[i], "min", &cmin);
      sim_sub (all.v[i], "max", &cmax);
      if (sim_zone_of_range (ns, &cmin, &cmax, zone, sizeof zone) &&
          !sim_shard_has_zone (sim_chunk_shard (all.v[i]), zone)) {
         violation = "zoneViolation";
      }
   }
   if (!violation && sim_balancer_imbalanced (ns) > 0) {
      /* The live balancer's own judgement, per zone: chunk counts before 6.0, data size from 6.0. */
      violation = "chunksImbalance";
   }
   if (sim_dyn.chunk_size_bytes > 0 && sim_ver_ge (60)) {
      /* --chunk-size-kb: the effective size, in MB (7.0+: rounded up to two decimals). */
      double mb = (double) sim_chunk_size_bytes (&sc) / (1024.0 * 1024.0);
      if (sim_ver_ge (70)) {
         BSON_APPEND_DOUBLE (reply, "chunkSize", ceil (mb * 100.0) / 100.0);
      } else {
         BSON_APPEND_INT64 (reply, "chunkSize", (int64_t) mb);
      }
   } else if (sim_ver_ge (70)) {
      BSON_APPEND_DOUBLE (reply, "chunkSize", (double) sim_chunk_size_mb (&sc));
   } else if (sim_ver_ge (60)) {
      BSON_APPEND_INT64 (reply, "chunkSize", sim_chunk_size_mb (&sc));
   }
   BSON_APPEND_BOOL (reply, "balancerCompliant", violation == NULL);
   if (violation) {
      BSON_APPEND_UTF8 (reply, "firstComplianceViolation", violation);
      if (!strcmp (violation, "defragmentingChunks")) {
         bson_t d, p;
         const char *phase = sim_str (&sc.doc, "defragmentationPhase");
         BSON_APPEND_DOCUMENT_BEGIN (reply, "details", &d);
         BSON_APPEND_UTF8 (&d, "currentPhase", phase ? phase : "mergeAndMeasureChunks");
         BSON_APPEND_DOCUMENT_BEGIN (&d, "progress", &p);
         BSON_APPEND_INT64 (&p, "remainingChunksToProcess", (int64_t) all.n);
         bson_append_document_end (&d, &p);
         bson_append_document_end (reply, &d);
      }
   }
   sim_reply_ok (reply);
done:
   simq_docs_clear (&all);
   simq_docs_clear (&shards);
   sim_shcoll_destroy (&sc);
}

static void
sim_cmd_configure_collection_balancing (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   sim_shcoll_t sc;
   const char *ns = sim_first_ns (ctx, reply);
   if (!ns) {
      return;
   }
   if (!sim_shcoll_load (ns, &sc)) {
      sim_shcoll_destroy (&sc);
      sim_not_sharded (reply, ns);
      return;
   }
   sim_shcoll_destroy (&sc);
   bson_t set = BSON_INITIALIZER;
   const char *unset[3] = { NULL, NULL, NULL };
   int nunset = 0;
   if (bson_iter_init_find (&it, ctx->cmd, "chunkSize")) {
      int64_t mb = bson_iter_as_int64 (&it);
      if (!BSON_ITER_HOLDS_NUMBER (&it) || mb < 0 || mb > 1024) {
         sim_reply_error (reply, 72, "Chunk size must be between 1 and 1024 MB (0 restores the default)");
         bson_destroy (&set);
         return;
      }
      if (mb == 0) {
         unset[nunset++] = "maxChunkSizeBytes";
      } else {
         BSON_APPEND_INT64 (&set, "maxChunkSizeBytes", mb * 1024 * 1024);
      }
   }
   if (bson_iter_init_find (&it, ctx->cmd, "defragmentCollection")) {
      bool on = bson_iter_as_bool (&it);
      BSON_APPEND_BOOL (&set, "defragmentCollection", on);
      if (on) {
         BSON_APPEND_UTF8 (&set, "defragmentationPhase", "mergeAndMeasureChunks");
      } else {
         unset[nunset++] = "defragmentationPhase";
      }
   }
   if (sim_ver_ge (70) && bson_iter_init_find (&it, ctx->cmd, "enableAutoMerger")) {
      BSON_APPEND_BOOL (&set, "enableAutoMerge", bson_iter_as_bool (&it));
   }
   if (!sim_ver_ge (70) && bson_iter_init_find (&it, ctx->cmd, "enableAutoSplitter")) {
      BSON_APPEND_BOOL (&set, "noAutoSplit", !bson_iter_as_bool (&it));
   }
   sim_config_update ("collections", ns, &set, unset, false);
   bson_destroy (&set);
   uint32_t s, i;
   sim_tick (&s, &i);
   sim_reply_ok (reply);
}

static void
sim_cmd_set_allow_migrations (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   sim_shcoll_t sc;
   const char *ns = sim_first_ns (ctx, reply);
   if (!ns) {
      return;
   }
   if (!bson_iter_init_find (&it, ctx->cmd, "allowMigrations") || !BSON_ITER_HOLDS_BOOL (&it)) {
      sim_reply_error (reply, 40414, "BSON field 'setAllowMigrations.allowMigrations' is missing but a required field");
      return;
   }
   bool allow = bson_iter_bool (&it);
   bool sharded = sim_shcoll_load (ns, &sc);
   sim_shcoll_destroy (&sc);
   if (!sharded) {
      sim_not_sharded (reply, ns);
      return;
   }
   /* ShardingCatalogManager::setAllowMigrationsAndBumpOneChunk: $set { permitMigrations: false } or $unset
    * permitMigrations on config.collections (CollectionType::kPermitMigrationsFieldName) from 5.0; 4.4 (the
    * SERVER-56227 backport) writes the pre-5.0 name, allowMigrations (kPre50CompatibleAllowMigrationsFieldName). */
   bson_t set = BSON_INITIALIZER;
   const char *field = sim_ver_ge (50) ? "permitMigrations" : "allowMigrations";
   const char *unset[] = { field, NULL };
   if (!allow) {
      BSON_APPEND_BOOL (&set, field, false);
   }
   sim_config_update ("collections", ns, &set, allow ? unset : NULL, false);
   bson_destroy (&set);
   uint32_t s, i;
   sim_tick (&s, &i);
   sim_reply_ok (reply);
}

/* Extends a chunk or zone bound with the new key fields: MaxKey after an all-MaxKey bound, MinKey otherwise. */
static void
sim_refine_bound (const bson_t *bound, const bson_t *newkey, bson_t *out)
{
   bson_iter_t it;
   bool all_max = true;
   bson_init (out);
   bson_concat (out, bound);
   bson_iter_init (&it, bound);
   while (bson_iter_next (&it)) {
      all_max = all_max && BSON_ITER_HOLDS_MAXKEY (&it);
   }
   bson_iter_init (&it, newkey);
   while (bson_iter_next (&it)) {
      bson_iter_t b;
      if (!bson_iter_init_find (&b, bound, bson_iter_key (&it))) {
         if (all_max) {
            BSON_APPEND_MAXKEY (out, bson_iter_key (&it));
         } else {
            BSON_APPEND_MINKEY (out, bson_iter_key (&it));
         }
      }
   }
}

static void
sim_cmd_refine_shard_key (sim_ctx_t *ctx, bson_t *reply)
{
   bson_t key;
   sim_shcoll_t sc;
   simq_docs_t all;
   simq_docs_init (&all);
   memset (&sc, 0, sizeof sc);
   bson_init (&sc.key);
   bson_init (&sc.doc);
   const char *ns = sim_first_ns (ctx, reply);
   if (!ns) {
      goto done;
   }
   if (!sim_sub (ctx->cmd, "key", &key)) {
      sim_reply_error (reply, 40414, "BSON field 'refineCollectionShardKey.key' is missing but a required field");
      goto done;
   }
   sim_shcoll_destroy (&sc);
   if (!sim_shcoll_load (ns, &sc)) {
      sim_not_sharded (reply, ns);
      goto done;
   }
   /* The new key must extend the current one. */
   bson_iter_t a, b;
   bool extends = true;
   bson_iter_init (&a, &sc.key);
   bson_iter_init (&b, &key);
   while (extends && bson_iter_next (&a)) {
      extends = bson_iter_next (&b) && !strcmp (bson_iter_key (&a), bson_iter_key (&b)) &&
                order_values (bson_iter_value (&a), bson_iter_value (&b)) == 0;
   }
   if (!extends || bson_equal (&key, &sc.key)) {
      char *x = sim_bson_str (&key), *y = sim_bson_str (&sc.key);
      sim_reply_error (reply, 72,
                       "refineCollectionShardKey: the proposed shard key %s does not extend the current shard "
                       "key %s",
                       x, y);
      bson_free (x);
      bson_free (y);
      goto done;
   }
   sim_coll_t *coll = sim_coll_get_ns (ns);
   bool supported = sim_has_prefix_index (coll, &key, false);
   if (!supported) {
      sim_reply_error (reply, 72,
                       "refineCollectionShardKey: Please create an index that starts with the proposed shard "
                       "key before refining the shard key");
      goto done;
   }
   sim_chunks_of (&sc, &all);
   int64_t now = clock_wall_ms ();
   bson_t details = BSON_INITIALIZER;
   BSON_APPEND_DOCUMENT (&details, "oldKey", &sc.key);
   BSON_APPEND_DOCUMENT (&details, "newKey", &key);
   sim_changelog (false, "refineCollectionShardKey.start", ns, "config", &details, now);
   /* New key, epoch and timestamp on the collection entry. */
   bson_t set = BSON_INITIALIZER;
   bson_oid_t epoch;
   bson_oid_init (&epoch, NULL);
   BSON_APPEND_OID (&set, "lastmodEpoch", &epoch);
   if (sim_ver_ge (50)) {
      uint32_t s, i;
      sim_tick (&s, &i);
      BSON_APPEND_TIMESTAMP (&set, "timestamp", s, i);
   }
   BSON_APPEND_DOCUMENT (&set, "key", &key);
   sim_config_update ("collections", ns, &set, NULL, false);
   bson_destroy (&set);
   sim_shcoll_t nsc;
   sim_shcoll_load (ns, &nsc);
   for (size_t i = 0; i < all.n; i++) {
      bson_t cmin, cmax, nmin, nmax, nd;
      bson_iter_t it;
      uint32_t t = 1, inc = 0;
      sim_sub (all.v[i], "min", &cmin);
      sim_sub (all.v[i], "max", &cmax);
      sim_refine_bound (&cmin, &key, &nmin);
      sim_refine_bound (&cmax, &key, &nmax);
      if (bson_iter_init_find (&it, all.v[i], "lastmod")) {
         bson_iter_timestamp (&it, &t, &inc);
      }
      sim_chunk_rewrite (&nsc, all.v[i], &nmin, &nmax, sim_chunk_shard (all.v[i]), t, inc, false, &nd);
      sim_chunk_put (all.v[i], &nd);
      bson_destroy (&nd);
      bson_destroy (&nmin);
      bson_destroy (&nmax);
   }
   /* Zone ranges are extended the same way. */
   sim_coll_t *tags = sim_coll_get ("config", "tags");
   for (size_t p = 0; tags && p < tags->nparts; p++) {
      for (size_t i = 0; i < tags->parts[p].docs.n; i++) {
         bson_t view, tmin, tmax, nmin, nmax, set2 = BSON_INITIALIZER, out;
         sim_pos_t pos = { p, i };
         sim_coll_view (tags, pos, &view);
         const char *tns = sim_str (&view, "ns");
         if (!tns || strcmp (tns, ns) != 0 || !sim_sub (&view, "min", &tmin) || !sim_sub (&view, "max", &tmax)) {
            bson_destroy (&set2);
            continue;
         }
         sim_refine_bound (&tmin, &key, &nmin);
         sim_refine_bound (&tmax, &key, &nmax);
         BSON_APPEND_DOCUMENT (&set2, "min", &nmin);
         BSON_APPEND_DOCUMENT (&set2, "max", &nmax);
         sim_doc_set (&view, &set2, NULL, &out);
         sim_coll_replace (tags, pos, &out);
         bson_destroy (&out);
         bson_destroy (&set2);
         bson_destroy (&nmin);
         bson_destroy (&nmax);
      }
   }
   sim_shcoll_destroy (&nsc);
   sim_changelog (false, "refineCollectionShardKey.end", ns, "config", &details, now);
   bson_destroy (&details);
   sim_reply_ok (reply);
done:
   simq_docs_clear (&all);
   sim_shcoll_destroy (&sc);
}

static void
sim_cmd_reshard_collection (sim_ctx_t *ctx, bson_t *reply)
{
   bson_t key, zones;
   bson_iter_t it;
   bson_error_t err;
   sim_shcoll_t sc;
   const char *ns = sim_first_ns (ctx, reply);
   if (!ns) {
      return;
   }
   if (!sim_sub (ctx->cmd, "key", &key)) {
      sim_reply_error (reply, 40414, "BSON field 'reshardCollection.key' is missing but a required field");
      return;
   }
   if (!sim_shcoll_load (ns, &sc)) {
      sim_shcoll_destroy (&sc);
      sim_not_sharded (reply, ns);
      return;
   }
   bool force = bson_iter_init_find (&it, ctx->cmd, "forceRedistribution") && bson_iter_as_bool (&it);
   bool unique = bson_iter_init_find (&it, ctx->cmd, "unique") && bson_iter_as_bool (&it);
   int nchunks = bson_iter_init_find (&it, ctx->cmd, "numInitialChunks") ? (int) bson_iter_as_int64 (&it) : 0;
   if (bson_equal (&key, &sc.key) && !(force && sim_ver_ge (80))) {
      sim_shcoll_destroy (&sc);
      sim_reply_ok (reply); /* same key: nothing to do */
      return;
   }
   /* Resharding commits a new collection incarnation: new UUID, epoch, timestamp, key and chunks. */
   int64_t now = clock_wall_ms ();
   bson_t details = BSON_INITIALIZER;
   BSON_APPEND_DOCUMENT (&details, "oldKey", &sc.key);
   BSON_APPEND_DOCUMENT (&details, "newKey", &key);
   sim_changelog (false, "resharding.coordinator.start", ns, "config", &details, now);
   bson_t filter = BSON_INITIALIZER;
   sim_hits_t hits = { 0 };
   sim_coll_t *chunks = sim_coll_get ("config", "chunks");
   sim_shcoll_chunk_filter (&sc, &filter);
   if (chunks && sim_coll_match (chunks, &filter, 0, &hits, &err)) {
      sim_coll_delete (chunks, &hits);
   }
   sim_hits_free (&hits);
   bson_reinit (&filter);
   BSON_APPEND_UTF8 (&filter, "_id", ns);
   sim_coll_t *colls = sim_coll_get ("config", "collections");
   if (colls && sim_coll_match (colls, &filter, 0, &hits, &err)) {
      sim_coll_delete (colls, &hits);
   }
   sim_hits_free (&hits);
   bson_destroy (&filter);
   sim_shcoll_destroy (&sc);
   sim_coll_t *coll = sim_coll_get_ns (ns);
   if (coll) {
      sim_uuid_new (coll->uuid);
   }
   if (sim_sub (ctx->cmd, "zones", &zones)) {
      bson_iter_t z;
      bson_iter_init (&z, &zones);
      while (bson_iter_next (&z)) {
         bson_t zd, zmin, zmax;
         uint32_t l;
         const uint8_t *d;
         if (!BSON_ITER_HOLDS_DOCUMENT (&z)) {
            continue;
         }
         bson_iter_document (&z, &l, &d);
         bson_init_static (&zd, d, l);
         if (sim_sub (&zd, "min", &zmin) && sim_sub (&zd, "max", &zmax) && sim_str (&zd, "zone")) {
            sim_op_update_zone_range (ns, &zmin, &zmax, sim_str (&zd, "zone"), &err);
         }
      }
   }
   bool hashed = false;
   bson_iter_init (&it, &key);
   while (bson_iter_next (&it)) {
      hashed = hashed || BSON_ITER_HOLDS_UTF8 (&it);
   }
   /* Resharding builds the index on the new key itself. */
   if (coll) {
      bool supported = false;
      for (size_t i = 0; i < coll->indexes.n && !supported; i++) {
         bson_t ik;
         supported = sim_sub (coll->indexes.v[i], "key", &ik) && bson_equal (&ik, &key);
      }
      if (!supported) {
         bson_string_t *iname = bson_string_new (NULL);
         bson_iter_init (&it, &key);
         while (bson_iter_next (&it)) {
            bson_string_append_printf (iname, "%s%s_%s", iname->len ? "_" : "", bson_iter_key (&it),
                                       BSON_ITER_HOLDS_UTF8 (&it) ? "hashed" : "1");
         }
         bson_t *idx = bson_new ();
         BSON_APPEND_INT32 (idx, "v", 2);
         BSON_APPEND_DOCUMENT (idx, "key", &key);
         BSON_APPEND_UTF8 (idx, "name", iname->str);
         simq_docs_push_owned (&coll->indexes, idx);
         bson_string_free (iname, true);
      }
   }
   /* Reuse shardCollection's placement, then spread a ranged key's single chunk by data quantiles. */
   bool saved_empty_rule = coll && sim_coll_count (coll) > 0;
   if (!sim_op_shard_collection (ns, &key, unique, 0, false, &err)) {
      sim_admin_error (reply, &err);
      bson_destroy (&details);
      return;
   }
   if (sim_shcoll_load (ns, &sc)) {
      int want = nchunks > 0 ? nchunks : (int) sim_g.nshards;
      if (hashed && saved_empty_rule) {
         /* Non-empty collections get the even hashed split too when resharded. */
         simq_docs_t all;
         simq_docs_init (&all);
         sim_chunks_of (&sc, &all);
         if (all.n == 1) {
            sim_chunk_put (all.v[0], NULL);
            char primary[64];
            sim_db_primary (coll ? coll->db : "", primary);
            sim_create_initial_chunks (&sc, primary, want);
         }
         simq_docs_clear (&all);
      } else if (!hashed) {
         for (int k = 1; k < want; k++) {
            simq_docs_t all;
            simq_docs_init (&all);
            sim_chunks_of (&sc, &all);
            bson_t median = BSON_INITIALIZER;
            bool ok =
               all.n && sim_chunk_median (&sc, all.v[all.n - 1], &median, &err) && sim_split_at (&sc, &median, &err);
            bson_destroy (&median);
            simq_docs_clear (&all);
            if (!ok) {
               break;
            }
         }
         simq_docs_t all, shards;
         simq_docs_init (&all);
         simq_docs_init (&shards);
         sim_chunks_of (&sc, &all);
         sim_shards_list (&shards);
         for (size_t i = 0; i < all.n && shards.n; i++) {
            const char *to = sim_str (shards.v[i % shards.n], "_id");
            bson_error_t e2;
            if (to && strcmp (to, sim_chunk_shard (all.v[i])) != 0 && sim_check_destination (&sc, all.v[i], to, &e2)) {
               bson_t nd;
               sim_chunk_rewrite (&sc, all.v[i], NULL, NULL, to, 1, (uint32_t) i, true, &nd);
               sim_chunk_put (all.v[i], &nd);
               bson_destroy (&nd);
            }
         }
         simq_docs_clear (&all);
         simq_docs_clear (&shards);
      }
   }
   sim_shcoll_destroy (&sc);
   sim_changelog (false, "resharding.coordinator.commit", ns, "config", &details, clock_wall_ms ());
   bson_destroy (&details);
   sim_reply_ok (reply);
}

static void
sim_cmd_analyze_shard_key (sim_ctx_t *ctx, bson_t *reply)
{
   bson_t key;
   bson_iter_t it;
   simq_docs_t keys;
   simq_docs_init (&keys);
   const char *ns = sim_first_ns (ctx, reply);
   if (!ns) {
      goto done;
   }
   if (!sim_sub (ctx->cmd, "key", &key)) {
      sim_reply_error (reply, 40414, "BSON field 'analyzeShardKey.key' is missing but a required field");
      goto done;
   }
   if (sim_has (ctx->cmd, "sampleRate") && sim_has (ctx->cmd, "sampleSize")) {
      sim_reply_error (reply, 72, "Cannot specify both 'sampleRate' and 'sampleSize'");
      goto done;
   }
   bool kc = !bson_iter_init_find (&it, ctx->cmd, "keyCharacteristics") || bson_iter_as_bool (&it);
   bool rw = !bson_iter_init_find (&it, ctx->cmd, "readWriteDistribution") || bson_iter_as_bool (&it);
   sim_coll_t *coll = sim_coll_get_ns (ns);
   if (!coll) {
      sim_reply_error (reply, 26, "Cannot analyze a shard key for a non-existing collection");
      goto done;
   }
   if (kc) {
      bool supported = sim_has_prefix_index (coll, &key, false);
      if (!supported) {
         sim_reply_error (reply, 20,
                          "Cannot analyze the characteristics of a shard key that does not have a supporting "
                          "index");
         goto done;
      }
      /* Key values in insertion order (for monotonicity), then sorted for distinct counts. */
      sim_shcoll_t fake;
      memset (&fake, 0, sizeof fake);
      bson_init (&fake.doc);
      bson_init (&fake.key);
      bson_concat (&fake.key, &key);
      int64_t total_size = 0;
      for (size_t p = 0; p < coll->nparts; p++) {
         for (size_t i = 0; i < coll->parts[p].docs.n; i++) {
            bson_t view, k;
            sim_pos_t pos = { p, i };
            sim_coll_view (coll, pos, &view);
            sim_shard_key_of (&fake, &view, &k);
            simq_docs_push_copy (&keys, &k);
            bson_destroy (&k);
            total_size += view.len;
         }
      }
      sim_shcoll_destroy (&fake);
      int64_t n = (int64_t) keys.n;
      /* Monotonicity: correlation between insertion order and key order (numbers and dates only). */
      double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
      int64_t m = 0;
      bool numeric = true;
      for (size_t i = 0; i < keys.n; i++) {
         bson_iter_t f;
         if (!bson_iter_init (&f, keys.v[i]) || !bson_iter_next (&f)) {
            continue;
         }
         double y;
         if (BSON_ITER_HOLDS_NUMBER (&f)) {
            y = bson_iter_as_double (&f);
         } else if (BSON_ITER_HOLDS_DATE_TIME (&f)) {
            y = (double) bson_iter_date_time (&f);
         } else {
            numeric = false;
            break;
         }
         double x = (double) i;
         sx += x;
         sy += y;
         sxx += x * x;
         syy += y * y;
         sxy += x * y;
         m++;
      }
      double r = 0.0;
      if (numeric && m > 1) {
         double den = sqrt ((m * sxx - sx * sx) * (m * syy - sy * sy));
         r = den > 0 ? (m * sxy - sx * sy) / den : 0.0;
      }
      if (keys.n > 1) {
         qsort (keys.v, keys.n, sizeof *keys.v, sim_key_doc_cmp);
      }
      int64_t distinct = 0;
      typedef struct {
         size_t at;
         int64_t freq;
      } run_t;
      run_t top[5] = { { 0 } };
      for (size_t i = 0; i < keys.n;) {
         size_t j = i + 1;
         while (j < keys.n && order_docs (keys.v[i], keys.v[j]) == 0) {
            j++;
         }
         distinct++;
         int64_t f = (int64_t) (j - i);
         for (int t = 0; t < 5; t++) {
            if (f > top[t].freq) {
               memmove (&top[t + 1], &top[t], (size_t) (4 - t) * sizeof top[0]);
               top[t].at = i;
               top[t].freq = f;
               break;
            }
         }
         i = j;
      }
      sim_shcoll_t shc;
      bool sharded = sim_shcoll_load (ns, &shc);
      sim_shcoll_destroy (&shc);
      bson_t d, arr, mono;
      BSON_APPEND_DOCUMENT_BEGIN (reply, "keyCharacteristics", &d);
      BSON_APPEND_INT64 (&d, "numDocsTotal", n);
      if (sharded) {
         BSON_APPEND_INT64 (&d, "numOrphanDocs", 0);
      }
      BSON_APPEND_INT64 (&d, "avgDocSizeBytes", n ? total_size / n : 0);
      BSON_APPEND_INT64 (&d, "numDocsSampled", n);
      BSON_APPEND_BOOL (&d, "isUnique", n > 0 && distinct == n);
      BSON_APPEND_INT64 (&d, "numDistinctValues", distinct);
      BSON_APPEND_ARRAY_BEGIN (&d, "mostCommonValues", &arr);
      for (int t = 0; t < 5 && top[t].freq; t++) {
         bson_t e;
         char k[16];
         const char *kp;
         bson_uint32_to_string ((uint32_t) t, &kp, k, sizeof k);
         BSON_APPEND_DOCUMENT_BEGIN (&arr, kp, &e);
         BSON_APPEND_DOCUMENT (&e, "value", keys.v[top[t].at]);
         BSON_APPEND_INT64 (&e, "frequency", top[t].freq);
         bson_append_document_end (&arr, &e);
      }
      bson_append_array_end (&d, &arr);
      BSON_APPEND_DOCUMENT_BEGIN (&d, "monotonicity", &mono);
      if (numeric && m > 1) {
         BSON_APPEND_DOUBLE (&mono, "recordIdCorrelationCoefficient", floor (r * 10000.0 + 0.5) / 10000.0);
         BSON_APPEND_UTF8 (&mono, "type", fabs (r) >= 0.7 ? "monotonic" : "not monotonic");
      } else {
         BSON_APPEND_UTF8 (&mono, "type", m > 1 || !numeric ? "not monotonic" : "unknown");
      }
      bson_append_document_end (&d, &mono);
      bson_append_document_end (reply, &d);
   }
   if (rw) {
      bson_t d, s;
      BSON_APPEND_DOCUMENT_BEGIN (reply, "readDistribution", &d);
      BSON_APPEND_DOCUMENT_BEGIN (&d, "sampleSize", &s);
      BSON_APPEND_INT64 (&s, "total", 0);
      BSON_APPEND_INT64 (&s, "find", 0);
      BSON_APPEND_INT64 (&s, "aggregate", 0);
      BSON_APPEND_INT64 (&s, "count", 0);
      BSON_APPEND_INT64 (&s, "distinct", 0);
      bson_append_document_end (&d, &s);
      bson_append_document_end (reply, &d);
      BSON_APPEND_DOCUMENT_BEGIN (reply, "writeDistribution", &d);
      BSON_APPEND_DOCUMENT_BEGIN (&d, "sampleSize", &s);
      BSON_APPEND_INT64 (&s, "total", 0);
      BSON_APPEND_INT64 (&s, "update", 0);
      BSON_APPEND_INT64 (&s, "delete", 0);
      BSON_APPEND_INT64 (&s, "findAndModify", 0);
      bson_append_document_end (&d, &s);
      bson_append_document_end (reply, &d);
   }
   sim_reply_ok (reply);
done:
   simq_docs_clear (&keys);
}

static void
sim_cmd_configure_query_analyzer (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   const char *ns = sim_first_ns (ctx, reply);
   if (!ns) {
      return;
   }
   const char *mode = sim_str (ctx->cmd, "mode");
   if (!mode) {
      sim_reply_error (reply, 40414, "BSON field 'configureQueryAnalyzer.mode' is missing but a required field");
      return;
   }
   if (strcmp (mode, "full") && strcmp (mode, "off")) {
      sim_reply_error (reply, 2, "Enumeration value '%s' for field 'configureQueryAnalyzer.mode' is not a valid value.",
                       mode);
      return;
   }
   double rate = 0;
   bool have_rate = bson_iter_init_find (&it, ctx->cmd, "samplesPerSecond") && BSON_ITER_HOLDS_NUMBER (&it);
   if (have_rate) {
      rate = bson_iter_as_double (&it);
   }
   if (!strcmp (mode, "full") && (!have_rate || rate <= 0 || rate > 50)) {
      sim_reply_error (reply, 72, "'samplesPerSecond' must be greater than 0 and less than or equal to 50");
      return;
   }
   if (!strcmp (mode, "off") && have_rate) {
      sim_reply_error (reply, 72, "Cannot specify 'samplesPerSecond' when 'mode' is 'off'");
      return;
   }
   sim_coll_t *coll = sim_coll_get_ns (ns);
   if (!coll) {
      sim_reply_error (reply, 26, "The namespace %s does not exist", ns);
      return;
   }
   sim_coll_t *qa = sim_coll_ensure ("config", "queryAnalyzers");
   sim_pos_t pos;
   bool had = sim_find_by_sid (qa, ns, &pos);
   bson_t old = BSON_INITIALIZER, d;
   if (had) {
      bson_t view;
      sim_coll_view (qa, pos, &view);
      const char *om = sim_str (&view, "mode");
      BSON_APPEND_UTF8 (&old, "mode", om ? om : "off");
      if (bson_iter_init_find (&it, &view, "samplesPerSecond")) {
         BSON_APPEND_VALUE (&old, "samplesPerSecond", bson_iter_value (&it));
      }
   }
   bson_t set = BSON_INITIALIZER;
   BSON_APPEND_BINARY (&set, "collUuid", BSON_SUBTYPE_UUID, coll->uuid, 16);
   BSON_APPEND_UTF8 (&set, "ns", ns);
   BSON_APPEND_UTF8 (&set, "mode", mode);
   if (have_rate) {
      BSON_APPEND_DOUBLE (&set, "samplesPerSecond", rate);
   }
   BSON_APPEND_DATE_TIME (&set, "startTime", clock_wall_ms ());
   const char *unset[] = { "samplesPerSecond", NULL };
   sim_config_update ("queryAnalyzers", ns, &set, have_rate ? NULL : unset, true);
   bson_destroy (&set);
   BSON_APPEND_DOCUMENT_BEGIN (reply, "newConfiguration", &d);
   BSON_APPEND_UTF8 (&d, "mode", mode);
   if (have_rate) {
      BSON_APPEND_DOUBLE (&d, "samplesPerSecond", rate);
   }
   bson_append_document_end (reply, &d);
   if (had) {
      BSON_APPEND_DOCUMENT (reply, "oldConfiguration", &old);
   }
   bson_destroy (&old);
   sim_reply_ok (reply);
}

static void
sim_cmd_flush_router_config (sim_ctx_t *ctx, bson_t *reply)
{
   (void) ctx;
   BSON_APPEND_BOOL (reply, "flushed", true);
   sim_reply_ok (reply);
}

typedef struct {
   const char *name;
   void (*fn) (sim_ctx_t *ctx, bson_t *reply);
} sim_admin_def_t;

static const sim_admin_def_t sim_admin_table[] = {
   { "enableSharding", sim_cmd_enable_sharding },
   { "enablesharding", sim_cmd_enable_sharding },
   { "shardCollection", sim_cmd_shard_collection },
   { "shardcollection", sim_cmd_shard_collection },
   { "addShard", sim_cmd_add_shard },
   { "addshard", sim_cmd_add_shard },
   { "removeShard", sim_cmd_remove_shard },
   { "removeshard", sim_cmd_remove_shard },
   { "movePrimary", sim_cmd_move_primary },
   { "moveprimary", sim_cmd_move_primary },
   { "listShards", sim_cmd_list_shards },
   { "listshards", sim_cmd_list_shards },
   { "addShardToZone", sim_cmd_add_shard_to_zone },
   { "removeShardFromZone", sim_cmd_remove_shard_from_zone },
   { "updateZoneKeyRange", sim_cmd_update_zone_key_range },
   { "moveChunk", sim_cmd_move_chunk },
   { "movechunk", sim_cmd_move_chunk },
   { "moveRange", sim_cmd_move_range },
   { "split", sim_cmd_split },
   { "mergeChunks", sim_cmd_merge_chunks },
   { "balancerStart", sim_cmd_balancer_start_stop },
   { "balancerStop", sim_cmd_balancer_start_stop },
   { "balancerStatus", sim_cmd_balancer_status },
   { "balancerCollectionStatus", sim_cmd_balancer_collection_status },
   { "configureCollectionBalancing", sim_cmd_configure_collection_balancing },
   { "setAllowMigrations", sim_cmd_set_allow_migrations },
   { "refineCollectionShardKey", sim_cmd_refine_shard_key },
   { "reshardCollection", sim_cmd_reshard_collection },
   { "analyzeShardKey", sim_cmd_analyze_shard_key },
   { "configureQueryAnalyzer", sim_cmd_configure_query_analyzer },
   { "flushRouterConfig", sim_cmd_flush_router_config },
   { "flushrouterconfig", sim_cmd_flush_router_config },
};

bool
sim_admin_run (sim_ctx_t *ctx, bson_t *reply)
{
   for (size_t i = 0; i < sizeof sim_admin_table / sizeof sim_admin_table[0]; i++) {
      if (!strcmp (sim_admin_table[i].name, ctx->name)) {
         sim_admin_table[i].fn (ctx, reply);
         return true;
      }
   }
   return false;
}

/* ---- helpers exported to the dynamics (sim_ctab.c, sim_balancer.c) ---- */

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

void
sim_chunk_replace (const bson_t *old, const bson_t *doc)
{
   sim_chunk_put (old, doc);
}

void
sim_chunk_rewrite_doc (const sim_shcoll_t *sc, const bson_t *chunk, const bson_t *min, const bson_t *max,
                       const char *shard, uint32_t major, uint32_t minor, bool new_history, bson_t *out)
{
   sim_chunk_rewrite (sc, chunk, min, max, shard, major, minor, new_history, out);
}

void
sim_chunk_version_doc (const bson_t *chunk, const sim_shcoll_t *sc, bson_t *out)
{
   sim_version_doc (chunk, sc, out);
}

bool
sim_zone_of (const char *ns, const bson_t *min, const bson_t *max, char *out, size_t outlen)
{
   return sim_zone_of_range (ns, min, max, out, outlen);
}

bool
sim_shard_in_zone (const char *shard, const char *zone)
{
   return sim_shard_has_zone (shard, zone);
}

bool
sim_shard_is_draining (const char *shard)
{
   return sim_shard_draining (shard);
}

bool
sim_balancer_is_stopped (void)
{
   return sim_balancer_stopped ();
}

void
sim_db_enable_sharding (const char *db)
{
   if (!sim_ver_ge (70)) {
      bson_t set = BSON_INITIALIZER;
      BSON_APPEND_BOOL (&set, "partitioned", true);
      sim_config_update ("databases", db, &set, NULL, false);
      bson_destroy (&set);
   }
}
