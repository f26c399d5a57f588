/* passes: plain asan */
/* The "why isn't this moving" model (commands/stuck.c), pure: recipients by zone and draining state, every stuck
 * verdict with its fix, and sh.progress's drain rows carrying them (commands/progress_model.c). */
#include <string.h>

#include "commands/progress.h"
#include "commands/stuck.h"
#include "tests/unit/unit.h"

static bson_t *
json (const char *text)
{
   bson_error_t e;
   bson_t *b = bson_new_from_json ((const uint8_t *) text, -1, &e);
   if (!b)
      fprintf (stderr, "bad test JSON: %s: %s\n", e.message, text);
   return b ? b : bson_new ();
}

static void
set_json (bson_t *dst, const char *text)
{
   bson_t *b = json (text);
   bson_destroy (dst);
   bson_copy_to (b, dst);
   bson_destroy (b);
}

/* operations[0].field as a string ("null" for null), into buf */
static const char *
op_field (const bson_t *ops, const char *name, char *buf, size_t len)
{
   char path[64];
   bson_iter_t it, f;
   snprintf (path, sizeof path, "0.%s", name);
   buf[0] = '\0';
   if (!bson_iter_init (&it, ops) || !bson_iter_find_descendant (&it, path, &f))
      return "absent";
   if (BSON_ITER_HOLDS_UTF8 (&f))
      bson_strncpy (buf, bson_iter_utf8 (&f, NULL), len);
   else if (BSON_ITER_HOLDS_NULL (&f))
      bson_strncpy (buf, "null", len);
   else if (BSON_ITER_HOLDS_NUMBER (&f))
      bson_snprintf (buf, len, "%g", bson_iter_as_double (&f));
   return buf;
}

#define SHARDS_SFO_DRAINING                                                                                            \
   "{\"0\": {\"_id\": \"s1\", \"tags\": [\"NYC\"]}, \"1\": {\"_id\": \"s2\", \"draining\": true, \"tags\": "           \
   "[\"SFO\"]}, "                                                                                                      \
   "\"2\": {\"_id\": \"s3\"}}"

/* The model's verdicts and their fixes. */
static void
test_verdicts (const bson_t *shards, const bson_t *empty)
{
   stuck_t st;
   char first[64];

   /* recipients: not draining, holding the zone */
   CHECK ("stuck recipients of no zone skip the draining shard", stuck_recipients (shards, NULL, NULL, first, 64) == 2);
   CHECK_STR ("stuck the first recipient is named", "s1", first);
   CHECK ("stuck recipients of NYC", stuck_recipients (shards, "NYC", NULL, NULL, 0) == 1);
   CHECK ("stuck recipients of SFO: its only shard drains", stuck_recipients (shards, "SFO", NULL, first, 64) == 0);
   CHECK_STR ("stuck no recipient: no name", "", first);
   CHECK ("stuck recipients of an unknown zone", stuck_recipients (shards, "LON", NULL, NULL, 0) == 0);
   CHECK ("stuck except leaves out a shard", stuck_recipients (shards, NULL, "s1", first, 64) == 1);

   /* a zone whose only shard drains */
   CHECK ("stuck no recipient for SFO",
          stuck_no_recipient (shards, "app.stores", "SFO", "{ z: '9' }", "{ z: 'A' }", "s2", 1, &st) && stuck_is (&st));
   CHECK ("stuck no recipient names the zone and its shards",
          strstr (st.why, "zone SFO: s2 (draining)") && strstr (st.why, "[{ z: '9' }, { z: 'A' })"));
   CHECK_STR ("stuck no recipient fix",
              "sh.addShardToZone(\"s1\", \"SFO\"), or sh.removeRangeFromZone(\"app.stores\", { z: '9' }, { z: 'A' })",
              st.fix);
   CHECK ("stuck a zone with a recipient is not stuck",
          !stuck_no_recipient (shards, "app.x", "NYC", NULL, NULL, "s2", 1, &st) && !stuck_is (&st));
   CHECK ("stuck no chunks, nothing stuck", !stuck_no_recipient (shards, "app.x", "SFO", NULL, NULL, "s2", 0, &st));

   /* every other shard draining */
   {
      bson_t *all =
         json ("{\"0\": {\"_id\": \"s1\", \"draining\": true}, \"1\": {\"_id\": \"s2\", \"draining\": true}}");
      CHECK ("stuck every other shard draining",
             stuck_no_recipient (all, NULL, NULL, NULL, NULL, "s1", 4, &st) && strstr (st.why, "every other shard"));
      CHECK ("stuck its fix adds a shard", strstr (st.fix, "sh.addShard(") != NULL);
      bson_destroy (all);
   }

   /* the balancer */
   {
      bson_t *off = json ("{\"mode\": \"off\"}"), *full = json ("{\"mode\": \"full\"}");
      bson_t *win = json ("{\"activeWindow\": {\"start\": \"01:00\", \"stop\": \"03:00\"}}");
      bson_t *night = json ("{\"activeWindow\": {\"start\": \"23:00\", \"stop\": \"02:00\"}}");
      CHECK ("stuck balancer off", stuck_balancer (off, empty, -1, &st));
      CHECK_STR ("stuck balancer off fix", "sh.startBalancer()", st.fix);
      CHECK ("stuck balancer on, no window", !stuck_balancer (full, empty, 600, &st));
      CHECK ("stuck outside the window", stuck_balancer (full, win, 600, &st) && strstr (st.why, "01:00-03:00"));
      CHECK ("stuck inside the window", !stuck_balancer (full, win, 90, &st));
      CHECK ("stuck a window over midnight, inside", !stuck_balancer (full, night, 30, &st));
      CHECK ("stuck a window over midnight, outside", stuck_balancer (full, night, 12 * 60, &st));
      CHECK ("stuck the window unknown without the time", !stuck_balancer (full, win, -1, &st));
      /* the window alone (what explainBalance reports beside a stopped balancer) */
      CHECK ("stuck window alone, outside, though the balancer is off",
             stuck_window (win, 600, &st) && strstr (st.why, "01:00-03:00") && strstr (st.fix, "setBalancerWindow"));
      CHECK ("stuck window alone, inside", !stuck_window (win, 90, &st));
      {
         bson_t *same = json ("{\"activeWindow\": {\"start\": \"02:00\", \"stop\": \"02:00\"}}");
         CHECK ("stuck a window whose start is its stop is no limit", !stuck_window (same, 600, &st));
         bson_destroy (same);
      }
      bson_destroy (off);
      bson_destroy (full);
      bson_destroy (win);
      bson_destroy (night);
   }

   /* jumbo, noBalance, repeated failures, no progress */
   CHECK ("stuck jumbo on a draining shard",
          stuck_jumbo_draining ("s2", 2, "app.x", "{ k: 1 }", "s1", &st) && strstr (st.why, "2 jumbo chunks"));
   CHECK ("stuck jumbo fix forces the move",
          strstr (st.fix, "moveChunk: \"app.x\", find: { k: 1 }, to: \"s1\", forceJumbo: true") != NULL);
   CHECK ("stuck no jumbo, nothing", !stuck_jumbo_draining ("s2", 0, NULL, NULL, NULL, &st));
   CHECK ("stuck noBalance", stuck_no_balance ("app.x", &st) && !strcmp (st.fix, "sh.enableBalancing(\"app.x\")"));
   CHECK ("stuck two failures are not a pattern", !stuck_repeated_failure ("app.x", "r", 2, "e", &st));
   CHECK ("stuck three failures of a range are",
          stuck_repeated_failure ("app.x", "from { k: 1 }", 3, "boom", &st) && strstr (st.why, "failed 3 times: boom"));
   CHECK ("stuck no progress over 3 readings", stuck_no_progress (3, 6, &st) && strstr (st.why, "3 readings"));
   CHECK ("stuck 2 readings are not enough", !stuck_no_progress (2, 4, &st));
}

/* sh.progress's rows carrying the verdicts: stuck drains, stalls over readings, an emptied drain's rate. */
static void
test_progress_rows (void)
{
   char b1[1024];

   /* sh.progress's drain row: stuck, fix, etaSec null; and a drain that moves is not stuck */
   {
      progress_reading_t r;
      bson_t ops = BSON_INITIALIZER;
      progress_reading_init (&r);
      r.at_ms = 1000000;
      set_json (&r.shards, SHARDS_SFO_DRAINING);
      set_json (&r.balancer, "{\"mode\": \"full\"}");
      set_json (&r.drains,
                "{\"0\": {\"shard\": \"s2\", \"chunks\": 1, \"dbs\": 0, \"startedMs\": 1, \"moved\": 9, "
                "\"recentChunks\": 9, \"recentBytes\": 900, \"windowSecs\": 300, \"jumbo\": 0, \"stuckZones\": "
                "[{\"ns\": \"app.stores\", \"zone\": \"SFO\", \"min\": \"{ z: '9' }\", \"max\": \"{ z: 'A' }\", "
                "\"chunks\": 1}]}}");
      progress_compute (&r, NULL, &ops);
      CHECK ("stuck progress drain stuck on SFO", strstr (op_field (&ops, "stuck", b1, sizeof b1), "zone SFO"));
      CHECK_STR ("stuck progress drain eta null, not 0", "null", op_field (&ops, "etaSec", b1, sizeof b1));
      CHECK ("stuck progress drain fix", strstr (op_field (&ops, "fix", b1, sizeof b1), "sh.addShardToZone(\"s1\""));
      bson_destroy (&ops);
      bson_init (&ops);
      set_json (&r.drains, "{\"0\": {\"shard\": \"s2\", \"chunks\": 3, \"dbs\": 0, \"startedMs\": 1, \"moved\": 9, "
                           "\"recentChunks\": 9, \"recentBytes\": 900, \"windowSecs\": 300, \"jumbo\": 0, "
                           "\"stuckZones\": []}}");
      progress_compute (&r, NULL, &ops);
      CHECK_STR ("stuck progress a moving drain is not stuck", "null", op_field (&ops, "stuck", b1, sizeof b1));
      CHECK_STR ("stuck progress a moving drain has its time left", "100", op_field (&ops, "etaSec", b1, sizeof b1));
      bson_destroy (&ops);
      bson_init (&ops);
      set_json (&r.balancer, "{\"mode\": \"off\"}");
      progress_compute (&r, NULL, &ops);
      CHECK_STR ("stuck progress a stopped balancer stops the drain", "sh.startBalancer()",
                 op_field (&ops, "fix", b1, sizeof b1));
      bson_destroy (&ops);
      progress_reading_destroy (&r);
   }
   /* no progress: the same chunks left over PROGRESS_STALL_READINGS readings spanning PROGRESS_STALL_SECS */
   {
      progress_reading_t r[5];
      const char *drain = "{\"0\": {\"shard\": \"s3\", \"chunks\": 5, \"dbs\": 0, \"recentChunks\": 1, "
                          "\"recentBytes\": 100, \"windowSecs\": 300, \"jumbo\": 0, \"stuckZones\": []}}";
      for (int i = 0; i < 5; i++) {
         bson_t ops = BSON_INITIALIZER;
         progress_reading_init (&r[i]);
         r[i].at_ms = 1000000 + (int64_t) i * 100000; /* every 100 s */
         set_json (&r[i].shards, SHARDS_SFO_DRAINING);
         set_json (&r[i].balancer, "{\"mode\": \"full\"}");
         set_json (&r[i].drains, drain);
         set_json (&r[i].ops, "{\"0\": {\"shard\": \"s3\", \"msg\": \"step 4 of 6\", \"command\": "
                              "{\"_shardsvrMoveRange\": \"app.x\", \"toShard\": \"s1\", \"min\": {\"k\": 1}}}}");
         progress_track_stalls (&r[i], i ? &r[i - 1] : NULL);
         progress_compute (&r[i], i ? &r[i - 1] : NULL, &ops);
         if (i == 2)
            CHECK_STR ("stuck progress two unchanged readings over 200 s are not a stall", "null",
                       op_field (&ops, "stuck", b1, sizeof b1));
         if (i == 3) {
            CHECK ("stuck progress a migration at the same step for 300 s is stuck",
                   strstr (op_field (&ops, "stuck", b1, sizeof b1), "no progress over the last 3 readings (300 s)"));
         }
         if (i == 4) {
            bson_iter_t it;
            bool drain_stuck = false;
            if (bson_iter_init_find (&it, &ops, "1") && BSON_ITER_HOLDS_DOCUMENT (&it)) {
               bson_t op;
               uint32_t len;
               const uint8_t *data;
               bson_iter_document (&it, &len, &data);
               if (bson_init_static (&op, data, len) && bson_iter_init_find (&it, &op, "stuck") &&
                   BSON_ITER_HOLDS_UTF8 (&it))
                  drain_stuck = strstr (bson_iter_utf8 (&it, NULL), "no progress over the last 4 readings") != NULL;
            }
            CHECK ("stuck progress a drain whose chunks left did not move for 400 s is stuck", drain_stuck);
         }
         bson_destroy (&ops);
      }
      for (int i = 0; i < 5; i++)
         progress_reading_destroy (&r[i]);
   }
   /* a drain that has emptied keeps the rate it left at: the same an hour later */
   {
      progress_reading_t r;
      char at[2][64];
      progress_reading_init (&r);
      set_json (&r.drains, "{\"0\": {\"shard\": \"s3\", \"chunks\": 0, \"dbs\": 0, \"startedMs\": 1000000, "
                           "\"moved\": 10, \"recentChunks\": 0, \"recentBytes\": 0, \"windowSecs\": 300, "
                           "\"bytes\": 1000000, \"lastMs\": 1100000, \"jumbo\": 0, \"stuckZones\": []}}");
      for (int k = 0; k < 2; k++) {
         bson_t ops = BSON_INITIALIZER;
         r.at_ms = 1200000 + (int64_t) k * 3600000;
         progress_compute (&r, NULL, &ops);
         op_field (&ops, "bytesPerSec", at[k], sizeof at[k]);
         bson_destroy (&ops);
      }
      CHECK_STR ("stuck progress an emptied drain's rate is the one it left at", "10000", at[0]);
      CHECK_STR ("stuck progress and it does not decay an hour later", "10000", at[1]);
      progress_reading_destroy (&r);
   }
}

int
main (void)
{
   bson_t *shards = json (SHARDS_SFO_DRAINING), *empty = bson_new ();
   test_verdicts (shards, empty);
   test_progress_rows ();
   bson_destroy (shards);
   bson_destroy (empty);
   UNIT_EXIT ();
}
