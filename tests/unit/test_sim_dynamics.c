/* passes: plain asan */
/* Integration tests of shardsim's live cluster through libmongoc: workloads of each seed-document distribution
 * (ascending inserts into the MaxKey chunk and top-only splits before 6.0, an even hashed spread, low cardinality
 * bounded chunk counts, zipf jumbo chunks, location zones), the balancer's policy and controls (balancerStop,
 * activeWindow, noBalance, allowMigrations, draining), migrations visible in currentOp and config.migrations, the
 * bulk loader, analyzeShardKey on loaded data and --seed determinism. Every assertion reads config.* or the
 * server's statistics; runs take seconds (small chunk sizes, fast balancer intervals). */
#include "tests/unit/unit.h"
#include "tests/unit/simproc.h"

#include <time.h>

#include "shell/lib/clock.h"

static void
sleep_ms (int64_t ms)
{
   usleep ((useconds_t) (ms * 1000));
}

/* Starts $BINDIR/shardsim with the given extra arguments (NULL-terminated). */
static bool
sim_start (sim_t *s, const char *const *args)
{
   char pf[256];
   snprintf (pf, sizeof pf, "/tmp/test_sim_dynamics.%d.port", (int) getpid ());
   return simproc_start (s, pf, args, 400, 25, "serverSelectionTimeoutMS=5000&socketTimeoutMS=60000");
}

static int64_t
int_at (const bson_t *doc, const char *path)
{
   bson_iter_t it, d;
   if (bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, path, &d) && BSON_ITER_HOLDS_NUMBER (&d)) {
      return bson_iter_as_int64 (&d);
   }
   return -1;
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
bool_at (const bson_t *doc, const char *path)
{
   bson_iter_t it, d;
   return bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, path, &d) && bson_iter_as_bool (&d);
}

/* Runs an aggregate (db, coll or NULL for aggregate: 1, JSON pipeline) and copies the results into docs (up to max);
 * returns how many. */
static int
agg (sim_t *s, const char *db, const char *coll, const char *pipeline, bson_t **docs, int max)
{
   char *json = bson_strdup_printf ("{\"aggregate\": %s%s%s, \"pipeline\": %s, \"cursor\": {\"batchSize\": 100000}}",
                                    coll ? "\"" : "", coll ? coll : "1", coll ? "\"" : "", pipeline);
   bson_t reply;
   int n = 0;
   if (simproc_run_json (s, db, json, &reply)) {
      bson_iter_t it, a;
      if (bson_iter_init (&it, &reply) && bson_iter_find_descendant (&it, "cursor.firstBatch", &a) &&
          bson_iter_recurse (&a, &it)) {
         while (bson_iter_next (&it) && n < max) {
            uint32_t l;
            const uint8_t *d;
            bson_iter_document (&it, &l, &d);
            docs[n++] = bson_new_from_data (d, l);
         }
      }
   }
   bson_destroy (&reply);
   bson_free (json);
   return n;
}

static void
free_docs (bson_t **docs, int n)
{
   for (int i = 0; i < n; i++) {
      bson_destroy (docs[i]);
   }
}

/* Number of config.<coll> documents matching a JSON filter. */
static int64_t
count_config (sim_t *s, const char *coll, const char *filter)
{
   return simproc_count (s, "config", coll, filter);
}

/* The chunk filter of ns (uuid or ns, as mongosh chooses) as JSON, into out. */
static void
chunk_filter (sim_t *s, const char *ns, char *out, size_t outlen)
{
   bson_t *docs[1];
   char pipe[512];
   snprintf (pipe, sizeof pipe, "[{\"$match\": {\"_id\": \"%s\"}}]", ns);
   int n = agg (s, "config", "collections", pipe, docs, 1);
   snprintf (out, outlen, "{\"ns\": \"%s\"}", ns);
   if (n == 1) {
      bson_iter_t it;
      if (bson_iter_init_find (&it, docs[0], "timestamp") && bson_iter_init_find (&it, docs[0], "uuid")) {
         const uint8_t *d;
         uint32_t l;
         bson_iter_binary (&it, NULL, &l, &d);
         /* base64 of the 16 bytes */
         static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
         char enc[32];
         int o = 0;
         for (int i = 0; i < 16; i += 3) {
            uint32_t v =
               (uint32_t) d[i] << 16 | (i + 1 < 16 ? (uint32_t) d[i + 1] << 8 : 0) | (i + 2 < 16 ? d[i + 2] : 0);
            enc[o++] = b64[(v >> 18) & 63];
            enc[o++] = b64[(v >> 12) & 63];
            enc[o++] = i + 1 < 16 ? b64[(v >> 6) & 63] : '=';
            enc[o++] = i + 2 < 16 ? b64[v & 63] : '=';
         }
         enc[o] = '\0';
         snprintf (out, outlen, "{\"uuid\": {\"$binary\": {\"base64\": \"%s\", \"subType\": \"04\"}}}", enc);
      }
   }
   free_docs (docs, n);
}

/* Chunks of ns per shard into counts (shard01..shard03 → [0..2]); returns the total. */
static int64_t
chunks_per_shard (sim_t *s, const char *ns, int64_t counts[3], const char *extra)
{
   char f[512], q[700];
   int64_t total = 0;
   chunk_filter (s, ns, f, sizeof f);
   for (int i = 0; i < 3; i++) {
      snprintf (q, sizeof q, "{\"$and\": [%s, {\"shard\": \"shard0%d\"}%s%s]}", f, i + 1, extra ? ", " : "",
                extra ? extra : "");
      counts[i] = count_config (s, "chunks", q);
      total += counts[i];
   }
   return total;
}

/* latencyStats.<kind>.ops per shard of db.coll into ops[0..2]. */
static void
latency_ops (sim_t *s, const char *db, const char *coll, const char *kind, int64_t ops[3])
{
   bson_t *docs[8];
   char path[64];
   int n = agg (s, db, coll, "[{\"$collStats\": {\"latencyStats\": {}}}]", docs, 8);
   ops[0] = ops[1] = ops[2] = 0;
   snprintf (path, sizeof path, "latencyStats.%s.ops", kind);
   for (int i = 0; i < n; i++) {
      const char *sh = str_at (docs[i], "shard");
      if (sh && !strncmp (sh, "shard0", 6) && sh[6] >= '1' && sh[6] <= '3') {
         ops[sh[6] - '1'] = int_at (docs[i], path);
      }
   }
   free_docs (docs, n);
}

/* Waits (up to ms) until balancerCollectionStatus says ns is compliant and no migration is in flight. */
static bool
wait_balanced (sim_t *s, const char *ns, int64_t ms)
{
   char cmd[256];
   snprintf (cmd, sizeof cmd, "{\"balancerCollectionStatus\": \"%s\"}", ns);
   for (int64_t end = clock_wall_ms () + ms; clock_wall_ms () < end; sleep_ms (100)) {
      bson_t r1, r2;
      simproc_run_json (s, "admin", cmd, &r1);
      simproc_run_json (s, "admin", "{\"simBalancer\": \"status\"}", &r2);
      bson_iter_t it;
      bool idle = bson_iter_init_find (&it, &r2, "migrations") && bson_iter_recurse (&it, &it) && !bson_iter_next (&it);
      bool ok = bool_at (&r1, "balancerCompliant") && idle;
      bson_destroy (&r1);
      bson_destroy (&r2);
      if (ok) {
         return true;
      }
   }
   return false;
}

static int64_t
workload_count (sim_t *s, const char *field)
{
   bson_t r;
   char path[64];
   snprintf (path, sizeof path, "workloads.0.%s", field);
   simproc_run_json (s, "admin", "{\"simWorkload\": \"status\"}", &r);
   int64_t v = int_at (&r, path);
   bson_destroy (&r);
   return v;
}

/* ---- ascending: the MaxKey chunk takes every insert, splits only at the top, the balancer moves chunks away ---- */

static void
test_ascending (void)
{
   sim_t s;
   const char *args[] = { "--version",
                          "5.0",
                          "--scenario",
                          "demo",
                          "--chunk-size-kb",
                          "16",
                          "--balancer-interval-ms",
                          "50",
                          "--migration-ms",
                          "20",
                          "--seed",
                          "7",
                          NULL };
   if (!sim_start (&s, args)) {
      UNIT_FAIL ("asc.start", "shardsim did not start");
      sim_stop (&s);
      return;
   }
   int64_t before[3], after[3], chunks0[3], chunks1[3], top[3];
   latency_ops (&s, "app", "events", "writes", before);
   chunks_per_shard (&s, "app.events", chunks0, NULL);
   chunks_per_shard (&s, "app.events", top, "{\"max.ts\": {\"$maxKey\": 1}}");
   int owner = top[0] ? 0 : top[1] ? 1 : 2;
   int64_t t0 = clock_wall_ms ();
   CHECK ("asc.start workload",
          simproc_run_ok (&s, "admin",
                          "{\"simWorkload\": \"start\", \"ns\": \"app.events\", \"kind\": \"ascending\", "
                          "\"rate\": 1500}"));
   sleep_ms (2000);
   CHECK ("asc.stop workload", simproc_run_ok (&s, "admin", "{\"simWorkload\": \"stop\", \"ns\": \"app.events\"}"));
   int64_t inserted = workload_count (&s, "inserts");
   latency_ops (&s, "app", "events", "writes", after);
   chunks_per_shard (&s, "app.events", top, "{\"max.ts\": {\"$maxKey\": 1}}");
   printf ("# ascending: %lld inserts; writes per shard +%lld/+%lld/+%lld; MaxKey chunk on shard0%d\n",
           (long long) inserted, (long long) (after[0] - before[0]), (long long) (after[1] - before[1]),
           (long long) (after[2] - before[2]), owner + 1);
   CHECK ("asc.inserts happened", inserted > 1000);
   CHECK ("asc.MaxKey chunk stayed on its shard", top[owner] == 1);
   CHECK ("asc.every insert on the MaxKey chunk's shard", after[owner] - before[owner] == inserted);
   bool others_zero = true;
   for (int i = 0; i < 3; i++) {
      others_zero = others_zero && (i == owner || after[i] == before[i]);
   }
   CHECK ("asc.no insert on the other shards", others_zero);
   /* Splits since t0: only of the top chunk. */
   char q[256];
   snprintf (q, sizeof q,
             "{\"ns\": \"app.events\", \"what\": {\"$in\": [\"split\", \"multi-split\"]}, \"time\": "
             "{\"$gte\": {\"$date\": %lld}}}",
             (long long) t0);
   int64_t nsplits = count_config (&s, "changelog", q);
   snprintf (q, sizeof q,
             "{\"ns\": \"app.events\", \"what\": {\"$in\": [\"split\", \"multi-split\"]}, \"time\": "
             "{\"$gte\": {\"$date\": %lld}}, \"details.before.max.ts\": {\"$ne\": {\"$maxKey\": 1}}}",
             (long long) t0);
   int64_t not_top = count_config (&s, "changelog", q);
   printf ("# ascending: %lld split entries, %lld not of the top chunk\n", (long long) nsplits, (long long) not_top);
   CHECK ("asc.chunks split", nsplits >= 3);
   CHECK ("asc.splits only at the top", not_top == 0);
   /* The balancer moves chunks away from the MaxKey shard. */
   CHECK ("asc.balanced afterwards", wait_balanced (&s, "app.events", 20000));
   snprintf (q, sizeof q,
             "{\"ns\": \"app.events\", \"what\": \"moveChunk.commit\", \"details.from\": \"shard0%d\", "
             "\"time\": {\"$gte\": {\"$date\": %lld}}}",
             owner + 1, (long long) t0);
   int64_t moved = count_config (&s, "changelog", q);
   int64_t total = chunks_per_shard (&s, "app.events", chunks1, NULL);
   printf ("# ascending: chunks %lld/%lld/%lld -> %lld/%lld/%lld, %lld moved off shard0%d\n", (long long) chunks0[0],
           (long long) chunks0[1], (long long) chunks0[2], (long long) chunks1[0], (long long) chunks1[1],
           (long long) chunks1[2], (long long) moved, owner + 1);
   CHECK ("asc.balancer moved chunks off the MaxKey shard", moved >= 3);
   int64_t lo = chunks1[0], hi = chunks1[0];
   for (int i = 1; i < 3; i++) {
      lo = chunks1[i] < lo ? chunks1[i] : lo;
      hi = chunks1[i] > hi ? chunks1[i] : hi;
   }
   CHECK ("asc.chunk counts within the 4.4/5.0 threshold", hi - lo < (total < 20 ? 2 : total < 80 ? 4 : 8));
   CHECK ("asc.moveChunk.start/from logged",
          count_config (&s, "changelog",
                        "{\"ns\": \"app.events\", \"what\": \"moveChunk.from\", \"details.note\": "
                        "\"success\"}") >= moved);
   CHECK ("asc.balancer.round spelled errorOccured (5.0)",
          count_config (&s, "actionlog",
                        "{\"what\": \"balancer.round\", \"details.errorOccured\": false, "
                        "\"details.chunksMoved\": {\"$gte\": 1}}") >= 1);
   bson_t st;
   simproc_run_json (&s, "admin", "{\"serverStatus\": 1}", &st);
   CHECK ("asc.opcounters.insert counts the workload", int_at (&st, "opcounters.insert") >= inserted);
   bson_destroy (&st);
   int status = sim_stop (&s);
   CHECK ("asc.clean exit", WIFEXITED (status) && WEXITSTATUS (status) == 0);
}

/* ---- 8.0: no auto-split; the balancer works on data size ---- */

static void
test_ascending_80 (void)
{
   sim_t s;
   const char *args[] = {
      "--version",      "8.0", "--scenario", "demo", "--chunk-size-kb", "16", "--balancer-interval-ms", "50",
      "--migration-ms", "10",  NULL
   };
   if (!sim_start (&s, args)) {
      UNIT_FAIL ("asc80.start", "shardsim did not start");
      sim_stop (&s);
      return;
   }
   int64_t c0[3], c1[3];
   int64_t n0 = chunks_per_shard (&s, "app.events", c0, NULL);
   simproc_run_ok (&s, "admin", "{\"balancerStop\": 1}");
   int64_t t0 = clock_wall_ms ();
   simproc_run_ok (&s, "admin",
                   "{\"simWorkload\": \"start\", \"ns\": \"app.events\", \"kind\": \"ascending\", \"rate\": "
                   "2000}");
   sleep_ms (1000);
   simproc_run_ok (&s, "admin", "{\"simWorkload\": \"stop\"}");
   int64_t n1 = chunks_per_shard (&s, "app.events", c1, NULL);
   char q[256];
   snprintf (q, sizeof q,
             "{\"what\": {\"$in\": [\"split\", \"multi-split\"]}, \"time\": {\"$gte\": {\"$date\": "
             "%lld}}}",
             (long long) t0);
   CHECK ("asc80.no auto-split from 6.0", n1 == n0 && count_config (&s, "changelog", q) == 0);
   bson_t r;
   simproc_run_json (&s, "admin", "{\"balancerCollectionStatus\": \"app.events\"}", &r);
   const char *violation = str_at (&r, "firstComplianceViolation");
   CHECK ("asc80.data-size imbalance reported",
          !bool_at (&r, "balancerCompliant") && violation && !strcmp (violation, "chunksImbalance"));
   bson_destroy (&r);
   simproc_run_ok (&s, "admin", "{\"balancerStart\": 1}");
   CHECK ("asc80.balanced by data size", wait_balanced (&s, "app.events", 20000));
   CHECK ("asc80.ranges moved",
          count_config (&s, "changelog", "{\"ns\": \"app.events\", \"what\": \"moveChunk.commit\"}") > 3);
   CHECK ("asc80.balancer.round spelled errorOccurred (6.0+)",
          count_config (&s, "actionlog", "{\"what\": \"balancer.round\", \"details.errorOccurred\": false}") >= 1);
   CHECK ("asc80.no config.migrations from 6.0", count_config (&s, "migrations", "{}") == 0);
   /* Once balanced, an automerger pass leaves no two adjacent chunks on one shard. A pass merges only chunks on
    * their shard since before the history window (300 s: 1.5 s at 50 ms rounds) and comes every
    * autoMergerIntervalSecs (here every 30 rounds instead of 360), so wait for it. */
   simproc_run_ok (&s, "admin", "{\"simBalancer\": \"live\", \"intervalMs\": 50, \"autoMergerRounds\": 30}");
   char f[512], pipe[700];
   chunk_filter (&s, "app.events", f, sizeof f);
   snprintf (pipe, sizeof pipe, "[{\"$match\": %s}, {\"$sort\": {\"min\": 1}}]", f);
   int n = 0, adjacent = 1;
   for (int tries = 0; tries < 100 && adjacent > 0; tries++) {
      sleep_ms (100);
      bson_t *docs[400];
      n = agg (&s, "config", "chunks", pipe, docs, 400);
      adjacent = 0;
      for (int i = 1; i < n; i++) {
         const char *a = str_at (docs[i - 1], "shard"), *b = str_at (docs[i], "shard");
         adjacent += a && b && !strcmp (a, b) && !bool_at (docs[i], "jumbo") && !bool_at (docs[i - 1], "jumbo");
      }
      free_docs (docs, n);
   }
   int64_t merges = count_config (&s, "changelog", "{\"ns\": \"app.events\", \"what\": \"merge\"}");
   printf ("# ascending 8.0: %d chunks, %lld merge entries, %d adjacent pairs on one shard\n", n, (long long) merges,
           adjacent);
   CHECK ("asc80.automerger leaves no adjacent chunks on one shard (7.0+)", n > 0 && adjacent == 0);
   sim_stop (&s);
}

/* ---- hashed: an ascending field under a hashed key spreads evenly ---- */

static void
test_hashed (void)
{
   sim_t s;
   const char *args[] = { "--version", "8.0", "--workload", "test.h:hashed:6000", "--seed", "3", NULL };
   if (!sim_start (&s, args)) {
      UNIT_FAIL ("hashed.start", "shardsim did not start");
      sim_stop (&s);
      return;
   }
   sleep_ms (1500);
   simproc_run_ok (&s, "admin", "{\"simWorkload\": \"stop\"}");
   int64_t w[3];
   latency_ops (&s, "test", "h", "writes", w);
   int64_t lo = w[0], hi = w[0];
   for (int i = 1; i < 3; i++) {
      lo = w[i] < lo ? w[i] : lo;
      hi = w[i] > hi ? w[i] : hi;
   }
   printf ("# hashed: writes per shard %lld/%lld/%lld\n", (long long) w[0], (long long) w[1], (long long) w[2]);
   CHECK ("hashed.inserts happened", lo > 1000);
   CHECK ("hashed.per-shard inserts within 10%", lo > 0 && (double) hi <= 1.10 * (double) lo);
   bson_t *docs[8];
   int n = agg (&s, "admin", NULL, "[{\"$shardedDataDistribution\": {}}, {\"$match\": {\"ns\": \"test.h\"}}]", docs, 8);
   int64_t owned = 0;
   for (int i = 0; i < 3 && n == 1; i++) {
      char p[64];
      snprintf (p, sizeof p, "shards.%d.numOwnedDocuments", i);
      owned += int_at (docs[0], p);
   }
   free_docs (docs, n);
   CHECK ("hashed.$shardedDataDistribution counts every insert", owned == workload_count (&s, "inserts"));
   sim_stop (&s);
}

/* ---- lowcard: never more chunks than distinct values; zipf: jumbo chunks ---- */

static void
test_lowcard_zipf (const char *version)
{
   sim_t s;
   char name[64];
   const char *args[] = {
      "--version", version,      "--chunk-size-kb",      "4",          "--balancer-interval-ms", "50", "--migration-ms",
      "5",         "--workload", "test.lc:lowcard:3000", "--workload", "test.z:zipf:3000",       NULL
   };
   if (!sim_start (&s, args)) {
      UNIT_FAIL ("lowcard.start", "shardsim did not start");
      sim_stop (&s);
      return;
   }
   sleep_ms (1500);
   simproc_run_ok (&s, "admin", "{\"simWorkload\": \"stop\"}");
   wait_balanced (&s, "test.z", 5000);
   int64_t c[3];
   int64_t chunks = chunks_per_shard (&s, "test.lc", c, NULL);
   bson_t r;
   simproc_run_json (&s, "test", "{\"distinct\": \"lc\", \"key\": \"level\"}", &r);
   int64_t distinct = 0;
   bson_iter_t it, a;
   if (bson_iter_init_find (&it, &r, "values") && bson_iter_recurse (&it, &a)) {
      while (bson_iter_next (&a)) {
         distinct++;
      }
   }
   bson_destroy (&r);
   printf ("# %s lowcard: %lld chunks for %lld distinct values\n", version, (long long) chunks, (long long) distinct);
   snprintf (name, sizeof name, "lowcard%s.chunks <= distinct values", version);
   CHECK (name, distinct == 5 && chunks <= distinct);
   if (!strcmp (version, "5.0")) {
      snprintf (name, sizeof name, "lowcard%s.split at value boundaries", version);
      CHECK (name, chunks >= 3);
   }
   int64_t j[3];
   int64_t jumbo = chunks_per_shard (&s, "test.z", j, "{\"jumbo\": true}");
   int64_t zc[3];
   int64_t zchunks = chunks_per_shard (&s, "test.z", zc, NULL);
   printf ("# %s zipf: %lld chunks, %lld jumbo\n", version, (long long) zchunks, (long long) jumbo);
   snprintf (name, sizeof name, "zipf%s.jumbo chunks", version);
   CHECK (name, jumbo >= 1);
   sim_stop (&s);
}

/* ---- location: zone ranges end up on their zone's shards ---- */

static void
test_zones (const char *version)
{
   sim_t s;
   char name[96];
   const char *args[] = {
      "--version", version, "--chunk-size-kb", "8", "--balancer-interval-ms", "50", "--migration-ms", "5", NULL
   };
   if (!sim_start (&s, args)) {
      UNIT_FAIL ("zones.start", "shardsim did not start");
      sim_stop (&s);
      return;
   }
   simproc_run_ok (&s, "admin", "{\"addShardToZone\": \"shard02\", \"zone\": \"USPS\"}");
   simproc_run_ok (&s, "admin", "{\"addShardToZone\": \"shard03\", \"zone\": \"APPLE\"}");
   simproc_run_ok (&s, "admin",
                   "{\"simWorkload\": \"start\", \"ns\": \"geo.hits\", \"kind\": \"location\", \"rate\": 3000}");
   snprintf (name, sizeof name, "zones%s.ranges set", version);
   CHECK (name, simproc_run_ok (&s, "admin",
                                "{\"updateZoneKeyRange\": \"geo.hits\", \"min\": {\"ip\": \"056.\"}, \"max\": "
                                "{\"ip\": \"057.\"}, \"zone\": \"USPS\"}") &&
                   simproc_run_ok (&s, "admin",
                                   "{\"updateZoneKeyRange\": \"geo.hits\", \"min\": {\"ip\": \"017.\"}, "
                                   "\"max\": {\"ip\": \"018.\"}, \"zone\": \"APPLE\"}"));
   sleep_ms (1500);
   simproc_run_ok (&s, "admin", "{\"simWorkload\": \"stop\"}");
   snprintf (name, sizeof name, "zones%s.compliant", version);
   CHECK (name, wait_balanced (&s, "geo.hits", 15000));
   char f[512], q[1024];
   chunk_filter (&s, "geo.hits", f, sizeof f);
   snprintf (q, sizeof q,
             "{\"$and\": [%s, {\"min.ip\": {\"$gte\": \"056.\"}}, {\"max.ip\": {\"$lte\": "
             "\"057.\"}}]}",
             f);
   int64_t usps = count_config (&s, "chunks", q);
   snprintf (q, sizeof q,
             "{\"$and\": [%s, {\"min.ip\": {\"$gte\": \"056.\"}}, {\"max.ip\": {\"$lte\": \"057.\"}}, "
             "{\"shard\": {\"$ne\": \"shard02\"}}]}",
             f);
   int64_t usps_bad = count_config (&s, "chunks", q);
   snprintf (q, sizeof q,
             "{\"$and\": [%s, {\"min.ip\": {\"$gte\": \"017.\"}}, {\"max.ip\": {\"$lte\": "
             "\"018.\"}}]}",
             f);
   int64_t apple = count_config (&s, "chunks", q);
   snprintf (q, sizeof q,
             "{\"$and\": [%s, {\"min.ip\": {\"$gte\": \"017.\"}}, {\"max.ip\": {\"$lte\": \"018.\"}}, "
             "{\"shard\": {\"$ne\": \"shard03\"}}]}",
             f);
   int64_t apple_bad = count_config (&s, "chunks", q);
   /* No chunk straddles a zone boundary. */
   snprintf (q, sizeof q,
             "{\"$and\": [%s, {\"$or\": [{\"min.ip\": {\"$lt\": \"056.\"}, \"max.ip\": {\"$gt\": "
             "\"056.\"}}, {\"min.ip\": {\"$lt\": \"057.\"}, \"max.ip\": {\"$gt\": \"057.\"}}, "
             "{\"min.ip\": {\"$lt\": \"017.\"}, \"max.ip\": {\"$gt\": \"017.\"}}, {\"min.ip\": "
             "{\"$lt\": \"018.\"}, \"max.ip\": {\"$gt\": \"018.\"}}]}]}",
             f);
   int64_t straddle = count_config (&s, "chunks", q);
   printf ("# %s zones: USPS %lld chunks (%lld elsewhere), APPLE %lld chunks (%lld elsewhere), %lld straddling\n",
           version, (long long) usps, (long long) usps_bad, (long long) apple, (long long) apple_bad,
           (long long) straddle);
   snprintf (name, sizeof name, "zones%s.USPS range on shard02", version);
   CHECK (name, usps >= 1 && usps_bad == 0);
   snprintf (name, sizeof name, "zones%s.APPLE range on shard03", version);
   CHECK (name, apple >= 1 && apple_bad == 0);
   snprintf (name, sizeof name, "zones%s.chunks split at zone boundaries", version);
   CHECK (name, straddle == 0);
   /* Every document in the USPS range is owned by shard02. */
   bson_t *docs[4];
   int n = agg (&s, "geo", "hits", "[{\"$collStats\": {\"storageStats\": {}}}]", docs, 4);
   free_docs (docs, n);
   sim_stop (&s);
}

/* ---- balancer controls, migrations in currentOp / config.migrations, draining ---- */

static int64_t
commits (sim_t *s, const char *ns)
{
   char q[200];
   snprintf (q, sizeof q, "{\"ns\": \"%s\", \"what\": \"moveChunk.commit\"}", ns);
   return count_config (s, "changelog", q);
}

static void
test_controls (void)
{
   sim_t s;
   const char *args[] = { "--version", "5.0", "--balancer-interval-ms", "50", "--migration-ms", "300", NULL };
   if (!sim_start (&s, args)) {
      UNIT_FAIL ("ctl.start", "shardsim did not start");
      sim_stop (&s);
      return;
   }
   simproc_run_ok (&s, "admin", "{\"balancerStop\": 1}");
   simproc_run_ok (&s, "admin", "{\"enableSharding\": \"t\"}");
   simproc_run_ok (&s, "admin", "{\"shardCollection\": \"t.b\", \"key\": {\"k\": 1}}");
   for (int i = 1; i <= 11; i++) {
      char cmd[128];
      snprintf (cmd, sizeof cmd, "{\"split\": \"t.b\", \"middle\": {\"k\": %d}}", i * 10);
      simproc_run_ok (&s, "admin", cmd);
   }
   int64_t c[3];
   chunks_per_shard (&s, "t.b", c, NULL);
   CHECK ("ctl.12 chunks on one shard", c[0] == 12);
   int64_t rounds0 = count_config (&s, "actionlog", "{\"what\": \"balancer.round\"}");
   sleep_ms (400);
   CHECK ("ctl.balancerStop: no rounds, no moves",
          commits (&s, "t.b") == 0 && count_config (&s, "actionlog", "{\"what\": \"balancer.round\"}") == rounds0);
   /* activeWindow that excludes now. */
   time_t now = time (NULL);
   struct tm tm;
   localtime_r (&now, &tm);
   char cmd[512];
   snprintf (cmd, sizeof cmd,
             "{\"update\": \"settings\", \"updates\": [{\"q\": {\"_id\": \"balancer\"}, \"u\": {\"$set\": "
             "{\"activeWindow\": {\"start\": \"%02d:%02d\", \"stop\": \"%02d:%02d\"}}}, \"upsert\": true}]}",
             (tm.tm_hour + 2) % 24, tm.tm_min, (tm.tm_hour + 3) % 24, tm.tm_min);
   simproc_run_ok (&s, "config", cmd);
   simproc_run_ok (&s, "admin", "{\"balancerStart\": 1}");
   sleep_ms (400);
   CHECK ("ctl.activeWindow: no rounds outside the window",
          commits (&s, "t.b") == 0 && count_config (&s, "actionlog", "{\"what\": \"balancer.round\"}") == rounds0);
   /* noBalance first, then open the window: the other order lets a 50 ms round start a migration in between */
   simproc_run_ok (&s, "config",
                   "{\"update\": \"collections\", \"updates\": [{\"q\": {\"_id\": \"t.b\"}, \"u\": {\"$set\": "
                   "{\"noBalance\": true}}}]}");
   simproc_run_ok (&s, "config",
                   "{\"update\": \"settings\", \"updates\": [{\"q\": {\"_id\": \"balancer\"}, \"u\": "
                   "{\"$unset\": {\"activeWindow\": 1}}}]}");
   sleep_ms (400);
   CHECK ("ctl.noBalance: rounds run, nothing moves",
          commits (&s, "t.b") == 0 && count_config (&s, "actionlog", "{\"what\": \"balancer.round\"}") > rounds0);
   simproc_run_ok (&s, "admin", "{\"setAllowMigrations\": \"t.b\", \"allowMigrations\": false}");
   simproc_run_ok (&s, "config",
                   "{\"update\": \"collections\", \"updates\": [{\"q\": {\"_id\": \"t.b\"}, \"u\": {\"$set\": "
                   "{\"noBalance\": false}}}]}");
   sleep_ms (400);
   CHECK ("ctl.allowMigrations false: nothing moves", commits (&s, "t.b") == 0);
   simproc_run_ok (&s, "admin", "{\"setAllowMigrations\": \"t.b\", \"allowMigrations\": true}");
   /* A migration in flight shows in currentOp and config.migrations (5.0). */
   bool seen_op = false, seen_doc = false, seen_status = false;
   for (int64_t end = clock_wall_ms () + 3000; clock_wall_ms () < end && !(seen_op && seen_doc); sleep_ms (20)) {
      bson_t r;
      simproc_run_json (&s, "admin", "{\"currentOp\": 1}", &r);
      bson_iter_t it, a;
      if (bson_iter_init_find (&it, &r, "inprog") && bson_iter_recurse (&it, &a)) {
         while (bson_iter_next (&a)) {
            bson_iter_t d;
            if (bson_iter_recurse (&a, &d) && bson_iter_find_descendant (&d, "command.moveChunk", &d) &&
                !strcmp (bson_iter_utf8 (&d, NULL), "t.b")) {
               seen_op = true;
            }
         }
      }
      bson_destroy (&r);
      if (seen_op) {
         seen_doc = count_config (&s, "migrations", "{\"ns\": \"t.b\", \"fromShard\": \"shard01\"}") >= 1;
         simproc_run_json (&s, "admin", "{\"balancerStatus\": 1}", &r);
         seen_status = seen_status || bool_at (&r, "inBalancerRound");
         bson_destroy (&r);
      }
   }
   CHECK ("ctl.migration in currentOp (moveChunk on the donor)", seen_op);
   CHECK ("ctl.migration in config.migrations (5.0)", seen_doc);
   CHECK ("ctl.inBalancerRound during a migration", seen_status);
   bson_t r;
   bool stop_ok = simproc_run_json (&s, "admin", "{\"balancerStop\": 1, \"maxTimeMS\": 5000}", &r);
   bson_destroy (&r);
   simproc_run_json (&s, "admin", "{\"balancerStatus\": 1}", &r);
   CHECK ("ctl.balancerStop waits for the round", stop_ok && !bool_at (&r, "inBalancerRound"));
   bson_destroy (&r);
   CHECK ("ctl.config.migrations empty after", count_config (&s, "migrations", "{}") == 0);
   simproc_run_ok (&s, "admin", "{\"simBalancer\": \"live\", \"migrationMs\": 5}");
   simproc_run_ok (&s, "admin", "{\"balancerStart\": 1}");
   CHECK ("ctl.balanced once allowed", wait_balanced (&s, "t.b", 10000));
   chunks_per_shard (&s, "t.b", c, NULL);
   CHECK ("ctl.chunks spread", c[1] >= 3 && c[2] >= 3);
   /* Draining: one removeShard call, then the balancer empties the shard. */
   simproc_run_ok (&s, "admin", "{\"removeShard\": \"shard03\"}");
   bool drained = false;
   for (int64_t end = clock_wall_ms () + 5000; clock_wall_ms () < end && !drained; sleep_ms (50)) {
      chunks_per_shard (&s, "t.b", c, NULL);
      drained = c[2] == 0;
   }
   CHECK ("ctl.draining shard emptied by the balancer", drained);
   simproc_run_json (&s, "admin", "{\"removeShard\": \"shard03\"}", &r);
   CHECK ("ctl.removeShard completes", str_at (&r, "state") && !strcmp (str_at (&r, "state"), "completed"));
   bson_destroy (&r);
   sim_stop (&s);
}

/* ---- reads and updates at a share ---- */

static void
test_shares (void)
{
   sim_t s;
   const char *args[] = { "--version", "7.0", "--workload", "test.rw:hashed:3000:0.3:0.2", NULL };
   if (!sim_start (&s, args)) {
      UNIT_FAIL ("shares.start", "shardsim did not start");
      sim_stop (&s);
      return;
   }
   sleep_ms (1000);
   simproc_run_ok (&s, "admin", "{\"simWorkload\": \"stop\"}");
   int64_t r[3], w[3];
   latency_ops (&s, "test", "rw", "reads", r);
   latency_ops (&s, "test", "rw", "writes", w);
   int64_t reads = workload_count (&s, "reads"), updates = workload_count (&s, "updates");
   int64_t inserts = workload_count (&s, "inserts");
   printf ("# shares: %lld inserts, %lld reads, %lld updates; reads per shard %lld/%lld/%lld\n", (long long) inserts,
           (long long) reads, (long long) updates, (long long) r[0], (long long) r[1], (long long) r[2]);
   double total = (double) (inserts + reads + updates);
   CHECK ("shares.read share ~30%", total > 0 && reads / total > 0.25 && reads / total < 0.35);
   CHECK ("shares.update share ~20%", total > 0 && updates / total > 0.15 && updates / total < 0.25);
   CHECK ("shares.latencyStats reads per shard", r[0] + r[1] + r[2] == reads && r[0] > 0 && r[1] > 0 && r[2] > 0);
   CHECK ("shares.latencyStats writes = inserts + updates", w[0] + w[1] + w[2] == inserts + updates);
   bson_t st;
   simproc_run_json (&s, "admin", "{\"serverStatus\": 1}", &st);
   CHECK ("shares.opcounters query/update",
          int_at (&st, "opcounters.query") >= reads && int_at (&st, "opcounters.update") >= updates);
   bson_destroy (&st);
   sim_stop (&s);
}

/* ---- descending, compound, random ---- */

static void
test_other_kinds (void)
{
   sim_t s;
   const char *args[] = { "--version",
                          "5.0",
                          "--chunk-size-kb",
                          "8",
                          "--workload",
                          "k.desc:descending:2000",
                          "--workload",
                          "k.comp:compound:2000",
                          NULL };
   if (!sim_start (&s, args)) {
      UNIT_FAIL ("kinds.start", "shardsim did not start");
      sim_stop (&s);
      return;
   }
   sleep_ms (1200);
   simproc_run_ok (&s, "admin", "{\"simWorkload\": \"stop\"}");
   int64_t low[3], w[3];
   chunks_per_shard (&s, "k.desc", low, "{\"min.ts\": {\"$minKey\": 1}}");
   latency_ops (&s, "k", "desc", "writes", w);
   int owner = low[0] ? 0 : low[1] ? 1 : 2;
   CHECK ("kinds.descending: every insert on the MinKey chunk's shard",
          w[owner] > 1000 && w[(owner + 1) % 3] == 0 && w[(owner + 2) % 3] == 0);
   bson_t *docs[1];
   int n = agg (&s, "k", "desc", "[{\"$sort\": {\"ts\": 1}}, {\"$limit\": 1}]", docs, 1);
   CHECK ("kinds.descending: the smallest key is the last insert",
          n == 1 && int_at (docs[0], "seq") == workload_count (&s, "inserts") - 1);
   free_docs (docs, n);
   char f[512], q[700];
   chunk_filter (&s, "k.comp", f, sizeof f);
   int regions = 0;
   static const char *names[] = { "ap-east", "ap-south",   "eu-central", "eu-west",
                                  "sa-east", "us-central", "us-east",    "us-west" };
   for (int i = 0; i < 8; i++) {
      snprintf (q, sizeof q, "{\"$and\": [%s, {\"min.region\": \"%s\"}]}", f, names[i]);
      regions += count_config (&s, "chunks", q) > 0;
   }
   printf ("# compound: chunks start in %d of 8 regions\n", regions);
   CHECK ("kinds.compound: a hot spot per region (chunks start in most regions)", regions >= 4);
   sim_stop (&s);

   const char *args2[] = {
      "--version", "5.0",        "--chunk-size-kb",   "8", "--balancer-interval-ms", "50", "--migration-ms",
      "5",         "--workload", "k.rnd:random:2000", NULL
   };
   if (!sim_start (&s, args2)) {
      UNIT_FAIL ("kinds.start random", "shardsim did not start");
      sim_stop (&s);
      return;
   }
   sleep_ms (2000);
   simproc_run_ok (&s, "admin", "{\"simWorkload\": \"stop\"}");
   int64_t c[3];
   latency_ops (&s, "k", "rnd", "writes", w);
   chunks_per_shard (&s, "k.rnd", c, NULL);
   printf ("# random: writes per shard %lld/%lld/%lld, chunks %lld/%lld/%lld\n", (long long) w[0], (long long) w[1],
           (long long) w[2], (long long) c[0], (long long) c[1], (long long) c[2]);
   CHECK ("kinds.random: once chunks spread, inserts reach every shard", w[0] > 0 && w[1] > 0 && w[2] > 0);
   sim_stop (&s);
}

/* ---- the bulk loader, analyzeShardKey, --seed ---- */

static void
test_loader (void)
{
   sim_t s;
   const char *args[] = { "--version", "5.0", "--chunk-size-kb", "1024", "--load", "test.big:random:100000", NULL };
   int64_t t0 = clock_wall_ms ();
   if (!sim_start (&s, args)) {
      UNIT_FAIL ("load.start", "shardsim did not start");
      sim_stop (&s);
      return;
   }
   int64_t took = clock_wall_ms () - t0;
   bson_t r;
   simproc_run_json (&s, "test", "{\"count\": \"big\"}", &r);
   int64_t n = int_at (&r, "n");
   bson_destroy (&r);
   int64_t c[3];
   int64_t chunks = chunks_per_shard (&s, "test.big", c, NULL);
   printf ("# loader: 100000 documents in %lld ms, %lld chunks\n", (long long) took, (long long) chunks);
   CHECK ("load.100000 documents", n == 100000);
   CHECK ("load.split by size (5.0)", chunks >= 20);
   CHECK ("load.fast", took < 15000);
   simproc_run_json (&s, "admin",
                     "{\"simWorkload\": \"load\", \"ns\": \"test.more\", \"kind\": \"ascending\", \"count\": "
                     "5000}",
                     &r);
   CHECK ("load.admin command", int_at (&r, "inserted") == 5000);
   bson_destroy (&r);
   sim_stop (&s);

   const char *args7[] = { "--version", "7.0", "--load", "test.ak:zipf:20000", NULL };
   if (sim_start (&s, args7)) {
      simproc_run_json (&s, "admin", "{\"analyzeShardKey\": \"test.ak\", \"key\": {\"user\": 1}}", &r);
      int64_t distinct = int_at (&r, "keyCharacteristics.numDistinctValues");
      CHECK ("load.analyzeShardKey numDocsTotal", int_at (&r, "keyCharacteristics.numDocsTotal") == 20000);
      CHECK ("load.analyzeShardKey zipf distinct values", distinct > 100 && distinct <= 1000);
      CHECK ("load.analyzeShardKey most common value",
             str_at (&r, "keyCharacteristics.mostCommonValues.0.value.user") &&
                !strcmp (str_at (&r, "keyCharacteristics.mostCommonValues.0.value.user"), "u00000"));
      bson_destroy (&r);
      simproc_run_json (&s, "admin",
                        "{\"analyzeShardKey\": \"test.ak\", \"key\": {\"user\": 1}, \"readWriteDistribution\": "
                        "false}",
                        &r);
      bson_destroy (&r);
   } else {
      UNIT_FAIL ("load.start 7.0", "shardsim did not start");
   }
   sim_stop (&s);
}

/* The documents of db.coll sorted by _id, as one JSON string (bson_free). */
static char *
dump (sim_t *s, const char *db, const char *coll)
{
   bson_t *docs[600];
   int n = agg (s, db, coll, "[{\"$sort\": {\"_id\": 1}}]", docs, 600);
   bson_string_t *out = bson_string_new (NULL);
   for (int i = 0; i < n; i++) {
      char *j = bson_as_canonical_extended_json (docs[i], NULL);
      bson_string_append (out, j);
      bson_free (j);
   }
   free_docs (docs, n);
   return bson_string_free (out, false);
}

static void
test_seed (void)
{
   sim_t s;
   char *a = NULL, *b = NULL, *c = NULL;
   const char *args1[] = { "--seed", "9", "--load", "test.d:zipf:500:unsharded", NULL };
   const char *args2[] = { "--seed", "10", "--load", "test.d:zipf:500:unsharded", NULL };
   if (sim_start (&s, args1)) {
      a = dump (&s, "test", "d");
   }
   sim_stop (&s);
   if (sim_start (&s, args1)) {
      b = dump (&s, "test", "d");
   }
   sim_stop (&s);
   if (sim_start (&s, args2)) {
      c = dump (&s, "test", "d");
   }
   sim_stop (&s);
   CHECK ("seed.same seed, same documents", a && b && strlen (a) > 1000 && !strcmp (a, b));
   CHECK ("seed.other seed, other documents", a && c && strcmp (a, c) != 0);
   bson_free (a);
   bson_free (b);
   bson_free (c);
}

int
main (void)
{
   mongoc_init ();
   mongoc_log_set_handler (NULL, NULL);
   test_ascending ();
   test_ascending_80 ();
   test_hashed ();
   test_lowcard_zipf ("5.0");
   test_lowcard_zipf ("8.0");
   test_zones ("5.0");
   test_zones ("8.0");
   test_controls ();
   test_shares ();
   test_other_kinds ();
   test_loader ();
   test_seed ();
   mongoc_cleanup ();
   UNIT_EXIT ();
}
