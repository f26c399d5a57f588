/* One cluster the exporter watches (views/model/expsrc.h): a session of its own, the dashboard's collector on it,
 * and the counts of the changelog and the actionlog behind the exporter's counters. */
#include <mongoc/mongoc.h>
#include <stdlib.h>
#include <string.h>

#include "shell/core/conn.h"
#include "shell/core/ctx.h"
#include "shell/lib/secret.h"
#include "views/model/collect.h"
#include "views/model/expsrc.h"

struct expsrc {
   sh_ctx_t ctx; /* the session: its own client and connection string */
   collect_t *c; /* the collector on it (owned) */
};

expsrc_t *
expsrc_new (const char *uri, const char *db, const sh_options_t *opts, double interval_s)
{
   expsrc_t *src = calloc (1, sizeof *src);
   collect_opts_t copts = collect_opts_default ();
   if (!src)
      abort ();
   src->ctx.opts = opts;
   src->ctx.out_fp = stdout;
   src->ctx.err_fp = stderr;
   src->ctx.out = output_opts_default (OUTPUT_JSON, false);
   conn_init (&src->ctx, uri, db);
   if (interval_s > 0)
      copts.interval_s = interval_s;
   src->c = collect_new (&src->ctx, &copts);
   collect_set_interval (src->c, copts.interval_s);
   return src;
}

void
expsrc_free (expsrc_t *src)
{
   if (!src)
      return;
   collect_free (src->c);
   conn_destroy (&src->ctx);
   free (src);
}

/* The router's process CPU so far (extra_info user_time_us + system_time_us), in microseconds; -1 when unknown. */
static int64_t
router_cpu_us (expsrc_t *src)
{
   bson_t *cmd = BCON_NEW ("serverStatus", BCON_INT32 (1), "metrics", BCON_INT32 (0));
   bson_t reply;
   bson_iter_t u, s;
   sh_error_t err;
   int64_t v = -1;
   sh_error_clear (&err);
   if (conn_run (&src->ctx, "admin", cmd, CONN_ADMIN, &reply, &err) && bson_iter_init (&u, &reply) &&
       bson_iter_find_descendant (&u, "extra_info.user_time_us", &s) && BSON_ITER_HOLDS_NUMBER (&s)) {
      int64_t user = bson_iter_as_int64 (&s);
      if (bson_iter_init (&u, &reply) && bson_iter_find_descendant (&u, "extra_info.system_time_us", &s) &&
          BSON_ITER_HOLDS_NUMBER (&s) && user >= 0 && bson_iter_as_int64 (&s) >= 0 &&
          user <= INT64_MAX - bson_iter_as_int64 (&s))
         v = user + bson_iter_as_int64 (&s);
   }
   bson_destroy (&reply);
   bson_destroy (cmd);
   return v;
}

bool
expsrc_sample (expsrc_t *src, snap_t *snap, double *router_cpu_s)
{
   int64_t before = router_cpu_us (src), after;
   bool ok = collect_sample (src->c, snap);
   after = ok && before >= 0 ? router_cpu_us (src) : -1;
   *router_cpu_s = after >= before && before >= 0 ? (double) (after - before) / 1e6 : -1;
   return ok;
}

/* { count: coll, query: filter } on config: the number into *n. */
static bool
count_on (expsrc_t *src, const char *coll, bson_t *filter, int64_t *n, sh_error_t *err)
{
   bson_t cmd = BSON_INITIALIZER, reply;
   bson_iter_t it;
   bool ok;
   BSON_APPEND_UTF8 (&cmd, "count", coll);
   BSON_APPEND_DOCUMENT (&cmd, "query", filter);
   ok = conn_run (&src->ctx, "config", &cmd, CONN_ADMIN, &reply, err);
   if (ok && bson_iter_init_find (&it, &reply, "n") && BSON_ITER_HOLDS_NUMBER (&it) && bson_iter_as_int64 (&it) >= 0)
      *n = bson_iter_as_int64 (&it);
   else if (ok) {
      sh_error_set (err, SH_ERR_SERVER, "count on config.%s: no count in the reply", coll);
      ok = false;
   }
   bson_destroy (&reply);
   bson_destroy (&cmd);
   bson_destroy (filter);
   return ok;
}

bool
expsrc_totals (expsrc_t *src, expsrc_totals_t *t, char *error, size_t len)
{
   sh_error_t err;
   expsrc_totals_t n = { -1, -1, -1 };
   bool ok;

   sh_error_clear (&err);
   /* the outcome rule of sh.migrationHistory (commands/history.c): one moveChunk.from per migration, the donor's */
   ok = count_on (src, "changelog",
                  BCON_NEW ("what", "moveChunk.from", "details.note", "success", "details.errmsg", "{", "$exists",
                            BCON_BOOL (false), "}"),
                  &n.moves_ok, &err) &&
        count_on (src, "changelog",
                  BCON_NEW ("what", "moveChunk.from", "$or", "[", "{", "details.note", "{", "$ne", "success", "}", "}",
                            "{", "details.errmsg", "{", "$exists", BCON_BOOL (true), "}", "}", "]"),
                  &n.moves_failed, &err) &&
        count_on (src, "actionlog",
                  BCON_NEW ("what", "balancer.round", "$or", "[", "{", "details.errorOccured", BCON_BOOL (true), "}",
                            "{", "details.errorOccurred", BCON_BOOL (true), "}", "]"),
                  &n.rounds_failed, &err);
   if (!ok) {
      char *shown = secret_redact_text (err.message);
      bson_strncpy (error, shown, len);
      bson_free (shown);
      return false;
   }
   *t = n;
   return true;
}
