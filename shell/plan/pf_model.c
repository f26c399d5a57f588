/* The pre-flight's model of the cluster: read with read-only queries (buildInfo, config.shards, config.tags,
 * config.collections, config.chunks of a namespace when needed, dataSize and count for sizes) and the questions the
 * checks and the plan ask of it (which shard, which zone, which chunk). See pf_model.h. */
#include <string.h>

#include "commands/commands.h"
#include "shell/core/conn.h"
#include "shell/lib/docget.h"
#include "shell/lib/order.h"
#include "shell/plan/pf_model.h"

bool
pf_model_has_tag (const pf_shard_t *s, const char *zone)
{
   bson_iter_t it;
   if (!bson_iter_init (&it, s->tags))
      return false;
   while (bson_iter_next (&it)) {
      if (BSON_ITER_HOLDS_UTF8 (&it) && !strcmp (bson_iter_utf8 (&it, NULL), zone))
         return true;
   }
   return false;
}

pf_shard_t *
pf_model_shard (preflight_t *pf, const char *id)
{
   for (size_t i = 0; id && i < pf->nshards; i++) {
      if (!strcmp (pf->shards[i].id, id))
         return &pf->shards[i];
   }
   return NULL;
}

/* The shards' names, or the zones carried by some shard, comma-separated into buf. */
void
pf_model_list (const preflight_t *pf, bool zones, char *buf, size_t len)
{
   bson_string_t *s = bson_string_new (NULL);
   bson_t seen = BSON_INITIALIZER;
   for (size_t i = 0; i < pf->nshards; i++) {
      bson_iter_t it;
      if (!zones) {
         bson_string_append_printf (s, "%s%s", s->len ? ", " : "", pf->shards[i].id);
         continue;
      }
      if (!bson_iter_init (&it, pf->shards[i].tags))
         continue;
      while (bson_iter_next (&it)) {
         const char *z = BSON_ITER_HOLDS_UTF8 (&it) ? bson_iter_utf8 (&it, NULL) : NULL;
         bson_iter_t f;
         if (!z || bson_iter_init_find (&f, &seen, z))
            continue;
         BSON_APPEND_BOOL (&seen, z, true);
         bson_string_append_printf (s, "%s%s", s->len ? ", " : "", z);
      }
   }
   bson_strncpy (buf, s->len ? s->str : "(none)", len);
   bson_string_free (s, true);
   bson_destroy (&seen);
}

bool
pf_model_zone_exists (const preflight_t *pf, const char *zone)
{
   for (size_t i = 0; i < pf->nshards; i++) {
      if (pf_model_has_tag (&pf->shards[i], zone))
         return true;
   }
   return false;
}

pf_coll_t *
pf_model_coll (preflight_t *pf, const char *ns)
{
   for (size_t i = 0; ns && i < pf->ncolls; i++) {
      if (!strcmp (pf->colls[i].ns, ns))
         return &pf->colls[i];
   }
   return NULL;
}

pf_coll_t *
pf_model_coll_add (preflight_t *pf, const char *ns, const bson_t *meta, const bson_t *key)
{
   pf_coll_t *c;
   pf->colls = bson_realloc (pf->colls, (pf->ncolls + 1) * sizeof *pf->colls);
   c = &pf->colls[pf->ncolls++];
   memset (c, 0, sizeof *c);
   c->ns = bson_strdup (ns);
   if (meta)
      c->meta = bson_copy (meta);
   else
      c->meta = bson_new ();
   c->key = bson_copy (key);
   if (!meta)
      c->chunks_loaded = true; /* sharded by the script: its chunks are not known yet */
   return c;
}

/* Ranges are kept sorted by (ns, min), and never overlap within a namespace (the checks refuse an overlap), so a
 * binary search finds a range's neighbours: a 10,000-statement zone script checks in linear-logarithmic time. The
 * index of the first range not before (ns, min). */
size_t
pf_model_range_pos (const preflight_t *pf, const char *ns, const bson_t *min)
{
   size_t lo = 0, hi = pf->nranges;
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      int c = strcmp (pf->ranges[mid].ns, ns);
      if (!c)
         c = order_keys (pf->ranges[mid].min, min);
      if (c < 0)
         lo = mid + 1;
      else
         hi = mid;
   }
   return lo;
}

void
pf_model_range_add (preflight_t *pf, const char *ns, const bson_t *min, const bson_t *max, const char *zone)
{
   pf_range_t *r;
   size_t i = pf_model_range_pos (pf, ns, min);
   pf->ranges = bson_realloc (pf->ranges, (pf->nranges + 1) * sizeof *pf->ranges);
   memmove (&pf->ranges[i + 1], &pf->ranges[i], (pf->nranges - i) * sizeof *pf->ranges);
   pf->nranges++;
   r = &pf->ranges[i];
   r->ns = bson_strdup (ns);
   r->min = bson_copy (min);
   r->max = bson_copy (max);
   r->zone = bson_strdup (zone);
}

void
pf_model_range_remove (preflight_t *pf, size_t i)
{
   bson_free (pf->ranges[i].ns);
   bson_free (pf->ranges[i].zone);
   bson_destroy (pf->ranges[i].min);
   bson_destroy (pf->ranges[i].max);
   memmove (&pf->ranges[i], &pf->ranges[i + 1], (pf->nranges - i - 1) * sizeof *pf->ranges);
   pf->nranges--;
}

static bool
pf_model_find (sh_ctx_t *ctx, const char *coll, bson_t *docs, sh_error_t *err)
{
   bson_t cmd = BSON_INITIALIZER;
   bool ok;
   BSON_APPEND_UTF8 (&cmd, "find", coll);
   cmd_append_empty (&cmd, "filter");
   ok = conn_run_docs (ctx, "config", &cmd, CONN_READ, PF_MAX_DOCS, docs, NULL, err);
   bson_destroy (&cmd);
   return ok;
}

/* The balancer's state and window from config.settings { _id: "balancer" } (stopped, or mode "off": stopped). A
 * settings collection that cannot be read leaves the balancer running without a window, as the server's default. */
static void
pf_model_load_balancer (preflight_t *pf)
{
   bson_t docs, d, w;
   bson_iter_t it, f;
   sh_error_t e;
   sh_error_clear (&e);
   if (pf_model_find (pf->ctx, "settings", &docs, &e) && bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it)) {
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) || !bson_iter_init_find (&f, &d, "_id") ||
             !BSON_ITER_HOLDS_UTF8 (&f) || strcmp (bson_iter_utf8 (&f, NULL), "balancer") != 0)
            continue;
         pf->balancer_off = (bson_iter_init_find (&f, &d, "stopped") && bson_iter_as_bool (&f)) ||
                            (bson_iter_init_find (&f, &d, "mode") && BSON_ITER_HOLDS_UTF8 (&f) &&
                             !strcmp (bson_iter_utf8 (&f, NULL), "off"));
         if (docget_sub (&d, "activeWindow", BSON_TYPE_DOCUMENT, &w))
            bson_snprintf (pf->window, sizeof pf->window, "%s-%s", docget_utf8 (&w, "start", "?"),
                           docget_utf8 (&w, "stop", "?"));
      }
   }
   bson_destroy (&docs);
}

bool
pf_model_load (preflight_t *pf, sh_error_t *err)
{
   bson_t docs;
   bson_iter_t it;
   bool ok;

   if (!conn_server_version (pf->ctx, pf->version, err))
      return false;
   pf_model_load_balancer (pf);
   if (!pf_model_find (pf->ctx, "shards", &docs, err)) {
      bson_destroy (&docs);
      return false;
   }
   bson_iter_init (&it, &docs);
   while (bson_iter_next (&it)) {
      bson_t d, tags;
      bson_iter_t f;
      pf_shard_t *s;
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) || !bson_iter_init_find (&f, &d, "_id") ||
          !BSON_ITER_HOLDS_UTF8 (&f))
         continue;
      pf->shards = bson_realloc (pf->shards, (pf->nshards + 1) * sizeof *pf->shards);
      s = &pf->shards[pf->nshards++];
      s->id = bson_strdup (bson_iter_utf8 (&f, NULL));
      s->draining = bson_iter_init_find (&f, &d, "draining") && bson_iter_as_bool (&f);
      if (docget_sub (&d, "tags", BSON_TYPE_ARRAY, &tags))
         s->tags = bson_copy (&tags);
      else
         s->tags = bson_new ();
   }
   bson_destroy (&docs);

   ok = pf_model_find (pf->ctx, "tags", &docs, err);
   if (ok && bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it)) {
         bson_t d, mn, mx;
         bson_iter_t ns, tag;
         if (docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) && bson_iter_init_find (&ns, &d, "ns") &&
             BSON_ITER_HOLDS_UTF8 (&ns) && bson_iter_init_find (&tag, &d, "tag") && BSON_ITER_HOLDS_UTF8 (&tag) &&
             docget_sub (&d, "min", BSON_TYPE_DOCUMENT, &mn) && docget_sub (&d, "max", BSON_TYPE_DOCUMENT, &mx)) {
            pf_model_range_add (pf, bson_iter_utf8 (&ns, NULL), &mn, &mx, bson_iter_utf8 (&tag, NULL));
            BSON_APPEND_BOOL (&pf->ranged_zones, bson_iter_utf8 (&tag, NULL), true);
         }
      }
   }
   bson_destroy (&docs);
   if (!ok)
      return false;

   ok = pf_model_find (pf->ctx, "collections", &docs, err);
   if (ok && bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it)) {
         bson_t d, key;
         bson_iter_t id, dropped;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) || !bson_iter_init_find (&id, &d, "_id") ||
             !BSON_ITER_HOLDS_UTF8 (&id) || !docget_sub (&d, "key", BSON_TYPE_DOCUMENT, &key))
            continue;
         if (bson_iter_init_find (&dropped, &d, "dropped") && bson_iter_as_bool (&dropped))
            continue;
         pf_model_coll_add (pf, bson_iter_utf8 (&id, NULL), &d, &key)->no_balance =
            bson_iter_init_find (&dropped, &d, "noBalance") && bson_iter_as_bool (&dropped);
      }
   }
   bson_destroy (&docs);
   return ok;
}

/* One config.chunks document into the chunks of c (conn_run_each). */
static bool
pf_model_add_chunk (void *data, const bson_t *d)
{
   pf_coll_t *c = data;
   bson_t mn, mx;
   bson_iter_t sh;
   pf_chunk_t *k;
   if (!docget_sub (d, "min", BSON_TYPE_DOCUMENT, &mn) || !docget_sub (d, "max", BSON_TYPE_DOCUMENT, &mx) ||
       !bson_iter_init_find (&sh, d, "shard") || !BSON_ITER_HOLDS_UTF8 (&sh))
      return true;
   if (c->nchunks == c->cap_chunks) {
      c->cap_chunks = c->cap_chunks ? 2 * c->cap_chunks : 64;
      c->chunks = bson_realloc (c->chunks, c->cap_chunks * sizeof *c->chunks);
   }
   k = &c->chunks[c->nchunks++];
   k->min = bson_copy (&mn);
   k->max = bson_copy (&mx);
   k->shard = bson_strdup (bson_iter_utf8 (&sh, NULL));
   k->docs = k->bytes = -1;
   return true;
}

/* Reads the chunks of c (sorted by min, all of them, a batch at a time) once. */
bool
pf_model_load_chunks (preflight_t *pf, pf_coll_t *c, sh_error_t *err)
{
   bson_t cmd = BSON_INITIALIZER, filter, sort;
   bool ok;
   if (c->chunks_loaded)
      return true;
   c->chunks_loaded = true;
   BSON_APPEND_UTF8 (&cmd, "find", "chunks");
   BSON_APPEND_DOCUMENT_BEGIN (&cmd, "filter", &filter);
   cmd_append_chunks_match (&filter, c->meta);
   bson_append_document_end (&cmd, &filter);
   BSON_APPEND_DOCUMENT_BEGIN (&cmd, "sort", &sort);
   BSON_APPEND_INT32 (&sort, "min", 1);
   bson_append_document_end (&cmd, &sort);
   ok = conn_run_each (pf->ctx, "config", &cmd, CONN_READ, pf_model_add_chunk, c, NULL, err);
   bson_destroy (&cmd);
   return ok;
}

/* dataSize of [min, max) of c: documents and bytes (estimate: true, as the dashboard asks). */
void
pf_model_data_size (preflight_t *pf, const pf_coll_t *c, const bson_t *min, const bson_t *max, int64_t *docs,
                    int64_t *bytes)
{
   bson_t cmd = BSON_INITIALIZER, reply;
   sh_error_t err;
   BSON_APPEND_UTF8 (&cmd, "dataSize", c->ns);
   BSON_APPEND_DOCUMENT (&cmd, "keyPattern", c->key);
   BSON_APPEND_DOCUMENT (&cmd, "min", min);
   BSON_APPEND_DOCUMENT (&cmd, "max", max);
   BSON_APPEND_BOOL (&cmd, "estimate", true);
   sh_error_clear (&err);
   *docs = *bytes = -1; /* unknown, never 0: the plan says so */
   if (conn_run (pf->ctx, "admin", &cmd, CONN_READ, &reply, &err) && docget_int (&reply, "numObjects", -1) >= 0 &&
       docget_int (&reply, "size", -1) >= 0) {
      /* a reply without them is not a size either */
      *docs = docget_int (&reply, "numObjects", -1);
      *bytes = docget_int (&reply, "size", -1);
   }
   bson_destroy (&cmd);
   bson_destroy (&reply);
}

/* { count: coll, query: { f: { $gte: min, $lt: max } } } for a single-field ranged key; -1 when not possible. */
int64_t
pf_model_count_range (preflight_t *pf, const pf_coll_t *c, const bson_t *min, const bson_t *max)
{
   bson_iter_t k, a, b;
   bson_t cmd = BSON_INITIALIZER, q, f, reply;
   char db[256];
   const char *dot = strchr (c->ns, '.');
   sh_error_t err;
   int64_t n = -1;
   if (!dot || bson_count_keys (c->key) != 1 || !bson_iter_init (&k, c->key) || !bson_iter_next (&k) ||
       BSON_ITER_HOLDS_UTF8 (&k) || !bson_iter_init (&a, min) || !bson_iter_next (&a) || !bson_iter_init (&b, max) ||
       !bson_iter_next (&b) || (size_t) (dot - c->ns) >= sizeof db)
      return -1;
   bson_strncpy (db, c->ns, (size_t) (dot - c->ns) + 1);
   BSON_APPEND_UTF8 (&cmd, "count", dot + 1);
   BSON_APPEND_DOCUMENT_BEGIN (&cmd, "query", &q);
   BSON_APPEND_DOCUMENT_BEGIN (&q, bson_iter_key (&k), &f);
   if (!BSON_ITER_HOLDS_MINKEY (&a))
      bson_append_value (&f, "$gte", 4, bson_iter_value (&a));
   if (!BSON_ITER_HOLDS_MAXKEY (&b))
      bson_append_value (&f, "$lt", 3, bson_iter_value (&b));
   bson_append_document_end (&q, &f);
   bson_append_document_end (&cmd, &q);
   sh_error_clear (&err);
   if (conn_run (pf->ctx, db, &cmd, CONN_READ, &reply, &err))
      n = BSON_MAX (docget_int (&reply, "n", 0), 0);
   bson_destroy (&cmd);
   bson_destroy (&reply);
   return n;
}

/* Documents and bytes of chunk k of the model (read once). */
void
pf_model_chunk_size (preflight_t *pf, const pf_coll_t *c, pf_chunk_t *k, int64_t *docs, int64_t *bytes)
{
   if (k->docs < 0 || k->bytes < 0)
      pf_model_data_size (pf, c, k->min, k->max, &k->docs, &k->bytes);
   *docs = k->docs;
   *bytes = k->bytes;
}

/* ---- the model's questions ---- */

/* The zone of the range [min, max) of ns: the zone range holding all of it, or NULL. */
const char *
pf_model_zone_of (const preflight_t *pf, const char *ns, const bson_t *min, const bson_t *max)
{
   size_t r = pf_model_zone_range (pf, ns, min, max);
   return r < pf->nranges ? pf->ranges[r].zone : NULL;
}

/* The index of the zone range holding all of [min, max) of ns, pf->nranges when none. */
size_t
pf_model_zone_range (const preflight_t *pf, const char *ns, const bson_t *min, const bson_t *max)
{
   size_t i = pf_model_range_pos (pf, ns, min);
   if (!(i < pf->nranges && !strcmp (pf->ranges[i].ns, ns) && !order_keys (pf->ranges[i].min, min))) {
      if (!(i > 0 && !strcmp (pf->ranges[i - 1].ns, ns)))
         return pf->nranges;
      i--;
   }
   if (order_keys (pf->ranges[i].min, min) <= 0 && order_keys (max, pf->ranges[i].max) <= 0)
      return i;
   return pf->nranges;
}

/* True when zone has a range in the model now. */
bool
pf_model_zone_in_use (const preflight_t *pf, const char *zone)
{
   for (size_t i = 0; i < pf->nranges; i++) {
      if (!strcmp (pf->ranges[i].zone, zone))
         return true;
   }
   return false;
}

bool
preflight_zone_has_ranges (const preflight_t *pf, const char *zone)
{
   bson_iter_t it;
   return pf && bson_iter_init_find (&it, &pf->ranged_zones, zone);
}

/* The chunk of c holding key (a document of the shard key's values), or NULL. */
pf_chunk_t *
pf_model_chunk_at (pf_coll_t *c, const bson_t *key)
{
   size_t i = pf_model_chunk_index (c, key);
   return i < c->nchunks ? &c->chunks[i] : NULL;
}

/* Chunks are kept sorted by min (config.chunks is read so, a split inserts the right piece after the left) and do
 * not overlap, so a binary search finds the one holding key in logarithmic time: --plan over 100,000 chunks splits
 * and looks up without a pass over them. Should the model's order ever differ from order_keys' (the server's sort),
 * a linear pass answers instead, as before. */
size_t
pf_model_chunk_index (const pf_coll_t *c, const bson_t *key)
{
   size_t lo = 0, hi = c->nchunks;
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (order_keys (c->chunks[mid].min, key) <= 0)
         lo = mid + 1;
      else
         hi = mid;
   }
   if (lo > 0 && order_keys (key, c->chunks[lo - 1].max) < 0)
      return lo - 1;
   for (size_t i = 0; i < c->nchunks; i++) {
      if (order_keys (c->chunks[i].min, key) <= 0 && order_keys (key, c->chunks[i].max) < 0)
         return i;
   }
   return c->nchunks;
}

void
pf_model_destroy (preflight_t *pf)
{
   for (size_t i = 0; i < pf->nshards; i++) {
      bson_free (pf->shards[i].id);
      bson_destroy (pf->shards[i].tags);
   }
   while (pf->nranges)
      pf_model_range_remove (pf, pf->nranges - 1);
   for (size_t i = 0; i < pf->ncolls; i++) {
      pf_coll_t *c = &pf->colls[i];
      for (size_t j = 0; j < c->nchunks; j++) {
         bson_destroy (c->chunks[j].min);
         bson_destroy (c->chunks[j].max);
         bson_free (c->chunks[j].shard);
      }
      bson_free (c->chunks);
      bson_free (c->ns);
      bson_destroy (c->meta);
      bson_destroy (c->key);
   }
   bson_free (pf->shards);
   bson_free (pf->ranges);
   bson_free (pf->colls);
   pf->shards = NULL;
   pf->ranges = NULL;
   pf->colls = NULL;
   pf->nshards = pf->ncolls = 0;
}
