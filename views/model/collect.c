/* The dashboard's collector: one refresh = a bounded list of read-only commands through the router, turned into a
 * snap_t. Every kind of data is asked for once: chunk counts from one server-side $group over config.chunks,
 * the chunks at both ends of each key space from a second one, per-shard sizes and documents of every collection
 * from one $shardedDataDistribution (6.0.3+), recent events from config.changelog/actionlog. Write and read
 * counters exist only per collection ($collStats latencyStats), so a refresh reads them for at most
 * COLLECT_STATS_PER_REFRESH collections, the ones whose data changed first, and carries the others' last rates;
 * before 6.0.3 (no $shardedDataDistribution) it falls back to one $collStats per collection. The judgement (rates,
 * hot shards, the hot key range, balance by the server version's policy) is pure and exported for the unit tests.
 * This file holds the collector's life, its round trips and the order of one sample; the steps are in
 * collect_chunks.c, collect_events.c and collect_sizes.c, the judgement in collect_judge.c, the drill-down in
 * collect_drill.c, the round trips and small helpers every step shares in collect_io.c (shared declarations:
 * collect_int.h). Nothing here writes to the cluster. */
#include <math.h>
#include <mongoc/mongoc.h>
#include <stdlib.h>
#include <string.h>

#include "shell/lib/checked.h"
#include "views/model/collect_int.h"
#include "shell/lib/docget.h"
#include "shell/lib/clock.h"
#include "shell/core/output.h"

/* ---- the connection string and its timeouts ---- */

static int
timeout_for (double interval_s)
{
   int ms = (int) (interval_s * 1000.0 * 0.45);
   return ms < 200 ? 200 : ms > 5000 ? 5000 : ms;
}

/* Asks the connection for timeouts below the interval (conn_set_timeouts: it keeps the user's own, and replaces its
 * client when they change). */
static void
apply_timeouts (collect_t *c)
{
   int ms = timeout_for (c->opts.interval_s);
   /* the first full read may wait long for its replies; a router that does not answer is still found out quickly */
   conn_set_timeouts_split (c->ctx, ms, c->ever_sampled ? ms : COLLECT_FIRST_READ_MS);
}

void
collect_ctx_io (struct sh_ctx *ctx, collect_io_t *io)
{
   io->opts = ctx->opts;
   io->out = ctx->out_fp ? ctx->out_fp : stdout;
   io->err = ctx->err_fp ? ctx->err_fp : stderr;
}

collect_opts_t
collect_opts_default (void)
{
   collect_opts_t o = { .interval_s = COLLECT_DEFAULT_INTERVAL,
                        .hot_factor = COLLECT_DEFAULT_HOT_FACTOR,
                        .hot_min_rate = COLLECT_DEFAULT_HOT_MIN_RATE,
                        .chunk_limit = 1000 };
   const char *f = getenv ("SHARDSH_HOT_FACTOR"), *m = getenv ("SHARDSH_HOT_MIN_RATE");
   if (f && atof (f) > 1.0)
      o.hot_factor = atof (f);
   if (m && atof (m) >= 0.0)
      o.hot_min_rate = atof (m);
   return o;
}

collect_t *
collect_new (struct sh_ctx *ctx, const collect_opts_t *opts)
{
   collect_t *c = collect_calloc (1, sizeof *c);
   c->ctx = ctx;
   c->opts = *opts;
   if (c->opts.interval_s <= 0)
      c->opts.interval_s = COLLECT_DEFAULT_INTERVAL;
   if (!ctx->client)
      apply_timeouts (c);
   return c;
}

static void
free_meta (collect_t *c)
{
   for (size_t i = 0; i < c->nmeta; i++)
      bson_destroy (&c->meta[i].key);
   free (c->meta);
   c->meta = NULL;
   c->nmeta = 0;
}

void
collect_free_drill (collect_t *c, bool sizes_too)
{
   for (size_t i = 0; i < c->ndrill; i++) {
      free (c->drill_min[i]);
      free (c->drill_max[i]);
   }
   free (c->drill_min);
   free (c->drill_max);
   c->drill_min = c->drill_max = NULL;
   c->ndrill = 0;
   if (sizes_too) {
      free (c->sizes);
      c->sizes = NULL;
      c->nsizes = 0;
   }
}

void
collect_free (collect_t *c)
{
   if (!c)
      return;
   free_meta (c);
   collect_free_drill (c, true);
   for (size_t i = 0; i < c->ntrack; i++) {
      if (c->track[i].top)
         bson_destroy (c->track[i].top);
      if (c->track[i].bottom)
         bson_destroy (c->track[i].bottom);
   }
   free (c->track);
   for (size_t i = 0; i < c->nhist; i++)
      free (c->hist[i].drain);
   free (c->hist);
   if (c->have_tags)
      bson_destroy (&c->tags);
   if (c->ops_prev) {
      progress_reading_destroy (c->ops_prev);
      free (c->ops_prev);
   }
   collect_unwatch (c);
   if (c->have_cmds_prev)
      bson_destroy (&c->cmds_prev);
   snap_destroy (&c->prev);
   free (c);
}

double
collect_set_interval (collect_t *c, double interval_s)
{
   if (interval_s < COLLECT_MIN_INTERVAL)
      interval_s = COLLECT_MIN_INTERVAL;
   if (interval_s > COLLECT_MAX_INTERVAL)
      interval_s = COLLECT_MAX_INTERVAL;
   c->opts.interval_s = interval_s;
   return interval_s;
}

/* ---- the steps of one sample; each returns false only for an error that spoils the whole sample ---- */

/* The router's opcounters from a serverStatus reply into ops (collect_ops_t order; -1 where missing). */
static void
read_opcounters (const bson_t *reply, int64_t ops[COLLECT_OPS])
{
   static const char *paths[COLLECT_OPS] = { "opcounters.insert", "opcounters.update",  "opcounters.delete",
                                             "opcounters.query",  "opcounters.getmore", "opcounters.command" };
   for (int k = 0; k < COLLECT_OPS; k++)
      ops[k] = docget_int (reply, paths[k], -1);
}

/* What the refresh's first serverStatus says of the commands the router ran: its metrics.commands (when it reports
 * them) and, at that moment, how many of each the dashboard's client had sent. */
typedef struct {
   bson_t cmds; /* initialised in every case */
   bool have_cmds;
   int64_t own[COLLECT_OWN_NAMES];
   bool own_ok;
} cmds_reading_t;

static bool
sample_server_status (collect_t *c, snap_t *s, int64_t ops[COLLECT_OPS], cmds_reading_t *rd, sh_error_t *err)
{
   bson_t *cmd = BCON_NEW ("serverStatus", BCON_INT32 (1));
   bson_t reply, sub;
   bool ok = true;
   if (!collect_run_cmd (c, "admin", cmd, &reply, err)) {
      ok = !collect_fatal (err);
      goto done;
   }
   bson_strncpy (s->host, docget_utf8 (&reply, "host", ""), sizeof s->host);
   bson_strncpy (s->version, docget_utf8 (&reply, "version", ""), sizeof s->version);
   sscanf (s->version, "%d.%d", &s->vmajor, &s->vminor);
   /* the router's chunk size (its balancer configuration: what balancerCollectionStatus judges with), 0 when the
    * reply has none; config.settings chunksize, read next, overrides it (sample_balancer) */
   s->balancer.chunk_size_bytes = docget_int (&reply, "sharding.maxChunkSizeInBytes", 0);
   read_opcounters (&reply, ops);
   /* this serverStatus is in both: the router counts it before it runs, the driver before it sends it */
   memcpy (rd->own, c->own_n, sizeof rd->own);
   rd->own_ok = c->own_ok && !c->own_overflow;
   if (docget_sub (&reply, "metrics.commands", BSON_TYPE_DOCUMENT, &sub)) {
      bson_destroy (&rd->cmds);
      bson_copy_to (&sub, &rd->cmds);
      rd->have_cmds = true;
   }
done:
   bson_destroy (cmd);
   bson_destroy (&reply);
   return ok;
}

/* The router's opcounters after the sample's last command, into c->op_end (-1 when the router did not answer: the
 * next sample is then not quiet). Never spoils the sample. */
static void
sample_ops_end (collect_t *c)
{
   bson_t *cmd = BCON_NEW ("serverStatus", BCON_INT32 (1));
   bson_t reply;
   sh_error_t err;
   sh_error_clear (&err);
   for (int k = 0; k < COLLECT_OPS; k++)
      c->op_end[k] = -1;
   if (collect_run_cmd (c, "admin", cmd, &reply, &err))
      read_opcounters (&reply, c->op_end);
   bson_destroy (cmd);
   bson_destroy (&reply);
}

/* True when, since the last good sample, the router counted no write at all (insert, update and delete as at that
 * sample's start: the dashboard never writes) and no read but the dashboard's own (find and getMore as at its end,
 * and at most COLLECT_OWN_IDLE_COMMANDS other commands): the shards' latency counters cannot have moved but by the
 * dashboard's reads, so the $collStats can be skipped. Traffic through another router does not show here. The rule
 * for a router that does not report metrics.commands. */
static bool
ops_quiet (const collect_t *c, const int64_t ops[COLLECT_OPS])
{
   for (int k = 0; k < COLLECT_OPS; k++)
      if (ops[k] < 0 || c->op_prev[k] < 0 || c->op_end[k] < 0)
         return false;
   return ops[COLLECT_OP_INSERT] == c->op_prev[COLLECT_OP_INSERT] &&
          ops[COLLECT_OP_UPDATE] == c->op_prev[COLLECT_OP_UPDATE] &&
          ops[COLLECT_OP_DELETE] == c->op_prev[COLLECT_OP_DELETE] &&
          ops[COLLECT_OP_QUERY] == c->op_end[COLLECT_OP_QUERY] &&
          ops[COLLECT_OP_GETMORE] == c->op_end[COLLECT_OP_GETMORE] &&
          ops[COLLECT_OP_COMMAND] >= c->op_end[COLLECT_OP_COMMAND] &&
          ops[COLLECT_OP_COMMAND] - c->op_end[COLLECT_OP_COMMAND] <= COLLECT_OWN_IDLE_COMMANDS;
}

/* The commands that move none of the counters a quiet refresh carries (the shards' latencyStats reads and writes
 * behind the read and write rates, and the data behind the key ends): metadata changes that move no document (split,
 * merge, zones, the balancer's switches and status), the router's own status and the connection's commands.
 * moveChunk and moveRange are not here: the recipient shard inserts the chunk's documents, and those batches count
 * as its writes. A find, aggregate, getMore, count or distinct is never here, config reads included: the router's
 * counters do not say which collection a read was for. */
static const char *const quiet_neutral[] = {
   "<UNKNOWN>",
   "addShardToZone",
   "authenticate",
   "balancerCollectionStatus",
   "balancerStart",
   "balancerStatus",
   "balancerStop",
   "buildInfo",
   "clearJumboFlag",
   "configureCollectionBalancing",
   "connectionStatus",
   "endSessions",
   "getCmdLineOpts",
   "getDefaultRWConcern",
   "getLog",
   "getParameter",
   "getShardVersion",
   "hello",
   "hostInfo",
   "isMaster",
   "killCursors",
   "listCommands",
   "listShards",
   "logout",
   "mergeAllChunksOnShard",
   "mergeChunks",
   "ping",
   "refreshSessions",
   "removeShardFromZone",
   "saslContinue",
   "saslStart",
   "serverStatus",
   "split",
   "startSession",
   "updateZoneKeyRange",
   "whatsmyuri",
};

static bool
quiet_is_neutral (const char *name)
{
   for (size_t i = 0; i < sizeof quiet_neutral / sizeof quiet_neutral[0]; i++)
      if (!strcmp (quiet_neutral[i], name))
         return true;
   return false;
}

/* One entry of metrics.commands: its total ("<UNKNOWN>" is a number of its own), -1 when unreadable. */
static int64_t
cmds_total (bson_iter_t *it)
{
   bson_t d;
   if (BSON_ITER_HOLDS_NUMBER (it))
      return bson_iter_as_int64 (it);
   if (!docget_iter_sub (it, BSON_TYPE_DOCUMENT, &d))
      return -1;
   return docget_int (&d, "total", -1);
}

/* The commands named name the dashboard's client sent between the last good sample's first serverStatus and this
 * one's. */
static int64_t
own_delta (const collect_t *c, const cmds_reading_t *rd, const char *name)
{
   for (int i = 0; i < c->nown; i++)
      if (!strcmp (c->own_name[i], name))
         return rd->own[i] - c->own_prev[i];
   return 0;
}

/* The rule with metrics.commands: from the last good sample's first serverStatus to this one's, the router counted
 * no write (insert, update and delete opcounters unchanged), its query and getmore counters moved by the dashboard's
 * own find and getMore exactly, and every command outside quiet_neutral ran exactly as often as the dashboard's client
 * sent it. Anyone else's find, aggregate, insert, count… makes the refresh read the counters again; anyone's split,
 * zone change or status read does not. */
static bool
cmds_quiet (const collect_t *c, const int64_t ops[COLLECT_OPS], const cmds_reading_t *rd)
{
   bson_iter_t it, p;
   for (int k = 0; k < COLLECT_OPS; k++)
      if (ops[k] < 0 || c->op_prev[k] < 0)
         return false;
   if (ops[COLLECT_OP_INSERT] != c->op_prev[COLLECT_OP_INSERT] ||
       ops[COLLECT_OP_UPDATE] != c->op_prev[COLLECT_OP_UPDATE] ||
       ops[COLLECT_OP_DELETE] != c->op_prev[COLLECT_OP_DELETE] ||
       ops[COLLECT_OP_QUERY] - c->op_prev[COLLECT_OP_QUERY] != own_delta (c, rd, "find") ||
       ops[COLLECT_OP_GETMORE] - c->op_prev[COLLECT_OP_GETMORE] != own_delta (c, rd, "getMore"))
      return false;
   if (!bson_iter_init (&it, &rd->cmds))
      return false;
   while (bson_iter_next (&it)) {
      const char *name = bson_iter_key (&it);
      int64_t now = cmds_total (&it), before = 0;
      if (quiet_is_neutral (name) || now < 0)
         continue; /* now < 0: a group of counters, not a command (old servers' mapreduce.shardedfinish) */
      if (bson_iter_init_find (&p, &c->cmds_prev, name))
         before = cmds_total (&p);
      if (before < 0 || now - before != own_delta (c, rd, name))
         return false;
   }
   return true;
}

/* Whether this sample is quiet: by metrics.commands when the router reports them and the dashboard's own commands
 * were counted over the whole span, else by the opcounters alone (ops_quiet). */
static bool
sample_quiet (const collect_t *c, const int64_t ops[COLLECT_OPS], const cmds_reading_t *rd)
{
   if (!c->have_prev)
      return false;
   if (rd->have_cmds && c->have_cmds_prev && rd->own_ok && c->own_prev_ok)
      return cmds_quiet (c, ops, rd);
   return ops_quiet (c, ops);
}

/* A good sample's router counters become the next one's baseline: its opcounters and, from its first serverStatus,
 * metrics.commands (taken from rd) and the dashboard's own commands counted then. */
static void
keep_counters (collect_t *c, const int64_t ops[COLLECT_OPS], cmds_reading_t *rd)
{
   memcpy (c->op_prev, ops, sizeof c->op_prev);
   memcpy (c->own_prev, rd->own, sizeof rd->own);
   c->own_prev_ok = rd->own_ok;
   if (c->have_cmds_prev)
      bson_destroy (&c->cmds_prev);
   c->have_cmds_prev = rd->have_cmds;
   bson_steal (&c->cmds_prev, &rd->cmds);
   bson_init (&rd->cmds);
}

/* A quiet sample: the counters of every collection read at or after the last sample's start still hold (no write
 * and no read but the dashboard's own since), so they stand as read now, and its rates come out 0 over this
 * interval; counters read earlier carry their last rates as before. */
static void
stats_hold (const collect_t *c, snap_t *s, int64_t t0)
{
   for (size_t i = 0; i < s->ncolls; i++)
      if (s->colls[i].stats_ms && s->colls[i].stats_ms >= c->prev_mono_ms)
         s->colls[i].stats_ms = t0;
}

static bool
sample_balancer (collect_t *c, snap_t *s, sh_error_t *err)
{
   bson_t *status = BCON_NEW ("balancerStatus", BCON_INT32 (1));
   bson_t *find =
      BCON_NEW ("find", "settings", "filter", "{", "_id", "{", "$in", "[", "balancer", "chunksize", "]", "}", "}");
   bson_t reply, docs;
   bson_iter_t it;
   bool ok = false;

   s->balancer.rounds = -1;
   if (s->balancer.chunk_size_bytes <= 0)
      s->balancer.chunk_size_bytes =
         (int64_t) (s->vmajor >= 6 || !s->vmajor ? COLLECT_DEFAULT_RANGE_MB : COLLECT_OLD_DEFAULT_RANGE_MB) * 1024 *
         1024;
   bson_init (&docs);
   if (collect_run_cmd (c, "admin", status, &reply, err)) {
      bson_strncpy (s->balancer.mode, docget_utf8 (&reply, "mode", ""), sizeof s->balancer.mode);
      s->balancer.in_round = docget_bool (&reply, "inBalancerRound");
      s->balancer.rounds = docget_int (&reply, "numBalancerRounds", -1);
   } else if (collect_fatal (err)) {
      goto done;
   }
   bson_destroy (&docs);
   if (!collect_run_docs (c, "config", find, 0, &docs, err)) {
      if (collect_fatal (err))
         goto done;
   } else if (bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it)) {
         bson_t d;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d))
            continue;
         if (!strcmp (docget_utf8 (&d, "_id", ""), "chunksize")) {
            int64_t mb = docget_int (&d, "value", 0);
            if (mb > 0)
               s->balancer.chunk_size_bytes = ck_mul (mb, 1024 * 1024);
         } else {
            const char *start = docget_utf8 (&d, "activeWindow.start", NULL);
            const char *stop = docget_utf8 (&d, "activeWindow.stop", NULL);
            if (start && stop) {
               s->balancer.has_window = true;
               bson_strncpy (s->balancer.window_start, start, sizeof s->balancer.window_start);
               bson_strncpy (s->balancer.window_stop, stop, sizeof s->balancer.window_stop);
            }
            if (!s->balancer.mode[0])
               bson_strncpy (s->balancer.mode, docget_bool (&d, "stopped") ? "off" : docget_utf8 (&d, "mode", "full"),
                             sizeof s->balancer.mode);
         }
      }
   }
   ok = true;
done:
   bson_destroy (status);
   bson_destroy (find);
   bson_destroy (&reply);
   bson_destroy (&docs);
   return ok;
}

static bool
sample_shards (collect_t *c, snap_t *s, sh_error_t *err)
{
   bson_t *find = BCON_NEW ("find", "shards", "sort", "{", "_id", BCON_INT32 (1), "}");
   bson_t docs;
   bson_iter_t it;
   uint32_t n;
   bool ok = false;

   if (!collect_run_docs (c, "config", find, 0, &docs, err))
      goto done;
   n = bson_count_keys (&docs);
   s->shards = collect_calloc (n, sizeof *s->shards);
   if (bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it)) {
         snap_shard_t *sh = &s->shards[s->nshards];
         bson_t d, tags;
         bson_iter_t t;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d))
            continue;
         bson_strncpy (sh->name, docget_utf8 (&d, "_id", "?"), sizeof sh->name);
         bson_strncpy (sh->host, docget_utf8 (&d, "host", ""), sizeof sh->host);
         sh->draining = docget_bool (&d, "draining");
         if (docget_sub (&d, "tags", BSON_TYPE_EOD, &tags) && bson_iter_init (&t, &tags)) {
            while (bson_iter_next (&t)) {
               if (!BSON_ITER_HOLDS_UTF8 (&t))
                  continue;
               if (sh->zones[0])
                  strncat (sh->zones, ",", sizeof sh->zones - strlen (sh->zones) - 1);
               strncat (sh->zones, bson_iter_utf8 (&t, NULL), sizeof sh->zones - strlen (sh->zones) - 1);
            }
         }
         s->nshards++;
      }
   }
   ok = true;
done:
   bson_destroy (find);
   bson_destroy (&docs);
   return ok;
}

/* Per shard: the write-rate history (sparkline), the trend since the session's first sample, and the drain
 * progress of a draining shard. now_ms is the sample's monotonic time. */
static void
push_history (collect_t *c, snap_t *s, int64_t now_ms)
{
   for (size_t i = 0; i < s->nshards; i++) {
      shard_hist_t *h = NULL;
      for (size_t k = 0; k < c->nhist && !h; k++)
         if (!strcmp (c->hist[k].name, s->shards[i].name))
            h = &c->hist[k];
      if (!h) {
         c->hist = realloc (c->hist, (c->nhist + 1) * sizeof *c->hist);
         if (!c->hist)
            abort ();
         h = &c->hist[c->nhist++];
         memset (h, 0, sizeof *h);
         bson_strncpy (h->name, s->shards[i].name, sizeof h->name);
         h->first_ms = now_ms;
         h->first_chunks = s->shards[i].chunks;
         h->first_bytes = s->shards[i].data_bytes;
      }
      s->shards[i].chunks_delta = ck_sub (s->shards[i].chunks, h->first_chunks);
      s->shards[i].bytes_delta = s->shards[i].data_bytes - h->first_bytes;
      s->shards[i].trend_s = (double) (now_ms - h->first_ms) / 1000.0;
      if (!s->shards[i].draining) {
         h->ndrain = 0;
      } else {
         if (!h->drain)
            h->drain = collect_calloc (SNAP_HIST, sizeof *h->drain);
         /* a drain that has emptied keeps the readings up to the one that saw it empty: its rate is the one it
          * left at, not one that decays as the window fills with time in which there was nothing to move */
         bool done = h->ndrain > 0 && !h->drain[h->ndrain - 1].chunks && !h->drain[h->ndrain - 1].bytes &&
                     !s->shards[i].chunks && !s->shards[i].data_bytes;
         /* keep one reading at or before the window's start, so the rate spans the whole window */
         while (!done && h->ndrain >= 2 &&
                (h->drain[1].ms <= now_ms - COLLECT_DRAIN_WINDOW_MS || h->ndrain == SNAP_HIST)) {
            memmove (h->drain, h->drain + 1, (size_t) (h->ndrain - 1) * sizeof h->drain[0]);
            h->ndrain--;
         }
         if (!done) {
            if (h->ndrain == SNAP_HIST)
               h->ndrain--;
            h->drain[h->ndrain].ms = now_ms;
            h->drain[h->ndrain].bytes = s->shards[i].data_bytes;
            h->drain[h->ndrain].chunks = s->shards[i].chunks;
            h->ndrain++;
         }
         collect_drain_progress (&s->shards[i], h->drain, h->ndrain);
         /* the time left is sh.progress's (its drain row), so the panel and the Operations line say the same; stuck
          * (the shared model's verdict) means none can be told */
         const snap_op_t *op = snap_drain_op (s, s->shards[i].name);
         if (op) {
            s->shards[i].drain.stuck = op->stuck[0] != '\0';
            s->shards[i].drain.eta_s = op->stuck[0] || op->eta_s < 0 ? -1 : (int64_t) (op->eta_s + 0.5);
         }
      }
      if (s->rates_valid) {
         if (h->nhist == SNAP_HIST) {
            memmove (h->hist, h->hist + 1, (SNAP_HIST - 1) * sizeof h->hist[0]);
            h->nhist--;
         }
         h->hist[h->nhist++] = s->shards[i].writes_ps;
      }
      memcpy (s->shards[i].hist, h->hist, sizeof h->hist);
      s->shards[i].nhist = h->nhist;
   }
}

/* One collection's claim on the refresh's few $collStats and key-end reads. */
typedef struct {
   int i;                 /* index in the snapshot */
   int64_t act;           /* documents and bytes that changed since the last sample ($shardedDataDistribution) */
   int64_t read_seq;      /* the refresh whose $collStats last read it; 0 when never */
   int64_t writes_before; /* its write counter before this refresh */
   bool had_stats;        /* its counters had been read before */
   bool read;             /* read in this refresh */
   int64_t wdelta;        /* writes since its previous reading */
   int64_t cum;           /* its write counter */
   bool queried;          /* its key ends were read before */
   bool eligible;         /* worth a key-end read */
} pick_t;

static int
cmp_desc (int64_t a, int64_t b)
{
   return a > b ? -1 : a < b;
}

/* Changed data first (most first), then the longest unread, then snapshot order. */
static int
pick_for_stats (const void *a, const void *b)
{
   const pick_t *x = a, *y = b;
   int c = cmp_desc (x->act > 0, y->act > 0);
   if (!c)
      c = cmp_desc (x->act, y->act);
   if (!c)
      c = -cmp_desc (x->read_seq, y->read_seq);
   return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* Eligible first; then written to (most first), never looked at, most written overall, snapshot order. */
static int
pick_for_trend (const void *a, const void *b)
{
   const pick_t *x = a, *y = b;
   int c = cmp_desc (x->eligible, y->eligible);
   if (!c)
      c = cmp_desc (x->wdelta + x->act > 0, y->wdelta + y->act > 0);
   if (!c)
      c = cmp_desc (x->wdelta + x->act, y->wdelta + y->act);
   if (!c)
      c = cmp_desc (!x->queried, !y->queried);
   if (!c)
      c = cmp_desc (x->cum, y->cum);
   return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* How much co's documents and bytes differ from pc's (the shards of pc mapped to co's by inv, prev index -> cur
 * index or -1). */
static int64_t
size_activity (const snap_coll_t *co, const snap_coll_t *pc, const int *smap, const int *inv)
{
   size_t n, m;
   const snap_cell_t *cv = snap_coll_cells (co, &n);
   const snap_cell_t *pv = snap_coll_cells (pc, &m);
   int64_t act = 0;
   if (co->cells == pc->cells)
      return 0;
   for (size_t k = 0; k < n; k++) {
      const snap_cell_t *p = smap[cv[k].shard] >= 0 ? snap_coll_cell (pc, smap[cv[k].shard]) : NULL;
      act = ck_add (act, ck_add (ck_abs (ck_sub (cv[k].docs, p ? p->docs : 0)),
                                 ck_abs (ck_sub (cv[k].data_bytes, p ? p->data_bytes : 0))));
   }
   /* the shards that held some of it and hold nothing now */
   for (size_t k = 0; k < m; k++)
      if (inv[pv[k].shard] < 0 || !snap_coll_cell (co, inv[pv[k].shard]))
         act = ck_add (act, ck_add (ck_abs (pv[k].docs), ck_abs (pv[k].data_bytes)));
   return act;
}

/* Gives every collection of s the op counters, their reading time and the key trend of the last good sample (the
 * ones read in this refresh overwrite them), and fills picks with what chooses the collections to read. */
static void
carry_counters (collect_t *c, snap_t *s, pick_t *picks)
{
   int *smap = c->have_prev ? collect_shard_map (s, &c->prev) : NULL;
   int *inv = collect_calloc (c->have_prev ? c->prev.nshards : 1, sizeof *inv);
   for (size_t k = 0; c->have_prev && k < c->prev.nshards; k++)
      inv[k] = -1;
   for (size_t k = 0; smap && k < s->nshards; k++)
      if (smap[k] >= 0)
         inv[smap[k]] = (int) k;
   for (size_t i = 0; i < s->ncolls; i++) {
      snap_coll_t *co = &s->colls[i];
      const snap_coll_t *pc = c->have_prev ? collect_prev_coll (&c->prev, co->ns, i) : NULL;
      pick_t *p = &picks[i];
      const snap_act_t *pa;
      size_t m;
      p->i = (int) i;
      p->read_seq = collect_track_get (c, co->ns)->read_seq;
      if (!pc)
         continue;
      co->stats_ms = pc->stats_ms;
      co->key_trend = pc->key_trend;
      p->had_stats = pc->stats_ms != 0;
      p->act = size_activity (co, pc, smap, inv);
      pa = snap_coll_acts (pc, &m);
      for (size_t k = 0; k < m; k++)
         if (inv[pa[k].shard] >= 0)
            p->writes_before += pa[k].writes_ops;
      if (co->acts == pc->acts)
         continue; /* shared with the last sample: its counters are there */
      for (size_t k = 0; k < m; k++) {
         snap_act_t *a;
         if (inv[pa[k].shard] < 0 || (!pa[k].writes_ops && !pa[k].reads_ops))
            continue;
         a = snap_coll_act_add (co, inv[pa[k].shard]);
         a->writes_ops = pa[k].writes_ops;
         a->reads_ops = pa[k].reads_ops;
      }
      snap_coll_tidy (co);
   }
   free (smap);
   free (inv);
}

/* The shards' and collections' totals from the collections' cells and acts. */
static void
sum_totals (snap_t *s)
{
   for (size_t k = 0; k < s->nshards; k++)
      s->shards[k].chunks = s->shards[k].jumbo = s->shards[k].data_bytes = s->shards[k].docs = 0;
   for (size_t i = 0; i < s->ncolls; i++) {
      snap_coll_t *co = &s->colls[i];
      size_t n, m;
      const snap_cell_t *cv = snap_coll_cells (co, &n);
      const snap_act_t *av = snap_coll_acts (co, &m);
      co->data_bytes = co->docs = 0;
      for (size_t k = 0; k < n; k++) {
         snap_shard_t *sh = &s->shards[cv[k].shard];
         sh->chunks = ck_add (sh->chunks, cv[k].chunks);
         sh->data_bytes = ck_add (sh->data_bytes, cv[k].data_bytes);
         sh->docs = ck_add (sh->docs, cv[k].docs);
         co->data_bytes = ck_add (co->data_bytes, cv[k].data_bytes);
         co->docs = ck_add (co->docs, cv[k].docs);
      }
      for (size_t k = 0; k < m; k++)
         s->shards[av[k].shard].jumbo = ck_add (s->shards[av[k].shard].jumbo, av[k].jumbo);
   }
}

bool
collect_sample (collect_t *c, snap_t *snap)
{
   snap_t s;
   sh_error_t err;
   coll_meta_t *metas = NULL;
   size_t nmetas = 0;
   int64_t ops[COLLECT_OPS] = { -1, -1, -1, -1, -1, -1 }; /* -1: not read */
   cmds_reading_t rd = { .have_cmds = false };
   int64_t t0 = clock_mono_ms ();
   bson_t tags = BSON_INITIALIZER;
   int *own_reads = NULL;
   pick_t *picks = NULL;
   lookup_t lk;
   size_t n;
   bool sdd = false;
   bool ok = false;

   memset (&s, 0, sizeof s);
   memset (&lk, 0, sizeof lk);
   bson_init (&rd.cmds);
   sh_error_clear (&err);
   apply_timeouts (c);
   c->round_trips = 0;
   c->seq++;
   c->deadline_mono_ms = t0 + (c->ever_sampled ? (int64_t) (c->opts.interval_s * 500.0) : COLLECT_FIRST_READ_MS);
   if (!sample_server_status (c, &s, ops, &rd, &err) || !sample_balancer (c, &s, &err) ||
       !sample_shards (c, &s, &err) || !collect_sample_collections (c, &s, &metas, &nmetas, &err))
      goto done;
   collect_lookup_build (&s, metas, nmetas, &lk);
   if (!collect_sample_chunks (c, &s, metas, nmetas, &lk, &tags, &err) || !collect_sample_events (c, &s, &err) ||
       !collect_sample_migrations (c, &s, &err) || !collect_sample_drain_databases (c, &s, &err) ||
       !collect_sample_operations (c, &s, &err))
      goto done;
   {
      /* sizes change with writes (the router's counters) and with migrations (the chunks that changed) */
      bool writes = !s.incremental, moved = false;
      for (int k = 0; k < 3; k++)
         writes = writes || ops[k] < 0 || ops[k] != c->op_prev[k];
      for (size_t i = 0; i < nmetas; i++)
         moved = moved || metas[i].moved;
      if (!collect_sample_data_distribution (c, &s, &lk, metas,
                                             writes  ? SDD_ALL
                                             : moved ? SDD_CHANGED
                                                     : SDD_NONE,
                                             &sdd, &err))
         goto done;
   }
   own_reads = collect_calloc (s.ncolls, sizeof *own_reads);
   picks = collect_calloc (s.ncolls, sizeof *picks);
   carry_counters (c, &s, picks);
   for (size_t k = 0; !sdd && k < s.ncolls; k++)
      picks[k].act = 0; /* sizes come with the counters below: nothing to compare yet */
   /* the counters: every collection without $shardedDataDistribution (it also gives the sizes), else a few, and
    * none when only the dashboard's own reads moved the router's counters */
   n = sdd && s.ncolls > COLLECT_STATS_PER_REFRESH ? COLLECT_STATS_PER_REFRESH : s.ncolls;
   s.quiet = sdd && sample_quiet (c, ops, &rd);
   if (s.quiet) {
      n = 0;
      stats_hold (c, &s, t0);
   }
   qsort (picks, s.ncolls, sizeof *picks, pick_for_stats);
   for (size_t k = 0; k < n; k++) {
      size_t i = (size_t) picks[k].i;
      coll_track_t *t = collect_track_get (c, s.colls[i].ns);
      int64_t before = s.colls[i].stats_ms;
      if (!collect_sample_coll_stats (c, &s, i, !sdd, &lk, &err))
         goto done;
      if (s.colls[i].stats_ms == before)
         continue; /* the server refused it: the last reading and its rates stay */
      own_reads[i] = t->own_reads;
      t->own_reads = 0;
      t->read_seq = c->seq;
      picks[k].read = true;
      s.stats_read++;
   }
   /* the key ends: a few ranged collections, those written to since the last look first */
   for (size_t k = 0; k < s.ncolls; k++) {
      pick_t *p = &picks[k];
      const snap_coll_t *co = &s.colls[p->i];
      int64_t w = 0;
      size_t m;
      const snap_act_t *av = snap_coll_acts (co, &m);
      for (size_t k = 0; k < m; k++)
         w += av[k].writes_ops;
      p->wdelta = p->read && p->had_stats && w > p->writes_before ? w - p->writes_before : 0;
      p->cum = w;
      p->queried = collect_track_get (c, co->ns)->queried;
      /* quiet: no write moved a key end, and a first look (a baseline) can wait for the writes */
      p->eligible = !s.quiet && !co->hashed && co->chunks > 0 && (!p->queried || p->wdelta > 0 || p->act > 0);
   }
   qsort (picks, s.ncolls, sizeof *picks, pick_for_trend);
   for (size_t k = 0; k < s.ncolls && k < COLLECT_TRENDS_PER_REFRESH && picks[k].eligible; k++)
      if (!collect_sample_key_trend (c, &s, (size_t) picks[k].i, &metas[picks[k].i], &err))
         goto done;
   sample_ops_end (c); /* the last command of the sample */
   sum_totals (&s);
   s.interval_s = c->opts.interval_s;
   s.sampled_at_ms = clock_wall_ms ();
   s.sample_ms = clock_mono_ms () - t0;
   s.round_trips = c->round_trips;
   {
      double dt = c->have_prev ? (double) (t0 - c->prev_mono_ms) / 1000.0 : 0;
      collect_judge (&s, c->have_prev ? &c->prev : NULL, dt, own_reads, &c->opts);
      if (c->have_prev && dt > 0) {
         double *rates[4] = { &s.inserts_ps, &s.updates_ps, &s.deletes_ps, &s.queries_ps };
         for (int k = 0; k < 4; k++) /* insert, update, delete, query */
            *rates[k] = ops[k] >= c->op_prev[k] ? (double) (ops[k] - c->op_prev[k]) / dt : 0;
      }
   }
   push_history (c, &s, t0);
   keep_counters (c, ops, &rd);
   snap_destroy (&c->prev);
   snap_share (&c->prev, &s); /* the one on screen and the one rates are computed against: held once */
   c->have_prev = true;
   c->prev_mono_ms = t0;
   free_meta (c);
   c->meta = metas;
   c->nmeta = nmetas;
   metas = NULL;
   nmetas = 0;
   if (c->have_tags)
      bson_destroy (&c->tags);
   bson_steal (&c->tags, &tags);
   bson_init (&tags);
   c->have_tags = true;
   c->full_next = false;
   c->ever_sampled = true;
   snap_destroy (snap);
   *snap = s;
   memset (&s, 0, sizeof s);
   ok = true;
done:
   if (!ok) {
      snap->stale = true;
      bson_strncpy (snap->error, err.message[0] ? err.message : "refresh failed", sizeof snap->error);
      snap->interval_s = c->opts.interval_s;
      /* the rates of the next good sample must not span the outage as if it were one interval */
      c->have_prev = false;
   }
   for (size_t i = 0; i < nmetas; i++)
      bson_destroy (&metas[i].key);
   free (metas);
   free (own_reads);
   free (picks);
   collect_lookup_destroy (&lk);
   snap_destroy (&s);
   bson_destroy (&tags);
   bson_destroy (&rd.cmds);
   return ok;
}

void
collect_request_full (collect_t *c)
{
   c->full_next = true;
}
