/* Raw commands: db.adminCommand(doc) on admin and db.runCommand(doc) on the current database, sent as typed
 * except for mongosh's adjustRunCommand (sampleRate of configureQueryAnalyzer / profile goes out as a double). */
#include <stdlib.h>
#include <string.h>

#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"
#include "shell/core/readcmds.h"
#include "shell/lib/docget.h"

/* Copies the command document (or { <name>: 1 } for a string) into cmd, with mongosh's adjustRunCommand. */
static bool
build_raw (const sh_call_t *call, sh_requests_t *out, const char *db, const char *method, sh_error_t *err)
{
   bson_iter_t it, f;
   bson_t typed;
   bson_type_t type = BSON_TYPE_EOD;
   /* argument 0 read once when it is a string or a document (what is sent); anything else gets mongosh's check. Its
    * type read in place (bson_iter_type_unsafe: the iterator stands on an element) */
   if (args_get (call, 0, &it))
      type = bson_iter_type_unsafe (&it);
   if (type != BSON_TYPE_UTF8 && type != BSON_TYPE_DOCUMENT) {
      if (!args_check (call, 0, ARG_STRING | ARG_OBJECT, true, "Database", method, err) || !args_get (call, 0, &it))
         return false;
      type = bson_iter_type_unsafe (&it);
   }
   if (type == BSON_TYPE_UTF8) {
      BSON_APPEND_INT32 (sh_requests_add (out, db, CONN_ADMIN), bson_iter_utf8 (&it, NULL), 1);
      return true;
   }
   if (type != BSON_TYPE_DOCUMENT || !bson_iter_recurse (&it, &f) || !bson_iter_next (&f)) {
      sh_error_set_at (err, SH_ERR_ARGS, call->arg_pos ? call->arg_pos[0] : call->pos,
                       "%s needs a command document such as { ping: 1 }", method);
      return false;
   }
   if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &typed)) {
      sh_error_set_at (err, SH_ERR_ARGS, call->pos, "invalid command document");
      return false;
   }
   args_adjust_run_command_at (sh_requests_add (out, db, CONN_ADMIN), &typed, &f); /* f: its first element */
   return true;
}

static bool
raw_is_readonly (const sh_call_t *call)
{
   bson_iter_t it, f;
   const char *name = NULL;
   if (!args_get (call, 0, &it))
      return true;
   /* the type read in place: the iterator stands on an element */
   if (bson_iter_type_unsafe (&it) == BSON_TYPE_UTF8)
      name = bson_iter_utf8 (&it, NULL);
   else if (bson_iter_type_unsafe (&it) == BSON_TYPE_DOCUMENT && bson_iter_recurse (&it, &f) && bson_iter_next (&f))
      name = bson_iter_key_unsafe (&f);
   if (!name)
      return true;
   if (!readcmds_name (name)) /* the one list of commands that only read (shell/core/readcmds.c) */
      return false;
   if (!strcmp (name, "validate") && BSON_ITER_HOLDS_DOCUMENT (&it)) {
      bson_t cmd;
      const uint8_t *data;
      uint32_t len;
      bson_iter_document (&it, &len, &data);
      if (bson_init_static (&cmd, data, len) && readcmds_validate_changes (&cmd))
         return false;
   }
   /* an aggregate that writes ($out, $merge) is not a read */
   if (!strcmp (name, "aggregate") && BSON_ITER_HOLDS_DOCUMENT (&it) && bson_iter_recurse (&it, &f) &&
       bson_iter_find (&f, "pipeline") && readcmds_pipeline_writes (&f))
      return false;
   return true;
}

static bool
build_admin_command (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return build_raw (call, out, "admin", "adminCommand", err);
}

static bool
build_run_command (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return build_raw (call, out, call->db, "runCommand", err);
}

const sh_cmd_t cmd_db_admin_command = {
   .name = "db.adminCommand",
   .usage = "db.adminCommand(command)",
   .summary = "Run any command document on the admin database, exactly as typed",
   .sends = "admin <command>",
   .example = "db.adminCommand({ refineCollectionShardKey: \"app.users\", key: { uid: 1, region: 1 } })",
   .build = build_admin_command,
   .readonly_if = raw_is_readonly,
};

const sh_cmd_t cmd_db_run_command = {
   .name = "db.runCommand",
   .usage = "db.runCommand(command)",
   .summary = "Run any command document on the current database, exactly as typed",
   .sends = "<current db> <command>",
   .example = "db.runCommand({ listCollections: 1 })",
   .build = build_run_command,
   .readonly_if = raw_is_readonly,
};
