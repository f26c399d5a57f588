/* passes: plain asan */
/* shardsim's balancer against the MongoDB server's own code (issue 15): balancerStatus modes, the chunk-count policy
 * of 4.4/5.0, jumbo chunks not picked, balancerCollectionStatus and zone cuts, activeWindow parsing, the auto-merger's
 * history window, balancerStart/Stop, split and merge argument checks, and removeShard per version. docs/shardsim.md
 * names the server file and function each one follows. Zones, placement and moves are tests/unit/fidelity/chunks.json.
 */
#include "tests/unit/fidelity.h"

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
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"fb\", \"primaryShard\": \"shard01\"}");
   simproc_run_ok (s, "admin", "{\"shardCollection\": \"fb.c\", \"key\": {\"c\": 1}}");
   for (int i = 1; i < 30; i++) {
      snprintf (json, sizeof json, "{\"split\": \"fb.c\", \"middle\": {\"c\": %d}}", i);
      simproc_run_ok (s, "admin", json);
   }
   for (int i = 16; i < 30; i++) {
      snprintf (json, sizeof json, "{\"moveChunk\": \"fb.c\", \"find\": {\"c\": %d}, \"to\": \"shard02\"}", i);
      simproc_run_ok (s, "admin", json);
   }
   snprintf (name, sizeof name, "%s.policy setup 16/14", v);
   CHECK (name, chunks_on (s, "c", "shard01") == 16 && chunks_on (s, "c", "shard02") == 14);
   simproc_run_json (s, "admin", "{\"balancerCollectionStatus\": \"fb.c\"}", &reply);
   snprintf (name, sizeof name, "%s.policy 16/14 chunksImbalance", v);
   CHECK (name, !bool_at (&reply, "balancerCompliant") && str_at (&reply, "firstComplianceViolation") &&
                   !strcmp (str_at (&reply, "firstComplianceViolation"), "chunksImbalance"));
   bson_destroy (&reply);
   snprintf (name, sizeof name, "%s.policy a round moves one chunk to 15/15", v);
   CHECK (name, simproc_run_ok (s, "admin", "{\"simBalancer\": \"round\"}") && chunks_on (s, "c", "shard01") == 15 &&
                   chunks_on (s, "c", "shard02") == 15);
   simproc_run_json (s, "admin", "{\"balancerCollectionStatus\": \"fb.c\"}", &reply);
   snprintf (name, sizeof name, "%s.policy 15/15 compliant", v);
   CHECK (name, bool_at (&reply, "balancerCompliant") && !has_at (&reply, "firstComplianceViolation"));
   bson_destroy (&reply);
   snprintf (name, sizeof name, "%s.policy 15/15 stays", v);
   CHECK (name, simproc_run_ok (s, "admin", "{\"simBalancer\": \"round\"}") && chunks_on (s, "c", "shard01") == 15 &&
                   chunks_on (s, "c", "shard02") == 15);
}

/* Chunks flagged jumbo are never picked by the policy, attemptToBalanceJumboChunks or not (BalancerPolicy::balance,
 * _singleZoneBalance: "has only jumbo chunks"); the collection is then compliant. */
static void
test_jumbo_not_picked (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"fj\", \"primaryShard\": \"shard01\"}");
   simproc_run_ok (s, "admin", "{\"shardCollection\": \"fj.j\", \"key\": {\"j\": 1}}");
   simproc_run_ok (s, "admin", "{\"split\": \"fj.j\", \"middle\": {\"j\": 0}}");
   simproc_run_ok (s, "config",
                   "{\"update\": \"chunks\", \"updates\": [{\"q\": {\"min.j\": {\"$exists\": true}}, \"u\": {\"$set\": "
                   "{\"jumbo\": true}}, \"multi\": true}]}");
   simproc_run_ok (s, "config",
                   "{\"update\": \"settings\", \"updates\": [{\"q\": {\"_id\": \"balancer\"}, \"u\": {\"$set\": "
                   "{\"attemptToBalanceJumboChunks\": true}}, \"upsert\": true}]}");
   snprintf (name, sizeof name, "%s.jumbo chunks never picked", v);
   CHECK (name, simproc_run_ok (s, "admin", "{\"simBalancer\": \"round\"}") && chunks_on (s, "j", "shard01") == 2 &&
                   chunks_on (s, "j", "shard02") == 0);
   simproc_run_json (s, "admin", "{\"balancerCollectionStatus\": \"fj.j\"}", &reply);
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
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"fc\", \"primaryShard\": \"shard01\"}");
   simproc_run_ok (s, "admin", "{\"shardCollection\": \"fc.z\", \"key\": {\"z\": 1}}");
   simproc_run_ok (s, "admin", "{\"addShardToZone\": \"shard01\", \"zone\": \"ZC\"}");
   simproc_run_ok (s, "admin",
                   "{\"updateZoneKeyRange\": \"fc.z\", \"min\": {\"z\": 10}, \"max\": {\"z\": 20}, \"zone\": "
                   "\"ZC\"}");
   simproc_run_json (s, "admin", "{\"balancerCollectionStatus\": \"fc.z\"}", &reply);
   snprintf (name, sizeof name, "%s.status zone boundary inside a chunk zoneViolation", v);
   CHECK (name, !bool_at (&reply, "balancerCompliant") && str_at (&reply, "firstComplianceViolation") &&
                   !strcmp (str_at (&reply, "firstComplianceViolation"), "zoneViolation") &&
                   count_config (s, "chunks", "{\"min.z\": {\"$exists\": true}}") == 1);
   bson_destroy (&reply);
   if (strcmp (v, "4.4") != 0) {
      simproc_run_ok (s, "admin", "{\"configureCollectionBalancing\": \"fc.z\", \"defragmentCollection\": true}");
      simproc_run_json (s, "admin", "{\"balancerCollectionStatus\": \"fc.z\"}", &reply);
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
   simproc_run_ok (s, "config",
                   "{\"update\": \"settings\", \"updates\": [{\"q\": {\"_id\": \"balancer\"}, \"u\": {\"$set\": "
                   "{\"mode\": \"autoSplitOnly\", \"stopped\": false}}, \"upsert\": true}]}");
   simproc_run_json (s, "admin", "{\"balancerStatus\": 1}", &reply);
   snprintf (name, sizeof name, "%s.balancerStatus autoSplitOnly as stored", v);
   CHECK_STR (name, "autoSplitOnly", str_at (&reply, "mode"));
   bson_destroy (&reply);
   simproc_run_ok (s, "admin", "{\"balancerStart\": 1}");
   simproc_run_json (s, "admin", "{\"balancerStatus\": 1}", &reply);
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
   simproc_run_ok (s, "config", json);
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
   simproc_run_ok (s, "admin", "{\"balancerStart\": 1}");
   simproc_run_ok (s, "admin", "{\"simBalancer\": \"live\", \"intervalMs\": 20}");
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
   simproc_run_ok (s, "admin", "{\"simBalancer\": \"live\", \"enabled\": false}");
}

/* 7.0+: the automerger merges only chunks on their shard since before the history window, and its first pass comes
 * when it is enabled; later passes come every autoMergerIntervalSecs, after many balancer rounds. */
static void
test_automerger (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160], json[256];
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"fa\", \"primaryShard\": \"shard01\"}");
   simproc_run_ok (s, "admin", "{\"shardCollection\": \"fa.m\", \"key\": {\"m\": 1}}");
   for (int i = 1; i < 4; i++) {
      snprintf (json, sizeof json, "{\"split\": \"fa.m\", \"middle\": {\"m\": %d}}", i * 10);
      simproc_run_ok (s, "admin", json);
   }
   simproc_run_ok (s, "admin", "{\"balancerStart\": 1}");
   /* 50 ms rounds stand for 10 s: the 300 s history window is 1.5 s, a pass every 30 rounds. */
   simproc_run_ok (s, "admin", "{\"simBalancer\": \"live\", \"intervalMs\": 50, \"autoMergerRounds\": 30}");
   sleep_ms (700);
   snprintf (name, sizeof name, "%s.automerger leaves chunks younger than the history window", v);
   CHECK (name, count_config (s, "chunks", "{\"min.m\": {\"$exists\": true}}") == 4 &&
                   count_config (s, "changelog", "{\"what\": \"merge\", \"ns\": \"fa.m\"}") == 0);
   int64_t n = 4;
   for (int i = 0; i < 100 && n != 1; i++) {
      sleep_ms (100);
      n = count_config (s, "chunks", "{\"min.m\": {\"$exists\": true}}");
   }
   simproc_run_json (s, "admin", "{\"simBalancer\": \"status\"}", &reply);
   bson_iter_t it;
   int64_t rounds = bson_iter_init_find (&it, &reply, "rounds") ? bson_iter_as_int64 (&it) : -1;
   bson_destroy (&reply);
   snprintf (name, sizeof name, "%s.automerger merges them once older, after 30+ rounds", v);
   CHECK (name,
          n == 1 && rounds >= 30 && count_config (s, "changelog", "{\"what\": \"merge\", \"ns\": \"fa.m\"}") == 1);
   simproc_run_ok (s, "admin", "{\"simBalancer\": \"live\", \"enabled\": false}");
}

static void
run_balancer (const char *version)
{
   sim_t s;
   const char *args[] = { "--version", version, "--shards", "2", NULL };
   char pre[32];
   snprintf (pre, sizeof pre, "%s.balancer ", version);
   if (!fid_begin (&s, args, pre))
      return;
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
   fid_end (&s, pre);
}

/* ---- balancerStart / balancerStop (configsvr_control_balancer_command.cpp): setBalancerMode's { stopped, mode },
 * 4.4/5.0 the autosplit setting, 7.0+ changeAutoMergeSettings, 8.0 the balancer.start / balancer.stop actionlog ---- */

static void
test_balancer_control (sim_t *s, const char *v)
{
   char name[160];
   bool pre60 = !strcmp (v, "4.4") || !strcmp (v, "5.0"), ge70 = !strcmp (v, "7.0") || !strcmp (v, "8.0"),
        ge80 = !strcmp (v, "8.0");
   simproc_run_ok (s, "admin", "{\"balancerStop\": 1}");
   snprintf (name, sizeof name, "%s.balancerStop sets stopped and mode off", v);
   CHECK (name, count_config (s, "settings", "{\"_id\": \"balancer\", \"stopped\": true, \"mode\": \"off\"}") == 1);
   snprintf (name, sizeof name, "%s.balancerStop autosplit setting (4.4/5.0 only)", v);
   CHECK (name, count_config (s, "settings", "{\"_id\": \"autosplit\", \"enabled\": false}") == (pre60 ? 1 : 0));
   snprintf (name, sizeof name, "%s.balancerStop disables the automerger (7.0+)", v);
   CHECK (name, count_config (s, "settings", "{\"_id\": \"automerge\", \"enabled\": false}") == (ge70 ? 1 : 0));
   snprintf (name, sizeof name, "%s.balancerStop actionlog balancer.stop (8.0)", v);
   CHECK (name, count_config (s, "actionlog", "{\"what\": \"balancer.stop\", \"ns\": \"\", \"details\": {}}") ==
                   (ge80 ? 1 : 0));
   simproc_run_ok (s, "admin", "{\"balancerStart\": 1}");
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
   simproc_run_ok (s, "admin", "{\"shardCollection\": \"rv.sm\", \"key\": {\"k\": 1}}");
   simproc_run_json (s, "admin", "{\"split\": \"rv.none\", \"find\": {\"k\": 1}, \"middle\": {\"k\": 2}}", &reply);
   snprintf (name, sizeof name, "%s.split unsharded: 118 before the argument checks", v);
   CHECK (name, code_of (&reply) == 118);
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"split\": \"rv.sm\", \"find\": {}, \"middle\": {\"k\": 500}}", &reply);
   snprintf (name, sizeof name, "%s.split find {} is no find: middle splits", v);
   CHECK (name,
          code_of (&reply) == -1 && !str_at (&reply, "errmsg") && count_config (s, "chunks", "{\"min.k\": 500}") == 1);
   bson_destroy (&reply);
   int64_t nchunks = count_config (s, "chunks", "{\"$or\": [{\"min.k\": 500}, {\"max.k\": 500}]}");
   simproc_run_json (s, "admin", "{\"split\": \"rv.sm\", \"find\": 5}", &reply);
   snprintf (name, sizeof name, "%s.split find of the wrong type", v);
   CHECK_STR (name, "wrong type for 'find' field, expected object, found find: 5", errmsg_of (&reply));
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"split\": \"rv.sm\", \"bounds\": {\"a\": 1}}", &reply);
   snprintf (name, sizeof name, "%s.split bounds of the wrong type", v);
   CHECK_STR (name, "wrong type for 'bounds' field, expected array, found bounds: { a: 1 }", errmsg_of (&reply));
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"split\": \"rv.sm\", \"middle\": 7}", &reply);
   snprintf (name, sizeof name, "%s.split middle of the wrong type", v);
   CHECK_STR (name, "wrong type for 'middle' field, expected object, found middle: 7", errmsg_of (&reply));
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"mergeChunks\": \"rv.sm\", \"bounds\": 5}", &reply);
   snprintf (name, sizeof name, "%s.mergeChunks bounds of the wrong type", v);
   CHECK_STR (name, "wrong type for 'bounds' field, expected vector array, found bounds: 5", errmsg_of (&reply));
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"mergeChunks\": \"rv.none\", \"bounds\": [{}, {\"k\": 500}]}", &reply);
   snprintf (name, sizeof name, "%s.mergeChunks empty min before the routing info", v);
   CHECK_STR (name, "no min key specified", errmsg_of (&reply));
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"mergeChunks\": \"rv.sm\", \"bounds\": [{\"k\": {\"$minKey\": 1}}, {\"k\": 5}]}",
                     &reply);
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
   char pre[32];
   snprintf (pre, sizeof pre, "%s.review ", v);
   if (!fid_begin (&s, args, pre))
      return;
   test_balancer_control (&s, v);
   simproc_run_ok (&s, "admin", "{\"enableSharding\": \"rv\", \"primaryShard\": \"shard01\"}");
   simproc_run_ok (&s, "admin", "{\"shardCollection\": \"rv.c\", \"key\": {\"k\": 1}}");
   test_split_merge_args (&s, v);
   /* setAllowMigrationsAndBumpOneChunk: config.collections permitMigrations from 5.0; 4.4 writes the pre-5.0 name,
    * allowMigrations (kPre50CompatibleAllowMigrationsFieldName) */
   bool v44 = !strcmp (v, "4.4");
   const char *set_f =
      v44 ? "{\"_id\": \"rv.sm\", \"allowMigrations\": false}" : "{\"_id\": \"rv.sm\", \"permitMigrations\": false}";
   const char *other_f = v44 ? "{\"_id\": \"rv.sm\", \"permitMigrations\": {\"$exists\": true}}"
                             : "{\"_id\": \"rv.sm\", \"allowMigrations\": {\"$exists\": true}}";
   simproc_run_ok (&s, "admin", "{\"setAllowMigrations\": \"rv.sm\", \"allowMigrations\": false}");
   snprintf (name, sizeof name, "%s.setAllowMigrations false writes %s: false", v,
             v44 ? "allowMigrations" : "permitMigrations");
   CHECK (name, count_config (&s, "collections", set_f) == 1 && count_config (&s, "collections", other_f) == 0);
   simproc_run_json (&s, "admin", "{\"moveChunk\": \"rv.sm\", \"find\": {\"k\": 1}, \"to\": \"shard02\"}", &reply);
   snprintf (name, sizeof name, "%s.setAllowMigrations false: moveChunk refused", v);
   CHECK (name, code_of (&reply) == 117);
   bson_destroy (&reply);
   simproc_run_ok (&s, "admin", "{\"setAllowMigrations\": \"rv.sm\", \"allowMigrations\": true}");
   snprintf (name, sizeof name, "%s.setAllowMigrations true unsets the field", v);
   CHECK (name,
          count_config (&s, "collections", "{\"_id\": \"rv.sm\", \"permitMigrations\": {\"$exists\": true}}") == 0 &&
             count_config (&s, "collections", "{\"_id\": \"rv.sm\", \"allowMigrations\": {\"$exists\": true}}") == 0);
   for (int k = 10; k <= 30; k += 10) {
      char cmd[160];
      snprintf (cmd, sizeof cmd, "{\"split\": \"rv.c\", \"middle\": {\"k\": %d}}", k);
      simproc_run_ok (&s, "admin", cmd);
      snprintf (cmd, sizeof cmd, "{\"moveChunk\": \"rv.c\", \"find\": {\"k\": %d}, \"to\": \"shard03\"}", k);
      simproc_run_ok (&s, "admin", cmd);
   }
   int64_t before = count_config (&s, "chunks", "{\"shard\": \"shard03\"}");
   simproc_run_json (&s, "admin", "{\"removeShard\": \"shard03\"}", &reply);
   snprintf (name, sizeof name, "%s.removeShard started", v);
   CHECK (name, str_at (&reply, "state") && !strcmp (str_at (&reply, "state"), "started") &&
                   count_config (&s, "shards", "{\"_id\": \"shard03\", \"draining\": true}") == 1);
   bson_destroy (&reply);
   bool still = true, ongoing = true;
   for (int i = 0; i < 3; i++) {
      simproc_run_json (&s, "admin", "{\"removeShard\": \"shard03\"}", &reply);
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
      simproc_run_ok (&s, "admin", "{\"simBalancer\": \"round\"}");
      simproc_run_json (&s, "admin", "{\"removeShard\": \"shard03\"}", &reply);
      completed = str_at (&reply, "state") && !strcmp (str_at (&reply, "state"), "completed");
      bson_destroy (&reply);
   }
   snprintf (name, sizeof name, "%s.removeShard completes once the balancer drained the shard", v);
   CHECK (name, completed && count_config (&s, "shards", "{\"_id\": \"shard03\"}") == 0 &&
                   count_config (&s, "chunks", "{\"shard\": \"shard03\"}") == 0 &&
                   count_config (&s, "changelog",
                                 "{\"what\": \"moveChunk.commit\", \"details.to\": {\"$ne\": \"shard03\"}}") >= 3);
   fid_end (&s, pre);
}

int
main (void)
{
   mongoc_init ();
   mongoc_log_set_handler (NULL, NULL);
   run_balancer ("4.4");
   run_balancer ("8.0");
   const char *all[] = { "4.4", "5.0", "6.0", "7.0", "8.0" };
   for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
      test_remove_shard (all[i]);
   }
   mongoc_cleanup ();
   UNIT_EXIT ();
}
