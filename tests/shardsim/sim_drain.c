/* shardsim's draining status commands of the 8.2 and 8.3 personalities: shardDrainingStatus (8.2+, a shard that
 * removeShard set draining), getTransitionToDedicatedConfigServerStatus (8.3+, the "config" shard), and the
 * $listClusterCatalog aggregation stage (8.0.10+ in MongoDB; here from the 8.2 personality). Reply shapes follow the
 * server's RemoveShardResponse / RemoveShardProgress IDL (state first, then remaining, msg, dbsToMove, note,
 * collectionsToMove); docs/shardsim.md lists the sources and the choices made where they disagree. */
#include "tests/shardsim/sim.h"
#include "tests/shardsim/query/simq_int.h"

#include <stdlib.h>
#include <string.h>

#define SIM_DRAIN_NOTE                                                                                                 \
   "you need to call moveCollection for collectionsToMove and afterwards movePrimary for the dbsToMove"

static int
sim_drain_cmp_str (const void *a, const void *b)
{
   return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The config.collections documents of the live collections (not dropped) whose unsplittable flag is unsplittable:
 * false gives the sharded collections, true the tracked unsharded ones (8.0+). */
static void
sim_drain_colls (simq_docs_t *out, bool unsplittable)
{
   simq_docs_t all;
   bson_error_t e;
   sim_coll_t *cc = sim_coll_get ("config", "collections");
   simq_docs_init (&all);
   if (cc) {
      sim_coll_collect (cc, NULL, &all, &e);
   }
   for (size_t i = 0; i < all.n; i++) {
      if (!docget_bool (all.v[i], "dropped") && docget_bool (all.v[i], "unsplittable") == unsplittable &&
          docget_utf8 (all.v[i], "_id", NULL)) {
         simq_docs_push_copy (out, all.v[i]);
      }
   }
   simq_docs_clear (&all);
}

static bool
sim_drain_is_sharded (const simq_docs_t *sharded, const char *ns)
{
   for (size_t i = 0; i < sharded->n; i++) {
      if (!strcmp (docget_utf8 (sharded->v[i], "_id", NULL), ns)) {
         return true;
      }
   }
   return false;
}

/* Whether two documents have the same binary uuid field. */
static bool
sim_drain_same_uuid (const bson_t *a, const bson_t *b)
{
   bson_iter_t ia, ib;
   const uint8_t *ua, *ub;
   uint32_t la, lb;
   bson_subtype_t st;
   if (!bson_iter_init_find (&ia, a, "uuid") || !BSON_ITER_HOLDS_BINARY (&ia) ||
       !bson_iter_init_find (&ib, b, "uuid") || !BSON_ITER_HOLDS_BINARY (&ib)) {
      return false;
   }
   bson_iter_binary (&ia, &st, &la, &ua);
   bson_iter_binary (&ib, &st, &lb, &ub);
   return la == lb && !memcmp (ua, ub, la);
}

/* The shard an unsharded collection lives on: its chunk's owner when it is tracked (unsplittable, 8.0's
 * moveCollection), else its database's primary (NULL when neither is known). */
static const char *
sim_drain_unsharded_home (const simq_docs_t *unsplittable, const simq_docs_t *chunks_all, const char *ns,
                          const char *primary)
{
   for (size_t i = 0; i < unsplittable->n; i++) {
      if (strcmp (docget_utf8 (unsplittable->v[i], "_id", NULL), ns) != 0) {
         continue;
      }
      for (size_t k = 0; k < chunks_all->n; k++) {
         if (sim_drain_same_uuid (unsplittable->v[i], chunks_all->v[k])) {
            return docget_utf8 (chunks_all->v[k], "shard", NULL);
         }
      }
   }
   return primary;
}

void
sim_drain_progress_destroy (sim_drain_progress_t *p)
{
   bson_destroy (&p->dbs);
   bson_destroy (&p->colls);
}

static void
sim_drain_add_name (const char ***names, size_t *n, const char *ns)
{
   for (size_t i = 0; i < *n; i++) {
      if (!strcmp ((*names)[i], ns)) {
         return;
      }
   }
   *names = bson_realloc (*names, (*n + 1) * sizeof **names);
   (*names)[(*n)++] = ns;
}

/* The unsharded collections that live on shard, as the config server's makeUnshardedCollectionsOnSpecificShard-
 * Aggregation selects them ($listClusterCatalog with shards: not sharded, not in config/admin, not system.*),
 * sorted, into p->colls. */
static void
sim_drain_unsharded_on (const char *shard, const simq_docs_t *sharded, const simq_docs_t *dbs, sim_drain_progress_t *p)
{
   simq_docs_t unsplittable, chunks_all;
   bson_error_t e;
   const char **names = NULL;
   size_t nnames = 0;
   sim_coll_t *cc = sim_coll_get ("config", "chunks");

   simq_docs_init (&unsplittable);
   simq_docs_init (&chunks_all);
   sim_drain_colls (&unsplittable, true);
   if (cc && unsplittable.n) {
      sim_coll_collect (cc, NULL, &chunks_all, &e);
   }
   for (size_t c = 0; c < sim_g.ncolls; c++) {
      const sim_coll_t *coll = sim_g.colls[c];
      const char *primary = NULL, *home;
      if (!strcmp (coll->db, "config") || !strcmp (coll->db, "admin") || !strcmp (coll->db, "local") ||
          !strncmp (coll->name, "system.", 7) || sim_drain_is_sharded (sharded, coll->ns)) {
         continue;
      }
      for (size_t i = 0; i < dbs->n && !primary; i++) {
         const char *id = docget_utf8 (dbs->v[i], "_id", NULL);
         if (id && !strcmp (id, coll->db)) {
            primary = docget_utf8 (dbs->v[i], "primary", NULL);
         }
      }
      home = sim_drain_unsharded_home (&unsplittable, &chunks_all, coll->ns, primary);
      if (home && !strcmp (home, shard)) {
         sim_drain_add_name (&names, &nnames, coll->ns);
      }
   }
   for (size_t i = 0; i < unsplittable.n; i++) { /* tracked ones that hold no document here */
      const char *ns = docget_utf8 (unsplittable.v[i], "_id", NULL);
      const char *home = sim_drain_unsharded_home (&unsplittable, &chunks_all, ns, NULL);
      if (home && !strcmp (home, shard) && strncmp (ns, "config.", 7) != 0 && strncmp (ns, "admin.", 6) != 0) {
         sim_drain_add_name (&names, &nnames, ns);
      }
   }
   if (nnames) {
      qsort (names, nnames, sizeof *names, sim_drain_cmp_str);
   }
   for (size_t i = 0; i < nnames; i++) {
      char key[16];
      const char *kp;
      bson_uint32_to_string ((uint32_t) i, &kp, key, sizeof key);
      BSON_APPEND_UTF8 (&p->colls, kp, names[i]);
   }
   p->ncolls = (int64_t) nnames;
   bson_free (names);
   simq_docs_clear (&unsplittable);
   simq_docs_clear (&chunks_all);
}

void
sim_drain_progress (const char *shard, sim_drain_progress_t *p)
{
   simq_docs_t sharded, dbs, chunks;
   bson_error_t e;
   bson_t filter = BSON_INITIALIZER;

   memset (p, 0, sizeof *p);
   bson_init (&p->dbs);
   bson_init (&p->colls);
   simq_docs_init (&sharded);
   simq_docs_init (&dbs);
   simq_docs_init (&chunks);
   sim_drain_colls (&sharded, false);

   BSON_APPEND_UTF8 (&filter, "shard", shard);
   sim_coll_t *cc = sim_coll_get ("config", "chunks");
   if (cc) {
      sim_coll_collect (cc, &filter, &chunks, &e);
   }
   for (size_t i = 0; i < chunks.n; i++) {
      p->total++;
      p->jumbo += docget_bool (chunks.v[i], "jumbo") ? 1 : 0;
   }
   p->chunks = p->total;
   for (size_t i = 0; sim_ver_ge (83) && p->chunks && i < sharded.n; i++) {
      sim_shard_stat_t *st = NULL; /* estimatedRemainingBytes, 8.3 only */
      size_t n = sim_coll_shard_stats (docget_utf8 (sharded.v[i], "_id", NULL), &st);
      for (size_t k = 0; k < n; k++) {
         if (!strcmp (st[k].shard, shard)) {
            p->bytes += st[k].size;
         }
      }
      free (st);
   }

   sim_coll_t *dc = sim_coll_get ("config", "databases");
   if (dc) {
      sim_coll_collect (dc, NULL, &dbs, &e);
   }
   for (size_t i = 0; i < dbs.n; i++) {
      const char *id = docget_utf8 (dbs.v[i], "_id", NULL), *primary = docget_utf8 (dbs.v[i], "primary", NULL);
      char key[16];
      const char *kp;
      if (!id || !primary || strcmp (primary, shard) != 0 || !strcmp (id, "config") || !strcmp (id, "admin")) {
         continue;
      }
      bson_uint32_to_string ((uint32_t) p->ndbs++, &kp, key, sizeof key);
      BSON_APPEND_UTF8 (&p->dbs, kp, id);
   }
   sim_drain_unsharded_on (shard, &sharded, &dbs, p);
   if (p->ncolls && p->chunks) { /* remaining.chunks counts the chunks of sharded collections only */
      simq_docs_t unsplittable;
      simq_docs_init (&unsplittable);
      sim_drain_colls (&unsplittable, true);
      for (size_t k = 0; k < chunks.n; k++) {
         for (size_t i = 0; i < unsplittable.n; i++) {
            if (sim_drain_same_uuid (unsplittable.v[i], chunks.v[k])) {
               p->chunks--;
               break;
            }
         }
      }
      simq_docs_clear (&unsplittable);
   }
   bson_destroy (&filter);
   simq_docs_clear (&sharded);
   simq_docs_clear (&dbs);
   simq_docs_clear (&chunks);
}

/* The RemoveShardResponse of a draining shard: ongoing with what remains, or drainingComplete. */
static void
sim_drain_reply (const char *shard, bson_t *reply)
{
   sim_drain_progress_t p;
   bson_t rem;

   sim_drain_progress (shard, &p);
   if (p.total == 0 && p.ndbs == 0 && p.ncolls == 0) {
      BSON_APPEND_UTF8 (reply, "state", "drainingComplete");
      BSON_APPEND_UTF8 (reply, "msg", "draining completed successfully");
      sim_reply_ok (reply);
      goto done;
   }
   BSON_APPEND_UTF8 (reply, "state", "ongoing");
   BSON_APPEND_DOCUMENT_BEGIN (reply, "remaining", &rem);
   BSON_APPEND_INT64 (&rem, "chunks", p.chunks);
   BSON_APPEND_INT64 (&rem, "collectionsToMove", p.ncolls);
   BSON_APPEND_INT64 (&rem, "dbs", p.ndbs);
   BSON_APPEND_INT64 (&rem, "jumboChunks", p.jumbo);
   if (sim_ver_ge (83)) {
      BSON_APPEND_INT64 (&rem, "estimatedRemainingBytes", p.bytes);
   }
   bson_append_document_end (reply, &rem);
   BSON_APPEND_UTF8 (reply, "msg", "draining ongoing");
   BSON_APPEND_ARRAY (reply, "dbsToMove", &p.dbs);
   if (p.ndbs || p.ncolls) {
      BSON_APPEND_UTF8 (reply, "note", SIM_DRAIN_NOTE);
   }
   BSON_APPEND_ARRAY (reply, "collectionsToMove", &p.colls);
   sim_reply_ok (reply);
done:
   bson_destroy (&p.dbs);
   bson_destroy (&p.colls);
}

void
sim_cmd_shard_draining_status (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   bson_iter_init (&it, ctx->cmd);
   bson_iter_next (&it);
   if (!BSON_ITER_HOLDS_UTF8 (&it)) {
      sim_reply_error (reply, 14,
                       "BSON field 'shardDrainingStatus.shardDrainingStatus' is the wrong type '%s', expected type "
                       "'string'",
                       simq_type_name (bson_iter_type (&it)));
      return;
   }
   const char *shard = bson_iter_utf8 (&it, NULL);
   /* ShardRegistry::getShard (resolveShardId in 8.3+) knows the config server as "config" whether or not it is a
    * shard: on a dedicated config server it is simply not draining (20 below) */
   if (strcmp (shard, "config") != 0 && !sim_shard_get (shard, NULL)) {
      sim_reply_error (reply, 70, "Shard %s not found", shard);
   } else if (!sim_shard_is_draining (shard)) {
      sim_reply_error (reply, 20, "The shard %s isn't draining", shard);
   } else if (!strcmp (shard, "config") && sim_ver_ge (83)) {
      sim_reply_error (reply, 20,
                       "Cannot get the draining status for the config server using shardDrainingStatus when "
                       "transitioning to a dedicated config server. Please, use "
                       "getTransitionToDedicatedConfigServerStatus.");
   } else {
      sim_drain_reply (shard, reply);
   }
}

void
sim_cmd_transition_status (sim_ctx_t *ctx, bson_t *reply)
{
   (void) ctx;
   if (!sim_shard_get ("config", NULL) || !sim_shard_is_draining ("config")) {
      sim_reply_error (reply, 20, "The shard config isn't draining");
   } else {
      sim_drain_reply ("config", reply);
   }
}

/* ---- $listClusterCatalog ---- */

typedef struct {
   const char *ns, *db, *name;
   const sim_coll_t *coll; /* NULL: a sharded collection with no documents here */
   const bson_t *cdoc;     /* its config.collections document when sharded */
} sim_cat_entry_t;

static int
sim_cat_cmp (const void *a, const void *b)
{
   return strcmp (((const sim_cat_entry_t *) a)->ns, ((const sim_cat_entry_t *) b)->ns);
}

static bool
sim_cat_wanted (const char *on_db, const char *db)
{
   if (!strcmp (db, "local")) {
      return false;
   }
   return !strcmp (on_db, "admin") || !strcmp (on_db, db);
}

/* One catalog document: { ns, db, type, options, info: { readOnly, uuid }, idIndex, sharded, shardKey?, shards? }. */
static bson_t *
sim_cat_doc (const sim_cat_entry_t *e, bool with_shards)
{
   bson_t *d = bson_new ();
   bson_t sub, arr;
   bson_iter_t it;
   static const char id_index[] = "_id_";

   BSON_APPEND_UTF8 (d, "ns", e->ns);
   BSON_APPEND_UTF8 (d, "db", e->db);
   BSON_APPEND_UTF8 (d, "type", "collection");
   BSON_APPEND_DOCUMENT_BEGIN (d, "options", &sub);
   bson_append_document_end (d, &sub);
   BSON_APPEND_DOCUMENT_BEGIN (d, "info", &sub);
   BSON_APPEND_BOOL (&sub, "readOnly", false);
   if (e->coll) {
      BSON_APPEND_BINARY (&sub, "uuid", BSON_SUBTYPE_UUID, e->coll->uuid, 16);
   } else if (e->cdoc && bson_iter_init_find (&it, e->cdoc, "uuid") && BSON_ITER_HOLDS_BINARY (&it)) {
      bson_append_iter (&sub, "uuid", -1, &it);
   }
   bson_append_document_end (d, &sub);
   if (e->coll && e->coll->indexes.n) {
      BSON_APPEND_DOCUMENT (d, "idIndex", e->coll->indexes.v[0]);
   } else {
      BSON_APPEND_DOCUMENT_BEGIN (d, "idIndex", &sub);
      BSON_APPEND_INT32 (&sub, "v", 2);
      BSON_APPEND_DOCUMENT_BEGIN (&sub, "key", &arr);
      BSON_APPEND_INT32 (&arr, "_id", 1);
      bson_append_document_end (&sub, &arr);
      BSON_APPEND_UTF8 (&sub, "name", id_index);
      bson_append_document_end (d, &sub);
   }
   BSON_APPEND_BOOL (d, "sharded", e->cdoc != NULL);
   if (e->cdoc && bson_iter_init_find (&it, e->cdoc, "key") && BSON_ITER_HOLDS_DOCUMENT (&it)) {
      bson_append_iter (d, "shardKey", -1, &it);
   }
   if (with_shards) {
      sim_shard_stat_t *st = NULL;
      size_t n = sim_coll_shard_stats (e->ns, &st), k2 = 0;
      BSON_APPEND_ARRAY_BEGIN (d, "shards", &arr);
      for (size_t k = 0; k < n; k++) {
         char key[16];
         const char *kp;
         if (e->cdoc && st[k].chunks == 0) {
            continue; /* a sharded collection's shards are those owning chunks */
         }
         bson_uint32_to_string ((uint32_t) k2++, &kp, key, sizeof key);
         BSON_APPEND_UTF8 (&arr, kp, st[k].shard);
      }
      bson_append_array_end (d, &arr);
      free (st);
   }
   return d;
}

int
sim_stage_list_cluster_catalog (sim_ctx_t *ctx, const char *coll, const bson_iter_t *arg, simq_docs_t *out,
                                bson_error_t *error)
{
   simq_docs_t sharded;
   sim_cat_entry_t *v = NULL;
   size_t n = 0;
   bool with_shards = false;
   bson_iter_t child;

   if (!sim_ver_ge (82)) {
      return 0; /* an unknown stage before 8.0.10 */
   }
   if (!BSON_ITER_HOLDS_DOCUMENT (arg)) {
      bson_set_error (error, SIMQ_ERROR_DOMAIN, 9621302, "$listClusterCatalog must take an object but found: %s",
                      simq_type_name (bson_iter_type (arg)));
      return -1;
   }
   if (coll) {
      bson_set_error (error, SIMQ_ERROR_DOMAIN, 9621301,
                      "The $listClusterCatalog stage must run on a database, not a collection.");
      return -1;
   }
   bson_iter_recurse (arg, &child);
   if (bson_iter_find (&child, "shards")) {
      with_shards = bson_iter_as_bool (&child);
   }
   simq_docs_init (&sharded);
   sim_drain_colls (&sharded, false);
   for (size_t i = 0; i < sim_g.ncolls; i++) {
      const sim_coll_t *c = sim_g.colls[i];
      if (!sim_cat_wanted (ctx->db, c->db) || (!strcmp (c->db, "config") && strncmp (c->name, "system.", 7) != 0)) {
         continue; /* config's own catalog collections are not user collections here */
      }
      v = realloc (v, (n + 1) * sizeof *v);
      v[n] = (sim_cat_entry_t){ c->ns, c->db, c->name, c, NULL };
      for (size_t k = 0; k < sharded.n; k++) {
         if (!strcmp (docget_utf8 (sharded.v[k], "_id", NULL), c->ns)) {
            v[n].cdoc = sharded.v[k];
         }
      }
      n++;
   }
   for (size_t k = 0; k < sharded.n; k++) {
      const char *ns = docget_utf8 (sharded.v[k], "_id", NULL);
      const char *dot = strchr (ns, '.');
      char db[128];
      bool seen = false;
      if (!dot || (size_t) (dot - ns) >= sizeof db) {
         continue;
      }
      memcpy (db, ns, (size_t) (dot - ns));
      db[dot - ns] = '\0';
      for (size_t i = 0; i < n && !seen; i++) {
         seen = !strcmp (v[i].ns, ns);
      }
      if (seen || !sim_cat_wanted (ctx->db, db)) {
         continue;
      }
      v = realloc (v, (n + 1) * sizeof *v);
      v[n++] = (sim_cat_entry_t){ ns, NULL, dot + 1, NULL, sharded.v[k] };
   }
   if (n) {
      qsort (v, n, sizeof *v, sim_cat_cmp);
   }
   for (size_t i = 0; i < n; i++) {
      char db[128];
      if (!v[i].db) {
         const char *dot = strchr (v[i].ns, '.');
         memcpy (db, v[i].ns, (size_t) (dot - v[i].ns));
         db[dot - v[i].ns] = '\0';
         v[i].db = db;
      }
      simq_docs_push_owned (out, sim_cat_doc (&v[i], with_shards));
   }
   free (v);
   simq_docs_clear (&sharded);
   return 1;
}
