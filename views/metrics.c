/* The exporter's metrics renderer (views/metrics.h): snapshots to Prometheus text or OpenMetrics, one family at a
 * time over every cluster, so each family's series stay together under one HELP and TYPE as both formats require. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views/metrics.h"

/* ---- the buffer ---- */

void
metrics_buf_destroy (metrics_buf_t *b)
{
   free (b->data);
   memset (b, 0, sizeof *b);
}

static void
mb_reserve (metrics_buf_t *b, size_t more)
{
   size_t cap = b->cap ? b->cap : 4096;
   if (b->len + more + 1 <= b->cap)
      return;
   while (cap < b->len + more + 1)
      cap *= 2;
   b->data = realloc (b->data, cap);
   if (!b->data)
      abort ();
   b->cap = cap;
}

static void
mb_put (metrics_buf_t *b, const char *s, size_t n)
{
   mb_reserve (b, n);
   memcpy (b->data + b->len, s, n);
   b->len += n;
   b->data[b->len] = '\0';
}

static void
mb_str (metrics_buf_t *b, const char *s)
{
   mb_put (b, s, strlen (s));
}

static void
mb_printf (metrics_buf_t *b, const char *fmt, ...)
{
   va_list ap;
   char tmp[256];
   int n;
   va_start (ap, fmt);
   n = vsnprintf (tmp, sizeof tmp, fmt, ap);
   va_end (ap);
   if (n > 0)
      mb_put (b, tmp, (size_t) n < sizeof tmp ? (size_t) n : sizeof tmp - 1);
}

/* A label value, escaped as both formats want: backslash, double quote and newline. */
static void
mb_label_value (metrics_buf_t *b, const char *s)
{
   const char *run = s;
   for (; *s; s++) {
      const char *esc = *s == '\\' ? "\\\\" : *s == '"' ? "\\\"" : *s == '\n' ? "\\n" : NULL;
      if (!esc)
         continue;
      mb_put (b, run, (size_t) (s - run));
      mb_str (b, esc);
      run = s + 1;
   }
   mb_put (b, run, (size_t) (s - run));
}

/* ---- families and samples ---- */

typedef enum { M_GAUGE, M_COUNTER } m_type_t;

/* The render under way: options and the family being written. */
typedef struct {
   metrics_buf_t *b;
   const metrics_opts_t *o;
   const char *family;
   m_type_t type;
} m_out_t;

/* Starts a family: HELP and TYPE. A counter's samples end in _total; its family is named with _total in the text
 * format and without it in OpenMetrics. */
static void
fam (m_out_t *m, const char *name, m_type_t type, const char *help)
{
   const char *suffix = type == M_COUNTER && !m->o->openmetrics ? "_total" : "";
   m->family = name;
   m->type = type;
   mb_printf (m->b, "# HELP %s%s ", name, suffix);
   mb_str (m->b, help);
   mb_printf (m->b, "\n# TYPE %s%s %s\n", name, suffix, type == M_COUNTER ? "counter" : "gauge");
}

/* Starts a sample of the current family: name{cluster="…" (the caller adds labels, then ends it). */
static void
sample (m_out_t *m, const char *cluster)
{
   mb_str (m->b, m->family);
   if (m->type == M_COUNTER)
      mb_str (m->b, "_total");
   mb_str (m->b, "{cluster=\"");
   mb_label_value (m->b, cluster);
   mb_str (m->b, "\"");
}

static void
label (m_out_t *m, const char *key, const char *value)
{
   mb_printf (m->b, ",%s=\"", key);
   mb_label_value (m->b, value);
   mb_str (m->b, "\"");
}

static void
end_int (m_out_t *m, int64_t v)
{
   mb_printf (m->b, "} %lld\n", (long long) v);
}

static void
end_num (m_out_t *m, double v)
{
   if (isnan (v))
      mb_str (m->b, "} NaN\n");
   else if (isinf (v))
      mb_str (m->b, v > 0 ? "} +Inf\n" : "} -Inf\n");
   else if (v == floor (v) && fabs (v) < 9e15)
      end_int (m, (int64_t) v);
   else
      mb_printf (m->b, "} %.15g\n", v);
}

/* One sample with the cluster label only. */
static void
one_int (m_out_t *m, const char *cluster, int64_t v)
{
   sample (m, cluster);
   end_int (m, v);
}

static void
one_num (m_out_t *m, const char *cluster, double v)
{
   sample (m, cluster);
   end_num (m, v);
}

/* ---- fixed label sets ---- */

const char *
metrics_balance_reason (const char *why)
{
   if (!why || !*why)
      return "none";
   if (!strncmp (why, "chunk difference", 16))
      return "chunk_difference";
   if (!strncmp (why, "data difference", 15))
      return "data_difference";
   if (!strncmp (why, "draining ", 9))
      return "draining_shard";
   if (strstr (why, "outside their zone"))
      return "outside_zone";
   return "other";
}

static const char *const m_reasons[] = { "none",           "chunk_difference", "data_difference",
                                         "draining_shard", "outside_zone",     "other" };

/* The first clause of an sh.progress() caveat (commands/progress_model.c) as a fixed code. */
static const struct {
   const char *text;
   const char *code;
} m_caveats[] = {
   { "no recipient row is visible", "no_recipient" },
   { "copied nothing of their approxBytesToCopy", "uneven_shares" },
   { "etaSec from the summed figures", "eta_from_sums" },
   { "report no time estimate", "estimate_lost" },
   { "no recipient reports a time estimate", "estimate_lost" },
   { "no estimate before the recipients have copied", "not_copying_yet" },
   { "donor's step count", "step_count" },
   { "removeShard.start) is no longer", "drain_start_unknown" },
   { "no chunk left the shard", "drain_stalled" },
   { "databases still have this shard as primary", "primary_databases" },
   { "remainingChunksToProcess", "chunks_only" },
};

const char *
metrics_caveat_code (const char *caveat)
{
   const char *semi;
   size_t len;
   if (!caveat || !*caveat)
      return "none";
   semi = strstr (caveat, "; ");
   len = semi ? (size_t) (semi - caveat) : strlen (caveat);
   for (size_t i = 0; i < sizeof m_caveats / sizeof m_caveats[0]; i++) {
      const char *at = strstr (caveat, m_caveats[i].text);
      if (at && (size_t) (at - caveat) < len)
         return m_caveats[i].code;
   }
   return "other";
}

/* ---- helpers over a cluster ---- */

/* The cluster's snapshot when it has numbers to show, else NULL. */
static const snap_t *
has_data (const metrics_cluster_t *c)
{
   return c->snap && c->snap->sampled_at_ms > 0 ? c->snap : NULL;
}

/* "HH:MM" as minutes since midnight, -1 when malformed. */
static int
hhmm (const char *s)
{
   int h, m;
   char tail;
   if (sscanf (s, "%d:%d%c", &h, &m, &tail) != 2 || h < 0 || h > 24 || m < 0 || m > 59)
      return -1;
   return h * 60 + m;
}

/* ---- the families ---- */

static void
render_refresh (m_out_t *m, const metrics_cluster_t *cl, size_t n)
{
   fam (m, "shardsh_up", M_GAUGE,
        "1 when the last refresh of the cluster succeeded, 0 when it failed or none did yet.");
   for (size_t i = 0; i < n; i++)
      one_int (m, cl[i].name, cl[i].up && has_data (&cl[i]) ? 1 : 0);
   fam (m, "shardsh_refreshes", M_COUNTER, "Refreshes this exporter process tried (resets when it restarts).");
   for (size_t i = 0; i < n; i++)
      one_int (m, cl[i].name, cl[i].refreshes);
   fam (m, "shardsh_refresh_errors", M_COUNTER, "Refreshes that failed (resets when the exporter restarts).");
   for (size_t i = 0; i < n; i++)
      one_int (m, cl[i].name, cl[i].refresh_errors);
   fam (m, "shardsh_last_refresh_timestamp_seconds", M_GAUGE,
        "When the numbers were read: the last good refresh, seconds since the epoch.");
   for (size_t i = 0; i < n; i++)
      if (has_data (&cl[i]))
         one_num (m, cl[i].name, (double) cl[i].snap->sampled_at_ms / 1000.0);
   fam (m, "shardsh_refresh_duration_seconds", M_GAUGE, "How long the last good refresh took to read the cluster.");
   for (size_t i = 0; i < n; i++)
      if (has_data (&cl[i]))
         one_num (m, cl[i].name, (double) cl[i].snap->sample_ms / 1000.0);
   fam (m, "shardsh_refresh_commands", M_GAUGE, "Commands the last good refresh sent.");
   for (size_t i = 0; i < n; i++)
      if (has_data (&cl[i]))
         one_int (m, cl[i].name, cl[i].snap->round_trips);
   fam (m, "shardsh_refresh_router_cpu_seconds", M_GAUGE,
        "CPU the router process spent over the last good refresh (serverStatus extra_info user and system time before "
        "and after it; with whatever else it ran meanwhile); absent where the router does not report it.");
   for (size_t i = 0; i < n; i++)
      if (has_data (&cl[i]) && cl[i].router_cpu_s >= 0)
         one_num (m, cl[i].name, cl[i].router_cpu_s);
   fam (m, "shardsh_cluster_info", M_GAUGE, "The router that answered the last refresh: its server version (value 1).");
   for (size_t i = 0; i < n; i++) {
      if (!has_data (&cl[i]))
         continue;
      sample (m, cl[i].name);
      label (m, "version", cl[i].snap->version);
      end_int (m, 1);
   }
}

static void
render_balancer (m_out_t *m, const metrics_cluster_t *cl, size_t n)
{
   static const char *const modes[] = { "full", "off", "autoSplitOnly" };
   fam (m, "shardsh_balancer_mode", M_GAUGE, "The balancer's mode (balancerStatus): 1 for the current one.");
   for (size_t i = 0; i < n; i++) {
      const snap_t *s = has_data (&cl[i]);
      for (size_t k = 0; s && s->balancer.mode[0] && k < 3; k++) {
         sample (m, cl[i].name);
         label (m, "mode", modes[k]);
         end_int (m, !strcmp (s->balancer.mode, modes[k]));
      }
   }
   fam (m, "shardsh_balancer_enabled", M_GAUGE, "1 when the balancer's mode is full.");
   for (size_t i = 0; i < n; i++)
      if (has_data (&cl[i]) && cl[i].snap->balancer.mode[0])
         one_int (m, cl[i].name, !strcmp (cl[i].snap->balancer.mode, "full"));
   fam (m, "shardsh_balancer_round_running", M_GAUGE, "1 while a balancer round runs (inBalancerRound).");
   for (size_t i = 0; i < n; i++)
      if (has_data (&cl[i]))
         one_int (m, cl[i].name, cl[i].snap->balancer.in_round);
   fam (m, "shardsh_balancer_rounds", M_COUNTER,
        "Balancer rounds the config server's primary ran (numBalancerRounds; restarts with that primary).");
   for (size_t i = 0; i < n; i++)
      if (has_data (&cl[i]) && cl[i].snap->balancer.rounds >= 0)
         one_int (m, cl[i].name, cl[i].snap->balancer.rounds);
   fam (m, "shardsh_balancer_rounds_failed", M_COUNTER,
        "Failed balancer rounds recorded in config.actionlog (errorOccurred), counted on the server.");
   for (size_t i = 0; i < n; i++)
      if (cl[i].totals.rounds_failed >= 0)
         one_int (m, cl[i].name, cl[i].totals.rounds_failed);
   fam (m, "shardsh_balancer_window_configured", M_GAUGE, "1 when the balancer has an active window.");
   for (size_t i = 0; i < n; i++)
      if (has_data (&cl[i]))
         one_int (m, cl[i].name, cl[i].snap->balancer.has_window);
   fam (m, "shardsh_balancer_window_start_seconds", M_GAUGE, "The active window's start, seconds after midnight.");
   for (size_t i = 0; i < n; i++)
      if (has_data (&cl[i]) && cl[i].snap->balancer.has_window && hhmm (cl[i].snap->balancer.window_start) >= 0)
         one_int (m, cl[i].name, 60 * hhmm (cl[i].snap->balancer.window_start));
   fam (m, "shardsh_balancer_window_stop_seconds", M_GAUGE, "The active window's stop, seconds after midnight.");
   for (size_t i = 0; i < n; i++)
      if (has_data (&cl[i]) && cl[i].snap->balancer.has_window && hhmm (cl[i].snap->balancer.window_stop) >= 0)
         one_int (m, cl[i].name, 60 * hhmm (cl[i].snap->balancer.window_stop));
   fam (m, "shardsh_balancer_window_open", M_GAUGE,
        "1 when the balancer may run now: no window, or the exporter's local time is inside it.");
   for (size_t i = 0; i < n; i++) {
      const snap_t *s = has_data (&cl[i]);
      int a, b, t = m->o->now_min;
      if (!s)
         continue;
      if (!s->balancer.has_window) {
         one_int (m, cl[i].name, 1);
         continue;
      }
      a = hhmm (s->balancer.window_start);
      b = hhmm (s->balancer.window_stop);
      if (a < 0 || b < 0 || t < 0)
         continue;
      one_int (m, cl[i].name, a <= b ? (t >= a && t < b) : (t >= a || t < b));
   }
   fam (m, "shardsh_migrations_in_flight", M_GAUGE, "Migrations running now, as the server reports them.");
   for (size_t i = 0; i < n; i++)
      if (has_data (&cl[i]) && cl[i].snap->balancer.migrations >= 0)
         one_int (m, cl[i].name, cl[i].snap->balancer.migrations);
   fam (m, "shardsh_migrations_succeeded", M_COUNTER,
        "Migrations that committed, counted in config.changelog (moveChunk.from with note success).");
   for (size_t i = 0; i < n; i++)
      if (cl[i].totals.moves_ok >= 0)
         one_int (m, cl[i].name, cl[i].totals.moves_ok);
   fam (m, "shardsh_migrations_failed", M_COUNTER,
        "Migrations that failed or were aborted, counted in config.changelog (moveChunk.from with an error).");
   for (size_t i = 0; i < n; i++)
      if (cl[i].totals.moves_failed >= 0)
         one_int (m, cl[i].name, cl[i].totals.moves_failed);
   fam (m, "shardsh_chunk_size_bytes", M_GAUGE, "The cluster's chunk (range) size.");
   for (size_t i = 0; i < n; i++)
      if (has_data (&cl[i]) && cl[i].snap->balancer.chunk_size_bytes > 0)
         one_int (m, cl[i].name, cl[i].snap->balancer.chunk_size_bytes);
}

/* A per-shard family: one sample per shard (filter: which shards; NULL all), value from get. */
typedef double (*shard_get_t) (const snap_shard_t *sh, bool *known);

static void
shard_family (m_out_t *m, const metrics_cluster_t *cl, size_t n, const char *name, const char *help, shard_get_t get)
{
   fam (m, name, M_GAUGE, help);
   for (size_t i = 0; i < n; i++) {
      const snap_t *s = has_data (&cl[i]);
      for (size_t k = 0; s && k < s->nshards; k++) {
         bool known = true;
         double v = get (&s->shards[k], &known);
         if (!known)
            continue;
         sample (m, cl[i].name);
         label (m, "shard", s->shards[k].name);
         end_num (m, v);
      }
   }
}

static double
sh_chunks (const snap_shard_t *sh, bool *known)
{
   (void) known;
   return (double) sh->chunks;
}

static double
sh_jumbo (const snap_shard_t *sh, bool *known)
{
   (void) known;
   return (double) sh->jumbo;
}

static double
sh_bytes (const snap_shard_t *sh, bool *known)
{
   (void) known;
   return (double) sh->data_bytes;
}

static double
sh_docs (const snap_shard_t *sh, bool *known)
{
   (void) known;
   return (double) sh->docs;
}

static double
sh_draining (const snap_shard_t *sh, bool *known)
{
   (void) known;
   return sh->draining;
}

static double
sh_hot (const snap_shard_t *sh, bool *known)
{
   (void) known;
   return sh->hot;
}

static double
sh_left_chunks (const snap_shard_t *sh, bool *known)
{
   *known = sh->draining;
   return (double) sh->drain.chunks;
}

static double
sh_left_bytes (const snap_shard_t *sh, bool *known)
{
   *known = sh->draining;
   return (double) sh->drain.bytes;
}

static double
sh_left_dbs (const snap_shard_t *sh, bool *known)
{
   *known = sh->draining && sh->drain.databases >= 0;
   return (double) sh->drain.databases;
}

static double
sh_drain_rate (const snap_shard_t *sh, bool *known)
{
   *known = sh->draining && sh->drain.bytes_ps >= 0;
   return sh->drain.bytes_ps;
}

static double
sh_drain_chunk_rate (const snap_shard_t *sh, bool *known)
{
   *known = sh->draining && sh->drain.bytes_ps >= 0;
   return sh->drain.chunks_ps;
}

static double
sh_drain_eta (const snap_shard_t *sh, bool *known)
{
   *known = sh->draining && sh->drain.eta_s >= 0;
   return (double) sh->drain.eta_s;
}

static void
render_shards (m_out_t *m, const metrics_cluster_t *cl, size_t n)
{
   shard_family (m, cl, n, "shardsh_shard_chunks", "Chunks on the shard, over every sharded collection.", sh_chunks);
   shard_family (m, cl, n, "shardsh_shard_jumbo_chunks", "Chunks flagged jumbo on the shard.", sh_jumbo);
   shard_family (m, cl, n, "shardsh_shard_data_bytes", "Data on the shard, over the sharded collections.", sh_bytes);
   shard_family (m, cl, n, "shardsh_shard_documents", "Documents on the shard, over the sharded collections.", sh_docs);
   shard_family (m, cl, n, "shardsh_shard_draining", "1 while the shard drains (removeShard).", sh_draining);
   shard_family (m, cl, n, "shardsh_shard_hot", "1 when the shard takes a hot share of some collection's writes.",
                 sh_hot);
   shard_family (m, cl, n, "shardsh_shard_drain_remaining_chunks", "A draining shard's chunks left.", sh_left_chunks);
   shard_family (m, cl, n, "shardsh_shard_drain_remaining_bytes", "A draining shard's data left.", sh_left_bytes);
   shard_family (m, cl, n, "shardsh_shard_drain_remaining_databases",
                 "Databases whose primary a draining shard still is.", sh_left_dbs);
   shard_family (m, cl, n, "shardsh_shard_drain_bytes_per_second",
                 "Bytes leaving a draining shard per second over the last minutes.", sh_drain_rate);
   shard_family (m, cl, n, "shardsh_shard_drain_chunks_per_second",
                 "Chunks leaving a draining shard per second over the last minutes.", sh_drain_chunk_rate);
   shard_family (m, cl, n, "shardsh_shard_drain_eta_seconds",
                 "Time left for a draining shard at its recent pace; absent while it cannot be told.", sh_drain_eta);
}

/* A per-collection family. */
typedef double (*coll_get_t) (const snap_coll_t *co);

static void
coll_family (m_out_t *m, const metrics_cluster_t *cl, size_t n, const char *name, const char *help, coll_get_t get)
{
   fam (m, name, M_GAUGE, help);
   for (size_t i = 0; i < n; i++) {
      const snap_t *s = has_data (&cl[i]);
      for (size_t k = 0; s && k < s->ncolls; k++) {
         sample (m, cl[i].name);
         label (m, "namespace", s->colls[k].ns);
         end_num (m, get (&s->colls[k]));
      }
   }
}

static double
co_chunks (const snap_coll_t *co)
{
   return (double) co->chunks;
}

static double
co_bytes (const snap_coll_t *co)
{
   return (double) co->data_bytes;
}

static double
co_docs (const snap_coll_t *co)
{
   return (double) co->docs;
}

static double
co_jumbo (const snap_coll_t *co)
{
   return (double) co->jumbo;
}

static double
co_outside (const snap_coll_t *co)
{
   return (double) co->out_of_zone;
}

static double
co_nobalance (const snap_coll_t *co)
{
   return co->no_balance;
}

static void
render_verdicts (m_out_t *m, const metrics_cluster_t *cl, size_t n)
{
   static const char *const verdicts[] = { "unknown", "ok", "imbalanced" };
   fam (m, "shardsh_collection_balance", M_GAUGE,
        "The collection's balance judged by the server version's own policy: 1 for the current verdict.");
   for (size_t i = 0; i < n; i++) {
      const snap_t *s = has_data (&cl[i]);
      for (size_t k = 0; s && k < s->ncolls; k++) {
         for (int v = 0; v < 3; v++) {
            sample (m, cl[i].name);
            label (m, "namespace", s->colls[k].ns);
            label (m, "verdict", verdicts[v]);
            end_int (m, (int) s->colls[k].balance == v);
         }
      }
   }
   fam (m, "shardsh_collection_imbalance_reason", M_GAUGE,
        "Why an imbalanced collection is judged so: 1 for the reason (none when balanced or unknown).");
   for (size_t i = 0; i < n; i++) {
      const snap_t *s = has_data (&cl[i]);
      for (size_t k = 0; s && k < s->ncolls; k++) {
         const snap_coll_t *co = &s->colls[k];
         const char *r = co->balance == SNAP_BAL_IMBALANCED ? metrics_balance_reason (co->balance_why) : "none";
         for (size_t v = 0; v < sizeof m_reasons / sizeof m_reasons[0]; v++) {
            sample (m, cl[i].name);
            label (m, "namespace", co->ns);
            label (m, "reason", m_reasons[v]);
            end_int (m, !strcmp (r, m_reasons[v]));
         }
      }
   }
}

/* One cluster's (collection, shard) pairs: all of them, and the whole collections (in snapshot order) that fit in
 * the scrape's max_pairs, with the pairs those hold. Counted once a scrape and shared by the three pair families. */
typedef struct {
   size_t ncolls; /* collections exported */
   size_t pairs;  /* pairs in all */
   size_t shown;  /* pairs exported */
} pairs_fit_t;

static pairs_fit_t
pairs_fit (const snap_t *s, size_t max)
{
   pairs_fit_t f = { 0, 0, 0 };
   bool full = false;
   for (size_t k = 0; s && k < s->ncolls; k++) {
      size_t nc = 0;
      snap_coll_cells (&s->colls[k], &nc);
      f.pairs += nc;
      if (!full && f.shown + nc <= max) {
         f.shown += nc;
         f.ncolls++;
      } else {
         full = true;
      }
   }
   return f;
}

static void
pair_family (m_out_t *m, const metrics_cluster_t *cl, size_t n, const pairs_fit_t *fit, bool bytes)
{
   fam (m, bytes ? "shardsh_collection_shard_data_bytes" : "shardsh_collection_shard_chunks", M_GAUGE,
        bytes ? "The collection's data on the shard." : "The collection's chunks on the shard.");
   for (size_t i = 0; i < n; i++) {
      const snap_t *s = has_data (&cl[i]);
      for (size_t k = 0; s && k < fit[i].ncolls; k++) {
         size_t nc = 0;
         const snap_cell_t *c = snap_coll_cells (&s->colls[k], &nc);
         for (size_t j = 0; j < nc; j++) {
            if (c[j].shard < 0 || (size_t) c[j].shard >= s->nshards)
               continue;
            sample (m, cl[i].name);
            label (m, "namespace", s->colls[k].ns);
            label (m, "shard", s->shards[c[j].shard].name);
            end_int (m, bytes ? c[j].data_bytes : c[j].chunks);
         }
      }
   }
}

static void
render_colls (m_out_t *m, const metrics_cluster_t *cl, size_t n)
{
   pairs_fit_t *fit = calloc (n ? n : 1, sizeof *fit);
   if (!fit)
      abort ();
   for (size_t i = 0; i < n; i++)
      fit[i] = pairs_fit (has_data (&cl[i]), m->o->max_pairs);
   coll_family (m, cl, n, "shardsh_collection_chunks", "The sharded collection's chunks.", co_chunks);
   coll_family (m, cl, n, "shardsh_collection_data_bytes", "The sharded collection's data size.", co_bytes);
   coll_family (m, cl, n, "shardsh_collection_documents", "The sharded collection's documents.", co_docs);
   coll_family (m, cl, n, "shardsh_collection_jumbo_chunks", "The collection's chunks flagged jumbo.", co_jumbo);
   coll_family (m, cl, n, "shardsh_collection_chunks_outside_zone",
                "The collection's chunks on a shard outside their zone.", co_outside);
   coll_family (m, cl, n, "shardsh_collection_balancing_disabled", "1 when balancing is disabled for the collection.",
                co_nobalance);
   render_verdicts (m, cl, n);
   pair_family (m, cl, n, fit, false);
   pair_family (m, cl, n, fit, true);
   fam (m, "shardsh_collection_shard_pairs", M_GAUGE,
        "(collection, shard) pairs holding something; the per-pair series cover the first of them (exported).");
   for (size_t i = 0; i < n; i++) {
      if (!has_data (&cl[i]))
         continue;
      sample (m, cl[i].name);
      label (m, "set", "all");
      end_int (m, (int64_t) fit[i].pairs);
      sample (m, cl[i].name);
      label (m, "set", "exported");
      end_int (m, (int64_t) fit[i].shown);
   }
   free (fit);
}

/* Whether ops[k]'s labels repeat an earlier one's (a series must be unique). */
static bool
op_repeats (const snap_t *s, size_t k)
{
   for (size_t j = 0; j < k; j++)
      if (!strcmp (s->ops[j].type, s->ops[k].type) && !strcmp (s->ops[j].ns, s->ops[k].ns) &&
          !strcmp (s->ops[j].shard, s->ops[k].shard))
         return true;
   return false;
}

/* The operation families: which 0 percent, 1 eta, 2 active. */
static void
op_family (m_out_t *m, const metrics_cluster_t *cl, size_t n, int which)
{
   static const char *const names[] = { "shardsh_operation_percent", "shardsh_operation_eta_seconds",
                                        "shardsh_operation_active" };
   static const char *const helps[] = {
      ("A long operation's progress as sh.progress() computes it; absent where the server's figures cannot be trusted "
       "(the caveat label says why)."),
      "A long operation's time left; absent when unknown.",
      "1 for each long operation in progress (sh.progress()), with its caveat."
   };
   fam (m, names[which], M_GAUGE, helps[which]);
   for (size_t i = 0; i < n; i++) {
      const snap_t *s = has_data (&cl[i]);
      for (size_t k = 0; s && k < s->nops; k++) {
         const snap_op_t *op = &s->ops[k];
         double v = which == 0 ? op->percent : which == 1 ? op->eta_s : 1;
         if (v < 0 || op_repeats (s, k))
            continue;
         sample (m, cl[i].name);
         label (m, "type", op->type);
         label (m, "namespace", op->ns);
         label (m, "shard", op->shard);
         label (m, "caveat", metrics_caveat_code (op->caveat));
         end_num (m, v);
      }
   }
}

static void
render_ops (m_out_t *m, const metrics_cluster_t *cl, size_t n)
{
   fam (m, "shardsh_operations", M_GAUGE, "Long operations in progress (sh.progress()).");
   for (size_t i = 0; i < n; i++)
      if (has_data (&cl[i]))
         one_int (m, cl[i].name, (int64_t) cl[i].snap->ops_total);
   for (int w = 0; w < 3; w++)
      op_family (m, cl, n, w);
}

void
metrics_render (const metrics_cluster_t *clusters, size_t n, const metrics_opts_t *o, metrics_buf_t *out)
{
   m_out_t m = { .b = out, .o = o };
   render_refresh (&m, clusters, n);
   render_balancer (&m, clusters, n);
   render_shards (&m, clusters, n);
   render_colls (&m, clusters, n);
   render_ops (&m, clusters, n);
   if (o->last_scrape_s >= 0) {
      fam (&m, "shardsh_exporter_last_scrape_duration_seconds", M_GAUGE,
           "How long the exporter took to answer its previous scrape.");
      mb_printf (out, "shardsh_exporter_last_scrape_duration_seconds %.6f\n", o->last_scrape_s);
   }
   if (o->openmetrics)
      mb_str (out, "# EOF\n");
   else if (!out->data)
      mb_reserve (out, 0);
}
