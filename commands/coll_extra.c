/* Collection methods of mongosh's shell API beyond reads and writes: findOneAndDelete and findOneAndReplace (the
 * findAndModify of writes.c), the index lists getIndexSpecs, getIndices and getIndexKeys, isCapped and exists (a
 * listCollections on the name), runCommand(name, options), latencyStats (a $collStats aggregate) and reIndex, each
 * sending what mongosh 2.12 sends (its collection.ts) and answering with what it returns. */
#include <string.h>

#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"
#include "commands/exec.h"
#include "commands/result.h"
#include "commands/writes.h"
#include "shell/core/readcmds.h"
#include "shell/lib/docget.h"

static bool
build_find_one_and_delete (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return writes_build_find_and_modify (call, out, WRITES_FAM_DELETE, err);
}

static bool
build_find_one_and_replace (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return writes_build_find_and_modify (call, out, WRITES_FAM_REPLACE, err);
}

/* findAndModify answers { lastErrorObject, value, ok }: the value (a document, or null) is the method's. */
static bool
exec_find_and_modify (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t reply;
   bson_iter_t it;
   bool ok = cmd_run_build (ctx, call, &reply, err);
   if (ok && !cmd_dry_run (ctx)) {
      bson_value_t null = { .value_type = BSON_TYPE_NULL };
      sh_result_set_value (res, bson_iter_init_find (&it, &reply, "value") ? bson_iter_value (&it) : &null);
   }
   bson_destroy (&reply);
   return ok;
}

/* { listIndexes: <coll>, cursor: {} }: the driver's listIndexes, as getIndexes sends it */
static bool
build_list_indexes (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t *cmd = sh_requests_add (out, call->db, CONN_READ);
   (void) err;
   BSON_APPEND_UTF8 (cmd, "listIndexes", call->coll);
   cmd_append_empty (cmd, "cursor");
   return true;
}

/* getIndexKeys(): the key of each index, in listIndexes' order */
static bool
exec_index_keys (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t docs, keys = BSON_INITIALIZER;
   bson_iter_t it;
   uint32_t n = 0;
   bool ok = cmd_run_build_docs (ctx, call, 0, &docs, NULL, err);
   if (ok && !cmd_dry_run (ctx)) {
      for (bson_iter_init (&it, &docs); bson_iter_next (&it);) {
         bson_t spec, key;
         char idx[16];
         const char *k;
         if (!BSON_ITER_HOLDS_DOCUMENT (&it))
            continue;
         bson_uint32_to_string (n++, &k, idx, sizeof idx);
         if (docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &spec) && docget_sub (&spec, "key", BSON_TYPE_DOCUMENT, &key))
            BSON_APPEND_DOCUMENT (&keys, k, &key);
      }
      sh_result_set_array (res, &keys);
   }
   bson_destroy (&keys);
   bson_destroy (&docs);
   return ok;
}

/* { listCollections: 1, filter: { name: <coll> }, cursor: {}, nameOnly: false, authorizedCollections: false }: the
 * driver's listCollections as mongosh's isCapped and exists send it */
static bool
build_list_self (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t *cmd = sh_requests_add (out, call->db, CONN_READ), filter;
   (void) err;
   BSON_APPEND_INT32 (cmd, "listCollections", 1);
   BSON_APPEND_DOCUMENT_BEGIN (cmd, "filter", &filter);
   BSON_APPEND_UTF8 (&filter, "name", call->coll);
   bson_append_document_end (cmd, &filter);
   cmd_append_empty (cmd, "cursor");
   BSON_APPEND_BOOL (cmd, "nameOnly", false);
   BSON_APPEND_BOOL (cmd, "authorizedCollections", false);
   return true;
}

/* exists(): the collection's listCollections entry, or null; isCapped(): its options.capped as a boolean, an error
 * when there is no such collection (mongosh's MongoshRuntimeError) */
static bool
exec_list_self (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t docs, info;
   bool capped = !strcmp (call->cmd->name, "db.collection.isCapped");
   bool ok = cmd_run_build_docs (ctx, call, 1, &docs, NULL, err);
   if (ok && !cmd_dry_run (ctx)) {
      bool found = cmd_first_doc (&docs, &info);
      bson_value_t v = { .value_type = BSON_TYPE_NULL };
      if (capped && !found) {
         sh_error_set_at (err, SH_ERR_USAGE, call->pos, "MongoshRuntimeError: collection %s.%s not found", call->db,
                          call->coll);
         ok = false;
      } else if (capped) {
         v.value_type = BSON_TYPE_BOOL;
         v.value.v_bool = docget_truthy (&info, "options.capped");
         sh_result_set_value (res, &v);
      } else if (found) {
         v.value_type = BSON_TYPE_DOCUMENT;
         v.value.v_doc.data = (uint8_t *) bson_get_data (&info);
         v.value.v_doc.data_len = info.len;
         sh_result_set_value (res, &v);
      } else {
         sh_result_set_value (res, &v);
      }
   }
   bson_destroy (&docs);
   return ok;
}

/* runCommand(name[, options]): { <name>: <coll>, ...options }; runCommand(document) sends the document. mongosh's
 * checks: a name string, not repeated among the options. Appends the command to cmd. */
static bool
coll_command (const sh_call_t *call, bson_t *cmd, sh_error_t *err)
{
   bson_iter_t it;
   bson_t opts, base = BSON_INITIALIZER;
   if (!args_check (call, 0, ARG_STRING | ARG_OBJECT, true, "Collection", "runCommand", err))
      return false;
   args_get (call, 0, &it);
   if (BSON_ITER_HOLDS_DOCUMENT (&it)) {
      bson_t doc;
      if (docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &doc))
         args_adjust_run_command (cmd, &doc);
      return true;
   }
   if (!BSON_ITER_HOLDS_UTF8 (&it)) {
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0),
                       "[COMMON-10001] Collection.runCommand takes a command string as its first arugment");
      return false;
   }
   if (args_doc (call, 1, &opts) && bson_has_field (&opts, bson_iter_utf8 (&it, NULL))) {
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 1),
                       "[COMMON-10001] The \"commandName\" argument cannot be passed as an option to \"runCommand\".");
      return false;
   }
   /* the pre-flight asks readonly_if of a call it read from the script's text: without its collection */
   BSON_APPEND_UTF8 (&base, bson_iter_utf8 (&it, NULL), call->coll ? call->coll : "");
   args_spread_run_command (call, 1, &base, cmd);
   bson_destroy (&base);
   return true;
}

static bool
build_run_command (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t cmd = BSON_INITIALIZER;
   bool ok = coll_command (call, &cmd, err);
   if (ok)
      bson_concat (sh_requests_add (out, call->db, CONN_ADMIN), &cmd);
   bson_destroy (&cmd);
   return ok;
}

/* a command that only reads (shell/core/readcmds.c's list) lets --readonly through */
static bool
run_command_is_readonly (const sh_call_t *call)
{
   bson_t cmd = BSON_INITIALIZER;
   sh_error_t err;
   bool ro;
   sh_error_clear (&err);
   ro = coll_command (call, &cmd, &err) && readcmds_command (&cmd);
   bson_destroy (&cmd);
   return ro;
}

/* latencyStats([options]): { aggregate: <coll>, pipeline: [ { $collStats: { latencyStats: <options> } } ], cursor: {}
 * }, its documents as an array (mongosh's toArray) */
static bool
build_latency_stats (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t *cmd, pipeline, stage, spec;
   bson_iter_t it;
   if (!args_check (call, 0, ARG_OBJECT, false, "Collection", "latencyStats", err))
      return false;
   cmd = sh_requests_add (out, call->db, CONN_READ);
   BSON_APPEND_UTF8 (cmd, "aggregate", call->coll);
   BSON_APPEND_ARRAY_BEGIN (cmd, "pipeline", &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "0", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$collStats", &spec);
   if (args_get (call, 0, &it))
      args_append (call, 0, &spec, "latencyStats");
   else
      cmd_append_empty (&spec, "latencyStats");
   bson_append_document_end (&stage, &spec);
   bson_append_document_end (&pipeline, &stage);
   bson_append_array_end (cmd, &pipeline);
   cmd_append_empty (cmd, "cursor");
   return true;
}

static bool
exec_docs (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t docs;
   bool ok = cmd_run_build_docs (ctx, call, 0, &docs, NULL, err);
   if (ok && !cmd_dry_run (ctx))
      sh_result_set_array (res, &docs);
   bson_destroy (&docs);
   return ok;
}

/* reIndex(): { reIndex: <coll> }, which a mongos does not have (CommandNotFound), as mongosh sends it anyway */
static bool
build_re_index (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   (void) err;
   BSON_APPEND_UTF8 (sh_requests_add (out, call->db, CONN_ADMIN), "reIndex", call->coll);
   return true;
}

const sh_cmd_t cmd_db_coll_find_one_and_delete = {
   .name = "db.collection.findOneAndDelete",
   .usage = "db.<collection>.findOneAndDelete(filter[, options])",
   .summary = "Delete one document and print it; options: sort, projection, collation, hint, maxTimeMS, writeConcern",
   .sends = "<db> { findAndModify: <coll>, query: <filter>, remove: true, new: false, upsert: false[, sort][, fields]"
            "[, maxTimeMS][, writeConcern][, collation][, hint] }",
   .example = "db.getSiblingDB(\"app\").notes.findOneAndDelete({_id: 1})",
   .build = build_find_one_and_delete,
   .exec = exec_find_and_modify,
};
const sh_cmd_t cmd_db_coll_find_one_and_replace = {
   .name = "db.collection.findOneAndReplace",
   .usage = "db.<collection>.findOneAndReplace(filter, replacement[, options])",
   .summary = "Replace one document and print it (before the replacement unless returnDocument: \"after\"); "
              "options: upsert, sort, projection, collation, hint, writeConcern",
   .sends = "<db> { findAndModify: <coll>, query: <filter>, remove: false, new: <bool>, upsert: <bool>[, sort]"
            "[, fields], update: <replacement> }",
   .example = "db.getSiblingDB(\"app\").notes.findOneAndReplace({_id: 1}, {text: \"done\"})",
   .build = build_find_one_and_replace,
   .exec = exec_find_and_modify,
};
const sh_cmd_t cmd_db_coll_get_index_specs = {
   .name = "db.collection.getIndexSpecs",
   .usage = "db.<collection>.getIndexSpecs()",
   .summary = "The collection's indexes (getIndexes' other name)",
   .sends = "<db> { listIndexes: <coll>, cursor: {} }",
   .example = "db.getSiblingDB(\"app\").users.getIndexSpecs()",
   .flags = CMD_READONLY,
   .build = build_list_indexes,
   .exec = cmd_exec_cursor,
};
const sh_cmd_t cmd_db_coll_get_indices = {
   .name = "db.collection.getIndices",
   .usage = "db.<collection>.getIndices()",
   .summary = "The collection's indexes (getIndexes' other name)",
   .sends = "<db> { listIndexes: <coll>, cursor: {} }",
   .example = "db.getSiblingDB(\"app\").users.getIndices()",
   .flags = CMD_READONLY,
   .build = build_list_indexes,
   .exec = cmd_exec_cursor,
};
const sh_cmd_t cmd_db_coll_get_index_keys = {
   .name = "db.collection.getIndexKeys",
   .usage = "db.<collection>.getIndexKeys()",
   .summary = "The key pattern of each of the collection's indexes",
   .sends = "<db> { listIndexes: <coll>, cursor: {} }",
   .example = "db.getSiblingDB(\"app\").users.getIndexKeys()",
   .flags = CMD_READONLY,
   .build = build_list_indexes,
   .exec = exec_index_keys,
};
const sh_cmd_t cmd_db_coll_is_capped = {
   .name = "db.collection.isCapped",
   .usage = "db.<collection>.isCapped()",
   .summary = "Whether the collection is capped (an error when it does not exist)",
   .sends = "<db> { listCollections: 1, filter: { name: <coll> }, cursor: {}, nameOnly: false, "
            "authorizedCollections: false }",
   .example = "db.getSiblingDB(\"app\").users.isCapped()",
   .flags = CMD_READONLY,
   .build = build_list_self,
   .exec = exec_list_self,
};
const sh_cmd_t cmd_db_coll_exists = {
   .name = "db.collection.exists",
   .usage = "db.<collection>.exists()",
   .summary = "The collection's listCollections entry (name, type, options, info), or null when it does not exist",
   .sends = "<db> { listCollections: 1, filter: { name: <coll> }, cursor: {}, nameOnly: false, "
            "authorizedCollections: false }",
   .example = "db.getSiblingDB(\"app\").users.exists()",
   .flags = CMD_READONLY,
   .build = build_list_self,
   .exec = exec_list_self,
};
const sh_cmd_t cmd_db_coll_run_command = {
   .name = "db.collection.runCommand",
   .usage = "db.<collection>.runCommand(name[, options])",
   .summary = "Run the command name on the collection: { <name>: <collection>, ...options }",
   .sends = "<db> { <name>: <coll>, ...<options> }",
   .example = "db.getSiblingDB(\"app\").users.runCommand(\"count\", {query: {uid: 1}})",
   .build = build_run_command,
   .readonly_if = run_command_is_readonly,
};
const sh_cmd_t cmd_db_coll_latency_stats = {
   .name = "db.collection.latencyStats",
   .usage = "db.<collection>.latencyStats([options])",
   .summary = "Read, write and command latency of the collection on each shard; options: { histograms: true }",
   .sends = "<db> { aggregate: <coll>, pipeline: [ { $collStats: { latencyStats: <options> } } ], cursor: {} }",
   .example = "db.getSiblingDB(\"app\").users.latencyStats()",
   .flags = CMD_READONLY,
   .build = build_latency_stats,
   .exec = exec_docs,
};
const sh_cmd_t cmd_db_coll_re_index = {
   .name = "db.collection.reIndex",
   .usage = "db.<collection>.reIndex()",
   .summary = "Rebuild the collection's indexes: a standalone server's command, which a mongos refuses",
   .sends = "<db> { reIndex: <coll> }",
   .example = "db.getSiblingDB(\"app\").users.reIndex()",
   .build = build_re_index,
};
