/* passes: plain asan */
/* shardsim against the MongoDB server's own code (issue 15): each check reproduces one behaviour the server's source
 * defines (zone range removal and validation, the donor's chunk size limit and forceJumbo, moveRange's bounds and
 * early return, numInitialChunks' limit, moveChunk's argument order and error texts per version, balancerStatus
 * modes, the chunk-count policy of 4.4/5.0, balancerCollectionStatus, activeWindow parsing, the auto-merger's
 * history window) and asserts on the reply and on the config.* documents that follow. docs/shardsim.md names the
 * server file and function each one follows.
 * This file: zones, placement, initial chunks, split/merge changelogs, chunk size limits, moveRange and moveChunk;
 * the balancer's side is test_sim_fidelity_balancer.c. */
#include "tests/unit/fidelity.h"

static void
test_zones (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   simproc_run_ok (s, "admin", "{\"addShardToZone\": \"shard01\", \"zone\": \"Z\"}");
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"fz\"}");
   simproc_run_ok (s, "admin", "{\"shardCollection\": \"fz.r\", \"key\": {\"a\": 1}}");
   simproc_run_ok (s, "admin",
                   "{\"updateZoneKeyRange\": \"fz.r\", \"min\": {\"a\": 10}, \"max\": {\"a\": 20}, \"zone\": \"Z\"}");

   /* 1. removeKeyRangeFromZone deletes { ns, min, max } only: a wrong max removes nothing and still succeeds. */
   snprintf (name, sizeof name, "%s.zone null wrong max ok, range kept", v);
   CHECK (name, simproc_run_json (
                   s, "admin",
                   "{\"updateZoneKeyRange\": \"fz.r\", \"min\": {\"a\": 10}, \"max\": {\"a\": 30}, \"zone\": null}",
                   &reply) &&
                   count_config (s, "tags", "{\"ns\": \"fz.r\", \"min\": {\"a\": 10}}") == 1);
   bson_destroy (&reply);
   snprintf (name, sizeof name, "%s.zone null exact range removed", v);
   CHECK (name, simproc_run_json (
                   s, "admin",
                   "{\"updateZoneKeyRange\": \"fz.r\", \"min\": {\"a\": 10}, \"max\": {\"a\": 20}, \"zone\": null}",
                   &reply) &&
                   count_config (s, "tags", "{\"ns\": \"fz.r\"}") == 0);
   bson_destroy (&reply);

   /* 6. Unsharded namespace: min and max must name the same fields (ChunkRange::extractKeyPattern, 61). */
   simproc_run_json (
      s, "admin", "{\"updateZoneKeyRange\": \"fz.plain\", \"min\": {\"a\": 1}, \"max\": {\"b\": 2}, \"zone\": \"Z\"}",
      &reply);
   snprintf (name, sizeof name, "%s.zone unsharded mismatched fields 61", v);
   CHECK (name, code_of (&reply) == 61 &&
                   strstr (errmsg_of (&reply), "the shard key of min { a: 1 } doesn't match with the shard key of max "
                                               "{ b: 2 }") != NULL &&
                   count_config (s, "tags", "{\"ns\": \"fz.plain\"}") == 0);
   bson_destroy (&reply);
   /* Array and regex bounds: 2 BadValue, checked before the fields match. */
   simproc_run_json (
      s, "admin",
      "{\"updateZoneKeyRange\": \"fz.plain\", \"min\": {\"a\": [1]}, \"max\": {\"b\": [2]}, \"zone\": \"Z\"}", &reply);
   snprintf (name, sizeof name, "%s.zone array bound 2 before 61", v);
   CHECK_STR (name, "Shard key element a: [ 1 ] is not valid for storage", errmsg_of (&reply));
   snprintf (name, sizeof name, "%s.zone array bound code 2", v);
   CHECK (name, code_of (&reply) == 2 && count_config (s, "tags", "{\"ns\": \"fz.plain\"}") == 0);
   bson_destroy (&reply);
   simproc_run_json (
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
   CHECK (name,
          simproc_run_ok (s, "admin",
                          "{\"updateZoneKeyRange\": \"fz.plain\", \"min\": {\"a\": 1}, \"max\": {\"a\": 2}, \"zone\": "
                          "\"Z\"}") &&
             count_config (s, "tags", "{\"ns\": \"fz.plain\", \"tag\": \"Z\"}") == 1);

   /* 10. Hashed bounds: both prefixes are checked (61) before the hashed values (72, checkHashedShardKeyRange). */
   simproc_run_ok (s, "admin", "{\"shardCollection\": \"fz.h\", \"key\": {\"h\": \"hashed\"}}");
   simproc_run_json (
      s, "admin",
      "{\"updateZoneKeyRange\": \"fz.h\", \"min\": {\"h\": \"x\"}, \"max\": {\"q\": \"y\"}, \"zone\": \"Z\"}", &reply);
   snprintf (name, sizeof name, "%s.zone hashed prefix checked first 61", v);
   CHECK (name, code_of (&reply) == 61 && strstr (errmsg_of (&reply), "max: { q: \"y\" } is not a prefix") != NULL);
   bson_destroy (&reply);
   simproc_run_json (
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
   simproc_run_ok (s, "admin", "{\"addShardToZone\": \"shard01\", \"zone\": \"G\"}");
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"fg\", \"primaryShard\": \"shard01\"}");
   simproc_run_ok (s, "admin",
                   "{\"updateZoneKeyRange\": \"fg.g\", \"min\": {\"g\": 10}, \"max\": {\"g\": 20}, \"zone\": \"G\"}");
   simproc_run_ok (s, "admin",
                   "{\"updateZoneKeyRange\": \"fg.g\", \"min\": {\"g\": 30}, \"max\": {\"g\": 40}, \"zone\": \"G\"}");
   simproc_run_ok (s, "admin", "{\"shardCollection\": \"fg.g\", \"key\": {\"g\": 1}}");
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
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"fp\", \"primaryShard\": \"shard03\"}");
   simproc_run_ok (s, "admin", "{\"shardCollection\": \"fp.six\", \"key\": {\"p6\": \"hashed\"}}");
   chunk_shards_in_order (s, "p6", order, sizeof order);
   /* 2 per shard up to 7.0, one per shard from 8.0 (SplitPointsBasedSplitPolicy without numInitialChunks) */
   snprintf (name, sizeof name, "%s.hashed initial chunks contiguous per shard", v);
   CHECK_STR (name, strcmp (v, "8.0") < 0 ? "112233" : "123", order);
   simproc_run_ok (s, "admin",
                   "{\"shardCollection\": \"fp.two\", \"key\": {\"p2\": \"hashed\"}, \"numInitialChunks\": 2}");
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
   simproc_run_ok (s, "admin", "{\"addShardToZone\": \"shard02\", \"zone\": \"H\"}");
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"fs\", \"primaryShard\": \"shard01\"}");
   simproc_run_ok (s, "admin",
                   "{\"updateZoneKeyRange\": \"fs.full\", \"min\": {\"f\": 10}, \"max\": {\"f\": 20}, \"zone\": "
                   "\"H\"}");
   simproc_run_ok (s, "fs", "{\"insert\": \"full\", \"documents\": [{\"f\": 1}, {\"f\": 15}]}");
   simproc_run_ok (s, "fs", "{\"createIndexes\": \"full\", \"indexes\": [{\"key\": {\"f\": 1}, \"name\": \"f_1\"}]}");
   simproc_run_ok (s, "admin", "{\"shardCollection\": \"fs.full\", \"key\": {\"f\": 1}}");
   snprintf (name, sizeof name, "%s.zoned non-empty collection: one chunk on the primary", v);
   CHECK (name, count_config (s, "chunks", "{\"min.f\": {\"$exists\": true}}") == 1 &&
                   count_config (s, "chunks", "{\"min.f\": {\"$exists\": true}, \"shard\": \"shard01\"}") == 1);
   simproc_run_ok (s, "admin",
                   "{\"updateZoneKeyRange\": \"fs.hz\", \"min\": {\"hz\": {\"$numberLong\": \"0\"}}, \"max\": "
                   "{\"hz\": {\"$maxKey\": 1}}, \"zone\": \"H\"}");
   simproc_run_ok (s, "admin", "{\"shardCollection\": \"fs.hz\", \"key\": {\"hz\": \"hashed\"}}");
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
   simproc_run_ok (s, "admin", "{\"addShardToZone\": \"shard02\", \"zone\": \"P\"}");
   simproc_run_ok (s, "admin", "{\"addShardToZone\": \"shard03\", \"zone\": \"P\"}");
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"fr\", \"primaryShard\": \"shard01\"}");
   simproc_run_ok (s, "admin",
                   "{\"updateZoneKeyRange\": \"fr.p\", \"min\": {\"r\": \"A\", \"rh\": {\"$minKey\": 1}}, \"max\": "
                   "{\"r\": \"A\", \"rh\": {\"$maxKey\": 1}}, \"zone\": \"P\"}");
   snprintf (name, sizeof name, "%s.presplitHashedZones ok, four chunks", v);
   CHECK (name, simproc_run_ok (s, "admin",
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
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"fn\"}");
   snprintf (json, sizeof json,
             "{\"shardCollection\": \"fn.big\", \"key\": {\"nh\": \"hashed\"}, \"numInitialChunks\": %d}",
             8192 * nshards + 1);
   simproc_run_json (s, "admin", json, &reply);
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
   CHECK (name, simproc_run_ok (s, "admin", json) && count_config (s, "chunks", "{\"min.nh\": {\"$exists\": true}}") ==
                                                        (strcmp (v, "8.0") < 0 ? 8193 : 3));
}

/* ---- moveChunk / moveRange (items 2, 7, 9, 10) ---- */

/* A collection fm.c keyed { k: 1 }, 50 documents of 231 bytes on shard01 in chunks [MinKey, 0), [0, 25), [25, 50),
 * [50, MaxKey); with --chunk-size-kb 1 a chunk of more than 2 * (1024 / 231) = 8 documents is too big to move. */
static void
setup_move_coll (sim_t *s)
{
   /* 4.4/5.0 split chunks on insert: off here, so that the chunks keep the documents they are given. */
   simproc_run_ok (s, "config",
                   "{\"update\": \"settings\", \"updates\": [{\"q\": {\"_id\": \"autosplit\"}, \"u\": {\"$set\": "
                   "{\"enabled\": false}}, \"upsert\": true}]}");
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"fm\", \"primaryShard\": \"shard01\"}");
   simproc_run_ok (s, "admin", "{\"shardCollection\": \"fm.c\", \"key\": {\"k\": 1}}");
   insert_docs (s, "fm", "c", 0, 50);
   simproc_run_ok (s, "admin", "{\"split\": \"fm.c\", \"middle\": {\"k\": 0}}");
   simproc_run_ok (s, "admin", "{\"split\": \"fm.c\", \"middle\": {\"k\": 25}}");
   simproc_run_ok (s, "admin", "{\"split\": \"fm.c\", \"middle\": {\"k\": 50}}");
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
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"fq\", \"primaryShard\": \"shard01\"}");
   simproc_run_ok (s, "admin", "{\"shardCollection\": \"fq.m\", \"key\": {\"q\": 1}}");
   simproc_run_ok (s, "admin", "{\"split\": \"fq.m\", \"middle\": {\"q\": 1}}");
   simproc_run_ok (s, "admin", "{\"split\": \"fq.m\", \"middle\": {\"q\": 2}}");
   simproc_run_ok (s, "admin", "{\"split\": \"fq.m\", \"middle\": {\"q\": 3}}");
   snprintf (name, sizeof name, "%s.mergeChunks ok, one chunk left of three", v);
   CHECK (name, simproc_run_ok (s, "admin",
                                "{\"mergeChunks\": \"fq.m\", \"bounds\": [{\"q\": 1}, {\"q\": {\"$maxKey\": 1}}]}") &&
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
   simproc_run_json (s, "admin", "{\"moveChunk\": \"fm.c\", \"find\": {\"k\": 1}, \"to\": \"shard02\"}", &reply);
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
   CHECK (name, simproc_run_ok (s, "admin",
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
   CHECK (name,
          simproc_run_ok (s, "admin", "{\"moveRange\": \"fm.c\", \"toShard\": \"shard01\", \"min\": {\"k\": 30}}") &&
             count_config (s, "chunks", "{\"min.k\": {\"$exists\": true}}") == before);
   /* A refused move leaves no split either. */
   simproc_run_ok (s, "admin", "{\"setAllowMigrations\": \"fm.c\", \"allowMigrations\": false}");
   simproc_run_json (s, "admin", "{\"moveRange\": \"fm.c\", \"toShard\": \"shard02\", \"min\": {\"k\": 30}}", &reply);
   snprintf (name, sizeof name, "%s.moveRange refused no split", v);
   CHECK (name, code_of (&reply) == 117 && count_config (s, "chunks", "{\"min.k\": {\"$exists\": true}}") == before);
   bson_destroy (&reply);
   simproc_run_ok (s, "admin", "{\"setAllowMigrations\": \"fm.c\", \"allowMigrations\": true}");
   /* The destination is resolved (config server) before the donor checks the bounds. */
   simproc_run_json (s, "admin", "{\"moveRange\": \"fm.c\", \"toShard\": \"nope\", \"min\": {\"other\": 1}}", &reply);
   snprintf (name, sizeof name, "%s.moveRange unknown shard before bounds", v);
   CHECK (name, code_of (&reply) == 70);
   bson_destroy (&reply);
   int64_t splits = count_config (s, "changelog", "{\"what\": \"split\", \"ns\": \"fm.c\"}");
   /* Only min: about one chunk size moves (1024 / 231 = 4 documents: [30, 34)). */
   snprintf (name, sizeof name, "%s.moveRange min only moves one chunk size", v);
   CHECK (name,
          simproc_run_ok (s, "admin", "{\"moveRange\": \"fm.c\", \"toShard\": \"shard03\", \"min\": {\"k\": 30}}") &&
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
   simproc_run_json (s, "admin", "{\"moveChunk\": \"fm.none\", \"find\": {\"k\": 1}}", &reply);
   snprintf (name, sizeof name, "%s.moveChunk unsharded 118 before to", v);
   CHECK (name, code_of (&reply) == 118);
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"moveChunk\": \"fm.c\", \"find\": {\"k\": 1}}", &reply);
   snprintf (name, sizeof name, "%s.moveChunk missing to 14", v);
   CHECK (name, code_of (&reply) == 14 && !strcmp (errmsg_of (&reply), "'to' must be of type String"));
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"moveChunk\": \"fm.c\", \"find\": {\"k\": 1}, \"to\": \"\"}", &reply);
   snprintf (name, sizeof name, "%s.moveChunk empty to errmsg", v);
   CHECK (name, code_of (&reply) == -1 &&
                   !strcmp (errmsg_of (&reply), "you have to specify where you want to move the chunk"));
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"moveChunk\": \"fm.c\", \"find\": {}, \"to\": \"shard02\"}", &reply);
   snprintf (name, sizeof name, "%s.moveChunk empty find errmsg", v);
   CHECK_STR (name, "need to specify either a find query, or both lower and upper bounds.", errmsg_of (&reply));
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"moveChunk\": \"fm.c\", \"find\": {}, \"to\": \"nope\"}", &reply);
   snprintf (name, sizeof name, "%s.moveChunk unknown shard before find", v);
   CHECK (name, code_of (&reply) == 70 && !strcmp (errmsg_of (&reply), "Could not move chunk in fm.c to nope because "
                                                                       "that shard does not exist"));
   bson_destroy (&reply);
   /* Zone and draining: BalancerPolicy::isShardSuitableReceiver's texts. */
   simproc_run_ok (s, "admin", "{\"addShardToZone\": \"shard01\", \"zone\": \"Z\"}");
   simproc_run_ok (s, "admin",
                   "{\"updateZoneKeyRange\": \"fm.c\", \"min\": {\"k\": 50}, \"max\": {\"k\": {\"$maxKey\": 1}}, "
                   "\"zone\": \"Z\"}");
   simproc_run_json (s, "admin", "{\"moveChunk\": \"fm.c\", \"find\": {\"k\": 60}, \"to\": \"shard02\"}", &reply);
   snprintf (name, sizeof name, "%s.moveChunk zone text", v);
   CHECK_STR (name, "shard02 is not in the correct zone Z", errmsg_of (&reply));
   snprintf (name, sizeof name, "%s.moveChunk zone 20, chunk stays", v);
   CHECK (name, code_of (&reply) == 20 && count_config (s, "chunks", "{\"min.k\": 50, \"shard\": \"shard01\"}") == 1);
   bson_destroy (&reply);
   simproc_run_ok (s, "admin", "{\"removeShard\": \"shard03\"}");
   simproc_run_json (s, "admin", "{\"moveChunk\": \"fm.c\", \"find\": {\"k\": -5}, \"to\": \"shard03\"}", &reply);
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
   simproc_run_json (s, "admin", "{\"moveChunk\": \"fm.c\", \"find\": {\"k\": 1}, \"to\": \"nope\"}", &reply);
   snprintf (name, sizeof name, "%s.moveChunk unknown shard text", v);
   CHECK (name, code_of (&reply) == 70 && !strcmp (errmsg_of (&reply), "Could not move chunk in fm.c to nope because "
                                                                       "that shard does not exist"));
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"moveChunk\": \"fm.c\", \"to\": 5, \"find\": {\"k\": 1}}", &reply);
   snprintf (name, sizeof name, "%s.moveChunk to not a string IDL 14", v);
   CHECK (name, code_of (&reply) == 14 && strstr (errmsg_of (&reply), "BSON field 'moveChunk.to' is the wrong type"));
   bson_destroy (&reply);
   simproc_run_ok (s, "admin", "{\"addShardToZone\": \"shard01\", \"zone\": \"Z\"}");
   simproc_run_ok (s, "admin",
                   "{\"updateZoneKeyRange\": \"fm.c\", \"min\": {\"k\": 50}, \"max\": {\"k\": {\"$maxKey\": 1}}, "
                   "\"zone\": \"Z\"}");
   snprintf (name, sizeof name, "%s.moveChunk outside zone allowed (no checkMoveAllowed on moveRange)", v);
   CHECK (name, simproc_run_ok (s, "admin", "{\"moveChunk\": \"fm.c\", \"find\": {\"k\": 60}, \"to\": \"shard02\"}") &&
                   chunk_shard (s, "k", 50, shard) && !strcmp (shard, "shard02"));
}

/* ---- balancer (items 3, 4, 5, 11, 12) ---- */

static void
run_version (const char *version)
{
   sim_t s;
   const char *args[] = { "--version", version, "--shards", "3", "--chunk-size-kb", "1", NULL };
   char pre[32];
   snprintf (pre, sizeof pre, "%s.", version);
   if (!fid_begin (&s, args, pre))
      return;
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
   fid_end (&s, pre);
}

int
main (void)
{
   mongoc_init ();
   mongoc_log_set_handler (NULL, NULL);
   run_version ("4.4");
   run_version ("8.0");
   mongoc_cleanup ();
   UNIT_EXIT ();
}
