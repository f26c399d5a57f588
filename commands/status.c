/* sh.status() / db.printShardingStatus(): mongosh's getPrintableShardStatus, printed as a StatsResult section by
 * section, byte for byte as mongosh prints it. The reads are mongosh's (sent one after another where mongosh runs
 * them concurrently) except per collection: mongosh sends three (chunk counts, the first 21 chunks, the first 20 zone
 * ranges) for every sharded collection; on 5.0+ metadata shardsh gets all of them from one aggregate over
 * config.collections with three $lookup stages, so a status costs the same number of commands at 5 or 5,000
 * collections (4.4 metadata and verbose keep mongosh's reads). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "shell/lib/checked.h"
#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"
#include "commands/exec.h"
#include "commands/config_reads.h"
#include "shell/lib/clock.h"
#include "shell/lib/docget.h"
#include "shell/lib/order.h"
#include "commands/status.h"
#include "commands/status_coll.h"
#include "shell/lib/aligned.h"
#include "shell/lang/parser.h"

/* Everything one status run holds, released in one place. */
typedef struct {
   bson_t version, shards, mongos, settings_autosplit, settings_automerge, settings_balancer, settings_window;
   bson_t locks, actionlog, ok_migrations, failed_migrations, databases, collections;
   bson_t balancer_status;
   bson_t rows; /* 5.0+: every collection's chunk counts, first chunks and zone ranges from one aggregate */
   bson_t result;
   const char *cfg; /* the database the config.* reads go to: "config", or sh.status's configDB */
} status_t;

/* Every document of s, for status_init and status_destroy; returns how many (at most 16). */
static size_t
status_docs (status_t *s, bson_t *all[16])
{
   bson_t *v[] = { &s->version,
                   &s->shards,
                   &s->mongos,
                   &s->settings_autosplit,
                   &s->settings_automerge,
                   &s->settings_balancer,
                   &s->settings_window,
                   &s->locks,
                   &s->actionlog,
                   &s->ok_migrations,
                   &s->failed_migrations,
                   &s->databases,
                   &s->collections,
                   &s->balancer_status,
                   &s->rows,
                   &s->result };
   memcpy (all, v, sizeof v);
   return sizeof v / sizeof v[0];
}

static void
status_init (status_t *s)
{
   bson_t *all[16];
   for (size_t i = 0, n = status_docs (s, all); i < n; i++)
      bson_init (all[i]);
}

static void
status_destroy (status_t *s)
{
   bson_t *all[16];
   for (size_t i = 0, n = status_docs (s, all); i < n; i++)
      bson_destroy (all[i]);
}

/* JS Date.prototype.toString() in local time: "Tue Jan 02 2024 03:04:05 GMT+0000 (Coordinated Universal Time)" */
static void
js_date_string (int64_t ms, char *buf, size_t len)
{
   time_t secs = (time_t) (ms >= 0 ? ms / 1000 : ck_sub (ms, 999) / 1000);
   struct tm tm;
   char head[64], zone[16], name[64];
   /* a JavaScript Date holds +-8.64e15 ms; beyond it (a server's nonsense) it is an Invalid Date */
   if (ms > 8640000000000000 || ms < -8640000000000000 || !localtime_r (&secs, &tm)) {
      bson_strncpy (buf, "Invalid Date", len);
      return;
   }
   strftime (head, sizeof head, "%a %b %d %Y %H:%M:%S", &tm);
   strftime (zone, sizeof zone, "%z", &tm);
   strftime (name, sizeof name, "%Z", &tm);
   if (!strcmp (name, "UTC") || !strcmp (name, "GMT"))
      bson_strncpy (name, "Coordinated Universal Time", sizeof name);
   bson_snprintf (buf, len, "%s GMT%s (%s)", head, zone, name);
}

/* Phase 1: config.version (with mongosh's projection), shards, and the most recently pinged mongos. */
static bool
phase_version (sh_ctx_t *ctx, status_t *s, sh_error_t *err)
{
   bson_t *cmd;
   cmd = BCON_NEW ("find", BCON_UTF8 ("version"), "filter", "{", "}", "projection", "{", "minCompatibleVersion",
                   BCON_INT32 (0), "excluding", BCON_INT32 (0), "upgradeId", BCON_INT32 (0), "upgradeState",
                   BCON_INT32 (0), "}", "limit", BCON_INT32 (1));
   if (!cmd_run_docs (ctx, s->cfg, cmd, 1, &s->version, err))
      return false;
   cmd = BCON_NEW ("find", BCON_UTF8 ("shards"), "filter", "{", "}", "sort", "{", "_id", BCON_INT32 (1), "}");
   if (!cmd_run_docs (ctx, s->cfg, cmd, 0, &s->shards, err))
      return false;
   cmd = BCON_NEW ("find", BCON_UTF8 ("mongos"), "filter", "{", "}", "sort", "{", "ping", BCON_INT32 (-1), "}", "limit",
                   BCON_INT32 (1));
   return cmd_run_docs (ctx, s->cfg, cmd, 1, &s->mongos, err);
}

/* Phase 2: "<adjective> mongoses": the versions of the mongoses pinged within a minute of the newest ping (verbose:
 * their documents), or 'none'. */
static bool
phase_mongoses (sh_ctx_t *ctx, status_t *s, bool verbose, sh_error_t *err)
{
   bson_t newest, docs = BSON_INITIALIZER, *cmd;
   bson_iter_t it;
   int64_t ping;
   bool ok = false;

   if (!cmd_first_doc (&s->mongos, &newest) || !bson_iter_init_find (&it, &newest, "ping") ||
       !BSON_ITER_HOLDS_DATE_TIME (&it)) {
      BSON_APPEND_UTF8 (&s->result, "most recently active mongoses", "none");
      ok = true;
      goto done;
   }
   ping = bson_iter_date_time (&it);
   {
      int64_t since = ck_sub (ping, 60000); /* a ping near INT64_MIN from a broken config.mongos must not overflow */
      const char *key = ping >= clock_wall_ms () - 60000 ? "active mongoses" : "most recently active mongoses";
      if (verbose) {
         cmd = BCON_NEW ("find", BCON_UTF8 ("mongos"), "filter", "{", "ping", "{", "$gt", BCON_DATE_TIME (since), "}",
                         "}", "sort", "{", "ping", BCON_INT32 (-1), "}");
         if (!cmd_run_docs (ctx, s->cfg, cmd, 0, &docs, err))
            goto done;
         BSON_APPEND_ARRAY (&s->result, key, &docs);
      } else {
         bson_t arr;
         uint32_t n = 0;
         cmd = BCON_NEW ("aggregate", BCON_UTF8 ("mongos"), "pipeline", "[", "{", "$match", "{", "ping", "{", "$gt",
                         BCON_DATE_TIME (since), "}", "}", "}", "{", "$group", "{", "_id", BCON_UTF8 ("$mongoVersion"),
                         "num", "{", "$sum", BCON_INT32 (1), "}", "}", "}", "{", "$sort", "{", "num", BCON_INT32 (-1),
                         "}", "}", "]", "cursor", "{", "}");
         if (!cmd_run_docs (ctx, s->cfg, cmd, 0, &docs, err))
            goto done;
         BSON_APPEND_ARRAY_BEGIN (&s->result, key, &arr);
         bson_iter_init (&it, &docs);
         while (bson_iter_next (&it)) {
            bson_t d, entry;
            bson_iter_t id, num;
            char k[16];
            const char *kk, *version = "null";
            if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d))
               continue;
            bson_uint32_to_string (n++, &kk, k, sizeof k);
            BSON_APPEND_DOCUMENT_BEGIN (&arr, kk, &entry);
            /* { [z._id]: z.num }: the version is the key (String(null) when unknown) */
            if (bson_iter_init_find (&id, &d, "_id") && BSON_ITER_HOLDS_UTF8 (&id))
               version = bson_iter_utf8 (&id, NULL);
            if (bson_iter_init_find (&num, &d, "num"))
               bson_append_value (&entry, version, -1, bson_iter_value (&num));
            bson_append_document_end (&arr, &entry);
         }
         bson_append_array_end (&s->result, &arr);
      }
   }
   ok = true;
done:
   bson_destroy (&docs);
   return ok;
}

static bool
find_setting (sh_ctx_t *ctx, const char *cfg, const char *id, bson_t *docs, sh_error_t *err)
{
   bson_t *cmd = bson_new ();
   cmd_append_find_id (cmd, "settings", id);
   return cmd_run_docs (ctx, cfg, cmd, 1, docs, err);
}

/* One "Migration Results" entry: the count is the key, so equal counts overwrite and keys sort numerically. */
typedef struct {
   int64_t count;
   char *text; /* owned */
} migration_row_t;

typedef struct {
   migration_row_t *v;
   size_t n, cap;
} migration_rows_t;

static int
migration_row_cmp (const void *a, const void *b)
{
   const migration_row_t *x = a, *y = b;
   return x->count < y->count ? -1 : x->count > y->count;
}

static void
add_migration_rows (const bson_t *docs, bool failures, migration_rows_t *rows)
{
   bson_iter_t it;
   bson_iter_init (&it, docs);
   while (bson_iter_next (&it)) {
      bson_t d;
      bson_iter_t f;
      int64_t count = 0;
      const char *id = "", *from = "undefined", *to = "undefined";
      size_t i;
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d))
         continue;
      count = docget_int (&d, "count", 0);
      if (bson_iter_init_find (&f, &d, "_id") && BSON_ITER_HOLDS_UTF8 (&f))
         id = bson_iter_utf8 (&f, NULL);
      if (bson_iter_init_find (&f, &d, "from") && BSON_ITER_HOLDS_UTF8 (&f))
         from = bson_iter_utf8 (&f, NULL);
      if (bson_iter_init_find (&f, &d, "to") && BSON_ITER_HOLDS_UTF8 (&f))
         to = bson_iter_utf8 (&f, NULL);
      for (i = 0; i < rows->n && rows->v[i].count != count; i++)
         ;
      if (i == rows->n) {
         if (rows->n == rows->cap) {
            rows->cap = rows->cap ? 2 * rows->cap : 8;
            rows->v = bson_realloc (rows->v, rows->cap * sizeof *rows->v);
         }
         rows->v[rows->n++].text = NULL;
      }
      rows->v[i].count = count;
      bson_free (rows->v[i].text);
      if (!failures && !strcmp (id, "Success"))
         rows->v[i].text = bson_strdup ("Success");
      else
         rows->v[i].text = bson_strdup_printf ("Failed with error '%s', from %s to %s", id, from, to);
   }
}

/* Whether the metadata has config.actionlog and config.changelog for sh.status: no currentVersion (5.0+), a
 * currentVersion above 5, or 5 on a 2.7+ server (then buildInfo is asked). False with err set when buildInfo failed. */
static bool
status_has_actionlog (sh_ctx_t *ctx, const status_t *s, bool *has, sh_error_t *err)
{
   bson_t version, *cmd;
   bson_iter_t it;
   bool has_actionlog;

   has_actionlog = true;
   if (cmd_first_doc (&s->version, &version) && bson_iter_init_find (&it, &version, "currentVersion") &&
       docget_truthy (&version, "currentVersion")) {
      double cv = BSON_ITER_HOLDS_NUMBER (&it) ? bson_iter_as_double (&it) : 0;
      has_actionlog = cv > 5;
      if (cv == 5) {
         bson_t reply;
         bson_iter_t va, x;
         bool ran;
         cmd = BCON_NEW ("buildInfo", BCON_INT32 (1));
         ran = conn_run (ctx, "admin", cmd, CONN_READ, &reply, err);
         if (ran && bson_iter_init_find (&va, &reply, "versionArray") && BSON_ITER_HOLDS_ARRAY (&va) &&
             bson_iter_recurse (&va, &x) && bson_iter_next (&x) && bson_iter_as_int64 (&x) == 2 &&
             bson_iter_next (&x) && bson_iter_as_int64 (&x) > 6)
            has_actionlog = true;
         bson_destroy (cmd);
         bson_destroy (&reply);
         if (!ran)
            return false;
      }
   }
   *has = has_actionlog;
   return true;
}

/* Appends "Collections with active migrations": one line per config.locks document, "<_id> started at <when>". */
static void
status_append_locks (bson_t *balancer, const bson_t *locks)
{
   bson_iter_t it;
   char *line;
   bson_t arr;
   uint32_t n = 0;
   BSON_APPEND_ARRAY_BEGIN (balancer, "Collections with active migrations", &arr);
   bson_iter_init (&it, locks);
   while (bson_iter_next (&it)) {
      bson_t lock;
      bson_iter_t f;
      char k[16], when[128];
      const char *kk, *id = "undefined";
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &lock))
         continue;
      if (bson_iter_init_find (&f, &lock, "_id") && BSON_ITER_HOLDS_UTF8 (&f))
         id = bson_iter_utf8 (&f, NULL);
      if (bson_iter_init_find (&f, &lock, "when") && BSON_ITER_HOLDS_DATE_TIME (&f))
         js_date_string (bson_iter_date_time (&f), when, sizeof when);
      else
         bson_strncpy (when, "undefined", sizeof when);
      line = bson_strdup_printf ("%s started at %s", id, when);
      bson_uint32_to_string (n++, &kk, k, sizeof k);
      BSON_APPEND_UTF8 (&arr, kk, line);
      bson_free (line);
   }
   bson_append_array_end (balancer, &arr);
}

/* Phase 3: autosplit, automerge and the balancer object. */
static bool
phase_balancer (sh_ctx_t *ctx, status_t *s, sh_error_t *err)
{
   bson_t version, doc, balancer = BSON_INITIALIZER, *cmd;
   bson_iter_t it;
   sh_error_t ignored;
   const char *running = "unknown";
   bool has_actionlog, ok = false;
   int32_t failed = 0;
   bson_value_t last_err = { .value_type = BSON_TYPE_UNDEFINED }, last_time = { .value_type = BSON_TYPE_UTF8 };
   migration_rows_t rows = { .n = 0 };
   char *line = NULL;

   last_time.value.v_utf8.str = (char *) " ";
   last_time.value.v_utf8.len = 1;
   if (!find_setting (ctx, s->cfg, "autosplit", &s->settings_autosplit, err) ||
       !find_setting (ctx, s->cfg, "automerge", &s->settings_automerge, err) ||
       !find_setting (ctx, s->cfg, "balancer", &s->settings_balancer, err))
      goto done;
   /* balancerStatus through the plain admin path; any failure reads as 'unknown' */
   cmd = BCON_NEW ("balancerStatus", BCON_INT32 (1));
   sh_error_clear (&ignored);
   bson_destroy (&s->balancer_status);
   if (conn_run (ctx, "admin", cmd, CONN_ADMIN, &s->balancer_status, &ignored))
      running = docget_truthy (&s->balancer_status, "inBalancerRound") ? "yes" : "no";
   bson_destroy (cmd);
   if (!find_setting (ctx, s->cfg, "balancer", &s->settings_window, err))
      goto done;
   cmd = bson_new ();
   cmd_append_locks_find (cmd);
   if (!cmd_run_docs (ctx, s->cfg, cmd, 0, &s->locks, err))
      goto done;

   /* actionlog and changelog only where the metadata has them: no currentVersion (5.0+), or currentVersion > 5 */
   if (!status_has_actionlog (ctx, s, &has_actionlog, err))
      goto done;
   if (has_actionlog) {
      int64_t yesterday = cmd_yesterday_ms (clock_wall_ms ());
      cmd = bson_new ();
      cmd_append_actionlog_find (cmd);
      if (!cmd_run_docs (ctx, s->cfg, cmd, 0, &s->actionlog, err))
         goto done;
      bson_iter_init (&it, &s->actionlog);
      while (bson_iter_next (&it)) {
         bson_t round;
         bson_iter_t f;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &round) || !cmd_round_failed (&round, false))
            continue;
         if (++failed == 1) {
            if (bson_iter_init (&f, &round) && bson_iter_find_descendant (&f, "details.errmsg", &f))
               last_err = *bson_iter_value (&f);
            if (bson_iter_init_find (&f, &round, "time"))
               last_time = *bson_iter_value (&f);
         }
      }
      cmd = bson_new ();
      cmd_append_changelog_aggregate (cmd, false, yesterday);
      if (!cmd_run_docs (ctx, s->cfg, cmd, 0, &s->ok_migrations, err))
         goto done;
      cmd = bson_new ();
      cmd_append_changelog_aggregate (cmd, true, yesterday);
      if (!cmd_run_docs (ctx, s->cfg, cmd, 0, &s->failed_migrations, err))
         goto done;
      add_migration_rows (&s->ok_migrations, false, &rows);
      add_migration_rows (&s->failed_migrations, true, &rows);
      if (rows.n)
         qsort (rows.v, rows.n, sizeof rows.v[0], migration_row_cmp);
   }

   /* the result, in the order of mongosh's usual completion */
   BSON_APPEND_DOCUMENT_BEGIN (&s->result, "autosplit", &doc);
   BSON_APPEND_UTF8 (&doc, "Currently enabled",
                     !cmd_first_doc (&s->settings_autosplit, &version) || docget_truthy (&version, "enabled") ? "yes"
                                                                                                              : "no");
   bson_append_document_end (&s->result, &doc);
   if (cmd_first_doc (&s->settings_automerge, &version)) {
      BSON_APPEND_DOCUMENT_BEGIN (&s->result, "automerge", &doc);
      BSON_APPEND_UTF8 (&doc, "Currently enabled", docget_truthy (&version, "enabled") ? "yes" : "no");
      bson_append_document_end (&s->result, &doc);
   }
   /* the balancer keys in the order mongosh's concurrent tasks usually complete against one mongos (mongosh's own
    * order varies from run to run) */
   BSON_APPEND_UTF8 (&balancer, "Currently running", running);
   BSON_APPEND_UTF8 (&balancer, "Currently enabled",
                     !cmd_first_doc (&s->settings_balancer, &version) || !docget_truthy (&version, "stopped") ? "yes"
                                                                                                              : "no");
   if (cmd_first_doc (&s->settings_window, &version) && bson_iter_init_find (&it, &version, "activeWindow")) {
      bson_t w;
      bson_iter_t st;
      const char *start = "undefined", *stop = "undefined";
      if (docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &w)) {
         if (bson_iter_init_find (&st, &w, "start") && BSON_ITER_HOLDS_UTF8 (&st))
            start = bson_iter_utf8 (&st, NULL);
         if (bson_iter_init_find (&st, &w, "stop") && BSON_ITER_HOLDS_UTF8 (&st))
            stop = bson_iter_utf8 (&st, NULL);
      }
      line = bson_strdup_printf ("%s and %s server local time", start, stop);
      BSON_APPEND_UTF8 (&balancer, "Balancer active window is set between", line);
      bson_free (line);
      line = NULL;
   }
   if (!bson_empty (&s->locks))
      status_append_locks (&balancer, &s->locks);
   if (has_actionlog) {
      BSON_APPEND_INT32 (&balancer, "Failed balancer rounds in last 5 attempts", failed);
      if (failed > 0) {
         BSON_APPEND_VALUE (&balancer, "Last reported error", &last_err);
         BSON_APPEND_VALUE (&balancer, "Time of Reported error", &last_time);
      }
   }
   if (has_actionlog) {
      if (bson_empty (&s->ok_migrations) && bson_empty (&s->failed_migrations)) {
         BSON_APPEND_UTF8 (&balancer, "Migration Results for the last 24 hours", "No recent migrations");
      } else {
         bson_t m;
         BSON_APPEND_DOCUMENT_BEGIN (&balancer, "Migration Results for the last 24 hours", &m);
         for (size_t i = 0; i < rows.n; i++) {
            char k[32];
            bson_snprintf (k, sizeof k, "%lld", (long long) rows.v[i].count);
            BSON_APPEND_UTF8 (&m, k, rows.v[i].text);
         }
         bson_append_document_end (&balancer, &m);
      }
   }
   BSON_APPEND_DOCUMENT (&s->result, "balancer", &balancer);
   ok = true;
done:
   for (size_t i = 0; i < rows.n; i++)
      bson_free (rows.v[i].text);
   bson_free (rows.v);
   bson_free (line);
   bson_destroy (&balancer);
   return ok;
}

/* mongosh sorts databases with localeCompare: case-insensitive first, lower case before upper on a tie. */
static int
locale_cmp (const char *a, const char *b)
{
   int c = strcasecmp (a, b);
   if (c)
      return c;
   return -strcmp (a, b);
}

typedef struct {
   const char *id;
   bson_t doc; /* static view, or the synthesized document */
   bool owned;
} status_db_t;

/* sorts pointers: a bson_t must not move once initialised (a static one points into itself) */
static int
status_db_cmp (const void *a, const void *b)
{
   return locale_cmp ((*(status_db_t *const *) a)->id, (*(status_db_t *const *) b)->id);
}

static bool
starts_with_db (const char *ns, const char *db)
{
   size_t n = strlen (db);
   return !strncmp (ns, db, n) && ns[n] == '.';
}

/* status_distribution's collector: appends each document to the open array as "0", "1", ... */
typedef struct {
   bson_t *arr;
   uint32_t n;
} status_collect_t;

static bool
status_collect_doc (void *data, const bson_t *doc)
{
   status_collect_t *c = data;
   char key[16];
   const char *k;
   bson_uint32_to_string (c->n++, &k, key, sizeof key);
   return bson_append_document (c->arr, k, -1, doc);
}

/* Runs cmd (destroyed here), the $shardedDataDistribution aggregate, appending its documents straight into the
 * result's "shardedDataDistribution" array as they arrive (one row per sharded collection and shard: the largest
 * section on a big cluster, so it is not held twice). On failure the section is taken out again and false
 * returned, the result as it was before. */
static bool
status_distribution (sh_ctx_t *ctx, status_t *s, bson_t *cmd, sh_error_t *err)
{
   bson_t arr, without;
   status_collect_t c = { &arr, 0 };
   bool ok;

   BSON_APPEND_ARRAY_BEGIN (&s->result, "shardedDataDistribution", &arr);
   ok = conn_run_each (ctx, "admin", cmd, CONN_READ, status_collect_doc, &c, NULL, err);
   bson_append_array_end (&s->result, &arr);
   bson_destroy (cmd);
   if (!ok) {
      bson_init (&without);
      bson_copy_to_excluding_noinit (&s->result, &without, "shardedDataDistribution", NULL);
      bson_destroy (&s->result);
      bson_steal (&s->result, &without);
   }
   return ok;
}

/* Phase 4 and 5: databases, sharded collections, $shardedDataDistribution, then every collection. */
static bool
phase_databases (sh_ctx_t *ctx, status_t *s, bool verbose, sh_error_t *err)
{
   bson_t *cmd, arr;
   bson_iter_t it;
   sh_error_t ignored;
   status_db_t *dbs = NULL, **order = NULL;
   status_rows_index_t index = { NULL, 0 };
   size_t n_dbs = 0, cap;
   uint32_t n = 0;
   bool ok = false, aggregated;

   cmd = BCON_NEW ("find", BCON_UTF8 ("databases"), "filter", "{", "}", "sort", "{", "_id", BCON_INT32 (1), "}");
   if (!cmd_run_docs (ctx, s->cfg, cmd, 0, &s->databases, err))
      goto done;
   cmd = BCON_NEW ("find", BCON_UTF8 ("collections"), "filter", "{", "dropped", "{", "$ne", BCON_BOOL (true), "}",
                   "unsplittable", "{", "$ne", BCON_BOOL (true), "}", "}", "sort", "{", "_id", BCON_INT32 (1), "}");
   if (!cmd_run_docs (ctx, s->cfg, cmd, 0, &s->collections, err))
      goto done;
   /* errors are swallowed: before 6.0.3 the section is undefined */
   cmd = BCON_NEW ("aggregate", BCON_INT32 (1), "pipeline", "[", "{", "$shardedDataDistribution", "{", "}", "}", "]",
                   "cursor", "{", "}");
   sh_error_clear (&ignored);
   if (!status_distribution (ctx, s, cmd, &ignored))
      BSON_APPEND_UNDEFINED (&s->result, "shardedDataDistribution");

   /* the database list: config.databases, then config, then the databases of sharded collections not listed */
   cap = bson_count_keys (&s->databases) + bson_count_keys (&s->collections) + 1;
   dbs = SH_ALLOC_ARRAY (status_db_t, cap);
   bson_iter_init (&it, &s->databases);
   while (bson_iter_next (&it)) {
      bson_iter_t id;
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &dbs[n_dbs].doc) ||
          !bson_iter_init_find (&id, &dbs[n_dbs].doc, "_id") || !BSON_ITER_HOLDS_UTF8 (&id))
         continue;
      dbs[n_dbs++].id = bson_iter_utf8 (&id, NULL);
   }
   dbs[n_dbs].id = "config";
   dbs[n_dbs].owned = true;
   bson_init (&dbs[n_dbs].doc);
   BSON_APPEND_UTF8 (&dbs[n_dbs].doc, "_id", "config");
   BSON_APPEND_UTF8 (&dbs[n_dbs].doc, "primary", "config");
   BSON_APPEND_BOOL (&dbs[n_dbs].doc, "partitioned", true);
   n_dbs++;
   bson_iter_init (&it, &s->collections);
   while (bson_iter_next (&it)) {
      bson_t c;
      bson_iter_t id;
      const char *ns, *dot;
      bool known = false;
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &c) || !bson_iter_init_find (&id, &c, "_id") ||
          !BSON_ITER_HOLDS_UTF8 (&id))
         continue;
      ns = bson_iter_utf8 (&id, NULL);
      for (size_t i = 0; i < n_dbs && !known; i++)
         known = starts_with_db (ns, dbs[i].id);
      if (known || n_dbs >= cap)
         continue;
      dot = strchr (ns, '.');
      dbs[n_dbs].owned = true;
      bson_init (&dbs[n_dbs].doc);
      bson_append_utf8 (&dbs[n_dbs].doc, "_id", 3, ns, dot ? (int) (dot - ns) : -1);
      bson_iter_init_find (&id, &dbs[n_dbs].doc, "_id");
      dbs[n_dbs++].id = bson_iter_utf8 (&id, NULL);
   }
   order = bson_malloc0 (n_dbs * sizeof *order);
   for (size_t i = 0; i < n_dbs; i++)
      order[i] = &dbs[i];
   qsort (order, n_dbs, sizeof *order, status_db_cmp);

   /* 5.0+: one aggregate for every collection's chunks and zones (mongosh sends three reads per collection) */
   aggregated = status_can_aggregate (&s->collections, verbose);
   if (aggregated && !status_aggregate_rows (ctx, s->cfg, &s->rows, err))
      goto done;
   if (aggregated)
      status_rows_index_init (&index, &s->rows);

   BSON_APPEND_ARRAY_BEGIN (&s->result, "databases", &arr);
   for (size_t i = 0; i < n_dbs; i++) {
      bson_t entry, colls;
      char k[16];
      const char *kk;
      bool failed = false;
      bson_uint32_to_string (n++, &kk, k, sizeof k);
      BSON_APPEND_DOCUMENT_BEGIN (&arr, kk, &entry);
      BSON_APPEND_DOCUMENT (&entry, "database", &order[i]->doc);
      BSON_APPEND_DOCUMENT_BEGIN (&entry, "collections", &colls);
      bson_iter_init (&it, &s->collections);
      while (!failed && bson_iter_next (&it)) {
         bson_t c;
         bson_iter_t id;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &c) || !bson_iter_init_find (&id, &c, "_id") ||
             !BSON_ITER_HOLDS_UTF8 (&id) || !starts_with_db (bson_iter_utf8 (&id, NULL), order[i]->id))
            continue;
         if (aggregated) {
            bson_t counts, chunks, tags, empty = BSON_INITIALIZER;
            status_coll_rows_t rows = { &empty, &empty, &empty };
            status_find_rows (&index, bson_iter_utf8 (&id, NULL), &rows, &counts, &chunks, &tags);
            status_collection_render (&c, &rows, verbose, &colls);
         } else {
            failed = !status_collection (ctx, s->cfg, &c, verbose, &colls, err);
         }
      }
      bson_append_document_end (&entry, &colls);
      bson_append_document_end (&arr, &entry);
      if (failed) {
         bson_append_array_end (&s->result, &arr);
         goto done;
      }
   }
   bson_append_array_end (&s->result, &arr);
   status_rows_index_destroy (&index);
   bson_reinit (&s->rows); /* rendered into the result: not kept while it prints */
   ok = true;
done:
   status_rows_index_destroy (&index);
   for (size_t i = 0; i < n_dbs; i++) {
      if (dbs[i].owned)
         bson_destroy (&dbs[i].doc);
   }
   bson_free (dbs);
   bson_free (order);
   return ok;
}

/* The database sh.status reads config.* from: configDB when given (db or db.getSiblingDB("name")), else "config".
 * Returns NULL when argument 1 is something else; buf holds a name copied out of the arguments. */
static const char *
status_config_db (const sh_ctx_t *ctx, const sh_call_t *call, char *buf, size_t len)
{
   bson_iter_t it;
   const char *name;
   uint32_t n;
   if (!args_get (call, 1, &it) || BSON_ITER_HOLDS_NULL (&it) || BSON_ITER_HOLDS_UNDEFINED (&it))
      return "config";
   if (!sh_value_dbref (&it, &name, &n))
      return NULL;
   if (n == 0)
      return ctx ? ctx->db : "config";
   bson_snprintf (buf, len, "%.*s", (int) n, name);
   return buf;
}

static bool
exec_status (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   status_t s;
   bson_t version;
   bson_iter_t it;
   bool verbose = args_get (call, 0, &it) && bson_iter_as_bool (&it);
   bool ok = false;
   char cfg[1100];

   status_init (&s);
   s.cfg = status_config_db (ctx, call, cfg, sizeof cfg);
   if (!s.cfg) {
      sh_error_set_at (err, SH_ERR_ARGS, call->pos, "%s: configDB must be a database", call->cmd->name);
      goto done;
   }
   if (!phase_version (ctx, &s, err))
      goto done;
   if (cmd_first_doc (&s.version, &version)) {
      /* shardingVersion without currentVersion (mongosh deletes it before returning) */
      bson_t sv;
      bson_iter_init (&it, &version);
      BSON_APPEND_DOCUMENT_BEGIN (&s.result, "shardingVersion", &sv);
      while (bson_iter_next (&it)) {
         if (strcmp (bson_iter_key (&it), "currentVersion") != 0)
            bson_append_value (&sv, bson_iter_key (&it), -1, bson_iter_value (&it));
      }
      bson_append_document_end (&s.result, &sv);
   } else if (!cmd_dry_run (ctx)) {
      sh_error_set_at (err, SH_ERR_USAGE, call->pos,
                       "[SHAPI-10003] This db does not have sharding enabled. Be sure you are connecting to a mongos "
                       "from the shell and not to a mongod.");
      goto done;
   }
   BSON_APPEND_ARRAY (&s.result, "shards", &s.shards);
   if (!phase_mongoses (ctx, &s, verbose, err) || !phase_balancer (ctx, &s, err) ||
       !phase_databases (ctx, &s, verbose, err))
      goto done;
   if (!cmd_dry_run (ctx))
      sh_result_take_stats (res, &s.result, "chunks");
   ok = true;
done:
   status_destroy (&s);
   return ok;
}

bool
status_build (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   char buf[1100];
   (void) out;
   if (!status_config_db (NULL, call, buf, sizeof buf)) {
      sh_error_set_at (err, SH_ERR_ARGS, call->argc > 1 && call->arg_pos ? call->arg_pos[1] : call->pos,
                       "%s: configDB must be a database, such as db.getSiblingDB(\"config\")", call->cmd->name);
      return false;
   }
   return true;
}

const sh_cmd_t cmd_sh_status = {
   .name = "sh.status",
   .usage = "sh.status([verbose], [configDB])",
   .summary = "The cluster's sharding status: shards, mongoses, balancer, databases, collections, chunks and zones",
   .sends = "config finds on version, shards, mongos, settings, locks, actionlog, databases, collections, chunks, "
            "tags; config aggregates on mongos, changelog and chunks ($group per shard); admin { balancerStatus: 1 } "
            "and $shardedDataDistribution; given configDB (db.getSiblingDB(\"x\")), the config reads go to x and "
            "the mongos check is skipped, as mongosh does",
   .example = "sh.status(true)",
   .flags = CMD_READONLY | CMD_MONGOS_CHECK,
   .build = status_build,
   .exec = exec_status,
   .dbref_arg = 2,
};

const sh_cmd_t cmd_db_print_sharding_status = {
   .name = "db.printShardingStatus",
   .alias_of = "sh.status",
   .usage = "db.printShardingStatus([verbose])",
   .summary = "The same report as sh.status()",
   .sends = "the same as sh.status()",
   .example = "db.printShardingStatus()",
   .flags = CMD_READONLY | CMD_MONGOS_CHECK | CMD_ALIAS,
   .build = status_build,
   .exec = exec_status,
};
