/* Migration history helpers the legacy shell had and mongosh dropped: sh.getActiveMigrations (config.locks in
 * state 2), sh.getRecentMigrations (config.changelog moveChunk.from of the last day, grouped server-side) and
 * sh.getRecentFailedRounds (the last 5 balancer rounds of config.actionlog). The changelog pipelines are the ones
 * sh.status sends, shared from here. */
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "commands/table.h"
#include "commands/requests.h"
#include "commands/exec.h"
#include "commands/config_reads.h"
#include "shell/lib/docget.h"
#include "shell/lib/clock.h"

int64_t
cmd_yesterday_ms (int64_t now)
{
   time_t secs = (time_t) (now / 1000);
   struct tm tm;
   localtime_r (&secs, &tm);
   tm.tm_mday -= 1;
   tm.tm_isdst = -1;
   return (int64_t) mktime (&tm) * 1000 + now % 1000;
}

/* { $ifNull: [ <path>, <fallback> ] } under key */
static void
append_if_null (bson_t *doc, const char *key, const char *path, const char *fallback)
{
   bson_t sub, arr;
   BSON_APPEND_DOCUMENT_BEGIN (doc, key, &sub);
   BSON_APPEND_ARRAY_BEGIN (&sub, "$ifNull", &arr);
   BSON_APPEND_UTF8 (&arr, "0", path);
   BSON_APPEND_UTF8 (&arr, "1", fallback);
   bson_append_array_end (&sub, &arr);
   bson_append_document_end (doc, &sub);
}

void
cmd_append_changelog_aggregate (bson_t *cmd, bool failures, int64_t since_ms)
{
   bson_t pipeline, stage, match, time, cond, ors, or0, or1, group, id, count, project;

   BSON_APPEND_UTF8 (cmd, "aggregate", "changelog");
   BSON_APPEND_ARRAY_BEGIN (cmd, "pipeline", &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "0", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$match", &match);
   BSON_APPEND_DOCUMENT_BEGIN (&match, "time", &time);
   BSON_APPEND_DATE_TIME (&time, "$gt", since_ms);
   bson_append_document_end (&match, &time);
   BSON_APPEND_UTF8 (&match, "what", "moveChunk.from");
   if (!failures) {
      BSON_APPEND_DOCUMENT_BEGIN (&match, "details.errmsg", &cond);
      BSON_APPEND_BOOL (&cond, "$exists", false);
      bson_append_document_end (&match, &cond);
      BSON_APPEND_UTF8 (&match, "details.note", "success");
   } else {
      BSON_APPEND_ARRAY_BEGIN (&match, "$or", &ors);
      BSON_APPEND_DOCUMENT_BEGIN (&ors, "0", &or0);
      BSON_APPEND_DOCUMENT_BEGIN (&or0, "details.errmsg", &cond);
      BSON_APPEND_BOOL (&cond, "$exists", true);
      bson_append_document_end (&or0, &cond);
      bson_append_document_end (&ors, &or0);
      BSON_APPEND_DOCUMENT_BEGIN (&ors, "1", &or1);
      BSON_APPEND_DOCUMENT_BEGIN (&or1, "details.note", &cond);
      BSON_APPEND_UTF8 (&cond, "$ne", "success");
      bson_append_document_end (&or1, &cond);
      bson_append_document_end (&ors, &or1);
      bson_append_array_end (&match, &ors);
   }
   bson_append_document_end (&stage, &match);
   bson_append_document_end (&pipeline, &stage);

   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "1", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$group", &group);
   BSON_APPEND_DOCUMENT_BEGIN (&group, "_id", &id);
   BSON_APPEND_UTF8 (&id, "msg", "$details.errmsg");
   if (failures) {
      BSON_APPEND_UTF8 (&id, "from", "$details.from");
      BSON_APPEND_UTF8 (&id, "to", "$details.to");
   }
   bson_append_document_end (&group, &id);
   BSON_APPEND_DOCUMENT_BEGIN (&group, "count", &count);
   BSON_APPEND_INT32 (&count, "$sum", 1);
   bson_append_document_end (&group, &count);
   bson_append_document_end (&stage, &group);
   bson_append_document_end (&pipeline, &stage);

   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "2", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$project", &project);
   append_if_null (&project, "_id", "$_id.msg", failures ? "aborted" : "Success");
   if (failures) {
      BSON_APPEND_UTF8 (&project, "from", "$_id.from");
      BSON_APPEND_UTF8 (&project, "to", "$_id.to");
   }
   BSON_APPEND_UTF8 (&project, "count", "$count");
   bson_append_document_end (&stage, &project);
   bson_append_document_end (&pipeline, &stage);
   bson_append_array_end (cmd, &pipeline);
   cmd_append_empty (cmd, "cursor");
}

void
cmd_append_actionlog_find (bson_t *cmd)
{
   bson_t filter, sort;
   BSON_APPEND_UTF8 (cmd, "find", "actionlog");
   BSON_APPEND_DOCUMENT_BEGIN (cmd, "filter", &filter);
   BSON_APPEND_UTF8 (&filter, "what", "balancer.round");
   bson_append_document_end (cmd, &filter);
   BSON_APPEND_DOCUMENT_BEGIN (cmd, "sort", &sort);
   BSON_APPEND_INT32 (&sort, "time", -1);
   bson_append_document_end (cmd, &sort);
   BSON_APPEND_INT32 (cmd, "limit", 5);
}

void
cmd_append_locks_find (bson_t *cmd)
{
   bson_t filter, state;
   BSON_APPEND_UTF8 (cmd, "find", "locks");
   BSON_APPEND_DOCUMENT_BEGIN (cmd, "filter", &filter);
   BSON_APPEND_DOCUMENT_BEGIN (&filter, "state", &state);
   BSON_APPEND_INT32 (&state, "$eq", 2);
   bson_append_document_end (&filter, &state);
   bson_append_document_end (cmd, &filter);
}

static bool
build_active_migrations (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   (void) call;
   (void) err;
   cmd_append_locks_find (sh_requests_add (out, "config", CONN_READ));
   return true;
}

/* [ { _id: <lock _id, the namespace>, when: <date> } ] as the legacy shell returned */
static bool
exec_active_migrations (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t docs, result = BSON_INITIALIZER;
   bson_iter_t it, f;
   uint32_t n = 0;
   bool ok = false;

   if (!cmd_run_build_docs (ctx, call, 0, &docs, NULL, err))
      goto done;
   bson_iter_init (&it, &docs);
   while (bson_iter_next (&it)) {
      char key[16];
      const char *k;
      bson_t entry;
      bson_uint32_to_string (n++, &k, key, sizeof key);
      BSON_APPEND_DOCUMENT_BEGIN (&result, k, &entry);
      if (bson_iter_recurse (&it, &f) && bson_iter_find (&f, "_id"))
         bson_append_value (&entry, "_id", -1, bson_iter_value (&f));
      if (bson_iter_recurse (&it, &f) && bson_iter_find (&f, "when"))
         bson_append_value (&entry, "when", -1, bson_iter_value (&f));
      bson_append_document_end (&result, &entry);
   }
   if (!cmd_dry_run (ctx))
      sh_result_set_array (res, &result);
   ok = true;
done:
   bson_destroy (&docs);
   bson_destroy (&result);
   return ok;
}

static bool
build_recent_migrations (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   /* the legacy shell's window: exactly 24 hours back */
   int64_t since = clock_wall_ms () - 24 * 3600 * 1000;
   (void) call;
   (void) err;
   cmd_append_changelog_aggregate (sh_requests_add (out, "config", CONN_READ), false, since);
   cmd_append_changelog_aggregate (sh_requests_add (out, "config", CONN_READ), true, since);
   return true;
}

/* successes ({ _id: "Success", count }) followed by failures ({ _id: <errmsg or "aborted">, from, to, count }) */
static bool
exec_recent_migrations (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   sh_requests_t reqs = { .n = 0 };
   bson_t docs = BSON_INITIALIZER, result = BSON_INITIALIZER;
   bson_iter_t it;
   uint32_t n = 0;
   bool ok = false;

   if (!build_recent_migrations (call, &reqs, err))
      goto done;
   for (size_t r = 0; r < reqs.n; r++) {
      bson_destroy (&docs);
      if (!conn_run_docs (ctx, reqs.v[r].db, &reqs.v[r].cmd, reqs.v[r].path, 0, &docs, NULL, err))
         goto done;
      bson_iter_init (&it, &docs);
      while (bson_iter_next (&it)) {
         char key[16];
         const char *k;
         bson_uint32_to_string (n++, &k, key, sizeof key);
         bson_append_value (&result, k, -1, bson_iter_value (&it));
      }
   }
   if (!cmd_dry_run (ctx))
      sh_result_set_array (res, &result);
   ok = true;
done:
   bson_destroy (&docs);
   bson_destroy (&result);
   sh_requests_destroy (&reqs);
   return ok;
}

static bool
build_recent_failed_rounds (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   (void) call;
   (void) err;
   cmd_append_actionlog_find (sh_requests_add (out, "config", CONN_READ));
   return true;
}

bool
cmd_round_failed (const bson_t *round, bool both_spellings)
{
   bson_iter_t it, f;
   if (!bson_iter_init_find (&it, round, "details") || !BSON_ITER_HOLDS_DOCUMENT (&it))
      return false;
   if (bson_iter_recurse (&it, &f) && bson_iter_find (&f, "errorOccured") && bson_iter_as_bool (&f))
      return true;
   return both_spellings && bson_iter_recurse (&it, &f) && bson_iter_find (&f, "errorOccurred") &&
          bson_iter_as_bool (&f);
}

/* { count, lastErr, lastTime } over the last 5 rounds, as the legacy shell reported them; a round counts as failed
 * under either spelling of details.errorOccurred (4.4/5.0 wrote "errorOccured") */
static bool
exec_recent_failed_rounds (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t docs, result = BSON_INITIALIZER;
   bson_iter_t it, f;
   int32_t count = 0;
   bson_value_t last_err = { .value_type = BSON_TYPE_UTF8 }, last_time = { .value_type = BSON_TYPE_UTF8 };
   bool ok = false;

   last_err.value.v_utf8.str = (char *) "";
   last_err.value.v_utf8.len = 0;
   last_time.value.v_utf8.str = (char *) " ";
   last_time.value.v_utf8.len = 1;
   if (!cmd_run_build_docs (ctx, call, 0, &docs, NULL, err))
      goto done;
   bson_iter_init (&it, &docs);
   while (bson_iter_next (&it)) {
      bson_t round;
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &round) || !cmd_round_failed (&round, true))
         continue;
      if (++count == 1) {
         bson_iter_t d;
         if (bson_iter_init (&f, &round) && bson_iter_find_descendant (&f, "details.errmsg", &d))
            last_err = *bson_iter_value (&d);
         if (bson_iter_init_find (&f, &round, "time"))
            last_time = *bson_iter_value (&f); /* borrowed from docs, which lives until done */
      }
   }
   BSON_APPEND_INT32 (&result, "count", count);
   BSON_APPEND_VALUE (&result, "lastErr", &last_err);
   BSON_APPEND_VALUE (&result, "lastTime", &last_time);
   if (!cmd_dry_run (ctx))
      sh_result_set_doc (res, &result);
   ok = true;
done:
   bson_destroy (&docs);
   bson_destroy (&result);
   return ok;
}

const sh_cmd_t cmd_sh_get_active_migrations = {
   .name = "sh.getActiveMigrations",
   .usage = "sh.getActiveMigrations()",
   .summary = "Collections with a migration in progress ({ _id, when } of config.locks in state 2; 4.4/5.0)",
   .sends = "config { find: \"locks\", filter: { state: { $eq: 2 } } }",
   .example = "sh.getActiveMigrations()",
   .flags = CMD_READONLY | CMD_MONGOS_CHECK | CMD_EXTRA,
   .build = build_active_migrations,
   .exec = exec_active_migrations,
};

const sh_cmd_t cmd_sh_get_recent_migrations = {
   .name = "sh.getRecentMigrations",
   .usage = "sh.getRecentMigrations()",
   .summary = "Successful and failed migrations of the last 24 hours, counted on the server",
   .sends = "config { aggregate: \"changelog\", pipeline: [ $match moveChunk.from successes since now-24h, $group, "
            "$project ], cursor: {} }, then the same for failures (grouped by errmsg, from, to)",
   .example = "sh.getRecentMigrations()",
   .flags = CMD_READONLY | CMD_MONGOS_CHECK | CMD_EXTRA | CMD_CLOCK,
   .build = build_recent_migrations,
   .exec = exec_recent_migrations,
};

const sh_cmd_t cmd_sh_get_recent_failed_rounds = {
   .name = "sh.getRecentFailedRounds",
   .usage = "sh.getRecentFailedRounds()",
   .summary = "How many of the last 5 balancer rounds failed, with the newest error and its time",
   .sends = "config { find: \"actionlog\", filter: { what: \"balancer.round\" }, sort: { time: -1 }, limit: 5 }",
   .example = "sh.getRecentFailedRounds()",
   .flags = CMD_READONLY | CMD_MONGOS_CHECK | CMD_EXTRA,
   .build = build_recent_failed_rounds,
   .exec = exec_recent_failed_rounds,
};
