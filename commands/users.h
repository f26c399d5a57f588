/* What the user methods (users.c) and the role methods (roles.c) share, as mongosh's Database methods build them:
 * the writeConcern argument mongosh appends when it is truthy, the { <method>: <name>, roles | privileges: <list> }
 * commands, the drop-all commands, and usersInfo / rolesInfo with the method that picks one user or role out of the
 * reply. Every build() here takes its command name from the entry's method name. */
#ifndef SHARDSH_USERS_H
#define SHARDSH_USERS_H

#include <bson/bson.h>
#include <stdbool.h>

#include "commands/result.h"
#include "commands/table.h"

/* Appends argument i as writeConcern when it is truthy in JavaScript (mongosh: if (writeConcern) ...). */
void
users_append_write_concern (const sh_call_t *call, int i, bson_t *cmd);

/* A build(): { <method>: <argument 0, a string>[, writeConcern: <argument 1>] } on the call's database
 * (db.dropUser, db.dropRole). */
bool
users_build_name (const sh_call_t *call, sh_requests_t *out, sh_error_t *err);

/* A build(): { <method>: <argument 0, a string>, roles | privileges: <argument 1>[, writeConcern: <argument 2>] } on
 * the call's database, "privileges" when the method grants or revokes privileges (db.grantRolesToUser,
 * db.revokeRolesFromRole, db.grantPrivilegesToRole, ...). */
bool
users_build_name_list (const sh_call_t *call, sh_requests_t *out, sh_error_t *err);

/* A build(): { <method>FromDatabase: 1[, writeConcern: <argument 0>] } (db.dropAllUsers, db.dropAllRoles). */
bool
users_build_drop_all (const sh_call_t *call, sh_requests_t *out, sh_error_t *err);

/* A build() for getUser / getRole ({ usersInfo | rolesInfo: { user | role: <argument 0>, db }, ...<argument 1> })
 * and getUsers / getRoles ({ usersInfo | rolesInfo: 1, ...<argument 0> }), on the call's database. */
bool
users_build_info (const sh_call_t *call, sh_requests_t *out, sh_error_t *err);

/* The exec() of getUser / getRole: runs the build and fills res with the reply's user (role) whose name is argument
 * 0, or null when there is none; an error when the reply has no users (roles) array, as mongosh's. */
bool
users_exec_get_one (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err);

/* show users / show roles (mongosh's ShowResult): runs usersInfo: 1, or rolesInfo: 1 with showBuiltinRoles, on the
 * current database and fills res with the list. False with err set when the command fails. */
bool
users_show (sh_ctx_t *ctx, bool roles, sh_result_t *res, sh_error_t *err);

#endif
