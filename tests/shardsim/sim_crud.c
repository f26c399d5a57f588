/* shardsim's read commands on any database: find/getMore/killCursors with real cursors, count and distinct, and the
 * helpers the other document commands share (sim_crud.h: cursors, latency counters, argument readers). Matching,
 * sorting and projection come from the simq engine. Callers hold sim_g.lock. */
#include "tests/shardsim/sim_admin.h"
#include "tests/shardsim/sim_crud.h"

#include <stdlib.h>
#include <string.h>

#define SIM_BATCH_BYTES (16 * 1024 * 1024 - 16 * 1024)

/* The collection named by the command's first field; false (error replied) when it is not a string. */
bool
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

void
sim_reply_simq_error (bson_t *reply, const bson_error_t *err)
{
   sim_reply_error (reply, err->code ? (int) err->code : 2, "%s", err->message);
}

/* Generic arguments besides sim_admin.c's list that drivers send inside transactions and retryable writes. */
static bool
sim_generic_more (const char *k)
{
   static const char *const more[] = {
      "autocommit",         "startTransaction",      "stmtId", "$audit", "$client", "txnRetryCounter",
      "clientOperationKey", "mayBypassWriteBlocking"
   };
   for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) {
      if (!strcmp (k, more[i])) {
         return true;
      }
   }
   return sim_generic_arg (k);
}

bool
sim_strict_fields (sim_ctx_t *ctx, bson_t *reply, const char *const *known, const char *const *objects)
{
   bson_iter_t it;
   bson_iter_init (&it, ctx->cmd);
   bson_iter_next (&it);
   const char *cmd = bson_iter_key (&it);
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      bool found = sim_generic_more (k);
      for (size_t i = 0; known[i] && !found; i++) {
         found = !strcmp (k, known[i]);
      }
      if (!found) {
         sim_reply_error (reply, 40415, "BSON field '%s.%s' is an unknown field.", cmd, k);
         return false;
      }
      for (size_t i = 0; objects && objects[i]; i++) {
         if (!strcmp (k, objects[i]) && !BSON_ITER_HOLDS_DOCUMENT (&it)) {
            sim_reply_error (reply, 14, "BSON field '%s.%s' is the wrong type '%s', expected type 'object'", cmd, k,
                             simq_type_name (bson_iter_type (&it)));
            return false;
         }
      }
   }
   return true;
}

/* find's own fields (find_command.idl, FindCommandRequest; 4.4's QueryRequest::makeFromFindCommand takes the same
 * names), and those that must be documents. */
static const char *const sim_find_fields[] = { "filter",
                                               "projection",
                                               "sort",
                                               "hint",
                                               "collation",
                                               "skip",
                                               "limit",
                                               "batchSize",
                                               "ntoreturn",
                                               "singleBatch",
                                               "allowDiskUse",
                                               "min",
                                               "max",
                                               "returnKey",
                                               "showRecordId",
                                               "$queryOptions",
                                               "tailable",
                                               "oplogReplay",
                                               "noCursorTimeout",
                                               "awaitData",
                                               "allowPartialResults",
                                               "let",
                                               "options",
                                               "term",
                                               "readOnce",
                                               "allowSpeculativeMajorityRead",
                                               "$_requestResumeToken",
                                               "$_resumeAfter",
                                               "$_startAt",
                                               "runtimeConstants",
                                               "collectionUUID",
                                               "shardVersion",
                                               "databaseVersion",
                                               "includeQueryStatsMetrics",
                                               "querySettings",
                                               "$_internalReadAtClusterTime",
                                               "encryptionInformation",
                                               "rawData",
                                               NULL };
static const char *const sim_find_objects[] = { "filter", "projection", "sort", "collation", "min", "max", NULL };

/* Two index key patterns equal as the server's BSONObj woCompare finds them: the same names in the same order, numbers
 * by value. */
static bool
sim_key_equal (const bson_t *a, const bson_t *b)
{
   bson_iter_t x, y;
   bool nx, ny;
   if (!bson_iter_init (&x, a) || !bson_iter_init (&y, b)) {
      return false;
   }
   while ((nx = bson_iter_next (&x)) & (ny = bson_iter_next (&y))) {
      if (strcmp (bson_iter_key (&x), bson_iter_key (&y)) != 0) {
         return false;
      }
      if (BSON_ITER_HOLDS_NUMBER (&x) && BSON_ITER_HOLDS_NUMBER (&y)) {
         if (bson_iter_as_double (&x) != bson_iter_as_double (&y)) {
            return false;
         }
      } else if (!BSON_ITER_HOLDS_UTF8 (&x) || !BSON_ITER_HOLDS_UTF8 (&y) ||
                 strcmp (bson_iter_utf8 (&x, NULL), bson_iter_utf8 (&y, NULL)) != 0) {
         return false;
      }
   }
   return nx == ny;
}

/* A find's or count's hint against coll's indexes, as the query planner takes it
 * (query_planner.cpp, QueryPlannerIXSelect::findIndexesByHint): a name, a key pattern, { $natural: ... } or {} (no
 * hint); a hidden index is not one. False (error replied: 2 BadValue) when it names no index. The server's message is
 * prefixed by the canonical query's own text ("error processing query: ns=... planner returned error :: caused by
 * ::"), which this does not render. */
static bool
sim_hint_ok (const sim_coll_t *coll, const bson_t *cmd, bson_t *reply)
{
   bson_iter_t it;
   bson_t hint;
   const char *name = NULL;
   if (!coll || !bson_iter_init_find (&it, cmd, "hint")) {
      return true;
   }
   if (BSON_ITER_HOLDS_UTF8 (&it)) {
      name = bson_iter_utf8 (&it, NULL);
   } else if (BSON_ITER_HOLDS_DOCUMENT (&it) && docget_sub (cmd, "hint", BSON_TYPE_DOCUMENT, &hint)) {
      if (bson_empty (&hint) || bson_has_field (&hint, "$natural")) {
         return true;
      }
   } else {
      return true;
   }
   for (size_t i = 0; i < coll->indexes.n; i++) {
      const bson_t *spec = coll->indexes.v[i];
      bson_t key;
      if (docget_bool (spec, "hidden")) {
         continue;
      }
      if (name ? !strcmp (docget_utf8 (spec, "name", ""), name)
               : docget_sub (spec, "key", BSON_TYPE_DOCUMENT, &key) && sim_key_equal (&key, &hint)) {
         return true;
      }
   }
   sim_reply_error (reply, 2, "hint provided does not correspond to an existing index");
   return false;
}

/* find's strict parsing: 5.0+ the IDL's 40415 and 14; 4.4 QueryRequest's 9 FailedToParse and 14. */
static bool
sim_find_args_ok (sim_ctx_t *ctx, bson_t *reply)
{
   if (sim_ver_ge (50)) {
      return sim_strict_fields (ctx, reply, sim_find_fields, sim_find_objects);
   }
   bson_iter_t it;
   bson_iter_init (&it, ctx->cmd);
   bson_iter_next (&it);
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      bool found = sim_generic_more (k);
      for (size_t i = 0; sim_find_fields[i] && !found; i++) {
         found = !strcmp (k, sim_find_fields[i]);
      }
      bson_t one = BSON_INITIALIZER;
      bson_append_iter (&one, k, -1, &it);
      char *s = sim_bson_str (found ? &one : ctx->cmd);
      size_t n = strlen (s);
      bool object = false;
      for (size_t i = 0; sim_find_objects[i] && !object; i++) {
         object = !strcmp (k, sim_find_objects[i]);
      }
      if (!found) {
         sim_reply_error (reply, 9, "Failed to parse: %s. Unrecognized field '%s'.", s, k);
      } else if (object && !BSON_ITER_HOLDS_DOCUMENT (&it)) {
         s[n >= 4 ? n - 2 : n] = '\0'; /* "{ filter: 1 }" -> "filter: 1" (BSONElement::toString) */
         sim_reply_error (reply, 14, "Failed to parse: %s. '%s' field must be of BSON type object.", n >= 4 ? s + 2 : s,
                          k);
      }
      bson_free (s);
      bson_destroy (&one);
      if (!found || (object && !BSON_ITER_HOLDS_DOCUMENT (&it))) {
         return false;
      }
   }
   return true;
}

char *
sim_dupkey_errmsg (const sim_coll_t *coll, const sim_dupkey_t *dup)
{
   char *key = sim_bson_str (&dup->key_value);
   char *msg =
      bson_strdup_printf ("E11000 duplicate key error collection: %s index: %s dup key: %s", coll->ns, dup->index, key);
   bson_free (key);
   return msg;
}

void
sim_dupkey_append_info (bson_t *out, const sim_dupkey_t *dup)
{
   BSON_APPEND_DOCUMENT (out, "keyPattern", &dup->key_pattern);
   BSON_APPEND_DOCUMENT (out, "keyValue", &dup->key_value);
}

void
sim_reply_dupkey_error (bson_t *reply, const sim_coll_t *coll, const sim_dupkey_t *dup, const char *prefix)
{
   char *msg = sim_dupkey_errmsg (coll, dup);
   sim_reply_error (reply, 11000, "%s%s", prefix ? prefix : "", msg);
   sim_dupkey_append_info (reply, dup);
   bson_free (msg);
}

/* Records a read (0), write (1) or command (2) for $collStats latencyStats on the shards owning ns's data. */
void
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
void
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
void
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
   if (!sim_target (ctx, reply, &name) || !sim_find_args_ok (ctx, reply)) {
      goto cleanup;
   }
   ns = bson_strdup_printf ("%s.%s", ctx->db, name);
   bool have_filter = docget_sub (ctx->cmd, "filter", BSON_TYPE_EOD, &filter);
   bool have_sort = docget_sub (ctx->cmd, "sort", BSON_TYPE_EOD, &sort) && !bson_empty (&sort);
   bool have_proj = docget_sub (ctx->cmd, "projection", BSON_TYPE_EOD, &proj) && !bson_empty (&proj);
   int64_t skip = docget_int (ctx->cmd, "skip", 0);
   int64_t limit = docget_int (ctx->cmd, "limit", 0);
   int64_t batch = docget_int (ctx->cmd, "batchSize", -1);
   bool single = docget_bool (ctx->cmd, "singleBatch");
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
   if (!sim_hint_ok (coll, ctx->cmd, reply)) {
      goto cleanup;
   }
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
         sim_hits_destroy (&hits);
         sim_reply_simq_error (reply, &err);
         goto cleanup;
      }
      for (size_t i = 0; i < hits.n; i++) {
         bson_t view;
         sim_coll_view (coll, hits.v[i], &view);
         simq_docs_push_copy (&docs, &view);
      }
      sim_hits_destroy (&hits);
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
sim_cmd_find (sim_ctx_t *ctx, bson_t *reply)
{
   sim_stop_watch (ctx->conn);
   sim_crud_find_run (ctx, reply);
   sim_stop_unwatch ();
}

/* ---- getMore / killCursors ---- */

void
sim_cmd_get_more (sim_ctx_t *ctx, bson_t *reply)
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
   int64_t batch = docget_int (ctx->cmd, "batchSize", 0);
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
sim_cmd_kill_cursors (sim_ctx_t *ctx, bson_t *reply)
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
   bool have_query = docget_sub (ctx->cmd, "query", BSON_TYPE_EOD, &query);
   int64_t skip = docget_int (ctx->cmd, "skip", 0);
   int64_t limit = docget_int (ctx->cmd, "limit", 0);
   sim_coll_t *coll = sim_coll_get (ctx->db, name);
   int64_t n = 0;
   if (!sim_hint_ok (coll, ctx->cmd, reply)) {
      goto cleanup;
   }
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
   sim_hits_destroy (&hits);
}

/* A read-only command: abandoned when its client goes away (sim_stop.c). */
void
sim_cmd_count (sim_ctx_t *ctx, bson_t *reply)
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
   bool have_query = docget_sub (ctx->cmd, "query", BSON_TYPE_EOD, &query);
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
sim_cmd_distinct (sim_ctx_t *ctx, bson_t *reply)
{
   sim_stop_watch (ctx->conn);
   sim_crud_distinct_run (ctx, reply);
   sim_stop_unwatch ();
}

/* ---- writes ---- */

/* ---- catalog ---- */

/* ---- findAndModify, index and catalog changes, dbStats, killOp (the mongos's replies, 4.4 to 8.0) ---- */
