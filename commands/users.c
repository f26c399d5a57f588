/* Users and authentication, as mongosh's Database methods do them: db.auth (a new client with the credentials, as
 * mongosh re-authenticates), db.createUser, db.updateUser, db.changeUserPassword, db.dropUser, db.dropAllUsers,
 * db.grantRolesToUser, db.revokeRolesFromUser, db.getUser, db.getUsers and db.logout. A password left out is asked
 * for at the terminal without echo (mongosh's passwordPrompt()); without a terminal the call says so and sends
 * nothing. Passwords never show: every output goes through shell/lib/secret.h. The builds roles.c shares are in
 * users.h. */
#include <string.h>

#include "commands/args.h"
#include "commands/exec.h"
#include "commands/table.h"
#include "commands/users.h"
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

/* createUser(user[, writeConcern]): { createUser: user.user, ...user (without user and passwordDigestor)
 * [, writeConcern][, digestPassword] } on the database. A missing pwd is asked for when the call runs. */
static bool
build_create_user (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
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
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0), "[COMMON-10001] Missing required property: \"%s\"",
                       bson_has_field (&doc, "user") ? "roles" : "user");
      return false;
   }
   if (!strcmp (call->db, "$external") && bson_has_field (&doc, "pwd")) {
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0),
                       "[COMMON-10001] Cannot set password for users on the $external database");
      return false;
   }
   if (bson_has_field (&doc, "createUser")) {
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0),
                       "[COMMON-10001] Cannot set createUser field in helper method");
      return false;
   }
   cmd = sh_requests_add (out, call->db, CONN_ADMIN);
   bson_append_iter (cmd, "createUser", -1, &it);
   bson_copy_to_excluding_noinit (&doc, cmd, "user", "passwordDigestor", NULL);
   return users_append_tail (call, 1, &doc, cmd, err);
}

/* updateUser(name, update[, writeConcern]): { updateUser: name, ...update (without passwordDigestor)
 * [, writeConcern][, digestPassword] } on the database. */
static bool
build_update_user (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
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
   bson_copy_to_excluding_noinit (&doc, cmd, "passwordDigestor", NULL);
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

/* ---- what users.c and roles.c share (users.h) ---- */

/* JavaScript truthiness of a parsed value: false, null, undefined, 0, NaN and "" are false. */
static bool
users_truthy (const bson_iter_t *it)
{
   switch (bson_iter_type (it)) {
   case BSON_TYPE_BOOL:
      return bson_iter_bool (it);
   case BSON_TYPE_NULL:
   case BSON_TYPE_UNDEFINED:
      return false;
   case BSON_TYPE_INT32:
      return bson_iter_int32 (it) != 0;
   case BSON_TYPE_INT64:
      return bson_iter_int64 (it) != 0;
   case BSON_TYPE_DOUBLE: {
      double d = bson_iter_double (it);
      return d == d && d != 0.0;
   }
   case BSON_TYPE_UTF8: {
      uint32_t len = 0;
      bson_iter_utf8 (it, &len);
      return len > 0;
   }
   default:
      return true;
   }
}

void
users_append_write_concern (const sh_call_t *call, int i, bson_t *cmd)
{
   bson_iter_t it;
   if (args_get (call, i, &it) && users_truthy (&it))
      bson_append_iter (cmd, "writeConcern", -1, &it);
}

bool
users_build_name (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   const char *method = args_method (call);
   bson_t *cmd;
   if (!args_check (call, 0, ARG_STRING, true, "Database", method, err))
      return false;
   cmd = sh_requests_add (out, call->db, CONN_ADMIN);
   args_append (call, 0, cmd, method);
   users_append_write_concern (call, 1, cmd);
   return true;
}

bool
users_build_name_list (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   const char *method = args_method (call);
   bson_t *cmd;
   if (!args_check (call, 0, ARG_STRING, true, "Database", method, err) ||
       !args_check (call, 1, ARG_ANY, true, "Database", method, err))
      return false;
   cmd = sh_requests_add (out, call->db, CONN_ADMIN);
   args_append (call, 0, cmd, method);
   args_append (call, 1, cmd, strstr (method, "Privileges") ? "privileges" : "roles");
   users_append_write_concern (call, 2, cmd);
   return true;
}

bool
users_build_drop_all (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   char name[64];
   bson_t *cmd;
   (void) err;
   bson_snprintf (name, sizeof name, "%sFromDatabase", args_method (call));
   cmd = sh_requests_add (out, call->db, CONN_ADMIN);
   BSON_APPEND_INT32 (cmd, name, 1);
   users_append_write_concern (call, 0, cmd);
   return true;
}

/* True for the role methods' readers (getRole, getRoles), false for the users' (getUser, getUsers). */
static bool
users_info_is_roles (const sh_call_t *call)
{
   return strstr (args_method (call), "Role") != NULL;
}

bool
users_build_info (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   const char *method = args_method (call);
   bool roles = users_info_is_roles (call), one = method[strlen (method) - 1] != 's';
   const char *info = roles ? "rolesInfo" : "usersInfo";
   bson_t base = BSON_INITIALIZER, opts, sub;
   if (one && !args_check (call, 0, ARG_STRING, true, "Database", method, err)) {
      bson_destroy (&base);
      return false;
   }
   if (one) {
      /* mongosh: adaptOptions({}, { usersInfo: { user: name, db } }, options) */
      BSON_APPEND_DOCUMENT_BEGIN (&base, info, &sub);
      args_append (call, 0, &sub, roles ? "role" : "user");
      BSON_APPEND_UTF8 (&sub, "db", call->db);
      bson_append_document_end (&base, &sub);
   } else {
      BSON_APPEND_INT32 (&base, info, 1);
   }
   args_spread (sh_requests_add (out, call->db, CONN_READ), &base, args_doc (call, one ? 1 : 0, &opts) ? &opts : NULL);
   bson_destroy (&base);
   return true;
}

bool
users_exec_get_one (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bool roles = users_info_is_roles (call), ok;
   const char *name = args_str (call, 0);
   bson_iter_t it, list;
   bson_t reply;
   bson_value_t null_value = { .value_type = BSON_TYPE_NULL };

   ok = cmd_run_build (ctx, call, &reply, err);
   if (ok && !cmd_dry_run (ctx)) {
      if (!bson_iter_init_find (&it, &reply, roles ? "roles" : "users") || !BSON_ITER_HOLDS_ARRAY (&it) ||
          !bson_iter_recurse (&it, &list)) {
         sh_error_set_at (err, SH_ERR_ARGS, call->pos,
                          roles ? "[COMMON-90001] No roles returned from rolesInfo command"
                                : "[COMMON-90001] No users were returned from the userInfo command");
         ok = false;
      } else {
         sh_result_set_value (res, &null_value);
         while (bson_iter_next (&list)) {
            bson_t one;
            const uint8_t *data;
            uint32_t len;
            if (!BSON_ITER_HOLDS_DOCUMENT (&list))
               continue;
            bson_iter_document (&list, &len, &data);
            if (bson_init_static (&one, data, len) && name &&
                !strcmp (docget_utf8 (&one, roles ? "role" : "user", ""), name)) {
               sh_result_set_doc (res, &one);
               break;
            }
         }
      }
   }
   bson_destroy (&reply);
   return ok;
}

bool
users_show (sh_ctx_t *ctx, bool roles, sh_result_t *res, sh_error_t *err)
{
   bson_t cmd = BSON_INITIALIZER, reply, list;
   bool ok;
   /* mongosh: db.getUsers(), or db.getRoles({ showBuiltinRoles: true }); the list is the result */
   BSON_APPEND_INT32 (&cmd, roles ? "rolesInfo" : "usersInfo", 1);
   if (roles)
      BSON_APPEND_BOOL (&cmd, "showBuiltinRoles", true);
   ok = conn_run (ctx, ctx->db, &cmd, CONN_READ, &reply, err);
   if (ok && docget_sub (&reply, roles ? "roles" : "users", BSON_TYPE_ARRAY, &list))
      sh_result_set_array (res, &list);
   bson_destroy (&cmd);
   bson_destroy (&reply);
   return ok;
}

static bool
build_logout (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   (void) err;
   BSON_APPEND_INT32 (sh_requests_add (out, call->db, CONN_ADMIN), "logout", 1);
   return true;
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
const sh_cmd_t cmd_db_drop_user = {
   .name = "db.dropUser",
   .usage = "db.dropUser(user[, writeConcern])",
   .summary = "Remove a user from the database",
   .sends = "<db> { dropUser: <user>[, writeConcern] }",
   .example = "db.getSiblingDB(\"admin\").dropUser(\"ops\")",
   .build = users_build_name,
};
const sh_cmd_t cmd_db_drop_all_users = {
   .name = "db.dropAllUsers",
   .usage = "db.dropAllUsers([writeConcern])",
   .summary = "Remove every user of the database; the reply's n counts them",
   .sends = "<db> { dropAllUsersFromDatabase: 1[, writeConcern] }",
   .example = "db.getSiblingDB(\"reports\").dropAllUsers()",
   .build = users_build_drop_all,
};
const sh_cmd_t cmd_db_grant_roles_to_user = {
   .name = "db.grantRolesToUser",
   .usage = "db.grantRolesToUser(user, roles[, writeConcern])",
   .summary = "Give a user more roles (names on this database, or {role, db})",
   .sends = "<db> { grantRolesToUser: <user>, roles[, writeConcern] }",
   .example =
      "db.getSiblingDB(\"admin\").grantRolesToUser(\"ops\", [\"clusterMonitor\", {role: \"read\", db: \"config\"}])",
   .build = users_build_name_list,
};
const sh_cmd_t cmd_db_revoke_roles_from_user = {
   .name = "db.revokeRolesFromUser",
   .usage = "db.revokeRolesFromUser(user, roles[, writeConcern])",
   .summary = "Take roles away from a user",
   .sends = "<db> { revokeRolesFromUser: <user>, roles[, writeConcern] }",
   .example = "db.getSiblingDB(\"admin\").revokeRolesFromUser(\"ops\", [\"clusterMonitor\"])",
   .build = users_build_name_list,
};
const sh_cmd_t cmd_db_get_user = {
   .name = "db.getUser",
   .usage = "db.getUser(user[, options])",
   .summary = "One user of the database (null when there is none); options: showCredentials, showPrivileges, "
              "showAuthenticationRestrictions, showCustomData",
   .sends = "<db> { usersInfo: { user: <user>, db: <db> }, ...options }",
   .example = "db.getSiblingDB(\"admin\").getUser(\"ops\", {showPrivileges: true})",
   .flags = CMD_READONLY,
   .build = users_build_info,
   .exec = users_exec_get_one,
};
const sh_cmd_t cmd_db_get_users = {
   .name = "db.getUsers",
   .usage = "db.getUsers([options])",
   .summary = "The database's users: the usersInfo reply { users, ok }; options: filter, showCredentials, "
              "showPrivileges, showCustomData",
   .sends = "<db> { usersInfo: 1, ...options }",
   .example = "db.getSiblingDB(\"admin\").getUsers({filter: {\"roles.role\": \"root\"}})",
   .flags = CMD_READONLY,
   .build = users_build_info,
};
const sh_cmd_t cmd_db_logout = {
   .name = "db.logout",
   .usage = "db.logout()",
   .summary = "End the authentication of the session's connection on this database (deprecated by the server)",
   .sends = "<db> { logout: 1 }",
   .example = "db.getSiblingDB(\"admin\").logout()",
   .build = build_logout,
};
