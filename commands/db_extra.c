/* Database methods of mongosh's shell API for a server's settings: the profiler's (getProfilingStatus,
 * setProfilingLevel: the profile command, which a mongos keeps for its slow-operation log), the log's (setLogLevel,
 * getLogComponents: setParameter / getParameter logComponentVerbosity), serverBits and createView, each sending what
 * mongosh 2.12 sends (its database.ts) and answering with what it returns. */
#include <string.h>

#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"
#include "commands/exec.h"
#include "commands/result.h"
#include "shell/lib/docget.h"

/* { profile: -1 } on the database: the current settings, read */
static bool
build_profiling_status (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   (void) err;
   BSON_APPEND_INT32 (sh_requests_add (out, call->db, CONN_READ), "profile", -1);
   return true;
}

/* setProfilingLevel(level[, options | slowms]): { profile: <level>, ...options }, a number of options meaning
 * { slowms: <n> }; mongosh refuses a level outside 0..2 */
static bool
build_set_profiling_level (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_iter_t it;
   bson_t base = BSON_INITIALIZER;
   double level;
   if (!args_check (call, 0, ARG_NUMBER, true, "Database", "setProfilingLevel", err) ||
       !args_check (call, 1, ARG_NUMBER | ARG_OBJECT, false, "Database", "setProfilingLevel", err))
      return false;
   args_get (call, 0, &it);
   level = bson_iter_as_double (&it);
   if (!(level >= 0 && level <= 2)) {
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0), "[COMMON-10001] Input level %g is out of range [0..2]",
                       level);
      bson_destroy (&base);
      return false;
   }
   args_append (call, 0, &base, "profile");
   if (args_get (call, 1, &it) && BSON_ITER_HOLDS_NUMBER (&it)) {
      bson_t *cmd = sh_requests_add (out, call->db, CONN_ADMIN);
      bson_concat (cmd, &base);
      args_append (call, 1, cmd, "slowms");
   } else {
      args_spread_run_command (call, 1, &base, sh_requests_add (out, call->db, CONN_ADMIN));
   }
   bson_destroy (&base);
   return true;
}

/* setLogLevel(level[, component]): admin { setParameter: 1, logComponentVerbosity: { <a>: { <b>: { verbosity:
 * <level> } } } } for the component "a.b" (the top level without one) */
static bool
build_set_log_level (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_iter_t it;
   bson_t *cmd, cur;
   const char *component = NULL;
   char names[8][64];
   int depth = 0;
   if (!args_check (call, 0, ARG_NUMBER, true, "Database", "setLogLevel", err))
      return false;
   if (args_get (call, 1, &it)) {
      if (!BSON_ITER_HOLDS_UTF8 (&it)) {
         sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 1),
                          "[COMMON-10001] setLogLevel component must be a string: got %s", args_typeof (&it));
         return false;
      }
      component = bson_iter_utf8 (&it, NULL);
   }
   for (const char *p = component; p; depth++) {
      const char *dot = strchr (p, '.');
      size_t len = dot ? (size_t) (dot - p) : strlen (p);
      if (depth == 8 || len >= sizeof names[0]) {
         sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 1), "setLogLevel: the component '%s' is too long",
                          component);
         return false;
      }
      memcpy (names[depth], p, len);
      names[depth][len] = '\0';
      p = dot ? dot + 1 : NULL;
   }
   /* built from the inside out, as mongosh nests it */
   bson_init (&cur);
   args_append (call, 0, &cur, "verbosity");
   for (int i = depth - 1; i >= 0; i--) {
      bson_t outer = BSON_INITIALIZER;
      BSON_APPEND_DOCUMENT (&outer, names[i], &cur);
      bson_destroy (&cur);
      bson_steal (&cur, &outer);
   }
   cmd = sh_requests_add (out, "admin", CONN_ADMIN);
   BSON_APPEND_INT32 (cmd, "setParameter", 1);
   BSON_APPEND_DOCUMENT (cmd, "logComponentVerbosity", &cur);
   bson_destroy (&cur);
   return true;
}

/* admin { getParameter: 1, logComponentVerbosity: 1 } */
static bool
build_get_log_components (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t *cmd = sh_requests_add (out, "admin", CONN_READ);
   (void) call;
   (void) err;
   BSON_APPEND_INT32 (cmd, "getParameter", 1);
   BSON_APPEND_INT32 (cmd, "logComponentVerbosity", 1);
   return true;
}

/* admin { buildInfo: 1 } */
static bool
build_server_bits (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   (void) call;
   (void) err;
   BSON_APPEND_INT32 (sh_requests_add (out, "admin", CONN_READ), "buildInfo", 1);
   return true;
}

/* getLogComponents() and serverBits(): one field of the reply (logComponentVerbosity, bits); mongosh's
 * MongoshRuntimeError when it is missing */
static bool
exec_reply_field (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bool bits = !strcmp (call->cmd->name, "db.serverBits");
   const char *field = bits ? "bits" : "logComponentVerbosity";
   bson_t reply;
   bson_iter_t it;
   bool ok = cmd_run_build (ctx, call, &reply, err);
   if (ok && !cmd_dry_run (ctx)) {
      if (bson_iter_init_find (&it, &reply, field)) {
         sh_result_set_value (res, bson_iter_value (&it));
      } else {
         sh_error_set_at (err, SH_ERR_USAGE, call->pos, "MongoshRuntimeError: Error running command %s %s",
                          bits ? "serverBuildInfo" : "", docget_utf8 (&reply, "errmsg", ""));
         ok = false;
      }
   }
   bson_destroy (&reply);
   return ok;
}

/* createView(name, source, pipeline[, options]): { create: <name>, viewOn: <source>, pipeline: <pipeline>
 * [, collation] }, the driver's createCollection; its value is { ok: 1 } */
static bool
build_create_view (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t opts, *cmd;
   bson_iter_t it;
   if (!args_check (call, 0, ARG_STRING, true, "Database", "createView", err) ||
       !args_check (call, 1, ARG_STRING, true, "Database", "createView", err) ||
       !args_check (call, 2, ARG_ANY, true, "Database", "createView", err) ||
       !args_check (call, 3, ARG_OBJECT, false, "Database", "createView", err))
      return false;
   cmd = sh_requests_add (out, call->db, CONN_ADMIN);
   args_append (call, 0, cmd, "create");
   args_append (call, 1, cmd, "viewOn");
   args_append (call, 2, cmd, "pipeline");
   if (args_doc (call, 3, &opts) && bson_iter_init_find (&it, &opts, "collation"))
      BSON_APPEND_VALUE (cmd, "collation", bson_iter_value (&it));
   return true;
}

static bool
exec_create_view (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t reply, ok_doc = BSON_INITIALIZER;
   bool ok = cmd_run_build (ctx, call, &reply, err);
   if (ok && !cmd_dry_run (ctx)) {
      BSON_APPEND_INT32 (&ok_doc, "ok", 1);
      sh_result_set_doc (res, &ok_doc);
   }
   bson_destroy (&ok_doc);
   bson_destroy (&reply);
   return ok;
}

const sh_cmd_t cmd_db_get_profiling_status = {
   .name = "db.getProfilingStatus",
   .usage = "db.getProfilingStatus()",
   .summary = "The profiler's settings (through a mongos: the slow-operation log's slowms, sampleRate, filter)",
   .sends = "<db> { profile: -1 }",
   .example = "db.getSiblingDB(\"app\").getProfilingStatus()",
   .flags = CMD_READONLY,
   .build = build_profiling_status,
};
const sh_cmd_t cmd_db_set_profiling_level = {
   .name = "db.setProfilingLevel",
   .usage = "db.setProfilingLevel(level[, options])",
   .summary = "Set the profiler (a mongos takes level 0 only: its slowms, sampleRate and filter for the log); "
              "options: slowms, sampleRate, filter, or a number for slowms",
   .sends = "<db> { profile: <level>, ...<options> }",
   .example = "db.getSiblingDB(\"app\").setProfilingLevel(0, {slowms: 200})",
   .build = build_set_profiling_level,
};
const sh_cmd_t cmd_db_set_log_level = {
   .name = "db.setLogLevel",
   .usage = "db.setLogLevel(level[, component])",
   .summary = "Set the log verbosity of the server connected to, of one component (\"query\", \"storage.journal\") "
              "or of all",
   .sends = "admin { setParameter: 1, logComponentVerbosity: { [<component>: ]{ verbosity: <level> } } }",
   .example = "db.setLogLevel(1, \"query\")",
   .build = build_set_log_level,
};
const sh_cmd_t cmd_db_get_log_components = {
   .name = "db.getLogComponents",
   .usage = "db.getLogComponents()",
   .summary = "The log verbosity of each component of the server connected to",
   .sends = "admin { getParameter: 1, logComponentVerbosity: 1 }",
   .example = "db.getLogComponents()",
   .flags = CMD_READONLY,
   .build = build_get_log_components,
   .exec = exec_reply_field,
};
const sh_cmd_t cmd_db_server_bits = {
   .name = "db.serverBits",
   .usage = "db.serverBits()",
   .summary = "The server's build bits (64)",
   .sends = "admin { buildInfo: 1 }",
   .example = "db.serverBits()",
   .flags = CMD_READONLY,
   .build = build_server_bits,
   .exec = exec_reply_field,
};
const sh_cmd_t cmd_db_create_view = {
   .name = "db.createView",
   .usage = "db.createView(name, source, pipeline[, options])",
   .summary = "Create a view of the collection source through an aggregation pipeline; options: collation",
   .sends = "<db> { create: <name>, viewOn: <source>, pipeline: <pipeline>[, collation] }",
   .example = "db.getSiblingDB(\"app\").createView(\"adults\", \"users\", [{$match: {age: {$gte: 18}}}])",
   .build = build_create_view,
   .exec = exec_create_view,
};
