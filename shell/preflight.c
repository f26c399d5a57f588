/* Pre-flight and --plan of a script: the cluster model, the checks of each statement against it, and the plan of what
 * the balancer would then move. See preflight.h and docs/plan.md. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "commands/advisor_model.h"
#include "shell/lib/order.h"
#include "shell/core/conn.h"
#include "shell/dispatch.h"
#include "shell/core/output.h"
#include "shell/preflight.h"

#define PF_MAX_CHUNKS 100000 /* config.chunks read per namespace; beyond it chunk checks are skipped */
#define PF_MAX_DOCS 100000   /* config.shards, config.tags, config.collections */

typedef struct {
   char *id;
   bool draining;
   bson_t *tags; /* array of strings */
} pf_shard_t;

typedef struct {
   char *ns;
   bson_t *min, *max;
   char *zone;
} pf_range_t;

typedef struct {
   bson_t *min, *max;
   char *shard;
   int64_t docs, bytes; /* -1 until read */
} pf_chunk_t;

typedef struct {
   char *ns;
   bson_t *meta; /* the config.collections document (empty for one the script shards) */
   bson_t *key;
   bool chunks_loaded, chunks_truncated;
   pf_chunk_t *chunks;
   size_t nchunks;
} pf_coll_t;

struct preflight {
   sh_ctx_t *ctx;
   bool plan;
   int version[3];
   pf_shard_t *shards;
   size_t nshards;
   pf_range_t *ranges;
   size_t nranges;
   pf_coll_t *colls;
   size_t ncolls;
   char effect[1024];
   const char *file;    /* of the statement being checked (for warnings) */
   bson_t ranged_zones; /* zones that had ranges before the script */
   char **effects;      /* per statement of the run (effect_base[input] + statement): the effect the plan found, for
                         * the confirmation, or NULL */
   size_t *effect_base;
   size_t ninputs, neffects;
   bson_t new_indexes; /* ns -> key of each index the script creates before it shards */
   /* plan totals */
   bson_t moves; /* array of { ns, min, max, from, to, docs, bytes } */
   int nmoves;
   int64_t docs, bytes;
};

/* ---- small helpers ---- */

static bool
pf_has_tag (const pf_shard_t *s, const char *zone)
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

static pf_shard_t *
pf_shard (preflight_t *pf, const char *id)
{
   for (size_t i = 0; id && i < pf->nshards; i++) {
      if (!strcmp (pf->shards[i].id, id))
         return &pf->shards[i];
   }
   return NULL;
}

/* The shards' names, or the zones carried by some shard, comma-separated into buf. */
static void
pf_list (const preflight_t *pf, bool zones, char *buf, size_t len)
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

static bool
pf_zone_exists (const preflight_t *pf, const char *zone)
{
   for (size_t i = 0; i < pf->nshards; i++) {
      if (pf_has_tag (&pf->shards[i], zone))
         return true;
   }
   return false;
}

static pf_coll_t *
pf_coll (preflight_t *pf, const char *ns)
{
   for (size_t i = 0; ns && i < pf->ncolls; i++) {
      if (!strcmp (pf->colls[i].ns, ns))
         return &pf->colls[i];
   }
   return NULL;
}

static pf_coll_t *
pf_coll_add (preflight_t *pf, const char *ns, const bson_t *meta, const bson_t *key)
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
static size_t
pf_range_pos (const preflight_t *pf, const char *ns, const bson_t *min)
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

static void
pf_range_add (preflight_t *pf, const char *ns, const bson_t *min, const bson_t *max, const char *zone)
{
   pf_range_t *r;
   size_t i = pf_range_pos (pf, ns, min);
   pf->ranges = bson_realloc (pf->ranges, (pf->nranges + 1) * sizeof *pf->ranges);
   memmove (&pf->ranges[i + 1], &pf->ranges[i], (pf->nranges - i) * sizeof *pf->ranges);
   pf->nranges++;
   r = &pf->ranges[i];
   r->ns = bson_strdup (ns);
   r->min = bson_copy (min);
   r->max = bson_copy (max);
   r->zone = bson_strdup (zone);
}

static void
pf_range_remove (preflight_t *pf, size_t i)
{
   bson_free (pf->ranges[i].ns);
   bson_free (pf->ranges[i].zone);
   bson_destroy (pf->ranges[i].min);
   bson_destroy (pf->ranges[i].max);
   memmove (&pf->ranges[i], &pf->ranges[i + 1], (pf->nranges - i - 1) * sizeof *pf->ranges);
   pf->nranges--;
}

/* The error position: argument i when known, else the helper's name. */
static sh_pos_t
pf_at (const sh_call_t *call, int i)
{
   return call->arg_pos && i >= 0 && i < call->argc ? call->arg_pos[i] : call->pos;
}

static bool
pf_sub (const bson_t *doc, const char *key, bson_t *sub)
{
   return docget_sub (doc, key, BSON_TYPE_DOCUMENT, sub);
}

/* ---- reading the cluster ---- */

/* The number at the top-level field key of a server reply as a non-negative integer (args_number_to_int: no
 * conversion from double is ever undefined); 0 when absent, not a number or out of range. */
static int64_t
pf_int_at (const bson_t *reply, const char *key)
{
   bson_iter_t it;
   int64_t v = 0;
   if (!bson_iter_init_find (&it, reply, key) || !args_number_to_int (&it, 0, INT64_MAX, &v))
      return 0;
   return v;
}

static bool
pf_find (sh_ctx_t *ctx, const char *coll, bson_t *docs, sh_error_t *err)
{
   bson_t cmd = BSON_INITIALIZER;
   bool ok;
   BSON_APPEND_UTF8 (&cmd, "find", coll);
   cmd_append_empty (&cmd, "filter");
   ok = conn_run_docs (ctx, "config", &cmd, CONN_READ, PF_MAX_DOCS, docs, NULL, err);
   bson_destroy (&cmd);
   return ok;
}

static bool
pf_load (preflight_t *pf, sh_error_t *err)
{
   bson_t docs;
   bson_iter_t it;
   bool ok;

   if (!conn_server_version (pf->ctx, pf->version, err))
      return false;
   if (!pf_find (pf->ctx, "shards", &docs, err)) {
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

   ok = pf_find (pf->ctx, "tags", &docs, err);
   if (ok && bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it)) {
         bson_t d, mn, mx;
         bson_iter_t ns, tag;
         if (docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) && bson_iter_init_find (&ns, &d, "ns") &&
             BSON_ITER_HOLDS_UTF8 (&ns) && bson_iter_init_find (&tag, &d, "tag") && BSON_ITER_HOLDS_UTF8 (&tag) &&
             pf_sub (&d, "min", &mn) && pf_sub (&d, "max", &mx)) {
            pf_range_add (pf, bson_iter_utf8 (&ns, NULL), &mn, &mx, bson_iter_utf8 (&tag, NULL));
            BSON_APPEND_BOOL (&pf->ranged_zones, bson_iter_utf8 (&tag, NULL), true);
         }
      }
   }
   bson_destroy (&docs);
   if (!ok)
      return false;

   ok = pf_find (pf->ctx, "collections", &docs, err);
   if (ok && bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it)) {
         bson_t d, key;
         bson_iter_t id, dropped;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) || !bson_iter_init_find (&id, &d, "_id") ||
             !BSON_ITER_HOLDS_UTF8 (&id) || !pf_sub (&d, "key", &key))
            continue;
         if (bson_iter_init_find (&dropped, &d, "dropped") && bson_iter_as_bool (&dropped))
            continue;
         pf_coll_add (pf, bson_iter_utf8 (&id, NULL), &d, &key);
      }
   }
   bson_destroy (&docs);
   return ok;
}

/* Reads the chunks of c (sorted by min, bounded) once. */
static bool
pf_load_chunks (preflight_t *pf, pf_coll_t *c, sh_error_t *err)
{
   bson_t cmd = BSON_INITIALIZER, filter, sort, docs;
   bson_iter_t it;
   bool more = false, ok;
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
   ok = conn_run_docs (pf->ctx, "config", &cmd, CONN_READ, PF_MAX_CHUNKS, &docs, &more, err);
   c->chunks_truncated = more;
   if (ok && bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it)) {
         bson_t d, mn, mx;
         bson_iter_t sh;
         pf_chunk_t *k;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) || !pf_sub (&d, "min", &mn) || !pf_sub (&d, "max", &mx) ||
             !bson_iter_init_find (&sh, &d, "shard") || !BSON_ITER_HOLDS_UTF8 (&sh))
            continue;
         c->chunks = bson_realloc (c->chunks, (c->nchunks + 1) * sizeof *c->chunks);
         k = &c->chunks[c->nchunks++];
         k->min = bson_copy (&mn);
         k->max = bson_copy (&mx);
         k->shard = bson_strdup (bson_iter_utf8 (&sh, NULL));
         k->docs = k->bytes = -1;
      }
   }
   bson_destroy (&cmd);
   bson_destroy (&docs);
   return ok;
}

/* dataSize of [min, max) of c: documents and bytes (estimate: true, as the dashboard asks). */
static void
pf_data_size (preflight_t *pf, const pf_coll_t *c, const bson_t *min, const bson_t *max, int64_t *docs, int64_t *bytes)
{
   bson_t cmd = BSON_INITIALIZER, reply;
   sh_error_t err;
   BSON_APPEND_UTF8 (&cmd, "dataSize", c->ns);
   BSON_APPEND_DOCUMENT (&cmd, "keyPattern", c->key);
   BSON_APPEND_DOCUMENT (&cmd, "min", min);
   BSON_APPEND_DOCUMENT (&cmd, "max", max);
   BSON_APPEND_BOOL (&cmd, "estimate", true);
   sh_error_clear (&err);
   *docs = *bytes = 0;
   if (conn_run (pf->ctx, "admin", &cmd, CONN_READ, &reply, &err)) {
      *docs = pf_int_at (&reply, "numObjects");
      *bytes = pf_int_at (&reply, "size");
   }
   bson_destroy (&cmd);
   bson_destroy (&reply);
}

/* { count: coll, query: { f: { $gte: min, $lt: max } } } for a single-field ranged key; -1 when not possible. */
static int64_t
pf_count_range (preflight_t *pf, const pf_coll_t *c, const bson_t *min, const bson_t *max)
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
      n = pf_int_at (&reply, "n");
   bson_destroy (&cmd);
   bson_destroy (&reply);
   return n;
}

/* Documents and bytes of chunk k of the model (read once). */
static void
pf_chunk_size (preflight_t *pf, const pf_coll_t *c, pf_chunk_t *k, int64_t *docs, int64_t *bytes)
{
   if (k->docs < 0 || k->bytes < 0)
      pf_data_size (pf, c, k->min, k->max, &k->docs, &k->bytes);
   *docs = k->docs;
   *bytes = k->bytes;
}

/* ---- the model's questions ---- */

/* The zone of the range [min, max) of ns: the zone range holding all of it, or NULL. */
static const char *
pf_zone_of (const preflight_t *pf, const char *ns, const bson_t *min, const bson_t *max)
{
   size_t i = pf_range_pos (pf, ns, min);
   const pf_range_t *r = NULL;
   if (i < pf->nranges && !strcmp (pf->ranges[i].ns, ns) && !order_keys (pf->ranges[i].min, min))
      r = &pf->ranges[i];
   else if (i > 0 && !strcmp (pf->ranges[i - 1].ns, ns))
      r = &pf->ranges[i - 1];
   if (r && order_keys (r->min, min) <= 0 && order_keys (max, r->max) <= 0)
      return r->zone;
   return NULL;
}

/* True when zone has a range in the model now. */
static bool
pf_zone_in_use (const preflight_t *pf, const char *zone)
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

/* Checks that bound (argument i) has the shard key's fields in order, hashed ones as NumberLong, MinKey or MaxKey. */
static bool
pf_check_bound (const sh_call_t *call, int i, const bson_t *bound, const pf_coll_t *c, sh_error_t *err)
{
   bson_iter_t b, k;
   char key[512], got[512];
   output_format_doc_line (c->key, key, sizeof key);
   output_format_doc_line (bound, got, sizeof got);
   if (!bson_iter_init (&b, bound) || !bson_iter_init (&k, c->key))
      return true;
   while (bson_iter_next (&b)) {
      if (!bson_iter_next (&k) || strcmp (bson_iter_key (&b), bson_iter_key (&k)) != 0) {
         sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, i), "%s is not a prefix of the shard key %s of %s", got, key,
                          c->ns);
         return false;
      }
      if (BSON_ITER_HOLDS_UTF8 (&k) && !strcmp (bson_iter_utf8 (&k, NULL), "hashed") && !BSON_ITER_HOLDS_INT64 (&b) &&
          !BSON_ITER_HOLDS_MINKEY (&b) && !BSON_ITER_HOLDS_MAXKEY (&b)) {
         sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, i),
                          "the hashed field '%s' of %s needs NumberLong(…), MinKey or MaxKey, got %s",
                          bson_iter_key (&b), c->ns, got);
         return false;
      }
   }
   if (bson_count_keys (bound) == 0) {
      sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, i), "an empty bound is not a prefix of the shard key %s", key);
      return false;
   }
   return true;
}

/* Pads a bound with MinKey for the shard key's missing trailing fields, as the server stores it. */
static void
pf_full_bound (const bson_t *bound, const pf_coll_t *c, bson_t *out)
{
   bson_iter_t k, b;
   bson_init (out);
   if (!c) {
      bson_copy_to_excluding_noinit (bound, out, "", NULL);
      return;
   }
   bson_iter_init (&k, c->key);
   while (bson_iter_next (&k)) {
      if (bson_iter_init_find (&b, bound, bson_iter_key (&k)))
         bson_append_value (out, bson_iter_key (&k), -1, bson_iter_value (&b));
      else
         BSON_APPEND_MINKEY (out, bson_iter_key (&k));
   }
}

/* ---- plan output ---- */

static void
pf_plan_move (preflight_t *pf, const pf_coll_t *c, const bson_t *min, const bson_t *max, const char *from,
              const char *to, int64_t docs, int64_t bytes)
{
   char a[256], b[256], sz[32], key[16];
   bson_t m;
   output_format_doc_line (min, a, sizeof a);
   output_format_doc_line (max, b, sizeof b);
   cmd_format_bytes ((double) bytes, sz, sizeof sz);
   if (pf->plan && !pf->ctx->opts->json)
      fprintf (pf->ctx->out_fp, "   move %s [%s, %s) %lld docs, %s %s -> %s\n", c->ns, a, b, (long long) docs, sz, from,
               to ? to : "(no shard in the zone)");
   bson_snprintf (pf->effect, sizeof pf->effect, "move %s [%s, %s) %lld docs, %s %s -> %s", c->ns, a, b,
                  (long long) docs, sz, from, to ? to : "?");
   bson_snprintf (key, sizeof key, "%d", pf->nmoves++);
   BSON_APPEND_DOCUMENT_BEGIN (&pf->moves, key, &m);
   BSON_APPEND_UTF8 (&m, "ns", c->ns);
   BSON_APPEND_DOCUMENT (&m, "min", min);
   BSON_APPEND_DOCUMENT (&m, "max", max);
   BSON_APPEND_UTF8 (&m, "from", from);
   if (to)
      BSON_APPEND_UTF8 (&m, "to", to);
   else
      BSON_APPEND_NULL (&m, "to");
   BSON_APPEND_INT64 (&m, "docs", docs);
   BSON_APPEND_INT64 (&m, "bytes", bytes);
   bson_append_document_end (&pf->moves, &m);
   pf->docs += docs;
   pf->bytes += bytes;
}

/* Splits the chunk of c holding bound there (the balancer splits at zone boundaries before it moves; moveRange moves
 * [min, max)). When sizes are wanted, the parent's size is read first and shared between the pieces by a count of
 * the left piece (bytes in proportion), so the pieces add up to what the server holds. */
static void
pf_split_at (preflight_t *pf, pf_coll_t *c, const bson_t *bound)
{
   for (size_t i = 0; i < c->nchunks; i++) {
      pf_chunk_t *k = &c->chunks[i];
      if (order_keys (k->min, bound) < 0 && order_keys (bound, k->max) < 0) {
         pf_chunk_t right;
         int64_t left_docs = -1, left_bytes = -1;
         if (pf->plan || pf->ctx->interactive) {
            if (k->docs < 0)
               pf_data_size (pf, c, k->min, k->max, &k->docs, &k->bytes);
            left_docs = pf_count_range (pf, c, k->min, bound);
            if (left_docs < 0)
               pf_data_size (pf, c, k->min, bound, &left_docs, &left_bytes);
            else
               left_bytes =
                  k->docs > 0 ? (int64_t) llround ((double) k->bytes * (double) left_docs / (double) k->docs) : 0;
         }
         c->chunks = bson_realloc (c->chunks, (c->nchunks + 1) * sizeof *c->chunks);
         k = &c->chunks[i];
         right.min = bson_copy (bound);
         right.max = bson_copy (k->max);
         right.shard = bson_strdup (k->shard);
         right.docs = left_docs >= 0 && k->docs >= left_docs ? k->docs - left_docs : -1;
         right.bytes = left_bytes >= 0 && k->bytes >= left_bytes ? k->bytes - left_bytes : -1;
         k->docs = left_docs;
         k->bytes = left_bytes;
         bson_destroy (k->max);
         k->max = bson_copy (bound);
         memmove (&c->chunks[i + 2], &c->chunks[i + 1], (c->nchunks - i - 1) * sizeof *c->chunks);
         c->chunks[i + 1] = right;
         c->nchunks++;
         return;
      }
   }
}

/* Load of shard for zone group zone of c: chunks (before 6.0) or bytes (6.0+) known in the model. */
static int64_t
pf_load_of (preflight_t *pf, const pf_coll_t *c, const char *shard, const char *zone)
{
   int64_t l = 0;
   for (size_t i = 0; i < c->nchunks; i++) {
      const pf_chunk_t *k = &c->chunks[i];
      const char *z = pf_zone_of (pf, c->ns, k->min, k->max);
      if (strcmp (k->shard, shard) != 0 || strcmp (z ? z : "", zone ? zone : "") != 0)
         continue;
      l += pf->version[0] >= 6 ? (k->bytes > 0 ? k->bytes : 0) : 1;
   }
   return l;
}

/* The chunks of c that now lie on a shard that may not hold them (outside their zone, or draining) move to the least
 * loaded shard allowed; each is printed and counted, and the model follows. */
static void
pf_plan_rebalance (preflight_t *pf, pf_coll_t *c)
{
   for (size_t i = 0; i < c->nchunks; i++) {
      pf_chunk_t *k = &c->chunks[i];
      const char *zone = pf_zone_of (pf, c->ns, k->min, k->max);
      pf_shard_t *owner = pf_shard (pf, k->shard);
      const char *to = NULL;
      int64_t best = INT64_MAX, docs, bytes;
      if (!(owner && owner->draining) && !(zone && owner && !pf_has_tag (owner, zone)))
         continue;
      for (size_t s = 0; s < pf->nshards; s++) {
         int64_t l;
         if (pf->shards[s].draining || (zone && !pf_has_tag (&pf->shards[s], zone)))
            continue;
         l = pf_load_of (pf, c, pf->shards[s].id, zone);
         if (l < best) {
            best = l;
            to = pf->shards[s].id;
         }
      }
      pf_chunk_size (pf, c, k, &docs, &bytes);
      pf_plan_move (pf, c, k->min, k->max, k->shard, to, docs, bytes);
      if (to) {
         bson_free (k->shard);
         k->shard = bson_strdup (to);
      }
   }
}

/* After a change of zones or shards: every sharded collection whose chunks are known is looked at again. */
static bool
pf_plan_all (preflight_t *pf, const char *only_ns, bool every, sh_error_t *err)
{
   for (size_t i = 0; i < pf->ncolls; i++) {
      pf_coll_t *c = &pf->colls[i];
      bool touched = false;
      if (only_ns && strcmp (c->ns, only_ns) != 0)
         continue;
      touched = every;
      for (size_t r = 0; !only_ns && r < pf->nranges && !touched; r++)
         touched = !strcmp (pf->ranges[r].ns, c->ns);
      if (!only_ns && !touched)
         continue;
      if (!pf_load_chunks (pf, c, err))
         return false;
      if (c->chunks_truncated)
         continue;
      for (size_t r = 0; r < pf->nranges; r++) {
         if (!strcmp (pf->ranges[r].ns, c->ns)) {
            pf_split_at (pf, c, pf->ranges[r].min);
            pf_split_at (pf, c, pf->ranges[r].max);
         }
      }
      pf_plan_rebalance (pf, c);
   }
   return true;
}

/* ---- the checks, one per kind of statement ---- */

static bool
pf_need_shard (preflight_t *pf, const sh_call_t *call, int i, const char *id, bool not_draining, sh_error_t *err)
{
   char list[1024];
   pf_shard_t *s = pf_shard (pf, id);
   if (!s) {
      pf_list (pf, false, list, sizeof list);
      sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, i), "shard %s does not exist; shards: %s", id ? id : "?", list);
      return false;
   }
   if (not_draining && s->draining) {
      sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, i), "shard %s is draining: nothing can move to it", id);
      return false;
   }
   return true;
}

static bool
pf_need_sharded (preflight_t *pf, const sh_call_t *call, int i, const char *ns, pf_coll_t **out, sh_error_t *err)
{
   *out = pf_coll (pf, ns);
   if (!*out) {
      sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, i), "%s is not a sharded collection", ns ? ns : "?");
      return false;
   }
   return true;
}

static bool
pf_zone_range (preflight_t *pf, const sh_call_t *call, int ns_i, const char *zone, bool remove, sh_error_t *err)
{
   const char *ns = args_str (call, ns_i);
   bson_t min0, max0, min, max;
   pf_coll_t *c;
   char a[256], b[256], list[1024];
   bool ok = true;
   if (!ns || !args_doc (call, ns_i + 1, &min0) || !args_doc (call, ns_i + 2, &max0))
      return true; /* the helper's own checks report it */
   c = pf_coll (pf, ns);
   if (c && (!pf_check_bound (call, ns_i + 1, &min0, c, err) || !pf_check_bound (call, ns_i + 2, &max0, c, err)))
      return false;
   pf_full_bound (&min0, c, &min);
   pf_full_bound (&max0, c, &max);
   a[0] = b[0] = '\0';
   if (pf->plan || pf->ctx->interactive || order_keys (&min, &max) >= 0) {
      output_format_doc_line (&min, a, sizeof a);
      output_format_doc_line (&max, b, sizeof b);
   }
   if (order_keys (&min, &max) >= 0) {
      sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, ns_i + 1), "min %s should be less than max %s", a, b);
      ok = false;
      goto done;
   }
   if (remove) {
      size_t i = pf_range_pos (pf, ns, &min);
      if (i < pf->nranges) {
         pf_range_t *r = &pf->ranges[i];
         if (!strcmp (r->ns, ns) && !order_keys (r->min, &min) && !order_keys (r->max, &max)) {
            if (pf->plan && !pf->ctx->opts->json)
               fprintf (pf->ctx->out_fp, "   range [%s, %s) of %s leaves zone %s\n", a, b, ns, r->zone);
            bson_snprintf (pf->effect, sizeof pf->effect, "remove range [%s, %s) of %s from zone %s", a, b, ns,
                           r->zone);
            pf_range_remove (pf, i);
            goto done;
         }
      }
      output_format_doc_line (&min, a, sizeof a);
      output_format_doc_line (&max, b, sizeof b);
      cmd_warn (pf->ctx,
                "%s:%d:%d: warning: no zone range of %s is exactly [%s, %s): the server answers ok and removes "
                "nothing",
                pf->file, call->pos.line, call->pos.col, ns, a, b);
      goto done;
   }
   if (!pf_zone_exists (pf, zone)) {
      pf_list (pf, true, list, sizeof list);
      sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, ns_i + 3), "zone %s does not exist; zones: %s", zone, list);
      ok = false;
      goto done;
   }
   /* only the neighbours in (ns, min) order can overlap: the one before and the one from min on */
   for (size_t i = pf_range_pos (pf, ns, &min), k = 0; k < 2; k++) {
      pf_range_t *r;
      char ra[256], rb[256];
      if ((k == 0 && i == 0) || (k == 1 && i >= pf->nranges))
         continue;
      r = &pf->ranges[k == 0 ? i - 1 : i];
      if (strcmp (r->ns, ns) != 0 || order_keys (&max, r->min) <= 0 || order_keys (r->max, &min) <= 0)
         continue;
      output_format_doc_line (&min, a, sizeof a);
      output_format_doc_line (&max, b, sizeof b);
      if (!order_keys (r->min, &min) && !order_keys (r->max, &max) && !strcmp (r->zone, zone))
         goto done; /* the same range again: accepted, nothing changes */
      output_format_doc_line (r->min, ra, sizeof ra);
      output_format_doc_line (r->max, rb, sizeof rb);
      sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, ns_i + 1),
                       "RangeOverlapConflict: zone range [%s, %s) of %s overlaps the range [%s, %s) of zone %s", a, b,
                       ns, ra, rb, r->zone);
      ok = false;
      goto done;
   }
   pf_range_add (pf, ns, &min, &max, zone);
   if (pf->plan && !pf->ctx->opts->json)
      fprintf (pf->ctx->out_fp, "   range [%s, %s) of %s joins zone %s\n", a, b, ns, zone);
   bson_snprintf (pf->effect, sizeof pf->effect, "range [%s, %s) of %s joins zone %s", a, b, ns, zone);
   if (c && pf->plan)
      ok = pf_plan_all (pf, ns, false, err);
done:
   bson_destroy (&min);
   bson_destroy (&max);
   return ok;
}

static bool
pf_shard_zone (preflight_t *pf, const sh_call_t *call, bool add, sh_error_t *err)
{
   const char *id = args_str (call, 0), *zone = args_str (call, 1);
   pf_shard_t *s;
   if (!id || !zone)
      return true;
   if (!pf_need_shard (pf, call, 0, id, false, err))
      return false;
   s = pf_shard (pf, id);
   if (add) {
      if (!pf_has_tag (s, zone)) {
         char key[16];
         bson_snprintf (key, sizeof key, "%u", bson_count_keys (s->tags));
         BSON_APPEND_UTF8 (s->tags, key, zone);
      }
      if (pf->plan && !pf->ctx->opts->json)
         fprintf (pf->ctx->out_fp, "   shard %s joins zone %s\n", id, zone);
      return !pf->plan || pf_plan_all (pf, NULL, false, err);
   }
   if (!pf_has_tag (s, zone)) {
      cmd_warn (pf->ctx, "%s:%d:%d: warning: shard %s is not in zone %s: the server answers ok and changes nothing",
                pf->file, call->pos.line, call->pos.col, id, zone);
      return true;
   }
   {
      int holders = 0;
      bson_t tags = BSON_INITIALIZER;
      bson_iter_t it;
      char key[16];
      uint32_t n = 0;
      for (size_t i = 0; i < pf->nshards; i++)
         holders += pf_has_tag (&pf->shards[i], zone);
      if (holders == 1 && pf_zone_in_use (pf, zone)) {
         sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, 1),
                          "ZoneStillInUse: shard %s is the last shard of zone %s, which still has ranges", id, zone);
         bson_destroy (&tags);
         return false;
      }
      bson_iter_init (&it, s->tags);
      while (bson_iter_next (&it)) {
         if (BSON_ITER_HOLDS_UTF8 (&it) && !strcmp (bson_iter_utf8 (&it, NULL), zone))
            continue;
         bson_snprintf (key, sizeof key, "%u", n++);
         bson_append_value (&tags, key, -1, bson_iter_value (&it));
      }
      bson_destroy (s->tags);
      s->tags = bson_copy (&tags);
      bson_destroy (&tags);
   }
   if (pf->plan && !pf->ctx->opts->json)
      fprintf (pf->ctx->out_fp, "   shard %s leaves zone %s\n", id, zone);
   return !pf->plan || pf_plan_all (pf, NULL, false, err);
}

/* The chunk of c holding key (a document of the shard key's values), or NULL. */
static pf_chunk_t *
pf_chunk_at (pf_coll_t *c, const bson_t *key)
{
   for (size_t i = 0; i < c->nchunks; i++) {
      if (order_keys (c->chunks[i].min, key) <= 0 && order_keys (key, c->chunks[i].max) < 0)
         return &c->chunks[i];
   }
   return NULL;
}

static bool
pf_move (preflight_t *pf, const sh_call_t *call, bool range, sh_error_t *err)
{
   const char *ns = args_str (call, 0), *to = args_str (call, range ? 1 : 2);
   bson_t q, min, max;
   pf_coll_t *c;
   pf_chunk_t *k = NULL;
   const char *zone;
   int64_t docs, bytes;
   if (!ns || !to)
      return true;
   if (!pf_need_sharded (pf, call, 0, ns, &c, err) || !pf_need_shard (pf, call, range ? 1 : 2, to, true, err))
      return false;
   if (!pf_load_chunks (pf, c, err))
      return false;
   if (range) {
      if (!args_doc (call, 2, &min))
         return true;
      if (!pf_check_bound (call, 2, &min, c, err))
         return false;
      k = pf_chunk_at (c, &min);
   } else if (args_doc (call, 1, &q)) {
      bson_t key;
      bson_iter_t f, v;
      bool all = true;
      bson_init (&key);
      bson_iter_init (&f, c->key);
      while (bson_iter_next (&f)) {
         if (BSON_ITER_HOLDS_UTF8 (&f) || !bson_iter_init_find (&v, &q, bson_iter_key (&f))) {
            all = false; /* hashed or partial: the server finds the chunk */
            break;
         }
         bson_append_value (&key, bson_iter_key (&f), -1, bson_iter_value (&v));
      }
      if (all)
         k = pf_chunk_at (c, &key);
      bson_destroy (&key);
   }
   if (!k)
      return true;
   zone = pf_zone_of (pf, ns, k->min, k->max);
   if (zone && !pf_has_tag (pf_shard (pf, to), zone)) {
      sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, range ? 1 : 2),
                       "shard %s is not in zone %s, the zone of the chunk: the server refuses the move", to, zone);
      return false;
   }
   if (!strcmp (k->shard, to)) {
      cmd_warn (pf->ctx, "%s:%d:%d: warning: the chunk is already on %s", pf->file, call->pos.line, call->pos.col, to);
      return true;
   }
   bson_copy_to (k->max, &max);
   if (range && args_doc (call, 3, &q) && order_keys (&q, k->max) < 0) {
      bson_destroy (&max);
      bson_copy_to (&q, &max);
   }
   if (range) {
      pf_split_at (pf, c, &min);
      pf_split_at (pf, c, &max);
      k = pf_chunk_at (c, &min);
   }
   /* sizes only when they are shown: the plan, or a confirmation in a terminal */
   docs = bytes = 0;
   if (pf->plan || pf->ctx->interactive)
      pf_chunk_size (pf, c, k, &docs, &bytes);
   pf_plan_move (pf, c, k->min, k->max, k->shard, to, docs, bytes);
   bson_free (k->shard);
   k->shard = bson_strdup (to);
   bson_destroy (&max);
   return true;
}

/* { removeShard: id }: the shard exists; under --plan what it has to drain and how long that takes. */
static bool
pf_remove_shard (preflight_t *pf, const sh_call_t *call, const char *id, sh_error_t *err)
{
   pf_shard_t *s;
   int64_t chunks = 0, docs = 0, bytes = 0;
   int ncolls = 0, ndbs = 0;
   if (!pf_need_shard (pf, call, 0, id, false, err))
      return false;
   s = pf_shard (pf, id);
   if (s->draining)
      cmd_warn (pf->ctx, "%s:%d:%d: warning: shard %s is already draining", pf->file, call->pos.line, call->pos.col,
                id);
   s->draining = true;
   if (!pf->plan)
      return true;
   for (size_t i = 0; i < pf->ncolls; i++) {
      pf_coll_t *c = &pf->colls[i];
      bool has = false;
      if (!pf_load_chunks (pf, c, err))
         return false;
      for (size_t j = 0; j < c->nchunks; j++) {
         int64_t d, b;
         if (strcmp (c->chunks[j].shard, id) != 0)
            continue;
         has = true;
         chunks++;
         pf_chunk_size (pf, c, &c->chunks[j], &d, &b);
         docs += d;
         bytes += b;
      }
      ncolls += has;
   }
   {
      bson_t cmd = BSON_INITIALIZER, f, docs_db;
      bson_iter_t it;
      sh_error_t e;
      sh_error_clear (&e);
      BSON_APPEND_UTF8 (&cmd, "find", "databases");
      BSON_APPEND_DOCUMENT_BEGIN (&cmd, "filter", &f);
      BSON_APPEND_UTF8 (&f, "primary", id);
      bson_append_document_end (&cmd, &f);
      if (conn_run_docs (pf->ctx, "config", &cmd, CONN_READ, PF_MAX_DOCS, &docs_db, NULL, &e) &&
          bson_iter_init (&it, &docs_db)) {
         while (bson_iter_next (&it))
            ndbs++;
      }
      bson_destroy (&cmd);
      bson_destroy (&docs_db);
   }
   {
      /* the migration rate: the bytes the recent migrations cloned (moveChunk.commit counts.clonedBytes) over the
       * time their donors spent in their steps (moveChunk.from "step k of 6", or "of 7") */
      bson_t cmd = BSON_INITIALIZER, f, in, sort, docs_cl;
      bson_iter_t it;
      sh_error_t e;
      double cloned = 0, ms = 0;
      char sz[32];
      sh_error_clear (&e);
      BSON_APPEND_UTF8 (&cmd, "find", "changelog");
      BSON_APPEND_DOCUMENT_BEGIN (&cmd, "filter", &f);
      BSON_APPEND_DOCUMENT_BEGIN (&f, "what", &in);
      {
         bson_t arr;
         BSON_APPEND_ARRAY_BEGIN (&in, "$in", &arr);
         BSON_APPEND_UTF8 (&arr, "0", "moveChunk.from");
         BSON_APPEND_UTF8 (&arr, "1", "moveChunk.commit");
         bson_append_array_end (&in, &arr);
      }
      bson_append_document_end (&f, &in);
      bson_append_document_end (&cmd, &f);
      BSON_APPEND_DOCUMENT_BEGIN (&cmd, "sort", &sort);
      BSON_APPEND_INT32 (&sort, "time", -1);
      bson_append_document_end (&cmd, &sort);
      BSON_APPEND_INT32 (&cmd, "limit", 200);
      if (conn_run_docs (pf->ctx, "config", &cmd, CONN_READ, 200, &docs_cl, NULL, &e) &&
          bson_iter_init (&it, &docs_cl)) {
         while (bson_iter_next (&it)) {
            bson_t d;
            if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d))
               continue;
            cloned += docget_double (&d, "details.counts.clonedBytes", 0, NULL);
            for (int of = 6; of <= 7; of++) {
               for (int step = 1; step <= of; step++) {
                  char path[64];
                  bool present;
                  double v;
                  bson_snprintf (path, sizeof path, "details.step %d of %d", step, of);
                  v = docget_double (&d, path, 0, &present);
                  if (present)
                     ms += v;
               }
            }
         }
      }
      bson_destroy (&cmd);
      bson_destroy (&docs_cl);
      cmd_format_bytes ((double) bytes, sz, sizeof sz);
      if (!pf->ctx->opts->json) {
         fprintf (pf->ctx->out_fp,
                  "   shard %s drains: %lld chunks, %lld docs, %s in %d collections; %d databases "
                  "to move their primary",
                  id, (long long) chunks, (long long) docs, sz, ncolls, ndbs);
         if (cloned > 0 && ms > 0)
            fprintf (pf->ctx->out_fp, "; about %.1f s at the recent migration rate (%.0f bytes/s)\n",
                     (double) bytes / (cloned / (ms / 1000.0)), cloned / (ms / 1000.0));
         else
            fprintf (pf->ctx->out_fp, "; no recent migration in config.changelog to estimate the time from\n");
      }
   }
   return pf_plan_all (pf, NULL, true, err);
}

/* True when index (a key pattern) supports the shard key: the key's fields are its first fields, in order, ranged
 * fields ascending or descending and a hashed field hashed. */
static bool
pf_index_supports (const bson_t *index, const bson_t *key)
{
   bson_iter_t k, x;
   if (!bson_iter_init (&k, key) || !bson_iter_init (&x, index))
      return false;
   while (bson_iter_next (&k)) {
      bool hashed = BSON_ITER_HOLDS_UTF8 (&k) && !strcmp (bson_iter_utf8 (&k, NULL), "hashed");
      if (!bson_iter_next (&x) || strcmp (bson_iter_key (&k), bson_iter_key (&x)) != 0)
         return false;
      if (hashed != (BSON_ITER_HOLDS_UTF8 (&x) && !strcmp (bson_iter_utf8 (&x, NULL), "hashed")))
         return false;
      if (!hashed && !BSON_ITER_HOLDS_NUMBER (&x))
         return false;
   }
   return true;
}

/* sh.shardCollection of an unsharded ns: an existing, non-empty collection needs an index that supports the key
 * (listIndexes; an index created earlier in the script counts). A missing or empty collection gets its index from
 * the server. */
static bool
pf_supported_key (preflight_t *pf, const sh_call_t *call, const char *ns, const bson_t *key, sh_error_t *err)
{
   const char *dot = strchr (ns, '.');
   char db[256], kj[256];
   bson_t cmd = BSON_INITIALIZER, docs, reply;
   bson_iter_t it;
   sh_error_t e;
   bool supported = false, ok = true;
   int64_t n = 0;
   if (!dot || (size_t) (dot - ns) >= sizeof db)
      return true;
   bson_strncpy (db, ns, (size_t) (dot - ns) + 1);
   if (bson_iter_init (&it, &pf->new_indexes)) {
      while (bson_iter_next (&it)) {
         bson_t idx;
         if (!strcmp (bson_iter_key (&it), ns) && docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &idx) &&
             pf_index_supports (&idx, key))
            return true;
      }
   }
   sh_error_clear (&e);
   BSON_APPEND_UTF8 (&cmd, "listIndexes", dot + 1);
   if (!conn_run_docs (pf->ctx, db, &cmd, CONN_READ, 1000, &docs, NULL, &e)) {
      bson_destroy (&cmd);
      bson_destroy (&docs);
      if (e.kind == SH_ERR_SERVER && e.code == 26)
         return true; /* NamespaceNotFound: the server creates the collection and its index */
      *err = e;
      return false;
   }
   if (bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it) && !supported) {
         bson_t d, k;
         if (docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) && pf_sub (&d, "key", &k))
            supported = pf_index_supports (&k, key);
      }
   }
   bson_destroy (&docs);
   if (!supported) {
      bson_reinit (&cmd);
      BSON_APPEND_UTF8 (&cmd, "count", dot + 1);
      sh_error_clear (&e);
      if (conn_run (pf->ctx, db, &cmd, CONN_READ, &reply, &e))
         n = pf_int_at (&reply, "n");
      bson_destroy (&reply);
      if (n > 0) {
         output_format_doc_line (key, kj, sizeof kj);
         sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, 1),
                          "no index of %s supports the shard key %s and it holds %lld documents", ns, kj,
                          (long long) n);
         sh_error_hint (err, "create one first: db.getSiblingDB(\"%s\").%s.createIndex(%s)", db, dot + 1, kj);
         ok = false;
      }
   }
   bson_destroy (&cmd);
   return ok;
}

/* Under --plan, sh.shardCollection of a new collection: its initial chunks per shard. A hashed key: numInitialChunks
 * (default two per shard up to 7.0, one per shard from 8.0) in runs of numInitialChunks / shards contiguous chunks per
 * shard; with presplitHashedZones one chunk per shard of each zone range of the namespace. A ranged key: one chunk on
 * the primary shard. */
static bool
pf_plan_initial_chunks (preflight_t *pf, const sh_call_t *call, const char *ns, const bson_t *key, sh_error_t *err)
{
   bson_iter_t it, o;
   bson_t opts;
   bool hashed = false, presplit = false;
   int64_t n = -1;
   size_t nshards = 0;
   bson_string_t *line;
   if (bson_iter_init (&it, key)) {
      while (bson_iter_next (&it))
         hashed |= BSON_ITER_HOLDS_UTF8 (&it) && !strcmp (bson_iter_utf8 (&it, NULL), "hashed");
   }
   if (!args_opt_int (call, 3, "numInitialChunks", 0, 1000000, &n, err))
      return false;
   if (args_doc (call, 3, &opts) && bson_iter_init_find (&o, &opts, "presplitHashedZones"))
      presplit = bson_iter_as_bool (&o);
   for (size_t s = 0; s < pf->nshards; s++)
      nshards += !pf->shards[s].draining;
   if (pf->ctx->opts->json || !nshards)
      return true;
   if (!hashed) {
      fprintf (pf->ctx->out_fp, "   initial chunks of %s: 1 on the primary shard of its database\n", ns);
      return true;
   }
   line = bson_string_new (NULL);
   if (presplit) {
      for (size_t s = 0; s < pf->nshards; s++) {
         int k = 0;
         for (size_t r = 0; r < pf->nranges; r++)
            k += !strcmp (pf->ranges[r].ns, ns) && pf_has_tag (&pf->shards[s], pf->ranges[r].zone);
         bson_string_append_printf (line, "%s%s %d", line->len ? ", " : "", pf->shards[s].id, k);
      }
      fprintf (pf->ctx->out_fp, "   initial chunks of %s (presplitHashedZones, one per shard of each zone range): %s\n",
               ns, line->str);
   } else {
      int64_t total = n > 0 ? n : (int64_t) nshards * (pf->version[0] >= 8 ? 1 : 2);
      int64_t per = total / (int64_t) nshards;
      size_t k = 0;
      if (per == 0) {
         fprintf (pf->ctx->out_fp, "   initial chunks of %s: %lld, the first on the primary shard\n", ns,
                  (long long) total);
         bson_string_free (line, true);
         return true;
      }
      for (size_t s = 0; s < pf->nshards; s++) {
         int64_t cnt = 0;
         if (pf->shards[s].draining)
            continue;
         for (int64_t i = 0; i < total; i++)
            cnt += (size_t) ((i / per) % (int64_t) nshards) == k;
         k++;
         bson_string_append_printf (line, "%s%s %lld", line->len ? ", " : "", pf->shards[s].id, (long long) cnt);
      }
      fprintf (pf->ctx->out_fp, "   initial chunks of %s: %lld (%s)\n", ns, (long long) total, line->str);
   }
   bson_string_free (line, true);
   return true;
}

/* The canonical name of an entry (an alias's target). */
static const char *
pf_name (const sh_call_t *call)
{
   return (call->cmd->flags & CMD_ALIAS) && call->cmd->alias_of ? call->cmd->alias_of : call->cmd->name;
}

bool
preflight_call (preflight_t *pf, const sh_call_t *call, bool writes, const char *file, const char *stmt_text,
                sh_error_t *err)
{
   const char *name = pf_name (call);
   bool ok = true;
   pf->effect[0] = '\0';
   pf->file = file;
   if (call->cmd->since && !dispatch_version_at_least (pf->version, call->cmd->since)) {
      sh_error_set_at (err, SH_ERR_VERSION, call->pos, "%s needs MongoDB %s and the cluster runs %d.%d.%d",
                       call->cmd->name, call->cmd->since, pf->version[0], pf->version[1], pf->version[2]);
      return false;
   }
   if (pf->plan && writes && !pf->ctx->opts->json)
      fprintf (pf->ctx->out_fp, "%s:%d %s\n", file, call->pos.line, stmt_text);
   if (!strcmp (name, "sh.addShardToZone") || !strcmp (name, "sh.removeShardFromZone")) {
      ok = pf_shard_zone (pf, call, name[3] == 'a', err);
   } else if (!strcmp (name, "sh.updateZoneKeyRange")) {
      bson_iter_t z;
      bool has = args_get (call, 3, &z);
      if (has && BSON_ITER_HOLDS_UTF8 (&z))
         ok = pf_zone_range (pf, call, 0, bson_iter_utf8 (&z, NULL), false, err);
      else if (has && BSON_ITER_HOLDS_NULL (&z))
         ok = pf_zone_range (pf, call, 0, NULL, true, err);
   } else if (!strcmp (name, "sh.removeRangeFromZone")) {
      ok = pf_zone_range (pf, call, 0, NULL, true, err);
   } else if (!strcmp (name, "sh.moveChunk")) {
      ok = pf_move (pf, call, false, err);
   } else if (!strcmp (name, "sh.moveRange")) {
      ok = pf_move (pf, call, true, err);
   } else if (!strcmp (name, "sh.splitAt") || !strcmp (name, "sh.splitFind") || !strcmp (name, "sh.disableBalancing") ||
              !strcmp (name, "sh.enableBalancing")) {
      pf_coll_t *c;
      ok = !args_str (call, 0) || pf_need_sharded (pf, call, 0, args_str (call, 0), &c, err);
   } else if (!strcmp (name, "sh.removeShard")) {
      ok = !args_str (call, 0) || pf_remove_shard (pf, call, args_str (call, 0), err);
   } else if (!strcmp (name, "db.adminCommand") || !strcmp (name, "db.runCommand")) {
      bson_t doc;
      bson_iter_t it;
      if (args_doc (call, 0, &doc) && bson_iter_init (&it, &doc) && bson_iter_next (&it) &&
          !strcmp (bson_iter_key (&it), "removeShard") && BSON_ITER_HOLDS_UTF8 (&it))
         ok = pf_remove_shard (pf, call, bson_iter_utf8 (&it, NULL), err);
   } else if (!strcmp (name, "sh.shardCollection")) {
      const char *ns = args_str (call, 0);
      bson_t key;
      pf_coll_t *c = pf_coll (pf, ns);
      if (ns && args_doc (call, 1, &key)) {
         if (c && !bson_equal (c->key, &key)) {
            char have[256];
            output_format_doc_line (c->key, have, sizeof have);
            sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, 0), "%s is already sharded with the key %s", ns, have);
            return false;
         }
         if (!c && !pf_supported_key (pf, call, ns, &key, err))
            return false;
         if (!c && pf->plan && !pf_plan_initial_chunks (pf, call, ns, &key, err))
            return false;
         if (!c)
            pf_coll_add (pf, ns, NULL, &key);
      }
   } else if ((!strcmp (name, "db.collection.createIndex") || !strcmp (name, "db.collection.ensureIndex")) &&
              call->coll) {
      bson_t key;
      char ns[512];
      if (args_doc (call, 0, &key)) {
         bson_snprintf (ns, sizeof ns, "%s.%s", call->db, call->coll);
         BSON_APPEND_DOCUMENT (&pf->new_indexes, ns, &key);
      }
   }
   if (ok && pf->plan && writes && !pf->ctx->opts->json && !pf->effect[0] && strcmp (name, "sh.removeShard") &&
       strcmp (name, "sh.addShardToZone") && strcmp (name, "sh.removeShardFromZone"))
      fprintf (pf->ctx->out_fp, "   (nothing moves)\n");
   return ok;
}

const char *
preflight_effect (const preflight_t *pf, size_t input, size_t stmt)
{
   size_t k;
   if (!pf || !pf->effects || input >= pf->ninputs)
      return NULL;
   k = pf->effect_base[input] + stmt;
   return k < pf->neffects ? pf->effects[k] : NULL;
}

/* State of one pass over the scripts. */
typedef struct {
   preflight_t *pf;
   const sh_script_t *script;
   const sh_stmt_t *stmt;
   bool writes; /* the first pass: whether anything writes */
} pf_pass_t;

static bool
pf_any_write (void *data, const sh_call_t *call, bool writes, sh_error_t *err)
{
   (void) call;
   (void) err;
   ((pf_pass_t *) data)->writes |= writes;
   return true;
}

static bool
pf_check_one (void *data, const sh_call_t *call, bool writes, sh_error_t *err)
{
   pf_pass_t *p = data;
   const char *src = p->script->source;
   size_t a = p->stmt->pos.offset, b = p->stmt->end_pos.offset;
   char text[512];
   size_t len = b > a ? b - a : 0;
   if (len >= sizeof text)
      len = sizeof text - 1;
   memcpy (text, src + a, len);
   text[len] = '\0';
   if (!strcmp (call->cmd->name, "use") && args_str (call, 0)) {
      /* as the run will: later statements resolve against this database (restored after the pre-flight) */
      bson_free (p->pf->ctx->db);
      p->pf->ctx->db = bson_strdup (args_str (call, 0));
      return true;
   }
   return preflight_call (p->pf, call, writes, p->script->name, text, err);
}

/* Puts back the current database the pre-flight's `use` statements moved; frees saved. */
static void
pf_restore_db (sh_ctx_t *ctx, char *saved)
{
   bson_free (ctx->db);
   ctx->db = saved;
}

int
preflight_scripts (sh_ctx_t *ctx, const sh_script_t *const *scripts, size_t n, preflight_t **out)
{
   char *saved_db;
   pf_pass_t p = { 0 };
   sh_error_t err;
   bool plan = ctx->opts && ctx->opts->plan;
   *out = NULL;
   if (!ctx->opts || ctx->opts->dry_run || (ctx->opts->no_preflight && !plan))
      return 0;
   for (size_t i = 0; i < n && !p.writes; i++) {
      for (size_t s = 0; scripts[i] && s < scripts[i]->n && !p.writes; s++) {
         sh_error_clear (&err);
         dispatch_with_call (ctx, &scripts[i]->stmts[s], pf_any_write, &p, &err);
      }
   }
   if (!p.writes && !plan)
      return 0;
   sh_error_clear (&err);
   if (!(p.pf = preflight_new (ctx, plan, &err))) {
      if (plan)
         sh_error_hint (&err, "--plan reads the cluster; nothing was written");
      else
         sh_error_hint (&err, "the pre-flight reads the cluster before the first write; --no-preflight skips it");
      sh_error_render (ctx->err_fp, &err, NULL, NULL, ctx->err_color);
      return 1;
   }
   saved_db = bson_strdup (ctx->db);
   p.pf->ninputs = n;
   p.pf->effect_base = bson_malloc0 ((n ? n : 1) * sizeof *p.pf->effect_base);
   for (size_t i = 0; i < n; i++) {
      p.pf->effect_base[i] = p.pf->neffects;
      p.pf->neffects += scripts[i] ? scripts[i]->n : 0;
   }
   p.pf->effects = bson_malloc0 ((p.pf->neffects ? p.pf->neffects : 1) * sizeof *p.pf->effects);
   for (size_t i = 0; i < n; i++) {
      p.script = scripts[i];
      for (size_t s = 0; scripts[i] && s < scripts[i]->n; s++) {
         p.stmt = &scripts[i]->stmts[s];
         sh_error_clear (&err);
         if (!dispatch_with_call (ctx, p.stmt, pf_check_one, &p, &err)) {
            if (err.kind == SH_ERR_NETWORK || err.kind == SH_ERR_SERVER) {
               sh_error_hint (&err, "the pre-flight could not read the cluster; nothing was written");
               sh_error_render (ctx->err_fp, &err, scripts[i]->name, scripts[i]->source, ctx->err_color);
               preflight_free (p.pf);
               pf_restore_db (ctx, saved_db);
               return 1;
            }
            if (!err.hint[0])
               sh_error_hint (&err, "found by the pre-flight: nothing was written (--no-preflight skips it)");
            sh_error_render (ctx->err_fp, &err, scripts[i]->name, scripts[i]->source, ctx->err_color);
            fflush (ctx->err_fp);
            preflight_free (p.pf);
            pf_restore_db (ctx, saved_db);
            return 2;
         }
         if (p.pf->effect[0])
            p.pf->effects[p.pf->effect_base[i] + s] = bson_strdup (p.pf->effect);
      }
   }
   pf_restore_db (ctx, saved_db);
   if (plan)
      preflight_plan_end (p.pf);
   fflush (ctx->out_fp);
   *out = p.pf;
   return 0;
}

void
preflight_plan_end (preflight_t *pf)
{
   char sz[32];
   bson_t doc = BSON_INITIALIZER, plan;
   char *json;
   cmd_format_bytes ((double) pf->bytes, sz, sizeof sz);
   if (!pf->ctx->opts->json) {
      fprintf (pf->ctx->out_fp, "total: %d chunks, %lld docs, %s would move\n", pf->nmoves, (long long) pf->docs, sz);
      return;
   }
   BSON_APPEND_DOCUMENT_BEGIN (&doc, "plan", &plan);
   BSON_APPEND_ARRAY (&plan, "moves", &pf->moves);
   BSON_APPEND_INT64 (&plan, "chunks", pf->nmoves);
   BSON_APPEND_INT64 (&plan, "docs", pf->docs);
   BSON_APPEND_INT64 (&plan, "bytes", pf->bytes);
   bson_append_document_end (&doc, &plan);
   {
      output_opts_t o = output_opts_default (OUTPUT_JSON, false);
      json = output_format_doc (&doc, &o);
   }
   fprintf (pf->ctx->out_fp, "%s\n", json);
   bson_free (json);
   bson_destroy (&doc);
}

bool
preflight_describe (sh_ctx_t *ctx, const sh_call_t *call, char *buf, size_t len)
{
   sh_error_t err;
   preflight_t *pf;
   bool ok;
   sh_error_clear (&err);
   buf[0] = '\0';
   if (!(pf = preflight_new (ctx, false, &err)))
      return false;
   pf->file = "<confirm>";
   ok = preflight_call (pf, call, true, "", "", &err);
   if (!ok)
      bson_snprintf (buf, len, "pre-flight: %s", err.message);
   else
      bson_strncpy (buf, pf->effect, len);
   preflight_free (pf);
   return buf[0] != '\0';
}

preflight_t *
preflight_new (sh_ctx_t *ctx, bool plan, sh_error_t *err)
{
   preflight_t *pf = bson_malloc0 (sizeof *pf);
   pf->ctx = ctx;
   pf->plan = plan;
   bson_init (&pf->moves);
   bson_init (&pf->ranged_zones);
   bson_init (&pf->new_indexes);
   if (!pf_load (pf, err)) {
      preflight_free (pf);
      return NULL;
   }
   return pf;
}

void
preflight_free (preflight_t *pf)
{
   if (!pf)
      return;
   for (size_t i = 0; i < pf->nshards; i++) {
      bson_free (pf->shards[i].id);
      bson_destroy (pf->shards[i].tags);
   }
   while (pf->nranges)
      pf_range_remove (pf, pf->nranges - 1);
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
   bson_destroy (&pf->moves);
   bson_destroy (&pf->ranged_zones);
   for (size_t i = 0; i < pf->neffects; i++)
      bson_free (pf->effects[i]);
   bson_free (pf->effects);
   bson_free (pf->effect_base);
   bson_destroy (&pf->new_indexes);
   bson_free (pf);
}
