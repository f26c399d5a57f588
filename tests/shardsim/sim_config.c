/* shardsim's sharding metadata: the version-specific shapes of config.* documents (shards, databases, collections,
 * chunks, changelog, mongos), routing a document to the chunk and shard that own it (hashed keys through
 * hashkey_value), initial chunks of a newly sharded collection, and per-shard document statistics.
 * Callers hold sim_g.lock. */
#include "tests/shardsim/sim.h"

#include "shell/lib/fnv.h"
#include "shell/lib/hashkey.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SIM_CONFIG_HOST "127.0.0.1:27100"

bool
sim_shcoll_load (const char *ns, sim_shcoll_t *sc)
{
   memset (sc, 0, sizeof *sc);
   bson_init (&sc->key);
   bson_init (&sc->doc);
   sim_coll_t *colls = sim_coll_get ("config", "collections");
   if (!colls) {
      return false;
   }
   bson_t view;
   bool found = false;
   for (size_t p = 0; p < colls->nparts && !found; p++) {
      for (size_t i = 0; i < colls->parts[p].docs.n && !found; i++) {
         sim_pos_t pos = { p, i };
         bson_iter_t it;
         sim_coll_view (colls, pos, &view);
         if (!bson_iter_init_find (&it, &view, "_id") || !BSON_ITER_HOLDS_UTF8 (&it) ||
             strcmp (bson_iter_utf8 (&it, NULL), ns) != 0) {
            continue;
         }
         if (bson_iter_init_find (&it, &view, "dropped") && bson_iter_as_bool (&it)) {
            continue;
         }
         found = true;
      }
   }
   if (!found) {
      return false;
   }
   bson_concat (&sc->doc, &view);
   bson_strncpy (sc->ns, ns, sizeof sc->ns);
   bson_iter_t it;
   if (bson_iter_init_find (&it, &sc->doc, "key") && BSON_ITER_HOLDS_DOCUMENT (&it)) {
      uint32_t l;
      const uint8_t *d;
      bson_iter_document (&it, &l, &d);
      bson_t k;
      if (bson_init_static (&k, d, l)) {
         bson_concat (&sc->key, &k);
      }
   }
   if (bson_iter_init_find (&it, &sc->doc, "uuid") && BSON_ITER_HOLDS_BINARY (&it)) {
      uint32_t l;
      const uint8_t *d;
      bson_iter_binary (&it, NULL, &l, &d);
      if (l == 16) {
         memcpy (sc->uuid, d, 16);
         sc->has_uuid = true;
      }
   }
   if (bson_iter_init_find (&it, &sc->doc, "lastmodEpoch") && BSON_ITER_HOLDS_OID (&it)) {
      bson_oid_copy (bson_iter_oid (&it), &sc->epoch);
   }
   sc->by_uuid = bson_iter_init_find (&it, &sc->doc, "timestamp");
   sc->unique = bson_iter_init_find (&it, &sc->doc, "unique") && bson_iter_as_bool (&it);
   if (bson_iter_init (&it, &sc->key)) {
      while (bson_iter_next (&it)) {
         if (BSON_ITER_HOLDS_UTF8 (&it) && !strcmp (bson_iter_utf8 (&it, NULL), "hashed")) {
            bson_strncpy (sc->hashed, bson_iter_key (&it), sizeof sc->hashed);
         }
      }
   }
   return true;
}

void
sim_shcoll_destroy (sim_shcoll_t *sc)
{
   bson_destroy (&sc->key);
   bson_destroy (&sc->doc);
}

void
sim_shcoll_chunk_filter (const sim_shcoll_t *sc, bson_t *out)
{
   if (sc->by_uuid) {
      BSON_APPEND_BINARY (out, "uuid", BSON_SUBTYPE_UUID, sc->uuid, 16);
   } else {
      BSON_APPEND_UTF8 (out, "ns", sc->ns);
   }
}

void
sim_shard_key_of (const sim_shcoll_t *sc, const bson_t *doc, bson_t *out)
{
   bson_iter_t it;
   bson_init (out);
   bson_iter_init (&it, &sc->key);
   while (bson_iter_next (&it)) {
      const char *f = bson_iter_key (&it);
      bson_value_t v;
      bool have = simq_get_path (doc, f, &v);
      if (sc->hashed[0] && !strcmp (f, sc->hashed)) {
         bson_value_t nullv = { .value_type = BSON_TYPE_NULL };
         BSON_APPEND_INT64 (out, f, hashkey_value (have ? &v : &nullv));
      } else if (have) {
         BSON_APPEND_VALUE (out, f, &v);
      } else {
         BSON_APPEND_NULL (out, f);
      }
   }
}

void
sim_coll_each_key (sim_coll_t *coll, const sim_shcoll_t *sc, sim_key_visit_fn visit, void *data)
{
   for (size_t p = 0; coll && p < coll->nparts; p++) {
      for (size_t d = 0; d < coll->parts[p].docs.n; d++) {
         bson_t view, key;
         sim_pos_t pos = { p, d };
         sim_coll_view (coll, pos, &view);
         sim_shard_key_of (sc, &view, &key);
         visit (data, &view, &key);
         bson_destroy (&key);
      }
   }
}

/* The partition of config.chunks holding sc's chunks; SIZE_MAX when none. */
static size_t
sim_chunks_part (const sim_shcoll_t *sc, sim_coll_t **chunks)
{
   *chunks = sim_coll_get ("config", "chunks");
   if (!*chunks) {
      return SIZE_MAX;
   }
   bson_value_t v;
   memset (&v, 0, sizeof v);
   if (sim_ver_ge (50)) {
      if (!sc->by_uuid) {
         return SIZE_MAX;
      }
      v.value_type = BSON_TYPE_BINARY;
      v.value.v_binary.subtype = BSON_SUBTYPE_UUID;
      v.value.v_binary.data = (uint8_t *) sc->uuid;
      v.value.v_binary.data_len = 16;
   } else {
      v.value_type = BSON_TYPE_UTF8;
      v.value.v_utf8.str = (char *) sc->ns;
      v.value.v_utf8.len = (uint32_t) strlen (sc->ns);
   }
   return sim_coll_find_part (*chunks, &v);
}

bool
sim_chunk_find (const sim_shcoll_t *sc, const bson_t *key, bson_t *chunk, sim_pos_t *pos)
{
   sim_coll_t *chunks;
   size_t p = sim_chunks_part (sc, &chunks);
   if (p == SIZE_MAX) {
      return false;
   }
   if (!pos) {
      /* disjoint ranges (the normal case): the range index answers by bisection what the scan below finds */
      bson_t view;
      int r = sim_part_find_containing (chunks, p, key, &view);
      if (r >= 0) {
         if (r && chunk) {
            bson_copy_to (&view, chunk);
         }
         return r == 1;
      }
   }
   for (size_t i = 0; i < chunks->parts[p].docs.n; i++) {
      bson_t view, min, max;
      sim_pos_t at = { p, i };
      sim_coll_view (chunks, at, &view);
      if (!docget_sub (&view, "min", BSON_TYPE_DOCUMENT, &min) ||
          !docget_sub (&view, "max", BSON_TYPE_DOCUMENT, &max)) {
         continue;
      }
      if (order_docs (&min, key) <= 0 && order_docs (key, &max) < 0) {
         if (chunk) {
            bson_copy_to (&view, chunk);
         }
         if (pos) {
            *pos = at;
         }
         return true;
      }
   }
   return false;
}

void
sim_db_primary (const char *db, char *shard)
{
   shard[0] = '\0';
   sim_coll_t *dbs = sim_coll_get ("config", "databases");
   if (!dbs) {
      return;
   }
   for (size_t p = 0; p < dbs->nparts; p++) {
      for (size_t i = 0; i < dbs->parts[p].docs.n; i++) {
         bson_t view;
         bson_iter_t it;
         sim_pos_t pos = { p, i };
         sim_coll_view (dbs, pos, &view);
         if (bson_iter_init_find (&it, &view, "_id") && BSON_ITER_HOLDS_UTF8 (&it) &&
             !strcmp (bson_iter_utf8 (&it, NULL), db) && bson_iter_init_find (&it, &view, "primary") &&
             BSON_ITER_HOLDS_UTF8 (&it)) {
            bson_strncpy (shard, bson_iter_utf8 (&it, NULL), 64);
            return;
         }
      }
   }
}

bool
sim_route_doc (const char *ns, const sim_shcoll_t *sc, const bson_t *doc, char *shard)
{
   shard[0] = '\0';
   sim_coll_t *coll = sc ? sim_coll_get_ns (ns) : NULL;
   sim_ctab_t *t = coll ? sim_ctab_get (coll) : NULL;
   if (t) {
      /* Binary search in the collection's chunk table. */
      size_t i = sim_ctab_locate_doc (t, doc);
      if (i != SIZE_MAX) {
         bson_strncpy (shard, t->v[i].shard, 64);
      }
      return shard[0] != '\0';
   }
   if (sc) {
      bson_t key, chunk;
      bson_iter_t it;
      sim_shard_key_of (sc, doc, &key);
      if (sim_chunk_find (sc, &key, &chunk, NULL)) {
         if (bson_iter_init_find (&it, &chunk, "shard") && BSON_ITER_HOLDS_UTF8 (&it)) {
            bson_strncpy (shard, bson_iter_utf8 (&it, NULL), 64);
         }
         bson_destroy (&chunk);
      }
      bson_destroy (&key);
      return shard[0] != '\0';
   }
   char db[128];
   bson_strncpy (db, ns, sizeof db);
   char *dot = strchr (db, '.');
   if (dot) {
      *dot = '\0';
   }
   if (!strcmp (db, "config") || !strcmp (db, "admin")) {
      bson_strncpy (shard, "config", 64);
      return true;
   }
   sim_db_primary (db, shard);
   return shard[0] != '\0';
}

void
sim_chunk_max_version (const sim_shcoll_t *sc, uint32_t *major, uint32_t *minor)
{
   *major = 0;
   *minor = 0;
   sim_coll_t *chunks;
   size_t p = sim_chunks_part (sc, &chunks);
   if (p == SIZE_MAX) {
      return;
   }
   sim_part_max_lastmod (chunks, p, major, minor);
}

void
sim_chunk_build (const sim_shcoll_t *sc, const bson_t *min, const bson_t *max, const char *shard, uint32_t major,
                 uint32_t minor, uint32_t valid_secs, uint32_t valid_inc, bson_t *out)
{
   bson_oid_t oid;
   bson_t arr, h;
   bson_oid_init (&oid, NULL);
   BSON_APPEND_OID (out, "_id", &oid);
   if (sim_ver_ge (50)) {
      BSON_APPEND_BINARY (out, "uuid", BSON_SUBTYPE_UUID, sc->uuid, 16);
   } else {
      BSON_APPEND_UTF8 (out, "ns", sc->ns);
   }
   BSON_APPEND_DOCUMENT (out, "min", min);
   BSON_APPEND_DOCUMENT (out, "max", max);
   BSON_APPEND_UTF8 (out, "shard", shard);
   BSON_APPEND_TIMESTAMP (out, "lastmod", major, minor);
   if (!sim_ver_ge (50)) {
      BSON_APPEND_OID (out, "lastmodEpoch", &sc->epoch);
   }
   if (sim_ver_ge (70)) {
      BSON_APPEND_TIMESTAMP (out, "onCurrentShardSince", valid_secs, valid_inc);
   }
   BSON_APPEND_ARRAY_BEGIN (out, "history", &arr);
   BSON_APPEND_DOCUMENT_BEGIN (&arr, "0", &h);
   BSON_APPEND_TIMESTAMP (&h, "validAfter", valid_secs, valid_inc);
   BSON_APPEND_UTF8 (&h, "shard", shard);
   bson_append_document_end (&arr, &h);
   bson_append_array_end (out, &arr);
}

/* The host a shard's log entries name as their server ("127.0.0.1:27018"), or the config server's. */
static void
sim_shard_server (const char *shard, char *out, size_t outlen)
{
   bson_t doc;
   bson_iter_t it;
   bson_strncpy (out, SIM_CONFIG_HOST, outlen);
   if (strcmp (shard, "config") != 0 && sim_shard_get (shard, &doc)) {
      if (bson_iter_init_find (&it, &doc, "host") && BSON_ITER_HOLDS_UTF8 (&it)) {
         const char *h = bson_iter_utf8 (&it, NULL);
         const char *slash = strchr (h, '/');
         bson_strncpy (out, slash ? slash + 1 : h, outlen);
         char *comma = strchr (out, ',');
         if (comma) {
            *comma = '\0';
         }
      }
      bson_destroy (&doc);
   }
}

void
sim_changelog (bool actionlog, const char *what, const char *ns, const char *shard, const bson_t *details,
               int64_t time_ms)
{
   char server[128], date[64], idbuf[256], oidhex[25];
   bson_oid_t oid;
   bson_t doc = BSON_INITIALIZER;
   time_t secs = (time_t) (time_ms / 1000);
   struct tm tm;
   gmtime_r (&secs, &tm);
   strftime (date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
   sim_shard_server (shard, server, sizeof server);
   bson_oid_init (&oid, NULL);
   bson_oid_to_string (&oid, oidhex);
   bson_snprintf (idbuf, sizeof idbuf, "%s-%s.%03d+00:00-%s", server, date, (int) (time_ms % 1000), oidhex);
   BSON_APPEND_UTF8 (&doc, "_id", idbuf);
   BSON_APPEND_UTF8 (&doc, "server", server);
   BSON_APPEND_UTF8 (&doc, "shard", shard);
   BSON_APPEND_UTF8 (&doc, "clientAddr", "");
   BSON_APPEND_DATE_TIME (&doc, "time", time_ms);
   BSON_APPEND_UTF8 (&doc, "what", what);
   BSON_APPEND_UTF8 (&doc, "ns", ns);
   BSON_APPEND_DOCUMENT (&doc, "details", details);
   sim_coll_insert (sim_coll_ensure ("config", actionlog ? "actionlog" : "changelog"), &doc);
   bson_destroy (&doc);
}

void
sim_collection_doc (const char *ns, const bson_t *key, bool unique, const uint8_t uuid[16], bson_t *out)
{
   bson_oid_t epoch;
   bson_oid_init (&epoch, NULL);
   BSON_APPEND_UTF8 (out, "_id", ns);
   BSON_APPEND_OID (out, "lastmodEpoch", &epoch);
   if (!sim_ver_ge (50)) {
      BSON_APPEND_DATE_TIME (out, "lastmod", (int64_t) 1 << 32); /* version (1, 0) read as a date */
      BSON_APPEND_BOOL (out, "dropped", false);
      BSON_APPEND_DOCUMENT (out, "key", key);
      BSON_APPEND_BOOL (out, "unique", unique);
      BSON_APPEND_BINARY (out, "uuid", BSON_SUBTYPE_UUID, uuid, 16);
      BSON_APPEND_UTF8 (out, "distributionMode", "sharded");
      return;
   }
   uint32_t s, i;
   sim_tick (&s, &i);
   BSON_APPEND_DATE_TIME (out, "lastmod", clock_wall_ms ());
   BSON_APPEND_TIMESTAMP (out, "timestamp", s, i);
   BSON_APPEND_BINARY (out, "uuid", BSON_SUBTYPE_UUID, uuid, 16);
   BSON_APPEND_DOCUMENT (out, "key", key);
   BSON_APPEND_BOOL (out, "unique", unique);
   BSON_APPEND_BOOL (out, "noBalance", false);
}

void
sim_database_doc (const char *db, const char *primary, bool partitioned, bson_t *out)
{
   uint8_t uuid[16];
   bson_t v;
   sim_uuid_new (uuid);
   BSON_APPEND_UTF8 (out, "_id", db);
   BSON_APPEND_UTF8 (out, "primary", primary);
   if (!sim_ver_ge (70)) {
      BSON_APPEND_BOOL (out, "partitioned", partitioned);
   }
   BSON_APPEND_DOCUMENT_BEGIN (out, "version", &v);
   BSON_APPEND_BINARY (&v, "uuid", BSON_SUBTYPE_UUID, uuid, 16);
   if (sim_ver_ge (50)) {
      uint32_t s, i;
      sim_tick (&s, &i);
      BSON_APPEND_TIMESTAMP (&v, "timestamp", s, i);
   }
   BSON_APPEND_INT32 (&v, "lastMod", 1);
   bson_append_document_end (out, &v);
}

void
sim_shard_doc (const char *name, const char *host, const bson_t *tags, bson_t *out)
{
   BSON_APPEND_UTF8 (out, "_id", name);
   BSON_APPEND_UTF8 (out, "host", host);
   BSON_APPEND_INT32 (out, "state", 1);
   if (sim_ver_ge (50)) {
      uint32_t s, i;
      sim_tick (&s, &i);
      BSON_APPEND_TIMESTAMP (out, "topologyTime", s, i);
   }
   if (tags) {
      BSON_APPEND_ARRAY (out, "tags", tags);
   }
}

void
sim_mongos_ping (void)
{
   sim_coll_t *m = sim_coll_ensure ("config", "mongos");
   bson_t doc = BSON_INITIALIZER, arr;
   int64_t now = clock_wall_ms ();
   BSON_APPEND_UTF8 (&doc, "_id", sim_g.host);
   BSON_APPEND_ARRAY_BEGIN (&doc, "advisoryHostFQDNs", &arr);
   bson_append_array_end (&doc, &arr);
   if (sim_ver_ge (60)) {
      BSON_APPEND_DATE_TIME (&doc, "created", sim_g.start_ms);
   }
   BSON_APPEND_UTF8 (&doc, "mongoVersion", sim_g.ver->full);
   BSON_APPEND_DATE_TIME (&doc, "ping", now);
   BSON_APPEND_INT64 (&doc, "up", (now - sim_g.start_ms) / 1000);
   BSON_APPEND_BOOL (&doc, "waiting", true);
   /* Find our own document by _id without the query engine (this runs before every config.mongos read). */
   for (size_t p = 0; p < m->nparts; p++) {
      for (size_t i = 0; i < m->parts[p].docs.n; i++) {
         bson_t view;
         bson_iter_t it;
         sim_pos_t pos = { p, i };
         sim_coll_view (m, pos, &view);
         if (bson_iter_init_find (&it, &view, "_id") && BSON_ITER_HOLDS_UTF8 (&it) &&
             !strcmp (bson_iter_utf8 (&it, NULL), sim_g.host)) {
            sim_coll_replace (m, pos, &doc);
            goto done;
         }
      }
   }
   sim_coll_insert (m, &doc);
done:
   bson_destroy (&doc);
}

static void
sim_key_bound (const bson_t *key, bool max, const char *hashed, bool has_value, int64_t value, bson_t *out)
{
   bson_iter_t it;
   bson_iter_init (&it, key);
   bool first = true;
   while (bson_iter_next (&it)) {
      const char *f = bson_iter_key (&it);
      if (first && has_value && hashed && !strcmp (f, hashed)) {
         BSON_APPEND_INT64 (out, f, value);
      } else if (max && (first || !has_value)) {
         BSON_APPEND_MAXKEY (out, f);
      } else {
         BSON_APPEND_MINKEY (out, f);
      }
      first = false;
   }
}

static int
sim_i64_cmp (const void *a, const void *b)
{
   int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
   return x < y ? -1 : x > y;
}

void
sim_create_initial_chunks (const sim_shcoll_t *sc, const char *primary, int nchunks)
{
   sim_coll_t *chunks = sim_coll_ensure ("config", "chunks");
   uint32_t s, i;
   sim_tick (&s, &i);
   bson_iter_t it;
   bool hashed_first = sc->hashed[0] && bson_iter_init (&it, &sc->key) && bson_iter_next (&it) &&
                       !strcmp (bson_iter_key (&it), sc->hashed);
   if (nchunks <= 1 || !hashed_first) {
      bson_t min = BSON_INITIALIZER, max = BSON_INITIALIZER, chunk = BSON_INITIALIZER;
      sim_key_bound (&sc->key, false, NULL, false, 0, &min);
      sim_key_bound (&sc->key, true, NULL, false, 0, &max);
      sim_chunk_build (sc, &min, &max, primary, 1, 0, s, i, &chunk);
      sim_coll_insert (chunks, &chunk);
      bson_destroy (&min);
      bson_destroy (&max);
      bson_destroy (&chunk);
      return;
   }
   /* MongoDB's even split of the hashed space: split points symmetric around zero. */
   int64_t *splits = bson_malloc ((size_t) nchunks * sizeof *splits);
   int nsplits = 0;
   int64_t interval = (INT64_MAX / nchunks) * 2;
   int64_t cur = 0;
   if (nchunks % 2 == 0) {
      splits[nsplits++] = 0;
      cur += interval;
   } else {
      cur += interval / 2;
   }
   for (int k = 0; k < (nchunks - 1) / 2; k++) {
      splits[nsplits++] = cur;
      splits[nsplits++] = -cur;
      cur += interval;
   }
   qsort (splits, (size_t) nsplits, sizeof *splits, sim_i64_cmp);
   simq_docs_t shards;
   simq_docs_init (&shards);
   sim_shards_list (&shards);
   /* InitialSplitPolicy::generateShardCollectionInitialChunks: runs of numInitialChunks / numShards contiguous
    * chunks per shard (numContiguousChunksPerShard), the first chunk on the primary when there are fewer chunks
    * than shards. The server takes the shard registry's order; shardsim config.shards' order. */
   size_t per = shards.n && (size_t) nchunks / shards.n > 1 ? (size_t) nchunks / shards.n : 1;
   for (int k = 0; k <= nsplits; k++) {
      bson_t min = BSON_INITIALIZER, max = BSON_INITIALIZER, chunk = BSON_INITIALIZER;
      sim_key_bound (&sc->key, false, sc->hashed, k > 0, k > 0 ? splits[k - 1] : 0, &min);
      sim_key_bound (&sc->key, true, sc->hashed, k < nsplits, k < nsplits ? splits[k] : 0, &max);
      const char *shard = primary;
      if (shards.n && !(k == 0 && (size_t) nchunks < shards.n)) {
         bson_iter_t sit;
         if (bson_iter_init_find (&sit, shards.v[((size_t) k / per) % shards.n], "_id")) {
            shard = bson_iter_utf8 (&sit, NULL);
         }
      }
      sim_chunk_build (sc, &min, &max, shard, 1, (uint32_t) k, s, i, &chunk);
      sim_coll_insert (chunks, &chunk);
      bson_destroy (&min);
      bson_destroy (&max);
      bson_destroy (&chunk);
   }
   simq_docs_clear (&shards);
   bson_free (splits);
}

static int
sim_shard_doc_cmp (const void *a, const void *b)
{
   const bson_t *x = *(bson_t *const *) a, *y = *(bson_t *const *) b;
   bson_iter_t ix, iy;
   const char *sx = bson_iter_init_find (&ix, x, "_id") && BSON_ITER_HOLDS_UTF8 (&ix) ? bson_iter_utf8 (&ix, NULL) : "";
   const char *sy = bson_iter_init_find (&iy, y, "_id") && BSON_ITER_HOLDS_UTF8 (&iy) ? bson_iter_utf8 (&iy, NULL) : "";
   return strcmp (sx, sy);
}

void
sim_shards_list (simq_docs_t *out)
{
   sim_coll_t *shards = sim_coll_get ("config", "shards");
   if (!shards) {
      return;
   }
   for (size_t p = 0; p < shards->nparts; p++) {
      for (size_t i = 0; i < shards->parts[p].docs.n; i++) {
         bson_t view;
         sim_pos_t pos = { p, i };
         sim_coll_view (shards, pos, &view);
         simq_docs_push_copy (out, &view);
      }
   }
   if (out->n > 1) {
      qsort (out->v, out->n, sizeof *out->v, sim_shard_doc_cmp);
   }
}

bool
sim_shard_get (const char *name, bson_t *doc)
{
   sim_coll_t *shards = sim_coll_get ("config", "shards");
   if (!shards) {
      return false;
   }
   for (size_t p = 0; p < shards->nparts; p++) {
      for (size_t i = 0; i < shards->parts[p].docs.n; i++) {
         bson_t view;
         bson_iter_t it;
         sim_pos_t pos = { p, i };
         sim_coll_view (shards, pos, &view);
         if (bson_iter_init_find (&it, &view, "_id") && BSON_ITER_HOLDS_UTF8 (&it) &&
             !strcmp (bson_iter_utf8 (&it, NULL), name)) {
            if (doc) {
               bson_copy_to (&view, doc);
            }
            return true;
         }
      }
   }
   return false;
}

/* Per-shard figures being collected, found by shard name through a hash map (a collection of the large scenario has
 * its chunks on a thousand shards). */
typedef struct {
   sim_shard_stat_t *arr;
   size_t n;
   size_t cap;
   simq_htab_t index; /* hash of the shard name -> index + 1 in arr */
} sim_stats_t;

/* The entry of shard, appended when new. An entry holds the name cut to 63 bytes; a longer name never matches it and
 * gets an entry per call, as the list this map replaced did. */
static sim_shard_stat_t *
sim_stat_for (sim_stats_t *st, const char *shard)
{
   uint64_t h = fnv_hash64 (shard, strlen (shard));
   size_t probe = 0;
   uintptr_t v;
   while ((v = simq_htab_next (&st->index, h, &probe)) != 0) {
      if (!strcmp (st->arr[v - 1].shard, shard)) {
         return &st->arr[v - 1];
      }
   }
   if (st->n == st->cap) {
      st->cap = st->cap ? st->cap * 2 : 16;
      st->arr = bson_realloc (st->arr, st->cap * sizeof *st->arr);
   }
   sim_shard_stat_t *s = &st->arr[st->n++];
   memset (s, 0, sizeof *s);
   bson_strncpy (s->shard, shard, sizeof s->shard);
   simq_htab_add (&st->index, h, (uintptr_t) st->n);
   return s;
}

static int
sim_stat_cmp (const void *a, const void *b)
{
   return strcmp (((const sim_shard_stat_t *) a)->shard, ((const sim_shard_stat_t *) b)->shard);
}

size_t
sim_coll_shard_stats (const char *ns, sim_shard_stat_t **out)
{
   sim_stats_t st;
   sim_shcoll_t sc;
   bool sharded = sim_shcoll_load (ns, &sc);
   sim_coll_t *coll = sim_coll_get_ns (ns);
   char shard[64];
   memset (&st, 0, sizeof st);
   simq_htab_init (&st.index);
   sim_ctab_t *t = sharded && coll && sim_coll_count (coll) ? sim_ctab_get (coll) : NULL;
   if (t) {
      /* Per-chunk counts kept by the chunk table: no scan of the documents. */
      for (size_t i = 0; i < t->n; i++) {
         sim_shard_stat_t *s = sim_stat_for (&st, t->v[i].shard);
         s->chunks++;
         s->count += t->v[i].docs;
         s->size += t->v[i].bytes;
      }
      coll = NULL;
   } else if (sharded) {
      sim_coll_t *chunks;
      size_t p = sim_chunks_part (&sc, &chunks);
      for (size_t i = 0; p != SIZE_MAX && i < chunks->parts[p].docs.n; i++) {
         bson_t view;
         bson_iter_t it;
         sim_pos_t at = { p, i };
         sim_coll_view (chunks, at, &view);
         if (simq_iter_find (&it, &view, "shard") && BSON_ITER_HOLDS_UTF8 (&it)) {
            sim_stat_for (&st, bson_iter_utf8 (&it, NULL))->chunks++;
         }
      }
   } else if (sim_route_doc (ns, NULL, NULL, shard)) {
      sim_stat_for (&st, shard);
   }
   for (size_t p = 0; coll && p < coll->nparts; p++) {
      for (size_t i = 0; i < coll->parts[p].docs.n; i++) {
         bson_t view;
         sim_pos_t at = { p, i };
         sim_coll_view (coll, at, &view);
         if (sim_route_doc (ns, sharded ? &sc : NULL, &view, shard)) {
            sim_shard_stat_t *s = sim_stat_for (&st, shard);
            s->count++;
            s->size += view.len;
         }
      }
   }
   if (st.n > 1) {
      qsort (st.arr, st.n, sizeof *st.arr, sim_stat_cmp);
   }
   sim_shcoll_destroy (&sc);
   simq_htab_destroy (&st.index);
   *out = st.arr;
   return st.n;
}

bool
sim_coll_chunks_only (const char *ns, sim_coll_t **chunks, size_t *part)
{
   sim_shcoll_t sc;
   bool sharded = sim_shcoll_load (ns, &sc);
   sim_coll_t *coll = sim_coll_get_ns (ns);
   /* the branch of sim_coll_shard_stats that scans the chunks and finds no document to count */
   bool only = sharded && !(coll && sim_coll_count (coll));
   *chunks = NULL;
   *part = SIZE_MAX;
   if (only) {
      *part = sim_chunks_part (&sc, chunks);
   }
   sim_shcoll_destroy (&sc);
   return only;
}

bool
sim_db_ensure (const char *db, char *primary)
{
   primary[0] = '\0';
   if (!strcmp (db, "admin") || !strcmp (db, "config") || !strcmp (db, "local")) {
      bson_strncpy (primary, "config", 64);
      return true;
   }
   sim_db_primary (db, primary);
   if (primary[0]) {
      return true;
   }
   simq_docs_t shards;
   simq_docs_init (&shards);
   sim_shards_list (&shards);
   if (shards.n) {
      bson_iter_t it;
      if (bson_iter_init_find (&it, shards.v[0], "_id") && BSON_ITER_HOLDS_UTF8 (&it)) {
         bson_strncpy (primary, bson_iter_utf8 (&it, NULL), 64);
      }
   }
   simq_docs_clear (&shards);
   if (!primary[0]) {
      return false;
   }
   bson_t doc = BSON_INITIALIZER;
   sim_database_doc (db, primary, false, &doc);
   sim_coll_insert (sim_coll_ensure ("config", "databases"), &doc);
   bson_destroy (&doc);
   return true;
}

static void
sim_str_value (bson_string_t *s, const bson_value_t *v);

static void
sim_str_doc (bson_string_t *s, const uint8_t *data, uint32_t len, bool array)
{
   bson_t d;
   bson_iter_t it;
   if (!bson_init_static (&d, data, len) || !bson_iter_init (&it, &d)) {
      bson_string_append (s, array ? "[]" : "{}");
      return;
   }
   bool first = true;
   bson_string_append (s, array ? "[ " : "{ ");
   while (bson_iter_next (&it)) {
      if (!first) {
         bson_string_append (s, ", ");
      }
      first = false;
      if (!array) {
         bson_string_append_printf (s, "%s: ", bson_iter_key (&it));
      }
      sim_str_value (s, bson_iter_value (&it));
   }
   if (first) {
      bson_string_truncate (s, s->len - 2);
      bson_string_append (s, array ? "[]" : "{}");
      return;
   }
   bson_string_append (s, array ? " ]" : " }");
}

static void
sim_str_value (bson_string_t *s, const bson_value_t *v)
{
   char oid[25];
   switch (v->value_type) {
   case BSON_TYPE_INT32:
      bson_string_append_printf (s, "%d", v->value.v_int32);
      break;
   case BSON_TYPE_INT64:
      bson_string_append_printf (s, "%lld", (long long) v->value.v_int64);
      break;
   case BSON_TYPE_DOUBLE: {
      /* StringBuilder::appendDoubleNice: %.16g, and ".0" when that reads as an integer */
      char d[40];
      bson_snprintf (d, sizeof d, "%.16g", v->value.v_double);
      bson_string_append_printf (s, "%s%s", d, strpbrk (d, ".eEnN") ? "" : ".0");
      break;
   }
   case BSON_TYPE_UTF8:
      bson_string_append_printf (s, "\"%s\"", v->value.v_utf8.str);
      break;
   case BSON_TYPE_BOOL:
      bson_string_append (s, v->value.v_bool ? "true" : "false");
      break;
   case BSON_TYPE_NULL:
      bson_string_append (s, "null");
      break;
   case BSON_TYPE_MINKEY:
      bson_string_append (s, "MinKey");
      break;
   case BSON_TYPE_MAXKEY:
      bson_string_append (s, "MaxKey");
      break;
   case BSON_TYPE_REGEX:
      bson_string_append_printf (s, "/%s/%s", v->value.v_regex.regex, v->value.v_regex.options);
      break;
   case BSON_TYPE_OID:
      bson_oid_to_string (&v->value.v_oid, oid);
      bson_string_append_printf (s, "ObjectId('%s')", oid);
      break;
   case BSON_TYPE_DATE_TIME:
      bson_string_append_printf (s, "new Date(%lld)", (long long) v->value.v_datetime);
      break;
   case BSON_TYPE_TIMESTAMP:
      bson_string_append_printf (s, "Timestamp(%u, %u)", v->value.v_timestamp.timestamp,
                                 v->value.v_timestamp.increment);
      break;
   case BSON_TYPE_DOCUMENT:
      sim_str_doc (s, v->value.v_doc.data, v->value.v_doc.data_len, false);
      break;
   case BSON_TYPE_ARRAY:
      sim_str_doc (s, v->value.v_doc.data, v->value.v_doc.data_len, true);
      break;
   default:
      bson_string_append (s, "?");
      break;
   }
}

char *
sim_bson_str (const bson_t *doc)
{
   bson_string_t *s = bson_string_new (NULL);
   sim_str_doc (s, bson_get_data (doc), doc->len, false);
   return bson_string_free (s, false);
}
