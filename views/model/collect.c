/* The dashboard's collector: one refresh = a bounded list of read-only commands through the router, turned into a
 * snapshot_t. Every kind of data is asked for once: chunk counts from one server-side $group over config.chunks,
 * the chunks at both ends of each key space from a second one, per-shard sizes and documents of every collection
 * from one $shardedDataDistribution (6.0.3+), recent events from config.changelog/actionlog. Write and read
 * counters exist only per collection ($collStats latencyStats), so a refresh reads them for at most
 * COLLECT_STATS_PER_REFRESH collections, the ones whose data changed first, and carries the others' last rates;
 * before 6.0.3 (no $shardedDataDistribution) it falls back to one $collStats per collection. The judgement (rates,
 * hot shards, the hot key range, balance by the server version's policy) is pure and exported for the unit tests.
 * Nothing here writes to the cluster. */
#include <math.h>
#include <mongoc/mongoc.h>
#include <stdlib.h>
#include <string.h>

#include "views/model/collect.h"
#include "shell/lib/docget.h"
#include "shell/lib/order.h"
#include "commands/commands.h"
#include "shell/lib/aligned.h"
#include "shell/lib/clock.h"
#include "shell/core/conn.h"
#include "shell/core/ctx.h"
#include "shell/core/output.h"

#define COLLECT_MIGRATIONS_FETCHED 16 /* migration events (started, moved, failed) per refresh */
#define COLLECT_SPLITS_FETCHED 8
#define COLLECT_ROUNDS_FETCHED 8
#define COLLECT_FAILURES_FETCHED 4  /* failed migrations, and failed rounds, read on their own */
#define COLLECT_MIGRATIONS_MAX 1000 /* in-flight migrations counted (a cluster runs at most one per shard pair) */
#define COLLECT_DRAIN_WINDOW_MS (5 * 60 * 1000) /* the span a drain rate is measured over */
#define COLLECT_CHUNK_SIZES_PER_REFRESH 16      /* dataSize reads per drill-down refresh (rows on screen only) */
#define COLLECT_TAGS_MAX 10000
#define COLLECT_DEFAULT_RANGE_MB 128
#define COLLECT_OLD_DEFAULT_RANGE_MB 64
#define COLLECT_STATS_PER_REFRESH 8  /* $collStats (rate counters) per refresh, with $shardedDataDistribution */
#define COLLECT_TRENDS_PER_REFRESH 2 /* collections whose key ends are read per refresh (two finds each) */

/* A chunk's size as dataSize last gave it. */
typedef struct {
   char min[SNAP_TEXT]; /* the chunk's min, shell style */
   int64_t docs, bytes;
   int64_t read_at; /* collect_t.size_reads when read */
} drill_size_t;

/* What the collector remembers about a sharded collection from the last sample. */
typedef struct {
   char ns[SNAP_NAME];
   bson_t key; /* shard key pattern */
   uint8_t uuid[16];
   bool has_uuid;
   bool by_uuid;    /* chunks keyed by uuid (config.collections has timestamp: 5.0+) */
   char ident[64];  /* its incarnation: config.collections timestamp (5.0+) or lastmodEpoch, as text */
   uint32_t vt, vi; /* its collection version: the greatest chunk lastmod the last count saw (0|0: none) */
   bool changed;    /* in the sample under way: its chunks changed since the last one (or the read is full) */
   bool moved;      /* ... and a migration was among the changes (the version's major part grew) */
} coll_meta_t;

/* The key extremes seen for a ranged collection, to tell where inserts land. */
typedef struct {
   char ns[SNAP_NAME];
   bson_t *top;      /* highest shard key seen, NULL when unknown */
   bson_t *bottom;   /* lowest */
   bool queried;     /* the ends were fetched at least once */
   int own_reads;    /* reads the collector sent to it since its last $collStats */
   int64_t read_seq; /* the refresh whose $collStats last read its counters; 0 when never */
} coll_track_t;

/* One reading of what is left on a draining shard. */
typedef struct {
   int64_t ms; /* monotonic */
   int64_t bytes;
   int64_t chunks;
} drain_point_t;

/* What the collector remembers about a shard over the session. */
typedef struct {
   char name[SNAP_NAME];
   double hist[SNAP_HIST]; /* write rates, oldest first */
   int nhist;
   int64_t first_ms; /* monotonic time of the first sample that saw it */
   int64_t first_chunks, first_bytes;
   drain_point_t drain[SNAP_HIST]; /* while draining: readings of the last COLLECT_DRAIN_WINDOW_MS, oldest first */
   int ndrain;
} shard_hist_t;

struct collect {
   sh_ctx_t *ctx; /* borrowed */
   collect_opts_t opts;
   char *base_uri;     /* the user's connection string, before our timeouts */
   bool user_timeouts; /* the user set socketTimeoutMS: leave all timeouts alone */
   int timeout_ms;     /* the timeouts currently configured into ctx->uri */
   snapshot_t prev;    /* the last good snapshot (rates are computed against it) */
   bool have_prev;
   int64_t prev_mono_ms;
   int64_t op_prev[4]; /* mongos opcounters insert, update, delete, query at prev */
   coll_meta_t *meta;  /* from the last good sample */
   size_t nmeta;
   coll_track_t *track;
   size_t ntrack;
   shard_hist_t *hist;
   size_t nhist;
   int round_trips;          /* in the sample under way */
   int64_t deadline_mono_ms; /* the sample under way gives up after this */
   int64_t seq;              /* refreshes started */
   bool no_sdd;              /* the router refused $shardedDataDistribution: one $collStats per collection */
   /* The drill-down's collection: its chunks' bounds as last fetched (raw BSON, same order as the chunk list) and
    * the sizes read so far (dataSize), kept across refreshes by the chunk's min. */
   char drill_ns[SNAP_NAME];
   uint8_t **drill_min, **drill_max;
   size_t ndrill;
   drill_size_t *sizes;
   size_t nsizes;
   int64_t size_reads; /* dataSize reads so far (orders the cache: oldest reading first) */
   /* Incremental refresh: config.tags as the last good sample read it (the zones behind out_of_zone), and a full
    * re-read asked for. */
   bson_t tags;
   bool have_tags;
   bool full_next;
};

/* A name (or UUID) -> index map: a sorted array searched by bisection, so that replies with one document per
 * (collection, shard) cost O(log n) per document instead of a scan over the shards and collections. */
typedef struct {
   const void *key;
   size_t len;
   int i;
} ix_ent_t;

typedef struct {
   ix_ent_t *v;
   size_t n;
} ix_t;

/* The lookups of one sample: shards by name, collections by namespace and by UUID. */
typedef struct {
   ix_t shards;
   ix_t by_ns;
   ix_t by_uuid;
} lookup_t;

/* ---- small helpers ---- */

static void *
xcalloc (size_t n, size_t size)
{
   void *p = calloc (n ? n : 1, size ? size : 1);
   if (!p)
      abort ();
   return p;
}

static int
ix_cmp (const void *a, const void *b)
{
   const ix_ent_t *x = a, *y = b;
   int c = memcmp (x->key, y->key, x->len < y->len ? x->len : y->len);
   if (c)
      return c;
   return x->len < y->len ? -1 : x->len > y->len;
}

static void
ix_add (ix_t *ix, const void *key, size_t len, int i)
{
   ix->v[ix->n].key = key;
   ix->v[ix->n].len = len;
   ix->v[ix->n].i = i;
   ix->n++;
}

/* The index stored with key, or -1. */
static int
ix_find (const ix_t *ix, const void *key, size_t len)
{
   ix_ent_t want = { key, len, 0 };
   const ix_ent_t *e = ix->n ? bsearch (&want, ix->v, ix->n, sizeof *ix->v, ix_cmp) : NULL;
   return e ? e->i : -1;
}

static void
lookup_free (lookup_t *lk)
{
   free (lk->shards.v);
   free (lk->by_ns.v);
   free (lk->by_uuid.v);
   memset (lk, 0, sizeof *lk);
}

static void
fmt_json (const bson_t *doc, char *buf, size_t len)
{
   char *s = bson_as_relaxed_extended_json (doc, NULL);
   bson_strncpy (buf, s ? s : "null", len);
   bson_free (s);
}

/* The type of the first field of doc, or BSON_TYPE_EOD. */
static bson_type_t
first_type (const bson_t *doc)
{
   bson_iter_t it;
   if (bson_iter_init (&it, doc) && bson_iter_next (&it))
      return bson_iter_type (&it);
   return BSON_TYPE_EOD;
}

/* ---- the connection string and its timeouts ---- */

static int
timeout_for (double interval_s)
{
   int ms = (int) (interval_s * 1000.0 * 0.45);
   return ms < 200 ? 200 : ms > 5000 ? 5000 : ms;
}

/* Writes base + our timeout options into ctx->uri and drops the client when they changed. */
static void
apply_timeouts (collect_t *c)
{
   const char *hosts, *slash;
   char sep[3] = "";
   char *uri;
   int ms = timeout_for (c->opts.interval_s);

   if (c->user_timeouts || ms == c->timeout_ms || !c->base_uri)
      return;
   hosts = strstr (c->base_uri, "://");
   hosts = hosts ? hosts + 3 : c->base_uri;
   slash = strchr (hosts, '/');
   if (strchr (hosts, '?'))
      bson_strncpy (sep, "&", sizeof sep);
   else if (slash)
      bson_strncpy (sep, "?", sizeof sep);
   else
      bson_strncpy (sep, "/?", sizeof sep);
   uri = bson_strdup_printf ("%s%sserverSelectionTimeoutMS=%d&connectTimeoutMS=%d&socketTimeoutMS=%d", c->base_uri, sep,
                             ms, ms, ms);
   if (c->ctx->uri) {
      memset (c->ctx->uri, 0, strlen (c->ctx->uri));
      bson_free (c->ctx->uri);
   }
   c->ctx->uri = uri;
   if (c->ctx->client) {
      mongoc_client_destroy (c->ctx->client);
      c->ctx->client = NULL;
   }
   c->timeout_ms = ms;
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
   collect_t *c = xcalloc (1, sizeof *c);
   mongoc_uri_t *uri;
   c->ctx = ctx;
   c->opts = *opts;
   if (c->opts.interval_s <= 0)
      c->opts.interval_s = COLLECT_DEFAULT_INTERVAL;
   c->base_uri = ctx->uri ? bson_strdup (ctx->uri) : NULL;
   uri = ctx->uri ? mongoc_uri_new_with_error (ctx->uri, NULL) : NULL;
   c->user_timeouts = !uri || mongoc_uri_has_option (uri, MONGOC_URI_SOCKETTIMEOUTMS) ||
                      mongoc_uri_has_option (uri, MONGOC_URI_SERVERSELECTIONTIMEOUTMS);
   mongoc_uri_destroy (uri);
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

static void
free_drill (collect_t *c, bool sizes_too)
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
collect_destroy (collect_t *c)
{
   if (!c)
      return;
   free_meta (c);
   free_drill (c, true);
   for (size_t i = 0; i < c->ntrack; i++) {
      if (c->track[i].top)
         bson_destroy (c->track[i].top);
      if (c->track[i].bottom)
         bson_destroy (c->track[i].bottom);
   }
   free (c->track);
   free (c->hist);
   if (c->have_tags)
      bson_destroy (&c->tags);
   snapshot_clear (&c->prev);
   if (c->base_uri) {
      memset (c->base_uri, 0, strlen (c->base_uri));
      bson_free (c->base_uri);
   }
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

/* ---- round trips ---- */

/* Every command of a sample goes through these two: they count round trips and enforce the sample's deadline. */
static bool
over_deadline (collect_t *c, sh_error_t *err)
{
   if (clock_mono_ms () <= c->deadline_mono_ms)
      return false;
   sh_error_set (err, SH_ERR_NETWORK, "refresh took longer than half the interval (%.1fs); raise it with +",
                 c->opts.interval_s);
   return true;
}

static bool
run_cmd (collect_t *c, const char *db, const bson_t *cmd, bson_t *reply, sh_error_t *err)
{
   if (over_deadline (c, err)) {
      bson_init (reply);
      return false;
   }
   c->round_trips++;
   return conn_run (c->ctx, db, cmd, CONN_ADMIN, reply, err);
}

static bool
run_docs (collect_t *c, const char *db, const bson_t *cmd, size_t max, bson_t *docs, sh_error_t *err)
{
   if (over_deadline (c, err)) {
      bson_init (docs);
      return false;
   }
   c->round_trips++;
   return conn_run_docs (c->ctx, db, cmd, CONN_ADMIN, max, docs, NULL, err);
}

/* Runs a cursor command and hands each document to fn as it arrives (conn_run_each), so that no more than one batch
 * of a long reply is in memory. */
static bool
run_each (collect_t *c, const char *db, const bson_t *cmd, conn_doc_fn fn, void *data, sh_error_t *err)
{
   if (over_deadline (c, err))
      return false;
   c->round_trips++;
   return conn_run_each (c->ctx, db, cmd, CONN_ADMIN, fn, data, NULL, err);
}

/* ---- the steps of one sample; each returns false only for an error that spoils the whole sample ---- */

static bool
fatal (const sh_error_t *err)
{
   return err->kind != SH_ERR_SERVER;
}

static bool
sample_server_status (collect_t *c, snapshot_t *s, int64_t ops[4], sh_error_t *err)
{
   bson_t *cmd = BCON_NEW ("serverStatus", BCON_INT32 (1));
   bson_t reply;
   bool ok = true;
   if (!run_cmd (c, "admin", cmd, &reply, err)) {
      ok = !fatal (err);
      goto done;
   }
   bson_strncpy (s->host, docget_utf8 (&reply, "host", ""), sizeof s->host);
   bson_strncpy (s->version, docget_utf8 (&reply, "version", ""), sizeof s->version);
   sscanf (s->version, "%d.%d", &s->vmajor, &s->vminor);
   ops[0] = docget_int (&reply, "opcounters.insert", 0);
   ops[1] = docget_int (&reply, "opcounters.update", 0);
   ops[2] = docget_int (&reply, "opcounters.delete", 0);
   ops[3] = docget_int (&reply, "opcounters.query", 0);
done:
   bson_destroy (cmd);
   bson_destroy (&reply);
   return ok;
}

static bool
sample_balancer (collect_t *c, snapshot_t *s, sh_error_t *err)
{
   bson_t *status = BCON_NEW ("balancerStatus", BCON_INT32 (1));
   bson_t *find =
      BCON_NEW ("find", "settings", "filter", "{", "_id", "{", "$in", "[", "balancer", "chunksize", "]", "}", "}");
   bson_t reply, docs;
   bson_iter_t it;
   bool ok = false;

   s->balancer.rounds = -1;
   s->balancer.chunk_size_bytes =
      (int64_t) (s->vmajor >= 6 || !s->vmajor ? COLLECT_DEFAULT_RANGE_MB : COLLECT_OLD_DEFAULT_RANGE_MB) * 1024 * 1024;
   bson_init (&docs);
   if (run_cmd (c, "admin", status, &reply, err)) {
      bson_strncpy (s->balancer.mode, docget_utf8 (&reply, "mode", ""), sizeof s->balancer.mode);
      s->balancer.in_round = docget_bool (&reply, "inBalancerRound");
      s->balancer.rounds = docget_int (&reply, "numBalancerRounds", -1);
   } else if (fatal (err)) {
      goto done;
   }
   bson_destroy (&docs);
   if (!run_docs (c, "config", find, 0, &docs, err)) {
      if (fatal (err))
         goto done;
   } else if (bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it)) {
         bson_t d;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d))
            continue;
         if (!strcmp (docget_utf8 (&d, "_id", ""), "chunksize")) {
            int64_t mb = docget_int (&d, "value", 0);
            if (mb > 0)
               s->balancer.chunk_size_bytes = mb * 1024 * 1024;
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
sample_shards (collect_t *c, snapshot_t *s, sh_error_t *err)
{
   bson_t *find = BCON_NEW ("find", "shards", "sort", "{", "_id", BCON_INT32 (1), "}");
   bson_t docs;
   bson_iter_t it;
   uint32_t n;
   bool ok = false;

   if (!run_docs (c, "config", find, 0, &docs, err))
      goto done;
   n = bson_count_keys (&docs);
   s->shards = xcalloc (n, sizeof *s->shards);
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

static bool
key_is_hashed (const bson_t *key)
{
   bson_iter_t it;
   if (bson_iter_init (&it, key))
      while (bson_iter_next (&it))
         if (BSON_ITER_HOLDS_UTF8 (&it) && !strcmp (bson_iter_utf8 (&it, NULL), "hashed"))
            return true;
   return false;
}

/* A collection's incarnation from its config.collections document: "t:<timestamp>" (5.0+), else "e:<epoch>". A
 * dropped and re-created, or resharded, collection gets a new one. */
static void
coll_ident (const bson_t *d, char *out, size_t len)
{
   bson_iter_t it;
   out[0] = '\0';
   if (bson_iter_init_find (&it, d, "timestamp") && BSON_ITER_HOLDS_TIMESTAMP (&it)) {
      uint32_t t, i;
      bson_iter_timestamp (&it, &t, &i);
      bson_snprintf (out, len, "t:%u|%u", t, i);
   } else if ((bson_iter_init_find (&it, d, "lastmodEpoch") || bson_iter_init_find (&it, d, "epoch")) &&
              BSON_ITER_HOLDS_OID (&it)) {
      char hex[25];
      bson_oid_to_string (bson_iter_oid (&it), hex);
      bson_snprintf (out, len, "e:%s", hex);
   }
}

static bool
sample_collections (collect_t *c, snapshot_t *s, coll_meta_t **metas, size_t *nmetas, sh_error_t *err)
{
   bson_t *find =
      BCON_NEW ("find", "collections", "filter", "{", "dropped", "{", "$ne", BCON_BOOL (true), "}", "unsplittable", "{",
                "$ne", BCON_BOOL (true), "}", "}", "sort", "{", "_id", BCON_INT32 (1), "}");
   bson_t docs;
   bson_iter_t it;
   uint32_t n;
   bool ok = false;

   if (!run_docs (c, "config", find, 0, &docs, err))
      goto done;
   n = bson_count_keys (&docs);
   s->colls = xcalloc (n, sizeof *s->colls);
   *metas = SH_ALLOC_ARRAY (coll_meta_t, n);
   if (!*metas)
      abort ();
   if (bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it)) {
         snap_coll_t *co = &s->colls[s->ncolls];
         coll_meta_t *m = &(*metas)[s->ncolls];
         bson_t d, key;
         bson_iter_t u;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) || !docget_sub (&d, "key", BSON_TYPE_EOD, &key))
            continue;
         bson_strncpy (co->ns, docget_utf8 (&d, "_id", "?"), sizeof co->ns);
         bson_strncpy (m->ns, co->ns, sizeof m->ns);
         bson_copy_to (&key, &m->key);
         output_format_doc_line (&key, co->key, sizeof co->key);
         fmt_json (&key, co->key_json, sizeof co->key_json);
         co->hashed = key_is_hashed (&key);
         co->no_balance = docget_bool (&d, "noBalance");
         co->range_bytes = docget_int (&d, "maxChunkSizeBytes", 0);
         co->hot_shard = co->hot_range_shard = co->top_shard = co->bottom_shard = -1;
         co->cells = xcalloc (s->nshards, sizeof *co->cells);
         m->by_uuid = bson_has_field (&d, "timestamp");
         coll_ident (&d, m->ident, sizeof m->ident);
         if (bson_iter_init_find (&u, &d, "uuid") && BSON_ITER_HOLDS_BINARY (&u)) {
            const uint8_t *bin;
            uint32_t len;
            bson_iter_binary (&u, NULL, &len, &bin);
            if (len == 16) {
               memcpy (m->uuid, bin, 16);
               m->has_uuid = true;
            }
         }
         s->ncolls++;
         *nmetas = s->ncolls;
      }
   }
   ok = true;
done:
   bson_destroy (find);
   bson_destroy (&docs);
   return ok;
}

static int
find_meta (const coll_meta_t *metas, size_t n, const char *ns)
{
   for (size_t i = 0; i < n; i++)
      if (!strcmp (metas[i].ns, ns))
         return (int) i;
   return -1;
}

static void
lookup_build (const snapshot_t *s, const coll_meta_t *metas, size_t nmetas, lookup_t *lk)
{
   memset (lk, 0, sizeof *lk);
   lk->shards.v = xcalloc (s->nshards, sizeof *lk->shards.v);
   lk->by_ns.v = xcalloc (nmetas, sizeof *lk->by_ns.v);
   lk->by_uuid.v = xcalloc (nmetas, sizeof *lk->by_uuid.v);
   for (size_t i = 0; i < s->nshards; i++)
      ix_add (&lk->shards, s->shards[i].name, strlen (s->shards[i].name), (int) i);
   for (size_t i = 0; i < nmetas; i++) {
      ix_add (&lk->by_ns, metas[i].ns, strlen (metas[i].ns), (int) i);
      if (metas[i].has_uuid)
         ix_add (&lk->by_uuid, metas[i].uuid, 16, (int) i);
   }
   qsort (lk->shards.v, lk->shards.n, sizeof *lk->shards.v, ix_cmp);
   qsort (lk->by_ns.v, lk->by_ns.n, sizeof *lk->by_ns.v, ix_cmp);
   qsort (lk->by_uuid.v, lk->by_uuid.n, sizeof *lk->by_uuid.v, ix_cmp);
}

static int
lookup_shard (const lookup_t *lk, const char *name)
{
   return ix_find (&lk->shards, name, strlen (name));
}

static int
lookup_ns (const lookup_t *lk, const char *ns)
{
   return ix_find (&lk->by_ns, ns, strlen (ns));
}

/* Appends the value config.chunks uses to name a collection: its UUID (5.0+) or its namespace. */
static void
append_chunk_coll (bson_t *b, const char *key, const coll_meta_t *m)
{
   if (m->by_uuid && m->has_uuid)
      bson_append_binary (b, key, -1, BSON_SUBTYPE_UUID, m->uuid, 16);
   else
      bson_append_utf8 (b, key, -1, m->ns, -1);
}

/* Appends {op: ["$min", {"$literal": bound}]} as element key of the array arr (a chunk's min against a zone bound). */
static void
append_min_cmp (bson_t *arr, const char *key, const char *op, const bson_t *bound)
{
   bson_t e, a, lit;
   BSON_APPEND_DOCUMENT_BEGIN (arr, key, &e);
   BSON_APPEND_ARRAY_BEGIN (&e, op, &a);
   BSON_APPEND_UTF8 (&a, "0", "$min");
   BSON_APPEND_DOCUMENT_BEGIN (&a, "1", &lit);
   BSON_APPEND_DOCUMENT (&lit, "$literal", bound);
   bson_append_document_end (&a, &lit);
   bson_append_array_end (&e, &a);
   bson_append_document_end (arr, &e);
}

/* Builds the $switch that names the zone holding each chunk's min, from config.tags. Returns false (nothing
 * appended) when there are no zone ranges for known collections. */
static bool
append_zone_switch (bson_t *id, const bson_t *tags, const coll_meta_t *metas, size_t nmetas)
{
   bson_t sw, sw_in, branches;
   bson_iter_t it;
   uint32_t k = 0;
   if (!bson_iter_init (&it, tags))
      return false;
   while (bson_iter_next (&it)) {
      bson_t t, mn, mx;
      int mi;
      if (!docget_sub (tags, bson_iter_key (&it), BSON_TYPE_EOD, &t) || !docget_sub (&t, "min", BSON_TYPE_EOD, &mn) ||
          !docget_sub (&t, "max", BSON_TYPE_EOD, &mx))
         continue;
      mi = find_meta (metas, nmetas, docget_utf8 (&t, "ns", ""));
      if (mi < 0)
         continue;
      if (k == 0) {
         BSON_APPEND_DOCUMENT_BEGIN (id, "z", &sw);
         BSON_APPEND_DOCUMENT_BEGIN (&sw, "$switch", &sw_in);
         BSON_APPEND_ARRAY_BEGIN (&sw_in, "branches", &branches);
      }
      {
         char kb[16];
         const char *ks;
         bson_t br, cs, and, e1;
         bson_uint32_to_string (k++, &ks, kb, sizeof kb);
         BSON_APPEND_DOCUMENT_BEGIN (&branches, ks, &br);
         BSON_APPEND_DOCUMENT_BEGIN (&br, "case", &cs);
         BSON_APPEND_ARRAY_BEGIN (&cs, "$and", &and);
         BSON_APPEND_DOCUMENT_BEGIN (&and, "0", &e1);
         {
            bson_t a;
            BSON_APPEND_ARRAY_BEGIN (&e1, "$eq", &a);
            BSON_APPEND_UTF8 (&a, "0", metas[mi].by_uuid && metas[mi].has_uuid ? "$uuid" : "$ns");
            append_chunk_coll (&a, "1", &metas[mi]);
            bson_append_array_end (&e1, &a);
         }
         bson_append_document_end (&and, &e1);
         append_min_cmp (&and, "1", "$gte", &mn);
         append_min_cmp (&and, "2", "$lt", &mx);
         bson_append_array_end (&cs, &and);
         bson_append_document_end (&br, &cs);
         BSON_APPEND_UTF8 (&br, "then", docget_utf8 (&t, "tag", ""));
         bson_append_document_end (&branches, &br);
      }
   }
   if (k == 0)
      return false;
   bson_append_array_end (&sw_in, &branches);
   BSON_APPEND_NULL (&sw_in, "default");
   bson_append_document_end (&sw, &sw_in);
   bson_append_document_end (id, &sw);
   return true;
}

/* Whether shard sh is in zone z. */
static bool
shard_in_zone (const snap_shard_t *sh, const char *z)
{
   const char *p = sh->zones;
   size_t zl = strlen (z);
   while (*p) {
      const char *e = strchr (p, ',');
      size_t l = e ? (size_t) (e - p) : strlen (p);
      if (l == zl && !strncmp (p, z, l))
         return true;
      if (!e)
         break;
      p = e + 1;
   }
   return false;
}

/* What a streamed reply's documents are folded into. */
typedef struct {
   snapshot_t *s;
   const lookup_t *lk;
   coll_meta_t *metas; /* collection versions are kept here (the chunk-count and change replies) */
} reply_ctx_t;

static int
meta_for_chunk_id (const lookup_t *lk, const bson_t *id)
{
   bson_iter_t it;
   if (!bson_iter_init_find (&it, id, "c"))
      return -1;
   if (BSON_ITER_HOLDS_UTF8 (&it)) {
      uint32_t len;
      const char *ns = bson_iter_utf8 (&it, &len);
      return ix_find (&lk->by_ns, ns, len);
   }
   if (BSON_ITER_HOLDS_BINARY (&it)) {
      const uint8_t *bin;
      uint32_t len;
      bson_iter_binary (&it, NULL, &len, &bin);
      if (len == 16)
         return ix_find (&lk->by_uuid, bin, 16);
   }
   return -1;
}

/* Appends {"c": {$ifNull: ["$uuid", "$ns"]}} to a $group _id: the collection a chunk belongs to, on every version. */
static void
append_group_coll (bson_t *id)
{
   bson_t ifn, arr;
   BSON_APPEND_DOCUMENT_BEGIN (id, "c", &ifn);
   BSON_APPEND_ARRAY_BEGIN (&ifn, "$ifNull", &arr);
   BSON_APPEND_UTF8 (&arr, "0", "$uuid");
   BSON_APPEND_UTF8 (&arr, "1", "$ns");
   bson_append_array_end (&ifn, &arr);
   bson_append_document_end (id, &ifn);
}

/* One document of the key-space ends reply: a collection's MaxKey and MinKey chunks with their owners. */
static bool
chunk_end_doc (void *data, const bson_t *d)
{
   reply_ctx_t *rc = data;
   bson_t gid, end, mn, mx;
   snap_coll_t *co;
   int mi, si;
   if (!docget_sub (d, "_id", BSON_TYPE_EOD, &gid) || (mi = meta_for_chunk_id (rc->lk, &gid)) < 0)
      return true;
   co = &rc->s->colls[mi];
   if (docget_sub (d, "hi", BSON_TYPE_EOD, &end) && docget_sub (&end, "max", BSON_TYPE_EOD, &mx) &&
       first_type (&mx) == BSON_TYPE_MAXKEY && docget_sub (&end, "min", BSON_TYPE_EOD, &mn) &&
       (si = lookup_shard (rc->lk, docget_utf8 (&end, "shard", ""))) >= 0) {
      co->top_shard = si;
      output_format_doc_line (&mn, co->top_min, sizeof co->top_min);
      fmt_json (&mn, co->top_min_json, sizeof co->top_min_json);
      output_format_doc_line (&mx, co->top_max, sizeof co->top_max);
      fmt_json (&mx, co->top_max_json, sizeof co->top_max_json);
   }
   if (docget_sub (d, "lo", BSON_TYPE_EOD, &end) && docget_sub (&end, "min", BSON_TYPE_EOD, &mn) &&
       first_type (&mn) == BSON_TYPE_MINKEY && docget_sub (&end, "max", BSON_TYPE_EOD, &mx) &&
       (si = lookup_shard (rc->lk, docget_utf8 (&end, "shard", ""))) >= 0) {
      co->bottom_shard = si;
      output_format_doc_line (&mn, co->bottom_min, sizeof co->bottom_min);
      fmt_json (&mn, co->bottom_min_json, sizeof co->bottom_min_json);
      output_format_doc_line (&mx, co->bottom_max, sizeof co->bottom_max);
      fmt_json (&mx, co->bottom_max_json, sizeof co->bottom_max_json);
   }
   return true;
}

/* Appends the stage {$match: {$or: [{uuid: U}, ...]}} naming the collections marked changed in metas (by uuid on
 * 5.0+, else by ns) to pipeline as element *k. With since, each clause also asks for lastmod greater than the
 * collection's version: only the chunks created or changed since the last count. */
static void
append_colls_match (bson_t *pipeline, uint32_t *k, const coll_meta_t *metas, size_t nmetas, bool since)
{
   char kb[16];
   const char *ks;
   bson_t stage, match, or ;
   uint32_t n = 0;
   bson_uint32_to_string ((*k)++, &ks, kb, sizeof kb);
   BSON_APPEND_DOCUMENT_BEGIN (pipeline, ks, &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$match", &match);
   BSON_APPEND_ARRAY_BEGIN (&match, "$or", & or);
   for (size_t i = 0; i < nmetas; i++) {
      char nb[16];
      const char *ns;
      bson_t clause;
      if (!metas[i].changed)
         continue;
      bson_uint32_to_string (n++, &ns, nb, sizeof nb);
      BSON_APPEND_DOCUMENT_BEGIN (& or, ns, &clause);
      append_chunk_coll (&clause, metas[i].by_uuid && metas[i].has_uuid ? "uuid" : "ns", &metas[i]);
      if (since) {
         bson_t gt;
         BSON_APPEND_DOCUMENT_BEGIN (&clause, "lastmod", &gt);
         BSON_APPEND_TIMESTAMP (&gt, "$gt", metas[i].vt, metas[i].vi);
         bson_append_document_end (&clause, &gt);
      }
      bson_append_document_end (& or, &clause);
   }
   bson_append_array_end (&match, & or);
   bson_append_document_end (&stage, &match);
   bson_append_document_end (pipeline, &stage);
}

/* Starts {aggregate: "chunks", pipeline: [...]} in cmd, the pipeline left open in *pipeline; with only_changed, its
 * first stage keeps the chunks of the collections marked changed. */
static void
chunks_agg_begin (bson_t *cmd, bson_t *pipeline, uint32_t *k, const coll_meta_t *metas, size_t nmetas,
                  bool only_changed)
{
   BSON_APPEND_UTF8 (cmd, "aggregate", "chunks");
   BSON_APPEND_ARRAY_BEGIN (cmd, "pipeline", pipeline);
   *k = 0;
   if (only_changed)
      append_colls_match (pipeline, k, metas, nmetas, false);
}

static void
chunks_agg_end (bson_t *cmd, bson_t *pipeline)
{
   bson_t cursor;
   bson_append_array_end (cmd, pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (cmd, "cursor", &cursor);
   bson_append_document_end (cmd, &cursor);
}

/* The greatest lastmod of a reply document's field v into the collection's version (when greater). */
static void
keep_version (coll_meta_t *m, const bson_t *d)
{
   bson_iter_t it;
   uint32_t t, i;
   if (!bson_iter_init_find (&it, d, "v") || !BSON_ITER_HOLDS_TIMESTAMP (&it))
      return;
   bson_iter_timestamp (&it, &t, &i);
   if (t > m->vt || (t == m->vt && i > m->vi)) {
      m->vt = t;
      m->vi = i;
   }
}

/* The chunks at both ends of every collection's key space (those marked changed, with only_changed), one
 * document per collection: the chunk with the greatest max (its max is MaxKey) and the one with the least min
 * (MinKey), with their owners. */
static bool
sample_chunk_ends (collect_t *c, snapshot_t *s, const lookup_t *lk, const coll_meta_t *metas, size_t nmetas,
                   bool only_changed, sh_error_t *err)
{
   bson_t *hi = BCON_NEW ("$max", "{", "max", "$max", "min", "$min", "shard", "$shard", "}");
   bson_t *lo = BCON_NEW ("$min", "{", "min", "$min", "max", "$max", "shard", "$shard", "}");
   bson_t cmd = BSON_INITIALIZER;
   bson_t pipeline, stage, group, id;
   reply_ctx_t rc = { s, lk, NULL };
   char kb[16];
   const char *ks;
   uint32_t k;
   bool ok = false;

   chunks_agg_begin (&cmd, &pipeline, &k, metas, nmetas, only_changed);
   bson_uint32_to_string (k, &ks, kb, sizeof kb);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, ks, &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$group", &group);
   BSON_APPEND_DOCUMENT_BEGIN (&group, "_id", &id);
   append_group_coll (&id);
   bson_append_document_end (&group, &id);
   BSON_APPEND_DOCUMENT (&group, "hi", hi);
   BSON_APPEND_DOCUMENT (&group, "lo", lo);
   bson_append_document_end (&stage, &group);
   bson_append_document_end (&pipeline, &stage);
   chunks_agg_end (&cmd, &pipeline);
   if (!run_each (c, "config", &cmd, chunk_end_doc, &rc, err))
      goto done;
   ok = true;
done:
   bson_destroy (hi);
   bson_destroy (lo);
   bson_destroy (&cmd);
   return ok;
}

/* One document of the chunk-count reply: a (collection, shard, zone) group's chunk and jumbo counts, and the
 * greatest lastmod among them (the collection's version is the greatest over its groups). */
static bool
chunk_group_doc (void *data, const bson_t *d)
{
   reply_ctx_t *rc = data;
   snapshot_t *s = rc->s;
   bson_t gid;
   snap_coll_t *co;
   snap_cell_t *cell;
   int mi, si;
   const char *zone;
   int64_t n, j;
   if (!docget_sub (d, "_id", BSON_TYPE_EOD, &gid))
      return true;
   mi = meta_for_chunk_id (rc->lk, &gid);
   si = lookup_shard (rc->lk, docget_utf8 (&gid, "s", ""));
   if (mi < 0)
      return true;
   keep_version (&rc->metas[mi], d);
   if (si < 0)
      return true;
   co = &s->colls[mi];
   cell = &co->cells[si];
   n = docget_int (d, "n", 0);
   j = docget_int (d, "j", 0);
   cell->chunks += n;
   cell->jumbo += j;
   co->chunks += n;
   co->jumbo += j;
   s->shards[si].chunks += n;
   s->shards[si].jumbo += j;
   zone = docget_utf8 (&gid, "z", NULL);
   if (zone && *zone && !shard_in_zone (&s->shards[si], zone)) {
      cell->out_of_zone += n;
      co->out_of_zone += n;
   }
   return true;
}

/* One document of the change reply: a collection with chunks newer than its version, and the newest of them. */
static bool
chunk_change_doc (void *data, const bson_t *d)
{
   reply_ctx_t *rc = data;
   bson_t gid;
   int mi;
   bson_iter_t it;
   if (!docget_sub (d, "_id", BSON_TYPE_EOD, &gid) || (mi = meta_for_chunk_id (rc->lk, &gid)) < 0)
      return true;
   rc->metas[mi].changed = true;
   /* a migration raises the major version (a split or a merge only the minor one): owned sizes moved too */
   if (bson_iter_init_find (&it, d, "v") && BSON_ITER_HOLDS_TIMESTAMP (&it)) {
      uint32_t t, i;
      bson_iter_timestamp (&it, &t, &i);
      rc->metas[mi].moved = t > rc->metas[mi].vt;
   } else
      rc->metas[mi].moved = true;
   return true;
}

/* Whether the counts of the last good sample can be carried into s: the same shards with the same zones, the same
 * collections (same uuid, incarnation and key, in the same order), the same zone ranges, and no full read asked
 * for. Otherwise the counts are read again whole. */
static bool
chunks_carry_ok (const collect_t *c, const snapshot_t *s, const coll_meta_t *metas, size_t nmetas, const bson_t *tags)
{
   const snapshot_t *p = &c->prev;
   if (!c->have_prev || c->full_next || !c->have_tags || p->nshards != s->nshards || p->ncolls != s->ncolls ||
       c->nmeta != nmetas || !bson_equal (&c->tags, tags))
      return false;
   for (size_t i = 0; i < s->nshards; i++)
      if (strcmp (p->shards[i].name, s->shards[i].name) != 0 || strcmp (p->shards[i].zones, s->shards[i].zones) != 0)
         return false;
   for (size_t i = 0; i < nmetas; i++) {
      const coll_meta_t *a = &c->meta[i], *b = &metas[i];
      if (strcmp (a->ns, b->ns) != 0 || strcmp (a->ident, b->ident) != 0 || a->has_uuid != b->has_uuid ||
          a->by_uuid != b->by_uuid || (a->has_uuid && memcmp (a->uuid, b->uuid, 16) != 0) ||
          !bson_equal (&a->key, &b->key) || strcmp (p->colls[i].ns, b->ns) != 0)
         return false;
   }
   return true;
}

/* Which collections' chunks changed since the last good sample: one aggregate whose $match asks, per collection,
 * for the chunks whose lastmod is above its version (every split, merge and migration bumps the version of the
 * chunks it writes), grouped to one small document per changed collection. On a server with the
 * { uuid: 1, lastmod: 1 } index of config.chunks it reads only the changed chunks. Marks them in metas. */
static bool
sample_chunk_changes (collect_t *c, snapshot_t *s, const lookup_t *lk, coll_meta_t *metas, size_t nmetas,
                      sh_error_t *err)
{
   bson_t cmd = BSON_INITIALIZER;
   bson_t pipeline, stage, group, id, vmax;
   reply_ctx_t rc = { s, lk, metas };
   char kb[16];
   const char *ks;
   uint32_t k = 0;
   bool ok;

   for (size_t i = 0; i < nmetas; i++) {
      metas[i].changed = true; /* every collection is asked about */
      metas[i].vt = c->meta[i].vt;
      metas[i].vi = c->meta[i].vi;
   }
   BSON_APPEND_UTF8 (&cmd, "aggregate", "chunks");
   BSON_APPEND_ARRAY_BEGIN (&cmd, "pipeline", &pipeline);
   if (nmetas)
      append_colls_match (&pipeline, &k, metas, nmetas, true);
   bson_uint32_to_string (k, &ks, kb, sizeof kb);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, ks, &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$group", &group);
   BSON_APPEND_DOCUMENT_BEGIN (&group, "_id", &id);
   append_group_coll (&id);
   bson_append_document_end (&group, &id);
   BSON_APPEND_DOCUMENT_BEGIN (&group, "v", &vmax);
   BSON_APPEND_UTF8 (&vmax, "$max", "$lastmod");
   bson_append_document_end (&group, &vmax);
   bson_append_document_end (&stage, &group);
   bson_append_document_end (&pipeline, &stage);
   chunks_agg_end (&cmd, &pipeline);
   for (size_t i = 0; i < nmetas; i++)
      metas[i].changed = metas[i].moved = false;
   ok = !nmetas || run_each (c, "config", &cmd, chunk_change_doc, &rc, err);
   bson_destroy (&cmd);
   return ok;
}

/* Gives every collection not marked changed the chunk counts, key-space ends and version of the last good sample
 * (chunks_carry_ok said they still hold), and adds them to the shards' totals. */
static void
carry_chunks (const collect_t *c, snapshot_t *s, coll_meta_t *metas, size_t nmetas)
{
   for (size_t i = 0; i < nmetas; i++) {
      const snap_coll_t *pc = &c->prev.colls[i];
      snap_coll_t *co = &s->colls[i];
      if (metas[i].changed)
         continue;
      co->chunks = pc->chunks;
      co->jumbo = pc->jumbo;
      co->out_of_zone = pc->out_of_zone;
      co->top_shard = pc->top_shard;
      memcpy (co->top_min, pc->top_min, sizeof co->top_min);
      memcpy (co->top_min_json, pc->top_min_json, sizeof co->top_min_json);
      memcpy (co->top_max, pc->top_max, sizeof co->top_max);
      memcpy (co->top_max_json, pc->top_max_json, sizeof co->top_max_json);
      co->bottom_shard = pc->bottom_shard;
      memcpy (co->bottom_min, pc->bottom_min, sizeof co->bottom_min);
      memcpy (co->bottom_min_json, pc->bottom_min_json, sizeof co->bottom_min_json);
      memcpy (co->bottom_max, pc->bottom_max, sizeof co->bottom_max);
      memcpy (co->bottom_max_json, pc->bottom_max_json, sizeof co->bottom_max_json);
      for (size_t k = 0; k < s->nshards; k++) {
         co->cells[k].chunks = pc->cells[k].chunks;
         co->cells[k].jumbo = pc->cells[k].jumbo;
         co->cells[k].out_of_zone = pc->cells[k].out_of_zone;
         s->shards[k].chunks += pc->cells[k].chunks;
         s->shards[k].jumbo += pc->cells[k].jumbo;
      }
      metas[i].vt = c->meta[i].vt;
      metas[i].vi = c->meta[i].vi;
   }
}

/* The chunk counts: one $group over config.chunks by (collection, shard, zone), so the reply grows with the
 * (collection, shard, zone) triples that hold chunks, never with chunks; then the chunks at the key space's ends.
 * After a good sample whose counts still hold (chunks_carry_ok), an incremental read: one aggregate finds the
 * collections with chunks newer than their version, and only those are counted again (the two $groups, each behind
 * a $match on them; not sent when none changed); the others carry their counts. Marks in metas the collections
 * counted again; *tags_out receives config.tags (owned by the caller). */
static bool
sample_chunks (collect_t *c, snapshot_t *s, coll_meta_t *metas, size_t nmetas, const lookup_t *lk, bson_t *tags_out,
               sh_error_t *err)
{
   bson_t *tags_cmd = BCON_NEW ("find", "tags", "sort", "{", "ns", BCON_INT32 (1), "min", BCON_INT32 (1), "}");
   bson_t *n_acc = BCON_NEW ("$sum", BCON_INT32 (1));
   bson_t *j_acc = BCON_NEW ("$sum", "{", "$cond", "[", "{", "$eq", "[", "$jumbo", BCON_BOOL (true), "]", "}",
                             BCON_INT32 (1), BCON_INT32 (0), "]", "}");
   bson_t *v_acc = BCON_NEW ("$max", "$lastmod");
   bson_t cmd = BSON_INITIALIZER;
   bson_t pipeline, stage, group, id;
   reply_ctx_t rc = { s, lk, metas };
   char kb[16];
   const char *ks;
   uint32_t k;
   bool inc, ok = false;

   if (!run_docs (c, "config", tags_cmd, COLLECT_TAGS_MAX, tags_out, err))
      goto done;
   inc = chunks_carry_ok (c, s, metas, nmetas, tags_out);
   s->incremental = inc;
   if (inc) {
      if (!sample_chunk_changes (c, s, lk, metas, nmetas, err))
         goto done;
      carry_chunks (c, s, metas, nmetas);
   } else {
      for (size_t i = 0; i < nmetas; i++) {
         metas[i].changed = true;
         metas[i].vt = metas[i].vi = 0;
      }
   }
   for (size_t i = 0; i < nmetas; i++)
      s->colls_reread += metas[i].changed;
   if (!s->colls_reread) {
      ok = true;
      goto done;
   }
   chunks_agg_begin (&cmd, &pipeline, &k, metas, nmetas, inc);
   bson_uint32_to_string (k, &ks, kb, sizeof kb);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, ks, &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$group", &group);
   BSON_APPEND_DOCUMENT_BEGIN (&group, "_id", &id);
   append_group_coll (&id);
   BSON_APPEND_UTF8 (&id, "s", "$shard");
   append_zone_switch (&id, tags_out, metas, nmetas);
   bson_append_document_end (&group, &id);
   BSON_APPEND_DOCUMENT (&group, "n", n_acc);
   BSON_APPEND_DOCUMENT (&group, "j", j_acc);
   BSON_APPEND_DOCUMENT (&group, "v", v_acc);
   bson_append_document_end (&stage, &group);
   bson_append_document_end (&pipeline, &stage);
   chunks_agg_end (&cmd, &pipeline);
   if (!run_each (c, "config", &cmd, chunk_group_doc, &rc, err))
      goto done;
   ok = sample_chunk_ends (c, s, lk, metas, nmetas, inc, err);
done:
   bson_destroy (tags_cmd);
   bson_destroy (n_acc);
   bson_destroy (j_acc);
   bson_destroy (v_acc);
   bson_destroy (&cmd);
   return ok;
}

/* The range of a changelog entry (details.min/max, or details.before.min/max for a split) into e. */
static void
event_range (const bson_t *details, const char *prefix, snap_event_t *e)
{
   bson_t mn, mx;
   char pmin[64], pmax[64];
   bson_snprintf (pmin, sizeof pmin, "%smin", prefix);
   bson_snprintf (pmax, sizeof pmax, "%smax", prefix);
   bson_strncpy (e->min, "?", sizeof e->min);
   bson_strncpy (e->max, "?", sizeof e->max);
   if (docget_sub (details, pmin, BSON_TYPE_EOD, &mn))
      output_format_doc_line (&mn, e->min, sizeof e->min);
   if (docget_sub (details, pmax, BSON_TYPE_EOD, &mx))
      output_format_doc_line (&mx, e->max, sizeof e->max);
}

static void
add_event (snapshot_t *s, const bson_t *d, bool actionlog)
{
   snap_event_t *e;
   const char *what = docget_utf8 (d, "what", "");
   bson_t details;
   bson_iter_t it;

   if (s->nevents >= SNAP_EVENTS)
      return;
   e = &s->events[s->nevents++];
   memset (e, 0, sizeof *e);
   bson_strncpy (e->what, what, sizeof e->what);
   bson_strncpy (e->ns, docget_utf8 (d, "ns", ""), sizeof e->ns);
   if (bson_iter_init_find (&it, d, "time") && BSON_ITER_HOLDS_DATE_TIME (&it))
      e->time_ms = bson_iter_date_time (&it);
   if (!docget_sub (d, "details", BSON_TYPE_EOD, &details))
      bson_init (&details);
   e->kind = SNAP_EV_OTHER;
   if (actionlog) {
      bool failed = docget_bool (&details, "errorOccured") || docget_bool (&details, "errorOccurred");
      e->kind = failed ? SNAP_EV_ROUND_FAIL : SNAP_EV_ROUND;
      if (failed) {
         bson_strncpy (e->error, docget_utf8 (&details, "errmsg", "?"), sizeof e->error);
         bson_snprintf (e->text, sizeof e->text, "failed: %s", e->error);
      } else {
         bson_snprintf (e->text, sizeof e->text, "moved %lld of %lld candidates in %lld ms",
                        (long long) docget_int (&details, "chunksMoved", 0),
                        (long long) docget_int (&details, "candidateChunks", 0),
                        (long long) docget_int (&details, "executionTimeMillis", 0));
      }
   } else if (!strcmp (what, "split") || !strcmp (what, "multi-split")) {
      e->kind = SNAP_EV_SPLIT;
      event_range (&details, "before.", e);
      bson_strncpy (e->from, docget_utf8 (&details, "owningShard", "?"), sizeof e->from);
      bson_snprintf (e->text, sizeof e->text, "on %s %s -> %s", e->from, e->min, e->max);
   } else if (!strncmp (what, "moveChunk.", 10)) {
      const char *note = docget_utf8 (&details, "note", "success");
      const char *errmsg = docget_utf8 (&details, "errmsg", NULL);
      event_range (&details, "", e);
      if (!strcmp (what, "moveChunk.start"))
         e->kind = SNAP_EV_MIGRATE_START;
      else if (!strcmp (what, "moveChunk.error") || strcmp (note, "success") != 0 || errmsg)
         e->kind = SNAP_EV_MIGRATE_FAIL;
      else
         e->kind = SNAP_EV_MIGRATE_OK;
      bson_strncpy (e->from, docget_utf8 (&details, "from", "?"), sizeof e->from);
      bson_strncpy (e->to, docget_utf8 (&details, "to", "?"), sizeof e->to);
      if (errmsg)
         bson_strncpy (e->error, errmsg, sizeof e->error);
      else if (e->kind == SNAP_EV_MIGRATE_FAIL)
         bson_strncpy (e->error, note, sizeof e->error);
      bson_snprintf (e->text, sizeof e->text, "%s -> %s %s -> %s%s%s", e->from, e->to, e->min, e->max,
                     e->error[0] ? ": " : "", e->error);
   } else {
      output_format_doc_line (&details, e->text, sizeof e->text);
   }
   bson_destroy (&details);
}

/* Newest first; at equal times an ending (moved, failed) sorts before its start, as it happened after it. */
static int
event_cmp (const void *a, const void *b)
{
   const snap_event_t *x = a, *y = b;
   int rx = x->kind == SNAP_EV_MIGRATE_START, ry = y->kind == SNAP_EV_MIGRATE_START;
   if (x->time_ms != y->time_ms)
      return x->time_ms > y->time_ms ? -1 : 1;
   if (rx != ry)
      return rx - ry;
   return strcmp (x->text, y->text);
}

/* Appends, as element key of the array arr, the stages {$match: match}, {$sort: {time: -1}}, {$limit: limit}: one
 * kind of event, newest first, read with its own limit (an indexed top-k on the server, never a whole-log sort). */
static void
append_event_stages (bson_t *arr, uint32_t *k, const bson_t *match, int limit)
{
   bson_t stage, sort;
   char kb[16];
   const char *ks;
   bson_uint32_to_string ((*k)++, &ks, kb, sizeof kb);
   BSON_APPEND_DOCUMENT_BEGIN (arr, ks, &stage);
   BSON_APPEND_DOCUMENT (&stage, "$match", match);
   bson_append_document_end (arr, &stage);
   bson_uint32_to_string ((*k)++, &ks, kb, sizeof kb);
   BSON_APPEND_DOCUMENT_BEGIN (arr, ks, &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$sort", &sort);
   BSON_APPEND_INT32 (&sort, "time", -1);
   bson_append_document_end (&stage, &sort);
   bson_append_document_end (arr, &stage);
   bson_uint32_to_string ((*k)++, &ks, kb, sizeof kb);
   BSON_APPEND_DOCUMENT_BEGIN (arr, ks, &stage);
   BSON_APPEND_INT32 (&stage, "$limit", limit);
   bson_append_document_end (arr, &stage);
}

/* Appends {$unionWith: {coll, pipeline: [match, sort, limit]}} as element key of the pipeline. */
static void
append_event_union (bson_t *pipeline, uint32_t *k, const char *coll, const bson_t *match, int limit)
{
   bson_t stage, uw, sub;
   char kb[16];
   const char *ks;
   uint32_t sk = 0;
   bson_uint32_to_string ((*k)++, &ks, kb, sizeof kb);
   BSON_APPEND_DOCUMENT_BEGIN (pipeline, ks, &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$unionWith", &uw);
   BSON_APPEND_UTF8 (&uw, "coll", coll);
   BSON_APPEND_ARRAY_BEGIN (&uw, "pipeline", &sub);
   append_event_stages (&sub, &sk, match, limit);
   bson_append_array_end (&uw, &sub);
   bson_append_document_end (&stage, &uw);
   bson_append_document_end (pipeline, &stage);
}

/* Events with their own shares: migrations (started, moved, failed), splits, failed migrations, balancer rounds and
 * failed rounds are each read newest first with their own limit, in one aggregate ($unionWith, 4.4+), so a busy
 * changelog never crowds the rounds or the failures out. Entries read twice (a failure is also a migration) count
 * once. */
static bool
sample_events (collect_t *c, snapshot_t *s, sh_error_t *err)
{
   bson_t *migrations =
      BCON_NEW ("what", "{", "$in", "[", "moveChunk.start", "moveChunk.from", "moveChunk.error", "]", "}");
   bson_t *splits = BCON_NEW ("what", "{", "$in", "[", "split", "multi-split", "]", "}");
   bson_t *failed = BCON_NEW ("$or", "[", "{", "what", "moveChunk.error", "}", "{", "what", "moveChunk.from",
                              "details.errmsg", "{", "$exists", BCON_BOOL (true), "}", "}", "{", "what",
                              "moveChunk.from", "details.note", "{", "$ne", "success", "}", "}", "]");
   bson_t *rounds = BCON_NEW ("what", "balancer.round");
   bson_t *failed_rounds = BCON_NEW ("what", "balancer.round", "$or", "[", "{", "details.errorOccured",
                                     BCON_BOOL (true), "}", "{", "details.errorOccurred", BCON_BOOL (true), "}", "]");
   bson_t cmd = BSON_INITIALIZER;
   bson_t pipeline, cursor, docs;
   bson_iter_t it;
   uint32_t k = 0;
   char seen[SNAP_EVENTS][SNAP_NAME];
   size_t nseen = 0;
   bool ok = false;

   BSON_APPEND_UTF8 (&cmd, "aggregate", "changelog");
   BSON_APPEND_ARRAY_BEGIN (&cmd, "pipeline", &pipeline);
   append_event_stages (&pipeline, &k, migrations, COLLECT_MIGRATIONS_FETCHED);
   append_event_union (&pipeline, &k, "changelog", splits, COLLECT_SPLITS_FETCHED);
   append_event_union (&pipeline, &k, "changelog", failed, COLLECT_FAILURES_FETCHED);
   append_event_union (&pipeline, &k, "actionlog", rounds, COLLECT_ROUNDS_FETCHED);
   append_event_union (&pipeline, &k, "actionlog", failed_rounds, COLLECT_FAILURES_FETCHED);
   bson_append_array_end (&cmd, &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&cmd, "cursor", &cursor);
   bson_append_document_end (&cmd, &cursor);
   if (!run_docs (c, "config", &cmd, SNAP_EVENTS, &docs, err)) {
      ok = !fatal (err);
      goto done;
   }
   if (bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it)) {
         bson_t d;
         char id[SNAP_NAME] = "";
         bson_iter_t f;
         bool dup = false;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d))
            continue;
         if (bson_iter_init_find (&f, &d, "_id")) {
            if (BSON_ITER_HOLDS_UTF8 (&f))
               bson_strncpy (id, bson_iter_utf8 (&f, NULL), sizeof id);
            else if (BSON_ITER_HOLDS_OID (&f))
               bson_oid_to_string (bson_iter_oid (&f), id);
         }
         for (size_t i = 0; id[0] && i < nseen && !dup; i++)
            dup = !strcmp (seen[i], id);
         if (dup)
            continue;
         if (nseen < SNAP_EVENTS)
            bson_strncpy (seen[nseen++], id, sizeof seen[0]);
         add_event (s, &d, !strcmp (docget_utf8 (&d, "what", ""), "balancer.round"));
      }
   }
   qsort (s->events, s->nevents, sizeof s->events[0], event_cmp);
   ok = true;
done:
   bson_destroy (migrations);
   bson_destroy (splits);
   bson_destroy (failed);
   bson_destroy (rounds);
   bson_destroy (failed_rounds);
   bson_destroy (&cmd);
   bson_destroy (&docs);
   return ok;
}

/* One in-flight migration: a config.migrations document (before 6.0) or a donor's $currentOp row (its command). */
static void
add_migration (snapshot_t *s, const char *ns, const bson_t *d, const char *from, const char *to)
{
   snap_migration_t *m;
   bson_t mn, mx;
   s->balancer.migrations++;
   if (s->nmigs >= SNAP_MIGRATIONS)
      return;
   m = &s->migs[s->nmigs++];
   memset (m, 0, sizeof *m);
   bson_strncpy (m->ns, ns, sizeof m->ns);
   if (docget_sub (d, "min", BSON_TYPE_EOD, &mn))
      output_format_doc_line (&mn, m->min, sizeof m->min);
   if (docget_sub (d, "max", BSON_TYPE_EOD, &mx))
      output_format_doc_line (&mx, m->max, sizeof m->max);
   bson_strncpy (m->from, from, sizeof m->from);
   bson_strncpy (m->to, to, sizeof m->to);
}

/* Migrations in flight, as the server reports them. Before 6.0 the config server's migration manager persists each
 * one (balancer and manual alike) in config.migrations; from 6.0 it records none there, and each migration is a
 * _shardsvrMoveRange command running on its donor shard, seen through $currentOp. One command either way. A server
 * that refuses (no inprog privilege) leaves the count unknown (-1), never guessed. */
static bool
sample_migrations (collect_t *c, snapshot_t *s, sh_error_t *err)
{
   bool old = s->vmajor > 0 && s->vmajor < 6;
   bson_t *cmd;
   bson_t docs;
   bson_iter_t it;
   bool ok = false;

   if (old)
      cmd = BCON_NEW ("find", "migrations", "projection", "{", "ns", BCON_INT32 (1), "min", BCON_INT32 (1), "max",
                      BCON_INT32 (1), "fromShard", BCON_INT32 (1), "toShard", BCON_INT32 (1), "}");
   else
      cmd = BCON_NEW ("aggregate", BCON_INT32 (1), "pipeline", "[", "{", "$currentOp", "{", "allUsers",
                      BCON_BOOL (true), "idleConnections", BCON_BOOL (false), "}", "}", "{", "$match", "{", "$or", "[",
                      "{", "command._shardsvrMoveRange", "{", "$exists", BCON_BOOL (true), "}", "}", "{",
                      "command.moveChunk", "{", "$exists", BCON_BOOL (true), "}", "}", "]", "}", "}", "{", "$project",
                      "{", "shard", BCON_INT32 (1), "command", BCON_INT32 (1), "}", "}", "]", "cursor", "{", "}");
   s->balancer.migrations = 0;
   if (!run_docs (c, old ? "config" : "admin", cmd, COLLECT_MIGRATIONS_MAX, &docs, err)) {
      s->balancer.migrations = -1;
      ok = !fatal (err);
      sh_error_clear (err);
      goto done;
   }
   if (bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it)) {
         bson_t d, cm;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d))
            continue;
         if (old) {
            add_migration (s, docget_utf8 (&d, "ns", ""), &d, docget_utf8 (&d, "fromShard", "?"),
                           docget_utf8 (&d, "toShard", "?"));
         } else if (docget_sub (&d, "command", BSON_TYPE_EOD, &cm)) {
            const char *ns = docget_utf8 (&cm, "_shardsvrMoveRange", NULL);
            add_migration (s, ns ? ns : docget_utf8 (&cm, "moveChunk", ""), &cm,
                           docget_utf8 (&cm, "fromShard", docget_utf8 (&d, "shard", "?")),
                           docget_utf8 (&cm, "toShard", "?"));
         }
      }
   }
   ok = true;
done:
   bson_destroy (cmd);
   bson_destroy (&docs);
   return ok;
}

/* The databases a draining shard is still primary for: one $group over config.databases, sent only while some shard
 * drains (its reply has one document per draining shard). */
static bool
sample_drain_databases (collect_t *c, snapshot_t *s, sh_error_t *err)
{
   bson_t cmd = BSON_INITIALIZER;
   bson_t pipeline, stage, match, primary, in, group, cursor, docs;
   bson_t *n_acc = BCON_NEW ("$sum", BCON_INT32 (1));
   bson_iter_t it;
   uint32_t k = 0;
   bool ok = false;

   bson_init (&docs);
   for (size_t i = 0; i < s->nshards; i++)
      s->shards[i].drain.databases = s->shards[i].draining ? -1 : 0;
   BSON_APPEND_UTF8 (&cmd, "aggregate", "databases");
   BSON_APPEND_ARRAY_BEGIN (&cmd, "pipeline", &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "0", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$match", &match);
   BSON_APPEND_DOCUMENT_BEGIN (&match, "primary", &primary);
   BSON_APPEND_ARRAY_BEGIN (&primary, "$in", &in);
   for (size_t i = 0; i < s->nshards; i++) {
      char kb[16];
      const char *ks;
      if (!s->shards[i].draining)
         continue;
      bson_uint32_to_string (k++, &ks, kb, sizeof kb);
      BSON_APPEND_UTF8 (&in, ks, s->shards[i].name);
   }
   bson_append_array_end (&primary, &in);
   bson_append_document_end (&match, &primary);
   bson_append_document_end (&stage, &match);
   bson_append_document_end (&pipeline, &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "1", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$group", &group);
   BSON_APPEND_UTF8 (&group, "_id", "$primary");
   BSON_APPEND_DOCUMENT (&group, "n", n_acc);
   bson_append_document_end (&stage, &group);
   bson_append_document_end (&pipeline, &stage);
   bson_append_array_end (&cmd, &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&cmd, "cursor", &cursor);
   bson_append_document_end (&cmd, &cursor);
   if (k == 0) {
      ok = true;
      goto done;
   }
   bson_destroy (&docs);
   if (!run_docs (c, "config", &cmd, 0, &docs, err)) {
      ok = !fatal (err);
      sh_error_clear (err);
      goto done;
   }
   for (size_t i = 0; i < s->nshards; i++)
      if (s->shards[i].draining)
         s->shards[i].drain.databases = 0;
   if (bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it)) {
         bson_t d;
         int si;
         if (docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) &&
             (si = snapshot_shard_index (s, docget_utf8 (&d, "_id", ""))) >= 0)
            s->shards[si].drain.databases = docget_int (&d, "n", 0);
      }
   }
   ok = true;
done:
   bson_destroy (n_acc);
   bson_destroy (&cmd);
   bson_destroy (&docs);
   return ok;
}

/* Splits "db.coll.name" at the first dot. */
static void
split_ns (const char *ns, char *db, size_t dblen, const char **coll)
{
   const char *dot = strchr (ns, '.');
   size_t l = dot ? (size_t) (dot - ns) : strlen (ns);
   if (l >= dblen)
      l = dblen - 1;
   memcpy (db, ns, l);
   db[l] = '\0';
   *coll = dot ? dot + 1 : "";
}

/* One document of the $shardedDataDistribution reply: a collection's owned documents and bytes per shard. */
static bool
distribution_doc (void *data, const bson_t *d)
{
   reply_ctx_t *rc = data;
   bson_t shards;
   bson_iter_t sh;
   snap_coll_t *co;
   int ci;
   if ((ci = lookup_ns (rc->lk, docget_utf8 (d, "ns", ""))) < 0 || !docget_sub (d, "shards", BSON_TYPE_EOD, &shards) ||
       !bson_iter_init (&sh, &shards))
      return true;
   co = &rc->s->colls[ci];
   while (bson_iter_next (&sh)) {
      bson_t e;
      snap_cell_t *cell;
      int si;
      if (!docget_iter_sub (&sh, BSON_TYPE_DOCUMENT, &e) ||
          (si = lookup_shard (rc->lk, docget_utf8 (&e, "shardName", ""))) < 0)
         continue;
      cell = &co->cells[si];
      cell->data_bytes = docget_int (&e, "ownedSizeBytes", 0);
      cell->docs = docget_int (&e, "numOwnedDocuments", 0);
      co->data_bytes += cell->data_bytes;
      rc->s->shards[si].data_bytes += cell->data_bytes;
      rc->s->shards[si].docs += cell->docs;
   }
   return true;
}

/* Gives the collections not marked moved in metas (every one with all) the sizes and documents of the last good
 * sample, and adds them to the shards' totals. */
static void
carry_sizes (const collect_t *c, snapshot_t *s, const coll_meta_t *metas, bool all)
{
   for (size_t i = 0; i < s->ncolls; i++) {
      const snap_coll_t *pc = &c->prev.colls[i];
      snap_coll_t *co = &s->colls[i];
      if (!all && metas[i].moved)
         continue;
      co->data_bytes = pc->data_bytes;
      for (size_t k = 0; k < s->nshards; k++) {
         co->cells[k].data_bytes = pc->cells[k].data_bytes;
         co->cells[k].docs = pc->cells[k].docs;
         s->shards[k].data_bytes += pc->cells[k].data_bytes;
         s->shards[k].docs += pc->cells[k].docs;
      }
   }
}

/* Per-shard sizes and documents of every sharded collection in one reply: $shardedDataDistribution (6.0.3+). *used
 * is false (nothing filled, no error) when the router does not have it: the caller falls back to $collStats.
 * SDD_ALL reads every collection; on an incremental sample, SDD_CHANGED reads only the collections some of whose
 * chunks migrated (a $match on their namespaces after the stage) and SDD_NONE none (no writes anywhere and no
 * chunk moved), the others carrying the last good sample's figures. */
typedef enum { SDD_ALL, SDD_CHANGED, SDD_NONE } sdd_mode_t;

static bool
sample_data_distribution (collect_t *c, snapshot_t *s, const lookup_t *lk, const coll_meta_t *metas, sdd_mode_t mode,
                          bool *used, sh_error_t *err)
{
   bson_t cmd = BSON_INITIALIZER;
   bson_t pipeline, stage, sdd, cursor;
   int major = 0, minor = 0, patch = 0;
   reply_ctx_t rc = { s, lk, NULL };
   bool ok = false;

   *used = false;
   sscanf (s->version, "%d.%d.%d", &major, &minor, &patch);
   /* an unknown version (serverStatus failed) tries it: a refusal sets no_sdd below */
   if (c->no_sdd || (major > 0 && (major < 6 || (major == 6 && minor == 0 && patch < 3)))) {
      ok = true;
      goto done;
   }
   if (mode == SDD_NONE) {
      carry_sizes (c, s, metas, true);
      *used = ok = true;
      goto done;
   }
   BSON_APPEND_INT32 (&cmd, "aggregate", 1);
   BSON_APPEND_ARRAY_BEGIN (&cmd, "pipeline", &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "0", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$shardedDataDistribution", &sdd);
   bson_append_document_end (&stage, &sdd);
   bson_append_document_end (&pipeline, &stage);
   if (mode == SDD_CHANGED) {
      bson_t match, ns, in;
      uint32_t n = 0;
      BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "1", &stage);
      BSON_APPEND_DOCUMENT_BEGIN (&stage, "$match", &match);
      BSON_APPEND_DOCUMENT_BEGIN (&match, "ns", &ns);
      BSON_APPEND_ARRAY_BEGIN (&ns, "$in", &in);
      for (size_t i = 0; i < s->ncolls; i++) {
         char kb[16];
         const char *ks;
         if (!metas[i].moved)
            continue;
         bson_uint32_to_string (n++, &ks, kb, sizeof kb);
         BSON_APPEND_UTF8 (&in, ks, s->colls[i].ns);
      }
      bson_append_array_end (&ns, &in);
      bson_append_document_end (&match, &ns);
      bson_append_document_end (&stage, &match);
      bson_append_document_end (&pipeline, &stage);
   }
   bson_append_array_end (&cmd, &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&cmd, "cursor", &cursor);
   bson_append_document_end (&cmd, &cursor);
   if (!run_each (c, "admin", &cmd, distribution_doc, &rc, err)) {
      /* 40324 unknown stage, 6789101 not a mongos, ...: this router never will; ask per collection from now on */
      if (!fatal (err)) {
         c->no_sdd = true;
         sh_error_clear (err);
         ok = true;
         /* a reply that failed part way: forget what it gave, $collStats gives it all */
         for (size_t i = 0; i < s->ncolls; i++) {
            s->colls[i].data_bytes = 0;
            for (size_t k = 0; k < s->nshards; k++)
               s->colls[i].cells[k].data_bytes = s->colls[i].cells[k].docs = 0;
         }
         for (size_t k = 0; k < s->nshards; k++)
            s->shards[k].data_bytes = s->shards[k].docs = 0;
      }
      goto done;
   }
   if (mode == SDD_CHANGED)
      carry_sizes (c, s, metas, false);
   *used = true;
   ok = true;
done:
   bson_destroy (&cmd);
   return ok;
}

/* One collection's $collStats: per-shard latencyStats op counters (and, with storage, the storage size and count,
 * when $shardedDataDistribution did not give them), projected on the shards so the wiredTiger section never
 * crosses the network. */
static bool
sample_coll_stats (collect_t *c, snapshot_t *s, size_t ci, bool storage, const lookup_t *lk, sh_error_t *err)
{
   snap_coll_t *co = &s->colls[ci];
   char db[SNAP_NAME];
   const char *coll;
   bson_t *cmd;
   bson_t docs;
   bson_iter_t it;
   bool ok = false;

   split_ns (co->ns, db, sizeof db, &coll);
   if (storage)
      cmd = BCON_NEW ("aggregate", BCON_UTF8 (coll), "pipeline", "[", "{", "$collStats", "{", "latencyStats", "{", "}",
                      "storageStats", "{", "}", "}", "}", "{", "$project", "{", "shard", BCON_INT32 (1),
                      "latencyStats.writes.ops", BCON_INT32 (1), "latencyStats.reads.ops", BCON_INT32 (1),
                      "storageStats.size", BCON_INT32 (1), "storageStats.count", BCON_INT32 (1), "}", "}", "]",
                      "cursor", "{", "}");
   else
      cmd = BCON_NEW ("aggregate", BCON_UTF8 (coll), "pipeline", "[", "{", "$collStats", "{", "latencyStats", "{", "}",
                      "}", "}", "{", "$project", "{", "shard", BCON_INT32 (1), "latencyStats.writes.ops",
                      BCON_INT32 (1), "latencyStats.reads.ops", BCON_INT32 (1), "}", "}", "]", "cursor", "{", "}");
   if (!run_docs (c, db, cmd, 0, &docs, err)) {
      ok = !fatal (err);
      goto done;
   }
   /* a new reading replaces the carried one (a failed one above keeps it, and its rates) */
   co->stats_ms = clock_mono_ms ();
   for (size_t k = 0; k < s->nshards; k++)
      co->cells[k].writes_ops = co->cells[k].reads_ops = 0;
   if (bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it)) {
         bson_t d;
         int si;
         snap_cell_t *cell;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d))
            continue;
         si = lookup_shard (lk, docget_utf8 (&d, "shard", ""));
         if (si < 0)
            continue;
         cell = &co->cells[si];
         cell->writes_ops = docget_int (&d, "latencyStats.writes.ops", 0);
         cell->reads_ops = docget_int (&d, "latencyStats.reads.ops", 0);
         if (!storage)
            continue;
         cell->data_bytes = docget_int (&d, "storageStats.size", 0);
         cell->docs = docget_int (&d, "storageStats.count", 0);
         co->data_bytes += cell->data_bytes;
         s->shards[si].data_bytes += cell->data_bytes;
         s->shards[si].docs += cell->docs;
      }
   }
   ok = true;
done:
   bson_destroy (cmd);
   bson_destroy (&docs);
   return ok;
}

static coll_track_t *
track_get (collect_t *c, const char *ns)
{
   for (size_t i = 0; i < c->ntrack; i++)
      if (!strcmp (c->track[i].ns, ns))
         return &c->track[i];
   c->track = realloc (c->track, (c->ntrack + 1) * sizeof *c->track);
   if (!c->track)
      abort ();
   memset (&c->track[c->ntrack], 0, sizeof *c->track);
   bson_strncpy (c->track[c->ntrack].ns, ns, sizeof c->track[0].ns);
   return &c->track[c->ntrack++];
}

/* The highest (dir -1) or lowest (dir 1) shard key of a ranged collection: one indexed find, limit 1. *out is
 * NULL when the collection is empty. */
static bool
find_key_end (collect_t *c, const snap_coll_t *co, const coll_meta_t *m, int dir, bson_t **out, sh_error_t *err)
{
   char db[SNAP_NAME];
   const char *coll;
   bson_t cmd = BSON_INITIALIZER;
   bson_t sort, proj, docs, d;
   bson_iter_t it, f, k;
   bool has_id = false;
   bool ok = false;

   *out = NULL;
   bson_init (&docs);
   split_ns (co->ns, db, sizeof db, &coll);
   BSON_APPEND_UTF8 (&cmd, "find", coll);
   BSON_APPEND_DOCUMENT_BEGIN (&cmd, "sort", &sort);
   if (bson_iter_init (&k, &m->key))
      while (bson_iter_next (&k))
         BSON_APPEND_INT32 (&sort, bson_iter_key (&k), dir);
   bson_append_document_end (&cmd, &sort);
   BSON_APPEND_DOCUMENT_BEGIN (&cmd, "projection", &proj);
   if (bson_iter_init (&k, &m->key)) {
      while (bson_iter_next (&k)) {
         has_id = has_id || !strcmp (bson_iter_key (&k), "_id");
         BSON_APPEND_INT32 (&proj, bson_iter_key (&k), 1);
      }
   }
   if (!has_id)
      BSON_APPEND_INT32 (&proj, "_id", 0);
   bson_append_document_end (&cmd, &proj);
   BSON_APPEND_INT32 (&cmd, "limit", 1);
   BSON_APPEND_BOOL (&cmd, "singleBatch", true);
   bson_destroy (&docs);
   if (!run_docs (c, db, &cmd, 1, &docs, err)) {
      ok = !fatal (err);
      goto done;
   }
   if (docget_sub (&docs, "0", BSON_TYPE_EOD, &d)) {
      /* the key fields, in the key's order (a missing field counts as null, as the server does) */
      *out = bson_new ();
      if (bson_iter_init (&k, &m->key)) {
         while (bson_iter_next (&k)) {
            if (bson_iter_init (&it, &d) && bson_iter_find_descendant (&it, bson_iter_key (&k), &f))
               bson_append_iter (*out, bson_iter_key (&k), -1, &f);
            else
               BSON_APPEND_NULL (*out, bson_iter_key (&k));
         }
      }
   }
   ok = true;
done:
   bson_destroy (&cmd);
   bson_destroy (&docs);
   return ok;
}

/* Where do inserts land? Compares a ranged collection's highest and lowest keys with the ones read last time: the
 * trend says whether the MaxKey or the MinKey chunk takes them. The caller chooses which collections to ask. */
static bool
sample_key_trend (collect_t *c, snapshot_t *s, size_t ci, const coll_meta_t *m, sh_error_t *err)
{
   snap_coll_t *co = &s->colls[ci];
   coll_track_t *t = track_get (c, co->ns);
   bson_t *top = NULL, *bottom = NULL;
   bool ok = false;

   co->key_trend = 0;
   if (!find_key_end (c, co, m, -1, &top, err) || !find_key_end (c, co, m, 1, &bottom, err))
      goto done;
   t->own_reads += 2;
   t->queried = true;
   if (top && t->top && order_keys (top, t->top) > 0)
      co->key_trend = 1;
   else if (bottom && t->bottom && order_keys (bottom, t->bottom) < 0)
      co->key_trend = -1;
   if (t->top)
      bson_destroy (t->top);
   if (t->bottom)
      bson_destroy (t->bottom);
   t->top = top;
   t->bottom = bottom;
   top = bottom = NULL;
   ok = true;
done:
   if (top)
      bson_destroy (top);
   if (bottom)
      bson_destroy (bottom);
   return ok;
}

/* ---- judgement (pure) ---- */

int
collect_chunk_threshold (int64_t total_chunks)
{
   return total_chunks < 20 ? 2 : total_chunks < 80 ? 4 : 8;
}

/* The previous sample's entry for collection ns (usually at the same index i). */
static const snap_coll_t *
prev_coll (const snapshot_t *prev, const char *ns, size_t i)
{
   if (i < prev->ncolls && !strcmp (prev->colls[i].ns, ns))
      return &prev->colls[i];
   for (size_t k = 0; k < prev->ncolls; k++)
      if (!strcmp (prev->colls[k].ns, ns))
         return &prev->colls[k];
   return NULL;
}

/* For each shard of cur, its index in prev or -1. Owned by the caller. */
static int *
shard_map (const snapshot_t *cur, const snapshot_t *prev)
{
   int *map = xcalloc (cur->nshards, sizeof *map);
   for (size_t s = 0; s < cur->nshards; s++)
      map[s] = s < prev->nshards && !strcmp (prev->shards[s].name, cur->shards[s].name)
                  ? (int) s
                  : snapshot_shard_index (prev, cur->shards[s].name);
   return map;
}

static void
judge_balance (const snapshot_t *s, snap_coll_t *co)
{
   int64_t cmin = INT64_MAX, cmax = -1, dmin = INT64_MAX, dmax = -1;
   size_t eligible = 0;
   char a[32], b[32];

   co->balance = SNAP_BAL_UNKNOWN;
   co->balance_why[0] = '\0';
   for (size_t i = 0; i < s->nshards; i++) {
      const snap_cell_t *cell = &co->cells[i];
      if (s->shards[i].draining) {
         if (cell->chunks) {
            co->balance = SNAP_BAL_IMBALANCED;
            bson_snprintf (co->balance_why, sizeof co->balance_why, "draining %s holds %lld chunks", s->shards[i].name,
                           (long long) cell->chunks);
            return;
         }
         continue;
      }
      eligible++;
      cmin = cell->chunks < cmin ? cell->chunks : cmin;
      cmax = cell->chunks > cmax ? cell->chunks : cmax;
      dmin = cell->data_bytes < dmin ? cell->data_bytes : dmin;
      dmax = cell->data_bytes > dmax ? cell->data_bytes : dmax;
   }
   if (co->out_of_zone) {
      co->balance = SNAP_BAL_IMBALANCED;
      bson_snprintf (co->balance_why, sizeof co->balance_why, "%lld chunks outside their zone",
                     (long long) co->out_of_zone);
      return;
   }
   if (eligible < 2 || !co->chunks)
      return;
   if (s->vmajor >= 6) {
      /* 6.0+: balanced while the data difference stays under three times the range size */
      int64_t range = co->range_bytes > 0 ? co->range_bytes : s->balancer.chunk_size_bytes;
      int64_t limit = 3 * (range > 0 ? range : (int64_t) COLLECT_DEFAULT_RANGE_MB * 1024 * 1024);
      int64_t diff = dmax - dmin;
      co->balance = diff >= limit ? SNAP_BAL_IMBALANCED : SNAP_BAL_OK;
      bson_snprintf (co->balance_why, sizeof co->balance_why, "data difference %s %s 3 x range %s",
                     snap_fmt_bytes (diff, a, sizeof a), diff >= limit ? ">=" : "<",
                     snap_fmt_bytes (limit / 3, b, sizeof b));
   } else {
      /* before 6.0: the chunk-count difference against 2 / 4 / 8 by the collection's chunk count */
      int64_t diff = cmax - cmin;
      int thr = collect_chunk_threshold (co->chunks);
      co->balance = diff >= thr ? SNAP_BAL_IMBALANCED : SNAP_BAL_OK;
      bson_snprintf (co->balance_why, sizeof co->balance_why, "chunk difference %lld %s %d", (long long) diff,
                     diff >= thr ? ">=" : "<", thr);
   }
}

void
collect_judge (snapshot_t *cur, const snapshot_t *prev, double dt_s, const int *own_reads, const collect_opts_t *opts)
{
   bool rates = prev && dt_s > 0;
   double n = (double) cur->nshards;

   cur->rates_valid = rates;
   cur->hot_factor = opts->hot_factor;
   cur->hot_min_rate = opts->hot_min_rate;
   for (size_t s = 0; s < cur->nshards; s++) {
      cur->shards[s].writes_ps = cur->shards[s].reads_ps = 0;
      cur->shards[s].hot = false;
   }
   int *smap = rates ? shard_map (cur, prev) : NULL;
   for (size_t i = 0; i < cur->ncolls; i++) {
      snap_coll_t *co = &cur->colls[i];
      const snap_coll_t *pc = rates ? prev_coll (prev, co->ns, i) : NULL;
      double cdt = dt_s;
      bool carry = false;
      double best = -1;
      /* counters read at their own times (stats_ms): over that span; not read again: the last rates carry on */
      if (pc && (co->stats_ms || pc->stats_ms)) {
         if (!co->stats_ms || !pc->stats_ms)
            pc = NULL;
         else if (co->stats_ms == pc->stats_ms)
            carry = true;
         else
            cdt = (double) (co->stats_ms - pc->stats_ms) / 1000.0;
         if (cdt <= 0)
            pc = NULL;
      }
      co->writes_ps = co->reads_ps = 0;
      co->hot_shard = -1;
      co->has_hot_range = false;
      co->hot_range[0] = co->hot_min_json[0] = co->hot_max_json[0] = co->hot_range_end[0] = '\0';
      co->hot_range_shard = -1;
      for (size_t s = 0; s < cur->nshards; s++) {
         snap_cell_t *cell = &co->cells[s];
         const snap_cell_t *p = pc && smap[s] >= 0 ? &pc->cells[smap[s]] : NULL;
         cell->writes_ps = cell->reads_ps = 0;
         cell->hot = false;
         if (p && carry) {
            cell->writes_ps = p->writes_ps;
            cell->reads_ps = p->reads_ps;
         } else if (p) {
            int64_t dw = cell->writes_ops - p->writes_ops;
            int64_t dr = cell->reads_ops - p->reads_ops - (own_reads ? own_reads[i] : 0);
            /* a counter that went backwards was reset (shard restart): no rate this time */
            cell->writes_ps = dw > 0 ? (double) dw / cdt : 0;
            cell->reads_ps = dr > 0 && cell->reads_ops >= p->reads_ops ? (double) dr / cdt : 0;
         }
         co->writes_ps += cell->writes_ps;
         co->reads_ps += cell->reads_ps;
         cur->shards[s].writes_ps += cell->writes_ps;
         cur->shards[s].reads_ps += cell->reads_ps;
      }
      /* hot: at least hot_factor x the fair share 1/N of the collection's writes, and above the minimum rate */
      for (size_t s = 0; rates && n >= 2 && s < cur->nshards; s++) {
         snap_cell_t *cell = &co->cells[s];
         if (cell->writes_ps >= opts->hot_min_rate && cell->writes_ps > 0 &&
             cell->writes_ps >= opts->hot_factor * co->writes_ps / n) {
            cell->hot = true;
            cur->shards[s].hot = true;
            if (cell->writes_ps > best) {
               best = cell->writes_ps;
               co->hot_shard = (int) s;
            }
         }
      }
      /* the hot key range: inserts at one end of a ranged key, owned by the hot shard */
      if (co->hot_shard >= 0 && !co->hashed) {
         if (co->key_trend > 0 && co->top_shard == co->hot_shard) {
            co->has_hot_range = true;
            co->hot_range_shard = co->top_shard;
            bson_strncpy (co->hot_range_end, "MaxKey", sizeof co->hot_range_end);
            bson_snprintf (co->hot_range, sizeof co->hot_range, "%s -> %s", co->top_min, co->top_max);
            bson_strncpy (co->hot_min_json, co->top_min_json, sizeof co->hot_min_json);
            bson_strncpy (co->hot_max_json, co->top_max_json, sizeof co->hot_max_json);
         } else if (co->key_trend < 0 && co->bottom_shard == co->hot_shard) {
            co->has_hot_range = true;
            co->hot_range_shard = co->bottom_shard;
            bson_strncpy (co->hot_range_end, "MinKey", sizeof co->hot_range_end);
            bson_snprintf (co->hot_range, sizeof co->hot_range, "%s -> %s", co->bottom_min, co->bottom_max);
            bson_strncpy (co->hot_min_json, co->bottom_min_json, sizeof co->hot_min_json);
            bson_strncpy (co->hot_max_json, co->bottom_max_json, sizeof co->hot_max_json);
         }
      }
      judge_balance (cur, co);
   }
   free (smap);
   /* the totals row: over the shards, which is over the collections too */
   cur->total_chunks = cur->total_jumbo = cur->total_bytes = cur->total_docs = 0;
   cur->total_writes_ps = cur->total_reads_ps = 0;
   for (size_t i = 0; i < cur->ncolls; i++) {
      cur->colls[i].docs = 0;
      for (size_t s = 0; s < cur->nshards; s++)
         cur->colls[i].docs += cur->colls[i].cells[s].docs;
   }
   for (size_t s = 0; s < cur->nshards; s++) {
      const snap_shard_t *sh = &cur->shards[s];
      cur->total_chunks += sh->chunks;
      cur->total_jumbo += sh->jumbo;
      cur->total_bytes += sh->data_bytes;
      cur->total_docs += sh->docs;
      cur->total_writes_ps += sh->writes_ps;
      cur->total_reads_ps += sh->reads_ps;
   }
}

/* ---- one sample ---- */

/* Seconds as an integer, capped at a year (a crawl that slow is "not in sight", and the cast stays in range). */
static int64_t
eta_seconds (double secs)
{
   const double year = 365.0 * 24 * 3600;
   return secs >= year ? (int64_t) year : secs > 0 ? (int64_t) (secs + 0.5) : 0;
}

/* A draining shard's rates and time left from its readings (oldest first) over the last minutes. */
static void
drain_progress (snap_shard_t *sh, const drain_point_t *v, int n)
{
   snap_drain_t *d = &sh->drain;
   double dt = n >= 2 ? (double) (v[n - 1].ms - v[0].ms) / 1000.0 : 0;
   d->chunks = sh->chunks;
   d->bytes = sh->data_bytes;
   d->bytes_ps = d->chunks_ps = -1;
   d->window_s = dt;
   d->eta_s = -1;
   if (dt > 0) {
      int64_t db = v[0].bytes - v[n - 1].bytes, dc = v[0].chunks - v[n - 1].chunks;
      d->bytes_ps = db > 0 ? (double) db / dt : 0;
      d->chunks_ps = dc > 0 ? (double) dc / dt : 0;
   }
   if (!d->chunks && !d->bytes && d->databases == 0)
      d->eta_s = 0;
   else if (d->bytes > 0 && d->bytes_ps > 0)
      d->eta_s = eta_seconds ((double) d->bytes / d->bytes_ps);
   else if (d->chunks > 0 && d->chunks_ps > 0)
      d->eta_s = eta_seconds ((double) d->chunks / d->chunks_ps);
}

/* Per shard: the write-rate history (sparkline), the trend since the session's first sample, and the drain
 * progress of a draining shard. now_ms is the sample's monotonic time. */
static void
push_history (collect_t *c, snapshot_t *s, int64_t now_ms)
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
      s->shards[i].chunks_delta = s->shards[i].chunks - h->first_chunks;
      s->shards[i].bytes_delta = s->shards[i].data_bytes - h->first_bytes;
      s->shards[i].trend_s = (double) (now_ms - h->first_ms) / 1000.0;
      if (!s->shards[i].draining) {
         h->ndrain = 0;
      } else {
         /* keep one reading at or before the window's start, so the rate spans the whole window */
         while (h->ndrain >= 2 && (h->drain[1].ms <= now_ms - COLLECT_DRAIN_WINDOW_MS || h->ndrain == SNAP_HIST)) {
            memmove (h->drain, h->drain + 1, (size_t) (h->ndrain - 1) * sizeof h->drain[0]);
            h->ndrain--;
         }
         if (h->ndrain == SNAP_HIST)
            h->ndrain--;
         h->drain[h->ndrain].ms = now_ms;
         h->drain[h->ndrain].bytes = s->shards[i].data_bytes;
         h->drain[h->ndrain].chunks = s->shards[i].chunks;
         h->ndrain++;
         drain_progress (&s->shards[i], h->drain, h->ndrain);
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

/* Gives every collection of s the op counters, their reading time and the key trend of the last good sample (the
 * ones read in this refresh overwrite them), and fills picks with what chooses the collections to read. */
static void
carry_counters (collect_t *c, snapshot_t *s, pick_t *picks)
{
   int *smap = c->have_prev ? shard_map (s, &c->prev) : NULL;
   for (size_t i = 0; i < s->ncolls; i++) {
      snap_coll_t *co = &s->colls[i];
      const snap_coll_t *pc = c->have_prev ? prev_coll (&c->prev, co->ns, i) : NULL;
      pick_t *p = &picks[i];
      p->i = (int) i;
      p->read_seq = track_get (c, co->ns)->read_seq;
      if (!pc)
         continue;
      co->stats_ms = pc->stats_ms;
      co->key_trend = pc->key_trend;
      p->had_stats = pc->stats_ms != 0;
      for (size_t sh = 0; sh < s->nshards; sh++) {
         snap_cell_t *cell = &co->cells[sh];
         const snap_cell_t *pcell = smap[sh] >= 0 ? &pc->cells[smap[sh]] : NULL;
         int64_t dd = pcell ? cell->docs - pcell->docs : cell->docs;
         int64_t db = pcell ? cell->data_bytes - pcell->data_bytes : cell->data_bytes;
         p->act += (dd < 0 ? -dd : dd) + (db < 0 ? -db : db);
         if (pcell) {
            cell->writes_ops = pcell->writes_ops;
            cell->reads_ops = pcell->reads_ops;
            p->writes_before += pcell->writes_ops;
         }
      }
   }
   free (smap);
}

bool
collect_sample (collect_t *c, snapshot_t *snap)
{
   snapshot_t s;
   sh_error_t err;
   coll_meta_t *metas = NULL;
   size_t nmetas = 0;
   int64_t ops[4] = { -1, -1, -1, -1 }; /* -1: not read */
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
   sh_error_clear (&err);
   apply_timeouts (c);
   c->round_trips = 0;
   c->seq++;
   c->deadline_mono_ms = t0 + (int64_t) (c->opts.interval_s * 500.0);
   if (!sample_server_status (c, &s, ops, &err) || !sample_balancer (c, &s, &err) || !sample_shards (c, &s, &err) ||
       !sample_collections (c, &s, &metas, &nmetas, &err))
      goto done;
   lookup_build (&s, metas, nmetas, &lk);
   if (!sample_chunks (c, &s, metas, nmetas, &lk, &tags, &err) || !sample_events (c, &s, &err) ||
       !sample_migrations (c, &s, &err) || !sample_drain_databases (c, &s, &err))
      goto done;
   {
      /* sizes change with writes (the router's counters) and with migrations (the chunks that changed) */
      bool writes = !s.incremental, moved = false;
      for (int k = 0; k < 3; k++)
         writes = writes || ops[k] < 0 || ops[k] != c->op_prev[k];
      for (size_t i = 0; i < nmetas; i++)
         moved = moved || metas[i].moved;
      if (!sample_data_distribution (c, &s, &lk, metas, writes ? SDD_ALL : moved ? SDD_CHANGED : SDD_NONE, &sdd, &err))
         goto done;
   }
   own_reads = xcalloc (s.ncolls, sizeof *own_reads);
   picks = xcalloc (s.ncolls, sizeof *picks);
   carry_counters (c, &s, picks);
   for (size_t k = 0; !sdd && k < s.ncolls; k++)
      picks[k].act = 0; /* sizes come with the counters below: nothing to compare yet */
   /* the counters: every collection without $shardedDataDistribution (it also gives the sizes), else a few */
   n = sdd && s.ncolls > COLLECT_STATS_PER_REFRESH ? COLLECT_STATS_PER_REFRESH : s.ncolls;
   qsort (picks, s.ncolls, sizeof *picks, pick_for_stats);
   for (size_t k = 0; k < n; k++) {
      size_t i = (size_t) picks[k].i;
      coll_track_t *t = track_get (c, s.colls[i].ns);
      int64_t before = s.colls[i].stats_ms;
      if (!sample_coll_stats (c, &s, i, !sdd, &lk, &err))
         goto done;
      if (s.colls[i].stats_ms == before)
         continue; /* the server refused it: the last reading and its rates stay */
      own_reads[i] = t->own_reads;
      t->own_reads = 0;
      t->read_seq = c->seq;
      picks[k].read = true;
   }
   /* the key ends: a few ranged collections, those written to since the last look first */
   for (size_t k = 0; k < s.ncolls; k++) {
      pick_t *p = &picks[k];
      const snap_coll_t *co = &s.colls[p->i];
      int64_t w = 0;
      for (size_t sh = 0; sh < s.nshards; sh++)
         w += co->cells[sh].writes_ops;
      p->wdelta = p->read && p->had_stats && w > p->writes_before ? w - p->writes_before : 0;
      p->cum = w;
      p->queried = track_get (c, co->ns)->queried;
      p->eligible = !co->hashed && co->chunks > 0 && (!p->queried || p->wdelta > 0 || p->act > 0);
   }
   qsort (picks, s.ncolls, sizeof *picks, pick_for_trend);
   for (size_t k = 0; k < s.ncolls && k < COLLECT_TRENDS_PER_REFRESH && picks[k].eligible; k++)
      if (!sample_key_trend (c, &s, (size_t) picks[k].i, &metas[picks[k].i], &err))
         goto done;
   s.interval_s = c->opts.interval_s;
   s.sampled_at_ms = clock_wall_ms ();
   s.sample_ms = clock_mono_ms () - t0;
   s.round_trips = c->round_trips;
   {
      double dt = c->have_prev ? (double) (t0 - c->prev_mono_ms) / 1000.0 : 0;
      collect_judge (&s, c->have_prev ? &c->prev : NULL, dt, own_reads, &c->opts);
      if (c->have_prev && dt > 0) {
         double *rates[4] = { &s.inserts_ps, &s.updates_ps, &s.deletes_ps, &s.queries_ps };
         for (int k = 0; k < 4; k++)
            *rates[k] = ops[k] >= c->op_prev[k] ? (double) (ops[k] - c->op_prev[k]) / dt : 0;
      }
   }
   push_history (c, &s, t0);
   memcpy (c->op_prev, ops, sizeof ops);
   snapshot_clear (&c->prev);
   snapshot_copy (&c->prev, &s);
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
   snapshot_clear (snap);
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
   lookup_free (&lk);
   snapshot_clear (&s);
   bson_destroy (&tags);
   return ok;
}

void
collect_request_full (collect_t *c)
{
   c->full_next = true;
}

/* ---- drill-down ---- */

/* The marks of one chunk of the drill-down: the collection's hot key range (from the last sample's judgement), a
 * migration in flight (the last sample's list), and its size when dataSize gave one. */
static void
chunk_marks (collect_t *c, const char *ns, snap_chunk_t *ch)
{
   const snapshot_t *p = &c->prev;
   ch->docs = ch->bytes = -1;
   for (size_t i = 0; i < p->ncolls; i++) {
      const snap_coll_t *co = &p->colls[i];
      if (strcmp (co->ns, ns) != 0 || !co->has_hot_range)
         continue;
      ch->hot = !strcmp (ch->min, !strcmp (co->hot_range_end, "MaxKey") ? co->top_min : co->bottom_min);
   }
   for (size_t i = 0; i < p->nmigs; i++)
      if (!strcmp (p->migs[i].ns, ns) && !strcmp (p->migs[i].min, ch->min))
         bson_strncpy (ch->moving_to, p->migs[i].to, sizeof ch->moving_to);
   for (size_t i = 0; i < c->nsizes; i++)
      if (!strcmp (c->sizes[i].min, ch->min)) {
         ch->docs = c->sizes[i].docs;
         ch->bytes = c->sizes[i].bytes;
         break;
      }
}

/* The length of a raw BSON document (its little-endian int32 prefix). */
static uint32_t
raw_len (const uint8_t *p)
{
   return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

/* The cache entry for a chunk's min (created when absent). */
static drill_size_t *
size_entry (collect_t *c, const char *min)
{
   for (size_t i = 0; i < c->nsizes; i++)
      if (!strcmp (c->sizes[i].min, min))
         return &c->sizes[i];
   c->sizes = realloc (c->sizes, (c->nsizes + 1) * sizeof *c->sizes);
   if (!c->sizes)
      abort ();
   memset (&c->sizes[c->nsizes], 0, sizeof *c->sizes);
   bson_strncpy (c->sizes[c->nsizes].min, min, sizeof c->sizes[0].min);
   c->sizes[c->nsizes].docs = c->sizes[c->nsizes].bytes = -1;
   return &c->sizes[c->nsizes++];
}

typedef struct {
   size_t row;
   int64_t read_at; /* 0: never read */
} size_pick_t;

static int
size_pick_cmp (const void *a, const void *b)
{
   const size_pick_t *x = a, *y = b;
   if (x->read_at != y->read_at)
      return x->read_at < y->read_at ? -1 : 1;
   return (x->row > y->row) - (x->row < y->row);
}

bool
collect_chunk_sizes (collect_t *c, snap_chunks_t *chunks, const size_t *rows, size_t n)
{
   int mi = find_meta (c->meta, c->nmeta, chunks->ns);
   size_pick_t *picks;
   char db[SNAP_NAME];
   const char *coll;
   sh_error_t err;
   bool ok = true;

   (void) coll;
   if (mi < 0 || strcmp (c->drill_ns, chunks->ns) != 0 || !n)
      return mi >= 0;
   sh_error_clear (&err);
   c->deadline_mono_ms = clock_mono_ms () + (int64_t) (c->opts.interval_s * 500.0) + 1000;
   split_ns (chunks->ns, db, sizeof db, &coll);
   picks = xcalloc (n, sizeof *picks);
   for (size_t i = 0; i < n; i++) {
      picks[i].row = rows[i];
      picks[i].read_at = rows[i] < chunks->nchunks ? size_entry (c, chunks->chunks[rows[i]].min)->read_at : 0;
   }
   /* never read first, then the oldest readings */
   qsort (picks, n, sizeof *picks, size_pick_cmp);
   for (size_t k = 0; k < n && k < COLLECT_CHUNK_SIZES_PER_REFRESH && ok; k++) {
      size_t r = picks[k].row;
      bson_t mn, mx, reply;
      bson_t *cmd;
      drill_size_t *e;
      if (r >= chunks->nchunks || r >= c->ndrill || !c->drill_min[r])
         continue;
      bson_init_static (&mn, c->drill_min[r], raw_len (c->drill_min[r]));
      bson_init_static (&mx, c->drill_max[r], raw_len (c->drill_max[r]));
      cmd = BCON_NEW ("dataSize", BCON_UTF8 (chunks->ns), "keyPattern", BCON_DOCUMENT (&c->meta[mi].key), "min",
                      BCON_DOCUMENT (&mn), "max", BCON_DOCUMENT (&mx), "estimate", BCON_BOOL (true));
      if (run_cmd (c, db, cmd, &reply, &err)) {
         e = size_entry (c, chunks->chunks[r].min);
         e->docs = chunks->chunks[r].docs = docget_int (&reply, "numObjects", -1);
         e->bytes = chunks->chunks[r].bytes = docget_int (&reply, "size", -1);
         e->read_at = ++c->size_reads;
      } else {
         /* a refusal (an old server, no privilege) leaves the sizes unknown and asks no more this time */
         ok = !fatal (&err);
         sh_error_clear (&err);
         k = n;
      }
      bson_destroy (cmd);
      bson_destroy (&reply);
   }
   free (picks);
   return ok;
}

bool
collect_chunks (collect_t *c, const char *ns, snap_chunks_t *out)
{
   bson_t *chunks_cmd = NULL, *tags_cmd = NULL;
   bson_t filter = BSON_INITIALIZER;
   bson_t chunks, tags;
   bson_iter_t it;
   sh_error_t err;
   int mi = find_meta (c->meta, c->nmeta, ns);
   uint32_t n;
   bool ok = false;

   snap_chunks_clear (out);
   bson_strncpy (out->ns, ns, sizeof out->ns);
   free_drill (c, strcmp (c->drill_ns, ns) != 0);
   bson_strncpy (c->drill_ns, ns, sizeof c->drill_ns);
   bson_init (&chunks);
   bson_init (&tags);
   sh_error_clear (&err);
   if (mi < 0) {
      bson_strncpy (out->error, "unknown collection (not in the last sample)", sizeof out->error);
      goto done;
   }
   c->deadline_mono_ms = clock_mono_ms () + (int64_t) (c->opts.interval_s * 500.0) + 1000;
   append_chunk_coll (&filter, c->meta[mi].by_uuid && c->meta[mi].has_uuid ? "uuid" : "ns", &c->meta[mi]);
   chunks_cmd = BCON_NEW ("find", "chunks", "filter", BCON_DOCUMENT (&filter), "sort", "{", "min", BCON_INT32 (1), "}",
                          "projection", "{", "min", BCON_INT32 (1), "max", BCON_INT32 (1), "shard", BCON_INT32 (1),
                          "jumbo", BCON_INT32 (1), "}", "limit", BCON_INT64 ((int64_t) c->opts.chunk_limit + 1));
   tags_cmd =
      BCON_NEW ("find", "tags", "filter", "{", "ns", BCON_UTF8 (ns), "}", "sort", "{", "min", BCON_INT32 (1), "}");
   bson_destroy (&tags);
   if (!run_docs (c, "config", tags_cmd, COLLECT_TAGS_MAX, &tags, &err))
      goto done;
   n = bson_count_keys (&tags);
   out->zones = xcalloc (n, sizeof *out->zones);
   if (bson_iter_init (&it, &tags)) {
      while (bson_iter_next (&it)) {
         snap_zone_t *z = &out->zones[out->nzones];
         bson_t d, mn, mx;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) || !docget_sub (&d, "min", BSON_TYPE_EOD, &mn) ||
             !docget_sub (&d, "max", BSON_TYPE_EOD, &mx))
            continue;
         output_format_doc_line (&mn, z->min, sizeof z->min);
         output_format_doc_line (&mx, z->max, sizeof z->max);
         bson_strncpy (z->zone, docget_utf8 (&d, "tag", ""), sizeof z->zone);
         for (size_t s = 0; s < c->prev.nshards; s++) {
            if (!shard_in_zone (&c->prev.shards[s], z->zone))
               continue;
            if (z->shards[0])
               strncat (z->shards, ",", sizeof z->shards - strlen (z->shards) - 1);
            strncat (z->shards, c->prev.shards[s].name, sizeof z->shards - strlen (z->shards) - 1);
         }
         out->nzones++;
      }
   }
   bson_destroy (&chunks);
   if (!run_docs (c, "config", chunks_cmd, c->opts.chunk_limit + 1, &chunks, &err))
      goto done;
   n = bson_count_keys (&chunks);
   out->chunks = xcalloc (n, sizeof *out->chunks);
   c->drill_min = xcalloc (n, sizeof *c->drill_min);
   c->drill_max = xcalloc (n, sizeof *c->drill_max);
   if (bson_iter_init (&it, &chunks)) {
      while (bson_iter_next (&it)) {
         snap_chunk_t *ch;
         bson_t d, mn;
         bson_iter_t tz;
         if (out->nchunks >= c->opts.chunk_limit) {
            out->truncated = true;
            break;
         }
         ch = &out->chunks[out->nchunks];
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) || !docget_sub (&d, "min", BSON_TYPE_EOD, &mn))
            continue;
         output_format_doc_line (&mn, ch->min, sizeof ch->min);
         {
            bson_t mx;
            if (!docget_sub (&d, "max", BSON_TYPE_EOD, &mx))
               continue;
            output_format_doc_line (&mx, ch->max, sizeof ch->max);
            c->drill_min[out->nchunks] = bson_malloc (mn.len);
            memcpy (c->drill_min[out->nchunks], bson_get_data (&mn), mn.len);
            c->drill_max[out->nchunks] = bson_malloc (mx.len);
            memcpy (c->drill_max[out->nchunks], bson_get_data (&mx), mx.len);
            c->ndrill = out->nchunks + 1;
         }
         chunk_marks (c, ns, ch);
         bson_strncpy (ch->shard, docget_utf8 (&d, "shard", "?"), sizeof ch->shard);
         ch->jumbo = docget_bool (&d, "jumbo");
         /* the zone whose range holds the chunk's min */
         if (bson_iter_init (&tz, &tags)) {
            while (bson_iter_next (&tz)) {
               bson_t t, zmin, zmax;
               if (!docget_iter_sub (&tz, BSON_TYPE_DOCUMENT, &t) || !docget_sub (&t, "min", BSON_TYPE_EOD, &zmin) ||
                   !docget_sub (&t, "max", BSON_TYPE_EOD, &zmax))
                  continue;
               if (order_keys (&mn, &zmin) >= 0 && order_keys (&mn, &zmax) < 0) {
                  int si = snapshot_shard_index (&c->prev, ch->shard);
                  bson_strncpy (ch->zone, docget_utf8 (&t, "tag", ""), sizeof ch->zone);
                  ch->out_of_zone = si >= 0 && !shard_in_zone (&c->prev.shards[si], ch->zone);
                  break;
               }
            }
         }
         out->nchunks++;
      }
   }
   ok = true;
done:
   if (!ok && !out->error[0])
      bson_strncpy (out->error, err.message[0] ? err.message : "fetch failed", sizeof out->error);
   if (chunks_cmd)
      bson_destroy (chunks_cmd);
   if (tags_cmd)
      bson_destroy (tags_cmd);
   bson_destroy (&filter);
   bson_destroy (&chunks);
   bson_destroy (&tags);
   return ok;
}
