/* passes: plain asan */
/* shardsim against the MongoDB server's own code (issue 15), the sharding DDL commands: reshardCollection's checks
 * before any metadata changes (configsvr_reshard_collection_cmd.cpp, resharding_util.cpp validateZones),
 * shardCollection's argument checks (the create-collection coordinator's _checkCommandArguments,
 * InitialSplitPolicy::calculateOptimizationStrategy, PresplitHashedZonesSplitPolicy::_validate),
 * refineCollectionShardKey to the current key, and commitReshardCollection, checkMetadataConsistency and
 * getShardVersion. Each check asserts on the reply and on the config.* documents that follow; docs/shardsim.md names
 * the server file and function each one follows. */
#include "tests/unit/fidelity.h"

#include <pthread.h>

/* The reply of a command given as JSON (the caller destroys it). */
static void
run (sim_t *s, const char *db, const char *json, bson_t *reply)
{
   simproc_run_json (s, db, json, reply);
}

/* rs.c still sharded on { a: 1 } with its one chunk and no resharding started: nothing changed. */
static bool
reshard_left_alone (sim_t *s)
{
   return count_config (s, "collections", "{\"_id\": \"rs.c\", \"key\": {\"a\": 1}}") == 1 &&
          count_config (s, "chunks", "{\"min.a\": {\"$exists\": true}}") == 1 &&
          count_config (s, "changelog", "{\"what\": \"resharding.coordinator.start\", \"ns\": \"rs.c\"}") == 0;
}

/* ---- item 1: reshardCollection validates before it changes anything ---- */

static void
test_reshard_checks (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"rs\"}");
   simproc_run_ok (s, "admin", "{\"shardCollection\": \"rs.c\", \"key\": {\"a\": 1}}");

   run (s, "admin", "{\"reshardCollection\": \"rs.c\", \"key\": {\"x\": \"hashed\", \"y\": \"hashed\"}}", &reply);
   snprintf (name, sizeof name, "%s.reshard two hashed fields 72, collection left sharded", v);
   CHECK (name, code_of (&reply) == 72 && strstr (errmsg_of (&reply), "Unsupported shard key pattern") &&
                   reshard_left_alone (s));
   bson_destroy (&reply);

   run (s, "admin", "{\"reshardCollection\": \"rs.c\", \"key\": {\"h\": \"hashed\"}, \"unique\": true}", &reply);
   snprintf (name, sizeof name, "%s.reshard unique text", v);
   CHECK_STR (name, "The unique field must be false", errmsg_of (&reply));
   snprintf (name, sizeof name, "%s.reshard unique 2, collection left sharded", v);
   CHECK (name, code_of (&reply) == 2 && reshard_left_alone (s));
   bson_destroy (&reply);

   run (s, "admin", "{\"reshardCollection\": \"rs.c\", \"key\": {\"b\": 1}, \"collation\": {\"locale\": \"fr\"}}",
        &reply);
   snprintf (name, sizeof name, "%s.reshard collation text", v);
   CHECK_STR (name, "The collation for reshardCollection must be {locale: 'simple'}, but found: { locale: \"fr\" }",
              errmsg_of (&reply));
   snprintf (name, sizeof name, "%s.reshard collation 2, collection left sharded", v);
   CHECK (name, code_of (&reply) == 2 && reshard_left_alone (s));
   bson_destroy (&reply);

   /* A zoned collection: the zones field is required, its zones must exist and not overlap. */
   simproc_run_ok (s, "admin", "{\"addShardToZone\": \"shard01\", \"zone\": \"RZ\"}");
   simproc_run_ok (s, "admin",
                   "{\"updateZoneKeyRange\": \"rs.c\", \"min\": {\"a\": 0}, \"max\": {\"a\": 10}, \"zone\": \"RZ\"}");
   run (s, "admin", "{\"reshardCollection\": \"rs.c\", \"key\": {\"b\": 1}}", &reply);
   snprintf (name, sizeof name, "%s.reshard zoned without zones text", v);
   CHECK_STR (name, "Must specify value for zones field", errmsg_of (&reply));
   snprintf (name, sizeof name, "%s.reshard zoned without zones 2, zones and collection kept", v);
   CHECK (name, code_of (&reply) == 2 && reshard_left_alone (s) &&
                   count_config (s, "tags", "{\"ns\": \"rs.c\", \"min\": {\"a\": 0}}") == 1);
   bson_destroy (&reply);

   run (s, "admin",
        "{\"reshardCollection\": \"rs.c\", \"key\": {\"b\": 1}, \"zones\": [{\"min\": {\"b\": 0}, \"max\": {\"b\": "
        "10}, \"zone\": \"RZ\"}, {\"min\": {\"b\": 5}, \"max\": {\"b\": 20}, \"zone\": \"RZ\"}]}",
        &reply);
   snprintf (name, sizeof name, "%s.reshard overlapping zones text", v);
   CHECK_STR (name, "Zone ranges must not overlap", errmsg_of (&reply));
   snprintf (name, sizeof name, "%s.reshard overlapping zones 2, nothing changed", v);
   CHECK (name, code_of (&reply) == 2 && reshard_left_alone (s) && count_config (s, "tags", "{\"ns\": \"rs.c\"}") == 1);
   bson_destroy (&reply);

   run (s, "admin",
        "{\"reshardCollection\": \"rs.c\", \"key\": {\"b\": 1}, \"zones\": [{\"min\": {\"b\": 0}, \"max\": {\"b\": "
        "10}, \"zone\": \"NOPE\"}]}",
        &reply);
   snprintf (name, sizeof name, "%s.reshard unknown zone text", v);
   CHECK_STR (name, "Zone must already exist", errmsg_of (&reply));
   snprintf (name, sizeof name, "%s.reshard unknown zone 2, nothing changed", v);
   CHECK (name, code_of (&reply) == 2 && reshard_left_alone (s) && count_config (s, "tags", "{\"ns\": \"rs.c\"}") == 1);
   bson_destroy (&reply);

   /* ... and with valid zones the resharding runs. */
   snprintf (name, sizeof name, "%s.reshard with zones runs", v);
   CHECK (name, simproc_run_ok (s, "admin",
                                "{\"reshardCollection\": \"rs.c\", \"key\": {\"b\": 1}, \"zones\": [{\"min\": {\"b\": "
                                "0}, \"max\": {\"b\": 10}, \"zone\": \"RZ\"}]}") &&
                   count_config (s, "collections", "{\"_id\": \"rs.c\", \"key\": {\"b\": 1}}") == 1);
}

/* Timed resharding (--reshard-ms): the checks come before the wait, so a refused command answers at once. */
static void
test_reshard_checks_timed (void)
{
   sim_t s;
   bson_t reply;
   const char *args[] = { "--version", "8.0", "--shards", "3", "--reshard-ms", "3000", NULL };
   if (!fid_start (&s, args)) {
      UNIT_FAIL ("8.0.timed start", "%s", "shardsim did not start");
      sim_stop (&s);
      return;
   }
   simproc_run_ok (&s, "admin", "{\"enableSharding\": \"rs\"}");
   simproc_run_ok (&s, "admin", "{\"shardCollection\": \"rs.c\", \"key\": {\"a\": 1}}");
   int64_t t0 = bson_get_monotonic_time ();
   run (&s, "admin", "{\"reshardCollection\": \"rs.c\", \"key\": {\"b\": 1}, \"unique\": true}", &reply);
   int64_t took_ms = (bson_get_monotonic_time () - t0) / 1000;
   CHECK ("8.0.timed reshard unique 2 at once, nothing changed",
          code_of (&reply) == 2 && took_ms < 1500 && reshard_left_alone (&s) &&
             count_config (&s, "reshardingOperations", "{}") == 0);
   bson_destroy (&reply);
   int status = sim_stop (&s);
   CHECK ("8.0.timed clean exit", WIFEXITED (status) && WEXITSTATUS (status) == 0);
}

/* ---- item 2: shardCollection's argument checks ---- */

/* No config.collections document for ns. */
static bool
not_sharded (sim_t *s, const char *ns)
{
   char f[160];
   snprintf (f, sizeof f, "{\"_id\": \"%s\"}", ns);
   return count_config (s, "collections", f) == 0;
}

static void
test_shard_collection_checks (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   bool v80 = !strcmp (v, "8.0");
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"sc\"}");

   /* numInitialChunks with a ranged key: 72 up to 7.0; 8.0 takes it in its request only and ignores it. */
   run (s, "admin", "{\"shardCollection\": \"sc.r\", \"key\": {\"k\": 1}, \"numInitialChunks\": 5}", &reply);
   if (v80) {
      snprintf (name, sizeof name, "%s.shardCollection ranged numInitialChunks ignored, one chunk", v);
      CHECK (name, code_of (&reply) == -1 && count_config (s, "collections", "{\"_id\": \"sc.r\"}") == 1 &&
                      count_config (s, "chunks", "{\"min.k\": {\"$exists\": true}}") == 1);
   } else {
      snprintf (name, sizeof name, "%s.shardCollection ranged numInitialChunks text", v);
      CHECK_STR (name,
                 "numInitialChunks is only supported when the collection is empty and has a hashed field in the "
                 "shard key pattern",
                 errmsg_of (&reply));
      snprintf (name, sizeof name, "%s.shardCollection ranged numInitialChunks 72, not sharded", v);
      CHECK (name, code_of (&reply) == 72 && not_sharded (s, "sc.r"));
   }
   bson_destroy (&reply);

   /* A range field before the hashed one: numInitialChunks only with presplitHashedZones (up to 7.0). */
   run (s, "admin",
        "{\"shardCollection\": \"sc.ch\", \"key\": {\"ca\": 1, \"cb\": \"hashed\"}, \"numInitialChunks\": 6}", &reply);
   if (v80) {
      snprintf (name, sizeof name, "%s.shardCollection range-prefix hashed numInitialChunks ignored", v);
      CHECK (name, code_of (&reply) == -1 && count_config (s, "collections", "{\"_id\": \"sc.ch\"}") == 1);
   } else {
      snprintf (name, sizeof name, "%s.shardCollection range-prefix hashed numInitialChunks text", v);
      CHECK_STR (name,
                 "When the prefix of the hashed shard key is a range field, 'numInitialChunks' can only be used when "
                 "the 'presplitHashedZones' is true",
                 errmsg_of (&reply));
      snprintf (name, sizeof name, "%s.shardCollection range-prefix hashed numInitialChunks 72, not sharded", v);
      CHECK (name, code_of (&reply) == 72 && not_sharded (s, "sc.ch"));
   }
   bson_destroy (&reply);

   run (s, "admin", "{\"shardCollection\": \"sc.co\", \"key\": {\"k\": 1}, \"collation\": {\"locale\": \"fr\"}}",
        &reply);
   snprintf (name, sizeof name, "%s.shardCollection collation text", v);
   CHECK_STR (name, "The collation for shardCollection must be {locale: 'simple'}, but found: { locale: \"fr\" }",
              errmsg_of (&reply));
   snprintf (name, sizeof name, "%s.shardCollection collation 2, not sharded", v);
   CHECK (name, code_of (&reply) == 2 && not_sharded (s, "sc.co"));
   bson_destroy (&reply);
   snprintf (name, sizeof name, "%s.shardCollection simple collation accepted", v);
   CHECK (name, simproc_run_ok (s, "admin",
                                "{\"shardCollection\": \"sc.cs\", \"key\": {\"k\": 1}, \"collation\": "
                                "{\"locale\": \"simple\"}}") &&
                   count_config (s, "collections", "{\"_id\": \"sc.cs\"}") == 1);

   run (s, "admin", "{\"shardCollection\": \"sc.system.foo\", \"key\": {\"k\": 1}}", &reply);
   snprintf (name, sizeof name, "%s.shardCollection system namespace 20 IllegalOperation, not sharded", v);
   CHECK (name, code_of (&reply) == 20 && !strcmp (errmsg_of (&reply), "can't shard system namespaces") &&
                   not_sharded (s, "sc.system.foo"));
   bson_destroy (&reply);

   run (s, "admin", "{\"shardCollection\": \"sc.pz\", \"key\": {\"p\": \"hashed\"}, \"presplitHashedZones\": true}",
        &reply);
   snprintf (name, sizeof name, "%s.shardCollection presplitHashedZones without zones text", v);
   CHECK_STR (name,
              "'presplitHashedZones' is only supported when the collection is empty, zones are set up and shard key "
              "pattern has a hashed field",
              errmsg_of (&reply));
   snprintf (name, sizeof name, "%s.shardCollection presplitHashedZones without zones 31387, not sharded", v);
   CHECK (name, code_of (&reply) == 31387 && not_sharded (s, "sc.pz") &&
                   count_config (s, "chunks", "{\"min.p\": {\"$exists\": true}}") == 0);
   bson_destroy (&reply);
}

/* ---- item 3: refineCollectionShardKey to the current key ---- */

/* config.collections[ns].lastmodEpoch as hex into out (size 25); false when there is none. */
static bool
coll_epoch (sim_t *s, const char *ns, char *out)
{
   const bson_t *doc;
   bson_iter_t it;
   bool found = false;
   bson_t *filter = BCON_NEW ("_id", BCON_UTF8 (ns));
   mongoc_collection_t *c = mongoc_client_get_collection (s->client, "config", "collections");
   mongoc_cursor_t *cur = mongoc_collection_find_with_opts (c, filter, NULL, NULL);
   if (mongoc_cursor_next (cur, &doc) && bson_iter_init_find (&it, doc, "lastmodEpoch") && BSON_ITER_HOLDS_OID (&it)) {
      bson_oid_to_string (bson_iter_oid (&it), out);
      found = true;
   }
   mongoc_cursor_destroy (cur);
   mongoc_collection_destroy (c);
   bson_destroy (filter);
   return found;
}

static void
test_refine_same_key (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160], before[25] = "", after[25] = "";
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"rf\"}");
   simproc_run_ok (s, "admin", "{\"shardCollection\": \"rf.c\", \"key\": {\"ra\": 1}}");
   coll_epoch (s, "rf.c", before);
   snprintf (name, sizeof name, "%s.refine to the current key ok, epoch and key unchanged, no changelog", v);
   CHECK (name, simproc_run_ok (s, "admin", "{\"refineCollectionShardKey\": \"rf.c\", \"key\": {\"ra\": 1}}") &&
                   coll_epoch (s, "rf.c", after) && !strcmp (before, after) &&
                   count_config (s, "collections", "{\"_id\": \"rf.c\", \"key\": {\"ra\": 1}}") == 1 &&
                   count_config (s, "changelog", "{\"what\": \"refineCollectionShardKey.start\"}") == 0);
   run (s, "admin", "{\"refineCollectionShardKey\": \"rf.c\", \"key\": {\"rb\": 1}}", &reply);
   snprintf (name, sizeof name, "%s.refine not extending text", v);
   CHECK_STR (name, "refineCollectionShardKey shard key { rb: 1 } does not extend the current shard key { ra: 1 }",
              errmsg_of (&reply));
   snprintf (name, sizeof name, "%s.refine not extending 72, key unchanged", v);
   CHECK (name,
          code_of (&reply) == 72 && count_config (s, "collections", "{\"_id\": \"rf.c\", \"key\": {\"ra\": 1}}") == 1);
   bson_destroy (&reply);
}

/* ---- item 4: commitReshardCollection ---- */

/* The coordinator state of cm.c's resharding in config.reshardingOperations into out (size 32), "" when none. */
static void
reshard_state (sim_t *s, char *out)
{
   bson_t doc;
   out[0] = '\0';
   mongoc_collection_t *c = mongoc_client_get_collection (s->client, "config", "reshardingOperations");
   bson_t *filter = BCON_NEW ("ns", BCON_UTF8 ("cm.c"));
   mongoc_cursor_t *cur = mongoc_collection_find_with_opts (c, filter, NULL, NULL);
   const bson_t *d;
   if (mongoc_cursor_next (cur, &d)) {
      bson_copy_to (d, &doc);
      if (str_at (&doc, "state")) {
         bson_strncpy (out, str_at (&doc, "state"), 32);
      }
      bson_destroy (&doc);
   }
   mongoc_cursor_destroy (cur);
   bson_destroy (filter);
   mongoc_collection_destroy (c);
}

/* With --reshard-ms 6000 the data is copied at 70 % (4.2 s) and the operation ends at 6 s; committed while it
 * applies, it blocks writes at once and ends at 4.2 / 0.85 = 4.9 s. */
static void
test_commit_reshard (const char *v)
{
   sim_t s;
   bson_t reply;
   char name[160], state[32] = "";
   const char *args[] = { "--version", v, "--shards", "3", "--reshard-ms", "6000", NULL };
   char pre[32];
   snprintf (pre, sizeof pre, "%s.commit ", v);
   if (!fid_begin (&s, args, pre))
      return;
   simproc_run_ok (&s, "admin", "{\"enableSharding\": \"cm\"}");
   simproc_run_ok (&s, "admin", "{\"shardCollection\": \"cm.c\", \"key\": {\"ca\": 1}}");
   run (&s, "admin", "{\"commitReshardCollection\": \"cm.c\"}", &reply);
   snprintf (name, sizeof name, "%s.commitReshardCollection nothing running 339 text", v);
   CHECK (name, code_of (&reply) == 339 &&
                   !strcmp (errmsg_of (&reply), "Could not find resharding metadata for cm.c") &&
                   count_config (&s, "collections", "{\"_id\": \"cm.c\", \"key\": {\"ca\": 1}}") == 1);
   bson_destroy (&reply);
   run (&s, "admin", "{\"commitReshardCollection\": \"cm.none\"}", &reply);
   snprintf (name, sizeof name, "%s.commitReshardCollection unknown collection 26", v);
   CHECK (name, code_of (&reply) == 26 && !strcmp (errmsg_of (&reply), "collection cm.none not found"));
   bson_destroy (&reply);

   bson_t *reshard = BCON_NEW ("reshardCollection", BCON_UTF8 ("cm.c"), "key", "{", "cb", BCON_INT32 (1), "}");
   fid_bg_t r = { .port = s.port, .db = "admin", .cmd = reshard, .t0 = bson_get_monotonic_time () };
   pthread_t th;
   pthread_create (&th, NULL, fid_bg_run, &r);
   for (int i = 0; i < 200 && strcmp (state, "applying") != 0; i++) {
      usleep (50 * 1000);
      reshard_state (&s, state);
   }
   snprintf (name, sizeof name, "%s.commitReshardCollection while applying ok", v);
   CHECK (name, !strcmp (state, "applying") && simproc_run_ok (&s, "admin", "{\"commitReshardCollection\": \"cm.c\"}"));
   pthread_join (th, NULL);
   bson_destroy (reshard);
   snprintf (name, sizeof name, "%s.commitReshardCollection ends the resharding early (%lld ms < 5700), new key", v,
             (long long) r.done_ms);
   CHECK (name, r.ok && r.done_ms < 5700 && r.done_ms > 4000 &&
                   count_config (&s, "collections", "{\"_id\": \"cm.c\", \"key\": {\"cb\": 1}}") == 1 &&
                   count_config (&s, "reshardingOperations", "{}") == 0);
   fid_end (&s, pre);
}

/* ---- item 4: getShardVersion and checkMetadataConsistency ---- */

/* The greatest config.chunks lastmod of the chunks whose min has field (Timestamp t, i); false when none. */
static bool
max_lastmod (sim_t *s, const char *field, uint32_t *t, uint32_t *i)
{
   char f[128];
   const bson_t *doc;
   bson_iter_t it;
   bool found = false;
   snprintf (f, sizeof f, "{\"min.%s\": {\"$exists\": true}}", field);
   bson_t *filter = bson_new_from_json ((const uint8_t *) f, -1, NULL);
   bson_t *opts = BCON_NEW ("sort", "{", "lastmod", BCON_INT32 (-1), "}", "limit", BCON_INT64 (1));
   mongoc_collection_t *c = mongoc_client_get_collection (s->client, "config", "chunks");
   mongoc_cursor_t *cur = mongoc_collection_find_with_opts (c, filter, opts, NULL);
   if (mongoc_cursor_next (cur, &doc) && bson_iter_init_find (&it, doc, "lastmod") && BSON_ITER_HOLDS_TIMESTAMP (&it)) {
      bson_iter_timestamp (&it, t, i);
      found = true;
   }
   mongoc_cursor_destroy (cur);
   mongoc_collection_destroy (c);
   bson_destroy (opts);
   bson_destroy (filter);
   return found;
}

static void
test_get_shard_version (sim_t *s, const char *v)
{
   bson_t reply;
   bson_iter_t it;
   char name[160], epoch[25] = "", got_epoch[25] = "";
   uint32_t t = 0, i = 0, rt = 0, ri = 0;
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"gv\", \"primaryShard\": \"shard01\"}");
   simproc_run_ok (s, "admin", "{\"shardCollection\": \"gv.c\", \"key\": {\"gk\": 1}}");
   simproc_run_ok (s, "admin", "{\"split\": \"gv.c\", \"middle\": {\"gk\": 0}}");
   coll_epoch (s, "gv.c", epoch);
   max_lastmod (s, "gk", &t, &i);

   run (s, "admin", "{\"getShardVersion\": \"gv.c\"}", &reply);
   if (bson_iter_init_find (&it, &reply, "version") && BSON_ITER_HOLDS_TIMESTAMP (&it)) {
      bson_iter_timestamp (&it, &rt, &ri);
   }
   if (bson_iter_init_find (&it, &reply, "versionEpoch") && BSON_ITER_HOLDS_OID (&it)) {
      bson_oid_to_string (bson_iter_oid (&it), got_epoch);
   }
   snprintf (name, sizeof name, "%s.getShardVersion collection: version = greatest chunk lastmod, epoch", v);
   CHECK (name, code_of (&reply) == -1 && t >= 1 && rt == t && ri == i && epoch[0] && !strcmp (epoch, got_epoch) &&
                   !has_at (&reply, "chunks"));
   snprintf (name, sizeof name, "%s.getShardVersion versionTimestamp %s", v,
             strcmp (v, "5.0") >= 0 ? "present (5.0+)" : "absent (4.4)");
   CHECK (name, has_at (&reply, "versionTimestamp") == (strcmp (v, "5.0") >= 0));
   bson_destroy (&reply);

   run (s, "admin", "{\"getShardVersion\": \"gv.c\", \"fullMetadata\": true}", &reply);
   bson_t c0;
   bool c0ok = false;
   if (bson_iter_init (&it, &reply) && bson_iter_find_descendant (&it, "chunks.1.0", &it) &&
       BSON_ITER_HOLDS_DOCUMENT (&it)) {
      uint32_t l;
      const uint8_t *d;
      bson_iter_document (&it, &l, &d);
      c0ok = bson_init_static (&c0, d, l) && bson_iter_init_find (&it, &c0, "gk") && bson_iter_as_int64 (&it) == 0;
   }
   snprintf (name, sizeof name, "%s.getShardVersion fullMetadata chunks [[min, max], ...] in min order", v);
   CHECK (name, code_of (&reply) == -1 && has_at (&reply, "chunks.0.1") && !has_at (&reply, "chunks.2") && c0ok);
   bson_destroy (&reply);

   run (s, "admin", "{\"getShardVersion\": \"gv.plain\"}", &reply);
   snprintf (name, sizeof name, "%s.getShardVersion unsharded 118 NamespaceNotSharded", v);
   CHECK (name, code_of (&reply) == 118 && !strcmp (errmsg_of (&reply), "Collection gv.plain is not sharded."));
   bson_destroy (&reply);

   run (s, "admin", "{\"getShardVersion\": \"gv\"}", &reply);
   snprintf (name, sizeof name, "%s.getShardVersion database: primaryShard and version", v);
   CHECK (name, code_of (&reply) == -1 && str_at (&reply, "primaryShard") &&
                   !strcmp (str_at (&reply, "primaryShard"), "shard01") && has_at (&reply, "version.uuid") &&
                   has_at (&reply, "version.lastMod"));
   bson_destroy (&reply);

   run (s, "admin", "{\"getShardVersion\": \"nodb\"}", &reply);
   snprintf (name, sizeof name, "%s.getShardVersion unknown database 26, nothing created", v);
   CHECK (name, code_of (&reply) == 26 && count_config (s, "databases", "{\"_id\": \"nodb\"}") == 0);
   bson_destroy (&reply);
}

/* The reply's cursor is exhausted (id 0), named ns, with an empty first batch. */
static bool
empty_cursor (const bson_t *reply, const char *ns)
{
   bson_iter_t it;
   bool id0 =
      bson_iter_init (&it, reply) && bson_iter_find_descendant (&it, "cursor.id", &it) && bson_iter_as_int64 (&it) == 0;
   return id0 && str_at (reply, "cursor.ns") && !strcmp (str_at (reply, "cursor.ns"), ns) &&
          has_at (reply, "cursor.firstBatch") && !has_at (reply, "cursor.firstBatch.0");
}

static void
test_check_metadata (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   run (s, "admin", "{\"checkMetadataConsistency\": 1}", &reply);
   if (strcmp (v, "7.0") < 0) {
      snprintf (name, sizeof name, "%s.checkMetadataConsistency before 7.0: 59 CommandNotFound", v);
      CHECK (name, code_of (&reply) == 59);
      bson_destroy (&reply);
      return;
   }
   snprintf (name, sizeof name, "%s.checkMetadataConsistency cluster level: empty cursor on admin.$cmd.aggregate", v);
   CHECK (name, code_of (&reply) == -1 && empty_cursor (&reply, "admin.$cmd.aggregate"));
   bson_destroy (&reply);
   run (s, "gv", "{\"checkMetadataConsistency\": 1}", &reply);
   snprintf (name, sizeof name, "%s.checkMetadataConsistency database level: empty cursor on gv.$cmd.aggregate", v);
   CHECK (name, code_of (&reply) == -1 && empty_cursor (&reply, "gv.$cmd.aggregate"));
   bson_destroy (&reply);
   run (s, "gv", "{\"checkMetadataConsistency\": \"c\"}", &reply);
   snprintf (name, sizeof name, "%s.checkMetadataConsistency collection level: empty cursor on gv.c", v);
   CHECK (name, code_of (&reply) == -1 && empty_cursor (&reply, "gv.c") &&
                   count_config (s, "collections", "{\"_id\": \"gv.c\"}") == 1);
   bson_destroy (&reply);
   run (s, "admin", "{\"checkMetadataConsistency\": \"c\"}", &reply);
   snprintf (name, sizeof name, "%s.checkMetadataConsistency admin with a collection 73 InvalidNamespace", v);
   CHECK (name, code_of (&reply) == 73 && strstr (errmsg_of (&reply), "Found unexpected collection name: c"));
   bson_destroy (&reply);
}

static void
run_version (const char *version)
{
   sim_t s;
   const char *args[] = { "--version", version, "--shards", "3", NULL };
   char pre[32];
   snprintf (pre, sizeof pre, "%s.", version);
   if (!fid_begin (&s, args, pre))
      return;
   test_shard_collection_checks (&s, version);
   test_refine_same_key (&s, version);
   test_get_shard_version (&s, version);
   test_check_metadata (&s, version);
   if (strcmp (version, "4.4") != 0) {
      test_reshard_checks (&s, version);
   }
   fid_end (&s, pre);
}

int
main (void)
{
   mongoc_init ();
   mongoc_log_set_handler (NULL, NULL);
   const char *versions[] = { "4.4", "5.0", "6.0", "7.0", "8.0" };
   for (size_t i = 0; i < sizeof versions / sizeof *versions; i++) {
      run_version (versions[i]);
   }
   test_reshard_checks_timed ();
   test_commit_reshard ("5.0");
   test_commit_reshard ("8.0");
   mongoc_cleanup ();
   UNIT_EXIT ();
}
