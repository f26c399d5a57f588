/* sh.progress()'s pure computation (progress.h): a reading of $currentOp rows and config.* figures in, the list of
 * long operations out, with the server's known traps turned into caveats instead of wrong numbers. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "commands/dispatch.h"
#include "commands/progress.h"
#include "commands/stuck.h"
#include "shell/core/output.h"
#include "shell/lib/checked.h"
#include "shell/lib/docget.h"

#define PG_MAX_GROUPS 64
#define PG_MAX_SHARDS 64
#define PG_RATE_MAX_AGE_MS (10 * 60 * 1000) /* an older previous reading gives no rate */

void
progress_reading_init (progress_reading_t *r)
{
   r->at_ms = 0;
   r->version[0] = r->version[1] = r->version[2] = 0;
   bson_init (&r->ops);
   bson_init (&r->coordinators);
   bson_init (&r->drains);
   bson_init (&r->paused);
   bson_init (&r->defrags);
   bson_init (&r->shards);
   bson_init (&r->balancer);
   bson_init (&r->settings);
   r->now_minutes = -1;
   r->reads = 0;
   bson_init (&r->stalls);
}

void
progress_reading_destroy (progress_reading_t *r)
{
   bson_destroy (&r->ops);
   bson_destroy (&r->coordinators);
   bson_destroy (&r->drains);
   bson_destroy (&r->paused);
   bson_destroy (&r->defrags);
   bson_destroy (&r->shards);
   bson_destroy (&r->balancer);
   bson_destroy (&r->settings);
   bson_destroy (&r->stalls);
}

/* ---- small readers ---- */

/* The number at path; false when absent or not a number. */
static bool
pg_num (const bson_t *doc, const char *path, double *out)
{
   bson_iter_t it, f;
   if (!bson_iter_init (&it, doc) || !bson_iter_find_descendant (&it, path, &f) || !BSON_ITER_HOLDS_NUMBER (&f))
      return false;
   *out = bson_iter_as_double (&f);
   return true;
}

static double
pg_num0 (const bson_t *doc, const char *path)
{
   double v = 0;
   return pg_num (doc, path, &v) ? v : 0;
}

/* "migration <ns> <from> -> <to> <min>" of a migration row, into key; false when the row is not a migration. */
static bool
pg_migration_key (const bson_t *row, char *key, size_t len)
{
   const char *ns = docget_utf8 (row, "command._shardsvrMoveRange", NULL);
   const char *from, *to;
   char min[256] = "";
   bson_iter_t it, f;
   if (!ns)
      ns = docget_utf8 (row, "command.moveChunk", NULL);
   if (!ns)
      return false;
   from = docget_utf8 (row, "command.fromShard", NULL);
   if (!from)
      from = docget_utf8 (row, "shard", NULL);
   to = docget_utf8 (row, "command.toShard", NULL);
   if (bson_iter_init (&it, row) && bson_iter_find_descendant (&it, "command.min", &f))
      output_format_value_line (bson_iter_value (&f), min, sizeof min);
   bson_snprintf (key, len, "migration %s %s -> %s %s", ns, from ? from : "?", to ? to : "?", min);
   return true;
}

static bool
pg_stall_get (const progress_reading_t *r, const char *key, int *n, int64_t *since);

/* A stall of key in now long enough to call the operation stuck (stuck.h), into st. */
static bool
pg_stalled (const progress_reading_t *now, const char *key, stuck_t *st)
{
   int n = 0;
   int64_t since = 0;
   stuck_clear (st);
   return pg_stall_get (now, key, &n, &since) && n >= PROGRESS_STALL_READINGS &&
          now->at_ms - since >= PROGRESS_STALL_SECS * 1000 &&
          stuck_no_progress (n, (double) (now->at_ms - since) / 1000.0, st);
}

/* ---- resharding-like operations: rows grouped by namespace ---- */

typedef struct {
   char ns[256];
   char provenance[32];
   char donors[PG_MAX_SHARDS][64];
   char recipients[PG_MAX_SHARDS][64];
   size_t ndonors, nrecipients, nrecipients_state;
   char state[48];              /* the first recipient's (else donor's) state */
   double approx_bytes, copied; /* summed over the recipients */
   double copy_secs;            /* the longest totalCopyTimeElapsedSecs */
   double eta;                  /* the longest recipient estimate; < 0: none */
   char no_estimate[256];       /* recipients copying without an estimate */
   char no_data[256];           /* recipients with an even share that copied nothing while others did */
   bool any_copied;
} pg_group_t;

static void
pg_list_add (char *list, size_t len, const char *shard)
{
   size_t used = strlen (list);
   if (used + strlen (shard) + 3 < len)
      snprintf (list + used, len - used, "%s%s", used ? ", " : "", shard);
}

static bool
pg_in (char (*names)[64], size_t n, const char *name)
{
   for (size_t i = 0; i < n; i++)
      if (!strcmp (names[i], name))
         return true;
   return false;
}

/* Groups the resharding rows of r into groups (at most PG_MAX_GROUPS); returns how many. */
static size_t
pg_group_reshards (const bson_t *ops, pg_group_t *groups)
{
   bson_iter_t it;
   size_t n = 0;
   if (!bson_iter_init (&it, ops))
      return 0;
   while (bson_iter_next (&it)) {
      bson_t row;
      bson_iter_t f;
      const char *ns, *shard, *desc;
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &row) ||
          !docget_iter (&row, "originatingCommand.reshardCollection", &f))
         continue;
      ns = docget_utf8 (&row, "ns", NULL);
      shard = docget_utf8 (&row, "shard", NULL);
      desc = docget_utf8 (&row, "desc", NULL);
      if (!ns || !shard || !desc)
         continue;
      pg_group_t *g = NULL;
      for (size_t i = 0; i < n && !g; i++)
         if (!strcmp (groups[i].ns, ns))
            g = &groups[i];
      if (!g) {
         if (n == PG_MAX_GROUPS)
            continue;
         g = &groups[n++];
         memset (g, 0, sizeof *g);
         bson_strncpy (g->ns, ns, sizeof g->ns);
         g->eta = -1;
      }
      const char *prov = docget_utf8 (&row, "provenance", NULL);
      if (prov && !g->provenance[0])
         bson_strncpy (g->provenance, prov, sizeof g->provenance);
      if (strstr (desc, "Recipient")) {
         const char *state = docget_utf8 (&row, "recipientState", NULL);
         double approx = pg_num0 (&row, "approxBytesToCopy"), copied = pg_num0 (&row, "bytesCopied"), eta = -1;
         if (g->nrecipients < PG_MAX_SHARDS && !pg_in (g->recipients, g->nrecipients, shard))
            bson_strncpy (g->recipients[g->nrecipients++], shard, 64);
         if (state && !g->nrecipients_state++)
            bson_strncpy (g->state, state, sizeof g->state);
         g->approx_bytes += approx;
         g->copied += copied;
         g->any_copied = g->any_copied || copied > 0;
         double cs = pg_num0 (&row, "totalCopyTimeElapsedSecs");
         g->copy_secs = cs > g->copy_secs ? cs : g->copy_secs;
         bool copying = state && (!strcmp (state, "cloning") || !strcmp (state, "applying"));
         if (pg_num (&row, "remainingOperationTimeEstimatedSecs", &eta) && eta >= 0) {
            g->eta = eta > g->eta ? eta : g->eta;
         } else if (copying && copied > 0) {
            pg_list_add (g->no_estimate, sizeof g->no_estimate, shard);
         }
         if (copying && approx > 0 && copied == 0)
            pg_list_add (g->no_data, sizeof g->no_data, shard);
      } else if (strstr (desc, "Donor")) {
         const char *state = docget_utf8 (&row, "donorState", NULL);
         if (g->ndonors < PG_MAX_SHARDS && !pg_in (g->donors, g->ndonors, shard))
            bson_strncpy (g->donors[g->ndonors++], shard, 64);
         if (state && !g->nrecipients_state && !g->state[0])
            bson_strncpy (g->state, state, sizeof g->state);
      }
   }
   return n;
}

/* The coordinator document of ns in coordinators, if any. */
static bool
pg_coordinator (const bson_t *coordinators, const char *ns, bson_t *doc)
{
   bson_iter_t it;
   if (!bson_iter_init (&it, coordinators))
      return false;
   while (bson_iter_next (&it)) {
      const char *cns;
      if (docget_iter_sub (&it, BSON_TYPE_DOCUMENT, doc) && (cns = docget_utf8 (doc, "ns", NULL)) && !strcmp (cns, ns))
         return true;
   }
   return false;
}

static const char *
pg_reshard_type (const char *provenance)
{
   if (!strcmp (provenance, "moveCollection") || !strcmp (provenance, "balancerMoveCollection"))
      return "moveCollection";
   if (!strcmp (provenance, "unshardCollection"))
      return "unshardCollection";
   return "reshardCollection";
}

/* ---- output ---- */

typedef struct {
   const char *type;
   const char *ns;
   const char *shard;
   const char *phase;
   double percent, bytes_per_sec, eta; /* < 0: null */
   const char *caveat;                 /* NULL or "": null */
   const char *stuck, *fix;            /* why it cannot finish as things stand, what changes it; NULL: null */
} pg_op_t;

static void
pg_append (bson_t *operations, uint32_t *n, const pg_op_t *op)
{
   char key[16];
   const char *k;
   bson_t d;
   bson_uint32_to_string ((*n)++, &k, key, sizeof key);
   BSON_APPEND_DOCUMENT_BEGIN (operations, k, &d);
   BSON_APPEND_UTF8 (&d, "type", op->type);
   BSON_APPEND_UTF8 (&d, "ns", op->ns ? op->ns : "");
   BSON_APPEND_UTF8 (&d, "shard", op->shard ? op->shard : "");
   BSON_APPEND_UTF8 (&d, "phase", op->phase ? op->phase : "");
   if (op->percent >= 0)
      BSON_APPEND_DOUBLE (&d, "percent", floor (op->percent * 10.0 + 0.5) / 10.0);
   else
      BSON_APPEND_NULL (&d, "percent");
   if (op->bytes_per_sec >= 0)
      BSON_APPEND_DOUBLE (&d, "bytesPerSec", floor (op->bytes_per_sec + 0.5));
   else
      BSON_APPEND_NULL (&d, "bytesPerSec");
   if (op->stuck && op->stuck[0])
      BSON_APPEND_NULL (&d, "etaSec"); /* it will not end as things stand */
   else if (op->eta >= 0 && op->eta < 2147483647.0)
      BSON_APPEND_INT32 (&d, "etaSec", (int32_t) (op->eta + 0.5)); /* a plain number in JavaScript, not a Long */
   else if (op->eta >= 0 && op->eta < 9.2e18)
      BSON_APPEND_INT64 (&d, "etaSec", (int64_t) (op->eta + 0.5));
   else
      BSON_APPEND_NULL (&d, "etaSec");
   if (op->caveat && op->caveat[0])
      BSON_APPEND_UTF8 (&d, "caveat", op->caveat);
   else
      BSON_APPEND_NULL (&d, "caveat");
   if (op->stuck && op->stuck[0]) {
      BSON_APPEND_UTF8 (&d, "stuck", op->stuck);
      BSON_APPEND_UTF8 (&d, "fix", op->fix ? op->fix : "");
   } else {
      BSON_APPEND_NULL (&d, "stuck");
      BSON_APPEND_NULL (&d, "fix");
   }
   bson_append_document_end (operations, &d);
}

static void
pg_caveat (char *buf, size_t len, const char *fmt, const char *arg)
{
   size_t used = strlen (buf);
   if (used + 3 >= len)
      return;
   if (used)
      used += (size_t) snprintf (buf + used, len - used, "; ");
   if (used < len)
      snprintf (buf + used, len - used, fmt, arg);
}

/* The rate of one resharding: from the previous reading when it saw the same operation recently, else the average
 * over the copy so far (bytesCopied / totalCopyTimeElapsedSecs); < 0 when neither is known. */
static double
pg_reshard_rate (const pg_group_t *g, const progress_reading_t *now, const progress_reading_t *prev)
{
   if (prev && prev->at_ms > 0 && now->at_ms > prev->at_ms && now->at_ms - prev->at_ms <= PG_RATE_MAX_AGE_MS) {
      pg_group_t *pgroups = bson_malloc0 (PG_MAX_GROUPS * sizeof *pgroups);
      size_t pn = pg_group_reshards (&prev->ops, pgroups);
      double rate = -1;
      for (size_t i = 0; i < pn && rate < 0; i++) {
         if (!strcmp (pgroups[i].ns, g->ns) && g->copied >= pgroups[i].copied && pgroups[i].any_copied)
            rate = (g->copied - pgroups[i].copied) * 1000.0 / (double) (now->at_ms - prev->at_ms);
      }
      bson_free (pgroups);
      if (rate >= 0)
         return rate;
   }
   if (g->copy_secs > 0 && g->copied > 0)
      return g->copied / g->copy_secs;
   return -1;
}

static void
pg_reshards (const progress_reading_t *now, const progress_reading_t *prev, bson_t *out, uint32_t *n)
{
   pg_group_t *groups = bson_malloc0 (PG_MAX_GROUPS * sizeof *groups);
   size_t ng = pg_group_reshards (&now->ops, groups);
   for (size_t i = 0; i < ng; i++) {
      pg_group_t *g = &groups[i];
      bson_t coord;
      char shard[512] = "", caveat[1024] = "", phase[64];
      bool have_coord = pg_coordinator (&now->coordinators, g->ns, &coord);
      const char *cstate = have_coord ? docget_utf8 (&coord, "state", NULL) : NULL;
      const char *cprov = have_coord ? docget_utf8 (&coord, "provenance", NULL) : NULL;
      pg_op_t op = { .ns = g->ns, .percent = -1, .bytes_per_sec = -1, .eta = -1 };

      op.type = pg_reshard_type (g->provenance[0] ? g->provenance : cprov ? cprov : "");
      for (size_t d = 0; d < g->ndonors; d++)
         pg_list_add (shard, sizeof shard, g->donors[d]);
      if (g->nrecipients) {
         size_t used = strlen (shard);
         snprintf (shard + used, sizeof shard - used, "%s", used ? " -> " : "-> ");
         char rlist[256] = "";
         for (size_t r = 0; r < g->nrecipients; r++)
            pg_list_add (rlist, sizeof rlist, g->recipients[r]);
         used = strlen (shard);
         snprintf (shard + used, sizeof shard - used, "%s", rlist);
      }
      op.shard = shard;
      bson_strncpy (phase, cstate ? cstate : g->state, sizeof phase);
      op.phase = phase;
      bool past_copy = !strcmp (phase, "applying") || !strcmp (phase, "blocking-writes") ||
                       !strcmp (phase, "committing") || !strcmp (phase, "strict-consistency") ||
                       !strcmp (phase, "donating-oplog-entries");
      if (g->approx_bytes > 0)
         op.percent = g->copied >= g->approx_bytes ? 100.0 : g->copied * 100.0 / g->approx_bytes;
      else if (past_copy)
         op.percent = 100.0;
      else if (g->nrecipients)
         op.percent = 0.0;
      if (!past_copy)
         op.bytes_per_sec = pg_reshard_rate (g, now, prev);
      if (!g->nrecipients) {
         pg_caveat (caveat, sizeof caveat, "%s",
                    "no recipient row is visible: only recipients report copy figures "
                    "and time remaining");
      }
      if (g->no_data[0] && g->any_copied) {
         pg_caveat (caveat, sizeof caveat,
                    "recipient(s) %s copied nothing of their approxBytesToCopy (an even share the coordinator "
                    "assigns, whatever the new key ranges hold): percent is summed over all recipients",
                    g->no_data);
      }
      if (g->no_data[0] && g->any_copied && g->copy_secs > 0 && !past_copy) {
         /* the recipients' own estimates assume each copies its even share, so the ones with the data estimate too
          * little: the server's formula (copy time × (2 × to copy / copied − 1)) on the sums instead */
         double copied = g->copied < g->approx_bytes ? g->copied : g->approx_bytes;
         op.eta = g->copy_secs * (2.0 * g->approx_bytes / copied - 1.0);
         pg_caveat (caveat, sizeof caveat, "%s",
                    "etaSec from the summed figures: the recipients' own estimates assume even shares");
      } else if (g->eta >= 0) {
         op.eta = g->eta;
         if (g->no_estimate[0])
            pg_caveat (caveat, sizeof caveat,
                       "recipient(s) %s report no time estimate (lost after a failover): etaSec from the others",
                       g->no_estimate);
      } else if (g->no_estimate[0]) {
         pg_caveat (caveat, sizeof caveat,
                    "no recipient reports a time estimate (lost after a failover on %s): etaSec unknown",
                    g->no_estimate);
      } else if (!past_copy && g->nrecipients) {
         pg_caveat (caveat, sizeof caveat, "%s", "no estimate before the recipients have copied data");
      }
      op.caveat = caveat;
      char key[600];
      stuck_t st;
      bson_snprintf (key, sizeof key, "reshard %s", g->ns);
      if (!past_copy && pg_stalled (now, key, &st)) {
         op.stuck = st.why;
         op.fix = st.fix;
      }
      pg_append (out, n, &op);
   }
   bson_free (groups);
}

/* ---- range migrations ---- */

static void
pg_migrations (const progress_reading_t *now, bson_t *out, uint32_t *n)
{
   bson_iter_t it;
   if (!bson_iter_init (&it, &now->ops))
      return;
   while (bson_iter_next (&it)) {
      bson_t row;
      const char *ns, *from, *to, *msg;
      char shard[160], phase[64] = "";
      int k = 0, of = 0;
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &row))
         continue;
      ns = docget_utf8 (&row, "command._shardsvrMoveRange", NULL);
      if (!ns)
         ns = docget_utf8 (&row, "command.moveChunk", NULL);
      if (!ns)
         continue;
      from = docget_utf8 (&row, "command.fromShard", NULL);
      if (!from)
         from = docget_utf8 (&row, "shard", NULL);
      to = docget_utf8 (&row, "command.toShard", NULL);
      msg = docget_utf8 (&row, "msg", NULL);
      snprintf (shard, sizeof shard, "%s -> %s", from ? from : "?", to ? to : "?");
      pg_op_t op = { .type = "migration", .ns = ns, .shard = shard, .percent = -1, .bytes_per_sec = -1, .eta = -1 };
      if (msg && sscanf (msg, "step %d of %d", &k, &of) == 2 && of > 0 && k >= 1 && k <= of) {
         snprintf (phase, sizeof phase, "step %d of %d", k, of);
         op.percent = (double) (k - 1) * 100.0 / (double) of;
      } else if (msg) {
         bson_strncpy (phase, msg, sizeof phase);
      }
      op.phase = phase;
      op.caveat = "percent from the donor's step count; a migration reports no byte counts, so no rate or time left";
      char key[600];
      stuck_t st;
      if (pg_migration_key (&row, key, sizeof key) && pg_stalled (now, key, &st)) {
         op.stuck = st.why;
         op.fix = st.fix;
      }
      pg_append (out, n, &op);
   }
}

/* ---- draining shards and config-shard transitions ---- */

/* Appends "; " and text to buf (or text alone when buf is empty). */
static void
pg_join (char *buf, size_t len, const char *text)
{
   size_t used = strlen (buf);
   if (used + 3 < len)
      bson_snprintf (buf + used, len - used, "%s%s", used ? "; " : "", text);
}

/* Why draining shard d (a drains document) cannot finish as things stand (stuck.h), into why and fix ("" when it
 * can): the balancer stopped or outside its window, every other shard draining, chunks of a zone no shard can take,
 * jumbo chunks, or databases still to movePrimary once no chunk is left. */
static void
pg_drain_stuck (const progress_reading_t *now, const bson_t *d, const char *shard, char *why, char *fix, size_t len)
{
   stuck_t st;
   bson_iter_t it;
   double left = pg_num0 (d, "chunks"), dbs = pg_num0 (d, "dbs"), jumbo = pg_num0 (d, "jumbo");
   why[0] = fix[0] = '\0';
   if (left > 0 && stuck_balancer (&now->balancer, &now->settings, now->now_minutes, &st)) {
      pg_join (why, len, st.why);
      pg_join (fix, len, st.fix);
      return;
   }
   if (left > 0 && !bson_empty (&now->shards) &&
       stuck_no_recipient (&now->shards, NULL, NULL, NULL, NULL, shard, ck_from_double (left), &st)) {
      pg_join (why, len, st.why);
      pg_join (fix, len, st.fix);
      return;
   }
   if (bson_iter_init_find (&it, d, "stuckZones") && BSON_ITER_HOLDS_ARRAY (&it) && bson_iter_recurse (&it, &it)) {
      while (bson_iter_next (&it)) {
         bson_t z;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &z) ||
             !stuck_no_recipient (&now->shards, docget_utf8 (&z, "ns", NULL), docget_utf8 (&z, "zone", NULL),
                                  docget_utf8 (&z, "min", NULL), docget_utf8 (&z, "max", NULL), shard,
                                  ck_from_double (pg_num0 (&z, "chunks")), &st))
            continue;
         pg_join (why, len, st.why);
         pg_join (fix, len, st.fix);
      }
   }
   if (jumbo > 0) {
      char to[128];
      stuck_recipients (&now->shards, NULL, shard, to, sizeof to);
      stuck_jumbo_draining (shard, ck_from_double (jumbo), docget_utf8 (d, "jumboNs", NULL),
                            docget_utf8 (d, "jumboMin", NULL), to, &st);
      pg_join (why, len, st.why);
      pg_join (fix, len, st.fix);
   }
   if (!why[0] && left > 0) {
      char key[600];
      bson_snprintf (key, sizeof key, "drain %s", shard);
      if (pg_stalled (now, key, &st)) {
         pg_join (why, len, st.why);
         pg_join (fix, len, st.fix);
      }
   }
   if (left <= 0 && dbs > 0) {
      char text[256];
      bson_snprintf (text, sizeof text,
                     "no chunk is left, but %.0f database%s still ha%s %s as primary: the drain ends only once they "
                     "move",
                     dbs, dbs == 1 ? "" : "s", dbs == 1 ? "s" : "ve", shard);
      pg_join (why, len, text);
      pg_join (fix, len, "db.adminCommand({movePrimary: \"<db>\", to: \"<shard>\"}) for each");
   }
}

/* Whether shard's drain is paused (listed in now->paused). */
static bool
pg_paused (const progress_reading_t *now, const char *shard)
{
   bson_iter_t it;
   if (!bson_iter_init (&it, &now->paused))
      return false;
   while (bson_iter_next (&it)) {
      bson_t d;
      const char *id;
      if (docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) && (id = docget_utf8 (&d, "_id", NULL)) && !strcmp (id, shard))
         return true;
   }
   return false;
}

/* A drain stopShardDraining paused: what is left, no rate or time left (nothing moves until it is resumed), and how
 * to resume it in the caveat. */
static void
pg_paused_drain (const bson_t *d, const char *shard, char *phase, size_t phase_len, char *caveat, size_t caveat_len)
{
   double left = pg_num0 (d, "chunks"), dbs = pg_num0 (d, "dbs");
   if (left > 0)
      bson_snprintf (phase, phase_len, "paused: %.0f chunk%s left", left, left == 1 ? "" : "s");
   else
      bson_snprintf (phase, phase_len, "paused: %.0f database%s to movePrimary", dbs, dbs == 1 ? "" : "s");
   bson_snprintf (caveat, caveat_len,
                  "the drain is paused (stopShardDraining): the balancer leaves the shard alone until "
                  "db.adminCommand({startShardDraining: \"%s\"}) resumes it",
                  shard);
}

static void
pg_drains (const progress_reading_t *now, bson_t *out, uint32_t *n)
{
   bson_iter_t it, f;
   if (!bson_iter_init (&it, &now->drains))
      return;
   while (bson_iter_next (&it)) {
      bson_t d;
      char caveat[512] = "", phase[96], why[1024], fix[1024];
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d))
         continue;
      const char *shard = docget_utf8 (&d, "shard", NULL);
      if (!shard)
         continue;
      double left = pg_num0 (&d, "chunks"), moved = pg_num0 (&d, "moved"), dbs = pg_num0 (&d, "dbs");
      double recent = pg_num0 (&d, "recentChunks"), recent_bytes = pg_num0 (&d, "recentBytes");
      double window = pg_num0 (&d, "windowSecs");
      pg_op_t op = { .type = strcmp (shard, "config") ? "drain" : "configShardTransition",
                     .ns = "",
                     .shard = shard,
                     .percent = -1,
                     .bytes_per_sec = -1,
                     .eta = -1 };
      if (left > 0)
         snprintf (phase, sizeof phase, "draining: %.0f chunk%s left", left, left == 1 ? "" : "s");
      else if (dbs > 0)
         snprintf (phase, sizeof phase, "chunks moved; %.0f database%s to movePrimary", dbs, dbs == 1 ? "" : "s");
      else if (dispatch_version_at_least (now->version, "8.3"))
         /* 8.3: the drain in steps ends with a commit (removeShard, deprecated, would still finish it) */
         snprintf (phase, sizeof phase, "drained: run %s to finish",
                   strcmp (shard, "config") ? "commitShardRemoval" : "commitTransitionToDedicatedConfigServer");
      else
         snprintf (phase, sizeof phase, "drained: run removeShard again to finish");
      op.phase = phase;
      if (pg_paused (now, shard)) {
         pg_paused_drain (&d, shard, phase, sizeof phase, caveat, sizeof caveat);
         if (docget_iter (&d, "startedMs", &f))
            op.percent = left + moved > 0 ? moved * 100.0 / (left + moved) : 100.0;
         op.caveat = caveat;
         pg_append (out, n, &op);
         continue;
      }
      if (docget_iter (&d, "startedMs", &f)) {
         op.percent = left + moved > 0 ? moved * 100.0 / (left + moved) : 100.0;
      } else {
         pg_caveat (caveat, sizeof caveat, "%s",
                    "the drain's start (removeShard.start) is no longer in config.changelog: percent unknown");
      }
      double started = 0, last = 0;
      if (left <= 0 && pg_num (&d, "startedMs", &started) && pg_num (&d, "lastMs", &last) && last > started) {
         /* emptied: the rate it left at, over its whole drain (not one that decays with the idle time since) */
         op.bytes_per_sec = pg_num0 (&d, "bytes") * 1000.0 / (last - started);
         op.eta = 0;
      } else if (window > 0) {
         op.bytes_per_sec = recent_bytes / window;
         if (recent > 0)
            op.eta = left * window / recent;
         else if (left > 0)
            pg_caveat (caveat, sizeof caveat, "%s",
                       "no chunk left the shard in the last minutes (balancer stopped, outside its window, or jumbo "
                       "chunks?): time left unknown");
         else
            op.eta = 0;
      }
      if (dbs > 0)
         pg_caveat (caveat, sizeof caveat, "%s",
                    "databases still have this shard as primary: movePrimary them (the time left counts chunks only)");
      op.caveat = caveat;
      pg_drain_stuck (now, &d, shard, why, fix, sizeof why);
      op.stuck = why;
      op.fix = fix;
      pg_append (out, n, &op);
   }
}

/* ---- defragmentation ---- */

static bool
pg_prev_defrag (const progress_reading_t *prev, const char *ns, double *remaining)
{
   bson_iter_t it;
   if (!prev || !bson_iter_init (&it, &prev->defrags))
      return false;
   while (bson_iter_next (&it)) {
      bson_t d;
      const char *pns;
      if (docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) && (pns = docget_utf8 (&d, "ns", NULL)) && !strcmp (pns, ns))
         return pg_num (&d, "remaining", remaining);
   }
   return false;
}

static void
pg_defrags (const progress_reading_t *now, const progress_reading_t *prev, bson_t *out, uint32_t *n)
{
   bson_iter_t it;
   if (!bson_iter_init (&it, &now->defrags))
      return;
   while (bson_iter_next (&it)) {
      bson_t d;
      double remaining = -1, before = -1;
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) || !docget_utf8 (&d, "ns", NULL))
         continue;
      pg_op_t op = { .type = "defragmentation",
                     .ns = docget_utf8 (&d, "ns", NULL),
                     .shard = "",
                     .phase = docget_utf8 (&d, "phase", NULL),
                     .percent = -1,
                     .bytes_per_sec = -1,
                     .eta = -1 };
      pg_num (&d, "remaining", &remaining);
      if (remaining >= 0 && pg_prev_defrag (prev, op.ns, &before) && before > remaining && prev->at_ms < now->at_ms &&
          now->at_ms - prev->at_ms <= PG_RATE_MAX_AGE_MS) {
         double per_sec = (before - remaining) * 1000.0 / (double) (now->at_ms - prev->at_ms);
         op.eta = remaining / per_sec;
         op.caveat = "the server reports only the chunks left in this phase (remainingChunksToProcess): no percent "
                     "or byte rate; time left from the last two readings, for this phase";
      } else {
         op.caveat = "the server reports only the chunks left in this phase (remainingChunksToProcess): no percent "
                     "or byte rate; time left needs a second reading";
      }
      pg_append (out, n, &op);
   }
}

void
progress_compute (const progress_reading_t *now, const progress_reading_t *prev, bson_t *operations)
{
   uint32_t n = 0;
   pg_reshards (now, prev, operations, &n);
   pg_migrations (now, operations, &n);
   pg_drains (now, operations, &n);
   pg_defrags (now, prev, operations, &n);
}

/* ---- readings without progress ---- */

/* The stall entry of key in r (n, since), false when none. */
static bool
pg_stall_get (const progress_reading_t *r, const char *key, int *n, int64_t *since)
{
   bson_iter_t it, f;
   if (!r || !bson_iter_init_find (&it, &r->stalls, key) || !BSON_ITER_HOLDS_DOCUMENT (&it))
      return false;
   *n = bson_iter_recurse (&it, &f) && bson_iter_find (&f, "n") ? bson_iter_as_int64 (&f) : 0;
   *since = bson_iter_recurse (&it, &f) && bson_iter_find (&f, "since") ? bson_iter_as_int64 (&f) : 0;
   return true;
}

/* One operation's figure now and at prev (NAN: prev did not see it): appends its stall entry to out. */
static void
pg_stall_put (bson_t *out, const progress_reading_t *now, const progress_reading_t *prev, const char *key, double value,
              double before)
{
   int n = 0;
   int64_t since = now->at_ms;
   bson_t d;
   if (bson_has_field (out, key))
      return;
   if (!isnan (before) && before == value) {
      int pn = 0;
      int64_t ps = prev->at_ms;
      if (pg_stall_get (prev, key, &pn, &ps))
         since = ps;
      else
         since = prev->at_ms;
      n = pn + 1;
   }
   BSON_APPEND_DOCUMENT_BEGIN (out, key, &d);
   BSON_APPEND_INT32 (&d, "n", n);
   BSON_APPEND_INT64 (&d, "since", since);
   bson_append_document_end (out, &d);
}

/* The chunks left of draining shard in r's drains, NAN when r does not list it. */
static double
pg_drain_left (const progress_reading_t *r, const char *shard)
{
   bson_iter_t it;
   if (!r || !bson_iter_init (&it, &r->drains))
      return NAN;
   while (bson_iter_next (&it)) {
      bson_t d;
      const char *s;
      if (docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) && (s = docget_utf8 (&d, "shard", NULL)) && !strcmp (s, shard))
         return pg_num0 (&d, "chunks");
   }
   return NAN;
}

/* The step of the migration of ns from -> to in r's rows ("step k of n" → k), NAN when r does not list it. */
static double
pg_migration_step (const progress_reading_t *r, const char *key)
{
   bson_iter_t it;
   if (!r || !bson_iter_init (&it, &r->ops))
      return NAN;
   while (bson_iter_next (&it)) {
      bson_t row;
      char k[512];
      int step = 0, of = 0;
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &row) || !pg_migration_key (&row, k, sizeof k))
         continue;
      if (!strcmp (k, key)) {
         const char *msg = docget_utf8 (&row, "msg", NULL);
         return msg && sscanf (msg, "step %d of %d", &step, &of) == 2 ? step : 0;
      }
   }
   return NAN;
}

void
progress_track_stalls (progress_reading_t *now, const progress_reading_t *prev)
{
   bson_t out = BSON_INITIALIZER;
   bson_iter_t it;
   char key[600];
   if (prev && (prev->at_ms >= now->at_ms || now->at_ms - prev->at_ms > PG_RATE_MAX_AGE_MS))
      prev = NULL; /* not the same watch: nothing to compare with */
   if (bson_iter_init (&it, &now->drains)) {
      while (bson_iter_next (&it)) {
         bson_t d;
         const char *shard;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) || !(shard = docget_utf8 (&d, "shard", NULL)))
            continue;
         bson_snprintf (key, sizeof key, "drain %s", shard);
         pg_stall_put (&out, now, prev, key, pg_num0 (&d, "chunks"), pg_drain_left (prev, shard));
      }
   }
   {
      pg_group_t *groups = bson_malloc0 (PG_MAX_GROUPS * sizeof *groups);
      pg_group_t *pgroups = bson_malloc0 (PG_MAX_GROUPS * sizeof *pgroups);
      size_t ng = pg_group_reshards (&now->ops, groups), pn = prev ? pg_group_reshards (&prev->ops, pgroups) : 0;
      for (size_t i = 0; i < ng; i++) {
         double before = NAN;
         for (size_t k = 0; k < pn; k++)
            if (!strcmp (pgroups[k].ns, groups[i].ns))
               before = pgroups[k].copied;
         bson_snprintf (key, sizeof key, "reshard %s", groups[i].ns);
         pg_stall_put (&out, now, prev, key, groups[i].copied, before);
      }
      bson_free (groups);
      bson_free (pgroups);
   }
   if (bson_iter_init (&it, &now->ops)) {
      while (bson_iter_next (&it)) {
         bson_t row;
         const char *msg;
         int step = 0, of = 0;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &row) || !pg_migration_key (&row, key, sizeof key))
            continue;
         msg = docget_utf8 (&row, "msg", NULL);
         pg_stall_put (&out, now, prev, key, msg && sscanf (msg, "step %d of %d", &step, &of) == 2 ? step : 0,
                       pg_migration_step (prev, key));
      }
   }
   bson_destroy (&now->stalls);
   bson_steal (&now->stalls, &out);
}
