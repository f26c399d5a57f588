/* The collector's judgement, pure: rates against the previous snapshot, hot shards, the hot key range, balance by
 * the server version's policy, and a draining shard's progress. */
#include <mongoc/mongoc.h>
#include <stdlib.h>
#include <string.h>

#include "shell/lib/checked.h"
#include "views/model/collect_int.h"
#include "shell/core/output.h"

/* ---- judgement (pure) ---- */

int
collect_chunk_threshold (int64_t total_chunks)
{
   return total_chunks < 20 ? 2 : total_chunks < 80 ? 4 : 8;
}

/* The previous sample's entry for collection ns (usually at the same index i). */
const snap_coll_t *
collect_prev_coll (const snap_t *prev, const char *ns, size_t i)
{
   if (i < prev->ncolls && !strcmp (prev->colls[i].ns, ns))
      return &prev->colls[i];
   for (size_t k = 0; k < prev->ncolls; k++)
      if (!strcmp (prev->colls[k].ns, ns))
         return &prev->colls[k];
   return NULL;
}

/* For each shard of cur, its index in prev or -1. Owned by the caller. */
int *
collect_shard_map (const snap_t *cur, const snap_t *prev)
{
   int *map = collect_calloc (cur->nshards, sizeof *map);
   for (size_t s = 0; s < cur->nshards; s++)
      map[s] = s < prev->nshards && !strcmp (prev->shards[s].name, cur->shards[s].name)
                  ? (int) s
                  : snap_shard_index (prev, cur->shards[s].name);
   return map;
}

static void
judge_balance (const snap_t *s, snap_coll_t *co)
{
   int64_t cmin = INT64_MAX, cmax = -1, dmin = INT64_MAX, dmax = -1;
   size_t eligible = 0;
   char a[32], b[32];

   size_t n, k = 0;
   const snap_cell_t *cv = snap_coll_cells (co, &n);

   co->balance = SNAP_BAL_UNKNOWN;
   co->balance_why[0] = '\0';
   /* every shard, in order, walking the cells beside them (a shard without a cell holds nothing of it) */
   for (size_t i = 0; i < s->nshards; i++) {
      int64_t chunks = 0, bytes = 0;
      while (k < n && cv[k].shard < (int32_t) i)
         k++;
      if (k < n && cv[k].shard == (int32_t) i) {
         chunks = cv[k].chunks;
         bytes = cv[k].data_bytes;
      }
      if (s->shards[i].draining) {
         if (chunks) {
            co->balance = SNAP_BAL_IMBALANCED;
            bson_snprintf (co->balance_why, sizeof co->balance_why, "draining %s holds %lld chunks", s->shards[i].name,
                           (long long) chunks);
            return;
         }
         continue;
      }
      eligible++;
      cmin = chunks < cmin ? chunks : cmin;
      cmax = chunks > cmax ? chunks : cmax;
      dmin = bytes < dmin ? bytes : dmin;
      dmax = bytes > dmax ? bytes : dmax;
   }
   if (co->straddling) {
      /* the balancer splits them at the bound first: balancerCollectionStatus says zoneViolation meanwhile */
      co->balance = SNAP_BAL_IMBALANCED;
      bson_snprintf (co->balance_why, sizeof co->balance_why, "%lld chunk%s straddle%s a zone boundary",
                     (long long) co->straddling, co->straddling == 1 ? "" : "s", co->straddling == 1 ? "s" : "");
      return;
   }
   if (co->out_of_zone) {
      co->balance = SNAP_BAL_IMBALANCED;
      bson_snprintf (co->balance_why, sizeof co->balance_why, "%lld chunks outside their zone",
                     (long long) co->out_of_zone);
      return;
   }
   if (eligible < 2 || !co->chunks)
      return;
   if (s->vmajor >= 6) {
      /* 6.0+: balanced while the data difference stays under three times the range size */
      int64_t range = co->range_bytes > 0 ? co->range_bytes : s->balancer.chunk_size_bytes;
      int64_t limit = 3 * (range > 0 ? range : (int64_t) COLLECT_DEFAULT_RANGE_MB * 1024 * 1024);
      int64_t diff = dmax - dmin;
      co->balance = diff >= limit ? SNAP_BAL_IMBALANCED : SNAP_BAL_OK;
      bson_snprintf (co->balance_why, sizeof co->balance_why, "data difference %s %s 3 x range %s",
                     snap_fmt_bytes (diff, a, sizeof a), diff >= limit ? ">=" : "<",
                     snap_fmt_bytes (limit / 3, b, sizeof b));
   } else {
      /* before 6.0: the chunk-count difference against 2 / 4 / 8 by the collection's chunk count */
      int64_t diff = cmax - cmin;
      int thr = collect_chunk_threshold (co->chunks);
      co->balance = diff >= thr ? SNAP_BAL_IMBALANCED : SNAP_BAL_OK;
      bson_snprintf (co->balance_why, sizeof co->balance_why, "chunk difference %lld %s %d", (long long) diff,
                     diff >= thr ? ">=" : "<", thr);
   }
}

/* Collection co's rates per shard (its acts) from pc's (prev's entry, NULL for none): over cdt seconds between two
 * readings, or pc's own when carry (the same reading). Writes to co's acts only when something changes, so acts
 * shared with the last sample stay shared. */
static void
judge_rates (snap_coll_t *co, const snap_coll_t *pc, bool carry, double cdt, const int *smap, int own)
{
   size_t m;
   const snap_act_t *cur = snap_coll_acts (co, &m);
   snap_act_t *a;
   if (pc && carry && co->acts == pc->acts)
      return; /* the same reading, the same acts: the same rates */
   if (!pc) {
      bool any = false;
      for (size_t k = 0; k < m && !any; k++)
         any = cur[k].writes_ps != 0 || cur[k].reads_ps != 0 || cur[k].hot;
      if (!any)
         return;
   }
   a = snap_coll_acts_mut (co, &m);
   for (size_t k = 0; k < m; k++) {
      const snap_act_t *p = pc && smap[a[k].shard] >= 0 ? snap_coll_act (pc, smap[a[k].shard]) : NULL;
      snap_act_t zero = { 0 };
      a[k].writes_ps = a[k].reads_ps = 0;
      a[k].hot = false;
      if (!pc || smap[a[k].shard] < 0)
         continue;
      if (!p)
         p = &zero; /* a shard without an act had its counters at 0 */
      if (carry) {
         a[k].writes_ps = p->writes_ps;
         a[k].reads_ps = p->reads_ps;
      } else {
         int64_t dw = a[k].writes_ops - p->writes_ops;
         int64_t dr = a[k].reads_ops - p->reads_ops - own;
         /* a counter that went backwards was reset (shard restart): no rate this time */
         a[k].writes_ps = dw > 0 ? (double) dw / cdt : 0;
         a[k].reads_ps = dr > 0 && a[k].reads_ops >= p->reads_ops ? (double) dr / cdt : 0;
      }
   }
}

/* Collection co's hot shards (from its acts' rates) and its hot key range. */
static void
judge_hot (snap_t *cur, snap_coll_t *co, bool rates, const collect_opts_t *opts)
{
   double n = (double) cur->nshards, best = -1;
   size_t m;
   const snap_act_t *av = snap_coll_acts (co, &m);
   bool change = false;
   /* hot: at least hot_factor x the fair share 1/N of the collection's writes, and above the minimum rate */
   for (size_t k = 0; k < m; k++) {
      bool hot = rates && n >= 2 && av[k].writes_ps >= opts->hot_min_rate && av[k].writes_ps > 0 &&
                 av[k].writes_ps >= opts->hot_factor * co->writes_ps / n;
      change = change || hot != av[k].hot;
      if (!hot)
         continue;
      cur->shards[av[k].shard].hot = true;
      if (av[k].writes_ps > best) {
         best = av[k].writes_ps;
         co->hot_shard = av[k].shard;
      }
   }
   if (change) {
      snap_act_t *a = snap_coll_acts_mut (co, &m);
      for (size_t k = 0; k < m; k++)
         a[k].hot = rates && n >= 2 && a[k].writes_ps >= opts->hot_min_rate && a[k].writes_ps > 0 &&
                    a[k].writes_ps >= opts->hot_factor * co->writes_ps / n;
   }
   /* the hot key range: inserts at one end of a ranged key, owned by the hot shard */
   if (co->hot_shard >= 0 && !co->hashed) {
      if (co->key_trend > 0 && co->top_shard == co->hot_shard) {
         co->has_hot_range = true;
         co->hot_range_shard = co->top_shard;
         bson_strncpy (co->hot_range_end, "MaxKey", sizeof co->hot_range_end);
      } else if (co->key_trend < 0 && co->bottom_shard == co->hot_shard) {
         co->has_hot_range = true;
         co->hot_range_shard = co->bottom_shard;
         bson_strncpy (co->hot_range_end, "MinKey", sizeof co->hot_range_end);
      }
   }
}

void
collect_judge (snap_t *cur, const snap_t *prev, double dt_s, const int *own_reads, const collect_opts_t *opts)
{
   bool rates = prev && dt_s > 0;

   cur->rates_valid = rates;
   cur->hot_factor = opts->hot_factor;
   cur->hot_min_rate = opts->hot_min_rate;
   for (size_t s = 0; s < cur->nshards; s++) {
      cur->shards[s].writes_ps = cur->shards[s].reads_ps = 0;
      cur->shards[s].hot = false;
   }
   int *smap = rates ? collect_shard_map (cur, prev) : NULL;
   for (size_t i = 0; i < cur->ncolls; i++) {
      snap_coll_t *co = &cur->colls[i];
      const snap_coll_t *pc = rates ? collect_prev_coll (prev, co->ns, i) : NULL;
      double cdt = dt_s;
      bool carry = false;
      size_t m;
      const snap_act_t *av;
      /* counters read at their own times (stats_ms): over that span; not read again: the last rates carry on */
      if (pc && (co->stats_ms || pc->stats_ms)) {
         if (!co->stats_ms || !pc->stats_ms)
            pc = NULL;
         else if (co->stats_ms == pc->stats_ms)
            carry = true;
         else
            cdt = (double) (co->stats_ms - pc->stats_ms) / 1000.0;
         if (cdt <= 0)
            pc = NULL;
      }
      co->writes_ps = co->reads_ps = 0;
      co->hot_shard = -1;
      co->has_hot_range = false;
      co->hot_range_end[0] = '\0';
      co->hot_range_shard = -1;
      judge_rates (co, pc, carry, cdt, smap, own_reads ? own_reads[i] : 0);
      av = snap_coll_acts (co, &m);
      for (size_t k = 0; k < m; k++) {
         co->writes_ps += av[k].writes_ps;
         co->reads_ps += av[k].reads_ps;
         cur->shards[av[k].shard].writes_ps += av[k].writes_ps;
         cur->shards[av[k].shard].reads_ps += av[k].reads_ps;
      }
      judge_hot (cur, co, rates, opts);
      snap_coll_tidy (co);
      judge_balance (cur, co);
   }
   free (smap);
   /* the totals row: over the shards, which is over the collections too */
   cur->total_chunks = cur->total_jumbo = cur->total_bytes = cur->total_docs = 0;
   cur->total_writes_ps = cur->total_reads_ps = 0;
   for (size_t i = 0; i < cur->ncolls; i++) {
      size_t n;
      const snap_cell_t *cv = snap_coll_cells (&cur->colls[i], &n);
      cur->colls[i].docs = 0;
      for (size_t k = 0; k < n; k++)
         cur->colls[i].docs = ck_add (cur->colls[i].docs, cv[k].docs);
   }
   for (size_t s = 0; s < cur->nshards; s++) {
      const snap_shard_t *sh = &cur->shards[s];
      cur->total_chunks = ck_add (cur->total_chunks, sh->chunks);
      cur->total_jumbo = ck_add (cur->total_jumbo, sh->jumbo);
      cur->total_bytes = ck_add (cur->total_bytes, sh->data_bytes);
      cur->total_docs = ck_add (cur->total_docs, sh->docs);
      cur->total_writes_ps += sh->writes_ps;
      cur->total_reads_ps += sh->reads_ps;
   }
}

/* Seconds as an integer, capped at a year (a crawl that slow is "not in sight", and the cast stays in range). */
static int64_t
eta_seconds (double secs)
{
   const double year = 365.0 * 24 * 3600;
   return secs >= year ? (int64_t) year : secs > 0 ? (int64_t) (secs + 0.5) : 0;
}

/* A draining shard's rates and time left from its readings (oldest first) over the last minutes. */
void
collect_drain_progress (snap_shard_t *sh, const drain_point_t *v, int n)
{
   snap_drain_t *d = &sh->drain;
   double dt = n >= 2 ? (double) (v[n - 1].ms - v[0].ms) / 1000.0 : 0;
   d->chunks = sh->chunks;
   d->bytes = sh->data_bytes;
   d->bytes_ps = d->chunks_ps = -1;
   d->window_s = dt;
   d->eta_s = -1;
   if (dt > 0) {
      int64_t db = v[0].bytes - v[n - 1].bytes, dc = v[0].chunks - v[n - 1].chunks;
      d->bytes_ps = db > 0 ? (double) db / dt : 0;
      d->chunks_ps = dc > 0 ? (double) dc / dt : 0;
   }
   if (!d->chunks && !d->bytes && d->databases == 0)
      d->eta_s = 0;
   else if (d->bytes > 0 && d->bytes_ps > 0)
      d->eta_s = eta_seconds ((double) d->bytes / d->bytes_ps);
   else if (d->chunks > 0 && d->chunks_ps > 0)
      d->eta_s = eta_seconds ((double) d->chunks / d->chunks_ps);
}
