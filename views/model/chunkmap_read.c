/* The chunk map's reader (see chunkmap_read.h): six bounded queries of config.* through the session's connection,
 * turned into the chunk map's ranges, zones and replay events. */
#include "views/model/chunkmap_read.h"

#include <stdlib.h>
#include <string.h>

#include "shell/core/conn.h"
#include "shell/core/output.h"
#include "shell/lib/clock.h"
#include "shell/lib/docget.h"
#include "shell/lib/order.h"

/* A growing list of owned copies of documents (chunks of a sample, before they are sorted). */
typedef struct {
   bson_t **v;
   size_t n, cap;
} chunkmap_docs_t;

typedef struct {
   chunkmap_data_t *d;
   char **tags;          /* the zone names config.shards' tags give, not all of them this collection's zones */
   uint64_t *tag_shards; /* per name in tags: the shards (bitmask over the first 64) whose tags name it */
   size_t ntags;
   chunkmap_docs_t docs;
   bson_t key; /* the collection's shard key: an event whose bounds have other fields was of an older key */
} chunkmap_reading_t;

/* Whether bound has the fields of key, in key's order (a range of this incarnation of the collection, not of the
 * key it had before a resharding or a refine). */
static bool
chunkmap_same_fields (const bson_t *bound, const bson_t *key)
{
   bson_iter_t a, b;
   if (!bson_iter_init (&a, bound) || !bson_iter_init (&b, key)) {
      return false;
   }
   while (bson_iter_next (&b)) {
      if (!bson_iter_next (&a) || strcmp (bson_iter_key (&a), bson_iter_key (&b)) != 0) {
         return false;
      }
   }
   return !bson_iter_next (&a);
}

/* The index of name in list[0, n), or -1. */
static int
chunkmap_index (char **list, size_t n, const char *name)
{
   for (size_t i = 0; i < n; i++) {
      if (!strcmp (list[i], name)) {
         return (int) i;
      }
   }
   return -1;
}

/* The index of name, added to the list when new. */
static int
chunkmap_intern (char ***list, size_t *n, const char *name)
{
   int i = chunkmap_index (*list, *n, name);
   if (i >= 0) {
      return i;
   }
   *list = bson_realloc (*list, (*n + 1) * sizeof **list);
   (*list)[*n] = bson_strdup (name);
   return (int) (*n)++;
}

/* The shard mask of tag name (added, with no shard, when new). The legend's zones are the collection's own, interned
 * when one of its ranges names them; the shards' tags may name zones of every collection. */
static uint64_t *
chunkmap_tag (chunkmap_reading_t *r, const char *name)
{
   size_t n = r->ntags;
   int i = chunkmap_intern (&r->tags, &r->ntags, name);
   if (r->ntags != n) {
      r->tag_shards = bson_realloc (r->tag_shards, r->ntags * sizeof *r->tag_shards);
      r->tag_shards[i] = 0;
   }
   return &r->tag_shards[i];
}

/* Each zone named in a shard's tags allows that shard. */
static void
chunkmap_zone_shards (chunkmap_reading_t *r, const bson_t *shard_doc)
{
   bson_t tags;
   bson_iter_t it;
   int s = chunkmap_index (r->d->shards, r->d->nshards, docget_utf8 (shard_doc, "_id", ""));
   if (s < 0 || s >= 64 || !docget_sub (shard_doc, "tags", BSON_TYPE_ARRAY, &tags) || !bson_iter_init (&it, &tags)) {
      return;
   }
   while (bson_iter_next (&it)) {
      if (BSON_ITER_HOLDS_UTF8 (&it)) {
         *chunkmap_tag (r, bson_iter_utf8 (&it, NULL)) |= (uint64_t) 1 << s;
      }
   }
}

/* One config.shards document: the shard's index, and the zones its tags allow it in. */
static bool
chunkmap_on_shard (void *data, const bson_t *doc)
{
   chunkmap_reading_t *r = data;
   chunkmap_intern (&r->d->shards, &r->d->nshards, docget_utf8 (doc, "_id", ""));
   chunkmap_zone_shards (r, doc);
   return true;
}

static bool
chunkmap_keep_doc (void *data, const bson_t *doc)
{
   chunkmap_docs_t *docs = &((chunkmap_reading_t *) data)->docs;
   if (docs->n == docs->cap) {
      docs->cap = docs->cap ? docs->cap * 2 : 256;
      docs->v = bson_realloc (docs->v, docs->cap * sizeof *docs->v);
   }
   docs->v[docs->n++] = bson_copy (doc);
   return true;
}

static void
chunkmap_docs_destroy (chunkmap_docs_t *docs)
{
   for (size_t i = 0; i < docs->n; i++) {
      bson_destroy (docs->v[i]);
   }
   bson_free (docs->v);
   memset (docs, 0, sizeof *docs);
}

static int
chunkmap_min_cmp (const void *a, const void *b)
{
   bson_t ma, mb;
   const bson_t *x = *(const bson_t *const *) a, *y = *(const bson_t *const *) b;
   if (!docget_sub (x, "min", BSON_TYPE_DOCUMENT, &ma) || !docget_sub (y, "min", BSON_TYPE_DOCUMENT, &mb)) {
      return 0;
   }
   return order_keys (&ma, &mb);
}

/* One chunk document into the map (in key order). */
static bool
chunkmap_on_chunk (void *data, const bson_t *doc)
{
   chunkmap_reading_t *r = data;
   bson_t min, max;
   int s = chunkmap_index (r->d->shards, r->d->nshards, docget_utf8 (doc, "shard", ""));
   if (s < 0) {
      s = chunkmap_intern (&r->d->shards, &r->d->nshards, docget_utf8 (doc, "shard", "?"));
   }
   if (docget_sub (doc, "min", BSON_TYPE_DOCUMENT, &min) && docget_sub (doc, "max", BSON_TYPE_DOCUMENT, &max)) {
      chunkmap_add_range (r->d->map, &min, &max, s, docget_bool (doc, "jumbo") ? CHUNKMAP_JUMBO : 0);
   }
   return true;
}

static bool
chunkmap_on_zone (void *data, const bson_t *doc)
{
   chunkmap_reading_t *r = data;
   bson_t min, max;
   const char *name = docget_utf8 (doc, "tag", "");
   int z = chunkmap_intern (&r->d->zones, &r->d->nzones, name);
   uint64_t allowed = *chunkmap_tag (r, name); /* 0: a zone no shard is in */
   if (docget_sub (doc, "min", BSON_TYPE_DOCUMENT, &min) && docget_sub (doc, "max", BSON_TYPE_DOCUMENT, &max)) {
      chunkmap_add_zone (r->d->map, &min, &max, z, allowed);
   }
   return true;
}

/* Adds an event with its range as mongosh prints it. */
static void
chunkmap_log_event (chunkmap_reading_t *r, int64_t t, chunkmap_kind_t kind, const bson_t *min, const bson_t *max,
                    int from, int to)
{
   char a[256], b[256], text[520];
   output_format_doc_line (min, a, sizeof a);
   output_format_doc_line (max, b, sizeof b);
   bson_snprintf (text, sizeof text, "%s -> %s", a, b);
   chunkmap_add_event (r->d->map, t, kind, min, max, from, to, text);
}

/* A changelog event: moveChunk.commit (details min, max, from, to), split / multi-split (details.before) or merge
 * (details min and max, else the first and last of details.merged). */
static bool
chunkmap_on_event (void *data, const bson_t *doc)
{
   chunkmap_reading_t *r = data;
   const char *what = docget_utf8 (doc, "what", "");
   bson_iter_t it;
   bson_t min, max, merged, first, last;
   int64_t t = 0;
   chunkmap_kind_t kind;
   int from = -1, to = -1;
   bool have = false;

   if (docget_iter (doc, "time", &it) && BSON_ITER_HOLDS_DATE_TIME (&it)) {
      t = bson_iter_date_time (&it);
   }
   if (!strcmp (what, "moveChunk.commit")) {
      kind = CHUNKMAP_MOVE;
      from = chunkmap_intern (&r->d->shards, &r->d->nshards, docget_utf8 (doc, "details.from", "?"));
      to = chunkmap_intern (&r->d->shards, &r->d->nshards, docget_utf8 (doc, "details.to", "?"));
      have = docget_sub (doc, "details.min", BSON_TYPE_DOCUMENT, &min) &&
             docget_sub (doc, "details.max", BSON_TYPE_DOCUMENT, &max);
   } else if (!strcmp (what, "split") || !strcmp (what, "multi-split")) {
      kind = CHUNKMAP_SPLIT;
      have = docget_sub (doc, "details.before.min", BSON_TYPE_DOCUMENT, &min) &&
             docget_sub (doc, "details.before.max", BSON_TYPE_DOCUMENT, &max);
   } else {
      kind = CHUNKMAP_MERGE;
      have = docget_sub (doc, "details.min", BSON_TYPE_DOCUMENT, &min) &&
             docget_sub (doc, "details.max", BSON_TYPE_DOCUMENT, &max);
      if (!have && docget_sub (doc, "details.merged", BSON_TYPE_ARRAY, &merged)) {
         uint32_t n = bson_count_keys (&merged);
         char k[16];
         bson_snprintf (k, sizeof k, "%u.min", 0u);
         if (n && docget_sub (&merged, k, BSON_TYPE_DOCUMENT, &first) && chunkmap_same_fields (&first, &r->key)) {
            bson_snprintf (k, sizeof k, "%u.max", n - 1);
            if (docget_sub (&merged, k, BSON_TYPE_DOCUMENT, &last)) {
               chunkmap_log_event (r, t, kind, &first, &last, -1, -1);
               return true;
            }
         }
      }
   }
   if (have && chunkmap_same_fields (&min, &r->key)) {
      chunkmap_log_event (r, t, kind, &min, &max, from, to);
   }
   return true;
}

/* Runs a find or aggregate on config and hands each document to fn. */
static bool
chunkmap_each (sh_ctx_t *ctx, bson_t *cmd, conn_doc_fn fn, chunkmap_reading_t *r, sh_error_t *err)
{
   bool ok = conn_run_each (ctx, "config", cmd, CONN_READ, fn, r, NULL, err);
   bson_destroy (cmd);
   return ok;
}

void
chunkmap_chunk_filter (const bson_t *coll, const char *ns, bson_t *filter)
{
   bson_iter_t it;
   bson_init (filter);
   if (docget_iter (coll, "uuid", &it) && BSON_ITER_HOLDS_BINARY (&it) && docget_iter (coll, "timestamp", &it)) {
      docget_iter (coll, "uuid", &it);
      bson_append_iter (filter, "uuid", 4, &it);
   } else {
      BSON_APPEND_UTF8 (filter, "ns", ns);
   }
}

static bool
chunkmap_on_coll (void *data, const bson_t *doc)
{
   chunkmap_keep_doc (data, doc);
   return false;
}

static bool
chunkmap_on_count (void *data, const bson_t *doc)
{
   ((chunkmap_reading_t *) data)->d->chunks = docget_int (doc, "n", 0);
   return false;
}

/* Reads the collection's chunks: all of them in key order up to limit, else a random sample of limit sorted here. */
static bool
chunkmap_read_chunks (sh_ctx_t *ctx, const bson_t *filter, size_t limit, chunkmap_reading_t *r, sh_error_t *err)
{
   bson_t *cmd = BCON_NEW ("aggregate", "chunks", "pipeline", "[", "{", "$match", BCON_DOCUMENT (filter), "}", "{",
                           "$count", "n", "}", "]", "cursor", "{", "}");
   if (!chunkmap_each (ctx, cmd, chunkmap_on_count, r, err)) {
      return false;
   }
   r->d->sampled = r->d->chunks > (int64_t) limit;
   if (!r->d->sampled) {
      cmd = BCON_NEW ("find", "chunks", "filter", BCON_DOCUMENT (filter), "sort", "{", "min", BCON_INT32 (1), "}",
                      "projection", "{", "min", BCON_INT32 (1), "max", BCON_INT32 (1), "shard", BCON_INT32 (1), "jumbo",
                      BCON_INT32 (1), "}");
      return chunkmap_each (ctx, cmd, chunkmap_on_chunk, r, err);
   }
   cmd =
      BCON_NEW ("aggregate", "chunks", "pipeline", "[", "{", "$match", BCON_DOCUMENT (filter), "}", "{", "$sample", "{",
                "size", BCON_INT64 ((int64_t) limit), "}", "}", "{", "$project", "{", "min", BCON_INT32 (1), "max",
                BCON_INT32 (1), "shard", BCON_INT32 (1), "jumbo", BCON_INT32 (1), "}", "}", "]", "cursor", "{", "}");
   if (!chunkmap_each (ctx, cmd, chunkmap_keep_doc, r, err)) {
      return false;
   }
   qsort (r->docs.v, r->docs.n, sizeof *r->docs.v, chunkmap_min_cmp);
   for (size_t i = 0; i < r->docs.n; i++) {
      chunkmap_on_chunk (r, r->docs.v[i]);
   }
   chunkmap_docs_destroy (&r->docs);
   return true;
}

bool
chunkmap_read (sh_ctx_t *ctx, const char *ns, size_t limit, int64_t since_ms, chunkmap_data_t *out, sh_error_t *err)
{
   chunkmap_reading_t r = { .d = out };
   bson_t *cmd, filter, key;
   bson_iter_t it;
   bool ok = false;

   bson_init (&r.key);
   memset (out, 0, sizeof *out);
   out->map = chunkmap_new ();
   out->read_ms = clock_wall_ms ();
   cmd = BCON_NEW ("find", "shards", "sort", "{", "_id", BCON_INT32 (1), "}");
   if (!chunkmap_each (ctx, cmd, chunkmap_on_shard, &r, err)) {
      goto done;
   }
   out->nlisted = out->nshards;
   cmd = BCON_NEW ("find", "collections", "filter", "{", "_id", BCON_UTF8 (ns), "}", "limit", BCON_INT32 (1));
   if (!chunkmap_each (ctx, cmd, chunkmap_on_coll, &r, err)) {
      goto done;
   }
   if (!r.docs.n || docget_bool (r.docs.v[0], "dropped") ||
       !docget_sub (r.docs.v[0], "key", BSON_TYPE_DOCUMENT, &key)) {
      sh_error_set (err, SH_ERR_ARGS, "%s is not a sharded collection", ns);
      goto done;
   }
   {
      char buf[256];
      output_format_doc_line (&key, buf, sizeof buf);
      out->key = bson_strdup (buf);
      bson_copy_to_excluding_noinit (&key, &r.key, "", NULL);
   }
   /* the replay stops where this incarnation began (shardCollection, a resharding or a refine gives the collection a
    * new timestamp, 5.0+; before, a new lastmodEpoch): the events before it are of another key's ranges */
   if (docget_iter (r.docs.v[0], "timestamp", &it) && BSON_ITER_HOLDS_TIMESTAMP (&it)) {
      uint32_t ts, inc;
      bson_iter_timestamp (&it, &ts, &inc);
      since_ms = (int64_t) ts * 1000 > since_ms ? (int64_t) ts * 1000 : since_ms;
   } else if (docget_iter (r.docs.v[0], "lastmodEpoch", &it) && BSON_ITER_HOLDS_OID (&it)) {
      int64_t epoch_ms = (int64_t) bson_oid_get_time_t (bson_iter_oid (&it)) * 1000;
      since_ms = epoch_ms > since_ms ? epoch_ms : since_ms;
   }
   chunkmap_chunk_filter (r.docs.v[0], ns, &filter);
   chunkmap_docs_destroy (&r.docs);
   ok = chunkmap_read_chunks (ctx, &filter, limit ? limit : 1, &r, err);
   bson_destroy (&filter);
   if (!ok) {
      goto done;
   }
   if (chunkmap_ranges (out->map)) {
      bson_t lo, hi, x;
      char buf[256];
      chunkmap_bounds (out->map, 0, &lo, &x);
      output_format_doc_line (&lo, buf, sizeof buf);
      out->low = bson_strdup (buf);
      chunkmap_bounds (out->map, chunkmap_ranges (out->map) - 1, &x, &hi);
      output_format_doc_line (&hi, buf, sizeof buf);
      out->high = bson_strdup (buf);
   }
   cmd = BCON_NEW ("find", "tags", "filter", "{", "ns", BCON_UTF8 (ns), "}", "sort", "{", "min", BCON_INT32 (1), "}");
   ok = chunkmap_each (ctx, cmd, chunkmap_on_zone, &r, err);
   if (!ok) {
      goto done;
   }
   cmd = BCON_NEW ("find", "changelog", "filter", "{", "ns", BCON_UTF8 (ns), "time", "{", "$gt",
                   BCON_DATE_TIME (since_ms), "}", "what", "{", "$in", "[", BCON_UTF8 ("moveChunk.commit"),
                   BCON_UTF8 ("split"), BCON_UTF8 ("multi-split"), BCON_UTF8 ("merge"), "]", "}", "}", "sort", "{",
                   "time", BCON_INT32 (-1), "}", "limit", BCON_INT32 (CHUNKMAP_READ_EVENTS));
   ok = chunkmap_each (ctx, cmd, chunkmap_on_event, &r, err);
done:
   bson_destroy (&r.key);
   chunkmap_docs_destroy (&r.docs);
   for (size_t i = 0; i < r.ntags; i++) {
      bson_free (r.tags[i]);
   }
   bson_free (r.tags);
   bson_free (r.tag_shards);
   if (!ok) {
      chunkmap_data_destroy (out);
   }
   return ok;
}
