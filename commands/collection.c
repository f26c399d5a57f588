/* Sharding helpers on a database or collection object: db.<coll>.getShardDistribution(), analyzeShardKey(),
 * configureQueryAnalyzer(), getShardVersion(), getShardLocation(), checkMetadataConsistency() (sh., db. and
 * db.<coll>. forms) and sh.getShardedDataDistribution(). Documents and paths are mongosh's (database.ts,
 * collection.ts, shard.ts). */
#include <math.h>
#include <string.h>

#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"
#include "commands/exec.h"
#include "shell/lib/docget.h"

/* "<db>.<coll>"; caller frees with bson_free. */
static char *
full_name (const sh_call_t *call)
{
   return bson_strdup_printf ("%s.%s", call->db, call->coll ? call->coll : "");
}

static bool
build_analyze_shard_key (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t base = BSON_INITIALIZER;
   char *ns = NULL;
   bool ok = false;
   if (!args_check (call, 0, ARG_ANY, true, "Collection", "analyzeShardKey", err) ||
       !args_opt_int (call, 1, "sampleSize", 0, INT64_MAX, NULL, err))
      goto done;
   ns = full_name (call);
   BSON_APPEND_UTF8 (&base, "analyzeShardKey", ns);
   args_append (call, 0, &base, "key");
   args_spread_run_command (call, 1, &base, sh_requests_add (out, "admin", CONN_READ));
   ok = true;
done:
   bson_free (ns);
   bson_destroy (&base);
   return ok;
}

static bool
build_configure_query_analyzer (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t base = BSON_INITIALIZER;
   char *ns = full_name (call);
   (void) err;
   BSON_APPEND_UTF8 (&base, "configureQueryAnalyzer", ns);
   args_spread_run_command (call, 0, &base, sh_requests_add (out, "admin", CONN_ADMIN));
   bson_free (ns);
   bson_destroy (&base);
   return true;
}

static bool
build_get_shard_version (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   char *ns = full_name (call);
   (void) err;
   BSON_APPEND_UTF8 (sh_requests_add (out, "admin", CONN_READ), "getShardVersion", ns);
   bson_free (ns);
   return true;
}

static bool
build_get_shard_location (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   char *ns = full_name (call);
   bson_t *cmd, pipeline, stage, sub;
   (void) err;
   cmd = sh_requests_add (out, call->db, CONN_READ);
   BSON_APPEND_INT32 (cmd, "aggregate", 1);
   BSON_APPEND_ARRAY_BEGIN (cmd, "pipeline", &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "0", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$listClusterCatalog", &sub);
   BSON_APPEND_BOOL (&sub, "shards", true);
   bson_append_document_end (&stage, &sub);
   bson_append_document_end (&pipeline, &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "1", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$match", &sub);
   BSON_APPEND_UTF8 (&sub, "ns", ns);
   bson_append_document_end (&stage, &sub);
   bson_append_document_end (&pipeline, &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "2", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$project", &sub);
   BSON_APPEND_INT32 (&sub, "_id", 0);
   BSON_APPEND_INT32 (&sub, "shards", 1);
   BSON_APPEND_INT32 (&sub, "sharded", 1);
   bson_append_document_end (&stage, &sub);
   bson_append_document_end (&pipeline, &stage);
   bson_append_array_end (cmd, &pipeline);
   cmd_append_empty (cmd, "cursor");
   bson_free (ns);
   return true;
}

/* { shards, sharded } of the first document; an error when the catalog does not know the namespace */
static bool
exec_get_shard_location (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t docs, first, result = BSON_INITIALIZER;
   bson_iter_t f;
   char *ns = NULL;
   bool ok = false;

   if (!cmd_run_build_docs (ctx, call, 1, &docs, NULL, err))
      goto done;
   if (cmd_dry_run (ctx)) {
      ok = true;
      goto done;
   }
   if (!cmd_first_doc (&docs, &first)) {
      ns = full_name (call);
      sh_error_set_at (err, SH_ERR_USAGE, call->pos, "[COMMON-10004] Error finding location information for %s", ns);
      goto done;
   }
   if (bson_iter_init_find (&f, &first, "shards"))
      bson_append_value (&result, "shards", -1, bson_iter_value (&f));
   if (bson_iter_init_find (&f, &first, "sharded"))
      bson_append_value (&result, "sharded", -1, bson_iter_value (&f));
   sh_result_set_doc (res, &result);
   ok = true;
done:
   bson_free (ns);
   bson_destroy (&docs);
   bson_destroy (&result);
   return ok;
}

static bool
build_sh_check_metadata (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   /* mongosh drops the options here (the db. and db.<coll>. forms pass them) */
   (void) call;
   (void) err;
   BSON_APPEND_INT32 (sh_requests_add (out, "admin", CONN_READ), "checkMetadataConsistency", 1);
   return true;
}

static bool
build_db_check_metadata (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t base = BSON_INITIALIZER;
   (void) err;
   BSON_APPEND_INT32 (&base, "checkMetadataConsistency", 1);
   args_spread_run_command (call, 0, &base, sh_requests_add (out, call->db, CONN_READ));
   bson_destroy (&base);
   return true;
}

static bool
build_coll_check_metadata (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t base = BSON_INITIALIZER;
   (void) err;
   BSON_APPEND_UTF8 (&base, "checkMetadataConsistency", call->coll);
   args_spread_run_command (call, 0, &base, sh_requests_add (out, call->db, CONN_READ));
   bson_destroy (&base);
   return true;
}

static bool
build_sharded_data_distribution (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_iter_t it;
   bson_t *cmd, pipeline, stage;
   (void) err;
   cmd = sh_requests_add (out, "admin", CONN_READ);
   BSON_APPEND_INT32 (cmd, "aggregate", 1);
   BSON_APPEND_ARRAY_BEGIN (cmd, "pipeline", &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "0", &stage);
   if (args_get (call, 0, &it))
      args_append (call, 0, &stage, "$shardedDataDistribution");
   else
      cmd_append_empty (&stage, "$shardedDataDistribution");
   bson_append_document_end (&pipeline, &stage);
   bson_append_array_end (cmd, &pipeline);
   cmd_append_empty (cmd, "cursor");
   return true;
}

/* mongosh rewrites "unknown stage" (40324) into a sentence about the versions that have the stage */
static bool
exec_sharded_data_distribution (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bool ok = cmd_exec_cursor (ctx, call, res, err);
   if (!ok && err->kind == SH_ERR_SERVER && err->code == 40324) {
      char original[sizeof err->message];
      bson_strncpy (original, err->message, sizeof original);
      bson_snprintf (err->message, sizeof err->message,
                     "sh.getShardedDataDistribution only works on mongos and MongoDB server versions greater than "
                     "6.0.3 [Original Error: %s]",
                     original);
   }
   return ok;
}

/* ---- getShardDistribution (mongosh's algorithm, §5.1 of the reference) ---- */

/* config.collections findOne { _id: <id>, dropped: { $ne: true }, unsplittable: { $ne: true } } */
static bool
find_sharded_collection (sh_ctx_t *ctx, const char *id, bson_t *doc, bool *found, sh_error_t *err)
{
   bson_t *cmd =
      BCON_NEW ("find", BCON_UTF8 ("collections"), "filter", "{", "_id", BCON_UTF8 (id), "dropped", "{", "$ne",
                BCON_BOOL (true), "}", "unsplittable", "{", "$ne", BCON_BOOL (true), "}", "}", "limit", BCON_INT32 (1));
   bool ok = cmd_run_first_doc (ctx, "config", cmd, CONN_READ, doc, found, err);
   bson_destroy (cmd);
   return ok;
}

void
cmd_append_chunks_match (bson_t *filter, const bson_t *coll)
{
   bson_iter_t it;
   if (bson_has_field (coll, "timestamp") && bson_iter_init_find (&it, coll, "uuid"))
      bson_append_value (filter, "uuid", -1, bson_iter_value (&it));
   else if (bson_iter_init_find (&it, coll, "_id"))
      bson_append_value (filter, "ns", -1, bson_iter_value (&it));
}

/* One shard's figures, kept for the Totals section. */
typedef struct {
   char *id;
   double size, count, avg;
} shard_figures_t;

/* config.chunks { aggregate: "chunks", pipeline: [ { $match: <chunks match>, shard }, { $group: { _id: 1, n: { $sum:
 * 1 } } } ], cursor: {} }: a countDocuments of one shard's chunks, as the driver sends it */
static bool
count_shard_chunks (sh_ctx_t *ctx, const bson_t *coll, const char *shard, double *chunks, sh_error_t *err)
{
   bson_t cmd = BSON_INITIALIZER, pipeline, stage, match, docs;
   bool ok;

   BSON_APPEND_UTF8 (&cmd, "aggregate", "chunks");
   BSON_APPEND_ARRAY_BEGIN (&cmd, "pipeline", &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "0", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$match", &match);
   cmd_append_chunks_match (&match, coll);
   BSON_APPEND_UTF8 (&match, "shard", shard);
   bson_append_document_end (&stage, &match);
   bson_append_document_end (&pipeline, &stage);
   cmd_append_count_stage (&pipeline, "1");
   bson_append_array_end (&cmd, &pipeline);
   cmd_append_empty (&cmd, "cursor");
   ok = conn_run_docs (ctx, "config", &cmd, CONN_READ, 1, &docs, NULL, err);
   *chunks = docget_double (&docs, "0.n", 0, NULL);
   bson_destroy (&docs);
   bson_destroy (&cmd);
   return ok;
}

static bool
exec_get_shard_distribution (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t cmd = BSON_INITIALIZER, stats, coll, result = BSON_INITIALIZER, totals = BSON_INITIALIZER, host;
   bson_t pipeline, stage, sub;
   bson_iter_t it;
   char *ns = full_name (call), buf[64];
   double total_size = 0, total_count = 0, total_chunks = 0;
   shard_figures_t *shards = NULL;
   size_t n_shards = 0;
   bool found = false, ok = false;

   bson_init (&coll);
   bson_init (&host);
   /* 1. $collStats storageStats: one document per shard */
   BSON_APPEND_UTF8 (&cmd, "aggregate", call->coll);
   BSON_APPEND_ARRAY_BEGIN (&cmd, "pipeline", &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "0", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$collStats", &sub);
   cmd_append_empty (&sub, "storageStats");
   bson_append_document_end (&stage, &sub);
   bson_append_document_end (&pipeline, &stage);
   bson_append_array_end (&cmd, &pipeline);
   cmd_append_empty (&cmd, "cursor");
   if (!conn_run_docs (ctx, call->db, &cmd, CONN_READ, 0, &stats, NULL, err))
      goto done;
   /* 2. the config.collections entry (or its time-series buckets collection) */
   bson_destroy (&coll);
   if (!find_sharded_collection (ctx, ns, &coll, &found, err))
      goto done;
   if (!found) {
      const char *buckets = NULL;
      bson_iter_init (&it, &stats);
      while (!buckets && bson_iter_next (&it)) {
         bson_iter_t f;
         if (bson_iter_recurse (&it, &f) && bson_iter_find_descendant (&f, "storageStats.timeseries.bucketsNs", &f) &&
             BSON_ITER_HOLDS_UTF8 (&f))
            buckets = bson_iter_utf8 (&f, NULL);
      }
      if (!buckets) {
         if (cmd_dry_run (ctx)) {
            ok = true;
            goto done;
         }
         sh_error_set_at (err, SH_ERR_USAGE, call->pos, "Collection %s is not sharded", call->coll);
         goto done;
      }
      bson_destroy (&coll);
      if (!find_sharded_collection (ctx, buckets, &coll, &found, err))
         goto done;
      if (!found) {
         sh_error_set_at (err, SH_ERR_USAGE, call->pos, "Error finding collection information for %s", buckets);
         goto done;
      }
   }
   /* 3. per shard: its host, and its chunk count */
   shards = bson_malloc0 ((bson_count_keys (&stats) + 1) * sizeof *shards);
   bson_iter_init (&it, &stats);
   while (bson_iter_next (&it)) {
      bson_t sdoc, entry;
      bson_iter_t f;
      bool found_host = false, have_count;
      const char *shard = "", *host_s = "null";
      char *key;
      double size, count, avg, orphans, chunks = 0, est_docs;

      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &sdoc))
         continue;
      if (bson_iter_init_find (&f, &sdoc, "shard") && BSON_ITER_HOLDS_UTF8 (&f))
         shard = bson_iter_utf8 (&f, NULL);
      bson_destroy (&host);
      if (!cmd_config_find_id (ctx, "shards", shard, &host, &found_host, err) ||
          !count_shard_chunks (ctx, &coll, shard, &chunks, err))
         goto done;
      size = docget_double (&sdoc, "storageStats.size", 0, NULL);
      avg = docget_double (&sdoc, "storageStats.avgObjSize", 0, NULL);
      orphans = docget_double (&sdoc, "storageStats.numOrphanDocs", 0, NULL);
      count = docget_double (&sdoc, "storageStats.count", 0, &have_count);
      size -= orphans * avg;
      if (!have_count)
         count = NAN;
      if (found_host && bson_iter_init_find (&f, &host, "host") && BSON_ITER_HOLDS_UTF8 (&f))
         host_s = bson_iter_utf8 (&f, NULL);
      key = bson_strdup_printf ("Shard %s at %s", shard, host_s);
      BSON_APPEND_DOCUMENT_BEGIN (&result, key, &entry);
      bson_free (key);
      cmd_format_bytes (size, buf, sizeof buf);
      BSON_APPEND_UTF8 (&entry, "data", buf);
      cmd_append_number (&entry, "docs", count);
      cmd_append_number (&entry, "chunks", chunks);
      cmd_format_bytes (chunks == 0 ? 0 : size / chunks, buf, sizeof buf);
      BSON_APPEND_UTF8 (&entry, "estimated data per chunk", buf);
      est_docs = chunks == 0 ? 0 : floor (count / chunks);
      cmd_append_number (&entry, "estimated docs per chunk", est_docs);
      bson_append_document_end (&result, &entry);
      total_size += size;
      total_count += count;
      total_chunks += chunks;
      shards[n_shards].id = bson_strdup (shard);
      shards[n_shards].size = size;
      shards[n_shards].count = count;
      shards[n_shards].avg = avg;
      n_shards++;
   }
   cmd_format_bytes (total_size, buf, sizeof buf);
   BSON_APPEND_UTF8 (&totals, "data", buf);
   cmd_append_number (&totals, "docs", total_count);
   cmd_append_number (&totals, "chunks", total_chunks);
   for (size_t i = 0; i < n_shards; i++) {
      bson_t arr;
      char line[96], avg[64];
      char *key = bson_strdup_printf ("Shard %s", shards[i].id);
      double dp = total_size == 0 ? 0 : floor (shards[i].size / total_size * 10000) / 100;
      double cp = total_count == 0 ? 0 : floor (shards[i].count / total_count * 10000) / 100;
      BSON_APPEND_ARRAY_BEGIN (&totals, key, &arr);
      bson_free (key);
      bson_snprintf (line, sizeof line, "%.15g %% data", dp);
      BSON_APPEND_UTF8 (&arr, "0", line);
      if (isnan (cp))
         bson_snprintf (line, sizeof line, "NaN %% docs in cluster");
      else
         bson_snprintf (line, sizeof line, "%.15g %% docs in cluster", cp);
      BSON_APPEND_UTF8 (&arr, "1", line);
      cmd_format_bytes (shards[i].avg, avg, sizeof avg);
      bson_snprintf (line, sizeof line, "%s avg obj size on shard", avg);
      BSON_APPEND_UTF8 (&arr, "2", line);
      bson_append_array_end (&totals, &arr);
   }
   BSON_APPEND_DOCUMENT (&result, "Totals", &totals);
   if (!cmd_dry_run (ctx))
      sh_result_take_stats (res, &result, NULL);
   ok = true;
done:
   for (size_t i = 0; i < n_shards; i++)
      bson_free (shards[i].id);
   bson_free (shards);
   bson_free (ns);
   bson_destroy (&cmd);
   bson_destroy (&stats);
   bson_destroy (&coll);
   bson_destroy (&host);
   bson_destroy (&result);
   bson_destroy (&totals);
   return ok;
}

const sh_cmd_t cmd_db_coll_get_shard_distribution = {
   .name = "db.collection.getShardDistribution",
   .usage = "db.<collection>.getShardDistribution()",
   .summary = "Data, documents and chunks of a sharded collection per shard, with totals",
   .sends = "<db> { aggregate: <coll>, pipeline: [ { $collStats: { storageStats: {} } } ], cursor: {} }; config "
            "findOne collections; per shard: config findOne shards and a chunk count ($match, $group)",
   .example = "db.users.getShardDistribution()",
   .flags = CMD_READONLY,
   .exec = exec_get_shard_distribution,
};

const sh_cmd_t cmd_db_coll_analyze_shard_key = {
   .name = "db.collection.analyzeShardKey",
   .usage = "db.<collection>.analyzeShardKey(key[, options])",
   .summary = "Measure how good a candidate shard key would be (cardinality, frequency, monotonicity, reads/writes)",
   .sends = "admin { analyzeShardKey: \"<db>.<coll>\", key: <key>, ...options }",
   .example = "db.users.analyzeShardKey({uid: 1}, {keyCharacteristics: true, readWriteDistribution: false})",
   .since = "7.0",
   .flags = CMD_READONLY,
   .build = build_analyze_shard_key,
};

const sh_cmd_t cmd_db_coll_configure_query_analyzer = {
   .name = "db.collection.configureQueryAnalyzer",
   .usage = "db.<collection>.configureQueryAnalyzer(options)",
   .summary = "Start or stop sampling the collection's queries for analyzeShardKey",
   .sends = "admin { configureQueryAnalyzer: \"<db>.<coll>\", ...options } (sampleRate as a double)",
   .example = "db.users.configureQueryAnalyzer({mode: \"full\", samplesPerSecond: 5})",
   .since = "7.0",
   .build = build_configure_query_analyzer,
};

const sh_cmd_t cmd_db_coll_get_shard_version = {
   .name = "db.collection.getShardVersion",
   .usage = "db.<collection>.getShardVersion()",
   .summary = "The routing table version the mongos holds for the collection",
   .sends = "admin { getShardVersion: \"<db>.<coll>\" }",
   .example = "db.users.getShardVersion()",
   .flags = CMD_READONLY,
   .build = build_get_shard_version,
};

const sh_cmd_t cmd_db_coll_get_shard_location = {
   .name = "db.collection.getShardLocation",
   .usage = "db.<collection>.getShardLocation()",
   .summary = "Which shards hold the collection, and whether it is sharded",
   .sends = "<db> { aggregate: 1, pipeline: [ { $listClusterCatalog: { shards: true } }, { $match: { ns } }, "
            "{ $project: { _id: 0, shards: 1, sharded: 1 } } ], cursor: {} }",
   .example = "db.users.getShardLocation()",
   .since = "8.0.10",
   .flags = CMD_READONLY,
   .build = build_get_shard_location,
   .exec = exec_get_shard_location,
};

const sh_cmd_t cmd_sh_check_metadata_consistency = {
   .name = "sh.checkMetadataConsistency",
   .usage = "sh.checkMetadataConsistency([options])",
   .summary = "Inconsistencies in the cluster's sharding metadata (mongosh ignores the options here)",
   .sends = "admin { checkMetadataConsistency: 1 }",
   .example = "sh.checkMetadataConsistency()",
   .since = "7.0",
   .flags = CMD_READONLY | CMD_CURSOR_CMD,
   .build = build_sh_check_metadata,
   .exec = cmd_exec_cursor,
};

const sh_cmd_t cmd_db_check_metadata_consistency = {
   .name = "db.checkMetadataConsistency",
   .usage = "db.checkMetadataConsistency([options])",
   .summary = "Inconsistencies in the sharding metadata of the current database",
   .sends = "<db> { checkMetadataConsistency: 1, ...options }",
   .example = "db.checkMetadataConsistency({checkIndexes: true})",
   .since = "7.0",
   .flags = CMD_READONLY | CMD_CURSOR_CMD,
   .build = build_db_check_metadata,
   .exec = cmd_exec_cursor,
};

const sh_cmd_t cmd_db_coll_check_metadata_consistency = {
   .name = "db.collection.checkMetadataConsistency",
   .usage = "db.<collection>.checkMetadataConsistency([options])",
   .summary = "Inconsistencies in the sharding metadata of one collection",
   .sends = "<db> { checkMetadataConsistency: <coll>, ...options }",
   .example = "db.users.checkMetadataConsistency()",
   .since = "7.0",
   .flags = CMD_READONLY | CMD_CURSOR_CMD,
   .build = build_coll_check_metadata,
   .exec = cmd_exec_cursor,
};

const sh_cmd_t cmd_sh_get_sharded_data_distribution = {
   .name = "sh.getShardedDataDistribution",
   .usage = "sh.getShardedDataDistribution([options])",
   .summary = "Per collection and shard: owned and orphaned documents and size",
   .sends = "admin { aggregate: 1, pipeline: [ { $shardedDataDistribution: <options> } ], cursor: {} }",
   .example = "sh.getShardedDataDistribution()",
   .since = "6.0.3",
   .flags = CMD_READONLY | CMD_CURSOR_AGG,
   .build = build_sharded_data_distribution,
   .exec = exec_sharded_data_distribution,
};
