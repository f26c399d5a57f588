/* sh.migrationHistory({ since, ns }): what moved over a window and what failed, summed by outcome, error, donor,
 * recipient and namespace, from three grouped aggregations on the server (config.changelog moveChunk.from and
 * moveChunk.commit, config.actionlog balancer.round); config.chunks is never read. */
#include <string.h>

#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"
#include "commands/exec.h"
#include "shell/lib/clock.h"
#include "shell/lib/docget.h"

#define HI_DEFAULT_HOURS 24
#define HI_MAX_HOURS (24 * 366)
#define HI_MAX_ROWS 64 /* distinct (outcome, ns, from, to, error) groups kept for the summary */

/* The window's start: options.since as hours back from now (1 to HI_MAX_HOURS) or a Date; 24 hours by default. */
static bool
hi_since (const sh_call_t *call, int64_t *since, sh_error_t *err)
{
   bson_t opts;
   bson_iter_t it;
   int64_t hours = HI_DEFAULT_HOURS;
   if (args_doc (call, 0, &opts) && bson_iter_init_find (&it, &opts, "since") && BSON_ITER_HOLDS_DATE_TIME (&it)) {
      *since = bson_iter_date_time (&it);
      return true;
   }
   if (!args_opt_int (call, 0, "since", 1, HI_MAX_HOURS, &hours, err))
      return false;
   *since = clock_wall_ms () - hours * 3600 * 1000;
   return true;
}

/* { $match: { what, time: { $gte: since }[, ns] } } as stage "0" of pipeline */
static void
hi_append_match (bson_t *pipeline, const char *what, int64_t since, const char *ns)
{
   bson_t stage, match, time;
   BSON_APPEND_DOCUMENT_BEGIN (pipeline, "0", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$match", &match);
   BSON_APPEND_UTF8 (&match, "what", what);
   BSON_APPEND_DOCUMENT_BEGIN (&match, "time", &time);
   BSON_APPEND_DATE_TIME (&time, "$gte", since);
   bson_append_document_end (&match, &time);
   if (ns)
      BSON_APPEND_UTF8 (&match, "ns", ns);
   bson_append_document_end (&stage, &match);
   bson_append_document_end (pipeline, &stage);
}

/* { <op>: [ <a>, <b> ] } under key, a and b strings (field paths) or null when NULL */
static void
hi_append_pair (bson_t *doc, const char *key, const char *op, const char *a, const char *b)
{
   bson_t d, arr;
   BSON_APPEND_DOCUMENT_BEGIN (doc, key, &d);
   BSON_APPEND_ARRAY_BEGIN (&d, op, &arr);
   BSON_APPEND_UTF8 (&arr, "0", a);
   if (b)
      BSON_APPEND_UTF8 (&arr, "1", b);
   else
      BSON_APPEND_NULL (&arr, "1");
   bson_append_array_end (&d, &arr);
   bson_append_document_end (doc, &d);
}

/* { $sum: { $ifNull: [ <path>, 0 ] } } under key */
static void
hi_append_sum_of (bson_t *group, const char *key, const char *path)
{
   bson_t acc, ifnull, arr;
   BSON_APPEND_DOCUMENT_BEGIN (group, key, &acc);
   BSON_APPEND_DOCUMENT_BEGIN (&acc, "$sum", &ifnull);
   BSON_APPEND_ARRAY_BEGIN (&ifnull, "$ifNull", &arr);
   BSON_APPEND_UTF8 (&arr, "0", path);
   BSON_APPEND_INT32 (&arr, "1", 0);
   bson_append_array_end (&ifnull, &arr);
   bson_append_document_end (&acc, &ifnull);
   bson_append_document_end (group, &acc);
}

static bool
build_migration_history (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t opts, *cmd, pipeline, stage, group, id, acc, cond, arr, and, conds, c0, c1, ors;
   bson_iter_t it;
   const char *ns = NULL;
   int64_t since;

   if (!args_check (call, 0, ARG_OBJECT, false, "Shard", "migrationHistory", err) || !hi_since (call, &since, err))
      return false;
   if (args_doc (call, 0, &opts) && bson_iter_init_find (&it, &opts, "ns")) {
      if (!BSON_ITER_HOLDS_UTF8 (&it)) {
         sh_error_set_at (err, SH_ERR_ARGS, call->arg_pos ? call->arg_pos[0] : call->pos,
                          "sh.migrationHistory: ns must be a string (\"db.collection\")");
         return false;
      }
      ns = bson_iter_utf8 (&it, NULL);
   }
   /* 1. migrations by outcome, namespace, donor, recipient and error */
   cmd = sh_requests_add (out, "config", CONN_READ);
   BSON_APPEND_UTF8 (cmd, "aggregate", "changelog");
   BSON_APPEND_ARRAY_BEGIN (cmd, "pipeline", &pipeline);
   hi_append_match (&pipeline, "moveChunk.from", since, ns);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "1", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$group", &group);
   BSON_APPEND_DOCUMENT_BEGIN (&group, "_id", &id);
   BSON_APPEND_DOCUMENT_BEGIN (&id, "ok", &cond);
   BSON_APPEND_ARRAY_BEGIN (&cond, "$cond", &arr);
   BSON_APPEND_DOCUMENT_BEGIN (&arr, "0", &and);
   BSON_APPEND_ARRAY_BEGIN (&and, "$and", &conds);
   hi_append_pair (&conds, "0", "$eq", "$details.note", "success");
   BSON_APPEND_DOCUMENT_BEGIN (&conds, "1", &c1);
   BSON_APPEND_ARRAY_BEGIN (&c1, "$eq", &ors);
   hi_append_pair (&ors, "0", "$ifNull", "$details.errmsg", NULL);
   BSON_APPEND_NULL (&ors, "1");
   bson_append_array_end (&c1, &ors);
   bson_append_document_end (&conds, &c1);
   bson_append_array_end (&and, &conds);
   bson_append_document_end (&arr, &and);
   BSON_APPEND_BOOL (&arr, "1", true);
   BSON_APPEND_BOOL (&arr, "2", false);
   bson_append_array_end (&cond, &arr);
   bson_append_document_end (&id, &cond);
   BSON_APPEND_UTF8 (&id, "ns", "$ns");
   BSON_APPEND_UTF8 (&id, "from", "$details.from");
   BSON_APPEND_UTF8 (&id, "to", "$details.to");
   hi_append_pair (&id, "error", "$ifNull", "$details.errmsg", NULL);
   bson_append_document_end (&group, &id);
   BSON_APPEND_DOCUMENT_BEGIN (&group, "count", &acc);
   BSON_APPEND_INT32 (&acc, "$sum", 1);
   bson_append_document_end (&group, &acc);
   BSON_APPEND_DOCUMENT_BEGIN (&group, "last", &acc);
   BSON_APPEND_UTF8 (&acc, "$max", "$time");
   bson_append_document_end (&group, &acc);
   bson_append_document_end (&stage, &group);
   bson_append_document_end (&pipeline, &stage);
   bson_append_array_end (cmd, &pipeline);
   cmd_append_empty (cmd, "cursor");

   /* 2. what the committed migrations carried */
   cmd = sh_requests_add (out, "config", CONN_READ);
   BSON_APPEND_UTF8 (cmd, "aggregate", "changelog");
   BSON_APPEND_ARRAY_BEGIN (cmd, "pipeline", &pipeline);
   hi_append_match (&pipeline, "moveChunk.commit", since, ns);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "1", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$group", &group);
   BSON_APPEND_NULL (&group, "_id");
   hi_append_sum_of (&group, "documents", "$details.counts.cloned");
   hi_append_sum_of (&group, "bytes", "$details.counts.clonedBytes");
   bson_append_document_end (&stage, &group);
   bson_append_document_end (&pipeline, &stage);
   bson_append_array_end (cmd, &pipeline);
   cmd_append_empty (cmd, "cursor");

   /* 3. balancer rounds, and the failed ones under either spelling (errorOccured before 6.0) */
   cmd = sh_requests_add (out, "config", CONN_READ);
   BSON_APPEND_UTF8 (cmd, "aggregate", "actionlog");
   BSON_APPEND_ARRAY_BEGIN (cmd, "pipeline", &pipeline);
   hi_append_match (&pipeline, "balancer.round", since, NULL);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "1", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$group", &group);
   BSON_APPEND_NULL (&group, "_id");
   BSON_APPEND_DOCUMENT_BEGIN (&group, "rounds", &acc);
   BSON_APPEND_INT32 (&acc, "$sum", 1);
   bson_append_document_end (&group, &acc);
   BSON_APPEND_DOCUMENT_BEGIN (&group, "failed", &acc);
   BSON_APPEND_DOCUMENT_BEGIN (&acc, "$sum", &c0);
   BSON_APPEND_ARRAY_BEGIN (&c0, "$cond", &arr);
   BSON_APPEND_DOCUMENT_BEGIN (&arr, "0", &and);
   BSON_APPEND_ARRAY_BEGIN (&and, "$or", &conds);
   BSON_APPEND_DOCUMENT_BEGIN (&conds, "0", &c1);
   BSON_APPEND_ARRAY_BEGIN (&c1, "$eq", &ors);
   BSON_APPEND_UTF8 (&ors, "0", "$details.errorOccured");
   BSON_APPEND_BOOL (&ors, "1", true);
   bson_append_array_end (&c1, &ors);
   bson_append_document_end (&conds, &c1);
   BSON_APPEND_DOCUMENT_BEGIN (&conds, "1", &c1);
   BSON_APPEND_ARRAY_BEGIN (&c1, "$eq", &ors);
   BSON_APPEND_UTF8 (&ors, "0", "$details.errorOccurred");
   BSON_APPEND_BOOL (&ors, "1", true);
   bson_append_array_end (&c1, &ors);
   bson_append_document_end (&conds, &c1);
   bson_append_array_end (&and, &conds);
   bson_append_document_end (&arr, &and);
   BSON_APPEND_INT32 (&arr, "1", 1);
   BSON_APPEND_INT32 (&arr, "2", 0);
   bson_append_array_end (&c0, &arr);
   bson_append_document_end (&acc, &c0);
   bson_append_document_end (&group, &acc);
   bson_append_document_end (&stage, &group);
   bson_append_document_end (&pipeline, &stage);
   bson_append_array_end (cmd, &pipeline);
   cmd_append_empty (cmd, "cursor");
   return true;
}

/* ---- the summary ---- */

/* One tally: a name and its successes and failures. */
typedef struct {
   char name[256];
   int64_t ok, failed;
   int64_t last; /* newest time (errors) */
} hi_tally_t;

typedef struct {
   hi_tally_t v[HI_MAX_ROWS];
   size_t n;
} hi_tallies_t;

static void
hi_count (hi_tallies_t *t, const char *name, bool ok, int64_t count, int64_t last)
{
   size_t i;
   for (i = 0; i < t->n && strcmp (t->v[i].name, name) != 0; i++)
      ;
   if (i == t->n) {
      if (t->n == HI_MAX_ROWS)
         return;
      memset (&t->v[i], 0, sizeof t->v[i]);
      bson_strncpy (t->v[i].name, name, sizeof t->v[i].name);
      t->n++;
   }
   if (ok)
      t->v[i].ok += count;
   else
      t->v[i].failed += count;
   if (last > t->v[i].last)
      t->v[i].last = last;
}

static int
hi_cmp (const void *a, const void *b)
{
   const hi_tally_t *x = a, *y = b;
   int64_t dx = x->ok + x->failed, dy = y->ok + y->failed;
   return dx < dy ? 1 : dx > dy ? -1 : strcmp (x->name, y->name);
}

/* Appends [ { <key>: name, succeeded, failed } ] (errors: { error, count, last }) under field, busiest first. */
static void
hi_append_tallies (bson_t *out, const char *field, const char *key, hi_tallies_t *t, bool errors)
{
   bson_t arr, d;
   char k[16];
   const char *kp;
   qsort (t->v, t->n, sizeof t->v[0], hi_cmp);
   BSON_APPEND_ARRAY_BEGIN (out, field, &arr);
   for (size_t i = 0; i < t->n; i++) {
      bson_uint32_to_string ((uint32_t) i, &kp, k, sizeof k);
      BSON_APPEND_DOCUMENT_BEGIN (&arr, kp, &d);
      BSON_APPEND_UTF8 (&d, key, t->v[i].name);
      if (errors) {
         cmd_append_number (&d, "count", (double) (t->v[i].failed));
         BSON_APPEND_DATE_TIME (&d, "last", t->v[i].last);
      } else {
         cmd_append_number (&d, "succeeded", (double) (t->v[i].ok));
         cmd_append_number (&d, "failed", (double) (t->v[i].failed));
      }
      bson_append_document_end (&arr, &d);
   }
   bson_append_array_end (out, &arr);
}

static const char *
hi_str (bson_iter_t *it, const char *path, const char *fallback)
{
   bson_iter_t f;
   bson_iter_t copy = *it;
   if (bson_iter_find_descendant (&copy, path, &f) && BSON_ITER_HOLDS_UTF8 (&f))
      return bson_iter_utf8 (&f, NULL);
   return fallback;
}

static bool
exec_migration_history (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   sh_requests_t reqs = { .n = 0 };
   bson_t groups = BSON_INITIALIZER, moved = BSON_INITIALIZER, rounds = BSON_INITIALIZER, out = BSON_INITIALIZER;
   bson_t *results[] = { &groups, &moved, &rounds };
   hi_tallies_t *by = bson_malloc0 (4 * sizeof *by); /* errors, donors, recipients, namespaces */
   int64_t since = 0, ok_total = 0, failed_total = 0;
   bson_iter_t it, f;
   bool ok = false;

   if (!hi_since (call, &since, err) || !build_migration_history (call, &reqs, err))
      goto done;
   for (size_t i = 0; i < 3; i++) {
      bson_destroy (results[i]); /* conn_run_docs initialises it again in every case */
      if (!conn_run_docs (ctx, reqs.v[i].db, &reqs.v[i].cmd, reqs.v[i].path, 0, results[i], NULL, err))
         goto done;
   }
   if (cmd_dry_run (ctx)) {
      ok = true;
      goto done;
   }
   bson_iter_init (&it, &groups);
   while (bson_iter_next (&it)) {
      bson_iter_t row;
      bool success = false;
      int64_t count = 0, last = 0;
      if (!bson_iter_recurse (&it, &row))
         continue;
      if (bson_iter_find_descendant (&row, "_id.ok", &f))
         success = bson_iter_as_bool (&f);
      bson_iter_recurse (&it, &row);
      if (bson_iter_find (&row, "count"))
         count = bson_iter_as_int64 (&row);
      bson_iter_recurse (&it, &row);
      if (bson_iter_find (&row, "last") && BSON_ITER_HOLDS_DATE_TIME (&row))
         last = bson_iter_date_time (&row);
      bson_iter_recurse (&it, &row);
      if (success)
         ok_total += count;
      else {
         failed_total += count;
         hi_count (&by[0], hi_str (&row, "_id.error", "aborted (no errmsg)"), false, count, last);
      }
      hi_count (&by[1], hi_str (&row, "_id.from", "?"), success, count, last);
      hi_count (&by[2], hi_str (&row, "_id.to", "?"), success, count, last);
      hi_count (&by[3], hi_str (&row, "_id.ns", "?"), success, count, last);
   }
   BSON_APPEND_DATE_TIME (&out, "since", since);
   cmd_append_number (&out, "migrations", (double) (ok_total + failed_total));
   cmd_append_number (&out, "succeeded", (double) (ok_total));
   cmd_append_number (&out, "failed", (double) (failed_total));
   cmd_append_number (&out, "documentsMoved", docget_double (&moved, "0.documents", 0, NULL));
   cmd_append_number (&out, "bytesMoved", docget_double (&moved, "0.bytes", 0, NULL));
   cmd_append_number (&out, "balancerRounds", docget_double (&rounds, "0.rounds", 0, NULL));
   cmd_append_number (&out, "failedBalancerRounds", docget_double (&rounds, "0.failed", 0, NULL));
   hi_append_tallies (&out, "byError", "error", &by[0], true);
   hi_append_tallies (&out, "byDonor", "shard", &by[1], false);
   hi_append_tallies (&out, "byRecipient", "shard", &by[2], false);
   hi_append_tallies (&out, "byNamespace", "ns", &by[3], false);
   sh_result_set_doc (res, &out);
   ok = true;
done:
   bson_free (by);
   bson_destroy (&groups);
   bson_destroy (&moved);
   bson_destroy (&rounds);
   bson_destroy (&out);
   sh_requests_destroy (&reqs);
   return ok;
}

const sh_cmd_t cmd_sh_migration_history = {
   .name = "sh.migrationHistory",
   .usage = "sh.migrationHistory([{ since: <hours 1-8784> | <Date>, ns: <namespace> }])",
   .summary = "Migrations over a window (24 hours by default) by outcome, error, donor, recipient and namespace, "
              "with the data moved and the balancer rounds that failed",
   .sends = "config { aggregate: \"changelog\", pipeline: [ { $match: { what: \"moveChunk.from\", time: { $gte: "
            "<since> }[, ns] } }, { $group: { _id: { ok, ns, from, to, error }, count, last } } ] }, the same "
            "$match on moveChunk.commit summing details.counts, and { aggregate: \"actionlog\" } counting "
            "balancer.round and the failed ones",
   .example = "sh.migrationHistory({ since: 24 })",
   .flags = CMD_READONLY | CMD_MONGOS_CHECK | CMD_EXTRA | CMD_CLOCK,
   .build = build_migration_history,
   .exec = exec_migration_history,
};
