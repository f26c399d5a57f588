/* shardsim's enableSharding, shardCollection (initial chunks, hashed pre-splitting, zones),
 * refineCollectionShardKey and the immediate reshardCollection. Callers hold sim_g.lock. */
#include "tests/shardsim/sim_ddlcheck.h"
#include "tests/shardsim/query/simq_int.h"

#include "shell/lib/hashkey.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* Adds the shard key's index ({ v: 2, key, name: "a_1_b_hashed", [unique] }) to coll: the supporting index sharding
 * creates on an empty collection. */
static void
sim_create_key_index (sim_coll_t *coll, const bson_t *key, bool unique)
{
   bson_iter_t it;
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

/* PresplitHashedZonesSplitPolicy for one zone range [lo, zmax) of sc: one chunk per shard of zone (nzs of them among
 * shards), inserted into chunks at versions (1, *minor++) with timestamp (s, i). */
static void
sim_presplit_zone_range (const sim_shcoll_t *sc, const bson_t *lo, const bson_t *zmax, const char *zone,
                         const char *owner, const simq_docs_t *shards, size_t nzs, sim_coll_t *chunks,
                         uint32_t *minor_io, uint32_t s, uint32_t i)
{
   uint32_t minor = *minor_io;
   bson_t chunk;
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
         sim_hashed_point (sc, lo, vals[piece], &to);
      } else {
         bson_concat (&to, zmax);
      }
      const char *piece_owner = owner;
      for (; k < shards->n; k++) {
         if (sim_shard_in_zone (docget_utf8 (shards->v[k], "_id", NULL), zone)) {
            piece_owner = docget_utf8 (shards->v[k++], "_id", NULL);
            break;
         }
      }
      bson_init (&chunk);
      sim_chunk_build (sc, &from, &to, piece_owner, 1, minor++, s, i, &chunk);
      sim_coll_insert (chunks, &chunk);
      bson_destroy (&chunk);
      bson_reinit (&from);
      bson_concat (&from, &to);
      bson_destroy (&to);
   }
   bson_destroy (&from);
   *minor_io = minor;
}

/* The initial chunks of sc aligned to the zone ranges zones (sorted by min; AbstractTagsBasedSplitPolicy): each range
 * on the next shard of its zone (round-robin per zone; pre-split per shard with presplit_zones), each gap on the next
 * non-draining shard (primary when none). Inserts them into config.chunks and returns how many. */
static int
sim_zoned_initial_chunks (const sim_shcoll_t *sc, const bson_t *key, const simq_docs_t *zones, const char *primary,
                          bool presplit_zones)
{
   /* Chunks aligned to the zone ranges (AbstractTagsBasedSplitPolicy::createFirstChunks, and 4.4's
    * generateShardCollectionInitialZonedChunks): each range on the next shard of its zone (round-robin per zone),
    * each gap between ranges on the next shard of all non-draining shards (round-robin; the server takes the
    * registry's order, shuffled from 6.0: shardsim takes config.shards' order). */
   uint32_t s, i;
   bson_iter_t it;
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
   for (size_t z = 0; z <= zones->n; z++) {
      bson_t zmin, zmax, chunk;
      const bson_t *lo = z < zones->n && docget_sub (zones->v[z], "min", BSON_TYPE_EOD, &zmin) ? &zmin : &gmax;
      if (order_docs (&cur, lo) < 0) {
         /* the next non-draining shard, round-robin */
         const char *hole_owner = primary;
         size_t live = 0;
         for (size_t k = 0; k < shards.n; k++) {
            live += !sim_shard_is_draining (docget_utf8 (shards.v[k], "_id", NULL));
         }
         for (size_t k = 0, nth = live ? holes % live : 0; live && k < shards.n; k++) {
            if (!sim_shard_is_draining (docget_utf8 (shards.v[k], "_id", NULL)) && nth-- == 0) {
               hole_owner = docget_utf8 (shards.v[k], "_id", NULL);
               break;
            }
         }
         holes++;
         bson_init (&chunk);
         sim_chunk_build (sc, &cur, lo, hole_owner, 1, minor++, s, i, &chunk);
         sim_coll_insert (chunks, &chunk);
         bson_destroy (&chunk);
      }
      if (z == zones->n || !docget_sub (zones->v[z], "max", BSON_TYPE_EOD, &zmax)) {
         break;
      }
      const char *zone = docget_utf8 (zones->v[z], "tag", NULL);
      const char *owner = primary;
      /* the zone's shards round-robin: count the earlier ranges of the same zone */
      size_t nth = 0, nzs = 0;
      for (size_t y = 0; zone && y < z; y++) {
         const char *zy = docget_utf8 (zones->v[y], "tag", NULL);
         nth += zy && !strcmp (zy, zone);
      }
      for (size_t k = 0; zone && k < shards.n; k++) {
         nzs += sim_shard_in_zone (docget_utf8 (shards.v[k], "_id", NULL), zone);
      }
      for (size_t k = 0, left = nzs ? nth % nzs : 0; zone && k < shards.n; k++) {
         if (sim_shard_in_zone (docget_utf8 (shards.v[k], "_id", NULL), zone) && left-- == 0) {
            owner = docget_utf8 (shards.v[k], "_id", NULL);
            break;
         }
      }
      if (presplit_zones && zone && nzs > 1) {
         sim_presplit_zone_range (sc, lo, &zmax, zone, owner, &shards, nzs, chunks, &minor, s, i);
      } else {
         bson_init (&chunk);
         sim_chunk_build (sc, lo, &zmax, owner, 1, minor++, s, i, &chunk);
         sim_coll_insert (chunks, &chunk);
         bson_destroy (&chunk);
      }
      bson_reinit (&cur);
      bson_concat (&cur, &zmax);
   }
   simq_docs_clear (&shards);
   bson_destroy (&cur);
   bson_destroy (&gmax);
   return (int) minor;
}

/* The zone ranges of ns (config.tags), sorted by min, appended to zones (owned by the caller). */
static void
sim_zone_ranges_of (const char *ns, simq_docs_t *zones)
{
   sim_coll_t *tags = sim_coll_get ("config", "tags");
   if (tags) {
      bson_t f = BSON_INITIALIZER;
      bson_error_t e;
      BSON_APPEND_UTF8 (&f, "ns", ns);
      sim_coll_collect (tags, &f, zones, &e);
      bson_destroy (&f);
      if (zones->n > 1) {
         qsort (zones->v, zones->n, sizeof *zones->v, sim_doc_ptr_cmp_min);
      }
   }
}

/* InitialSplitPolicy::calculateOptimizationStrategy's checks, up to 7.0 (8.0's policies no longer take
 * numInitialChunks: SERVER-82611): numInitialChunks only for an empty collection with a hashed field (72), and with
 * a range field before the hashed one only with presplitHashedZones (72); then
 * PresplitHashedZonesSplitPolicy::_validate: presplitHashedZones only for an empty collection with zones and a hashed
 * field (31387). */
static bool
sim_initial_policy_check (const bson_t *key, int nchunks, bool presplit_zones, bool empty, size_t nzones,
                          bson_error_t *err)
{
   bson_iter_t it;
   bool hashed = false, hashed_prefix = false;
   if (bson_iter_init (&it, key) && bson_iter_next (&it)) {
      hashed_prefix = BSON_ITER_HOLDS_UTF8 (&it);
      hashed = hashed_prefix;
      while (!hashed && bson_iter_next (&it)) {
         hashed = BSON_ITER_HOLDS_UTF8 (&it);
      }
   }
   if (nchunks > 0 && !sim_ver_ge (80)) {
      if (!hashed || !empty) {
         SIM_ERR (err, 72,
                  "numInitialChunks is only supported when the collection is empty and has a hashed field in the "
                  "shard key pattern");
         return false;
      }
      if (!hashed_prefix && !presplit_zones) {
         SIM_ERR (err, 72,
                  "When the prefix of the hashed shard key is a range field, 'numInitialChunks' can only be used "
                  "when the 'presplitHashedZones' is true");
         return false;
      }
   }
   if (presplit_zones && (!empty || !nzones || !hashed)) {
      SIM_ERR (err, 31387,
               "'presplitHashedZones' is only supported when the collection is empty, zones are set up and shard key "
               "pattern has a hashed field");
      return false;
   }
   return true;
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
   int nhashed;
   if (!sim_check_key_pattern (key, unique, &nhashed, err)) {
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
      if (shards.n && docget_utf8 (shards.v[0], "_id", NULL)) {
         bson_strncpy (primary, docget_utf8 (shards.v[0], "_id", NULL), sizeof primary);
      }
      simq_docs_clear (&shards);
   }
   bool existed = sim_coll_get (db, cname) != NULL;
   sim_coll_t *coll = sim_coll_ensure (db, cname);
   bool empty = sim_coll_count (coll) == 0;
   /* Zones already defined for ns (presplitHashedZones or a ranged key) shape the initial chunks. */
   simq_docs_t zones;
   simq_docs_init (&zones);
   sim_zone_ranges_of (ns, &zones);
   if (!sim_initial_policy_check (key, nchunks, presplit_zones, empty, zones.n, err)) {
      simq_docs_clear (&zones);
      return false;
   }
   /* A supporting index: an index whose key starts with the shard key. Created automatically on an empty
    * collection. */
   bool supported = sim_has_prefix_index (coll, key, true);
   if (!supported && !empty) {
      simq_docs_clear (&zones);
      SIM_ERR (err, 72,
               "Please create an index that starts with the proposed shard key before sharding the collection");
      return false;
   }
   if (!supported) {
      sim_create_key_index (coll, key, unique);
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
      n = sim_zoned_initial_chunks (&sc, key, &zones, primary, presplit_zones);
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

void
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
   const char *want = docget_utf8 (ctx->cmd, "primaryShard", NULL);
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
         const char *id = docget_utf8 (&view, "_id", NULL);
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
      /* ShardingCatalogManager::createDatabase (checkAgainstExistingDbDoc from 7.0): the requested shard named,
       * with a colon while ShardId was printed through primaryShard.isValid()'s branch (4.4, 5.0) */
      sim_reply_error (reply, 48, "database already created on a primary which is different from%s %s",
                       sim_ver_ge (60) ? "" : ":", want);
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

void
sim_cmd_shard_collection (sim_ctx_t *ctx, bson_t *reply)
{
   bson_t key;
   bson_error_t err;
   bson_iter_t it;
   const char *ns = sim_first_ns (ctx, reply);
   if (!ns) {
      return;
   }
   if (!docget_sub (ctx->cmd, "key", BSON_TYPE_EOD, &key)) {
      sim_reply_error (reply, 40414, "BSON field 'shardCollection.key' is missing but a required field");
      return;
   }
   bool unique = bson_iter_init_find (&it, ctx->cmd, "unique") && bson_iter_as_bool (&it);
   int64_t want = bson_iter_init_find (&it, ctx->cmd, "numInitialChunks") ? bson_iter_as_int64 (&it) : 0;
   bool presplit = bson_iter_init_find (&it, ctx->cmd, "presplitHashedZones") && bson_iter_as_bool (&it);
   /* The request's checks in the order of 4.4's validateShardCollectionOptions (5.0+ checks the collation later,
    * with the supporting index): the key pattern and hashed-unique (72), system namespaces (20), the collation (2),
    * then numInitialChunks' range. */
   int nhashed;
   if (!sim_check_key_pattern (&key, unique, &nhashed, &err)) {
      sim_admin_error (reply, &err);
      return;
   }
   if (sim_is_system_ns (ns)) {
      sim_reply_error (reply, 20, "can't shard system namespaces");
      return;
   }
   if (!sim_check_simple_collation (ctx->cmd, "shardCollection", &err)) {
      sim_admin_error (reply, &err);
      return;
   }
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

void
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
   if (!docget_sub (ctx->cmd, "key", BSON_TYPE_EOD, &key)) {
      sim_reply_error (reply, 40414, "BSON field 'refineCollectionShardKey.key' is missing but a required field");
      goto done;
   }
   sim_shcoll_destroy (&sc);
   if (!sim_shcoll_load (ns, &sc)) {
      sim_not_sharded (reply, ns);
      goto done;
   }
   /* The current key: nothing to do (_configsvrRefineCollectionShardKey returns before its other checks). */
   if (bson_equal (&key, &sc.key)) {
      sim_reply_ok (reply);
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
   if (!extends) {
      char *x = sim_bson_str (&key), *y = sim_bson_str (&sc.key);
      sim_reply_error (reply, 72, "refineCollectionShardKey shard key %s does not extend the current shard key %s", x,
                       y);
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
      docget_sub (all.v[i], "min", BSON_TYPE_EOD, &cmin);
      docget_sub (all.v[i], "max", BSON_TYPE_EOD, &cmax);
      sim_refine_bound (&cmin, &key, &nmin);
      sim_refine_bound (&cmax, &key, &nmax);
      if (bson_iter_init_find (&it, all.v[i], "lastmod")) {
         bson_iter_timestamp (&it, &t, &inc);
      }
      sim_chunk_rewrite_doc (&nsc, all.v[i], &nmin, &nmax, sim_chunk_shard (all.v[i]), t, inc, false, &nd);
      sim_chunk_replace (all.v[i], &nd);
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
         const char *tns = docget_utf8 (&view, "ns", NULL);
         if (!tns || strcmp (tns, ns) != 0 || !docget_sub (&view, "min", BSON_TYPE_EOD, &tmin) ||
             !docget_sub (&view, "max", BSON_TYPE_EOD, &tmax)) {
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

/* Deletes the config.chunks and config.collections documents of ns (sharded as sc): the old incarnation a
 * resharding replaces. */
static void
sim_drop_collection_metadata (const sim_shcoll_t *sc, const char *ns)
{
   bson_error_t err;
   bson_t filter = BSON_INITIALIZER;
   sim_hits_t hits = { 0 };
   sim_coll_t *chunks = sim_coll_get ("config", "chunks");
   sim_shcoll_chunk_filter (sc, &filter);
   if (chunks && sim_coll_match (chunks, &filter, 0, &hits, &err)) {
      sim_coll_delete (chunks, &hits);
   }
   sim_hits_destroy (&hits);
   bson_reinit (&filter);
   BSON_APPEND_UTF8 (&filter, "_id", ns);
   sim_coll_t *colls = sim_coll_get ("config", "collections");
   if (colls && sim_coll_match (colls, &filter, 0, &hits, &err)) {
      sim_coll_delete (colls, &hits);
   }
   sim_hits_destroy (&hits);
   bson_destroy (&filter);
}

void
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
   if (!docget_sub (ctx->cmd, "key", BSON_TYPE_EOD, &key)) {
      sim_reply_error (reply, 40414, "BSON field 'reshardCollection.key' is missing but a required field");
      return;
   }
   if (!sim_shcoll_load (ns, &sc)) {
      sim_shcoll_destroy (&sc);
      sim_not_sharded (reply, ns);
      return;
   }
   int nchunks = bson_iter_init_find (&it, ctx->cmd, "numInitialChunks") ? (int) bson_iter_as_int64 (&it) : 0;
   /* Every check before anything changes: a refused resharding leaves the collection as it was. */
   bool noop = false;
   if (!sim_reshard_check (ctx->cmd, ns, &sc.key, &key, &noop, reply) || noop) {
      sim_shcoll_destroy (&sc);
      if (noop) {
         sim_reply_ok (reply); /* same key: nothing to do */
      }
      return;
   }
   /* Resharding commits a new collection incarnation: new UUID, epoch, timestamp, key and chunks. */
   int64_t now = clock_wall_ms ();
   bson_t details = BSON_INITIALIZER;
   BSON_APPEND_DOCUMENT (&details, "oldKey", &sc.key);
   BSON_APPEND_DOCUMENT (&details, "newKey", &key);
   sim_changelog (false, "resharding.coordinator.start", ns, "config", &details, now);
   /* a redistribution on the same key keeps the key's unique flag (its unique index still stands) */
   bool keep_unique = sc.unique && bson_equal (&key, &sc.key);
   sim_drop_collection_metadata (&sc, ns);
   sim_shcoll_destroy (&sc);
   sim_coll_t *coll = sim_coll_get_ns (ns);
   if (coll) {
      sim_uuid_new (coll->uuid);
   }
   if (docget_sub (ctx->cmd, "zones", BSON_TYPE_EOD, &zones)) {
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
         if (docget_sub (&zd, "min", BSON_TYPE_EOD, &zmin) && docget_sub (&zd, "max", BSON_TYPE_EOD, &zmax) &&
             docget_utf8 (&zd, "zone", NULL)) {
            sim_op_update_zone_range (ns, &zmin, &zmax, docget_utf8 (&zd, "zone", NULL), &err);
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
         supported = docget_sub (coll->indexes.v[i], "key", BSON_TYPE_EOD, &ik) && bson_equal (&ik, &key);
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
   if (!sim_op_shard_collection (ns, &key, keep_unique, 0, false, &err)) {
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
            sim_chunk_replace (all.v[0], NULL);
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
            const char *to = docget_utf8 (shards.v[i % shards.n], "_id", NULL);
            bson_error_t e2;
            if (to && strcmp (to, sim_chunk_shard (all.v[i])) != 0 && sim_check_destination (&sc, all.v[i], to, &e2)) {
               bson_t nd;
               sim_chunk_rewrite_doc (&sc, all.v[i], NULL, NULL, to, 1, (uint32_t) i, true, &nd);
               sim_chunk_replace (all.v[i], &nd);
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
