/* shardsim's renameCollection, as a mongos answers it: 5.0+ s/commands/cluster_rename_collection_cmd.cpp and the
 * shard's rename coordinator (db/s/rename_collection_coordinator.cpp, sharding_ddl_util.cpp checkRenamePreconditions,
 * checkDbPrimariesOnTheSameShard: a sharded source renamed within its database, config.collections and config.tags
 * moved to the new name), 4.4 the legacy shard path (unsharded collections only). Callers hold sim_g.lock. */
#include "tests/shardsim/sim_admin.h"
#include "tests/shardsim/sim_crud.h"

#include <string.h>

/* Moves every config.<coll> document whose field is from to to (delete and insert again: the field may be _id). */
static void
sim_rename_config_docs (const char *coll, const char *field, const char *from, const char *to)
{
   sim_coll_t *c = sim_coll_get ("config", coll);
   bson_t filter = BSON_INITIALIZER;
   bson_error_t err;
   simq_docs_t docs;
   sim_hits_t hits = { 0 };
   simq_docs_init (&docs);
   BSON_APPEND_UTF8 (&filter, field, from);
   if (c && sim_coll_collect (c, &filter, &docs, &err) && sim_coll_match (c, &filter, 0, &hits, &err)) {
      sim_coll_delete (c, &hits);
      for (size_t i = 0; i < docs.n; i++) {
         bson_t nd = BSON_INITIALIZER;
         bson_iter_t it;
         bson_iter_init (&it, docs.v[i]);
         while (bson_iter_next (&it)) {
            if (!strcmp (bson_iter_key (&it), field)) {
               BSON_APPEND_UTF8 (&nd, field, to);
            } else {
               bson_append_value (&nd, bson_iter_key (&it), -1, bson_iter_value (&it));
            }
         }
         sim_coll_insert (c, &nd);
         bson_destroy (&nd);
      }
   }
   sim_hits_destroy (&hits);
   simq_docs_clear (&docs);
   bson_destroy (&filter);
}

/* The number of config.tags ranges of ns. */
static size_t
count_tags_of (const char *ns)
{
   sim_coll_t *tags = sim_coll_get ("config", "tags");
   bson_t filter = BSON_INITIALIZER;
   bson_error_t err;
   sim_hits_t hits = { 0 };
   size_t n = 0;
   BSON_APPEND_UTF8 (&filter, "ns", ns);
   if (tags && sim_coll_match (tags, &filter, 0, &hits, &err)) {
      n = hits.n;
   }
   sim_hits_destroy (&hits);
   bson_destroy (&filter);
   return n;
}

/* The checks of renameCollection that depend on sharding: across databases (4.4: the legacy shard path's 13137,
 * 5.0+: the rename coordinator's 125 for a sharded source and sharding_ddl_util::checkDbPrimariesOnTheSameShard's
 * 125), a sharded source or target on 4.4 (renameCollectionLegacy, 20), the target's zones (5.0+
 * checkRenamePreconditions, 125). True when the rename may go on. */
static bool
sim_rename_sharding_checks (const char *from, const char *to, bool sharded, bool tsharded, bson_t *reply)
{
   char fdb[256], tdb[256], fprim[64], tprim[64];
   bson_snprintf (fdb, sizeof fdb, "%.*s", (int) (strchr (from, '.') - from), from);
   bson_snprintf (tdb, sizeof tdb, "%.*s", (int) (strchr (to, '.') - to), to);
   if (strcmp (fdb, tdb) != 0) {
      sim_db_primary (fdb, fprim);
      sim_db_ensure (tdb, tprim);
      if (sharded && sim_ver_ge (50)) {
         sim_reply_error (
            reply, 125, "Source and destination collections must be on the same database because %s is sharded.", from);
         return false;
      }
      if (strcmp (fprim, tprim) != 0) {
         sim_reply_error (reply, sim_ver_ge (50) ? 125 : 13137,
                          "Source and destination collections must be on same shard");
         return false;
      }
   }
   if (!sim_ver_ge (50) && (sharded || tsharded)) {
      if (sharded) {
         sim_reply_error (reply, 20, "source namespace '%s' must not be sharded", from);
      } else {
         sim_reply_error (reply, 20, "cannot rename to sharded collection '%s'", to);
      }
      return false;
   }
   if (sim_ver_ge (50) && count_tags_of (to) > 0) {
      sim_reply_error (reply, 125, "Can't rename to target collection %s because it must not have associated tags", to);
      return false;
   }
   return true;
}

/* renameCollection (on admin). 5.0+: s/commands/cluster_rename_collection_cmd.cpp and the rename coordinator (a
 * sharded source keeps its chunks; config.collections and the zones move to the new name); 4.4: the legacy shard
 * path (unsharded collections only). Across databases when both have the same primary shard. */
void
sim_cmd_rename_collection (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   const char *from, *to;
   if (!bson_iter_init_find (&it, ctx->cmd, "renameCollection") || !BSON_ITER_HOLDS_UTF8 (&it)) {
      sim_reply_error (reply, 73, "Invalid source namespace");
      return;
   }
   from = bson_iter_utf8 (&it, NULL);
   if (!bson_iter_init_find (&it, ctx->cmd, "to") || !BSON_ITER_HOLDS_UTF8 (&it)) {
      sim_reply_error (reply, 40414, "BSON field 'renameCollection.to' is missing but a required field");
      return;
   }
   to = bson_iter_utf8 (&it, NULL);
   const char *fdot = strchr (from, '.'), *tdot = strchr (to, '.');
   if (!fdot || !tdot || !fdot[1] || !tdot[1]) {
      sim_reply_error (reply, 73, "Invalid %s namespace: %s", !fdot || !fdot[1] ? "source" : "target",
                       !fdot || !fdot[1] ? from : to);
      return;
   }
   if (sim_ver_ge (50) && !strcmp (from, to)) {
      sim_reply_error (reply, 20, "Can't rename a collection to itself");
      return;
   }
   sim_coll_t *src = sim_coll_get_ns (from);
   if (!src) {
      sim_reply_error (reply, 26, "Source collection %s does not exist", from);
      return;
   }
   sim_shcoll_t sc;
   bool sharded = sim_shcoll_load (from, &sc);
   sim_shcoll_destroy (&sc);
   bool tsharded = sim_shcoll_load (to, &sc);
   sim_shcoll_destroy (&sc);
   if (!sim_rename_sharding_checks (from, to, sharded, tsharded, reply)) {
      return;
   }
   sim_coll_t *dst = sim_coll_get_ns (to);
   if (dst && dst != src) {
      if (!docget_bool (ctx->cmd, "dropTarget")) {
         sim_reply_error (reply, 48, "target namespace exists");
         return;
      }
      /* drop the target as drop does (with its sharding metadata, 5.0+) */
      bson_t cmd = BSON_INITIALIZER, r = BSON_INITIALIZER;
      sim_ctx_t sub = *ctx;
      char tdbname[256];
      bson_snprintf (tdbname, sizeof tdbname, "%.*s", (int) (tdot - to), to);
      BSON_APPEND_UTF8 (&cmd, "drop", tdot + 1);
      sub.cmd = &cmd;
      sub.db = tdbname;
      sim_cmd_drop (&sub, &r);
      bson_destroy (&cmd);
      bson_destroy (&r);
      src = sim_coll_get_ns (from);
   }
   if (sharded) {
      sim_rename_config_docs ("collections", "_id", from, to);
      sim_rename_config_docs ("tags", "ns", from, to);
      sim_ctab_free (src->ctab);
      src->ctab = NULL;
   }
   char *ns = bson_strdup (to);
   bson_free (src->ns);
   bson_free (src->name);
   bson_free (src->db);
   src->ns = ns;
   src->db = bson_strndup (to, (size_t) (tdot - to));
   src->name = bson_strdup (tdot + 1);
   sim_reply_ok (reply);
}
