/* sh.status's per-collection part: what it prints of one sharded collection (shard key, flags, chunk counts per
 * shard, the first chunks and zone ranges) from mongosh's three reads per collection, or from one aggregate over
 * config.collections for every collection on 5.0+ metadata. status.c runs the phases and prints. */
#include <stdlib.h>
#include <string.h>

#include "commands/exec.h"
#include "commands/config_reads.h"
#include "shell/lib/docget.h"
#include "shell/lib/order.h"
#include "commands/status_coll.h"

/* mongosh's unique / balancing value: !!v, or [ !!v, { <name>: v } ] when v is neither a boolean nor undefined */
static void
append_flag (bson_t *dst, const char *key, const bson_t *coll, const char *field, bool negate)
{
   bson_iter_t it;
   bool v = docget_truthy (coll, field);
   if (bson_iter_init_find (&it, coll, field) && !BSON_ITER_HOLDS_BOOL (&it) && !BSON_ITER_HOLDS_UNDEFINED (&it)) {
      bson_t arr, d;
      BSON_APPEND_ARRAY_BEGIN (dst, key, &arr);
      BSON_APPEND_BOOL (&arr, "0", negate ? !v : v);
      BSON_APPEND_DOCUMENT_BEGIN (&arr, "1", &d);
      bson_append_value (&d, field, -1, bson_iter_value (&it));
      bson_append_document_end (&arr, &d);
      bson_append_array_end (dst, &arr);
   } else {
      BSON_APPEND_BOOL (dst, key, negate ? !v : v);
   }
}

static bool
is_false (const bson_t *doc, const char *field)
{
   bson_iter_t it;
   return bson_iter_init_find (&it, doc, field) && BSON_ITER_HOLDS_BOOL (&it) && !bson_iter_bool (&it);
}

typedef struct {
   bson_value_t shard, n; /* borrowed; n is EOD when absent */
} status_count_t;

/* Orders counts by shard as the server's $sort { shard: 1 } does: shard names (strings) by their bytes, anything
 * else by MongoDB's value order. */
static int
status_count_cmp (const void *a, const void *b)
{
   const bson_value_t *x = &(*(const status_count_t *const *) a)->shard;
   const bson_value_t *y = &(*(const status_count_t *const *) b)->shard;

   if (x->value_type == BSON_TYPE_UTF8 && y->value_type == BSON_TYPE_UTF8) {
      uint32_t xl = x->value.v_utf8.len, yl = y->value.v_utf8.len;
      int c = memcmp (x->value.v_utf8.str, y->value.v_utf8.str, xl < yl ? xl : yl);

      return c != 0 ? (c < 0 ? -1 : 1) : (xl < yl ? -1 : xl > yl);
   }
   return order_values (x, y);
}

/* Appends value under key (key_len bytes), with the usual types (a string, an int32) appended directly. */
static void
status_append_field (bson_t *doc, const char *key, int key_len, const bson_value_t *v)
{
   if (v->value_type == BSON_TYPE_UTF8) {
      bson_append_utf8 (doc, key, key_len, v->value.v_utf8.str, (int) v->value.v_utf8.len);
   } else if (v->value_type == BSON_TYPE_INT32) {
      bson_append_int32 (doc, key, key_len, v->value.v_int32);
   } else {
      bson_append_value (doc, key, key_len, v);
   }
}

/* Appends "chunkMetadata": counts ({ shard, nChunks } or the aggregate's unordered { _id: shard, nChunks }) as
 * { shard, nChunks } in the server's order of the shard values (the $sort { shard: 1 } of mongosh's read). */
static void
status_append_counts (const bson_t *counts, bson_t *res)
{
   bson_t arr, e;
   size_t n = 0, cap = 16;
   status_count_t *v = bson_malloc (cap * sizeof *v), **sorted;
   bson_iter_t it, f;
   bson_iter_init (&it, counts);
   while (bson_iter_next (&it)) {
      bson_t d;
      bool shard = false, id = false, walk;
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d))
         continue;
      if (n == cap) {
         cap *= 2;
         v = bson_realloc (v, cap * sizeof *v);
      }
      v[n].shard.value_type = BSON_TYPE_EOD;
      v[n].n.value_type = BSON_TYPE_EOD;
      /* one pass: the first "shard" (else the first "_id") and the first "nChunks" */
      walk = bson_iter_init (&f, &d);
      while (walk && bson_iter_next (&f)) {
         const char *k = bson_iter_key (&f);
         if (!shard && strcmp (k, "shard") == 0) {
            v[n].shard = *bson_iter_value (&f);
            shard = true;
         } else if (!shard && !id && strcmp (k, "_id") == 0) {
            v[n].shard = *bson_iter_value (&f);
            id = true;
         } else if (v[n].n.value_type == BSON_TYPE_EOD && strcmp (k, "nChunks") == 0) {
            v[n].n = *bson_iter_value (&f);
         }
      }
      n++;
   }
   /* pointers are sorted, not the entries: qsort then moves 8 bytes at a time. Groups already in shard order (a
    * sorted read, a single shard) cost n - 1 comparisons, not a sort; others stop at their first inversion. */
   sorted = bson_malloc ((n ? n : 1) * sizeof *sorted);
   for (size_t i = 0; i < n; i++)
      sorted[i] = &v[i];
   for (size_t i = 1; i < n; i++) {
      if (status_count_cmp (&sorted[i - 1], &sorted[i]) > 0) {
         qsort (sorted, n, sizeof *sorted, status_count_cmp);
         break;
      }
   }
   bson_init (&e);
   bson_append_array_begin (res, "chunkMetadata", 13, &arr);
   for (size_t i = 0; i < n; i++) {
      char k[16];
      const char *kk;
      size_t klen = bson_uint32_to_string ((uint32_t) i, &kk, k, sizeof k);

      bson_reinit (&e);
      if (sorted[i]->shard.value_type != BSON_TYPE_EOD)
         status_append_field (&e, "shard", 5, &sorted[i]->shard);
      if (sorted[i]->n.value_type != BSON_TYPE_EOD)
         status_append_field (&e, "nChunks", 7, &sorted[i]->n);
      bson_append_document (&arr, kk, (int) klen, &e);
   }
   bson_append_array_end (res, &arr);
   bson_destroy (&e);
   bson_free (sorted);
   bson_free (v);
}

/* Phase 5 for one collection: appends "<ns>": { shardKey, unique, balancing, allowMigrations, chunkMetadata,
 * chunks, tags } to colls from rows. */
void
status_collection_render (const bson_t *coll, const status_coll_rows_t *rows, bool verbose, bson_t *colls)
{
   bson_t res, arr;
   bson_iter_t it, f;
   const char *ns = "";
   uint32_t n = 0;

   if (bson_iter_init_find (&it, coll, "_id") && BSON_ITER_HOLDS_UTF8 (&it))
      ns = bson_iter_utf8 (&it, NULL);
   BSON_APPEND_DOCUMENT_BEGIN (colls, ns, &res);
   if (bson_iter_init_find (&it, coll, "key"))
      bson_append_value (&res, "shardKey", -1, bson_iter_value (&it));
   append_flag (&res, "unique", coll, "unique", false);
   append_flag (&res, "balancing", coll, "noBalance", true);
   BSON_APPEND_BOOL (&res, "allowMigrations",
                     !is_false (coll, "permitMigrations") && !is_false (coll, "allowMigrations"));
   status_append_counts (rows->counts, &res);

   BSON_APPEND_ARRAY_BEGIN (&res, "chunks", &arr);
   bson_iter_init (&it, rows->chunks);
   while (bson_iter_next (&it)) {
      bson_t d, entry;
      char k[16];
      const char *kk;
      bson_uint32_to_string (n, &kk, k, sizeof k);
      if (!verbose && n == STATUS_MAX_ROWS) {
         BSON_APPEND_UTF8 (&arr, kk, STATUS_TOO_MANY_CHUNKS);
         break;
      }
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d))
         continue;
      n++;
      BSON_APPEND_DOCUMENT_BEGIN (&arr, kk, &entry);
      static const char *const fields[][2] = {
         { "min", "min" }, { "max", "max" }, { "shard", "on shard" }, { "lastmod", "last modified" }
      };
      for (size_t i = 0; i < 4; i++) {
         if (bson_iter_init_find (&f, &d, fields[i][0]))
            bson_append_value (&entry, fields[i][1], -1, bson_iter_value (&f));
         else
            BSON_APPEND_UNDEFINED (&entry, fields[i][1]);
      }
      if (docget_truthy (&d, "jumbo"))
         BSON_APPEND_UTF8 (&entry, "jumbo", "yes");
      bson_append_document_end (&arr, &entry);
   }
   bson_append_array_end (&res, &arr);

   n = 0;
   BSON_APPEND_ARRAY_BEGIN (&res, "tags", &arr);
   bson_iter_init (&it, rows->tags);
   while (bson_iter_next (&it)) {
      bson_t d, entry;
      char k[16];
      const char *kk;
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d))
         continue;
      bson_uint32_to_string (n++, &kk, k, sizeof k);
      BSON_APPEND_DOCUMENT_BEGIN (&arr, kk, &entry);
      static const char *const tag_fields[] = { "tag", "min", "max" };
      for (size_t i = 0; i < 3; i++) {
         if (bson_iter_init_find (&f, &d, tag_fields[i]))
            bson_append_value (&entry, tag_fields[i], -1, bson_iter_value (&f));
         else
            BSON_APPEND_UNDEFINED (&entry, tag_fields[i]);
      }
      bson_append_document_end (&arr, &entry);
      if (!verbose && n == STATUS_MAX_ROWS) {
         /* mongosh's quirk: exactly 20 ranges already get the message */
         bson_uint32_to_string (n, &kk, k, sizeof k);
         BSON_APPEND_UTF8 (&arr, kk, STATUS_TOO_MANY_TAGS);
         break;
      }
   }
   bson_append_array_end (&res, &arr);
   bson_append_document_end (colls, &res);
}

/* mongosh's three reads of one collection (chunk counts, first chunks, first zone ranges), then the section. */
bool
status_collection (sh_ctx_t *ctx, const char *cfg, const bson_t *coll, bool verbose, bson_t *colls, sh_error_t *err)
{
   bson_t match = BSON_INITIALIZER, counts = BSON_INITIALIZER, chunks = BSON_INITIALIZER, tags = BSON_INITIALIZER;
   bson_t *cmd;
   bson_iter_t it;
   const char *ns = "";
   bool ok = false;

   if (bson_iter_init_find (&it, coll, "_id") && BSON_ITER_HOLDS_UTF8 (&it))
      ns = bson_iter_utf8 (&it, NULL);
   cmd_append_chunks_match (&match, coll);

   cmd = BCON_NEW ("aggregate", BCON_UTF8 ("chunks"), "pipeline", "[", "{", "$match", BCON_DOCUMENT (&match), "}", "{",
                   "$group", "{", "_id", BCON_UTF8 ("$shard"), "cnt", "{", "$sum", BCON_INT32 (1), "}", "}", "}", "{",
                   "$project", "{", "_id", BCON_INT32 (0), "shard", BCON_UTF8 ("$_id"), "nChunks", BCON_UTF8 ("$cnt"),
                   "}", "}", "{", "$sort", "{", "shard", BCON_INT32 (1), "}", "}", "]", "cursor", "{", "}");
   if (!cmd_run_docs (ctx, cfg, cmd, 0, &counts, err))
      goto done;
   cmd = BCON_NEW ("find", BCON_UTF8 ("chunks"), "filter", BCON_DOCUMENT (&match), "sort", "{", "min", BCON_INT32 (1),
                   "}");
   if (!cmd_run_docs (ctx, cfg, cmd, verbose ? 0 : STATUS_MAX_ROWS + 1, &chunks, err))
      goto done;
   cmd = BCON_NEW ("find", BCON_UTF8 ("tags"), "filter", "{", "ns", BCON_UTF8 (ns), "}", "sort", "{", "min",
                   BCON_INT32 (1), "}");
   if (!cmd_run_docs (ctx, cfg, cmd, verbose ? 0 : STATUS_MAX_ROWS, &tags, err))
      goto done;
   status_collection_render (coll, &(status_coll_rows_t){ &counts, &chunks, &tags }, verbose, colls);
   ok = true;
done:
   bson_destroy (&match);
   bson_destroy (&counts);
   bson_destroy (&chunks);
   bson_destroy (&tags);
   return ok;
}

/* True when the one-aggregate path can stand in for status_collection's reads: not verbose (every chunk could pass
 * 16 MB in one document), and every sharded collection has 5.0+ metadata (a timestamp, so chunks are matched by
 * uuid, and $lookup takes localField/foreignField with a pipeline). */
bool
status_can_aggregate (const bson_t *collections, bool verbose)
{
   bson_iter_t it, f;
   if (verbose || bson_count_keys (collections) == 0)
      return false;
   bson_iter_init (&it, collections);
   while (bson_iter_next (&it)) {
      bson_t c;
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &c) || !bson_iter_init_find (&f, &c, "timestamp") ||
          !bson_iter_init_find (&f, &c, "uuid"))
         return false;
   }
   return true;
}

/* One aggregate over config.collections instead of three reads per collection: for each sharded collection (by _id),
 * its chunk counts per shard ({ _id: shard, nChunks }, unordered: status_append_counts orders them, not the server
 * over every collection's groups), its first STATUS_MAX_ROWS + 1 chunks by min and its first STATUS_MAX_ROWS zone
 * ranges, each a $lookup whose equality uses config.chunks' { uuid, … } and config.tags' { ns, min } indexes. docs
 * receives { _id, counts, chunks, tags } per collection, in _id order. */
bool
status_aggregate_rows (sh_ctx_t *ctx, const char *cfg, bson_t *docs, sh_error_t *err)
{
   bson_t *cmd = BCON_NEW (
      "aggregate", BCON_UTF8 ("collections"), "pipeline", "[", "{", "$match", "{", "dropped", "{", "$ne",
      BCON_BOOL (true), "}", "unsplittable", "{", "$ne", BCON_BOOL (true), "}", "}", "}", "{", "$sort", "{", "_id",
      BCON_INT32 (1), "}", "}", "{", "$project", "{", "_id", BCON_INT32 (1), "uuid", BCON_INT32 (1), "}", "}", "{",
      "$lookup", "{", "from", BCON_UTF8 ("chunks"), "localField", BCON_UTF8 ("uuid"), "foreignField",
      BCON_UTF8 ("uuid"), "pipeline", "[", "{", "$group", "{", "_id", BCON_UTF8 ("$shard"), "nChunks", "{", "$sum",
      BCON_INT32 (1), "}", "}", "}", "]", "as", BCON_UTF8 ("counts"), "}", "}", "{", "$lookup", "{", "from",
      BCON_UTF8 ("chunks"), "localField", BCON_UTF8 ("uuid"), "foreignField", BCON_UTF8 ("uuid"), "pipeline", "[", "{",
      "$sort", "{", "min", BCON_INT32 (1), "}", "}", "{", "$limit", BCON_INT32 (STATUS_MAX_ROWS + 1), "}", "{",
      "$project", "{", "_id", BCON_INT32 (0), "min", BCON_INT32 (1), "max", BCON_INT32 (1), "shard", BCON_INT32 (1),
      "lastmod", BCON_INT32 (1), "jumbo", BCON_INT32 (1), "}", "}", "]", "as", BCON_UTF8 ("chunks"), "}", "}", "{",
      "$lookup", "{", "from", BCON_UTF8 ("tags"), "localField", BCON_UTF8 ("_id"), "foreignField", BCON_UTF8 ("ns"),
      "pipeline", "[", "{", "$sort", "{", "min", BCON_INT32 (1), "}", "}", "{", "$limit", BCON_INT32 (STATUS_MAX_ROWS),
      "}", "{", "$project", "{", "_id", BCON_INT32 (0), "tag", BCON_INT32 (1), "min", BCON_INT32 (1), "max",
      BCON_INT32 (1), "}", "}", "]", "as", BCON_UTF8 ("tags"), "}", "}", "{", "$project", "{", "uuid", BCON_INT32 (0),
      "}", "}", "]", "cursor", "{", "}");
   return cmd_run_docs (ctx, cfg, cmd, 0, docs, err);
}

static int
status_rows_entry_cmp (const void *a, const void *b)
{
   return strcmp (((const status_rows_entry_t *) a)->ns, ((const status_rows_entry_t *) b)->ns);
}

void
status_rows_index_init (status_rows_index_t *ix, const bson_t *docs)
{
   bson_iter_t it, f;
   bool sorted = true;

   ix->n = 0;
   ix->v = bson_malloc ((bson_count_keys (docs) + 1) * sizeof *ix->v);
   bson_iter_init (&it, docs);
   while (bson_iter_next (&it)) {
      bson_t d;
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) || !bson_iter_init_find (&f, &d, "_id") ||
          !BSON_ITER_HOLDS_UTF8 (&f))
         continue;
      ix->v[ix->n].ns = bson_iter_utf8 (&f, NULL);
      ix->v[ix->n].data = bson_get_data (&d);
      ix->v[ix->n].len = d.len;
      if (ix->n > 0 && strcmp (ix->v[ix->n - 1].ns, ix->v[ix->n].ns) > 0)
         sorted = false;
      ix->n++;
   }
   /* the aggregate sorts by _id already (and _id is unique); a reply that is not sorted is sorted here */
   if (!sorted)
      qsort (ix->v, ix->n, sizeof *ix->v, status_rows_entry_cmp);
}

void
status_rows_index_destroy (status_rows_index_t *ix)
{
   bson_free (ix->v);
   ix->v = NULL;
   ix->n = 0;
}

bool
status_find_rows (const status_rows_index_t *ix, const char *ns, status_coll_rows_t *rows, bson_t *counts,
                  bson_t *chunks, bson_t *tags)
{
   size_t lo = 0, hi = ix->n;
   bson_t d;

   /* the first entry whose ns is not below ns */
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (strcmp (ix->v[mid].ns, ns) < 0)
         lo = mid + 1;
      else
         hi = mid;
   }
   if (lo == ix->n || strcmp (ix->v[lo].ns, ns) != 0 || !bson_init_static (&d, ix->v[lo].data, ix->v[lo].len))
      return false;
   if (!docget_sub (&d, "counts", BSON_TYPE_ARRAY, counts) || !docget_sub (&d, "chunks", BSON_TYPE_ARRAY, chunks) ||
       !docget_sub (&d, "tags", BSON_TYPE_ARRAY, tags))
      return false;
   *rows = (status_coll_rows_t){ counts, chunks, tags };
   return true;
}
