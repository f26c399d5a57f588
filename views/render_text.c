/* Batch output from the same snapshot the screen draws: plain text (--once, or frames when stdout is not a
 * terminal) and one JSON document (--once --json). Numbers in JSON are exact (rates to two decimals); text rounds.
 * The JSON is written here rather than by libbson's bson_as_relaxed_extended_json, which prints a double with 20
 * significant digits (12.34 as 12.339999999999999858): a rate is a measurement, not a stored value. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "views/crt.h"
#include "views/views.h"

static void
fmt_iso (int64_t ms, char *buf, size_t len)
{
   time_t t = (time_t) (ms / 1000);
   struct tm tm;
   char base[32];
   gmtime_r (&t, &tm);
   strftime (base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
   snprintf (buf, len, "%s.%03dZ", base, (int) (ms % 1000));
}

/* Writes s as a JSON string literal. */
static void
json_str (FILE *out, const char *s)
{
   fputc ('"', out);
   for (; *s; s++) {
      unsigned char ch = (unsigned char) *s;
      if (ch == '"' || ch == '\\')
         fprintf (out, "\\%c", ch);
      else if (ch == '\n')
         fputs ("\\n", out);
      else if (ch == '\t')
         fputs ("\\t", out);
      else if (ch < 0x20)
         fprintf (out, "\\u%04x", ch);
      else
         fputc (ch, out);
   }
   fputc ('"', out);
}

/* A rate with at most two decimals, as a JSON number (null before rates exist). */
static void
json_rate (FILE *out, bool valid, double v)
{
   if (!valid)
      fputs ("null", out);
   else
      fprintf (out, "%.2f", v);
}

/* An integer, or null when it is not known. */
static void
json_int (FILE *out, bool valid, int64_t v)
{
   if (!valid)
      fputs ("null", out);
   else
      fprintf (out, "%lld", (long long) v);
}

static const char *
balance_word (snap_balance_t b)
{
   return b == SNAP_BAL_IMBALANCED ? "imbalanced" : b == SNAP_BAL_OK ? "balanced" : "unknown";
}

static const char *
event_word (snap_event_kind_t k)
{
   static const char *const words[] = { "split",       "migration", "migrationFailed", "migrationStarted", "round",
                                        "roundFailed", "other" };
   return k <= SNAP_EV_OTHER ? words[k] : "other";
}

/* The "balancer" field of render_json's document. */
static void
json_balancer (FILE *out, const snap_t *s)
{
   fputs (", \"balancer\": {\"mode\": ", out);
   json_str (out, s->balancer.mode);
   fprintf (out, ", \"inRound\": %s, \"rounds\": ", s->balancer.in_round ? "true" : "false");
   if (s->balancer.rounds >= 0)
      fprintf (out, "%lld", (long long) s->balancer.rounds);
   else
      fputs ("null", out);
   fputs (", \"migrationsInFlight\": ", out);
   json_int (out, s->balancer.migrations >= 0, s->balancer.migrations);
   fputs (", \"migrations\": [", out);
   for (size_t i = 0; i < s->nmigs; i++) {
      const snap_migration_t *m = &s->migs[i];
      fputs (i ? ", {\"ns\": " : "{\"ns\": ", out);
      json_str (out, m->ns);
      fputs (", \"from\": ", out);
      json_str (out, m->from);
      fputs (", \"to\": ", out);
      json_str (out, m->to);
      /* the bounds as the hot range gives them: relaxed Extended JSON documents (null when the server gave none), then
       * the range as the screen shows it */
      fprintf (out, ", \"min\": %s, \"max\": %s, \"range\": ", m->min_json[0] ? m->min_json : "null",
               m->max_json[0] ? m->max_json : "null");
      {
         char range[2 * SNAP_TEXT + 8];
         snprintf (range, sizeof range, "%s -> %s", m->min[0] ? m->min : "?", m->max[0] ? m->max : "?");
         json_str (out, range);
      }
      fputs ("}", out);
   }
   fputs ("], \"activeWindow\": ", out);
   if (s->balancer.has_window) {
      fputs ("{\"start\": ", out);
      json_str (out, s->balancer.window_start);
      fputs (", \"stop\": ", out);
      json_str (out, s->balancer.window_stop);
      fputs ("}", out);
   } else {
      fputs ("null", out);
   }
   fprintf (out, ", \"chunkSizeBytes\": %lld}", (long long) s->balancer.chunk_size_bytes);
}

/* , "stuck": <why>, "fix": <command> of a stuck operation, or both null (o NULL). */
static void
json_stuck (FILE *out, const snap_op_t *o)
{
   fputs (", \"stuck\": ", out);
   if (o)
      json_str (out, o->stuck);
   else
      fputs ("null", out);
   fputs (", \"fix\": ", out);
   if (o)
      json_str (out, o->fix);
   else
      fputs ("null", out);
}

/* The elements of render_json's "shards" array. */
static void
json_shards (FILE *out, const snap_t *s)
{
   for (size_t i = 0; i < s->nshards; i++) {
      const snap_shard_t *sh = &s->shards[i];
      fputs (i ? ", {\"shard\": " : "{\"shard\": ", out);
      json_str (out, sh->name);
      fprintf (out, ", \"draining\": %s, \"zones\": ", sh->draining ? "true" : "false");
      json_str (out, sh->zones);
      fprintf (out, ", \"chunks\": %lld, \"jumbo\": %lld, \"dataBytes\": %lld, \"documents\": %lld, \"writesPerSec\": ",
               (long long) sh->chunks, (long long) sh->jumbo, (long long) sh->data_bytes, (long long) sh->docs);
      json_rate (out, s->rates_valid, sh->writes_ps);
      fputs (", \"readsPerSec\": ", out);
      json_rate (out, s->rates_valid, sh->reads_ps);
      fprintf (out,
               ", \"hot\": %s, \"trend\": {\"chunks\": %lld, \"dataBytes\": %lld, \"sinceSec\": %.1f}, \"drain\": ",
               sh->hot ? "true" : "false", (long long) sh->chunks_delta, (long long) sh->bytes_delta, sh->trend_s);
      if (sh->draining) {
         const snap_drain_t *d = &sh->drain;
         fprintf (out, "{\"chunks\": %lld, \"bytes\": %lld, \"databases\": ", (long long) d->chunks,
                  (long long) d->bytes);
         json_int (out, d->databases >= 0, d->databases);
         fputs (", \"bytesPerSec\": ", out);
         json_rate (out, d->bytes_ps >= 0, d->bytes_ps);
         fputs (", \"chunksPerSec\": ", out);
         json_rate (out, d->chunks_ps >= 0, d->chunks_ps);
         fputs (", \"etaSec\": ", out);
         json_int (out, d->eta_s >= 0, d->eta_s);
         fprintf (out, ", \"windowSec\": %.1f", d->window_s);
         json_stuck (out, d->stuck ? snap_drain_op (s, sh->name) : NULL);
         fputs ("}}", out);
      } else {
         fputs ("null}", out);
      }
   }
}

void
render_json (FILE *out, const snap_t *s)
{
   char iso[40];
   fputs ("{\"cluster\": {\"host\": ", out);
   json_str (out, s->host);
   fputs (", \"version\": ", out);
   json_str (out, s->version);
   fputs ("}, \"sampledAt\": ", out);
   if (s->sampled_at_ms) {
      fmt_iso (s->sampled_at_ms, iso, sizeof iso);
      json_str (out, iso);
   } else {
      fputs ("null", out);
   }
   fprintf (out,
            ", \"sampleMillis\": %lld, \"roundTrips\": %d, \"incremental\": %s, \"collectionsRecounted\": %d, "
            "\"quiet\": %s, \"countersRead\": %d, \"intervalSec\": %.3g, \"stale\": %s, \"error\": ",
            (long long) s->sample_ms, s->round_trips, s->incremental ? "true" : "false", s->colls_reread,
            s->quiet ? "true" : "false", s->stats_read, s->interval_s, s->stale ? "true" : "false");
   if (s->stale)
      json_str (out, s->error);
   else
      fputs ("null", out);
   fprintf (out, ", \"hotThresholds\": {\"factor\": %.3g, \"minWritesPerSec\": %.3g}", s->hot_factor, s->hot_min_rate);
   json_balancer (out, s);
   fputs (", \"shards\": [", out);
   json_shards (out, s);
   fputs ("], \"collections\": [", out);
   for (size_t i = 0; i < s->ncolls; i++) {
      const snap_coll_t *co = &s->colls[i];
      fputs (i ? ", {\"ns\": " : "{\"ns\": ", out);
      json_str (out, co->ns);
      fprintf (out, ", \"key\": %s, \"chunks\": %lld, \"chunksPerShard\": {", co->key_json[0] ? co->key_json : "null",
               (long long) co->chunks);
      for (size_t k = 0; k < s->nshards; k++) {
         if (k)
            fputs (", ", out);
         json_str (out, s->shards[k].name);
         fprintf (out, ": %lld", (long long) snap_coll_chunks_on (co, (int) k));
      }
      fprintf (out,
               "}, \"dataBytes\": %lld, \"documents\": %lld, \"jumbo\": %lld, \"outsideZone\": %lld, "
               "\"balancingDisabled\": %s",
               (long long) co->data_bytes, (long long) co->docs, (long long) co->jumbo, (long long) co->out_of_zone,
               co->no_balance ? "true" : "false");
      fprintf (out, ", \"balance\": \"%s\", \"balanceWhy\": ", balance_word (co->balance));
      json_str (out, co->balance_why);
      fputs (", \"writesPerSec\": ", out);
      json_rate (out, s->rates_valid, co->writes_ps);
      fputs (", \"readsPerSec\": ", out);
      json_rate (out, s->rates_valid, co->reads_ps);
      fputs (", \"hotShards\": [", out);
      for (size_t k = 0, n = 0; k < s->nshards; k++) {
         if (!snap_coll_hot_on (co, (int) k))
            continue;
         if (n++)
            fputs (", ", out);
         json_str (out, s->shards[k].name);
      }
      fputs ("], \"hotRange\": ", out);
      if (co->has_hot_range) {
         fputs ("{\"shard\": ", out);
         json_str (out, s->shards[co->hot_range_shard].name);
         fprintf (out, ", \"min\": %s, \"max\": %s, \"end\": \"%s\"}", snap_coll_hot_min_json (co),
                  snap_coll_hot_max_json (co), co->hot_range_end);
      } else {
         fputs ("null", out);
      }
      fputs ("}", out);
   }
   fprintf (out,
            "], \"totals\": {\"chunks\": %lld, \"jumbo\": %lld, \"dataBytes\": %lld, \"documents\": %lld, "
            "\"writesPerSec\": ",
            (long long) s->total_chunks, (long long) s->total_jumbo, (long long) s->total_bytes,
            (long long) s->total_docs);
   json_rate (out, s->rates_valid, s->total_writes_ps);
   fputs (", \"readsPerSec\": ", out);
   json_rate (out, s->rates_valid, s->total_reads_ps);
   fputs ("}, \"events\": [", out);
   for (size_t i = 0; i < s->nevents; i++) {
      const snap_event_t *e = &s->events[i];
      fmt_iso (e->time_ms, iso, sizeof iso);
      fputs (i ? ", {\"time\": " : "{\"time\": ", out);
      json_str (out, iso);
      fprintf (out, ", \"kind\": \"%s\", \"what\": ", event_word (e->kind));
      json_str (out, e->what);
      fputs (", \"ns\": ", out);
      json_str (out, e->ns);
      fputs (", \"text\": ", out);
      json_str (out, e->text);
      fputs ("}", out);
   }
   /* the long operations, as sh.progress --json names their fields (null: unknown or not to be trusted) */
   fprintf (out, "], \"operationsTotal\": %zu, \"operations\": [", s->ops_total);
   for (size_t i = 0; i < s->nops; i++) {
      const snap_op_t *o = &s->ops[i];
      fputs (i ? ", {\"type\": " : "{\"type\": ", out);
      json_str (out, o->type);
      fputs (", \"ns\": ", out);
      json_str (out, o->ns);
      fputs (", \"shard\": ", out);
      json_str (out, o->shard);
      fputs (", \"phase\": ", out);
      json_str (out, o->phase);
      fputs (", \"percent\": ", out);
      json_rate (out, o->percent >= 0, o->percent);
      fputs (", \"bytesPerSec\": ", out);
      json_rate (out, o->bytes_ps >= 0, o->bytes_ps);
      fputs (", \"etaSec\": ", out);
      json_rate (out, o->eta_s >= 0, o->eta_s);
      fputs (", \"caveat\": ", out);
      json_str (out, o->caveat);
      json_stuck (out, o->stuck[0] ? o : NULL);
      fputs ("}", out);
   }
   fputs ("]}\n", out);
}

void
render_text (FILE *out, const snap_t *s)
{
   char iso[40], a[32], b[32], c[32];
   if (s->sampled_at_ms)
      fmt_iso (s->sampled_at_ms, iso, sizeof iso);
   else
      snprintf (iso, sizeof iso, "never");
   fprintf (out, "cluster %s %s  sampled %s (%lld ms, %d commands)%s%s\n", s->host, s->version, iso,
            (long long) s->sample_ms, s->round_trips, s->stale ? "  STALE: " : "", s->stale ? s->error : "");
   snprintf (c, sizeof c, "%d", s->balancer.migrations);
   fprintf (out, "balancer %s, %s, rounds %lld, window %s%s%s, migrations in flight %s\n",
            s->balancer.mode[0] ? s->balancer.mode : "?", s->balancer.in_round ? "round running" : "idle",
            (long long) s->balancer.rounds, s->balancer.has_window ? s->balancer.window_start : "always",
            s->balancer.has_window ? "-" : "", s->balancer.has_window ? s->balancer.window_stop : "",
            s->balancer.migrations >= 0 ? c : "?");
   for (size_t i = 0; i < s->nmigs; i++)
      fprintf (out, "  moving %s -> %s %s %s -> %s\n", s->migs[i].from, s->migs[i].to, s->migs[i].ns, s->migs[i].min,
               s->migs[i].max);
   fprintf (out, "\n%-16s %-6s %-10s %7s %9s %9s %8s %8s %s\n", "SHARD", "STATE", "ZONES", "CHUNKS", "DATA", "DOCS",
            "W/S", "R/S", "HOT");
   for (size_t i = 0; i < s->nshards; i++) {
      const snap_shard_t *sh = &s->shards[i];
      fprintf (out, "%-16s %-6s %-10s %7lld %9s %9s %8s %8s %s\n", sh->name, sh->draining ? "drain" : "ok",
               sh->zones[0] ? sh->zones : "-", (long long) sh->chunks, snap_fmt_bytes (sh->data_bytes, a, sizeof a),
               snap_fmt_count ((double) sh->docs, b, sizeof b),
               s->rates_valid ? snap_fmt_count (sh->writes_ps, c, sizeof c) : "-",
               s->rates_valid ? snap_fmt_count (sh->reads_ps, iso, sizeof iso) : "-", sh->hot ? crt_glyphs->hot : "");
   }
   fprintf (out, "%-16s %-6s %-10s %7lld %9s %9s %8s %8s\n", "TOTAL", "", "", (long long) s->total_chunks,
            snap_fmt_bytes (s->total_bytes, a, sizeof a), snap_fmt_count ((double) s->total_docs, b, sizeof b),
            s->rates_valid ? snap_fmt_count (s->total_writes_ps, c, sizeof c) : "-",
            s->rates_valid ? snap_fmt_count (s->total_reads_ps, iso, sizeof iso) : "-");
   for (size_t i = 0; i < s->nshards; i++) {
      const snap_shard_t *sh = &s->shards[i];
      char rate[40], eta[32], dbs[24];
      if (!sh->draining)
         continue;
      snap_fmt_rate_bytes (sh->drain.bytes_ps, rate, sizeof rate);
      snap_fmt_duration (sh->drain.eta_s, eta, sizeof eta);
      snprintf (dbs, sizeof dbs, "%lld", (long long) sh->drain.databases);
      const snap_op_t *op = sh->drain.stuck ? snap_drain_op (s, sh->name) : NULL;
      fprintf (out, "draining %s: %lld chunks, %s, %s databases left; %s over %.0fs; %s%s%s\n", sh->name,
               (long long) sh->drain.chunks, snap_fmt_bytes (sh->drain.bytes, a, sizeof a),
               sh->drain.databases >= 0 ? dbs : "?", rate, sh->drain.window_s, op ? "STUCK: " : "about ",
               op ? op->stuck : eta, op ? "" : " left");
   }
   for (size_t i = 0; i < s->nops; i++) {
      char line[SNAP_TEXT * 2 + 1024];
      fprintf (out, "%s%s\n", i ? "" : "\noperations:\n", snap_fmt_op (&s->ops[i], line, sizeof line));
   }
   if (s->ops_total > s->nops)
      fprintf (out, "(%zu more operations)\n", s->ops_total - s->nops);
   fprintf (out, "\n%-24s %-18s %7s %9s  %-10s %s\n", "COLLECTION", "KEY", "CHUNKS", "DATA", "BALANCE",
            "PER SHARD / HOT");
   for (size_t i = 0; i < s->ncolls; i++) {
      const snap_coll_t *co = &s->colls[i];
      fprintf (out, "%-24s %-18s %7lld %9s  %-10s", co->ns, co->key, (long long) co->chunks,
               snap_fmt_bytes (co->data_bytes, b, sizeof b), balance_word (co->balance));
      for (size_t k = 0; k < s->nshards; k++)
         fprintf (out, " %s=%lld", s->shards[k].name, (long long) snap_coll_chunks_on (co, (int) k));
      if (co->jumbo)
         fprintf (out, "  jumbo=%lld", (long long) co->jumbo);
      if (co->out_of_zone)
         fprintf (out, "  outsideZone=%lld", (long long) co->out_of_zone);
      if (co->no_balance)
         fputs ("  balancing disabled", out);
      if (s->rates_valid)
         fprintf (out, "  w/s=%s", snap_fmt_count (co->writes_ps, a, sizeof a));
      if (co->hot_shard >= 0)
         fprintf (out, "  %s %s", crt_glyphs->hot, s->shards[co->hot_shard].name);
      if (co->has_hot_range) {
         char range[2 * SNAP_TEXT + 8];
         snap_coll_hot_range (co, range, sizeof range);
         fprintf (out, " range %s", range);
      }
      fputc ('\n', out);
      if (co->balance_why[0])
         fprintf (out, "%-24s   (%s)\n", "", co->balance_why);
   }
   if (s->nevents)
      fputs ("\nEVENTS\n", out);
   for (size_t i = 0; i < s->nevents; i++) {
      const snap_event_t *e = &s->events[i];
      fmt_iso (e->time_ms, iso, sizeof iso);
      fprintf (out, "%s %-16s %-24s %s\n", iso, e->what, e->ns, e->text);
   }
}
