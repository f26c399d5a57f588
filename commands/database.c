/* Database methods operators use for health checks and stuck operations (currentOp, killOp, db.aggregate,
 * serverStatus, stats, version, serverBuildInfo, hello, getCollectionNames, getCollectionInfos, listCommands,
 * dropDatabase, createCollection) and the collection methods drop, renameCollection, getName, getFullName,
 * estimatedDocumentCount and count, each sending the document mongosh 2.12 sends and printing what it prints. */
#include <math.h>
#include <string.h>

#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"
#include "shell/core/readcmds.h"
#include "commands/exec.h"
#include "commands/writes.h"
#include "shell/lib/docget.h"

/* ---- currentOp / killOp ---- */

/* currentOp([filter | true]): { aggregate: 1, pipeline: [ { $currentOp: { allUsers, idleConnections, truncateOps:
 * false } }[, { $match: <filter minus $all and $ownOps> }] ], cursor: {} } on admin. A boolean argument is $all and
 * adds no $match. */
static bool
build_current_op (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_iter_t it, f;
   bson_t *cmd, pipeline, stage, spec, match, filter;
   bool all = false, own = false, is_bool = false, have_filter = false;
   if (!args_check (call, 0, ARG_OBJECT | ARG_BOOL, false, "Database", "currentOp", err))
      return false;
   if (args_get (call, 0, &it)) {
      if (BSON_ITER_HOLDS_BOOL (&it)) {
         is_bool = true;
         all = bson_iter_bool (&it);
      } else if (docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &filter)) {
         have_filter = true;
         if (bson_iter_init_find (&f, &filter, "$all"))
            all = bson_iter_as_bool (&f);
         if (bson_iter_init_find (&f, &filter, "$ownOps"))
            own = bson_iter_as_bool (&f);
      } else {
         sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0), "currentOp takes a filter document or true");
         return false;
      }
   }
   cmd = sh_requests_add (out, "admin", CONN_ADMIN);
   BSON_APPEND_INT32 (cmd, "aggregate", 1);
   BSON_APPEND_ARRAY_BEGIN (cmd, "pipeline", &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "0", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$currentOp", &spec);
   BSON_APPEND_BOOL (&spec, "allUsers", !own);
   BSON_APPEND_BOOL (&spec, "idleConnections", all);
   BSON_APPEND_BOOL (&spec, "truncateOps", false);
   bson_append_document_end (&stage, &spec);
   bson_append_document_end (&pipeline, &stage);
   if (!is_bool) {
      BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "1", &stage);
      BSON_APPEND_DOCUMENT_BEGIN (&stage, "$match", &match);
      if (have_filter && bson_iter_init (&f, &filter)) {
         while (bson_iter_next (&f)) {
            if (strcmp (bson_iter_key (&f), "$all") != 0 && strcmp (bson_iter_key (&f), "$ownOps") != 0)
               bson_append_value (&match, bson_iter_key (&f), -1, bson_iter_value (&f));
         }
      }
      bson_append_document_end (&stage, &match);
      bson_append_document_end (&pipeline, &stage);
   }
   bson_append_array_end (cmd, &pipeline);
   cmd_append_empty (cmd, "cursor");
   return true;
}

/* mongosh prints { inprog: [ ... ], ok: 1 }. */
static bool
exec_current_op (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t docs, result = BSON_INITIALIZER;
   bool ok = cmd_run_build_docs (ctx, call, 0, &docs, NULL, err);
   if (ok && !cmd_dry_run (ctx)) {
      BSON_APPEND_ARRAY (&result, "inprog", &docs);
      BSON_APPEND_INT32 (&result, "ok", 1);
      sh_result_set_doc (res, &result);
   }
   bson_destroy (&docs);
   bson_destroy (&result);
   return ok;
}

/* killOp(opid): { killOp: 1, op: <opid> } on admin; a mongos takes a number (its own operation, 32 bits, as the
 * server's parseOpId bounds it) or "shard:opid" (a shard's). */
static bool
build_kill_op (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_iter_t it;
   bson_t *cmd;
   if (!args_check (call, 0, ARG_NUMBER | ARG_STRING | ARG_OBJECT, true, "Database", "killOp", err))
      return false;
   args_get (call, 0, &it);
   if (BSON_ITER_HOLDS_UTF8 (&it)) {
      const char *s = bson_iter_utf8 (&it, NULL);
      const char *colon = strchr (s, ':');
      if (!colon || colon == s || !colon[1]) {
         sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0),
                          "killOp takes an opid number or \"<shard>:<opid>\" as currentOp shows it");
         return false;
      }
   } else if (!args_int (call, 0, INT32_MIN, INT32_MAX, "opid", NULL, err)) {
      return false;
   } else if (BSON_ITER_HOLDS_DOUBLE (&it) && bson_iter_double (&it) != floor (bson_iter_double (&it))) {
      /* the server takes an integral value only (bsonExtractIntegerField) */
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0), "%s: opid must be a whole number, got %g", call->cmd->name,
                       bson_iter_double (&it));
      return false;
   }
   cmd = sh_requests_add (out, "admin", CONN_ADMIN);
   BSON_APPEND_INT32 (cmd, "killOp", 1);
   args_append (call, 0, cmd, "op");
   return true;
}

/* ---- db.aggregate ---- */

static bool
build_db_aggregate (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_iter_t it;
   bson_t *cmd;
   if (!args_check (call, 0, ARG_OBJECT, true, "Database", "aggregate", err))
      return false;
   args_get (call, 0, &it);
   if (!BSON_ITER_HOLDS_ARRAY (&it)) {
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0),
                       "aggregate needs a pipeline array such as [ { $currentOp: {} } ]");
      return false;
   }
   cmd = sh_requests_add (out, call->db, CONN_READ);
   BSON_APPEND_INT32 (cmd, "aggregate", 1);
   args_append (call, 0, cmd, "pipeline");
   cmd_append_empty (cmd, "cursor");
   return true;
}

static bool
db_aggregate_is_readonly (const sh_call_t *call)
{
   bson_iter_t it;
   return !(args_get (call, 0, &it) && readcmds_pipeline_writes (&it));
}

/* ---- server and database documents ---- */

/* serverStatus([options]): { serverStatus: 1, ...options } on admin. */
static bool
build_server_status (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t base = BSON_INITIALIZER, opts;
   if (!args_check (call, 0, ARG_OBJECT, false, "Database", "serverStatus", err))
      return false;
   BSON_APPEND_INT32 (&base, "serverStatus", 1);
   args_spread (sh_requests_add (out, "admin", CONN_ADMIN), &base, args_doc (call, 0, &opts) ? &opts : NULL);
   bson_destroy (&base);
   return true;
}

/* stats([scale | options]): { dbStats: 1, scale: 1, ...options } on the database; scale a whole number >= 1. */
static bool
build_db_stats (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_iter_t it;
   bson_t base = BSON_INITIALIZER, opts, *cmd;
   bool have_opts = false;
   if (!args_check (call, 0, ARG_NUMBER | ARG_OBJECT, false, "Database", "stats", err))
      return false;
   if (args_get (call, 0, &it)) {
      if (BSON_ITER_HOLDS_NUMBER (&it)) {
         if (!args_int (call, 0, 1, INT32_MAX, "scale", NULL, err))
            goto fail;
      } else if (args_doc (call, 0, &opts)) {
         have_opts = true;
         if (!args_opt_int (call, 0, "scale", 1, INT32_MAX, NULL, err))
            goto fail;
      }
   }
   cmd = sh_requests_add (out, call->db, CONN_ADMIN);
   BSON_APPEND_INT32 (&base, "dbStats", 1);
   if (args_get (call, 0, &it) && BSON_ITER_HOLDS_NUMBER (&it))
      args_append (call, 0, &base, "scale");
   else
      BSON_APPEND_INT32 (&base, "scale", 1);
   args_spread (cmd, &base, have_opts ? &opts : NULL);
   bson_destroy (&base);
   return true;
fail:
   bson_destroy (&base);
   return false;
}

static bool
build_version (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   (void) call;
   (void) err;
   BSON_APPEND_INT32 (sh_requests_add (out, "admin", CONN_ADMIN), "buildInfo", 1);
   return true;
}

/* version() prints the server's version string. */
static bool
exec_version (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t reply;
   bson_iter_t it;
   bool ok = cmd_run_build (ctx, call, &reply, err);
   if (ok && !cmd_dry_run (ctx) && bson_iter_init_find (&it, &reply, "version"))
      sh_result_set_value (res, bson_iter_value (&it));
   bson_destroy (&reply);
   return ok;
}

static bool
build_hello (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   (void) err;
   BSON_APPEND_INT32 (sh_requests_add (out, call->db, CONN_READ), "hello", 1);
   return true;
}

/* { listCollections: 1, filter, cursor: {}, nameOnly, authorizedCollections: false } (mongosh 2.12 sends these two
 * flags whatever getCollectionInfos is given). */
static void
db_append_list_collections (bson_t *cmd, const bson_t *filter, bool name_only)
{
   BSON_APPEND_INT32 (cmd, "listCollections", 1);
   if (filter)
      BSON_APPEND_DOCUMENT (cmd, "filter", filter);
   else
      cmd_append_empty (cmd, "filter");
   cmd_append_empty (cmd, "cursor");
   BSON_APPEND_BOOL (cmd, "nameOnly", name_only);
   BSON_APPEND_BOOL (cmd, "authorizedCollections", false);
}

static bool
build_get_collection_names (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   (void) err;
   db_append_list_collections (sh_requests_add (out, call->db, CONN_READ), NULL, true);
   return true;
}

/* getCollectionNames prints the names as an array. */
static bool
exec_get_collection_names (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t docs, names = BSON_INITIALIZER;
   bson_iter_t it, f;
   bool ok = cmd_run_build_docs (ctx, call, 0, &docs, NULL, err);
   if (ok && !cmd_dry_run (ctx)) {
      uint32_t n = 0;
      bson_iter_init (&it, &docs);
      while (bson_iter_next (&it)) {
         if (bson_iter_recurse (&it, &f) && bson_iter_find (&f, "name") && BSON_ITER_HOLDS_UTF8 (&f)) {
            char key[16];
            const char *k;
            bson_uint32_to_string (n++, &k, key, sizeof key);
            BSON_APPEND_VALUE (&names, k, bson_iter_value (&f));
         }
      }
      sh_result_set_array (res, &names);
   }
   bson_destroy (&docs);
   bson_destroy (&names);
   return ok;
}

static bool
build_get_collection_infos (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t filter;
   if (!args_check (call, 0, ARG_OBJECT, false, "Database", "getCollectionInfos", err))
      return false;
   db_append_list_collections (sh_requests_add (out, call->db, CONN_READ), args_doc (call, 0, &filter) ? &filter : NULL,
                               false);
   return true;
}

static bool
build_list_commands (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   (void) err;
   BSON_APPEND_INT32 (sh_requests_add (out, call->db, CONN_READ), "listCommands", 1);
   return true;
}

/* Appends "\n<title> a, b" for a non-empty array of strings. */
static void
db_list_versions (bson_string_t *out, const bson_t *c, const char *key, const char *title)
{
   bson_t arr;
   bson_iter_t it;
   bool first = true;
   if (!docget_sub (c, key, BSON_TYPE_ARRAY, &arr) || bson_empty (&arr))
      return;
   bson_string_append_printf (out, "\n%s ", title);
   bson_iter_init (&it, &arr);
   while (bson_iter_next (&it)) {
      if (BSON_ITER_HOLDS_UTF8 (&it)) {
         bson_string_append_printf (out, "%s%s", first ? "" : ", ", bson_iter_utf8 (&it, NULL));
         first = false;
      }
   }
}

/* listCommands prints as mongosh's ListCommandsResult: per command "<name>: " followed by " <flag>" for every field
 * that is true, its help on the next line, then its API versions; commands separated by a blank line. Under --json
 * the reply. */
static bool
exec_list_commands (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t reply, cmds;
   bson_iter_t it, f;
   bson_string_t *out = NULL;
   bool ok = cmd_run_build (ctx, call, &reply, err);
   if (!ok || cmd_dry_run (ctx))
      goto done;
   if (ctx->out.mode == OUTPUT_JSON || !docget_sub (&reply, "commands", BSON_TYPE_DOCUMENT, &cmds)) {
      sh_result_set_doc (res, &reply);
      goto done;
   }
   if (res->as_value) {
      /* a JavaScript caller gets mongosh's value: the commands, slaveOk renamed as above */
      bson_t value = BSON_INITIALIZER, c, one;
      bson_iter_init (&it, &cmds);
      while (bson_iter_next (&it)) {
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &c))
            continue;
         BSON_APPEND_DOCUMENT_BEGIN (&value, bson_iter_key (&it), &one);
         bson_iter_init (&f, &c);
         while (bson_iter_next (&f)) {
            if (strcmp (bson_iter_key (&f), "slaveOk") != 0 && strcmp (bson_iter_key (&f), "slaveOverrideOk") != 0)
               BSON_APPEND_VALUE (&one, bson_iter_key (&f), bson_iter_value (&f));
         }
         if (bson_iter_init_find (&f, &c, "slaveOk"))
            BSON_APPEND_VALUE (&one, "secondaryOk", bson_iter_value (&f));
         if (bson_iter_init_find (&f, &c, "slaveOverrideOk"))
            BSON_APPEND_VALUE (&one, "secondaryOverrideOk", bson_iter_value (&f));
         bson_append_document_end (&value, &one);
      }
      sh_result_set_doc (res, &value);
      bson_destroy (&value);
      goto done;
   }
   out = bson_string_new (NULL);
   bson_iter_init (&it, &cmds);
   while (bson_iter_next (&it)) {
      bson_t c;
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &c))
         continue;
      bson_string_append_printf (out, "%s%s: ", out->len ? "\n\n" : "", bson_iter_key (&it));
      /* mongosh renames a 4.4 server's slaveOk / slaveOverrideOk, which moves them last */
      bson_iter_init (&f, &c);
      while (bson_iter_next (&f)) {
         if (BSON_ITER_HOLDS_BOOL (&f) && bson_iter_bool (&f) && strcmp (bson_iter_key (&f), "slaveOk") != 0 &&
             strcmp (bson_iter_key (&f), "slaveOverrideOk") != 0)
            bson_string_append_printf (out, " %s", bson_iter_key (&f));
      }
      if (bson_iter_init_find (&f, &c, "slaveOk") && BSON_ITER_HOLDS_BOOL (&f) && bson_iter_bool (&f))
         bson_string_append (out, " secondaryOk");
      if (bson_iter_init_find (&f, &c, "slaveOverrideOk") && BSON_ITER_HOLDS_BOOL (&f) && bson_iter_bool (&f))
         bson_string_append (out, " secondaryOverrideOk");
      if (bson_iter_init_find (&f, &c, "help") && BSON_ITER_HOLDS_UTF8 (&f) && bson_iter_utf8 (&f, NULL)[0])
         bson_string_append_printf (out, "\n%s", bson_iter_utf8 (&f, NULL));
      db_list_versions (out, &c, "apiVersions", "API Versions");
      db_list_versions (out, &c, "deprecatedApiVersions", "Deprecated API Versions");
   }
   bson_string_append_printf (sh_result_text (res), "%s\n", out->str);
done:
   if (out)
      bson_string_free (out, true);
   bson_destroy (&reply);
   return ok;
}

/* dropDatabase([writeConcern]): { dropDatabase: 1[, writeConcern] } on the database. */
static bool
build_drop_database (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_iter_t it;
   bson_t *cmd;
   if (!args_check (call, 0, ARG_OBJECT, false, "Database", "dropDatabase", err))
      return false;
   cmd = sh_requests_add (out, call->db, CONN_ADMIN);
   BSON_APPEND_INT32 (cmd, "dropDatabase", 1);
   if (args_get (call, 0, &it))
      args_append (call, 0, cmd, "writeConcern");
   return true;
}

/* createCollection(name[, options]): { create: <name>, ...options } on the database. */
static bool
build_create_collection (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t base = BSON_INITIALIZER, opts;
   if (!args_check (call, 0, ARG_STRING, true, "Database", "createCollection", err) ||
       !args_check (call, 1, ARG_OBJECT, false, "Database", "createCollection", err))
      goto fail;
   /* a capped collection's size (at most 1 PiB) and document count (below 2^31), a TTL (32 bits), as the server
    * bounds them */
   if (!args_opt_int (call, 1, "size", 1, INT64_C (1) << 50, NULL, err) ||
       !args_opt_int (call, 1, "max", 0, INT32_MAX - 1, NULL, err) ||
       !args_opt_int (call, 1, "expireAfterSeconds", 0, INT32_MAX, NULL, err))
      goto fail;
   args_append (call, 0, &base, "create");
   args_spread (sh_requests_add (out, call->db, CONN_ADMIN), &base, args_doc (call, 1, &opts) ? &opts : NULL);
   bson_destroy (&base);
   return true;
fail:
   bson_destroy (&base);
   return false;
}

/* dropDatabase prints { ok, dropped } as mongosh's service provider builds it, the name from the call, not from the
 * reply (a 5.0+ mongos answers { ok: 1 } alone); createCollection and renameCollection print { ok: 1 } (the driver
 * hands mongosh a collection object, not the reply). Failures are errors either way. */
static bool
exec_ok_result (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t reply, result = BSON_INITIALIZER;
   bool ok = cmd_run_build (ctx, call, &reply, err);
   if (ok && !cmd_dry_run (ctx)) {
      BSON_APPEND_INT32 (&result, "ok", 1);
      if (!strcmp (args_method (call), "dropDatabase"))
         BSON_APPEND_UTF8 (&result, "dropped", call->db);
      sh_result_set_doc (res, &result);
   }
   bson_destroy (&reply);
   bson_destroy (&result);
   return ok;
}

/* ---- collection ---- */

/* drop([options]): mongosh first reads the collection's listCollections entry (for its encryption fields), then
 * { drop: <coll>[, writeConcern] }; it prints true, or false when the collection did not exist. */
static bool
build_coll_drop (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t filter = BSON_INITIALIZER, opts, *cmd;
   bson_iter_t it;
   if (!args_check (call, 0, ARG_OBJECT, false, "Collection", "drop", err)) {
      bson_destroy (&filter);
      return false;
   }
   BSON_APPEND_UTF8 (&filter, "name", call->coll);
   db_append_list_collections (sh_requests_add (out, call->db, CONN_READ), &filter, false);
   bson_destroy (&filter);
   cmd = sh_requests_add (out, call->db, CONN_ADMIN);
   BSON_APPEND_UTF8 (cmd, "drop", call->coll);
   if (args_doc (call, 0, &opts) && bson_iter_init_find (&it, &opts, "writeConcern"))
      BSON_APPEND_VALUE (cmd, "writeConcern", bson_iter_value (&it));
   return true;
}

static bool
exec_coll_drop (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   sh_requests_t reqs = { .n = 0 };
   bson_t docs = BSON_INITIALIZER, reply = BSON_INITIALIZER;
   bson_value_t result = { .value_type = BSON_TYPE_BOOL };
   bool ok = false;

   if (!sh_requests_build (call, &reqs, err))
      goto done;
   bson_destroy (&docs);
   if (!conn_run_docs (ctx, reqs.v[0].db, &reqs.v[0].cmd, reqs.v[0].path, 0, &docs, NULL, err))
      goto done;
   bson_destroy (&reply);
   if (!conn_run (ctx, reqs.v[1].db, &reqs.v[1].cmd, reqs.v[1].path, &reply, err)) {
      if (err->kind != SH_ERR_SERVER || err->code != 26) /* NamespaceNotFound: false, as mongosh prints it */
         goto done;
      sh_error_clear (err);
      result.value.v_bool = false;
   } else {
      result.value.v_bool = true;
   }
   ok = true;
   if (!cmd_dry_run (ctx))
      sh_result_set_value (res, &result);
done:
   bson_destroy (&docs);
   bson_destroy (&reply);
   sh_requests_destroy (&reqs);
   return ok;
}

/* renameCollection(newName[, dropTarget]): { renameCollection: "<db>.<coll>", to: "<db>.<newName>", dropTarget }
 * on admin. */
static bool
build_rename_collection (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_iter_t it;
   bson_t *cmd;
   char *from, *to;
   if (!args_check (call, 0, ARG_STRING, true, "Collection", "renameCollection", err) ||
       !args_check (call, 1, ARG_BOOL, false, "Collection", "renameCollection", err))
      return false;
   from = bson_strdup_printf ("%s.%s", call->db, call->coll);
   to = bson_strdup_printf ("%s.%s", call->db, args_str (call, 0));
   cmd = sh_requests_add (out, "admin", CONN_ADMIN);
   BSON_APPEND_UTF8 (cmd, "renameCollection", from);
   BSON_APPEND_UTF8 (cmd, "to", to);
   BSON_APPEND_BOOL (cmd, "dropTarget", args_get (call, 1, &it) && bson_iter_bool (&it));
   bson_free (from);
   bson_free (to);
   return true;
}

static bool
exec_coll_name (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_value_t v = { .value_type = BSON_TYPE_UTF8 };
   char *s = !strcmp (args_method (call), "getFullName") ? bson_strdup_printf ("%s.%s", call->db, call->coll)
                                                         : bson_strdup (call->coll);
   (void) ctx;
   (void) err;
   v.value.v_utf8.str = s;
   v.value.v_utf8.len = (uint32_t) strlen (s);
   sh_result_set_value (res, &v);
   bson_free (s);
   return true;
}

/* estimatedDocumentCount([options]): { count: <coll>[, maxTimeMS][, comment] }. */
static bool
build_estimated_count (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t opts, *cmd;
   bson_iter_t it;
   if (!args_check (call, 0, ARG_OBJECT, false, "Collection", "estimatedDocumentCount", err))
      return false;
   if (!args_opt_int (call, 0, "maxTimeMS", 0, INT32_MAX, NULL, err))
      return false;
   cmd = sh_requests_add (out, call->db, CONN_READ);
   BSON_APPEND_UTF8 (cmd, "count", call->coll);
   if (args_doc (call, 0, &opts)) {
      if (bson_iter_init_find (&it, &opts, "maxTimeMS"))
         BSON_APPEND_VALUE (cmd, "maxTimeMS", bson_iter_value (&it));
      if (bson_iter_init_find (&it, &opts, "comment"))
         BSON_APPEND_VALUE (cmd, "comment", bson_iter_value (&it));
   }
   return true;
}

/* count([query[, options]]): { count: <coll>, query[, limit][, skip][, hint][, maxTimeMS][, collation] }. */
static bool
build_count (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   static const char *const keys[] = { "limit", "skip", "hint", "maxTimeMS", "collation", NULL };
   bson_t opts, *cmd;
   bson_iter_t it;
   bool have_opts;
   if (!args_check (call, 0, ARG_OBJECT, false, "Collection", "count", err) ||
       !args_check (call, 1, ARG_OBJECT, false, "Collection", "count", err))
      return false;
   have_opts = args_doc (call, 1, &opts);
   /* the server's count takes 64-bit limit (a negative one as its absolute value) and skip (not negative) */
   if (!args_opt_int (call, 1, "limit", -INT64_MAX, INT64_MAX, NULL, err) ||
       !args_opt_int (call, 1, "skip", 0, INT64_MAX, NULL, err) ||
       !args_opt_int (call, 1, "maxTimeMS", 0, INT32_MAX, NULL, err))
      return false;
   cmd = sh_requests_add (out, call->db, CONN_READ);
   BSON_APPEND_UTF8 (cmd, "count", call->coll);
   if (args_get (call, 0, &it))
      args_append (call, 0, cmd, "query");
   else
      cmd_append_empty (cmd, "query");
   for (int i = 0; have_opts && keys[i]; i++) {
      if (bson_iter_init_find (&it, &opts, keys[i]))
         BSON_APPEND_VALUE (cmd, keys[i], bson_iter_value (&it));
   }
   return true;
}

/* count replies { n, ok }: print n. count() also warns, as mongosh does, that it is deprecated (once a session). */
static bool
exec_count (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t reply;
   bson_iter_t it;
   bool ok;
   writes_warn_deprecation (ctx, args_method (call)); /* count's, once a session */
   ok = cmd_run_build (ctx, call, &reply, err);
   if (ok && !cmd_dry_run (ctx) && bson_iter_init_find (&it, &reply, "n"))
      sh_result_set_value (res, bson_iter_value (&it));
   bson_destroy (&reply);
   return ok;
}

/* ---- entries ---- */

const sh_cmd_t cmd_db_current_op = {
   .name = "db.currentOp",
   .usage = "db.currentOp([filter | true])",
   .summary = "Operations in progress on the cluster (a running migration, a stuck index build); true adds idle "
              "connections",
   .sends = "admin { aggregate: 1, pipeline: [ { $currentOp: { allUsers: true, idleConnections, truncateOps: false } "
            "}[, { $match: <filter> }] ], cursor: {} }",
   .example = "db.currentOp({\"command.moveChunk\": {$exists: true}})",
   .flags = CMD_READONLY,
   .build = build_current_op,
   .exec = exec_current_op,
};
const sh_cmd_t cmd_db_kill_op = {
   .name = "db.killOp",
   .usage = "db.killOp(opid)",
   .summary = "End an operation currentOp shows (a shard's as \"<shard>:<opid>\")",
   .sends = "admin { killOp: 1, op: <opid> }",
   .example = "db.killOp(\"shard01:12345\")",
   .build = build_kill_op,
};
const sh_cmd_t cmd_db_aggregate = {
   .name = "db.aggregate",
   .usage = "db.aggregate(pipeline)",
   .summary = "Run a database-level pipeline ($currentOp, $listSessions, $documents, ...) and print its documents",
   .sends = "<db> { aggregate: 1, pipeline: <pipeline>, cursor: {} }",
   .example = "db.getSiblingDB(\"admin\").aggregate([{$currentOp: {allUsers: true}}, {$match: {active: true}}])",
   .flags = CMD_READONLY | CMD_CURSOR_AGG,
   .build = build_db_aggregate,
   .exec = cmd_exec_cursor,
   .readonly_if = db_aggregate_is_readonly,
};
const sh_cmd_t cmd_db_server_status = {
   .name = "db.serverStatus",
   .usage = "db.serverStatus([options])",
   .summary = "The router's serverStatus document (connections, opcounters, sharding)",
   .sends = "admin { serverStatus: 1, ...options }",
   .example = "db.serverStatus()",
   .flags = CMD_READONLY,
   .build = build_server_status,
};
const sh_cmd_t cmd_db_stats = {
   .name = "db.stats",
   .usage = "db.stats([scale | options])",
   .summary = "The database's dbStats: collections, objects, data and storage sizes, per shard under raw",
   .sends = "<db> { dbStats: 1, scale: <scale or 1>, ...options }",
   .example = "db.getSiblingDB(\"app\").stats(1024)",
   .flags = CMD_READONLY,
   .build = build_db_stats,
};
const sh_cmd_t cmd_db_version = {
   .name = "db.version",
   .usage = "db.version()",
   .summary = "The server's version",
   .sends = "admin { buildInfo: 1 }",
   .example = "db.version()",
   .flags = CMD_READONLY,
   .build = build_version,
   .exec = exec_version,
};
const sh_cmd_t cmd_db_server_build_info = {
   .name = "db.serverBuildInfo",
   .usage = "db.serverBuildInfo()",
   .summary = "The server's build: version, git hash, modules, allocator, OpenSSL, storage engines",
   .sends = "admin { buildInfo: 1 }",
   .example = "db.serverBuildInfo()",
   .flags = CMD_READONLY,
   .build = build_version,
};
const sh_cmd_t cmd_db_hello = {
   .name = "db.hello",
   .usage = "db.hello()",
   .summary = "The server's hello document (msg: \"isdbgrid\" on a mongos)",
   .sends = "<db> { hello: 1 }",
   .example = "db.hello()",
   .flags = CMD_READONLY,
   .build = build_hello,
};
const sh_cmd_t cmd_db_get_collection_names = {
   .name = "db.getCollectionNames",
   .usage = "db.getCollectionNames()",
   .summary = "The names of the database's collections",
   .sends = "<db> { listCollections: 1, filter: {}, cursor: {}, nameOnly: true, authorizedCollections: false }",
   .example = "db.getSiblingDB(\"app\").getCollectionNames()",
   .flags = CMD_READONLY,
   .build = build_get_collection_names,
   .exec = exec_get_collection_names,
   .arg_kinds = NULL,
};
const sh_cmd_t cmd_db_get_collection_infos = {
   .name = "db.getCollectionInfos",
   .usage = "db.getCollectionInfos([filter])",
   .summary = "The database's collections with their options and UUIDs",
   .sends = "<db> { listCollections: 1, filter: <filter>, cursor: {}, nameOnly: false, authorizedCollections: false }",
   .example = "db.getSiblingDB(\"app\").getCollectionInfos({name: \"users\"})",
   .flags = CMD_READONLY,
   .build = build_get_collection_infos,
   .exec = cmd_exec_cursor,
};
const sh_cmd_t cmd_db_list_commands = {
   .name = "db.listCommands",
   .usage = "db.listCommands()",
   .summary = "The commands the server knows, with their flags and help",
   .sends = "<db> { listCommands: 1 }",
   .example = "db.listCommands()",
   .flags = CMD_READONLY,
   .build = build_list_commands,
   .exec = exec_list_commands,
};
const sh_cmd_t cmd_db_drop_database = {
   .name = "db.dropDatabase",
   .usage = "db.dropDatabase([writeConcern])",
   .summary = "Drop the current database and every collection in it",
   .sends = "<db> { dropDatabase: 1[, writeConcern] }",
   .example = "db.getSiblingDB(\"scratch\").dropDatabase()",
   .build = build_drop_database,
   .exec = exec_ok_result,
};
const sh_cmd_t cmd_db_create_collection = {
   .name = "db.createCollection",
   .usage = "db.createCollection(name[, options])",
   .summary = "Create a collection (capped, clustered, timeseries, validator ... as options)",
   .sends = "<db> { create: <name>, ...options }",
   .example = "db.getSiblingDB(\"app\").createCollection(\"audit\")",
   .build = build_create_collection,
   .exec = exec_ok_result,
};
const sh_cmd_t cmd_db_coll_drop = {
   .name = "db.collection.drop",
   .usage = "db.<collection>.drop([options])",
   .summary = "Drop the collection with its indexes and, when sharded, its chunks; prints false when it did not exist",
   .sends = "<db> { listCollections: 1, filter: { name: <coll> }, cursor: {}, nameOnly: false, "
            "authorizedCollections: false } then <db> { drop: <coll>[, writeConcern] }",
   .example = "db.getSiblingDB(\"scratch\").tmp.drop()",
   .build = build_coll_drop,
   .exec = exec_coll_drop,
};
const sh_cmd_t cmd_db_coll_rename_collection = {
   .name = "db.collection.renameCollection",
   .usage = "db.<collection>.renameCollection(newName[, dropTarget])",
   .summary = "Rename the collection within its database (dropTarget: true replaces an existing one)",
   .sends = "admin { renameCollection: \"<db>.<coll>\", to: \"<db>.<newName>\", dropTarget: <bool> }",
   .example = "db.getSiblingDB(\"app\").notes.renameCollection(\"notes_2024\")",
   .build = build_rename_collection,
   .exec = exec_ok_result,
};
const sh_cmd_t cmd_db_coll_get_name = {
   .name = "db.collection.getName",
   .usage = "db.<collection>.getName()",
   .summary = "The collection's name",
   .example = "db.getSiblingDB(\"app\").users.getName()",
   .flags = CMD_CLIENT_ONLY | CMD_READONLY,
   .exec = exec_coll_name,
};
const sh_cmd_t cmd_db_coll_get_full_name = {
   .name = "db.collection.getFullName",
   .usage = "db.<collection>.getFullName()",
   .summary = "The collection's namespace, <db>.<collection>",
   .example = "db.getSiblingDB(\"app\").users.getFullName()",
   .flags = CMD_CLIENT_ONLY | CMD_READONLY,
   .exec = exec_coll_name,
};
const sh_cmd_t cmd_db_coll_estimated_document_count = {
   .name = "db.collection.estimatedDocumentCount",
   .usage = "db.<collection>.estimatedDocumentCount([options])",
   .summary = "The collection's document count from its metadata (fast, no filter)",
   .sends = "<db> { count: <coll>[, maxTimeMS] }",
   .example = "db.getSiblingDB(\"app\").users.estimatedDocumentCount()",
   .flags = CMD_READONLY,
   .build = build_estimated_count,
   .exec = exec_count,
};
const sh_cmd_t cmd_db_coll_count = {
   .name = "db.collection.count",
   .usage = "db.<collection>.count([query[, options]])",
   .summary = "Count matching documents with the count command (deprecated in mongosh: see countDocuments)",
   .sends = "<db> { count: <coll>, query: <query>[, limit][, skip][, hint][, maxTimeMS][, collation] }",
   .example = "db.getSiblingDB(\"app\").users.count({plan: \"free\"})",
   .flags = CMD_READONLY,
   .build = build_count,
   .exec = exec_count,
};
