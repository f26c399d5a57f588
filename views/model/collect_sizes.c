/* The collector's sizes and counters: $shardedDataDistribution (6.0.3+), $collStats per collection (latency
 * counters, and sizes before 6.0.3), and the ends of a ranged collection's key space (where inserts land). */
#include <mongoc/mongoc.h>
#include <stdlib.h>
#include <string.h>

#include "shell/lib/checked.h"
#include "views/model/collect_int.h"
#include "shell/lib/docget.h"
#include "shell/lib/order.h"
#include "shell/lib/clock.h"

/* Splits "db.coll.name" at the first dot. */
void
collect_split_ns (const char *ns, char *db, size_t dblen, const char **coll)
{
   const char *dot = strchr (ns, '.');
   size_t l = dot ? (size_t) (dot - ns) : strlen (ns);
   if (l >= dblen)
      l = dblen - 1;
   memcpy (db, ns, l);
   db[l] = '\0';
   *coll = dot ? dot + 1 : "";
}

/* Whether co holds exactly the sizes v[0..n) (sorted by shard, none empty). */
static bool
same_sizes (const snap_coll_t *co, const snap_cell_t *v, size_t n)
{
   size_t m, k = 0;
   const snap_cell_t *c = snap_coll_cells (co, &m);
   for (size_t i = 0; i < m; i++) {
      if (!c[i].data_bytes && !c[i].docs)
         continue;
      if (k == n || c[i].shard != v[k].shard || c[i].data_bytes != v[k].data_bytes || c[i].docs != v[k].docs)
         return false;
      k++;
   }
   return k == n;
}

static int
cmp_cell_shard (const void *a, const void *b)
{
   const snap_cell_t *x = a, *y = b;
   return (x->shard > y->shard) - (x->shard < y->shard);
}

/* Replaces co's sizes and documents with v[0..n) (its chunk counts stay). Leaves co's cells as they are, and shared,
 * when they already hold those figures. */
static void
set_sizes (snap_coll_t *co, snap_cell_t *v, size_t n)
{
   size_t m;
   snap_cell_t *c;
   qsort (v, n, sizeof *v, cmp_cell_shard);
   if (same_sizes (co, v, n))
      return;
   c = snap_coll_cells_mut (co, &m);
   for (size_t i = 0; i < m; i++)
      c[i].data_bytes = c[i].docs = 0;
   for (size_t i = 0; i < n; i++) {
      snap_cell_t *x = snap_coll_cell_add (co, v[i].shard);
      x->data_bytes = v[i].data_bytes;
      x->docs = v[i].docs;
   }
   snap_coll_tidy (co);
}

/* What the $shardedDataDistribution reply is folded into: the collections it covers, marked as their document
 * arrives, and one collection's figures while its document is read. */
typedef struct {
   snap_t *s;
   const lookup_t *lk;
   bool *seen;
   snap_cell_t *v;
} sdd_ctx_t;

/* One document of the $shardedDataDistribution reply: a collection's owned documents and bytes per shard. */
static bool
distribution_doc (void *data, const bson_t *d)
{
   sdd_ctx_t *rc = data;
   bson_t shards;
   bson_iter_t sh;
   size_t n = 0;
   int ci;
   if ((ci = collect_lookup_ns (rc->lk, docget_utf8 (d, "ns", ""))) < 0 ||
       !docget_sub (d, "shards", BSON_TYPE_EOD, &shards) || !bson_iter_init (&sh, &shards))
      return true;
   while (bson_iter_next (&sh) && n < rc->s->nshards) {
      bson_t e;
      int si;
      if (!docget_iter_sub (&sh, BSON_TYPE_DOCUMENT, &e) ||
          (si = collect_lookup_shard (rc->lk, docget_utf8 (&e, "shardName", ""))) < 0)
         continue;
      rc->v[n].shard = si;
      rc->v[n].chunks = 0;
      /* a negative size or count from the server counts as none */
      rc->v[n].data_bytes = ck_nonneg (docget_int (&e, "ownedSizeBytes", 0));
      rc->v[n].docs = ck_nonneg (docget_int (&e, "numOwnedDocuments", 0));
      if (rc->v[n].data_bytes || rc->v[n].docs)
         n++;
   }
   set_sizes (&rc->s->colls[ci], rc->v, n);
   rc->seen[ci] = true;
   return true;
}

/* Gives the collections not marked moved in metas (every one with all) the sizes and documents of the last good
 * sample: an unchanged collection shares the last sample's cells already; one whose chunks were counted again gets
 * them added (the shards are the same: a sample carries nothing otherwise). */
static void
carry_sizes (const collect_t *c, snap_t *s, const coll_meta_t *metas, bool all)
{
   for (size_t i = 0; i < s->ncolls; i++) {
      const snap_coll_t *pc = &c->prev.colls[i];
      snap_coll_t *co = &s->colls[i];
      const snap_cell_t *pv;
      size_t n;
      if ((!all && metas[i].moved) || co->cells == pc->cells)
         continue;
      pv = snap_coll_cells (pc, &n);
      for (size_t k = 0; k < n; k++) {
         snap_cell_t *x;
         if (!pv[k].data_bytes && !pv[k].docs)
            continue;
         x = snap_coll_cell_add (co, pv[k].shard);
         x->data_bytes = pv[k].data_bytes;
         x->docs = pv[k].docs;
      }
      snap_coll_tidy (co);
   }
}

/* Per-shard sizes and documents of every sharded collection in one reply: $shardedDataDistribution (6.0.3+). *used
 * is false (nothing filled, no error) when the router does not have it: the caller falls back to $collStats.
 * SDD_ALL reads every collection; on an incremental sample, SDD_CHANGED reads only the collections some of whose
 * chunks migrated (a $match on their namespaces after the stage) and SDD_NONE none (no writes anywhere and no
 * chunk moved), the others carrying the last good sample's figures. */

bool
collect_sample_data_distribution (collect_t *c, snap_t *s, const lookup_t *lk, const coll_meta_t *metas,
                                  sdd_mode_t mode, bool *used, sh_error_t *err)
{
   bson_t cmd = BSON_INITIALIZER;
   bson_t pipeline, stage, sdd, cursor;
   int major = 0, minor = 0, patch = 0;
   sdd_ctx_t rc = { s, lk, NULL, NULL };
   bool ok = false;

   *used = false;
   sscanf (s->version, "%d.%d.%d", &major, &minor, &patch);
   /* an unknown version (serverStatus failed) tries it: a refusal sets no_sdd below */
   if (c->no_sdd || (major > 0 && (major < 6 || (major == 6 && minor == 0 && patch < 3)))) {
      ok = true;
      goto done;
   }
   if (mode == SDD_NONE) {
      carry_sizes (c, s, metas, true);
      *used = ok = true;
      goto done;
   }
   BSON_APPEND_INT32 (&cmd, "aggregate", 1);
   BSON_APPEND_ARRAY_BEGIN (&cmd, "pipeline", &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "0", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$shardedDataDistribution", &sdd);
   bson_append_document_end (&stage, &sdd);
   bson_append_document_end (&pipeline, &stage);
   if (mode == SDD_CHANGED) {
      bson_t match, ns, in;
      uint32_t n = 0;
      BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "1", &stage);
      BSON_APPEND_DOCUMENT_BEGIN (&stage, "$match", &match);
      BSON_APPEND_DOCUMENT_BEGIN (&match, "ns", &ns);
      BSON_APPEND_ARRAY_BEGIN (&ns, "$in", &in);
      for (size_t i = 0; i < s->ncolls; i++) {
         char kb[16];
         const char *ks;
         if (!metas[i].moved)
            continue;
         bson_uint32_to_string (n++, &ks, kb, sizeof kb);
         BSON_APPEND_UTF8 (&in, ks, s->colls[i].ns);
      }
      bson_append_array_end (&ns, &in);
      bson_append_document_end (&match, &ns);
      bson_append_document_end (&stage, &match);
      bson_append_document_end (&pipeline, &stage);
   }
   bson_append_array_end (&cmd, &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&cmd, "cursor", &cursor);
   bson_append_document_end (&cmd, &cursor);
   rc.seen = collect_calloc (s->ncolls, sizeof *rc.seen);
   rc.v = collect_calloc (s->nshards, sizeof *rc.v);
   if (!collect_run_each (c, "admin", &cmd, COLLECT_BATCH_ENTRIES / (int64_t) (s->nshards ? s->nshards : 1),
                          distribution_doc, &rc, err)) {
      /* 40324 unknown stage, 6789101 not a mongos, ...: this router never will; ask per collection from now on */
      if (!collect_fatal (err)) {
         c->no_sdd = true;
         sh_error_clear (err);
         ok = true;
         /* a reply that failed part way: forget what it gave (and what was carried), $collStats gives it all */
         for (size_t i = 0; i < s->ncolls; i++)
            set_sizes (&s->colls[i], rc.v, 0);
      }
      goto done;
   }
   /* the collections read that the reply left out hold no data */
   for (size_t i = 0; i < s->ncolls; i++)
      if (!rc.seen[i] && (mode == SDD_ALL || metas[i].moved))
         set_sizes (&s->colls[i], rc.v, 0);
   if (mode == SDD_CHANGED)
      carry_sizes (c, s, metas, false);
   *used = true;
   ok = true;
done:
   free (rc.seen);
   free (rc.v);
   bson_destroy (&cmd);
   return ok;
}

/* One collection's $collStats: per-shard latencyStats op counters (and, with storage, the storage size and count,
 * when $shardedDataDistribution did not give them), projected on the shards so the wiredTiger section never
 * crosses the network. */
bool
collect_sample_coll_stats (collect_t *c, snap_t *s, size_t ci, bool storage, const lookup_t *lk, sh_error_t *err)
{
   snap_coll_t *co = &s->colls[ci];
   char db[SNAP_NAME];
   const char *coll;
   bson_t *cmd;
   bson_t docs;
   bson_iter_t it;
   snap_cell_t *sizes = NULL;
   size_t nsizes = 0;
   bool ok = false;

   collect_split_ns (co->ns, db, sizeof db, &coll);
   if (storage)
      cmd = BCON_NEW ("aggregate", BCON_UTF8 (coll), "pipeline", "[", "{", "$collStats", "{", "latencyStats", "{", "}",
                      "storageStats", "{", "}", "}", "}", "{", "$project", "{", "shard", BCON_INT32 (1),
                      "latencyStats.writes.ops", BCON_INT32 (1), "latencyStats.reads.ops", BCON_INT32 (1),
                      "storageStats.size", BCON_INT32 (1), "storageStats.count", BCON_INT32 (1), "}", "}", "]",
                      "cursor", "{", "}");
   else
      cmd = BCON_NEW ("aggregate", BCON_UTF8 (coll), "pipeline", "[", "{", "$collStats", "{", "latencyStats", "{", "}",
                      "}", "}", "{", "$project", "{", "shard", BCON_INT32 (1), "latencyStats.writes.ops",
                      BCON_INT32 (1), "latencyStats.reads.ops", BCON_INT32 (1), "}", "}", "]", "cursor", "{", "}");
   if (!collect_run_docs (c, db, cmd, 0, &docs, err)) {
      ok = !collect_fatal (err);
      goto done;
   }
   /* a new reading replaces the carried one (a failed one above keeps it, and its rates) */
   co->stats_ms = clock_mono_ms ();
   {
      size_t m;
      snap_act_t *a = snap_coll_acts_mut (co, &m);
      for (size_t k = 0; k < m; k++)
         a[k].writes_ops = a[k].reads_ops = 0;
   }
   sizes = storage ? collect_calloc (s->nshards, sizeof *sizes) : NULL;
   if (bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it)) {
         bson_t d;
         int si;
         int64_t w, r;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d))
            continue;
         si = collect_lookup_shard (lk, docget_utf8 (&d, "shard", ""));
         if (si < 0)
            continue;
         w = docget_int (&d, "latencyStats.writes.ops", 0);
         r = docget_int (&d, "latencyStats.reads.ops", 0);
         if (w || r) {
            snap_act_t *a = snap_coll_act_add (co, si);
            a->writes_ops = w;
            a->reads_ops = r;
         }
         if (!storage || nsizes == s->nshards)
            continue;
         sizes[nsizes].shard = si;
         sizes[nsizes].data_bytes = ck_nonneg (docget_int (&d, "storageStats.size", 0));
         sizes[nsizes].docs = ck_nonneg (docget_int (&d, "storageStats.count", 0));
         if (sizes[nsizes].data_bytes || sizes[nsizes].docs)
            nsizes++;
      }
   }
   snap_coll_tidy (co);
   if (storage)
      set_sizes (co, sizes, nsizes);
   ok = true;
done:
   free (sizes);
   bson_destroy (cmd);
   bson_destroy (&docs);
   return ok;
}

coll_track_t *
collect_track_get (collect_t *c, const char *ns)
{
   for (size_t i = 0; i < c->ntrack; i++)
      if (!strcmp (c->track[i].ns, ns))
         return &c->track[i];
   c->track = realloc (c->track, (c->ntrack + 1) * sizeof *c->track);
   if (!c->track)
      abort ();
   memset (&c->track[c->ntrack], 0, sizeof *c->track);
   bson_strncpy (c->track[c->ntrack].ns, ns, sizeof c->track[0].ns);
   return &c->track[c->ntrack++];
}

/* The highest (dir -1) or lowest (dir 1) shard key of a ranged collection: one indexed find, limit 1. *out is
 * NULL when the collection is empty. */
static bool
find_key_end (collect_t *c, const snap_coll_t *co, const coll_meta_t *m, int dir, bson_t **out, sh_error_t *err)
{
   char db[SNAP_NAME];
   const char *coll;
   bson_t cmd = BSON_INITIALIZER;
   bson_t sort, proj, docs, d;
   bson_iter_t it, f, k;
   bool has_id = false;
   bool ok = false;

   *out = NULL;
   bson_init (&docs);
   collect_split_ns (co->ns, db, sizeof db, &coll);
   BSON_APPEND_UTF8 (&cmd, "find", coll);
   BSON_APPEND_DOCUMENT_BEGIN (&cmd, "sort", &sort);
   if (bson_iter_init (&k, &m->key))
      while (bson_iter_next (&k))
         BSON_APPEND_INT32 (&sort, bson_iter_key (&k), dir);
   bson_append_document_end (&cmd, &sort);
   BSON_APPEND_DOCUMENT_BEGIN (&cmd, "projection", &proj);
   if (bson_iter_init (&k, &m->key)) {
      while (bson_iter_next (&k)) {
         has_id = has_id || !strcmp (bson_iter_key (&k), "_id");
         BSON_APPEND_INT32 (&proj, bson_iter_key (&k), 1);
      }
   }
   if (!has_id)
      BSON_APPEND_INT32 (&proj, "_id", 0);
   bson_append_document_end (&cmd, &proj);
   BSON_APPEND_INT32 (&cmd, "limit", 1);
   BSON_APPEND_BOOL (&cmd, "singleBatch", true);
   bson_destroy (&docs);
   if (!collect_run_docs (c, db, &cmd, 1, &docs, err)) {
      ok = !collect_fatal (err);
      goto done;
   }
   if (docget_sub (&docs, "0", BSON_TYPE_EOD, &d)) {
      /* the key fields, in the key's order (a missing field counts as null, as the server does) */
      *out = bson_new ();
      if (bson_iter_init (&k, &m->key)) {
         while (bson_iter_next (&k)) {
            if (bson_iter_init (&it, &d) && bson_iter_find_descendant (&it, bson_iter_key (&k), &f))
               bson_append_iter (*out, bson_iter_key (&k), -1, &f);
            else
               BSON_APPEND_NULL (*out, bson_iter_key (&k));
         }
      }
   }
   ok = true;
done:
   bson_destroy (&cmd);
   bson_destroy (&docs);
   return ok;
}

/* Where do inserts land? Compares a ranged collection's highest and lowest keys with the ones read last time: the
 * trend says whether the MaxKey or the MinKey chunk takes them. The caller chooses which collections to ask. */
bool
collect_sample_key_trend (collect_t *c, snap_t *s, size_t ci, const coll_meta_t *m, sh_error_t *err)
{
   snap_coll_t *co = &s->colls[ci];
   coll_track_t *t = collect_track_get (c, co->ns);
   bson_t *top = NULL, *bottom = NULL;
   bool ok = false;

   co->key_trend = 0;
   if (!find_key_end (c, co, m, -1, &top, err) || !find_key_end (c, co, m, 1, &bottom, err))
      goto done;
   t->own_reads += 2;
   t->queried = true;
   if (top && t->top && order_keys (top, t->top) > 0)
      co->key_trend = 1;
   else if (bottom && t->bottom && order_keys (bottom, t->bottom) < 0)
      co->key_trend = -1;
   if (t->top)
      bson_destroy (t->top);
   if (t->bottom)
      bson_destroy (t->bottom);
   t->top = top;
   t->bottom = bottom;
   top = bottom = NULL;
   ok = true;
done:
   if (top)
      bson_destroy (top);
   if (bottom)
      bson_destroy (bottom);
   return ok;
}
