/* shardsim's user-defined roles: createRole, updateRole, dropRole, dropAllRolesFromDatabase, grantRolesToRole,
 * revokeRolesFromRole, grantPrivilegesToRole and revokePrivilegesFromRole, as the server's
 * user_management_commands.cpp answers them (docs/shardsim.md, "Users and roles"). The store is sim_usermgmt.c's,
 * the readers and the built-in roles sim_authinfo.c's. Callers hold sim_g.lock. */
#include "tests/shardsim/sim_usermgmt.h"

#include "shell/lib/order.h"

#include <string.h>

/* ---- roles ---- */

/* The privileges field of the command as given (an array) into out (initialised here); false after an error reply. */
static bool
um_parse_privileges (const sim_ctx_t *ctx, bool need, bson_t *out, bool *given, bson_t *reply)
{
   bson_iter_t it;
   const uint8_t *data;
   uint32_t len;
   bson_init (out);
   *given = bson_iter_init_find (&it, ctx->cmd, "privileges");
   if (!*given) {
      if (need)
         sim_reply_error (reply, 40414, "BSON field '%s.privileges' is missing but a required field", ctx->name);
      return !need;
   }
   if (!BSON_ITER_HOLDS_ARRAY (&it)) {
      sim_reply_error (reply, 14, "BSON field '%s.privileges' is the wrong type '%s', expected type 'array'", ctx->name,
                       simq_type_name (bson_iter_type (&it)));
      return false;
   }
   bson_iter_array (&it, &len, &data);
   bson_destroy (out);
   um_copy_data (out, data, len);
   return true;
}

/* The role the command names (its first field) when it is user-defined; NULL after an error reply: 65 for a built-in
 * role, 31 when it does not exist. */
static um_role_t *
um_cmd_role (const sim_ctx_t *ctx, const char **name, bson_t *reply)
{
   um_role_t *r;
   if (!(*name = um_cmd_name_arg (ctx, reply)))
      return NULL;
   if (um_builtin_role (*name, ctx->db)) {
      sim_reply_error (reply, 65,
                       "Cannot grant privileges to, revoke privileges from, update or drop built-in role "
                       "%s@%s",
                       *name, ctx->db);
      return NULL;
   }
   if (!(r = um_find_role (*name, ctx->db)))
      sim_reply_error (reply, 31, "Could not find role: %s@%s", *name, ctx->db);
   return r;
}

/* Whether role@db holds target among the roles it inherits (a cycle if target were granted to it). */
static bool
um_role_reaches (const char *role, const char *db, const char *trole, const char *tdb, int depth)
{
   um_role_t *r = um_find_role (role, db);
   bson_iter_t it;
   if (!strcmp (role, trole) && !strcmp (db, tdb))
      return true;
   if (!r || depth > 64 || !bson_iter_init (&it, &r->roles))
      return false;
   while (bson_iter_next (&it)) {
      bson_iter_t a, b;
      bson_iter_recurse (&it, &a);
      bson_iter_recurse (&it, &b);
      if (bson_iter_find (&a, "role") && bson_iter_find (&b, "db") &&
          um_role_reaches (bson_iter_utf8 (&a, NULL), bson_iter_utf8 (&b, NULL), trole, tdb, depth + 1))
         return true;
   }
   return false;
}

/* A reply error (5 GraphContainsCycle) when granting any of roles to role@db would make a cycle. */
static bool
um_check_cycle (const sim_ctx_t *ctx, const char *role, const bson_t *roles, bson_t *reply)
{
   bson_iter_t it;
   bson_iter_init (&it, roles);
   while (bson_iter_next (&it)) {
      bson_iter_t a, b;
      bson_iter_recurse (&it, &a);
      bson_iter_recurse (&it, &b);
      if (bson_iter_find (&a, "role") && bson_iter_find (&b, "db") &&
          um_role_reaches (bson_iter_utf8 (&a, NULL), bson_iter_utf8 (&b, NULL), role, ctx->db, 0)) {
         sim_reply_error (reply, 5, "Granting roles to %s@%s would introduce a cycle in the role graph", role, ctx->db);
         return false;
      }
   }
   return true;
}

void
sim_cmd_create_role (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   bson_t privileges, roles;
   bson_iter_t it;
   bool given;
   um_role_t *r;
   if (!(name = um_cmd_name_arg (ctx, reply)))
      return;
   if (!strcmp (ctx->db, "$external")) {
      sim_reply_error (reply, 2, "Cannot create roles in the $external database");
      return;
   }
   if (um_builtin_role (name, ctx->db)) {
      sim_reply_error (reply, 2, "Cannot create roles with the same name as a built-in role");
      return;
   }
   if (um_find_role (name, ctx->db)) {
      sim_reply_error (reply, 51002, "Role \"%s@%s\" already exists", name, ctx->db);
      return;
   }
   if (!um_parse_privileges (ctx, true, &privileges, &given, reply) ||
       !um_parse_roles (ctx, "roles", true, &roles, reply)) {
      bson_destroy (&privileges);
      bson_destroy (&roles);
      return;
   }
   if (um_roles_has (&roles, name, ctx->db)) {
      sim_reply_error (reply, 5, "Granting roles to %s@%s would introduce a cycle in the role graph", name, ctx->db);
      bson_destroy (&privileges);
      bson_destroy (&roles);
      return;
   }
   um_g.roles = bson_realloc (um_g.roles, (um_g.nroles + 1) * sizeof *um_g.roles);
   r = &um_g.roles[um_g.nroles++];
   memset (r, 0, sizeof *r);
   r->role = bson_strdup (name);
   r->db = bson_strdup (ctx->db);
   bson_steal (&r->privileges, &privileges);
   bson_steal (&r->roles, &roles);
   bson_init (&r->restrictions);
   if (bson_iter_init_find (&it, ctx->cmd, "authenticationRestrictions") && BSON_ITER_HOLDS_ARRAY (&it)) {
      const uint8_t *data;
      uint32_t len;
      bson_iter_array (&it, &len, &data);
      bson_destroy (&r->restrictions);
      um_copy_data (&r->restrictions, data, len);
      r->has_restrictions = true;
   }
   sim_reply_ok (reply);
}

void
sim_cmd_update_role (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   bson_t privileges, roles;
   bool given;
   um_role_t *r;
   if (!(r = um_cmd_role (ctx, &name, reply)))
      return;
   if (!bson_has_field (ctx->cmd, "privileges") && !bson_has_field (ctx->cmd, "roles") &&
       !bson_has_field (ctx->cmd, "authenticationRestrictions")) {
      sim_reply_error (reply, 2, "Must specify at least one field to update in updateRole");
      return;
   }
   if (!um_parse_privileges (ctx, false, &privileges, &given, reply) ||
       !um_parse_roles (ctx, "roles", false, &roles, reply) || !um_check_cycle (ctx, name, &roles, reply)) {
      bson_destroy (&privileges);
      bson_destroy (&roles);
      return;
   }
   if (given) {
      bson_destroy (&r->privileges);
      bson_steal (&r->privileges, &privileges);
   } else {
      bson_destroy (&privileges);
   }
   if (bson_has_field (ctx->cmd, "roles")) {
      bson_destroy (&r->roles);
      bson_steal (&r->roles, &roles);
   } else {
      bson_destroy (&roles);
   }
   sim_reply_ok (reply);
}

/* Removes role@db from every user's and role's roles (dropRole's cleanup of what holds it). */
static void
um_forget_role (const char *role, const char *db)
{
   bson_t one = BSON_INITIALIZER;
   um_roles_append (&one, role, db);
   for (size_t i = 0; i < um_g.nusers; i++)
      um_roles_merge (&um_g.users[i].roles, &one, true);
   for (size_t i = 0; i < um_g.nroles; i++)
      um_roles_merge (&um_g.roles[i].roles, &one, true);
   bson_destroy (&one);
}

void
sim_cmd_drop_role (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   um_role_t *r;
   char *role, *db;
   um_sync ();
   if (!(r = um_cmd_role (ctx, &name, reply)))
      return;
   role = bson_strdup (r->role);
   db = bson_strdup (r->db);
   um_role_free (r);
   memmove (r, r + 1, (size_t) (&um_g.roles[um_g.nroles] - (r + 1)) * sizeof *r);
   um_g.nroles--;
   um_forget_role (role, db);
   bson_free (role);
   bson_free (db);
   sim_reply_ok (reply);
}

void
sim_cmd_drop_all_roles (sim_ctx_t *ctx, bson_t *reply)
{
   size_t i = 0, n = 0;
   um_sync ();
   while (i < um_g.nroles) {
      um_role_t *r = &um_g.roles[i];
      if (strcmp (r->db, ctx->db) != 0) {
         i++;
         continue;
      }
      char *role = bson_strdup (r->role), *db = bson_strdup (r->db);
      um_role_free (r);
      memmove (r, r + 1, (um_g.nroles - i - 1) * sizeof *r);
      um_g.nroles--;
      um_forget_role (role, db);
      bson_free (role);
      bson_free (db);
      n++;
   }
   BSON_APPEND_INT32 (reply, "n", (int32_t) n);
   sim_reply_ok (reply);
}

/* grantRolesToRole / revokeRolesFromRole: { <name>: role, roles: [ ... ] } */
void
sim_cmd_role_roles (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   bson_t roles;
   um_role_t *r;
   bool revoke = !strcmp (ctx->name, "revokeRolesFromRole");
   if (!(r = um_cmd_role (ctx, &name, reply)))
      return;
   if (!um_parse_roles (ctx, "roles", true, &roles, reply) || (!revoke && !um_check_cycle (ctx, name, &roles, reply))) {
      bson_destroy (&roles);
      return;
   }
   if (bson_empty (&roles)) {
      sim_reply_error (reply, 2, "\"%s\" command requires a non-empty \"roles\" array", ctx->name);
   } else {
      um_roles_merge (&r->roles, &roles, revoke);
      sim_reply_ok (reply);
   }
   bson_destroy (&roles);
}

/* privileges + add (a privilege whose resource is already there takes the new actions), or privileges - add (the
 * actions named are taken from the privilege of the same resource; a privilege left without actions goes). */
static void
um_privileges_merge (bson_t *privileges, const bson_t *add, bool revoke)
{
   bson_t next = BSON_INITIALIZER;
   bson_iter_t it;
   char key[16];
   const char *k;
   uint32_t n = 0;
   /* kept: each existing privilege unless revoke names its resource (then its actions minus the ones named) */
   bson_iter_init (&it, privileges);
   while (bson_iter_next (&it)) {
      bson_t priv, actions = BSON_INITIALIZER, *other = NULL, found, out;
      bson_value_t res;
      bson_iter_t a, o;
      const uint8_t *data;
      uint32_t len, na = 0;
      bson_iter_document (&it, &len, &data);
      bson_init_static (&priv, data, len);
      simq_find_value (&priv, "resource", &res);
      /* the privilege of add with the same resource */
      bson_iter_init (&o, add);
      while (!other && bson_iter_next (&o)) {
         bson_value_t ores;
         bson_iter_document (&o, &len, &data);
         bson_init_static (&found, data, len);
         if (simq_find_value (&found, "resource", &ores) && order_values (&res, &ores) == 0)
            other = &found;
      }
      if (bson_iter_init_find (&a, &priv, "actions") && BSON_ITER_HOLDS_ARRAY (&a) && bson_iter_recurse (&a, &a)) {
         while (bson_iter_next (&a)) {
            bool named = false;
            bson_iter_t oa;
            if (other && bson_iter_init_find (&oa, other, "actions") && bson_iter_recurse (&oa, &oa)) {
               while (bson_iter_next (&oa))
                  named = named || !strcmp (bson_iter_utf8 (&oa, NULL), bson_iter_utf8 (&a, NULL));
            }
            if (!(revoke && named)) {
               bson_uint32_to_string (na++, &k, key, sizeof key);
               BSON_APPEND_UTF8 (&actions, k, bson_iter_utf8 (&a, NULL));
            }
         }
      }
      if (!revoke && other && bson_iter_init_find (&o, other, "actions") && bson_iter_recurse (&o, &o)) {
         while (bson_iter_next (&o)) {
            bool had = false;
            bson_iter_t have;
            bson_iter_init (&have, &actions);
            while (bson_iter_next (&have))
               had = had || !strcmp (bson_iter_utf8 (&have, NULL), bson_iter_utf8 (&o, NULL));
            if (!had) {
               bson_uint32_to_string (na++, &k, key, sizeof key);
               BSON_APPEND_UTF8 (&actions, k, bson_iter_utf8 (&o, NULL));
            }
         }
      }
      if (na > 0) {
         bson_uint32_to_string (n++, &k, key, sizeof key);
         BSON_APPEND_DOCUMENT_BEGIN (&next, k, &out);
         BSON_APPEND_VALUE (&out, "resource", &res);
         BSON_APPEND_ARRAY (&out, "actions", &actions);
         bson_append_document_end (&next, &out);
      }
      bson_destroy (&actions);
   }
   /* granted: the privileges of add whose resource was not there */
   bson_iter_init (&it, add);
   while (!revoke && bson_iter_next (&it)) {
      bson_t priv;
      bson_value_t res;
      bool there = false;
      bson_iter_t p;
      const uint8_t *data;
      uint32_t len;
      bson_iter_document (&it, &len, &data);
      bson_init_static (&priv, data, len);
      simq_find_value (&priv, "resource", &res);
      bson_iter_init (&p, privileges);
      while (bson_iter_next (&p)) {
         bson_t have;
         bson_value_t hres;
         bson_iter_document (&p, &len, &data);
         bson_init_static (&have, data, len);
         there = there || (simq_find_value (&have, "resource", &hres) && order_values (&res, &hres) == 0);
      }
      if (!there) {
         bson_uint32_to_string (n++, &k, key, sizeof key);
         BSON_APPEND_DOCUMENT (&next, k, &priv);
      }
   }
   bson_destroy (privileges);
   bson_steal (privileges, &next);
}

/* grantPrivilegesToRole / revokePrivilegesFromRole: { <name>: role, privileges: [ { resource, actions } ] } */
void
sim_cmd_role_privileges (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   bson_t privileges;
   bson_iter_t it;
   bool given;
   um_role_t *r;
   if (!(r = um_cmd_role (ctx, &name, reply)))
      return;
   if (!um_parse_privileges (ctx, true, &privileges, &given, reply)) {
      bson_destroy (&privileges);
      return;
   }
   bson_iter_init (&it, &privileges);
   while (bson_iter_next (&it)) {
      bson_iter_t f;
      if (!BSON_ITER_HOLDS_DOCUMENT (&it) || !bson_iter_recurse (&it, &f) || !bson_iter_find (&f, "resource") ||
          !BSON_ITER_HOLDS_DOCUMENT (&f) || !bson_iter_recurse (&it, &f) || !bson_iter_find (&f, "actions") ||
          !BSON_ITER_HOLDS_ARRAY (&f)) {
         sim_reply_error (reply, 2, "Privileges must be documents with a 'resource' document and an 'actions' array");
         bson_destroy (&privileges);
         return;
      }
   }
   if (bson_empty (&privileges)) {
      sim_reply_error (reply, 2, "%s command requires a non-empty \"privileges\" array", ctx->name);
   } else {
      um_privileges_merge (&r->privileges, &privileges, !strcmp (ctx->name, "revokePrivilegesFromRole"));
      sim_reply_ok (reply);
   }
   bson_destroy (&privileges);
}
