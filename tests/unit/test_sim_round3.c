/* passes: plain asan */
/* shardsim against the MongoDB server's own code, round three (issue 33): the eight differences a third review
 * found (removeShard's checks per version, balancerCollectionStatus only when a migration could be scheduled,
 * resharding's remaining-time estimate, 8.0's collectionsToMove, the balancer.round actionlog entry) and the 8.3
 * drain commands (startShardDraining, stopShardDraining, commitShardRemoval, the dedicated config server transition)
 * and the 9.0 personality. docs/shardsim.md names the server file and function each check follows. */
#include "tests/unit/fidelity.h"

#include <pthread.h>

static bool
run (sim_t *s, const char *json, bson_t *reply)
{
   return simproc_run_json (s, "admin", json, reply);
}

/* The reply's code (-1 when ok) after running json on admin. */
static int32_t
run_code (sim_t *s, const char *json)
{
   bson_t reply;
   run (s, json, &reply);
   int32_t code = code_of (&reply);
   bson_destroy (&reply);
   return code;
}

static int64_t
int_at (const bson_t *doc, const char *path, int64_t dflt)
{
   bson_iter_t it, d;
   if (bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, path, &d) && BSON_ITER_HOLDS_NUMBER (&d)) {
      return bson_iter_as_int64 (&d);
   }
   return dflt;
}

/* The primary shard of db (into out, 64 bytes; "" when unknown). */
static void
db_primary (sim_t *s, const char *db, char *out)
{
   bson_t reply;
   char json[160];
   snprintf (json, sizeof json, "{\"find\": \"databases\", \"filter\": {\"_id\": \"%s\"}}", db);
   simproc_run_json (s, "config", json, &reply);
   const char *p = str_at (&reply, "cursor.firstBatch.0.primary");
   bson_strncpy (out, p ? p : "", 64);
   bson_destroy (&reply);
}

static bool
draining (sim_t *s, const char *shard)
{
   char f[128];
   snprintf (f, sizeof f, "{\"_id\": \"%s\", \"draining\": true}", shard);
   return count_config (s, "shards", f) == 1;
}

/* ---- items 1 to 3: removeShard's preconditions (ShardingCatalogManager::removeShard) ---- */

static void
test_remove_shard_checks (const char *v)
{
   sim_t s;
   bson_t reply;
   char name[200], pre[32];
   const char *args[] = { "--version", v, "--shards", "3", NULL };
   bool new_texts = !strcmp (v, "8.3") || !strcmp (v, "9.0");
   snprintf (pre, sizeof pre, "%s.removeShard ", v);
   if (!fid_begin (&s, args, pre))
      return;
   /* 4.4 and 5.0 drain several shards at once (since 4.2.1); so does every later version. */
   snprintf (name, sizeof name, "%s.removeShard a second drain while one drains is started", v);
   run (&s, "{\"removeShard\": \"shard02\"}", &reply);
   bson_destroy (&reply);
   run (&s, "{\"removeShard\": \"shard03\"}", &reply);
   CHECK (name, code_of (&reply) == -1 && str_at (&reply, "state") && !strcmp (str_at (&reply, "state"), "started") &&
                   draining (&s, "shard02") && draining (&s, "shard03"));
   bson_destroy (&reply);
   /* The last shard that is not draining: 4.4/5.0 count every other shard, 6.0+ the ones not draining. */
   run (&s, "{\"removeShard\": \"shard01\"}", &reply);
   snprintf (name, sizeof name, "%s.removeShard the only shard left not draining", v);
   if (strcmp (v, "6.0") < 0) {
      CHECK (name, code_of (&reply) == -1 && draining (&s, "shard01"));
   } else {
      CHECK (name, code_of (&reply) == 20 && !draining (&s, "shard01"));
      snprintf (name, sizeof name, "%s.removeShard the only shard left not draining text", v);
      CHECK_STR (name,
                 new_texts ? "Operation not allowed because it would drain the last shard"
                           : "Operation not allowed because it would remove the last shard",
                 errmsg_of (&reply));
   }
   bson_destroy (&reply);
   fid_end (&s, pre);
}

/* Item 3: the only shard of a zone that has ranges (_isShardRequiredByZoneStillInUse), 6.0+. */
static void
test_remove_shard_zone (const char *v)
{
   sim_t s;
   bson_t reply;
   char name[200], pre[32];
   const char *args[] = { "--version", v, "--shards", "2", NULL };
   bool new_texts = !strcmp (v, "8.3") || !strcmp (v, "9.0");
   snprintf (pre, sizeof pre, "%s.zone drain ", v);
   if (!fid_begin (&s, args, pre))
      return;
   simproc_run_ok (&s, "admin", "{\"enableSharding\": \"zd\"}");
   simproc_run_ok (&s, "admin", "{\"shardCollection\": \"zd.c\", \"key\": {\"k\": 1}}");
   simproc_run_ok (&s, "admin", "{\"addShardToZone\": \"shard02\", \"zone\": \"EU\"}");
   simproc_run_ok (&s, "admin",
                   "{\"updateZoneKeyRange\": \"zd.c\", \"min\": {\"k\": 0}, \"max\": {\"k\": 10}, \"zone\": \"EU\"}");
   run (&s, "{\"removeShard\": \"shard02\"}", &reply);
   snprintf (name, sizeof name, "%s.removeShard the only shard of a zone with ranges", v);
   if (strcmp (v, "6.0") < 0) {
      CHECK (name, code_of (&reply) == -1 && draining (&s, "shard02"));
   } else {
      char want[200];
      snprintf (want, sizeof want, "%s",
                new_texts ? "Operation not allowed because there is no other shard in zone EU to drain to."
                          : "Operation not allowed because it would remove the only shard for zone EU which has a "
                            "chunk range is associated with it");
      CHECK (name, code_of (&reply) == 163 && !draining (&s, "shard02"));
      snprintf (name, sizeof name, "%s.removeShard the only shard of a zone with ranges text", v);
      CHECK_STR (name, want, errmsg_of (&reply));
   }
   bson_destroy (&reply);
   fid_end (&s, pre);
}

/* ---- item 4: balancerCollectionStatus reports what the policy would move (Balancer::getBalancerStatusForNs) ---- */

static void
test_status_needs_a_receiver (const char *v)
{
   sim_t s;
   bson_t reply;
   char name[200], pre[32], owner[64], other[64];
   const char *args[] = { "--version", v, "--shards", "2", NULL };
   snprintf (pre, sizeof pre, "%s.status ", v);
   if (!fid_begin (&s, args, pre))
      return;
   simproc_run_ok (&s, "admin", "{\"enableSharding\": \"bs\"}");
   simproc_run_ok (&s, "admin", "{\"shardCollection\": \"bs.c\", \"key\": {\"k\": 1}}");
   db_primary (&s, "bs", owner);
   snprintf (other, sizeof other, "%s", strcmp (owner, "shard01") ? "shard01" : "shard02");
   /* The whole key range in a zone of the other shard: a zone violation the balancer can fix. */
   char json[256];
   snprintf (json, sizeof json, "{\"addShardToZone\": \"%s\", \"zone\": \"Z\"}", other);
   simproc_run_ok (&s, "admin", json);
   simproc_run_ok (&s, "admin",
                   "{\"updateZoneKeyRange\": \"bs.c\", \"min\": {\"k\": {\"$minKey\": 1}}, \"max\": {\"k\": "
                   "{\"$maxKey\": 1}}, \"zone\": \"Z\"}");
   run (&s, "{\"balancerCollectionStatus\": \"bs.c\"}", &reply);
   snprintf (name, sizeof name, "%s.balancerCollectionStatus zone violation with a receiver", v);
   CHECK (name, !bool_at (&reply, "balancerCompliant") && str_at (&reply, "firstComplianceViolation") &&
                   !strcmp (str_at (&reply, "firstComplianceViolation"), "zoneViolation"));
   bson_destroy (&reply);
   /* The zone's only shard draining (4.4 lets it drain): no shard can receive the chunk, nothing to report. */
   snprintf (json, sizeof json, "{\"removeShard\": \"%s\"}", other);
   simproc_run_ok (&s, "admin", json);
   run (&s, "{\"balancerCollectionStatus\": \"bs.c\"}", &reply);
   snprintf (name, sizeof name, "%s.balancerCollectionStatus zone violation without a receiver is compliant", v);
   CHECK (name, draining (&s, other) && bool_at (&reply, "balancerCompliant") &&
                   !has_at (&reply, "firstComplianceViolation"));
   bson_destroy (&reply);
   fid_end (&s, pre);
}

/* A draining shard whose only chunk is jumbo: the policy skips jumbo chunks, so the collection is compliant. */
static void
test_status_jumbo_on_draining (const char *v)
{
   sim_t s;
   bson_t reply;
   char name[200], pre[32], owner[64], json[256];
   const char *args[] = { "--version", v, "--shards", "2", NULL };
   snprintf (pre, sizeof pre, "%s.jumbo status ", v);
   if (!fid_begin (&s, args, pre))
      return;
   simproc_run_ok (&s, "admin", "{\"enableSharding\": \"bj\"}");
   simproc_run_ok (&s, "admin", "{\"shardCollection\": \"bj.c\", \"key\": {\"k\": 1}}");
   db_primary (&s, "bj", owner);
   simproc_run_ok (&s, "config",
                   "{\"update\": \"chunks\", \"updates\": [{\"q\": {}, \"u\": {\"$set\": {\"jumbo\": true}}, "
                   "\"multi\": true}]}");
   snprintf (json, sizeof json, "{\"removeShard\": \"%s\"}", owner);
   simproc_run_ok (&s, "admin", json);
   run (&s, "{\"balancerCollectionStatus\": \"bj.c\"}", &reply);
   snprintf (name, sizeof name, "%s.balancerCollectionStatus only a jumbo chunk on a draining shard: compliant", v);
   CHECK (name, draining (&s, owner) && bool_at (&reply, "balancerCompliant"));
   bson_destroy (&reply);
   fid_end (&s, pre);
}

/* ---- items 5 and 6: the recipient's remainingOperationTimeEstimatedSecs (estimateRemainingRecipientTime) ---- */

/* The first resharding recipient row of currentOp into out (copied; false when there is none). */
static bool
recipient_row (sim_t *s, bson_t *out)
{
   bson_t reply;
   bool found = false;
   bson_init (out);
   if (!run (s,
             "{\"aggregate\": 1, \"pipeline\": [{\"$currentOp\": {\"allUsers\": true, \"localOps\": false}}, "
             "{\"$match\": {\"type\": \"op\", \"recipientState\": {\"$exists\": true}}}], \"cursor\": {}}",
             &reply)) {
      bson_destroy (&reply);
      return false;
   }
   bson_iter_t it, d;
   if (bson_iter_init (&it, &reply) && bson_iter_find_descendant (&it, "cursor.firstBatch.0", &d) &&
       BSON_ITER_HOLDS_DOCUMENT (&d)) {
      uint32_t l;
      const uint8_t *data;
      bson_t view;
      bson_iter_document (&d, &l, &data);
      if (bson_init_static (&view, data, l)) {
         bson_destroy (out);
         bson_copy_to (&view, out);
         found = true;
      }
   }
   bson_destroy (&reply);
   return found;
}

static void
test_reshard_estimate (const char *v)
{
   sim_t s;
   bson_t row;
   char name[200], pre[32];
   const char *args[] = { "--version", v, "--shards", "2", "--reshard-ms", "4000", NULL };
   snprintf (pre, sizeof pre, "%s.estimate ", v);
   if (!fid_begin (&s, args, pre))
      return;
   simproc_run_ok (&s, "admin", "{\"enableSharding\": \"re\"}");
   simproc_run_ok (&s, "admin", "{\"shardCollection\": \"re.c\", \"key\": {\"a\": 1}}");
   bson_t *cmd = BCON_NEW ("reshardCollection", BCON_UTF8 ("re.c"), "key", "{", "b", BCON_INT32 (1), "}");
   fid_bg_t r = { .port = s.port, .db = "admin", .cmd = cmd, .t0 = bson_get_monotonic_time () };
   pthread_t th;
   pthread_create (&th, NULL, fid_bg_run, &r);
   bool seen_early = false, seen_applying = false;
   int64_t early = -2, applying = -2;
   for (int i = 0; i < 120 && !seen_applying; i++) {
      if (recipient_row (&s, &row) && str_at (&row, "recipientState")) {
         const char *st = str_at (&row, "recipientState");
         if (!seen_early && (!strcmp (st, "awaiting-fetch-timestamp") || !strcmp (st, "creating-collection"))) {
            seen_early = true;
            early = int_at (&row, "remainingOperationTimeEstimatedSecs", -2);
         }
         if (!strcmp (st, "applying")) {
            seen_applying = true;
            applying = int_at (&row, "remainingOperationTimeEstimatedSecs", -2);
         }
      }
      bson_destroy (&row);
      usleep (40 * 1000);
   }
   if (!strcmp (v, "6.0")) {
      snprintf (name, sizeof name, "%s.currentOp recipient before copying: estimate written as 0 (%lld)", v,
                (long long) early);
      CHECK (name, seen_early && early == 0);
   }
   snprintf (name, sizeof name, "%s.currentOp recipient applying with nothing fetched: estimate 0 (%lld)", v,
             (long long) applying);
   CHECK (name, seen_applying && applying == 0);
   run_code (&s, "{\"abortReshardCollection\": \"re.c\"}");
   pthread_join (th, NULL);
   bson_destroy (cmd);
   fid_end (&s, pre);
}

/* ---- item 7: 8.0's collectionsToMove (appendDBAndCollDrainingInfo, getCollectionsToMoveForShard) ---- */

static void
test_collections_to_move (const char *v)
{
   sim_t s;
   bson_t reply;
   char name[200], pre[32], owner[64], json[256];
   const char *args[] = { "--version", v, "--shards", "2", NULL };
   snprintf (pre, sizeof pre, "%s.collectionsToMove ", v);
   if (!fid_begin (&s, args, pre))
      return;
   simproc_run_ok (&s, "admin", "{\"enableSharding\": \"ct\"}");
   insert_docs (&s, "ct", "u2", 0, 2);
   insert_docs (&s, "ct", "u1", 0, 2);
   db_primary (&s, "ct", owner);
   snprintf (json, sizeof json, "{\"removeShard\": \"%s\"}", owner);
   run (&s, json, &reply);
   snprintf (name, sizeof name, "%s.removeShard started lists the unsharded collections left on the shard", v);
   CHECK (name, code_of (&reply) == -1 && str_at (&reply, "collectionsToMove.0") &&
                   str_at (&reply, "collectionsToMove.1") &&
                   !strcmp (str_at (&reply, "collectionsToMove.0"), "ct.u1") &&
                   !strcmp (str_at (&reply, "collectionsToMove.1"), "ct.u2"));
   snprintf (name, sizeof name, "%s.removeShard started note names moveCollection", v);
   CHECK_STR (name,
              "you need to call moveCollection for collectionsToMove and afterwards movePrimary for the dbsToMove",
              str_at (&reply, "note"));
   bson_destroy (&reply);
   run (&s, json, &reply);
   snprintf (name, sizeof name, "%s.removeShard ongoing counts them in remaining.collectionsToMove", v);
   CHECK (name, int_at (&reply, "remaining.collectionsToMove", -1) == 2 && str_at (&reply, "collectionsToMove.1"));
   if (!strcmp (v, "8.3")) {
      /* appendShardDrainingStatus's order, passed through by the mongos; the 8.3 counts */
      char keys[256] = "";
      bson_iter_t it;
      size_t n = 0;
      bson_iter_init (&it, &reply);
      while (bson_iter_next (&it) && strcmp (bson_iter_key (&it), "ok") != 0) {
         n += (size_t) snprintf (keys + n, n < sizeof keys ? sizeof keys - n : 0, "%s,", bson_iter_key (&it));
      }
      snprintf (name, sizeof name, "%s.removeShard ongoing reply in appendShardDrainingStatus's order", v);
      CHECK_STR (name, "note,dbsToMove,collectionsToMove,msg,state,remaining,", keys);
      snprintf (name, sizeof name, "%s.removeShard ongoing remaining.estimatedRemainingBytes", v);
      CHECK (name, has_at (&reply, "remaining.estimatedRemainingBytes"));
   }
   bson_destroy (&reply);
   fid_end (&s, pre);
}

/* ---- item 8: the balancer.round actionlog entry (BalanceRoundDetails::toBSON) ---- */

static void
test_round_actionlog (const char *v)
{
   sim_t s;
   bson_t reply;
   char name[200], pre[32];
   const char *args[] = { "--version", v, "--shards", "2", NULL };
   snprintf (pre, sizeof pre, "%s.actionlog ", v);
   if (!fid_begin (&s, args, pre))
      return;
   simproc_run_ok (&s, "admin", "{\"simBalancer\": \"round\"}");
   simproc_run_json (&s, "config",
                     "{\"find\": \"actionlog\", \"filter\": {\"what\": \"balancer.round\"}, \"sort\": {\"time\": -1}, "
                     "\"limit\": 1}",
                     &reply);
   bson_iter_t it, d;
   bool exec64 = bson_iter_init (&it, &reply) &&
                 bson_iter_find_descendant (&it, "cursor.firstBatch.0.details.executionTimeMillis", &d) &&
                 BSON_ITER_HOLDS_INT64 (&d);
   snprintf (name, sizeof name, "%s.balancer.round executionTimeMillis is a long", v);
   CHECK (name, exec64);
   snprintf (name, sizeof name, "%s.balancer.round imbalancedCachedCollections and times", v);
   if (strcmp (v, "7.0") < 0) {
      CHECK (name, has_at (&reply, "cursor.firstBatch.0.details.chunksMoved") &&
                      !has_at (&reply, "cursor.firstBatch.0.details.imbalancedCachedCollections") &&
                      !has_at (&reply, "cursor.firstBatch.0.details.times"));
   } else {
      CHECK (name, has_at (&reply, "cursor.firstBatch.0.details.imbalancedCachedCollections") &&
                      has_at (&reply, "cursor.firstBatch.0.details.times.selectionTimeMillis") &&
                      has_at (&reply, "cursor.firstBatch.0.details.times.throttleTimeMillis") &&
                      has_at (&reply, "cursor.firstBatch.0.details.times.migrationTimeMillis"));
   }
   bson_destroy (&reply);
   fid_end (&s, pre);
}

/* ---- 8.3: the drain in steps (cluster_start_shard_draining_cmd.cpp and its configsvr commands) ---- */

static void
test_drain_steps (const char *v)
{
   sim_t s;
   bson_t reply;
   char name[200], pre[32];
   const char *args[] = { "--version", v, "--shards", "3", NULL };
   snprintf (pre, sizeof pre, "%s.drain steps ", v);
   if (!fid_begin (&s, args, pre))
      return;
   snprintf (name, sizeof name, "%s.startShardDraining unknown shard 70", v);
   run (&s, "{\"startShardDraining\": \"nope\"}", &reply);
   CHECK (name, code_of (&reply) == 70 && !strcmp (errmsg_of (&reply), "Shard nope not found"));
   bson_destroy (&reply);
   snprintf (name, sizeof name, "%s.startShardDraining not a string 14", v);
   CHECK (name, run_code (&s, "{\"startShardDraining\": 1}") == 14);
   run (&s, "{\"startShardDraining\": \"shard03\"}", &reply);
   snprintf (name, sizeof name, "%s.startShardDraining answers ok only and sets draining", v);
   CHECK (name,
          code_of (&reply) == -1 && !has_at (&reply, "state") && !has_at (&reply, "msg") && draining (&s, "shard03") &&
             count_config (&s, "changelog", "{\"what\": \"removeShard.start\", \"details.shard\": \"shard03\"}") == 1);
   bson_destroy (&reply);
   snprintf (name, sizeof name, "%s.startShardDraining again is ok, one changelog entry", v);
   CHECK (name, run_code (&s, "{\"startShardDraining\": \"shard03\"}") == -1 &&
                   count_config (&s, "changelog", "{\"what\": \"removeShard.start\"}") == 1);
   run (&s, "{\"stopShardDraining\": \"shard03\"}", &reply);
   snprintf (name, sizeof name, "%s.stopShardDraining unsets draining (paused), changelog", v);
   CHECK (name, code_of (&reply) == -1 && !draining (&s, "shard03") &&
                   count_config (&s, "shards", "{\"_id\": \"shard03\", \"draining\": {\"$exists\": true}}") == 0 &&
                   count_config (&s, "changelog", "{\"what\": \"removeShard.stopShardDraining\"}") == 1);
   bson_destroy (&reply);
   snprintf (name, sizeof name, "%s.shardDrainingStatus after stopShardDraining 20", v);
   CHECK (name, run_code (&s, "{\"shardDrainingStatus\": \"shard03\"}") == 20);
   snprintf (name, sizeof name, "%s.stopShardDraining of a shard not draining ok", v);
   CHECK (name, run_code (&s, "{\"stopShardDraining\": \"shard03\"}") == -1);
   run (&s, "{\"commitShardRemoval\": \"shard03\"}", &reply);
   snprintf (name, sizeof name, "%s.commitShardRemoval of a shard not draining 117", v);
   CHECK (name, code_of (&reply) == 117 && count_config (&s, "shards", "{\"_id\": \"shard03\"}") == 1);
   bson_destroy (&reply);
   /* Resumed: the empty shard is drained at once and commitShardRemoval removes it. */
   simproc_run_ok (&s, "admin", "{\"startShardDraining\": \"shard03\"}");
   run (&s, "{\"shardDrainingStatus\": \"shard03\"}", &reply);
   snprintf (name, sizeof name, "%s.shardDrainingStatus resumed empty shard drainingComplete", v);
   CHECK (name, str_at (&reply, "state") && !strcmp (str_at (&reply, "state"), "drainingComplete"));
   bson_destroy (&reply);
   run (&s, "{\"commitShardRemoval\": \"shard03\"}", &reply);
   snprintf (name, sizeof name, "%s.commitShardRemoval drained shard removed", v);
   CHECK (name, code_of (&reply) == -1 && count_config (&s, "shards", "{\"_id\": \"shard03\"}") == 0 &&
                   count_config (&s, "changelog", "{\"what\": \"removeShard\", \"details.shard\": \"shard03\"}") == 1);
   bson_destroy (&reply);
   /* A shard that is the primary of a database is not drained: 20. */
   simproc_run_ok (&s, "admin", "{\"enableSharding\": \"ds\"}");
   char owner[64], json[160];
   db_primary (&s, "ds", owner);
   snprintf (json, sizeof json, "{\"startShardDraining\": \"%s\"}", owner);
   simproc_run_ok (&s, "admin", json);
   snprintf (json, sizeof json, "{\"commitShardRemoval\": \"%s\"}", owner);
   run (&s, json, &reply);
   char want[256];
   snprintf (want, sizeof want,
             "The shard %s isn't completely drained. Please use the shardDrainingStatus command to check the "
             "draining status.",
             owner);
   snprintf (name, sizeof name, "%s.commitShardRemoval with a database left 20 text", v);
   CHECK (name, code_of (&reply) == 20 && !strcmp (errmsg_of (&reply), want) && draining (&s, owner));
   bson_destroy (&reply);
   /* removeShard of a shard that is gone (shard03, removed above): a retry, answered completed */
   run (&s, "{\"removeShard\": \"shard03\"}", &reply);
   snprintf (name, sizeof name, "%s.removeShard of a removed shard answers completed", v);
   CHECK (name, code_of (&reply) == -1 && str_at (&reply, "state") && !strcmp (str_at (&reply, "state"), "completed") &&
                   str_at (&reply, "shard") && !strcmp (str_at (&reply, "shard"), "shard03"));
   bson_destroy (&reply);
   /* The last shard that is not draining. */
   snprintf (json, sizeof json, "{\"startShardDraining\": \"%s\"}", strcmp (owner, "shard01") ? "shard01" : "shard02");
   run (&s, json, &reply);
   snprintf (name, sizeof name, "%s.startShardDraining the last shard not draining 20", v);
   CHECK (name, code_of (&reply) == 20 &&
                   !strcmp (errmsg_of (&reply), "Operation not allowed because it would drain the last shard"));
   bson_destroy (&reply);
   /* No config shard: the config server is dedicated already; the registry still knows it as "config"
    * (checkPreconditionsAndStartDrain and the commit coordinator find it removed: ok; stopDrain: 70). */
   snprintf (name, sizeof name, "%s.startTransitionToDedicatedConfigServer without a config shard ok", v);
   CHECK (name, run_code (&s, "{\"startTransitionToDedicatedConfigServer\": 1}") == -1);
   snprintf (name, sizeof name, "%s.commitTransitionToDedicatedConfigServer without a config shard ok", v);
   CHECK (name, run_code (&s, "{\"commitTransitionToDedicatedConfigServer\": 1}") == -1);
   fid_end (&s, pre);
}

/* The config shard's transition (transitionFromDedicatedConfigServer makes one): start, pause, resume, commit. */
static void
test_config_shard (const char *v)
{
   sim_t s;
   bson_t reply;
   char name[200], pre[32];
   const char *args[] = { "--version", v, "--shards", "2", NULL };
   snprintf (pre, sizeof pre, "%s.config shard ", v);
   if (!fid_begin (&s, args, pre))
      return;
   snprintf (name, sizeof name, "%s.transitionFromDedicatedConfigServer adds the shard config", v);
   CHECK (name, run_code (&s, "{\"transitionFromDedicatedConfigServer\": 1}") == -1 &&
                   count_config (&s, "shards", "{\"_id\": \"config\"}") == 1);
   run (&s, "{\"startShardDraining\": \"config\"}", &reply);
   snprintf (name, sizeof name, "%s.startShardDraining of the config shard 20", v);
   CHECK (name, code_of (&reply) == 20 &&
                   !strncmp (errmsg_of (&reply), "Cannot start the transition to dedicated config server", 54));
   bson_destroy (&reply);
   snprintf (name, sizeof name, "%s.startTransitionToDedicatedConfigServer drains the config shard", v);
   CHECK (name, run_code (&s, "{\"startTransitionToDedicatedConfigServer\": 1}") == -1 && draining (&s, "config"));
   run (&s, "{\"getTransitionToDedicatedConfigServerStatus\": 1}", &reply);
   snprintf (name, sizeof name, "%s.getTransitionToDedicatedConfigServerStatus drained config shard", v);
   CHECK (name, str_at (&reply, "state") && !strcmp (str_at (&reply, "state"), "drainingComplete"));
   bson_destroy (&reply);
   snprintf (name, sizeof name, "%s.stopTransitionToDedicatedConfigServer pauses it", v);
   CHECK (name, run_code (&s, "{\"stopTransitionToDedicatedConfigServer\": 1}") == -1 && !draining (&s, "config"));
   snprintf (name, sizeof name, "%s.commitTransitionToDedicatedConfigServer of a paused transition 117", v);
   CHECK (name, run_code (&s, "{\"commitTransitionToDedicatedConfigServer\": 1}") == 117);
   simproc_run_ok (&s, "admin", "{\"startTransitionToDedicatedConfigServer\": 1}");
   snprintf (name, sizeof name, "%s.commitTransitionToDedicatedConfigServer removes the config shard", v);
   CHECK (name, run_code (&s, "{\"commitTransitionToDedicatedConfigServer\": 1}") == -1 &&
                   count_config (&s, "shards", "{\"_id\": \"config\"}") == 0);
   fid_end (&s, pre);
}

/* 8.2 and older have none of 8.3's commands (59 CommandNotFound); 9.0 is its own release (buildInfo, wire 29). */
static void
test_personality_edges (void)
{
   sim_t s;
   bson_t reply;
   const char *a82[] = { "--version", "8.2", "--shards", "2", NULL };
   if (fid_begin (&s, a82, "8.2.edges ")) {
      CHECK ("8.2.startShardDraining is not a command 59",
             run_code (&s, "{\"startShardDraining\": \"shard02\"}") == 59);
      CHECK ("8.2.commitShardRemoval is not a command 59",
             run_code (&s, "{\"commitShardRemoval\": \"shard02\"}") == 59);
      fid_end (&s, "8.2.edges ");
   }
   const char *a90[] = { "--version", "9.0", "--shards", "2", NULL };
   if (fid_begin (&s, a90, "9.0.edges ")) {
      run (&s, "{\"buildInfo\": 1}", &reply);
      CHECK ("9.0.buildInfo version 9.0.x",
             str_at (&reply, "version") && !strncmp (str_at (&reply, "version"), "9.0.", 4));
      bson_destroy (&reply);
      run (&s, "{\"hello\": 1}", &reply);
      CHECK ("9.0.hello maxWireVersion 29", int_at (&reply, "maxWireVersion", -1) == 29);
      bson_destroy (&reply);
      CHECK ("9.0.checkMetadataConsistency performStrictChunkChecksIfBelowThreshold a number",
             run_code (&s, "{\"checkMetadataConsistency\": 1, \"performStrictChunkChecksIfBelowThreshold\": 10, "
                           "\"cursor\": {}}") == -1);
      CHECK ("9.0.checkMetadataConsistency performStrictChunkChecksIfBelowThreshold not a number 14",
             run_code (&s, "{\"checkMetadataConsistency\": 1, \"performStrictChunkChecksIfBelowThreshold\": \"x\", "
                           "\"cursor\": {}}") == 14);
      fid_end (&s, "9.0.edges ");
   }
}

int
main (void)
{
   mongoc_init ();
   mongoc_log_set_handler (NULL, NULL);
   test_remove_shard_checks ("4.4");
   test_remove_shard_checks ("5.0");
   test_remove_shard_checks ("8.0");
   test_remove_shard_checks ("8.3");
   test_remove_shard_zone ("4.4");
   test_remove_shard_zone ("6.0");
   test_remove_shard_zone ("9.0");
   test_status_needs_a_receiver ("4.4");
   test_status_jumbo_on_draining ("8.0");
   test_reshard_estimate ("6.0");
   test_reshard_estimate ("8.0");
   test_collections_to_move ("8.0");
   test_collections_to_move ("8.3");
   test_round_actionlog ("6.0");
   test_round_actionlog ("8.0");
   test_drain_steps ("8.3");
   test_drain_steps ("9.0");
   test_config_shard ("8.3");
   test_personality_edges ();
   mongoc_cleanup ();
   UNIT_EXIT ();
}
