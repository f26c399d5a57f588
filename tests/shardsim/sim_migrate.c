/* shardsim's chunk migrations: moveChunk and moveRange, their checks (destination, zones, size, jumbo) and the
 * commit that moves the range and logs it as the shards would; the balancer migrates through it too. Callers hold
 * sim_g.lock. */
#include "tests/shardsim/sim_admin.h"
#include "tests/shardsim/query/simq_int.h"

#include "shell/lib/hashkey.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The details of a moveChunk.to (8 steps) or moveChunk.from (6 steps) changelog entry, as the shards write them:
 * "step i of n" timings in ms (the cloning step, clone_step, takes clone_ms; the others 0), the range, both shards
 * and the success note. d is initialised by the caller. */
static void
sim_migration_steps (bson_t *d, int nsteps, int clone_step, int64_t clone_ms, const bson_t *min, const bson_t *max,
                     const char *to, const char *from)
{
   for (int step = 1; step <= nsteps; step++) {
      char k[32];
      bson_snprintf (k, sizeof k, "step %d of %d", step, nsteps);
      BSON_APPEND_INT32 (d, k, step == clone_step ? (int32_t) clone_ms : 0);
   }
   BSON_APPEND_DOCUMENT (d, "min", min);
   BSON_APPEND_DOCUMENT (d, "max", max);
   BSON_APPEND_UTF8 (d, "to", to);
   BSON_APPEND_UTF8 (d, "from", from);
   BSON_APPEND_UTF8 (d, "note", "success");
}

void
sim_migrate_log_start (const sim_shcoll_t *sc, const bson_t *min, const bson_t *max, const char *from, const char *to)
{
   bson_t details = BSON_INITIALIZER;
   BSON_APPEND_DOCUMENT (&details, "min", min);
   BSON_APPEND_DOCUMENT (&details, "max", max);
   BSON_APPEND_UTF8 (&details, "from", from);
   BSON_APPEND_UTF8 (&details, "to", to);
   sim_changelog (false, "moveChunk.start", sc->ns, from, &details, clock_wall_ms ());
   bson_destroy (&details);
}

/* commitChunkMigration: moves [lo, hi) (NULL: the chunk's own bounds) of chunk to shard to. The moved range keeps
 * the chunk's _id and gets (major + 1, 0); from 6.0 (moveRange) the parts of the chunk left and right of it stay on
 * the donor as new chunks with (major + 1, 1), (major + 1, 2) and the chunk's history; then one other chunk of the
 * donor, the control chunk, gets the next minor. Writes moveChunk.start (log_start), .to, .commit and .from. */
static void
sim_migrate_commit_range (const sim_shcoll_t *sc, const bson_t *chunk, const bson_t *lo, const bson_t *hi,
                          const char *to, bool log_start, int64_t ndocs, int64_t nbytes, int64_t clone_ms)
{
   char from[64];
   uint32_t major, minor, next = 1;
   bson_t cmin, cmax, moved, details = BSON_INITIALIZER, counts;
   int64_t now = clock_wall_ms ();
   bson_strncpy (from, sim_chunk_shard (chunk), sizeof from);
   docget_sub (chunk, "min", BSON_TYPE_EOD, &cmin);
   docget_sub (chunk, "max", BSON_TYPE_EOD, &cmax);
   const bson_t *min = lo ? lo : &cmin, *max = hi ? hi : &cmax;
   if (ndocs < 0 || nbytes < 0) {
      sim_range_counts (sc, min, max, &ndocs, &nbytes);
   }
   if (log_start) {
      sim_migrate_log_start (sc, min, max, from, to);
   }
   BSON_APPEND_DOCUMENT (&details, "min", min);
   BSON_APPEND_DOCUMENT (&details, "max", max);
   BSON_APPEND_UTF8 (&details, "from", from);
   BSON_APPEND_UTF8 (&details, "to", to);

   sim_chunk_max_version (sc, &major, &minor);
   simq_docs_t all;
   simq_docs_init (&all);
   sim_chunks_of (sc, &all);
   /* the pieces of a moved range: left, then right */
   const bson_t *piece_lo[2] = { &cmin, max }, *piece_hi[2] = { min, &cmax };
   for (int k = 0; k < 2; k++) {
      if (order_docs (piece_lo[k], piece_hi[k]) >= 0) {
         continue;
      }
      bson_t piece, piece2 = BSON_INITIALIZER;
      bson_oid_t oid;
      sim_chunk_rewrite_doc (sc, chunk, piece_lo[k], piece_hi[k], from, major + 1, next++, false, &piece);
      bson_oid_init (&oid, NULL);
      BSON_APPEND_OID (&piece2, "_id", &oid);
      bson_copy_to_excluding_noinit (&piece, &piece2, "_id", NULL);
      sim_coll_insert (sim_coll_ensure ("config", "chunks"), &piece2);
      bson_destroy (&piece2);
      bson_destroy (&piece);
   }
   /* The donor's control chunk (one other chunk of the donor, taken before the commit) gets the next minor. */
   for (size_t i = 0; i < all.n; i++) {
      bson_t omin;
      docget_sub (all.v[i], "min", BSON_TYPE_EOD, &omin);
      if (!strcmp (sim_chunk_shard (all.v[i]), from) && order_docs (&omin, &cmin) != 0) {
         bson_t bumped;
         sim_chunk_rewrite_doc (sc, all.v[i], NULL, NULL, from, major + 1, next, false, &bumped);
         sim_chunk_replace (all.v[i], &bumped);
         bson_destroy (&bumped);
         break;
      }
   }
   simq_docs_clear (&all);
   sim_chunk_rewrite_doc (sc, chunk, min, max, to, major + 1, 0, true, &moved);
   sim_chunk_replace (chunk, &moved);
   bson_destroy (&moved);

   bson_t to_details = BSON_INITIALIZER;
   sim_migration_steps (&to_details, 8, 5, clone_ms > 0 ? clone_ms : 2, min, max, to, from);
   sim_changelog (false, "moveChunk.to", sc->ns, to, &to_details, now);
   bson_destroy (&to_details);

   BSON_APPEND_DOCUMENT_BEGIN (&details, "counts", &counts);
   BSON_APPEND_INT64 (&counts, "cloned", ndocs);
   BSON_APPEND_INT64 (&counts, "clonedBytes", nbytes);
   BSON_APPEND_INT64 (&counts, "catchup", 0);
   BSON_APPEND_INT64 (&counts, "steady", 0);
   bson_append_document_end (&details, &counts);
   sim_changelog (false, "moveChunk.commit", sc->ns, from, &details, now);
   bson_destroy (&details);

   bson_t from_details = BSON_INITIALIZER;
   sim_migration_steps (&from_details, 6, 4, clone_ms > 0 ? clone_ms : 3, min, max, to, from);
   sim_changelog (false, "moveChunk.from", sc->ns, from, &from_details, now);
   bson_destroy (&from_details);
}

void
sim_migrate_commit (const sim_shcoll_t *sc, const bson_t *chunk, const char *to, bool log_start, int64_t ndocs,
                    int64_t nbytes, int64_t clone_ms)
{
   sim_migrate_commit_range (sc, chunk, NULL, NULL, to, log_start, ndocs, nbytes, clone_ms);
}

/* Moves chunk (a config.chunks document of sc) to shard to, with the migration's changelog. */
static void
sim_move_chunk_doc (const sim_shcoll_t *sc, const bson_t *chunk, const char *to)
{
   sim_migrate_commit (sc, chunk, to, true, -1, -1, 0);
}

/* Checks whether chunk may move to shard to (exists, not draining, zone); err set when not. */
bool
sim_check_destination (const sim_shcoll_t *sc, const bson_t *chunk, const char *to, bson_error_t *err)
{
   bson_t min, max;
   char zone[128];
   if (!sim_shard_get (to, NULL)) {
      SIM_ERR (err, 70, "Shard %s not found", to);
      return false;
   }
   if (sim_shard_is_draining (to)) {
      SIM_ERR (err, 20, "Destination shard %s is draining", to);
      return false;
   }
   docget_sub (chunk, "min", BSON_TYPE_EOD, &min);
   docget_sub (chunk, "max", BSON_TYPE_EOD, &max);
   if (sim_zone_of (sc->ns, &min, &max, zone, sizeof zone) && !sim_shard_in_zone (to, zone)) {
      char *smin = sim_bson_str (&min), *smax = sim_bson_str (&max);
      SIM_ERR (err, 20, "Chunk [%s, %s) of %s belongs to zone %s, which shard %s is not part of", smin, smax, sc->ns,
               zone, to);
      bson_free (smin);
      bson_free (smax);
      return false;
   }
   if (sim_migrations_forbidden (&sc->doc)) {
      SIM_ERR (err, 117, "Collection is undergoing changes so moveChunk is not allowed.");
      return false;
   }
   return true;
}

/* The checks of a manual moveChunk/moveRange once the chunk is known. 4.4/5.0: the config server's
 * Balancer::moveSingleChunk runs BalancerChunkSelectionPolicy::checkMoveAllowed, i.e.
 * BalancerPolicy::isShardSuitableReceiver (20 "X is currently draining." / "X is not in the correct zone Z"). 6.0+:
 * _configsvrMoveRange (Balancer::moveRange) checks neither: zones are not checked at all, and a draining recipient
 * is refused only when the migration commits (70). The donor's allowMigrations check applies to all. */
static bool
sim_check_manual_move (const sim_shcoll_t *sc, const bson_t *chunk, const char *to, bson_error_t *err)
{
   bson_t min, max;
   char zone[128];
   if (!sim_ver_ge (60)) {
      if (sim_shard_is_draining (to)) {
         SIM_ERR (err, 20, "%s is currently draining.", to);
         return false;
      }
      docget_sub (chunk, "min", BSON_TYPE_EOD, &min);
      docget_sub (chunk, "max", BSON_TYPE_EOD, &max);
      if (sim_zone_of (sc->ns, &min, &max, zone, sizeof zone) && !sim_shard_in_zone (to, zone)) {
         SIM_ERR (err, 20, "%s is not in the correct zone %s", to, zone);
         return false;
      }
   } else if (sim_shard_is_draining (to)) {
      /* 6.0+: only the commit refuses it (ShardingCatalogManager::commitChunkMigration, ShardNotFound). */
      SIM_ERR (err, 70, "Shard %s is currently draining", to);
      return false;
   }
   if (sim_migrations_forbidden (&sc->doc)) {
      SIM_ERR (err, 117, "Collection is undergoing changes so moveChunk is not allowed.");
      return false;
   }
   return true;
}

/* The donor's size check of a migration (MigrationChunkClonerSource::_storeCurrentRecordId): with avg the donor's
 * average document size of the collection, a chunk of more than 2 * max (chunk size / avg, 1) documents (250001 when
 * the donor holds none) fails with 153 ChunkTooBig, unless forceJumbo (then startClone clones it as a jumbo chunk).
 * max_chunk_bytes <= 0 takes the collection's chunk size. */
static bool
sim_check_range_size (const sim_shcoll_t *sc, const bson_t *min, const bson_t *max, int64_t ndocs,
                      int64_t max_chunk_bytes, bool force_jumbo, bson_error_t *err);

static bool
sim_check_chunk_size (const sim_shcoll_t *sc, const bson_t *chunk, int64_t max_chunk_bytes, bool force_jumbo,
                      bson_error_t *err)
{
   bson_t min, max;
   if (!docget_sub (chunk, "min", BSON_TYPE_EOD, &min) || !docget_sub (chunk, "max", BSON_TYPE_EOD, &max)) {
      return true;
   }
   return sim_check_range_size (sc, &min, &max, -1, max_chunk_bytes, force_jumbo, err);
}

/* The average document size of sc's documents on shard (0 when it holds none), from the chunk table. */
static int64_t
sim_donor_avg_size (const sim_shcoll_t *sc, const char *shard)
{
   sim_coll_t *coll = sim_coll_get_ns (sc->ns);
   sim_ctab_t *t = coll ? sim_ctab_get (coll) : NULL;
   int64_t total = 0, bytes = 0;
   for (size_t k = 0; t && k < t->n; k++) {
      if (!strcmp (t->v[k].shard, shard)) {
         total += t->v[k].docs;
         bytes += t->v[k].bytes;
      }
   }
   return total > 0 ? (bytes / total > 0 ? bytes / total : 5) : 0;
}

/* As sim_check_chunk_size for the range [min, max) of the chunk holding min, with ndocs documents (-1: the whole
 * chunk's count from the chunk table). */
static bool
sim_check_range_size (const sim_shcoll_t *sc, const bson_t *min_in, const bson_t *max_in, int64_t ndocs,
                      int64_t max_chunk_bytes, bool force_jumbo, bson_error_t *err)
{
   sim_coll_t *coll = sim_coll_get_ns (sc->ns);
   sim_ctab_t *t = coll ? sim_ctab_get (coll) : NULL;
   const bson_t *min = min_in, *max = max_in;
   if (force_jumbo || !t) {
      return true;
   }
   size_t i = sim_ctab_locate (t, min);
   if (i == SIZE_MAX) {
      return true;
   }
   const char *donor = t->v[i].shard;
   int64_t total = 0, bytes = 0;
   for (size_t k = 0; k < t->n; k++) {
      if (!strcmp (t->v[k].shard, donor)) {
         total += t->v[k].docs;
         bytes += t->v[k].bytes;
      }
   }
   int64_t cs = max_chunk_bytes > 0 ? max_chunk_bytes : sim_chunk_size_bytes (sc);
   int64_t avg = 0, max_recs = 250001;
   if (total > 0) {
      avg = bytes / total > 0 ? bytes / total : 5; /* BSONObj::kMinBSONLength */
      max_recs = 2 * (cs / avg > 1 ? cs / avg : 1);
   }
   if (ndocs < 0) {
      ndocs = t->v[i].docs;
   }
   if (ndocs <= max_recs) {
      return true;
   }
   char *a = sim_bson_str (min), *b = sim_bson_str (max);
   SIM_ERR (err, 153,
            "Cannot move chunk: the maximum number of documents for a chunk is %lld, the maximum chunk size is %lld, "
            "average document size is %lld. Found %lld documents in chunk  ns: %s %s -> %s",
            (long long) max_recs, (long long) cs, (long long) avg, (long long) ndocs, sc->ns, a, b);
   bson_free (a);
   bson_free (b);
   return false;
}

bool
sim_chunk_too_big_to_move (const sim_ctab_t *t, size_t i)
{
   bson_t min, max;
   bson_error_t err;
   sim_chunk_min (&t->v[i], &min);
   sim_chunk_max (&t->v[i], &max);
   return !sim_check_range_size (&t->sc, &min, &max, -1, 0, false, &err);
}

bool
sim_op_move_chunk (const char *ns, const bson_t *key, const char *to, bson_error_t *err)
{
   sim_shcoll_t sc;
   bson_t chunk;
   bool ok = false;
   if (!sim_shcoll_load (ns, &sc)) {
      SIM_ERR (err, 118, "ns %s is not sharded", ns);
      goto done;
   }
   if (!sim_chunk_find (&sc, key, &chunk, NULL)) {
      char *s = sim_bson_str (key);
      SIM_ERR (err, 0, "no chunk found for shard key %s", s);
      bson_free (s);
      goto done;
   }
   if (sim_check_destination (&sc, &chunk, to, err)) {
      if (strcmp (sim_chunk_shard (&chunk), to) != 0) {
         sim_move_chunk_doc (&sc, &chunk, to);
      }
      ok = true;
   }
   bson_destroy (&chunk);
done:
   sim_shcoll_destroy (&sc);
   return ok;
}

/* 6.0+ moveChunk's argument checks, in the order of the typed command (72 InvalidOptions each). */
static bool
sim_target_args_ok (sim_ctx_t *ctx, bson_error_t *err)
{
   bson_t bounds;
   bool have_find = sim_has (ctx->cmd, "find"), have_bounds = docget_sub (ctx->cmd, "bounds", BSON_TYPE_EOD, &bounds);
   if (have_bounds && bson_count_keys (&bounds) != 2) {
      SIM_ERR (err, 72, "bounds can only have exactly 2 elements");
      return false;
   }
   if (have_find && have_bounds) {
      SIM_ERR (err, 72, "cannot specify bounds and query at the same time");
      return false;
   }
   if (!have_find && !have_bounds) {
      SIM_ERR (err, 72, "need to specify query or bounds");
      return false;
   }
   return true;
}

/* The chunk a moveChunk/split request designates (find or bounds); errors follow the version's style. */
bool
sim_target_chunk (sim_ctx_t *ctx, const sim_shcoll_t *sc, bool typed, bool for_split, bson_t *chunk, bson_error_t *err)
{
   bson_t find, bounds, middle;
   bool have_find = docget_sub (ctx->cmd, "find", BSON_TYPE_EOD, &find);
   bool have_bounds = docget_sub (ctx->cmd, "bounds", BSON_TYPE_EOD, &bounds);
   bool have_middle = for_split && docget_sub (ctx->cmd, "middle", BSON_TYPE_EOD, &middle);
   (void) have_middle;
   if (!typed && !for_split && (have_find ? bson_empty (&find) : true) == (have_bounds ? bson_empty (&bounds) : true)) {
      /* 4.4/5.0 errmsgRun: getObjectField of each; both empty (absent, not objects, {}) or both given. */
      SIM_ERR (err, 0, "need to specify either a find query, or both lower and upper bounds.");
      return false;
   }
   if (!typed && !for_split) {
      have_find = have_find && !bson_empty (&find);
      have_bounds = !have_find;
   }
   if (for_split) {
      /* cluster_split_cmd.cpp: FieldParser's default ({} / []) is "not given". */
      have_find = have_find && !bson_empty (&find);
      have_bounds = have_bounds && !bson_empty (&bounds);
   }
   if (have_find && have_bounds) {
      if (for_split) {
         SIM_ERR (err, 0, "cannot specify bounds and find at the same time");
      } else {
         SIM_ERR (err, typed ? 72 : 0, "cannot specify bounds and query at the same time");
      }
      return false;
   }
   if (!have_find && !have_bounds) {
      if (for_split) {
         SIM_ERR (err, 0, "need to specify find/bounds or middle");
      } else if (typed) {
         SIM_ERR (err, 72, "need to specify query or bounds");
      } else {
         SIM_ERR (err, 0, "need to specify either a find query, or both lower and upper bounds.");
      }
      return false;
   }
   if (have_find) {
      bson_t key;
      if (!sim_key_from_query (sc, &find, &key)) {
         char *s = sim_bson_str (&find);
         SIM_ERR (err, typed ? 656450 : 0, "no shard key found in chunk query %s", s);
         bson_free (s);
         bson_destroy (&key);
         return false;
      }
      bool ok = sim_chunk_find (sc, &key, chunk, NULL);
      bson_destroy (&key);
      if (!ok) {
         SIM_ERR (err, typed ? 656452 : 0, "no chunk found for the query");
      }
      return ok;
   }
   bson_iter_t it;
   bson_t lo, hi;
   int n = 0;
   bson_iter_init (&it, &bounds);
   while (bson_iter_next (&it)) {
      n++;
   }
   if (n != 2 || !docget_sub (&bounds, "0", BSON_TYPE_EOD, &lo) || !docget_sub (&bounds, "1", BSON_TYPE_EOD, &hi)) {
      if (for_split) {
         SIM_ERR (err, 0, n < 1 ? "lower bound not specified" : "upper bound not specified");
      } else {
         SIM_ERR (err, typed ? 72 : 0, "bounds can only have exactly 2 elements");
      }
      return false;
   }
   if (!sim_bound_fits (sc, &lo) || !sim_bound_fits (sc, &hi)) {
      char *a = sim_bson_str (&lo), *b = sim_bson_str (&hi), *k = sim_bson_str (&sc->key);
      SIM_ERR (err, typed ? 656451 : 0, "shard key bounds [%s,%s) are not valid for shard key pattern %s", a, b, k);
      bson_free (a);
      bson_free (b);
      bson_free (k);
      return false;
   }
   bson_t found;
   if (sim_chunk_find (sc, &lo, &found, NULL)) {
      bson_t fmin, fmax;
      if (docget_sub (&found, "min", BSON_TYPE_EOD, &fmin) && docget_sub (&found, "max", BSON_TYPE_EOD, &fmax) &&
          order_docs (&fmin, &lo) == 0 && order_docs (&fmax, &hi) == 0) {
         bson_copy_to (&found, chunk);
         bson_destroy (&found);
         return true;
      }
      bson_destroy (&found);
   }
   char *a = sim_bson_str (&lo), *b = sim_bson_str (&hi);
   SIM_ERR (err, typed ? 656452 : 0, "no chunk found with the shard key bounds [%s, %s)", a, b);
   bson_free (a);
   bson_free (b);
   return false;
}

/* moveChunk. 4.4/5.0 follow cluster_move_chunk_cmd.cpp's errmsgRun (sharded check first, then 'to', then the shard,
 * then find/bounds); 6.0+ its typed run (the IDL requires 'to', then the sharded check, the 72 argument checks, the
 * shard, the chunk), which sends _configsvrMoveRange. */
void
sim_cmd_move_chunk (sim_ctx_t *ctx, bson_t *reply)
{
   int64_t started = clock_wall_ms ();
   bson_error_t err;
   bson_t chunk;
   sim_shcoll_t sc;
   bson_iter_t it;
   bool typed = sim_ver_ge (60);
   const char *ns = sim_first_ns (ctx, reply);
   memset (&sc, 0, sizeof sc);
   bson_init (&sc.key);
   bson_init (&sc.doc);
   if (!ns) {
      goto done;
   }
   bool have_to = bson_iter_init_find (&it, ctx->cmd, "to");
   if (typed && !have_to) {
      sim_reply_error (reply, 40414, "BSON field 'moveChunk.to' is missing but a required field");
      goto done;
   }
   if (typed && !BSON_ITER_HOLDS_UTF8 (&it)) {
      sim_reply_error (reply, 14, "BSON field 'moveChunk.to' is the wrong type '%s', expected type 'string'",
                       BSON_ITER_HOLDS_INT32 (&it)    ? "int"
                       : BSON_ITER_HOLDS_NUMBER (&it) ? "double"
                                                      : "object");
      goto done;
   }
   sim_shcoll_destroy (&sc);
   if (!sim_shcoll_load (ns, &sc)) {
      sim_not_sharded (reply, ns);
      goto done;
   }
   if (!have_to || !BSON_ITER_HOLDS_UTF8 (&it)) {
      sim_reply_error (reply, 14, "'to' must be of type String");
      goto done;
   }
   const char *to = bson_iter_utf8 (&it, NULL);
   if (!typed && !to[0]) {
      sim_reply_error (reply, 0, "you have to specify where you want to move the chunk");
      goto done;
   }
   if (typed && !sim_target_args_ok (ctx, &err)) {
      sim_admin_error (reply, &err);
      goto done;
   }
   if (!sim_shard_get (to, NULL)) {
      sim_reply_error (reply, 70, "Could not move chunk in %s to %s because that shard does not exist", ns, to);
      goto done;
   }
   if (!sim_target_chunk (ctx, &sc, typed, false, &chunk, &err)) {
      sim_admin_error (reply, &err);
      goto done;
   }
   int64_t max_bytes = 0;
   if (!typed && bson_iter_init_find (&it, ctx->cmd, "maxChunkSizeBytes") && BSON_ITER_HOLDS_NUMBER (&it)) {
      max_bytes = bson_iter_as_int64 (&it); /* 4.4/5.0 pass it on to the donor */
   }
   bool force_jumbo = bson_iter_init_find (&it, ctx->cmd, "forceJumbo") && bson_iter_as_bool (&it);
   if (strcmp (sim_chunk_shard (&chunk), to) != 0 &&
       (!sim_check_manual_move (&sc, &chunk, to, &err) ||
        !sim_check_chunk_size (&sc, &chunk, max_bytes, force_jumbo, &err))) {
      bson_destroy (&chunk);
      sim_admin_error (reply, &err);
      goto done;
   }
   if (strcmp (sim_chunk_shard (&chunk), to) != 0) {
      sim_move_chunk_doc (&sc, &chunk, to);
   }
   bson_destroy (&chunk);
   BSON_APPEND_INT32 (reply, "millis", (int32_t) (clock_wall_ms () - started));
   sim_reply_ok (reply);
done:
   sim_shcoll_destroy (&sc);
}

typedef struct {
   bson_t *key;
   int64_t size;
} sim_keysize_t;

static int
sim_keysize_cmp (const void *a, const void *b)
{
   return order_docs (((const sim_keysize_t *) a)->key, ((const sim_keysize_t *) b)->key);
}

/* The shard keys (sorted) and sizes of sc's documents inside [lo, hi) into *out (*n of them; free with
 * sim_keysizes_free). */
static void
sim_range_keys (const sim_shcoll_t *sc, const bson_t *lo, const bson_t *hi, sim_keysize_t **out, size_t *n)
{
   size_t cap = 0;
   *out = NULL;
   *n = 0;
   sim_coll_t *coll = sim_coll_get_ns (sc->ns);
   for (size_t p = 0; coll && p < coll->nparts; p++) {
      for (size_t i = 0; i < coll->parts[p].docs.n; i++) {
         bson_t view, key;
         sim_pos_t at = { p, i };
         sim_coll_view (coll, at, &view);
         sim_shard_key_of (sc, &view, &key);
         if (order_docs (lo, &key) <= 0 && order_docs (&key, hi) < 0) {
            if (*n == cap) {
               cap = cap ? cap * 2 : 64;
               *out = bson_realloc (*out, cap * sizeof **out);
            }
            (*out)[*n].key = bson_copy (&key);
            (*out)[*n].size = view.len;
            (*n)++;
         }
         bson_destroy (&key);
      }
   }
   if (*n > 1) {
      qsort (*out, *n, sizeof **out, sim_keysize_cmp);
   }
}

static void
sim_keysizes_free (sim_keysize_t *v, size_t n)
{
   for (size_t i = 0; i < n; i++) {
      bson_destroy (v[i].key);
   }
   bson_free (v);
}

/* computeOtherBound (migration_source_manager.cpp): the first split point autoSplitVector finds in [lo, hi) for one
 * chunk of max_bytes (forward: from lo; backward: from hi), or hi (forward) / lo (backward) when the range holds no
 * more than one chunk of data. autoSplitVector counts documents: a chunk is max_bytes / the average document size of
 * the donor, and a split point never falls between equal keys. out is initialised here. */
static void
sim_other_bound (const sim_shcoll_t *sc, const char *donor, const bson_t *lo, const bson_t *hi, int64_t max_bytes,
                 bool forward, bson_t *out)
{
   sim_keysize_t *v;
   size_t n;
   int64_t avg = sim_donor_avg_size (sc, donor);
   sim_range_keys (sc, lo, hi, &v, &n);
   int64_t per = avg > 0 ? max_bytes / avg : 0;
   bson_init (out);
   if (per < 1) {
      per = 1;
   }
   if (avg == 0 || (int64_t) n <= per) {
      bson_concat (out, forward ? hi : lo);
   } else if (forward) {
      size_t at = (size_t) per;
      while (at < n && order_docs (v[at].key, v[at - 1].key) == 0) {
         at++;
      }
      bson_concat (out, at < n ? v[at].key : hi);
   } else {
      size_t at = n - (size_t) per; /* the new min: the last `per` documents move */
      while (at > 0 && order_docs (v[at].key, v[at - 1].key) == 0) {
         at--;
      }
      bson_concat (out, at > 0 ? v[at].key : lo);
   }
   sim_keysizes_free (v, n);
}

/* moveRange (6.0+): cluster_move_range_cmd.cpp, then _configsvrMoveRange (Balancer::moveRange: no zone or draining
 * check) and the donor's _shardsvrMoveRange / MigrationSourceManager: a move onto the owner returns at once, a
 * missing bound is computed (computeOtherBound), the size check runs on the range, and the range is split out of its
 * chunk only when the migration commits. */
void
sim_cmd_move_range (sim_ctx_t *ctx, bson_t *reply)
{
   bson_error_t err;
   bson_t min, max, chunk, cmin, cmax, lo, hi;
   sim_shcoll_t sc;
   bson_iter_t it;
   bool have_chunk = false;
   const char *ns = sim_first_ns (ctx, reply);
   memset (&sc, 0, sizeof sc);
   bson_init (&sc.key);
   bson_init (&sc.doc);
   bson_init (&lo);
   bson_init (&hi);
   if (!ns) {
      goto done;
   }
   const char *to = docget_utf8 (ctx->cmd, "toShard", NULL);
   if (!to) {
      sim_reply_error (reply, 40414, "BSON field 'moveRange.toShard' is missing but a required field");
      goto done;
   }
   bool have_min = docget_sub (ctx->cmd, "min", BSON_TYPE_EOD, &min) && sim_has (ctx->cmd, "min");
   bool have_max = docget_sub (ctx->cmd, "max", BSON_TYPE_EOD, &max) && sim_has (ctx->cmd, "max");
   if (!have_min && (!sim_ver_ge (70) || !have_max)) {
      sim_reply_error (reply, 72, "Missing required parameter 'min'");
      goto done;
   }
   sim_shcoll_destroy (&sc);
   if (!sim_shcoll_load (ns, &sc)) {
      sim_not_sharded (reply, ns);
      goto done;
   }
   /* the config server resolves the destination (ShardRegistry: "Shard X not found") before the donor looks at
    * the bounds */
   if (!sim_shard_get (to, NULL)) {
      sim_reply_error (reply, 70, "Shard %s not found", to);
      goto done;
   }
   if ((have_min && !sim_bound_fits (&sc, &min)) || (have_max && !sim_bound_fits (&sc, &max))) {
      char *k = sim_bson_str (&sc.key);
      sim_reply_error (reply, 656451, "shard key bounds are not valid for shard key pattern %s", k);
      bson_free (k);
      goto done;
   }
   if (have_min) {
      have_chunk = sim_chunk_find (&sc, &min, &chunk, NULL);
   } else {
      /* getChunkForMaxBound: the chunk ending at max, else the one containing it. */
      simq_docs_t all;
      simq_docs_init (&all);
      sim_chunks_of (&sc, &all);
      for (size_t i = 0; i < all.n && !have_chunk; i++) {
         bson_t a, b;
         docget_sub (all.v[i], "min", BSON_TYPE_EOD, &a);
         docget_sub (all.v[i], "max", BSON_TYPE_EOD, &b);
         if (order_docs (&a, &max) < 0 && order_docs (&max, &b) <= 0) {
            bson_copy_to (all.v[i], &chunk);
            have_chunk = true;
         }
      }
      simq_docs_clear (&all);
   }
   if (!have_chunk) {
      sim_reply_error (reply, 656452, "no chunk found for the range");
      goto done;
   }
   docget_sub (&chunk, "min", BSON_TYPE_EOD, &cmin);
   docget_sub (&chunk, "max", BSON_TYPE_EOD, &cmax);
   const char *from = sim_chunk_shard (&chunk);
   if (!strcmp (from, to)) {
      sim_reply_ok (reply); /* the range is already on the destination: nothing is checked, split or moved */
      goto done;
   }
   if (!sim_check_manual_move (&sc, &chunk, to, &err)) {
      sim_admin_error (reply, &err);
      goto done;
   }
   int64_t cs = sim_chunk_size_bytes (&sc);
   bson_destroy (&lo);
   bson_destroy (&hi);
   if (have_min) {
      bson_copy_to (&min, &lo);
   } else {
      sim_other_bound (&sc, from, &cmin, &max, cs, false, &lo);
   }
   if (have_max) {
      /* a max past the chunk's end moves the rest of the chunk */
      bson_copy_to (order_docs (&max, &cmax) < 0 ? &max : &cmax, &hi);
   } else {
      sim_other_bound (&sc, from, &min, &cmax, cs, true, &hi);
   }
   if (order_docs (&lo, &hi) >= 0) {
      char *a = sim_bson_str (&lo), *b = sim_bson_str (&hi);
      sim_reply_error (reply, 9, "min: %s should be less than max: %s", a, b);
      bson_free (a);
      bson_free (b);
      goto done;
   }
   sim_keysize_t *keys;
   size_t nkeys;
   sim_range_keys (&sc, &lo, &hi, &keys, &nkeys);
   sim_keysizes_free (keys, nkeys);
   bool force_jumbo = bson_iter_init_find (&it, ctx->cmd, "forceJumbo") && bson_iter_as_bool (&it);
   if (!sim_check_range_size (&sc, &lo, &hi, (int64_t) nkeys, 0, force_jumbo, &err)) {
      sim_admin_error (reply, &err);
      goto done;
   }
   /* The commit splits [lo, hi) out of the chunk as it moves it (no split changelog entry). */
   sim_migrate_commit_range (&sc, &chunk, &lo, &hi, to, true, -1, -1, 0);
   sim_reply_ok (reply);
done:
   if (have_chunk) {
      bson_destroy (&chunk);
   }
   bson_destroy (&lo);
   bson_destroy (&hi);
   sim_shcoll_destroy (&sc);
}
