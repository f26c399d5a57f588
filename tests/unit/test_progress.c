/* passes: plain asan */
/* sh.progress()'s pure computation (commands/progress_model.c): readings in, operations out, with the server's
 * traps turned into caveats — a recipient without data, an estimate lost after a failover, a drain whose start
 * left the changelog — and rates from two readings. */
#include <string.h>

#include "commands/progress.h"
#include "tests/unit/unit.h"

static void
set_json (bson_t *dst, const char *json)
{
   bson_error_t e;
   bson_t *b = bson_new_from_json ((const uint8_t *) json, -1, &e);
   if (!b) {
      fprintf (stderr, "bad test JSON: %s: %s\n", e.message, json);
      return;
   }
   bson_destroy (dst);
   bson_copy_to (b, dst);
   bson_destroy (b);
}

/* operations[i].field as a string (numbers printed with %g, null as "null"), into buf */
static const char *
field (const bson_t *ops, int i, const char *name, char *buf, size_t len)
{
   char path[64];
   bson_iter_t it, f;
   snprintf (path, sizeof path, "%d.%s", i, name);
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

#define ROW(shard, role, extra)                                                                                        \
   "{\"shard\": \"" shard "\", \"type\": \"op\", \"desc\": \"ReshardingMetrics" role                                   \
   "Service 1\", \"ns\": \"app.x\", "                                                                                  \
   "\"originatingCommand\": {\"reshardCollection\": \"app.x\", \"key\": {\"k\": 1}}" extra "}"

int
main (void)
{
   char b1[256], b2[256], b3[1024];
   progress_reading_t r, p;
   bson_t ops = BSON_INITIALIZER;

   /* a resharding: two recipients copying, one holding nothing of its even share, one without an estimate */
   progress_reading_init (&r);
   r.at_ms = 100000;
   set_json (&r.ops,
             "{\"0\": " ROW ("s1", "Donor", ", \"donorState\": \"donating-initial-data\"") ", \"1\": " ROW (
                "s1", "Recipient",
                ", \"recipientState\": \"cloning\", \"totalCopyTimeElapsedSecs\": 10, "
                "\"remainingOperationTimeEstimatedSecs\": 30, \"approxBytesToCopy\": 1000, \"bytesCopied\": 500, "
                "\"provenance\": \"reshardCollection\"") ", \"2\": " ROW ("s2", "Recipient",
                                                                          ", \"recipientState\": \"cloning\", "
                                                                          "\"totalCopyTimeElapsedSecs\": 10, "
                                                                          "\"approxBytesToCopy\": 1000, "
                                                                          "\"bytesCopied\": 0") "}");
   set_json (&r.coordinators, "{\"0\": {\"ns\": \"app.x\", \"state\": \"cloning\"}}");
   progress_compute (&r, NULL, &ops);
   CHECK_STR ("progress reshard type", "reshardCollection", field (&ops, 0, "type", b1, sizeof b1));
   CHECK_STR ("progress reshard phase from the coordinator", "cloning", field (&ops, 0, "phase", b1, sizeof b1));
   CHECK_STR ("progress reshard percent summed over recipients", "25", field (&ops, 0, "percent", b1, sizeof b1));
   CHECK_STR ("progress reshard eta from the sums when shares are uneven (the recipient said 30)", "70",
              field (&ops, 0, "etaSec", b1, sizeof b1));
   CHECK_STR ("progress reshard rate without a previous reading: the copy's average", "50",
              field (&ops, 0, "bytesPerSec", b1, sizeof b1));
   CHECK_STR ("progress reshard shards", "s1 -> s1, s2", field (&ops, 0, "shard", b1, sizeof b1));
   field (&ops, 0, "caveat", b3, sizeof b3);
   CHECK ("progress reshard caveat names the recipient without data", strstr (b3, "recipient(s) s2 copied nothing"));
   CHECK ("progress reshard caveat says where etaSec comes from", strstr (b3, "etaSec from the summed figures"));

   /* a second reading 2 s later: the rate comes from the two */
   progress_reading_init (&p);
   p.at_ms = 102000;
   set_json (&p.ops, "{\"0\": " ROW ("s1", "Recipient",
                                     ", \"recipientState\": \"cloning\", \"totalCopyTimeElapsedSecs\": 12, "
                                     "\"approxBytesToCopy\": 1000, \"bytesCopied\": 900") "}");
   bson_reinit (&ops);
   progress_compute (&p, &r, &ops);
   CHECK_STR ("progress reshard rate from two readings", "200", field (&ops, 0, "bytesPerSec", b1, sizeof b1));
   CHECK_STR ("progress reshard no estimate after a failover: etaSec null", "null",
              field (&ops, 0, "etaSec", b1, sizeof b1));
   field (&ops, 0, "caveat", b3, sizeof b3);
   CHECK ("progress reshard caveat names the lost estimate", strstr (b3, "lost after a failover on s1"));
   progress_reading_destroy (&p);
   progress_reading_destroy (&r);

   /* moveCollection (8.0 provenance), a migration, a drain, a config shard transition, a defragmentation */
   progress_reading_init (&r);
   r.at_ms = 200000;
   set_json (&r.ops, "{\"0\": " ROW ("s2", "Recipient",
                                     ", \"recipientState\": \"applying\", \"approxBytesToCopy\": 0, "
                                     "\"bytesCopied\": 0, \"remainingOperationTimeEstimatedSecs\": 4, "
                                     "\"provenance\": \"moveCollection\"") ", \"1\": {\"shard\": \"s1\", \"msg\": "
                                                                           "\"step 4 of 6\", \"command\": "
                                                                           "{\"_shardsvrMoveRange\": \"app.y\", "
                                                                           "\"toShard\": \"s3\", \"fromShard\": "
                                                                           "\"s1\"}}}");
   set_json (&r.drains, "{\"0\": {\"shard\": \"s3\", \"chunks\": 30, \"dbs\": 1, \"startedMs\": 1, \"moved\": 10, "
                        "\"recentChunks\": 10, \"recentBytes\": 3000, \"windowSecs\": 100}, "
                        "\"1\": {\"shard\": \"config\", \"chunks\": 0, \"dbs\": 0, \"recentChunks\": 0, "
                        "\"recentBytes\": 0, \"windowSecs\": 300}}");
   set_json (&r.defrags, "{\"0\": {\"ns\": \"app.z\", \"phase\": \"moveAndMergeChunks\", \"remaining\": 8}}");
   bson_reinit (&ops);
   progress_compute (&r, NULL, &ops);
   CHECK_STR ("progress moveCollection type from provenance", "moveCollection", field (&ops, 0, "type", b1, sizeof b1));
   CHECK_STR ("progress past the copy is 100 percent", "100", field (&ops, 0, "percent", b1, sizeof b1));
   CHECK_STR ("progress past the copy has no byte rate", "null", field (&ops, 0, "bytesPerSec", b1, sizeof b1));
   CHECK_STR ("progress migration", "migration app.y s1 -> s3 step 4 of 6 50",
              (bson_snprintf (b3, sizeof b3, "%s %s %s %s %s", field (&ops, 1, "type", b1, sizeof b1),
                              field (&ops, 1, "ns", b2, sizeof b2), field (&ops, 1, "shard", b3 + 512, 128),
                              field (&ops, 1, "phase", b3 + 640, 128), field (&ops, 1, "percent", b3 + 768, 128)),
               b3));
   CHECK_STR ("progress drain percent from chunks moved and left", "25", field (&ops, 2, "percent", b1, sizeof b1));
   CHECK_STR ("progress drain eta from the recent rate", "300", field (&ops, 2, "etaSec", b1, sizeof b1));
   CHECK_STR ("progress drain bytes per second", "30", field (&ops, 2, "bytesPerSec", b1, sizeof b1));
   field (&ops, 2, "caveat", b3, sizeof b3);
   CHECK ("progress drain caveat on databases to move", strstr (b3, "movePrimary"));
   CHECK_STR ("progress config shard transition", "configShardTransition", field (&ops, 3, "type", b1, sizeof b1));
   CHECK_STR ("progress drain without its start: percent null", "null", field (&ops, 3, "percent", b1, sizeof b1));
   field (&ops, 3, "caveat", b3, sizeof b3);
   CHECK ("progress drain without its start says why", strstr (b3, "no longer in config.changelog"));
   CHECK_STR ("progress defragmentation without a second reading: eta null", "null",
              field (&ops, 4, "etaSec", b1, sizeof b1));
   progress_reading_init (&p);
   p.at_ms = 210000;
   set_json (&p.defrags, "{\"0\": {\"ns\": \"app.z\", \"phase\": \"moveAndMergeChunks\", \"remaining\": 6}}");
   bson_reinit (&ops);
   progress_compute (&p, &r, &ops);
   CHECK_STR ("progress defragmentation eta from two readings", "30", field (&ops, 0, "etaSec", b1, sizeof b1));
   progress_reading_destroy (&p);
   progress_reading_destroy (&r);

   /* even shares: etaSec is the recipients' largest estimate */
   bson_t ops2 = BSON_INITIALIZER;
   progress_reading_init (&r);
   set_json (&r.ops,
             "{\"0\": " ROW ("s1", "Recipient",
                             ", \"recipientState\": \"cloning\", \"totalCopyTimeElapsedSecs\": 10, "
                             "\"remainingOperationTimeEstimatedSecs\": 30, \"approxBytesToCopy\": 1000, "
                             "\"bytesCopied\": 500") ", \"1\": " ROW ("s2", "Recipient",
                                                                      ", \"recipientState\": \"cloning\", "
                                                                      "\"remainingOperationTimeEstimatedSecs\": "
                                                                      "45, \"approxBytesToCopy\": 1000, "
                                                                      "\"bytesCopied\": 400") "}");
   progress_compute (&r, NULL, &ops2);
   CHECK_STR ("progress reshard eta is the recipients' largest estimate", "45",
              field (&ops2, 0, "etaSec", b1, sizeof b1));
   CHECK_STR ("progress reshard even shares: no caveat", "null", field (&ops2, 0, "caveat", b1, sizeof b1));
   bson_destroy (&ops2);
   progress_reading_destroy (&r);

   /* 8.3+: a drain stopShardDraining paused (draining unset, listed in paused): what is left, no time left, how to
    * resume it; not stuck (nothing is wrong, it waits for the operator) */
   progress_reading_init (&r);
   r.at_ms = 400000;
   r.version[0] = 8;
   r.version[1] = 3;
   set_json (&r.drains, "{\"0\": {\"shard\": \"s3\", \"chunks\": 3, \"dbs\": 0, \"startedMs\": 1, \"moved\": 1, "
                        "\"recentChunks\": 1, \"recentBytes\": 100, \"windowSecs\": 300}}");
   set_json (&r.paused, "{\"0\": {\"_id\": \"s3\", \"last\": \"removeShard.stopShardDraining\"}}");
   bson_reinit (&ops);
   progress_compute (&r, NULL, &ops);
   CHECK_STR ("progress paused drain phase", "paused: 3 chunks left", field (&ops, 0, "phase", b1, sizeof b1));
   CHECK_STR ("progress paused drain: no time left", "null", field (&ops, 0, "etaSec", b1, sizeof b1));
   CHECK_STR ("progress paused drain: no rate", "null", field (&ops, 0, "bytesPerSec", b1, sizeof b1));
   CHECK_STR ("progress paused drain: percent of its drain", "25", field (&ops, 0, "percent", b1, sizeof b1));
   CHECK_STR ("progress paused drain is not stuck", "null", field (&ops, 0, "stuck", b1, sizeof b1));
   field (&ops, 0, "caveat", b3, sizeof b3);
   CHECK ("progress paused drain caveat says how to resume",
          strstr (b3, "paused (stopShardDraining)") && strstr (b3, "db.adminCommand({startShardDraining: \"s3\"})"));
   progress_reading_destroy (&r);

   /* nothing running */
   progress_reading_init (&r);
   bson_reinit (&ops);
   progress_compute (&r, NULL, &ops);
   CHECK ("progress nothing running: no operations", bson_count_keys (&ops) == 0);
   progress_reading_destroy (&r);
   bson_destroy (&ops);
   UNIT_EXIT ();
}
