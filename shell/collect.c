/* The dashboard's collector: one refresh = a fixed list of read-only commands through the router, turned into a
 * snapshot_t. Chunk counts are grouped on the server (one $group over config.chunks), per-shard counters come
 * from $collStats (one aggregate per sharded collection), recent events from config.changelog/actionlog. The
 * judgement (rates, hot shards, the hot key range, balance by the server version's policy) is pure and exported
 * for the unit tests. Nothing here writes to the cluster. */
#include <math.h>
#include <mongoc/mongoc.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "aligned.h"
#include "clock_ms.h"
#include "conn.h"
#include "ctx.h"
#include "output.h"

#define COLLECT_EVENTS_FETCHED 32
#define COLLECT_ROUNDS_FETCHED 8
#define COLLECT_TAGS_MAX 10000
#define COLLECT_DEFAULT_RANGE_MB 128
#define COLLECT_OLD_DEFAULT_RANGE_MB 64

/* What the collector remembers about a sharded collection from the last sample. */
typedef struct {
   char ns[SNAP_NAME];
   bson_t key; /* shard key pattern */
   uint8_t uuid[16];
   bool has_uuid;
   bool by_uuid; /* chunks keyed by uuid (config.collections has timestamp: 5.0+) */
} coll_meta_t;

/* The key extremes seen for a ranged collection, to tell where inserts land. */
typedef struct {
   char ns[SNAP_NAME];
   bson_t *top;    /* highest shard key seen, NULL when unknown */
   bson_t *bottom; /* lowest */
   bool queried;   /* the ends were fetched at least once */
   int own_reads;  /* reads the collector sent to it since its last $collStats */
} coll_track_t;

typedef struct {
   char name[SNAP_NAME];
   double hist[SNAP_HIST];
   int nhist;
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
};

/* ---- small helpers ---- */

static void *
xcalloc (size_t n, size_t size)
{
   void *p = calloc (n ? n : 1, size ? size : 1);
   if (!p)
      abort ();
   return p;
}

static const char *
doc_utf8 (const bson_t *doc, const char *path, const char *dflt)
{
   bson_iter_t it, f;
   if (bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, path, &f) && BSON_ITER_HOLDS_UTF8 (&f))
      return bson_iter_utf8 (&f, NULL);
   return dflt;
}

static int64_t
doc_int (const bson_t *doc, const char *path, int64_t dflt)
{
   bson_iter_t it, f;
   if (bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, path, &f) && BSON_ITER_HOLDS_NUMBER (&f))
      return bson_iter_as_int64 (&f);
   return dflt;
}

static bool
doc_bool (const bson_t *doc, const char *path)
{
   bson_iter_t it, f;
   return bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, path, &f) && bson_iter_as_bool (&f);
}

/* Views the sub-document at path into out (static, borrows doc). */
static bool
doc_sub (const bson_t *doc, const char *path, bson_t *out)
{
   bson_iter_t it, f;
   const uint8_t *data;
   uint32_t len;
   if (!bson_iter_init (&it, doc) || !bson_iter_find_descendant (&it, path, &f) ||
       !(BSON_ITER_HOLDS_DOCUMENT (&f) || BSON_ITER_HOLDS_ARRAY (&f)))
      return false;
   if (BSON_ITER_HOLDS_DOCUMENT (&f))
      bson_iter_document (&f, &len, &data);
   else
      bson_iter_array (&f, &len, &data);
   return bson_init_static (out, data, len);
}

/* Shell-style one-line rendering ("{ x: MaxKey() }") into buf. */
static void
fmt_shell (const bson_t *doc, char *buf, size_t len)
{
   output_opts_t o = output_opts_default (OUTPUT_PRETTY, false);
   char *s;
   o.break_length = 0;
   s = output_format_doc (doc, &o);
   bson_strncpy (buf, s, len);
   bson_free (s);
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

/* The server's cross-type order, enough for shard key values. */
static int
type_rank (bson_type_t t)
{
   switch (t) {
   case BSON_TYPE_MINKEY:
      return 0;
   case BSON_TYPE_NULL:
   case BSON_TYPE_UNDEFINED:
      return 1;
   case BSON_TYPE_INT32:
   case BSON_TYPE_INT64:
   case BSON_TYPE_DOUBLE:
   case BSON_TYPE_DECIMAL128:
      return 2;
   case BSON_TYPE_UTF8:
   case BSON_TYPE_SYMBOL:
      return 3;
   case BSON_TYPE_DOCUMENT:
      return 4;
   case BSON_TYPE_ARRAY:
      return 5;
   case BSON_TYPE_BINARY:
      return 6;
   case BSON_TYPE_OID:
      return 7;
   case BSON_TYPE_BOOL:
      return 8;
   case BSON_TYPE_DATE_TIME:
      return 9;
   case BSON_TYPE_TIMESTAMP:
      return 10;
   case BSON_TYPE_REGEX:
      return 11;
   case BSON_TYPE_MAXKEY:
      return 13;
   default:
      return 12;
   }
}

static int
cmp_iter (const bson_iter_t *a, const bson_iter_t *b)
{
   bson_type_t ta = bson_iter_type (a), tb = bson_iter_type (b);
   int ra = type_rank (ta), rb = type_rank (tb);
   if (ra != rb)
      return ra < rb ? -1 : 1;
   switch (ra) {
   case 2: {
      double x = bson_iter_as_double (a), y = bson_iter_as_double (b);
      if (ta != BSON_TYPE_DOUBLE && tb != BSON_TYPE_DOUBLE) {
         int64_t i = bson_iter_as_int64 (a), j = bson_iter_as_int64 (b);
         return i < j ? -1 : i > j;
      }
      return x < y ? -1 : x > y;
   }
   case 3: {
      uint32_t la, lb;
      const char *sa = bson_iter_utf8 (a, &la), *sb = bson_iter_utf8 (b, &lb);
      int c = memcmp (sa, sb, la < lb ? la : lb);
      return c ? (c < 0 ? -1 : 1) : (la < lb ? -1 : la > lb);
   }
   case 7: {
      int c = bson_oid_compare (bson_iter_oid (a), bson_iter_oid (b));
      return c < 0 ? -1 : c > 0;
   }
   case 8:
      return (int) bson_iter_bool (a) - (int) bson_iter_bool (b);
   case 9: {
      int64_t x = bson_iter_date_time (a), y = bson_iter_date_time (b);
      return x < y ? -1 : x > y;
   }
   case 10: {
      uint32_t t1, i1, t2, i2;
      bson_iter_timestamp (a, &t1, &i1);
      bson_iter_timestamp (b, &t2, &i2);
      if (t1 != t2)
         return t1 < t2 ? -1 : 1;
      return i1 < i2 ? -1 : i1 > i2;
   }
   default:
      return 0;
   }
}

/* Compares two shard-key documents field by field (same fields, same order). */
static int
cmp_keys (const bson_t *a, const bson_t *b)
{
   bson_iter_t ia, ib;
   if (!bson_iter_init (&ia, a) || !bson_iter_init (&ib, b))
      return 0;
   for (;;) {
      bool na = bson_iter_next (&ia), nb = bson_iter_next (&ib);
      int c;
      if (!na || !nb)
         return na - nb;
      c = cmp_iter (&ia, &ib);
      if (c)
         return c;
   }
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

void
collect_destroy (collect_t *c)
{
   if (!c)
      return;
   free_meta (c);
   for (size_t i = 0; i < c->ntrack; i++) {
      if (c->track[i].top)
         bson_destroy (c->track[i].top);
      if (c->track[i].bottom)
         bson_destroy (c->track[i].bottom);
   }
   free (c->track);
   free (c->hist);
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
   bson_strncpy (s->host, doc_utf8 (&reply, "host", ""), sizeof s->host);
   bson_strncpy (s->version, doc_utf8 (&reply, "version", ""), sizeof s->version);
   sscanf (s->version, "%d.%d", &s->vmajor, &s->vminor);
   ops[0] = doc_int (&reply, "opcounters.insert", 0);
   ops[1] = doc_int (&reply, "opcounters.update", 0);
   ops[2] = doc_int (&reply, "opcounters.delete", 0);
   ops[3] = doc_int (&reply, "opcounters.query", 0);
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
      bson_strncpy (s->balancer.mode, doc_utf8 (&reply, "mode", ""), sizeof s->balancer.mode);
      s->balancer.in_round = doc_bool (&reply, "inBalancerRound");
      s->balancer.rounds = doc_int (&reply, "numBalancerRounds", -1);
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
         if (!doc_sub (&docs, bson_iter_key (&it), &d))
            continue;
         if (!strcmp (doc_utf8 (&d, "_id", ""), "chunksize")) {
            int64_t mb = doc_int (&d, "value", 0);
            if (mb > 0)
               s->balancer.chunk_size_bytes = mb * 1024 * 1024;
         } else {
            const char *start = doc_utf8 (&d, "activeWindow.start", NULL);
            const char *stop = doc_utf8 (&d, "activeWindow.stop", NULL);
            if (start && stop) {
               s->balancer.has_window = true;
               bson_strncpy (s->balancer.window_start, start, sizeof s->balancer.window_start);
               bson_strncpy (s->balancer.window_stop, stop, sizeof s->balancer.window_stop);
            }
            if (!s->balancer.mode[0])
               bson_strncpy (s->balancer.mode, doc_bool (&d, "stopped") ? "off" : doc_utf8 (&d, "mode", "full"),
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
         if (!doc_sub (&docs, bson_iter_key (&it), &d))
            continue;
         bson_strncpy (sh->name, doc_utf8 (&d, "_id", "?"), sizeof sh->name);
         bson_strncpy (sh->host, doc_utf8 (&d, "host", ""), sizeof sh->host);
         sh->draining = doc_bool (&d, "draining");
         if (doc_sub (&d, "tags", &tags) && bson_iter_init (&t, &tags)) {
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
         if (!doc_sub (&docs, bson_iter_key (&it), &d) || !doc_sub (&d, "key", &key))
            continue;
         bson_strncpy (co->ns, doc_utf8 (&d, "_id", "?"), sizeof co->ns);
         bson_strncpy (m->ns, co->ns, sizeof m->ns);
         bson_copy_to (&key, &m->key);
         fmt_shell (&key, co->key, sizeof co->key);
         fmt_json (&key, co->key_json, sizeof co->key_json);
         co->hashed = key_is_hashed (&key);
         co->no_balance = doc_bool (&d, "noBalance");
         co->range_bytes = doc_int (&d, "maxChunkSizeBytes", 0);
         co->hot_shard = co->hot_range_shard = co->top_shard = co->bottom_shard = -1;
         co->cells = xcalloc (s->nshards, sizeof *co->cells);
         m->by_uuid = bson_has_field (&d, "timestamp");
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
      if (!doc_sub (tags, bson_iter_key (&it), &t) || !doc_sub (&t, "min", &mn) || !doc_sub (&t, "max", &mx))
         continue;
      mi = find_meta (metas, nmetas, doc_utf8 (&t, "ns", ""));
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
         BSON_APPEND_UTF8 (&br, "then", doc_utf8 (&t, "tag", ""));
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

static int
meta_for_chunk_id (const coll_meta_t *metas, size_t n, const bson_t *id)
{
   bson_iter_t it;
   if (!bson_iter_init_find (&it, id, "c"))
      return -1;
   if (BSON_ITER_HOLDS_UTF8 (&it))
      return find_meta (metas, n, bson_iter_utf8 (&it, NULL));
   if (BSON_ITER_HOLDS_BINARY (&it)) {
      const uint8_t *bin;
      uint32_t len;
      bson_iter_binary (&it, NULL, &len, &bin);
      for (size_t i = 0; len == 16 && i < n; i++)
         if (metas[i].has_uuid && !memcmp (metas[i].uuid, bin, 16))
            return (int) i;
   }
   return -1;
}

/* The chunk counts: one $group over config.chunks by (collection, shard, zone), so the reply grows with collections
 * x shards x zones, never with chunks. It also yields, per group, the chunk ranges at both ends of the key space. */
static bool
sample_chunks (collect_t *c, snapshot_t *s, const coll_meta_t *metas, size_t nmetas, sh_error_t *err)
{
   bson_t *tags_cmd = BCON_NEW ("find", "tags", "sort", "{", "ns", BCON_INT32 (1), "min", BCON_INT32 (1), "}");
   bson_t cmd = BSON_INITIALIZER;
   bson_t tags, docs, pipeline, stage, group, id, cursor;
   bson_iter_t it;
   bool ok = false;

   bson_init (&docs);
   if (!run_docs (c, "config", tags_cmd, COLLECT_TAGS_MAX, &tags, err))
      goto done;
   BSON_APPEND_UTF8 (&cmd, "aggregate", "chunks");
   BSON_APPEND_ARRAY_BEGIN (&cmd, "pipeline", &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "0", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$group", &group);
   BSON_APPEND_DOCUMENT_BEGIN (&group, "_id", &id);
   {
      bson_t ifn, arr;
      BSON_APPEND_DOCUMENT_BEGIN (&id, "c", &ifn);
      BSON_APPEND_ARRAY_BEGIN (&ifn, "$ifNull", &arr);
      BSON_APPEND_UTF8 (&arr, "0", "$uuid");
      BSON_APPEND_UTF8 (&arr, "1", "$ns");
      bson_append_array_end (&ifn, &arr);
      bson_append_document_end (&id, &ifn);
   }
   BSON_APPEND_UTF8 (&id, "s", "$shard");
   append_zone_switch (&id, &tags, metas, nmetas);
   bson_append_document_end (&group, &id);
   {
      bson_t *n = BCON_NEW ("$sum", BCON_INT32 (1));
      bson_t *j = BCON_NEW ("$sum", "{", "$cond", "[", "{", "$eq", "[", "$jumbo", BCON_BOOL (true), "]", "}",
                            BCON_INT32 (1), BCON_INT32 (0), "]", "}");
      bson_t *hmin = BCON_NEW ("$max", "$min"), *hmax = BCON_NEW ("$max", "$max");
      bson_t *lmin = BCON_NEW ("$min", "$min"), *lmax = BCON_NEW ("$min", "$max");
      BSON_APPEND_DOCUMENT (&group, "n", n);
      BSON_APPEND_DOCUMENT (&group, "j", j);
      BSON_APPEND_DOCUMENT (&group, "hiMin", hmin);
      BSON_APPEND_DOCUMENT (&group, "hiMax", hmax);
      BSON_APPEND_DOCUMENT (&group, "loMin", lmin);
      BSON_APPEND_DOCUMENT (&group, "loMax", lmax);
      bson_destroy (n);
      bson_destroy (j);
      bson_destroy (hmin);
      bson_destroy (hmax);
      bson_destroy (lmin);
      bson_destroy (lmax);
   }
   bson_append_document_end (&stage, &group);
   bson_append_document_end (&pipeline, &stage);
   bson_append_array_end (&cmd, &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&cmd, "cursor", &cursor);
   bson_append_document_end (&cmd, &cursor);
   bson_destroy (&docs);
   if (!run_docs (c, "config", &cmd, 0, &docs, err))
      goto done;
   if (bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it)) {
         bson_t d, gid, hi_min, hi_max, lo_min, lo_max;
         snap_coll_t *co;
         snap_cell_t *cell;
         int mi, si;
         const char *zone;
         int64_t n, j;
         if (!doc_sub (&docs, bson_iter_key (&it), &d) || !doc_sub (&d, "_id", &gid))
            continue;
         mi = meta_for_chunk_id (metas, nmetas, &gid);
         si = snapshot_shard_index (s, doc_utf8 (&gid, "s", ""));
         if (mi < 0 || si < 0)
            continue;
         co = &s->colls[mi];
         cell = &co->cells[si];
         n = doc_int (&d, "n", 0);
         j = doc_int (&d, "j", 0);
         cell->chunks += n;
         cell->jumbo += j;
         co->chunks += n;
         co->jumbo += j;
         s->shards[si].chunks += n;
         s->shards[si].jumbo += j;
         zone = doc_utf8 (&gid, "z", NULL);
         if (zone && *zone && !shard_in_zone (&s->shards[si], zone)) {
            cell->out_of_zone += n;
            co->out_of_zone += n;
         }
         if (doc_sub (&d, "hiMax", &hi_max) && first_type (&hi_max) == BSON_TYPE_MAXKEY &&
             doc_sub (&d, "hiMin", &hi_min)) {
            co->top_shard = si;
            fmt_shell (&hi_min, co->top_min, sizeof co->top_min);
            fmt_json (&hi_min, co->top_min_json, sizeof co->top_min_json);
            fmt_shell (&hi_max, co->top_max, sizeof co->top_max);
            fmt_json (&hi_max, co->top_max_json, sizeof co->top_max_json);
         }
         if (doc_sub (&d, "loMin", &lo_min) && first_type (&lo_min) == BSON_TYPE_MINKEY &&
             doc_sub (&d, "loMax", &lo_max)) {
            co->bottom_shard = si;
            fmt_shell (&lo_min, co->bottom_min, sizeof co->bottom_min);
            fmt_json (&lo_min, co->bottom_min_json, sizeof co->bottom_min_json);
            fmt_shell (&lo_max, co->bottom_max, sizeof co->bottom_max);
            fmt_json (&lo_max, co->bottom_max_json, sizeof co->bottom_max_json);
         }
      }
   }
   ok = true;
done:
   bson_destroy (tags_cmd);
   bson_destroy (&cmd);
   bson_destroy (&tags);
   bson_destroy (&docs);
   return ok;
}

static void
event_text_range (const bson_t *details, const char *prefix, char *out, size_t len)
{
   bson_t mn, mx;
   char a[SNAP_TEXT / 2] = "?", b[SNAP_TEXT / 2] = "?";
   char pmin[64], pmax[64];
   bson_snprintf (pmin, sizeof pmin, "%smin", prefix);
   bson_snprintf (pmax, sizeof pmax, "%smax", prefix);
   if (doc_sub (details, pmin, &mn))
      fmt_shell (&mn, a, sizeof a);
   if (doc_sub (details, pmax, &mx))
      fmt_shell (&mx, b, sizeof b);
   bson_snprintf (out, len, "%s -> %s", a, b);
}

static void
add_event (snapshot_t *s, const bson_t *d, bool actionlog)
{
   snap_event_t *e;
   const char *what = doc_utf8 (d, "what", "");
   bson_t details;
   bson_iter_t it;
   char range[SNAP_TEXT];

   if (s->nevents >= SNAP_EVENTS)
      return;
   e = &s->events[s->nevents++];
   memset (e, 0, sizeof *e);
   bson_strncpy (e->what, what, sizeof e->what);
   bson_strncpy (e->ns, doc_utf8 (d, "ns", ""), sizeof e->ns);
   if (bson_iter_init_find (&it, d, "time") && BSON_ITER_HOLDS_DATE_TIME (&it))
      e->time_ms = bson_iter_date_time (&it);
   if (!doc_sub (d, "details", &details))
      bson_init (&details);
   e->kind = SNAP_EV_OTHER;
   if (actionlog) {
      bool failed = doc_bool (&details, "errorOccured") || doc_bool (&details, "errorOccurred");
      e->kind = failed ? SNAP_EV_ROUND_FAIL : SNAP_EV_ROUND;
      if (failed)
         bson_snprintf (e->text, sizeof e->text, "failed: %s", doc_utf8 (&details, "errmsg", "?"));
      else
         bson_snprintf (e->text, sizeof e->text, "moved %lld of %lld candidates in %lld ms",
                        (long long) doc_int (&details, "chunksMoved", 0),
                        (long long) doc_int (&details, "candidateChunks", 0),
                        (long long) doc_int (&details, "executionTimeMillis", 0));
   } else if (!strcmp (what, "split") || !strcmp (what, "multi-split")) {
      e->kind = SNAP_EV_SPLIT;
      event_text_range (&details, "before.", range, sizeof range);
      bson_snprintf (e->text, sizeof e->text, "%s on %s", range, doc_utf8 (&details, "owningShard", "?"));
   } else if (!strncmp (what, "moveChunk.", 10)) {
      const char *note = doc_utf8 (&details, "note", "success");
      const char *errmsg = doc_utf8 (&details, "errmsg", NULL);
      event_text_range (&details, "", range, sizeof range);
      if (!strcmp (what, "moveChunk.start"))
         e->kind = SNAP_EV_MIGRATE_START;
      else if (!strcmp (what, "moveChunk.error") || strcmp (note, "success") != 0 || errmsg)
         e->kind = SNAP_EV_MIGRATE_FAIL;
      else
         e->kind = SNAP_EV_MIGRATE_OK;
      bson_snprintf (e->text, sizeof e->text, "%s %s -> %s%s%s", range, doc_utf8 (&details, "from", "?"),
                     doc_utf8 (&details, "to", "?"), errmsg ? ": " : "", errmsg ? errmsg : "");
   } else {
      fmt_shell (&details, e->text, sizeof e->text);
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

/* Migrations in flight: moveChunk.start entries with no end (moved or failed) for the same range at the same time
 * or later. */
static int
count_in_flight (const snapshot_t *s)
{
   int n = 0;
   for (size_t i = 0; i < s->nevents; i++) {
      const snap_event_t *st = &s->events[i];
      bool ended = false;
      if (st->kind != SNAP_EV_MIGRATE_START)
         continue;
      for (size_t k = 0; k < s->nevents && !ended; k++) {
         const snap_event_t *e = &s->events[k];
         ended = (e->kind == SNAP_EV_MIGRATE_OK || e->kind == SNAP_EV_MIGRATE_FAIL) && e->time_ms >= st->time_ms &&
                 !strcmp (e->ns, st->ns) && !strncmp (e->text, st->text, strcspn (st->text, ">") + 1);
      }
      n += !ended;
   }
   return n;
}

static bool
sample_events (collect_t *c, snapshot_t *s, sh_error_t *err)
{
   bson_t *changes = BCON_NEW ("find", "changelog", "filter", "{", "what", "{", "$in", "[", "split", "multi-split",
                               "moveChunk.start", "moveChunk.from", "moveChunk.error", "]", "}", "}", "sort", "{",
                               "time", BCON_INT32 (-1), "}", "limit", BCON_INT32 (COLLECT_EVENTS_FETCHED));
   bson_t *rounds = BCON_NEW ("find", "actionlog", "filter", "{", "what", "balancer.round", "}", "sort", "{", "time",
                              BCON_INT32 (-1), "}", "limit", BCON_INT32 (COLLECT_ROUNDS_FETCHED));
   bson_t docs;
   bson_iter_t it;
   bool ok = false;

   bson_init (&docs);
   for (int pass = 0; pass < 2; pass++) {
      bson_destroy (&docs);
      if (!run_docs (c, "config", pass ? rounds : changes, pass ? COLLECT_ROUNDS_FETCHED : COLLECT_EVENTS_FETCHED,
                     &docs, err)) {
         if (fatal (err))
            goto done;
         continue;
      }
      if (bson_iter_init (&it, &docs)) {
         while (bson_iter_next (&it)) {
            bson_t d;
            if (doc_sub (&docs, bson_iter_key (&it), &d))
               add_event (s, &d, pass == 1);
         }
      }
   }
   qsort (s->events, s->nevents, sizeof s->events[0], event_cmp);
   s->balancer.migrations = count_in_flight (s);
   ok = true;
done:
   bson_destroy (changes);
   bson_destroy (rounds);
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

/* One $collStats per collection: per-shard latencyStats op counters and storage size/count, projected on the
 * shards so the wiredTiger section never crosses the network. */
static bool
sample_coll_stats (collect_t *c, snapshot_t *s, size_t ci, sh_error_t *err)
{
   snap_coll_t *co = &s->colls[ci];
   char db[SNAP_NAME];
   const char *coll;
   bson_t *cmd;
   bson_t docs;
   bson_iter_t it;
   bool ok = false;

   split_ns (co->ns, db, sizeof db, &coll);
   cmd = BCON_NEW ("aggregate", BCON_UTF8 (coll), "pipeline", "[", "{", "$collStats", "{", "latencyStats", "{", "}",
                   "storageStats", "{", "}", "}", "}", "{", "$project", "{", "shard", BCON_INT32 (1),
                   "latencyStats.writes.ops", BCON_INT32 (1), "latencyStats.reads.ops", BCON_INT32 (1),
                   "storageStats.size", BCON_INT32 (1), "storageStats.count", BCON_INT32 (1), "}", "}", "]", "cursor",
                   "{", "}");
   if (!run_docs (c, db, cmd, 0, &docs, err)) {
      ok = !fatal (err);
      goto done;
   }
   if (bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it)) {
         bson_t d;
         int si;
         snap_cell_t *cell;
         if (!doc_sub (&docs, bson_iter_key (&it), &d))
            continue;
         si = snapshot_shard_index (s, doc_utf8 (&d, "shard", ""));
         if (si < 0)
            continue;
         cell = &co->cells[si];
         cell->writes_ops = doc_int (&d, "latencyStats.writes.ops", 0);
         cell->reads_ops = doc_int (&d, "latencyStats.reads.ops", 0);
         cell->data_bytes = doc_int (&d, "storageStats.size", 0);
         cell->docs = doc_int (&d, "storageStats.count", 0);
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
   if (doc_sub (&docs, "0", &d)) {
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

/* Where do inserts land? For a ranged collection with new writes (or no history yet), compares its highest and
 * lowest keys with the previous sample's: the trend says whether the MaxKey or the MinKey chunk takes them. */
static bool
sample_key_trend (collect_t *c, snapshot_t *s, size_t ci, const coll_meta_t *m, sh_error_t *err)
{
   snap_coll_t *co = &s->colls[ci];
   coll_track_t *t = track_get (c, co->ns);
   bson_t *top = NULL, *bottom = NULL;
   int64_t writes = 0, prev_writes = 0;
   bool ok = false;
   int pi = -1;

   t->own_reads = 0;
   if (co->hashed || !co->chunks)
      return true;
   for (size_t i = 0; i < s->nshards; i++)
      writes += co->cells[i].writes_ops;
   if (c->have_prev)
      for (size_t i = 0; i < c->prev.ncolls; i++)
         if (!strcmp (c->prev.colls[i].ns, co->ns))
            pi = (int) i;
   if (pi >= 0)
      for (size_t i = 0; i < c->prev.nshards; i++)
         prev_writes += c->prev.colls[pi].cells[i].writes_ops;
   if (t->queried && pi >= 0 && writes == prev_writes)
      return true; /* nothing written since: nothing to learn, nothing sent */
   if (!find_key_end (c, co, m, -1, &top, err) || !find_key_end (c, co, m, 1, &bottom, err))
      goto done;
   t->own_reads = 2;
   t->queried = true;
   if (top && t->top && cmp_keys (top, t->top) > 0)
      co->key_trend = 1;
   else if (bottom && t->bottom && cmp_keys (bottom, t->bottom) < 0)
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

static const snap_cell_t *
prev_cell (const snapshot_t *prev, const char *ns, const char *shard)
{
   int si;
   if (!prev)
      return NULL;
   si = snapshot_shard_index (prev, shard);
   if (si < 0)
      return NULL;
   for (size_t i = 0; i < prev->ncolls; i++)
      if (!strcmp (prev->colls[i].ns, ns))
         return &prev->colls[i].cells[si];
   return NULL;
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
   for (size_t i = 0; i < cur->ncolls; i++) {
      snap_coll_t *co = &cur->colls[i];
      double best = -1;
      co->writes_ps = co->reads_ps = 0;
      co->hot_shard = -1;
      co->has_hot_range = false;
      co->hot_range[0] = co->hot_min_json[0] = co->hot_max_json[0] = co->hot_range_end[0] = '\0';
      co->hot_range_shard = -1;
      for (size_t s = 0; s < cur->nshards; s++) {
         snap_cell_t *cell = &co->cells[s];
         const snap_cell_t *p = rates ? prev_cell (prev, co->ns, cur->shards[s].name) : NULL;
         cell->writes_ps = cell->reads_ps = 0;
         cell->hot = false;
         if (p) {
            int64_t dw = cell->writes_ops - p->writes_ops;
            int64_t dr = cell->reads_ops - p->reads_ops - (own_reads ? own_reads[i] : 0);
            /* a counter that went backwards was reset (shard restart): no rate this time */
            cell->writes_ps = dw > 0 ? (double) dw / dt_s : 0;
            cell->reads_ps = dr > 0 && cell->reads_ops >= p->reads_ops ? (double) dr / dt_s : 0;
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
}

/* ---- one sample ---- */

static void
push_history (collect_t *c, snapshot_t *s)
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

bool
collect_sample (collect_t *c, snapshot_t *snap)
{
   snapshot_t s;
   sh_error_t err;
   coll_meta_t *metas = NULL;
   size_t nmetas = 0;
   int64_t ops[4] = { 0, 0, 0, 0 };
   int64_t t0 = clock_mono_ms ();
   int *own_reads = NULL;
   bool ok = false;

   memset (&s, 0, sizeof s);
   sh_error_clear (&err);
   apply_timeouts (c);
   c->round_trips = 0;
   c->deadline_mono_ms = t0 + (int64_t) (c->opts.interval_s * 500.0);
   if (!sample_server_status (c, &s, ops, &err) || !sample_balancer (c, &s, &err) || !sample_shards (c, &s, &err) ||
       !sample_collections (c, &s, &metas, &nmetas, &err) || !sample_chunks (c, &s, metas, nmetas, &err) ||
       !sample_events (c, &s, &err))
      goto done;
   own_reads = xcalloc (s.ncolls, sizeof *own_reads);
   for (size_t i = 0; i < s.ncolls; i++) {
      own_reads[i] = track_get (c, s.colls[i].ns)->own_reads;
      if (!sample_coll_stats (c, &s, i, &err))
         goto done;
   }
   for (size_t i = 0; i < s.ncolls; i++)
      if (!sample_key_trend (c, &s, i, &metas[i], &err))
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
   push_history (c, &s);
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
   snapshot_clear (&s);
   return ok;
}

/* ---- drill-down ---- */

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
         if (!doc_sub (&tags, bson_iter_key (&it), &d) || !doc_sub (&d, "min", &mn) || !doc_sub (&d, "max", &mx))
            continue;
         fmt_shell (&mn, z->min, sizeof z->min);
         fmt_shell (&mx, z->max, sizeof z->max);
         bson_strncpy (z->zone, doc_utf8 (&d, "tag", ""), sizeof z->zone);
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
         if (!doc_sub (&chunks, bson_iter_key (&it), &d) || !doc_sub (&d, "min", &mn))
            continue;
         fmt_shell (&mn, ch->min, sizeof ch->min);
         {
            bson_t mx;
            if (doc_sub (&d, "max", &mx))
               fmt_shell (&mx, ch->max, sizeof ch->max);
         }
         bson_strncpy (ch->shard, doc_utf8 (&d, "shard", "?"), sizeof ch->shard);
         ch->jumbo = doc_bool (&d, "jumbo");
         /* the zone whose range holds the chunk's min */
         if (bson_iter_init (&tz, &tags)) {
            while (bson_iter_next (&tz)) {
               bson_t t, zmin, zmax;
               if (!doc_sub (&tags, bson_iter_key (&tz), &t) || !doc_sub (&t, "min", &zmin) ||
                   !doc_sub (&t, "max", &zmax))
                  continue;
               if (cmp_keys (&mn, &zmin) >= 0 && cmp_keys (&mn, &zmax) < 0) {
                  int si = snapshot_shard_index (&c->prev, ch->shard);
                  bson_strncpy (ch->zone, doc_utf8 (&t, "tag", ""), sizeof ch->zone);
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
