/* passes: plain asan */
/* shardsim against the MongoDB server's own code, the DDL commands of the review's last pass: moveCollection and
 * unshardCollection (reshard_collection_coordinator.cpp ReshardCollectionCoordinator::_runImpl,
 * sharding_util::selectLeastLoadedNonDrainingShard), the three abort commands
 * (configsvr_abort_reshard_collection_command.cpp), collMod's index form (db/catalog/coll_mod.cpp) and
 * renameCollection (cluster_rename_collection_cmd.cpp, rename_collection_coordinator.cpp, sharding_ddl_util.cpp).
 * Each check asserts on the reply and on the config.* documents that follow; docs/shardsim.md names the server file
 * and function each one follows. Checks are named <version>.<what>. */
#include "tests/unit/fidelity.h"

#include <pthread.h>

/* ---- moveCollection and unshardCollection (8.0) ---- */

static void
test_move_collection (sim_t *s)
{
   bson_t reply;
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"mc\", \"primaryShard\": \"shard01\"}");
   simproc_run_ok (s, "admin", "{\"shardCollection\": \"mc.s\", \"key\": {\"a\": 1}}");
   simproc_run_json (s, "admin", "{\"moveCollection\": \"mc.s\", \"toShard\": \"shard02\"}", &reply);
   CHECK ("8.0.moveCollection sharded collection 26 NamespaceNotFound text, still sharded on { a: 1 }",
          code_of (&reply) == 26 &&
             !strcmp (errmsg_of (&reply), "MoveCollection can only be called on an unsharded collection.") &&
             count_config (s, "collections",
                           "{\"_id\": \"mc.s\", \"key\": {\"a\": 1}, \"unsplittable\": "
                           "{\"$exists\": false}}") == 1);
   bson_destroy (&reply);
}

/* The number of config.chunks documents on shard (every collection's). */
static int64_t
chunks_on (sim_t *s, const char *shard)
{
   char f[128];
   snprintf (f, sizeof f, "{\"shard\": \"%s\"}", shard);
   return count_config (s, "chunks", f);
}

static void
test_unshard_collection (sim_t *s)
{
   bson_t reply;
   /* shard01 and shard02 hold data, shard03 none: the least loaded non-draining shard is shard03 */
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"m1\", \"primaryShard\": \"shard01\"}");
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"m2\", \"primaryShard\": \"shard02\"}");
   insert_docs (s, "m1", "big", 0, 40);
   insert_docs (s, "m2", "big", 0, 20);
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"mu\", \"primaryShard\": \"shard01\"}");
   simproc_run_ok (s, "admin", "{\"shardCollection\": \"mu.u\", \"key\": {\"a\": 1}}");
   insert_docs (s, "mu", "u", 0, 10);
   int64_t before = chunks_on (s, "shard03");
   CHECK ("8.0.unshardCollection without toShard: the least loaded non-draining shard (shard03)",
          simproc_run_ok (s, "admin", "{\"unshardCollection\": \"mu.u\"}") && chunks_on (s, "shard03") == before + 1 &&
             count_config (s, "collections", "{\"_id\": \"mu.u\", \"unsplittable\": true}") == 1 &&
             simproc_count (s, "mu", "u", "{}") == 10);
   CHECK ("8.0.unshardCollection again: ok, a no-op (same shard)",
          simproc_run_ok (s, "admin", "{\"unshardCollection\": \"mu.u\"}") &&
             simproc_run_ok (s, "admin", "{\"unshardCollection\": \"mu.u\", \"toShard\": \"shard03\"}") &&
             chunks_on (s, "shard03") == before + 1);
   simproc_run_json (s, "admin", "{\"unshardCollection\": \"mu.u\", \"toShard\": \"shard01\"}", &reply);
   CHECK ("8.0.unshardCollection unsharded to another shard 118 text, not moved",
          code_of (&reply) == 118 &&
             !strcmp (errmsg_of (&reply), "Collection is already unsharded. Call moveCollection to move this "
                                          "collection to a different shard.") &&
             chunks_on (s, "shard03") == before + 1);
   bson_destroy (&reply);
}

/* ---- abortReshardCollection / abortMoveCollection / abortUnshardCollection ---- */

/* Waits (up to 10 s) until ab.c's resharding is in coordinator state want ("" for any). */
static bool
wait_state (sim_t *s, const char *want)
{
   char f[128];
   if (want[0]) {
      snprintf (f, sizeof f, "{\"ns\": \"ab.c\", \"state\": \"%s\"}", want);
   } else {
      snprintf (f, sizeof f, "{\"ns\": \"ab.c\"}");
   }
   for (int i = 0; i < 1000; i++) {
      if (count_config (s, "reshardingOperations", f) > 0) {
         return true;
      }
      usleep (10 * 1000);
   }
   return false;
}

static void
test_aborts (void)
{
   sim_t s;
   bson_t reply;
   pthread_t th;
   const char *args[] = { "--version", "8.0", "--shards", "3", "--reshard-ms", "4000", NULL };
   if (!fid_begin (&s, args, "8.0.abort "))
      return;
   simproc_run_ok (&s, "admin", "{\"enableSharding\": \"ab\"}");
   simproc_run_ok (&s, "admin", "{\"shardCollection\": \"ab.c\", \"key\": {\"a\": 1}}");
   simproc_run_json (&s, "admin", "{\"abortReshardCollection\": \"ab.c\"}", &reply);
   CHECK (
      "8.0.abortReshardCollection nothing running 339 text",
      code_of (&reply) == 339 &&
         !strcmp (errmsg_of (&reply), "Could not find resharding-related metadata that matches the given namespace"));
   bson_destroy (&reply);
   simproc_run_json (&s, "admin", "{\"abortReshardCollection\": \"ab.none\"}", &reply);
   CHECK ("8.0.abortReshardCollection unknown collection 26", code_of (&reply) == 26);
   bson_destroy (&reply);

   bson_t *reshard = BCON_NEW ("reshardCollection", BCON_UTF8 ("ab.c"), "key", "{", "b", BCON_INT32 (1), "}");
   fid_bg_t r = { .port = s.port, .db = "admin", .cmd = reshard, .t0 = bson_get_monotonic_time () };
   pthread_create (&th, NULL, fid_bg_run, &r);
   bool running = wait_state (&s, "");
   simproc_run_json (&s, "admin", "{\"abortMoveCollection\": \"ab.c\"}", &reply);
   CHECK ("8.0.abortMoveCollection of a reshardCollection 20 provenance text, still running",
          running && code_of (&reply) == 20 &&
             !strcmp (errmsg_of (&reply), "Could not find in-progress resharding operation with matching provenance") &&
             count_config (&s, "reshardingOperations", "{\"ns\": \"ab.c\"}") == 1);
   bson_destroy (&reply);
   simproc_run_json (&s, "admin", "{\"abortUnshardCollection\": \"ab.c\"}", &reply);
   CHECK ("8.0.abortUnshardCollection of a reshardCollection 20", code_of (&reply) == 20);
   bson_destroy (&reply);
   bool aborted = simproc_run_ok (&s, "admin", "{\"abortReshardCollection\": \"ab.c\"}");
   bool ended = count_config (&s, "reshardingOperations", "{}") == 0;
   pthread_join (th, NULL);
   CHECK ("8.0.abortReshardCollection replies once the operation has ended: no coordinator document left, the "
          "resharding failed 341, key unchanged",
          aborted && ended && !r.ok && r.code == 341 &&
             count_config (&s, "collections", "{\"_id\": \"ab.c\", \"key\": {\"a\": 1}}") == 1);

   r = (fid_bg_t){ .port = s.port, .db = "admin", .cmd = reshard, .t0 = bson_get_monotonic_time () };
   pthread_create (&th, NULL, fid_bg_run, &r);
   bool committing = wait_state (&s, "committing");
   simproc_run_json (&s, "admin", "{\"abortReshardCollection\": \"ab.c\"}", &reply);
   pthread_join (th, NULL);
   bson_destroy (reshard);
   CHECK ("8.0.abortReshardCollection after the decision 340 text, the resharding commits",
          committing && code_of (&reply) == 340 &&
             !strcmp (errmsg_of (&reply), "Can't abort resharding operation after the decision has been persisted") &&
             r.ok && count_config (&s, "collections", "{\"_id\": \"ab.c\", \"key\": {\"b\": 1}}") == 1);
   bson_destroy (&reply);
   fid_end (&s, "8.0.abort ");
}

/* ---- collMod's index form ---- */

static void
test_coll_mod (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   insert_docs (s, "cm", "c", 0, 2);
   simproc_run_ok (s, "cm", "{\"createIndexes\": \"c\", \"indexes\": [{\"key\": {\"k\": 1}, \"name\": \"k_1\"}]}");
   simproc_run_ok (s, "cm", "{\"collMod\": \"c\", \"index\": {\"name\": \"k_1\", \"hidden\": true}}");
   simproc_run_json (s, "cm", "{\"collMod\": \"c\", \"index\": {\"name\": \"k_1\", \"hidden\": true}}", &reply);
   snprintf (name, sizeof name, "%s.collMod hiding a hidden index: ok without hidden_old/hidden_new", v);
   CHECK (name, code_of (&reply) == -1 && !has_at (&reply, "hidden_old") && !has_at (&reply, "hidden_new"));
   bson_destroy (&reply);
   simproc_run_json (s, "cm", "{\"collMod\": \"c\", \"index\": {\"name\": \"_id_\", \"hidden\": true}}", &reply);
   snprintf (name, sizeof name, "%s.collMod hiding _id_ 2 BadValue \"can't hide _id index\"", v);
   CHECK (name, code_of (&reply) == 2 && !strcmp (errmsg_of (&reply), "can't hide _id index"));
   bson_destroy (&reply);
   simproc_run_json (s, "cm", "{\"collMod\": \"c\", \"index\": {\"name\": \"_id_\", \"hidden\": false}}", &reply);
   if (!strcmp (v, "4.4")) {
      snprintf (name, sizeof name, "%s.collMod unhiding _id_: a no-op first, ok", v);
      CHECK (name, code_of (&reply) == -1 && !has_at (&reply, "hidden_new"));
   } else {
      snprintf (name, sizeof name, "%s.collMod unhiding _id_ 2 (the _id check before the no-op)", v);
      CHECK (name, code_of (&reply) == 2);
   }
   bson_destroy (&reply);
}

/* ---- renameCollection ---- */

static void
test_rename_databases (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   bool v44 = !strcmp (v, "4.4");
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"ra\", \"primaryShard\": \"shard01\"}");
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"rb\", \"primaryShard\": \"shard01\"}");
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"rc\", \"primaryShard\": \"shard02\"}");
   insert_docs (s, "ra", "x", 0, 3);
   snprintf (name, sizeof name, "%s.renameCollection across databases on one primary shard: renamed", v);
   CHECK (name, simproc_run_ok (s, "admin", "{\"renameCollection\": \"ra.x\", \"to\": \"rb.y\"}") &&
                   simproc_count (s, "rb", "y", "{}") == 3 && simproc_count (s, "ra", "x", "{}") == 0);
   simproc_run_json (s, "admin", "{\"renameCollection\": \"rb.y\", \"to\": \"rc.z\"}", &reply);
   snprintf (name, sizeof name, "%s.renameCollection across primary shards %d \"must be on same shard\", kept", v,
             v44 ? 13137 : 125);
   CHECK (name, code_of (&reply) == (v44 ? 13137 : 125) &&
                   !strcmp (errmsg_of (&reply), "Source and destination collections must be on same shard") &&
                   simproc_count (s, "rb", "y", "{}") == 3);
   bson_destroy (&reply);
   if (!v44) {
      simproc_run_json (s, "admin", "{\"renameCollection\": \"rb.y\", \"to\": \"rb.y\"}", &reply);
      snprintf (name, sizeof name, "%s.renameCollection to itself 20 text, kept", v);
      CHECK (name, code_of (&reply) == 20 && !strcmp (errmsg_of (&reply), "Can't rename a collection to itself") &&
                      simproc_count (s, "rb", "y", "{}") == 3);
      bson_destroy (&reply);
   }
}

static void
test_rename_sharded (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   simproc_run_ok (s, "admin", "{\"shardCollection\": \"ra.s\", \"key\": {\"k\": 1}}");
   insert_docs (s, "ra", "s", 0, 4);
   simproc_run_ok (s, "admin", "{\"addShardToZone\": \"shard01\", \"zone\": \"RZ\"}");
   simproc_run_ok (s, "admin",
                   "{\"updateZoneKeyRange\": \"ra.s\", \"min\": {\"k\": 0}, \"max\": {\"k\": 2}, \"zone\": \"RZ\"}");
   if (!strcmp (v, "4.4")) {
      simproc_run_json (s, "admin", "{\"renameCollection\": \"ra.s\", \"to\": \"ra.t\"}", &reply);
      snprintf (name, sizeof name, "%s.renameCollection sharded source 20 text (legacy shard path), kept", v);
      CHECK (name, code_of (&reply) == 20 &&
                      !strcmp (errmsg_of (&reply), "source namespace 'ra.s' must not be sharded") &&
                      count_config (s, "collections", "{\"_id\": \"ra.s\"}") == 1);
      bson_destroy (&reply);
      return;
   }
   snprintf (name, sizeof name, "%s.renameCollection sharded source: renamed with its key, chunks and zones", v);
   CHECK (name, simproc_run_ok (s, "admin", "{\"renameCollection\": \"ra.s\", \"to\": \"ra.t\"}") &&
                   count_config (s, "collections", "{\"_id\": \"ra.t\", \"key\": {\"k\": 1}}") == 1 &&
                   count_config (s, "collections", "{\"_id\": \"ra.s\"}") == 0 &&
                   count_config (s, "tags", "{\"ns\": \"ra.t\", \"tag\": \"RZ\"}") == 1 &&
                   count_config (s, "tags", "{\"ns\": \"ra.s\"}") == 0 && simproc_count (s, "ra", "t", "{}") == 4 &&
                   simproc_count (s, "ra", "s", "{}") == 0 &&
                   simproc_run_ok (s, "admin", "{\"split\": \"ra.t\", \"middle\": {\"k\": 3}}"));
   simproc_run_ok (s, "ra", "{\"insert\": \"u\", \"documents\": [{\"_id\": 1}]}");
   simproc_run_json (s, "admin", "{\"renameCollection\": \"ra.u\", \"to\": \"ra.t\", \"dropTarget\": true}", &reply);
   snprintf (name, sizeof name, "%s.renameCollection onto a target with zones 125, kept", v);
   CHECK (name, code_of (&reply) == 125 &&
                   !strcmp (errmsg_of (&reply), "Can't rename to target collection ra.t because it must not have "
                                                "associated tags") &&
                   simproc_count (s, "ra", "t", "{}") == 4 && simproc_count (s, "ra", "u", "{}") == 1);
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
   if (!strcmp (version, "8.0")) {
      test_move_collection (&s);
      test_unshard_collection (&s);
   }
   test_coll_mod (&s, version);
   test_rename_databases (&s, version);
   test_rename_sharded (&s, version);
   fid_end (&s, pre);
}

int
main (void)
{
   mongoc_init ();
   mongoc_log_set_handler (NULL, NULL);
   const char *versions[] = { "4.4", "5.0", "8.0" };
   for (size_t i = 0; i < sizeof versions / sizeof *versions; i++) {
      run_version (versions[i]);
   }
   test_aborts ();
   mongoc_cleanup ();
   UNIT_EXIT ();
}
