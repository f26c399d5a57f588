/* The diff of collections (docs/desired-state.md): zone ranges, each compared whole (namespace, min, max, zone), and
 * the per-collection settings; the costs shown with the expensive changes (a reshard rewrites the whole collection,
 * a drain moves every chunk of the shard). */
#include <stdio.h>
#include <string.h>

#include "commands/commands.h"
#include "shell/core/conn.h"
#include "shell/core/output.h"
#include "shell/desired/diff_int.h"
#include "shell/lib/docget.h"
#include "shell/lib/order.h"

static bool
dc_range_in (const bson_t *ranges, const bson_t *min, const bson_t *max, const char *zone)
{
   bson_iter_t it;
   if (!bson_iter_init (&it, ranges))
      return false;
   while (bson_iter_next (&it)) {
      bson_t r, mn, mx;
      if (docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &r) && docget_sub (&r, "min", BSON_TYPE_DOCUMENT, &mn) &&
          docget_sub (&r, "max", BSON_TYPE_DOCUMENT, &mx) && order_docs (&mn, min) == 0 && order_docs (&mx, max) == 0 &&
          !strcmp (docget_utf8 (&r, "zone", ""), zone))
         return true;
   }
   return false;
}

/* The ranges of from (of ns) missing in to: removed (remove) or added. */
static void
dc_ranges_missing (diff_t *d, const char *ns, const bson_t *from, const bson_t *to, bool remove, int *count)
{
   bson_iter_t it;
   bson_iter_init (&it, from);
   while (bson_iter_next (&it)) {
      bson_t r, mn, mx;
      const char *zone;
      char a[1024], b[1024];
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &r) || !docget_sub (&r, "min", BSON_TYPE_DOCUMENT, &mn) ||
          !docget_sub (&r, "max", BSON_TYPE_DOCUMENT, &mx) || !(zone = docget_utf8 (&r, "zone", NULL)) ||
          dc_range_in (to, &mn, &mx, zone))
         continue;
      if (count) {
         (*count)++;
         continue;
      }
      output_format_doc_line (&mn, a, sizeof a);
      output_format_doc_line (&mx, b, sizeof b);
      if (remove)
         diff_add (d, false, NULL, "sh.removeRangeFromZone('%s', %s, %s)", ns, a, b);
      else
         diff_add (d, false, NULL, "sh.updateZoneKeyRange('%s', %s, %s, '%s')", ns, a, b, zone);
   }
}

void
diff_ranges (diff_t *d, const bson_t *want, const bson_t *have, int *removals)
{
   static const bson_t empty = BSON_INITIALIZER;
   for (int pass = 0; pass < (removals ? 1 : 2); pass++) {
      bson_iter_t it;
      bson_iter_init (&it, want);
      while (bson_iter_next (&it)) {
         bson_t wc, hc, wz, hz;
         const char *ns = bson_iter_key (&it);
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &wc) || !docget_sub (&wc, "zones", BSON_TYPE_ARRAY, &wz))
            continue;
         if (!diff_field (have, ns, BSON_TYPE_DOCUMENT, &hc) || !docget_sub (&hc, "zones", BSON_TYPE_ARRAY, &hz))
            hz = empty;
         if (pass == 0)
            dc_ranges_missing (d, ns, &hz, &wz, true, removals);
         else
            dc_ranges_missing (d, ns, &wz, &hz, false, NULL);
      }
   }
}

/* Documents and bytes of ns by dataSize over the whole collection (-1 when unknown). */
static void
dc_coll_size (diff_t *d, const char *ns, int64_t *docs, int64_t *bytes)
{
   bson_t cmd = BSON_INITIALIZER, reply;
   sh_error_t err;
   *docs = *bytes = -1;
   BSON_APPEND_UTF8 (&cmd, "dataSize", ns);
   sh_error_clear (&err);
   if (conn_run (d->ctx, "admin", &cmd, CONN_ADMIN, &reply, &err)) {
      *docs = docget_int (&reply, "numObjects", -1);
      *bytes = docget_int (&reply, "size", -1);
   }
   bson_destroy (&reply);
   bson_destroy (&cmd);
}

static void
dc_key (diff_t *d, const char *ns, const bson_t *wc, const bson_t *hc, bool sharded)
{
   bson_t key;
   char k[1024], note[1200], sz[32], stmt[1200];
   int64_t docs, bytes;
   if (!docget_sub (wc, "key", BSON_TYPE_DOCUMENT, &key))
      return;
   output_format_doc_line (&key, k, sizeof k);
   if (!sharded) {
      diff_add (d, false, NULL, "sh.shardCollection('%s', %s, %s)", ns, k,
                docget_bool (wc, "unique") ? "true" : "false");
      return;
   }
   if (!diff_differs (wc, hc, "key"))
      return;
   dc_coll_size (d, ns, &docs, &bytes);
   cmd_format_bytes ((double) (bytes < 0 ? 0 : bytes), sz, sizeof sz);
   if (docs < 0)
      bson_snprintf (note, sizeof note, "resharding %s to %s rewrites the whole collection (size unknown)", ns, k);
   else
      bson_snprintf (note, sizeof note, "resharding %s to %s rewrites the whole collection: %lld docs, %s", ns, k,
                     (long long) docs, sz);
   bson_snprintf (stmt, sizeof stmt, "sh.reshardCollection('%s', %s)", ns, k);
   diff_add_expensive (d, docget_bool (wc, "allowReshard"), "allowReshard: true", note, stmt);
}

void
diff_collections (diff_t *d, const bson_t *want, const bson_t *have)
{
   bson_iter_t it;
   bson_iter_init (&it, want);
   while (bson_iter_next (&it)) {
      bson_t wc, hc;
      const char *ns = bson_iter_key (&it);
      bool sharded;
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &wc))
         continue;
      sharded = diff_field (have, ns, BSON_TYPE_DOCUMENT, &hc) && diff_field (&hc, "key", BSON_TYPE_DOCUMENT, NULL);
      dc_key (d, ns, &wc, &hc, sharded);
      if (!sharded)
         continue;
      if (diff_differs (&wc, &hc, "balancing"))
         diff_add (d, false, NULL, "sh.%sBalancing('%s')", docget_bool (&wc, "balancing") ? "enable" : "disable", ns);
      if (diff_differs (&wc, &hc, "chunkSizeMB"))
         diff_add (d, false, NULL, "db.adminCommand({ configureCollectionBalancing: '%s', chunkSize: %d })", ns,
                   (int) docget_int (&wc, "chunkSizeMB", 0));
      if (diff_differs (&wc, &hc, "allowMigrations"))
         diff_add (d, false, NULL, "sh.%sMigrations('%s')", docget_bool (&wc, "allowMigrations") ? "enable" : "disable",
                   ns);
      if (diff_differs (&wc, &hc, "autoMerge"))
         diff_add (d, false, NULL, "sh.%sAutoMerger('%s')", docget_bool (&wc, "autoMerge") ? "enable" : "disable", ns);
   }
}

void
diff_cost_drain (diff_t *d, const char *id, char *note, size_t len)
{
   bson_t cmd = BSON_INITIALIZER, q, reply;
   sh_error_t err;
   int64_t n = -1;
   BSON_APPEND_UTF8 (&cmd, "count", "chunks");
   BSON_APPEND_DOCUMENT_BEGIN (&cmd, "query", &q);
   BSON_APPEND_UTF8 (&q, "shard", id);
   bson_append_document_end (&cmd, &q);
   sh_error_clear (&err);
   if (conn_run (d->ctx, "config", &cmd, CONN_READ, &reply, &err))
      n = docget_int (&reply, "n", -1);
   bson_destroy (&reply);
   bson_destroy (&cmd);
   if (n < 0)
      bson_snprintf (note, len, "draining %s moves every chunk it holds (--diff's plan sizes them)", id);
   else
      bson_snprintf (note, len, "draining %s moves its %lld chunks to the other shards (--diff's plan sizes them)", id,
                     (long long) n);
}
