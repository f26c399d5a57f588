/* shardsim's shard-key analysis: analyzeShardKey (key characteristics from the stored documents) and
 * configureQueryAnalyzer (config.queryAnalyzers). Callers hold sim_g.lock. */
#include "tests/shardsim/sim_admin.h"
#include "tests/shardsim/query/simq_int.h"

#include "shell/lib/hashkey.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Monotonicity: the correlation between insertion order and key order of keys (single-field documents; numbers and
 * dates only). *n receives how many keys counted and *numeric whether every key was a number or a date; 0 when
 * fewer than two counted. */
static double
sim_key_correlation (const simq_docs_t *keys, int64_t *n, bool *numeric_out)
{
   double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
   int64_t m = 0;
   bool numeric = true;
   for (size_t i = 0; i < keys->n; i++) {
      bson_iter_t f;
      if (!bson_iter_init (&f, keys->v[i]) || !bson_iter_next (&f)) {
         continue;
      }
      double y;
      if (BSON_ITER_HOLDS_NUMBER (&f)) {
         y = bson_iter_as_double (&f);
      } else if (BSON_ITER_HOLDS_DATE_TIME (&f)) {
         y = (double) bson_iter_date_time (&f);
      } else {
         numeric = false;
         break;
      }
      double x = (double) i;
      sx += x;
      sy += y;
      sxx += x * x;
      syy += y * y;
      sxy += x * y;
      m++;
   }
   double r = 0.0;
   if (numeric && m > 1) {
      double den = sqrt ((m * sxx - sx * sx) * (m * syy - sy * sy));
      r = den > 0 ? (m * sxy - sx * sy) / den : 0.0;
   }
   *n = m;
   *numeric_out = numeric;
   return r;
}

/* keyCharacteristics.monotonicity (calculateMonotonicity): a hashed key is not monotonic with coefficient 0 when
 * hashed alone or first, else unknown; otherwise the correlation r of m numeric keys (numeric: all were numbers or
 * dates). */
static void
sim_append_monotonicity (bson_t *d, const bson_t *key, bool numeric, int64_t m, double r)
{
   bson_t mono;
   bson_iter_t kf;
   int hashed_at = -1, nf = 0;
   for (bson_iter_init (&kf, key); bson_iter_next (&kf); nf++) {
      if (BSON_ITER_HOLDS_UTF8 (&kf) && hashed_at < 0) {
         hashed_at = nf;
      }
   }
   BSON_APPEND_DOCUMENT_BEGIN (d, "monotonicity", &mono);
   if (hashed_at >= 0) {
      if (hashed_at == 0 || nf == 1) {
         BSON_APPEND_UTF8 (&mono, "type", "not monotonic");
         BSON_APPEND_DOUBLE (&mono, "recordIdCorrelationCoefficient", 0.0);
      } else {
         BSON_APPEND_UTF8 (&mono, "type", "unknown");
      }
   } else if (numeric && m > 1) {
      BSON_APPEND_DOUBLE (&mono, "recordIdCorrelationCoefficient", floor (r * 10000.0 + 0.5) / 10000.0);
      BSON_APPEND_UTF8 (&mono, "type", fabs (r) >= 0.7 ? "monotonic" : "not monotonic");
   } else {
      BSON_APPEND_UTF8 (&mono, "type", m > 1 || !numeric ? "not monotonic" : "unknown");
   }
   bson_append_document_end (d, &mono);
}

/* readDistribution / writeDistribution: no query is ever sampled, so both are empty samples. */
static void
sim_append_distributions (bson_t *reply)
{
   bson_t d, s;
   BSON_APPEND_DOCUMENT_BEGIN (reply, "readDistribution", &d);
   BSON_APPEND_DOCUMENT_BEGIN (&d, "sampleSize", &s);
   BSON_APPEND_INT64 (&s, "total", 0);
   BSON_APPEND_INT64 (&s, "find", 0);
   BSON_APPEND_INT64 (&s, "aggregate", 0);
   BSON_APPEND_INT64 (&s, "count", 0);
   BSON_APPEND_INT64 (&s, "distinct", 0);
   bson_append_document_end (&d, &s);
   bson_append_document_end (reply, &d);
   BSON_APPEND_DOCUMENT_BEGIN (reply, "writeDistribution", &d);
   BSON_APPEND_DOCUMENT_BEGIN (&d, "sampleSize", &s);
   BSON_APPEND_INT64 (&s, "total", 0);
   BSON_APPEND_INT64 (&s, "update", 0);
   BSON_APPEND_INT64 (&s, "delete", 0);
   BSON_APPEND_INT64 (&s, "findAndModify", 0);
   bson_append_document_end (&d, &s);
   bson_append_document_end (reply, &d);
}

/* analyze_shard_key::validateNamespace: no collection of admin, config or local, no system. collection (20). */
static bool
sim_analyzable_ns (const char *ns, bson_t *reply)
{
   const char *dot = strchr (ns, '.');
   size_t dl = dot ? (size_t) (dot - ns) : strlen (ns);
   if ((dl == 5 && !strncmp (ns, "admin", 5)) || (dl == 6 && !strncmp (ns, "config", 6)) ||
       (dl == 5 && !strncmp (ns, "local", 5))) {
      sim_reply_error (reply, 20, "Cannot run against an internal collection");
      return false;
   }
   if (dot && !strncmp (dot + 1, "system.", 7)) {
      sim_reply_error (reply, 20, "Cannot run against a system collection");
      return false;
   }
   return true;
}

void
sim_cmd_analyze_shard_key (sim_ctx_t *ctx, bson_t *reply)
{
   bson_t key;
   bson_iter_t it;
   simq_docs_t keys;
   simq_docs_init (&keys);
   const char *ns = sim_first_ns (ctx, reply);
   if (!ns) {
      goto done;
   }
   if (!docget_sub (ctx->cmd, "key", BSON_TYPE_EOD, &key)) {
      sim_reply_error (reply, 40414, "BSON field 'analyzeShardKey.key' is missing but a required field");
      goto done;
   }
   /* The request's key validator (validateShardKeyPattern: ShardKeyPattern's parse) */
   if (bson_empty (&key)) {
      sim_reply_error (reply, 2, "Shard key is empty");
      goto done;
   }
   bool kc = !bson_iter_init_find (&it, ctx->cmd, "keyCharacteristics") || bson_iter_as_bool (&it);
   bool rw = !bson_iter_init_find (&it, ctx->cmd, "readWriteDistribution") || bson_iter_as_bool (&it);
   if (!kc && !rw) {
      sim_reply_error (reply, 72, "Cannot skip analyzing all metrics");
      goto done;
   }
   if (sim_has (ctx->cmd, "sampleRate") && sim_has (ctx->cmd, "sampleSize")) {
      sim_reply_error (reply, 72, "Cannot specify both 'sampleRate' and 'sampleSize'");
      goto done;
   }
   if (!sim_analyzable_ns (ns, reply)) {
      goto done;
   }
   sim_coll_t *coll = sim_coll_get_ns (ns);
   if (!coll) {
      sim_reply_error (reply, 26, "Cannot analyze a shard key for a non-existing collection");
      goto done;
   }
   /* The supporting index must match the key field by field, hashed for hashed (findShardKeyPrefixedIndex); without
    * one there are no key characteristics: 20 when they were all that was asked for. */
   if (kc && !sim_has_prefix_index (coll, &key, true)) {
      if (!rw) {
         sim_reply_error (reply, 20,
                          "Cannot analyze the characteristics of a shard key that does not have a supporting "
                          "index");
         goto done;
      }
      kc = false;
   }
   if (kc) {
      /* Key values in insertion order (for monotonicity), then sorted for distinct counts. */
      sim_shcoll_t fake;
      memset (&fake, 0, sizeof fake);
      bson_init (&fake.doc);
      bson_init (&fake.key);
      bson_concat (&fake.key, &key);
      int64_t total_size = 0;
      for (size_t p = 0; p < coll->nparts; p++) {
         for (size_t i = 0; i < coll->parts[p].docs.n; i++) {
            bson_t view, k;
            sim_pos_t pos = { p, i };
            sim_coll_view (coll, pos, &view);
            sim_shard_key_of (&fake, &view, &k);
            simq_docs_push_copy (&keys, &k);
            bson_destroy (&k);
            total_size += view.len;
         }
      }
      sim_shcoll_destroy (&fake);
      int64_t n = (int64_t) keys.n;
      /* Monotonicity: correlation between insertion order and key order (numbers and dates only). */
      int64_t m;
      bool numeric;
      double r = sim_key_correlation (&keys, &m, &numeric);
      if (keys.n > 1) {
         qsort (keys.v, keys.n, sizeof *keys.v, sim_key_doc_cmp);
      }
      int64_t distinct = 0;
      typedef struct {
         size_t at;
         int64_t freq;
      } run_t;
      run_t top[5] = { { 0 } };
      for (size_t i = 0; i < keys.n;) {
         size_t j = i + 1;
         while (j < keys.n && order_docs (keys.v[i], keys.v[j]) == 0) {
            j++;
         }
         distinct++;
         int64_t f = (int64_t) (j - i);
         for (int t = 0; t < 5; t++) {
            if (f > top[t].freq) {
               memmove (&top[t + 1], &top[t], (size_t) (4 - t) * sizeof top[0]);
               top[t].at = i;
               top[t].freq = f;
               break;
            }
         }
         i = j;
      }
      sim_shcoll_t shc;
      bool sharded = sim_shcoll_load (ns, &shc);
      sim_shcoll_destroy (&shc);
      bson_t d, arr;
      BSON_APPEND_DOCUMENT_BEGIN (reply, "keyCharacteristics", &d);
      BSON_APPEND_INT64 (&d, "numDocsTotal", n);
      if (sharded) {
         BSON_APPEND_INT64 (&d, "numOrphanDocs", 0);
      }
      BSON_APPEND_INT64 (&d, "avgDocSizeBytes", n ? total_size / n : 0);
      BSON_APPEND_INT64 (&d, "numDocsSampled", n);
      BSON_APPEND_BOOL (&d, "isUnique", n > 0 && distinct == n);
      BSON_APPEND_INT64 (&d, "numDistinctValues", distinct);
      BSON_APPEND_ARRAY_BEGIN (&d, "mostCommonValues", &arr);
      for (int t = 0; t < 5 && top[t].freq; t++) {
         bson_t e;
         char k[16];
         const char *kp;
         bson_uint32_to_string ((uint32_t) t, &kp, k, sizeof k);
         BSON_APPEND_DOCUMENT_BEGIN (&arr, kp, &e);
         BSON_APPEND_DOCUMENT (&e, "value", keys.v[top[t].at]);
         BSON_APPEND_INT64 (&e, "frequency", top[t].freq);
         bson_append_document_end (&arr, &e);
      }
      bson_append_array_end (&d, &arr);
      sim_append_monotonicity (&d, &key, numeric, m, r);
      bson_append_document_end (reply, &d);
   }
   if (rw) {
      sim_append_distributions (reply);
   }
   sim_reply_ok (reply);
done:
   simq_docs_clear (&keys);
}

/* configureQueryAnalyzer (configure_query_analyzer_cmd.cpp): validateNamespace, the samplesPerSecond checks, then a
 * findAndModify on config.queryAnalyzers: mode "off" updates only an active document (mode off, stopTime; no upsert,
 * samplesPerSecond and startTime kept); other modes upsert, keeping startTime when neither the mode nor the
 * collection changed, and unset stopTime. oldConfiguration is the pre-image's { mode, samplesPerSecond }. */
void
sim_cmd_configure_query_analyzer (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   const char *ns = sim_first_ns (ctx, reply);
   if (!ns) {
      return;
   }
   const char *mode = docget_utf8 (ctx->cmd, "mode", NULL);
   if (!mode) {
      sim_reply_error (reply, 40414, "BSON field 'configureQueryAnalyzer.mode' is missing but a required field");
      return;
   }
   if (strcmp (mode, "full") && strcmp (mode, "off")) {
      sim_reply_error (reply, 2, "Enumeration value '%s' for field 'configureQueryAnalyzer.mode' is not a valid value.",
                       mode);
      return;
   }
   bool have_rate = bson_iter_init_find (&it, ctx->cmd, "samplesPerSecond");
   if (have_rate && !BSON_ITER_HOLDS_NUMBER (&it)) {
      sim_reply_error (reply, 14,
                       "BSON field 'configureQueryAnalyzer.samplesPerSecond' is the wrong type '%s', expected types "
                       "'[long, int, decimal, double']",
                       simq_type_name (bson_iter_type (&it)));
      return;
   }
   double rate = have_rate ? bson_iter_as_double (&it) : 0;
   if (!sim_analyzable_ns (ns, reply)) {
      return;
   }
   bool off = !strcmp (mode, "off");
   if (off && have_rate) {
      sim_reply_error (reply, 72, "Cannot specify 'samplesPerSecond' when 'mode' is \"off\"");
      return;
   }
   if (!off && !have_rate) {
      sim_reply_error (reply, 72, "'samplesPerSecond' must be specified when 'mode' is not \"off\"");
      return;
   }
   if (!off && rate <= 0) {
      sim_reply_error (reply, 72, "'samplesPerSecond' must be greater than 0");
      return;
   }
   if (!off && rate > 50) {
      sim_reply_error (reply, 72, "'samplesPerSecond' must be less than or equal to 50");
      return;
   }
   sim_coll_t *coll = sim_coll_get_ns (ns);
   if (!coll) {
      sim_reply_error (reply, 26, "The namespace does not exist");
      return;
   }
   sim_coll_t *qa = sim_coll_ensure ("config", "queryAnalyzers");
   sim_pos_t pos;
   bool had = sim_find_by_sid (qa, ns, &pos);
   bson_t old = BSON_INITIALIZER, d, view;
   const char *old_mode = NULL;
   bool same_coll = false;
   if (had) {
      sim_coll_view (qa, pos, &view);
      old_mode = docget_utf8 (&view, "mode", NULL);
      if (bson_iter_init_find (&it, &view, "collUuid") && BSON_ITER_HOLDS_BINARY (&it)) {
         bson_subtype_t st;
         uint32_t len;
         const uint8_t *data;
         bson_iter_binary (&it, &st, &len, &data);
         same_coll = len == 16 && !memcmp (data, coll->uuid, 16);
      }
      BSON_APPEND_UTF8 (&old, "mode", old_mode ? old_mode : "off");
      if (bson_iter_init_find (&it, &view, "samplesPerSecond")) {
         BSON_APPEND_VALUE (&old, "samplesPerSecond", bson_iter_value (&it));
      }
   }
   /* off: the query is { ns, mode: { $ne: "off" } } without upsert, so an inactive or missing document is left be */
   bool matched = !off || (had && old_mode && strcmp (old_mode, "off") != 0);
   if (matched) {
      bson_t set = BSON_INITIALIZER;
      if (off) {
         BSON_APPEND_UTF8 (&set, "mode", "off");
         BSON_APPEND_DATE_TIME (&set, "stopTime", clock_wall_ms ());
      } else {
         BSON_APPEND_BINARY (&set, "collUuid", BSON_SUBTYPE_UUID, coll->uuid, 16);
         BSON_APPEND_UTF8 (&set, "ns", ns);
         BSON_APPEND_UTF8 (&set, "mode", mode);
         BSON_APPEND_DOUBLE (&set, "samplesPerSecond", rate);
         bool keep_start = had && same_coll && old_mode && !strcmp (old_mode, mode) && sim_has (&view, "startTime");
         if (!keep_start) {
            BSON_APPEND_DATE_TIME (&set, "startTime", clock_wall_ms ());
         }
      }
      const char *unset[] = { "stopTime", NULL };
      sim_config_update ("queryAnalyzers", ns, &set, off ? NULL : unset, !off);
      bson_destroy (&set);
   }
   BSON_APPEND_DOCUMENT_BEGIN (reply, "newConfiguration", &d);
   BSON_APPEND_UTF8 (&d, "mode", mode);
   if (have_rate) {
      BSON_APPEND_DOUBLE (&d, "samplesPerSecond", rate);
   }
   bson_append_document_end (reply, &d);
   if (matched && had && same_coll) {
      BSON_APPEND_DOCUMENT (reply, "oldConfiguration", &old);
   }
   bson_destroy (&old);
   sim_reply_ok (reply);
}
