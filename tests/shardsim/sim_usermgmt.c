/* shardsim's user management: the users' roles, custom data and authentication restrictions, and the user-defined
 * roles, kept in memory beside the credentials sim_auth.c keeps; the commands a mongos answers for them, as the
 * server's user_management_commands.cpp and auth/authz_manager_external_state_local.cpp do (docs/shardsim.md, "Users
 * and roles"). The roles are sim_roles.c's, usersInfo and rolesInfo sim_authinfo.c's. Callers hold sim_g.lock. */
#include "tests/shardsim/sim_usermgmt.h"

#include <string.h>

um_store_t um_g;

/* ---- the store ---- */

void
um_copy_data (bson_t *dst, const uint8_t *data, uint32_t len)
{
   bson_t src;
   if (!bson_init_static (&src, data, len)) {
      bson_init (dst);
      return;
   }
   bson_copy_to (&src, dst);
}

static void
um_user_free (um_user_t *u)
{
   bson_free (u->user);
   bson_free (u->db);
   bson_destroy (&u->roles);
   bson_destroy (&u->custom);
   bson_destroy (&u->restrictions);
}

void
um_role_free (um_role_t *r)
{
   bson_free (r->role);
   bson_free (r->db);
   bson_destroy (&r->privileges);
   bson_destroy (&r->roles);
   bson_destroy (&r->restrictions);
}

void
sim_usermgmt_destroy (void)
{
   for (size_t i = 0; i < um_g.nusers; i++)
      um_user_free (&um_g.users[i]);
   for (size_t i = 0; i < um_g.nroles; i++)
      um_role_free (&um_g.roles[i]);
   bson_free (um_g.users);
   bson_free (um_g.roles);
   memset (&um_g, 0, sizeof um_g);
}

um_user_t *
um_find_user (const char *user, const char *db)
{
   for (size_t i = 0; i < um_g.nusers; i++) {
      if (!strcmp (um_g.users[i].user, user) && !strcmp (um_g.users[i].db, db))
         return &um_g.users[i];
   }
   return NULL;
}

um_role_t *
um_find_role (const char *role, const char *db)
{
   for (size_t i = 0; i < um_g.nroles; i++) {
      if (!strcmp (um_g.roles[i].role, role) && !strcmp (um_g.roles[i].db, db))
         return &um_g.roles[i];
   }
   return NULL;
}

static um_user_t *
um_add_user (const char *user, const char *db)
{
   um_user_t *u;
   um_g.users = bson_realloc (um_g.users, (um_g.nusers + 1) * sizeof *um_g.users);
   u = &um_g.users[um_g.nusers++];
   memset (u, 0, sizeof *u);
   u->user = bson_strdup (user);
   u->db = bson_strdup (db);
   sim_uuid_new (u->uuid);
   bson_init (&u->roles);
   bson_init (&u->custom);
   bson_init (&u->restrictions);
   return u;
}

void
um_sync (void)
{
   /* the --auth users, made before the server started, hold root on admin */
   for (size_t i = 0; i < sim_auth_user_count (); i++) {
      const char *user, *db;
      sim_auth_user_at (i, &user, &db);
      if (!um_find_user (user, db)) {
         um_user_t *u = um_add_user (user, db);
         bson_t one;
         BSON_APPEND_DOCUMENT_BEGIN (&u->roles, "0", &one);
         BSON_APPEND_UTF8 (&one, "role", "root");
         BSON_APPEND_UTF8 (&one, "db", "admin");
         bson_append_document_end (&u->roles, &one);
      }
   }
}

/* ---- role lists ---- */

bool
um_role_exists (const char *role, const char *db)
{
   return um_builtin_role (role, db) || um_find_role (role, db);
}

bool
um_roles_has (const bson_t *roles, const char *role, const char *db)
{
   bson_iter_t it, f;
   if (!bson_iter_init (&it, roles))
      return false;
   while (bson_iter_next (&it)) {
      bson_t one;
      const uint8_t *data;
      uint32_t len;
      if (!BSON_ITER_HOLDS_DOCUMENT (&it))
         continue;
      bson_iter_document (&it, &len, &data);
      if (bson_init_static (&one, data, len) && bson_iter_init_find (&f, &one, "role") &&
          !strcmp (bson_iter_utf8 (&f, NULL), role) && bson_iter_init_find (&f, &one, "db") &&
          !strcmp (bson_iter_utf8 (&f, NULL), db))
         return true;
   }
   return false;
}

void
um_roles_append (bson_t *roles, const char *role, const char *db)
{
   char key[16];
   const char *k;
   bson_t one;
   bson_uint32_to_string (bson_count_keys (roles), &k, key, sizeof key);
   BSON_APPEND_DOCUMENT_BEGIN (roles, k, &one);
   BSON_APPEND_UTF8 (&one, "role", role);
   BSON_APPEND_UTF8 (&one, "db", db);
   bson_append_document_end (roles, &one);
}

bool
um_parse_roles (const sim_ctx_t *ctx, const char *field, bool need, bson_t *out, bson_t *reply)
{
   bson_iter_t it, arr, f;
   bson_init (out);
   if (!bson_iter_init_find (&it, ctx->cmd, field)) {
      if (need)
         sim_reply_error (reply, 40414, "BSON field '%s.%s' is missing but a required field", ctx->name, field);
      return !need;
   }
   if (!BSON_ITER_HOLDS_ARRAY (&it) || !bson_iter_recurse (&it, &arr)) {
      sim_reply_error (reply, 14, "BSON field '%s.%s' is the wrong type '%s', expected type 'array'", ctx->name, field,
                       simq_type_name (bson_iter_type (&it)));
      return false;
   }
   while (bson_iter_next (&arr)) {
      const char *role = NULL, *db = ctx->db;
      if (BSON_ITER_HOLDS_UTF8 (&arr)) {
         role = bson_iter_utf8 (&arr, NULL);
      } else if (BSON_ITER_HOLDS_DOCUMENT (&arr)) {
         bson_iter_t d;
         bson_iter_recurse (&arr, &d);
         if (bson_iter_find (&d, "role") && BSON_ITER_HOLDS_UTF8 (&d))
            role = bson_iter_utf8 (&d, NULL);
         bson_iter_recurse (&arr, &f);
         db = bson_iter_find (&f, "db") && BSON_ITER_HOLDS_UTF8 (&f) ? bson_iter_utf8 (&f, NULL) : NULL;
      }
      if (!role || !db) {
         sim_reply_error (reply, 2, "Role names must be either strings or objects of the form {role: ..., db: ...}");
         return false;
      }
      if (!um_role_exists (role, db)) {
         sim_reply_error (reply, 31, "Could not find role: %s@%s", role, db);
         return false;
      }
      if (!um_roles_has (out, role, db))
         um_roles_append (out, role, db);
   }
   return true;
}

void
um_roles_merge (bson_t *roles, const bson_t *add, bool remove)
{
   bson_t next = BSON_INITIALIZER;
   bson_iter_t it, f;
   const char *role, *db;
   bson_iter_init (&it, roles);
   while (bson_iter_next (&it)) {
      bson_iter_t d;
      bson_iter_recurse (&it, &d);
      role = bson_iter_find (&d, "role") ? bson_iter_utf8 (&d, NULL) : "";
      bson_iter_recurse (&it, &f);
      db = bson_iter_find (&f, "db") ? bson_iter_utf8 (&f, NULL) : "";
      if (!(remove && um_roles_has (add, role, db)))
         um_roles_append (&next, role, db);
   }
   if (!remove) {
      bson_iter_init (&it, add);
      while (bson_iter_next (&it)) {
         bson_iter_t d;
         bson_iter_recurse (&it, &d);
         role = bson_iter_find (&d, "role") ? bson_iter_utf8 (&d, NULL) : "";
         bson_iter_recurse (&it, &f);
         db = bson_iter_find (&f, "db") ? bson_iter_utf8 (&f, NULL) : "";
         if (!um_roles_has (&next, role, db))
            um_roles_append (&next, role, db);
      }
   }
   bson_destroy (roles);
   bson_steal (roles, &next);
}

/* The string field name of the command (its first field), or NULL after an error reply. */
const char *
um_cmd_name_arg (const sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   if (!bson_iter_init_find (&it, ctx->cmd, ctx->name) || !BSON_ITER_HOLDS_UTF8 (&it) || !*bson_iter_utf8 (&it, NULL)) {
      sim_reply_error (reply, 14, "BSON field '%s.%s' is the wrong type, expected type 'string'", ctx->name, ctx->name);
      return NULL;
   }
   return bson_iter_utf8 (&it, NULL);
}

/* Replaces *dst with the document field key of the command when present (true); false after an error reply. */
static bool
um_take_doc (const sim_ctx_t *ctx, const char *key, bson_type_t type, bson_t *dst, bool *given, bson_t *reply)
{
   bson_iter_t it;
   const uint8_t *data;
   uint32_t len;
   *given = false;
   if (!bson_iter_init_find (&it, ctx->cmd, key))
      return true;
   if (bson_iter_type (&it) != type) {
      sim_reply_error (reply, 14, "BSON field '%s.%s' is the wrong type '%s', expected type '%s'", ctx->name, key,
                       simq_type_name (bson_iter_type (&it)), simq_type_name (type));
      return false;
   }
   if (type == BSON_TYPE_ARRAY)
      bson_iter_array (&it, &len, &data);
   else
      bson_iter_document (&it, &len, &data);
   bson_destroy (dst);
   um_copy_data (dst, data, len);
   *given = true;
   return true;
}

/* ---- users ---- */

/* The password field of createUser/updateUser: its string, or NULL (then *why says what is wrong, or is empty when
 * the field is absent). */
static const char *
um_cmd_pwd (const sim_ctx_t *ctx, char *why, size_t whylen)
{
   bson_iter_t it;
   why[0] = '\0';
   if (!bson_iter_init_find (&it, ctx->cmd, "pwd"))
      return NULL;
   if (!BSON_ITER_HOLDS_UTF8 (&it) || !*bson_iter_utf8 (&it, NULL)) {
      bson_snprintf (why, whylen, "BSON field '%s.pwd' must be a non-empty string", ctx->name);
      return NULL;
   }
   return bson_iter_utf8 (&it, NULL);
}

/* customData and authenticationRestrictions of createUser/updateUser into u; false after an error reply. */
static bool
um_user_fields (const sim_ctx_t *ctx, um_user_t *u, bson_t *reply)
{
   bool given;
   if (!um_take_doc (ctx, "customData", BSON_TYPE_DOCUMENT, &u->custom, &given, reply))
      return false;
   u->has_custom = u->has_custom || given;
   if (!um_take_doc (ctx, "authenticationRestrictions", BSON_TYPE_ARRAY, &u->restrictions, &given, reply))
      return false;
   u->has_restrictions = u->has_restrictions || given;
   return true;
}

void
sim_cmd_create_user (sim_ctx_t *ctx, bson_t *reply)
{
   char why[256], err[256];
   const char *user, *pwd;
   bson_t roles;
   um_user_t *u;
   um_sync ();
   if (!(user = um_cmd_name_arg (ctx, reply)))
      return;
   pwd = um_cmd_pwd (ctx, why, sizeof why);
   if (why[0]) {
      sim_reply_error (reply, 2, "%s", why);
      return;
   }
   if (!pwd && strcmp (ctx->db, "$external") != 0) {
      sim_reply_error (reply, 2,
                       "Must provide a 'pwd' field for all user documents, except those with '$external' as the "
                       "user's source db");
      return;
   }
   if (pwd && !strcmp (ctx->db, "$external")) {
      sim_reply_error (reply, 2, "Cannot set the password for users defined on the '$external' database");
      return;
   }
   if (um_find_user (user, ctx->db)) {
      sim_reply_error (reply, 51003, "User \"%s@%s\" already exists", user, ctx->db);
      return;
   }
   if (!um_parse_roles (ctx, "roles", true, &roles, reply)) {
      bson_destroy (&roles);
      return;
   }
   if (pwd && !sim_auth_create_user (user, ctx->db, pwd, err, sizeof err)) {
      sim_reply_error (reply, 2, "%s", err);
      bson_destroy (&roles);
      return;
   }
   u = um_add_user (user, ctx->db);
   bson_destroy (&u->roles);
   bson_steal (&u->roles, &roles);
   if (!um_user_fields (ctx, u, reply)) {
      sim_auth_remove_user (user, ctx->db);
      um_user_free (u);
      um_g.nusers--;
      return;
   }
   sim_reply_ok (reply);
}

void
sim_cmd_update_user (sim_ctx_t *ctx, bson_t *reply)
{
   char why[256];
   const char *user, *pwd;
   bson_t roles;
   um_user_t *u;
   um_sync ();
   if (!(user = um_cmd_name_arg (ctx, reply)))
      return;
   if (!(u = um_find_user (user, ctx->db))) {
      sim_reply_error (reply, 11, "Could not find user \"%s\" for db \"%s\"", user, ctx->db);
      return;
   }
   pwd = um_cmd_pwd (ctx, why, sizeof why);
   if (why[0]) {
      sim_reply_error (reply, 2, "%s", why);
      return;
   }
   if (!pwd && !bson_has_field (ctx->cmd, "roles") && !bson_has_field (ctx->cmd, "customData") &&
       !bson_has_field (ctx->cmd, "authenticationRestrictions") && !bson_has_field (ctx->cmd, "mechanisms")) {
      sim_reply_error (reply, 2, "Must specify at least one field to update in updateUser");
      return;
   }
   if (!um_parse_roles (ctx, "roles", false, &roles, reply)) {
      bson_destroy (&roles);
      return;
   }
   if (pwd && !(sim_auth_has_user (user, ctx->db) ? sim_auth_set_password (user, ctx->db, pwd)
                                                  : sim_auth_create_user (user, ctx->db, pwd, why, sizeof why))) {
      sim_reply_error (reply, 2, "updateUser: the password must be printable ASCII");
      bson_destroy (&roles);
      return;
   }
   if (bson_has_field (ctx->cmd, "roles")) {
      bson_destroy (&u->roles);
      bson_steal (&u->roles, &roles);
   } else {
      bson_destroy (&roles);
   }
   if (um_user_fields (ctx, u, reply))
      sim_reply_ok (reply);
}

void
sim_cmd_drop_user (sim_ctx_t *ctx, bson_t *reply)
{
   const char *user;
   um_user_t *u;
   um_sync ();
   if (!(user = um_cmd_name_arg (ctx, reply)))
      return;
   if (!(u = um_find_user (user, ctx->db))) {
      sim_reply_error (reply, 11, "User '%s@%s' not found", user, ctx->db);
      return;
   }
   sim_auth_remove_user (user, ctx->db);
   um_user_free (u);
   memmove (u, u + 1, (size_t) (&um_g.users[um_g.nusers] - (u + 1)) * sizeof *u);
   um_g.nusers--;
   sim_reply_ok (reply);
}

void
sim_cmd_drop_all_users (sim_ctx_t *ctx, bson_t *reply)
{
   size_t kept = 0, n = 0;
   um_sync ();
   for (size_t i = 0; i < um_g.nusers; i++) {
      um_user_t *u = &um_g.users[i];
      if (!strcmp (u->db, ctx->db)) {
         sim_auth_remove_user (u->user, u->db);
         um_user_free (u);
         n++;
      } else {
         um_g.users[kept++] = *u;
      }
   }
   um_g.nusers = kept;
   BSON_APPEND_INT32 (reply, "n", (int32_t) n);
   sim_reply_ok (reply);
}

/* grantRolesToUser / revokeRolesFromUser: { <name>: user, roles: [ ... ] } */
void
sim_cmd_user_roles (sim_ctx_t *ctx, bson_t *reply)
{
   const char *user;
   bson_t roles;
   um_user_t *u;
   um_sync ();
   if (!(user = um_cmd_name_arg (ctx, reply)))
      return;
   if (!um_parse_roles (ctx, "roles", true, &roles, reply)) {
      bson_destroy (&roles);
      return;
   }
   if (bson_empty (&roles)) {
      sim_reply_error (reply, 2, "\"%s\" command requires a non-empty \"roles\" array", ctx->name);
   } else if (!(u = um_find_user (user, ctx->db))) {
      sim_reply_error (reply, 11, "Could not find user \"%s\" for db \"%s\"", user, ctx->db);
   } else {
      um_roles_merge (&u->roles, &roles, !strcmp (ctx->name, "revokeRolesFromUser"));
      sim_reply_ok (reply);
   }
   bson_destroy (&roles);
}

void
sim_cmd_logout (sim_ctx_t *ctx, bson_t *reply)
{
   sim_auth_logout (ctx->conn, ctx->db);
   sim_reply_ok (reply);
}
