/* sh.explainBalance's zone probes (explain_zones.h): per zone range of the collection, the chunks straddling its
 * bounds, the chunks inside it on shards outside the zone, and, for a zone no shard can take chunks for, its chunks
 * on the draining shards (commands/stuck.h). Bounded: two finds with limit 1 and one or two grouped counts. */
#include <string.h>

#include "commands/table.h"
#include "commands/exec.h"
#include "commands/explain_zones.h"
#include "commands/stuck.h"
#include "shell/lib/docget.h"

/* The shards whose tags hold zone, as an array under key. */
static void
exz_append_zone_shards (bson_t *doc, const char *key, const bson_t *shards, const char *zone)
{
   bson_t arr;
   bson_iter_t it, t;
   uint32_t n = 0;
   BSON_APPEND_ARRAY_BEGIN (doc, key, &arr);
   if (bson_iter_init (&it, shards)) {
      while (bson_iter_next (&it)) {
         bson_t sd;
         const char *id;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &sd) || !(id = docget_utf8 (&sd, "_id", NULL)) ||
             !bson_iter_init_find (&t, &sd, "tags") || !BSON_ITER_HOLDS_ARRAY (&t))
            continue;
         bson_iter_t a;
         bson_iter_recurse (&t, &a);
         while (bson_iter_next (&a)) {
            if (BSON_ITER_HOLDS_UTF8 (&a) && !strcmp (bson_iter_utf8 (&a, NULL), zone)) {
               char key2[16];
               const char *k;
               bson_uint32_to_string (n++, &k, key2, sizeof key2);
               BSON_APPEND_UTF8 (&arr, k, id);
            }
         }
      }
   }
   bson_append_array_end (doc, &arr);
}

/* Runs the grouped count of coll's chunks inside [zmin, zmax] per shard into docs (the caller destroys docs on every
 * path): aggregate on config.chunks, $match the range, then $group { _id: "$shard", n: { $sum: 1 } }. With nin (may
 * be NULL) the match also holds shard: { $nin: <the array under "s" in nin> }, an empty condition when it has none. */
static bool
exz_count_in_range (sh_ctx_t *ctx, const bson_t *coll, const bson_t *zmin, const bson_t *zmax, const bson_t *nin,
                    bson_t *docs, sh_error_t *err)
{
   bson_t cmd = BSON_INITIALIZER, pipeline, stage, match, sub, group, acc;
   bson_iter_t it;
   BSON_APPEND_UTF8 (&cmd, "aggregate", "chunks");
   BSON_APPEND_ARRAY_BEGIN (&cmd, "pipeline", &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "0", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$match", &match);
   cmd_append_chunks_match (&match, coll);
   BSON_APPEND_DOCUMENT_BEGIN (&match, "min", &sub);
   BSON_APPEND_DOCUMENT (&sub, "$gte", zmin);
   bson_append_document_end (&match, &sub);
   BSON_APPEND_DOCUMENT_BEGIN (&match, "max", &sub);
   BSON_APPEND_DOCUMENT (&sub, "$lte", zmax);
   bson_append_document_end (&match, &sub);
   if (nin) {
      BSON_APPEND_DOCUMENT_BEGIN (&match, "shard", &sub);
      if (bson_iter_init_find (&it, nin, "s"))
         bson_append_value (&sub, "$nin", -1, bson_iter_value (&it));
      bson_append_document_end (&match, &sub);
   }
   bson_append_document_end (&stage, &match);
   bson_append_document_end (&pipeline, &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "1", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$group", &group);
   BSON_APPEND_UTF8 (&group, "_id", "$shard");
   BSON_APPEND_DOCUMENT_BEGIN (&group, "n", &acc);
   BSON_APPEND_INT32 (&acc, "$sum", 1);
   bson_append_document_end (&group, &acc);
   bson_append_document_end (&stage, &group);
   bson_append_document_end (&pipeline, &stage);
   bson_append_array_end (&cmd, &pipeline);
   cmd_append_empty (&cmd, "cursor");
   bool ran = conn_run_docs (ctx, "config", &cmd, CONN_READ, 0, docs, NULL, err);
   bson_destroy (&cmd);
   return ran;
}

/* For a zone range without a shard that could take its chunks: { noRecipient: true, drainingChunks: { <shard>: n } }
 * into entry, n the chunks inside [zmin, zmax) on each draining shard (one grouped count). */
static bool
exz_probe_dead_zone (sh_ctx_t *ctx, const bson_t *coll, const bson_t *shards, const bson_t *zmin, const bson_t *zmax,
                     bson_t *entry, sh_error_t *err)
{
   bson_t docs, per;
   bson_iter_t it;
   bool ran = exz_count_in_range (ctx, coll, zmin, zmax, NULL, &docs, err);
   BSON_APPEND_BOOL (entry, "noRecipient", true);
   BSON_APPEND_DOCUMENT_BEGIN (entry, "drainingChunks", &per);
   if (ran && bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it)) {
         bson_t d;
         const char *id;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) || !(id = docget_utf8 (&d, "_id", NULL)))
            continue;
         /* only the draining shards' chunks: a shard of the zone that does not drain keeps its own */
         if (stuck_recipients (shards, NULL, NULL, NULL, 0) == 0 || stuck_shard_draining (shards, id))
            cmd_append_number (&per, id, docget_double (&d, "n", 0, NULL));
      }
   }
   bson_append_document_end (entry, &per);
   bson_destroy (&docs);
   return ran;
}

/* Probes one zone range: chunks straddling its min or max (find, limit 1 each) and chunks inside it on shards outside
 * the zone (grouped by shard). Appends { zone, min, max, straddling: [bound…], outside, outsideShard } to zones. */
bool
explain_probe_zone (sh_ctx_t *ctx, const bson_t *coll, const bson_t *shards, const bson_t *tag, bson_t *zones,
                    uint32_t i, sh_error_t *err)
{
   bson_t zmin, zmax, entry, straddling, zone_shards = BSON_INITIALIZER;
   const char *zone = docget_utf8 (tag, "tag", NULL);
   char key[16];
   const char *k;
   uint32_t ns = 0;
   bool ok = false, straddling_open = true;
   if (!zone || !docget_sub (tag, "min", BSON_TYPE_DOCUMENT, &zmin) ||
       !docget_sub (tag, "max", BSON_TYPE_DOCUMENT, &zmax)) {
      bson_destroy (&zone_shards);
      return true;
   }
   exz_append_zone_shards (&zone_shards, "s", shards, zone);
   bson_uint32_to_string (i, &k, key, sizeof key);
   BSON_APPEND_DOCUMENT_BEGIN (zones, k, &entry);
   BSON_APPEND_UTF8 (&entry, "zone", zone);
   BSON_APPEND_DOCUMENT (&entry, "min", &zmin);
   BSON_APPEND_DOCUMENT (&entry, "max", &zmax);
   BSON_APPEND_ARRAY_BEGIN (&entry, "straddling", &straddling);
   for (int b = 0; b < 2; b++) {
      const bson_t *bound = b ? &zmax : &zmin;
      bson_t cmd = BSON_INITIALIZER, filter, lt, gt, docs;
      bool found = false;
      BSON_APPEND_UTF8 (&cmd, "find", "chunks");
      BSON_APPEND_DOCUMENT_BEGIN (&cmd, "filter", &filter);
      cmd_append_chunks_match (&filter, coll);
      BSON_APPEND_DOCUMENT_BEGIN (&filter, "min", &lt);
      BSON_APPEND_DOCUMENT (&lt, "$lt", bound);
      bson_append_document_end (&filter, &lt);
      BSON_APPEND_DOCUMENT_BEGIN (&filter, "max", &gt);
      BSON_APPEND_DOCUMENT (&gt, "$gt", bound);
      bson_append_document_end (&filter, &gt);
      bson_append_document_end (&cmd, &filter);
      BSON_APPEND_INT32 (&cmd, "limit", 1);
      bool ran = conn_run_docs (ctx, "config", &cmd, CONN_READ, 1, &docs, NULL, err);
      found = ran && !bson_empty (&docs);
      bson_destroy (&cmd);
      bson_destroy (&docs);
      if (!ran)
         goto done;
      if (found) {
         bson_uint32_to_string (ns++, &k, key, sizeof key);
         BSON_APPEND_DOCUMENT (&straddling, k, bound);
      }
   }
   bson_append_array_end (&entry, &straddling);
   straddling_open = false;
   /* chunks inside the range on a shard outside the zone */
   {
      bson_t docs, first;
      bool ran = exz_count_in_range (ctx, coll, &zmin, &zmax, &zone_shards, &docs, err);
      if (!ran) {
         bson_destroy (&docs);
         goto done;
      }
      double outside = 0;
      bson_iter_t d;
      bool named = false;
      bson_iter_init (&d, &docs);
      while (bson_iter_next (&d)) {
         if (docget_iter_sub (&d, BSON_TYPE_DOCUMENT, &first)) {
            outside += docget_double (&first, "n", 0, NULL);
            if (!named && docget_utf8 (&first, "_id", NULL)) {
               BSON_APPEND_UTF8 (&entry, "outsideShard", docget_utf8 (&first, "_id", NULL));
               named = true;
            }
         }
      }
      cmd_append_number (&entry, "outside", outside);
      bson_destroy (&docs);
   }
   /* a zone no shard can take chunks for: its chunks on draining shards, which cannot leave (stuck.h) */
   if (stuck_recipients (shards, zone, NULL, NULL, 0) == 0 &&
       !exz_probe_dead_zone (ctx, coll, shards, &zmin, &zmax, &entry, err))
      goto done;
   ok = true;
done:
   if (straddling_open)
      bson_append_array_end (&entry, &straddling);
   bson_append_document_end (zones, &entry);
   bson_destroy (&zone_shards);
   return ok;
}
