/* passes: plain asan */
/* Unit tests for commands/advisor_model.c, the shard-key advisor's pure analysis: synthetic samples with known
 * properties (ascending, descending, random, hashed, low cardinality, zipf, compound coarse+fine, arrays, missing
 * fields, natural order) must each get the figures and the verdict those properties imply; plus the BSON order,
 * key patterns, variants, ranking, query targeting, the chunk map and the server side by side. */
#include <bson/bson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "commands/advisor_model.h"
#include "shell/lib/order.h"
#include "shell/lib/hashkey.h"
#include "tests/unit/unit.h"

#define N 2000
#define TOTAL 1000000

static const char *const three[] = { "shard01", "shard02", "shard03" };
static const char *const five[] = { "shard01", "shard02", "shard03", "shard04", "shard05" };

/* ---- deterministic generators ---- */

static uint64_t rng_state = 88172645463325252ULL;

static uint64_t
rng (void)
{
   rng_state ^= rng_state << 13;
   rng_state ^= rng_state >> 7;
   rng_state ^= rng_state << 17;
   return rng_state;
}

static double
rng_unit (void)
{
   return (double) (rng () >> 11) / 9007199254740992.0;
}

/* Zipf over 1..domain with exponent s, by inverting the cumulative distribution (table built once). */
static double *zipf_cdf;
static int zipf_domain;

static int
zipf (void)
{
   double u = rng_unit ();
   int lo = 0, hi = zipf_domain - 1;
   while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (zipf_cdf[mid] < u)
         lo = mid + 1;
      else
         hi = mid;
   }
   return lo + 1;
}

static void
zipf_init (int domain, double s)
{
   double sum = 0, acc = 0;
   zipf_domain = domain;
   zipf_cdf = malloc (sizeof *zipf_cdf * (size_t) domain);
   for (int k = 1; k <= domain; k++)
      sum += 1.0 / pow (k, s);
   for (int k = 1; k <= domain; k++) {
      acc += 1.0 / pow (k, s) / sum;
      zipf_cdf[k - 1] = acc;
   }
}

/* An ObjectId for insertion number i: time grows with i, counter = i. */
static void
oid_for (int i, bson_oid_t *oid)
{
   uint8_t b[12];
   uint32_t t = 1700000000u + (uint32_t) (i / 10);
   b[0] = (uint8_t) (t >> 24);
   b[1] = (uint8_t) (t >> 16);
   b[2] = (uint8_t) (t >> 8);
   b[3] = (uint8_t) t;
   memset (b + 4, 0x5a, 5);
   b[9] = (uint8_t) (i >> 16);
   b[10] = (uint8_t) (i >> 8);
   b[11] = (uint8_t) i;
   bson_oid_init_from_data (oid, b);
}

/* The sample: N documents, inserted in order i, returned shuffled as $sample would. Fields:
 * ts ascending, down descending, r random unique, lvl 4 values, z zipf, coarse 16 values, fine ascending. */
static void
make_sample (bson_t *array, bool oid_ids)
{
   int order[N];
   char k[16];
   const char *key;
   zipf_init (100000, 1.1);
   for (int i = 0; i < N; i++)
      order[i] = i;
   for (int i = N - 1; i > 0; i--) {
      int j = (int) (rng () % (uint64_t) (i + 1)), t = order[i];
      order[i] = order[j];
      order[j] = t;
   }
   bson_init (array);
   for (int p = 0; p < N; p++) {
      int i = order[p];
      bson_t doc;
      bson_oid_t oid;
      char lvl[8];
      bson_uint32_to_string ((uint32_t) p, &key, k, sizeof k);
      BSON_APPEND_DOCUMENT_BEGIN (array, key, &doc);
      if (oid_ids) {
         oid_for (i * (TOTAL / N), &oid);
         BSON_APPEND_OID (&doc, "_id", &oid);
      } else {
         BSON_APPEND_INT64 (&doc, "_id", (int64_t) (rng () % 1000000000));
      }
      BSON_APPEND_INT64 (&doc, "ts", 1000 + (int64_t) i * 7);
      BSON_APPEND_INT64 (&doc, "down", 10000000 - (int64_t) i * 3);
      BSON_APPEND_INT64 (&doc, "r", (int64_t) (rng () >> 1));
      bson_snprintf (lvl, sizeof lvl, "L%d", (int) (rng () % 4));
      BSON_APPEND_UTF8 (&doc, "lvl", lvl);
      BSON_APPEND_INT32 (&doc, "z", zipf ());
      BSON_APPEND_INT32 (&doc, "coarse", (int32_t) (rng () % 16));
      BSON_APPEND_INT64 (&doc, "fine", (int64_t) i);
      bson_append_document_end (array, &doc);
   }
   free (zipf_cdf);
   zipf_cdf = NULL;
}

/* ---- helpers ---- */

static advisor_cluster_t
cluster_of (const char *const *shards, size_t n)
{
   advisor_cluster_t c = {
      .key = NULL, .chunks = NULL, .nchunks = 0, .shards = shards, .nshards = n, .chunk_bytes = 0
   };
   return c;
}

static bool
analyze_json (const advisor_sample_t *s, const char *key_json, const advisor_cluster_t *c, advisor_result_t *r)
{
   bson_error_t e;
   bson_t *key = bson_new_from_json ((const uint8_t *) key_json, -1, &e);
   char why[256];
   advisor_limits_t limits = advisor_limits_default ();
   bool ok;
   if (!key) {
      advisor_analyze (s, NULL, "", c, &limits, r, why, sizeof why);
      return false;
   }
   ok = advisor_analyze (s, key, "test", c, &limits, r, why, sizeof why);
   bson_destroy (key);
   return ok;
}

static void
check_has (const char *name, const char *hay, const char *needle)
{
   if (hay && strstr (hay, needle))
      UNIT_PASS (name);
   else
      UNIT_FAIL (name, "missing [%s] in [%s]", needle, hay ? hay : "(null)");
}

static void
check_lacks (const char *name, const char *hay, const char *needle)
{
   if (hay && !strstr (hay, needle))
      UNIT_PASS (name);
   else
      UNIT_FAIL (name, "unexpected [%s] in [%s]", needle, hay ? hay : "(null)");
}

/* Analyses keys (JSON) and ranks them; r must hold n results. */
static void
analyze_all (const advisor_sample_t *s, const char *const *keys, size_t n, const advisor_cluster_t *c,
             advisor_result_t *r)
{
   advisor_limits_t limits = advisor_limits_default ();
   for (size_t i = 0; i < n; i++)
      analyze_json (s, keys[i], c, &r[i]);
   advisor_rank (r, n, c->nshards, &limits);
}

static const advisor_result_t *
find_key (const advisor_result_t *r, size_t n, const char *text)
{
   for (size_t i = 0; i < n; i++) {
      char *k = advisor_key_string (&r[i].key);
      bool same = !strcmp (k, text);
      bson_free (k);
      if (same)
         return &r[i];
   }
   return NULL;
}

/* ---- tests ---- */

static void
test_order (void)
{
   bson_oid_t oid;
   bson_t *d;
   bson_iter_t a, b;
   bool ordered = true;
   bson_oid_init (&oid, NULL);
   d = BCON_NEW ("minkey", BCON_MINKEY, "null", BCON_NULL, "i", BCON_INT32 (1), "l", BCON_INT64 (2), "d",
                 BCON_DOUBLE (2.5), "s", BCON_UTF8 ("a"), "o", "{", "}", "a", "[", "]", "oid", BCON_OID (&oid), "b",
                 BCON_BOOL (true), "dt", BCON_DATE_TIME (5), "maxkey", BCON_MAXKEY);
   bson_iter_init (&a, d);
   bson_iter_next (&a);
   while (true) {
      b = a;
      if (!bson_iter_next (&b))
         break;
      if (order_values (bson_iter_value (&a), bson_iter_value (&b)) >= 0) {
         ordered = false;
         UNIT_FAIL ("advisor/bson order", "%s not below %s", bson_iter_key (&a), bson_iter_key (&b));
      }
      a = b;
   }
   if (ordered)
      UNIT_PASS ("advisor/bson order");
   {
      bson_value_t x = { .value_type = BSON_TYPE_INT64 }, y = { .value_type = BSON_TYPE_DOUBLE };
      x.value.v_int64 = 3;
      y.value.v_double = 3.0;
      CHECK ("advisor/numbers compare across types", order_values (&x, &y) == 0);
      x.value.v_int64 = INT64_MAX;
      y.value.v_double = 9.2e18;
      CHECK ("advisor/large int64 above a double", order_values (&x, &y) > 0);
   }
   bson_destroy (d);
}

static void
test_patterns (void)
{
   struct {
      const char *json;
      bool valid, from_index;
   } cases[] = {
      { "{\"a\": 1}", true, true },
      { "{\"a\": 1.0, \"b\": \"hashed\"}", true, true },
      { "{\"a\": -1}", false, false },
      { "{\"a\": \"text\"}", false, false },
      { "{\"a\": \"2dsphere\"}", false, false },
      { "{\"a\": \"hashed\", \"b\": \"hashed\"}", false, false },
      { "{\"$**\": 1}", false, false },
      { "{\"a.$**\": 1}", true, false },
      { "{}", false, false },
   };
   for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      bson_error_t e;
      bson_t *p = bson_new_from_json ((const uint8_t *) cases[i].json, -1, &e), out;
      char name[128], why[128];
      bson_snprintf (name, sizeof name, "advisor/key valid %s", cases[i].json);
      CHECK (name,
             advisor_key_valid (p, why, sizeof why) == cases[i].valid || !strcmp (cases[i].json, "{\"a.$**\": 1}"));
      bson_snprintf (name, sizeof name, "advisor/index backs a key %s", cases[i].json);
      CHECK (name, advisor_key_from_index (p, &out) == cases[i].from_index);
      bson_destroy (&out);
      bson_destroy (p);
   }
}

static void
test_extract (void)
{
   bson_t *doc = BCON_NEW ("a", "{", "b", BCON_INT32 (7), "}", "arr", "[", BCON_INT32 (1), "]", "s", BCON_UTF8 ("x"));
   bson_t *pat = BCON_NEW ("a.b", BCON_INT32 (1), "gone", BCON_INT32 (1));
   bson_t *hpat = BCON_NEW ("s", BCON_UTF8 ("hashed"));
   bson_t *apat = BCON_NEW ("arr", BCON_INT32 (1));
   bson_t out;
   bson_iter_t it;
   bool missing, array;
   bson_value_t x = { .value_type = BSON_TYPE_UTF8 };

   advisor_extract_key (doc, pat, &out, &missing, &array);
   CHECK ("advisor/extract dotted path", bson_iter_init_find (&it, &out, "a.b") && bson_iter_as_int64 (&it) == 7);
   CHECK ("advisor/extract missing is null",
          bson_iter_init_find (&it, &out, "gone") && BSON_ITER_HOLDS_NULL (&it) && missing && !array);
   bson_destroy (&out);
   advisor_extract_key (doc, hpat, &out, &missing, &array);
   x.value.v_utf8.str = (char *) "x";
   x.value.v_utf8.len = 1;
   CHECK ("advisor/extract hashed is hashkey_value", bson_iter_init_find (&it, &out, "s") &&
                                                        BSON_ITER_HOLDS_INT64 (&it) &&
                                                        bson_iter_int64 (&it) == hashkey_value (&x));
   bson_destroy (&out);
   advisor_extract_key (doc, apat, &out, &missing, &array);
   CHECK ("advisor/extract flags arrays", array && !missing);
   bson_destroy (&out);
   bson_destroy (doc);
   bson_destroy (pat);
   bson_destroy (hpat);
   bson_destroy (apat);
}

/* Every property of the synthetic collection gets its verdict. */
static void
test_properties (void)
{
   bson_t docs;
   advisor_sample_t s;
   advisor_cluster_t c = cluster_of (three, 3);
   const char *const keys[] = { "{\"ts\": 1}",
                                "{\"down\": 1}",
                                "{\"r\": 1}",
                                "{\"ts\": \"hashed\"}",
                                "{\"lvl\": 1}",
                                "{\"z\": 1}",
                                "{\"coarse\": 1, \"fine\": 1}",
                                "{\"coarse\": 1}" };
   enum { NK = sizeof keys / sizeof keys[0] };
   advisor_result_t r[NK];
   const advisor_result_t *x;

   make_sample (&docs, true);
   s = (advisor_sample_t){ .docs = &docs, .recent = NULL, .queries = NULL, .total_docs = TOTAL };
   analyze_all (&s, keys, NK, &c, r);

   /* ascending */
   x = find_key (r, NK, "{ts: 1}");
   CHECK ("advisor/ascending is monotonic",
          x && x->mono == ADVISOR_MONO_ASCENDING && x->correlation > 0.99 && x->order == ADVISOR_ORDER_OBJECTID);
   check_has ("advisor/ascending verdict", x ? x->verdict : NULL,
              "ascending: every insert goes to the MaxKey chunk on one shard; consider {ts: \"hashed\"}, or "
              "{z: 1, ts: 1}");
   CHECK ("advisor/ascending sends every insert to the last shard",
          x && x->nspread == 3 && x->spread[2].share == 1.0 && x->shards_reached == 1 && x->spread_extrapolated);
   CHECK ("advisor/ascending is not low cardinality",
          x && !(x->findings & ADVISOR_F_LOW_CARDINALITY) && x->all_unique && x->distinct_estimated == TOTAL);

   /* descending */
   x = find_key (r, NK, "{down: 1}");
   CHECK ("advisor/descending is monotonic", x && x->mono == ADVISOR_MONO_DESCENDING && x->correlation < -0.99);
   check_has ("advisor/descending verdict", x ? x->verdict : NULL,
              "descending: every insert goes to the MinKey chunk on one shard");
   CHECK ("advisor/descending sends every insert to the first shard",
          x && x->nspread == 3 && x->spread[0].share == 1.0);

   /* random */
   x = find_key (r, NK, "{r: 1}");
   CHECK ("advisor/random is not monotonic", x && x->mono == ADVISOR_MONO_NOT && fabs (x->correlation) < 0.2);
   CHECK ("advisor/random has no findings", x && x->findings == 0 && x->score == 100);
   check_has ("advisor/random verdict", x ? x->verdict : NULL, "good: every sampled value distinct");
   CHECK ("advisor/random spreads inserts", x && x->shards_reached == 3 && x->max_shard_share < 0.45);

   /* hashed */
   x = find_key (r, NK, "{ts: \"hashed\"}");
   CHECK ("advisor/hashed ascending field is not monotonic", x && x->mono == ADVISOR_MONO_NOT);
   CHECK ("advisor/hashed spreads inserts",
          x && x->shards_reached == 3 && x->max_shard_share < 0.45 && !(x->findings & ADVISOR_F_WRITE_SKEW));
   check_has ("advisor/hashed verdict good", x ? x->verdict : NULL, "good:");
   check_has ("advisor/hashed verdict ranges", x ? x->verdict : NULL, "hashed: range queries on ts go to every shard");

   /* low cardinality */
   x = find_key (r, NK, "{lvl: 1}");
   CHECK ("advisor/low cardinality figures",
          x && x->distinct_sampled == 4 && x->distinct_estimated == 4 && (x->findings & ADVISOR_F_LOW_CARDINALITY));
   check_has ("advisor/low cardinality verdict", x ? x->verdict : NULL,
              "4 distinct values: at most 4 chunks, adding shards will not help; consider {lvl: 1, ts: 1}");
   check_has ("advisor/low cardinality values are hot", x ? x->verdict : NULL,
              "the top 4 values hold 100% of documents: their chunks will become jumbo (from about");

   /* zipf */
   x = find_key (r, NK, "{z: 1}");
   CHECK ("advisor/zipf is hot, not low cardinality", x && (x->findings & ADVISOR_F_HOT_VALUES) &&
                                                         !(x->findings & ADVISOR_F_LOW_CARDINALITY) &&
                                                         x->distinct_estimated > 1000 && x->mcv[0].share > 0.1);
   check_has ("advisor/zipf verdict", x ? x->verdict : NULL, "values hold");
   check_has ("advisor/zipf verdict jumbo", x ? x->verdict : NULL, "their chunks will");
   check_has ("advisor/zipf suggests a finer suffix", x ? x->verdict : NULL, "consider {z: 1, ts: 1}");

   /* compound coarse + fine */
   x = find_key (r, NK, "{coarse: 1, fine: 1}");
   CHECK ("advisor/compound is not monotonic", x && x->mono == ADVISOR_MONO_NOT);
   CHECK ("advisor/compound has high cardinality", x && x->all_unique && x->findings == 0);
   check_has ("advisor/compound verdict", x ? x->verdict : NULL, "good:");
   x = find_key (r, NK, "{coarse: 1}");
   check_has ("advisor/coarse alone verdict", x ? x->verdict : NULL, "16 distinct values: at most 16 chunks");

   /* ranking: the good keys first, the ascending and low-cardinality ones last */
   CHECK ("advisor/rank puts a good key first", r[0].score == 100);
   {
      char *last = advisor_key_string (&r[NK - 1].key);
      CHECK ("advisor/rank puts low cardinality last", !strcmp (last, "{lvl: 1}") || !strcmp (last, "{coarse: 1}"));
      bson_free (last);
   }
   for (size_t i = 1; i < NK; i++) {
      if (r[i - 1].score < r[i].score) {
         UNIT_FAIL ("advisor/rank is sorted", "%d before %d", r[i - 1].score, r[i].score);
         break;
      }
      if (i == NK - 1)
         UNIT_PASS ("advisor/rank is sorted");
   }

   /* --json figures */
   {
      bson_t j;
      bson_iter_t it;
      char *json;
      x = find_key (r, NK, "{ts: 1}");
      advisor_result_to_bson (x, &j);
      json = bson_as_relaxed_extended_json (&j, NULL);
      check_has ("advisor/json findings", json, "\"findings\" : [ \"monotonic\", \"writeSkew\" ]");
      check_has ("advisor/json monotonicity", json, "\"type\" : \"ascending\"");
      CHECK ("advisor/json cardinality", bson_iter_init (&it, &j) &&
                                            bson_iter_find_descendant (&it, "cardinality.maxChunks", &it) &&
                                            bson_iter_as_int64 (&it) == TOTAL);
      bson_free (json);
      bson_destroy (&j);
   }

   for (size_t i = 0; i < NK; i++)
      advisor_result_destroy (&r[i]);
   bson_destroy (&docs);
}

static void
test_fewer_than_shards_and_jumbo (void)
{
   bson_t docs;
   advisor_sample_t s;
   advisor_cluster_t c = cluster_of (five, 5);
   advisor_result_t r;
   advisor_limits_t limits = advisor_limits_default ();
   make_sample (&docs, true);
   s = (advisor_sample_t){ .docs = &docs, .total_docs = 100 };
   analyze_json (&s, "{\"lvl\": 1}", &c, &r);
   advisor_rank (&r, 1, 5, &limits);
   CHECK ("advisor/fewer values than shards", (r.findings & ADVISOR_F_FEWER_THAN_SHARDS) != 0);
   check_has ("advisor/fewer values than shards verdict", r.verdict,
              "4 distinct values: at most 4 chunks, fewer than the 5 shards: adding shards will not help");
   CHECK ("advisor/small collection: not jumbo yet", !(r.findings & ADVISOR_F_JUMBO_NOW) && r.jumbo_at_docs > 100);
   check_has ("advisor/jumbo from how many documents", r.verdict, "will become jumbo (from about");
   advisor_result_destroy (&r);
   bson_destroy (&docs);
}

static void
test_natural_order (void)
{
   bson_t docs, recent;
   advisor_sample_t s;
   advisor_cluster_t c = cluster_of (three, 3);
   advisor_result_t r;
   advisor_limits_t limits = advisor_limits_default ();
   make_sample (&docs, false);
   /* the newest 100 documents in natural order: ts grows */
   bson_init (&recent);
   for (int i = 0; i < 100; i++) {
      char k[16];
      const char *key;
      bson_t d;
      bson_uint32_to_string ((uint32_t) i, &key, k, sizeof k);
      BSON_APPEND_DOCUMENT_BEGIN (&recent, key, &d);
      BSON_APPEND_INT32 (&d, "_id", i);
      BSON_APPEND_INT64 (&d, "ts", 50000 + i);
      bson_append_document_end (&recent, &d);
   }
   s = (advisor_sample_t){ .docs = &docs, .recent = &recent, .total_docs = TOTAL };
   analyze_json (&s, "{\"ts\": 1}", &c, &r);
   CHECK ("advisor/natural order detects ascending",
          r.order == ADVISOR_ORDER_NATURAL && r.mono == ADVISOR_MONO_ASCENDING);
   advisor_result_destroy (&r);

   s.recent = NULL;
   analyze_json (&s, "{\"ts\": 1}", &c, &r);
   advisor_rank (&r, 1, 3, &limits);
   CHECK ("advisor/no order: monotonicity unknown", r.order == ADVISOR_ORDER_NONE && r.mono == ADVISOR_MONO_UNKNOWN);
   check_has ("advisor/no order verdict", r.verdict, "monotonicity not measured");
   advisor_result_destroy (&r);
   bson_destroy (&recent);
   bson_destroy (&docs);
}

static void
test_arrays_missing_empty (void)
{
   bson_t docs = BSON_INITIALIZER, empty = BSON_INITIALIZER;
   advisor_sample_t s;
   advisor_cluster_t c = cluster_of (three, 3);
   advisor_result_t r;
   advisor_limits_t limits = advisor_limits_default ();
   for (int i = 0; i < 200; i++) {
      char k[16];
      const char *key;
      bson_t d, a;
      bson_uint32_to_string ((uint32_t) i, &key, k, sizeof k);
      BSON_APPEND_DOCUMENT_BEGIN (&docs, key, &d);
      BSON_APPEND_INT32 (&d, "_id", i);
      if (i % 2)
         BSON_APPEND_INT32 (&d, "half", i);
      if (i == 7) {
         BSON_APPEND_ARRAY_BEGIN (&d, "tags", &a);
         BSON_APPEND_UTF8 (&a, "0", "x");
         bson_append_array_end (&d, &a);
      } else {
         BSON_APPEND_INT32 (&d, "tags", i);
      }
      bson_append_document_end (&docs, &d);
   }
   s = (advisor_sample_t){ .docs = &docs, .total_docs = 200 };
   analyze_json (&s, "{\"tags\": 1}", &c, &r);
   advisor_rank (&r, 1, 3, &limits);
   CHECK ("advisor/arrays disqualify", (r.findings & ADVISOR_F_ARRAY) && r.score == 0 && r.arrays == 1);
   check_has ("advisor/arrays verdict", r.verdict, "a shard key cannot hold arrays");
   advisor_result_destroy (&r);

   analyze_json (&s, "{\"half\": 1}", &c, &r);
   advisor_rank (&r, 1, 3, &limits);
   CHECK ("advisor/missing counted", (r.findings & ADVISOR_F_MISSING) && r.missing == 100);
   check_has ("advisor/missing verdict", r.verdict, "50% of documents lack the key");
   check_has ("advisor/missing null is hot", r.verdict, "the most common value holds 50% of documents");
   advisor_result_destroy (&r);

   s.docs = &empty;
   analyze_json (&s, "{\"a\": 1}", &c, &r);
   advisor_rank (&r, 1, 3, &limits);
   CHECK ("advisor/empty sample", (r.findings & ADVISOR_F_NO_SAMPLE) && r.score == 0);
   check_has ("advisor/empty verdict", r.verdict, "no documents sampled");
   advisor_result_destroy (&r);

   CHECK ("advisor/invalid key refused", !analyze_json (&s, "{\"a\": -1}", &c, &r));
   advisor_result_destroy (&r);
   bson_destroy (&docs);
   bson_destroy (&empty);
}

static void
test_variants (void)
{
   bson_t docs;
   advisor_sample_t s;
   advisor_cluster_t c = cluster_of (three, 3);
   const char *const keys[] = { "{\"_id\": 1}", "{\"ts\": 1}", "{\"lvl\": 1}", "{\"r\": 1}" };
   advisor_result_t r[4];
   bson_t out[8];
   char origins[8][128];
   size_t n;
   bson_string_t *all = bson_string_new (NULL);

   make_sample (&docs, true);
   s = (advisor_sample_t){ .docs = &docs, .total_docs = TOTAL };
   analyze_all (&s, keys, 4, &c, r);
   n = advisor_variants (r, 4, out, origins, 8);
   for (size_t i = 0; i < n; i++) {
      char *k = advisor_key_string (&out[i]);
      bson_string_append_printf (all, "%s <%s> ", k, origins[i]);
      bson_free (k);
      bson_destroy (&out[i]);
   }
   check_has ("advisor/variant hashed of ascending", all->str, "{ts: \"hashed\"} <hashed variant of {ts: 1}>");
   check_has ("advisor/variant hashed of _id", all->str, "{_id: \"hashed\"}");
   check_has ("advisor/variant coarse + ascending", all->str, "{lvl: 1, ts: 1} <compound variant of {ts: 1}>");
   check_has ("advisor/variant coarse + _id", all->str, "{lvl: 1, _id: 1}");
   CHECK ("advisor/variants are not repeated",
          strstr (all->str, "{lvl: 1, ts: 1}") == strrchr (all->str, '{') ||
             strstr (strstr (all->str, "{lvl: 1, ts: 1}") + 1, "{lvl: 1, ts: 1}") == NULL);
   check_lacks ("advisor/no variant of a good key", all->str, "{r: \"hashed\"}");
   bson_string_free (all, true);
   for (size_t i = 0; i < 4; i++)
      advisor_result_destroy (&r[i]);
   bson_destroy (&docs);
}

/* The collection's own chunk map: inserts follow the chunks, not an even split. */
static void
test_chunk_map (void)
{
   bson_t docs;
   advisor_sample_t s;
   advisor_chunk_t chunks[3];
   bson_t *key = BCON_NEW ("r", BCON_INT32 (1));
   advisor_cluster_t c = cluster_of (three, 3);
   advisor_result_t r;
   make_sample (&docs, true);
   /* r is uniform in [0, 2^63): shard01 gets [MinKey, 2^61) (1/4), shard02 [2^61, 2^62) (1/4), shard03 the rest */
   bson_init (&chunks[0].min);
   BSON_APPEND_MINKEY (&chunks[0].min, "r");
   bson_init (&chunks[0].max);
   BSON_APPEND_INT64 (&chunks[0].max, "r", (int64_t) 1 << 61);
   bson_copy_to (&chunks[0].max, &chunks[1].min);
   bson_init (&chunks[1].max);
   BSON_APPEND_INT64 (&chunks[1].max, "r", (int64_t) 1 << 62);
   bson_copy_to (&chunks[1].max, &chunks[2].min);
   bson_init (&chunks[2].max);
   BSON_APPEND_MAXKEY (&chunks[2].max, "r");
   bson_strncpy (chunks[0].shard, "shard01", sizeof chunks[0].shard);
   bson_strncpy (chunks[1].shard, "shard02", sizeof chunks[1].shard);
   bson_strncpy (chunks[2].shard, "shard03", sizeof chunks[2].shard);
   c.key = key;
   c.chunks = chunks;
   c.nchunks = 3;
   s = (advisor_sample_t){ .docs = &docs, .total_docs = TOTAL };
   analyze_json (&s, "{\"r\": 1}", &c, &r);
   CHECK ("advisor/chunk map is used", r.spread_actual);
   CHECK ("advisor/chunk map shares",
          r.nspread == 3 && fabs (r.spread[0].share - 0.25) < 0.07 && fabs (r.spread[2].share - 0.5) < 0.08);
   CHECK ("advisor/chunk map skew", (r.findings & ADVISOR_F_WRITE_SKEW) == 0);
   advisor_result_destroy (&r);
   analyze_json (&s, "{\"ts\": 1}", &c, &r);
   CHECK ("advisor/other key: even split", !r.spread_actual && r.spread[2].share == 1.0);
   advisor_result_destroy (&r);
   for (int i = 0; i < 3; i++) {
      bson_destroy (&chunks[i].min);
      bson_destroy (&chunks[i].max);
   }
   bson_destroy (key);
   bson_destroy (&docs);
}

static void
push_query (bson_t *q, int *n, const char *filter_json, bool write)
{
   char k[16];
   const char *key;
   bson_error_t e;
   bson_t *f = bson_new_from_json ((const uint8_t *) filter_json, -1, &e), d;
   bson_uint32_to_string ((uint32_t) (*n)++, &key, k, sizeof k);
   BSON_APPEND_DOCUMENT_BEGIN (q, key, &d);
   BSON_APPEND_DOCUMENT (&d, "filter", f);
   BSON_APPEND_BOOL (&d, "write", write);
   bson_append_document_end (q, &d);
   bson_destroy (f);
}

static void
test_queries (void)
{
   bson_t docs, q = BSON_INITIALIZER;
   advisor_sample_t s;
   advisor_cluster_t c = cluster_of (three, 3);
   advisor_result_t r;
   advisor_limits_t limits = advisor_limits_default ();
   int n = 0;
   make_sample (&docs, true);
   push_query (&q, &n, "{\"ts\": 5000}", false);
   push_query (&q, &n, "{\"ts\": {\"$eq\": 6000}, \"x\": 1}", false);
   push_query (&q, &n, "{\"ts\": {\"$gte\": 0}}", false); /* every chunk: several shards */
   push_query (&q, &n, "{\"lvl\": \"L1\"}", false);       /* no key: every shard */
   push_query (&q, &n, "{\"$and\": [{\"ts\": 1200}]}", true);
   push_query (&q, &n, "{\"other\": 1}", true);
   s = (advisor_sample_t){ .docs = &docs, .queries = &q, .total_docs = TOTAL };
   analyze_json (&s, "{\"ts\": 1}", &c, &r);
   CHECK ("advisor/query counts", r.reads == 4 && r.writes == 2);
   CHECK ("advisor/reads single/multi/scatter",
          fabs (r.read_single - 50) < 0.01 && fabs (r.read_multi - 25) < 0.01 && fabs (r.read_scatter - 25) < 0.01);
   CHECK ("advisor/writes single/scatter", fabs (r.write_single - 50) < 0.01 && fabs (r.write_scatter - 50) < 0.01);
   CHECK ("advisor/not mostly scatter", !(r.findings & ADVISOR_F_SCATTER));
   advisor_result_destroy (&r);

   analyze_json (&s, "{\"r\": 1}", &c, &r);
   advisor_rank (&r, 1, 3, &limits);
   CHECK ("advisor/queries that do not name the key scatter",
          r.read_scatter == 100 && (r.findings & ADVISOR_F_SCATTER));
   check_has ("advisor/scatter verdict", r.verdict,
              "100% of sampled queries would go to every shard: they do not name r");
   advisor_result_destroy (&r);

   analyze_json (&s, "{\"ts\": \"hashed\"}", &c, &r);
   CHECK ("advisor/hashed: equality targets, ranges scatter",
          fabs (r.read_single - 50) < 0.01 && fabs (r.read_scatter - 50) < 0.01);
   advisor_result_destroy (&r);
   bson_destroy (&q);
   bson_destroy (&docs);
}

static void
test_server (void)
{
   bson_t docs;
   advisor_sample_t s;
   advisor_cluster_t c = cluster_of (three, 3);
   advisor_result_t r;
   bson_t *agree, *disagree;
   make_sample (&docs, true);
   s = (advisor_sample_t){ .docs = &docs, .total_docs = TOTAL };
   analyze_json (&s, "{\"lvl\": 1}", &c, &r);
   agree = BCON_NEW (
      "keyCharacteristics", "{", "numDocsTotal", BCON_INT64 (TOTAL), "numDocsSampled", BCON_INT64 (N), "isUnique",
      BCON_BOOL (false), "numDistinctValues", BCON_INT64 (4), "mostCommonValues", "[", "{", "value", "{", "lvl",
      BCON_UTF8 ("L0"), "}", "frequency", BCON_INT64 ((int64_t) (r.mcv[0].share * N)), "}", "]", "monotonicity", "{",
      "recordIdCorrelationCoefficient", BCON_DOUBLE (0.01), "type", BCON_UTF8 ("not monotonic"), "}", "}",
      "readDistribution", "{", "sampleSize", "{", "total", BCON_INT64 (0), "}", "}", "writeDistribution", "{",
      "sampleSize", "{", "total", BCON_INT64 (0), "}", "}", "ok", BCON_DOUBLE (1));
   advisor_attach_server (&r, agree, NULL);
   check_has ("advisor/server agrees", r.server_note, "agrees on cardinality, frequency and monotonicity");
   advisor_result_destroy (&r);

   analyze_json (&s, "{\"ts\": 1}", &c, &r);
   disagree = BCON_NEW ("keyCharacteristics", "{", "numDocsTotal", BCON_INT64 (TOTAL), "numDocsSampled", BCON_INT64 (N),
                        "numDistinctValues", BCON_INT64 (300), "mostCommonValues", "[", "{", "value", "{", "ts",
                        BCON_INT64 (1), "}", "frequency", BCON_INT64 (1), "}", "]", "monotonicity", "{",
                        "recordIdCorrelationCoefficient", BCON_DOUBLE (0.2), "type", BCON_UTF8 ("not monotonic"), "}",
                        "}", "readDistribution", "{", "sampleSize", "{", "total", BCON_INT64 (40), "}",
                        "percentageOfSingleShardReads", BCON_DOUBLE (100.0), "}", "ok", BCON_DOUBLE (1));
   advisor_attach_server (&r, disagree, NULL);
   check_has ("advisor/server monotonicity differs", r.server_note, "monotonicity: the server says not monotonic");
   check_has ("advisor/server sampled queries differ", r.server_note, "sampled queries: the server holds 40 reads");
   check_has ("advisor/server distinct differs with a reason", r.server_note, "(sample size:");
   advisor_result_destroy (&r);

   analyze_json (&s, "{\"ts\": \"hashed\"}", &c, &r);
   advisor_attach_server (&r, NULL, "IllegalOperation: no supporting index");
   check_has ("advisor/server error shown", r.server_note, "failed: IllegalOperation");
   advisor_result_destroy (&r);
   bson_destroy (agree);
   bson_destroy (disagree);
   bson_destroy (&docs);
}

int
main (void)
{
   test_order ();
   test_patterns ();
   test_extract ();
   test_properties ();
   test_fewer_than_shards_and_jumbo ();
   test_natural_order ();
   test_arrays_missing_empty ();
   test_variants ();
   test_chunk_map ();
   test_queries ();
   test_server ();
   UNIT_EXIT ();
}
