/* Roles, as mongosh's Database methods manage them: db.createRole, db.updateRole, db.dropRole, db.dropAllRoles,
 * db.grantRolesToRole, db.revokeRolesFromRole, db.grantPrivilegesToRole, db.revokePrivilegesFromRole, db.getRole and
 * db.getRoles. Each sends the command mongosh 2.12 sends, on the database the call runs on; the builds they share
 * with the user methods are in users.h. */
#include <string.h>

#include "commands/args.h"
#include "commands/exec.h"
#include "commands/table.h"
#include "commands/users.h"

/* createRole(role[, writeConcern]): { createRole: role.role, ...role (its other fields in order)[, writeConcern] }. */
static bool
build_create_role (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   static const char *const required[] = { "role", "privileges", "roles" };
   bson_t doc, base = BSON_INITIALIZER, wc = BSON_INITIALIZER, *cmd;
   bson_iter_t it;
   if (!args_check (call, 0, ARG_OBJECT, true, "Database", "createRole", err))
      goto fail;
   if (!args_doc (call, 0, &doc)) {
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0), "createRole needs a role document");
      goto fail;
   }
   for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
      if (!bson_iter_init_find (&it, &doc, required[i]) || BSON_ITER_HOLDS_UNDEFINED (&it)) {
         sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0), "[COMMON-10001] Missing required property: \"%s\"",
                          required[i]);
         goto fail;
      }
   }
   if (bson_iter_init_find (&it, &doc, "createRole") && bson_iter_as_bool (&it)) {
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0),
                       "[COMMON-10001] Cannot set createRole field in helper method");
      goto fail;
   }
   bson_iter_init_find (&it, &doc, "role");
   bson_append_iter (&base, "createRole", -1, &it);
   bson_copy_to_excluding_noinit (&doc, &base, "role", "createRole", NULL);
   users_append_write_concern (call, 1, &wc);
   /* a writeConcern field of the role document takes the argument's value in its own place (JavaScript's spread) */
   cmd = sh_requests_add (out, call->db, CONN_ADMIN);
   args_spread (cmd, &base, &wc);
   bson_destroy (&base);
   bson_destroy (&wc);
   return true;
fail:
   bson_destroy (&base);
   bson_destroy (&wc);
   return false;
}

/* updateRole(name, update[, writeConcern]): { updateRole: name, ...update[, writeConcern] }. */
static bool
build_update_role (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t doc, base = BSON_INITIALIZER, mid = BSON_INITIALIZER, wc = BSON_INITIALIZER;
   if (!args_check (call, 0, ARG_STRING, true, "Database", "updateRole", err) ||
       !args_check (call, 1, ARG_OBJECT, true, "Database", "updateRole", err)) {
      bson_destroy (&base);
      bson_destroy (&mid);
      bson_destroy (&wc);
      return false;
   }
   args_append (call, 0, &base, "updateRole");
   args_spread (&mid, &base, args_doc (call, 1, &doc) ? &doc : NULL);
   users_append_write_concern (call, 2, &wc);
   args_spread (sh_requests_add (out, call->db, CONN_ADMIN), &mid, &wc);
   bson_destroy (&base);
   bson_destroy (&mid);
   bson_destroy (&wc);
   return true;
}

const sh_cmd_t cmd_db_create_role = {
   .name = "db.createRole",
   .usage = "db.createRole(role[, writeConcern])",
   .summary = "Create a role ({role, privileges, roles[, authenticationRestrictions]})",
   .sends = "<db> { createRole: <role.role>, privileges, roles, ...[, writeConcern] }",
   .example = "db.getSiblingDB(\"admin\").createRole({role: \"balancerOps\", privileges: [{resource: {db: \"config\", "
              "collection: \"settings\"}, actions: [\"find\", \"update\"]}], roles: [\"clusterMonitor\"]})",
   .build = build_create_role,
};
const sh_cmd_t cmd_db_update_role = {
   .name = "db.updateRole",
   .usage = "db.updateRole(role, update[, writeConcern])",
   .summary = "Replace a role's privileges, roles or authentication restrictions",
   .sends = "<db> { updateRole: <role>, ...update[, writeConcern] }",
   .example = "db.getSiblingDB(\"admin\").updateRole(\"balancerOps\", {roles: [\"clusterManager\"]})",
   .build = build_update_role,
};
const sh_cmd_t cmd_db_drop_role = {
   .name = "db.dropRole",
   .usage = "db.dropRole(role[, writeConcern])",
   .summary = "Remove a role from the database (and from every user and role holding it)",
   .sends = "<db> { dropRole: <role>[, writeConcern] }",
   .example = "db.getSiblingDB(\"admin\").dropRole(\"balancerOps\")",
   .build = users_build_name,
};
const sh_cmd_t cmd_db_drop_all_roles = {
   .name = "db.dropAllRoles",
   .usage = "db.dropAllRoles([writeConcern])",
   .summary = "Remove every role of the database; the reply's n counts them",
   .sends = "<db> { dropAllRolesFromDatabase: 1[, writeConcern] }",
   .example = "db.getSiblingDB(\"reports\").dropAllRoles()",
   .build = users_build_drop_all,
};
const sh_cmd_t cmd_db_grant_roles_to_role = {
   .name = "db.grantRolesToRole",
   .usage = "db.grantRolesToRole(role, roles[, writeConcern])",
   .summary = "Make a role inherit more roles",
   .sends = "<db> { grantRolesToRole: <role>, roles[, writeConcern] }",
   .example = "db.getSiblingDB(\"admin\").grantRolesToRole(\"balancerOps\", [\"clusterMonitor\"])",
   .build = users_build_name_list,
};
const sh_cmd_t cmd_db_revoke_roles_from_role = {
   .name = "db.revokeRolesFromRole",
   .usage = "db.revokeRolesFromRole(role, roles[, writeConcern])",
   .summary = "Stop a role inheriting roles",
   .sends = "<db> { revokeRolesFromRole: <role>, roles[, writeConcern] }",
   .example = "db.getSiblingDB(\"admin\").revokeRolesFromRole(\"balancerOps\", [\"clusterMonitor\"])",
   .build = users_build_name_list,
};
const sh_cmd_t cmd_db_grant_privileges_to_role = {
   .name = "db.grantPrivilegesToRole",
   .usage = "db.grantPrivilegesToRole(role, privileges[, writeConcern])",
   .summary = "Add privileges ({resource, actions}) to a role",
   .sends = "<db> { grantPrivilegesToRole: <role>, privileges[, writeConcern] }",
   .example = "db.getSiblingDB(\"admin\").grantPrivilegesToRole(\"balancerOps\", [{resource: {cluster: true}, "
              "actions: [\"balancerStart\", \"balancerStop\"]}])",
   .build = users_build_name_list,
};
const sh_cmd_t cmd_db_revoke_privileges_from_role = {
   .name = "db.revokePrivilegesFromRole",
   .usage = "db.revokePrivilegesFromRole(role, privileges[, writeConcern])",
   .summary = "Remove privileges (or some of their actions) from a role",
   .sends = "<db> { revokePrivilegesFromRole: <role>, privileges[, writeConcern] }",
   .example = "db.getSiblingDB(\"admin\").revokePrivilegesFromRole(\"balancerOps\", [{resource: {cluster: true}, "
              "actions: [\"balancerStop\"]}])",
   .build = users_build_name_list,
};
const sh_cmd_t cmd_db_get_role = {
   .name = "db.getRole",
   .usage = "db.getRole(role[, options])",
   .summary = "One role of the database, built-in ones included (null when there is none); options: "
              "showPrivileges, showAuthenticationRestrictions, showBuiltinRoles",
   .sends = "<db> { rolesInfo: { role: <role>, db: <db> }, ...options }",
   .example = "db.getSiblingDB(\"admin\").getRole(\"clusterManager\", {showPrivileges: true})",
   .flags = CMD_READONLY,
   .build = users_build_info,
   .exec = users_exec_get_one,
};
const sh_cmd_t cmd_db_get_roles = {
   .name = "db.getRoles",
   .usage = "db.getRoles([options])",
   .summary = "The database's roles: the rolesInfo reply { roles, ok }; options: showBuiltinRoles, showPrivileges, "
              "showAuthenticationRestrictions",
   .sends = "<db> { rolesInfo: 1, ...options }",
   .example = "db.getSiblingDB(\"admin\").getRoles({showBuiltinRoles: true})",
   .flags = CMD_READONLY,
   .build = users_build_info,
};
