/* Users and authentication, as mongosh's Database methods do them: db.auth (a new client with the credentials, as
 * mongosh re-authenticates), db.createUser, db.updateUser and db.changeUserPassword. A password left out is asked
 * for at the terminal without echo (mongosh's passwordPrompt()); without a terminal the call says so and sends
 * nothing. Passwords never show: every output goes through shell/lib/secret.h. */
#include <string.h>

#include "commands/args.h"
#include "commands/exec.h"
#include "commands/table.h"
#include "shell/core/conn.h"
#include "shell/core/prompt.h"
#include "shell/lib/docget.h"

/* The string field key of doc (borrowed), or NULL when absent or not a string. */
static const char *
users_str (const bson_t *doc, const char *key)
{
   return docget_utf8 (doc, key, NULL);
}

/* Zeroes and frees a password. */
static void
users_forget (char *pw)
{
   if (pw) {
      memset (pw, 0, strlen (pw));
      bson_free (pw);
   }
}

/* mongosh's auth: (user), (user, password) or ({ user, pwd[, mechanism] }) on the database the call runs on. */
static bool
exec_auth (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   const char *user = NULL, *pwd = NULL, *mechanism = NULL;
   char *asked = NULL;
   bson_t doc, ok_doc = BSON_INITIALIZER;
   bool ok = false;

   if (call->argc == 1 && args_doc (call, 0, &doc)) {
      user = users_str (&doc, "user");
      pwd = users_str (&doc, "pwd");
      mechanism = users_str (&doc, "mechanism");
      if (bson_has_field (&doc, "digestPassword")) {
         sh_error_set_at (err, SH_ERR_ARGS, call->pos, "digestPassword is not supported for authentication.");
         return false;
      }
   } else if (!args_check (call, 0, ARG_STRING, true, "Database", "auth", err) ||
              !args_check (call, 1, ARG_STRING, false, "Database", "auth", err)) {
      return false;
   } else {
      user = args_str (call, 0);
      pwd = args_str (call, 1);
      if (call->argc == 1 && !cmd_dry_run (ctx)) {
         if (!(asked = sh_prompt_password ("Enter password", "db.auth", err))) {
            err->has_pos = true;
            err->pos = call->pos;
            return false;
         }
         pwd = asked;
      }
   }
   if ((!user || !*user || ((!pwd || !*pwd) && !cmd_dry_run (ctx))) && !mechanism) {
      sh_error_set_at (err, SH_ERR_ARGS, call->pos,
                       "auth expects user document with at least 'user' and 'pwd' or 'mechanism' fields");
      goto done;
   }
   /* --dry-run: nothing is sent, so no one is authenticated */
   if (!cmd_dry_run (ctx) && !conn_authenticate (ctx, user ? user : "", pwd, call->db, mechanism, err))
      goto done;
   BSON_APPEND_INT32 (&ok_doc, "ok", 1);
   sh_result_set_doc (res, &ok_doc);
   ok = true;
done:
   users_forget (asked);
   bson_destroy (&ok_doc);
   return ok;
}

/* Appends writeConcern (argument i, when given) and mongosh's digestPassword for passwordDigestor "server". */
static bool
users_append_tail (const sh_call_t *call, int i, const bson_t *userdoc, bson_t *cmd, sh_error_t *err)
{
   const char *digestor = userdoc ? users_str (userdoc, "passwordDigestor") : NULL;
   if (args_get (call, i, &(bson_iter_t){ 0 }))
      args_append (call, i, cmd, "writeConcern");
   if (userdoc && bson_has_field (userdoc, "passwordDigestor")) {
      if (!digestor || (strcmp (digestor, "server") != 0 && strcmp (digestor, "client") != 0)) {
         sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0),
                          "Invalid field: passwordDigestor must be 'client' or 'server'");
         return false;
      }
      if (!strcmp (digestor, "client")) {
         sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0),
                          "passwordDigestor 'client' (an MD5 digest made here) is not supported: use 'server'");
         return false;
      }
      BSON_APPEND_BOOL (cmd, "digestPassword", true);
   }
   return true;
}

/* Copies the fields of doc into cmd except skip (NULL-terminated names). */
static void
users_copy_except (const bson_t *doc, bson_t *cmd, const char *const *skip)
{
   bson_iter_t it;
   if (!bson_iter_init (&it, doc))
      return;
   while (bson_iter_next (&it)) {
      bool drop = false;
      for (size_t i = 0; skip[i]; i++)
         drop = drop || !strcmp (bson_iter_key (&it), skip[i]);
      if (!drop)
         bson_append_iter (cmd, bson_iter_key (&it), -1, &it);
   }
}

/* createUser(user[, writeConcern]): { createUser: user.user, ...user (without user and passwordDigestor)
 * [, writeConcern][, digestPassword] } on the database. A missing pwd is asked for when the call runs. */
static bool
build_create_user (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   static const char *const skip[] = { "user", "passwordDigestor", NULL };
   bson_t doc, *cmd;
   bson_iter_t it;
   if (!args_check (call, 0, ARG_OBJECT, true, "Database", "createUser", err) ||
       !args_check (call, 1, ARG_OBJECT, false, "Database", "createUser", err))
      return false;
   if (!args_doc (call, 0, &doc)) {
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0), "createUser needs a user document");
      return false;
   }
   if (!bson_iter_init_find (&it, &doc, "user") || !bson_has_field (&doc, "roles")) {
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0), "Missing required property: \"%s\"",
                       bson_has_field (&doc, "user") ? "roles" : "user");
      return false;
   }
   if (!strcmp (call->db, "$external") && bson_has_field (&doc, "pwd")) {
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0), "Cannot set password for users on the $external database");
      return false;
   }
   if (bson_has_field (&doc, "createUser")) {
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0), "Cannot set createUser field in helper method");
      return false;
   }
   cmd = sh_requests_add (out, call->db, CONN_ADMIN);
   bson_append_iter (cmd, "createUser", -1, &it);
   users_copy_except (&doc, cmd, skip);
   return users_append_tail (call, 1, &doc, cmd, err);
}

/* updateUser(name, update[, writeConcern]): { updateUser: name, ...update (without passwordDigestor)
 * [, writeConcern][, digestPassword] } on the database. */
static bool
build_update_user (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   static const char *const skip[] = { "passwordDigestor", NULL };
   bson_t doc, *cmd;
   if (!args_check (call, 0, ARG_STRING, true, "Database", "updateUser", err) ||
       !args_check (call, 1, ARG_OBJECT, true, "Database", "updateUser", err) ||
       !args_check (call, 2, ARG_OBJECT, false, "Database", "updateUser", err))
      return false;
   if (!args_doc (call, 1, &doc)) {
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 1), "updateUser needs an update document");
      return false;
   }
   cmd = sh_requests_add (out, call->db, CONN_ADMIN);
   args_append (call, 0, cmd, "updateUser");
   users_copy_except (&doc, cmd, skip);
   return users_append_tail (call, 2, &doc, cmd, err);
}

/* changeUserPassword(user[, password][, writeConcern]): { updateUser: user, pwd: password[, writeConcern] }; a missing
 * password is asked for when the call runs. */
static bool
build_change_user_password (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t *cmd;
   if (!args_check (call, 0, ARG_STRING, true, "Database", "changeUserPassword", err) ||
       !args_check (call, 1, ARG_STRING, false, "Database", "changeUserPassword", err) ||
       !args_check (call, 2, ARG_OBJECT, false, "Database", "changeUserPassword", err))
      return false;
   cmd = sh_requests_add (out, call->db, CONN_ADMIN);
   args_append (call, 0, cmd, "updateUser");
   if (args_str (call, 1))
      args_append (call, 1, cmd, "pwd");
   return users_append_tail (call, 2, NULL, cmd, err);
}

/* Runs the built request; when it must carry a password and has none, asks for one first (placed right after the
 * command's first field, where a typed one would be). Under --dry-run nothing is asked. */
static bool
exec_with_password (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   sh_requests_t reqs = { .n = 0 }, asked_reqs = { .n = 0 };
   sh_call_t run = *call;
   bson_iter_t it;
   char *pw = NULL;
   bool ok = false, needs;

   if (!sh_requests_build (call, &reqs, err))
      goto done;
   needs = reqs.n == 1 && !bson_has_field (&reqs.v[0].cmd, "pwd") && strcmp (call->db, "$external") != 0 &&
           !cmd_dry_run (ctx);
   if (needs && !strcmp (args_method (call), "createUser")) {
      bson_t doc;
      needs = args_doc (call, 0, &doc) && !bson_has_field (&doc, "mechanisms");
   }
   if (needs) {
      bson_t *cmd;
      if (!(pw = sh_prompt_password ("Enter password", call->cmd->name, err))) {
         err->has_pos = true;
         err->pos = call->pos;
         goto done;
      }
      cmd = sh_requests_add (&asked_reqs, reqs.v[0].db, reqs.v[0].path);
      if (bson_iter_init (&it, &reqs.v[0].cmd) && bson_iter_next (&it))
         bson_append_iter (cmd, bson_iter_key (&it), -1, &it);
      BSON_APPEND_UTF8 (cmd, "pwd", pw);
      while (bson_iter_next (&it))
         bson_append_iter (cmd, bson_iter_key (&it), -1, &it);
      run.built = &asked_reqs;
   } else {
      run.built = &reqs;
   }
   ok = cmd_exec_requests (ctx, &run, res, err);
done:
   users_forget (pw);
   sh_requests_destroy (&reqs);
   sh_requests_destroy (&asked_reqs);
   return ok;
}

const sh_cmd_t cmd_db_auth = {
   .name = "db.auth",
   .usage = "db.auth(user[, password])",
   .summary = "Authenticate the session on the current database; also db.auth({user, pwd[, mechanism]}); the "
              "password is asked for, without echo, when left out",
   .sends = "a new connection authenticated as <user> with authSource <db> (SCRAM, or <mechanism>); nothing under "
            "--dry-run",
   .example = "db.getSiblingDB(\"admin\").auth(\"ops\", \"s3cret\")",
   .flags = CMD_READONLY,
   .exec = exec_auth,
};
const sh_cmd_t cmd_db_create_user = {
   .name = "db.createUser",
   .usage = "db.createUser(user[, writeConcern])",
   .summary = "Create a user ({user, pwd, roles, ...}; pwd asked for, without echo, when left out)",
   .sends = "<db> { createUser: <user.user>, pwd, roles, ...[, writeConcern][, digestPassword] }",
   .example = "db.getSiblingDB(\"admin\").createUser({user: \"ops\", pwd: \"s3cret\", roles: [\"clusterManager\"]})",
   .build = build_create_user,
   .exec = exec_with_password,
};
const sh_cmd_t cmd_db_update_user = {
   .name = "db.updateUser",
   .usage = "db.updateUser(user, update[, writeConcern])",
   .summary = "Change a user's roles, password or custom data",
   .sends = "<db> { updateUser: <user>, ...update[, writeConcern][, digestPassword] }",
   .example = "db.getSiblingDB(\"admin\").updateUser(\"ops\", {roles: [\"clusterMonitor\"]})",
   .build = build_update_user,
};
const sh_cmd_t cmd_db_change_user_password = {
   .name = "db.changeUserPassword",
   .usage = "db.changeUserPassword(user[, password][, writeConcern])",
   .summary = "Set a user's password (asked for, without echo, when left out)",
   .sends = "<db> { updateUser: <user>, pwd: <password>[, writeConcern] }",
   .example = "db.getSiblingDB(\"admin\").changeUserPassword(\"ops\", \"n3w-s3cret\")",
   .build = build_change_user_password,
   .exec = exec_with_password,
};
