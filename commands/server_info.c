/* What mongosh asks a server about itself and its replica set: db.hostInfo, db.isMaster, db.serverCmdLineOpts and
 * rs.status, rs.conf, rs.initiate, rs.stepDown, rs.freeze, rs.syncFrom, each sending the command mongosh 2.12 sends
 * (database.ts, replica-set.ts) through the shared executor. A mongos has none of the replSet* commands: they fail
 * with CommandNotFound as they do for mongosh; rs.conf then falls back, as mongosh does, to local.system.replset
 * (which a mongos refuses with IllegalOperation), and db.isMaster adds isWritablePrimary as mongosh's does. */
#include <string.h>

#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"
#include "commands/exec.h"
#include "shell/lib/docget.h"

/* { <name>: 1 } on admin */
static bool
build_admin_1 (const char *name, sh_requests_t *out)
{
   BSON_APPEND_INT32 (sh_requests_add (out, "admin", CONN_ADMIN), name, 1);
   return true;
}

static bool
build_host_info (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   (void) call;
   (void) err;
   return build_admin_1 ("hostInfo", out);
}

static bool
build_cmd_line_opts (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   (void) call;
   (void) err;
   return build_admin_1 ("getCmdLineOpts", out);
}

static bool
build_rs_status (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   (void) call;
   (void) err;
   return build_admin_1 ("replSetGetStatus", out);
}

static bool
build_rs_conf (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   (void) call;
   (void) err;
   return build_admin_1 ("replSetGetConfig", out);
}

/* { replSetInitiate: <config, {} when absent> } */
static bool
build_rs_initiate (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t *cmd;
   bson_iter_t it;
   if (!args_check (call, 0, ARG_OBJECT, false, "ReplicaSet", "initiate", err))
      return false;
   cmd = sh_requests_add (out, "admin", CONN_ADMIN);
   if (args_get (call, 0, &it))
      args_append (call, 0, cmd, "replSetInitiate");
   else {
      bson_t empty = BSON_INITIALIZER;
      BSON_APPEND_DOCUMENT (cmd, "replSetInitiate", &empty);
   }
   return true;
}

/* { replSetStepDown: <secs, 60 when absent>[, secondaryCatchUpPeriodSecs] } */
static bool
build_rs_step_down (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t *cmd;
   bson_iter_t it;
   if (!args_check (call, 0, ARG_NUMBER, false, "ReplicaSet", "stepDown", err) ||
       !args_check (call, 1, ARG_NUMBER, false, "ReplicaSet", "stepDown", err))
      return false;
   cmd = sh_requests_add (out, "admin", CONN_ADMIN);
   if (args_get (call, 0, &it))
      args_append (call, 0, cmd, "replSetStepDown");
   else
      BSON_APPEND_INT32 (cmd, "replSetStepDown", 60);
   args_append (call, 1, cmd, "secondaryCatchUpPeriodSecs");
   return true;
}

/* { replSetFreeze: <secs> } */
static bool
build_rs_freeze (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   if (!args_check (call, 0, ARG_NUMBER, true, "ReplicaSet", "freeze", err))
      return false;
   args_append (call, 0, sh_requests_add (out, "admin", CONN_ADMIN), "replSetFreeze");
   return true;
}

/* { replSetSyncFrom: <host> } */
static bool
build_rs_sync_from (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   if (!args_check (call, 0, ARG_STRING, true, "ReplicaSet", "syncFrom", err))
      return false;
   args_append (call, 0, sh_requests_add (out, "admin", CONN_ADMIN), "replSetSyncFrom");
   return true;
}

/* isMaster on the current database, as mongosh's _runReadCommand */
static bool
build_is_master (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   (void) err;
   BSON_APPEND_INT32 (sh_requests_add (out, call->db, CONN_READ), "isMaster", 1);
   return true;
}

/* db.isMaster(): the reply with isWritablePrimary set to its ismaster, last, as mongosh's isMaster sets it */
static bool
exec_is_master (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t reply, shown = BSON_INITIALIZER;
   bson_iter_t it;
   bool ok = cmd_run_build (ctx, call, &reply, err);
   if (ok && bson_iter_init_find (&it, &reply, "ismaster")) {
      bson_copy_to_excluding_noinit (&reply, &shown, "isWritablePrimary", NULL);
      BSON_APPEND_VALUE (&shown, "isWritablePrimary", bson_iter_value (&it));
      sh_result_set_doc (res, &shown);
   } else if (ok) {
      sh_result_set_doc (res, &reply);
   }
   bson_destroy (&reply);
   bson_destroy (&shown);
   return ok;
}

/* rs.conf()'s fallback where the server has no replSetGetConfig (a mongos, or API strict): mongosh's
 * local.system.replset findOne, which a mongos refuses with IllegalOperation. */
static bool
rs_conf_fallback (sh_ctx_t *ctx, sh_result_t *res, sh_error_t *err)
{
   bson_t find = BSON_INITIALIZER, docs = BSON_INITIALIZER, first;
   bson_iter_t it;
   bool ok = false;
   BSON_APPEND_UTF8 (&find, "find", "system.replset");
   cmd_append_empty (&find, "filter");
   BSON_APPEND_INT32 (&find, "limit", 1);
   bson_destroy (&docs);
   if (!conn_run_docs (ctx, "local", &find, CONN_READ, 1, &docs, NULL, err))
      goto done;
   ok = true;
   if (cmd_dry_run (ctx))
      goto done;
   if (bson_iter_init (&it, &docs) && bson_iter_next (&it) && docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &first))
      sh_result_set_doc (res, &first);
   else {
      sh_error_set (err, SH_ERR_SERVER, "No documents in local.system.replset");
      ok = false;
   }
done:
   bson_destroy (&find);
   bson_destroy (&docs);
   return ok;
}

/* rs.conf(): replSetGetConfig's config; where there is no such command, local.system.replset's document */
static bool
exec_rs_conf (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t reply, config;
   bool ok = false;
   if (cmd_run_build (ctx, call, &reply, err)) {
      if (docget_sub (&reply, "config", BSON_TYPE_DOCUMENT, &config))
         sh_result_set_doc (res, &config);
      else
         sh_result_set_doc (res, &reply);
      ok = true;
   } else if (err->kind == SH_ERR_SERVER &&
              (!strcmp (err->code_name, "CommandNotFound") || !strcmp (err->code_name, "APIStrictError"))) {
      sh_error_clear (err);
      ok = rs_conf_fallback (ctx, res, err);
   }
   bson_destroy (&reply);
   return ok;
}

const sh_cmd_t cmd_db_host_info = {
   .name = "db.hostInfo",
   .usage = "db.hostInfo()",
   .summary = "The host the server runs on: system, OS, memory, CPUs",
   .sends = "admin { hostInfo: 1 }",
   .example = "db.hostInfo()",
   .flags = CMD_READONLY,
   .build = build_host_info,
};
const sh_cmd_t cmd_db_is_master = {
   .name = "db.isMaster",
   .usage = "db.isMaster()",
   .summary = "The server's isMaster document, with isWritablePrimary (msg: \"isdbgrid\" on a mongos)",
   .sends = "<db> { isMaster: 1 }",
   .example = "db.isMaster()",
   .flags = CMD_READONLY,
   .build = build_is_master,
   .exec = exec_is_master,
};
const sh_cmd_t cmd_db_server_cmd_line_opts = {
   .name = "db.serverCmdLineOpts",
   .usage = "db.serverCmdLineOpts()",
   .summary = "The options the server was started with (argv and parsed)",
   .sends = "admin { getCmdLineOpts: 1 }",
   .example = "db.serverCmdLineOpts()",
   .flags = CMD_READONLY,
   .build = build_cmd_line_opts,
};
const sh_cmd_t cmd_rs_status = {
   .name = "rs.status",
   .usage = "rs.status()",
   .summary = "Replica set: its status (a mongos has no such command)",
   .sends = "admin { replSetGetStatus: 1 }",
   .example = "rs.status()",
   .flags = CMD_READONLY,
   .build = build_rs_status,
};
const sh_cmd_t cmd_rs_conf = {
   .name = "rs.conf",
   .usage = "rs.conf()",
   .summary = "Replica set: its configuration (a mongos has none: local.system.replset, refused, as mongosh)",
   .sends = "admin { replSetGetConfig: 1 }, where that command is not found local { find: \"system.replset\", "
            "filter: {}, limit: 1 }",
   .example = "rs.conf()",
   .flags = CMD_READONLY,
   .build = build_rs_conf,
   .exec = exec_rs_conf,
};
const sh_cmd_t cmd_rs_initiate = {
   .name = "rs.initiate",
   .usage = "rs.initiate([config])",
   .summary = "Replica set: initiate it (a mongos has no such command)",
   .sends = "admin { replSetInitiate: <config, {}> }",
   .example = "rs.initiate()",
   .build = build_rs_initiate,
};
const sh_cmd_t cmd_rs_step_down = {
   .name = "rs.stepDown",
   .usage = "rs.stepDown([stepdownSecs[, catchUpSecs]])",
   .summary = "Replica set: make the primary step down (a mongos has no such command)",
   .sends = "admin { replSetStepDown: <stepdownSecs, 60>[, secondaryCatchUpPeriodSecs: <catchUpSecs>] }",
   .example = "rs.stepDown(120, 10)",
   .build = build_rs_step_down,
};
const sh_cmd_t cmd_rs_freeze = {
   .name = "rs.freeze",
   .usage = "rs.freeze(secs)",
   .summary = "Replica set: keep this member from election for secs (not on a mongos)",
   .sends = "admin { replSetFreeze: <secs> }",
   .example = "rs.freeze(60)",
   .build = build_rs_freeze,
};
const sh_cmd_t cmd_rs_sync_from = {
   .name = "rs.syncFrom",
   .usage = "rs.syncFrom(host)",
   .summary = "Replica set: make this member sync from host (not on a mongos)",
   .sends = "admin { replSetSyncFrom: <host> }",
   .example = "rs.syncFrom(\"rs0-2.example.net:27017\")",
   .build = build_rs_sync_from,
};
