/* shardsim's split and mergeChunks commands and the split operation the scenarios use (sim_op_split): split
 * points, medians, merge validation and the changelog entries. Callers hold sim_g.lock. */
#include "tests/shardsim/sim_admin.h"
#include "tests/shardsim/query/simq_int.h"

#include "shell/lib/hashkey.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Splits the chunk containing middle at middle. errmsg-only failures use code 0. */
bool
sim_split_at (const sim_shcoll_t *sc, const bson_t *middle, bson_error_t *err)
{
   bson_t chunk, min, max;
   if (!sim_chunk_find (sc, middle, &chunk, NULL)) {
      char *s = sim_bson_str (middle);
      SIM_ERR (err, 0, "no chunk found for split key %s", s);
      bson_free (s);
      return false;
   }
   docget_sub (&chunk, "min", BSON_TYPE_EOD, &min);
   docget_sub (&chunk, "max", BSON_TYPE_EOD, &max);
   if (order_docs (&min, middle) == 0) {
      char *s = sim_bson_str (middle), *a = sim_bson_str (&min), *b = sim_bson_str (&max);
      SIM_ERR (err, 0, "new split key %s is a boundary key of existing chunk [%s,%s)", s, a, b);
      bson_free (s);
      bson_free (a);
      bson_free (b);
      bson_destroy (&chunk);
      return false;
   }
   uint32_t major, minor;
   sim_chunk_max_version (sc, &major, &minor);
   const char *shard = sim_chunk_shard (&chunk);
   bson_t left, right, details = BSON_INITIALIZER, sub;
   sim_chunk_rewrite_doc (sc, &chunk, NULL, middle, shard, major, minor + 1, false, &left);
   sim_chunk_rewrite_doc (sc, &chunk, middle, NULL, shard, major, minor + 2, false, &right);
   /* The right half is a new chunk: give it its own _id. */
   bson_t right2 = BSON_INITIALIZER;
   bson_oid_t oid;
   bson_oid_init (&oid, NULL);
   BSON_APPEND_OID (&right2, "_id", &oid);
   bson_copy_to_excluding_noinit (&right, &right2, "_id", NULL);
   BSON_APPEND_DOCUMENT_BEGIN (&details, "before", &sub);
   sim_split_before_doc (&chunk, sc, &sub);
   bson_append_document_end (&details, &sub);
   BSON_APPEND_DOCUMENT_BEGIN (&details, "left", &sub);
   sim_chunk_version_doc (&left, sc, &sub);
   bson_append_document_end (&details, &sub);
   BSON_APPEND_DOCUMENT_BEGIN (&details, "right", &sub);
   sim_chunk_version_doc (&right2, sc, &sub);
   bson_append_document_end (&details, &sub);
   if (sim_ver_ge (50)) { /* the 4.4-era commitChunkSplit writes no owningShard */
      BSON_APPEND_UTF8 (&details, "owningShard", shard);
   }
   sim_chunk_replace (&chunk, &left);
   sim_coll_insert (sim_coll_ensure ("config", "chunks"), &right2);
   sim_changelog (false, "split", sc->ns, "config", &details, clock_wall_ms ());
   bson_destroy (&right2);
   bson_destroy (&details);
   bson_destroy (&left);
   bson_destroy (&right);
   bson_destroy (&chunk);
   return true;
}

int
sim_key_doc_cmp (const void *a, const void *b)
{
   return order_docs (*(bson_t *const *) a, *(bson_t *const *) b);
}

/* The median shard key of the documents inside chunk; false (CannotSplit) when it cannot be split. */
bool
sim_chunk_median (const sim_shcoll_t *sc, const bson_t *chunk, bson_t *out, bson_error_t *err)
{
   bson_t min, max;
   simq_docs_t keys;
   simq_docs_init (&keys);
   docget_sub (chunk, "min", BSON_TYPE_EOD, &min);
   docget_sub (chunk, "max", BSON_TYPE_EOD, &max);
   sim_coll_t *coll = sim_coll_get_ns (sc->ns);
   for (size_t p = 0; coll && p < coll->nparts; p++) {
      for (size_t i = 0; i < coll->parts[p].docs.n; i++) {
         bson_t view, key;
         sim_pos_t at = { p, i };
         sim_coll_view (coll, at, &view);
         sim_shard_key_of (sc, &view, &key);
         if (order_docs (&min, &key) <= 0 && order_docs (&key, &max) < 0) {
            simq_docs_push_copy (&keys, &key);
         }
         bson_destroy (&key);
      }
   }
   bool ok = false;
   /* Sort keys by value (the documents are shard-key documents, so compare them whole). */
   if (keys.n > 1) {
      qsort (keys.v, keys.n, sizeof *keys.v, sim_key_doc_cmp);
   }
   if (keys.n >= 2) {
      size_t m = keys.n / 2;
      /* Move forward past keys equal to min so the split point is not a chunk boundary. */
      while (m < keys.n && order_docs (keys.v[m], &min) == 0) {
         m++;
      }
      if (m < keys.n && order_docs (keys.v[0], keys.v[keys.n - 1]) != 0) {
         bson_copy_to (keys.v[m], out);
         ok = true;
      }
   }
   if (!ok) {
      SIM_ERR (err, 87, "Unable to find median in chunk because chunk is indivisible.");
   }
   simq_docs_clear (&keys);
   return ok;
}

bool
sim_op_split (const char *ns, const bson_t *middle, bson_error_t *err)
{
   sim_shcoll_t sc;
   bool ok = false;
   if (!sim_shcoll_load (ns, &sc)) {
      SIM_ERR (err, 118, "ns %s is not sharded", ns);
      goto done;
   }
   if (!sim_bound_fits (&sc, middle)) {
      char *a = sim_bson_str (middle), *b = sim_bson_str (&sc.key);
      SIM_ERR (err, 0, "new split key %s is not valid for shard key pattern %s", a, b);
      bson_free (a);
      bson_free (b);
      goto done;
   }
   ok = sim_split_at (&sc, middle, err);
done:
   sim_shcoll_destroy (&sc);
   return ok;
}

void
sim_cmd_split (sim_ctx_t *ctx, bson_t *reply)
{
   bson_error_t err;
   bson_t middle, chunk, median;
   sim_shcoll_t sc;
   const char *ns = sim_first_ns (ctx, reply);
   memset (&sc, 0, sizeof sc);
   bson_init (&sc.key);
   bson_init (&sc.doc);
   if (!ns) {
      goto done;
   }
   /* cluster_split_cmd.cpp SplitCollectionCmd::errmsgRun: the routing info first (118 for an unsharded
    * namespace), then find, bounds (each element), find with bounds, middle, none, find with middle, bounds with
    * middle. */
   sim_shcoll_destroy (&sc);
   if (!sim_shcoll_load (ns, &sc)) {
      sim_not_sharded (reply, ns);
      goto done;
   }
   if (!sim_field_type_ok (ctx->cmd, "find", false, reply) || !sim_field_type_ok (ctx->cmd, "bounds", true, reply)) {
      goto done;
   }
   bool have_find = sim_nonempty (ctx->cmd, "find"), have_bounds = sim_nonempty (ctx->cmd, "bounds");
   if (have_bounds) {
      bson_t b;
      bson_iter_t bi;
      docget_sub (ctx->cmd, "bounds", BSON_TYPE_EOD, &b);
      if (!bson_iter_init_find (&bi, &b, "0")) {
         sim_reply_error (reply, 0, "lower bound not specified");
         goto done;
      }
      if (!bson_iter_init_find (&bi, &b, "1")) {
         sim_reply_error (reply, 0, "upper bound not specified");
         goto done;
      }
   }
   if (have_find && have_bounds) {
      sim_reply_error (reply, 0, "cannot specify bounds and find at the same time");
      goto done;
   }
   if (!sim_field_type_ok (ctx->cmd, "middle", false, reply)) {
      goto done;
   }
   bool have_middle = sim_nonempty (ctx->cmd, "middle");
   if (!have_find && !have_bounds && !have_middle) {
      sim_reply_error (reply, 0, "need to specify find/bounds or middle");
      goto done;
   }
   if (have_middle && have_find) {
      sim_reply_error (reply, 0, "cannot specify find and middle together");
      goto done;
   }
   if (have_middle && have_bounds) {
      sim_reply_error (reply, 0, "cannot specify bounds and middle together");
      goto done;
   }
   if (have_middle) {
      docget_sub (ctx->cmd, "middle", BSON_TYPE_EOD, &middle);
      if (!sim_bound_fits (&sc, &middle)) {
         char *a = sim_bson_str (&middle), *b = sim_bson_str (&sc.key);
         sim_reply_error (reply, 0, "new split key %s is not valid for shard key pattern %s", a, b);
         bson_free (a);
         bson_free (b);
         goto done;
      }
      if (!sim_split_at (&sc, &middle, &err)) {
         sim_admin_error (reply, &err);
         goto done;
      }
      sim_reply_ok (reply);
      goto done;
   }
   if (!sim_target_chunk (ctx, &sc, false, true, &chunk, &err)) {
      sim_admin_error (reply, &err);
      goto done;
   }
   bson_init (&median);
   bool ok = sim_chunk_median (&sc, &chunk, &median, &err) && sim_split_at (&sc, &median, &err);
   bson_destroy (&median);
   bson_destroy (&chunk);
   if (!ok) {
      sim_admin_error (reply, &err);
      goto done;
   }
   sim_reply_ok (reply);
done:
   sim_shcoll_destroy (&sc);
}

void
sim_cmd_merge_chunks (sim_ctx_t *ctx, bson_t *reply)
{
   bson_t bounds, lo, hi;
   sim_shcoll_t sc;
   simq_docs_t all;
   simq_docs_init (&all);
   memset (&sc, 0, sizeof sc);
   bson_init (&sc.key);
   bson_init (&sc.doc);
   const char *ns = sim_first_ns (ctx, reply);
   if (!ns) {
      goto done;
   }
   /* cluster_merge_chunks_cmd.cpp ClusterMergeChunksCommand::errmsgRun: bounds (FieldParser, vector of objects),
    * their count, an empty min or max, then the routing info (118), then the shard key pattern. */
   bson_iter_t bit;
   if (bson_iter_init_find (&bit, ctx->cmd, "bounds") && !BSON_ITER_HOLDS_ARRAY (&bit)) {
      bson_t one = BSON_INITIALIZER;
      bson_append_iter (&one, "bounds", -1, &bit);
      char *j = sim_bson_str (&one);
      size_t jn = strlen (j);
      if (jn >= 4) {
         j[jn - 2] = '\0';
      }
      sim_reply_error (reply, 0, "wrong type for 'bounds' field, expected vector array, found %s", jn >= 4 ? j + 2 : j);
      bson_free (j);
      bson_destroy (&one);
      goto done;
   }
   if (!docget_sub (ctx->cmd, "bounds", BSON_TYPE_EOD, &bounds)) {
      sim_reply_error (reply, 0, "no bounds were specified");
      goto done;
   }
   int n = 0;
   bson_iter_t it;
   bson_iter_init (&it, &bounds);
   while (bson_iter_next (&it)) {
      n++;
   }
   if (n == 0) {
      sim_reply_error (reply, 0, "no bounds were specified");
      goto done;
   }
   if (n != 2) {
      sim_reply_error (reply, 0, "only a min and max bound may be specified");
      goto done;
   }
   if (!docget_sub (&bounds, "0", BSON_TYPE_EOD, &lo) || bson_empty (&lo)) {
      sim_reply_error (reply, 0, "no min key specified");
      goto done;
   }
   if (!docget_sub (&bounds, "1", BSON_TYPE_EOD, &hi) || bson_empty (&hi)) {
      sim_reply_error (reply, 0, "no max key specified");
      goto done;
   }
   sim_shcoll_destroy (&sc);
   if (!sim_shcoll_load (ns, &sc)) {
      sim_not_sharded (reply, ns);
      goto done;
   }
   if (!sim_bound_fits (&sc, &lo) || !sim_bound_fits (&sc, &hi)) {
      char *a = sim_bson_str (&lo), *b = sim_bson_str (&hi), *k = sim_bson_str (&sc.key);
      sim_reply_error (reply, 0, "shard key bounds [%s,%s) are not valid for shard key pattern %s", a, b, k);
      bson_free (a);
      bson_free (b);
      bson_free (k);
      goto done;
   }
   sim_chunks_of (&sc, &all);
   size_t first = SIZE_MAX, last = SIZE_MAX;
   for (size_t i = 0; i < all.n; i++) {
      bson_t cmin, cmax;
      docget_sub (all.v[i], "min", BSON_TYPE_EOD, &cmin);
      docget_sub (all.v[i], "max", BSON_TYPE_EOD, &cmax);
      if (order_docs (&cmin, &lo) == 0) {
         first = i;
      }
      if (order_docs (&cmax, &hi) == 0) {
         last = i;
      }
   }
   char *a = sim_bson_str (&lo), *b = sim_bson_str (&hi);
   bool bad = first == SIZE_MAX || last == SIZE_MAX || last < first;
   const char *owner = bad ? "" : sim_chunk_shard (all.v[first]);
   for (size_t i = first; !bad && i <= last; i++) {
      bad = strcmp (sim_chunk_shard (all.v[i]), owner) != 0;
   }
   if (bad) {
      /* The mongos sends the merge to the owner of the chunk holding min (findIntersectingChunk), which names
       * itself in the error. */
      bson_t holder;
      char named[64] = "";
      if (sim_chunk_find (&sc, &lo, &holder, NULL)) {
         bson_strncpy (named, sim_chunk_shard (&holder), sizeof named);
         bson_destroy (&holder);
      }
      owner = named;
      sim_reply_error (reply, 20,
                       "could not merge chunks, shard %s does not contain a sequence of chunks that exactly fills "
                       "the range [%s, %s)",
                       owner[0] ? owner : "(none)", a, b);
      bson_free (a);
      bson_free (b);
      goto done;
   }
   bson_free (a);
   bson_free (b);
   if (last > first) {
      uint32_t major, minor;
      sim_chunk_max_version (&sc, &major, &minor);
      bson_t merged;
      char shard[64];
      bson_strncpy (shard, owner, sizeof shard);
      sim_chunk_rewrite_doc (&sc, all.v[first], &lo, &hi, shard, major, minor + 1, false, &merged);
      sim_merge_changelog (&sc, (const bson_t *const *) &all.v[first], last - first + 1, major, minor, shard);
      for (size_t i = first + 1; i <= last; i++) {
         sim_chunk_replace (all.v[i], NULL);
      }
      sim_chunk_replace (all.v[first], &merged);
      bson_destroy (&merged);
   }
   sim_reply_ok (reply);
done:
   simq_docs_clear (&all);
   sim_shcoll_destroy (&sc);
}
