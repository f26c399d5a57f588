/* shardsim's readers of user management, usersInfo and rolesInfo, and the built-in roles' names, as the server's
 * user_management_commands.cpp and auth/authz_manager_external_state_local.cpp (getRolesDescription,
 * getRoleDescriptionsForDB) answer them (docs/shardsim.md, "Users and roles"). The store is sim_usermgmt.c's.
 * Callers hold sim_g.lock. */
#include "tests/shardsim/sim_usermgmt.h"
#include "shell/lib/order.h"

#include <string.h>

/* ---- built-in roles (auth/builtin_roles: every database has the first five, admin the rest) ---- */

static const char *const um_db_builtins[] = { "dbAdmin", "dbOwner", "read", "readWrite", "userAdmin" };
static const char *const um_admin_builtins[] = {
   "__queryableBackup",
   "__system",
   "backup",
   "clusterAdmin",
   "clusterManager",
   "clusterMonitor",
   "dbAdminAnyDatabase",
   "directShardOperations", /* 8.0+ */
   "enableSharding",
   "hostManager",
   "readAnyDatabase",
   "readWriteAnyDatabase",
   "restore",
   "root",
   "userAdminAnyDatabase",
};

/* The built-in role names of db in name order, into names (room for 32); returns how many. */
static size_t
um_builtin_names (const char *db, const char **names)
{
   size_t n = 0;
   for (size_t i = 0; i < sizeof um_db_builtins / sizeof um_db_builtins[0]; i++)
      names[n++] = um_db_builtins[i];
   if (!strcmp (db, "admin")) {
      for (size_t i = 0; i < sizeof um_admin_builtins / sizeof um_admin_builtins[0]; i++) {
         if (strcmp (um_admin_builtins[i], "directShardOperations") != 0 || sim_ver_ge (80))
            names[n++] = um_admin_builtins[i];
      }
   }
   /* in strcmp order, as the server's sorted set gives them */
   for (size_t i = 1; i < n; i++) {
      for (size_t j = i; j > 0 && strcmp (names[j - 1], names[j]) > 0; j--) {
         const char *t = names[j];
         names[j] = names[j - 1];
         names[j - 1] = t;
      }
   }
   return n;
}

bool
um_builtin_role (const char *role, const char *db)
{
   const char *names[32];
   size_t n = um_builtin_names (db, names);
   if (!strcmp (db, "$external"))
      return false;
   for (size_t i = 0; i < n; i++) {
      if (!strcmp (names[i], role))
         return true;
   }
   return false;
}

/* ---- inherited roles and privileges ---- */

/* Appends the privilege it stands on to privs unless an equal one is there. */
static void
um_privs_add (bson_t *privs, const bson_iter_t *it)
{
   bson_t priv, have;
   bson_iter_t q;
   const uint8_t *data;
   uint32_t len;
   char key[16];
   const char *k;
   if (!BSON_ITER_HOLDS_DOCUMENT (it))
      return;
   bson_iter_document (it, &len, &data);
   bson_init_static (&priv, data, len);
   bson_iter_init (&q, privs);
   while (bson_iter_next (&q)) {
      bson_iter_document (&q, &len, &data);
      if (bson_init_static (&have, data, len) && order_docs (&have, &priv) == 0)
         return;
   }
   bson_uint32_to_string (bson_count_keys (privs), &k, key, sizeof key);
   BSON_APPEND_DOCUMENT (privs, k, &priv);
}

/* Appends to out_roles every role reachable from roles (themselves included when self, without repeats) and to
 * out_privs the privileges of the user-defined ones (without repeats); built-in roles' privileges are not modelled. */
static void
um_closure (const bson_t *roles, bool self, bson_t *out_roles, bson_t *out_privs, int depth)
{
   bson_iter_t it;
   if (depth > 64 || !bson_iter_init (&it, roles))
      return;
   while (bson_iter_next (&it)) {
      bson_iter_t a, b, p;
      const char *role, *db;
      um_role_t *r;
      bson_iter_recurse (&it, &a);
      bson_iter_recurse (&it, &b);
      if (!bson_iter_find (&a, "role") || !bson_iter_find (&b, "db"))
         continue;
      role = bson_iter_utf8 (&a, NULL);
      db = bson_iter_utf8 (&b, NULL);
      if (self) {
         if (um_roles_has (out_roles, role, db))
            continue;
         um_roles_append (out_roles, role, db);
      }
      if (!(r = um_find_role (role, db)))
         continue;
      if (out_privs && bson_iter_init (&p, &r->privileges)) {
         while (bson_iter_next (&p))
            um_privs_add (out_privs, &p);
      }
      um_closure (&r->roles, true, out_roles, out_privs, depth + 1);
   }
}

/* The show* options of usersInfo / rolesInfo. */
typedef struct {
   bool credentials, custom, privileges, restrictions, builtins;
   bool has_filter;
   bson_t filter;
} um_show_t;

static void
um_show_read (const bson_t *cmd, um_show_t *show)
{
   bson_iter_t it;
   const uint8_t *data;
   uint32_t len;
   memset (show, 0, sizeof *show);
   show->custom = true;
   if (bson_iter_init_find (&it, cmd, "showCredentials"))
      show->credentials = bson_iter_as_bool (&it);
   if (bson_iter_init_find (&it, cmd, "showCustomData"))
      show->custom = bson_iter_as_bool (&it);
   if (bson_iter_init_find (&it, cmd, "showPrivileges"))
      show->privileges = bson_iter_as_bool (&it);
   if (bson_iter_init_find (&it, cmd, "showAuthenticationRestrictions"))
      show->restrictions = bson_iter_as_bool (&it);
   if (bson_iter_init_find (&it, cmd, "showBuiltinRoles"))
      show->builtins = bson_iter_as_bool (&it);
   if (bson_iter_init_find (&it, cmd, "filter") && BSON_ITER_HOLDS_DOCUMENT (&it)) {
      bson_iter_document (&it, &len, &data);
      show->has_filter = bson_init_static (&show->filter, data, len);
   }
}

/* Appends an empty array under key. */
static void
um_empty_array (bson_t *doc, const char *key)
{
   bson_t a;
   BSON_APPEND_ARRAY_BEGIN (doc, key, &a);
   bson_append_array_end (doc, &a);
}

/* ---- usersInfo ---- */

static void
um_user_doc (const um_user_t *u, const um_show_t *show, bson_t *out)
{
   char *id = bson_strdup_printf ("%s.%s", u->db, u->user);
   bson_t mech;
   BSON_APPEND_UTF8 (out, "_id", id);
   bson_free (id);
   BSON_APPEND_BINARY (out, "userId", BSON_SUBTYPE_UUID, u->uuid, 16);
   BSON_APPEND_UTF8 (out, "user", u->user);
   BSON_APPEND_UTF8 (out, "db", u->db);
   if (show->credentials)
      sim_auth_append_credentials (u->user, u->db, out);
   if (u->has_custom && show->custom)
      BSON_APPEND_DOCUMENT (out, "customData", &u->custom);
   BSON_APPEND_ARRAY (out, "roles", &u->roles);
   if (show->restrictions)
      BSON_APPEND_ARRAY (out, "authenticationRestrictions", &u->restrictions);
   BSON_APPEND_ARRAY_BEGIN (out, "mechanisms", &mech);
   if (sim_auth_has_user (u->user, u->db)) {
      BSON_APPEND_UTF8 (&mech, "0", "SCRAM-SHA-1");
      BSON_APPEND_UTF8 (&mech, "1", "SCRAM-SHA-256");
   } else {
      BSON_APPEND_UTF8 (&mech, "0", "external");
   }
   bson_append_array_end (out, &mech);
   if (show->privileges) {
      bson_t roles = BSON_INITIALIZER, privs = BSON_INITIALIZER;
      um_closure (&u->roles, true, &roles, &privs, 0);
      BSON_APPEND_ARRAY (out, "inheritedRoles", &roles);
      BSON_APPEND_ARRAY (out, "inheritedPrivileges", &privs);
      um_empty_array (out, "inheritedAuthenticationRestrictions");
      bson_destroy (&roles);
      bson_destroy (&privs);
   }
}

/* Appends user u to arr when the filter (if any) matches its document. */
static void
um_users_push (bson_t *arr, const um_user_t *u, const um_show_t *show)
{
   bson_t doc = BSON_INITIALIZER;
   bool matched = true;
   char key[16];
   const char *k;
   bson_error_t error;
   um_user_doc (u, show, &doc);
   if (show->has_filter && !simq_match (&doc, &show->filter, &matched, &error))
      matched = false;
   if (matched) {
      bson_uint32_to_string (bson_count_keys (arr), &k, key, sizeof key);
      BSON_APPEND_DOCUMENT (arr, k, &doc);
   }
   bson_destroy (&doc);
}

static int
um_user_cmp (const void *a, const void *b)
{
   const um_user_t *x = *(const um_user_t *const *) a, *y = *(const um_user_t *const *) b;
   int c = strcmp (x->user, y->user);
   return c ? c : strcmp (x->db, y->db);
}

/* The users of db (every database's when db is NULL), sorted by user then db. */
static void
um_users_all (bson_t *arr, const char *db, const um_show_t *show)
{
   const um_user_t **v = bson_malloc ((um_g.nusers + 1) * sizeof *v);
   size_t n = 0;
   for (size_t i = 0; i < um_g.nusers; i++) {
      if (!db || !strcmp (um_g.users[i].db, db))
         v[n++] = &um_g.users[i];
   }
   qsort (v, n, sizeof *v, um_user_cmp);
   for (size_t i = 0; i < n; i++)
      um_users_push (arr, v[i], show);
   bson_free (v);
}

/* A name the command gives: a string (on the command's database) or { <key>: name, db }; false when malformed. */
static bool
um_name_of (const bson_iter_t *it, const char *key, const char *cmd_db, const char **name, const char **db)
{
   bson_iter_t a, b;
   if (BSON_ITER_HOLDS_UTF8 (it)) {
      *name = bson_iter_utf8 (it, NULL);
      *db = cmd_db;
      return true;
   }
   if (!BSON_ITER_HOLDS_DOCUMENT (it) || !bson_iter_recurse (it, &a) || !bson_iter_recurse (it, &b) ||
       !bson_iter_find (&a, key) || !BSON_ITER_HOLDS_UTF8 (&a) || !bson_iter_find (&b, "db") ||
       !BSON_ITER_HOLDS_UTF8 (&b))
      return false;
   *name = bson_iter_utf8 (&a, NULL);
   *db = bson_iter_utf8 (&b, NULL);
   return true;
}

void
sim_cmd_users_info (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it, f;
   um_show_t show;
   bson_t arr = BSON_INITIALIZER;
   um_sync ();
   um_show_read (ctx->cmd, &show);
   bson_iter_init_find (&it, ctx->cmd, "usersInfo");
   if (BSON_ITER_HOLDS_NUMBER (&it)) {
      um_users_all (&arr, ctx->db, &show);
   } else if (BSON_ITER_HOLDS_DOCUMENT (&it) && bson_iter_recurse (&it, &f) && bson_iter_find (&f, "forAllDBs")) {
      um_users_all (&arr, NULL, &show);
   } else {
      bson_iter_t list = it;
      bool many = BSON_ITER_HOLDS_ARRAY (&it) && bson_iter_recurse (&it, &list);
      do {
         const char *name, *db;
         um_user_t *u;
         if (many && !bson_iter_next (&list))
            break;
         if (!um_name_of (many ? &list : &it, "user", ctx->db, &name, &db)) {
            sim_reply_error (reply, 2,
                             "User name must be either a string or an object of the form "
                             "{user: ..., db: ...}");
            bson_destroy (&arr);
            return;
         }
         if ((u = um_find_user (name, db)))
            um_users_push (&arr, u, &show);
      } while (many);
   }
   BSON_APPEND_ARRAY (reply, "users", &arr);
   bson_destroy (&arr);
   sim_reply_ok (reply);
}

/* ---- rolesInfo ---- */

static void
um_builtin_doc (const char *role, const char *db, const um_show_t *show, bson_t *out)
{
   BSON_APPEND_UTF8 (out, "role", role);
   BSON_APPEND_UTF8 (out, "db", db);
   BSON_APPEND_BOOL (out, "isBuiltin", true);
   um_empty_array (out, "roles");
   um_empty_array (out, "inheritedRoles");
   if (show->privileges) {
      um_empty_array (out, "privileges");
      um_empty_array (out, "inheritedPrivileges");
   }
   if (show->restrictions) {
      um_empty_array (out, "authenticationRestrictions");
      um_empty_array (out, "inheritedAuthenticationRestrictions");
   }
}

/* A user-defined role: filterAndMapRole's fields, isBuiltin when listed for a database, then the inherited ones. */
static void
um_role_doc (const um_role_t *r, const um_show_t *show, bool for_db, bson_t *out)
{
   char *id = bson_strdup_printf ("%s.%s", r->db, r->role);
   bson_t roles = BSON_INITIALIZER, privs = BSON_INITIALIZER;
   BSON_APPEND_UTF8 (out, "_id", id);
   bson_free (id);
   BSON_APPEND_UTF8 (out, "role", r->role);
   BSON_APPEND_UTF8 (out, "db", r->db);
   if (show->privileges)
      BSON_APPEND_ARRAY (out, "privileges", &r->privileges);
   BSON_APPEND_ARRAY (out, "roles", &r->roles);
   if (show->restrictions)
      BSON_APPEND_ARRAY (out, "authenticationRestrictions", &r->restrictions);
   if (for_db)
      BSON_APPEND_BOOL (out, "isBuiltin", false);
   um_closure (&r->roles, true, &roles, &privs, 0);
   BSON_APPEND_ARRAY (out, "inheritedRoles", &roles);
   if (show->privileges) {
      /* the role's own privileges first, then what it inherits (without repeats) */
      bson_t all = BSON_INITIALIZER;
      bson_iter_t p;
      bson_iter_init (&p, &r->privileges);
      while (bson_iter_next (&p))
         um_privs_add (&all, &p);
      bson_iter_init (&p, &privs);
      while (bson_iter_next (&p))
         um_privs_add (&all, &p);
      BSON_APPEND_ARRAY (out, "inheritedPrivileges", &all);
      bson_destroy (&all);
   }
   if (show->restrictions)
      um_empty_array (out, "inheritedAuthenticationRestrictions");
   bson_destroy (&roles);
   bson_destroy (&privs);
}

/* Appends one role document to arr. */
static void
um_roles_push (bson_t *arr, const bson_t *doc)
{
   char key[16];
   const char *k;
   bson_uint32_to_string (bson_count_keys (arr), &k, key, sizeof key);
   BSON_APPEND_DOCUMENT (arr, k, doc);
}

/* role@db into arr when it exists (built-in or user-defined). */
static void
um_roles_push_one (bson_t *arr, const char *role, const char *db, const um_show_t *show, bool for_db)
{
   bson_t doc = BSON_INITIALIZER;
   um_role_t *r;
   if (um_builtin_role (role, db))
      um_builtin_doc (role, db, show, &doc);
   else if ((r = um_find_role (role, db)))
      um_role_doc (r, show, for_db, &doc);
   if (!bson_empty (&doc))
      um_roles_push (arr, &doc);
   bson_destroy (&doc);
}

void
sim_cmd_roles_info (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   um_show_t show;
   bson_t arr = BSON_INITIALIZER;
   um_show_read (ctx->cmd, &show);
   bson_iter_init_find (&it, ctx->cmd, "rolesInfo");
   if (BSON_ITER_HOLDS_NUMBER (&it)) {
      const char *names[32];
      size_t n = show.builtins ? um_builtin_names (ctx->db, names) : 0;
      for (size_t i = 0; i < n; i++)
         um_roles_push_one (&arr, names[i], ctx->db, &show, true);
      for (size_t i = 0; i < um_g.nroles; i++) {
         if (!strcmp (um_g.roles[i].db, ctx->db))
            um_roles_push_one (&arr, um_g.roles[i].role, ctx->db, &show, true);
      }
   } else {
      bson_iter_t list = it;
      bool many = BSON_ITER_HOLDS_ARRAY (&it) && bson_iter_recurse (&it, &list);
      do {
         const char *name, *db;
         if (many && !bson_iter_next (&list))
            break;
         if (!um_name_of (many ? &list : &it, "role", ctx->db, &name, &db)) {
            sim_reply_error (reply, 2,
                             "Role name must be either a string or an object of the form "
                             "{role: ..., db: ...}");
            bson_destroy (&arr);
            return;
         }
         um_roles_push_one (&arr, name, db, &show, false);
      } while (many);
   }
   BSON_APPEND_ARRAY (reply, "roles", &arr);
   bson_destroy (&arr);
   sim_reply_ok (reply);
}
