/* passes: plain asan */
/* shardsim's administrative commands against the MongoDB server's own code (issue 15): addShard's existing-shard
 * checks, listShards' natural order, movePrimary's checks per version, flushRouterConfig's argument,
 * configureCollectionBalancing, analyzeShardKey and configureQueryAnalyzer, $shardedDataDistribution's position,
 * the duplicate-key write error's fields and the 4.4/5.0 balancer's split-or-mark-jumbo of a chunk too big to move.
 * Each check asserts on the reply and, where the command writes, on the config.* documents that follow;
 * docs/shardsim.md names the server file and function each one follows. */
#include "tests/unit/fidelity.h"

/* The _id of the shards in listShards' reply, comma-separated, into out. */
static void
list_shard_ids (sim_t *s, char *out, size_t outlen)
{
   bson_t reply;
   bson_iter_t it, arr;
   size_t n = 0;
   out[0] = '\0';
   if (simproc_run_json (s, "admin", "{\"listShards\": 1}", &reply) && bson_iter_init_find (&it, &reply, "shards") &&
       BSON_ITER_HOLDS_ARRAY (&it) && bson_iter_recurse (&it, &arr)) {
      while (bson_iter_next (&arr)) {
         bson_t d;
         uint32_t l;
         const uint8_t *data;
         bson_iter_document (&arr, &l, &data);
         if (bson_init_static (&d, data, l) && str_at (&d, "_id")) {
            n += (size_t) snprintf (out + n, n < outlen ? outlen - n : 0, "%s%s", n ? "," : "", str_at (&d, "_id"));
         }
      }
   }
   bson_destroy (&reply);
}

/* ---- addShard (ShardingCatalogManager::addShard, _checkIfShardExists) and listShards (getAllShards) ---- */

static void
test_add_shard (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   snprintf (name, sizeof name, "%s.addShard replica set added", v);
   CHECK (name, simproc_run_ok (s, "admin", "{\"addShard\": \"rsx/hx1:1,hx2:2\", \"name\": \"x1\"}") &&
                   count_config (s, "shards", "{\"_id\": \"x1\"}") == 1);
   /* A host already part of a shard, under another set name: 20 with the existing shard's host and name. */
   simproc_run_json (s, "admin", "{\"addShard\": \"other/hx2:2\", \"name\": \"x2\"}", &reply);
   snprintf (name, sizeof name, "%s.addShard host of an existing shard text", v);
   CHECK_STR (name, "'hx2:2' is already a member of the existing shard 'rsx/hx1:1,hx2:2' (x1).", errmsg_of (&reply));
   snprintf (name, sizeof name, "%s.addShard host of an existing shard 20, nothing added", v);
   CHECK (name, code_of (&reply) == 20 && count_config (s, "shards", "{\"_id\": \"x2\"}") == 0);
   bson_destroy (&reply);
   /* The same replica set name with other hosts: 20. */
   simproc_run_json (s, "admin", "{\"addShard\": \"rsx/hx7:7\", \"name\": \"x3\"}", &reply);
   snprintf (name, sizeof name, "%s.addShard same replica set name 20", v);
   CHECK (name, code_of (&reply) == 20 &&
                   !strcmp (errmsg_of (&reply), "A shard already exists containing the replica set 'rsx'") &&
                   count_config (s, "shards", "{\"_id\": \"x3\"}") == 0);
   bson_destroy (&reply);
   /* An equivalent request (same set, no other name) is the existing shard: ok, its name. */
   simproc_run_json (s, "admin", "{\"addShard\": \"rsx/hx1:1\"}", &reply);
   snprintf (name, sizeof name, "%s.addShard equivalent retry answers the existing shard", v);
   CHECK (name, code_of (&reply) == -1 && str_at (&reply, "shardAdded") &&
                   !strcmp (str_at (&reply, "shardAdded"), "x1") && count_config (s, "shards", "{}") == 4);
   bson_destroy (&reply);
   /* The same set under no other name but with no host in common: the existing shard up to 6.0; 20 from 7.0. */
   simproc_run_json (s, "admin", "{\"addShard\": \"rsx/hx9:9\"}", &reply);
   snprintf (name, sizeof name, "%s.addShard same set no common host", v);
   if (strcmp (v, "7.0") < 0) {
      CHECK (name,
             code_of (&reply) == -1 && str_at (&reply, "shardAdded") && !strcmp (str_at (&reply, "shardAdded"), "x1"));
   } else {
      CHECK (name,
             code_of (&reply) == 20 &&
                !strcmp (errmsg_of (&reply), "A shard named rsx containing the replica set 'rsx' already exists"));
   }
   bson_destroy (&reply);
   /* An existing name with other hosts: 20. */
   simproc_run_json (s, "admin", "{\"addShard\": \"rsy/hy1:1\", \"name\": \"x1\"}", &reply);
   snprintf (name, sizeof name, "%s.addShard existing name 20", v);
   CHECK (name, code_of (&reply) == 20 && !strcmp (errmsg_of (&reply), "A shard named x1 already exists"));
   bson_destroy (&reply);
   /* An empty name: 2 BadValue. */
   simproc_run_json (s, "admin", "{\"addShard\": \"rsz/hz1:1\", \"name\": \"\"}", &reply);
   snprintf (name, sizeof name, "%s.addShard empty name 2", v);
   CHECK (name, code_of (&reply) == 2 && !strcmp (errmsg_of (&reply), "shard name cannot be empty") &&
                   count_config (s, "shards", "{\"host\": \"rsz/hz1:1\"}") == 0);
   bson_destroy (&reply);
}

/* listShards answers config.shards in its natural (insertion) order: x1, added last, sorts first by name. */
static void
test_list_shards (sim_t *s, const char *v)
{
   char name[160], ids[256];
   simproc_run_ok (s, "admin", "{\"addShard\": \"aa/haa:1\", \"name\": \"aa\"}");
   list_shard_ids (s, ids, sizeof ids);
   snprintf (name, sizeof name, "%s.listShards natural order", v);
   CHECK_STR (name, "shard01,shard02,shard03,x1,aa", ids);
}

/* ---- movePrimary: 4.4-6.0 _configsvrMovePrimary / MovePrimaryCoordinator, 7.0+ _shardsvrMovePrimary and
 * MovePrimaryCoordinator::_runImpl ---- */

static void
test_move_primary (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   bool v70 = strcmp (v, "7.0") >= 0;
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"mp\", \"primaryShard\": \"shard01\"}");
   static const char *internal[] = { "admin", "config", "local" };
   for (int i = 0; i < 3; i++) {
      char json[128], want[96];
      snprintf (json, sizeof json, "{\"movePrimary\": \"%s\", \"to\": \"shard02\"}", internal[i]);
      simproc_run_json (s, "admin", json, &reply);
      snprintf (name, sizeof name, "%s.movePrimary %s 72", v, internal[i]);
      snprintf (want, sizeof want, "Can't move primary for %s database", internal[i]);
      CHECK (name, code_of (&reply) == 72 && !strcmp (errmsg_of (&reply), want));
      bson_destroy (&reply);
   }
   simproc_run_json (s, "admin", "{\"movePrimary\": \"mp\", \"to\": \"\"}", &reply);
   snprintf (name, sizeof name, "%s.movePrimary empty to 72", v);
   CHECK (name, code_of (&reply) == 72 &&
                   !strcmp (errmsg_of (&reply), "you have to specify where you want to move it") &&
                   count_config (s, "databases", "{\"_id\": \"mp\", \"primary\": \"shard01\"}") == 1);
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"movePrimary\": \"mp\", \"to\": \"nope\"}", &reply);
   snprintf (name, sizeof name, "%s.movePrimary unknown shard text", v);
   CHECK_STR (name,
              v70 ? "Requested primary shard nope does not exist"
                  : "Could not move database 'mp' to shard 'nope' :: caused by :: Shard nope not found",
              errmsg_of (&reply));
   snprintf (name, sizeof name, "%s.movePrimary unknown shard 70", v);
   CHECK (name, code_of (&reply) == 70);
   bson_destroy (&reply);
   /* Already there: 4.4 answers the shard as primary: "<id>:<host>". */
   simproc_run_json (s, "admin", "{\"movePrimary\": \"mp\", \"to\": \"shard01\"}", &reply);
   snprintf (name, sizeof name, "%s.movePrimary already primary ok (4.4: primary field)", v);
   CHECK (name, code_of (&reply) == -1 && (!strcmp (v, "4.4") ? str_at (&reply, "primary") &&
                                                                   !strncmp (str_at (&reply, "primary"), "shard01:", 8)
                                                              : !has_at (&reply, "primary")));
   bson_destroy (&reply);
   /* A draining destination: 70 from 7.0 (MovePrimaryCoordinator), moved before. */
   simproc_run_ok (s, "admin", "{\"removeShard\": \"shard03\"}");
   simproc_run_json (s, "admin", "{\"movePrimary\": \"mp\", \"to\": \"shard03\"}", &reply);
   snprintf (name, sizeof name, "%s.movePrimary to a draining shard", v);
   if (v70) {
      CHECK (name, code_of (&reply) == 70 &&
                      !strcmp (errmsg_of (&reply), "Requested primary shard shard03 is draining") &&
                      count_config (s, "databases", "{\"_id\": \"mp\", \"primary\": \"shard01\"}") == 1);
   } else {
      CHECK (name, code_of (&reply) == -1 &&
                      count_config (s, "databases", "{\"_id\": \"mp\", \"primary\": \"shard03\"}") == 1);
   }
   bson_destroy (&reply);
}

/* ---- flushRouterConfig: a number, a bool or a namespace string (checkAndGetStringData) ---- */

static void
test_flush_router_config (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   simproc_run_json (s, "admin", "{\"flushRouterConfig\": {}}", &reply);
   snprintf (name, sizeof name, "%s.flushRouterConfig object 13111", v);
   CHECK (name, code_of (&reply) == 13111 &&
                   !strcmp (errmsg_of (&reply), "wrong type for field (flushRouterConfig) object != string"));
   bson_destroy (&reply);
   snprintf (name, sizeof name, "%s.flushRouterConfig 1, true and a namespace ok", v);
   CHECK (name, simproc_run_ok (s, "admin", "{\"flushRouterConfig\": 1}") &&
                   simproc_run_ok (s, "admin", "{\"flushRouterConfig\": true}") &&
                   simproc_run_ok (s, "admin", "{\"flushRouterConfig\": \"mp.c\"}"));
}

/* ---- configureCollectionBalancing: 6.0 needs a setting (ShardingCatalogManager::configureCollectionBalancing),
 * 7.0+ takes none as a no-op; chunkSize is an IDL safeInt ---- */

static void
test_configure_balancing (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"cb\"}");
   simproc_run_ok (s, "admin", "{\"shardCollection\": \"cb.c\", \"key\": {\"a\": 1}}");
   simproc_run_json (s, "admin", "{\"configureCollectionBalancing\": \"cb.c\"}", &reply);
   snprintf (name, sizeof name, "%s.configureCollectionBalancing no setting", v);
   if (!strcmp (v, "6.0")) {
      CHECK (name,
             code_of (&reply) == 72 && !strcmp (errmsg_of (&reply), "invalid configure collection balancing update"));
   } else {
      CHECK (name, code_of (&reply) == -1);
   }
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"configureCollectionBalancing\": \"cb.c\", \"chunkSize\": \"x\"}", &reply);
   snprintf (name, sizeof name, "%s.configureCollectionBalancing chunkSize string 14", v);
   CHECK (name,
          code_of (&reply) == 14 &&
             strstr (errmsg_of (&reply),
                     "BSON field 'configureCollectionBalancing.chunkSize' is the wrong type 'string'") &&
             count_config (s, "collections", "{\"_id\": \"cb.c\", \"maxChunkSizeBytes\": {\"$exists\": true}}") == 0);
   bson_destroy (&reply);
}

/* ---- analyzeShardKey (7.0+): analyze_shard_key_cmd.cpp, validateNamespace, calculateMonotonicity ---- */

static void
test_analyze_shard_key (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   simproc_run_ok (s, "az", "{\"insert\": \"u\", \"documents\": [{\"uid\": 1}, {\"uid\": 2}, {\"uid\": 3}]}");
   simproc_run_ok (s, "az",
                   "{\"createIndexes\": \"u\", \"indexes\": [{\"key\": {\"uid\": \"hashed\"}, \"name\": "
                   "\"uid_hashed\"}]}");
   simproc_run_json (s, "admin",
                     "{\"analyzeShardKey\": \"az.u\", \"key\": {\"uid\": 1}, \"keyCharacteristics\": false, "
                     "\"readWriteDistribution\": false}",
                     &reply);
   snprintf (name, sizeof name, "%s.analyzeShardKey nothing to analyze 72", v);
   CHECK (name, code_of (&reply) == 72 && !strcmp (errmsg_of (&reply), "Cannot skip analyzing all metrics"));
   bson_destroy (&reply);
   /* A hashed index does not support { uid: 1 }: the read/write distribution only. */
   simproc_run_json (s, "admin", "{\"analyzeShardKey\": \"az.u\", \"key\": {\"uid\": 1}}", &reply);
   snprintf (name, sizeof name, "%s.analyzeShardKey no supporting index: distribution only", v);
   CHECK (name, code_of (&reply) == -1 && !has_at (&reply, "keyCharacteristics") &&
                   has_at (&reply, "readDistribution") && has_at (&reply, "writeDistribution"));
   bson_destroy (&reply);
   simproc_run_json (
      s, "admin", "{\"analyzeShardKey\": \"az.u\", \"key\": {\"uid\": 1}, \"readWriteDistribution\": false}", &reply);
   snprintf (name, sizeof name, "%s.analyzeShardKey no supporting index, characteristics only 20", v);
   CHECK (name, code_of (&reply) == 20 &&
                   !strcmp (errmsg_of (&reply),
                            "Cannot analyze the characteristics of a shard key that does not have a supporting index"));
   bson_destroy (&reply);
   /* A hashed key: not monotonic, coefficient 0. */
   simproc_run_json (s, "admin", "{\"analyzeShardKey\": \"az.u\", \"key\": {\"uid\": \"hashed\"}}", &reply);
   snprintf (name, sizeof name, "%s.analyzeShardKey hashed key not monotonic", v);
   bson_iter_t it, c;
   CHECK (name,
          code_of (&reply) == -1 && str_at (&reply, "keyCharacteristics.monotonicity.type") &&
             !strcmp (str_at (&reply, "keyCharacteristics.monotonicity.type"), "not monotonic") &&
             bson_iter_init (&it, &reply) &&
             bson_iter_find_descendant (&it, "keyCharacteristics.monotonicity.recordIdCorrelationCoefficient", &c) &&
             bson_iter_as_double (&c) == 0.0);
   bson_destroy (&reply);
   /* Internal and system collections: 20; an empty key: 2. */
   simproc_run_json (s, "admin", "{\"analyzeShardKey\": \"config.shards\", \"key\": {\"_id\": 1}}", &reply);
   snprintf (name, sizeof name, "%s.analyzeShardKey internal collection 20", v);
   CHECK (name, code_of (&reply) == 20 && !strcmp (errmsg_of (&reply), "Cannot run against an internal collection"));
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"analyzeShardKey\": \"az.system.views\", \"key\": {\"_id\": 1}}", &reply);
   snprintf (name, sizeof name, "%s.analyzeShardKey system collection 20", v);
   CHECK (name, code_of (&reply) == 20 && !strcmp (errmsg_of (&reply), "Cannot run against a system collection"));
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"analyzeShardKey\": \"az.u\", \"key\": {}}", &reply);
   snprintf (name, sizeof name, "%s.analyzeShardKey empty key 2", v);
   CHECK (name, code_of (&reply) == 2 && !strcmp (errmsg_of (&reply), "Shard key is empty"));
   bson_destroy (&reply);
}

/* ---- configureQueryAnalyzer (7.0+): configure_query_analyzer_cmd.cpp ---- */

/* The config.queryAnalyzers document of ns: its startTime (ms, 0 when none) and whether it has a stopTime. */
static int64_t
qa_start_time (sim_t *s, const char *ns, bool *stopped)
{
   bson_error_t err;
   const bson_t *doc;
   int64_t t = 0;
   bson_t *filter = BCON_NEW ("_id", BCON_UTF8 (ns));
   mongoc_collection_t *c = mongoc_client_get_collection (s->client, "config", "queryAnalyzers");
   mongoc_cursor_t *cur = mongoc_collection_find_with_opts (c, filter, NULL, NULL);
   *stopped = false;
   if (mongoc_cursor_next (cur, &doc)) {
      bson_iter_t it;
      if (bson_iter_init_find (&it, doc, "startTime") && BSON_ITER_HOLDS_DATE_TIME (&it)) {
         t = bson_iter_date_time (&it);
      }
      *stopped = has_at (doc, "stopTime");
   }
   (void) mongoc_cursor_error (cur, &err);
   mongoc_cursor_destroy (cur);
   mongoc_collection_destroy (c);
   bson_destroy (filter);
   return t;
}

static void
test_configure_query_analyzer (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   bool stopped;
   simproc_run_ok (s, "qa", "{\"insert\": \"c\", \"documents\": [{\"a\": 1}]}");
   /* off with nothing active: ok, nothing written, no oldConfiguration */
   simproc_run_json (s, "admin", "{\"configureQueryAnalyzer\": \"qa.c\", \"mode\": \"off\"}", &reply);
   snprintf (name, sizeof name, "%s.configureQueryAnalyzer off with none: ok, no document", v);
   CHECK (name, code_of (&reply) == -1 && !has_at (&reply, "oldConfiguration") &&
                   count_config (s, "queryAnalyzers", "{\"_id\": \"qa.c\"}") == 0);
   bson_destroy (&reply);
   simproc_run_ok (s, "admin", "{\"configureQueryAnalyzer\": \"qa.c\", \"mode\": \"full\", \"samplesPerSecond\": 5}");
   int64_t t0 = qa_start_time (s, "qa.c", &stopped);
   usleep (20000);
   simproc_run_json (s, "admin", "{\"configureQueryAnalyzer\": \"qa.c\", \"mode\": \"full\", \"samplesPerSecond\": 7}",
                     &reply);
   snprintf (name, sizeof name, "%s.configureQueryAnalyzer same mode keeps startTime", v);
   CHECK (name, code_of (&reply) == -1 && t0 > 0 && qa_start_time (s, "qa.c", &stopped) == t0 &&
                   str_at (&reply, "oldConfiguration.mode") &&
                   !strcmp (str_at (&reply, "oldConfiguration.mode"), "full"));
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"configureQueryAnalyzer\": \"qa.c\", \"mode\": \"off\"}", &reply);
   snprintf (name, sizeof name, "%s.configureQueryAnalyzer off: stopTime set, samplesPerSecond kept", v);
   CHECK (name, code_of (&reply) == -1 && str_at (&reply, "oldConfiguration.mode") &&
                   qa_start_time (s, "qa.c", &stopped) == t0 && stopped &&
                   count_config (s, "queryAnalyzers",
                                 "{\"_id\": \"qa.c\", \"mode\": \"off\", \"samplesPerSecond\": 7}") == 1);
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"configureQueryAnalyzer\": \"qa.c\", \"mode\": \"off\"}", &reply);
   snprintf (name, sizeof name, "%s.configureQueryAnalyzer off again: no oldConfiguration", v);
   CHECK (name, code_of (&reply) == -1 && !has_at (&reply, "oldConfiguration"));
   bson_destroy (&reply);
   simproc_run_json (s, "admin",
                     "{\"configureQueryAnalyzer\": \"config.system.sessions\", \"mode\": \"full\", "
                     "\"samplesPerSecond\": 1}",
                     &reply);
   snprintf (name, sizeof name, "%s.configureQueryAnalyzer config.system.sessions 20", v);
   CHECK (name, code_of (&reply) == 20 && !strcmp (errmsg_of (&reply), "Cannot run against an internal collection"));
   bson_destroy (&reply);
   simproc_run_json (s, "admin",
                     "{\"configureQueryAnalyzer\": \"qa.c\", \"mode\": \"full\", \"samplesPerSecond\": \"x\"}", &reply);
   snprintf (name, sizeof name, "%s.configureQueryAnalyzer samplesPerSecond string 14", v);
   CHECK (name, code_of (&reply) == 14 &&
                   strstr (errmsg_of (&reply),
                           "BSON field 'configureQueryAnalyzer.samplesPerSecond' is the wrong type 'string'"));
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"configureQueryAnalyzer\": \"qa.c\", \"mode\": \"off\", \"samplesPerSecond\": 1}",
                     &reply);
   snprintf (name, sizeof name, "%s.configureQueryAnalyzer off with samplesPerSecond 72", v);
   CHECK (name, code_of (&reply) == 72 &&
                   !strcmp (errmsg_of (&reply), "Cannot specify 'samplesPerSecond' when 'mode' is \"off\""));
   bson_destroy (&reply);
}

/* ---- $shardedDataDistribution (6.0+): PositionRequirement::kFirst, checked by Pipeline::validateCommon ---- */

static void
test_sdd_first_stage (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   simproc_run_json (s, "admin",
                     "{\"aggregate\": 1, \"pipeline\": [{\"$match\": {}}, {\"$shardedDataDistribution\": {}}], "
                     "\"cursor\": {}}",
                     &reply);
   snprintf (name, sizeof name, "%s.$shardedDataDistribution not first 40602", v);
   CHECK (name,
          code_of (&reply) == 40602 &&
             !strcmp (errmsg_of (&reply), "$shardedDataDistribution is only valid as the first stage in a pipeline"));
   bson_destroy (&reply);
   snprintf (name, sizeof name, "%s.$shardedDataDistribution first ok", v);
   CHECK (name, simproc_run_ok (s, "admin",
                                "{\"aggregate\": 1, \"pipeline\": [{\"$shardedDataDistribution\": {}}, {\"$match\": "
                                "{}}], \"cursor\": {}}"));
}

static void
run_60 (void)
{
   sim_t s;
   const char *args[] = { "--version", "6.0", "--shards", "2", NULL };
   if (!fid_start (&s, args)) {
      UNIT_FAIL ("6.0.start", "shardsim did not start");
      sim_stop (&s);
      return;
   }
   test_configure_balancing (&s, "6.0");
   test_sdd_first_stage (&s, "6.0");
   int status = sim_stop (&s);
   CHECK ("6.0.clean exit", WIFEXITED (status) && WEXITSTATUS (status) == 0);
}

/* ---- duplicate keys: DuplicateKeyErrorInfo (keyPattern, keyValue) in the write error and the command error ---- */

static void
test_dup_key (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   simproc_run_ok (s, "dk", "{\"insert\": \"c\", \"documents\": [{\"_id\": 1, \"a\": 1}]}");
   simproc_run_json (s, "dk", "{\"insert\": \"c\", \"documents\": [{\"_id\": 1, \"a\": 2}]}", &reply);
   bson_iter_t it, f;
   snprintf (name, sizeof name, "%s.dup key write error keyPattern and keyValue", v);
   CHECK (name, bson_iter_init (&it, &reply) && bson_iter_find_descendant (&it, "writeErrors.0.keyPattern._id", &f) &&
                   bson_iter_as_int64 (&f) == 1 && bson_iter_init (&it, &reply) &&
                   bson_iter_find_descendant (&it, "writeErrors.0.keyValue._id", &f) && bson_iter_as_int64 (&f) == 1);
   snprintf (name, sizeof name, "%s.dup key write error text", v);
   CHECK_STR (name, "E11000 duplicate key error collection: dk.c index: _id_ dup key: { _id: 1 }",
              str_at (&reply, "writeErrors.0.errmsg") ? str_at (&reply, "writeErrors.0.errmsg") : "");
   bson_destroy (&reply);
   simproc_run_json (s, "dk",
                     "{\"findAndModify\": \"c\", \"query\": {\"_id\": 1, \"a\": 99}, \"update\": {\"$set\": "
                     "{\"b\": 1}}, \"upsert\": true}",
                     &reply);
   snprintf (name, sizeof name, "%s.dup key findAndModify upsert: 11000 with keyPattern and keyValue", v);
   CHECK (name, code_of (&reply) == 11000 && has_at (&reply, "keyPattern._id") && has_at (&reply, "keyValue._id"));
   bson_destroy (&reply);
}

/* ---- 4.4/5.0 balancer: a move that fails ChunkTooBig runs Balancer::_splitOrMarkJumbo (splitVector's points, or
 * jumbo: true in config.chunks when there are none) instead of moving the chunk ---- */

/* Collection fj.<coll> keyed { <field>: 1 }: n documents of 231 bytes whose key is key(i), in chunk [MinKey, 1000)
 * on shard01, and three empty chunks after it, so that the chunk-count policy moves the first chunk. */
static void
setup_big_chunk (sim_t *s, const char *coll, const char *field, int n, bool same_key)
{
   char json[512], pad[201];
   memset (pad, 'x', 200);
   pad[200] = '\0';
   snprintf (json, sizeof json, "{\"shardCollection\": \"fj.%s\", \"key\": {\"%s\": 1}}", coll, field);
   simproc_run_ok (s, "admin", json);
   for (int i = 0; i < n; i++) {
      snprintf (json, sizeof json, "{\"insert\": \"%s\", \"documents\": [{\"%s\": %d, \"pad\": \"%s\"}]}", coll, field,
                same_key ? 5 : i, pad);
      simproc_run_ok (s, "fj", json);
   }
   for (int m = 1000; m <= 3000; m += 1000) {
      snprintf (json, sizeof json, "{\"split\": \"fj.%s\", \"middle\": {\"%s\": %d}}", coll, field, m);
      simproc_run_ok (s, "admin", json);
   }
}

static void
test_split_or_mark_jumbo (sim_t *s, const char *v)
{
   char name[160];
   simproc_run_ok (s, "config",
                   "{\"update\": \"settings\", \"updates\": [{\"q\": {\"_id\": \"autosplit\"}, \"u\": {\"$set\": "
                   "{\"enabled\": false}}, \"upsert\": true}]}");
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"fj\", \"primaryShard\": \"shard01\"}");
   /* 30 distinct keys, over 2 x 1024 / 231 = 8 documents: split at half chunk sizes, nothing moved this round */
   setup_big_chunk (s, "s", "k", 30, false);
   snprintf (name, sizeof name, "%s.balancer too big: setup four chunks on shard01", v);
   CHECK (name, count_config (s, "chunks", "{\"min.k\": {\"$exists\": true}, \"shard\": \"shard01\"}") == 4);
   simproc_run_ok (s, "admin", "{\"simBalancer\": \"round\"}");
   snprintf (name, sizeof name, "%s.balancer too big: split, not moved", v);
   CHECK (name, count_config (s, "chunks", "{\"min.k\": {\"$exists\": true}}") > 4 &&
                   count_config (s, "chunks", "{\"min.k\": {\"$exists\": true}, \"shard\": \"shard02\"}") == 0 &&
                   count_config (s, "chunks", "{\"min.k\": {\"$exists\": true}, \"jumbo\": true}") == 0);
   snprintf (name, sizeof name, "%s.balancer too big: the pieces move next round", v);
   CHECK (name, simproc_run_ok (s, "admin", "{\"simBalancer\": \"round\"}") &&
                   count_config (s, "chunks", "{\"min.k\": {\"$exists\": true}, \"shard\": \"shard02\"}") == 1);
   /* 20 documents of one key: no split point, jumbo: true, not moved (fj.s left alone from here) */
   simproc_run_ok (s, "admin", "{\"setAllowMigrations\": \"fj.s\", \"allowMigrations\": false}");
   setup_big_chunk (s, "j", "j", 20, true);
   simproc_run_ok (s, "admin", "{\"simBalancer\": \"round\"}");
   snprintf (name, sizeof name, "%s.balancer too big, one key: marked jumbo, not moved", v);
   CHECK (name, count_config (s, "chunks",
                              "{\"min.j\": {\"$type\": \"minKey\"}, \"jumbo\": true, \"shard\": "
                              "\"shard01\"}") == 1 &&
                   count_config (s, "chunks", "{\"min.j\": {\"$exists\": true}}") == 4);
}

static void
run_balancer_44 (const char *version)
{
   sim_t s;
   const char *args[] = { "--version", version, "--shards", "2", "--chunk-size-kb", "1", NULL };
   char pre[32];
   snprintf (pre, sizeof pre, "%s.balancer ", version);
   if (!fid_begin (&s, args, pre))
      return;
   test_split_or_mark_jumbo (&s, version);
   fid_end (&s, pre);
}

/* ---- enableSharding on an existing database naming another primary: ShardingCatalogManager::createDatabase ---- */

static void
test_enable_sharding_primary (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160], want[160];
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"ep\", \"primaryShard\": \"shard01\"}");
   simproc_run_json (s, "admin", "{\"enableSharding\": \"ep\", \"primaryShard\": \"shard02\"}", &reply);
   snprintf (name, sizeof name, "%s.enableSharding other primary 48", v);
   CHECK (name,
          code_of (&reply) == 48 && count_config (s, "databases", "{\"_id\": \"ep\", \"primary\": \"shard01\"}") == 1);
   snprintf (name, sizeof name, "%s.enableSharding other primary text", v);
   snprintf (want, sizeof want, "database already created on a primary which is different from%s shard02",
             strcmp (v, "6.0") >= 0 ? "" : ":");
   CHECK_STR (name, want, errmsg_of (&reply));
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"enableSharding\": \"ep\", \"primaryShard\": \"shard01\"}", &reply);
   snprintf (name, sizeof name, "%s.enableSharding same primary ok", v);
   CHECK (name, code_of (&reply) == -1);
   bson_destroy (&reply);
}

static void
run_version (const char *version)
{
   sim_t s;
   const char *args[] = { "--version", version, "--shards", "3", "--chunk-size-kb", "1", NULL };
   char pre[32];
   snprintf (pre, sizeof pre, "%s.", version);
   if (!fid_begin (&s, args, pre))
      return;
   test_add_shard (&s, version);
   test_list_shards (&s, version);
   test_move_primary (&s, version);
   test_enable_sharding_primary (&s, version);
   test_flush_router_config (&s, version);
   test_dup_key (&s, version);
   if (strcmp (version, "6.0") > 0) {
      test_configure_balancing (&s, version);
      test_sdd_first_stage (&s, version);
   }
   if (strcmp (version, "7.0") >= 0) {
      test_analyze_shard_key (&s, version);
      test_configure_query_analyzer (&s, version);
   }
   fid_end (&s, pre);
}

/* ---- listCommands (generic.cpp CmdListCommands::run), dbStats (cluster_db_stats_cmd.cpp), dataSize ---- */

/* The BSON type at path in doc (BSON_TYPE_EOD when absent). */
static bson_type_t
type_at (const bson_t *doc, const char *path)
{
   bson_iter_t it, d;
   return bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, path, &d) ? bson_iter_type (&d) : BSON_TYPE_EOD;
}

static void
test_list_commands (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   bool v44 = !strcmp (v, "4.4");
   simproc_run_json (s, "admin", "{\"listCommands\": 1}", &reply);
   snprintf (name, sizeof name, "%s.listCommands names only, no aliases (movechunk, dbstats, ismaster, addshard)", v);
   CHECK (name, has_at (&reply, "commands.moveChunk") && has_at (&reply, "commands.dbStats") &&
                   !has_at (&reply, "commands.movechunk") && !has_at (&reply, "commands.dbstats") &&
                   !has_at (&reply, "commands.ismaster") && !has_at (&reply, "commands.addshard") &&
                   !has_at (&reply, "commands.deleteIndexes") && has_at (&reply, "commands.isMaster") == v44);
   if (v44) {
      snprintf (name, sizeof name,
                "%s.listCommands 4.4 fields: help, slaveOk, adminOnly (no requiresAuth, apiVersions)", v);
      CHECK (name, type_at (&reply, "commands.count.slaveOk") == BSON_TYPE_BOOL &&
                      !has_at (&reply, "commands.count.requiresAuth") &&
                      !has_at (&reply, "commands.count.apiVersions") &&
                      !has_at (&reply, "commands.count.deprecatedApiVersions"));
   } else {
      snprintf (name, sizeof name, "%s.listCommands requiresAuth false for listCommands, hello, buildInfo, ping", v);
      CHECK (name, type_at (&reply, "commands.listCommands.requiresAuth") == BSON_TYPE_BOOL &&
                      !bool_at (&reply, "commands.listCommands.requiresAuth") &&
                      !bool_at (&reply, "commands.hello.requiresAuth") &&
                      !bool_at (&reply, "commands.buildInfo.requiresAuth") &&
                      !bool_at (&reply, "commands.ping.requiresAuth") &&
                      bool_at (&reply, "commands.find.requiresAuth"));
   }
   const char *ok = v44 ? "slaveOk" : "secondaryOk";
   char f1[96], f2[96], f3[96], f4[96], f5[96];
   snprintf (f1, sizeof f1, "commands.find.%s", ok);
   snprintf (f2, sizeof f2, "commands.find.%s", v44 ? "slaveOverrideOk" : "secondaryOverrideOk");
   snprintf (f3, sizeof f3, "commands.create.%s", ok);
   snprintf (f4, sizeof f4, "commands.collMod.%s", ok);
   snprintf (f5, sizeof f5, "commands.count.%s", ok);
   snprintf (name, sizeof name, "%s.listCommands %s per command: find opt-in (override ok), create/collMod never", v,
             ok);
   CHECK (name, type_at (&reply, f1) == BSON_TYPE_BOOL && !bool_at (&reply, f1) && bool_at (&reply, f2) &&
                   !bool_at (&reply, f3) && !bool_at (&reply, f4) && bool_at (&reply, f5));
   bson_destroy (&reply);
}

/* The first raw (per-shard) document of a dbStats reply into out (always initialised); false when none. */
static bool
first_raw (const bson_t *reply, bson_t *out)
{
   bson_iter_t it, r;
   bson_init (out);
   if (bson_iter_init_find (&it, reply, "raw") && BSON_ITER_HOLDS_DOCUMENT (&it) && bson_iter_recurse (&it, &r) &&
       bson_iter_next (&r) && BSON_ITER_HOLDS_DOCUMENT (&r)) {
      uint32_t len;
      const uint8_t *data;
      bson_t tmp;
      bson_iter_document (&r, &len, &data);
      if (bson_init_static (&tmp, data, len)) {
         bson_concat (out, &tmp);
         return true;
      }
   }
   return false;
}

static void
test_db_stats (sim_t *s, const char *v)
{
   bson_t reply, raw;
   bson_iter_t it;
   char name[160];
   double total = -1, storage = 0, index = 0;
   insert_docs (s, "st", "c", 0, 5);
   simproc_run_json (s, "st", "{\"dbStats\": 1}", &reply);
   if (bson_iter_init_find (&it, &reply, "totalSize") && BSON_ITER_HOLDS_DOUBLE (&it)) {
      total = bson_iter_double (&it);
   }
   if (bson_iter_init_find (&it, &reply, "storageSize") && bson_iter_init_find (&it, &reply, "indexSize")) {
      bson_iter_init_find (&it, &reply, "storageSize");
      storage = bson_iter_as_double (&it);
      bson_iter_init_find (&it, &reply, "indexSize");
      index = bson_iter_as_double (&it);
   }
   snprintf (name, sizeof name, "%s.dbStats totalSize (storage + index), fsUsedSize, fsTotalSize (doubles)", v);
   CHECK (name, code_of (&reply) == -1 && total > 0 && total == storage + index &&
                   type_at (&reply, "fsUsedSize") == BSON_TYPE_DOUBLE &&
                   type_at (&reply, "fsTotalSize") == BSON_TYPE_DOUBLE);
   snprintf (name, sizeof name, "%s.dbStats counts and scaleFactor int32 (appendNumber), sizes double", v);
   CHECK (name, type_at (&reply, "collections") == BSON_TYPE_INT32 && type_at (&reply, "objects") == BSON_TYPE_INT32 &&
                   type_at (&reply, "views") == BSON_TYPE_INT32 && type_at (&reply, "indexes") == BSON_TYPE_INT32 &&
                   type_at (&reply, "scaleFactor") == BSON_TYPE_INT32 &&
                   type_at (&reply, "dataSize") == BSON_TYPE_DOUBLE && type_at (&reply, "objects") == BSON_TYPE_INT32);
   snprintf (name, sizeof name, "%s.dbStats per shard: totalSize, fsTotalSize, scaleFactor int32", v);
   CHECK (name, first_raw (&reply, &raw) && type_at (&raw, "totalSize") == BSON_TYPE_DOUBLE &&
                   type_at (&raw, "fsTotalSize") == BSON_TYPE_DOUBLE &&
                   type_at (&raw, "scaleFactor") == BSON_TYPE_INT32);
   bson_destroy (&raw);
   bson_destroy (&reply);
   simproc_run_json (s, "st", "{\"dbStats\": 1, \"scale\": 0}", &reply);
   snprintf (name, sizeof name, "%s.dbStats scale 0: 2 \"Scale must be greater than zero\"", v);
   CHECK (name, code_of (&reply) == 2 && !strcmp (errmsg_of (&reply), "Scale must be greater than zero"));
   bson_destroy (&reply);
}

static void
test_data_size_unsharded (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   insert_docs (s, "ds", "u", 0, 5);
   simproc_run_json (s, "admin", "{\"dataSize\": \"ds.u\"}", &reply);
   bson_iter_t it;
   int64_t n = -1, size = -1;
   if (bson_iter_init_find (&it, &reply, "numObjects") && BSON_ITER_HOLDS_INT64 (&it)) {
      n = bson_iter_int64 (&it);
   }
   if (bson_iter_init_find (&it, &reply, "size") && BSON_ITER_HOLDS_INT64 (&it)) {
      size = bson_iter_int64 (&it);
   }
   snprintf (name, sizeof name, "%s.dataSize unsharded collection: answered by its primary (5 documents, int64)", v);
   CHECK (name, code_of (&reply) == -1 && n == 5 && size > 5 * 200);
   bson_destroy (&reply);
   simproc_run_json (s, "admin",
                     "{\"dataSize\": \"ds.u\", \"keyPattern\": {\"k\": 1}, \"min\": {\"k\": 1}, \"max\": "
                     "{\"k\": 3}}",
                     &reply);
   n = -1;
   if (bson_iter_init_find (&it, &reply, "numObjects")) {
      n = bson_iter_as_int64 (&it);
   }
   snprintf (name, sizeof name, "%s.dataSize unsharded collection with min/max: the documents in [min, max)", v);
   CHECK (name, code_of (&reply) == -1 && n == 2);
   bson_destroy (&reply);
}

/* listCommands, dbStats and dataSize on versions 4.4 (no dbStats change), 5.0 and 8.0. */
static void
run_catalog (const char *version)
{
   sim_t s;
   const char *args[] = { "--version", version, "--shards", "2", NULL };
   char pre[32];
   snprintf (pre, sizeof pre, "%s.catalog ", version);
   if (!fid_begin (&s, args, pre))
      return;
   test_list_commands (&s, version);
   if (strcmp (version, "4.4") != 0) {
      test_db_stats (&s, version);
   }
   test_data_size_unsharded (&s, version);
   fid_end (&s, pre);
}

int
main (void)
{
   mongoc_init ();
   mongoc_log_set_handler (NULL, NULL);
   run_version ("4.4");
   run_60 ();
   run_balancer_44 ("4.4");
   run_balancer_44 ("5.0");
   run_version ("8.0");
   run_catalog ("4.4");
   run_catalog ("5.0");
   run_catalog ("8.0");
   mongoc_cleanup ();
   UNIT_EXIT ();
}
