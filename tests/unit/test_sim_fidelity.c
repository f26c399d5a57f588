/* shardsim against the MongoDB server's own code (issue 15): each check reproduces one behaviour the server's source
 * defines (zone range removal and validation, the donor's chunk size limit and forceJumbo, moveRange's bounds and
 * early return, numInitialChunks' limit, moveChunk's argument order and error texts per version, balancerStatus
 * modes, the chunk-count policy of 4.4/5.0, balancerCollectionStatus, activeWindow parsing, the auto-merger's
 * history window) and asserts on the reply and on the config.* documents that follow. docs/shardsim.md names the
 * server file and function each one follows. */
#include "tests/unit/unit.h"
#include "tests/unit/simproc.h"

/* Starts $BINDIR/shardsim with the extra arguments args (NULL-terminated). */
static bool
fid_start (sim_t *s, const char *const *args)
{
   char pf[256];
   snprintf (pf, sizeof pf, "/tmp/test_sim_fidelity.%d.port", (int) getpid ());
   return simproc_start (s, pf, args, 400, 25, "serverSelectionTimeoutMS=5000&socketTimeoutMS=60000");
}

/* Runs a JSON command on db; reply is always initialised. */
static bool
run_json (sim_t *s, const char *db, const char *json, bson_t *reply)
{
   bson_error_t err;
   bson_t *cmd = bson_new_from_json ((const uint8_t *) json, -1, &err);
   if (!cmd) {
      fprintf (stderr, "bad json %s: %s\n", json, err.message);
      bson_init (reply);
      return false;
   }
   bool ok = mongoc_client_command_simple (s->client, db, cmd, NULL, reply, &err);
   bson_destroy (cmd);
   return ok;
}

/* Runs a JSON command and only tells whether it succeeded. */
static bool
run_ok (sim_t *s, const char *db, const char *json)
{
   bson_t reply;
   bool ok = run_json (s, db, json, &reply);
   if (!ok) {
      char *j = bson_as_relaxed_extended_json (&reply, NULL);
      fprintf (stderr, "command %s failed: %s\n", json, j);
      bson_free (j);
   }
   bson_destroy (&reply);
   return ok;
}

static int32_t
code_of (const bson_t *reply)
{
   bson_iter_t it;
   return bson_iter_init_find (&it, reply, "code")
             ? bson_iter_as_int64 (&it) > INT32_MAX ? -2 : (int32_t) bson_iter_as_int64 (&it)
             : -1;
}

static const char *
str_at (const bson_t *doc, const char *path)
{
   bson_iter_t it, d;
   if (bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, path, &d) && BSON_ITER_HOLDS_UTF8 (&d)) {
      return bson_iter_utf8 (&d, NULL);
   }
   return NULL;
}

static bool
has_at (const bson_t *doc, const char *path)
{
   bson_iter_t it, d;
   return bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, path, &d);
}

static bool
bool_at (const bson_t *doc, const char *path)
{
   bson_iter_t it, d;
   return bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, path, &d) && BSON_ITER_HOLDS_BOOL (&d) &&
          bson_iter_bool (&d);
}

/* The reply's errmsg (never NULL). */
static const char *
errmsg_of (const bson_t *reply)
{
   const char *m = str_at (reply, "errmsg");
   return m ? m : "";
}

/* Number of config.<coll> documents matching a JSON filter. */
static int64_t
count_config (sim_t *s, const char *coll, const char *filter)
{
   bson_error_t err;
   bson_t *f = bson_new_from_json ((const uint8_t *) filter, -1, &err);
   mongoc_collection_t *c = mongoc_client_get_collection (s->client, "config", coll);
   int64_t n = f ? mongoc_collection_count_documents (c, f, NULL, NULL, NULL, &err) : -1;
   mongoc_collection_destroy (c);
   bson_destroy (f);
   return n;
}

/* Inserts n documents { _id: i, k: i, pad: 200 x } (i from first) into db.coll. */
static bool
insert_docs (sim_t *s, const char *db, const char *coll, int first, int n)
{
   char pad[201];
   memset (pad, 'x', 200);
   pad[200] = '\0';
   bool ok = true;
   for (int i = first; i < first + n && ok; i++) {
      char json[512];
      snprintf (json, sizeof json, "{\"insert\": \"%s\", \"documents\": [{\"_id\": %d, \"k\": %d, \"pad\": \"%s\"}]}",
                coll, i, i, pad);
      ok = run_ok (s, db, json);
   }
   return ok;
}

/* The shard of ns's chunk whose min.k is k (into out, size 64); false when there is none. ns is 5.0+ (uuid chunks)
 * or 4.4 (ns chunks): the chunk is looked up by min only, which is unique across the test's collections. */
static bool
chunk_shard (sim_t *s, const char *field, int k, char *out)
{
   bson_error_t err;
   char f[128];
   const bson_t *doc;
   bool found = false;
   snprintf (f, sizeof f, "{\"min.%s\": %d}", field, k);
   bson_t *filter = bson_new_from_json ((const uint8_t *) f, -1, &err);
   mongoc_collection_t *c = mongoc_client_get_collection (s->client, "config", "chunks");
   mongoc_cursor_t *cur = mongoc_collection_find_with_opts (c, filter, NULL, NULL);
   if (mongoc_cursor_next (cur, &doc) && str_at (doc, "shard")) {
      bson_strncpy (out, str_at (doc, "shard"), 64);
      found = true;
   }
   mongoc_cursor_destroy (cur);
   mongoc_collection_destroy (c);
   bson_destroy (filter);
   return found;
}

/* The first config.chunks document matching a JSON filter into out (always initialised); false when none. */
static bool
find_chunk (sim_t *s, const char *filter_json, bson_t *out)
{
   bson_error_t err;
   const bson_t *doc;
   bool found = false;
   bson_init (out);
   bson_t *filter = bson_new_from_json ((const uint8_t *) filter_json, -1, &err);
   mongoc_collection_t *c = mongoc_client_get_collection (s->client, "config", "chunks");
   mongoc_cursor_t *cur = mongoc_collection_find_with_opts (c, filter, NULL, NULL);
   if (mongoc_cursor_next (cur, &doc)) {
      bson_copy_to_excluding_noinit (doc, out, "", NULL);
      found = true;
   }
   mongoc_cursor_destroy (cur);
   mongoc_collection_destroy (c);
   bson_destroy (filter);
   return found;
}

/* ---- zones (items 1, 6, 10) ---- */

static void
test_zones (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   run_ok (s, "admin", "{\"addShardToZone\": \"shard01\", \"zone\": \"Z\"}");
   run_ok (s, "admin", "{\"enableSharding\": \"fz\"}");
   run_ok (s, "admin", "{\"shardCollection\": \"fz.r\", \"key\": {\"a\": 1}}");
   run_ok (s, "admin",
           "{\"updateZoneKeyRange\": \"fz.r\", \"min\": {\"a\": 10}, \"max\": {\"a\": 20}, \"zone\": \"Z\"}");

   /* 1. removeKeyRangeFromZone deletes { ns, min, max } only: a wrong max removes nothing and still succeeds. */
   snprintf (name, sizeof name, "%s.zone null wrong max ok, range kept", v);
   CHECK (name,
          run_json (s, "admin",
                    "{\"updateZoneKeyRange\": \"fz.r\", \"min\": {\"a\": 10}, \"max\": {\"a\": 30}, \"zone\": null}",
                    &reply) &&
             count_config (s, "tags", "{\"ns\": \"fz.r\", \"min\": {\"a\": 10}}") == 1);
   bson_destroy (&reply);
   snprintf (name, sizeof name, "%s.zone null exact range removed", v);
   CHECK (name,
          run_json (s, "admin",
                    "{\"updateZoneKeyRange\": \"fz.r\", \"min\": {\"a\": 10}, \"max\": {\"a\": 20}, \"zone\": null}",
                    &reply) &&
             count_config (s, "tags", "{\"ns\": \"fz.r\"}") == 0);
   bson_destroy (&reply);

   /* 6. Unsharded namespace: min and max must name the same fields (ChunkRange::extractKeyPattern, 61). */
   run_json (s, "admin",
             "{\"updateZoneKeyRange\": \"fz.plain\", \"min\": {\"a\": 1}, \"max\": {\"b\": 2}, \"zone\": \"Z\"}",
             &reply);
   snprintf (name, sizeof name, "%s.zone unsharded mismatched fields 61", v);
   CHECK (name, code_of (&reply) == 61 &&
                   strstr (errmsg_of (&reply), "the shard key of min { a: 1 } doesn't match with the shard key of max "
                                               "{ b: 2 }") != NULL &&
                   count_config (s, "tags", "{\"ns\": \"fz.plain\"}") == 0);
   bson_destroy (&reply);
   /* Array and regex bounds: 2 BadValue, checked before the fields match. */
   run_json (s, "admin",
             "{\"updateZoneKeyRange\": \"fz.plain\", \"min\": {\"a\": [1]}, \"max\": {\"b\": [2]}, \"zone\": \"Z\"}",
             &reply);
   snprintf (name, sizeof name, "%s.zone array bound 2 before 61", v);
   CHECK_STR (name, "Shard key element a: [ 1 ] is not valid for storage", errmsg_of (&reply));
   snprintf (name, sizeof name, "%s.zone array bound code 2", v);
   CHECK (name, code_of (&reply) == 2 && count_config (s, "tags", "{\"ns\": \"fz.plain\"}") == 0);
   bson_destroy (&reply);
   run_json (
      s, "admin",
      "{\"updateZoneKeyRange\": \"fz.r\", \"min\": {\"a\": {\"$regularExpression\": {\"pattern\": \"a\", "
      "\"options\": \"\"}}}, \"max\": {\"a\": {\"$regularExpression\": {\"pattern\": \"b\", \"options\": \"\"}}}, "
      "\"zone\": \"Z\"}",
      &reply);
   snprintf (name, sizeof name, "%s.zone regex bound 2", v);
   CHECK (name, code_of (&reply) == 2 && strstr (errmsg_of (&reply), "a: /a/ is not valid for storage") != NULL &&
                   count_config (s, "tags", "{\"ns\": \"fz.r\"}") == 0);
   bson_destroy (&reply);
   /* ... and an unsharded range with matching fields is stored as given. */
   snprintf (name, sizeof name, "%s.zone unsharded same fields stored", v);
   CHECK (name, run_ok (s, "admin",
                        "{\"updateZoneKeyRange\": \"fz.plain\", \"min\": {\"a\": 1}, \"max\": {\"a\": 2}, \"zone\": "
                        "\"Z\"}") &&
                   count_config (s, "tags", "{\"ns\": \"fz.plain\", \"tag\": \"Z\"}") == 1);

   /* 10. Hashed bounds: both prefixes are checked (61) before the hashed values (72, checkHashedShardKeyRange). */
   run_ok (s, "admin", "{\"shardCollection\": \"fz.h\", \"key\": {\"h\": \"hashed\"}}");
   run_json (s, "admin",
             "{\"updateZoneKeyRange\": \"fz.h\", \"min\": {\"h\": \"x\"}, \"max\": {\"q\": \"y\"}, \"zone\": \"Z\"}",
             &reply);
   snprintf (name, sizeof name, "%s.zone hashed prefix checked first 61", v);
   CHECK (name, code_of (&reply) == 61 && strstr (errmsg_of (&reply), "max: { q: \"y\" } is not a prefix") != NULL);
   bson_destroy (&reply);
   run_json (
      s, "admin",
      "{\"updateZoneKeyRange\": \"fz.h\", \"min\": {\"h\": \"x\"}, \"max\": {\"h\": {\"$maxKey\": 1}}, \"zone\": "
      "\"Z\"}",
      &reply);
   snprintf (name, sizeof name, "%s.zone hashed value 72 text", v);
   CHECK_STR (name,
              "there exists a field in the range { h: \"x\" } -->> { h: MaxKey } not of type NumberLong, MinKey, or "
              "MaxKey which corresponds to a hashed field in the shard key pattern { h: \"hashed\" }",
              errmsg_of (&reply));
   snprintf (name, sizeof name, "%s.zone hashed value nothing stored", v);
   CHECK (name, code_of (&reply) == 72 && count_config (s, "tags", "{\"ns\": \"fz.h\"}") == 0);
   bson_destroy (&reply);
}

/* A zoned shardCollection of an empty collection: ranges on their zone's shards, the gaps between them round-robin
 * over all shards (AbstractTagsBasedSplitPolicy::createFirstChunks), not all on the primary. */
static void
test_zoned_gaps (sim_t *s, const char *v)
{
   char name[160], shard[64] = "";
   run_ok (s, "admin", "{\"addShardToZone\": \"shard01\", \"zone\": \"G\"}");
   run_ok (s, "admin", "{\"enableSharding\": \"fg\", \"primaryShard\": \"shard01\"}");
   run_ok (s, "admin",
           "{\"updateZoneKeyRange\": \"fg.g\", \"min\": {\"g\": 10}, \"max\": {\"g\": 20}, \"zone\": \"G\"}");
   run_ok (s, "admin",
           "{\"updateZoneKeyRange\": \"fg.g\", \"min\": {\"g\": 30}, \"max\": {\"g\": 40}, \"zone\": \"G\"}");
   run_ok (s, "admin", "{\"shardCollection\": \"fg.g\", \"key\": {\"g\": 1}}");
   snprintf (name, sizeof name, "%s.zoned shardCollection five chunks", v);
   CHECK (name, count_config (s, "chunks", "{\"min.g\": {\"$exists\": true}}") == 5);
   snprintf (name, sizeof name, "%s.zoned shardCollection ranges on the zone", v);
   CHECK (name, count_config (s, "chunks", "{\"min.g\": {\"$in\": [10, 30]}, \"shard\": \"shard01\"}") == 2);
   snprintf (name, sizeof name, "%s.zoned shardCollection gaps round-robin", v);
   CHECK (name, count_config (s, "chunks", "{\"min.g\": {\"$type\": \"minKey\"}, \"shard\": \"shard01\"}") == 1 &&
                   chunk_shard (s, "g", 20, shard) && !strcmp (shard, "shard02") && chunk_shard (s, "g", 40, shard) &&
                   !strcmp (shard, "shard03"));
}

/* The shards of the chunks of the collection whose shard key field is field, in min order, into out (one letter
 * per chunk: the last digit of the shard name). */
static void
chunk_shards_in_order (sim_t *s, const char *field, char *out, size_t outlen)
{
   bson_error_t err;
   char f[128];
   const bson_t *doc;
   size_t n = 0;
   snprintf (f, sizeof f, "{\"min.%s\": {\"$exists\": true}}", field);
   bson_t *filter = bson_new_from_json ((const uint8_t *) f, -1, &err);
   bson_t *opts = BCON_NEW ("sort", "{", "min", BCON_INT32 (1), "}");
   mongoc_collection_t *c = mongoc_client_get_collection (s->client, "config", "chunks");
   mongoc_cursor_t *cur = mongoc_collection_find_with_opts (c, filter, opts, NULL);
   while (mongoc_cursor_next (cur, &doc) && n + 1 < outlen) {
      const char *sh = str_at (doc, "shard");
      out[n++] = sh && sh[0] ? sh[strlen (sh) - 1] : '?';
   }
   out[n] = '\0';
   mongoc_cursor_destroy (cur);
   mongoc_collection_destroy (c);
   bson_destroy (opts);
   bson_destroy (filter);
}

/* Hashed initial chunks: numInitialChunks / numShards contiguous chunks per shard
 * (generateShardCollectionInitialChunks), the first on the primary when there are fewer chunks than shards. */
static void
test_hashed_placement (sim_t *s, const char *v)
{
   char name[160], order[64];
   run_ok (s, "admin", "{\"enableSharding\": \"fp\", \"primaryShard\": \"shard03\"}");
   run_ok (s, "admin", "{\"shardCollection\": \"fp.six\", \"key\": {\"p6\": \"hashed\"}}");
   chunk_shards_in_order (s, "p6", order, sizeof order);
   /* 2 per shard up to 7.0, one per shard from 8.0 (SplitPointsBasedSplitPolicy without numInitialChunks) */
   snprintf (name, sizeof name, "%s.hashed initial chunks contiguous per shard", v);
   CHECK_STR (name, strcmp (v, "8.0") < 0 ? "112233" : "123", order);
   run_ok (s, "admin", "{\"shardCollection\": \"fp.two\", \"key\": {\"p2\": \"hashed\"}, \"numInitialChunks\": 2}");
   chunk_shards_in_order (s, "p2", order, sizeof order);
   /* 8.0 takes numInitialChunks in its request IDL only (SERVER-83005) and ignores it: one chunk per shard */
   snprintf (name, sizeof name, "%s.hashed fewer chunks than shards: first on the primary (8.0: ignored)", v);
   CHECK_STR (name, strcmp (v, "8.0") < 0 ? "32" : "123", order);
}

/* calculateOptimizationStrategy: zones shape the initial chunks of an empty collection only (hashed key or not); a
 * collection with documents starts as one chunk on the primary. */
static void
test_zoned_strategy (sim_t *s, const char *v)
{
   char name[160];
   run_ok (s, "admin", "{\"addShardToZone\": \"shard02\", \"zone\": \"H\"}");
   run_ok (s, "admin", "{\"enableSharding\": \"fs\", \"primaryShard\": \"shard01\"}");
   run_ok (s, "admin",
           "{\"updateZoneKeyRange\": \"fs.full\", \"min\": {\"f\": 10}, \"max\": {\"f\": 20}, \"zone\": "
           "\"H\"}");
   run_ok (s, "fs", "{\"insert\": \"full\", \"documents\": [{\"f\": 1}, {\"f\": 15}]}");
   run_ok (s, "fs", "{\"createIndexes\": \"full\", \"indexes\": [{\"key\": {\"f\": 1}, \"name\": \"f_1\"}]}");
   run_ok (s, "admin", "{\"shardCollection\": \"fs.full\", \"key\": {\"f\": 1}}");
   snprintf (name, sizeof name, "%s.zoned non-empty collection: one chunk on the primary", v);
   CHECK (name, count_config (s, "chunks", "{\"min.f\": {\"$exists\": true}}") == 1 &&
                   count_config (s, "chunks", "{\"min.f\": {\"$exists\": true}, \"shard\": \"shard01\"}") == 1);
   run_ok (s, "admin",
           "{\"updateZoneKeyRange\": \"fs.hz\", \"min\": {\"hz\": {\"$numberLong\": \"0\"}}, \"max\": "
           "{\"hz\": {\"$maxKey\": 1}}, \"zone\": \"H\"}");
   run_ok (s, "admin", "{\"shardCollection\": \"fs.hz\", \"key\": {\"hz\": \"hashed\"}}");
   snprintf (name, sizeof name, "%s.zoned empty hashed collection: chunks follow the zones", v);
   CHECK (name, count_config (s, "chunks", "{\"min.hz\": {\"$exists\": true}}") == 2 &&
                   count_config (s, "chunks", "{\"min.hz\": {\"$numberLong\": \"0\"}, \"shard\": \"shard02\"}") == 1);
}

/* presplitHashedZones: each zone range becomes one chunk per shard of the zone at hashed split points
 * (PresplitHashedZonesSplitPolicy), the gaps round-robin. */
static void
test_presplit_zones (sim_t *s, const char *v)
{
   char name[160];
   run_ok (s, "admin", "{\"addShardToZone\": \"shard02\", \"zone\": \"P\"}");
   run_ok (s, "admin", "{\"addShardToZone\": \"shard03\", \"zone\": \"P\"}");
   run_ok (s, "admin", "{\"enableSharding\": \"fr\", \"primaryShard\": \"shard01\"}");
   run_ok (s, "admin",
           "{\"updateZoneKeyRange\": \"fr.p\", \"min\": {\"r\": \"A\", \"rh\": {\"$minKey\": 1}}, \"max\": "
           "{\"r\": \"A\", \"rh\": {\"$maxKey\": 1}}, \"zone\": \"P\"}");
   snprintf (name, sizeof name, "%s.presplitHashedZones ok, four chunks", v);
   CHECK (name, run_ok (s, "admin",
                        "{\"shardCollection\": \"fr.p\", \"key\": {\"r\": 1, \"rh\": \"hashed\"}, "
                        "\"presplitHashedZones\": true}") &&
                   count_config (s, "chunks", "{\"min.rh\": {\"$exists\": true}}") == 4);
   bson_t c;
   snprintf (name, sizeof name, "%s.presplitHashedZones one chunk per shard of the zone", v);
   bool got = find_chunk (s, "{\"min.r\": \"A\", \"min.rh\": {\"$numberLong\": \"0\"}}", &c);
   CHECK (name, got && str_at (&c, "shard") && !strcmp (str_at (&c, "shard"), "shard03") &&
                   count_config (s, "chunks",
                                 "{\"min.r\": \"A\", \"min.rh\": {\"$type\": \"minKey\"}, \"shard\": "
                                 "\"shard02\"}") == 1);
   bson_destroy (&c);
}

/* ---- numInitialChunks (item 8) ---- */

static void
test_initial_chunks (sim_t *s, const char *v, int nshards)
{
   bson_t reply;
   char name[160], json[256];
   run_ok (s, "admin", "{\"enableSharding\": \"fn\"}");
   snprintf (json, sizeof json,
             "{\"shardCollection\": \"fn.big\", \"key\": {\"nh\": \"hashed\"}, \"numInitialChunks\": %d}",
             8192 * nshards + 1);
   run_json (s, "admin", json, &reply);
   snprintf (name, sizeof name, "%s.numInitialChunks over 8192 x shards text", v);
   char want[200];
   snprintf (want, sizeof want, "numInitialChunks cannot be more than either: %d, 8192 * number of shards; or 1000000",
             8192 * nshards);
   CHECK_STR (name, want, errmsg_of (&reply));
   snprintf (name, sizeof name, "%s.numInitialChunks over limit 72, not sharded", v);
   CHECK (name, code_of (&reply) == 72 && count_config (s, "collections", "{\"_id\": \"fn.big\"}") == 0);
   bson_destroy (&reply);
   snprintf (json, sizeof json,
             "{\"shardCollection\": \"fn.big\", \"key\": {\"nh\": \"hashed\"}, \"numInitialChunks\": %d}", 8193);
   snprintf (name, sizeof name, "%s.numInitialChunks 8193 accepted (8.0: ignored, one chunk per shard)", v);
   CHECK (name, run_ok (s, "admin", json) && count_config (s, "chunks", "{\"min.nh\": {\"$exists\": true}}") ==
                                                (strcmp (v, "8.0") < 0 ? 8193 : 3));
}

/* ---- moveChunk / moveRange (items 2, 7, 9, 10) ---- */

/* A collection fm.c keyed { k: 1 }, 50 documents of 231 bytes on shard01 in chunks [MinKey, 0), [0, 25), [25, 50),
 * [50, MaxKey); with --chunk-size-kb 1 a chunk of more than 2 * (1024 / 231) = 8 documents is too big to move. */
static void
setup_move_coll (sim_t *s)
{
   /* 4.4/5.0 split chunks on insert: off here, so that the chunks keep the documents they are given. */
   run_ok (s, "config",
           "{\"update\": \"settings\", \"updates\": [{\"q\": {\"_id\": \"autosplit\"}, \"u\": {\"$set\": "
           "{\"enabled\": false}}, \"upsert\": true}]}");
   run_ok (s, "admin", "{\"enableSharding\": \"fm\", \"primaryShard\": \"shard01\"}");
   run_ok (s, "admin", "{\"shardCollection\": \"fm.c\", \"key\": {\"k\": 1}}");
   insert_docs (s, "fm", "c", 0, 50);
   run_ok (s, "admin", "{\"split\": \"fm.c\", \"middle\": {\"k\": 0}}");
   run_ok (s, "admin", "{\"split\": \"fm.c\", \"middle\": {\"k\": 25}}");
   run_ok (s, "admin", "{\"split\": \"fm.c\", \"middle\": {\"k\": 50}}");
}

/* The split changelog's chunk versions: 4.4/5.0 lastmod + lastmodEpoch (ChunkVersion::addToBSON); 6.0+ lastmod
 * { e, t, v } (ChunkVersion::serializeToBSON), both through appendShortVersion. */
static void
test_split_changelog (sim_t *s, const char *v, bool legacy)
{
   char name[160];
   snprintf (name, sizeof name, "%s.split changelog version format", v);
   if (legacy) {
      CHECK (name, count_config (s, "changelog",
                                 "{\"what\": \"split\", \"ns\": \"fm.c\", \"details.left.lastmodEpoch\": {\"$type\": "
                                 "\"objectId\"}, \"details.left.lastmod\": {\"$type\": \"timestamp\"}}") == 3);
   } else {
      CHECK (name, count_config (s, "changelog",
                                 "{\"what\": \"split\", \"ns\": \"fm.c\", \"details.left.lastmod.e\": {\"$type\": "
                                 "\"objectId\"}, \"details.left.lastmod.t\": {\"$type\": \"timestamp\"}, "
                                 "\"details.right.lastmod.v\": {\"$type\": \"timestamp\"}, "
                                 "\"details.before.lastmodEpoch\": {\"$exists\": false}}") == 3);
   }
}

/* The merge changelog: 4.4/5.0 { merged: [versions], mergedVersion: { lastmod }, owningShard }; 7.0+
 * logMergeToChangelog { prevPlacementVersion, mergedVersion, owningShard, min, max, numChunks }. */
static void
test_merge_changelog (sim_t *s, const char *v, bool legacy)
{
   char name[160];
   run_ok (s, "admin", "{\"enableSharding\": \"fq\", \"primaryShard\": \"shard01\"}");
   run_ok (s, "admin", "{\"shardCollection\": \"fq.m\", \"key\": {\"q\": 1}}");
   run_ok (s, "admin", "{\"split\": \"fq.m\", \"middle\": {\"q\": 1}}");
   run_ok (s, "admin", "{\"split\": \"fq.m\", \"middle\": {\"q\": 2}}");
   run_ok (s, "admin", "{\"split\": \"fq.m\", \"middle\": {\"q\": 3}}");
   snprintf (name, sizeof name, "%s.mergeChunks ok, one chunk left of three", v);
   CHECK (name,
          run_ok (s, "admin", "{\"mergeChunks\": \"fq.m\", \"bounds\": [{\"q\": 1}, {\"q\": {\"$maxKey\": 1}}]}") &&
             count_config (s, "chunks", "{\"min.q\": {\"$exists\": true}}") == 2);
   snprintf (name, sizeof name, "%s.merge changelog shape", v);
   if (legacy) {
      CHECK (name,
             count_config (s, "changelog",
                           "{\"what\": \"merge\", \"ns\": \"fq.m\", \"details.merged.2.lastmodEpoch\": {\"$type\": "
                           "\"objectId\"}, \"details.mergedVersion.lastmod\": {\"$type\": \"timestamp\"}, "
                           "\"details.owningShard\": \"shard01\"}") == 1);
   } else {
      CHECK (name,
             count_config (s, "changelog",
                           "{\"what\": \"merge\", \"ns\": \"fq.m\", \"details.prevPlacementVersion.v\": {\"$type\": "
                           "\"timestamp\"}, \"details.mergedVersion.e\": {\"$type\": \"objectId\"}, "
                           "\"details.min.q\": 1, \"details.numChunks\": 3, \"details.merged\": {\"$exists\": "
                           "false}}") == 1);
   }
   snprintf (name, sizeof name, "%s.split changelog before", v);
   if (legacy) {
      CHECK (name,
             count_config (s, "changelog",
                           "{\"what\": \"split\", \"ns\": \"fq.m\", \"details.before.lastmodEpoch\": {\"$exists\": "
                           "true}}") == 3);
   } else {
      /* commitChunkSplit from 6.0: before.lastmod is the collection version: (1, 0), (1, 2), (1, 4) */
      CHECK (name, count_config (s, "changelog",
                                 "{\"what\": \"split\", \"ns\": \"fq.m\", \"details.before.lastmod.v\": {\"$in\": "
                                 "[{\"$timestamp\": {\"t\": 1, \"i\": 2}}, {\"$timestamp\": {\"t\": 1, \"i\": "
                                 "4}}]}}") == 2);
   }
}

static void
test_chunk_too_big (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160], shard[64] = "";
   run_json (s, "admin", "{\"moveChunk\": \"fm.c\", \"find\": {\"k\": 1}, \"to\": \"shard02\"}", &reply);
   snprintf (name, sizeof name, "%s.moveChunk over the document limit 153", v);
   CHECK (name, code_of (&reply) == 153 && str_at (&reply, "codeName") &&
                   !strcmp (str_at (&reply, "codeName"), "ChunkTooBig"));
   snprintf (name, sizeof name, "%s.moveChunk ChunkTooBig text", v);
   CHECK_STR (name,
              "Cannot move chunk: the maximum number of documents for a chunk is 8, the maximum chunk size is 1024, "
              "average document size is 231. Found 25 documents in chunk  ns: fm.c { k: 0 } -> { k: 25 }",
              errmsg_of (&reply));
   snprintf (name, sizeof name, "%s.moveChunk ChunkTooBig chunk stays", v);
   CHECK (name, chunk_shard (s, "k", 0, shard) && !strcmp (shard, "shard01"));
   bson_destroy (&reply);
   snprintf (name, sizeof name, "%s.moveChunk forceJumbo moves it", v);
   CHECK (name, run_ok (s, "admin",
                        "{\"moveChunk\": \"fm.c\", \"find\": {\"k\": 1}, \"to\": \"shard02\", "
                        "\"forceJumbo\": true}") &&
                   chunk_shard (s, "k", 0, shard) && !strcmp (shard, "shard02"));
}

static void
test_move_range (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160], shard[64] = "";
   int64_t before = count_config (s, "chunks", "{\"min.k\": {\"$exists\": true}}");
   /* A move onto the owner returns at once: no split. */
   snprintf (name, sizeof name, "%s.moveRange onto owner no split", v);
   CHECK (name, run_ok (s, "admin", "{\"moveRange\": \"fm.c\", \"toShard\": \"shard01\", \"min\": {\"k\": 30}}") &&
                   count_config (s, "chunks", "{\"min.k\": {\"$exists\": true}}") == before);
   /* A refused move leaves no split either. */
   run_ok (s, "admin", "{\"setAllowMigrations\": \"fm.c\", \"allowMigrations\": false}");
   run_json (s, "admin", "{\"moveRange\": \"fm.c\", \"toShard\": \"shard02\", \"min\": {\"k\": 30}}", &reply);
   snprintf (name, sizeof name, "%s.moveRange refused no split", v);
   CHECK (name, code_of (&reply) == 117 && count_config (s, "chunks", "{\"min.k\": {\"$exists\": true}}") == before);
   bson_destroy (&reply);
   run_ok (s, "admin", "{\"setAllowMigrations\": \"fm.c\", \"allowMigrations\": true}");
   /* The destination is resolved (config server) before the donor checks the bounds. */
   run_json (s, "admin", "{\"moveRange\": \"fm.c\", \"toShard\": \"nope\", \"min\": {\"other\": 1}}", &reply);
   snprintf (name, sizeof name, "%s.moveRange unknown shard before bounds", v);
   CHECK (name, code_of (&reply) == 70);
   bson_destroy (&reply);
   int64_t splits = count_config (s, "changelog", "{\"what\": \"split\", \"ns\": \"fm.c\"}");
   /* Only min: about one chunk size moves (1024 / 231 = 4 documents: [30, 34)). */
   snprintf (name, sizeof name, "%s.moveRange min only moves one chunk size", v);
   CHECK (name, run_ok (s, "admin", "{\"moveRange\": \"fm.c\", \"toShard\": \"shard03\", \"min\": {\"k\": 30}}") &&
                   count_config (s, "chunks", "{\"min.k\": 30, \"max.k\": 34, \"shard\": \"shard03\"}") == 1 &&
                   chunk_shard (s, "k", 34, shard) && !strcmp (shard, "shard01"));
   /* commitChunkMigration splits as it commits: no split entry; moved (M+1, 0), left (M+1, 1), right (M+1, 2). */
   snprintf (name, sizeof name, "%s.moveRange commit splits without a split entry", v);
   CHECK (name, count_config (s, "changelog", "{\"what\": \"split\", \"ns\": \"fm.c\"}") == splits);
   bson_t moved, left, right;
   bool got = find_chunk (s, "{\"min.k\": 30}", &moved) & find_chunk (s, "{\"min.k\": 25}", &left) &
              find_chunk (s, "{\"min.k\": 34}", &right);
   uint32_t mt = 0, mi = 9, lt = 0, li = 9, rt = 0, ri = 9;
   bson_iter_t it;
   if (got && bson_iter_init_find (&it, &moved, "lastmod") && BSON_ITER_HOLDS_TIMESTAMP (&it)) {
      bson_iter_timestamp (&it, &mt, &mi);
   }
   if (got && bson_iter_init_find (&it, &left, "lastmod") && BSON_ITER_HOLDS_TIMESTAMP (&it)) {
      bson_iter_timestamp (&it, &lt, &li);
   }
   if (got && bson_iter_init_find (&it, &right, "lastmod") && BSON_ITER_HOLDS_TIMESTAMP (&it)) {
      bson_iter_timestamp (&it, &rt, &ri);
   }
   snprintf (name, sizeof name, "%s.moveRange commit versions (M+1, 0/1/2)", v);
   CHECK (name, got && mt > 1 && mt == lt && lt == rt && mi == 0 && li == 1 && ri == 2);
   bson_destroy (&moved);
   bson_destroy (&left);
   bson_destroy (&right);
}

/* 4.4/5.0 moveChunk: cluster_move_chunk_cmd.cpp's errmsgRun order and texts. */
static void
test_move_chunk_44 (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   run_json (s, "admin", "{\"moveChunk\": \"fm.none\", \"find\": {\"k\": 1}}", &reply);
   snprintf (name, sizeof name, "%s.moveChunk unsharded 118 before to", v);
   CHECK (name, code_of (&reply) == 118);
   bson_destroy (&reply);
   run_json (s, "admin", "{\"moveChunk\": \"fm.c\", \"find\": {\"k\": 1}}", &reply);
   snprintf (name, sizeof name, "%s.moveChunk missing to 14", v);
   CHECK (name, code_of (&reply) == 14 && !strcmp (errmsg_of (&reply), "'to' must be of type String"));
   bson_destroy (&reply);
   run_json (s, "admin", "{\"moveChunk\": \"fm.c\", \"find\": {\"k\": 1}, \"to\": \"\"}", &reply);
   snprintf (name, sizeof name, "%s.moveChunk empty to errmsg", v);
   CHECK (name, code_of (&reply) == -1 &&
                   !strcmp (errmsg_of (&reply), "you have to specify where you want to move the chunk"));
   bson_destroy (&reply);
   run_json (s, "admin", "{\"moveChunk\": \"fm.c\", \"find\": {}, \"to\": \"shard02\"}", &reply);
   snprintf (name, sizeof name, "%s.moveChunk empty find errmsg", v);
   CHECK_STR (name, "need to specify either a find query, or both lower and upper bounds.", errmsg_of (&reply));
   bson_destroy (&reply);
   run_json (s, "admin", "{\"moveChunk\": \"fm.c\", \"find\": {}, \"to\": \"nope\"}", &reply);
   snprintf (name, sizeof name, "%s.moveChunk unknown shard before find", v);
   CHECK (name, code_of (&reply) == 70 && !strcmp (errmsg_of (&reply), "Could not move chunk in fm.c to nope because "
                                                                       "that shard does not exist"));
   bson_destroy (&reply);
   /* Zone and draining: BalancerPolicy::isShardSuitableReceiver's texts. */
   run_ok (s, "admin", "{\"addShardToZone\": \"shard01\", \"zone\": \"Z\"}");
   run_ok (s, "admin",
           "{\"updateZoneKeyRange\": \"fm.c\", \"min\": {\"k\": 50}, \"max\": {\"k\": {\"$maxKey\": 1}}, "
           "\"zone\": \"Z\"}");
   run_json (s, "admin", "{\"moveChunk\": \"fm.c\", \"find\": {\"k\": 60}, \"to\": \"shard02\"}", &reply);
   snprintf (name, sizeof name, "%s.moveChunk zone text", v);
   CHECK_STR (name, "shard02 is not in the correct zone Z", errmsg_of (&reply));
   snprintf (name, sizeof name, "%s.moveChunk zone 20, chunk stays", v);
   CHECK (name, code_of (&reply) == 20 && count_config (s, "chunks", "{\"min.k\": 50, \"shard\": \"shard01\"}") == 1);
   bson_destroy (&reply);
   run_ok (s, "admin", "{\"removeShard\": \"shard03\"}");
   run_json (s, "admin", "{\"moveChunk\": \"fm.c\", \"find\": {\"k\": -5}, \"to\": \"shard03\"}", &reply);
   snprintf (name, sizeof name, "%s.moveChunk draining text", v);
   CHECK_STR (name, "shard03 is currently draining.", errmsg_of (&reply));
   bson_destroy (&reply);
}

/* 6.0+ moveChunk: the typed command's checks, then _configsvrMoveRange, which checks no zone. */
static void
test_move_chunk_80 (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160], shard[64] = "";
   run_json (s, "admin", "{\"moveChunk\": \"fm.c\", \"find\": {\"k\": 1}, \"to\": \"nope\"}", &reply);
   snprintf (name, sizeof name, "%s.moveChunk unknown shard text", v);
   CHECK (name, code_of (&reply) == 70 && !strcmp (errmsg_of (&reply), "Could not move chunk in fm.c to nope because "
                                                                       "that shard does not exist"));
   bson_destroy (&reply);
   run_json (s, "admin", "{\"moveChunk\": \"fm.c\", \"to\": 5, \"find\": {\"k\": 1}}", &reply);
   snprintf (name, sizeof name, "%s.moveChunk to not a string IDL 14", v);
   CHECK (name, code_of (&reply) == 14 && strstr (errmsg_of (&reply), "BSON field 'moveChunk.to' is the wrong type"));
   bson_destroy (&reply);
   run_ok (s, "admin", "{\"addShardToZone\": \"shard01\", \"zone\": \"Z\"}");
   run_ok (s, "admin",
           "{\"updateZoneKeyRange\": \"fm.c\", \"min\": {\"k\": 50}, \"max\": {\"k\": {\"$maxKey\": 1}}, "
           "\"zone\": \"Z\"}");
   snprintf (name, sizeof name, "%s.moveChunk outside zone allowed (no checkMoveAllowed on moveRange)", v);
   CHECK (name, run_ok (s, "admin", "{\"moveChunk\": \"fm.c\", \"find\": {\"k\": 60}, \"to\": \"shard02\"}") &&
                   chunk_shard (s, "k", 50, shard) && !strcmp (shard, "shard02"));
}

/* ---- balancer (items 3, 4, 5, 11, 12) ---- */

static void
sleep_ms (int ms)
{
   usleep ((useconds_t) ms * 1000);
}

/* Chunks of ns on shard (by the config.chunks documents of the collection, found through its shard key field k). */
static int64_t
chunks_on (sim_t *s, const char *field, const char *shard)
{
   char f[160];
   snprintf (f, sizeof f, "{\"min.%s\": {\"$exists\": true}, \"shard\": \"%s\"}", field, shard);
   return count_config (s, "chunks", f);
}

/* 4.4/5.0: 16/14 chunks on two shards are imbalanced (ideal 15, kDefaultImbalanceThreshold 1). */
static void
test_count_policy (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160], json[256];
   run_ok (s, "admin", "{\"enableSharding\": \"fb\", \"primaryShard\": \"shard01\"}");
   run_ok (s, "admin", "{\"shardCollection\": \"fb.c\", \"key\": {\"c\": 1}}");
   for (int i = 1; i < 30; i++) {
      snprintf (json, sizeof json, "{\"split\": \"fb.c\", \"middle\": {\"c\": %d}}", i);
      run_ok (s, "admin", json);
   }
   for (int i = 16; i < 30; i++) {
      snprintf (json, sizeof json, "{\"moveChunk\": \"fb.c\", \"find\": {\"c\": %d}, \"to\": \"shard02\"}", i);
      run_ok (s, "admin", json);
   }
   snprintf (name, sizeof name, "%s.policy setup 16/14", v);
   CHECK (name, chunks_on (s, "c", "shard01") == 16 && chunks_on (s, "c", "shard02") == 14);
   run_json (s, "admin", "{\"balancerCollectionStatus\": \"fb.c\"}", &reply);
   snprintf (name, sizeof name, "%s.policy 16/14 chunksImbalance", v);
   CHECK (name, !bool_at (&reply, "balancerCompliant") && str_at (&reply, "firstComplianceViolation") &&
                   !strcmp (str_at (&reply, "firstComplianceViolation"), "chunksImbalance"));
   bson_destroy (&reply);
   snprintf (name, sizeof name, "%s.policy a round moves one chunk to 15/15", v);
   CHECK (name, run_ok (s, "admin", "{\"simBalancer\": \"round\"}") && chunks_on (s, "c", "shard01") == 15 &&
                   chunks_on (s, "c", "shard02") == 15);
   run_json (s, "admin", "{\"balancerCollectionStatus\": \"fb.c\"}", &reply);
   snprintf (name, sizeof name, "%s.policy 15/15 compliant", v);
   CHECK (name, bool_at (&reply, "balancerCompliant") && !has_at (&reply, "firstComplianceViolation"));
   bson_destroy (&reply);
   snprintf (name, sizeof name, "%s.policy 15/15 stays", v);
   CHECK (name, run_ok (s, "admin", "{\"simBalancer\": \"round\"}") && chunks_on (s, "c", "shard01") == 15 &&
                   chunks_on (s, "c", "shard02") == 15);
}

/* Chunks flagged jumbo are never picked by the policy, attemptToBalanceJumboChunks or not (BalancerPolicy::balance,
 * _singleZoneBalance: "has only jumbo chunks"); the collection is then compliant. */
static void
test_jumbo_not_picked (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   run_ok (s, "admin", "{\"enableSharding\": \"fj\", \"primaryShard\": \"shard01\"}");
   run_ok (s, "admin", "{\"shardCollection\": \"fj.j\", \"key\": {\"j\": 1}}");
   run_ok (s, "admin", "{\"split\": \"fj.j\", \"middle\": {\"j\": 0}}");
   run_ok (s, "config",
           "{\"update\": \"chunks\", \"updates\": [{\"q\": {\"min.j\": {\"$exists\": true}}, \"u\": {\"$set\": "
           "{\"jumbo\": true}}, \"multi\": true}]}");
   run_ok (s, "config",
           "{\"update\": \"settings\", \"updates\": [{\"q\": {\"_id\": \"balancer\"}, \"u\": {\"$set\": "
           "{\"attemptToBalanceJumboChunks\": true}}, \"upsert\": true}]}");
   snprintf (name, sizeof name, "%s.jumbo chunks never picked", v);
   CHECK (name, run_ok (s, "admin", "{\"simBalancer\": \"round\"}") && chunks_on (s, "j", "shard01") == 2 &&
                   chunks_on (s, "j", "shard02") == 0);
   run_json (s, "admin", "{\"balancerCollectionStatus\": \"fj.j\"}", &reply);
   snprintf (name, sizeof name, "%s.only jumbo chunks to move: compliant", v);
   CHECK (name, bool_at (&reply, "balancerCompliant"));
   bson_destroy (&reply);
}

/* A chunk that a zone range boundary cuts is a zoneViolation (selectChunksToSplit), even on a shard of the zone. */
static void
test_status_zone_cut (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   run_ok (s, "admin", "{\"enableSharding\": \"fc\", \"primaryShard\": \"shard01\"}");
   run_ok (s, "admin", "{\"shardCollection\": \"fc.z\", \"key\": {\"z\": 1}}");
   run_ok (s, "admin", "{\"addShardToZone\": \"shard01\", \"zone\": \"ZC\"}");
   run_ok (s, "admin",
           "{\"updateZoneKeyRange\": \"fc.z\", \"min\": {\"z\": 10}, \"max\": {\"z\": 20}, \"zone\": "
           "\"ZC\"}");
   run_json (s, "admin", "{\"balancerCollectionStatus\": \"fc.z\"}", &reply);
   snprintf (name, sizeof name, "%s.status zone boundary inside a chunk zoneViolation", v);
   CHECK (name, !bool_at (&reply, "balancerCompliant") && str_at (&reply, "firstComplianceViolation") &&
                   !strcmp (str_at (&reply, "firstComplianceViolation"), "zoneViolation") &&
                   count_config (s, "chunks", "{\"min.z\": {\"$exists\": true}}") == 1);
   bson_destroy (&reply);
   if (strcmp (v, "4.4") != 0) {
      run_ok (s, "admin", "{\"configureCollectionBalancing\": \"fc.z\", \"defragmentCollection\": true}");
      run_json (s, "admin", "{\"balancerCollectionStatus\": \"fc.z\"}", &reply);
      snprintf (name, sizeof name, "%s.status defragmentation checked first", v);
      CHECK (name, str_at (&reply, "firstComplianceViolation") &&
                      !strcmp (str_at (&reply, "firstComplianceViolation"), "defragmentingChunks"));
      bson_destroy (&reply);
   }
}

/* balancerStatus reports the parsed mode (autoSplitOnly up to 6.0). */
static void
test_status_mode (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   run_ok (s, "config",
           "{\"update\": \"settings\", \"updates\": [{\"q\": {\"_id\": \"balancer\"}, \"u\": {\"$set\": "
           "{\"mode\": \"autoSplitOnly\", \"stopped\": false}}, \"upsert\": true}]}");
   run_json (s, "admin", "{\"balancerStatus\": 1}", &reply);
   snprintf (name, sizeof name, "%s.balancerStatus autoSplitOnly as stored", v);
   CHECK_STR (name, "autoSplitOnly", str_at (&reply, "mode"));
   bson_destroy (&reply);
   run_ok (s, "admin", "{\"balancerStart\": 1}");
   run_json (s, "admin", "{\"balancerStatus\": 1}", &reply);
   snprintf (name, sizeof name, "%s.balancerStatus full after balancerStart", v);
   CHECK (name, str_at (&reply, "mode") && !strcmp (str_at (&reply, "mode"), "full") &&
                   count_config (s, "settings", "{\"_id\": \"balancer\", \"mode\": \"full\"}") == 1);
   bson_destroy (&reply);
}

/* Sets config.settings balancer activeWindow to the JSON value w ("" unsets it). */
static void
set_window (sim_t *s, const char *w)
{
   char json[512];
   if (w[0]) {
      snprintf (json, sizeof json,
                "{\"update\": \"settings\", \"updates\": [{\"q\": {\"_id\": \"balancer\"}, \"u\": {\"$set\": "
                "{\"activeWindow\": %s}}, \"upsert\": true}]}",
                w);
   } else {
      snprintf (json, sizeof json,
                "{\"update\": \"settings\", \"updates\": [{\"q\": {\"_id\": \"balancer\"}, \"u\": {\"$unset\": "
                "{\"activeWindow\": 1}}}]}");
   }
   run_ok (s, "config", json);
}

/* An activeWindow that does not parse stops every round (BalancerSettingsType::fromBSON fails). */
static void
test_bad_window (sim_t *s, const char *v)
{
   char name[160];
   static const char *bad[] = { "{\"start\": \"01:00\", \"stop\": \"01:00\"}",
                                "{\"start\": \"25:00\", \"stop\": "
                                "\"02:00\"}",
                                "\"always\"", "{}", "{\"start\": \"01:00\"}" };
   static const char *what[] = { "start equal to stop", "bad HH:MM", "not an object", "empty", "no stop" };
   run_ok (s, "admin", "{\"balancerStart\": 1}");
   run_ok (s, "admin", "{\"simBalancer\": \"live\", \"intervalMs\": 20}");
   sleep_ms (200);
   for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
      set_window (s, bad[i]);
      sleep_ms (60); /* a round already under way ends */
      int64_t r0 = count_config (s, "actionlog", "{\"what\": \"balancer.round\"}");
      sleep_ms (300);
      snprintf (name, sizeof name, "%s.activeWindow %s: no rounds", v, what[i]);
      CHECK (name, r0 > 0 && count_config (s, "actionlog", "{\"what\": \"balancer.round\"}") == r0);
   }
   set_window (s, "");
   int64_t r1 = count_config (s, "actionlog", "{\"what\": \"balancer.round\"}");
   sleep_ms (300);
   snprintf (name, sizeof name, "%s.activeWindow removed: rounds resume", v);
   CHECK (name, count_config (s, "actionlog", "{\"what\": \"balancer.round\"}") > r1);
   run_ok (s, "admin", "{\"simBalancer\": \"live\", \"enabled\": false}");
}

/* 7.0+: the automerger merges only chunks on their shard since before the history window, and its first pass comes
 * when it is enabled; later passes come every autoMergerIntervalSecs, after many balancer rounds. */
static void
test_automerger (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160], json[256];
   run_ok (s, "admin", "{\"enableSharding\": \"fa\", \"primaryShard\": \"shard01\"}");
   run_ok (s, "admin", "{\"shardCollection\": \"fa.m\", \"key\": {\"m\": 1}}");
   for (int i = 1; i < 4; i++) {
      snprintf (json, sizeof json, "{\"split\": \"fa.m\", \"middle\": {\"m\": %d}}", i * 10);
      run_ok (s, "admin", json);
   }
   run_ok (s, "admin", "{\"balancerStart\": 1}");
   /* 50 ms rounds stand for 10 s: the 300 s history window is 1.5 s, a pass every 30 rounds. */
   run_ok (s, "admin", "{\"simBalancer\": \"live\", \"intervalMs\": 50, \"autoMergerRounds\": 30}");
   sleep_ms (700);
   snprintf (name, sizeof name, "%s.automerger leaves chunks younger than the history window", v);
   CHECK (name, count_config (s, "chunks", "{\"min.m\": {\"$exists\": true}}") == 4 &&
                   count_config (s, "changelog", "{\"what\": \"merge\", \"ns\": \"fa.m\"}") == 0);
   int64_t n = 4;
   for (int i = 0; i < 100 && n != 1; i++) {
      sleep_ms (100);
      n = count_config (s, "chunks", "{\"min.m\": {\"$exists\": true}}");
   }
   run_json (s, "admin", "{\"simBalancer\": \"status\"}", &reply);
   bson_iter_t it;
   int64_t rounds = bson_iter_init_find (&it, &reply, "rounds") ? bson_iter_as_int64 (&it) : -1;
   bson_destroy (&reply);
   snprintf (name, sizeof name, "%s.automerger merges them once older, after 30+ rounds", v);
   CHECK (name,
          n == 1 && rounds >= 30 && count_config (s, "changelog", "{\"what\": \"merge\", \"ns\": \"fa.m\"}") == 1);
   run_ok (s, "admin", "{\"simBalancer\": \"live\", \"enabled\": false}");
}

static void
run_balancer (const char *version)
{
   sim_t s;
   const char *args[] = { "--version", version, "--shards", "2", NULL };
   char name[64];
   if (!fid_start (&s, args)) {
      snprintf (name, sizeof name, "%s.balancer start", version);
      UNIT_FAIL (name, "shardsim did not start");
      sim_stop (&s);
      return;
   }
   bool old = !strcmp (version, "4.4") || !strcmp (version, "5.0");
   if (old) {
      test_count_policy (&s, version);
      test_jumbo_not_picked (&s, version);
      test_status_mode (&s, version);
   }
   test_status_zone_cut (&s, version);
   if (!old) {
      test_automerger (&s, version);
   }
   test_bad_window (&s, version);
   int status = sim_stop (&s);
   snprintf (name, sizeof name, "%s.balancer clean exit", version);
   CHECK (name, WIFEXITED (status) && WEXITSTATUS (status) == 0);
}

/* ---- balancerStart / balancerStop (configsvr_control_balancer_command.cpp): setBalancerMode's { stopped, mode },
 * 4.4/5.0 the autosplit setting, 7.0+ changeAutoMergeSettings, 8.0 the balancer.start / balancer.stop actionlog ---- */

static void
test_balancer_control (sim_t *s, const char *v)
{
   char name[160];
   bool pre60 = !strcmp (v, "4.4") || !strcmp (v, "5.0"), ge70 = !strcmp (v, "7.0") || !strcmp (v, "8.0"),
        ge80 = !strcmp (v, "8.0");
   run_ok (s, "admin", "{\"balancerStop\": 1}");
   snprintf (name, sizeof name, "%s.balancerStop sets stopped and mode off", v);
   CHECK (name, count_config (s, "settings", "{\"_id\": \"balancer\", \"stopped\": true, \"mode\": \"off\"}") == 1);
   snprintf (name, sizeof name, "%s.balancerStop autosplit setting (4.4/5.0 only)", v);
   CHECK (name, count_config (s, "settings", "{\"_id\": \"autosplit\", \"enabled\": false}") == (pre60 ? 1 : 0));
   snprintf (name, sizeof name, "%s.balancerStop disables the automerger (7.0+)", v);
   CHECK (name, count_config (s, "settings", "{\"_id\": \"automerge\", \"enabled\": false}") == (ge70 ? 1 : 0));
   snprintf (name, sizeof name, "%s.balancerStop actionlog balancer.stop (8.0)", v);
   CHECK (name, count_config (s, "actionlog", "{\"what\": \"balancer.stop\", \"ns\": \"\", \"details\": {}}") ==
                   (ge80 ? 1 : 0));
   run_ok (s, "admin", "{\"balancerStart\": 1}");
   snprintf (name, sizeof name, "%s.balancerStart sets mode full", v);
   CHECK (name, count_config (s, "settings", "{\"_id\": \"balancer\", \"stopped\": false, \"mode\": \"full\"}") == 1);
   snprintf (name, sizeof name, "%s.balancerStart enables the automerger (7.0+)", v);
   CHECK (name, count_config (s, "settings", "{\"_id\": \"automerge\", \"enabled\": true}") == (ge70 ? 1 : 0));
   snprintf (name, sizeof name, "%s.balancerStart actionlog balancer.start (8.0)", v);
   CHECK (name, count_config (s, "actionlog", "{\"what\": \"balancer.start\"}") == (ge80 ? 1 : 0));
}

/* ---- split and mergeChunks arguments: cluster_split_cmd.cpp SplitCollectionCmd::errmsgRun (routing info first,
 * FieldParser's types and defaults), cluster_merge_chunks_cmd.cpp ClusterMergeChunksCommand::errmsgRun ---- */

static void
test_split_merge_args (sim_t *s, const char *v)
{
   char name[160];
   bson_t reply;
   run_ok (s, "admin", "{\"shardCollection\": \"rv.sm\", \"key\": {\"k\": 1}}");
   run_json (s, "admin", "{\"split\": \"rv.none\", \"find\": {\"k\": 1}, \"middle\": {\"k\": 2}}", &reply);
   snprintf (name, sizeof name, "%s.split unsharded: 118 before the argument checks", v);
   CHECK (name, code_of (&reply) == 118);
   bson_destroy (&reply);
   run_json (s, "admin", "{\"split\": \"rv.sm\", \"find\": {}, \"middle\": {\"k\": 500}}", &reply);
   snprintf (name, sizeof name, "%s.split find {} is no find: middle splits", v);
   CHECK (name,
          code_of (&reply) == -1 && !str_at (&reply, "errmsg") && count_config (s, "chunks", "{\"min.k\": 500}") == 1);
   bson_destroy (&reply);
   int64_t nchunks = count_config (s, "chunks", "{\"$or\": [{\"min.k\": 500}, {\"max.k\": 500}]}");
   run_json (s, "admin", "{\"split\": \"rv.sm\", \"find\": 5}", &reply);
   snprintf (name, sizeof name, "%s.split find of the wrong type", v);
   CHECK_STR (name, "wrong type for 'find' field, expected object, found find: 5", errmsg_of (&reply));
   bson_destroy (&reply);
   run_json (s, "admin", "{\"split\": \"rv.sm\", \"bounds\": {\"a\": 1}}", &reply);
   snprintf (name, sizeof name, "%s.split bounds of the wrong type", v);
   CHECK_STR (name, "wrong type for 'bounds' field, expected array, found bounds: { a: 1 }", errmsg_of (&reply));
   bson_destroy (&reply);
   run_json (s, "admin", "{\"split\": \"rv.sm\", \"middle\": 7}", &reply);
   snprintf (name, sizeof name, "%s.split middle of the wrong type", v);
   CHECK_STR (name, "wrong type for 'middle' field, expected object, found middle: 7", errmsg_of (&reply));
   bson_destroy (&reply);
   run_json (s, "admin", "{\"mergeChunks\": \"rv.sm\", \"bounds\": 5}", &reply);
   snprintf (name, sizeof name, "%s.mergeChunks bounds of the wrong type", v);
   CHECK_STR (name, "wrong type for 'bounds' field, expected vector array, found bounds: 5", errmsg_of (&reply));
   bson_destroy (&reply);
   run_json (s, "admin", "{\"mergeChunks\": \"rv.none\", \"bounds\": [{}, {\"k\": 500}]}", &reply);
   snprintf (name, sizeof name, "%s.mergeChunks empty min before the routing info", v);
   CHECK_STR (name, "no min key specified", errmsg_of (&reply));
   bson_destroy (&reply);
   run_json (s, "admin", "{\"mergeChunks\": \"rv.sm\", \"bounds\": [{\"k\": {\"$minKey\": 1}}, {\"k\": 5}]}", &reply);
   snprintf (name, sizeof name, "%s.mergeChunks names the shard owning min", v);
   CHECK (name, code_of (&reply) == 20 && strstr (errmsg_of (&reply), "shard shard01 does not contain") != NULL);
   bson_destroy (&reply);
   snprintf (name, sizeof name, "%s.split/merge refusals change no chunk", v);
   CHECK (name, nchunks == 2 && count_config (s, "chunks", "{\"$or\": [{\"min.k\": 500}, {\"max.k\": 500}]}") == 2);
}

/* ---- removeShard (ShardingCatalogManager::removeShard): marks the shard draining, reports what is left, never
 * moves a chunk itself; the balancer drains the shard ---- */

static void
test_remove_shard (const char *v)
{
   sim_t s;
   const char *args[] = { "--version", v, "--shards", "3", NULL };
   char name[160];
   bson_t reply;
   if (!fid_start (&s, args)) {
      snprintf (name, sizeof name, "%s.review start", v);
      UNIT_FAIL (name, "shardsim did not start");
      sim_stop (&s);
      return;
   }
   test_balancer_control (&s, v);
   run_ok (&s, "admin", "{\"enableSharding\": \"rv\", \"primaryShard\": \"shard01\"}");
   run_ok (&s, "admin", "{\"shardCollection\": \"rv.c\", \"key\": {\"k\": 1}}");
   test_split_merge_args (&s, v);
   /* setAllowMigrationsAndBumpOneChunk: config.collections permitMigrations from 5.0; 4.4 writes the pre-5.0 name,
    * allowMigrations (kPre50CompatibleAllowMigrationsFieldName) */
   bool v44 = !strcmp (v, "4.4");
   const char *set_f =
      v44 ? "{\"_id\": \"rv.sm\", \"allowMigrations\": false}" : "{\"_id\": \"rv.sm\", \"permitMigrations\": false}";
   const char *other_f = v44 ? "{\"_id\": \"rv.sm\", \"permitMigrations\": {\"$exists\": true}}"
                             : "{\"_id\": \"rv.sm\", \"allowMigrations\": {\"$exists\": true}}";
   run_ok (&s, "admin", "{\"setAllowMigrations\": \"rv.sm\", \"allowMigrations\": false}");
   snprintf (name, sizeof name, "%s.setAllowMigrations false writes %s: false", v,
             v44 ? "allowMigrations" : "permitMigrations");
   CHECK (name, count_config (&s, "collections", set_f) == 1 && count_config (&s, "collections", other_f) == 0);
   run_json (&s, "admin", "{\"moveChunk\": \"rv.sm\", \"find\": {\"k\": 1}, \"to\": \"shard02\"}", &reply);
   snprintf (name, sizeof name, "%s.setAllowMigrations false: moveChunk refused", v);
   CHECK (name, code_of (&reply) == 117);
   bson_destroy (&reply);
   run_ok (&s, "admin", "{\"setAllowMigrations\": \"rv.sm\", \"allowMigrations\": true}");
   snprintf (name, sizeof name, "%s.setAllowMigrations true unsets the field", v);
   CHECK (name,
          count_config (&s, "collections", "{\"_id\": \"rv.sm\", \"permitMigrations\": {\"$exists\": true}}") == 0 &&
             count_config (&s, "collections", "{\"_id\": \"rv.sm\", \"allowMigrations\": {\"$exists\": true}}") == 0);
   for (int k = 10; k <= 30; k += 10) {
      char cmd[160];
      snprintf (cmd, sizeof cmd, "{\"split\": \"rv.c\", \"middle\": {\"k\": %d}}", k);
      run_ok (&s, "admin", cmd);
      snprintf (cmd, sizeof cmd, "{\"moveChunk\": \"rv.c\", \"find\": {\"k\": %d}, \"to\": \"shard03\"}", k);
      run_ok (&s, "admin", cmd);
   }
   int64_t before = count_config (&s, "chunks", "{\"shard\": \"shard03\"}");
   run_json (&s, "admin", "{\"removeShard\": \"shard03\"}", &reply);
   snprintf (name, sizeof name, "%s.removeShard started", v);
   CHECK (name, str_at (&reply, "state") && !strcmp (str_at (&reply, "state"), "started") &&
                   count_config (&s, "shards", "{\"_id\": \"shard03\", \"draining\": true}") == 1);
   bson_destroy (&reply);
   bool still = true, ongoing = true;
   for (int i = 0; i < 3; i++) {
      run_json (&s, "admin", "{\"removeShard\": \"shard03\"}", &reply);
      ongoing = ongoing && str_at (&reply, "state") && !strcmp (str_at (&reply, "state"), "ongoing");
      bson_iter_t it, d;
      ongoing = ongoing && bson_iter_init (&it, &reply) && bson_iter_find_descendant (&it, "remaining.chunks", &d) &&
                BSON_ITER_HOLDS_INT64 (&d) && bson_iter_int64 (&d) == before;
      bson_destroy (&reply);
      still = still && count_config (&s, "chunks", "{\"shard\": \"shard03\"}") == before;
   }
   snprintf (name, sizeof name, "%s.removeShard moves no chunk itself", v);
   CHECK (name, before == 3 && still);
   snprintf (name, sizeof name, "%s.removeShard ongoing reports every chunk left (int64)", v);
   CHECK (name, ongoing);
   bool completed = false;
   for (int i = 0; i < 20 && !completed; i++) {
      run_ok (&s, "admin", "{\"simBalancer\": \"round\"}");
      run_json (&s, "admin", "{\"removeShard\": \"shard03\"}", &reply);
      completed = str_at (&reply, "state") && !strcmp (str_at (&reply, "state"), "completed");
      bson_destroy (&reply);
   }
   snprintf (name, sizeof name, "%s.removeShard completes once the balancer drained the shard", v);
   CHECK (name, completed && count_config (&s, "shards", "{\"_id\": \"shard03\"}") == 0 &&
                   count_config (&s, "chunks", "{\"shard\": \"shard03\"}") == 0 &&
                   count_config (&s, "changelog",
                                 "{\"what\": \"moveChunk.commit\", \"details.to\": {\"$ne\": \"shard03\"}}") >= 3);
   int status = sim_stop (&s);
   snprintf (name, sizeof name, "%s.review clean exit", v);
   CHECK (name, WIFEXITED (status) && WEXITSTATUS (status) == 0);
}

static void
run_version (const char *version)
{
   sim_t s;
   const char *args[] = { "--version", version, "--shards", "3", "--chunk-size-kb", "1", NULL };
   char name[64];
   if (!fid_start (&s, args)) {
      snprintf (name, sizeof name, "%s.start", version);
      UNIT_FAIL (name, "shardsim did not start (BINDIR=%s)", getenv ("BINDIR") ? getenv ("BINDIR") : "bin");
      sim_stop (&s);
      return;
   }
   test_zones (&s, version);
   test_zoned_gaps (&s, version);
   test_hashed_placement (&s, version);
   test_zoned_strategy (&s, version);
   test_presplit_zones (&s, version);
   test_initial_chunks (&s, version, 3);
   setup_move_coll (&s);
   test_split_changelog (&s, version, !strcmp (version, "4.4") || !strcmp (version, "5.0"));
   test_merge_changelog (&s, version, !strcmp (version, "4.4") || !strcmp (version, "5.0"));
   test_chunk_too_big (&s, version);
   if (strcmp (version, "4.4") != 0 && strcmp (version, "5.0") != 0) {
      test_move_range (&s, version);
      test_move_chunk_80 (&s, version);
   } else {
      test_move_chunk_44 (&s, version);
   }
   int status = sim_stop (&s);
   snprintf (name, sizeof name, "%s.clean exit", version);
   CHECK (name, WIFEXITED (status) && WEXITSTATUS (status) == 0);
}

int
main (void)
{
   mongoc_init ();
   mongoc_log_set_handler (NULL, NULL);
   run_version ("4.4");
   run_version ("8.0");
   run_balancer ("4.4");
   run_balancer ("8.0");
   const char *all[] = { "4.4", "5.0", "6.0", "7.0", "8.0" };
   for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
      test_remove_shard (all[i]);
   }
   mongoc_cleanup ();
   UNIT_EXIT ();
}
