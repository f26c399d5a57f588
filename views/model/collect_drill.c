/* The collector's drill-down: one collection's chunk list and zones, and the sizes of the chunks on screen
 * (dataSize, a few per refresh, kept across refreshes). */
#include <mongoc/mongoc.h>
#include <stdlib.h>
#include <string.h>

#include "views/model/chunkmap_read.h"
#include "views/model/collect_int.h"
#include "shell/lib/docget.h"
#include "shell/lib/order.h"
#include "shell/lib/clock.h"
#include "shell/core/output.h"

/* ---- drill-down ---- */

/* The marks of one chunk of the drill-down: the collection's hot key range (from the last sample's judgement), a
 * migration in flight (the last sample's list), and its size when dataSize gave one. */
static void
chunk_marks (collect_t *c, const char *ns, snap_chunk_t *ch)
{
   const snap_t *p = &c->prev;
   ch->docs = ch->bytes = -1;
   for (size_t i = 0; i < p->ncolls; i++) {
      const snap_coll_t *co = &p->colls[i];
      if (strcmp (co->ns, ns) != 0 || !co->has_hot_range)
         continue;
      ch->hot =
         !strcmp (ch->min, snap_coll_end (co, !strcmp (co->hot_range_end, "MaxKey") ? SNAP_TOP_MIN : SNAP_BOTTOM_MIN));
   }
   for (size_t i = 0; i < p->nmigs; i++) /* bounds too long to keep as JSON: by the min's text */
      if (!strcmp (p->migs[i].ns, ns) && !p->migs[i].min_json[0] && !p->migs[i].max_json[0] &&
          !strcmp (p->migs[i].min, ch->min))
         bson_strncpy (ch->moving_to, p->migs[i].to, sizeof ch->moving_to);
   for (size_t i = 0; i < c->nsizes; i++)
      if (!strcmp (c->sizes[i].min, ch->min)) {
         ch->docs = c->sizes[i].docs;
         ch->bytes = c->sizes[i].bytes;
         break;
      }
}

/* The migrations in flight of one collection with their bounds parsed (NULL: not given), for the chunk list. */
typedef struct {
   bson_t *min[SNAP_MIGRATIONS];
   bson_t *max[SNAP_MIGRATIONS];
   const char *to[SNAP_MIGRATIONS];
   size_t n;
} drill_migs_t;

static void
drill_migs_init (drill_migs_t *m, const snap_t *p, const char *ns)
{
   memset (m, 0, sizeof *m);
   for (size_t i = 0; i < p->nmigs && m->n < SNAP_MIGRATIONS; i++) {
      const snap_migration_t *g = &p->migs[i];
      if (strcmp (g->ns, ns) != 0 || (!g->min_json[0] && !g->max_json[0]))
         continue;
      m->min[m->n] = g->min_json[0] ? bson_new_from_json ((const uint8_t *) g->min_json, -1, NULL) : NULL;
      m->max[m->n] = g->max_json[0] ? bson_new_from_json ((const uint8_t *) g->max_json, -1, NULL) : NULL;
      m->to[m->n++] = g->to;
   }
}

static void
drill_migs_destroy (drill_migs_t *m)
{
   for (size_t i = 0; i < m->n; i++) {
      if (m->min[i])
         bson_destroy (m->min[i]);
      if (m->max[i])
         bson_destroy (m->max[i]);
   }
   m->n = 0;
}

/* Marks the chunk [mn, mx) as moving when a migration's range overlaps it; a moveRange that gave only its min moves
 * the chunk holding it, one that gave only its max the chunk ending there. */
static void
drill_migs_mark (const drill_migs_t *m, const bson_t *mn, const bson_t *mx, snap_chunk_t *ch)
{
   for (size_t i = 0; i < m->n; i++) {
      const bson_t *a = m->min[i], *b = m->max[i];
      bool in;
      if (a && b)
         in = order_keys (mn, b) < 0 && order_keys (a, mx) < 0;
      else if (a)
         in = order_keys (mn, a) <= 0 && order_keys (a, mx) < 0;
      else if (b)
         in = order_keys (mn, b) < 0 && order_keys (b, mx) <= 0;
      else
         in = false;
      if (in) {
         bson_strncpy (ch->moving_to, m->to[i], sizeof ch->moving_to);
         return;
      }
   }
}

/* The length of a raw BSON document (its little-endian int32 prefix). */
static uint32_t
raw_len (const uint8_t *p)
{
   return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

/* The cache entry for a chunk's min (created when absent). */
static drill_size_t *
size_entry (collect_t *c, const char *min)
{
   for (size_t i = 0; i < c->nsizes; i++)
      if (!strcmp (c->sizes[i].min, min))
         return &c->sizes[i];
   c->sizes = realloc (c->sizes, (c->nsizes + 1) * sizeof *c->sizes);
   if (!c->sizes)
      abort ();
   memset (&c->sizes[c->nsizes], 0, sizeof *c->sizes);
   bson_strncpy (c->sizes[c->nsizes].min, min, sizeof c->sizes[0].min);
   c->sizes[c->nsizes].docs = c->sizes[c->nsizes].bytes = -1;
   return &c->sizes[c->nsizes++];
}

typedef struct {
   size_t row;
   int64_t read_at; /* 0: never read */
} size_pick_t;

static int
size_pick_cmp (const void *a, const void *b)
{
   const size_pick_t *x = a, *y = b;
   if (x->read_at != y->read_at)
      return x->read_at < y->read_at ? -1 : 1;
   return (x->row > y->row) - (x->row < y->row);
}

bool
collect_chunk_sizes (collect_t *c, snap_chunks_t *chunks, const size_t *rows, size_t n)
{
   int mi = collect_find_meta (c->meta, c->nmeta, chunks->ns);
   size_pick_t *picks;
   char db[SNAP_NAME];
   const char *coll;
   sh_error_t err;
   bool ok = true;

   (void) coll;
   if (mi < 0 || strcmp (c->drill_ns, chunks->ns) != 0 || !n)
      return mi >= 0;
   sh_error_clear (&err);
   c->deadline_mono_ms = clock_mono_ms () + (int64_t) (c->opts.interval_s * 500.0) + 1000;
   collect_split_ns (chunks->ns, db, sizeof db, &coll);
   picks = collect_calloc (n, sizeof *picks);
   for (size_t i = 0; i < n; i++) {
      picks[i].row = rows[i];
      picks[i].read_at = rows[i] < chunks->nchunks ? size_entry (c, chunks->chunks[rows[i]].min)->read_at : 0;
   }
   /* never read first, then the oldest readings */
   qsort (picks, n, sizeof *picks, size_pick_cmp);
   for (size_t k = 0; k < n && k < COLLECT_CHUNK_SIZES_PER_REFRESH && ok; k++) {
      size_t r = picks[k].row;
      bson_t mn, mx, reply;
      bson_t *cmd;
      drill_size_t *e;
      if (r >= chunks->nchunks || r >= c->ndrill || !c->drill_min[r])
         continue;
      bson_init_static (&mn, c->drill_min[r], raw_len (c->drill_min[r]));
      bson_init_static (&mx, c->drill_max[r], raw_len (c->drill_max[r]));
      cmd = BCON_NEW ("dataSize", BCON_UTF8 (chunks->ns), "keyPattern", BCON_DOCUMENT (&c->meta[mi].key), "min",
                      BCON_DOCUMENT (&mn), "max", BCON_DOCUMENT (&mx), "estimate", BCON_BOOL (true));
      if (collect_run_cmd (c, db, cmd, &reply, &err)) {
         e = size_entry (c, chunks->chunks[r].min);
         e->docs = chunks->chunks[r].docs = docget_int (&reply, "numObjects", -1);
         e->bytes = chunks->chunks[r].bytes = docget_int (&reply, "size", -1);
         e->read_at = ++c->size_reads;
      } else {
         /* a refusal (an old server, no privilege) leaves the sizes unknown and asks no more this time */
         ok = !collect_fatal (&err);
         sh_error_clear (&err);
         k = n;
      }
      bson_destroy (cmd);
      bson_destroy (&reply);
   }
   free (picks);
   return ok;
}

bool
collect_chunks (collect_t *c, const char *ns, snap_chunks_t *out)
{
   bson_t *chunks_cmd = NULL, *tags_cmd = NULL;
   bson_t filter = BSON_INITIALIZER;
   bson_t chunks, tags;
   bson_iter_t it;
   sh_error_t err;
   int mi = collect_find_meta (c->meta, c->nmeta, ns);
   drill_migs_t migs;
   uint32_t n;
   bool ok = false;

   drill_migs_init (&migs, &c->prev, ns);
   snap_chunks_destroy (out);
   bson_strncpy (out->ns, ns, sizeof out->ns);
   collect_free_drill (c, strcmp (c->drill_ns, ns) != 0);
   bson_strncpy (c->drill_ns, ns, sizeof c->drill_ns);
   bson_init (&chunks);
   bson_init (&tags);
   sh_error_clear (&err);
   if (mi < 0) {
      bson_strncpy (out->error, "unknown collection (not in the last sample)", sizeof out->error);
      goto done;
   }
   c->deadline_mono_ms = clock_mono_ms () + (int64_t) (c->opts.interval_s * 500.0) + 1000;
   collect_append_chunk_coll (&filter, c->meta[mi].by_uuid && c->meta[mi].has_uuid ? "uuid" : "ns", &c->meta[mi]);
   chunks_cmd = BCON_NEW ("find", "chunks", "filter", BCON_DOCUMENT (&filter), "sort", "{", "min", BCON_INT32 (1), "}",
                          "projection", "{", "min", BCON_INT32 (1), "max", BCON_INT32 (1), "shard", BCON_INT32 (1),
                          "jumbo", BCON_INT32 (1), "}", "limit", BCON_INT64 ((int64_t) c->opts.chunk_limit + 1));
   tags_cmd =
      BCON_NEW ("find", "tags", "filter", "{", "ns", BCON_UTF8 (ns), "}", "sort", "{", "min", BCON_INT32 (1), "}");
   bson_destroy (&tags);
   if (!collect_run_docs (c, "config", tags_cmd, COLLECT_TAGS_MAX, &tags, &err))
      goto done;
   n = bson_count_keys (&tags);
   out->zones = collect_calloc (n, sizeof *out->zones);
   if (bson_iter_init (&it, &tags)) {
      while (bson_iter_next (&it)) {
         snap_zone_t *z = &out->zones[out->nzones];
         bson_t d, mn, mx;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) || !docget_sub (&d, "min", BSON_TYPE_EOD, &mn) ||
             !docget_sub (&d, "max", BSON_TYPE_EOD, &mx))
            continue;
         output_format_doc_line (&mn, z->min, sizeof z->min);
         output_format_doc_line (&mx, z->max, sizeof z->max);
         bson_strncpy (z->zone, docget_utf8 (&d, "tag", ""), sizeof z->zone);
         for (size_t s = 0; s < c->prev.nshards; s++) {
            if (!collect_shard_in_zone (&c->prev.shards[s], z->zone))
               continue;
            if (z->shards[0])
               strncat (z->shards, ",", sizeof z->shards - strlen (z->shards) - 1);
            strncat (z->shards, c->prev.shards[s].name, sizeof z->shards - strlen (z->shards) - 1);
         }
         out->nzones++;
      }
   }
   bson_destroy (&chunks);
   if (!collect_run_docs (c, "config", chunks_cmd, c->opts.chunk_limit + 1, &chunks, &err))
      goto done;
   n = bson_count_keys (&chunks);
   out->chunks = collect_calloc (n, sizeof *out->chunks);
   c->drill_min = collect_calloc (n, sizeof *c->drill_min);
   c->drill_max = collect_calloc (n, sizeof *c->drill_max);
   if (bson_iter_init (&it, &chunks)) {
      while (bson_iter_next (&it)) {
         snap_chunk_t *ch;
         bson_t d, mn;
         bson_iter_t tz;
         if (out->nchunks >= c->opts.chunk_limit) {
            out->truncated = true;
            break;
         }
         ch = &out->chunks[out->nchunks];
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) || !docget_sub (&d, "min", BSON_TYPE_EOD, &mn))
            continue;
         output_format_doc_line (&mn, ch->min, sizeof ch->min);
         {
            bson_t mx;
            if (!docget_sub (&d, "max", BSON_TYPE_EOD, &mx))
               continue;
            output_format_doc_line (&mx, ch->max, sizeof ch->max);
            c->drill_min[out->nchunks] = bson_malloc (mn.len);
            memcpy (c->drill_min[out->nchunks], bson_get_data (&mn), mn.len);
            c->drill_max[out->nchunks] = bson_malloc (mx.len);
            memcpy (c->drill_max[out->nchunks], bson_get_data (&mx), mx.len);
            c->ndrill = out->nchunks + 1;
            chunk_marks (c, ns, ch);
            drill_migs_mark (&migs, &mn, &mx, ch);
         }
         bson_strncpy (ch->shard, docget_utf8 (&d, "shard", "?"), sizeof ch->shard);
         ch->jumbo = docget_bool (&d, "jumbo");
         /* the zone whose range holds the chunk's min */
         if (bson_iter_init (&tz, &tags)) {
            while (bson_iter_next (&tz)) {
               bson_t t, zmin, zmax;
               if (!docget_iter_sub (&tz, BSON_TYPE_DOCUMENT, &t) || !docget_sub (&t, "min", BSON_TYPE_EOD, &zmin) ||
                   !docget_sub (&t, "max", BSON_TYPE_EOD, &zmax))
                  continue;
               if (order_keys (&mn, &zmin) >= 0 && order_keys (&mn, &zmax) < 0) {
                  int si = snap_shard_index (&c->prev, ch->shard);
                  bson_strncpy (ch->zone, docget_utf8 (&t, "tag", ""), sizeof ch->zone);
                  ch->out_of_zone = si >= 0 && !collect_shard_in_zone (&c->prev.shards[si], ch->zone);
                  break;
               }
            }
         }
         out->nchunks++;
      }
   }
   ok = true;
done:
   if (!ok && !out->error[0])
      bson_strncpy (out->error, err.message[0] ? err.message : "fetch failed", sizeof out->error);
   if (chunks_cmd)
      bson_destroy (chunks_cmd);
   if (tags_cmd)
      bson_destroy (tags_cmd);
   bson_destroy (&filter);
   bson_destroy (&chunks);
   bson_destroy (&tags);
   drill_migs_destroy (&migs);
   return ok;
}

bool
collect_chunkmap (collect_t *c, const char *ns, chunkmap_data_t *out, char *error, size_t len)
{
   sh_error_t err;
   bool ok;

   chunkmap_data_destroy (out);
   sh_error_clear (&err);
   ok = chunkmap_read (c->ctx, ns, COLLECT_MAP_RANGES, clock_wall_ms () - COLLECT_MAP_HOURS * 3600 * 1000LL, out, &err);
   if (!ok) {
      bson_strncpy (error, err.message[0] ? err.message : "the chunk map could not be read", len);
      return false;
   }
   /* the hot range the last sample judged, if this collection has one */
   for (size_t i = 0; c->have_prev && i < c->prev.ncolls; i++) {
      const snap_coll_t *co = &c->prev.colls[i];
      bson_t *min;
      if (strcmp (co->ns, ns) != 0 || !co->has_hot_range || !snap_coll_hot_min_json (co)[0]) {
         continue;
      }
      if ((min = bson_new_from_json ((const uint8_t *) snap_coll_hot_min_json (co), -1, NULL))) {
         chunkmap_mark (out->map, min, NULL, CHUNKMAP_HOT);
         bson_destroy (min);
      }
   }
   return true;
}
