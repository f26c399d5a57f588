/* Reads on collections, for config.* and user data: db.<coll>.find(filter, projection) with .sort/.skip/.limit,
 * findOne, countDocuments, count, distinct, aggregate and getIndexes. Documents are built the way the Node driver
 * under mongosh builds them (find, filter, sort, projection, skip, limit). */
#include <string.h>

#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"
#include "shell/core/readcmds.h"
#include "commands/exec.h"
#include "commands/result.h"
#include "shell/lib/docget.h"

#define CRUD_DEFAULT_BATCH 20 /* like mongosh's shell batch size */

static bool
check_doc_arg (const sh_call_t *call, int i, bool required, const char *method, sh_error_t *err)
{
   return args_check (call, i, ARG_OBJECT, required, "Collection", method, err);
}

/* Appends modifier key of the chain (call->modifiers) under key when it was given. */
static void
append_modifier (const sh_call_t *call, const char *key, bson_t *cmd)
{
   bson_iter_t it;
   if (call->modifiers && bson_iter_init_find (&it, call->modifiers, key))
      bson_append_value (cmd, key, -1, bson_iter_value (&it));
}

/* find(...).count() / .size(): the count command mongosh's cursor sends, with the chain's limit, skip, hint,
 * maxTimeMS and collation. */
static void
build_cursor_count (const sh_call_t *call, bson_t *cmd)
{
   bson_iter_t it;
   BSON_APPEND_UTF8 (cmd, "count", call->coll);
   if (args_get (call, 0, &it))
      args_append (call, 0, cmd, "query");
   else
      cmd_append_empty (cmd, "query");
   if (call->limit)
      BSON_APPEND_INT32 (cmd, "limit", (int32_t) call->limit);
   if (call->skip)
      BSON_APPEND_INT32 (cmd, "skip", (int32_t) call->skip);
   /* the driver's count keeps these of the cursor's options (not comment, batchSize or the rest) */
   append_modifier (call, "hint", cmd);
   append_modifier (call, "maxTimeMS", cmd);
   append_modifier (call, "collation", cmd);
}

static bool
build_find_common (const sh_call_t *call, sh_requests_t *out, const char *method, bool one, sh_error_t *err)
{
   /* the driver's order (makeFindCommand), then the options its command base appends */
   static const char *const late[] = { "comment",
                                       "max",
                                       "min",
                                       "returnKey",
                                       "showRecordId",
                                       "tailable",
                                       "oplogReplay",
                                       "noCursorTimeout",
                                       "awaitData",
                                       "allowPartialResults",
                                       "allowDiskUse",
                                       "readConcern",
                                       "collation",
                                       "maxTimeMS",
                                       NULL };
   bson_iter_t it;
   bson_t *cmd;
   if (!check_doc_arg (call, 0, false, method, err) || !check_doc_arg (call, 1, false, method, err))
      return false;
   cmd = sh_requests_add (out, call->db, CONN_READ);
   if (call->terminal && strcmp (call->terminal, "itcount") != 0) {
      build_cursor_count (call, cmd);
      return true;
   }
   BSON_APPEND_UTF8 (cmd, "find", call->coll);
   if (args_get (call, 0, &it))
      args_append (call, 0, cmd, "filter");
   else
      cmd_append_empty (cmd, "filter");
   if (call->sort)
      BSON_APPEND_DOCUMENT (cmd, "sort", call->sort);
   if (args_get (call, 1, &it))
      args_append (call, 1, cmd, "projection");
   else
      append_modifier (call, "projection", cmd);
   append_modifier (call, "hint", cmd);
   if (call->skip)
      BSON_APPEND_INT32 (cmd, "skip", (int32_t) call->skip);
   if (one)
      BSON_APPEND_INT32 (cmd, "limit", 1);
   else if (call->limit)
      BSON_APPEND_INT32 (cmd, "limit", (int32_t) call->limit);
   /* the Node driver asks for one more than a limit equal to the batch size, so the server closes the cursor */
   if (!one && call->batch_size > 0)
      BSON_APPEND_INT32 (cmd, "batchSize",
                         (int32_t) (call->batch_size == call->limit ? call->batch_size + 1 : call->batch_size));
   for (int i = 0; late[i]; i++)
      append_modifier (call, late[i], cmd);
   return true;
}

static bool
build_find (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return build_find_common (call, out, "find", false, err);
}

static bool
build_find_one (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return build_find_common (call, out, "findOne", true, err);
}

static bool
build_aggregate (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_iter_t it;
   bson_t *cmd, opts;
   bool have_opts;
   if (!check_doc_arg (call, 0, true, "aggregate", err))
      return false;
   if (!args_get (call, 0, &it) || !BSON_ITER_HOLDS_ARRAY (&it)) {
      sh_error_set_at (err, SH_ERR_ARGS, call->arg_pos ? call->arg_pos[0] : call->pos,
                       "aggregate needs a pipeline array such as [ { $match: {} } ]");
      return false;
   }
   if (!check_doc_arg (call, 1, false, "aggregate", err))
      return false;
   have_opts = args_doc (call, 1, &opts);
   if (!args_opt_int (call, 1, "batchSize", 0, INT32_MAX, NULL, err) ||
       !args_opt_int (call, 1, "maxTimeMS", 0, INT32_MAX, NULL, err))
      return false;
   /* the driver's order: allowDiskUse, hint, comment, cursor { batchSize }, maxTimeMS */
   cmd = sh_requests_add (out, call->db, CONN_READ);
   BSON_APPEND_UTF8 (cmd, "aggregate", call->coll);
   args_append (call, 0, cmd, "pipeline");
   if (have_opts) {
      if (bson_iter_init_find (&it, &opts, "allowDiskUse"))
         BSON_APPEND_VALUE (cmd, "allowDiskUse", bson_iter_value (&it));
      if (bson_iter_init_find (&it, &opts, "hint"))
         BSON_APPEND_VALUE (cmd, "hint", bson_iter_value (&it));
      if (bson_iter_init_find (&it, &opts, "comment"))
         BSON_APPEND_VALUE (cmd, "comment", bson_iter_value (&it));
   }
   if (have_opts && bson_iter_init_find (&it, &opts, "batchSize")) {
      bson_t cursor;
      BSON_APPEND_DOCUMENT_BEGIN (cmd, "cursor", &cursor);
      BSON_APPEND_VALUE (&cursor, "batchSize", bson_iter_value (&it));
      bson_append_document_end (cmd, &cursor);
   } else if (call->batch_size > 0) {
      bson_t cursor;
      BSON_APPEND_DOCUMENT_BEGIN (cmd, "cursor", &cursor);
      BSON_APPEND_INT32 (&cursor, "batchSize", (int32_t) call->batch_size);
      bson_append_document_end (cmd, &cursor);
   } else {
      cmd_append_empty (cmd, "cursor");
   }
   if (have_opts && bson_iter_init_find (&it, &opts, "maxTimeMS"))
      BSON_APPEND_VALUE (cmd, "maxTimeMS", bson_iter_value (&it));
   else
      append_modifier (call, "maxTimeMS", cmd); /* the cursor's .maxTimeMS(n) (the engine's aggregate cursor) */
   return true;
}

static bool
build_count_documents (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_iter_t it;
   bson_t *cmd, pipeline, stage;
   if (!check_doc_arg (call, 0, false, "countDocuments", err))
      return false;
   cmd = sh_requests_add (out, call->db, CONN_READ);
   BSON_APPEND_UTF8 (cmd, "aggregate", call->coll);
   BSON_APPEND_ARRAY_BEGIN (cmd, "pipeline", &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "0", &stage);
   if (args_get (call, 0, &it))
      args_append (call, 0, &stage, "$match");
   else
      cmd_append_empty (&stage, "$match");
   bson_append_document_end (&pipeline, &stage);
   cmd_append_count_stage (&pipeline, "1");
   bson_append_array_end (cmd, &pipeline);
   cmd_append_empty (cmd, "cursor");
   return true;
}

static bool
build_distinct (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_iter_t it;
   bson_t *cmd;
   if (!args_check (call, 0, ARG_STRING, true, "Collection", "distinct", err) ||
       !check_doc_arg (call, 1, false, "distinct", err))
      return false;
   cmd = sh_requests_add (out, call->db, CONN_READ);
   BSON_APPEND_UTF8 (cmd, "distinct", call->coll);
   args_append (call, 0, cmd, "key");
   if (args_get (call, 1, &it))
      args_append (call, 1, cmd, "query");
   else
      cmd_append_empty (cmd, "query");
   return true;
}

static bool
build_get_indexes (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t *cmd = sh_requests_add (out, call->db, CONN_READ);
   (void) err;
   BSON_APPEND_UTF8 (cmd, "listIndexes", call->coll);
   cmd_append_empty (cmd, "cursor");
   return true;
}

bool
cmd_cursor_read (conn_cursor_t *c, size_t max, bson_t *docs, bool *more, sh_error_t *err)
{
   const bson_t *doc;
   size_t n = 0;
   int r = 1;
   bson_init (docs);
   while (n < max && (r = conn_cursor_next (c, &doc, err)) == 1) {
      char key[16];
      const char *k;
      bson_uint32_to_string ((uint32_t) n, &k, key, sizeof key);
      bson_append_document (docs, k, -1, doc);
      n++;
   }
   *more = r >= 0 && conn_cursor_more (c);
   return r >= 0;
}

/* find and aggregate as mongosh runs them: a live cursor, of which a statement prints the first 20 documents; the
 * cursor stays the session's current one while it has more ("it" continues it) and is killed when replaced. For the
 * engine (res->want_cursor) the cursor is handed over unread. */
static bool
exec_live_cursor (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   sh_requests_t reqs = { .n = 0 };
   conn_cursor_t *c;
   bson_t docs;
   bool more = false, ok = false;
   bool find = !strcmp (call->cmd->name, "db.collection.find");
   int64_t batch = call->batch_size;

   if (!sh_requests_build (call, &reqs, err))
      goto done;
   if (!batch) {
      /* aggregate(pipeline, { batchSize }): the driver sends that batch size on every getMore too */
      bson_iter_t it, f;
      if (bson_iter_init_find (&it, &reqs.v[0].cmd, "cursor") && BSON_ITER_HOLDS_DOCUMENT (&it) &&
          bson_iter_recurse (&it, &f) && bson_iter_find (&f, "batchSize") && BSON_ITER_HOLDS_NUMBER (&f))
         batch = bson_iter_as_int64 (&f);
   }
   c = conn_cursor_open (ctx, reqs.v[0].db, &reqs.v[0].cmd, reqs.v[0].path, batch, find ? call->limit : 0, err);
   if (!c)
      goto done;
   ok = true;
   if (res->want_cursor) {
      sh_result_set_cursor (res, c);
      goto done;
   }
   conn_cursor_free (ctx->cursor);
   ctx->cursor = NULL;
   ctx->cursor_fresh = true;
   if (cmd_dry_run (ctx)) {
      conn_cursor_free (c);
      goto done;
   }
   ok = cmd_cursor_read (c, CMD_CURSOR_BATCH, &docs, &more, err);
   if (ok)
      sh_result_set_batch (res, &docs, more, false);
   bson_destroy (&docs);
   if (ok && more)
      ctx->cursor = c;
   else
      conn_cursor_free (c);
done:
   sh_requests_destroy (&reqs);
   return ok;
}

/* Runs the one cursor request; its result is the documents: a list, or the single document (null when none) for
 * findOne, or the count for countDocuments. */
static bool
exec_cursor (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t docs;
   bson_iter_t it;
   bool more = false, ok = false;
   const char *name = call->cmd->name;
   /* a result taken as a value (the JavaScript engine's cursors) holds every document: the engine pages them itself */
   size_t max =
      call->limit ? (size_t) call->limit : (ctx->out.mode == OUTPUT_JSON || res->as_value ? 0 : CRUD_DEFAULT_BATCH);

   if (!call->terminal && (!strcmp (name, "db.collection.find") || !strcmp (name, "db.collection.aggregate")) &&
       (res->want_cursor || (!res->as_value && ctx->out.mode != OUTPUT_JSON)))
      return exec_live_cursor (ctx, call, res, err);
   if (call->terminal && strcmp (call->terminal, "itcount") != 0) {
      /* count()/size(): a count command, not a cursor; its reply's n (a number: an Int32 when it fits, as a count
       * beyond one from a server is no reason to fail, and a cast out of range would be undefined) */
      bson_value_t n = { .value_type = BSON_TYPE_INT32 };
      int64_t count;
      if (!cmd_run_build (ctx, call, &docs, err))
         goto done;
      count = docget_int (&docs, "n", 0);
      if (count >= INT32_MIN && count <= INT32_MAX) {
         n.value.v_int32 = (int32_t) count;
      } else {
         n.value_type = BSON_TYPE_DOUBLE;
         n.value.v_double = (double) count;
      }
      if (!cmd_dry_run (ctx))
         sh_result_set_value (res, &n);
      ok = true;
      goto done;
   }
   if (!cmd_run_build_docs (ctx, call, call->terminal ? 0 : max, &docs, &more, err))
      goto done;
   if (cmd_dry_run (ctx)) {
      ok = true;
      goto done;
   }
   if (call->terminal) {
      /* itcount(): how many documents the cursor gave */
      bson_value_t n = { .value_type = BSON_TYPE_INT32 };
      n.value.v_int32 = (int32_t) bson_count_keys (&docs);
      sh_result_set_value (res, &n);
   } else if (!strcmp (name, "db.collection.findOne")) {
      bson_value_t null_value = { .value_type = BSON_TYPE_NULL };
      if (bson_iter_init (&it, &docs) && bson_iter_next (&it))
         sh_result_set_value (res, bson_iter_value (&it));
      else
         sh_result_set_value (res, &null_value);
   } else if (!strcmp (name, "db.collection.countDocuments")) {
      bson_value_t n = { .value_type = BSON_TYPE_INT32 };
      bson_iter_t f;
      n.value.v_int32 = 0;
      if (bson_iter_init (&it, &docs) && bson_iter_next (&it) && bson_iter_recurse (&it, &f) &&
          bson_iter_find (&f, "n") && BSON_ITER_HOLDS_NUMBER (&f))
         n.value.v_int32 = (int32_t) bson_iter_as_int64 (&f);
      sh_result_set_value (res, &n);
   } else {
      sh_result_set_array (res, &docs);
      res->more = more;
   }
   ok = true;
done:
   bson_destroy (&docs);
   return ok;
}

/* distinct answers { values: [...] }: print the values as mongosh does. */
static bool
exec_distinct (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t reply, values;
   bool ok = cmd_run_build (ctx, call, &reply, err);

   if (ok && !cmd_dry_run (ctx) && docget_sub (&reply, "values", BSON_TYPE_ARRAY, &values))
      sh_result_set_array (res, &values);
   bson_destroy (&reply);
   return ok;
}

#define CRUD_ENTRY(var, nm, use, sum, snd, ex, b, e)                                                                   \
   const sh_cmd_t var = { .name = nm,                                                                                  \
                          .usage = use,                                                                                \
                          .summary = sum,                                                                              \
                          .sends = snd,                                                                                \
                          .example = ex,                                                                               \
                          .flags = CMD_READONLY,                                                                       \
                          .build = b,                                                                                  \
                          .exec = e }

CRUD_ENTRY (cmd_db_coll_find, "db.collection.find", "db.<collection>.find([filter][, projection])",
            "Read documents; chain .sort(doc), .skip(n), .limit(n), .hint(), .maxTimeMS(n), .collation(doc), "
            ".comment(), .allowDiskUse(), .min(doc), .max(doc), .readConcern(level), .projection(doc), "
            "and end with .count(), .size() or .itcount()",
            "<db> { find: <coll>, filter: <filter>[, sort][, projection][, hint][, skip][, limit]"
            "[, comment][, max][, min][, returnKey][, showRecordId][, oplogReplay][, noCursorTimeout][, allowDiskUse]"
            "[, readConcern][, collation][, maxTimeMS] }; .count(): "
            "{ count: <coll>, query: <filter> }",
            "db.getSiblingDB(\"config\").chunks.find({shard: \"shard01\"}).limit(5)", build_find, exec_cursor);
CRUD_ENTRY (cmd_db_coll_find_one, "db.collection.findOne", "db.<collection>.findOne([filter][, projection])",
            "Read one document (null when none matches)", "<db> { find: <coll>, filter: <filter>, limit: 1 }",
            "db.getSiblingDB(\"config\").settings.findOne({_id: \"balancer\"})", build_find_one, exec_cursor);
CRUD_ENTRY (cmd_db_coll_count_documents, "db.collection.countDocuments", "db.<collection>.countDocuments([filter])",
            "Count matching documents (an aggregate, as the driver does)",
            "<db> { aggregate: <coll>, pipeline: [ { $match: <filter> }, { $group: { _id: 1, n: { $sum: 1 } } } ], "
            "cursor: {} }",
            "db.getSiblingDB(\"config\").chunks.countDocuments({shard: \"shard01\"})", build_count_documents,
            exec_cursor);
/* a pipeline with $out or $merge writes: refused under --readonly like any write */
static bool
aggregate_is_readonly (const sh_call_t *call)
{
   bson_iter_t it;
   return !(args_get (call, 0, &it) && readcmds_pipeline_writes (&it));
}

const sh_cmd_t cmd_db_coll_aggregate = {
   .name = "db.collection.aggregate",
   .usage = "db.<collection>.aggregate(pipeline[, options])",
   .summary = "Run an aggregation pipeline and print its documents",
   .sends = "<db> { aggregate: <coll>, pipeline: <pipeline>[, allowDiskUse][, hint][, comment], cursor: {"
            "[ batchSize ]}[, maxTimeMS] }",
   .example = "db.getSiblingDB(\"config\").chunks.aggregate([{ $group: { _id: \"$shard\", n: { $sum: 1 } } }])",
   .flags = CMD_READONLY,
   .build = build_aggregate,
   .exec = exec_cursor,
   .readonly_if = aggregate_is_readonly,
};
CRUD_ENTRY (cmd_db_coll_distinct, "db.collection.distinct", "db.<collection>.distinct(field[, filter])",
            "The distinct values of a field", "<db> { distinct: <coll>, key: <field>, query: <filter> }",
            "db.getSiblingDB(\"config\").chunks.distinct(\"shard\")", build_distinct, exec_distinct);
CRUD_ENTRY (cmd_db_coll_get_indexes, "db.collection.getIndexes", "db.<collection>.getIndexes()",
            "The collection's indexes", "<db> { listIndexes: <coll>, cursor: {} }", "db.users.getIndexes()",
            build_get_indexes, exec_cursor);
