/* shardsim's aggregate command: the pipeline over a collection's documents through the query engine, with the
 * mongos-only stages ($collStats, $shardedDataDistribution, $currentOp, $listClusterCatalog …) answered from the
 * simulated cluster's state. Callers hold sim_g.lock. */
#include "tests/shardsim/sim_crud.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
   sim_ctx_t *ctx;
   const char *coll;            /* NULL for aggregate: 1 */
   simq_docs_t lookups[8];      /* views of the store's documents (valid under sim_g.lock): free .v only */
   bson_t *lookup_views[8];     /* the bson_t views lookups[i] points at */
   sim_coll_t *lookup_colls[8]; /* whose documents lookups[i] holds: a second $lookup on one collection reuses them */
   int nlookups;
} sim_agg_t;

static bool
sim_agg_collection (void *ud, const char *coll, const simq_docs_t **docs)
{
   sim_agg_t *agg = ud;
   sim_coll_t *c = sim_coll_get (agg->ctx->db, coll);
   if (!c) {
      return false;
   }
   for (int i = 0; i < agg->nlookups; i++) {
      if (agg->lookup_colls[i] == c) {
         *docs = &agg->lookups[i];
         return true;
      }
   }
   if (agg->nlookups == 8) {
      return false;
   }
   /* read in place, not copied: the engine only reads a $lookup's foreign documents, and the lock is held */
   sim_hits_t hits = { 0 };
   bson_error_t err;
   simq_docs_t *d = &agg->lookups[agg->nlookups];
   bson_t *views;
   simq_docs_init (d);
   sim_coll_match (c, NULL, 0, &hits, &err);
   views = bson_aligned_alloc0 (BSON_ALIGNOF (bson_t), (hits.n + 1) * sizeof (bson_t));
   for (size_t i = 0; i < hits.n; i++) {
      sim_coll_view (c, hits.v[i], &views[i]);
      simq_docs_push_owned (d, &views[i]); /* not owned: freed as an array in sim_crud_aggregate_run */
   }
   sim_hits_destroy (&hits);
   agg->lookup_colls[agg->nlookups] = c;
   agg->lookup_views[agg->nlookups++] = views;
   *docs = d;
   return true;
}

/* $lookup's equality on a collection's partition field (config.chunks by uuid or ns, config.tags by ns) answered
 * from the store as the config server's { uuid: 1, min: 1 } / { ns: 1, min: 1 } indexes answer it: the partition of
 * v (every document equal to v is there: the partition key is a function of the value) in storage order, or its
 * range index (min order, ties in storage order) when order_field is "min". A document whose field holds an array
 * (which may hold v) is in the partition keyed "": while that partition has documents, the engine scans. The
 * partition holds v alone (exact) when its range index says every value is held whole by the key (tight) and so is
 * v. */
static bool
sim_agg_equal_docs (void *ud, const char *coll, const char *field, const bson_value_t *v, const char *order_field,
                    const uint8_t *const **docs, size_t *n, bool *exact)
{
   sim_agg_t *agg = ud;
   sim_coll_t *c = sim_coll_get (agg->ctx->db, coll);
   bson_value_t other = { .value_type = BSON_TYPE_NULL };
   bool v_whole, tight = false;
   size_t p;
   if (!c || !c->part_field || strcmp (field, c->part_field) != 0 ||
       (v->value_type != BSON_TYPE_BINARY && v->value_type != BSON_TYPE_UTF8) ||
       (order_field && strcmp (order_field, "min") != 0)) {
      return false;
   }
   p = sim_coll_find_part (c, &other);
   if (p != SIZE_MAX && c->parts[p].docs.n > 0) {
      return false;
   }
   *docs = NULL;
   *n = 0;
   *exact = false;
   p = sim_coll_find_part (c, v);
   if (p == SIZE_MAX) {
      return true; /* no document holds v */
   }
   /* what sim_raw_tight (sim_index.c) asks of a stored value */
   v_whole = v->value_type == BSON_TYPE_BINARY
                ? v->value.v_binary.subtype == BSON_SUBTYPE_UUID && v->value.v_binary.data_len < 50
                : v->value.v_utf8.len < 100 && strlen (v->value.v_utf8.str) == v->value.v_utf8.len;
   if (!order_field) {
      /* the range index knows whether the partition holds one value (built here, it is the one a later walk in min
       * order, as sh.status's next $lookup, reads) */
      size_t m;
      *exact = sim_part_by_min (c, p, &m, NULL, &tight) && tight && v_whole;
      *docs = (const uint8_t *const *) c->parts[p].docs.v;
      *n = c->parts[p].docs.n;
      return true;
   }
   *docs = sim_part_by_min (c, p, n, NULL, &tight);
   *exact = tight && v_whole;
   return *docs != NULL; /* NULL: some document has no embedded-document min */
}

static void
sim_append_latency (bson_t *doc, const char *name, int64_t us, int64_t ops)
{
   bson_t d;
   BSON_APPEND_DOCUMENT_BEGIN (doc, name, &d);
   BSON_APPEND_INT64 (&d, "latency", us);
   BSON_APPEND_INT64 (&d, "ops", ops);
   bson_append_document_end (doc, &d);
}

/* A shard's name and the host its $collStats row names, for one $collStats: config.shards read once, then searched
 * by name (a collection of the large scenario has a row on each of a thousand shards). */
typedef struct {
   char name[64];
   char host[128];
} sim_shard_host_t;

static int
sim_shard_host_cmp (const void *a, const void *b)
{
   return strcmp (((const sim_shard_host_t *) a)->name, ((const sim_shard_host_t *) b)->name);
}

/* Every shard's first host (without the replica set name), sorted by name; *n of them. Caller frees. */
static sim_shard_host_t *
sim_shard_hosts (size_t *n)
{
   sim_coll_t *shards = sim_coll_get ("config", "shards");
   size_t cap = 0;
   sim_shard_host_t *v = NULL;
   *n = 0;
   for (size_t p = 0; shards && p < shards->nparts; p++) {
      cap += shards->parts[p].docs.n;
   }
   v = bson_malloc0 ((cap ? cap : 1) * sizeof *v);
   for (size_t p = 0; shards && p < shards->nparts; p++) {
      for (size_t i = 0; i < shards->parts[p].docs.n && *n < cap; i++) {
         bson_t view;
         bson_iter_t it;
         sim_pos_t pos = { p, i };
         sim_shard_host_t *h = &v[*n];
         sim_coll_view (shards, pos, &view);
         if (!bson_iter_init_find (&it, &view, "_id") || !BSON_ITER_HOLDS_UTF8 (&it)) {
            continue;
         }
         bson_strncpy (h->name, bson_iter_utf8 (&it, NULL), sizeof h->name);
         h->host[0] = '\0';
         if (bson_iter_init_find (&it, &view, "host") && BSON_ITER_HOLDS_UTF8 (&it)) {
            const char *hs = bson_iter_utf8 (&it, NULL);
            const char *slash = strchr (hs, '/');
            bson_strncpy (h->host, slash ? slash + 1 : hs, sizeof h->host);
            char *comma = strchr (h->host, ',');
            if (comma) {
               *comma = '\0';
            }
         }
         (*n)++;
      }
   }
   qsort (v, *n, sizeof *v, sim_shard_host_cmp);
   return v;
}

static int
sim_stage_coll_stats (sim_agg_t *agg, const bson_t *spec, simq_docs_t *out, bson_error_t *error)
{
   char ns[512];
   bson_snprintf (ns, sizeof ns, "%s.%s", agg->ctx->db, agg->coll ? agg->coll : "");
   sim_coll_t *coll = agg->coll ? sim_coll_get_ns (ns) : NULL;
   if (!coll) {
      bson_set_error (error, SIMQ_ERROR_DOMAIN, 26,
                      "Unable to retrieve storageStats in $collStats stage :: caused by :: Collection [%s] not found.",
                      ns);
      return -1;
   }
   bson_t want_lat, want_storage;
   bool lat = docget_sub (spec, "latencyStats", BSON_TYPE_EOD, &want_lat);
   bool storage = docget_sub (spec, "storageStats", BSON_TYPE_EOD, &want_storage);
   bson_iter_t it;
   bool count = bson_iter_init_find (&it, spec, "count");
   bool qes = bson_iter_init_find (&it, spec, "queryExecStats");
   int64_t scale = storage ? docget_int (&want_storage, "scale", 1) : 1;
   if (scale < 1) {
      bson_set_error (error, SIMQ_ERROR_DOMAIN, 51024, "BSON field 'scale' value must be >= 1, actual value '%lld'",
                      (long long) scale);
      return -1;
   }
   sim_shard_stat_t *st = NULL;
   size_t n = sim_coll_shard_stats (ns, &st);
   size_t nhosts;
   sim_shard_host_t *hosts = sim_shard_hosts (&nhosts);
   for (size_t i = 0; i < n; i++) {
      bson_t *d = bson_new ();
      bson_t sub;
      char host[128] = "";
      sim_shard_host_t key;
      bson_strncpy (key.name, st[i].shard, sizeof key.name);
      const sim_shard_host_t *sh = bsearch (&key, hosts, nhosts, sizeof *hosts, sim_shard_host_cmp);
      if (sh) {
         bson_strncpy (host, sh->host, sizeof host);
      }
      BSON_APPEND_UTF8 (d, "ns", ns);
      BSON_APPEND_UTF8 (d, "shard", st[i].shard);
      BSON_APPEND_UTF8 (d, "host", host);
      BSON_APPEND_DATE_TIME (d, "localTime", clock_wall_ms ());
      if (lat) {
         sim_opstat_t zero = { { 0 } };
         const sim_opstat_t *o = &zero;
         for (size_t k = 0; k < coll->nops; k++) {
            if (!strcmp (coll->ops[k].shard, st[i].shard)) {
               o = &coll->ops[k];
            }
         }
         BSON_APPEND_DOCUMENT_BEGIN (d, "latencyStats", &sub);
         sim_append_latency (&sub, "reads", o->read_us, o->reads);
         sim_append_latency (&sub, "writes", o->write_us, o->writes);
         sim_append_latency (&sub, "commands", o->command_us, o->commands);
         sim_append_latency (&sub, "transactions", 0, 0);
         bson_append_document_end (d, &sub);
      }
      if (storage) {
         BSON_APPEND_DOCUMENT_BEGIN (d, "storageStats", &sub);
         sim_coll_storage_append (&sub, coll, &st[i], scale);
         bson_append_document_end (d, &sub);
      }
      if (count) {
         BSON_APPEND_INT64 (d, "count", st[i].count);
      }
      if (qes) {
         bson_t cs;
         BSON_APPEND_DOCUMENT_BEGIN (d, "queryExecStats", &sub);
         BSON_APPEND_DOCUMENT_BEGIN (&sub, "collectionScans", &cs);
         BSON_APPEND_INT64 (&cs, "total", 0);
         BSON_APPEND_INT64 (&cs, "nonTailable", 0);
         bson_append_document_end (&sub, &cs);
         bson_append_document_end (d, &sub);
      }
      simq_docs_push_owned (out, d);
   }
   bson_free (hosts);
   bson_free (st);
   return 1;
}

static int
sim_stage_sharded_data_distribution (sim_agg_t *agg, const bson_iter_t *arg, simq_docs_t *out, bson_error_t *error)
{
   if (!sim_ver_ge (60)) {
      return 0;
   }
   if (!BSON_ITER_HOLDS_DOCUMENT (arg)) {
      bson_set_error (error, SIMQ_ERROR_DOMAIN, 6789100,
                      "The $shardedDataDistribution stage specification must be an empty object");
      return -1;
   }
   bson_iter_t child;
   bson_iter_recurse (arg, &child);
   if (bson_iter_next (&child)) {
      bson_set_error (error, SIMQ_ERROR_DOMAIN, 6789100,
                      "The $shardedDataDistribution stage specification must be an empty object");
      return -1;
   }
   if (agg->coll || strcmp (agg->ctx->db, "admin") != 0) {
      bson_set_error (error, SIMQ_ERROR_DOMAIN, 6789102,
                      "The $shardedDataDistribution stage must be run on the admin database with {aggregate: 1}");
      return -1;
   }
   sim_coll_t *colls = sim_coll_get ("config", "collections");
   simq_docs_t cdocs;
   simq_docs_init (&cdocs);
   bson_error_t e;
   if (colls) {
      sim_coll_collect (colls, NULL, &cdocs, &e);
   }
   sim_distribution_docs (&cdocs, out);
   simq_docs_clear (&cdocs);
   return 1;
}

void
sim_current_op_rows (sim_ctx_t *ctx, bool idle, simq_docs_t *out)
{
   pthread_mutex_lock (&sim_g.conn_lock);
   for (sim_conn_t *c = sim_g.conns; c; c = c->next) {
      bool self = c == ctx->conn;
      if (!self && !idle) {
         continue;
      }
      bson_t *d = bson_new ();
      char desc[32];
      bson_snprintf (desc, sizeof desc, "conn%d", c->id);
      BSON_APPEND_UTF8 (d, "type", "op");
      BSON_APPEND_UTF8 (d, "host", sim_g.host);
      BSON_APPEND_UTF8 (d, "desc", desc);
      BSON_APPEND_INT32 (d, "connectionId", c->id);
      BSON_APPEND_UTF8 (d, "client", c->peer);
      if (c->app_name[0]) {
         BSON_APPEND_UTF8 (d, "appName", c->app_name);
      }
      BSON_APPEND_BOOL (d, "active", self);
      BSON_APPEND_UTF8 (d, "currentOpTime", "1970-01-01T00:00:00.000+00:00");
      if (self) {
         BSON_APPEND_INT32 (d, "opid", (int32_t) (++sim_g.next_opid));
         BSON_APPEND_INT64 (d, "secs_running", 0);
         BSON_APPEND_INT64 (d, "microsecs_running", 100);
         BSON_APPEND_UTF8 (d, "op", "command");
         char *ns = bson_strdup_printf ("%s.$cmd", ctx->db);
         BSON_APPEND_UTF8 (d, "ns", ns);
         bson_free (ns);
         BSON_APPEND_DOCUMENT (d, "command", ctx->cmd);
         BSON_APPEND_INT32 (d, "numYields", 0);
      }
      simq_docs_push_owned (out, d);
   }
   pthread_mutex_unlock (&sim_g.conn_lock);
   /* The shards' in-flight migrations (live balancer). */
   sim_balancer_current_op (out);
   sim_reshard_current_op (out); /* resharding donors and recipients (sim_reshard.c) */
}

/* The $currentOp stage's options (DocumentSourceCurrentOp::createFromBson): each a known option (targetAllNodes from
 * 7.0) holding a boolean, else 9 FailedToParse. */
static bool
sim_current_op_spec_ok (const bson_t *spec, bson_error_t *error)
{
   static const char *const opts[] = { "idleConnections", "idleSessions", "allUsers",  "localOps",
                                       "truncateOps",     "idleCursors",  "backtrace", "targetAllNodes" };
   bson_iter_t it;
   bson_iter_init (&it, spec);
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      size_t n = sizeof opts / sizeof opts[0] - (sim_ver_ge (70) ? 0 : 1), i;
      for (i = 0; i < n && strcmp (k, opts[i]) != 0; i++) {
      }
      if (i == n) {
         bson_set_error (error, SIMQ_ERROR_DOMAIN, 9, "Unrecognized option '%s' in $currentOp stage.", k);
         return false;
      }
      if (!BSON_ITER_HOLDS_BOOL (&it)) {
         bson_set_error (error, SIMQ_ERROR_DOMAIN, 9,
                         "The '%s' parameter of the $currentOp stage must be a boolean value, but found: %s", k,
                         simq_type_name (bson_iter_type (&it)));
         return false;
      }
   }
   return true;
}

static int
sim_agg_stage (void *ud, const bson_t *stage, const simq_docs_t *in, simq_docs_t *out, bson_error_t *error)
{
   sim_agg_t *agg = ud;
   bson_iter_t it;
   (void) in;
   if (!bson_iter_init (&it, stage) || !bson_iter_next (&it)) {
      return 0;
   }
   const char *name = bson_iter_key (&it);
   if (!strcmp (name, "$collStats")) {
      bson_t spec;
      if (!BSON_ITER_HOLDS_DOCUMENT (&it) || !docget_sub (stage, "$collStats", BSON_TYPE_EOD, &spec)) {
         bson_set_error (error, SIMQ_ERROR_DOMAIN, 5447000, "$collStats must take a nested object but found: %s",
                         "a non-object");
         return -1;
      }
      return sim_stage_coll_stats (agg, &spec, out, error);
   }
   if (!strcmp (name, "$shardedDataDistribution")) {
      return sim_stage_sharded_data_distribution (agg, &it, out, error);
   }
   if (!strcmp (name, "$listClusterCatalog")) {
      return sim_stage_list_cluster_catalog (agg->ctx, agg->coll, &it, out, error);
   }
   if (!strcmp (name, "$listSessions")) {
      /* the sessions the routers persisted, read where they live (DocumentSourceListSessions::createFromBson) */
      if (!agg->coll || strcmp (agg->ctx->db, "config") != 0 || strcmp (agg->coll, "system.sessions") != 0) {
         bson_set_error (error, SIMQ_ERROR_DOMAIN, 73,
                         "$listSessions must be run against the 'system.sessions' collection in the 'config' "
                         "database.");
         return -1;
      }
      sim_coll_t *sessions = sim_coll_get ("config", "system.sessions");
      if (sessions && !sim_coll_collect (sessions, NULL, out, error)) {
         return -1;
      }
      return 1;
   }
   if (!strcmp (name, "$currentOp")) {
      if (agg->coll || strcmp (agg->ctx->db, "admin") != 0) {
         bson_set_error (error, SIMQ_ERROR_DOMAIN, 73,
                         "$currentOp must be run against the 'admin' database with {aggregate: 1}");
         return -1;
      }
      bson_t spec;
      bool idle = docget_sub (stage, "$currentOp", BSON_TYPE_EOD, &spec) && docget_bool (&spec, "idleConnections");
      if (!sim_current_op_spec_ok (&spec, error)) {
         return -1;
      }
      sim_current_op_rows (agg->ctx, idle, out);
      return 1;
   }
   return 0;
}

static bool
sim_agg_interrupted (void *ud, bson_error_t *error)
{
   (void) ud;
   return sim_should_stop (error);
}

static bool
sim_stage_is_source (const bson_t *stage)
{
   static const char *src[] = { "$collStats",          "$shardedDataDistribution",
                                "$currentOp",          "$documents",
                                "$listClusterCatalog", "$indexStats",
                                "$listSessions",       NULL };
   bson_iter_t it;
   if (!bson_iter_init (&it, stage) || !bson_iter_next (&it)) {
      return false;
   }
   for (int i = 0; src[i]; i++) {
      if (!strcmp (bson_iter_key (&it), src[i])) {
         return true;
      }
   }
   return false;
}

/* Pipeline::validateCommon: a stage whose PositionRequirement is kFirst anywhere but first fails 40602 (the stages
 * that exist in the simulated version; an unknown one fails at parse instead). Returns false with the reply set. */
static bool
sim_stages_in_position (const bson_t *pipeline, bson_t *reply)
{
   static const struct {
      const char *name;
      int since;
   } first_only[] = { { "$collStats", 44 },
                      { "$currentOp", 44 },
                      { "$indexStats", 44 },
                      { "$listSessions", 44 },
                      { "$shardedDataDistribution", 60 },
                      { "$listClusterCatalog", 80 },
                      { NULL, 0 } };
   bson_iter_t st, f;
   int i = 0;
   for (bson_iter_init (&st, pipeline); bson_iter_next (&st); i++) {
      if (i == 0 || !BSON_ITER_HOLDS_DOCUMENT (&st) || !bson_iter_recurse (&st, &f) || !bson_iter_next (&f)) {
         continue;
      }
      for (int k = 0; first_only[k].name; k++) {
         if (!strcmp (bson_iter_key (&f), first_only[k].name) && sim_ver_ge (first_only[k].since)) {
            sim_reply_error (reply, 40602, "%s is only valid as the first stage in a pipeline", first_only[k].name);
            return false;
         }
      }
   }
   return true;
}

static void
sim_crud_aggregate_run (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   bson_t pipeline, cursor, rest = BSON_INITIALIZER, first_stage;
   bson_error_t err;
   simq_docs_t input, out;
   sim_agg_t agg;
   char *ns = NULL;
   simq_docs_init (&input);
   simq_docs_init (&out);
   memset (&agg, 0, sizeof agg);
   agg.ctx = ctx;
   bson_iter_init (&it, ctx->cmd);
   bson_iter_next (&it);
   if (BSON_ITER_HOLDS_UTF8 (&it)) {
      agg.coll = bson_iter_utf8 (&it, NULL);
   } else if (!(BSON_ITER_HOLDS_NUMBER (&it) && bson_iter_as_int64 (&it) == 1)) {
      sim_reply_error (reply, 73, "Invalid %s namespace specified", "aggregate");
      goto cleanup;
   }
   if (!bson_iter_init_find (&it, ctx->cmd, "pipeline") || !BSON_ITER_HOLDS_ARRAY (&it) ||
       !docget_sub (ctx->cmd, "pipeline", BSON_TYPE_EOD, &pipeline)) {
      sim_reply_error (reply, 40414, "BSON field 'aggregate.pipeline' is missing but a required field");
      goto cleanup;
   }
   if (!sim_stages_in_position (&pipeline, reply)) {
      goto cleanup;
   }
   bool explain = docget_bool (ctx->cmd, "explain");
   if (!docget_sub (ctx->cmd, "cursor", BSON_TYPE_EOD, &cursor) && !explain) {
      sim_reply_error (reply, 9, "The 'cursor' option is required, except for aggregate with the explain argument");
      goto cleanup;
   }
   int64_t batch = explain ? -1 : docget_int (&cursor, "batchSize", -1);
   ns = agg.coll ? bson_strdup_printf ("%s.%s", ctx->db, agg.coll) : bson_strdup_printf ("%s.$cmd.aggregate", ctx->db);
   if (!strcmp (ns, "config.mongos")) {
      sim_mongos_ping ();
   }
   /* Input: the collection, pre-filtered by a leading $match; nothing for source stages. */
   bool have_first = false;
   bson_iter_t st;
   bson_iter_init (&st, &pipeline);
   if (bson_iter_next (&st) && BSON_ITER_HOLDS_DOCUMENT (&st)) {
      uint32_t l;
      const uint8_t *d;
      bson_iter_document (&st, &l, &d);
      have_first = bson_init_static (&first_stage, d, l);
   }
   const bson_t *run = &pipeline;
   if (have_first && !sim_stage_is_source (&first_stage) && agg.coll) {
      sim_coll_t *coll = sim_coll_get (ctx->db, agg.coll);
      bson_t match;
      bool leading_match = docget_sub (&first_stage, "$match", BSON_TYPE_EOD, &match);
      if (coll) {
         if (!sim_coll_collect (coll, leading_match ? &match : NULL, &input, &err)) {
            sim_reply_simq_error (reply, &err);
            goto cleanup;
         }
         sim_touch (ns, 0, NULL);
      }
      if (leading_match) {
         uint32_t k = 0;
         while (bson_iter_next (&st)) {
            char key[16];
            const char *kp;
            bson_uint32_to_string (k++, &kp, key, sizeof key);
            bson_append_value (&rest, kp, -1, bson_iter_value (&st));
         }
         run = &rest;
      }
   }
   simq_env_t env = { .ud = &agg,
                      .collection = sim_agg_collection,
                      .equal_docs = sim_agg_equal_docs,
                      .stage = sim_agg_stage,
                      .now_ms = clock_wall_ms (),
                      .interrupted = sim_agg_interrupted };
   if (!simq_aggregate_taking (&input, run, &env, &out, &err)) { /* input is ours: no second copy */
      sim_reply_simq_error (reply, &err);
      goto cleanup;
   }
   if (explain) {
      BSON_APPEND_UTF8 (reply, "mergeType", "mongos");
      sim_reply_ok (reply);
      goto cleanup;
   }
   sim_reply_cursor (reply, ns, &out, batch, false);
cleanup:
   for (int i = 0; i < agg.nlookups; i++) {
      bson_free (agg.lookups[i].v); /* views of the store's documents */
      bson_free (agg.lookup_views[i]);
   }
   simq_docs_clear (&input);
   simq_docs_clear (&out);
   bson_destroy (&rest);
   bson_free (ns);
}

/* A read-only command: abandoned when its client goes away (sim_stop.c). */
void
sim_cmd_aggregate (sim_ctx_t *ctx, bson_t *reply)
{
   sim_stop_watch (ctx->conn);
   sim_crud_aggregate_run (ctx, reply);
   sim_stop_unwatch ();
}
