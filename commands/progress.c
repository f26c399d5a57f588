/* sh.progress(): every long operation of the cluster (resharding, moveCollection, unshardCollection, range
 * migrations, draining shards, config-shard transitions, defragmentation) with phase, percent, rate and time left.
 * This file gathers a reading (the $currentOp stage, config.reshardingOperations, config.shards, config.changelog,
 * config.chunks and config.databases counts for draining shards, balancerCollectionStatus for defragmentations);
 * progress_model.c computes the operations from it. The previous reading is kept for the session, for rates. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"
#include "commands/exec.h"
#include "commands/dispatch.h"
#include "shell/lib/clock.h"
#include "shell/lib/docget.h"
#include "shell/core/interrupt.h"
#include "commands/progress.h"
#include "commands/stuck.h"

#define PG_RECENT_MS (5 * 60 * 1000) /* the window of "rate over the last minutes" */
#define PG_MAX_DRAINS 32
#define PG_MAX_DEFRAGS 16
#define PG_MAX_TAGS 1000 /* zone ranges read while a shard drains */
#define PG_MAX_DEAD 8    /* zone ranges without a recipient probed for chunks on the draining shards */

/* ---- the session's previous reading ---- */

void
cmd_progress_reset (sh_ctx_t *ctx)
{
   progress_reading_t *prev = ctx->session.progress_prev;
   if (prev) {
      progress_reading_destroy (prev);
      bson_free (prev);
      ctx->session.progress_prev = NULL;
   }
}

/* Keeps a copy of r as the session's previous reading (bson_t cannot be moved by value). */
static void
pg_keep (sh_ctx_t *ctx, const progress_reading_t *r)
{
   progress_reading_t *pg_prev;
   cmd_progress_reset (ctx);
   pg_prev = ctx->session.progress_prev = bson_malloc (sizeof *pg_prev);
   pg_prev->at_ms = r->at_ms;
   memcpy (pg_prev->version, r->version, sizeof pg_prev->version);
   pg_prev->reads = r->reads;
   bson_copy_to (&r->ops, &pg_prev->ops);
   bson_copy_to (&r->coordinators, &pg_prev->coordinators);
   bson_copy_to (&r->drains, &pg_prev->drains);
   bson_copy_to (&r->paused, &pg_prev->paused);
   bson_copy_to (&r->defrags, &pg_prev->defrags);
   bson_copy_to (&r->shards, &pg_prev->shards);
   bson_copy_to (&r->balancer, &pg_prev->balancer);
   bson_copy_to (&r->settings, &pg_prev->settings);
   pg_prev->now_minutes = r->now_minutes;
   bson_copy_to (&r->stalls, &pg_prev->stalls);
}

/* ---- requests ---- */

static void
pg_exists (bson_t *parent, const char *key, const char *path)
{
   bson_t d, e;
   BSON_APPEND_DOCUMENT_BEGIN (parent, key, &d);
   BSON_APPEND_DOCUMENT_BEGIN (&d, path, &e);
   BSON_APPEND_BOOL (&e, "$exists", true);
   bson_append_document_end (&d, &e);
   bson_append_document_end (parent, &d);
}

/* admin { aggregate: 1, pipeline: [ { $currentOp: { allUsers: true, idleConnections: false, localOps: false } },
 * { $match: { $or: [ resharding rows, migration rows ] } } ], cursor: {} } */
static void
pg_append_current_op (bson_t *cmd)
{
   bson_t pipeline, stage, spec, match, ors;
   BSON_APPEND_INT32 (cmd, "aggregate", 1);
   BSON_APPEND_ARRAY_BEGIN (cmd, "pipeline", &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "0", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$currentOp", &spec);
   BSON_APPEND_BOOL (&spec, "allUsers", true);
   BSON_APPEND_BOOL (&spec, "idleConnections", false);
   BSON_APPEND_BOOL (&spec, "localOps", false);
   bson_append_document_end (&stage, &spec);
   bson_append_document_end (&pipeline, &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "1", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$match", &match);
   BSON_APPEND_ARRAY_BEGIN (&match, "$or", &ors);
   pg_exists (&ors, "0", "originatingCommand.reshardCollection");
   pg_exists (&ors, "1", "command._shardsvrMoveRange");
   pg_exists (&ors, "2", "command.moveChunk");
   bson_append_array_end (&match, &ors);
   bson_append_document_end (&stage, &match);
   bson_append_document_end (&pipeline, &stage);
   bson_append_array_end (cmd, &pipeline);
   cmd_append_empty (cmd, "cursor");
}

/* config { find: <coll>, filter: { <field>: true }, projection: { _id: 1 } } (field NULL: every document) */
static void
pg_append_find (bson_t *cmd, const char *coll, const char *field)
{
   bson_t filter, proj;
   BSON_APPEND_UTF8 (cmd, "find", coll);
   BSON_APPEND_DOCUMENT_BEGIN (cmd, "filter", &filter);
   if (field)
      BSON_APPEND_BOOL (&filter, field, true);
   bson_append_document_end (cmd, &filter);
   if (field) {
      BSON_APPEND_DOCUMENT_BEGIN (cmd, "projection", &proj);
      BSON_APPEND_INT32 (&proj, "_id", 1);
      bson_append_document_end (cmd, &proj);
   }
}

/* The four reads every reading starts with (the follow-ups depend on their answers). */
static void
pg_append_requests (sh_requests_t *out)
{
   pg_append_current_op (sh_requests_add (out, "admin", CONN_ADMIN));
   pg_append_find (sh_requests_add (out, "config", CONN_READ), "reshardingOperations", NULL);
   pg_append_find (sh_requests_add (out, "config", CONN_READ), "shards", "draining");
   pg_append_find (sh_requests_add (out, "config", CONN_READ), "collections", "defragmentCollection");
}

static bool
build_progress (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   if (!args_check (call, 0, ARG_OBJECT, false, "Shard", "progress", err) ||
       !args_opt_int (call, 0, "intervalSecs", 1, 3600, NULL, err) ||
       !args_opt_int (call, 0, "count", 1, 1000000, NULL, err))
      return false;
   pg_append_requests (out);
   return true;
}

/* field: { $in: [ ids[0], … ids[n-1] ] } into match (the shards a query is about). */
static void
pg_append_in (bson_t *match, const char *field, const char *const *ids, size_t n)
{
   bson_t sub, in;
   char key[16];
   const char *k;
   BSON_APPEND_DOCUMENT_BEGIN (match, field, &sub);
   BSON_APPEND_ARRAY_BEGIN (&sub, "$in", &in);
   for (size_t i = 0; i < n; i++) {
      bson_uint32_to_string ((uint32_t) i, &k, key, sizeof key);
      BSON_APPEND_UTF8 (&in, k, ids[i]);
   }
   bson_append_array_end (&sub, &in);
   bson_append_document_end (match, &sub);
}

/* { aggregate: <coll>, pipeline: [ { $match: <match> }, { $group: <group> } ], cursor: {} } */
static void
pg_append_group (bson_t *cmd, const char *coll, const bson_t *match, const bson_t *group)
{
   bson_t pipeline, stage;
   BSON_APPEND_UTF8 (cmd, "aggregate", coll);
   BSON_APPEND_ARRAY_BEGIN (cmd, "pipeline", &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "0", &stage);
   BSON_APPEND_DOCUMENT (&stage, "$match", match);
   bson_append_document_end (&pipeline, &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "1", &stage);
   BSON_APPEND_DOCUMENT (&stage, "$group", group);
   bson_append_document_end (&pipeline, &stage);
   bson_append_array_end (cmd, &pipeline);
   cmd_append_empty (cmd, "cursor");
}

/* { $sum: { $cond: [ { $gte: [ "$time", <since> ] }, <then>, 0 ] } } under key; then_path NULL: 1 */
static void
pg_append_recent_sum (bson_t *group, const char *key, int64_t since, const char *then_path)
{
   bson_t acc, sum, cond, gte, ifnull;
   BSON_APPEND_DOCUMENT_BEGIN (group, key, &acc);
   BSON_APPEND_DOCUMENT_BEGIN (&acc, "$sum", &sum);
   BSON_APPEND_ARRAY_BEGIN (&sum, "$cond", &cond);
   BSON_APPEND_DOCUMENT_BEGIN (&cond, "0", &gte);
   bson_t args;
   BSON_APPEND_ARRAY_BEGIN (&gte, "$gte", &args);
   BSON_APPEND_UTF8 (&args, "0", "$time");
   BSON_APPEND_DATE_TIME (&args, "1", since);
   bson_append_array_end (&gte, &args);
   bson_append_document_end (&cond, &gte);
   if (then_path) {
      BSON_APPEND_DOCUMENT_BEGIN (&cond, "1", &ifnull);
      BSON_APPEND_ARRAY_BEGIN (&ifnull, "$ifNull", &args);
      BSON_APPEND_UTF8 (&args, "0", then_path);
      BSON_APPEND_INT32 (&args, "1", 0);
      bson_append_array_end (&ifnull, &args);
      bson_append_document_end (&cond, &ifnull);
   } else {
      BSON_APPEND_INT32 (&cond, "1", 1);
   }
   BSON_APPEND_INT32 (&cond, "2", 0);
   bson_append_array_end (&sum, &cond);
   bson_append_document_end (&acc, &sum);
   bson_append_document_end (group, &acc);
}

/* ---- gathering ---- */

/* The { _id, <field> } documents of an aggregate's result, as a lookup by _id. */
static bool
pg_lookup (const bson_t *docs, const char *id, const char *field, bson_iter_t *value)
{
   bson_iter_t it, f;
   if (!bson_iter_init (&it, docs))
      return false;
   while (bson_iter_next (&it)) {
      if (bson_iter_recurse (&it, &f) && bson_iter_find (&f, "_id") && BSON_ITER_HOLDS_UTF8 (&f) &&
          !strcmp (bson_iter_utf8 (&f, NULL), id) && bson_iter_recurse (&it, value) && bson_iter_find (value, field))
         return true;
   }
   return false;
}

/* The number field of the document with _id id in docs, as an int64 (0 when absent; no double is cast). */
static int64_t
pg_lookup_num (const bson_t *docs, const char *id, const char *field)
{
   bson_iter_t v;
   return pg_lookup (docs, id, field, &v) && BSON_ITER_HOLDS_NUMBER (&v) && !BSON_ITER_HOLDS_DOUBLE (&v)
             ? bson_iter_as_int64 (&v)
             : 0;
}

/* jumbo: { $sum: { $cond: [ { $eq: [ "$jumbo", true ] }, 1, 0 ] } } */
static void
pg_append_jumbo_sum (bson_t *group)
{
   bson_t acc, sum, cond, eq, args;
   BSON_APPEND_DOCUMENT_BEGIN (group, "jumbo", &acc);
   BSON_APPEND_DOCUMENT_BEGIN (&acc, "$sum", &sum);
   BSON_APPEND_ARRAY_BEGIN (&sum, "$cond", &cond);
   BSON_APPEND_DOCUMENT_BEGIN (&cond, "0", &eq);
   BSON_APPEND_ARRAY_BEGIN (&eq, "$eq", &args);
   BSON_APPEND_UTF8 (&args, "0", "$jumbo");
   BSON_APPEND_BOOL (&args, "1", true);
   bson_append_array_end (&eq, &args);
   bson_append_document_end (&cond, &eq);
   BSON_APPEND_INT32 (&cond, "1", 1);
   BSON_APPEND_INT32 (&cond, "2", 0);
   bson_append_array_end (&sum, &cond);
   bson_append_document_end (&acc, &sum);
   bson_append_document_end (group, &acc);
}

/* Runs a find of config.<coll> with filter and limit, into docs (initialised in every case). */
static bool
pg_find (sh_ctx_t *ctx, progress_reading_t *r, const char *coll, const bson_t *filter, int limit, bson_t *docs,
         sh_error_t *err)
{
   bson_t cmd = BSON_INITIALIZER;
   BSON_APPEND_UTF8 (&cmd, "find", coll);
   BSON_APPEND_DOCUMENT (&cmd, "filter", filter);
   if (limit > 0)
      BSON_APPEND_INT32 (&cmd, "limit", limit);
   r->reads++;
   bool ok = conn_run_docs (ctx, "config", &cmd, CONN_READ, (size_t) (limit > 0 ? limit : 0), docs, NULL, err);
   bson_destroy (&cmd);
   return ok;
}

/* One jumbo chunk left on draining shard id, named in d as jumboNs and jumboMin (text): a find of config.chunks, and
 * of config.collections by uuid when the chunk names no ns (5.0+). */
static bool
pg_jumbo_example (sh_ctx_t *ctx, progress_reading_t *r, const char *id, bson_t *d, sh_error_t *err)
{
   bson_t filter = BSON_INITIALIZER, docs, chunk, colls, coll;
   bson_iter_t it;
   char min[256] = "";
   bool ok;
   BSON_APPEND_UTF8 (&filter, "shard", id);
   BSON_APPEND_BOOL (&filter, "jumbo", true);
   ok = pg_find (ctx, r, "chunks", &filter, 1, &docs, err);
   bson_destroy (&filter);
   if (ok && cmd_first_doc (&docs, &chunk)) {
      if (bson_iter_init_find (&it, &chunk, "min"))
         output_format_value_line (bson_iter_value (&it), min, sizeof min);
      BSON_APPEND_UTF8 (d, "jumboMin", min);
      if (bson_iter_init_find (&it, &chunk, "ns") && BSON_ITER_HOLDS_UTF8 (&it)) {
         BSON_APPEND_UTF8 (d, "jumboNs", bson_iter_utf8 (&it, NULL));
      } else if (bson_iter_init_find (&it, &chunk, "uuid")) {
         bson_init (&filter);
         bson_append_value (&filter, "uuid", 4, bson_iter_value (&it));
         ok = pg_find (ctx, r, "collections", &filter, 1, &colls, err);
         bson_destroy (&filter);
         if (ok && cmd_first_doc (&colls, &coll) && bson_iter_init_find (&it, &coll, "_id") &&
             BSON_ITER_HOLDS_UTF8 (&it))
            BSON_APPEND_UTF8 (d, "jumboNs", bson_iter_utf8 (&it, NULL));
         bson_destroy (&colls);
      }
   }
   bson_destroy (&docs);
   return ok;
}

/* Appends to d the stuckZones entries of dead ({ ns, zone, min, max, shard, chunks } rows) whose shard is id. */
static void
pg_append_dead (bson_t *d, const bson_t *dead, const char *id)
{
   bson_t arr, row, e;
   bson_iter_t it;
   uint32_t n = 0;
   BSON_APPEND_ARRAY_BEGIN (d, "stuckZones", &arr);
   if (bson_iter_init (&it, dead)) {
      while (bson_iter_next (&it)) {
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &row) || strcmp (docget_utf8 (&row, "shard", ""), id))
            continue;
         char key[16];
         const char *k;
         bson_iter_t f;
         bson_uint32_to_string (n++, &k, key, sizeof key);
         BSON_APPEND_DOCUMENT_BEGIN (&arr, k, &e);
         bson_iter_init (&f, &row);
         while (bson_iter_next (&f))
            if (strcmp (bson_iter_key (&f), "shard"))
               bson_append_iter (&e, NULL, 0, &f);
         bson_append_document_end (&arr, &e);
      }
   }
   bson_append_array_end (d, &arr);
}

/* The chunks of one zone range (tag: a config.tags document) on the draining shards ids, when no shard could take
 * them, as { ns, zone, min, max, shard, chunks } rows appended to dead. */
static bool
pg_dead_range (sh_ctx_t *ctx, progress_reading_t *r, const bson_t *tag, const char *const *ids, size_t n, bson_t *dead,
               sh_error_t *err)
{
   bson_t zmin, zmax, filter = BSON_INITIALIZER, colls, coll, match = BSON_INITIALIZER, group = BSON_INITIALIZER;
   bson_t sub, cmd = BSON_INITIALIZER, counts;
   const char *ns = docget_utf8 (tag, "ns", NULL), *zone = docget_utf8 (tag, "tag", NULL);
   char key[16], a[240], b[240];
   const char *k;
   bson_iter_t it;
   bool ok = true;
   if (!ns || !zone || !docget_sub (tag, "min", BSON_TYPE_DOCUMENT, &zmin) ||
       !docget_sub (tag, "max", BSON_TYPE_DOCUMENT, &zmax))
      return true;
   BSON_APPEND_UTF8 (&filter, "_id", ns);
   ok = pg_find (ctx, r, "collections", &filter, 1, &colls, err);
   if (!ok || !cmd_first_doc (&colls, &coll))
      goto done;
   cmd_append_chunks_match (&match, &coll);
   BSON_APPEND_DOCUMENT_BEGIN (&match, "min", &sub);
   BSON_APPEND_DOCUMENT (&sub, "$gte", &zmin);
   bson_append_document_end (&match, &sub);
   BSON_APPEND_DOCUMENT_BEGIN (&match, "max", &sub);
   BSON_APPEND_DOCUMENT (&sub, "$lte", &zmax);
   bson_append_document_end (&match, &sub);
   pg_append_in (&match, "shard", ids, n);
   BSON_APPEND_UTF8 (&group, "_id", "$shard");
   BSON_APPEND_DOCUMENT_BEGIN (&group, "n", &sub);
   BSON_APPEND_INT32 (&sub, "$sum", 1);
   bson_append_document_end (&group, &sub);
   pg_append_group (&cmd, "chunks", &match, &group);
   r->reads++;
   ok = conn_run_docs (ctx, "config", &cmd, CONN_READ, 0, &counts, NULL, err);
   if (ok && bson_iter_init (&it, &counts)) {
      bson_iter_t v;
      bson_iter_init_find (&v, tag, "min");
      output_format_value_line (bson_iter_value (&v), a, sizeof a);
      bson_iter_init_find (&v, tag, "max");
      output_format_value_line (bson_iter_value (&v), b, sizeof b);
      for (size_t i = 0; i < n; i++) {
         int64_t c = pg_lookup_num (&counts, ids[i], "n");
         if (c <= 0)
            continue;
         bson_t row;
         bson_uint32_to_string ((uint32_t) bson_count_keys (dead), &k, key, sizeof key);
         BSON_APPEND_DOCUMENT_BEGIN (dead, k, &row);
         BSON_APPEND_UTF8 (&row, "ns", ns);
         BSON_APPEND_UTF8 (&row, "zone", zone);
         BSON_APPEND_UTF8 (&row, "min", a);
         BSON_APPEND_UTF8 (&row, "max", b);
         BSON_APPEND_UTF8 (&row, "shard", ids[i]);
         BSON_APPEND_INT64 (&row, "chunks", c);
         bson_append_document_end (dead, &row);
      }
   }
   bson_destroy (&counts);
done:
   bson_destroy (&filter);
   bson_destroy (&colls);
   bson_destroy (&match);
   bson_destroy (&group);
   bson_destroy (&cmd);
   return ok;
}

/* What the stuck model needs while shards drain (progress.h): every shard with its zones, the balancer's state and
 * settings, and the chunks of zone ranges no shard can take (dead, at most PG_MAX_DEAD ranges probed). */
static bool
pg_gather_stuck (sh_ctx_t *ctx, const char *const *ids, size_t n, progress_reading_t *r, bson_t *dead, sh_error_t *err)
{
   bson_t filter = BSON_INITIALIZER, cmd = BSON_INITIALIZER, docs, tags, first;
   bson_iter_t it;
   bool ok = false;
   size_t probed = 0;
   bson_destroy (&r->shards);
   if (!pg_find (ctx, r, "shards", &filter, 0, &r->shards, err))
      goto done;
   BSON_APPEND_INT32 (&cmd, "balancerStatus", 1);
   bson_destroy (&r->balancer);
   r->reads++;
   if (!conn_run (ctx, "admin", &cmd, CONN_READ, &r->balancer, err))
      goto done;
   BSON_APPEND_UTF8 (&filter, "_id", "balancer");
   bool got = pg_find (ctx, r, "settings", &filter, 1, &docs, err);
   if (got && cmd_first_doc (&docs, &first)) {
      bson_destroy (&r->settings);
      bson_copy_to (&first, &r->settings);
   }
   bson_destroy (&docs);
   if (!got)
      goto done;
   {
      time_t t = time (NULL);
      struct tm tm;
      localtime_r (&t, &tm);
      r->now_minutes = tm.tm_hour * 60 + tm.tm_min;
   }
   bson_reinit (&filter);
   if (!pg_find (ctx, r, "tags", &filter, PG_MAX_TAGS, &tags, err)) {
      bson_destroy (&tags);
      goto done;
   }
   ok = true;
   if (bson_iter_init (&it, &tags)) {
      while (ok && bson_iter_next (&it) && probed < PG_MAX_DEAD) {
         bson_t tag;
         const char *zone;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &tag) || !(zone = docget_utf8 (&tag, "tag", NULL)) ||
             stuck_recipients (&r->shards, zone, NULL, NULL, 0) > 0)
            continue;
         probed++;
         ok = pg_dead_range (ctx, r, &tag, ids, n, dead, err);
      }
   }
   bson_destroy (&tags);
done:
   bson_destroy (&filter);
   bson_destroy (&cmd);
   return ok;
}

/* Appends the figures of the draining shards (ids) to r->drains. */
static bool
pg_gather_drains (sh_ctx_t *ctx, const char *const *ids, size_t n, progress_reading_t *r, sh_error_t *err)
{
   bson_t match = BSON_INITIALIZER, group = BSON_INITIALIZER, sub, ors, br, cmd = BSON_INITIALIZER;
   bson_t starts, moved, chunks, dbs, dead = BSON_INITIALIZER;
   bool ok = false;
   int64_t since = r->at_ms - PG_RECENT_MS;
   char key[16];
   const char *k;

   bson_init (&starts);
   bson_init (&moved);
   bson_init (&chunks);
   bson_init (&dbs);
   /* when each drain started: the newest removeShard.start of the shard */
   BSON_APPEND_UTF8 (&match, "what", "removeShard.start");
   pg_append_in (&match, "details.shard", ids, n);
   BSON_APPEND_UTF8 (&group, "_id", "$details.shard");
   BSON_APPEND_DOCUMENT_BEGIN (&group, "started", &sub);
   BSON_APPEND_UTF8 (&sub, "$max", "$time");
   bson_append_document_end (&group, &sub);
   pg_append_group (&cmd, "changelog", &match, &group);
   bson_destroy (&starts);
   r->reads++;
   if (!conn_run_docs (ctx, "config", &cmd, CONN_READ, 0, &starts, NULL, err))
      goto done;

   /* what each shard gave since its drain started, and in the last minutes */
   bson_reinit (&match);
   bson_reinit (&group);
   bson_reinit (&cmd);
   BSON_APPEND_UTF8 (&match, "what", "moveChunk.commit");
   BSON_APPEND_ARRAY_BEGIN (&match, "$or", &ors);
   for (size_t i = 0; i < n; i++) {
      bson_iter_t v;
      bson_uint32_to_string ((uint32_t) i, &k, key, sizeof key);
      BSON_APPEND_DOCUMENT_BEGIN (&ors, k, &br);
      BSON_APPEND_UTF8 (&br, "details.from", ids[i]);
      BSON_APPEND_DOCUMENT_BEGIN (&br, "time", &sub);
      if (pg_lookup (&starts, ids[i], "started", &v) && BSON_ITER_HOLDS_DATE_TIME (&v))
         BSON_APPEND_DATE_TIME (&sub, "$gte", bson_iter_date_time (&v));
      else
         BSON_APPEND_DATE_TIME (&sub, "$gte", since);
      bson_append_document_end (&br, &sub);
      bson_append_document_end (&ors, &br);
   }
   bson_append_array_end (&match, &ors);
   BSON_APPEND_UTF8 (&group, "_id", "$details.from");
   BSON_APPEND_DOCUMENT_BEGIN (&group, "moved", &sub);
   BSON_APPEND_INT32 (&sub, "$sum", 1);
   bson_append_document_end (&group, &sub);
   pg_append_recent_sum (&group, "recentChunks", since, NULL);
   pg_append_recent_sum (&group, "recentBytes", since, "$details.counts.clonedBytes");
   /* all it gave and its last commit: a drain that has emptied keeps the rate it left at */
   pg_append_recent_sum (&group, "bytes", 0, "$details.counts.clonedBytes");
   BSON_APPEND_DOCUMENT_BEGIN (&group, "last", &sub);
   BSON_APPEND_UTF8 (&sub, "$max", "$time");
   bson_append_document_end (&group, &sub);
   pg_append_group (&cmd, "changelog", &match, &group);
   bson_destroy (&moved);
   r->reads++;
   if (!conn_run_docs (ctx, "config", &cmd, CONN_READ, 0, &moved, NULL, err))
      goto done;

   /* chunks left on each shard, and databases it is the primary of */
   for (int pass = 0; pass < 2; pass++) {
      const char *field = pass ? "primary" : "shard";
      bson_reinit (&match);
      bson_reinit (&group);
      bson_reinit (&cmd);
      pg_append_in (&match, field, ids, n);
      char path[16];
      bson_snprintf (path, sizeof path, "$%s", field);
      BSON_APPEND_UTF8 (&group, "_id", path);
      BSON_APPEND_DOCUMENT_BEGIN (&group, "n", &sub);
      BSON_APPEND_INT32 (&sub, "$sum", 1);
      bson_append_document_end (&group, &sub);
      if (!pass)
         pg_append_jumbo_sum (&group);
      pg_append_group (&cmd, pass ? "databases" : "chunks", &match, &group);
      bson_t *dst = pass ? &dbs : &chunks;
      bson_destroy (dst);
      r->reads++;
      if (!conn_run_docs (ctx, "config", &cmd, CONN_READ, 0, dst, NULL, err))
         goto done;
   }

   if (!pg_gather_stuck (ctx, ids, n, r, &dead, err))
      goto done;
   for (size_t i = 0; i < n; i++) {
      bson_t d;
      bson_iter_t v;
      int64_t started = 0;
      bson_uint32_to_string ((uint32_t) i, &k, key, sizeof key);
      BSON_APPEND_DOCUMENT_BEGIN (&r->drains, k, &d);
      BSON_APPEND_UTF8 (&d, "shard", ids[i]);
      BSON_APPEND_INT64 (&d, "chunks", pg_lookup_num (&chunks, ids[i], "n"));
      BSON_APPEND_INT64 (&d, "dbs", pg_lookup_num (&dbs, ids[i], "n"));
      if (pg_lookup (&starts, ids[i], "started", &v) && BSON_ITER_HOLDS_DATE_TIME (&v)) {
         started = bson_iter_date_time (&v);
         BSON_APPEND_INT64 (&d, "startedMs", started);
         BSON_APPEND_INT64 (&d, "moved", pg_lookup_num (&moved, ids[i], "moved"));
      }
      BSON_APPEND_INT64 (&d, "recentChunks", pg_lookup_num (&moved, ids[i], "recentChunks"));
      BSON_APPEND_INT64 (&d, "recentBytes", pg_lookup_num (&moved, ids[i], "recentBytes"));
      BSON_APPEND_INT64 (&d, "bytes", pg_lookup_num (&moved, ids[i], "bytes"));
      if (pg_lookup (&moved, ids[i], "last", &v) && BSON_ITER_HOLDS_DATE_TIME (&v))
         BSON_APPEND_INT64 (&d, "lastMs", bson_iter_date_time (&v));
      /* the window: the last minutes, or the time since the drain started when that is shorter */
      int64_t window = PG_RECENT_MS;
      if (started > since && r->at_ms > started)
         window = r->at_ms - started;
      BSON_APPEND_DOUBLE (&d, "windowSecs", (double) window / 1000.0);
      int64_t jumbo = pg_lookup_num (&chunks, ids[i], "jumbo");
      BSON_APPEND_INT64 (&d, "jumbo", jumbo);
      if (jumbo > 0 && !pg_jumbo_example (ctx, r, ids[i], &d, err)) {
         bson_append_document_end (&r->drains, &d);
         goto done;
      }
      pg_append_dead (&d, &dead, ids[i]);
      bson_append_document_end (&r->drains, &d);
   }
   ok = true;
done:
   bson_destroy (&match);
   bson_destroy (&group);
   bson_destroy (&cmd);
   bson_destroy (&starts);
   bson_destroy (&moved);
   bson_destroy (&chunks);
   bson_destroy (&dbs);
   bson_destroy (&dead);
   return ok;
}

bool
cmd_progress_read_paused (sh_ctx_t *ctx, bson_t *out, sh_error_t *err)
{
   bson_t *cmd = BCON_NEW ("aggregate", "changelog", "pipeline", "[", "{", "$match", "{", "what", "{", "$in", "[",
                           "removeShard.start", "removeShard.stopShardDraining", "removeShard", "]", "}", "}", "}", "{",
                           "$sort", "{", "time", BCON_INT32 (1), "}", "}", "{", "$group", "{", "_id", "$details.shard",
                           "last", "{", "$last", "$what", "}", "}", "}", "{", "$match", "{", "last",
                           "removeShard.stopShardDraining", "}", "}", "]", "cursor", "{", "}");
   bool ok = conn_run_docs (ctx, "config", cmd, CONN_READ, 0, out, NULL, err);
   bson_destroy (cmd);
   return ok;
}

/* 8.3+: the paused drains into r->paused (one read). */
static bool
pg_gather_paused (sh_ctx_t *ctx, progress_reading_t *r, sh_error_t *err)
{
   bson_destroy (&r->paused);
   r->reads++;
   return cmd_progress_read_paused (ctx, &r->paused, err);
}

/* The _id strings of docs (at most max), borrowed from docs. */
static size_t
pg_ids (const bson_t *docs, const char **ids, size_t max)
{
   bson_iter_t it, f;
   size_t n = 0;
   if (!bson_iter_init (&it, docs))
      return 0;
   while (bson_iter_next (&it) && n < max) {
      if (bson_iter_recurse (&it, &f) && bson_iter_find (&f, "_id") && BSON_ITER_HOLDS_UTF8 (&f))
         ids[n++] = bson_iter_utf8 (&f, NULL);
   }
   return n;
}

bool
cmd_progress_gather (sh_ctx_t *ctx, progress_reading_t *r, sh_error_t *err)
{
   sh_requests_t reqs = { .n = 0 };
   bson_t shards = BSON_INITIALIZER, colls = BSON_INITIALIZER;
   const char *ids[PG_MAX_DRAINS > PG_MAX_DEFRAGS ? PG_MAX_DRAINS : PG_MAX_DEFRAGS];
   bool ok = false;
   size_t n;

   r->at_ms = clock_wall_ms ();
   pg_append_requests (&reqs);
   /* conn_run_docs initialises its result in every case, so each is destroyed right before its run */
   bson_t *results[] = { &r->ops, &r->coordinators, &shards, &colls };
   for (size_t i = 0; i < 4; i++) {
      bson_destroy (results[i]);
      r->reads++;
      if (!conn_run_docs (ctx, reqs.v[i].db, &reqs.v[i].cmd, reqs.v[i].path, 0, results[i], NULL, err))
         goto done;
   }
   n = pg_ids (&shards, ids, PG_MAX_DRAINS);
   {
      /* how a drained shard is removed (8.3: commitShardRemoval) and whether a drain can be paused depend on the
       * version; the session knows it (unknown under --dry-run: no paused drain is looked for then) */
      int v[3];
      sh_error_t ignored;
      sh_error_clear (&ignored);
      if (conn_server_version (ctx, v, &ignored))
         memcpy (r->version, v, sizeof r->version);
   }
   if (dispatch_version_at_least (r->version, "8.3") && !pg_gather_paused (ctx, r, err))
      goto done;
   n += pg_ids (&r->paused, ids + n, PG_MAX_DRAINS - n);
   if (n && !pg_gather_drains (ctx, ids, n, r, err))
      goto done;
   n = pg_ids (&colls, ids, PG_MAX_DEFRAGS);
   for (size_t i = 0; i < n; i++) {
      bson_t cmd = BSON_INITIALIZER, reply, d;
      char key[16];
      const char *k;
      BSON_APPEND_UTF8 (&cmd, "balancerCollectionStatus", ids[i]);
      r->reads++;
      bool ran = conn_run (ctx, "admin", &cmd, CONN_ADMIN, &reply, err);
      bson_destroy (&cmd);
      if (!ran) {
         bson_destroy (&reply);
         goto done;
      }
      bool present = false;
      bson_iter_t rit;
      int64_t remaining = 0;
      if (bson_iter_init (&rit, &reply) &&
          bson_iter_find_descendant (&rit, "details.progress.remainingChunksToProcess", &rit) &&
          (BSON_ITER_HOLDS_INT32 (&rit) || BSON_ITER_HOLDS_INT64 (&rit))) {
         remaining = bson_iter_as_int64 (&rit);
         present = true;
      }
      bson_iter_t it, f;
      bson_uint32_to_string ((uint32_t) i, &k, key, sizeof key);
      BSON_APPEND_DOCUMENT_BEGIN (&r->defrags, k, &d);
      BSON_APPEND_UTF8 (&d, "ns", ids[i]);
      if (bson_iter_init (&it, &reply) && bson_iter_find_descendant (&it, "details.currentPhase", &f) &&
          BSON_ITER_HOLDS_UTF8 (&f))
         BSON_APPEND_UTF8 (&d, "phase", bson_iter_utf8 (&f, NULL));
      else
         BSON_APPEND_UTF8 (&d, "phase", "defragmenting");
      if (present)
         BSON_APPEND_INT64 (&d, "remaining", remaining);
      bson_append_document_end (&r->defrags, &d);
      bson_destroy (&reply);
   }
   ok = true;
done:
   bson_destroy (&shards);
   bson_destroy (&colls);
   sh_requests_destroy (&reqs);
   return ok;
}

/* ---- rendering ---- */

static const char *
pg_field (const bson_t *op, const char *key, char *buf, size_t len)
{
   bson_iter_t it;
   buf[0] = '\0';
   if (bson_iter_init_find (&it, op, key) && BSON_ITER_HOLDS_UTF8 (&it))
      bson_strncpy (buf, bson_iter_utf8 (&it, NULL), len);
   return buf;
}

/* One operation's cells, formatted for the table. */
typedef struct {
   char type[32], ns[256], shard[512], phase[160], pct[16], rate[32], eta[32], caveat[1024], stuck[1024], fix[1024];
} pg_row_t;

static void
pg_format_row (const bson_t *op, pg_row_t *row)
{
   bool present;
   double v;
   bson_strncpy (row->pct, "-", sizeof row->pct);
   bson_strncpy (row->rate, "-", sizeof row->rate);
   bson_strncpy (row->eta, "?", sizeof row->eta); /* unknown is "?", never 0 */
   pg_field (op, "type", row->type, sizeof row->type);
   if (!pg_field (op, "ns", row->ns, sizeof row->ns)[0])
      bson_strncpy (row->ns, "-", sizeof row->ns);
   pg_field (op, "shard", row->shard, sizeof row->shard);
   pg_field (op, "phase", row->phase, sizeof row->phase);
   pg_field (op, "caveat", row->caveat, sizeof row->caveat);
   pg_field (op, "stuck", row->stuck, sizeof row->stuck);
   pg_field (op, "fix", row->fix, sizeof row->fix);
   v = docget_double (op, "percent", 0, &present);
   if (present)
      bson_snprintf (row->pct, sizeof row->pct, "%.1f%%", v);
   v = docget_double (op, "bytesPerSec", 0, &present);
   if (present) {
      cmd_format_bytes (v, row->rate, sizeof row->rate - 2);
      strcat (row->rate, "/s");
   }
   v = docget_double (op, "etaSec", 0, &present);
   if (row->stuck[0])
      bson_strncpy (row->eta, "STUCK", sizeof row->eta);
   else if (!strncmp (row->phase, "paused:", 7)) /* a drain stopShardDraining paused: nothing moves */
      bson_strncpy (row->eta, "PAUSED", sizeof row->eta);
   else if (present)
      bson_snprintf (row->eta, sizeof row->eta,
                     v >= 3600 ? "%.0fh%02.0fm"
                     : v >= 60 ? "%.0fm%02.0fs"
                               : "%.0fs",
                     v >= 3600 ? (double) ((int64_t) v / 3600)
                     : v >= 60 ? (double) ((int64_t) v / 60)
                               : v,
                     v >= 3600 ? (double) (((int64_t) v % 3600) / 60) : (double) ((int64_t) v % 60));
}

/* The table: each column as wide as its widest cell (a long phase widens its column instead of pushing the others
 * out of line); a stuck operation shows STUCK as its time left, then why and the fix on their own lines. */
static void
pg_print_table (bson_string_t *o, const bson_t *operations)
{
   bson_iter_t it;
   size_t n = 0, k = 0;
   int w[6] = { 4, 9, 5, 4, 4, 4 }; /* TYPE NAMESPACE PHASE DONE RATE LEFT */
   bson_iter_init (&it, operations);
   while (bson_iter_next (&it))
      n++;
   if (!n) {
      bson_string_append_printf (o, "no long operation is running\n");
      return;
   }
   pg_row_t *rows = bson_malloc0 (n * sizeof *rows);
   bson_iter_init (&it, operations);
   while (bson_iter_next (&it) && k < n) {
      bson_t op;
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &op))
         continue;
      pg_row_t *r = &rows[k++];
      pg_format_row (&op, r);
      const char *cells[6] = { r->type, r->ns, r->phase, r->pct, r->rate, r->eta };
      for (int c = 0; c < 6; c++)
         w[c] = (int) strlen (cells[c]) > w[c] ? (int) strlen (cells[c]) : w[c];
   }
   bson_string_append_printf (o, "%-*s %-*s %-*s %-*s %-*s %-*s %s\n", w[0], "TYPE", w[1], "NAMESPACE", w[2], "PHASE",
                              w[3], "DONE", w[4], "RATE", w[5], "LEFT", "SHARDS");
   for (size_t i = 0; i < k; i++) {
      const pg_row_t *r = &rows[i];
      bson_string_append_printf (o, "%-*s %-*s %-*s %-*s %-*s %-*s %s\n", w[0], r->type, w[1], r->ns, w[2], r->phase,
                                 w[3], r->pct, w[4], r->rate, w[5], r->eta, r->shard);
      if (r->stuck[0])
         bson_string_append_printf (o, "    STUCK: %s\n    fix: %s\n", r->stuck, r->fix);
      if (r->caveat[0])
         bson_string_append_printf (o, "    caveat: %s\n", r->caveat);
   }
   bson_free (rows);
}

static bool
exec_progress (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_iter_t it;
   bson_t opts;
   bool watch = false, ok = false;
   int64_t interval = 2, count = 0;

   if (args_doc (call, 0, &opts) && bson_iter_init_find (&it, &opts, "watch"))
      watch = bson_iter_as_bool (&it);
   if (!args_opt_int (call, 0, "intervalSecs", 1, 3600, &interval, err) ||
       !args_opt_int (call, 0, "count", 1, 1000000, &count, err))
      return false;
   for (int64_t round = 1;; round++) {
      progress_reading_t r;
      bson_t operations = BSON_INITIALIZER;
      progress_reading_init (&r);
      if (!cmd_progress_gather (ctx, &r, err)) {
         progress_reading_destroy (&r);
         bson_destroy (&operations);
         goto done;
      }
      if (cmd_dry_run (ctx)) {
         progress_reading_destroy (&r);
         bson_destroy (&operations);
         break;
      }
      progress_track_stalls (&r, ctx->session.progress_prev);
      progress_compute (&r, ctx->session.progress_prev, &operations);
      pg_keep (ctx, &r);
      progress_reading_destroy (&r);
      sh_result_reset (res); /* each round replaces the one before */
      if (ctx->out.mode == OUTPUT_JSON || res->as_value) {
         /* --json, or a JavaScript call: the document (the call's value in JavaScript) */
         bson_t doc = BSON_INITIALIZER;
         BSON_APPEND_ARRAY (&doc, "operations", &operations);
         sh_result_set_doc (res, &doc);
         bson_destroy (&doc);
      } else {
         if (watch) {
            char when[32];
            time_t t = (time_t) (ctx->session.progress_prev->at_ms / 1000);
            struct tm tm;
            localtime_r (&t, &tm);
            strftime (when, sizeof when, "%H:%M:%S", &tm);
            bson_string_append_printf (sh_result_text (res), "%s-- %s --\n", round > 1 ? "\n" : "", when);
         }
         pg_print_table (sh_result_text (res), &operations);
      }
      bson_destroy (&operations);
      if (!watch || (count && round >= count))
         break;
      sh_result_round (ctx, res); /* a watch's round is shown now, where its caller shows results */
      if (!sh_sleep_ms (interval * 1000))
         break; /* Ctrl-C ends the watch; the shell goes on */
   }
   ok = true;
done:
   return ok;
}

const sh_cmd_t cmd_sh_progress = {
   .name = "sh.progress",
   .usage = "sh.progress([{ watch: <bool>, intervalSecs: <1-3600>, count: <n> }])",
   .summary = "Every long operation (resharding, moveCollection, unshardCollection, migrations, drains, "
              "defragmentation, config-shard transitions) with phase, percent, rate and time left",
   .sends =
      "admin { aggregate: 1, pipeline: [ { $currentOp: { allUsers: true, idleConnections: false, localOps: "
      "false } }, { $match: resharding and migration rows } ], cursor: {} }; config find reshardingOperations, "
      "shards { draining: true }, collections { defragmentCollection: true }; per draining shard config "
      "aggregates of changelog (removeShard.start, moveChunk.commit), chunks and databases counts, and for why a drain "
      "may be stuck config find shards, settings { _id: \"balancer\" }, tags, admin { balancerStatus: 1 }, per "
      "zone range no shard can take a find of collections and a count of its chunks on the draining shards, per "
      "draining shard with jumbo chunks a find of one; on 8.3+ a config aggregate of changelog for the drains "
      "stopShardDraining paused (their figures read as a draining shard's); per "
      "defragmenting collection admin { balancerCollectionStatus }",
   .example = "sh.progress()",
   .flags = CMD_READONLY | CMD_MONGOS_CHECK | CMD_EXTRA,
   .build = build_progress,
   .exec = exec_progress,
};
