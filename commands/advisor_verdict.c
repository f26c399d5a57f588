/* The shard-key advisor's judgement: the key variants worth trying next, a score and a verdict in plain words for each
 * analysed candidate, the server's analyzeShardKey figures placed beside shardsh's, and the --json form of a
 * result. Pure: no I/O, no globals. */
#include "commands/advisor_model.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- variants, ranking and verdicts ---- */

static bool
advisor_single_range (const advisor_result_t *r)
{
   return advisor_field_count (&r->key) == 1 && !r->hashed && r->sampled > 0 && !r->arrays;
}

/* A coarse prefix for { coarse: 1, field: 1 }: a non-monotonic field that repeats (not unique), the most distinct
 * values first, then the lowest top share. NULL when none. */
static const char *
advisor_pick_coarse (const advisor_result_t *v, size_t n, const char *exclude)
{
   const advisor_result_t *best = NULL;
   for (size_t i = 0; i < n; i++) {
      const advisor_result_t *r = &v[i];
      if (!advisor_single_range (r) || !strcmp (advisor_first_field (&r->key), exclude) ||
          r->mono == ADVISOR_MONO_ASCENDING || r->mono == ADVISOR_MONO_DESCENDING || r->all_unique ||
          r->distinct_estimated < 2)
         continue;
      if (!best || r->distinct_estimated > best->distinct_estimated ||
          (r->distinct_estimated == best->distinct_estimated && r->nmcv && best->nmcv &&
           r->mcv[0].share < best->mcv[0].share))
         best = r;
   }
   return best ? advisor_first_field (&best->key) : NULL;
}

/* A fine suffix for { field: 1, fine: 1 }: an ascending field (one growing stack per coarse value, as the seeds'
 * multi-hotspot), else a unique one, the most distinct values first; else _id. */
static const char *
advisor_pick_fine (const advisor_result_t *v, size_t n, const char *exclude)
{
   const advisor_result_t *best = NULL;
   int best_class = 0;
   for (size_t i = 0; i < n; i++) {
      const advisor_result_t *r = &v[i];
      int cls;
      if (!advisor_single_range (r) || !strcmp (advisor_first_field (&r->key), exclude))
         continue;
      cls = r->mono == ADVISOR_MONO_ASCENDING ? 2 : r->all_unique ? 1 : 0;
      if (!cls)
         continue;
      if (!best || cls > best_class || (cls == best_class && r->distinct_estimated > best->distinct_estimated)) {
         best = r;
         best_class = cls;
      }
   }
   if (best)
      return advisor_first_field (&best->key);
   return strcmp (exclude, "_id") ? "_id" : NULL;
}

static bool
advisor_known (const advisor_result_t *v, size_t n, const bson_t *keys, size_t nkeys, const bson_t *key)
{
   for (size_t i = 0; i < n; i++) {
      if (advisor_same_pattern (&v[i].key, key))
         return true;
   }
   for (size_t i = 0; i < nkeys; i++) {
      if (advisor_same_pattern (&keys[i], key))
         return true;
   }
   return false;
}

/* Appends key to keys unless known; takes ownership of key either way. */
static size_t
advisor_add_variant (const advisor_result_t *v, size_t n, bson_t *keys, char (*origins)[128], size_t nkeys, size_t max,
                     bson_t *key, const char *what, const bson_t *of)
{
   char *of_s;
   if (nkeys >= max || advisor_known (v, n, keys, nkeys, key)) {
      bson_destroy (key);
      return nkeys;
   }
   of_s = advisor_key_string (of);
   bson_init (&keys[nkeys]);
   bson_concat (&keys[nkeys], key);
   bson_snprintf (origins[nkeys], sizeof origins[nkeys], "%s of %s", what, of_s);
   bson_free (of_s);
   bson_destroy (key);
   return nkeys + 1;
}

size_t
advisor_variants (const advisor_result_t *results, size_t n, bson_t *keys, char (*origins)[128], size_t max)
{
   size_t nkeys = 0;
   for (size_t i = 0; i < n; i++) {
      const advisor_result_t *r = &results[i];
      const char *f, *other;
      bson_t k;
      if (!advisor_single_range (r))
         continue;
      f = advisor_first_field (&r->key);
      if (r->findings & ADVISOR_F_MONOTONIC) {
         bson_init (&k);
         BSON_APPEND_UTF8 (&k, f, "hashed");
         nkeys = advisor_add_variant (results, n, keys, origins, nkeys, max, &k, "hashed variant", &r->key);
         if ((other = advisor_pick_coarse (results, n, f))) {
            bson_init (&k);
            BSON_APPEND_INT32 (&k, other, 1);
            BSON_APPEND_INT32 (&k, f, 1);
            nkeys = advisor_add_variant (results, n, keys, origins, nkeys, max, &k, "compound variant", &r->key);
         }
      }
      if ((r->findings & (ADVISOR_F_LOW_CARDINALITY | ADVISOR_F_HOT_VALUES)) &&
          (other = advisor_pick_fine (results, n, f))) {
         bson_init (&k);
         BSON_APPEND_INT32 (&k, f, 1);
         BSON_APPEND_INT32 (&k, other, 1);
         nkeys = advisor_add_variant (results, n, keys, origins, nkeys, max, &k, "compound variant", &r->key);
      }
   }
   return nkeys;
}

const char *
advisor_count_string (int64_t v, char *buf, size_t len)
{
   char tmp[32];
   size_t n, o = 0;
   bson_snprintf (tmp, sizeof tmp, "%" PRId64, v < 0 ? -v : v);
   n = strlen (tmp);
   if (v < 0 && o + 1 < len)
      buf[o++] = '-';
   for (size_t i = 0; i < n && o + 2 < len; i++) {
      if (i && (n - i) % 3 == 0)
         buf[o++] = ',';
      buf[o++] = tmp[i];
   }
   buf[o] = '\0';
   return buf;
}

static void
advisor_part (bson_string_t *s, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));

static void
advisor_part (bson_string_t *s, const char *fmt, ...)
{
   va_list ap;
   char *p;
   va_start (ap, fmt);
   p = bson_strdupv_printf (fmt, ap);
   va_end (ap);
   if (s->len)
      bson_string_append (s, "; ");
   bson_string_append (s, p);
   bson_free (p);
}

/* {f: 1, fine: 1} for a single-field candidate, as text; NULL when no fine field is known. */
static char *
advisor_compound_text (const char *first, const char *second)
{
   bson_t k = BSON_INITIALIZER;
   char *s;
   BSON_APPEND_INT32 (&k, first, 1);
   BSON_APPEND_INT32 (&k, second, 1);
   s = advisor_key_string (&k);
   bson_destroy (&k);
   return s;
}

static void
advisor_verdict (advisor_result_t *r, const advisor_result_t *all, size_t n, size_t nshards,
                 const advisor_limits_t *limits)
{
   bson_string_t *s = bson_string_new (NULL);
   char a[32], b[32];
   bool single = advisor_field_count (&r->key) == 1 && !r->hashed;
   const char *f = advisor_first_field (&r->key);
   int score = 100;
   bool suggested_fine = false;

   if (r->findings & ADVISOR_F_NO_SAMPLE) {
      advisor_part (s, "no documents sampled: the collection is empty or missing, nothing to measure");
      score = 0;
      goto done;
   }
   if (r->findings & ADVISOR_F_ARRAY) {
      advisor_part (s, "arrays in %s: a shard key cannot hold arrays (sh.shardCollection fails)", f);
      score = 0;
      goto done;
   }
   if (r->findings & ADVISOR_F_MONOTONIC) {
      bool asc = r->mono == ADVISOR_MONO_ASCENDING;
      const char *coarse = single ? advisor_pick_coarse (all, n, f) : NULL;
      advisor_part (s, "%s: every insert goes to the %s chunk on one shard", asc ? "ascending" : "descending",
                    asc ? "MaxKey" : "MinKey");
      if (single) {
         bson_string_append_printf (s, "; consider {%s: \"hashed\"}", f);
         if (coarse) {
            char *c = advisor_compound_text (coarse, f);
            bson_string_append_printf (s, ", or %s", c);
            bson_free (c);
         }
      }
      score -= 45;
   }
   if (r->findings & (ADVISOR_F_LOW_CARDINALITY | ADVISOR_F_FEWER_THAN_SHARDS)) {
      const char *fine = single ? advisor_pick_fine (all, n, f) : NULL;
      if (r->distinct_estimated == r->distinct_sampled)
         advisor_part (s, "%s distinct value%s: at most %s chunk%s",
                       advisor_count_string (r->distinct_sampled, a, sizeof a), r->distinct_sampled == 1 ? "" : "s", a,
                       r->distinct_sampled == 1 ? "" : "s");
      else
         advisor_part (s, "about %s distinct values (%s seen): at most about %s chunks",
                       advisor_count_string (r->distinct_estimated, a, sizeof a),
                       advisor_count_string (r->distinct_sampled, b, sizeof b), a);
      if (r->findings & ADVISOR_F_FEWER_THAN_SHARDS)
         bson_string_append_printf (s, ", fewer than the %zu shards: adding shards will not help", nshards);
      else
         bson_string_append (s, ", adding shards will not help");
      if (fine) {
         char *c = advisor_compound_text (f, fine);
         bson_string_append_printf (s, "; consider %s", c);
         bson_free (c);
         suggested_fine = true;
      }
      score -= (r->findings & ADVISOR_F_FEWER_THAN_SHARDS) ? 60 : 40;
   }
   if (r->findings & ADVISOR_F_HOT_VALUES) {
      const char *fine = single && !suggested_fine ? advisor_pick_fine (all, n, f) : NULL;
      if (r->nhot == 1)
         advisor_part (s, "the most common value holds %.0f%% of documents: its chunk will %s jumbo",
                       100.0 * r->hot_share, (r->findings & ADVISOR_F_JUMBO_NOW) ? "already be" : "become");
      else
         advisor_part (s, "the top %zu values hold %.0f%% of documents: their chunks will %s jumbo", r->nhot,
                       100.0 * r->hot_share, (r->findings & ADVISOR_F_JUMBO_NOW) ? "already be" : "become");
      if (r->jumbo_at_docs && !(r->findings & ADVISOR_F_JUMBO_NOW))
         bson_string_append_printf (s, " (from about %s documents)",
                                    advisor_count_string (r->jumbo_at_docs, a, sizeof a));
      if (fine) {
         char *c = advisor_compound_text (f, fine);
         bson_string_append_printf (s, "; consider %s", c);
         bson_free (c);
      }
      score -= (r->findings & ADVISOR_F_JUMBO_NOW) ? 35 : 25;
   }
   if ((r->findings & ADVISOR_F_WRITE_SKEW) && !(r->findings & ADVISOR_F_MONOTONIC)) {
      size_t top = 0;
      for (size_t i = 1; i < r->nspread; i++) {
         if (r->spread[i].share > r->spread[top].share)
            top = i;
      }
      advisor_part (s, "next inserts concentrate on %s (%.0f%%)", r->nspread ? r->spread[top].shard : "one shard",
                    100.0 * r->max_shard_share);
      score -= 20;
   }
   if (r->findings & ADVISOR_F_SCATTER) {
      double q = (double) (r->reads + r->writes);
      double sc = (r->read_scatter * (double) r->reads + r->write_scatter * (double) r->writes) / q;
      advisor_part (s, "%.0f%% of sampled queries would go to every shard: they do not name %s", sc, f);
      score -= (int) lround (0.3 * sc);
   }
   if (r->findings & ADVISOR_F_MISSING) {
      double m = 100.0 * (double) r->missing / (double) r->sampled;
      if (m >= 1.0) {
         advisor_part (s, "%.0f%% of documents lack the key (they share one null value)", m);
         score -= 5;
      }
   }
   if (score == 100) {
      bson_string_t *g = bson_string_new ("good: ");
      if (r->all_unique)
         bson_string_append_printf (g, "every sampled value distinct (up to %s chunks)",
                                    advisor_count_string (r->distinct_estimated, a, sizeof a));
      else
         bson_string_append_printf (g, "about %s distinct values (up to that many chunks)",
                                    advisor_count_string (r->distinct_estimated, a, sizeof a));
      bson_string_append_printf (g, ", no value above %.0f%%", 100.0 * limits->hot_share);
      if (r->mono == ADVISOR_MONO_NOT)
         bson_string_append (g, ", not monotonic");
      if (r->nspread > 1)
         bson_string_append_printf (g, ", next inserts spread over %d of %zu shards", r->shards_reached, r->nspread);
      bson_string_append (g, s->str);
      bson_string_free (s, true);
      s = g;
   }
   if (r->mono == ADVISOR_MONO_UNKNOWN)
      advisor_part (s, "insertion order unknown (no ObjectId _id, no natural order): monotonicity not measured");
   if (r->findings & ADVISOR_F_HASHED_RANGES) {
      advisor_part (s, "hashed: range queries on %s go to every shard", f);
      score -= 1;
   }
done:
   r->score = score < 0 ? 0 : score;
   bson_strncpy (r->verdict, s->str, sizeof r->verdict);
   bson_string_free (s, true);
}

void
advisor_rank (advisor_result_t *results, size_t n, size_t nshards, const advisor_limits_t *limits)
{
   for (size_t i = 0; i < n; i++)
      advisor_verdict (&results[i], results, n, nshards, limits);
   /* stable insertion sort: best score first, then more distinct values, then the original order */
   for (size_t i = 1; i < n; i++) {
      advisor_result_t tmp = results[i];
      size_t j = i;
      while (j > 0 &&
             (results[j - 1].score < tmp.score ||
              (results[j - 1].score == tmp.score && results[j - 1].distinct_estimated < tmp.distinct_estimated))) {
         results[j] = results[j - 1];
         j--;
      }
      results[j] = tmp;
   }
}

/* ---- the server's figures beside shardsh's ---- */

static bool
advisor_sub (const bson_t *doc, const char *path, bson_iter_t *it)
{
   bson_iter_t root;
   return doc && bson_iter_init (&root, doc) && bson_iter_find_descendant (&root, path, it);
}

static double
advisor_num (const bson_t *doc, const char *path, double dflt)
{
   bson_iter_t it;
   return advisor_sub (doc, path, &it) && BSON_ITER_HOLDS_NUMBER (&it) ? bson_iter_as_double (&it) : dflt;
}

static const char *
advisor_mono_name (advisor_mono_t m)
{
   switch (m) {
   case ADVISOR_MONO_ASCENDING:
   case ADVISOR_MONO_DESCENDING:
      return "monotonic";
   case ADVISOR_MONO_NOT:
      return "not monotonic";
   case ADVISOR_MONO_UNKNOWN:
   default:
      return "unknown";
   }
}

void
advisor_attach_server (advisor_result_t *r, const bson_t *reply, const char *error)
{
   bson_string_t *diff = bson_string_new (NULL);
   bson_iter_t it, mcv;
   double srv_sampled, srv_total, srv_distinct, srv_top = -1, srv_corr;
   double srv_reads, srv_writes;
   const char *srv_mono = "unknown";
   char a[32], b[32], c[32], d[32], e[32];

   r->has_server = true;
   bson_reinit (&r->server);
   if (error || !reply) {
      BSON_APPEND_UTF8 (&r->server, "error", error ? error : "no reply");
      bson_snprintf (r->server_note, sizeof r->server_note, "the server's analyzeShardKey failed: %s",
                     error ? error : "no reply");
      goto done;
   }
   if (!advisor_sub (reply, "keyCharacteristics", &it)) {
      /* 7.0+ answers the read/write distribution alone when the key has no supporting index */
      BSON_APPEND_UTF8 (&r->server, "error", "no keyCharacteristics: the key has no supporting index");
      bson_strncpy (r->server_note, "the server's analyzeShardKey has no key characteristics: no supporting index",
                    sizeof r->server_note);
      goto done;
   }
   srv_total = advisor_num (reply, "keyCharacteristics.numDocsTotal", -1);
   srv_sampled = advisor_num (reply, "keyCharacteristics.numDocsSampled", -1);
   srv_distinct = advisor_num (reply, "keyCharacteristics.numDistinctValues", -1);
   srv_corr = advisor_num (reply, "keyCharacteristics.monotonicity.recordIdCorrelationCoefficient", 0);
   if (advisor_sub (reply, "keyCharacteristics.monotonicity.type", &it) && BSON_ITER_HOLDS_UTF8 (&it))
      srv_mono = bson_iter_utf8 (&it, NULL);
   if (advisor_sub (reply, "keyCharacteristics.mostCommonValues", &it) && BSON_ITER_HOLDS_ARRAY (&it) &&
       bson_iter_recurse (&it, &mcv) && bson_iter_next (&mcv) && BSON_ITER_HOLDS_DOCUMENT (&mcv)) {
      bson_iter_t f;
      if (bson_iter_recurse (&mcv, &f) && bson_iter_find (&f, "frequency") && BSON_ITER_HOLDS_NUMBER (&f) &&
          srv_sampled > 0)
         srv_top = bson_iter_as_double (&f) / srv_sampled;
   }
   srv_reads = advisor_num (reply, "readDistribution.sampleSize.total", 0);
   srv_writes = advisor_num (reply, "writeDistribution.sampleSize.total", 0);

   BSON_APPEND_INT64 (&r->server, "numDocsTotal", (int64_t) srv_total);
   BSON_APPEND_INT64 (&r->server, "numDocsSampled", (int64_t) srv_sampled);
   BSON_APPEND_INT64 (&r->server, "numDistinctValues", (int64_t) srv_distinct);
   if (srv_top >= 0)
      BSON_APPEND_DOUBLE (&r->server, "topShare", srv_top);
   BSON_APPEND_UTF8 (&r->server, "monotonicity", srv_mono);
   BSON_APPEND_DOUBLE (&r->server, "correlation", srv_corr);
   BSON_APPEND_INT64 (&r->server, "sampledReads", (int64_t) srv_reads);
   BSON_APPEND_INT64 (&r->server, "sampledWrites", (int64_t) srv_writes);
   if (srv_reads > 0) {
      BSON_APPEND_DOUBLE (&r->server, "readSingleShard",
                          advisor_num (reply, "readDistribution.percentageOfSingleShardReads", 0));
      BSON_APPEND_DOUBLE (&r->server, "readMultiShard",
                          advisor_num (reply, "readDistribution.percentageOfMultiShardReads", 0));
      BSON_APPEND_DOUBLE (&r->server, "readScatterGather",
                          advisor_num (reply, "readDistribution.percentageOfScatterGatherReads", 0));
   }
   if (srv_writes > 0) {
      BSON_APPEND_DOUBLE (&r->server, "writeSingleShard",
                          advisor_num (reply, "writeDistribution.percentageOfSingleShardWrites", 0));
      BSON_APPEND_DOUBLE (&r->server, "writeMultiShard",
                          advisor_num (reply, "writeDistribution.percentageOfMultiShardWrites", 0));
      BSON_APPEND_DOUBLE (&r->server, "writeScatterGather",
                          advisor_num (reply, "writeDistribution.percentageOfScatterGatherWrites", 0));
   }

   /* cardinality: the server counts exactly over its own sample; shardsh estimates the whole from its sample */
   if (srv_distinct >= 0) {
      double ours = (double) r->distinct_estimated;
      bool exact = srv_total > 0 && srv_sampled >= srv_total;
      double ratio = ours > 0 ? srv_distinct / ours : 0;
      double ratio_seen = r->distinct_sampled > 0 ? srv_distinct / (double) r->distinct_sampled : 0;
      if (!(ratio >= 0.5 && ratio <= 2.0) &&
          !(!exact && srv_sampled == (double) r->sampled && ratio_seen >= 0.5 && ratio_seen <= 2.0))
         advisor_part (diff,
                       "distinct values: the server counted %s in %s documents%s, shardsh saw %s in %s and estimates %s"
                       " (sample size: %s)",
                       advisor_count_string ((int64_t) srv_distinct, a, sizeof a),
                       advisor_count_string ((int64_t) srv_sampled, b, sizeof b), exact ? " (all of them)" : "",
                       advisor_count_string (r->distinct_sampled, c, sizeof c),
                       advisor_count_string (r->sampled, d, sizeof d),
                       advisor_count_string (r->distinct_estimated, e, sizeof e),
                       srv_sampled > (double) r->sampled ? "a larger sample meets more of the rare values"
                                                         : "a sample counts only the values it meets");
   }
   /* frequency: within three standard errors of shardsh's sample, plus two points */
   if (srv_top >= 0 && r->nmcv) {
      double p = r->mcv[0].share;
      double tol = 3.0 * sqrt (p * (1.0 - p) / (double) (r->sampled ? r->sampled : 1)) + 0.02;
      if (fabs (srv_top - p) > tol)
         advisor_part (diff,
                       "top value: the server %.1f%%, shardsh %.1f%% (sample size: shardsh's %s documents give"
                       " +/-%.1f points)",
                       100.0 * srv_top, 100.0 * p, advisor_count_string (r->sampled, a, sizeof a), 100.0 * tol);
   }
   /* monotonicity: the server correlates the key with record ids; shardsh with the ObjectId time or natural order */
   if (strcmp (srv_mono, advisor_mono_name (r->mono)) != 0)
      advisor_part (diff,
                    "monotonicity: the server says %s (correlation %.2f with record ids), shardsh %s (%.2f with %s)",
                    srv_mono, srv_corr, advisor_mono_name (r->mono), r->correlation,
                    r->order == ADVISOR_ORDER_OBJECTID  ? "the ObjectId time of _id"
                    : r->order == ADVISOR_ORDER_NATURAL ? "natural order"
                                                        : "no known insertion order");
   /* query targeting */
   if (srv_reads + srv_writes == 0 && r->reads + r->writes == 0) {
      /* nothing sampled on either side: not a disagreement */
   } else if ((srv_reads + srv_writes > 0) != (r->reads + r->writes > 0)) {
      advisor_part (diff, "sampled queries: the server holds %s reads and %s writes, shardsh read %s and %s",
                    advisor_count_string ((int64_t) srv_reads, a, sizeof a),
                    advisor_count_string ((int64_t) srv_writes, b, sizeof b),
                    advisor_count_string (r->reads, c, sizeof c), advisor_count_string (r->writes, d, sizeof d));
   } else if (srv_reads > 0 && r->reads > 0 &&
              fabs (advisor_num (reply, "readDistribution.percentageOfSingleShardReads", 0) - r->read_single) > 10) {
      advisor_part (diff, "single-shard reads: the server %.0f%%, shardsh %.0f%% (different sampled queries)",
                    advisor_num (reply, "readDistribution.percentageOfSingleShardReads", 0), r->read_single);
   }
   if (diff->len)
      bson_snprintf (r->server_note, sizeof r->server_note, "differs: %s", diff->str);
   else
      bson_snprintf (r->server_note, sizeof r->server_note, "agrees on cardinality, frequency and monotonicity%s",
                     srv_reads + srv_writes > 0 ? " and query targeting" : "");
done:
   BSON_APPEND_UTF8 (&r->server, "note", r->server_note);
   bson_string_free (diff, true);
}

/* ---- --json ---- */

static const char *
advisor_order_name (advisor_order_t o)
{
   return o == ADVISOR_ORDER_OBJECTID ? "objectid" : o == ADVISOR_ORDER_NATURAL ? "natural" : "unknown";
}

void
advisor_result_to_bson (const advisor_result_t *r, bson_t *out)
{
   bson_t sub, arr, item;
   char k[16];
   const char *key;
   static const struct {
      unsigned bit;
      const char *name;
   } names[] = {
      { ADVISOR_F_ARRAY, "array" },
      { ADVISOR_F_MISSING, "missing" },
      { ADVISOR_F_FEWER_THAN_SHARDS, "fewerValuesThanShards" },
      { ADVISOR_F_LOW_CARDINALITY, "lowCardinality" },
      { ADVISOR_F_HOT_VALUES, "hotValues" },
      { ADVISOR_F_JUMBO_NOW, "jumboNow" },
      { ADVISOR_F_MONOTONIC, "monotonic" },
      { ADVISOR_F_WRITE_SKEW, "writeSkew" },
      { ADVISOR_F_SCATTER, "scatterGather" },
      { ADVISOR_F_HASHED_RANGES, "hashedRanges" },
      { ADVISOR_F_NO_SAMPLE, "noSample" },
   };

   bson_init (out);
   BSON_APPEND_DOCUMENT (out, "key", &r->key);
   BSON_APPEND_UTF8 (out, "origin", r->origin);
   BSON_APPEND_INT32 (out, "score", r->score);
   BSON_APPEND_UTF8 (out, "verdict", r->verdict);
   BSON_APPEND_ARRAY_BEGIN (out, "findings", &arr);
   for (size_t i = 0, n = 0; i < sizeof names / sizeof names[0]; i++) {
      if (r->findings & names[i].bit) {
         bson_uint32_to_string ((uint32_t) n++, &key, k, sizeof k);
         BSON_APPEND_UTF8 (&arr, key, names[i].name);
      }
   }
   bson_append_array_end (out, &arr);
   BSON_APPEND_INT64 (out, "sampled", r->sampled);
   BSON_APPEND_INT64 (out, "missing", r->missing);
   BSON_APPEND_INT64 (out, "arrays", r->arrays);

   BSON_APPEND_DOCUMENT_BEGIN (out, "cardinality", &sub);
   BSON_APPEND_INT64 (&sub, "distinctSampled", r->distinct_sampled);
   BSON_APPEND_INT64 (&sub, "distinctEstimated", r->distinct_estimated);
   BSON_APPEND_BOOL (&sub, "allUnique", r->all_unique);
   BSON_APPEND_INT64 (&sub, "maxChunks", r->distinct_estimated);
   bson_append_document_end (out, &sub);

   BSON_APPEND_DOCUMENT_BEGIN (out, "frequency", &sub);
   BSON_APPEND_ARRAY_BEGIN (&sub, "mostCommonValues", &arr);
   for (size_t i = 0; i < r->nmcv; i++) {
      bson_uint32_to_string ((uint32_t) i, &key, k, sizeof k);
      BSON_APPEND_DOCUMENT_BEGIN (&arr, key, &item);
      BSON_APPEND_DOCUMENT (&item, "value", &r->mcv[i].value);
      BSON_APPEND_INT64 (&item, "count", r->mcv[i].count);
      BSON_APPEND_DOUBLE (&item, "share", r->mcv[i].share);
      bson_append_document_end (&arr, &item);
   }
   bson_append_array_end (&sub, &arr);
   BSON_APPEND_INT32 (&sub, "hotValues", (int32_t) r->nhot);
   BSON_APPEND_DOUBLE (&sub, "hotShare", r->hot_share);
   BSON_APPEND_INT64 (&sub, "avgDocSizeBytes", r->avg_doc_bytes);
   BSON_APPEND_INT64 (&sub, "jumboAtDocs", r->jumbo_at_docs);
   bson_append_document_end (out, &sub);

   BSON_APPEND_DOCUMENT_BEGIN (out, "monotonicity", &sub);
   BSON_APPEND_UTF8 (&sub, "type",
                     r->mono == ADVISOR_MONO_ASCENDING    ? "ascending"
                     : r->mono == ADVISOR_MONO_DESCENDING ? "descending"
                                                          : advisor_mono_name (r->mono));
   BSON_APPEND_DOUBLE (&sub, "correlation", r->correlation);
   BSON_APPEND_UTF8 (&sub, "order", advisor_order_name (r->order));
   bson_append_document_end (out, &sub);

   BSON_APPEND_DOCUMENT_BEGIN (out, "writeSpread", &sub);
   BSON_APPEND_UTF8 (&sub, "basis",
                     r->spread_actual ? "chunk map"
                     : r->hashed      ? "even split of the hashed range"
                                      : "even split of the sampled range");
   BSON_APPEND_BOOL (&sub, "extrapolated", r->spread_extrapolated);
   BSON_APPEND_INT32 (&sub, "shardsReached", r->shards_reached);
   BSON_APPEND_DOCUMENT_BEGIN (&sub, "shares", &item);
   for (size_t i = 0; i < r->nspread; i++)
      BSON_APPEND_DOUBLE (&item, r->spread[i].shard, r->spread[i].share);
   bson_append_document_end (&sub, &item);
   bson_append_document_end (out, &sub);

   BSON_APPEND_DOCUMENT_BEGIN (out, "queries", &sub);
   BSON_APPEND_INT64 (&sub, "reads", r->reads);
   BSON_APPEND_INT64 (&sub, "writes", r->writes);
   if (r->reads) {
      BSON_APPEND_DOUBLE (&sub, "readSingleShard", r->read_single);
      BSON_APPEND_DOUBLE (&sub, "readMultiShard", r->read_multi);
      BSON_APPEND_DOUBLE (&sub, "readScatterGather", r->read_scatter);
   }
   if (r->writes) {
      BSON_APPEND_DOUBLE (&sub, "writeSingleShard", r->write_single);
      BSON_APPEND_DOUBLE (&sub, "writeMultiShard", r->write_multi);
      BSON_APPEND_DOUBLE (&sub, "writeScatterGather", r->write_scatter);
   }
   bson_append_document_end (out, &sub);

   if (r->has_server)
      BSON_APPEND_DOCUMENT (out, "server", &r->server);
}
