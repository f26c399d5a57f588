/* shardsim's failed migrations and failed balancer rounds, on demand ({simFailure: …}): the live balancer's next
 * migrations fail at their end with the changelog a donor writes for a failed migration (moveChunk.error, then
 * moveChunk.from with note "aborted" and the errmsg), and its next rounds fail before selecting anything, logged in
 * config.actionlog with errorOccured (≤5.0) / errorOccurred (6.0+) true and the errmsg. */
#include "tests/shardsim/sim.h"

#include <string.h>

#define SIM_MFAIL_DEFAULT_MIGRATION                                                                                    \
   "Data transfer error: ExceededTimeLimit: Failed to clone documents: recipient timed out"
#define SIM_MFAIL_DEFAULT_ROUND "Failed to acquire the collection lock to migrate chunks: LockBusy"

typedef struct {
   int64_t times; /* failures left; -1: every one */
   char errmsg[256];
} sim_mfail_t;

static sim_mfail_t sim_mfail_migrations, sim_mfail_rounds;

/* Takes one failure of f; false when none is armed. */
static bool
sim_mfail_take (sim_mfail_t *f, char *errmsg, size_t len)
{
   if (f->times == 0) {
      return false;
   }
   if (f->times > 0) {
      f->times--;
   }
   bson_strncpy (errmsg, f->errmsg, len);
   return true;
}

bool
sim_mfail_migration (const char *ns, const bson_t *min, const bson_t *max, const char *from, const char *to,
                     int64_t now, char *errmsg, size_t len)
{
   if (!sim_mfail_take (&sim_mfail_migrations, errmsg, len)) {
      return false;
   }
   bson_t d = BSON_INITIALIZER;
   BSON_APPEND_DOCUMENT (&d, "min", min);
   BSON_APPEND_DOCUMENT (&d, "max", max);
   BSON_APPEND_UTF8 (&d, "from", from);
   BSON_APPEND_UTF8 (&d, "to", to);
   sim_changelog (false, "moveChunk.error", ns, from, &d, now);
   bson_destroy (&d);
   return true;
}

bool
sim_mfail_round (int64_t now)
{
   char errmsg[256];
   if (!sim_mfail_take (&sim_mfail_rounds, errmsg, sizeof errmsg)) {
      return false;
   }
   bson_t d = BSON_INITIALIZER;
   BSON_APPEND_INT64 (&d, "executionTimeMillis", 0);
   BSON_APPEND_BOOL (&d, sim_ver_ge (60) ? "errorOccurred" : "errorOccured", true);
   BSON_APPEND_UTF8 (&d, "errmsg", errmsg);
   sim_changelog (true, "balancer.round", "", "config", &d, now);
   bson_destroy (&d);
   return true;
}

static void
sim_mfail_status (bson_t *reply)
{
   bson_t d;
   const sim_mfail_t *fs[] = { &sim_mfail_migrations, &sim_mfail_rounds };
   const char *names[] = { "migrations", "rounds" };
   for (int i = 0; i < 2; i++) {
      BSON_APPEND_DOCUMENT_BEGIN (reply, names[i], &d);
      BSON_APPEND_INT64 (&d, "times", fs[i]->times);
      BSON_APPEND_UTF8 (&d, "errmsg", fs[i]->errmsg);
      bson_append_document_end (reply, &d);
   }
}

void
sim_cmd_sim_failure (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   const char *what = NULL;
   if (bson_iter_init_find (&it, ctx->cmd, "simFailure") && BSON_ITER_HOLDS_UTF8 (&it)) {
      what = bson_iter_utf8 (&it, NULL);
   }
   if (!what) {
      sim_reply_error (reply, 2, "simFailure takes \"migrations\", \"rounds\", \"status\" or \"clear\"");
      return;
   }
   if (!strcmp (what, "clear")) {
      memset (&sim_mfail_migrations, 0, sizeof sim_mfail_migrations);
      memset (&sim_mfail_rounds, 0, sizeof sim_mfail_rounds);
   } else if (!strcmp (what, "migrations") || !strcmp (what, "rounds")) {
      sim_mfail_t *f = !strcmp (what, "rounds") ? &sim_mfail_rounds : &sim_mfail_migrations;
      int64_t times = 1;
      if (bson_iter_init_find (&it, ctx->cmd, "times")) {
         if (!BSON_ITER_HOLDS_NUMBER (&it) || bson_iter_as_double (&it) < -1 || bson_iter_as_double (&it) > 1e6) {
            sim_reply_error (reply, 2, "simFailure times must be a number from -1 (always) to 1000000");
            return;
         }
         times = (int64_t) bson_iter_as_double (&it);
      }
      f->times = times;
      bson_strncpy (f->errmsg, f == &sim_mfail_rounds ? SIM_MFAIL_DEFAULT_ROUND : SIM_MFAIL_DEFAULT_MIGRATION,
                    sizeof f->errmsg);
      if (bson_iter_init_find (&it, ctx->cmd, "errmsg") && BSON_ITER_HOLDS_UTF8 (&it)) {
         bson_strncpy (f->errmsg, bson_iter_utf8 (&it, NULL), sizeof f->errmsg);
      }
   } else if (strcmp (what, "status") != 0) {
      sim_reply_error (reply, 2, "simFailure takes \"migrations\", \"rounds\", \"status\" or \"clear\"");
      return;
   }
   sim_mfail_status (reply);
   sim_reply_ok (reply);
}
