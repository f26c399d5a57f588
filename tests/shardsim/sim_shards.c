/* shardsim's shards: addShard, removeShard (draining and its progress), movePrimary, listShards and
 * flushRouterConfig. Callers hold sim_g.lock. */
#include "tests/shardsim/sim_admin.h"
#include "tests/shardsim/query/simq_int.h"

#include "shell/lib/hashkey.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool
sim_shard_is_draining (const char *shard)
{
   bson_t doc;
   bson_iter_t it;
   bool yes = false;
   if (sim_shard_get (shard, &doc)) {
      yes = bson_iter_init_find (&it, &doc, "draining") && bson_iter_as_bool (&it);
      bson_destroy (&doc);
   }
   return yes;
}

/* Whether the comma-separated host list hosts names host (len bytes). */
static bool
sim_host_listed (const char *hosts, const char *host, size_t len)
{
   for (const char *h = hosts; h && *h;) {
      const char *comma = strchr (h, ',');
      size_t l = comma ? (size_t) (comma - h) : strlen (h);
      if (l == len && !strncmp (h, host, len)) {
         return true;
      }
      h = comma ? comma + 1 : NULL;
   }
   return false;
}

/* ShardingCatalogManager::_checkIfShardExists: an existing shard with the proposed connection string's replica set
 * name, or with one of its hosts, is the same shard when the request is equivalent (no other name, same kind of
 * connection string and set name; from 7.0 a replica set of the same name must also share a host): 1 with its name
 * into existing; otherwise 20. A proposed name already taken by a shard with no host in common is 20 too. 0 when no
 * shard conflicts, -1 with err on a conflict. */
static int
sim_shard_exists (const char *proposed, const char *conn, char *existing, size_t len, bson_error_t *err)
{
   simq_docs_t shards;
   simq_docs_init (&shards);
   sim_shards_list (&shards);
   const char *slash = strchr (conn, '/');
   size_t setlen = slash ? (size_t) (slash - conn) : 0;
   const char *hosts = slash ? slash + 1 : conn;
   int found = 0;
   for (size_t i = 0; i < shards.n && !found; i++) {
      const char *id = docget_utf8 (shards.v[i], "_id", NULL), *h = docget_utf8 (shards.v[i], "host", NULL);
      if (!id || !h) {
         continue;
      }
      const char *eslash = strchr (h, '/');
      size_t esetlen = eslash ? (size_t) (eslash - h) : 0;
      const char *ehosts = eslash ? eslash + 1 : h;
      bool same_set = slash && eslash && setlen == esetlen && !strncmp (conn, h, setlen);
      bool equivalent = (!proposed || !strcmp (proposed, id)) && (!slash) == (!eslash) && (!slash || same_set);
      bool overlap = false;
      for (const char *e = ehosts; e && *e && !overlap;) {
         const char *comma = strchr (e, ',');
         overlap = sim_host_listed (hosts, e, comma ? (size_t) (comma - e) : strlen (e));
         e = comma ? comma + 1 : NULL;
      }
      if (same_set) {
         if (equivalent && (overlap || !sim_ver_ge (70))) {
            found = 1;
         } else if (equivalent) {
            /* 7.0+ (checkIfHostsAreEquivalent): an equivalent request must share a host */
            SIM_ERR (err, 20, "A shard named %.*s containing the replica set '%.*s' already exists", (int) setlen, conn,
                     (int) setlen, conn);
            found = -1;
         } else {
            SIM_ERR (err, 20, "A shard already exists containing the replica set '%.*s'", (int) setlen, conn);
            found = -1;
         }
      }
      for (const char *e = ehosts; !found && e && *e;) {
         const char *comma = strchr (e, ',');
         size_t l = comma ? (size_t) (comma - e) : strlen (e);
         if (sim_host_listed (hosts, e, l)) {
            if (equivalent) {
               found = 1;
            } else {
               SIM_ERR (err, 20, "'%.*s' is already a member of the existing shard '%s' (%s).", (int) l, e, h, id);
               found = -1;
            }
         }
         e = comma ? comma + 1 : NULL;
      }
      if (!found && proposed && !strcmp (proposed, id)) {
         SIM_ERR (err, 20, "A shard named %s already exists", proposed);
         found = -1;
      }
      if (found == 1) {
         bson_strncpy (existing, id, len);
      }
   }
   simq_docs_clear (&shards);
   return found;
}

bool
sim_op_add_shard (const char *name, const char *host, bson_error_t *err)
{
   char existing[64];
   int found = sim_shard_exists (name, host, existing, sizeof existing, err);
   if (found != 0) {
      return found > 0; /* idempotent: the shard is there */
   }
   bson_t doc = BSON_INITIALIZER, details = BSON_INITIALIZER;
   sim_shard_doc (name, host, NULL, &doc);
   sim_coll_insert (sim_coll_ensure ("config", "shards"), &doc);
   BSON_APPEND_UTF8 (&details, "name", name);
   BSON_APPEND_UTF8 (&details, "host", host);
   sim_changelog (false, "addShard", "", "config", &details, clock_wall_ms ());
   bson_destroy (&doc);
   bson_destroy (&details);
   sim_g.nshards++;
   return true;
}

void
sim_cmd_add_shard (sim_ctx_t *ctx, bson_t *reply)
{
   bson_error_t err;
   const char *url = sim_first_string (ctx, reply);
   if (!url) {
      return;
   }
   const char *slash = strchr (url, '/');
   const char *hosts = slash ? slash + 1 : url;
   if (!*hosts || !strchr (hosts, ':') || (slash && slash == url)) {
      sim_reply_error (reply, 9, "FailedToParse: invalid url '%s'", url);
      return;
   }
   const char *given = docget_utf8 (ctx->cmd, "name", NULL);
   if (given && !*given) {
      sim_reply_error (reply, 2, "shard name cannot be empty");
      return;
   }
   /* An existing equivalent shard answers with its own name (ShardingCatalogManager::addShard). */
   char name[64];
   int found = sim_shard_exists (given, url, name, sizeof name, &err);
   if (found < 0) {
      sim_admin_error (reply, &err);
      return;
   }
   if (found == 0) {
      if (given) {
         bson_strncpy (name, given, sizeof name);
      } else if (slash) {
         size_t l = (size_t) (slash - url) < sizeof name - 1 ? (size_t) (slash - url) : sizeof name - 1;
         memcpy (name, url, l);
         name[l] = '\0';
      } else {
         bson_snprintf (name, sizeof name, "shard%04d", sim_g.nshards);
      }
      if (!sim_op_add_shard (name, url, &err)) {
         sim_admin_error (reply, &err);
         return;
      }
   }
   BSON_APPEND_UTF8 (reply, "shardAdded", name);
   sim_reply_ok (reply);
}

/* The checks before a shard is set draining or looked at again (ShardingCatalogManager::removeShard; 8.3's
 * checkPreconditionsAndStartDrain): 4.4/5.0 refuse only the last shard (several drains at once since 4.2.1); from
 * 6.0 there must be another shard that is not draining (20), and no zone of the shard may have ranges and no other
 * shard (163). last_msg and zone_fmt are the texts of the command asking. False with the error in reply. */
bool
sim_drain_precheck (const char *shard, const char *last_msg, const char *zone_fmt, bson_t *reply)
{
   simq_docs_t shards;
   size_t others = 0;
   bson_t doc, tags;
   bool ok = true;

   simq_docs_init (&shards);
   sim_shards_list (&shards);
   for (size_t i = 0; i < shards.n; i++) {
      const char *id = docget_utf8 (shards.v[i], "_id", NULL);
      if (id && strcmp (id, shard) != 0 && (!sim_ver_ge (60) || !docget_bool (shards.v[i], "draining"))) {
         others++;
      }
   }
   simq_docs_clear (&shards);
   if (others == 0) {
      sim_reply_error (reply, 20, "%s", last_msg);
      return false;
   }
   if (!sim_ver_ge (60) || !sim_shard_get (shard, &doc)) {
      return true;
   }
   if (docget_sub (&doc, "tags", BSON_TYPE_EOD, &tags)) {
      bson_iter_t it;
      bson_iter_init (&it, &tags);
      while (ok && bson_iter_next (&it)) {
         if (BSON_ITER_HOLDS_UTF8 (&it) && sim_zone_needs_shard (shard, bson_iter_utf8 (&it, NULL))) {
            sim_reply_error (reply, 163, zone_fmt, bson_iter_utf8 (&it, NULL));
            ok = false;
         }
      }
   }
   bson_destroy (&doc);
   return ok;
}

/* Sets shard draining with its removeShard.start changelog entry. */
void
sim_drain_start (const char *shard)
{
   bson_t set = BSON_INITIALIZER, details = BSON_INITIALIZER;
   BSON_APPEND_BOOL (&set, "draining", true);
   sim_config_update ("shards", shard, &set, NULL, false);
   BSON_APPEND_UTF8 (&details, "shard", shard);
   sim_changelog (false, "removeShard.start", "", "config", &details, clock_wall_ms ());
   bson_destroy (&set);
   bson_destroy (&details);
}

/* Deletes a drained shard from config.shards with its removeShard changelog entry. */
void
sim_drain_commit (const char *shard)
{
   sim_coll_t *shards_coll = sim_coll_get ("config", "shards");
   sim_pos_t pos;
   if (sim_find_by_sid (shards_coll, shard, &pos)) {
      sim_hits_t h = { &pos, 1, 1 };
      sim_coll_delete (shards_coll, &h);
   }
   bson_t details = BSON_INITIALIZER;
   BSON_APPEND_UTF8 (&details, "shard", shard);
   sim_changelog (false, "removeShard", "", "config", &details, clock_wall_ms ());
   bson_destroy (&details);
   sim_g.nshards--;
}

/* The note and lists of a started or ongoing removeShard: up to 7.0 "you need to drop or movePrimary these
 * databases" with dbsToMove; from 8.0 (appendDBAndCollDrainingInfo) the moveCollection note when a database or an
 * unsharded collection is left, dbsToMove and collectionsToMove (the unsharded collections living on the shard). */
static void
sim_remove_shard_lists (const sim_drain_progress_t *p, bson_t *reply)
{
   if (!sim_ver_ge (80)) {
      if (p->ndbs) {
         BSON_APPEND_UTF8 (reply, "note", "you need to drop or movePrimary these databases");
      }
      BSON_APPEND_ARRAY (reply, "dbsToMove", &p->dbs);
      return;
   }
   if (p->ndbs || p->ncolls) {
      BSON_APPEND_UTF8 (reply, "note",
                        "you need to call moveCollection for collectionsToMove and afterwards movePrimary for the "
                        "dbsToMove");
   }
   BSON_APPEND_ARRAY (reply, "dbsToMove", &p->dbs);
   BSON_APPEND_ARRAY (reply, "collectionsToMove", &p->colls);
}

/* 8.3's removeShard reply, as ShardingCatalogManager::appendShardDrainingStatus writes it (the mongos passes it
 * through): for a started or ongoing drain the note, dbsToMove and collectionsToMove; shard (started, completed);
 * msg; then the RemoveShardProgress (state, remaining: { chunks (of sharded collections), collectionsToMove, dbs,
 * jumboChunks, estimatedRemainingBytes }). A drained shard is removed (completed). */
static void
sim_remove_shard_reply83 (const char *shard, bool started, const sim_drain_progress_t *p, bson_t *reply)
{
   bool done = !started && p->total == 0 && p->ndbs == 0;
   bson_t rem;
   if (done) {
      sim_drain_commit (shard);
   } else {
      sim_remove_shard_lists (p, reply);
   }
   if (started || done) {
      BSON_APPEND_UTF8 (reply, "shard", shard);
   }
   BSON_APPEND_UTF8 (reply, "msg",
                     started ? "draining started successfully"
                     : done  ? "removeshard completed successfully"
                             : "draining ongoing");
   BSON_APPEND_UTF8 (reply, "state", started ? "started" : done ? "completed" : "ongoing");
   if (!started && !done) {
      BSON_APPEND_DOCUMENT_BEGIN (reply, "remaining", &rem);
      BSON_APPEND_INT64 (&rem, "chunks", p->chunks);
      BSON_APPEND_INT64 (&rem, "collectionsToMove", p->ncolls);
      BSON_APPEND_INT64 (&rem, "dbs", p->ndbs);
      BSON_APPEND_INT64 (&rem, "jumboChunks", p->jumbo);
      BSON_APPEND_INT64 (&rem, "estimatedRemainingBytes", p->bytes);
      bson_append_document_end (reply, &rem);
   }
}

void
sim_cmd_remove_shard (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   sim_drain_progress_t p;
   bson_t rem;

   bson_iter_init (&it, ctx->cmd);
   bson_iter_next (&it);
   if (!BSON_ITER_HOLDS_UTF8 (&it)) {
      sim_reply_error (reply, 14, "Field 'removeShard' must be of type string");
      return;
   }
   const char *shard = bson_iter_utf8 (&it, NULL);
   if (!sim_shard_get (shard, NULL) && sim_ver_ge (83)) {
      /* 8.3's _configsvrRemoveShard: a shard the registry does not know is one already removed (a retry) */
      BSON_APPEND_UTF8 (reply, "shard", shard);
      BSON_APPEND_UTF8 (reply, "msg", "removeshard completed successfully");
      BSON_APPEND_UTF8 (reply, "state", "completed");
      sim_reply_ok (reply);
      return;
   }
   if (!sim_shard_get (shard, NULL)) {
      sim_reply_error (reply, 70, "Shard %s not found", shard);
      return;
   }
   if (!strcmp (shard, "config") && sim_ver_ge (83)) {
      sim_reply_error (reply, 20,
                       "Cannot remove the config server as a shard using removeShard. To transition the config shard "
                       "to a dedicated config server use the transitionToDedicatedConfigServer command.");
      return;
   }
   /* 8.3 starts the drain through checkPreconditionsAndStartDrain, whose texts say "drain" */
   if (!sim_drain_precheck (shard,
                            sim_ver_ge (83) ? "Operation not allowed because it would drain the last shard"
                                            : "Operation not allowed because it would remove the last shard",
                            sim_ver_ge (83) ? "Operation not allowed because there is no other shard in zone %s to "
                                              "drain to."
                                            : "Operation not allowed because it would remove the only shard for zone "
                                              "%s which has a chunk range is associated with it",
                            reply)) {
      return;
   }
   bool started = !sim_shard_is_draining (shard);
   if (started) {
      sim_drain_start (shard);
   }
   sim_drain_progress (shard, &p);
   if (sim_ver_ge (83)) {
      sim_remove_shard_reply83 (shard, started, &p, reply);
   } else if (started) {
      BSON_APPEND_UTF8 (reply, "msg", "draining started successfully");
      BSON_APPEND_UTF8 (reply, "state", "started");
      BSON_APPEND_UTF8 (reply, "shard", shard);
      sim_remove_shard_lists (&p, reply);
   } else if (p.total == 0 && p.ndbs == 0) {
      sim_drain_commit (shard);
      BSON_APPEND_UTF8 (reply, "msg", "removeshard completed successfully");
      BSON_APPEND_UTF8 (reply, "state", "completed");
      BSON_APPEND_UTF8 (reply, "shard", shard);
   } else {
      BSON_APPEND_UTF8 (reply, "msg", "draining ongoing");
      BSON_APPEND_UTF8 (reply, "state", "ongoing");
      BSON_APPEND_DOCUMENT_BEGIN (reply, "remaining", &rem);
      BSON_APPEND_INT64 (&rem, "chunks", p.total);
      BSON_APPEND_INT64 (&rem, "dbs", p.ndbs);
      BSON_APPEND_INT64 (&rem, "jumboChunks", p.jumbo);
      if (sim_ver_ge (80)) {
         BSON_APPEND_INT64 (&rem, "collectionsToMove", p.ncolls);
      }
      bson_append_document_end (reply, &rem);
      sim_remove_shard_lists (&p, reply);
   }
   sim_reply_ok (reply);
   sim_drain_progress_destroy (&p);
}

/* movePrimary: 4.4-6.0 _configsvrMovePrimary / the 5.0 MovePrimaryCoordinator (admin/config/local and an empty to
 * are 72 InvalidOptions, an unknown shard "Could not move database ..." with ShardRegistry::getShard's 70 as cause;
 * 4.4 answers primary: "<id>:<host>" when the database is already there); 7.0+ _shardsvrMovePrimary and
 * MovePrimaryCoordinator::_runImpl (the database first, then 72, then "Requested primary shard ... does not exist"
 * and "... is draining", both 70). */
void
sim_cmd_move_primary (sim_ctx_t *ctx, bson_t *reply)
{
   const char *db = sim_first_string (ctx, reply);
   if (!db) {
      return;
   }
   const char *to = docget_utf8 (ctx->cmd, "to", NULL);
   if (!to) {
      sim_reply_error (reply, 40414, "BSON field 'movePrimary.to' is missing but a required field");
      return;
   }
   bool internal = !strcmp (db, "admin") || !strcmp (db, "config") || !strcmp (db, "local");
   char primary[64];
   sim_db_primary (db, primary);
   if (!primary[0] && !internal) {
      sim_reply_error (reply, 26, "Database %s not found", db);
      return;
   }
   if (internal) {
      sim_reply_error (reply, 72, "Can't move primary for %s database", db);
      return;
   }
   if (!*to) {
      sim_reply_error (reply, 72, "you have to specify where you want to move it");
      return;
   }
   bson_t to_doc;
   if (!sim_shard_get (to, &to_doc)) {
      if (sim_ver_ge (70)) {
         sim_reply_error (reply, 70, "Requested primary shard %s does not exist", to);
      } else {
         sim_reply_error (reply, 70, "Could not move database '%s' to shard '%s' :: caused by :: Shard %s not found",
                          db, to, to);
      }
      return;
   }
   const char *to_host = docget_utf8 (&to_doc, "host", NULL);
   char primary_str[256];
   bson_snprintf (primary_str, sizeof primary_str, "%s:%s", to, to_host ? to_host : "");
   bool draining = docget_bool (&to_doc, "draining");
   bson_destroy (&to_doc);
   if (strcmp (primary, to) != 0 && draining && sim_ver_ge (70)) {
      sim_reply_error (reply, 70, "Requested primary shard %s is draining", to);
      return;
   }
   if (strcmp (primary, to) != 0) {
      bson_t set = BSON_INITIALIZER, details = BSON_INITIALIZER;
      BSON_APPEND_UTF8 (&set, "primary", to);
      sim_config_update ("databases", db, &set, NULL, false);
      BSON_APPEND_UTF8 (&details, "database", db);
      BSON_APPEND_UTF8 (&details, "from", primary);
      BSON_APPEND_UTF8 (&details, "to", to);
      sim_changelog (false, "movePrimary.start", db, primary, &details, clock_wall_ms ());
      sim_changelog (false, "movePrimary.commit", db, primary, &details, clock_wall_ms ());
      bson_destroy (&set);
      bson_destroy (&details);
   } else if (!sim_ver_ge (50)) {
      BSON_APPEND_UTF8 (reply, "primary", primary_str);
   }
   sim_reply_ok (reply);
}

static void
sim_append_shard_canonical (bson_t *out, const bson_t *doc)
{
   static const char *order[] = { "_id",  "host",  "draining",     "maxSize",
                                  "tags", "state", "topologyTime", "replSetConfigVersion",
                                  NULL };
   bson_iter_t it;
   for (int i = 0; order[i]; i++) {
      if (bson_iter_init_find (&it, doc, order[i])) {
         bson_append_value (out, order[i], -1, bson_iter_value (&it));
      }
   }
}

void
sim_cmd_list_shards (sim_ctx_t *ctx, bson_t *reply)
{
   simq_docs_t shards;
   bson_t arr, filter;
   bson_iter_t it;
   /* 8.3's filter (SERVER-107014; list_shards.idl, parsed as "listShardsRequest" by cluster_list_shards_cmd.cpp): a
    * strict { draining: <bool> } and nothing else; older servers ignore the field */
   int draining = -1;
   if (sim_ver_ge (83) && bson_iter_init_find (&it, ctx->cmd, "filter")) {
      if (!BSON_ITER_HOLDS_DOCUMENT (&it)) {
         sim_reply_error (reply, 14,
                          "BSON field 'listShardsRequest.filter' is the wrong type '%s', expected type 'object'",
                          simq_type_name (bson_iter_type (&it)));
         return;
      }
      docget_sub (ctx->cmd, "filter", BSON_TYPE_DOCUMENT, &filter);
      bson_iter_init (&it, &filter);
      while (bson_iter_next (&it)) {
         if (strcmp (bson_iter_key (&it), "draining") != 0) {
            sim_reply_error (reply, 40415, "BSON field 'listShardsRequest.filter.%s' is an unknown field.",
                             bson_iter_key (&it));
            return;
         }
         if (!BSON_ITER_HOLDS_BOOL (&it)) {
            sim_reply_error (reply, 14,
                             "BSON field 'listShardsRequest.filter.draining' is the wrong type '%s', expected type "
                             "'bool'",
                             simq_type_name (bson_iter_type (&it)));
            return;
         }
         draining = bson_iter_bool (&it);
      }
   }
   /* ShardingCatalogClientImpl::getAllShards: config.shards in natural order, no sort */
   simq_docs_init (&shards);
   sim_coll_t *coll = sim_coll_get ("config", "shards");
   for (size_t p = 0; coll && p < coll->nparts; p++) {
      for (size_t i = 0; i < coll->parts[p].docs.n; i++) {
         bson_t view;
         sim_pos_t pos = { p, i };
         sim_coll_view (coll, pos, &view);
         simq_docs_push_copy (&shards, &view);
      }
   }
   BSON_APPEND_ARRAY_BEGIN (reply, "shards", &arr);
   uint32_t k = 0;
   for (size_t i = 0; i < shards.n; i++) {
      if (draining >= 0 && docget_bool (shards.v[i], "draining") != (bool) draining) {
         continue;
      }
      bson_t d;
      char key[16];
      const char *kp;
      bson_uint32_to_string (k++, &kp, key, sizeof key);
      BSON_APPEND_DOCUMENT_BEGIN (&arr, kp, &d);
      sim_append_shard_canonical (&d, shards.v[i]);
      bson_append_document_end (&arr, &d);
   }
   bson_append_array_end (reply, &arr);
   simq_docs_clear (&shards);
   sim_reply_ok (reply);
}

/* flushRouterConfig (flush_router_config_cmd.cpp): a number or a bool flushes everything; anything else must be a
 * namespace string (BSONElement::checkAndGetStringData: 13111 "wrong type for field (F) T != string"). */
void
sim_cmd_flush_router_config (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   if (bson_iter_init (&it, ctx->cmd) && bson_iter_next (&it) && !BSON_ITER_HOLDS_NUMBER (&it) &&
       !BSON_ITER_HOLDS_BOOL (&it) && !BSON_ITER_HOLDS_UTF8 (&it)) {
      sim_reply_error (reply, 13111, "wrong type for field (%s) %s != string", bson_iter_key (&it),
                       simq_type_name (bson_iter_type (&it)));
      return;
   }
   BSON_APPEND_BOOL (reply, "flushed", true);
   sim_reply_ok (reply);
}
