/* What mongosh asks a server about itself and its replica set: db.hostInfo, db.isMaster, db.serverCmdLineOpts,
 * rs.status and rs.conf, each sending the command mongosh 2.12 sends (database.ts, replica-set.ts) through the shared
 * executor. Through a mongos, replSetGetStatus and replSetGetConfig are refused (CommandNotFound) as they are for
 * mongosh; the prelude gives rs.conf mongosh's fallback to local.system.replset and db.isMaster its isWritablePrimary.
 */
#include "commands/table.h"
#include "commands/requests.h"

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

/* isMaster on the current database, as mongosh's _runReadCommand */
static bool
build_is_master (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   (void) err;
   BSON_APPEND_INT32 (sh_requests_add (out, call->db, CONN_READ), "isMaster", 1);
   return true;
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
   .summary = "The replica set's status (a mongos has no such command: CommandNotFound, as for mongosh)",
   .sends = "admin { replSetGetStatus: 1 }",
   .example = "rs.status()",
   .flags = CMD_READONLY,
   .build = build_rs_status,
};
const sh_cmd_t cmd_rs_conf = {
   .name = "rs.conf",
   .usage = "rs.conf()",
   .summary = "The replica set's configuration (through a mongos: refused, as for mongosh)",
   .sends = "admin { replSetGetConfig: 1 }",
   .example = "rs.conf()",
   .flags = CMD_READONLY,
   .build = build_rs_conf,
};
