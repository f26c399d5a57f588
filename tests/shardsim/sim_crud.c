/* shardsim's CRUD commands on any database: find/getMore/killCursors with real cursors, aggregate (with the stage
 * hook for $collStats, $shardedDataDistribution and $currentOp), count, distinct, insert, update, delete,
 * listCollections, listIndexes, createIndexes, drop and currentOp. Matching, sorting, projection and update
 * operators come from the simq engine. Callers hold sim_g.lock. */
#include "tests/shardsim/sim.h"

#include <stdlib.h>
#include <string.h>

#define SIM_BATCH_BYTES (16 * 1024 * 1024 - 16 * 1024)

static bool
sim_subdoc (const bson_t *doc, const char *field, bson_t *out)
{
   bson_iter_t it;
   uint32_t l;
   const uint8_t *d;
   if (!bson_iter_init_find (&it, doc, field) || !(BSON_ITER_HOLDS_DOCUMENT (&it) || BSON_ITER_HOLDS_ARRAY (&it))) {
      return false;
   }
   if (BSON_ITER_HOLDS_DOCUMENT (&it)) {
      bson_iter_document (&it, &l, &d);
   } else {
      bson_iter_array (&it, &l, &d);
   }
   return bson_init_static (out, d, l);
}

static int64_t
sim_int_field (const bson_t *doc, const char *field, int64_t dflt)
{
   bson_iter_t it;
   if (bson_iter_init_find (&it, doc, field) && BSON_ITER_HOLDS_NUMBER (&it)) {
      return bson_iter_as_int64 (&it);
   }
   return dflt;
}

bool
sim_bool_field (const bson_t *doc, const char *field)
{
   bson_iter_t it;
   return bson_iter_init_find (&it, doc, field) && bson_iter_as_bool (&it);
}

/* The collection named by the command's first field; false (error replied) when it is not a string. */
static bool
sim_target (sim_ctx_t *ctx, bson_t *reply, const char **coll)
{
   bson_iter_t it;
   bson_iter_init (&it, ctx->cmd);
   bson_iter_next (&it);
   if (!BSON_ITER_HOLDS_UTF8 (&it)) {
      sim_reply_error (reply, 73, "collection name has invalid type %s",
                       BSON_ITER_HOLDS_NUMBER (&it) ? "int" : "object");
      return false;
   }
   *coll = bson_iter_utf8 (&it, NULL);
   if (!**coll) {
      sim_reply_error (reply, 73, "Invalid namespace specified '%s.'", ctx->db);
      return false;
   }
   return true;
}

static void
sim_reply_simq_error (bson_t *reply, const bson_error_t *err)
{
   sim_reply_error (reply, err->code ? (int) err->code : 2, "%s", err->message);
}

/* Records a read (0), write (1) or command (2) for $collStats latencyStats on the shards owning ns's data. */
static void
sim_touch (const char *ns, int kind, const char *shard)
{
   sim_coll_t *coll = sim_coll_get_ns (ns);
   if (!coll || !strncmp (ns, "config.", 7) || !strncmp (ns, "admin.", 6)) {
      return;
   }
   if (shard) {
      sim_coll_count_op (coll, shard, kind, 50);
      return;
   }
   sim_shard_stat_t *st = NULL;
   size_t n = sim_coll_shard_stats (ns, &st);
   for (size_t i = 0; i < n; i++) {
      sim_coll_count_op (coll, st[i].shard, kind, 50);
   }
   bson_free (st);
}

/* Records kind once on every shard holding one of the documents at hits (writes: the shards an update or delete
 * reached). */
static void
sim_touch_hits (sim_coll_t *coll, const sim_hits_t *hits, int kind)
{
   char seen[16][64];
   int nseen = 0;
   sim_shcoll_t sc;
   if (!strncmp (coll->ns, "config.", 7) || !strncmp (coll->ns, "admin.", 6)) {
      return;
   }
   bool sharded = sim_shcoll_load (coll->ns, &sc);
   for (size_t i = 0; i < hits->n; i++) {
      bson_t view;
      char shard[64];
      sim_coll_view (coll, hits->v[i], &view);
      if (!sim_route_doc (coll->ns, sharded ? &sc : NULL, &view, shard)) {
         continue;
      }
      bool dup = false;
      for (int k = 0; k < nseen && !dup; k++) {
         dup = !strcmp (seen[k], shard);
      }
      if (!dup && nseen < 16) {
         bson_strncpy (seen[nseen++], shard, sizeof seen[0]);
         sim_coll_count_op (coll, shard, kind, 50);
      }
   }
   sim_shcoll_destroy (&sc);
}

/* Records a read of ns by filter: on the one shard an equality on the whole shard key targets, otherwise on every
 * shard owning data (a scatter-gather read). */
static void
sim_touch_query (const char *ns, const bson_t *filter)
{
   sim_shcoll_t sc;
   bson_iter_t it;
   char shard[64] = "";
   if (filter && sim_shcoll_load (ns, &sc)) {
      bson_t probe = BSON_INITIALIZER;
      bool full = bson_iter_init (&it, &sc.key);
      while (full && bson_iter_next (&it)) {
         bson_iter_t f;
         const char *k = bson_iter_key (&it);
         if (!bson_iter_init_find (&f, filter, k)) {
            full = false;
         } else if (BSON_ITER_HOLDS_DOCUMENT (&f)) {
            bson_iter_t op;
            full = bson_iter_recurse (&f, &op) && bson_iter_next (&op) && !strcmp (bson_iter_key (&op), "$eq");
            if (full) {
               BSON_APPEND_VALUE (&probe, k, bson_iter_value (&op));
            }
         } else if (BSON_ITER_HOLDS_ARRAY (&f) || BSON_ITER_HOLDS_REGEX (&f)) {
            full = false;
         } else {
            BSON_APPEND_VALUE (&probe, k, bson_iter_value (&f));
         }
      }
      if (full) {
         sim_route_doc (ns, &sc, &probe, shard);
      }
      bson_destroy (&probe);
   } else {
      memset (&sc, 0, sizeof sc);
      bson_init (&sc.key);
      bson_init (&sc.doc);
   }
   sim_shcoll_destroy (&sc);
   sim_touch (ns, 0, shard[0] ? shard : NULL);
}

/* ---- cursors ---- */

/* Where a batch starting at pos ends: at most max documents (max < 0: no count limit) and about 16 MB. */
static size_t
sim_batch_end (const simq_docs_t *docs, size_t pos, int64_t max)
{
   size_t end = pos, bytes = 0;
   while (end < docs->n && (max < 0 || (int64_t) (end - pos) < max)) {
      if (end > pos && bytes + docs->v[end]->len > SIM_BATCH_BYTES) {
         break;
      }
      bytes += docs->v[end]->len;
      end++;
   }
   return end;
}

/* Appends cursor: { firstBatch|nextBatch: docs[pos, end), id, ns }. */
static void
sim_append_batch (bson_t *reply, const char *ns, const simq_docs_t *docs, size_t pos, size_t end, int64_t id,
                  bool first)
{
   bson_t cur, arr;
   BSON_APPEND_DOCUMENT_BEGIN (reply, "cursor", &cur);
   BSON_APPEND_ARRAY_BEGIN (&cur, first ? "firstBatch" : "nextBatch", &arr);
   for (size_t i = pos; i < end; i++) {
      char key[16];
      const char *kp;
      bson_uint32_to_string ((uint32_t) (i - pos), &kp, key, sizeof key);
      BSON_APPEND_DOCUMENT (&arr, kp, docs->v[i]);
   }
   bson_append_array_end (&cur, &arr);
   BSON_APPEND_INT64 (&cur, "id", id);
   BSON_APPEND_UTF8 (&cur, "ns", ns);
   bson_append_document_end (reply, &cur);
}

/* Replies with the first batch of docs (taking the documents; docs is left empty) and keeps a cursor for the rest.
 * batch < 0 means the default (101); batch == 0 returns an empty first batch. single closes the cursor after the
 * first batch. */
static void
sim_reply_cursor (bson_t *reply, const char *ns, simq_docs_t *docs, int64_t batch, bool single)
{
   size_t end = sim_batch_end (docs, 0, batch < 0 ? 101 : batch);
   if (single || end >= docs->n) {
      sim_append_batch (reply, ns, docs, 0, end, 0, true);
      simq_docs_clear (docs);
      sim_reply_ok (reply);
      return;
   }
   sim_cursor_t *c = bson_malloc0 (sizeof *c);
   c->id = ((int64_t) (sim_rand () & 0x3FFFFFFFFFFFull)) + (++sim_g.next_cursor);
   c->ns = bson_strdup (ns);
   c->docs = *docs;
   simq_docs_init (docs);
   sim_append_batch (reply, ns, &c->docs, 0, end, c->id, true);
   c->pos = end;
   c->next = sim_g.cursors;
   sim_g.cursors = c;
   sim_reply_ok (reply);
}

static void
sim_cursor_free (sim_cursor_t *c)
{
   simq_docs_clear (&c->docs);
   bson_free (c->ns);
   bson_free (c);
}

void
sim_cursors_free (void)
{
   while (sim_g.cursors) {
      sim_cursor_t *c = sim_g.cursors;
      sim_g.cursors = c->next;
      sim_cursor_free (c);
   }
}

static sim_cursor_t *
sim_cursor_take (int64_t id, bool unlink)
{
   for (sim_cursor_t **pp = &sim_g.cursors; *pp; pp = &(*pp)->next) {
      if ((*pp)->id == id) {
         sim_cursor_t *c = *pp;
         if (unlink) {
            *pp = c->next;
         }
         return c;
      }
   }
   return NULL;
}

/* ---- find ---- */

/* Whether a filter is plain equalities ({ field: value } or { field: { $eq: value } }, no operators, no regexes, no
 * documents as values): matching it never fails, so the documents can be visited in any order. */
static bool
sim_filter_plain (const bson_t *filter)
{
   bson_iter_t it;
   if (!bson_iter_init (&it, filter)) {
      return false;
   }
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      if (!k[0] || k[0] == '$' || BSON_ITER_HOLDS_REGEX (&it)) {
         return false;
      }
      if (BSON_ITER_HOLDS_DOCUMENT (&it)) {
         bson_iter_t op;
         if (!bson_iter_recurse (&it, &op) || !bson_iter_next (&op) || strcmp (bson_iter_key (&op), "$eq") != 0 ||
             BSON_ITER_HOLDS_DOCUMENT (&op) || BSON_ITER_HOLDS_REGEX (&op) || bson_iter_next (&op)) {
            return false;
         }
      }
   }
   return true;
}

/* The direction of a sort { min: 1 } or { min: -1 }; 0 for any other sort. */
static int
sim_sort_by_min (const bson_t *sort)
{
   bson_iter_t it;
   if (!bson_iter_init (&it, sort) || !bson_iter_next (&it) || strcmp (bson_iter_key (&it), "min") != 0) {
      return 0;
   }
   double d = BSON_ITER_HOLDS_INT32 (&it)    ? bson_iter_int32 (&it)
              : BSON_ITER_HOLDS_INT64 (&it)  ? (double) bson_iter_int64 (&it)
              : BSON_ITER_HOLDS_DOUBLE (&it) ? bson_iter_double (&it)
                                             : 0;
   if (bson_iter_next (&it)) {
      return 0;
   }
   return d == 1 ? 1 : (d == -1 ? -1 : 0);
}

static void
sim_raw_static (const uint8_t *raw, bson_t *out)
{
   bson_init_static (out, raw,
                     (uint32_t) raw[0] | (uint32_t) raw[1] << 8 | (uint32_t) raw[2] << 16 | (uint32_t) raw[3] << 24);
}

/* Whether two stored documents have equal min fields (both hold one: they come from a range index). */
static bool
sim_same_min (const uint8_t *a, const uint8_t *b)
{
   bson_t x, y;
   bson_iter_t ix, iy;
   sim_raw_static (a, &x);
   sim_raw_static (b, &y);
   return bson_iter_init_find (&ix, &x, "min") && bson_iter_init_find (&iy, &y, "min") &&
          order_values (bson_iter_value (&ix), bson_iter_value (&iy)) == 0;
}

/* find { <partition field>: v, ... } sort { min: 1 | -1 } on a partitioned collection (config.chunks by uuid or ns,
 * config.tags by ns), what sh.status and the dashboard send: walks the partition's range index in the order asked
 * and stops after skip + limit matches (limit 0: all), instead of collecting and sorting the partition. The order is
 * the stable sort's: by min, equal mins in storage order in both directions. Returns 1 with out filled, 0 when the
 * query has another shape (the caller scans and sorts), -1 with err set. */
static int
sim_find_by_min (sim_coll_t *coll, const bson_t *filter, const bson_t *sort, int64_t skip, int64_t limit,
                 simq_docs_t *out, bson_error_t *err)
{
   bson_iter_t it;
   int dir = sim_sort_by_min (sort);
   if (!dir || !coll->part_field || !filter || !sim_filter_plain (filter) ||
       !bson_iter_init_find (&it, filter, coll->part_field)) {
      return 0;
   }
   const bson_value_t *v = bson_iter_value (&it);
   bson_iter_t op;
   if (BSON_ITER_HOLDS_DOCUMENT (&it) && bson_iter_recurse (&it, &op) && bson_iter_next (&op)) {
      v = bson_iter_value (&op);
   }
   if (v->value_type != BSON_TYPE_BINARY && v->value_type != BSON_TYPE_UTF8) {
      return 0; /* not confined to one partition */
   }
   size_t p = sim_coll_find_part (coll, v), n = 0;
   if (p == SIZE_MAX) {
      return 1; /* no document holds that value */
   }
   const uint8_t *const *ord = sim_part_by_min (coll, p, &n, NULL, NULL);
   if (!ord) {
      return 0;
   }
   size_t want = limit > 0 ? (size_t) ((uint64_t) skip + (uint64_t) limit) : SIZE_MAX;
   /* Runs of equal mins, visited last run first when descending, each run in storage order. */
   size_t i = dir > 0 ? 0 : n;
   while (out->n < want && (dir > 0 ? i < n : i > 0)) {
      size_t first = dir > 0 ? i : i - 1, end = dir > 0 ? i + 1 : i;
      while (dir < 0 && first > 0 && sim_same_min (ord[first - 1], ord[end - 1])) {
         first--;
      }
      for (size_t k = first; k < end && out->n < want; k++) {
         bson_t view;
         bool matched;
         if (sim_should_stop (err)) {
            return -1;
         }
         sim_raw_static (ord[k], &view);
         if (!simq_match (&view, filter, &matched, err)) {
            return -1;
         }
         if (matched) {
            simq_docs_push_copy (out, &view);
         }
      }
      i = dir > 0 ? end : first;
   }
   return 1;
}

static void
sim_crud_find_run (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   bson_t filter, sort, proj;
   bson_error_t err;
   simq_docs_t docs, out;
   simq_docs_init (&docs);
   simq_docs_init (&out);
   char *ns = NULL;
   if (!sim_target (ctx, reply, &name)) {
      goto cleanup;
   }
   ns = bson_strdup_printf ("%s.%s", ctx->db, name);
   bool have_filter = sim_subdoc (ctx->cmd, "filter", &filter);
   bool have_sort = sim_subdoc (ctx->cmd, "sort", &sort) && !bson_empty (&sort);
   bool have_proj = sim_subdoc (ctx->cmd, "projection", &proj) && !bson_empty (&proj);
   int64_t skip = sim_int_field (ctx->cmd, "skip", 0);
   int64_t limit = sim_int_field (ctx->cmd, "limit", 0);
   int64_t batch = sim_int_field (ctx->cmd, "batchSize", -1);
   bool single = sim_bool_field (ctx->cmd, "singleBatch");
   if (skip < 0) {
      sim_reply_error (reply, 51024, "BSON field 'skip' value must be >= 0, actual value '%lld'", (long long) skip);
      goto cleanup;
   }
   if (limit < 0) {
      if (sim_ver_ge (50)) {
         sim_reply_error (reply, 51024, "BSON field 'limit' value must be >= 0, actual value '%lld'",
                          (long long) limit);
         goto cleanup;
      }
      limit = -limit;
      single = true;
   }
   if (batch < -1) {
      sim_reply_error (reply, 51024, "BSON field 'batchSize' value must be >= 0, actual value '%lld'",
                       (long long) batch);
      goto cleanup;
   }
   if (!strcmp (ns, "config.mongos")) {
      sim_mongos_ping ();
   }
   sim_coll_t *coll = sim_coll_get (ctx->db, name);
   bool sorted = false;
   if (coll && have_sort) {
      int served = sim_find_by_min (coll, have_filter ? &filter : NULL, &sort, skip, limit, &docs, &err);
      if (served < 0) {
         sim_reply_simq_error (reply, &err);
         goto cleanup;
      }
      if (served) {
         sorted = true;
         sim_touch_query (ns, have_filter ? &filter : NULL);
      }
   }
   if (coll && !sorted) {
      sim_hits_t hits = { 0 };
      size_t cap = (!have_sort && limit > 0) ? (size_t) (skip + limit) : 0;
      if (!sim_coll_match (coll, have_filter ? &filter : NULL, cap, &hits, &err)) {
         sim_hits_free (&hits);
         sim_reply_simq_error (reply, &err);
         goto cleanup;
      }
      for (size_t i = 0; i < hits.n; i++) {
         bson_t view;
         sim_coll_view (coll, hits.v[i], &view);
         simq_docs_push_copy (&docs, &view);
      }
      sim_hits_free (&hits);
      sim_touch_query (ns, have_filter ? &filter : NULL);
   }
   if (have_sort && !sorted && docs.n > 1 && !simq_sort (&docs, &sort, &err)) {
      sim_reply_simq_error (reply, &err);
      goto cleanup;
   }
   for (size_t i = (size_t) skip; i < docs.n && (limit == 0 || (int64_t) (i - (size_t) skip) < limit); i++) {
      if (have_proj) {
         bson_t *p = bson_new ();
         bson_t tmp;
         if (!simq_project (docs.v[i], &proj, &tmp, &err)) {
            bson_destroy (&tmp);
            bson_destroy (p);
            sim_reply_simq_error (reply, &err);
            goto cleanup;
         }
         bson_concat (p, &tmp);
         bson_destroy (&tmp);
         simq_docs_push_owned (&out, p);
      } else {
         simq_docs_push_copy (&out, docs.v[i]);
      }
   }
   if (limit > 0 && batch < 0) {
      batch = limit > 101 ? 101 : limit;
   }
   sim_reply_cursor (reply, ns, &out, batch, single);
cleanup:
   simq_docs_clear (&docs);
   simq_docs_clear (&out);
   bson_free (ns);
}

/* A read-only command: abandoned when its client goes away (sim_stop.c). */
void
sim_crud_find (sim_ctx_t *ctx, bson_t *reply)
{
   sim_stop_watch (ctx->conn);
   sim_crud_find_run (ctx, reply);
   sim_stop_unwatch ();
}

/* ---- getMore / killCursors ---- */

void
sim_crud_get_more (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   bson_iter_init (&it, ctx->cmd);
   bson_iter_next (&it);
   if (!BSON_ITER_HOLDS_INT64 (&it)) {
      sim_reply_error (reply, 14, "BSON field 'getMore.getMore' is the wrong type '%s', expected type 'long'",
                       BSON_ITER_HOLDS_INT32 (&it) ? "int" : "string");
      return;
   }
   int64_t id = bson_iter_int64 (&it);
   const char *coll = "";
   if (bson_iter_init_find (&it, ctx->cmd, "collection") && BSON_ITER_HOLDS_UTF8 (&it)) {
      coll = bson_iter_utf8 (&it, NULL);
   } else {
      sim_reply_error (reply, 40414, "BSON field 'getMore.collection' is missing but a required field");
      return;
   }
   sim_cursor_t *c = sim_cursor_take (id, false);
   if (!c) {
      sim_reply_error (reply, 43, "cursor id %lld not found", (long long) id);
      return;
   }
   char *ns = bson_strdup_printf ("%s.%s", ctx->db, coll);
   if (strcmp (ns, c->ns) != 0) {
      sim_reply_error (reply, 13, "Requested getMore on namespace '%s', but cursor belongs to a different namespace %s",
                       ns, c->ns);
      bson_free (ns);
      return;
   }
   bson_free (ns);
   int64_t batch = sim_int_field (ctx->cmd, "batchSize", 0);
   size_t end = sim_batch_end (&c->docs, c->pos, batch > 0 ? batch : -1);
   bool done = end >= c->docs.n;
   sim_append_batch (reply, c->ns, &c->docs, c->pos, end, done ? 0 : c->id, false);
   c->pos = end;
   if (done) {
      sim_cursor_free (sim_cursor_take (id, true));
   }
   sim_reply_ok (reply);
}

void
sim_crud_kill_cursors (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it, a;
   bson_t killed = BSON_INITIALIZER, notfound = BSON_INITIALIZER, empty = BSON_INITIALIZER;
   uint32_t nk = 0, nn = 0;
   if (!bson_iter_init_find (&it, ctx->cmd, "cursors") || !BSON_ITER_HOLDS_ARRAY (&it)) {
      sim_reply_error (reply, 40414, "BSON field 'killCursors.cursors' is missing but a required field");
      goto cleanup;
   }
   bson_iter_recurse (&it, &a);
   while (bson_iter_next (&a)) {
      int64_t id = bson_iter_as_int64 (&a);
      sim_cursor_t *c = sim_cursor_take (id, true);
      char key[16];
      const char *kp;
      if (c) {
         sim_cursor_free (c);
         bson_uint32_to_string (nk++, &kp, key, sizeof key);
         BSON_APPEND_INT64 (&killed, kp, id);
      } else {
         bson_uint32_to_string (nn++, &kp, key, sizeof key);
         BSON_APPEND_INT64 (&notfound, kp, id);
      }
   }
   BSON_APPEND_ARRAY (reply, "cursorsKilled", &killed);
   BSON_APPEND_ARRAY (reply, "cursorsNotFound", &notfound);
   BSON_APPEND_ARRAY (reply, "cursorsAlive", &empty);
   BSON_APPEND_ARRAY (reply, "cursorsUnknown", &empty);
   sim_reply_ok (reply);
cleanup:
   bson_destroy (&killed);
   bson_destroy (&notfound);
   bson_destroy (&empty);
}

/* ---- aggregate ---- */

typedef struct {
   sim_ctx_t *ctx;
   const char *coll; /* NULL for aggregate: 1 */
   simq_docs_t lookups[8];
   int nlookups;
} sim_agg_t;

static bool
sim_agg_collection (void *ud, const char *coll, const simq_docs_t **docs)
{
   sim_agg_t *agg = ud;
   sim_coll_t *c = sim_coll_get (agg->ctx->db, coll);
   if (!c || agg->nlookups == 8) {
      return false;
   }
   simq_docs_t *d = &agg->lookups[agg->nlookups++];
   simq_docs_init (d);
   bson_error_t err;
   sim_coll_collect (c, NULL, d, &err);
   *docs = d;
   return true;
}

static void
sim_append_latency (bson_t *doc, const char *name, int64_t us, int64_t ops)
{
   bson_t d;
   BSON_APPEND_DOCUMENT_BEGIN (doc, name, &d);
   BSON_APPEND_INT64 (&d, "latency", us);
   BSON_APPEND_INT64 (&d, "ops", ops);
   bson_append_document_end (doc, &d);
}

static int
sim_stage_coll_stats (sim_agg_t *agg, const bson_t *spec, simq_docs_t *out, bson_error_t *error)
{
   char ns[512];
   bson_snprintf (ns, sizeof ns, "%s.%s", agg->ctx->db, agg->coll ? agg->coll : "");
   sim_coll_t *coll = agg->coll ? sim_coll_get_ns (ns) : NULL;
   if (!coll) {
      bson_set_error (error, SIMQ_ERROR_DOMAIN, 26,
                      "Unable to retrieve storageStats in $collStats stage :: caused by :: Collection [%s] not found.",
                      ns);
      return -1;
   }
   bson_t want_lat, want_storage;
   bool lat = sim_subdoc (spec, "latencyStats", &want_lat);
   bool storage = sim_subdoc (spec, "storageStats", &want_storage);
   bson_iter_t it;
   bool count = bson_iter_init_find (&it, spec, "count");
   bool qes = bson_iter_init_find (&it, spec, "queryExecStats");
   int64_t scale = storage ? sim_int_field (&want_storage, "scale", 1) : 1;
   if (scale < 1) {
      bson_set_error (error, SIMQ_ERROR_DOMAIN, 51024, "BSON field 'scale' value must be >= 1, actual value '%lld'",
                      (long long) scale);
      return -1;
   }
   sim_shard_stat_t *st = NULL;
   size_t n = sim_coll_shard_stats (ns, &st);
   for (size_t i = 0; i < n; i++) {
      bson_t *d = bson_new ();
      bson_t sub, sizes, arr;
      char host[128] = "";
      bson_t sdoc;
      if (sim_shard_get (st[i].shard, &sdoc)) {
         if (bson_iter_init_find (&it, &sdoc, "host") && BSON_ITER_HOLDS_UTF8 (&it)) {
            const char *h = bson_iter_utf8 (&it, NULL);
            const char *slash = strchr (h, '/');
            bson_strncpy (host, slash ? slash + 1 : h, sizeof host);
            char *comma = strchr (host, ',');
            if (comma) {
               *comma = '\0';
            }
         }
         bson_destroy (&sdoc);
      }
      BSON_APPEND_UTF8 (d, "ns", ns);
      BSON_APPEND_UTF8 (d, "shard", st[i].shard);
      BSON_APPEND_UTF8 (d, "host", host);
      BSON_APPEND_DATE_TIME (d, "localTime", clock_wall_ms ());
      if (lat) {
         sim_opstat_t zero = { { 0 } };
         const sim_opstat_t *o = &zero;
         for (size_t k = 0; k < coll->nops; k++) {
            if (!strcmp (coll->ops[k].shard, st[i].shard)) {
               o = &coll->ops[k];
            }
         }
         BSON_APPEND_DOCUMENT_BEGIN (d, "latencyStats", &sub);
         sim_append_latency (&sub, "reads", o->read_us, o->reads);
         sim_append_latency (&sub, "writes", o->write_us, o->writes);
         sim_append_latency (&sub, "commands", o->command_us, o->commands);
         sim_append_latency (&sub, "transactions", 0, 0);
         bson_append_document_end (d, &sub);
      }
      if (storage) {
         int64_t avg = st[i].count ? st[i].size / st[i].count : 0;
         int64_t storage_size = ((st[i].size + 4095) / 4096) * 4096 + 4096;
         int64_t nidx = (int64_t) coll->indexes.n;
         int64_t idx_size = 4096 * nidx + ((st[i].count * 32 + 4095) / 4096) * 4096 * nidx;
         BSON_APPEND_DOCUMENT_BEGIN (d, "storageStats", &sub);
         BSON_APPEND_INT32 (&sub, "size", (int32_t) (st[i].size / scale));
         BSON_APPEND_INT32 (&sub, "count", (int32_t) st[i].count);
         BSON_APPEND_INT32 (&sub, "avgObjSize", (int32_t) avg);
         if (sim_ver_ge (60)) {
            BSON_APPEND_INT32 (&sub, "numOrphanDocs", 0);
         }
         BSON_APPEND_INT32 (&sub, "storageSize", (int32_t) (storage_size / scale));
         BSON_APPEND_INT32 (&sub, "freeStorageSize", 0);
         BSON_APPEND_BOOL (&sub, "capped", false);
         BSON_APPEND_INT32 (&sub, "nindexes", (int32_t) nidx);
         BSON_APPEND_ARRAY_BEGIN (&sub, "indexBuilds", &arr);
         bson_append_array_end (&sub, &arr);
         BSON_APPEND_INT32 (&sub, "totalIndexSize", (int32_t) (idx_size / scale));
         BSON_APPEND_INT32 (&sub, "totalSize", (int32_t) ((storage_size + idx_size) / scale));
         BSON_APPEND_DOCUMENT_BEGIN (&sub, "indexSizes", &sizes);
         for (size_t k = 0; k < coll->indexes.n; k++) {
            if (bson_iter_init_find (&it, coll->indexes.v[k], "name") && BSON_ITER_HOLDS_UTF8 (&it)) {
               BSON_APPEND_INT32 (&sizes, bson_iter_utf8 (&it, NULL), (int32_t) (idx_size / nidx / scale));
            }
         }
         bson_append_document_end (&sub, &sizes);
         BSON_APPEND_INT32 (&sub, "scaleFactor", (int32_t) scale);
         bson_append_document_end (d, &sub);
      }
      if (count) {
         BSON_APPEND_INT64 (d, "count", st[i].count);
      }
      if (qes) {
         bson_t cs;
         BSON_APPEND_DOCUMENT_BEGIN (d, "queryExecStats", &sub);
         BSON_APPEND_DOCUMENT_BEGIN (&sub, "collectionScans", &cs);
         BSON_APPEND_INT64 (&cs, "total", 0);
         BSON_APPEND_INT64 (&cs, "nonTailable", 0);
         bson_append_document_end (&sub, &cs);
         bson_append_document_end (d, &sub);
      }
      simq_docs_push_owned (out, d);
   }
   bson_free (st);
   return 1;
}

static int
sim_stage_sharded_data_distribution (sim_agg_t *agg, const bson_iter_t *arg, simq_docs_t *out, bson_error_t *error)
{
   if (!sim_ver_ge (60)) {
      return 0;
   }
   if (!BSON_ITER_HOLDS_DOCUMENT (arg)) {
      bson_set_error (error, SIMQ_ERROR_DOMAIN, 6789100,
                      "The $shardedDataDistribution stage specification must be an empty object");
      return -1;
   }
   bson_iter_t child;
   bson_iter_recurse (arg, &child);
   if (bson_iter_next (&child)) {
      bson_set_error (error, SIMQ_ERROR_DOMAIN, 6789100,
                      "The $shardedDataDistribution stage specification must be an empty object");
      return -1;
   }
   if (agg->coll || strcmp (agg->ctx->db, "admin") != 0) {
      bson_set_error (error, SIMQ_ERROR_DOMAIN, 6789102,
                      "The $shardedDataDistribution stage must be run on the admin database with {aggregate: 1}");
      return -1;
   }
   sim_coll_t *colls = sim_coll_get ("config", "collections");
   simq_docs_t cdocs;
   simq_docs_init (&cdocs);
   bson_error_t e;
   if (colls) {
      sim_coll_collect (colls, NULL, &cdocs, &e);
   }
   for (size_t i = 0; i < cdocs.n; i++) {
      bson_iter_t it;
      if ((bson_iter_init_find (&it, cdocs.v[i], "dropped") && bson_iter_as_bool (&it)) ||
          (bson_iter_init_find (&it, cdocs.v[i], "unsplittable") && bson_iter_as_bool (&it)) ||
          !bson_iter_init_find (&it, cdocs.v[i], "_id") || !BSON_ITER_HOLDS_UTF8 (&it)) {
         continue;
      }
      const char *ns = bson_iter_utf8 (&it, NULL);
      sim_shard_stat_t *st = NULL;
      size_t n = sim_coll_shard_stats (ns, &st);
      bson_t *d = bson_new ();
      bson_t arr;
      BSON_APPEND_UTF8 (d, "ns", ns);
      BSON_APPEND_ARRAY_BEGIN (d, "shards", &arr);
      for (size_t k = 0; k < n; k++) {
         bson_t s;
         char key[16];
         const char *kp;
         int64_t avg = st[k].count ? st[k].size / st[k].count : 0;
         bson_uint32_to_string ((uint32_t) k, &kp, key, sizeof key);
         BSON_APPEND_DOCUMENT_BEGIN (&arr, kp, &s);
         BSON_APPEND_UTF8 (&s, "shardName", st[k].shard);
         BSON_APPEND_INT64 (&s, "numOrphanedDocs", 0);
         BSON_APPEND_INT64 (&s, "numOwnedDocuments", st[k].count);
         BSON_APPEND_INT64 (&s, "ownedSizeBytes", avg * st[k].count);
         BSON_APPEND_INT64 (&s, "orphanedSizeBytes", 0);
         bson_append_document_end (&arr, &s);
      }
      bson_append_array_end (d, &arr);
      simq_docs_push_owned (out, d);
      bson_free (st);
   }
   simq_docs_clear (&cdocs);
   return 1;
}

static void
sim_current_op_rows (sim_ctx_t *ctx, bool idle, simq_docs_t *out)
{
   pthread_mutex_lock (&sim_g.conn_lock);
   for (sim_conn_t *c = sim_g.conns; c; c = c->next) {
      bool self = c == ctx->conn;
      if (!self && !idle) {
         continue;
      }
      bson_t *d = bson_new ();
      char desc[32];
      bson_snprintf (desc, sizeof desc, "conn%d", c->id);
      BSON_APPEND_UTF8 (d, "type", "op");
      BSON_APPEND_UTF8 (d, "host", sim_g.host);
      BSON_APPEND_UTF8 (d, "desc", desc);
      BSON_APPEND_INT32 (d, "connectionId", c->id);
      BSON_APPEND_UTF8 (d, "client", c->peer);
      if (c->app_name[0]) {
         BSON_APPEND_UTF8 (d, "appName", c->app_name);
      }
      BSON_APPEND_BOOL (d, "active", self);
      BSON_APPEND_UTF8 (d, "currentOpTime", "1970-01-01T00:00:00.000+00:00");
      if (self) {
         BSON_APPEND_INT32 (d, "opid", (int32_t) (++sim_g.next_opid));
         BSON_APPEND_INT64 (d, "secs_running", 0);
         BSON_APPEND_INT64 (d, "microsecs_running", 100);
         BSON_APPEND_UTF8 (d, "op", "command");
         char *ns = bson_strdup_printf ("%s.$cmd", ctx->db);
         BSON_APPEND_UTF8 (d, "ns", ns);
         bson_free (ns);
         BSON_APPEND_DOCUMENT (d, "command", ctx->cmd);
         BSON_APPEND_INT32 (d, "numYields", 0);
      }
      simq_docs_push_owned (out, d);
   }
   pthread_mutex_unlock (&sim_g.conn_lock);
   /* The shards' in-flight migrations (live balancer). */
   sim_balancer_current_op (out);
   sim_reshard_current_op (out); /* resharding donors and recipients (sim_reshard.c) */
}

static int
sim_agg_stage (void *ud, const bson_t *stage, const simq_docs_t *in, simq_docs_t *out, bson_error_t *error)
{
   sim_agg_t *agg = ud;
   bson_iter_t it;
   (void) in;
   if (!bson_iter_init (&it, stage) || !bson_iter_next (&it)) {
      return 0;
   }
   const char *name = bson_iter_key (&it);
   if (!strcmp (name, "$collStats")) {
      bson_t spec;
      if (!BSON_ITER_HOLDS_DOCUMENT (&it) || !sim_subdoc (stage, "$collStats", &spec)) {
         bson_set_error (error, SIMQ_ERROR_DOMAIN, 5447000, "$collStats must take a nested object but found: %s",
                         "a non-object");
         return -1;
      }
      return sim_stage_coll_stats (agg, &spec, out, error);
   }
   if (!strcmp (name, "$shardedDataDistribution")) {
      return sim_stage_sharded_data_distribution (agg, &it, out, error);
   }
   if (!strcmp (name, "$listClusterCatalog")) {
      return sim_stage_list_cluster_catalog (agg->ctx, agg->coll, &it, out, error);
   }
   if (!strcmp (name, "$listSessions")) {
      /* the sessions the routers persisted, read where they live (DocumentSourceListSessions::createFromBson) */
      if (!agg->coll || strcmp (agg->ctx->db, "config") != 0 || strcmp (agg->coll, "system.sessions") != 0) {
         bson_set_error (error, SIMQ_ERROR_DOMAIN, 73,
                         "$listSessions must be run against the 'system.sessions' collection in the 'config' "
                         "database.");
         return -1;
      }
      sim_coll_t *sessions = sim_coll_get ("config", "system.sessions");
      if (sessions && !sim_coll_collect (sessions, NULL, out, error)) {
         return -1;
      }
      return 1;
   }
   if (!strcmp (name, "$currentOp")) {
      if (agg->coll || strcmp (agg->ctx->db, "admin") != 0) {
         bson_set_error (error, SIMQ_ERROR_DOMAIN, 73,
                         "$currentOp must be run against the 'admin' database with {aggregate: 1}");
         return -1;
      }
      bson_t spec;
      bool idle = sim_subdoc (stage, "$currentOp", &spec) && sim_bool_field (&spec, "idleConnections");
      sim_current_op_rows (agg->ctx, idle, out);
      return 1;
   }
   return 0;
}

static bool
sim_agg_interrupted (void *ud, bson_error_t *error)
{
   (void) ud;
   return sim_should_stop (error);
}

static bool
sim_stage_is_source (const bson_t *stage)
{
   static const char *src[] = { "$collStats",          "$shardedDataDistribution",
                                "$currentOp",          "$documents",
                                "$listClusterCatalog", "$indexStats",
                                "$listSessions",       NULL };
   bson_iter_t it;
   if (!bson_iter_init (&it, stage) || !bson_iter_next (&it)) {
      return false;
   }
   for (int i = 0; src[i]; i++) {
      if (!strcmp (bson_iter_key (&it), src[i])) {
         return true;
      }
   }
   return false;
}

static void
sim_crud_aggregate_run (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   bson_t pipeline, cursor, rest = BSON_INITIALIZER, first_stage;
   bson_error_t err;
   simq_docs_t input, out;
   sim_agg_t agg;
   char *ns = NULL;
   simq_docs_init (&input);
   simq_docs_init (&out);
   memset (&agg, 0, sizeof agg);
   agg.ctx = ctx;
   bson_iter_init (&it, ctx->cmd);
   bson_iter_next (&it);
   if (BSON_ITER_HOLDS_UTF8 (&it)) {
      agg.coll = bson_iter_utf8 (&it, NULL);
   } else if (!(BSON_ITER_HOLDS_NUMBER (&it) && bson_iter_as_int64 (&it) == 1)) {
      sim_reply_error (reply, 73, "Invalid %s namespace specified", "aggregate");
      goto cleanup;
   }
   if (!bson_iter_init_find (&it, ctx->cmd, "pipeline") || !BSON_ITER_HOLDS_ARRAY (&it) ||
       !sim_subdoc (ctx->cmd, "pipeline", &pipeline)) {
      sim_reply_error (reply, 40414, "BSON field 'aggregate.pipeline' is missing but a required field");
      goto cleanup;
   }
   bool explain = sim_bool_field (ctx->cmd, "explain");
   if (!sim_subdoc (ctx->cmd, "cursor", &cursor) && !explain) {
      sim_reply_error (reply, 9, "The 'cursor' option is required, except for aggregate with the explain argument");
      goto cleanup;
   }
   int64_t batch = explain ? -1 : sim_int_field (&cursor, "batchSize", -1);
   ns = agg.coll ? bson_strdup_printf ("%s.%s", ctx->db, agg.coll) : bson_strdup_printf ("%s.$cmd.aggregate", ctx->db);
   if (!strcmp (ns, "config.mongos")) {
      sim_mongos_ping ();
   }
   /* Input: the collection, pre-filtered by a leading $match; nothing for source stages. */
   bool have_first = false;
   bson_iter_t st;
   bson_iter_init (&st, &pipeline);
   if (bson_iter_next (&st) && BSON_ITER_HOLDS_DOCUMENT (&st)) {
      uint32_t l;
      const uint8_t *d;
      bson_iter_document (&st, &l, &d);
      have_first = bson_init_static (&first_stage, d, l);
   }
   const bson_t *run = &pipeline;
   if (have_first && !sim_stage_is_source (&first_stage) && agg.coll) {
      sim_coll_t *coll = sim_coll_get (ctx->db, agg.coll);
      bson_t match;
      bool leading_match = sim_subdoc (&first_stage, "$match", &match);
      if (coll) {
         if (!sim_coll_collect (coll, leading_match ? &match : NULL, &input, &err)) {
            sim_reply_simq_error (reply, &err);
            goto cleanup;
         }
         sim_touch (ns, 0, NULL);
      }
      if (leading_match) {
         uint32_t k = 0;
         while (bson_iter_next (&st)) {
            char key[16];
            const char *kp;
            bson_uint32_to_string (k++, &kp, key, sizeof key);
            bson_append_value (&rest, kp, -1, bson_iter_value (&st));
         }
         run = &rest;
      }
   }
   simq_env_t env = { .ud = &agg,
                      .collection = sim_agg_collection,
                      .stage = sim_agg_stage,
                      .now_ms = clock_wall_ms (),
                      .interrupted = sim_agg_interrupted };
   if (!simq_aggregate_taking (&input, run, &env, &out, &err)) { /* input is ours: no second copy */
      sim_reply_simq_error (reply, &err);
      goto cleanup;
   }
   if (explain) {
      BSON_APPEND_UTF8 (reply, "mergeType", "mongos");
      sim_reply_ok (reply);
      goto cleanup;
   }
   sim_reply_cursor (reply, ns, &out, batch, false);
cleanup:
   for (int i = 0; i < agg.nlookups; i++) {
      simq_docs_clear (&agg.lookups[i]);
   }
   simq_docs_clear (&input);
   simq_docs_clear (&out);
   bson_destroy (&rest);
   bson_free (ns);
}

/* A read-only command: abandoned when its client goes away (sim_stop.c). */
void
sim_crud_aggregate (sim_ctx_t *ctx, bson_t *reply)
{
   sim_stop_watch (ctx->conn);
   sim_crud_aggregate_run (ctx, reply);
   sim_stop_unwatch ();
}

/* ---- count / distinct ---- */

static void
sim_crud_count_run (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   bson_t query;
   bson_error_t err;
   sim_hits_t hits = { 0 };
   if (!sim_target (ctx, reply, &name)) {
      return;
   }
   bool have_query = sim_subdoc (ctx->cmd, "query", &query);
   int64_t skip = sim_int_field (ctx->cmd, "skip", 0);
   int64_t limit = sim_int_field (ctx->cmd, "limit", 0);
   sim_coll_t *coll = sim_coll_get (ctx->db, name);
   int64_t n = 0;
   if (coll) {
      if (!sim_coll_match (coll, have_query ? &query : NULL, 0, &hits, &err)) {
         sim_reply_simq_error (reply, &err);
         goto cleanup;
      }
      n = (int64_t) hits.n - skip;
      n = n < 0 ? 0 : n;
      if (limit) {
         n = n < llabs (limit) ? n : llabs (limit);
      }
      sim_touch (coll->ns, 0, NULL);
   }
   BSON_APPEND_INT32 (reply, "n", (int32_t) n);
   sim_reply_ok (reply);
cleanup:
   sim_hits_free (&hits);
}

/* A read-only command: abandoned when its client goes away (sim_stop.c). */
void
sim_crud_count (sim_ctx_t *ctx, bson_t *reply)
{
   sim_stop_watch (ctx->conn);
   sim_crud_count_run (ctx, reply);
   sim_stop_unwatch ();
}

static void
sim_distinct_add (simq_docs_t *vals, const bson_value_t *v)
{
   for (size_t i = 0; i < vals->n; i++) {
      bson_iter_t it;
      bson_iter_init (&it, vals->v[i]);
      bson_iter_next (&it);
      if (order_values (bson_iter_value (&it), v) == 0) {
         return;
      }
   }
   bson_t *d = bson_new ();
   BSON_APPEND_VALUE (d, "v", v);
   simq_docs_push_owned (vals, d);
}

static void
sim_crud_distinct_run (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   bson_t query, sortspec;
   bson_error_t err;
   bson_iter_t it;
   simq_docs_t docs, vals;
   simq_docs_init (&docs);
   simq_docs_init (&vals);
   if (!sim_target (ctx, reply, &name)) {
      goto cleanup;
   }
   if (!bson_iter_init_find (&it, ctx->cmd, "key") || !BSON_ITER_HOLDS_UTF8 (&it)) {
      sim_reply_error (reply, 40414, "BSON field 'distinct.key' is missing but a required field");
      goto cleanup;
   }
   const char *key = bson_iter_utf8 (&it, NULL);
   bool have_query = sim_subdoc (ctx->cmd, "query", &query);
   sim_coll_t *coll = sim_coll_get (ctx->db, name);
   if (coll && !sim_coll_collect (coll, have_query ? &query : NULL, &docs, &err)) {
      sim_reply_simq_error (reply, &err);
      goto cleanup;
   }
   for (size_t i = 0; i < docs.n; i++) {
      bson_value_t v;
      if (!simq_get_path (docs.v[i], key, &v)) {
         continue;
      }
      if (v.value_type == BSON_TYPE_ARRAY) {
         bson_t arr;
         bson_iter_t a;
         if (bson_init_static (&arr, v.value.v_doc.data, v.value.v_doc.data_len) && bson_iter_init (&a, &arr)) {
            while (bson_iter_next (&a)) {
               sim_distinct_add (&vals, bson_iter_value (&a));
            }
         }
      } else {
         sim_distinct_add (&vals, &v);
      }
   }
   bson_init (&sortspec);
   BSON_APPEND_INT32 (&sortspec, "v", 1);
   if (vals.n > 1) {
      simq_sort (&vals, &sortspec, &err);
   }
   bson_destroy (&sortspec);
   bson_t arr;
   BSON_APPEND_ARRAY_BEGIN (reply, "values", &arr);
   for (size_t i = 0; i < vals.n; i++) {
      char k[16];
      const char *kp;
      bson_iter_init (&it, vals.v[i]);
      bson_iter_next (&it);
      bson_uint32_to_string ((uint32_t) i, &kp, k, sizeof k);
      bson_append_value (&arr, kp, -1, bson_iter_value (&it));
   }
   bson_append_array_end (reply, &arr);
   sim_reply_ok (reply);
cleanup:
   simq_docs_clear (&docs);
   simq_docs_clear (&vals);
}

/* A read-only command: abandoned when its client goes away (sim_stop.c). */
void
sim_crud_distinct (sim_ctx_t *ctx, bson_t *reply)
{
   sim_stop_watch (ctx->conn);
   sim_crud_distinct_run (ctx, reply);
   sim_stop_unwatch ();
}

/* ---- writes ---- */

/* Copies doc into out with an _id first (a new ObjectId when doc has none). */
static void
sim_with_id (const bson_t *doc, bson_t *out)
{
   bson_iter_t it;
   bson_init (out);
   if (bson_iter_init_find (&it, doc, "_id")) {
      BSON_APPEND_VALUE (out, "_id", bson_iter_value (&it));
   } else {
      bson_oid_t oid;
      bson_oid_init (&oid, NULL);
      BSON_APPEND_OID (out, "_id", &oid);
   }
   bson_iter_init (&it, doc);
   while (bson_iter_next (&it)) {
      if (strcmp (bson_iter_key (&it), "_id") != 0) {
         bson_append_value (out, bson_iter_key (&it), -1, bson_iter_value (&it));
      }
   }
}

static void
sim_write_error (bson_t *errors, uint32_t *nerr, uint32_t index, int code, const char *msg)
{
   bson_t e;
   char key[16];
   const char *kp;
   bson_uint32_to_string ((*nerr)++, &kp, key, sizeof key);
   BSON_APPEND_DOCUMENT_BEGIN (errors, kp, &e);
   BSON_APPEND_INT32 (&e, "index", (int32_t) index);
   BSON_APPEND_INT32 (&e, "code", code);
   BSON_APPEND_UTF8 (&e, "errmsg", msg);
   bson_append_document_end (errors, &e);
}

/* Inserts one document (with _id) after the duplicate-key check; returns false with a message on a duplicate. */
static bool
sim_insert_checked (sim_coll_t *coll, const bson_t *doc, char *errmsg, size_t errlen)
{
   bson_iter_t it;
   if (bson_iter_init_find (&it, doc, "_id") && sim_coll_has_id (coll, bson_iter_value (&it))) {
      char *json = bson_as_relaxed_extended_json (doc, NULL);
      bson_value_t id = *bson_iter_value (&it);
      bson_t idd = BSON_INITIALIZER;
      BSON_APPEND_VALUE (&idd, "_id", &id);
      char *idjson = bson_as_relaxed_extended_json (&idd, NULL);
      bson_snprintf (errmsg, errlen, "E11000 duplicate key error collection: %s index: _id_ dup key: %s", coll->ns,
                     idjson);
      bson_free (idjson);
      bson_free (json);
      bson_destroy (&idd);
      return false;
   }
   sim_coll_insert (coll, doc);
   char shard[64];
   sim_shcoll_t sc;
   bool sharded = sim_shcoll_load (coll->ns, &sc);
   if (sim_route_doc (coll->ns, sharded ? &sc : NULL, doc, shard)) {
      sim_touch (coll->ns, 1, shard);
   }
   sim_shcoll_destroy (&sc);
   return true;
}

void
sim_crud_insert_one (const char *db, const char *name, const bson_t *doc)
{
   bson_t with;
   char errmsg[512], primary[64];
   sim_db_ensure (db, primary);
   sim_with_id (doc, &with);
   sim_insert_checked (sim_coll_ensure (db, name), &with, errmsg, sizeof errmsg);
   bson_destroy (&with);
}

static void
sim_finish_write (bson_t *reply, int64_t n, bool with_nmod, int64_t nmod, const bson_t *upserted, uint32_t nups,
                  const bson_t *errors, uint32_t nerr)
{
   BSON_APPEND_INT32 (reply, "n", (int32_t) n);
   if (with_nmod) {
      BSON_APPEND_INT32 (reply, "nModified", (int32_t) nmod);
   }
   if (nups) {
      BSON_APPEND_ARRAY (reply, "upserted", upserted);
   }
   if (nerr) {
      BSON_APPEND_ARRAY (reply, "writeErrors", errors);
   }
   uint32_t s, i;
   sim_tick (&s, &i);
   sim_reply_ok (reply);
}

void
sim_crud_insert (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   bson_iter_t it, a;
   bson_t errors = BSON_INITIALIZER;
   uint32_t nerr = 0;
   int64_t n = 0;
   char primary[64];
   if (!sim_target (ctx, reply, &name)) {
      goto cleanup;
   }
   if (!bson_iter_init_find (&it, ctx->cmd, "documents") || !BSON_ITER_HOLDS_ARRAY (&it)) {
      sim_reply_error (reply, 40414, "BSON field 'insert.documents' is missing but a required field");
      goto cleanup;
   }
   bool ordered = !bson_iter_init_find (&a, ctx->cmd, "ordered") || bson_iter_as_bool (&a);
   if (!sim_db_ensure (ctx->db, primary)) {
      sim_reply_error (reply, 70, "Database %s could not be created :: caused by :: No shards found", ctx->db);
      goto cleanup;
   }
   sim_coll_t *coll = sim_coll_ensure (ctx->db, name);
   bson_iter_init_find (&it, ctx->cmd, "documents");
   bson_iter_recurse (&it, &a);
   uint32_t index = 0;
   while (bson_iter_next (&a)) {
      bson_t doc, with;
      uint32_t l;
      const uint8_t *d;
      if (!BSON_ITER_HOLDS_DOCUMENT (&a)) {
         sim_write_error (&errors, &nerr, index, 14, "document to insert must be an object");
         if (ordered) {
            break;
         }
         index++;
         continue;
      }
      bson_iter_document (&a, &l, &d);
      bson_init_static (&doc, d, l);
      sim_with_id (&doc, &with);
      char errmsg[512];
      if (sim_insert_checked (coll, &with, errmsg, sizeof errmsg)) {
         n++;
      } else {
         sim_write_error (&errors, &nerr, index, 11000, errmsg);
         if (ordered) {
            bson_destroy (&with);
            break;
         }
      }
      bson_destroy (&with);
      index++;
   }
   if (n && coll->ctab) {
      sim_autosplit (coll, 0.5, false); /* before 6.0: chunks that grew past the chunk size split */
   }
   sim_finish_write (reply, n, false, 0, NULL, 0, &errors, nerr);
cleanup:
   bson_destroy (&errors);
}

static bool
sim_is_replacement (const bson_t *u)
{
   bson_iter_t it;
   return !(bson_iter_init (&it, u) && bson_iter_next (&it) && bson_iter_key (&it)[0] == '$');
}

void
sim_crud_update (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   bson_iter_t it, a;
   bson_t errors = BSON_INITIALIZER, upserted = BSON_INITIALIZER;
   uint32_t nerr = 0, nups = 0;
   int64_t n = 0, nmod = 0;
   char primary[64];
   bson_error_t err;
   if (!sim_target (ctx, reply, &name)) {
      goto cleanup;
   }
   if (!bson_iter_init_find (&it, ctx->cmd, "updates") || !BSON_ITER_HOLDS_ARRAY (&it)) {
      sim_reply_error (reply, 40414, "BSON field 'update.updates' is missing but a required field");
      goto cleanup;
   }
   bool ordered = !bson_iter_init_find (&a, ctx->cmd, "ordered") || bson_iter_as_bool (&a);
   sim_coll_t *coll = sim_coll_get (ctx->db, name);
   bson_iter_init_find (&it, ctx->cmd, "updates");
   bson_iter_recurse (&it, &a);
   uint32_t index = 0;
   for (; bson_iter_next (&a); index++) {
      bson_t stmt, q, u;
      uint32_t l;
      const uint8_t *d;
      if (!BSON_ITER_HOLDS_DOCUMENT (&a)) {
         continue;
      }
      bson_iter_document (&a, &l, &d);
      bson_init_static (&stmt, d, l);
      if (!sim_subdoc (&stmt, "q", &q) || !sim_subdoc (&stmt, "u", &u)) {
         sim_write_error (&errors, &nerr, index, 9, "BSON field 'update.updates.q' is missing but a required field");
         if (ordered) {
            break;
         }
         continue;
      }
      bool multi = sim_bool_field (&stmt, "multi");
      bool upsert = sim_bool_field (&stmt, "upsert");
      sim_hits_t hits = { 0 };
      if (coll && !sim_coll_match (coll, &q, multi ? 0 : 1, &hits, &err)) {
         sim_hits_free (&hits);
         sim_write_error (&errors, &nerr, index, (int) (err.code ? err.code : 2), err.message);
         if (ordered) {
            break;
         }
         continue;
      }
      bool failed = false;
      if (hits.n) {
         sim_touch_hits (coll, &hits, 1);
      }
      for (size_t i = 0; i < hits.n; i++) {
         bson_t view, nd, fixed;
         bool modified = false;
         sim_coll_view (coll, hits.v[i], &view);
         bson_t before;
         bson_copy_to (&view, &before);
         if (!simq_apply_update (&before, &u, false, &nd, &modified, &err)) {
            bson_destroy (&nd);
            bson_destroy (&before);
            sim_write_error (&errors, &nerr, index, (int) (err.code ? err.code : 2), err.message);
            failed = true;
            break;
         }
         n++;
         if (modified) {
            /* Keep the original _id (a replacement may omit it). */
            bson_iter_t idit;
            if (bson_iter_init_find (&idit, &before, "_id")) {
               bson_t idonly = BSON_INITIALIZER;
               BSON_APPEND_VALUE (&idonly, "_id", bson_iter_value (&idit));
               bson_init (&fixed);
               bson_concat (&fixed, &idonly);
               bson_iter_t f;
               bson_iter_init (&f, &nd);
               while (bson_iter_next (&f)) {
                  if (strcmp (bson_iter_key (&f), "_id") != 0) {
                     bson_append_value (&fixed, bson_iter_key (&f), -1, bson_iter_value (&f));
                  }
               }
               bson_destroy (&idonly);
            } else {
               bson_copy_to (&nd, &fixed);
            }
            sim_coll_replace (coll, hits.v[i], &fixed);
            bson_destroy (&fixed);
            nmod++;
         }
         bson_destroy (&nd);
         bson_destroy (&before);
      }
      size_t matched = hits.n; /* sim_hits_free clears n: an upsert must not follow a match */
      sim_hits_free (&hits);
      if (failed) {
         if (ordered) {
            break;
         }
         continue;
      }
      if (!matched && upsert) {
         bson_t seed, nd, with;
         bool modified;
         simq_upsert_seed (&q, &seed);
         if (sim_is_replacement (&u)) {
            bson_t merged = BSON_INITIALIZER;
            bson_iter_t sid;
            if (bson_iter_init_find (&sid, &seed, "_id")) {
               BSON_APPEND_VALUE (&merged, "_id", bson_iter_value (&sid));
            }
            bson_concat (&merged, &u);
            bson_init (&nd);
            bson_concat (&nd, &merged);
            bson_destroy (&merged);
         } else if (!simq_apply_update (&seed, &u, true, &nd, &modified, &err)) {
            bson_destroy (&nd);
            bson_destroy (&seed);
            sim_write_error (&errors, &nerr, index, (int) (err.code ? err.code : 2), err.message);
            if (ordered) {
               break;
            }
            continue;
         }
         bson_destroy (&seed);
         sim_with_id (&nd, &with);
         bson_destroy (&nd);
         if (!sim_db_ensure (ctx->db, primary)) {
            bson_destroy (&with);
            sim_write_error (&errors, &nerr, index, 70, "No shards found");
            break;
         }
         coll = sim_coll_ensure (ctx->db, name);
         char errmsg[512];
         if (!sim_insert_checked (coll, &with, errmsg, sizeof errmsg)) {
            sim_write_error (&errors, &nerr, index, 11000, errmsg);
            bson_destroy (&with);
            if (ordered) {
               break;
            }
            continue;
         }
         bson_t e;
         char key[16];
         const char *kp;
         bson_iter_t idit;
         bson_uint32_to_string (nups++, &kp, key, sizeof key);
         BSON_APPEND_DOCUMENT_BEGIN (&upserted, kp, &e);
         BSON_APPEND_INT32 (&e, "index", (int32_t) index);
         if (bson_iter_init_find (&idit, &with, "_id")) {
            BSON_APPEND_VALUE (&e, "_id", bson_iter_value (&idit));
         }
         bson_append_document_end (&upserted, &e);
         bson_destroy (&with);
         n++;
      }
   }
   sim_finish_write (reply, n, true, nmod, &upserted, nups, &errors, nerr);
cleanup:
   bson_destroy (&errors);
   bson_destroy (&upserted);
}

void
sim_crud_delete (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   bson_iter_t it, a;
   bson_t errors = BSON_INITIALIZER;
   uint32_t nerr = 0;
   int64_t n = 0;
   bson_error_t err;
   if (!sim_target (ctx, reply, &name)) {
      goto cleanup;
   }
   if (!bson_iter_init_find (&it, ctx->cmd, "deletes") || !BSON_ITER_HOLDS_ARRAY (&it)) {
      sim_reply_error (reply, 40414, "BSON field 'delete.deletes' is missing but a required field");
      goto cleanup;
   }
   bool ordered = !bson_iter_init_find (&a, ctx->cmd, "ordered") || bson_iter_as_bool (&a);
   sim_coll_t *coll = sim_coll_get (ctx->db, name);
   bson_iter_init_find (&it, ctx->cmd, "deletes");
   bson_iter_recurse (&it, &a);
   uint32_t index = 0;
   for (; bson_iter_next (&a); index++) {
      bson_t stmt, q;
      uint32_t l;
      const uint8_t *d;
      if (!BSON_ITER_HOLDS_DOCUMENT (&a)) {
         continue;
      }
      bson_iter_document (&a, &l, &d);
      bson_init_static (&stmt, d, l);
      if (!sim_subdoc (&stmt, "q", &q)) {
         sim_write_error (&errors, &nerr, index, 40414,
                          "BSON field 'delete.deletes.q' is missing but a required field");
         if (ordered) {
            break;
         }
         continue;
      }
      int64_t limit = sim_int_field (&stmt, "limit", 0);
      if (!coll) {
         continue;
      }
      sim_hits_t hits = { 0 };
      if (!sim_coll_match (coll, &q, limit ? 1 : 0, &hits, &err)) {
         sim_hits_free (&hits);
         sim_write_error (&errors, &nerr, index, (int) (err.code ? err.code : 2), err.message);
         if (ordered) {
            break;
         }
         continue;
      }
      n += (int64_t) hits.n;
      if (hits.n) {
         sim_touch_hits (coll, &hits, 1);
      }
      sim_coll_delete (coll, &hits);
      sim_hits_free (&hits);
   }
   sim_finish_write (reply, n, false, 0, NULL, 0, &errors, nerr);
cleanup:
   bson_destroy (&errors);
}

/* ---- catalog ---- */

void
sim_crud_list_collections (sim_ctx_t *ctx, bson_t *reply)
{
   bson_t filter;
   bool have_filter = sim_subdoc (ctx->cmd, "filter", &filter) && !bson_empty (&filter);
   bool name_only = sim_bool_field (ctx->cmd, "nameOnly");
   bson_t cursor;
   int64_t batch = sim_subdoc (ctx->cmd, "cursor", &cursor) ? sim_int_field (&cursor, "batchSize", -1) : -1;
   simq_docs_t out;
   simq_docs_init (&out);
   for (size_t i = 0; i < sim_g.ncolls; i++) {
      sim_coll_t *c = sim_g.colls[i];
      if (strcmp (c->db, ctx->db) != 0) {
         continue;
      }
      bson_t *d = bson_new ();
      bson_t sub;
      BSON_APPEND_UTF8 (d, "name", c->name);
      BSON_APPEND_UTF8 (d, "type", "collection");
      if (!name_only) {
         BSON_APPEND_DOCUMENT_BEGIN (d, "options", &sub);
         bson_append_document_end (d, &sub);
         BSON_APPEND_DOCUMENT_BEGIN (d, "info", &sub);
         BSON_APPEND_BOOL (&sub, "readOnly", false);
         BSON_APPEND_BINARY (&sub, "uuid", BSON_SUBTYPE_UUID, c->uuid, 16);
         bson_append_document_end (d, &sub);
         BSON_APPEND_DOCUMENT (d, "idIndex", c->indexes.v[0]);
      }
      bool keep = true;
      bson_error_t err;
      if (have_filter && !simq_match (d, &filter, &keep, &err)) {
         keep = false;
      }
      if (keep) {
         simq_docs_push_owned (&out, d);
      } else {
         bson_destroy (d);
      }
   }
   char *ns = bson_strdup_printf ("%s.$cmd.listCollections", ctx->db);
   sim_reply_cursor (reply, ns, &out, batch, false);
   bson_free (ns);
   simq_docs_clear (&out);
}

void
sim_crud_list_indexes (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   if (!sim_target (ctx, reply, &name)) {
      return;
   }
   sim_coll_t *c = sim_coll_get (ctx->db, name);
   if (!c) {
      sim_reply_error (reply, 26, "ns does not exist: %s.%s", ctx->db, name);
      return;
   }
   simq_docs_t out;
   simq_docs_init (&out);
   for (size_t i = 0; i < c->indexes.n; i++) {
      simq_docs_push_copy (&out, c->indexes.v[i]);
   }
   sim_reply_cursor (reply, c->ns, &out, -1, false);
   simq_docs_clear (&out);
}

/* Adds an index spec to c unless one with the same name exists; false with a message on a conflicting spec. */
static bool
sim_index_add (sim_coll_t *c, const bson_t *spec, char *errmsg, size_t errlen, int *code)
{
   bson_iter_t it;
   const char *name =
      bson_iter_init_find (&it, spec, "name") && BSON_ITER_HOLDS_UTF8 (&it) ? bson_iter_utf8 (&it, NULL) : NULL;
   bson_t key;
   if (!name || !sim_subdoc (spec, "key", &key) || bson_empty (&key)) {
      bson_snprintf (errmsg, errlen, "Error in specification %s", name ? name : "(no name)");
      *code = 9;
      return false;
   }
   for (size_t i = 0; i < c->indexes.n; i++) {
      bson_t k2;
      if (bson_iter_init_find (&it, c->indexes.v[i], "name") && !strcmp (bson_iter_utf8 (&it, NULL), name)) {
         if (sim_subdoc (c->indexes.v[i], "key", &k2) && bson_equal (&k2, &key)) {
            return true;
         }
         bson_snprintf (errmsg, errlen,
                        "An existing index has the same name as the requested index. Requested index: %s", name);
         *code = 86;
         return false;
      }
   }
   bson_t *d = bson_new ();
   BSON_APPEND_INT32 (d, "v", 2);
   BSON_APPEND_DOCUMENT (d, "key", &key);
   BSON_APPEND_UTF8 (d, "name", name);
   /* the options as given (unique, sparse, hidden, expireAfterSeconds, ...), as listIndexes shows them */
   bson_iter_init (&it, spec);
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      if (strcmp (k, "key") != 0 && strcmp (k, "name") != 0 && strcmp (k, "v") != 0) {
         bson_append_value (d, k, -1, bson_iter_value (&it));
      }
   }
   simq_docs_push_owned (&c->indexes, d);
   return true;
}

void
sim_crud_create_indexes (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   bson_iter_t it, a;
   char primary[64], errmsg[512];
   if (!sim_target (ctx, reply, &name)) {
      return;
   }
   if (!bson_iter_init_find (&it, ctx->cmd, "indexes") || !BSON_ITER_HOLDS_ARRAY (&it)) {
      sim_reply_error (reply, 40414, "BSON field 'createIndexes.indexes' is missing but a required field");
      return;
   }
   if (!sim_db_ensure (ctx->db, primary)) {
      sim_reply_error (reply, 70, "No shards found");
      return;
   }
   bool created = !sim_coll_get (ctx->db, name);
   sim_coll_t *c = sim_coll_ensure (ctx->db, name);
   int before = (int) c->indexes.n;
   bson_iter_recurse (&it, &a);
   while (bson_iter_next (&a)) {
      bson_t spec;
      uint32_t l;
      const uint8_t *d;
      int code = 0;
      if (!BSON_ITER_HOLDS_DOCUMENT (&a)) {
         continue;
      }
      bson_iter_document (&a, &l, &d);
      bson_init_static (&spec, d, l);
      if (!sim_index_add (c, &spec, errmsg, sizeof errmsg, &code)) {
         sim_reply_error (reply, code, "%s", errmsg);
         return;
      }
   }
   sim_shard_stat_t *st = NULL;
   size_t n = sim_coll_shard_stats (c->ns, &st);
   bson_t raw;
   BSON_APPEND_DOCUMENT_BEGIN (reply, "raw", &raw);
   for (size_t i = 0; i < n; i++) {
      bson_t sdoc, r;
      char host[256];
      bson_strncpy (host, st[i].shard, sizeof host);
      if (sim_shard_get (st[i].shard, &sdoc)) {
         if (bson_iter_init_find (&it, &sdoc, "host") && BSON_ITER_HOLDS_UTF8 (&it)) {
            bson_strncpy (host, bson_iter_utf8 (&it, NULL), sizeof host);
         }
         bson_destroy (&sdoc);
      }
      BSON_APPEND_DOCUMENT_BEGIN (&raw, host, &r);
      BSON_APPEND_BOOL (&r, "createdCollectionAutomatically", created);
      BSON_APPEND_INT32 (&r, "numIndexesBefore", created ? 1 : before);
      BSON_APPEND_INT32 (&r, "numIndexesAfter", (int32_t) c->indexes.n);
      if (before == (int) c->indexes.n) {
         BSON_APPEND_UTF8 (&r, "note", "all indexes already exist");
      } else {
         BSON_APPEND_UTF8 (&r, "commitQuorum", "votingMembers");
      }
      BSON_APPEND_DOUBLE (&r, "ok", 1.0);
      bson_append_document_end (&raw, &r);
   }
   bson_append_document_end (reply, &raw);
   bson_free (st);
   sim_reply_ok (reply);
}

void
sim_crud_drop (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   if (!sim_target (ctx, reply, &name)) {
      return;
   }
   sim_coll_t *c = sim_coll_get (ctx->db, name);
   if (!c) {
      if (sim_ver_ge (70)) {
         /* 7.0+ treats dropping a missing collection as success. */
         char *ns = bson_strdup_printf ("%s.%s", ctx->db, name);
         BSON_APPEND_UTF8 (reply, "ns", ns);
         bson_free (ns);
         sim_reply_ok (reply);
         return;
      }
      sim_reply_error (reply, 26, "ns not found");
      return;
   }
   int32_t nidx = (int32_t) c->indexes.n;
   char *ns = bson_strdup (c->ns);
   sim_shcoll_t sc;
   if (sim_shcoll_load (ns, &sc)) {
      bson_t filter = BSON_INITIALIZER, empty = BSON_INITIALIZER;
      sim_hits_t hits = { 0 };
      bson_error_t err;
      sim_coll_t *chunks = sim_coll_get ("config", "chunks");
      sim_shcoll_chunk_filter (&sc, &filter);
      if (chunks && sim_coll_match (chunks, &filter, 0, &hits, &err)) {
         sim_coll_delete (chunks, &hits);
      }
      sim_hits_free (&hits);
      bson_reinit (&filter);
      BSON_APPEND_UTF8 (&filter, "_id", ns);
      sim_coll_t *colls = sim_coll_get ("config", "collections");
      if (colls && sim_coll_match (colls, &filter, 0, &hits, &err)) {
         sim_coll_delete (colls, &hits);
      }
      sim_hits_free (&hits);
      sim_changelog (false, "dropCollection.start", ns, "config", &empty, clock_wall_ms ());
      sim_changelog (false, "dropCollection", ns, "config", &empty, clock_wall_ms ());
      bson_destroy (&filter);
      bson_destroy (&empty);
   }
   sim_shcoll_destroy (&sc);
   sim_coll_drop (c);
   uint32_t s, i;
   sim_tick (&s, &i);
   BSON_APPEND_INT32 (reply, "nIndexesWas", nidx);
   BSON_APPEND_UTF8 (reply, "ns", ns);
   bson_free (ns);
   sim_reply_ok (reply);
}

void
sim_crud_current_op (sim_ctx_t *ctx, bson_t *reply)
{
   simq_docs_t rows;
   simq_docs_init (&rows);
   bson_iter_t it;
   bool idle = bson_iter_init_find (&it, ctx->cmd, "idleConnections") && bson_iter_as_bool (&it);
   sim_current_op_rows (ctx, idle, &rows);
   bson_t arr;
   BSON_APPEND_ARRAY_BEGIN (reply, "inprog", &arr);
   for (size_t i = 0; i < rows.n; i++) {
      char key[16];
      const char *kp;
      bson_uint32_to_string ((uint32_t) i, &kp, key, sizeof key);
      BSON_APPEND_DOCUMENT (&arr, kp, rows.v[i]);
   }
   bson_append_array_end (reply, &arr);
   simq_docs_clear (&rows);
   sim_reply_ok (reply);
}

/* ---- findAndModify, index and catalog changes, dbStats, killOp (the mongos's replies, 4.4 to 8.0) ---- */

/* Keeps _id first and from before (a replacement may omit it). out is initialised here. */
static void
sim_keep_id (const bson_t *before, const bson_t *nd, bson_t *out)
{
   bson_iter_t it;
   bson_init (out);
   if (bson_iter_init_find (&it, before, "_id")) {
      BSON_APPEND_VALUE (out, "_id", bson_iter_value (&it));
   }
   bson_iter_init (&it, nd);
   while (bson_iter_next (&it)) {
      if (strcmp (bson_iter_key (&it), "_id") != 0) {
         bson_append_value (out, bson_iter_key (&it), -1, bson_iter_value (&it));
      }
   }
}

/* Appends value under "value": the document (projected by fields when given) or null. */
static void
sim_fam_value (bson_t *reply, const bson_t *doc, const bson_t *fields)
{
   bson_error_t err;
   bson_t p;
   if (!doc) {
      BSON_APPEND_NULL (reply, "value");
   } else if (fields && !bson_empty (fields) && simq_project (doc, fields, &p, &err)) {
      BSON_APPEND_DOCUMENT (reply, "value", &p);
      bson_destroy (&p);
   } else {
      BSON_APPEND_DOCUMENT (reply, "value", doc);
   }
}

void
sim_crud_find_and_modify (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   bson_t query = BSON_INITIALIZER, sort, fields, update, leo;
   bson_error_t err;
   simq_docs_t docs;
   char primary[64], errmsg[512];
   simq_docs_init (&docs);
   if (!sim_target (ctx, reply, &name)) {
      goto done;
   }
   bson_t q;
   if (sim_subdoc (ctx->cmd, "query", &q)) {
      bson_destroy (&query);
      bson_copy_to (&q, &query);
   }
   bool have_sort = sim_subdoc (ctx->cmd, "sort", &sort);
   bool have_fields = sim_subdoc (ctx->cmd, "fields", &fields);
   bool remove = sim_bool_field (ctx->cmd, "remove");
   bool is_new = sim_bool_field (ctx->cmd, "new");
   bool upsert = sim_bool_field (ctx->cmd, "upsert");
   bool have_update = sim_subdoc (ctx->cmd, "update", &update);
   if (remove == have_update) {
      sim_reply_error (reply, 9,
                       remove ? "Cannot specify both an update and remove=true"
                              : "Either an update or remove=true must be specified");
      goto done;
   }
   if (remove && (is_new || upsert)) {
      sim_reply_error (reply, 9,
                       "Cannot specify both new=true and remove=true; 'remove' always returns the deleted "
                       "document");
      goto done;
   }
   sim_coll_t *coll = sim_coll_get (ctx->db, name);
   if (coll && !sim_coll_collect (coll, &query, &docs, &err)) {
      sim_reply_simq_error (reply, &err);
      goto done;
   }
   if (have_sort && docs.n > 1 && !simq_sort (&docs, &sort, &err)) {
      sim_reply_simq_error (reply, &err);
      goto done;
   }
   const bson_t *before = docs.n ? docs.v[0] : NULL;
   bson_t idf = BSON_INITIALIZER;
   bson_iter_t it;
   sim_hits_t hits = { 0 };
   if (before && bson_iter_init_find (&it, before, "_id")) {
      BSON_APPEND_VALUE (&idf, "_id", bson_iter_value (&it));
      if (!sim_coll_match (coll, &idf, 1, &hits, &err)) {
         hits.n = 0;
      }
   }
   if (before && hits.n) {
      BSON_APPEND_DOCUMENT_BEGIN (reply, "lastErrorObject", &leo);
      BSON_APPEND_INT32 (&leo, "n", 1);
      if (remove) {
         bson_append_document_end (reply, &leo);
         sim_fam_value (reply, before, have_fields ? &fields : NULL);
         sim_touch_hits (coll, &hits, 1);
         sim_coll_delete (coll, &hits);
      } else {
         bson_t nd, fixed;
         bool modified = false;
         if (!simq_apply_update (before, &update, false, &nd, &modified, &err)) {
            bson_destroy (&nd);
            bson_reinit (reply);
            sim_reply_simq_error (reply, &err);
            sim_hits_free (&hits);
            bson_destroy (&idf);
            goto done;
         }
         BSON_APPEND_BOOL (&leo, "updatedExisting", true);
         bson_append_document_end (reply, &leo);
         sim_keep_id (before, &nd, &fixed);
         sim_fam_value (reply, is_new ? &fixed : before, have_fields ? &fields : NULL);
         sim_touch_hits (coll, &hits, 1);
         if (modified) {
            sim_coll_replace (coll, hits.v[0], &fixed);
         }
         bson_destroy (&fixed);
         bson_destroy (&nd);
      }
   } else if (upsert) {
      bson_t seed, nd, with;
      bool modified;
      simq_upsert_seed (&query, &seed);
      if (sim_is_replacement (&update)) {
         sim_keep_id (&seed, &update, &nd);
      } else if (!simq_apply_update (&seed, &update, true, &nd, &modified, &err)) {
         bson_destroy (&nd);
         bson_destroy (&seed);
         sim_reply_simq_error (reply, &err);
         sim_hits_free (&hits);
         bson_destroy (&idf);
         goto done;
      }
      bson_destroy (&seed);
      sim_with_id (&nd, &with);
      bson_destroy (&nd);
      if (!sim_db_ensure (ctx->db, primary)) {
         sim_reply_error (reply, 70, "No shards found");
      } else if (!sim_insert_checked (sim_coll_ensure (ctx->db, name), &with, errmsg, sizeof errmsg)) {
         sim_reply_error (reply, 11000, "%s", errmsg);
      } else {
         BSON_APPEND_DOCUMENT_BEGIN (reply, "lastErrorObject", &leo);
         BSON_APPEND_INT32 (&leo, "n", 1);
         BSON_APPEND_BOOL (&leo, "updatedExisting", false);
         if (bson_iter_init_find (&it, &with, "_id")) {
            BSON_APPEND_VALUE (&leo, "upserted", bson_iter_value (&it));
         }
         bson_append_document_end (reply, &leo);
         sim_fam_value (reply, is_new ? &with : NULL, have_fields ? &fields : NULL);
         sim_reply_ok (reply);
      }
      bson_destroy (&with);
      sim_hits_free (&hits);
      bson_destroy (&idf);
      goto done;
   } else {
      BSON_APPEND_DOCUMENT_BEGIN (reply, "lastErrorObject", &leo);
      BSON_APPEND_INT32 (&leo, "n", 0);
      if (!remove) {
         BSON_APPEND_BOOL (&leo, "updatedExisting", false);
      }
      bson_append_document_end (reply, &leo);
      BSON_APPEND_NULL (reply, "value");
   }
   sim_hits_free (&hits);
   bson_destroy (&idf);
   sim_reply_ok (reply);
done:
   bson_destroy (&query);
   simq_docs_clear (&docs);
}

/* The index of c named name (a string) or with key pattern key (a document); -1 when none. */
static int
sim_index_find (sim_coll_t *c, const bson_iter_t *which)
{
   for (size_t i = 0; i < c->indexes.n; i++) {
      bson_iter_t f;
      bson_t key, want;
      if (BSON_ITER_HOLDS_UTF8 (which)) {
         if (bson_iter_init_find (&f, c->indexes.v[i], "name") && BSON_ITER_HOLDS_UTF8 (&f) &&
             !strcmp (bson_iter_utf8 (&f, NULL), bson_iter_utf8 (which, NULL))) {
            return (int) i;
         }
      } else if (BSON_ITER_HOLDS_DOCUMENT (which)) {
         uint32_t l;
         const uint8_t *d;
         bson_iter_document (which, &l, &d);
         bson_init_static (&want, d, l);
         if (sim_subdoc (c->indexes.v[i], "key", &key) && bson_equal (&key, &want)) {
            return (int) i;
         }
      }
   }
   return -1;
}

static void
sim_index_describe (const bson_iter_t *which, char *buf, size_t len)
{
   if (BSON_ITER_HOLDS_UTF8 (which)) {
      bson_snprintf (buf, len, "%s", bson_iter_utf8 (which, NULL));
   } else {
      bson_t want;
      uint32_t l;
      const uint8_t *d;
      bson_iter_document (which, &l, &d);
      bson_init_static (&want, d, l);
      char *j = bson_as_relaxed_extended_json (&want, NULL);
      bson_snprintf (buf, len, "%s", j);
      bson_free (j);
   }
}

static void
sim_index_remove (sim_coll_t *c, int i)
{
   bson_destroy (c->indexes.v[i]);
   memmove (&c->indexes.v[i], &c->indexes.v[i + 1], (c->indexes.n - (size_t) i - 1) * sizeof c->indexes.v[0]);
   c->indexes.n--;
}

void
sim_crud_drop_indexes (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   bson_iter_t it, a;
   char what[512];
   if (!sim_target (ctx, reply, &name)) {
      return;
   }
   sim_coll_t *c = sim_coll_get (ctx->db, name);
   if (!c) {
      sim_reply_error (reply, 26, "ns not found %s.%s", ctx->db, name);
      return;
   }
   if (!bson_iter_init_find (&it, ctx->cmd, "index")) {
      sim_reply_error (reply, 40414, "BSON field 'dropIndexes.index' is missing but a required field");
      return;
   }
   int32_t was = (int32_t) c->indexes.n;
   if (BSON_ITER_HOLDS_UTF8 (&it) && !strcmp (bson_iter_utf8 (&it, NULL), "*")) {
      /* every index but _id_ and, on a sharded collection, the shard key's */
      sim_shcoll_t sc;
      bool sharded = sim_shcoll_load (c->ns, &sc);
      for (int i = (int) c->indexes.n - 1; i >= 1; i--) {
         bson_t key;
         if (sharded && sim_subdoc (c->indexes.v[i], "key", &key) && bson_equal (&key, &sc.key)) {
            continue;
         }
         sim_index_remove (c, i);
      }
      sim_shcoll_destroy (&sc);
   } else if (BSON_ITER_HOLDS_ARRAY (&it)) {
      /* all or none: every name must exist first */
      bson_iter_recurse (&it, &a);
      while (bson_iter_next (&a)) {
         if (!BSON_ITER_HOLDS_UTF8 (&a)) {
            sim_reply_error (reply, 14, "dropIndexes index names must be strings");
            return;
         }
         if (sim_index_find (c, &a) < 0) {
            sim_reply_error (reply, 27, "index not found with name [%s]", bson_iter_utf8 (&a, NULL));
            return;
         }
         if (!strcmp (bson_iter_utf8 (&a, NULL), "_id_")) {
            sim_reply_error (reply, 72, "cannot drop _id index");
            return;
         }
      }
      bson_iter_recurse (&it, &a);
      while (bson_iter_next (&a)) {
         int i = sim_index_find (c, &a);
         if (i > 0) {
            sim_index_remove (c, i);
         }
      }
   } else if (BSON_ITER_HOLDS_UTF8 (&it) || BSON_ITER_HOLDS_DOCUMENT (&it)) {
      int i = sim_index_find (c, &it);
      sim_index_describe (&it, what, sizeof what);
      if (i < 0) {
         if (BSON_ITER_HOLDS_UTF8 (&it)) {
            sim_reply_error (reply, 27, "index not found with name [%s]", what);
         } else {
            sim_reply_error (reply, 27, "can't find index with key: %s", what);
         }
         return;
      }
      if (i == 0) {
         sim_reply_error (reply, 72, "cannot drop _id index");
         return;
      }
      sim_index_remove (c, i);
   } else {
      sim_reply_error (reply, 14, "dropIndexes 'index' must be a string, an array of strings or a document");
      return;
   }
   BSON_APPEND_INT32 (reply, "nIndexesWas", was);
   sim_reply_ok (reply);
}

/* collMod: the index form { index: { name | keyPattern, hidden } } (the one hideIndex/unhideIndex send). */
void
sim_crud_coll_mod (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   bson_t index;
   bson_iter_t it;
   if (!sim_target (ctx, reply, &name)) {
      return;
   }
   sim_coll_t *c = sim_coll_get (ctx->db, name);
   if (!c) {
      sim_reply_error (reply, 26, "ns does not exist: %s.%s", ctx->db, name);
      return;
   }
   if (!sim_subdoc (ctx->cmd, "index", &index)) {
      sim_reply_ok (reply); /* no change asked */
      return;
   }
   bson_iter_t which;
   if (!(bson_iter_init_find (&which, &index, "name") || bson_iter_init_find (&which, &index, "keyPattern"))) {
      sim_reply_error (reply, 72, "must specify either index name or key pattern for collMod");
      return;
   }
   if (!bson_iter_init_find (&it, &index, "hidden")) {
      sim_reply_error (reply, 72, "no expireAfterSeconds, hidden or prepareUnique field");
      return;
   }
   bool hidden = bson_iter_as_bool (&it);
   int i = sim_index_find (c, &which);
   if (i < 0) {
      char what[512];
      sim_index_describe (&which, what, sizeof what);
      sim_reply_error (reply, 27, "cannot find index %s for ns %s", what, c->ns);
      return;
   }
   if (i == 0) {
      sim_reply_error (reply, 72, "can't hide _id index");
      return;
   }
   bool old = sim_bool_field (c->indexes.v[i], "hidden");
   if (old != hidden) {
      bson_t *d = bson_new ();
      bson_iter_init (&it, c->indexes.v[i]);
      while (bson_iter_next (&it)) {
         if (strcmp (bson_iter_key (&it), "hidden") != 0) {
            bson_append_value (d, bson_iter_key (&it), -1, bson_iter_value (&it));
         }
      }
      if (hidden) {
         BSON_APPEND_BOOL (d, "hidden", true);
      }
      bson_destroy (c->indexes.v[i]);
      c->indexes.v[i] = d;
   }
   BSON_APPEND_BOOL (reply, "hidden_old", old);
   BSON_APPEND_BOOL (reply, "hidden_new", hidden);
   sim_reply_ok (reply);
}

/* create: an unsharded collection on the database's primary shard. */
void
sim_crud_create (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   char primary[64];
   if (!sim_target (ctx, reply, &name)) {
      return;
   }
   if (sim_coll_get (ctx->db, name)) {
      if (sim_ver_ge (50)) {
         sim_reply_error (reply, 48, "Collection %s.%s already exists.", ctx->db, name);
      } else {
         sim_reply_error (reply, 48, "a collection '%s.%s' already exists", ctx->db, name);
      }
      return;
   }
   if (!sim_db_ensure (ctx->db, primary)) {
      sim_reply_error (reply, 70, "No shards found");
      return;
   }
   sim_coll_ensure (ctx->db, name);
   sim_reply_ok (reply);
}

/* renameCollection (on admin): within one database; a sharded source is not simulated. */
void
sim_crud_rename_collection (sim_ctx_t *ctx, bson_t *reply)
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
   sim_coll_t *src = sim_coll_get_ns (from);
   if (!src) {
      sim_reply_error (reply, 26, "Source collection %s does not exist", from);
      return;
   }
   if (fdot - from != tdot - to || strncmp (from, to, (size_t) (fdot - from)) != 0) {
      sim_reply_error (reply, 20, "Source and destination collections must be on the same database.");
      return;
   }
   sim_shcoll_t sc;
   bool sharded = sim_shcoll_load (from, &sc);
   sim_shcoll_destroy (&sc);
   if (sharded) {
      if (!sim_ver_ge (50)) {
         sim_reply_error (reply, 20, "Source and destination collections must both be unsharded");
      } else {
         sim_reply_error (reply, 115, "shardsim: renaming a sharded collection is not simulated");
      }
      return;
   }
   sim_coll_t *dst = sim_coll_get_ns (to);
   if (dst && dst != src) {
      if (!sim_bool_field (ctx->cmd, "dropTarget")) {
         sim_reply_error (reply, 48, "target namespace exists");
         return;
      }
      sim_shcoll_t tsc;
      bool tsharded = sim_shcoll_load (to, &tsc);
      sim_shcoll_destroy (&tsc);
      if (tsharded) {
         sim_reply_error (reply, 20, "cannot rename to a sharded collection");
         return;
      }
      sim_coll_drop (dst);
      src = sim_coll_get_ns (from);
   }
   bson_free (src->ns);
   bson_free (src->name);
   src->ns = bson_strdup (to);
   src->name = bson_strdup (tdot + 1);
   sim_reply_ok (reply);
}

/* dropDatabase: every collection of the database (as drop does, with its sharding metadata), then the database's
 * config.databases entry. admin and config cannot be dropped through a mongos. */
void
sim_crud_drop_database (sim_ctx_t *ctx, bson_t *reply)
{
   if (!strcmp (ctx->db, "admin") || !strcmp (ctx->db, "config")) {
      sim_reply_error (reply, 20, "Cannot drop '%s' database via mongos", ctx->db);
      return;
   }
   for (;;) {
      sim_coll_t *c = NULL;
      for (size_t i = 0; i < sim_g.ncolls && !c; i++) {
         if (!strcmp (sim_g.colls[i]->db, ctx->db)) {
            c = sim_g.colls[i];
         }
      }
      if (!c) {
         break;
      }
      bson_t cmd = BSON_INITIALIZER, r = BSON_INITIALIZER;
      BSON_APPEND_UTF8 (&cmd, "drop", c->name);
      sim_ctx_t sub = *ctx;
      sub.cmd = &cmd;
      sim_crud_drop (&sub, &r);
      bson_destroy (&cmd);
      bson_destroy (&r);
   }
   sim_coll_t *dbs = sim_coll_get ("config", "databases");
   if (dbs) {
      bson_t filter = BSON_INITIALIZER;
      sim_hits_t hits = { 0 };
      bson_error_t err;
      BSON_APPEND_UTF8 (&filter, "_id", ctx->db);
      if (sim_coll_match (dbs, &filter, 0, &hits, &err)) {
         sim_coll_delete (dbs, &hits);
      }
      sim_hits_free (&hits);
      bson_destroy (&filter);
   }
   BSON_APPEND_UTF8 (reply, "dropped", ctx->db);
   sim_reply_ok (reply);
}

/* dbStats: the database's collections summed per shard (raw) and in total, divided by scale. */
void
sim_crud_db_stats (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   double scale = 1;
   if (bson_iter_init_find (&it, ctx->cmd, "scale")) {
      if (!BSON_ITER_HOLDS_NUMBER (&it) || bson_iter_as_double (&it) < 1) {
         sim_reply_error (reply, 2, "scale has to be >= 1");
         return;
      }
      scale = (double) bson_iter_as_int64 (&it);
   }
   typedef struct {
      char shard[64];
      int64_t colls, objects, data, indexes;
   } acc_t;
   acc_t *acc = NULL;
   size_t nacc = 0;
   int64_t colls = 0, objects = 0, data = 0, indexes = 0;
   for (size_t i = 0; i < sim_g.ncolls; i++) {
      sim_coll_t *c = sim_g.colls[i];
      if (strcmp (c->db, ctx->db) != 0) {
         continue;
      }
      colls++;
      indexes += (int64_t) c->indexes.n;
      sim_shard_stat_t *st = NULL;
      size_t n = sim_coll_shard_stats (c->ns, &st);
      for (size_t s = 0; s < n; s++) {
         size_t a;
         for (a = 0; a < nacc && strcmp (acc[a].shard, st[s].shard) != 0; a++) {
         }
         if (a == nacc) {
            acc = bson_realloc (acc, (nacc + 1) * sizeof *acc);
            memset (&acc[a], 0, sizeof *acc);
            bson_strncpy (acc[a].shard, st[s].shard, sizeof acc[a].shard);
            nacc++;
         }
         acc[a].colls++;
         acc[a].objects += st[s].count;
         acc[a].data += st[s].size;
         acc[a].indexes += (int64_t) c->indexes.n;
         objects += st[s].count;
         data += st[s].size;
      }
      bson_free (st);
   }
   bson_t raw;
   BSON_APPEND_DOCUMENT_BEGIN (reply, "raw", &raw);
   for (size_t a = 0; a < nacc; a++) {
      bson_t r, sdoc;
      char host[256];
      bson_strncpy (host, acc[a].shard, sizeof host);
      if (sim_shard_get (acc[a].shard, &sdoc)) {
         if (bson_iter_init_find (&it, &sdoc, "host") && BSON_ITER_HOLDS_UTF8 (&it)) {
            bson_strncpy (host, bson_iter_utf8 (&it, NULL), sizeof host);
         }
         bson_destroy (&sdoc);
      }
      BSON_APPEND_DOCUMENT_BEGIN (&raw, host, &r);
      BSON_APPEND_UTF8 (&r, "db", ctx->db);
      BSON_APPEND_INT64 (&r, "collections", acc[a].colls);
      BSON_APPEND_INT64 (&r, "views", 0);
      BSON_APPEND_INT64 (&r, "objects", acc[a].objects);
      BSON_APPEND_DOUBLE (&r, "avgObjSize", acc[a].objects ? (double) acc[a].data / (double) acc[a].objects : 0);
      BSON_APPEND_DOUBLE (&r, "dataSize", (double) acc[a].data / scale);
      BSON_APPEND_DOUBLE (&r, "storageSize", (double) (acc[a].data / 2 + 4096 * acc[a].colls) / scale);
      BSON_APPEND_INT64 (&r, "indexes", acc[a].indexes);
      BSON_APPEND_DOUBLE (&r, "indexSize", (double) (4096 * acc[a].indexes) / scale);
      BSON_APPEND_DOUBLE (&r, "scaleFactor", scale);
      BSON_APPEND_INT32 (&r, "ok", 1);
      bson_append_document_end (&raw, &r);
   }
   bson_append_document_end (reply, &raw);
   BSON_APPEND_UTF8 (reply, "db", ctx->db);
   BSON_APPEND_INT64 (reply, "collections", colls);
   BSON_APPEND_INT64 (reply, "views", 0);
   BSON_APPEND_INT64 (reply, "objects", objects);
   BSON_APPEND_DOUBLE (reply, "avgObjSize", objects ? (double) data / (double) objects : 0);
   BSON_APPEND_DOUBLE (reply, "dataSize", (double) data / scale);
   BSON_APPEND_DOUBLE (reply, "storageSize", (double) (data / 2 + 4096 * colls) / scale);
   BSON_APPEND_INT64 (reply, "indexes", indexes);
   BSON_APPEND_DOUBLE (reply, "indexSize", (double) (4096 * indexes) / scale);
   BSON_APPEND_DOUBLE (reply, "scaleFactor", scale);
   bson_free (acc);
   sim_reply_ok (reply);
}

/* killOp on a mongos: a number is one of its own operations (always ok once authorised); "shard:opid" is forwarded to
 * that shard, whose answer is ignored (ok with shard and shardid). The simulated shards' operations are the balancer's
 * migrations. */
void
sim_crud_kill_op (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   if (!bson_iter_init_find (&it, ctx->cmd, "op")) {
      sim_reply_error (reply, 50759, "Did not provide \"op\" field");
      return;
   }
   if (BSON_ITER_HOLDS_NUMBER (&it)) {
      double v = bson_iter_as_double (&it);
      if (v < INT32_MIN || v > INT32_MAX) {
         sim_reply_error (reply, 26823, "invalid op : %.0f. Op ID cannot be represented with 32 bits", v);
         return;
      }
      sim_reply_ok (reply);
      return;
   }
   if (!BSON_ITER_HOLDS_UTF8 (&it)) {
      sim_reply_error (reply, 50760, "\"op\" field was of unsupported type %d", (int) bson_iter_type (&it));
      return;
   }
   const char *op = bson_iter_utf8 (&it, NULL);
   const char *colon = strchr (op, ':');
   if (strlen (op) < 3 || !colon || colon == op || !colon[1]) {
      sim_reply_error (reply, 28625, "The op argument to killOp must be of the format shardid:opid but found \"%s\"",
                       op);
      return;
   }
   char shard[64];
   bson_snprintf (shard, sizeof shard, "%.*s", (int) (colon - op), op);
   if (!sim_shard_get (shard, NULL)) {
      sim_reply_error (reply, 70, "Shard %s not found", shard);
      return;
   }
   char *end = NULL;
   long long id = strtoll (colon + 1, &end, 10);
   if (!end || *end || id < INT32_MIN || id > INT32_MAX) {
      sim_reply_error (reply, 9, "Failed to parse number '%s' in NumberParser", colon + 1);
      return;
   }
   sim_balancer_kill_op (shard, id);
   BSON_APPEND_UTF8 (reply, "shard", shard);
   BSON_APPEND_INT32 (reply, "shardid", (int32_t) id);
   sim_reply_ok (reply);
}
