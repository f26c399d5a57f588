/* shardsim's collStats as a mongos answers it (s/commands/cluster_coll_stats_cmd.cpp, CollectionStats::run, the same
 * from 4.4 to the newest router, which still registers it though the command is deprecated): the shards owning the
 * collection's chunks (an unsharded collection: its primary shard) each answer their own storage statistics, and the
 * router sums them. Also the storage statistics one shard reports, which $collStats' storageStats shows too. Callers
 * hold sim_g.lock. */
#include "tests/shardsim/sim_crud.h"

#include <string.h>

/* The size of a shard's part of a collection on disk and of its indexes, as shardsim estimates them (4 KiB pages). */
static void
sim_coll_storage_sizes (const sim_coll_t *coll, const sim_shard_stat_t *st, int64_t *storage, int64_t *idx)
{
   int64_t nidx = (int64_t) coll->indexes.n;
   *storage = ((st->size + 4095) / 4096) * 4096 + 4096;
   *idx = 4096 * nidx + ((st->count * 32 + 4095) / 4096) * 4096 * nidx;
}

void
sim_coll_storage_append (bson_t *d, const sim_coll_t *coll, const sim_shard_stat_t *st, int64_t scale)
{
   bson_t sizes, arr;
   bson_iter_t it;
   int64_t storage_size, idx_size;
   int64_t nidx = (int64_t) coll->indexes.n;
   sim_coll_storage_sizes (coll, st, &storage_size, &idx_size);
   BSON_APPEND_INT32 (d, "size", (int32_t) (st->size / scale));
   BSON_APPEND_INT32 (d, "count", (int32_t) st->count);
   BSON_APPEND_INT32 (d, "avgObjSize", (int32_t) (st->count ? st->size / st->count : 0));
   if (sim_ver_ge (60)) {
      BSON_APPEND_INT32 (d, "numOrphanDocs", 0);
   }
   BSON_APPEND_INT32 (d, "storageSize", (int32_t) (storage_size / scale));
   BSON_APPEND_INT32 (d, "freeStorageSize", 0);
   BSON_APPEND_BOOL (d, "capped", false);
   BSON_APPEND_INT32 (d, "nindexes", (int32_t) nidx);
   BSON_APPEND_ARRAY_BEGIN (d, "indexBuilds", &arr);
   bson_append_array_end (d, &arr);
   BSON_APPEND_INT32 (d, "totalIndexSize", (int32_t) (idx_size / scale));
   BSON_APPEND_INT32 (d, "totalSize", (int32_t) ((storage_size + idx_size) / scale));
   BSON_APPEND_DOCUMENT_BEGIN (d, "indexSizes", &sizes);
   for (size_t k = 0; k < coll->indexes.n; k++) {
      if (bson_iter_init_find (&it, coll->indexes.v[k], "name") && BSON_ITER_HOLDS_UTF8 (&it)) {
         BSON_APPEND_INT32 (&sizes, bson_iter_utf8 (&it, NULL), (int32_t) (idx_size / nidx / scale));
      }
   }
   bson_append_document_end (d, &sizes);
   BSON_APPEND_INT32 (d, "scaleFactor", (int32_t) scale);
}

/* BSONObjBuilder::appendNumber (long long): an int below 2^30, else a long. */
static void
sim_append_number (bson_t *b, const char *key, int64_t v)
{
   if (v > -(INT64_C (1) << 30) && v < (INT64_C (1) << 30)) {
      BSON_APPEND_INT32 (b, key, (int32_t) v);
   } else {
      BSON_APPEND_INT64 (b, key, v);
   }
}

/* The scale argument as CollectionStats::run reads it: a number (safeNumberInt) at least 1, anything else that is
 * true refused; 0 when the reply holds the error. */
static int64_t
sim_collstats_scale (const bson_t *cmd, bson_t *reply)
{
   bson_iter_t it;
   if (!bson_iter_init_find (&it, cmd, "scale")) {
      return 1;
   }
   if (BSON_ITER_HOLDS_NUMBER (&it)) {
      double d = bson_iter_as_double (&it);
      int64_t scale = d >= 2147483647.0 ? 2147483647 : d <= -2147483648.0 ? INT32_MIN : (int64_t) d;
      if (scale < 1) {
         sim_reply_error (reply, 4390200, "scale has to be >= 1");
         return 0;
      }
      return scale;
   }
   if (bson_iter_as_bool (&it)) {
      sim_reply_error (reply, 4390201, "scale has to be a number >= 1");
      return 0;
   }
   return 1;
}

/* A collection the primary shard does not have: appendCollectionStorageStats writes zeros (size, count, 6.0+
 * numOrphanDocs, storageSize, totalSize, nindexes, totalIndexSize, indexDetails {}, indexSizes {}, scaleFactor)
 * before its NamespaceNotFound, which the shard's collStats ignores; the router copies indexDetails, sums the
 * zeros and writes the rest as for any collection (no capped: the shard did not say). */
static void
sim_collstats_missing (const char *ns, const char *primary, int64_t scale, const bson_t *head, bson_t *reply)
{
   bson_t shards, d, empty = BSON_INITIALIZER;
   static const char *const sums[] = { "count", "size", "storageSize", "totalIndexSize", "totalSize" };
   bson_concat (reply, head);
   BSON_APPEND_DOCUMENT (reply, "indexDetails", &empty);
   BSON_APPEND_UTF8 (reply, "ns", ns);
   for (size_t k = 0; k < sizeof sums / sizeof sums[0]; k++) {
      BSON_APPEND_INT32 (reply, sums[k], 0);
   }
   BSON_APPEND_DOCUMENT (reply, "indexSizes", &empty);
   BSON_APPEND_DOUBLE (reply, "avgObjSize", 0.0);
   BSON_APPEND_INT64 (reply, "maxSize", 0);
   BSON_APPEND_INT32 (reply, "nindexes", 0);
   BSON_APPEND_INT32 (reply, "scaleFactor", (int32_t) scale);
   BSON_APPEND_INT32 (reply, "nchunks", 1);
   BSON_APPEND_DOCUMENT_BEGIN (reply, "shards", &shards);
   BSON_APPEND_DOCUMENT_BEGIN (&shards, primary, &d);
   BSON_APPEND_UTF8 (&d, "ns", ns);
   BSON_APPEND_INT32 (&d, "size", 0);
   BSON_APPEND_INT32 (&d, "count", 0);
   if (sim_ver_ge (60)) {
      BSON_APPEND_INT32 (&d, "numOrphanDocs", 0);
   }
   BSON_APPEND_INT32 (&d, "storageSize", 0);
   BSON_APPEND_INT32 (&d, "totalSize", 0);
   BSON_APPEND_INT32 (&d, "nindexes", 0);
   BSON_APPEND_INT32 (&d, "totalIndexSize", 0);
   BSON_APPEND_DOCUMENT (&d, "indexDetails", &empty);
   BSON_APPEND_DOCUMENT (&d, "indexSizes", &empty);
   BSON_APPEND_INT32 (&d, "scaleFactor", (int32_t) scale);
   BSON_APPEND_DOUBLE (&d, "ok", 1.0);
   bson_append_document_end (&shards, &d);
   bson_append_document_end (reply, &shards);
   sim_reply_ok (reply);
   bson_destroy (&empty);
}

/* The sums the router keeps over the shards' answers. */
typedef struct {
   int64_t count, size, storage, idx, total, unscaled;
} sim_collstats_sum_t;

void
sim_cmd_coll_stats (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   char ns[512], primary[64] = "";
   if (!bson_iter_init (&it, ctx->cmd) || !bson_iter_next (&it) || !BSON_ITER_HOLDS_UTF8 (&it)) {
      sim_reply_error (reply, 73, "collection name has invalid type %s", simq_type_name (bson_iter_type (&it)));
      return;
   }
   bson_snprintf (ns, sizeof ns, "%s.%s", ctx->db, bson_iter_utf8 (&it, NULL));
   sim_db_primary (ctx->db, primary);
   if (!primary[0]) {
      sim_reply_error (reply, 26, "Database %s not found", ctx->db);
      return;
   }
   sim_coll_t *coll = sim_coll_get_ns (ns);
   sim_shcoll_t sc;
   bool sharded = sim_shcoll_load (ns, &sc);
   sim_shcoll_destroy (&sc);
   bson_t head = BSON_INITIALIZER;
   BSON_APPEND_BOOL (&head, "sharded", sharded);
   if (!sharded) {
      BSON_APPEND_UTF8 (&head, "primary", primary);
   }
   int64_t scale = sim_collstats_scale (ctx->cmd, reply);
   if (!scale) {
      bson_destroy (&head);
      return;
   }
   if (!coll) {
      sim_collstats_missing (ns, primary, scale, &head, reply);
      bson_destroy (&head);
      return;
   }
   sim_shard_stat_t *st = NULL;
   size_t n = sim_coll_shard_stats (ns, &st);
   sim_collstats_sum_t sum = { 0 };
   bson_t shards = BSON_INITIALIZER, sizes;
   for (size_t i = 0; i < n; i++) {
      /* Each shard's answer as the router keeps it under shards.<id> (scaleIndividualShardStatistics; scale 1 as
       * sent, then the router scales the sizes), and its figures summed. */
      bson_t d;
      int64_t storage, idx;
      sim_coll_storage_sizes (coll, &st[i], &storage, &idx);
      BSON_APPEND_DOCUMENT_BEGIN (&shards, st[i].shard, &d);
      BSON_APPEND_UTF8 (&d, "ns", ns);
      sim_coll_storage_append (&d, coll, &st[i], scale);
      BSON_APPEND_DOUBLE (&d, "ok", 1.0);
      bson_append_document_end (&shards, &d);
      sum.count += st[i].count;
      sum.size += st[i].size;
      sum.storage += storage;
      sum.idx += idx;
      sum.total += storage + idx;
      sum.unscaled += (st[i].count ? st[i].size / st[i].count : 0) * st[i].count;
   }
   /* The fields copied from the first shard (capped), then ns, the sums in name order (count, size, storageSize,
    * totalIndexSize, totalSize; sizes scaled), indexSizes, avgObjSize (a double), maxSize, nindexes, scaleFactor,
    * nchunks (1 for an unsharded collection) and shards. */
   bson_concat (reply, &head);
   if (n) {
      BSON_APPEND_BOOL (reply, "capped", false);
   }
   BSON_APPEND_UTF8 (reply, "ns", ns);
   if (n) {
      sim_append_number (reply, "count", sum.count);
      sim_append_number (reply, "size", sum.size / scale);
      sim_append_number (reply, "storageSize", sum.storage / scale);
      sim_append_number (reply, "totalIndexSize", sum.idx / scale);
      sim_append_number (reply, "totalSize", sum.total / scale);
   }
   BSON_APPEND_DOCUMENT_BEGIN (reply, "indexSizes", &sizes);
   int64_t nidx = (int64_t) coll->indexes.n;
   /* std::map order: the index names sorted. */
   char **names = bson_malloc0 ((coll->indexes.n + 1) * sizeof *names);
   size_t nn = 0;
   for (size_t k = 0; n && k < coll->indexes.n; k++) {
      if (bson_iter_init_find (&it, coll->indexes.v[k], "name") && BSON_ITER_HOLDS_UTF8 (&it)) {
         const char *name = bson_iter_utf8 (&it, NULL);
         size_t at = nn;
         while (at > 0 && strcmp (names[at - 1], name) > 0) {
            names[at] = names[at - 1];
            at--;
         }
         names[at] = (char *) name;
         nn++;
      }
   }
   for (size_t k = 0; k < nn; k++) {
      sim_append_number (&sizes, names[k], nidx ? sum.idx / nidx / scale : 0);
   }
   bson_free (names);
   bson_append_document_end (reply, &sizes);
   BSON_APPEND_DOUBLE (reply, "avgObjSize", sum.count > 0 ? (double) sum.unscaled / (double) sum.count : 0.0);
   BSON_APPEND_INT64 (reply, "maxSize", 0);
   BSON_APPEND_INT32 (reply, "nindexes", n ? (int32_t) nidx : 0);
   BSON_APPEND_INT32 (reply, "scaleFactor", (int32_t) scale);
   int64_t nchunks = 0;
   for (size_t i = 0; i < n; i++) {
      nchunks += st[i].chunks;
   }
   BSON_APPEND_INT32 (reply, "nchunks", sharded ? (int32_t) nchunks : 1);
   BSON_APPEND_DOCUMENT (reply, "shards", &shards);
   sim_reply_ok (reply);
   bson_destroy (&shards);
   bson_destroy (&head);
   bson_free (st);
}
