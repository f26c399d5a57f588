/* The collector's events: recent splits, migrations and balancer rounds from config.changelog and
 * config.actionlog, the migrations in flight, and the databases left on a draining shard. */
#include <math.h>
#include <mongoc/mongoc.h>
#include <stdlib.h>
#include <string.h>

#include "views/model/collect_int.h"
#include "shell/lib/docget.h"
#include "shell/core/output.h"

/* The range of a changelog entry (details.min/max, or details.before.min/max for a split) into e. */
static void
event_range (const bson_t *details, const char *prefix, snap_event_t *e)
{
   bson_t mn, mx;
   char pmin[64], pmax[64];
   bson_snprintf (pmin, sizeof pmin, "%smin", prefix);
   bson_snprintf (pmax, sizeof pmax, "%smax", prefix);
   bson_strncpy (e->min, "?", sizeof e->min);
   bson_strncpy (e->max, "?", sizeof e->max);
   if (docget_sub (details, pmin, BSON_TYPE_EOD, &mn))
      output_format_doc_line (&mn, e->min, sizeof e->min);
   if (docget_sub (details, pmax, BSON_TYPE_EOD, &mx))
      output_format_doc_line (&mx, e->max, sizeof e->max);
}

static void
add_event (snap_t *s, const bson_t *d, bool actionlog, const char *id)
{
   snap_event_t *e;
   const char *what = docget_utf8 (d, "what", "");
   bson_t details;
   bson_iter_t it;

   if (s->nevents >= SNAP_EVENTS)
      return;
   e = &s->events[s->nevents++];
   memset (e, 0, sizeof *e);
   bson_strncpy (e->what, what, sizeof e->what);
   bson_strncpy (e->id, id, sizeof e->id);
   e->actionlog = actionlog;
   bson_strncpy (e->ns, docget_utf8 (d, "ns", ""), sizeof e->ns);
   if (bson_iter_init_find (&it, d, "time") && BSON_ITER_HOLDS_DATE_TIME (&it))
      e->time_ms = bson_iter_date_time (&it);
   if (!docget_sub (d, "details", BSON_TYPE_EOD, &details))
      bson_init (&details);
   e->kind = SNAP_EV_OTHER;
   if (actionlog) {
      bool failed = docget_bool (&details, "errorOccured") || docget_bool (&details, "errorOccurred");
      e->kind = failed ? SNAP_EV_ROUND_FAIL : SNAP_EV_ROUND;
      if (failed) {
         bson_strncpy (e->error, docget_utf8 (&details, "errmsg", "?"), sizeof e->error);
         bson_snprintf (e->text, sizeof e->text, "failed: %s", e->error);
      } else {
         bson_snprintf (e->text, sizeof e->text, "moved %lld of %lld candidates in %lld ms",
                        (long long) docget_int (&details, "chunksMoved", 0),
                        (long long) docget_int (&details, "candidateChunks", 0),
                        (long long) docget_int (&details, "executionTimeMillis", 0));
      }
   } else if (!strcmp (what, "split") || !strcmp (what, "multi-split")) {
      e->kind = SNAP_EV_SPLIT;
      event_range (&details, "before.", e);
      bson_strncpy (e->from, docget_utf8 (&details, "owningShard", "?"), sizeof e->from);
      bson_snprintf (e->text, sizeof e->text, "on %s %s -> %s", e->from, e->min, e->max);
   } else if (!strncmp (what, "moveChunk.", 10)) {
      const char *note = docget_utf8 (&details, "note", "success");
      const char *errmsg = docget_utf8 (&details, "errmsg", NULL);
      event_range (&details, "", e);
      if (!strcmp (what, "moveChunk.start"))
         e->kind = SNAP_EV_MIGRATE_START;
      else if (!strcmp (what, "moveChunk.error") || strcmp (note, "success") != 0 || errmsg)
         e->kind = SNAP_EV_MIGRATE_FAIL;
      else
         e->kind = SNAP_EV_MIGRATE_OK;
      bson_strncpy (e->from, docget_utf8 (&details, "from", "?"), sizeof e->from);
      bson_strncpy (e->to, docget_utf8 (&details, "to", "?"), sizeof e->to);
      if (errmsg)
         bson_strncpy (e->error, errmsg, sizeof e->error);
      else if (e->kind == SNAP_EV_MIGRATE_FAIL)
         bson_strncpy (e->error, note, sizeof e->error);
      bson_snprintf (e->text, sizeof e->text, "%s -> %s %s -> %s%s%s", e->from, e->to, e->min, e->max,
                     e->error[0] ? ": " : "", e->error);
   } else {
      output_format_doc_line (&details, e->text, sizeof e->text);
   }
   bson_destroy (&details);
}

/* Whether two log _ids ("<host>-<time>-<ObjectId>") come from the same process at the same time, so that their
 * ObjectIds (whose counter grows) give the order the entries were written in. */
static bool
ids_comparable (const char *a, const char *b)
{
   const char *da = strrchr (a, '-'), *db = strrchr (b, '-');
   return da && db && da - a == db - b && strlen (da) == 25 && strlen (db) == 25 && !strncmp (a, b, (size_t) (da - a));
}

/* True time order, newest first. At equal times: one chunk's ending (moved, failed) before its own start; else the
 * order the entries were written in, from their _ids' ObjectIds when one process wrote both; else an ending before a
 * start. */
static int
event_cmp (const void *a, const void *b)
{
   const snap_event_t *x = a, *y = b;
   int rx = x->kind == SNAP_EV_MIGRATE_START, ry = y->kind == SNAP_EV_MIGRATE_START;
   if (x->time_ms != y->time_ms)
      return x->time_ms > y->time_ms ? -1 : 1;
   if (rx != ry && x->min[0] && !strcmp (x->ns, y->ns) && !strcmp (x->min, y->min))
      return rx - ry;
   if (ids_comparable (x->id, y->id) && strcmp (x->id, y->id) != 0)
      return strcmp (x->id, y->id) > 0 ? -1 : 1;
   if (rx != ry)
      return rx - ry;
   return strcmp (x->text, y->text);
}

/* Appends, as element key of the array arr, the stages {$match: match}, {$sort: {time: -1}}, {$limit: limit}: one
 * kind of event, newest first, read with its own limit (an indexed top-k on the server, never a whole-log sort). */
static void
append_event_stages (bson_t *arr, uint32_t *k, const bson_t *match, int limit)
{
   bson_t stage, sort;
   char kb[16];
   const char *ks;
   bson_uint32_to_string ((*k)++, &ks, kb, sizeof kb);
   BSON_APPEND_DOCUMENT_BEGIN (arr, ks, &stage);
   BSON_APPEND_DOCUMENT (&stage, "$match", match);
   bson_append_document_end (arr, &stage);
   bson_uint32_to_string ((*k)++, &ks, kb, sizeof kb);
   BSON_APPEND_DOCUMENT_BEGIN (arr, ks, &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$sort", &sort);
   BSON_APPEND_INT32 (&sort, "time", -1);
   bson_append_document_end (&stage, &sort);
   bson_append_document_end (arr, &stage);
   bson_uint32_to_string ((*k)++, &ks, kb, sizeof kb);
   BSON_APPEND_DOCUMENT_BEGIN (arr, ks, &stage);
   BSON_APPEND_INT32 (&stage, "$limit", limit);
   bson_append_document_end (arr, &stage);
}

/* Appends {$unionWith: {coll, pipeline: [match, sort, limit]}} as element key of the pipeline. */
static void
append_event_union (bson_t *pipeline, uint32_t *k, const char *coll, const bson_t *match, int limit)
{
   bson_t stage, uw, sub;
   char kb[16];
   const char *ks;
   uint32_t sk = 0;
   bson_uint32_to_string ((*k)++, &ks, kb, sizeof kb);
   BSON_APPEND_DOCUMENT_BEGIN (pipeline, ks, &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$unionWith", &uw);
   BSON_APPEND_UTF8 (&uw, "coll", coll);
   BSON_APPEND_ARRAY_BEGIN (&uw, "pipeline", &sub);
   append_event_stages (&sub, &sk, match, limit);
   bson_append_array_end (&uw, &sub);
   bson_append_document_end (&stage, &uw);
   bson_append_document_end (pipeline, &stage);
}

/* Events with their own shares: migrations (started, moved, failed), splits, failed migrations, balancer rounds and
 * failed rounds are each read newest first with their own limit, in one aggregate ($unionWith, 4.4+), so a busy
 * changelog never crowds the rounds or the failures out. Entries read twice (a failure is also a migration) count
 * once. */
bool
collect_sample_events (collect_t *c, snap_t *s, sh_error_t *err)
{
   bson_t *migrations =
      BCON_NEW ("what", "{", "$in", "[", "moveChunk.start", "moveChunk.from", "moveChunk.error", "]", "}");
   bson_t *splits = BCON_NEW ("what", "{", "$in", "[", "split", "multi-split", "]", "}");
   bson_t *failed = BCON_NEW ("$or", "[", "{", "what", "moveChunk.error", "}", "{", "what", "moveChunk.from",
                              "details.errmsg", "{", "$exists", BCON_BOOL (true), "}", "}", "{", "what",
                              "moveChunk.from", "details.note", "{", "$ne", "success", "}", "}", "]");
   bson_t *rounds = BCON_NEW ("what", "balancer.round");
   bson_t *failed_rounds = BCON_NEW ("what", "balancer.round", "$or", "[", "{", "details.errorOccured",
                                     BCON_BOOL (true), "}", "{", "details.errorOccurred", BCON_BOOL (true), "}", "]");
   bson_t cmd = BSON_INITIALIZER;
   bson_t pipeline, cursor, docs;
   bson_iter_t it;
   uint32_t k = 0;
   char seen[SNAP_EVENTS][SNAP_NAME];
   size_t nseen = 0;
   bool ok = false;

   BSON_APPEND_UTF8 (&cmd, "aggregate", "changelog");
   BSON_APPEND_ARRAY_BEGIN (&cmd, "pipeline", &pipeline);
   append_event_stages (&pipeline, &k, migrations, COLLECT_MIGRATIONS_FETCHED);
   append_event_union (&pipeline, &k, "changelog", splits, COLLECT_SPLITS_FETCHED);
   append_event_union (&pipeline, &k, "changelog", failed, COLLECT_FAILURES_FETCHED);
   append_event_union (&pipeline, &k, "actionlog", rounds, COLLECT_ROUNDS_FETCHED);
   append_event_union (&pipeline, &k, "actionlog", failed_rounds, COLLECT_FAILURES_FETCHED);
   bson_append_array_end (&cmd, &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&cmd, "cursor", &cursor);
   bson_append_document_end (&cmd, &cursor);
   if (!collect_run_docs (c, "config", &cmd, SNAP_EVENTS, &docs, err)) {
      ok = !collect_fatal (err);
      goto done;
   }
   if (bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it)) {
         bson_t d;
         char id[SNAP_NAME] = "";
         bson_iter_t f;
         bool dup = false;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d))
            continue;
         if (bson_iter_init_find (&f, &d, "_id")) {
            if (BSON_ITER_HOLDS_UTF8 (&f))
               bson_strncpy (id, bson_iter_utf8 (&f, NULL), sizeof id);
            else if (BSON_ITER_HOLDS_OID (&f))
               bson_oid_to_string (bson_iter_oid (&f), id);
         }
         for (size_t i = 0; id[0] && i < nseen && !dup; i++)
            dup = !strcmp (seen[i], id);
         if (dup)
            continue;
         if (nseen < SNAP_EVENTS)
            bson_strncpy (seen[nseen++], id, sizeof seen[0]);
         add_event (s, &d, !strcmp (docget_utf8 (&d, "what", ""), "balancer.round"), id);
      }
   }
   qsort (s->events, s->nevents, sizeof s->events[0], event_cmp);
   ok = true;
done:
   bson_destroy (migrations);
   bson_destroy (splits);
   bson_destroy (failed);
   bson_destroy (rounds);
   bson_destroy (failed_rounds);
   bson_destroy (&cmd);
   bson_destroy (&docs);
   return ok;
}

/* bound as relaxed Extended JSON into out; "" when it does not fit (a cut text would not parse). */
static void
migration_json (const bson_t *bound, char *out, size_t len)
{
   size_t n;
   char *json = bson_as_relaxed_extended_json (bound, &n);
   out[0] = '\0';
   if (json && n < len)
      memcpy (out, json, n + 1);
   bson_free (json);
}

/* One in-flight migration: a config.migrations document (before 6.0) or a donor's $currentOp row (its command). */
static void
add_migration (snap_t *s, const char *ns, const bson_t *d, const char *from, const char *to)
{
   snap_migration_t *m;
   bson_t mn, mx;
   s->balancer.migrations++;
   if (s->nmigs >= SNAP_MIGRATIONS)
      return;
   m = &s->migs[s->nmigs++];
   memset (m, 0, sizeof *m);
   bson_strncpy (m->ns, ns, sizeof m->ns);
   if (docget_sub (d, "min", BSON_TYPE_EOD, &mn)) {
      output_format_doc_line (&mn, m->min, sizeof m->min);
      migration_json (&mn, m->min_json, sizeof m->min_json);
   }
   if (docget_sub (d, "max", BSON_TYPE_EOD, &mx)) {
      output_format_doc_line (&mx, m->max, sizeof m->max);
      migration_json (&mx, m->max_json, sizeof m->max_json);
   }
   bson_strncpy (m->from, from, sizeof m->from);
   bson_strncpy (m->to, to, sizeof m->to);
}

/* Migrations in flight, as the server reports them. Before 6.0 the config server's migration manager persists each
 * one (balancer and manual alike) in config.migrations; from 6.0 it records none there, and each migration is a
 * _shardsvrMoveRange command running on its donor shard, seen through $currentOp. One command either way. A server
 * that refuses (no inprog privilege) leaves the count unknown (-1), never guessed. */
bool
collect_sample_migrations (collect_t *c, snap_t *s, sh_error_t *err)
{
   bool old = s->vmajor > 0 && s->vmajor < 6;
   bson_t *cmd;
   bson_t docs;
   bson_iter_t it;
   bool ok = false;

   if (old)
      cmd = BCON_NEW ("find", "migrations", "projection", "{", "ns", BCON_INT32 (1), "min", BCON_INT32 (1), "max",
                      BCON_INT32 (1), "fromShard", BCON_INT32 (1), "toShard", BCON_INT32 (1), "}");
   else
      cmd = BCON_NEW ("aggregate", BCON_INT32 (1), "pipeline", "[", "{", "$currentOp", "{", "allUsers",
                      BCON_BOOL (true), "idleConnections", BCON_BOOL (false), "}", "}", "{", "$match", "{", "$or", "[",
                      "{", "command._shardsvrMoveRange", "{", "$exists", BCON_BOOL (true), "}", "}", "{",
                      "command.moveChunk", "{", "$exists", BCON_BOOL (true), "}", "}", "]", "}", "}", "{", "$project",
                      "{", "shard", BCON_INT32 (1), "command", BCON_INT32 (1), "}", "}", "]", "cursor", "{", "}");
   s->balancer.migrations = 0;
   if (!collect_run_docs (c, old ? "config" : "admin", cmd, COLLECT_MIGRATIONS_MAX, &docs, err)) {
      s->balancer.migrations = -1;
      ok = !collect_fatal (err);
      sh_error_clear (err);
      goto done;
   }
   if (bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it)) {
         bson_t d, cm;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d))
            continue;
         if (old) {
            add_migration (s, docget_utf8 (&d, "ns", ""), &d, docget_utf8 (&d, "fromShard", "?"),
                           docget_utf8 (&d, "toShard", "?"));
         } else if (docget_sub (&d, "command", BSON_TYPE_EOD, &cm)) {
            const char *ns = docget_utf8 (&cm, "_shardsvrMoveRange", NULL);
            add_migration (s, ns ? ns : docget_utf8 (&cm, "moveChunk", ""), &cm,
                           docget_utf8 (&cm, "fromShard", docget_utf8 (&d, "shard", "?")),
                           docget_utf8 (&cm, "toShard", "?"));
         }
      }
   }
   ok = true;
done:
   bson_destroy (cmd);
   bson_destroy (&docs);
   return ok;
}

/* The databases a draining shard is still primary for: one $group over config.databases, sent only while some shard
 * drains (its reply has one document per draining shard). */
bool
collect_sample_drain_databases (collect_t *c, snap_t *s, sh_error_t *err)
{
   bson_t cmd = BSON_INITIALIZER;
   bson_t pipeline, stage, match, primary, in, group, cursor, docs;
   bson_t *n_acc = BCON_NEW ("$sum", BCON_INT32 (1));
   bson_iter_t it;
   uint32_t k = 0;
   bool ok = false;

   bson_init (&docs);
   for (size_t i = 0; i < s->nshards; i++)
      s->shards[i].drain.databases = s->shards[i].draining ? -1 : 0;
   BSON_APPEND_UTF8 (&cmd, "aggregate", "databases");
   BSON_APPEND_ARRAY_BEGIN (&cmd, "pipeline", &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "0", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$match", &match);
   BSON_APPEND_DOCUMENT_BEGIN (&match, "primary", &primary);
   BSON_APPEND_ARRAY_BEGIN (&primary, "$in", &in);
   for (size_t i = 0; i < s->nshards; i++) {
      char kb[16];
      const char *ks;
      if (!s->shards[i].draining)
         continue;
      bson_uint32_to_string (k++, &ks, kb, sizeof kb);
      BSON_APPEND_UTF8 (&in, ks, s->shards[i].name);
   }
   bson_append_array_end (&primary, &in);
   bson_append_document_end (&match, &primary);
   bson_append_document_end (&stage, &match);
   bson_append_document_end (&pipeline, &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "1", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$group", &group);
   BSON_APPEND_UTF8 (&group, "_id", "$primary");
   BSON_APPEND_DOCUMENT (&group, "n", n_acc);
   bson_append_document_end (&stage, &group);
   bson_append_document_end (&pipeline, &stage);
   bson_append_array_end (&cmd, &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&cmd, "cursor", &cursor);
   bson_append_document_end (&cmd, &cursor);
   if (k == 0) {
      ok = true;
      goto done;
   }
   bson_destroy (&docs);
   if (!collect_run_docs (c, "config", &cmd, 0, &docs, err)) {
      ok = !collect_fatal (err);
      sh_error_clear (err);
      goto done;
   }
   for (size_t i = 0; i < s->nshards; i++)
      if (s->shards[i].draining)
         s->shards[i].drain.databases = 0;
   if (bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it)) {
         bson_t d;
         int si;
         if (docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) &&
             (si = snap_shard_index (s, docget_utf8 (&d, "_id", ""))) >= 0)
            s->shards[si].drain.databases = docget_int (&d, "n", 0);
      }
   }
   ok = true;
done:
   bson_destroy (n_acc);
   bson_destroy (&cmd);
   bson_destroy (&docs);
   return ok;
}
