/* passes: plain asan */
/* The dashboard's judgement from canned snapshots: rates from two samples, hot shards (twice the fair share above
 * the minimum rate), the hot key range, the balance verdict by the server version's policy, and the totals. */
#include <stdlib.h>
#include <string.h>

#include "views/model/collect.h"
#include "tests/unit/unit.h"

/* A snapshot with nshards shards and one collection; the caller fills the cells. */
static void
make_snap (snap_t *s, int nshards, int vmajor, bool hashed)
{
   memset (s, 0, sizeof *s);
   s->vmajor = vmajor;
   s->balancer.chunk_size_bytes = 128LL * 1024 * 1024;
   s->nshards = (size_t) nshards;
   s->shards = calloc ((size_t) nshards, sizeof *s->shards);
   for (int i = 0; i < nshards; i++)
      snprintf (s->shards[i].name, sizeof s->shards[i].name, "shard%02d", i + 1);
   s->ncolls = 1;
   s->colls = calloc (1, sizeof *s->colls);
   snprintf (s->colls[0].ns, sizeof s->colls[0].ns, "app.events");
   s->colls[0].hashed = hashed;
   s->colls[0].top_shard = s->colls[0].bottom_shard = -1;
   {
      const char *ends[SNAP_END_TEXTS] = { [SNAP_TOP_MIN] = "{ ts: 1000 }",
                                           [SNAP_TOP_MIN_JSON] = "{ \"ts\" : 1000 }",
                                           [SNAP_TOP_MAX] = "{ ts: MaxKey() }",
                                           [SNAP_TOP_MAX_JSON] = "{ \"ts\" : { \"$maxKey\" : 1 } }" };
      snap_coll_set_ends (&s->colls[0], ends);
   }
}

static void
set_chunks (snap_t *s, const int64_t *chunks, const int64_t *bytes)
{
   s->colls[0].chunks = 0;
   snap_coll_drop_cells (&s->colls[0]);
   for (size_t i = 0; i < s->nshards; i++) {
      snap_cell_t *c = snap_coll_cell_add (&s->colls[0], (int) i);
      c->chunks = (int32_t) chunks[i];
      c->data_bytes = bytes ? bytes[i] : 0;
      s->colls[0].chunks += chunks[i];
   }
   snap_coll_tidy (&s->colls[0]);
}

/* Sets shard sh's write (writes true) or read counter for s's collection. */
static void
set_op (snap_t *s, int sh, bool writes, int64_t v)
{
   size_t n;
   snap_act_t *a = snap_coll_acts_mut (&s->colls[0], &n);
   size_t k = 0;
   while (k < n && a[k].shard != sh)
      k++;
   if (k == n) {
      snap_act_t *x = snap_coll_act_add (&s->colls[0], sh);
      *(writes ? &x->writes_ops : &x->reads_ops) = v;
   } else {
      *(writes ? &a[k].writes_ops : &a[k].reads_ops) = v;
   }
   snap_coll_tidy (&s->colls[0]);
}

/* Shard sh's write (read) rate for s's collection, 0 without an act. */
static double
wps (const snap_t *s, int sh)
{
   const snap_act_t *a = snap_coll_act (&s->colls[0], sh);
   return a ? a->writes_ps : 0;
}

static double
rps (const snap_t *s, int sh)
{
   const snap_act_t *a = snap_coll_act (&s->colls[0], sh);
   return a ? a->reads_ps : 0;
}

static void
test_thresholds (void)
{
   CHECK ("judge/threshold_below_20", collect_chunk_threshold (19) == 2);
   CHECK ("judge/threshold_20", collect_chunk_threshold (20) == 4);
   CHECK ("judge/threshold_79", collect_chunk_threshold (79) == 4);
   CHECK ("judge/threshold_80", collect_chunk_threshold (80) == 8);
}

static void
test_hot_ascending (void)
{
   snap_t prev, cur;
   collect_opts_t o = { .interval_s = 1, .hot_factor = 2.0, .hot_min_rate = 1.0 };
   int64_t ch[3] = { 2, 2, 1 };
   char range[2 * SNAP_TEXT + 8];
   make_snap (&prev, 3, 7, false);
   make_snap (&cur, 3, 7, false);
   set_chunks (&prev, ch, NULL);
   set_chunks (&cur, ch, NULL);
   set_op (&prev, 1, true, 1000);
   set_op (&cur, 1, true, 1100); /* 100 writes in 2 s on shard02 only */
   cur.colls[0].top_shard = 1;
   cur.colls[0].key_trend = 1;
   collect_judge (&cur, &prev, 2.0, NULL, &o);
   CHECK ("judge/rates_valid", cur.rates_valid);
   CHECK ("judge/write_rate", wps (&cur, 1) == 50.0);
   CHECK ("judge/shard_rate", cur.shards[1].writes_ps == 50.0);
   CHECK ("judge/hot_shard", cur.colls[0].hot_shard == 1 && cur.shards[1].hot && !cur.shards[0].hot);
   CHECK ("judge/hot_range", cur.colls[0].has_hot_range && cur.colls[0].hot_range_shard == 1);
   snap_coll_hot_range (&cur.colls[0], range, sizeof range);
   CHECK_STR ("judge/hot_range_text", "{ ts: 1000 } -> { ts: MaxKey() }", range);
   CHECK_STR ("judge/hot_range_min_json", "{ \"ts\" : 1000 }", snap_coll_hot_min_json (&cur.colls[0]));
   CHECK_STR ("judge/hot_range_end", "MaxKey", cur.colls[0].hot_range_end);
   /* the range is only named when the inserts go to that end and the hot shard owns it */
   cur.colls[0].top_shard = 0;
   collect_judge (&cur, &prev, 2.0, NULL, &o);
   CHECK ("judge/no_range_when_other_shard_owns_maxkey", cur.colls[0].hot_shard == 1 && !cur.colls[0].has_hot_range);
   cur.colls[0].top_shard = 1;
   cur.colls[0].key_trend = 0;
   collect_judge (&cur, &prev, 2.0, NULL, &o);
   CHECK ("judge/no_range_without_trend", !cur.colls[0].has_hot_range);
   /* descending inserts land in the MinKey chunk */
   cur.colls[0].key_trend = -1;
   cur.colls[0].bottom_shard = 1;
   {
      const char *ends[SNAP_END_TEXTS] = { [SNAP_TOP_MIN] = "{ ts: 1000 }",
                                           [SNAP_TOP_MAX] = "{ ts: MaxKey() }",
                                           [SNAP_BOTTOM_MIN] = "{ ts: MinKey() }",
                                           [SNAP_BOTTOM_MAX] = "{ ts: -5 }" };
      snap_coll_set_ends (&cur.colls[0], ends);
   }
   collect_judge (&cur, &prev, 2.0, NULL, &o);
   snap_coll_hot_range (&cur.colls[0], range, sizeof range);
   CHECK_STR ("judge/hot_range_minkey", "{ ts: MinKey() } -> { ts: -5 }", range);
   snap_destroy (&prev);
   snap_destroy (&cur);
}

static void
test_not_hot (void)
{
   snap_t prev, cur;
   collect_opts_t o = { .interval_s = 1, .hot_factor = 2.0, .hot_min_rate = 1.0 };
   int64_t ch[3] = { 2, 2, 2 };
   make_snap (&prev, 3, 7, true);
   make_snap (&cur, 3, 7, true);
   set_chunks (&prev, ch, NULL);
   set_chunks (&cur, ch, NULL);
   /* hashed: 33/35/32 writes */
   set_op (&cur, 0, true, 33);
   set_op (&cur, 1, true, 35);
   set_op (&cur, 2, true, 32);
   collect_judge (&cur, &prev, 1.0, NULL, &o);
   CHECK ("judge/hashed_not_hot", cur.colls[0].hot_shard < 0 && !cur.shards[0].hot && !cur.shards[1].hot);
   /* all writes on one shard, but under the minimum rate */
   snap_coll_drop_acts (&cur.colls[0]);
   set_op (&cur, 2, true, 1);
   collect_judge (&cur, &prev, 2.0, NULL, &o);
   CHECK ("judge/below_min_rate_not_hot", cur.colls[0].hot_shard < 0);
   /* no rates from a single sample */
   collect_judge (&cur, NULL, 0, NULL, &o);
   CHECK ("judge/first_sample_no_rates", !cur.rates_valid && cur.colls[0].hot_shard < 0);
   /* a counter that went backwards (restart) gives no rate, not a negative one */
   set_op (&prev, 0, true, 500);
   set_op (&cur, 0, true, 10);
   collect_judge (&cur, &prev, 1.0, NULL, &o);
   CHECK ("judge/counter_reset", wps (&cur, 0) == 0.0);
   /* the collector's own reads do not count */
   set_op (&prev, 0, false, 10);
   set_op (&cur, 0, false, 12);
   {
      int own[1] = { 2 };
      collect_judge (&cur, &prev, 1.0, own, &o);
      CHECK ("judge/own_reads_subtracted", rps (&cur, 0) == 0.0);
   }
   /* one shard: never hot (the fair share is everything) */
   snap_destroy (&prev);
   snap_destroy (&cur);
   make_snap (&prev, 1, 7, false);
   make_snap (&cur, 1, 7, false);
   set_op (&cur, 0, true, 1000);
   collect_judge (&cur, &prev, 1.0, NULL, &o);
   CHECK ("judge/one_shard_never_hot", cur.colls[0].hot_shard < 0);
   snap_destroy (&prev);
   snap_destroy (&cur);
}

static void
test_balance (void)
{
   snap_t s;
   collect_opts_t o = { .interval_s = 1, .hot_factor = 2.0, .hot_min_rate = 1.0 };
   int64_t imb[3] = { 10, 5, 5 }, ok[3] = { 7, 6, 7 };
   int64_t mb = 1024 * 1024;
   int64_t big[3] = { 500 * mb, 100 * mb, 120 * mb }, small[3] = { 300 * mb, 100 * mb, 120 * mb };

   /* 5.0: chunk counts against 2/4/8 */
   make_snap (&s, 3, 5, false);
   set_chunks (&s, imb, NULL);
   collect_judge (&s, NULL, 0, NULL, &o);
   CHECK ("judge/pre60_imbalanced", s.colls[0].balance == SNAP_BAL_IMBALANCED);
   CHECK_STR ("judge/pre60_why", "chunk difference 5 >= 4", s.colls[0].balance_why);
   set_chunks (&s, ok, NULL);
   collect_judge (&s, NULL, 0, NULL, &o);
   CHECK ("judge/pre60_balanced", s.colls[0].balance == SNAP_BAL_OK);
   /* the same chunk counts with similar data are balanced on 6.0+: chunks no longer drive the balancer */
   s.vmajor = 6;
   set_chunks (&s, imb, small);
   collect_judge (&s, NULL, 0, NULL, &o);
   CHECK ("judge/60_chunks_do_not_matter", s.colls[0].balance == SNAP_BAL_OK);
   set_chunks (&s, ok, big);
   collect_judge (&s, NULL, 0, NULL, &o);
   CHECK ("judge/60_data_imbalanced", s.colls[0].balance == SNAP_BAL_IMBALANCED);
   CHECK_STR ("judge/60_why", "data difference 400 MB >= 3 x range 128 MB", s.colls[0].balance_why);
   /* a collection's own range size wins over the cluster's */
   s.colls[0].range_bytes = 256 * mb;
   collect_judge (&s, NULL, 0, NULL, &o);
   CHECK ("judge/60_collection_range_size", s.colls[0].balance == SNAP_BAL_OK);
   /* a draining shard that still holds chunks */
   s.shards[2].draining = true;
   collect_judge (&s, NULL, 0, NULL, &o);
   CHECK ("judge/draining", s.colls[0].balance == SNAP_BAL_IMBALANCED && strstr (s.colls[0].balance_why, "draining"));
   s.shards[2].draining = false;
   s.colls[0].out_of_zone = 2;
   collect_judge (&s, NULL, 0, NULL, &o);
   CHECK ("judge/outside_zone", s.colls[0].balance == SNAP_BAL_IMBALANCED);
   snap_destroy (&s);
}

/* Counters read at their own times: a rate spans two readings of the collection; an unchanged reading (the
 * collector did not read that collection this refresh) carries the last rates on. */
static void
test_readings (void)
{
   snap_t prev, cur;
   collect_opts_t o = { .interval_s = 1, .hot_factor = 2.0, .hot_min_rate = 1.0 };
   int64_t ch[2] = { 2, 2 };
   make_snap (&prev, 2, 7, false);
   make_snap (&cur, 2, 7, false);
   set_chunks (&prev, ch, NULL);
   set_chunks (&cur, ch, NULL);
   prev.colls[0].stats_ms = 10000;
   set_op (&prev, 0, true, 100);
   cur.colls[0].stats_ms = 14000; /* read 4 s later, although the samples are 1 s apart */
   set_op (&cur, 0, true, 500);
   collect_judge (&cur, &prev, 1.0, NULL, &o);
   CHECK ("judge/rate_over_readings", wps (&cur, 0) == 100.0);
   /* the next sample did not read it: same reading, same rates */
   snap_destroy (&prev);
   snap_copy (&prev, &cur);
   collect_judge (&cur, &prev, 1.0, NULL, &o);
   CHECK ("judge/rate_carried", wps (&cur, 0) == 100.0 && cur.colls[0].hot_shard == 0);
   /* read now but never before: no rate yet */
   prev.colls[0].stats_ms = 0;
   collect_judge (&cur, &prev, 1.0, NULL, &o);
   CHECK ("judge/first_reading_no_rate", wps (&cur, 0) == 0.0);
   snap_destroy (&prev);
   snap_destroy (&cur);
}

static void
test_copy (void)
{
   snap_t a, b;
   int64_t ch[2] = { 3, 4 };
   make_snap (&a, 2, 7, false);
   set_chunks (&a, ch, NULL);
   snap_copy (&b, &a);
   CHECK ("snapshot/copy_shares_cells", a.colls[0].cells == b.colls[0].cells && b.shards != a.shards);
   {
      size_t n;
      snap_cell_t *c = snap_coll_cells_mut (&a.colls[0], &n);
      c[0].chunks = 99;
   }
   CHECK ("snapshot/copy_on_write", snap_coll_chunks_on (&b.colls[0], 0) == 3 &&
                                       snap_coll_chunks_on (&a.colls[0], 0) == 99 &&
                                       a.colls[0].cells != b.colls[0].cells);
   CHECK ("snapshot/shard_index", snap_shard_index (&b, "shard02") == 1 && snap_shard_index (&b, "x") == -1);
   snap_destroy (&a);
   snap_destroy (&b);
   CHECK ("snapshot/clear", b.nshards == 0 && b.shards == NULL);
}

/* The totals row: over the shards (chunks, jumbo, bytes, documents, rates), and each collection's documents. */
static void
test_totals (void)
{
   snap_t s;
   collect_opts_t o = { .interval_s = 1, .hot_factor = 2.0, .hot_min_rate = 1.0 };
   int64_t ch[3] = { 3, 2, 1 }, by[3] = { 300, 200, 100 };
   make_snap (&s, 3, 7, false);
   set_chunks (&s, ch, by);
   for (int i = 0; i < 3; i++) {
      size_t n;
      snap_coll_cells_mut (&s.colls[0], &n)[i].docs = 10 * (i + 1);
      s.shards[i].chunks = ch[i];
      s.shards[i].jumbo = i == 0;
      s.shards[i].data_bytes = by[i];
      s.shards[i].docs = 10 * (i + 1);
   }
   collect_judge (&s, NULL, 0, NULL, &o);
   CHECK ("judge/totals", s.total_chunks == 6 && s.total_jumbo == 1 && s.total_bytes == 600 && s.total_docs == 60);
   CHECK ("judge/collection_documents", s.colls[0].docs == 60);
   snap_destroy (&s);
}

int
main (void)
{
   test_thresholds ();
   test_hot_ascending ();
   test_not_hot ();
   test_balance ();
   test_readings ();
   test_copy ();
   test_totals ();
   UNIT_EXIT ();
}
