/* sh.explainBalance(ns): one ranked diagnosis of why a collection is or is not balanced. The server's own verdict
 * (balancerCollectionStatus) comes first; then what keeps the balancer from acting — the balancer off or outside its
 * window, noBalance, migrations not allowed, draining shards holding chunks, jumbo chunks, chunks outside their zone
 * or straddling a zone boundary, a defragmentation — then what went wrong lately (failed migrations of the
 * collection, failed balancer rounds), each with the command that would change it. The reads are bounded: one
 * collection's chunks grouped by shard, its zone ranges (at most EX_MAX_ZONES, two probes each), the last few
 * changelog and actionlog entries. explain_diagnose() is the pure part (reading in, findings out). */
#include <ctype.h>
#include <string.h>
#include <time.h>

#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"
#include "commands/exec.h"
#include "commands/config_reads.h"
#include "commands/stuck.h"
#include "commands/explain_hot.h"
#include "commands/explain_zones.h"
#include "commands/dispatch.h"
#include "commands/progress.h"
#include "shell/lib/docget.h"

#define EX_MAX_ZONES 10
#define EX_RECENT 5

/* What explain_diagnose needs; every document owned, empty when unknown. */
typedef struct {
   char ns[256];
   bson_t status;    /* balancerCollectionStatus reply */
   bson_t balancer;  /* balancerStatus reply */
   bson_t settings;  /* config.settings { _id: "balancer" } */
   bson_t coll;      /* config.collections document */
   bson_t shards;    /* config.shards documents (array) */
   bson_t per_shard; /* [ { _id: shard, chunks, jumbo, jumboMin } ] */
   bson_t zones;     /* [ { zone, min, max, shards: [..], straddling: [min of a chunk], outside: n, outsideShard } ] */
   bson_t failures;  /* recent failed moveChunk.from entries of ns, newest first */
   bson_t rounds;    /* the last balancer.round entries */
   bson_t hot;       /* explain_hot_range's { shard, field, share }, empty when no hot range */
   bson_t paused;    /* 8.3+: the shards whose drain is paused (cmd_progress_read_paused) */
   int now_minutes;  /* local time of day in minutes, for the balancing window */
} ex_reading_t;

static void
ex_reading_init (ex_reading_t *r, const char *ns)
{
   bson_strncpy (r->ns, ns, sizeof r->ns);
   bson_init (&r->status);
   bson_init (&r->balancer);
   bson_init (&r->settings);
   bson_init (&r->coll);
   bson_init (&r->shards);
   bson_init (&r->per_shard);
   bson_init (&r->zones);
   bson_init (&r->failures);
   bson_init (&r->rounds);
   bson_init (&r->hot);
   bson_init (&r->paused);
   r->now_minutes = -1;
}

static void
ex_reading_destroy (ex_reading_t *r)
{
   bson_destroy (&r->status);
   bson_destroy (&r->balancer);
   bson_destroy (&r->settings);
   bson_destroy (&r->coll);
   bson_destroy (&r->shards);
   bson_destroy (&r->per_shard);
   bson_destroy (&r->zones);
   bson_destroy (&r->failures);
   bson_destroy (&r->rounds);
   bson_destroy (&r->paused);
   bson_destroy (&r->hot);
}

/* ---- the pure diagnosis ---- */

typedef struct {
   bson_t *out;
   uint32_t n;
} ex_findings_t;

/* One finding { rank, cause, detail, fix, stuck }: stuck (NULL: null) says why the chunks it concerns cannot move
 * as things stand (commands/stuck.h), fix is then the command that changes it. */
static void
ex_add_stuck (ex_findings_t *f, const char *cause, const char *detail, const char *fix, const char *stuck)
{
   char key[16];
   const char *k;
   bson_t d;
   bson_uint32_to_string (f->n, &k, key, sizeof key);
   f->n++;
   BSON_APPEND_DOCUMENT_BEGIN (f->out, k, &d);
   BSON_APPEND_INT32 (&d, "rank", (int32_t) f->n);
   BSON_APPEND_UTF8 (&d, "cause", cause);
   BSON_APPEND_UTF8 (&d, "detail", detail);
   if (fix)
      BSON_APPEND_UTF8 (&d, "fix", fix);
   else
      BSON_APPEND_NULL (&d, "fix");
   if (stuck)
      BSON_APPEND_UTF8 (&d, "stuck", stuck);
   else
      BSON_APPEND_NULL (&d, "stuck");
   bson_append_document_end (f->out, &d);
}

static void
ex_add (ex_findings_t *f, const char *cause, const char *detail, const char *fix)
{
   ex_add_stuck (f, cause, detail, fix, NULL);
}

/* A document rendered on one line as mongosh prints it ({ level: MinKey() }), so that a fix can be typed back, into
 * buf. */
static void
ex_json (const bson_iter_t *it, char *buf, size_t len)
{
   buf[0] = '\0';
   if (BSON_ITER_HOLDS_DOCUMENT (it))
      output_format_value_line (bson_iter_value ((bson_iter_t *) it), buf, len);
}

/* The number at field (chunks, jumbo) of shard id's row in per_shard, 0 when none. */
static double
ex_per_shard (const ex_reading_t *r, const char *id, const char *field)
{
   bson_iter_t p;
   bson_t ps;
   const char *pid;
   if (bson_iter_init (&p, &r->per_shard))
      while (bson_iter_next (&p))
         if (docget_iter_sub (&p, BSON_TYPE_DOCUMENT, &ps) && (pid = docget_utf8 (&ps, "_id", NULL)) &&
             !strcmp (pid, id))
            return docget_double (&ps, field, 0, NULL);
   return 0;
}

/* The zone ranges without a shard that could take their chunks (stuck.h), for draining shard id: one stuck finding
 * per range holding chunks on it. Returns how many. */
static int
ex_diag_dead_zones (const ex_reading_t *r, const char *id, ex_findings_t *fs)
{
   bson_iter_t it, v;
   int n = 0;
   if (!bson_iter_init (&it, &r->zones))
      return 0;
   while (bson_iter_next (&it)) {
      bson_t z;
      char zmin[256] = "", zmax[256] = "", path[200];
      stuck_t st;
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &z) || !docget_is (&z, "noRecipient", true))
         continue;
      bson_snprintf (path, sizeof path, "drainingChunks.%s", id);
      double chunks = docget_double (&z, path, 0, NULL);
      if (bson_iter_init_find (&v, &z, "min"))
         ex_json (&v, zmin, sizeof zmin);
      if (bson_iter_init_find (&v, &z, "max"))
         ex_json (&v, zmax, sizeof zmax);
      if (stuck_no_recipient (&r->shards, r->ns, docget_utf8 (&z, "zone", NULL), zmin, zmax, id, (int64_t) chunks,
                              &st)) {
         ex_add_stuck (fs, "noRecipient", st.why, st.fix, st.why);
         n++;
      }
   }
   return n;
}

/* Finding 3: draining shards that still hold chunks of the collection, stuck when no shard can take them. */
static void
ex_diag_draining (const ex_reading_t *r, ex_findings_t *fs)
{
   bson_iter_t it;
   char detail[1024];
   if (bson_iter_init (&it, &r->shards)) {
      while (bson_iter_next (&it)) {
         bson_t sd;
         const char *id;
         stuck_t st;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &sd) || !(id = docget_utf8 (&sd, "_id", NULL)) ||
             !docget_is (&sd, "draining", true))
            continue;
         double chunks = ex_per_shard (r, id, "chunks");
         if (chunks <= 0)
            continue;
         if (stuck_no_recipient (&r->shards, r->ns, NULL, NULL, NULL, id, (int64_t) chunks, &st)) {
            ex_add_stuck (fs, "noRecipient", st.why, st.fix, st.why);
            continue;
         }
         if (ex_diag_dead_zones (r, id, fs) || ex_per_shard (r, id, "jumbo") >= chunks)
            continue; /* stuck findings say it all (the jumbo one follows) */
         bson_snprintf (detail, sizeof detail,
                        "shard %s is draining (removeShard) and still holds %.0f chunk%s of the collection: the "
                        "balancer moves them off first and balances the rest after",
                        id, chunks, chunks == 1 ? "" : "s");
         ex_add (fs, "drainingShard", detail, "sh.progress() to follow the drain");
      }
   }
   /* 8.3+: a paused drain (stopShardDraining): not draining, so the balancer treats the shard as any other */
   if (bson_iter_init (&it, &r->paused)) {
      while (bson_iter_next (&it)) {
         bson_t pd;
         char fix[256];
         const char *id;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &pd) || !(id = docget_utf8 (&pd, "_id", NULL)))
            continue;
         double chunks = ex_per_shard (r, id, "chunks");
         if (chunks <= 0)
            continue;
         bson_snprintf (detail, sizeof detail,
                        "the drain of shard %s is paused (stopShardDraining) and it still holds %.0f chunk%s of the "
                        "collection: the balancer treats it as any other shard until the drain resumes",
                        id, chunks, chunks == 1 ? "" : "s");
         bson_snprintf (fix, sizeof fix, "db.adminCommand({startShardDraining: \"%s\"}) resumes the drain", id);
         ex_add (fs, "pausedDrain", detail, fix);
      }
   }
}

/* Finding 4: jumbo chunks, per shard (stuck on a draining shard: the balancer never moves them). */
static void
ex_diag_jumbo (const ex_reading_t *r, ex_findings_t *fs)
{
   bson_iter_t it;
   char detail[1024];
   char fix[1024];
   const char *ns = r->ns;
   if (bson_iter_init (&it, &r->per_shard)) {
      while (bson_iter_next (&it)) {
         bson_t d;
         bson_iter_t m;
         const char *id;
         double jumbo;
         char min[512] = "";
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) || !(id = docget_utf8 (&d, "_id", NULL)) ||
             (jumbo = docget_double (&d, "jumbo", 0, NULL)) <= 0)
            continue;
         if (bson_iter_init_find (&m, &d, "jumboMin"))
            ex_json (&m, min, sizeof min);
         bson_snprintf (detail, sizeof detail,
                        "%.0f jumbo chunk%s on %s (e.g. min %s): the balancer does not move jumbo chunks unless "
                        "attemptToBalanceJumboChunks is set",
                        jumbo, jumbo == 1 ? "" : "s", id, min[0] ? min : "?");
         bson_snprintf (fix, sizeof fix,
                        "sh.splitAt(\"%s\", <a key inside it>) if it holds more than one key value, then "
                        "db.adminCommand({clearJumboFlag: \"%s\", find: %s}); or let the balancer move it: "
                        "db.getSiblingDB(\"config\").settings.updateOne({_id: \"balancer\"}, {$set: "
                        "{attemptToBalanceJumboChunks: true}}, {upsert: true})",
                        ns, ns, min[0] ? min : "<min>");
         stuck_t st;
         bool on_draining =
            stuck_recipients (&r->shards, NULL, NULL, NULL, 0) > 0 && stuck_shard_draining (&r->shards, id);
         if (on_draining) {
            char to[128];
            stuck_recipients (&r->shards, NULL, id, to, sizeof to);
            stuck_jumbo_draining (id, (int64_t) jumbo, ns, min[0] ? min : NULL, to, &st);
            ex_add_stuck (fs, "jumboChunks", detail, st.fix, st.why);
         } else {
            ex_add (fs, "jumboChunks", detail, fix);
         }
      }
   }
}

/* Finding 5: zone violations and chunks straddling a zone boundary. */
static void
ex_diag_zones (const ex_reading_t *r, ex_findings_t *fs)
{
   bson_iter_t it;
   char detail[1024];
   char fix[1024];
   const char *ns = r->ns;
   if (bson_iter_init (&it, &r->zones)) {
      while (bson_iter_next (&it)) {
         bson_t z;
         bson_iter_t v;
         char zmin[256] = "", zmax[256] = "", at[256] = "";
         const char *zone;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &z) || !(zone = docget_utf8 (&z, "zone", NULL)))
            continue;
         if (bson_iter_init_find (&v, &z, "min"))
            ex_json (&v, zmin, sizeof zmin);
         if (bson_iter_init_find (&v, &z, "max"))
            ex_json (&v, zmax, sizeof zmax);
         double outside = docget_double (&z, "outside", 0, NULL);
         if (outside > 0) {
            const char *shard = docget_utf8 (&z, "outsideShard", NULL);
            bson_snprintf (detail, sizeof detail,
                           "%.0f chunk%s of zone %s [%s, %s) on %s, a shard outside the zone (zone violation)", outside,
                           outside == 1 ? "" : "s", zone, zmin, zmax, shard ? shard : "?");
            bson_snprintf (fix, sizeof fix,
                           "the balancer moves them when it runs; if no shard of the zone can take them: "
                           "sh.addShardToZone(\"<shard>\", \"%s\")",
                           zone);
            ex_add (fs, "zoneViolation", detail, fix);
         }
         if (bson_iter_init_find (&v, &z, "straddling") && BSON_ITER_HOLDS_ARRAY (&v)) {
            bson_iter_t a;
            if (bson_iter_recurse (&v, &a) && bson_iter_next (&a)) {
               ex_json (&a, at, sizeof at);
               bson_snprintf (detail, sizeof detail,
                              "a chunk straddles a boundary of zone %s [%s, %s): it cannot be placed in the zone "
                              "until it is split at the boundary",
                              zone, zmin, zmax);
               bson_snprintf (fix, sizeof fix, "sh.splitAt(\"%s\", %s)", ns, at);
               ex_add (fs, "chunkStraddlesZone", detail, fix);
            }
         }
      }
   }
}

/* Whether text names namespace ns as a whole word (not "app.orders2" for "app.orders"). */
static bool
ex_names_ns (const char *text, const char *ns)
{
   size_t n = strlen (ns);
   for (const char *p = text ? strstr (text, ns) : NULL; p; p = strstr (p + 1, ns)) {
      bool start = p == text || !(isalnum ((unsigned char) p[-1]) || p[-1] == '.' || p[-1] == '_');
      bool end = !(isalnum ((unsigned char) p[n]) || p[n] == '.' || p[n] == '_' || p[n] == '-');
      if (start && end)
         return true;
   }
   return false;
}

/* Whether text names some namespace: a word, a dot and a word that starts with a letter ("app.orders", not "3.4"). */
static bool
ex_names_any_ns (const char *text)
{
   for (const char *p = text ? strchr (text, '.') : NULL; p; p = strchr (p + 1, '.'))
      if (p > text && (isalnum ((unsigned char) p[-1]) || p[-1] == '_') &&
          (isalpha ((unsigned char) p[1]) || p[1] == '_')) {
         const char *w = p;
         while (w > text && (isalnum ((unsigned char) w[-1]) || w[-1] == '_' || w[-1] == '-'))
            w--;
         if (isalpha ((unsigned char) *w) || *w == '_')
            return true;
      }
   return false;
}

/* The same range failing again and again (at least STUCK_FAILURES of the recent failures share their min): stuck. */
static void
ex_diag_repeated (const ex_reading_t *r, ex_findings_t *fs)
{
   char mins[EX_RECENT][256];
   int counts[EX_RECENT];
   const char *errs[EX_RECENT];
   int n = 0;
   bson_iter_t it, m;
   if (!bson_iter_init (&it, &r->failures))
      return;
   while (bson_iter_next (&it) && n < EX_RECENT) {
      bson_t d;
      char min[256] = "";
      int k;
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) || !docget_iter (&d, "details.min", &m))
         continue;
      ex_json (&m, min, sizeof min);
      if (!min[0])
         continue;
      for (k = 0; k < n && strcmp (mins[k], min); k++)
         ;
      if (k == n) {
         bson_strncpy (mins[n], min, sizeof mins[n]);
         counts[n] = 0;
         errs[n] = docget_utf8 (&d, "details.errmsg", NULL);
         n++;
      }
      counts[k]++;
   }
   for (int k = 0; k < n; k++) {
      stuck_t st;
      char range[300];
      bson_snprintf (range, sizeof range, "from %s", mins[k]);
      if (stuck_repeated_failure (r->ns, range, counts[k], errs[k], &st))
         ex_add_stuck (fs, "repeatedMigrationFailure", st.why, st.fix, st.why);
   }
}

/* Finding 7: recent failed migrations and failed balancer rounds. */
static void
ex_diag_recent (const ex_reading_t *r, ex_findings_t *fs)
{
   bson_iter_t it;
   bson_iter_t f;
   char detail[1024];
   if (bson_iter_init (&it, &r->failures)) {
      while (bson_iter_next (&it)) {
         bson_t d;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d))
            continue;
         const char *err = docget_utf8 (&d, "details.errmsg", NULL), *from = docget_utf8 (&d, "details.from", NULL),
                    *to = docget_utf8 (&d, "details.to", NULL);
         char when[32] = "?";
         if (bson_iter_init_find (&f, &d, "time") && BSON_ITER_HOLDS_DATE_TIME (&f)) {
            time_t t = (time_t) (bson_iter_date_time (&f) / 1000);
            struct tm tm;
            gmtime_r (&t, &tm);
            strftime (when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
         }
         bson_snprintf (detail, sizeof detail, "migration %s -> %s failed at %s: %s", from ? from : "?", to ? to : "?",
                        when, err ? err : "aborted (no errmsg)");
         ex_add (fs, "failedMigration", detail,
                 "sh.migrationHistory({since: 24}) for the pattern; the donor's log "
                 "has the details");
      }
   }
   ex_diag_repeated (r, fs);
   /* a failed round concerns this collection when its error names it, or names no collection at all */
   int failed_rounds = 0;
   const char *last_round_err = NULL;
   if (bson_iter_init (&it, &r->rounds)) {
      while (bson_iter_next (&it)) {
         bson_t d;
         if (docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) && cmd_round_failed (&d, true) &&
             (ex_names_ns (docget_utf8 (&d, "details.errmsg", NULL), r->ns) ||
              !ex_names_any_ns (docget_utf8 (&d, "details.errmsg", NULL)))) {
            if (!failed_rounds++)
               last_round_err = docget_utf8 (&d, "details.errmsg", NULL);
         }
      }
   }
   if (failed_rounds) {
      bson_snprintf (detail, sizeof detail,
                     "%d of the last %d balancer rounds failed on this collection; the newest error: %s", failed_rounds,
                     EX_RECENT, last_round_err ? last_round_err : "(none given)");
      ex_add (fs, "failedBalancerRounds", detail, "sh.getRecentFailedRounds(); the config server primary's log");
   }
}

/* Appends to out { ns, balanced, verdict, chunksPerShard, findings: [ { rank, cause, detail, fix } ] }. */
static void
explain_diagnose (const ex_reading_t *r, bson_t *out)
{
   bson_t findings, per;
   bson_iter_t it;
   char detail[1024], fix[1024];
   const char *ns = r->ns;
   bool compliant = docget_is (&r->status, "balancerCompliant", true);
   const char *verdict = docget_utf8 (&r->status, "firstComplianceViolation", NULL);
   ex_findings_t fs = { &findings, 0 };

   BSON_APPEND_UTF8 (out, "ns", ns);
   BSON_APPEND_BOOL (out, "balanced", compliant);
   if (verdict)
      BSON_APPEND_UTF8 (out, "verdict", verdict);
   else
      BSON_APPEND_NULL (out, "verdict");
   BSON_APPEND_DOCUMENT_BEGIN (out, "chunksPerShard", &per);
   if (bson_iter_init (&it, &r->per_shard)) {
      while (bson_iter_next (&it)) {
         bson_t d;
         const char *id;
         if (docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) && (id = docget_utf8 (&d, "_id", NULL)))
            cmd_append_number (&per, id, docget_double (&d, "chunks", 0, NULL));
      }
   }
   bson_append_document_end (out, &per);
   BSON_APPEND_ARRAY_BEGIN (out, "findings", &findings);

   /* 1. the balancer itself */
   const char *mode = docget_utf8 (&r->balancer, "mode", NULL);
   stuck_t st;
   if ((mode && !strcmp (mode, "off")) || docget_is (&r->settings, "stopped", true)) {
      stuck_balancer (&r->balancer, &r->settings, -1, &st);
      ex_add_stuck (&fs, "balancerOff",
                    "the balancer is stopped (balancerStatus mode \"off\"): nothing moves in any collection", st.fix,
                    st.why);
   }
   if (stuck_window (&r->settings, r->now_minutes, &st)) {
      const char *start = docget_utf8 (&r->settings, "activeWindow.start", NULL),
                 *stop = docget_utf8 (&r->settings, "activeWindow.stop", NULL);
      bson_snprintf (detail, sizeof detail,
                     "outside the balancing window %s-%s (server-local time, compared with this machine's clock): "
                     "the balancer waits until %s",
                     start, stop, start);
      ex_add_stuck (&fs, "outsideWindow", detail, st.fix, st.why);
   }
   /* 2. the collection's own settings */
   if (docget_is (&r->coll, "noBalance", true)) {
      bson_snprintf (detail, sizeof detail,
                     "the collection is excluded from balancing (config.collections noBalance: true), so no chunk of "
                     "it moves");
      stuck_no_balance (ns, &st);
      ex_add_stuck (&fs, "noBalance", detail, st.fix, st.why);
   }
   if (docget_is (&r->coll, "allowMigrations", false) || docget_is (&r->coll, "permitMigrations", false)) {
      bson_snprintf (fix, sizeof fix, "sh.enableMigrations(\"%s\")", ns);
      const char *why = "migrations of the collection are not allowed (setAllowMigrations false: config.collections "
                        "allowMigrations/permitMigrations false)";
      ex_add_stuck (&fs, "migrationsNotAllowed", why, fix, why);
   }
   ex_diag_draining (r, &fs);
   ex_diag_jumbo (r, &fs);
   ex_diag_zones (r, &fs);
   /* 6. defragmentation */
   if (docget_is (&r->coll, "defragmentCollection", true) || (verdict && !strcmp (verdict, "defragmentingChunks"))) {
      const char *phase = docget_utf8 (&r->status, "details.currentPhase", NULL);
      bson_snprintf (detail, sizeof detail,
                     "the collection is being defragmented (phase %s): the balancer merges "
                     "and moves its chunks itself meanwhile",
                     phase ? phase : "?");
      ex_add (&fs, "defragmenting", detail, "sh.progress() to follow it");
   }
   if (!bson_empty (&r->hot)) {
      /* the hot range the dashboard flags, measured the same way (explain_hot.c) */
      bson_snprintf (detail, sizeof detail,
                     "hot range: the inserts go to the top of the key { %s: 1 }: the chunk whose max is MaxKey, on %s, "
                     "took %.0f%% of the collection's writes over a second (the balancer moves chunks, not writes)",
                     docget_utf8 (&r->hot, "field", NULL), docget_utf8 (&r->hot, "shard", NULL),
                     100.0 * docget_double (&r->hot, "share", 0, NULL));
      bson_snprintf (
         fix, sizeof fix,
         "sh.adviseShardKey(\"%s\") for a key that spreads inserts, then sh.reshardCollection(\"%s\", <that "
         "key>)",
         ns, ns);
      ex_add (&fs, "hotRange", detail, fix);
   }
   ex_diag_recent (r, &fs);
   if (!compliant && fs.n == 0) {
      bson_snprintf (detail, sizeof detail,
                     "the server reports %s and nothing holds the balancer back: it should act on its next rounds",
                     verdict ? verdict : "the collection not balanced");
      ex_add (&fs, "pendingBalancing", detail, "sh.isBalancerRunning(); sh.progress()");
   }
   bson_append_array_end (out, &findings);
}

/* ---- requests ---- */

static bool
build_explain_balance (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t *cmd, filter, pipeline, stage, match, ors, o, cond, sort;
   if (!args_check (call, 0, ARG_STRING, true, "Shard", "explainBalance", err))
      return false;
   const char *ns = args_str (call, 0);
   BSON_APPEND_UTF8 (sh_requests_add (out, "admin", CONN_ADMIN), "balancerCollectionStatus", ns);
   BSON_APPEND_INT32 (sh_requests_add (out, "admin", CONN_READ), "balancerStatus", 1);
   cmd_append_find_id (sh_requests_add (out, "config", CONN_READ), "settings", "balancer");
   cmd_append_find_id (sh_requests_add (out, "config", CONN_READ), "collections", ns);
   cmd = sh_requests_add (out, "config", CONN_READ);
   BSON_APPEND_UTF8 (cmd, "find", "shards");
   cmd_append_empty (cmd, "filter");
   cmd = sh_requests_add (out, "config", CONN_READ);
   BSON_APPEND_UTF8 (cmd, "find", "tags");
   BSON_APPEND_DOCUMENT_BEGIN (cmd, "filter", &filter);
   BSON_APPEND_UTF8 (&filter, "ns", ns);
   bson_append_document_end (cmd, &filter);
   BSON_APPEND_DOCUMENT_BEGIN (cmd, "sort", &sort);
   BSON_APPEND_INT32 (&sort, "min", 1);
   bson_append_document_end (cmd, &sort);
   BSON_APPEND_INT32 (cmd, "limit", EX_MAX_ZONES);
   /* the collection's failed migrations, newest first */
   cmd = sh_requests_add (out, "config", CONN_READ);
   BSON_APPEND_UTF8 (cmd, "aggregate", "changelog");
   BSON_APPEND_ARRAY_BEGIN (cmd, "pipeline", &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "0", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$match", &match);
   BSON_APPEND_UTF8 (&match, "what", "moveChunk.from");
   BSON_APPEND_UTF8 (&match, "ns", ns);
   BSON_APPEND_ARRAY_BEGIN (&match, "$or", &ors);
   BSON_APPEND_DOCUMENT_BEGIN (&ors, "0", &o);
   BSON_APPEND_DOCUMENT_BEGIN (&o, "details.errmsg", &cond);
   BSON_APPEND_BOOL (&cond, "$exists", true);
   bson_append_document_end (&o, &cond);
   bson_append_document_end (&ors, &o);
   BSON_APPEND_DOCUMENT_BEGIN (&ors, "1", &o);
   BSON_APPEND_DOCUMENT_BEGIN (&o, "details.note", &cond);
   BSON_APPEND_UTF8 (&cond, "$ne", "success");
   bson_append_document_end (&o, &cond);
   bson_append_document_end (&ors, &o);
   bson_append_array_end (&match, &ors);
   bson_append_document_end (&stage, &match);
   bson_append_document_end (&pipeline, &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "1", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$sort", &sort);
   BSON_APPEND_INT32 (&sort, "time", -1);
   bson_append_document_end (&stage, &sort);
   bson_append_document_end (&pipeline, &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "2", &stage);
   BSON_APPEND_INT32 (&stage, "$limit", EX_RECENT);
   bson_append_document_end (&pipeline, &stage);
   bson_append_array_end (cmd, &pipeline);
   cmd_append_empty (cmd, "cursor");
   cmd_append_actionlog_find (sh_requests_add (out, "config", CONN_READ));
   return true;
}

/* ---- gathering ---- */

/* { aggregate: "chunks", pipeline: [ { $match: <chunks match> }, { $group: { _id: "$shard", chunks: { $sum: 1 },
 * jumbo: { $sum: { $cond: [ { $eq: [ "$jumbo", true ] }, 1, 0 ] } }, jumboMin: { $max: { $cond: [ { $eq: [ "$jumbo",
 * true ] }, "$min", null ] } } } } ], cursor: {} } */
static void
ex_append_per_shard (bson_t *cmd, const bson_t *coll)
{
   bson_t pipeline, stage, match, group, acc, cnd, arr, eq, eqa;
   BSON_APPEND_UTF8 (cmd, "aggregate", "chunks");
   BSON_APPEND_ARRAY_BEGIN (cmd, "pipeline", &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "0", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$match", &match);
   cmd_append_chunks_match (&match, coll);
   bson_append_document_end (&stage, &match);
   bson_append_document_end (&pipeline, &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "1", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$group", &group);
   BSON_APPEND_UTF8 (&group, "_id", "$shard");
   BSON_APPEND_DOCUMENT_BEGIN (&group, "chunks", &acc);
   BSON_APPEND_INT32 (&acc, "$sum", 1);
   bson_append_document_end (&group, &acc);
   for (int k = 0; k < 2; k++) {
      BSON_APPEND_DOCUMENT_BEGIN (&group, k ? "jumboMin" : "jumbo", &acc);
      BSON_APPEND_DOCUMENT_BEGIN (&acc, k ? "$max" : "$sum", &cnd);
      BSON_APPEND_ARRAY_BEGIN (&cnd, "$cond", &arr);
      BSON_APPEND_DOCUMENT_BEGIN (&arr, "0", &eq);
      BSON_APPEND_ARRAY_BEGIN (&eq, "$eq", &eqa);
      BSON_APPEND_UTF8 (&eqa, "0", "$jumbo");
      BSON_APPEND_BOOL (&eqa, "1", true);
      bson_append_array_end (&eq, &eqa);
      bson_append_document_end (&arr, &eq);
      if (k) {
         BSON_APPEND_UTF8 (&arr, "1", "$min");
         BSON_APPEND_NULL (&arr, "2");
      } else {
         BSON_APPEND_INT32 (&arr, "1", 1);
         BSON_APPEND_INT32 (&arr, "2", 0);
      }
      bson_append_array_end (&cnd, &arr);
      bson_append_document_end (&acc, &cnd);
      bson_append_document_end (&group, &acc);
   }
   bson_append_document_end (&stage, &group);
   bson_append_document_end (&pipeline, &stage);
   bson_append_array_end (cmd, &pipeline);
   cmd_append_empty (cmd, "cursor");
}

static bool
exec_explain_balance (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   sh_requests_t reqs = { .n = 0 };
   ex_reading_t r;
   bson_t docs, out = BSON_INITIALIZER;
   bool ok = false;

   ex_reading_init (&r, args_str (call, 0) ? args_str (call, 0) : "");
   bson_init (&docs);
   if (!build_explain_balance (call, &reqs, err))
      goto done;
   /* the server's verdict (an unsharded collection fails here with the server's 118) */
   bson_destroy (&r.status);
   if (!conn_run (ctx, reqs.v[0].db, &reqs.v[0].cmd, reqs.v[0].path, &r.status, err))
      goto done;
   bson_destroy (&r.balancer);
   if (!conn_run (ctx, reqs.v[1].db, &reqs.v[1].cmd, reqs.v[1].path, &r.balancer, err))
      goto done;
   bson_t *firsts[] = { &r.settings, &r.coll };
   for (int i = 0; i < 2; i++) {
      bson_t d;
      bson_destroy (&docs);
      if (!conn_run_docs (ctx, reqs.v[2 + i].db, &reqs.v[2 + i].cmd, reqs.v[2 + i].path, 1, &docs, NULL, err))
         goto done;
      if (cmd_first_doc (&docs, &d)) {
         bson_destroy (firsts[i]);
         bson_copy_to (&d, firsts[i]);
      }
   }
   bson_t tags = BSON_INITIALIZER;
   bson_t *lists[] = { &r.shards, &tags, &r.failures, &r.rounds };
   for (int i = 0; i < 4; i++) {
      bson_destroy (lists[i]); /* conn_run_docs initialises it again in every case */
      if (!conn_run_docs (ctx, reqs.v[4 + i].db, &reqs.v[4 + i].cmd, reqs.v[4 + i].path, 0, lists[i], NULL, err)) {
         bson_destroy (&tags);
         goto done;
      }
   }
   if (!cmd_dry_run (ctx) && !bson_empty (&r.coll)) {
      bson_t cmd = BSON_INITIALIZER;
      ex_append_per_shard (&cmd, &r.coll);
      bson_destroy (&r.per_shard);
      bool ran = conn_run_docs (ctx, "config", &cmd, CONN_READ, 0, &r.per_shard, NULL, err);
      bson_destroy (&cmd);
      if (!ran) {
         bson_destroy (&tags);
         goto done;
      }
      bson_iter_t it;
      uint32_t i = 0;
      int v[3];
      sh_error_t ignored;
      sh_error_clear (&ignored);
      if (conn_server_version (ctx, v, &ignored) && dispatch_version_at_least (v, "8.3")) {
         bson_destroy (&r.paused);
         if (!cmd_progress_read_paused (ctx, &r.paused, err)) {
            bson_destroy (&tags);
            goto done;
         }
      }
      bson_destroy (&r.hot);
      if (!explain_hot_range (ctx, r.ns, &r.coll, (size_t) bson_count_keys (&r.shards), &r.hot, err)) {
         bson_destroy (&tags);
         goto done;
      }
      bson_iter_init (&it, &tags);
      while (bson_iter_next (&it) && i < EX_MAX_ZONES) {
         bson_t tag;
         if (docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &tag) &&
             !explain_probe_zone (ctx, &r.coll, &r.shards, &tag, &r.zones, i++, err)) {
            bson_destroy (&tags);
            goto done;
         }
      }
   }
   bson_destroy (&tags);
   if (cmd_dry_run (ctx)) {
      ok = true;
      goto done;
   }
   {
      time_t t = time (NULL);
      struct tm tm;
      localtime_r (&t, &tm);
      r.now_minutes = tm.tm_hour * 60 + tm.tm_min;
   }
   explain_diagnose (&r, &out);
   if (ctx->out.mode == OUTPUT_JSON || res->as_value) {
      sh_result_set_doc (res, &out); /* --json, or a JavaScript call: the document is the value */
   } else {
      bson_iter_t it, f;
      const char *verdict = docget_utf8 (&out, "verdict", NULL);
      bson_string_t *o = sh_result_text (res);
      bson_string_append_printf (o, "%s: %s", r.ns, docget_is (&out, "balanced", true) ? "balanced" : "not balanced");
      if (verdict)
         bson_string_append_printf (o, " (balancerCollectionStatus: %s)", verdict);
      bson_string_append_printf (o, "\n  chunks per shard:");
      if (bson_iter_init_find (&it, &out, "chunksPerShard") && bson_iter_recurse (&it, &f))
         while (bson_iter_next (&f))
            bson_string_append_printf (o, " %s %lld", bson_iter_key (&f), (long long) bson_iter_as_int64 (&f));
      bson_string_append_c (o, '\n');
      if (bson_iter_init_find (&it, &out, "findings") && bson_iter_recurse (&it, &f)) {
         while (bson_iter_next (&f)) {
            bson_t d;
            if (!docget_iter_sub (&f, BSON_TYPE_DOCUMENT, &d))
               continue;
            bson_string_append_printf (o, "  %lld. %s%s: %s\n", (long long) docget_double (&d, "rank", 0, NULL),
                                       docget_utf8 (&d, "stuck", NULL) ? "STUCK " : "", docget_utf8 (&d, "cause", NULL),
                                       docget_utf8 (&d, "detail", NULL));
            if (docget_utf8 (&d, "fix", NULL))
               bson_string_append_printf (o, "     fix: %s\n", docget_utf8 (&d, "fix", NULL));
         }
      }
   }
   ok = true;
done:
   bson_destroy (&docs);
   bson_destroy (&out);
   ex_reading_destroy (&r);
   sh_requests_destroy (&reqs);
   return ok;
}

const sh_cmd_t cmd_sh_explain_balance = {
   .name = "sh.explainBalance",
   .usage = "sh.explainBalance(namespace)",
   .summary = "Why a collection is or is not balanced: the server's verdict, then each cause ranked, with the "
              "command that would change it",
   .sends = "admin { balancerCollectionStatus: <ns> }, { balancerStatus: 1 }; config find settings { _id: "
            "\"balancer\" }, collections { _id: <ns> }, shards, tags { ns } (first 10 by min), aggregate changelog "
            "(the last 5 failed moveChunk.from of <ns>), find actionlog (the last 5 balancer rounds); then config "
            "aggregate chunks of <ns> grouped by shard (counts and jumbo) and, per zone range, two bounded finds "
            "(chunks straddling its bounds) and one grouped count (chunks inside it on shards outside the zone), and "
            "for a zone no shard can take one grouped count of its chunks; for a ranged key, twice one second apart, "
            "<db> aggregate [ { $collStats: { latencyStats: {} } } ] and a find of the highest key, then config find "
            "chunks sorted by max (the hot range)",
   .example = "sh.explainBalance(\"app.events\")",
   .flags = CMD_READONLY | CMD_MONGOS_CHECK | CMD_EXTRA,
   .build = build_explain_balance,
   .exec = exec_explain_balance,
   .arg_kinds = "ns",
};
