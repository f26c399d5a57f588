/* shardsim's routing metadata commands: getShardVersion (cluster_get_shard_version_cmd.cpp: a database's primary
 * shard and version, or a sharded collection's version, epoch, timestamp and, with fullMetadata, its chunks' bounds)
 * and checkMetadataConsistency (7.0+, cluster_check_metadata_consistency_cmd.cpp: a cursor of inconsistencies, which
 * shardsim's metadata never has). Callers hold sim_g.lock. */
#include "tests/shardsim/sim_crud.h"
#include "tests/shardsim/sim_ddlcheck.h"

#include <string.h>

/* The config.databases document of db into out (initialised always); false when there is none. */
static bool
sim_meta_database (const char *db, bson_t *out)
{
   sim_pos_t pos;
   sim_coll_t *dbs = sim_coll_get ("config", "databases");
   bson_init (out);
   if (!dbs || !sim_find_by_sid (dbs, db, &pos)) {
      return false;
   }
   bson_t view;
   sim_coll_view (dbs, pos, &view);
   bson_copy_to_excluding_noinit (&view, out, "", NULL);
   return true;
}

/* getShardVersion of a sharded collection: version (Timestamp major|minor), versionEpoch, versionTimestamp (5.0+),
 * chunks [[min, max], ...] with fullMetadata. */
static void
sim_meta_collection_version (const sim_shcoll_t *sc, bool full, bson_t *reply)
{
   uint32_t major = 0, minor = 0, ts = 0, ti = 0;
   bson_iter_t it;
   sim_chunk_max_version (sc, &major, &minor);
   BSON_APPEND_TIMESTAMP (reply, "version", major, minor);
   BSON_APPEND_OID (reply, "versionEpoch", &sc->epoch);
   if (sim_ver_ge (50) && bson_iter_init_find (&it, &sc->doc, "timestamp") && BSON_ITER_HOLDS_TIMESTAMP (&it)) {
      bson_iter_timestamp (&it, &ts, &ti);
      BSON_APPEND_TIMESTAMP (reply, "versionTimestamp", ts, ti);
   }
   if (!full) {
      return;
   }
   simq_docs_t chunks;
   bson_t arr, pair;
   char key[16];
   const char *kp;
   simq_docs_init (&chunks);
   sim_chunks_of (sc, &chunks);
   BSON_APPEND_ARRAY_BEGIN (reply, "chunks", &arr);
   for (size_t i = 0; i < chunks.n; i++) {
      bson_t min, max;
      bson_uint32_to_string ((uint32_t) i, &kp, key, sizeof key);
      BSON_APPEND_ARRAY_BEGIN (&arr, kp, &pair);
      if (docget_sub (chunks.v[i], "min", BSON_TYPE_DOCUMENT, &min)) {
         BSON_APPEND_DOCUMENT (&pair, "0", &min);
      }
      if (docget_sub (chunks.v[i], "max", BSON_TYPE_DOCUMENT, &max)) {
         BSON_APPEND_DOCUMENT (&pair, "1", &max);
      }
      bson_append_array_end (&arr, &pair);
   }
   bson_append_array_end (reply, &arr);
   simq_docs_clear (&chunks);
}

void
sim_cmd_get_shard_version (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   if (!bson_iter_init (&it, ctx->cmd) || !bson_iter_next (&it) || !BSON_ITER_HOLDS_UTF8 (&it)) {
      bson_type_t t = bson_iter_type (&it);
      sim_reply_error (reply, 2, "namespace has invalid type %s", /* typeName() */
                       t == BSON_TYPE_INT32    ? "int"
                       : t == BSON_TYPE_INT64  ? "long"
                       : t == BSON_TYPE_DOUBLE ? "double"
                       : t == BSON_TYPE_BOOL   ? "bool"
                       : t == BSON_TYPE_NULL   ? "null"
                                               : "object");
      return;
   }
   const char *ns = bson_iter_utf8 (&it, NULL);
   bool full = bson_iter_init_find (&it, ctx->cmd, "fullMetadata") && bson_iter_as_bool (&it);
   const char *dot = strchr (ns, '.');
   if (!dot || !dot[1]) {
      /* a database: its primary shard and version */
      char db[128];
      bson_t doc, ver;
      bson_strncpy (db, ns, dot && (size_t) (dot - ns) < sizeof db ? (size_t) (dot - ns) + 1 : sizeof db);
      if (!sim_meta_database (db, &doc)) {
         bson_destroy (&doc);
         sim_reply_error (reply, 26, "database %s not found", db);
         return;
      }
      const char *primary = docget_utf8 (&doc, "primary", NULL);
      BSON_APPEND_UTF8 (reply, "primaryShard", primary ? primary : "");
      if (docget_sub (&doc, "version", BSON_TYPE_DOCUMENT, &ver)) {
         BSON_APPEND_DOCUMENT (reply, "version", &ver);
      }
      bson_destroy (&doc);
      sim_reply_ok (reply);
      return;
   }
   sim_shcoll_t sc;
   if (!sim_shcoll_load (ns, &sc) || docget_bool (&sc.doc, "unsplittable")) {
      sim_shcoll_destroy (&sc);
      sim_not_sharded (reply, ns); /* 118 "Collection <ns> is not sharded." (cm.isSharded()) */
      return;
   }
   sim_meta_collection_version (&sc, full, reply);
   sim_shcoll_destroy (&sc);
   sim_reply_ok (reply);
}

void
sim_cmd_check_metadata_consistency (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   char ns[300];
   simq_docs_t none;
   simq_docs_init (&none);
   if (!bson_iter_init (&it, ctx->cmd) || !bson_iter_next (&it)) {
      sim_reply_error (reply, 2, "checkMetadataConsistency needs a value");
      return;
   }
   /* the namespace: <db>.$cmd.aggregate for the cluster (admin) and database levels, <db>.<coll> for a collection */
   if (BSON_ITER_HOLDS_UTF8 (&it)) {
      const char *coll = bson_iter_utf8 (&it, NULL);
      if (!strcmp (ctx->db, "admin")) {
         sim_reply_error (reply, 73,
                          "checkMetadataConsistency command on admin database can only be run without collection "
                          "name. Found unexpected collection name: %s",
                          coll);
         return;
      }
      bson_snprintf (ns, sizeof ns, "%s.%s", ctx->db, coll);
   } else if (BSON_ITER_HOLDS_NUMBER (&it) && bson_iter_as_int64 (&it) == 1) {
      bson_snprintf (ns, sizeof ns, "%s.$cmd.aggregate", ctx->db);
   } else {
      sim_reply_error (reply, 2, "Invalid value for checkMetadataConsistency: must be 1 or a collection name");
      return;
   }
   if (strcmp (ctx->db, "admin") != 0) {
      bson_t doc;
      bool known = sim_meta_database (ctx->db, &doc);
      bson_destroy (&doc);
      if (!known) {
         sim_reply_error (reply, 26, "database %s not found", ctx->db);
         return;
      }
   }
   /* 9.0's performStrictChunkChecksIfBelowThreshold: a chunk-count threshold (the IDL's safeInt64, default 2^60 - 1),
    * checked for its type; shardsim's metadata has no inconsistency to find at any threshold */
   if (sim_ver_ge (90) && bson_iter_init_find (&it, ctx->cmd, "performStrictChunkChecksIfBelowThreshold") &&
       !BSON_ITER_HOLDS_NUMBER (&it)) {
      sim_reply_error (reply, 14,
                       "BSON field 'checkMetadataConsistency.performStrictChunkChecksIfBelowThreshold' is the wrong "
                       "type '%s', expected types '[long, int, decimal, double]'",
                       simq_type_name (bson_iter_type (&it)));
      return;
   }
   int64_t batch = -1;
   bson_t cursor;
   if (docget_sub (ctx->cmd, "cursor", BSON_TYPE_DOCUMENT, &cursor) &&
       bson_iter_init_find (&it, &cursor, "batchSize") && BSON_ITER_HOLDS_NUMBER (&it)) {
      batch = bson_iter_as_int64 (&it);
   }
   sim_reply_cursor (reply, ns, &none, batch, true);
}
