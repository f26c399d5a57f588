/* The store of shardsim's user management, shared by its three files: sim_usermgmt.c (users, the store, role
 * lists), sim_roles.c (roles) and sim_authinfo.c (usersInfo, rolesInfo, the built-in roles). Callers hold sim_g.lock.
 */
#ifndef SHARDSIM_SIM_USERMGMT_H
#define SHARDSIM_SIM_USERMGMT_H

#include "tests/shardsim/query/simq_int.h" /* simq_type_name, simq_match */
#include "tests/shardsim/sim.h"

/* One user: its credentials are sim_auth.c's (none for a $external user). roles: an array of { role, db }. */
typedef struct {
   char *user;
   char *db;
   uint8_t uuid[16];
   bson_t roles;
   bson_t custom; /* customData, when has_custom */
   bool has_custom;
   bson_t restrictions; /* authenticationRestrictions (an array), when has_restrictions */
   bool has_restrictions;
} um_user_t;

/* One user-defined role: privileges and authenticationRestrictions as given, roles an array of { role, db }. */
typedef struct {
   char *role;
   char *db;
   bson_t privileges;
   bson_t roles;
   bson_t restrictions;
   bool has_restrictions;
} um_role_t;

typedef struct {
   um_user_t *users;
   size_t nusers;
   um_role_t *roles;
   size_t nroles;
} um_store_t;

extern um_store_t um_g;

/* The user or role name@db, or NULL (borrowed until the store changes). */
um_user_t *
um_find_user (const char *user, const char *db);
um_role_t *
um_find_role (const char *role, const char *db);

/* Initialises dst (uninitialised) as a copy of the document data[0, len) (empty when it is not one). */
void
um_copy_data (bson_t *dst, const uint8_t *data, uint32_t len);

/* Frees what role r holds (not r itself). */
void
um_role_free (um_role_t *r);

/* Adds the --auth users the store does not hold yet (root on admin). */
void
um_sync (void);

/* Whether role@db is a built-in role (RoleGraph's names for that database; admin has the cluster-wide ones). */
bool
um_builtin_role (const char *role, const char *db);

/* Whether role@db exists: built-in or user-defined. */
bool
um_role_exists (const char *role, const char *db);

/* Whether the { role, db } array roles holds role@db; appends it. */
bool
um_roles_has (const bson_t *roles, const char *role, const char *db);
void
um_roles_append (bson_t *roles, const char *role, const char *db);

/* The command's field (an array of role names, strings naming roles of the command's database, or { role, db }) as
 * an array of { role, db } without repeats into out (initialised here in every case). False after an error reply:
 * missing when need (40414), not an array (14), a malformed entry (2), a role that does not exist (31 RoleNotFound). */
bool
um_parse_roles (const sim_ctx_t *ctx, const char *field, bool need, bson_t *out, bson_t *reply);

/* roles = roles + add (in order, without repeats), or roles - add when remove. */
void
um_roles_merge (bson_t *roles, const bson_t *add, bool remove);

/* The command's first field as a non-empty string, or NULL after an error reply (14). */
const char *
um_cmd_name_arg (const sim_ctx_t *ctx, bson_t *reply);

#endif
