/* passes: plain asan */
/* The dashboard collector's incremental refresh against shardsim (demo scenario, 4.4, 5.0 and 7.0 metadata): after
 * each change to the cluster (a split, a merge, a migration, a new collection, a dropped collection, a shard added
 * to a zone) the next sample of a long-lived collector, which reads only what changed, must equal the first sample
 * of a fresh collector, which reads everything: chunk, jumbo and out-of-zone counts per (collection, shard), per
 * collection and per shard, the key-space ends, and sizes. The test also asserts which samples were incremental
 * and how many collections each counted again, and that every change did change the counts (so a stale sample
 * could not pass). test_quiet checks the skipped $collStats: a sample after which only the dashboard's own reads
 * moved the router's counters reads none, and an insert, an update or a find by another client makes the next one
 * read them again, with the write rate showing the writes and going back to 0 once they stop. test_quiet_commands
 * checks the rule by the router's metrics.commands: other clients' splits leave the next refresh quiet while its chunk
 * counts show them, the dashboard's own drill-down reads are subtracted, and another client's aggregate, find or insert
 * is never hidden. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "views/model/collect.h"
#include "shell/core/conn.h"
#include "shell/core/ctx.h"
#include "shell/core/output.h"
#include "tests/unit/simctx.h"
#include "tests/unit/simproc.h"
#include "tests/unit/unit.h"

/* Appends "what: a != b; " to diff when a and b differ. */
static void
diff_int (char *diff, size_t len, const char *what, int64_t a, int64_t b)
{
   if (a != b) {
      size_t l = strlen (diff);
      snprintf (diff + l, len - l, "%s: %lld != %lld; ", what, (long long) a, (long long) b);
   }
}

static void
diff_str (char *diff, size_t len, const char *what, const char *a, const char *b)
{
   if (strcmp (a, b) != 0) {
      size_t l = strlen (diff);
      snprintf (diff + l, len - l, "%s: [%s] != [%s]; ", what, a, b);
   }
}

/* What differs between the incremental snapshot inc and the full one full ("" when nothing). */
static void
snap_diff (const snap_t *inc, const snap_t *full, char *diff, size_t len)
{
   char w[2 * SNAP_NAME + 16];
   diff[0] = '\0';
   diff_int (diff, len, "shards", (int64_t) inc->nshards, (int64_t) full->nshards);
   diff_int (diff, len, "collections", (int64_t) inc->ncolls, (int64_t) full->ncolls);
   if (inc->nshards != full->nshards || inc->ncolls != full->ncolls)
      return;
   for (size_t k = 0; k < full->nshards; k++) {
      const snap_shard_t *a = &inc->shards[k], *b = &full->shards[k];
      diff_str (diff, len, "shard", a->name, b->name);
      snprintf (w, sizeof w, "%s chunks", b->name);
      diff_int (diff, len, w, a->chunks, b->chunks);
      snprintf (w, sizeof w, "%s jumbo", b->name);
      diff_int (diff, len, w, a->jumbo, b->jumbo);
      snprintf (w, sizeof w, "%s bytes", b->name);
      diff_int (diff, len, w, a->data_bytes, b->data_bytes);
      snprintf (w, sizeof w, "%s docs", b->name);
      diff_int (diff, len, w, a->docs, b->docs);
   }
   for (size_t i = 0; i < full->ncolls; i++) {
      const snap_coll_t *a = &inc->colls[i], *b = &full->colls[i];
      diff_str (diff, len, "ns", a->ns, b->ns);
      snprintf (w, sizeof w, "%s chunks", b->ns);
      diff_int (diff, len, w, a->chunks, b->chunks);
      snprintf (w, sizeof w, "%s jumbo", b->ns);
      diff_int (diff, len, w, a->jumbo, b->jumbo);
      snprintf (w, sizeof w, "%s outOfZone", b->ns);
      diff_int (diff, len, w, a->out_of_zone, b->out_of_zone);
      snprintf (w, sizeof w, "%s bytes", b->ns);
      diff_int (diff, len, w, a->data_bytes, b->data_bytes);
      snprintf (w, sizeof w, "%s top", b->ns);
      diff_int (diff, len, w, a->top_shard, b->top_shard);
      diff_str (diff, len, w, snap_coll_end (a, SNAP_TOP_MIN_JSON), snap_coll_end (b, SNAP_TOP_MIN_JSON));
      snprintf (w, sizeof w, "%s bottom", b->ns);
      diff_int (diff, len, w, a->bottom_shard, b->bottom_shard);
      diff_str (diff, len, w, snap_coll_end (a, SNAP_BOTTOM_MAX_JSON), snap_coll_end (b, SNAP_BOTTOM_MAX_JSON));
      for (size_t k = 0; k < full->nshards; k++) {
         const snap_cell_t *x = snap_coll_cell (a, (int) k), *y = snap_coll_cell (b, (int) k);
         const snap_act_t *xa = snap_coll_act (a, (int) k), *ya = snap_coll_act (b, (int) k);
         snprintf (w, sizeof w, "%s@%s cell", b->ns, full->shards[k].name);
         diff_int (diff, len, w, x != NULL, y != NULL); /* a cell exactly where the shard holds something */
         if (!x || !y)
            continue;
         snprintf (w, sizeof w, "%s@%s chunks", b->ns, full->shards[k].name);
         diff_int (diff, len, w, x->chunks, y->chunks);
         snprintf (w, sizeof w, "%s@%s jumbo", b->ns, full->shards[k].name);
         diff_int (diff, len, w, xa ? xa->jumbo : 0, ya ? ya->jumbo : 0);
         snprintf (w, sizeof w, "%s@%s bytes", b->ns, full->shards[k].name);
         diff_int (diff, len, w, x->data_bytes, y->data_bytes);
         snprintf (w, sizeof w, "%s@%s docs", b->ns, full->shards[k].name);
         diff_int (diff, len, w, x->docs, y->docs);
      }
      {
         /* tidy: sorted by shard, one entry per shard, none empty */
         size_t n;
         const snap_cell_t *cv = snap_coll_cells (a, &n);
         for (size_t k = 0; k < n; k++) {
            snprintf (w, sizeof w, "%s cell %zu tidy", b->ns, k);
            diff_int (diff, len, w, 1,
                      (k == 0 || cv[k - 1].shard < cv[k].shard) && (cv[k].chunks || cv[k].data_bytes || cv[k].docs));
         }
      }
   }
}

/* The chunks of ns on shard in s, -1 when either is unknown. */
static int64_t
cell_chunks (const snap_t *s, const char *ns, const char *shard)
{
   int k = snap_shard_index (s, shard);
   for (size_t i = 0; k >= 0 && i < s->ncolls; i++)
      if (!strcmp (s->colls[i].ns, ns))
         return snap_coll_chunks_on (&s->colls[i], k);
   return -1;
}

/* Runs cmd (extended JSON) on db through the test's own client; false (and why on stdout) when it fails. */
static bool
run (mongoc_client_t *cl, const char *db, const char *json)
{
   bson_error_t e;
   bson_t reply;
   bson_t *cmd = bson_new_from_json ((const uint8_t *) json, -1, &e);
   bool ok = cmd && mongoc_client_command_simple (cl, db, cmd, NULL, &reply, &e);
   if (!ok)
      printf ("  (%s: %s)\n", json, e.message);
   if (cmd) {
      bson_destroy (cmd);
      bson_destroy (&reply);
   }
   return ok;
}

/* A fresh collector's first sample (everything read) into *out. */
static bool
full_sample (sh_ctx_t *ctx, snap_t *out)
{
   collect_opts_t o = collect_opts_default ();
   collect_t *c;
   bool ok;
   o.interval_s = 20;
   c = collect_new (ctx, &o);
   ok = collect_sample (c, out);
   collect_free (c);
   return ok && !out->incremental;
}

typedef struct {
   const char *name; /* the change */
   const char *db;
   const char *cmd;   /* what makes it */
   bool incremental;  /* the next sample may still carry counts (false: the metadata asks for a full read) */
   int reread;        /* collections counted again by an incremental sample */
   const char *ns;    /* the counts that must change ... */
   const char *shard; /* ... on this shard */
} change_t;

static void
run_version (const char *version)
{
   static const change_t changes[] = {
      { "split", "admin", "{\"split\": \"app.orders\", \"middle\": {\"customer\": \"c005\", \"ts\": {\"$minKey\": 1}}}",
        true, 1, "app.orders", "shard01" },
      { "merge", "admin",
        "{\"mergeChunks\": \"app.orders\", \"bounds\": [{\"customer\": {\"$minKey\": 1}, \"ts\": {\"$minKey\": 1}}, "
        "{\"customer\": \"c013\", \"ts\": {\"$minKey\": 1}}]}",
        true, 1, "app.orders", "shard01" },
      { "split_again", "admin",
        "{\"split\": \"app.orders\", \"middle\": {\"customer\": \"c005\", \"ts\": {\"$minKey\": 1}}}", true, 1,
        "app.orders", "shard01" },
      { "migration", "admin",
        "{\"moveChunk\": \"app.orders\", \"bounds\": [{\"customer\": \"c005\", \"ts\": {\"$minKey\": 1}}, "
        "{\"customer\": \"c013\", \"ts\": {\"$minKey\": 1}}], \"to\": \"shard03\"}",
        true, 1, "app.orders", "shard03" },
      { "new_collection", "admin", "{\"shardCollection\": \"app.fresh\", \"key\": {\"k\": 1}}", false, 0, "app.fresh",
        "shard01" },
      { "dropped_collection", "app", "{\"drop\": \"fresh\"}", false, 0, "app.fresh", "shard01" },
      { "zone", "admin", "{\"addShardToZone\": \"shard01\", \"zone\": \"ZT\"}", false, 0, NULL, NULL },
   };
   sim_t sim;
   const char *args[] = { "--scenario", "demo", "--version", version, NULL };
   char name[160], diff[4096];
   sh_options_t opts;
   sh_ctx_t ctx;
   collect_opts_t o = collect_opts_default ();
   collect_t *inc;
   snap_t cur = { 0 }, full = { 0 };
   FILE *sink = tmpfile ();

   snprintf (name, sizeof name, "dash_incremental/%s/start", version);
   if (!simproc_start (&sim, "/tmp/shardsh-test-dash-inc.port", args, 100, 50, "serverSelectionTimeoutMS=5000")) {
      UNIT_FAIL (name, "%s", "shardsim did not start");
      sim_stop (&sim);
      fclose (sink);
      return;
   }
   simctx_init (&ctx, &opts, sink, sim.port);
   o.interval_s = 20;
   inc = collect_new (&ctx, &o);

   snprintf (name, sizeof name, "dash_incremental/%s/first_sample_full", version);
   CHECK (name, collect_sample (inc, &cur) && !cur.incremental && cur.colls_reread == (int) cur.ncolls);
   snprintf (name, sizeof name, "dash_incremental/%s/unchanged_incremental_reads_nothing", version);
   CHECK (name, collect_sample (inc, &cur) && cur.incremental && cur.colls_reread == 0);
   {
      /* nothing changed in the metadata: every collection whose cells hold the same figures as the last sample's
       * holds the last sample's cells, once (not a copy); the demo's workloads change some sizes */
      snap_t keep;
      size_t shared = 0, same = 0;
      snap_share (&keep, &cur);
      snprintf (name, sizeof name, "dash_incremental/%s/unchanged_shares_cells", version);
      if (collect_sample (inc, &cur) && cur.ncolls == keep.ncolls) {
         for (size_t i = 0; i < cur.ncolls; i++) {
            size_t n, m;
            const snap_cell_t *x = snap_coll_cells (&cur.colls[i], &n), *y = snap_coll_cells (&keep.colls[i], &m);
            if (!n || n != m || memcmp (x, y, n * sizeof *x) != 0)
               continue;
            same++;
            shared += cur.colls[i].cells == keep.colls[i].cells;
         }
         if (same > 0 && shared == same)
            UNIT_PASS (name);
         else
            UNIT_FAIL (name, "%zu of %zu unchanged collections share their cells", shared, same);
      } else
         UNIT_FAIL (name, "%s", "the sample failed");
      snap_destroy (&keep);
   }
   snprintf (name, sizeof name, "dash_incremental/%s/unchanged_equals_full", version);
   if (full_sample (&ctx, &full)) {
      snap_diff (&cur, &full, diff, sizeof diff);
      CHECK_STR (name, "", diff);
   } else
      UNIT_FAIL (name, "%s", "the full sample failed");
   snap_destroy (&full);

   for (size_t i = 0; i < sizeof changes / sizeof changes[0]; i++) {
      const change_t *ch = &changes[i];
      int64_t before = ch->ns ? cell_chunks (&cur, ch->ns, ch->shard) : -1;
      snprintf (name, sizeof name, "dash_incremental/%s/%s/applied", version, ch->name);
      if (!run (sim.client, ch->db, ch->cmd)) {
         UNIT_FAIL (name, "%s", "the command failed");
         continue;
      }
      UNIT_PASS (name);
      snprintf (name, sizeof name, "dash_incremental/%s/%s/sample", version, ch->name);
      if (!collect_sample (inc, &cur) || !full_sample (&ctx, &full)) {
         UNIT_FAIL (name, "%s", cur.error[0] ? cur.error : "a sample failed");
         snap_destroy (&full);
         continue;
      }
      snprintf (name, sizeof name, "dash_incremental/%s/%s/kind", version, ch->name);
      if (ch->incremental ? cur.incremental && cur.colls_reread == ch->reread : !cur.incremental)
         UNIT_PASS (name);
      else {
         char why[128];
         snprintf (why, sizeof why, "incremental %d, %d collection(s) counted again", cur.incremental,
                   cur.colls_reread);
         UNIT_FAIL (name, "%s", why);
      }
      if (ch->ns) {
         snprintf (name, sizeof name, "dash_incremental/%s/%s/counts_changed", version, ch->name);
         CHECK (name, cell_chunks (&cur, ch->ns, ch->shard) != before);
      }
      snprintf (name, sizeof name, "dash_incremental/%s/%s/equals_full", version, ch->name);
      snap_diff (&cur, &full, diff, sizeof diff);
      CHECK_STR (name, "", diff);
      snap_destroy (&full);
   }
   /* after the full read the metadata asked for, the next one is incremental again; a requested one is full */
   snprintf (name, sizeof name, "dash_incremental/%s/incremental_again", version);
   CHECK (name, collect_sample (inc, &cur) && cur.incremental && cur.colls_reread == 0);
   collect_request_full (inc);
   snprintf (name, sizeof name, "dash_incremental/%s/requested_full", version);
   CHECK (name, collect_sample (inc, &cur) && !cur.incremental && cur.colls_reread == (int) cur.ncolls);
   snprintf (name, sizeof name, "dash_incremental/%s/then_incremental", version);
   CHECK (name, collect_sample (inc, &cur) && cur.incremental);

   snap_destroy (&cur);
   collect_free (inc);
   conn_destroy (&ctx);
   sim_stop (&sim);
   fclose (sink);
}

/* The collection ns's record in snap (NULL when it is not there). */
static const snap_coll_t *
coll_of (const snap_t *snap, const char *ns)
{
   for (size_t i = 0; i < snap->ncolls; i++)
      if (!strcmp (snap->colls[i].ns, ns))
         return &snap->colls[i];
   return NULL;
}

/* The collection ns's write or read rate in snap (-1 when it is not there). */
static double
coll_rate (const snap_t *snap, const char *ns, bool writes)
{
   const snap_coll_t *co = coll_of (snap, ns);
   return !co ? -1 : writes ? co->writes_ps : co->reads_ps;
}

static void
test_quiet (void)
{
   sim_t sim;
   const char *args[] = { "--scenario", "large", "--large-shards", "4", "--large-collections", "3", "--large-chunks",
                          "30",         NULL };
   sh_options_t opts;
   sh_ctx_t ctx;
   collect_opts_t o = collect_opts_default ();
   collect_t *c;
   snap_t cur = { 0 };
   FILE *sink = tmpfile ();
   const char *ns = "db000.coll000";

   if (!simproc_start (&sim, "/tmp/shardsh-test-dash-quiet.port", args, 100, 50, "serverSelectionTimeoutMS=5000")) {
      UNIT_FAIL ("dash_quiet/start", "%s", "shardsim did not start");
      sim_stop (&sim);
      fclose (sink);
      return;
   }
   simctx_init (&ctx, &opts, sink, sim.port);
   o.interval_s = 20;
   c = collect_new (&ctx, &o);
   CHECK ("dash_quiet/first_sample", collect_sample (c, &cur));
   CHECK ("dash_quiet/first_reads_counters", !cur.quiet && cur.stats_read == (int) cur.ncolls && cur.ncolls >= 3);
   CHECK ("dash_quiet/nothing_happened_no_collstats", collect_sample (c, &cur) && cur.quiet && cur.stats_read == 0);
   /* serverStatus, balancerStatus, settings, shards, collections, tags, the changed-chunks aggregate, events,
    * migrations in flight, the operations strip's four reads and the closing serverStatus: no $collStats, no
    * $shardedDataDistribution, no key end */
   CHECK ("dash_quiet/round_trips", cur.round_trips == 14);
   CHECK ("dash_quiet/still_quiet", collect_sample (c, &cur) && cur.quiet && cur.stats_read == 0);
   /* writes through the router: the next sample reads the counters and shows them */
   usleep (20000);
   CHECK ("dash_quiet/insert",
          run (sim.client, "db000",
               "{\"insert\": \"coll000\", \"documents\": [{\"k\": 1}, {\"k\": 2}, {\"k\": 3}, {\"k\": 4}]}"));
   CHECK ("dash_quiet/insert_not_hidden", collect_sample (c, &cur) && !cur.quiet && cur.stats_read > 0);
   CHECK ("dash_quiet/insert_rate_shows", coll_rate (&cur, ns, true) > 0);
   usleep (20000);
   CHECK ("dash_quiet/after_writes_quiet_again", collect_sample (c, &cur) && cur.quiet && cur.stats_read == 0);
   CHECK ("dash_quiet/rate_back_to_zero", coll_rate (&cur, ns, true) == 0);
   CHECK ("dash_quiet/update",
          run (sim.client, "db000",
               "{\"update\": \"coll000\", \"updates\": [{\"q\": {\"k\": 2}, \"u\": {\"$set\": {\"v\": 1}}}]}"));
   CHECK ("dash_quiet/update_not_hidden",
          collect_sample (c, &cur) && !cur.quiet && cur.stats_read > 0 && coll_rate (&cur, ns, true) > 0);
   CHECK ("dash_quiet/find", run (sim.client, "db000", "{\"find\": \"coll000\", \"filter\": {\"k\": 3}}"));
   CHECK ("dash_quiet/find_not_hidden", collect_sample (c, &cur) && !cur.quiet && cur.stats_read > 0);
   CHECK ("dash_quiet/read_rate_shows", coll_rate (&cur, ns, false) > 0);
   snap_destroy (&cur);
   collect_free (c);
   conn_destroy (&ctx);
   sim_stop (&sim);
   fclose (sink);
}

/* The chunks of collection ns in snap (-1 when it is not there). */
static int64_t
coll_chunks (const snap_t *snap, const char *ns)
{
   const snap_coll_t *co = coll_of (snap, ns);
   return co ? co->chunks : -1;
}

/* The quiet test by the router's metrics.commands: other clients' splits, balancer status reads and unknown commands
 * leave the next refresh quiet (no $collStats) while its chunk counts show the splits; the dashboard's own drill-down
 * reads between two refreshes are subtracted exactly; another client's aggregate, find of config data or insert
 * makes it read the counters again. */
static void
test_quiet_commands (void)
{
   sim_t sim;
   const char *args[] = { "--scenario", "large", "--large-shards", "4", "--large-collections", "3", "--large-chunks",
                          "30",         NULL };
   sh_options_t opts;
   sh_ctx_t ctx;
   collect_opts_t o = collect_opts_default ();
   collect_t *c;
   snap_t cur = { 0 }, full = { 0 };
   snap_chunks_t drill;
   FILE *sink = tmpfile ();
   const char *ns = "db000.coll000";
   bool split_ok = true;
   int64_t before;

   if (!simproc_start (&sim, "/tmp/shardsh-test-dash-quiet-cmds.port", args, 100, 50,
                       "serverSelectionTimeoutMS=5000")) {
      UNIT_FAIL ("dash_quiet_cmds/start", "%s", "shardsim did not start");
      sim_stop (&sim);
      fclose (sink);
      return;
   }
   simctx_init (&ctx, &opts, sink, sim.port);
   o.interval_s = 20;
   c = collect_new (&ctx, &o);
   CHECK ("dash_quiet_cmds/first_samples", collect_sample (c, &cur) && collect_sample (c, &cur) && cur.quiet);
   before = coll_chunks (&cur, ns);
   /* five splits by another client (more than the 3 commands the opcounters rule lets pass), a balancer status read
    * and an unknown command */
   for (int j = 0; j < 5; j++) {
      char cmd[160];
      snprintf (cmd, sizeof cmd, "{\"split\": \"%s\", \"middle\": {\"k\": {\"$numberLong\": \"%d\"}}}", ns,
                j * 1000 + 500);
      split_ok = run (sim.client, "admin", cmd) && split_ok;
   }
   CHECK ("dash_quiet_cmds/splits", split_ok && run (sim.client, "admin", "{\"balancerStatus\": 1}"));
   {
      bson_t *cmd = BCON_NEW ("noSuchCommand", BCON_INT32 (1));
      bson_t reply;
      mongoc_client_command_simple (sim.client, "admin", cmd, NULL, &reply, NULL);
      bson_destroy (&reply);
      bson_destroy (cmd);
   }
   CHECK ("dash_quiet_cmds/splits_quiet", collect_sample (c, &cur) && cur.quiet && cur.stats_read == 0);
   CHECK ("dash_quiet_cmds/splits_counted", before > 0 && coll_chunks (&cur, ns) == before + 5 && cur.incremental);
   CHECK ("dash_quiet_cmds/same_as_full_read",
          full_sample (&ctx, &full) && coll_chunks (&full, ns) == coll_chunks (&cur, ns) && cur.nshards > 0 &&
             cell_chunks (&cur, ns, cur.shards[0].name) >= 0 &&
             cell_chunks (&full, ns, cur.shards[0].name) == cell_chunks (&cur, ns, cur.shards[0].name));
   /* the fresh collector above shares the client: its commands are the dashboard's own too, but were not counted by
    * this collector; a sample sets the baseline again */
   CHECK ("dash_quiet_cmds/other_collector_not_own", collect_sample (c, &cur) && !cur.quiet);
   CHECK ("dash_quiet_cmds/baseline_again", collect_sample (c, &cur) && cur.quiet);
   /* the drill-down's reads between two refreshes are the dashboard's own */
   memset (&drill, 0, sizeof drill);
   CHECK ("dash_quiet_cmds/drill", collect_chunks (c, ns, &drill));
   snap_chunks_destroy (&drill);
   CHECK ("dash_quiet_cmds/own_drill_quiet", collect_sample (c, &cur) && cur.quiet && cur.stats_read == 0);
   /* another client's aggregate on user data: one command, which the opcounters rule let pass */
   CHECK ("dash_quiet_cmds/aggregate",
          run (sim.client, "db000", "{\"aggregate\": \"coll000\", \"pipeline\": [], \"cursor\": {}}"));
   CHECK ("dash_quiet_cmds/aggregate_not_hidden", collect_sample (c, &cur) && !cur.quiet && cur.stats_read > 0);
   CHECK ("dash_quiet_cmds/quiet_again", collect_sample (c, &cur) && cur.quiet);
   /* a find is a find: config data or user data, the router's counters do not say */
   CHECK ("dash_quiet_cmds/config_find", run (sim.client, "config", "{\"find\": \"shards\"}"));
   CHECK ("dash_quiet_cmds/config_find_not_quiet", collect_sample (c, &cur) && !cur.quiet);
   CHECK ("dash_quiet_cmds/insert",
          run (sim.client, "db000", "{\"insert\": \"coll000\", \"documents\": [{\"k\": 7}]}"));
   CHECK ("dash_quiet_cmds/insert_not_quiet",
          collect_sample (c, &cur) && !cur.quiet && cur.stats_read > 0 && coll_rate (&cur, ns, true) > 0);
   snap_destroy (&full);
   snap_destroy (&cur);
   collect_free (c);
   conn_destroy (&ctx);
   sim_stop (&sim);
   fclose (sink);
}

/* The collector's timeouts go through the connection (conn_set_timeouts): the connection string stays the user's, a
 * client made with other timeouts is dropped (the next command connects with the new ones), the same timeouts keep
 * it, and a string that sets its own timeouts is left alone. No I/O: the client never sends. */
static void
test_timeouts (void)
{
   const char *plain = "mongodb://127.0.0.1:1/?appname=t";
   sh_options_t opts;
   sh_ctx_t ctx;
   sh_error_t err;
   collect_opts_t o = collect_opts_default ();
   collect_t *c;

   memset (&opts, 0, sizeof opts);
   memset (&ctx, 0, sizeof ctx);
   ctx.opts = &opts;
   conn_init (&ctx, plain, "test");
   o.interval_s = 2.0;
   c = collect_new (&ctx, &o);
   CHECK ("dash_timeouts/uri_stays_the_users", !strcmp (ctx.uri, plain));
   CHECK ("dash_timeouts/asked_45_percent", ctx.conn.timeouts_ms == 900);
   /* the first full read waits for its replies as long as a large cluster needs, whatever the interval */
   CHECK ("dash_timeouts/first_read_waits_longer", ctx.conn.read_timeout_ms == COLLECT_FIRST_READ_MS);
   sh_error_clear (&err);
   CHECK ("dash_timeouts/client_created", conn_ensure (&ctx, &err) && ctx.client);
   CHECK ("dash_timeouts/same_keeps_client", conn_set_timeouts_split (&ctx, 900, COLLECT_FIRST_READ_MS) && ctx.client);
   CHECK ("dash_timeouts/change_drops_client",
          conn_set_timeouts (&ctx, 1800) && !ctx.client && ctx.conn.timeouts_ms == 1800);
   collect_free (c);
   CHECK ("dash_timeouts/outlive_the_collector", ctx.conn.timeouts_ms == 1800 && !strcmp (ctx.uri, plain));
   conn_destroy (&ctx);

   memset (&ctx, 0, sizeof ctx);
   ctx.opts = &opts;
   conn_init (&ctx, "mongodb://127.0.0.1:1/?socketTimeoutMS=7000", "test");
   CHECK ("dash_timeouts/users_own_win", !conn_set_timeouts (&ctx, 900) && ctx.conn.timeouts_ms == 0);
   conn_destroy (&ctx);
}

int
main (void)
{
   run_version ("4.4");
   run_version ("5.0");
   run_version ("7.0");
   test_quiet ();
   test_quiet_commands ();
   test_timeouts ();
   UNIT_EXIT ();
}
