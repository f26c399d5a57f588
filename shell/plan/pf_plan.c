/* The plan of --plan (and of a confirmation's effect): what the balancer would move once a statement has changed the
 * zones or the shards, under the server version's policy (load by chunk count before 6.0, by data size from 6.0);
 * what a removeShard drains and how long; the initial chunks of a new sharded collection; the printed and JSON
 * totals. See pf_model.h and docs/plan.md. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "shell/lib/checked.h"
#include "commands/commands.h"
#include "commands/stuck.h"
#include "shell/core/conn.h"
#include "shell/core/output.h"
#include "shell/lib/docget.h"
#include "shell/lib/order.h"
#include "shell/plan/pf_model.h"

/* "824 docs, 159KiB", or "size unknown" when docs or bytes could not be read, into buf. */
static void
pf_plan_size_text (int64_t docs, int64_t bytes, char *buf, size_t len)
{
   char sz[32];
   if (docs < 0 || bytes < 0) {
      bson_strncpy (buf, "size unknown", len);
      return;
   }
   cmd_format_bytes ((double) bytes, sz, sizeof sz);
   bson_snprintf (buf, len, "%lld docs, %s", (long long) docs, sz);
}

/* Appends docs and bytes to m, null when unknown. */
static void
pf_plan_append_size (bson_t *m, int64_t docs, int64_t bytes)
{
   if (docs < 0 || bytes < 0) {
      BSON_APPEND_NULL (m, "docs");
      BSON_APPEND_NULL (m, "bytes");
   } else {
      BSON_APPEND_INT64 (m, "docs", docs);
      BSON_APPEND_INT64 (m, "bytes", bytes);
   }
}

/* The model's shards as config.shards documents { _id, draining, tags }, for commands/stuck.h. */
static void
pf_plan_shards_doc (const preflight_t *pf, bson_t *out)
{
   char key[16];
   for (size_t s = 0; s < pf->nshards; s++) {
      bson_t d;
      bson_snprintf (key, sizeof key, "%zu", s);
      BSON_APPEND_DOCUMENT_BEGIN (out, key, &d);
      BSON_APPEND_UTF8 (&d, "_id", pf->shards[s].id);
      BSON_APPEND_BOOL (&d, "draining", pf->shards[s].draining);
      if (pf->shards[s].tags)
         BSON_APPEND_ARRAY (&d, "tags", pf->shards[s].tags);
      bson_append_document_end (out, &d);
   }
}

/* Sets flag i of *v (growing it to hold i). */
static void
pf_plan_flag_set (bool **v, size_t *cap, size_t i, bool flag)
{
   if (i >= *cap) {
      size_t n = *cap ? *cap : 64;
      while (n <= i)
         n *= 2;
      *v = bson_realloc (*v, n * sizeof **v);
      *cap = n;
   }
   (*v)[i] = flag;
}

/* True when the balancer moves [min, max) of c off from only because from drains: from drains and the chunk's zone
 * (if it has one) is one of from's. */
static bool
pf_plan_drain_only (preflight_t *pf, const pf_coll_t *c, const bson_t *min, const bson_t *max, const char *from)
{
   const pf_shard_t *s = pf_model_shard (pf, from);
   const char *zone;
   if (!s || !s->draining)
      return false;
   zone = pf_model_zone_of (pf, c->ns, min, max);
   return !zone || pf_model_has_tag (s, zone);
}

/* A chunk that must leave from (it drains, or lies outside its zone) but that no shard can take: printed as "will not
 * move" with why and the fix (commands/stuck.h), counted apart from the moves. */
static void
pf_plan_stuck (preflight_t *pf, const pf_coll_t *c, const bson_t *min, const bson_t *max, const char *from,
               int64_t docs, int64_t bytes)
{
   char a[256], b[256], key[16];
   bson_t shards = BSON_INITIALIZER, m;
   stuck_t st;
   const char *zone = pf_model_zone_of (pf, c->ns, min, max);
   output_format_doc_line (min, a, sizeof a);
   output_format_doc_line (max, b, sizeof b);
   char zmin[256] = "", zmax[256] = "";
   for (size_t r = 0; zone && r < pf->nranges; r++) {
      const pf_range_t *g = &pf->ranges[r];
      if (!strcmp (g->ns, c->ns) && !strcmp (g->zone, zone) && order_keys (g->min, min) <= 0 &&
          order_keys (min, g->max) < 0) {
         output_format_doc_line (g->min, zmin, sizeof zmin);
         output_format_doc_line (g->max, zmax, sizeof zmax);
      }
   }
   pf_plan_shards_doc (pf, &shards);
   if (!stuck_no_recipient (&shards, c->ns, zone, zmin[0] ? zmin : NULL, zmax[0] ? zmax : NULL, from, 1, &st)) {
      bson_snprintf (st.why, sizeof st.why, "no shard can take it");
      bson_snprintf (st.fix, sizeof st.fix, "sh.explainBalance(\"%s\")", c->ns);
   }
   bson_destroy (&shards);
   if (pf->plan && !pf->ctx->opts->json) {
      char size[64];
      pf_plan_size_text (docs, bytes, size, sizeof size);
      fprintf (pf->ctx->out_fp, "   will not move %s [%s, %s) %s on %s: STUCK: %s\n      fix: %s\n", c->ns, a, b, size,
               from, st.why, st.fix);
   }
   bson_snprintf (pf->effect, sizeof pf->effect, "will not move %s [%s, %s) on %s: %s", c->ns, a, b, from, st.why);
   pf_plan_flag_set (&pf->stuck_drain, &pf->cap_stuck_drain, (size_t) pf->nstuck,
                     pf_plan_drain_only (pf, c, min, max, from));
   bson_snprintf (key, sizeof key, "%d", pf->nstuck++);
   BSON_APPEND_DOCUMENT_BEGIN (&pf->stuck, key, &m);
   BSON_APPEND_UTF8 (&m, "ns", c->ns);
   BSON_APPEND_DOCUMENT (&m, "min", min);
   BSON_APPEND_DOCUMENT (&m, "max", max);
   BSON_APPEND_UTF8 (&m, "from", from);
   pf_plan_append_size (&m, docs, bytes);
   BSON_APPEND_UTF8 (&m, "stuck", st.why);
   BSON_APPEND_UTF8 (&m, "fix", st.fix);
   bson_append_document_end (&pf->stuck, &m);
}

/* Who makes a move of c and when (the model's balancer state now, c's noBalance), and its words in the plan. */
static pf_by_t
pf_plan_by (const preflight_t *pf, const pf_coll_t *c, bool by_command, char *when, size_t len)
{
   pf_by_t by = by_command         ? PF_BY_COMMAND
                : pf->balancer_off ? PF_NOT_STOPPED
                : c->no_balance    ? PF_NOT_NO_BAL
                                   : PF_BY_BALANCER;
   when[0] = '\0';
   if (by == PF_NOT_STOPPED)
      bson_strncpy (when, " not while the balancer is stopped", len);
   else if (by == PF_NOT_NO_BAL)
      bson_snprintf (when, len, " not while balancing of %s is disabled", c->ns);
   else if (by == PF_BY_BALANCER && pf->window[0])
      bson_snprintf (when, len, " when the balancer runs (its window: %s)", pf->window);
   else if (by == PF_BY_BALANCER)
      bson_strncpy (when, " when the balancer runs", len);
   return by;
}

static const char *const pf_by_json[PF_BY_N] = { "command", "balancer", "notWhileBalancerStopped",
                                                 "notWhileBalancingDisabled" };

void
pf_plan_move (preflight_t *pf, const pf_coll_t *c, const bson_t *min, const bson_t *max, const char *from,
              const char *to, int64_t docs, int64_t bytes, bool by_command)
{
   char a[256], b[256], size[64], key[16], when[160];
   bson_t m;
   pf_by_t by;
   if (!to) {
      pf_plan_stuck (pf, c, min, max, from, docs, bytes);
      return;
   }
   output_format_doc_line (min, a, sizeof a);
   output_format_doc_line (max, b, sizeof b);
   pf_plan_size_text (docs, bytes, size, sizeof size);
   by = pf_plan_by (pf, c, by_command, when, sizeof when);
   pf->nby[by]++;
   if (pf->plan && !pf->ctx->opts->json)
      fprintf (pf->ctx->out_fp, "   move %s [%s, %s) %s %s -> %s%s\n", c->ns, a, b, size, from, to, when);
   bson_snprintf (pf->effect, sizeof pf->effect, "move %s [%s, %s) %s %s -> %s%s", c->ns, a, b, size, from, to, when);
   pf_plan_flag_set (&pf->move_drain, &pf->cap_move_drain, (size_t) pf->nmoves,
                     !by_command && pf_plan_drain_only (pf, c, min, max, from));
   bson_snprintf (key, sizeof key, "%d", pf->nmoves++);
   BSON_APPEND_DOCUMENT_BEGIN (&pf->moves, key, &m);
   BSON_APPEND_UTF8 (&m, "ns", c->ns);
   BSON_APPEND_DOCUMENT (&m, "min", min);
   BSON_APPEND_DOCUMENT (&m, "max", max);
   BSON_APPEND_UTF8 (&m, "from", from);
   BSON_APPEND_UTF8 (&m, "to", to);
   pf_plan_append_size (&m, docs, bytes);
   BSON_APPEND_UTF8 (&m, "by", pf_by_json[by]);
   bson_append_document_end (&pf->moves, &m);
   if (docs < 0 || bytes < 0) {
      pf->nunknown++;
   } else {
      pf->docs = ck_add (pf->docs, docs);
      pf->bytes = ck_add (pf->bytes, bytes);
   }
}

void
pf_plan_move_unknown (preflight_t *pf, const pf_coll_t *c, const bson_t *query, const char *to)
{
   char q[256], key[16];
   bson_t m;
   output_format_doc_line (query, q, sizeof q);
   if (pf->plan && !pf->ctx->opts->json)
      fprintf (pf->ctx->out_fp, "   move the chunk of %s holding %s -> %s (the server finds it: size unknown)\n", c->ns,
               q, to);
   bson_snprintf (pf->effect, sizeof pf->effect, "move the chunk of %s holding %s -> %s (size unknown)", c->ns, q, to);
   pf_plan_flag_set (&pf->move_drain, &pf->cap_move_drain, (size_t) pf->nmoves, false);
   bson_snprintf (key, sizeof key, "%d", pf->nmoves++);
   BSON_APPEND_DOCUMENT_BEGIN (&pf->moves, key, &m);
   BSON_APPEND_UTF8 (&m, "ns", c->ns);
   BSON_APPEND_DOCUMENT (&m, "find", query);
   BSON_APPEND_UTF8 (&m, "to", to);
   pf_plan_append_size (&m, -1, -1);
   BSON_APPEND_UTF8 (&m, "by", pf_by_json[PF_BY_COMMAND]);
   bson_append_document_end (&pf->moves, &m);
   pf->nunknown++;
   pf->nby[PF_BY_COMMAND]++;
}

/* Splits the chunk of c holding bound there (the balancer splits at zone boundaries before it moves; moveRange moves
 * [min, max)). When sizes are wanted, the parent's size is read first and shared between the pieces by a count of
 * the left piece (bytes in proportion), so the pieces add up to what the server holds. */
void
pf_plan_split_at (preflight_t *pf, pf_coll_t *c, const bson_t *bound)
{
   size_t i = pf_model_chunk_index (c, bound);
   if (i < c->nchunks) {
      pf_chunk_t *k = &c->chunks[i];
      if (order_keys (k->min, bound) < 0 && order_keys (bound, k->max) < 0) {
         pf_chunk_t right;
         int64_t left_docs = -1, left_bytes = -1;
         if (pf->plan || pf->ctx->interactive) {
            if (k->docs < 0)
               pf_model_data_size (pf, c, k->min, k->max, &k->docs, &k->bytes);
            left_docs = pf_model_count_range (pf, c, k->min, bound);
            if (left_docs < 0)
               pf_model_data_size (pf, c, k->min, bound, &left_docs, &left_bytes);
            else if (k->docs < 0 || k->bytes < 0 || (k->docs == 0 && left_docs > 0))
               left_bytes =
                  -1; /* the parent's size is unknown (or says nothing of these documents): so is the piece's */
            else
               left_bytes =
                  k->docs > 0 ? ck_from_double ((double) k->bytes * (double) left_docs / (double) k->docs) : 0;
         }
         if (c->nchunks == c->cap_chunks) {
            c->cap_chunks = c->cap_chunks ? 2 * c->cap_chunks : 64;
            c->chunks = bson_realloc (c->chunks, c->cap_chunks * sizeof *c->chunks);
         }
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

/* The load of every shard in every zone group of c while pf_plan_rebalance runs: chunks (before 6.0) or the bytes
 * known in the model (6.0+; a size not read yet counts 0) of the chunks of c on that shard whose zone is the group's
 * (the chunks in no zone are one group, as a zone named ""). Built in one pass, then kept as chunks move and their
 * sizes are read, so choosing a recipient costs one look per shard instead of a pass over the chunks: --plan of
 * 1,000 moves over 100,000 chunks spent 23 s of CPU in that pass. */
typedef struct {
   size_t nshards, nzones;
   const char **zones; /* the groups' names (borrowed from pf->ranges; "" for no zone) */
   size_t *zone;       /* per chunk: its group */
   size_t *shard;      /* per chunk: its shard's index in pf->shards, nshards when not a known shard */
   int64_t *load;      /* [group * nshards + shard] */
} pf_loads_t;

static int64_t
pf_loads_weight (const preflight_t *pf, const pf_chunk_t *k)
{
   return pf->version[0] >= 6 ? ck_nonneg (k->bytes) : 1;
}

static size_t
pf_loads_shard (const preflight_t *pf, const char *id)
{
   size_t s = 0;
   while (s < pf->nshards && strcmp (pf->shards[s].id, id) != 0)
      s++;
   return s;
}

/* Adds w to the load of chunk i's shard in its group (w negative: takes it away). */
static void
pf_loads_add (pf_loads_t *l, size_t i, int64_t w)
{
   if (l->shard[i] < l->nshards) {
      int64_t *v = &l->load[l->zone[i] * l->nshards + l->shard[i]];
      *v = ck_add (*v, w);
   }
}

static void
pf_loads_init (pf_loads_t *l, const preflight_t *pf, const pf_coll_t *c)
{
   size_t *range_zone = bson_malloc0 ((pf->nranges + 1) * sizeof *range_zone);
   l->nshards = pf->nshards;
   l->zones = bson_malloc ((pf->nranges + 1) * sizeof *l->zones);
   l->zones[0] = "";
   l->nzones = 1;
   for (size_t r = 0; r < pf->nranges; r++) {
      size_t z = 0;
      if (strcmp (pf->ranges[r].ns, c->ns) != 0)
         continue;
      while (z < l->nzones && strcmp (l->zones[z], pf->ranges[r].zone) != 0)
         z++;
      if (z == l->nzones)
         l->zones[l->nzones++] = pf->ranges[r].zone;
      range_zone[r] = z;
   }
   l->zone = bson_malloc (c->nchunks * sizeof *l->zone + 1);
   l->shard = bson_malloc (c->nchunks * sizeof *l->shard + 1);
   l->load = bson_malloc0 (l->nzones * (l->nshards + 1) * sizeof *l->load);
   for (size_t i = 0; i < c->nchunks; i++) {
      const pf_chunk_t *k = &c->chunks[i];
      l->zone[i] = range_zone[pf_model_zone_range (pf, c->ns, k->min, k->max)]; /* nranges: no zone, group 0 */
      l->shard[i] = pf_loads_shard (pf, k->shard);
      pf_loads_add (l, i, pf_loads_weight (pf, k));
   }
   bson_free (range_zone);
}

static void
pf_loads_destroy (pf_loads_t *l)
{
   bson_free (l->zones);
   bson_free (l->zone);
   bson_free (l->shard);
   bson_free (l->load);
}

/* True when chunk k of c (of zone zone, NULL for none) lies on a shard that may not hold it: a draining one, or one
 * outside its zone. */
static bool
pf_plan_misplaced (preflight_t *pf, const pf_chunk_t *k, const char *zone)
{
   pf_shard_t *owner = pf_model_shard (pf, k->shard);
   return owner && (owner->draining || (zone && !pf_model_has_tag (owner, zone)));
}

/* The sizes of the chunks of c that are not known yet and are about to be read (the ones on shard on, or with on
 * NULL the misplaced ones), read a span at a time where they are empty: one dataSize over a span of them that answers
 * 0 documents and 0 bytes says that every chunk inside is empty, exactly, and a size of 0 counts in no load, so
 * reading it early changes no choice. A span starts at 64 such chunks (at most 4 times as many chunks wide) and
 * doubles after each empty one, up to 4,096; one holding data leaves its chunks to be read one by one as before and
 * starts again at 64, and after four such spans the collection is taken to hold data and no more spans are asked.
 * Pre-split empty chunks (a zone layout made ahead of the data, a drain of a new shard) thus cost a few round trips
 * instead of one each. */
static void
pf_plan_prefetch_empty (preflight_t *pf, pf_coll_t *c, const char *on)
{
   int full = 0;
   size_t i = 0, want = 64;
   while (i < c->nchunks && full < 4) {
      size_t first = c->nchunks, last = 0, n = 0, j;
      int64_t docs, bytes;
      for (j = i; j < c->nchunks && n < want && (first == c->nchunks || j - first < 4 * want); j++) {
         const pf_chunk_t *k = &c->chunks[j];
         if (k->docs >= 0 && k->bytes >= 0)
            continue;
         if (on ? strcmp (k->shard, on) != 0 : !pf_plan_misplaced (pf, k, pf_model_zone_of (pf, c->ns, k->min, k->max)))
            continue;
         if (first == c->nchunks)
            first = j;
         last = j;
         n++;
      }
      i = j;
      if (n < 2)
         continue; /* one chunk: its own dataSize when it is read */
      pf_model_data_size (pf, c, c->chunks[first].min, c->chunks[last].max, &docs, &bytes);
      if (docs != 0 || bytes != 0) {
         full++;
         want = 64;
         continue;
      }
      for (j = first; j <= last; j++) {
         pf_chunk_t *k = &c->chunks[j];
         if (k->docs < 0 || k->bytes < 0)
            k->docs = k->bytes = 0;
      }
      want = BSON_MIN (2 * want, 4096);
   }
}

/* The chunks of c that now lie on a shard that may not hold them (outside their zone, or draining) move to the least
 * loaded shard allowed; each is printed and counted, and the model follows. */
static void
pf_plan_rebalance (preflight_t *pf, pf_coll_t *c)
{
   pf_loads_t l;
   pf_plan_prefetch_empty (pf, c, NULL);
   pf_loads_init (&l, pf, c);
   for (size_t i = 0; i < c->nchunks; i++) {
      pf_chunk_t *k = &c->chunks[i];
      const char *zone = pf_model_zone_of (pf, c->ns, k->min, k->max);
      const char *to = NULL;
      size_t to_s = l.nshards;
      int64_t best = INT64_MAX, docs, bytes, w;
      if (!pf_plan_misplaced (pf, k, zone))
         continue;
      for (size_t s = 0; s < pf->nshards; s++) {
         int64_t load;
         if (pf->shards[s].draining || (zone && !pf_model_has_tag (&pf->shards[s], zone)))
            continue;
         load = l.load[l.zone[i] * l.nshards + s];
         if (load < best) {
            best = load;
            to = pf->shards[s].id;
            to_s = s;
         }
      }
      w = pf_loads_weight (pf, k);
      pf_model_chunk_size (pf, c, k, &docs, &bytes);
      pf_loads_add (&l, i, pf_loads_weight (pf, k) - w); /* its size is known now */
      pf_plan_move (pf, c, k->min, k->max, k->shard, to, docs, bytes, false);
      if (to) {
         w = pf_loads_weight (pf, k);
         pf_loads_add (&l, i, -w);
         l.shard[i] = to_s;
         pf_loads_add (&l, i, w);
         bson_free (k->shard);
         k->shard = bson_strdup (to);
      }
   }
   pf_loads_destroy (&l);
}

/* After a change of zones or shards: every sharded collection whose chunks are known is looked at again. */
bool
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
      if (!pf_model_load_chunks (pf, c, err))
         return false;
      for (size_t r = 0; r < pf->nranges; r++) {
         if (!strcmp (pf->ranges[r].ns, c->ns)) {
            pf_plan_split_at (pf, c, pf->ranges[r].min);
            pf_plan_split_at (pf, c, pf->ranges[r].max);
         }
      }
      pf_plan_rebalance (pf, c);
   }
   return true;
}

/* The number of databases whose primary is shard id (config.databases); 0 when it cannot be read. */
static int
pf_plan_primaries (preflight_t *pf, const char *id)
{
   bson_t cmd = BSON_INITIALIZER, f, docs;
   bson_iter_t it;
   sh_error_t e;
   int ndbs = 0;
   sh_error_clear (&e);
   BSON_APPEND_UTF8 (&cmd, "find", "databases");
   BSON_APPEND_DOCUMENT_BEGIN (&cmd, "filter", &f);
   BSON_APPEND_UTF8 (&f, "primary", id);
   bson_append_document_end (&cmd, &f);
   if (conn_run_docs (pf->ctx, "config", &cmd, CONN_READ, PF_MAX_DOCS, &docs, NULL, &e) &&
       bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it))
         ndbs++;
   }
   bson_destroy (&cmd);
   bson_destroy (&docs);
   return ndbs;
}

/* The migration rate: the bytes the recent migrations cloned (moveChunk.commit counts.clonedBytes) into *cloned and
 * the time their donors spent in their steps (moveChunk.from "step k of 6", or "of 7") into *ms, from the last 200
 * entries of config.changelog; both 0 when there is none or it cannot be read. */
static void
pf_plan_rate (preflight_t *pf, double *cloned, double *ms)
{
   bson_t cmd = BSON_INITIALIZER, f, in, arr, sort, docs;
   bson_iter_t it;
   sh_error_t e;
   *cloned = *ms = 0;
   sh_error_clear (&e);
   BSON_APPEND_UTF8 (&cmd, "find", "changelog");
   BSON_APPEND_DOCUMENT_BEGIN (&cmd, "filter", &f);
   BSON_APPEND_DOCUMENT_BEGIN (&f, "what", &in);
   BSON_APPEND_ARRAY_BEGIN (&in, "$in", &arr);
   BSON_APPEND_UTF8 (&arr, "0", "moveChunk.from");
   BSON_APPEND_UTF8 (&arr, "1", "moveChunk.commit");
   bson_append_array_end (&in, &arr);
   bson_append_document_end (&f, &in);
   bson_append_document_end (&cmd, &f);
   BSON_APPEND_DOCUMENT_BEGIN (&cmd, "sort", &sort);
   BSON_APPEND_INT32 (&sort, "time", -1);
   bson_append_document_end (&cmd, &sort);
   BSON_APPEND_INT32 (&cmd, "limit", 200);
   if (conn_run_docs (pf->ctx, "config", &cmd, CONN_READ, 200, &docs, NULL, &e) && bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it)) {
         bson_t d;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d))
            continue;
         *cloned += docget_double (&d, "details.counts.clonedBytes", 0, NULL);
         for (int of = 6; of <= 7; of++) {
            for (int step = 1; step <= of; step++) {
               char path[64];
               bool present;
               double v;
               bson_snprintf (path, sizeof path, "details.step %d of %d", step, of);
               v = docget_double (&d, path, 0, &present);
               if (present)
                  *ms += v;
            }
         }
      }
   }
   bson_destroy (&cmd);
   bson_destroy (&docs);
}

bool
pf_plan_drain (preflight_t *pf, const char *id, sh_error_t *err)
{
   int64_t chunks = 0, docs = 0, bytes = 0, unknown = 0;
   int ncolls = 0, ndbs;
   double cloned, ms;
   char sz[32];
   for (size_t i = 0; i < pf->ncolls; i++) {
      pf_coll_t *c = &pf->colls[i];
      bool has = false;
      if (!pf_model_load_chunks (pf, c, err))
         return false;
      pf_plan_prefetch_empty (pf, c, id);
      for (size_t j = 0; j < c->nchunks; j++) {
         int64_t d, b;
         if (strcmp (c->chunks[j].shard, id) != 0)
            continue;
         has = true;
         chunks++;
         pf_model_chunk_size (pf, c, &c->chunks[j], &d, &b);
         if (d < 0 || b < 0) {
            unknown++;
            continue;
         }
         docs = ck_add (docs, d);
         bytes = ck_add (bytes, b);
      }
      ncolls += has;
   }
   ndbs = pf_plan_primaries (pf, id);
   pf_plan_rate (pf, &cloned, &ms);
   cmd_format_bytes ((double) bytes, sz, sizeof sz);
   if (!pf->ctx->opts->json) {
      fprintf (pf->ctx->out_fp,
               "   shard %s drains: %lld chunks, %lld docs, %s in %d collections; %d databases to move their primary",
               id, (long long) chunks, (long long) docs, sz, ncolls, ndbs);
      if (unknown)
         fprintf (pf->ctx->out_fp, " (the size of %lld chunks is unknown: not counted)", (long long) unknown);
      if (cloned > 0 && ms > 0)
         fprintf (pf->ctx->out_fp, "; about %.1f s at the recent migration rate (%.0f bytes/s)\n",
                  (double) bytes / (cloned / (ms / 1000.0)), cloned / (ms / 1000.0));
      else
         fprintf (pf->ctx->out_fp, "; no recent migration in config.changelog to estimate the time from\n");
   }
   return pf_plan_all (pf, NULL, true, err);
}

/* True when every chunk of the model inside [min, max) of ns lies on shard on (a move's chunk is still where that
 * move took it); with back set, they go back to back. */
static bool
pf_plan_still_on (preflight_t *pf, const bson_t *m, const char *on, const char *back)
{
   pf_coll_t *c = pf_model_coll (pf, docget_utf8 (m, "ns", ""));
   bson_t min, max;
   size_t i;
   bool all = true;
   if (!c || !docget_sub (m, "min", BSON_TYPE_DOCUMENT, &min) || !docget_sub (m, "max", BSON_TYPE_DOCUMENT, &max))
      return false;
   for (i = pf_model_chunk_index (c, &min); i < c->nchunks && order_keys (c->chunks[i].min, &max) < 0; i++) {
      if (strcmp (c->chunks[i].shard, on) != 0)
         all = false;
      else if (back) {
         bson_free (c->chunks[i].shard);
         c->chunks[i].shard = bson_strdup (back);
      }
   }
   return all;
}

/* Copies the entries of list (moves or stuck chunks) to a new array, renumbered, leaving out those whose flag is set
 * and that withdraw (pf, entry, id) takes back; flags follow. Returns how many were left out. */
static int
pf_plan_withdraw_list (preflight_t *pf, bson_t *list, bool *flags, size_t nflags, const char *id,
                       bool (*withdraw) (preflight_t *, const bson_t *, const char *))
{
   bson_t kept = BSON_INITIALIZER, m;
   bson_iter_t it;
   size_t i = 0, k = 0;
   char key[16];
   if (bson_iter_init (&it, list)) {
      for (; bson_iter_next (&it); i++) {
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &m))
            continue;
         if (i < nflags && flags[i] && !strcmp (docget_utf8 (&m, "from", ""), id) && withdraw (pf, &m, id))
            continue;
         bson_snprintf (key, sizeof key, "%zu", k);
         BSON_APPEND_DOCUMENT (&kept, key, &m);
         if (i < nflags)
            flags[k] = flags[i];
         k++;
      }
   }
   bson_destroy (list);
   bson_steal (list, &kept);
   return (int) (i - k);
}

/* Takes a planned move m off id back, when its chunk is still where it took it: the totals lose it and the chunk goes
 * back to id. */
static bool
pf_plan_withdraw_move (preflight_t *pf, const bson_t *m, const char *id)
{
   const char *to = docget_utf8 (m, "to", ""), *by = docget_utf8 (m, "by", "");
   bson_iter_t it;
   if (!pf_plan_still_on (pf, m, to, NULL))
      return false;
   pf_plan_still_on (pf, m, to, id);
   for (int b = 0; b < PF_BY_N; b++)
      if (!strcmp (by, pf_by_json[b]))
         pf->nby[b]--;
   if (docget_iter (m, "docs", &it) && BSON_ITER_HOLDS_INT64 (&it)) {
      pf->docs = ck_sub (pf->docs, docget_int (m, "docs", 0));
      pf->bytes = ck_sub (pf->bytes, docget_int (m, "bytes", 0));
   } else {
      pf->nunknown--;
   }
   return true;
}

/* A chunk that would not move off id because id drained: it stays, nothing is wrong with it once the drain pauses. */
static bool
pf_plan_withdraw_stuck (preflight_t *pf, const bson_t *m, const char *id)
{
   (void) pf;
   (void) m;
   (void) id;
   return true;
}

void
pf_plan_pause (preflight_t *pf, const char *id, int *nmoves, int *nstuck)
{
   *nmoves = pf_plan_withdraw_list (pf, &pf->moves, pf->move_drain, (size_t) pf->nmoves, id, pf_plan_withdraw_move);
   pf->nmoves -= *nmoves;
   *nstuck = pf_plan_withdraw_list (pf, &pf->stuck, pf->stuck_drain, (size_t) pf->nstuck, id, pf_plan_withdraw_stuck);
   pf->nstuck -= *nstuck;
}

/* Under --plan, sh.shardCollection of a new collection: its initial chunks per shard. A hashed key: numInitialChunks
 * (default two per shard up to 7.0, one per shard from 8.0) in runs of numInitialChunks / shards contiguous chunks per
 * shard; with presplitHashedZones one chunk per shard of each zone range of the namespace. A ranged key: one chunk on
 * the primary shard. */
bool
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
            k += !strcmp (pf->ranges[r].ns, ns) && pf_model_has_tag (&pf->shards[s], pf->ranges[r].zone);
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

/* Under --plan: who makes the moves of the total, the parts that have any: ": 1 by the script's commands, 2 when
 * the balancer runs, ...". */
static void
pf_plan_total_by (const preflight_t *pf)
{
   static const char *const words[PF_BY_N] = { "by the script's commands", "when the balancer runs",
                                               "not while the balancer is stopped",
                                               "not while balancing of their collection is disabled" };
   const char *sep = ": ";
   for (int i = 0; i < PF_BY_N; i++) {
      if (!pf->nby[i])
         continue;
      fprintf (pf->ctx->out_fp, "%s%d %s", sep, pf->nby[i],
               i == PF_NOT_STOPPED && !pf->balancer_off ? "once the script starts the balancer again" : words[i]);
      sep = ", ";
   }
}

void
preflight_plan_end (preflight_t *pf)
{
   char sz[32];
   bson_t doc = BSON_INITIALIZER, plan;
   char *json;
   cmd_format_bytes ((double) pf->bytes, sz, sizeof sz);
   if (!pf->ctx->opts->json) {
      fprintf (pf->ctx->out_fp, "total: %d chunks, %lld docs, %s would move", pf->nmoves, (long long) pf->docs, sz);
      if (pf->nunknown)
         fprintf (pf->ctx->out_fp, " (and the unknown size of %d of them)", pf->nunknown);
      pf_plan_total_by (pf);
      if (pf->nstuck)
         fprintf (pf->ctx->out_fp, "; %d chunk%s will not move (STUCK: see above)", pf->nstuck,
                  pf->nstuck == 1 ? "" : "s");
      if (pf->partial)
         fprintf (pf->ctx->out_fp, "; the script was followed in part only (see stderr): the rest is not planned");
      fputc ('\n', pf->ctx->out_fp);
      return;
   }
   BSON_APPEND_DOCUMENT_BEGIN (&doc, "plan", &plan);
   BSON_APPEND_ARRAY (&plan, "moves", &pf->moves);
   BSON_APPEND_ARRAY (&plan, "willNotMove", &pf->stuck);
   BSON_APPEND_BOOL (&plan, "complete", !pf->partial);      /* false: the script was followed in part only */
   BSON_APPEND_INT64 (&plan, "unknownSizes", pf->nunknown); /* moves whose docs and bytes are null */
   {
      bson_t by;
      BSON_APPEND_DOCUMENT_BEGIN (&plan, "by", &by); /* the moves by who makes them (pf_by_json) */
      for (int i = 0; i < PF_BY_N; i++)
         BSON_APPEND_INT32 (&by, pf_by_json[i], pf->nby[i]);
      bson_append_document_end (&plan, &by);
   }
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
