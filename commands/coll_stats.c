/* db.<collection>.stats(): mongosh's aggregation of $collStats over the shards, the sizes scaled and summed, each
 * shard's own figures beside them, and whether the collection is sharded read from config.collections; and
 * dataSize(), storageSize(), totalIndexSize(), totalSize(): one of those sizes summed over the shards. */
#include <math.h>
#include <string.h>

#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"
#include "commands/exec.h"
#include "shell/lib/docget.h"

static double
db_number (const bson_iter_t *it)
{
   return BSON_ITER_HOLDS_NUMBER (it) ? bson_iter_as_double (it) : 0;
}

/* stats([scale | options]): { aggregate: <coll>, pipeline: [ { $collStats: { storageStats: { scale: 1 } } } ],
 * cursor: {} } (mongosh scales itself), then the config.collections entry that says whether it is sharded. */
static bool
build_coll_stats (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_iter_t it, o;
   bson_t opts, *cmd, pipeline, stage, cs, ss, filter, in, ne;
   char *ns;
   if (!args_check (call, 0, ARG_NUMBER | ARG_OBJECT, false, "Collection", "stats", err))
      return false;
   if (args_get (call, 0, &it)) {
      bool have = args_doc (call, 0, &opts);
      if (!BSON_ITER_HOLDS_NUMBER (&it) && !have) {
         sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0), "stats takes a scale or an options document");
         return false;
      }
      if (BSON_ITER_HOLDS_NUMBER (&it))
         o = it;
      if ((BSON_ITER_HOLDS_NUMBER (&it) || (have && bson_iter_init_find (&o, &opts, "scale"))) &&
          !(BSON_ITER_HOLDS_NUMBER (&o) && bson_iter_as_double (&o) >= 0 && bson_iter_as_double (&o) <= 1e300)) {
         sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0), "scale must be a positive number");
         return false;
      }
      if (have && bson_iter_init_find (&o, &opts, "indexDetailsKey")) {
         sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0),
                          "indexDetailsKey is not supported: name the index with indexDetailsName");
         return false;
      }
      if (have && bson_iter_init_find (&o, &opts, "indexDetailsName") && !BSON_ITER_HOLDS_UTF8 (&o)) {
         sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0),
                          "Expected options.indexDetailsName to be a string, got %s", args_typeof (&o));
         return false;
      }
   }
   cmd = sh_requests_add (out, call->db, CONN_READ);
   BSON_APPEND_UTF8 (cmd, "aggregate", call->coll);
   BSON_APPEND_ARRAY_BEGIN (cmd, "pipeline", &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "0", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$collStats", &cs);
   BSON_APPEND_DOCUMENT_BEGIN (&cs, "storageStats", &ss);
   BSON_APPEND_INT32 (&ss, "scale", 1);
   bson_append_document_end (&cs, &ss);
   bson_append_document_end (&stage, &cs);
   bson_append_document_end (&pipeline, &stage);
   bson_append_array_end (cmd, &pipeline);
   cmd_append_empty (cmd, "cursor");
   ns = bson_strdup_printf ("%s.%s", call->db, call->coll);
   cmd = sh_requests_add (out, "config", CONN_READ);
   BSON_APPEND_UTF8 (cmd, "find", "collections");
   BSON_APPEND_DOCUMENT_BEGIN (cmd, "filter", &filter);
   BSON_APPEND_DOCUMENT_BEGIN (&filter, "_id", &in);
   BSON_APPEND_ARRAY_BEGIN (&in, "$in", &ne);
   BSON_APPEND_UTF8 (&ne, "0", ns);
   bson_append_array_end (&in, &ne);
   bson_append_document_end (&filter, &in);
   BSON_APPEND_DOCUMENT_BEGIN (&filter, "dropped", &ne);
   BSON_APPEND_BOOL (&ne, "$ne", true);
   bson_append_document_end (&filter, &ne);
   BSON_APPEND_DOCUMENT_BEGIN (&filter, "unsplittable", &ne);
   BSON_APPEND_BOOL (&ne, "$ne", true);
   bson_append_document_end (&filter, &ne);
   bson_append_document_end (cmd, &filter);
   BSON_APPEND_INT32 (cmd, "limit", 1);
   bson_free (ns);
   return true;
}

static bool
db_is_scaled (const char *k)
{
   return !strcmp (k, "size") || !strcmp (k, "maxSize") || !strcmp (k, "storageSize") ||
          !strcmp (k, "totalIndexSize") || !strcmp (k, "totalSize");
}

/* indexDetails kept only when asked for, and then only the named index's. */
static void
db_copy_index_details (bson_t *dst, const bson_iter_t *it, bool keep, const char *only)
{
   bson_iter_t d;
   bson_t sub;
   if (!keep)
      return;
   if (!only || !BSON_ITER_HOLDS_DOCUMENT (it)) {
      BSON_APPEND_VALUE (dst, "indexDetails", bson_iter_value ((bson_iter_t *) it));
      return;
   }
   BSON_APPEND_DOCUMENT_BEGIN (dst, "indexDetails", &sub);
   bson_iter_recurse (it, &d);
   while (bson_iter_next (&d)) {
      if (!strcmp (bson_iter_key (&d), only))
         BSON_APPEND_VALUE (&sub, bson_iter_key (&d), bson_iter_value (&d));
   }
   bson_append_document_end (dst, &sub);
}

/* One shard's storageStats as mongosh scales it: sizes divided by scale, scaleFactor the scale, the rest as sent. */
static void
db_scale_shard (bson_t *dst, const bson_t *ss, double scale, bool details, const char *only)
{
   bson_iter_t it, ix;
   bson_iter_init (&it, ss);
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      if (db_is_scaled (k)) {
         cmd_append_number (dst, k, db_number (&it) / scale);
      } else if (!strcmp (k, "scaleFactor")) {
         cmd_append_number (dst, k, scale);
      } else if (!strcmp (k, "indexSizes") && BSON_ITER_HOLDS_DOCUMENT (&it)) {
         bson_t sub;
         BSON_APPEND_DOCUMENT_BEGIN (dst, k, &sub);
         bson_iter_recurse (&it, &ix);
         while (bson_iter_next (&ix))
            cmd_append_number (&sub, bson_iter_key (&ix), db_number (&ix) / scale);
         bson_append_document_end (dst, &sub);
      } else if (!strcmp (k, "indexDetails")) {
         db_copy_index_details (dst, &it, details, only);
      } else {
         BSON_APPEND_VALUE (dst, k, bson_iter_value (&it));
      }
   }
}

/* Sums keyed values: names[i] -> sums[i], in first-seen order. */
typedef struct {
   char **names;
   double *sums;
   size_t n;
} db_sums_t;

static void
db_sums_add (db_sums_t *s, const char *name, double v)
{
   for (size_t i = 0; i < s->n; i++) {
      if (!strcmp (s->names[i], name)) {
         s->sums[i] += v;
         return;
      }
   }
   s->names = bson_realloc (s->names, (s->n + 1) * sizeof *s->names);
   s->sums = bson_realloc (s->sums, (s->n + 1) * sizeof *s->sums);
   s->names[s->n] = bson_strdup (name);
   s->sums[s->n++] = v;
}

static void
db_sums_destroy (db_sums_t *s)
{
   for (size_t i = 0; i < s->n; i++)
      bson_free (s->names[i]);
   bson_free (s->names);
   bson_free (s->sums);
}

/* The aggregated result, field for field in the order mongosh's _aggregateAndScaleCollStats builds it. */
static void
db_coll_stats_result (const sh_call_t *call, const bson_t *docs, bool sharded, double scale, bool details,
                      const char *only, bson_t *result)
{
   static const char *const first_wins[] = { "userFlags",    "capped",     "max", "paddingFactorNote",
                                             "indexDetails", "wiredTiger", NULL };
   bson_t shards = BSON_INITIALIZER, once = BSON_INITIALIZER, sub;
   db_sums_t counts = { 0 }, index_sizes = { 0 };
   bson_value_t nindexes = { .value_type = BSON_TYPE_INT32 };
   bson_iter_t d, it, f;
   double unscaled = 0, max_size = 0, nidx = 0;
   bool have_shard = false, first = true, scale_factor = false;
   char *ns = bson_strdup_printf ("%s.%s", call->db, call->coll);

   bson_iter_init (&d, docs);
   while (bson_iter_next (&d)) {
      bson_t doc, ss;
      double count = 0;
      if (!docget_iter_sub (&d, BSON_TYPE_DOCUMENT, &doc) ||
          !docget_sub (&doc, "storageStats", BSON_TYPE_DOCUMENT, &ss))
         continue;
      if (first) {
         have_shard = bson_has_field (&doc, "shard");
         scale_factor = bson_has_field (&ss, "scaleFactor");
         first = false;
      }
      if (bson_iter_init_find (&f, &ss, "count"))
         count = db_number (&f);
      bson_iter_init (&it, &ss);
      while (bson_iter_next (&it)) {
         const char *k = bson_iter_key (&it);
         bool fw = false;
         for (int i = 0; first_wins[i]; i++)
            fw = fw || !strcmp (k, first_wins[i]);
         if (!strcmp (k, "ns") || !strcmp (k, "ok") || !strcmp (k, "lastExtentSize") || !strcmp (k, "paddingFactor")) {
            continue;
         } else if (fw) {
            if (!bson_has_field (&once, k)) {
               if (!strcmp (k, "indexDetails"))
                  db_copy_index_details (&once, &it, details, only);
               else
                  BSON_APPEND_VALUE (&once, k, bson_iter_value (&it));
            }
         } else if (!strcmp (k, "count") || !strcmp (k, "size") || !strcmp (k, "storageSize") ||
                    !strcmp (k, "totalIndexSize") || !strcmp (k, "totalSize") || !strcmp (k, "numOrphanDocs")) {
            db_sums_add (&counts, k, db_number (&it));
         } else if (!strcmp (k, "avgObjSize")) {
            unscaled += db_number (&it) * count;
         } else if (!strcmp (k, "maxSize")) {
            max_size = db_number (&it) > max_size ? db_number (&it) : max_size;
         } else if (!strcmp (k, "indexSizes") && BSON_ITER_HOLDS_DOCUMENT (&it)) {
            bson_iter_t ix;
            bson_iter_recurse (&it, &ix);
            while (bson_iter_next (&ix))
               db_sums_add (&index_sizes, bson_iter_key (&ix), db_number (&ix));
         } else if (!strcmp (k, "nindexes") && BSON_ITER_HOLDS_NUMBER (&it)) {
            if (nidx == 0 || db_number (&it) > nidx) {
               nidx = db_number (&it);
               nindexes = *bson_iter_value (&it);
            }
         }
      }
      if (bson_iter_init_find (&f, &doc, "shard") && BSON_ITER_HOLDS_UTF8 (&f)) {
         BSON_APPEND_DOCUMENT_BEGIN (&shards, bson_iter_utf8 (&f, NULL), &sub);
         db_scale_shard (&sub, &ss, scale, details, only);
         bson_append_document_end (&shards, &sub);
      }
   }
   BSON_APPEND_INT32 (result, "ok", 1);
   bson_concat (result, &once);
   if (have_shard)
      BSON_APPEND_DOCUMENT (result, "shards", &shards);
   BSON_APPEND_BOOL (result, "sharded", sharded);
   for (size_t i = 0; i < counts.n; i++) {
      const char *k = counts.names[i];
      cmd_append_number (result, k, db_is_scaled (k) ? counts.sums[i] / scale : counts.sums[i]);
   }
   BSON_APPEND_DOCUMENT_BEGIN (result, "indexSizes", &sub);
   for (size_t i = 0; i < index_sizes.n; i++)
      cmd_append_number (&sub, index_sizes.names[i], index_sizes.sums[i] / scale);
   bson_append_document_end (result, &sub);
   {
      double total = 0;
      for (size_t i = 0; i < counts.n; i++) {
         if (!strcmp (counts.names[i], "count"))
            total = counts.sums[i];
      }
      cmd_append_number (result, "avgObjSize", total > 0 ? unscaled / total : 0);
   }
   if (bson_iter_init_find (&f, &once, "capped") && bson_iter_as_bool (&f))
      cmd_append_number (result, "maxSize", max_size / scale);
   BSON_APPEND_UTF8 (result, "ns", ns);
   BSON_APPEND_VALUE (result, "nindexes", &nindexes);
   if (scale_factor)
      cmd_append_number (result, "scaleFactor", scale);
   db_sums_destroy (&counts);
   db_sums_destroy (&index_sizes);
   bson_destroy (&shards);
   bson_destroy (&once);
   bson_free (ns);
}

static bool
exec_coll_stats (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   sh_requests_t reqs = { .n = 0 };
   bson_t docs = BSON_INITIALIZER, colls = BSON_INITIALIZER, result = BSON_INITIALIZER, opts;
   bson_iter_t it, o;
   double scale = 1;
   bool details = false, ok = false;
   const char *only = NULL;

   if (!sh_requests_build (call, &reqs, err))
      goto done;
   if (args_get (call, 0, &it) && BSON_ITER_HOLDS_NUMBER (&it) && bson_iter_as_double (&it) > 0)
      scale = bson_iter_as_double (&it);
   if (args_doc (call, 0, &opts)) {
      if (bson_iter_init_find (&o, &opts, "scale") && bson_iter_as_double (&o) > 0)
         scale = bson_iter_as_double (&o);
      if (bson_iter_init_find (&o, &opts, "indexDetails"))
         details = bson_iter_as_bool (&o);
      if (bson_iter_init_find (&o, &opts, "indexDetailsName") && BSON_ITER_HOLDS_UTF8 (&o))
         only = bson_iter_utf8 (&o, NULL);
   }
   bson_destroy (&docs);
   if (!conn_run_docs (ctx, reqs.v[0].db, &reqs.v[0].cmd, reqs.v[0].path, 0, &docs, NULL, err))
      goto done;
   if (!cmd_dry_run (ctx) && bson_empty (&docs)) {
      sh_error_set (err, SH_ERR_SERVER, "Error running $collStats aggregation stage on %s.%s", call->db, call->coll);
      goto done;
   }
   bson_destroy (&colls);
   if (!conn_run_docs (ctx, reqs.v[1].db, &reqs.v[1].cmd, reqs.v[1].path, 1, &colls, NULL, err))
      goto done;
   ok = true;
   if (cmd_dry_run (ctx))
      goto done;
   db_coll_stats_result (call, &docs, !bson_empty (&colls), scale, details, only, &result);
   sh_result_set_doc (res, &result);
done:
   bson_destroy (&docs);
   bson_destroy (&colls);
   bson_destroy (&result);
   sh_requests_destroy (&reqs);
   return ok;
}

/* ---- dataSize, storageSize, totalIndexSize, totalSize ---- */

/* The storageStats field a size helper sums: dataSize() reads size, the others their own name. */
static const char *
size_stat_key (const sh_call_t *call)
{
   const char *m = strrchr (call->cmd->name, '.');
   m = m ? m + 1 : call->cmd->name;
   return !strcmp (m, "dataSize") ? "size" : m;
}

/* mongosh's _getSingleStorageStatValue: { aggregate: <coll>, pipeline: [ { $collStats: { storageStats: {} } },
 * { $group: { _id: null, value: { $sum: "$storageStats.<key>" } } } ], cursor: {} } */
static bool
build_size_stat (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t *cmd, pipeline, stage, inner, ss;
   char *path = bson_strdup_printf ("$storageStats.%s", size_stat_key (call));
   (void) err;
   cmd = sh_requests_add (out, call->db, CONN_READ);
   BSON_APPEND_UTF8 (cmd, "aggregate", call->coll);
   BSON_APPEND_ARRAY_BEGIN (cmd, "pipeline", &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "0", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$collStats", &inner);
   cmd_append_empty (&inner, "storageStats");
   bson_append_document_end (&stage, &inner);
   bson_append_document_end (&pipeline, &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "1", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$group", &inner);
   BSON_APPEND_NULL (&inner, "_id");
   BSON_APPEND_DOCUMENT_BEGIN (&inner, "value", &ss);
   BSON_APPEND_UTF8 (&ss, "$sum", path);
   bson_append_document_end (&inner, &ss);
   bson_append_document_end (&stage, &inner);
   bson_append_document_end (&pipeline, &stage);
   bson_append_array_end (cmd, &pipeline);
   cmd_append_empty (cmd, "cursor");
   bson_free (path);
   return true;
}

/* The value of the one document the pipeline returns (a number), as mongosh returns it. */
static bool
exec_size_stat (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   sh_requests_t reqs = { .n = 0 };
   bson_t docs = BSON_INITIALIZER, first;
   bson_iter_t it, v;
   bool ok = false;
   if (!sh_requests_build (call, &reqs, err) ||
       !conn_run_docs (ctx, reqs.v[0].db, &reqs.v[0].cmd, reqs.v[0].path, 0, &docs, NULL, err))
      goto done;
   ok = true;
   if (cmd_dry_run (ctx))
      goto done;
   if (!bson_iter_init (&it, &docs) || !bson_iter_next (&it) || !docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &first) ||
       !bson_iter_init_find (&v, &first, "value")) {
      sh_error_set (err, SH_ERR_SERVER, "Error running $collStats aggregation stage on %s.%s", call->db, call->coll);
      ok = false;
      goto done;
   }
   sh_result_set_value (res, bson_iter_value (&v));
done:
   bson_destroy (&docs);
   sh_requests_destroy (&reqs);
   return ok;
}

#define SIZE_STAT_ENTRY(sym, method, what, key)                                                                        \
   const sh_cmd_t sym = {                                                                                              \
      .name = "db.collection." method,                                                                                 \
      .usage = "db.<collection>." method "()",                                                                         \
      .summary = what ", summed over the shards (bytes)",                                                              \
      .sends = "<db> { aggregate: <coll>, pipeline: [ { $collStats: { storageStats: {} } }, { $group: { _id: null, "   \
               "value: { $sum: \"$storageStats." key "\" } } } ], cursor: {} }",                                       \
      .example = "db.getSiblingDB(\"app\").users." method "()",                                                        \
      .flags = CMD_READONLY,                                                                                           \
      .build = build_size_stat,                                                                                        \
      .exec = exec_size_stat,                                                                                          \
   }

SIZE_STAT_ENTRY (cmd_db_coll_data_size, "dataSize", "The collection's uncompressed data size", "size");
SIZE_STAT_ENTRY (cmd_db_coll_storage_size, "storageSize", "The collection's storage on disk", "storageSize");
SIZE_STAT_ENTRY (cmd_db_coll_total_index_size, "totalIndexSize", "The size of the collection's indexes",
                 "totalIndexSize");
SIZE_STAT_ENTRY (cmd_db_coll_total_size, "totalSize", "The collection's storage and indexes together", "totalSize");

/* ---- entry ---- */

const sh_cmd_t cmd_db_coll_stats = {
   .name = "db.collection.stats",
   .usage = "db.<collection>.stats([scale | options])",
   .summary = "The collection's sizes, counts and indexes summed over its shards, with each shard's own",
   .sends = "<db> { aggregate: <coll>, pipeline: [ { $collStats: { storageStats: { scale: 1 } } } ], cursor: {} } "
            "then config { find: \"collections\", filter: { _id: { $in: [ <ns> ] }, dropped: { $ne: true }, "
            "unsplittable: { $ne: true } }, limit: 1 }",
   .example = "db.getSiblingDB(\"app\").users.stats(1024)",
   .flags = CMD_READONLY,
   .build = build_coll_stats,
   .exec = exec_coll_stats,
};
