/* sh.printShardingSizes(), a helper shardsh brings back from the legacy shell: per sharded collection (from
 * config.collections), its data size, documents and storage on each shard from one $collStats aggregate. */
#include <string.h>

#include "commands/table.h"
#include "commands/exec.h"
#include "shell/lib/docget.h"
#include "commands/status.h"

/* Runs cmd (destroyed here) as a cursor command on db and replaces *docs with all its documents. */
static bool
sizes_run_docs (sh_ctx_t *ctx, const char *db, bson_t *cmd, bson_t *docs, sh_error_t *err)
{
   bool ok;
   bson_destroy (docs);
   ok = conn_run_docs (ctx, db, cmd, CONN_READ, 0, docs, NULL, err);
   bson_destroy (cmd);
   return ok;
}

static bool
exec_print_sharding_sizes (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t colls = BSON_INITIALIZER, stats = BSON_INITIALIZER, result = BSON_INITIALIZER, *cmd;
   bson_iter_t it;
   char *db = NULL;
   bool ok = false;
   (void) call;

   cmd = BCON_NEW ("find", BCON_UTF8 ("collections"), "filter", "{", "dropped", "{", "$ne", BCON_BOOL (true), "}",
                   "unsplittable", "{", "$ne", BCON_BOOL (true), "}", "}", "sort", "{", "_id", BCON_INT32 (1), "}");
   if (!sizes_run_docs (ctx, "config", cmd, &colls, err))
      goto done;
   bson_iter_init (&it, &colls);
   while (bson_iter_next (&it)) {
      bson_t c, entry;
      bson_iter_t id, st;
      const char *ns, *dot;
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &c) || !bson_iter_init_find (&id, &c, "_id") ||
          !BSON_ITER_HOLDS_UTF8 (&id))
         continue;
      ns = bson_iter_utf8 (&id, NULL);
      dot = strchr (ns, '.');
      if (!dot)
         continue;
      bson_free (db);
      db = bson_strndup (ns, (size_t) (dot - ns));
      cmd = BCON_NEW ("aggregate", BCON_UTF8 (dot + 1), "pipeline", "[", "{", "$collStats", "{", "storageStats", "{",
                      "}", "}", "}", "]", "cursor", "{", "}");
      if (!sizes_run_docs (ctx, db, cmd, &stats, err))
         goto done;
      BSON_APPEND_DOCUMENT_BEGIN (&result, ns, &entry);
      bson_iter_init (&st, &stats);
      while (bson_iter_next (&st)) {
         bson_t sd, row;
         bson_iter_t f;
         char buf[64];
         const char *shard = "?";
         if (!docget_iter_sub (&st, BSON_TYPE_DOCUMENT, &sd))
            continue;
         if (bson_iter_init_find (&f, &sd, "shard") && BSON_ITER_HOLDS_UTF8 (&f))
            shard = bson_iter_utf8 (&f, NULL);
         BSON_APPEND_DOCUMENT_BEGIN (&entry, shard, &row);
         cmd_format_bytes (docget_double (&sd, "storageStats.size", 0, NULL), buf, sizeof buf);
         BSON_APPEND_UTF8 (&row, "data", buf);
         cmd_append_number (&row, "docs", docget_double (&sd, "storageStats.count", 0, NULL));
         cmd_format_bytes (docget_double (&sd, "storageStats.storageSize", 0, NULL), buf, sizeof buf);
         BSON_APPEND_UTF8 (&row, "storage", buf);
         bson_append_document_end (&entry, &row);
      }
      bson_append_document_end (&result, &entry);
   }
   if (!cmd_dry_run (ctx))
      sh_result_take_stats (res, &result, NULL);
   ok = true;
done:
   bson_free (db);
   bson_destroy (&colls);
   bson_destroy (&stats);
   bson_destroy (&result);
   return ok;
}

const sh_cmd_t cmd_sh_print_sharding_sizes = {
   .name = "sh.printShardingSizes",
   .usage = "sh.printShardingSizes()",
   .summary = "Data size, documents and storage of every sharded collection on each shard",
   .sends = "config { find: \"collections\", filter: { dropped: { $ne: true }, unsplittable: { $ne: true } }, sort: "
            "{ _id: 1 } }; per collection <db> { aggregate: <coll>, pipeline: [ { $collStats: { storageStats: {} } } "
            "], cursor: {} }",
   .example = "sh.printShardingSizes()",
   .flags = CMD_READONLY | CMD_MONGOS_CHECK | CMD_EXTRA,
   .build = status_build,
   .exec = exec_print_sharding_sizes,
};
