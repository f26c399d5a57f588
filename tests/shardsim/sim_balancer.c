/* shardsim's live balancer: rounds on an interval that split chunks at zone boundaries, move chunks off draining
 * shards and onto their zone's shards, then balance each zone by the version's policy (chunk counts against the
 * zone's rounded ideal before 6.0, a data-size difference of three chunk sizes from 6.0, moving about one chunk
 * size). Migrations take
 * --migration-ms, show in currentOp (and config.migrations before 6.0), and are logged in config.changelog; every
 * round is logged in config.actionlog. Honours balancerStop/Start, activeWindow, noBalance and allowMigrations.
 * The policy (what to move) is sim_balpolicy.c. Callers hold sim_g.lock. */
#include "tests/shardsim/sim_balancer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct sim_migration {
   char ns[256];
   bson_oid_t chunk_id;
   uint8_t *min; /* raw BSON */
   uint8_t *max;
   char from[64];
   char to[64];
   int64_t start_ms;
   int64_t end_ms;
   int64_t docs;
   int64_t bytes;
   int64_t opid;
   int32_t conn_id;
} sim_migration_t;

uint32_t
sim_rawlen (const uint8_t *raw)
{
   return (uint32_t) raw[0] | (uint32_t) raw[1] << 8 | (uint32_t) raw[2] << 16 | (uint32_t) raw[3] << 24;
}

static void
sim_mig_free (sim_migration_t *m)
{
   bson_free (m->min);
   bson_free (m->max);
   bson_free (m);
}

void
sim_balancer_free (void)
{
   for (size_t i = 0; i < sim_dyn.nmigs; i++) {
      sim_mig_free (sim_dyn.migs[i]);
   }
   bson_free (sim_dyn.migs);
   sim_dyn.migs = NULL;
   sim_dyn.nmigs = 0;
}

bool
sim_balancer_chunk_busy (const char *ns, const bson_oid_t *id)
{
   for (size_t i = 0; i < sim_dyn.nmigs; i++) {
      if (!strcmp (sim_dyn.migs[i]->ns, ns) && bson_oid_equal (&sim_dyn.migs[i]->chunk_id, id)) {
         return true;
      }
   }
   return false;
}

static bool
sim_shard_busy (const char *shard)
{
   for (size_t i = 0; i < sim_dyn.nmigs; i++) {
      if (!strcmp (sim_dyn.migs[i]->from, shard) || !strcmp (sim_dyn.migs[i]->to, shard)) {
         return true;
      }
   }
   return false;
}

/* "HH:MM" (hours 0-23, minutes 0-59) into minutes since midnight; -1 when malformed. */
static int
sim_hhmm (const char *s)
{
   int h, m, n = -1;
   if (!s || sscanf (s, "%2d:%2d%n", &h, &m, &n) != 2 || n < 0 || s[n] != '\0' || h < 0 || h > 23 || m < 0 || m > 59) {
      return -1;
   }
   return h * 60 + m;
}

/* Whether field is absent or holds a boolean or a number (bsonExtractBooleanFieldWithDefault). */
static bool
sim_bool_or_absent (const bson_t *doc, const char *field)
{
   bson_iter_t it;
   return !bson_iter_init_find (&it, doc, field) || BSON_ITER_HOLDS_BOOL (&it) || BSON_ITER_HOLDS_NUMBER (&it);
}

bool
sim_balancer_settings (char mode[16], int *win_start, int *win_stop)
{
   bson_t view, w;
   bson_iter_t it;
   bson_strncpy (mode, "full", 16);
   *win_start = *win_stop = -1;
   if (!sim_setting_view ("balancer", &view)) {
      return true; /* NoMatchingDocument: the defaults */
   }
   if (!sim_bool_or_absent (&view, "stopped")) {
      return false;
   }
   if (bson_iter_init_find (&it, &view, "stopped") && bson_iter_as_bool (&it)) {
      bson_strncpy (mode, "off", 16);
   } else if (bson_iter_init_find (&it, &view, "mode")) {
      /* kBalancerModes: full, autoSplitOnly, off up to 6.0; full, off from 7.0 */
      const char *m = BSON_ITER_HOLDS_UTF8 (&it) ? bson_iter_utf8 (&it, NULL) : NULL;
      if (!m || (strcmp (m, "full") != 0 && strcmp (m, "off") != 0 &&
                 (sim_ver_ge (70) || strcmp (m, "autoSplitOnly") != 0))) {
         return false; /* TypeMismatch, or BadValue "Invalid balancer mode" */
      }
      bson_strncpy (mode, m, 16);
   }
   if (bson_iter_init_find (&it, &view, "activeWindow")) {
      uint32_t l;
      const uint8_t *d;
      if (!BSON_ITER_HOLDS_DOCUMENT (&it)) {
         return false; /* TypeMismatch */
      }
      bson_iter_document (&it, &l, &d);
      if (!bson_init_static (&w, d, l) || bson_empty (&w)) {
         return false; /* "activeWindow not specified" */
      }
      int a = sim_hhmm (docget_utf8 (&w, "start", NULL)), b = sim_hhmm (docget_utf8 (&w, "stop", NULL));
      if (a < 0 || b < 0 || a == b) {
         return false; /* both must be given, as hh:mm, and differ */
      }
      *win_start = a;
      *win_stop = b;
   }
   return sim_bool_or_absent (&view, "_waitForDelete") && sim_bool_or_absent (&view, "attemptToBalanceJumboChunks");
}

/* Whether now (server-local time) is inside the window [start, stop] of sim_balancer_settings (always without one). */
static bool
sim_in_active_window (int start, int stop)
{
   if (start < 0) {
      return true;
   }
   time_t now = time (NULL);
   struct tm tm;
   localtime_r (&now, &tm);
   int cur = tm.tm_hour * 60 + tm.tm_min;
   return start < stop ? (cur >= start && cur < stop) : (cur >= start || cur < stop);
}

static bool
sim_attempt_jumbo (void)
{
   bson_t view;
   bson_iter_t it;
   return sim_setting_view ("balancer", &view) && bson_iter_init_find (&it, &view, "attemptToBalanceJumboChunks") &&
          bson_iter_as_bool (&it);
}

/* config.migrations _id: "<ns>-<field>_<value>…" of the chunk's min. */
static void
sim_migration_id (const char *ns, const bson_t *min, char *out, size_t outlen)
{
   bson_iter_t it;
   size_t o = (size_t) bson_snprintf (out, outlen, "%s-", ns);
   bson_iter_init (&it, min);
   while (bson_iter_next (&it) && o < outlen) {
      bson_t one = BSON_INITIALIZER;
      BSON_APPEND_VALUE (&one, "v", bson_iter_value (&it));
      char *s = sim_bson_str (&one);
      /* "{ v: <value> }" → "<value>" */
      size_t sl = strlen (s);
      const char *val = sl > 7 ? s + 5 : s;
      int vl = sl > 7 ? (int) (sl - 7) : (int) sl;
      o += (size_t) bson_snprintf (out + o, outlen - o, "%s_%.*s", bson_iter_key (&it), vl, val);
      bson_free (s);
      bson_destroy (&one);
   }
}

static void
sim_migrations_doc_remove (const char *id)
{
   sim_coll_t *m = sim_coll_get ("config", "migrations");
   bson_t filter = BSON_INITIALIZER;
   sim_hits_t hits = { 0 };
   bson_error_t err;
   BSON_APPEND_UTF8 (&filter, "_id", id);
   if (m && sim_coll_match (m, &filter, 0, &hits, &err)) {
      sim_coll_delete (m, &hits);
   }
   sim_hits_destroy (&hits);
   bson_destroy (&filter);
}

void
sim_round_details (bson_t *d, int64_t exec_ms, int32_t candidates, int32_t moved)
{
   BSON_APPEND_INT64 (d, "executionTimeMillis", exec_ms);
   BSON_APPEND_BOOL (d, sim_ver_ge (60) ? "errorOccurred" : "errorOccured", false);
   BSON_APPEND_INT32 (d, "candidateChunks", candidates);
   BSON_APPEND_INT32 (d, "chunksMoved", moved);
   if (sim_ver_ge (70)) {
      bson_t t;
      /* shardsim's selection visits every collection each round: none is kept in the imbalanced cache */
      BSON_APPEND_INT32 (d, "imbalancedCachedCollections", 0);
      BSON_APPEND_DOCUMENT_BEGIN (d, "times", &t);
      BSON_APPEND_INT64 (&t, "selectionTimeMillis", 0);
      BSON_APPEND_INT64 (&t, "throttleTimeMillis", 0);
      BSON_APPEND_INT64 (&t, "migrationTimeMillis", exec_ms);
      bson_append_document_end (d, &t);
   }
}

static void
sim_round_finish (int64_t now)
{
   bson_t d = BSON_INITIALIZER;
   sim_round_details (&d, now - sim_dyn.round_start_ms, sim_dyn.round_candidates, sim_dyn.round_moved);
   sim_changelog (true, "balancer.round", "", "config", &d, now);
   bson_destroy (&d);
   sim_dyn.in_round = false;
   sim_dyn.rounds++;
   pthread_cond_broadcast (&sim_dyn.round_done);
}

/* Commits (or aborts, when the chunk changed meanwhile) one finished migration. */
static void
sim_migration_finish (sim_migration_t *m, int64_t now)
{
   sim_shcoll_t sc;
   bson_t chunk, min, max;
   bson_init_static (&min, m->min, sim_rawlen (m->min));
   bson_init_static (&max, m->max, sim_rawlen (m->max));
   char mid[512];
   sim_migration_id (m->ns, &min, mid, sizeof mid);
   sim_migrations_doc_remove (mid);
   bool loaded = sim_shcoll_load (m->ns, &sc);
   bool have = loaded && sim_chunk_by_id (&m->chunk_id, &chunk);
   bool same = false;
   if (have) {
      bson_iter_t it;
      uint32_t l;
      const uint8_t *d;
      bson_t cmin, cmax;
      same = bson_iter_init_find (&it, &chunk, "min") && BSON_ITER_HOLDS_DOCUMENT (&it);
      if (same) {
         bson_iter_document (&it, &l, &d);
         bson_init_static (&cmin, d, l);
         same = bson_equal (&cmin, &min);
      }
      if (same && bson_iter_init_find (&it, &chunk, "max") && BSON_ITER_HOLDS_DOCUMENT (&it)) {
         bson_iter_document (&it, &l, &d);
         bson_init_static (&cmax, d, l);
         same = bson_equal (&cmax, &max);
      }
      same = same && bson_iter_init_find (&it, &chunk, "shard") && BSON_ITER_HOLDS_UTF8 (&it) &&
             !strcmp (bson_iter_utf8 (&it, NULL), m->from) && sim_shard_get (m->to, NULL);
   }
   char failed[256] = ""; /* simFailure migrations (sim_mfail.c): moveChunk.error is logged there */
   same = same && !sim_mfail_migration (m->ns, &min, &max, m->from, m->to, now, failed, sizeof failed);
   if (same) {
      sim_coll_t *coll = sim_coll_get_ns (m->ns);
      sim_ctab_t *t = coll ? sim_ctab_get (coll) : NULL;
      sim_migrate_commit (&sc, &chunk, m->to, false, m->docs, m->bytes, now - m->start_ms);
      if (t) {
         for (size_t i = 0; i < t->n; i++) {
            if (bson_oid_equal (&t->v[i].id, &m->chunk_id)) {
               bson_strncpy (t->v[i].shard, m->to, sizeof t->v[i].shard);
            }
         }
         sim_ctab_resync (t);
      }
      sim_dyn.migrations_done++;
      sim_dyn.round_moved++;
   } else if (loaded) {
      bson_t d = BSON_INITIALIZER;
      BSON_APPEND_INT32 (&d, "step 1 of 6", 0);
      BSON_APPEND_DOCUMENT (&d, "min", &min);
      BSON_APPEND_DOCUMENT (&d, "max", &max);
      BSON_APPEND_UTF8 (&d, "to", m->to);
      BSON_APPEND_UTF8 (&d, "from", m->from);
      BSON_APPEND_UTF8 (&d, "note", "aborted");
      BSON_APPEND_UTF8 (&d, "errmsg", failed[0] ? failed : "The chunk changed while it was being migrated");
      sim_changelog (false, "moveChunk.from", m->ns, m->from, &d, now);
      bson_destroy (&d);
      sim_dyn.migrations_aborted++;
   }
   if (have) {
      bson_destroy (&chunk);
   }
   sim_shcoll_destroy (&sc);
}

/* Starts migrating chunk i of t to shard to. */
void
sim_migration_start (sim_ctab_t *t, size_t i, const char *to, int64_t now)
{
   sim_chunk_t *c = &t->v[i];
   bson_t min, max, chunk;
   sim_chunk_min (c, &min);
   sim_chunk_max (c, &max);
   sim_migration_t *m = bson_malloc0 (sizeof *m);
   bson_strncpy (m->ns, t->sc.ns, sizeof m->ns);
   bson_oid_copy (&c->id, &m->chunk_id);
   m->min = bson_malloc (min.len);
   memcpy (m->min, bson_get_data (&min), min.len);
   m->max = bson_malloc (max.len);
   memcpy (m->max, bson_get_data (&max), max.len);
   bson_strncpy (m->from, c->shard, sizeof m->from);
   bson_strncpy (m->to, to, sizeof m->to);
   m->start_ms = now;
   m->end_ms = now + (sim_dyn.migration_ms > 0 ? sim_dyn.migration_ms : 0);
   m->docs = c->docs;
   m->bytes = c->bytes;
   m->opid = ++sim_g.next_opid;
   m->conn_id = 1000 + (int32_t) (m->opid % 100000);
   sim_migrate_log_start (&t->sc, &min, &max, m->from, m->to);
   if (!sim_ver_ge (60) && sim_chunk_by_id (&c->id, &chunk)) {
      /* 4.4/5.0 persist in-flight migrations. */
      char id[512];
      bson_iter_t it;
      bson_t doc = BSON_INITIALIZER, arr;
      sim_migration_id (m->ns, &min, id, sizeof id);
      BSON_APPEND_UTF8 (&doc, "_id", id);
      BSON_APPEND_UTF8 (&doc, "ns", m->ns);
      BSON_APPEND_DOCUMENT (&doc, "min", &min);
      BSON_APPEND_DOCUMENT (&doc, "max", &max);
      BSON_APPEND_UTF8 (&doc, "fromShard", m->from);
      BSON_APPEND_UTF8 (&doc, "toShard", m->to);
      BSON_APPEND_ARRAY_BEGIN (&doc, "chunkVersion", &arr);
      if (bson_iter_init_find (&it, &chunk, "lastmod")) {
         BSON_APPEND_VALUE (&arr, "0", bson_iter_value (&it));
      }
      BSON_APPEND_OID (&arr, "1", &t->sc.epoch);
      bson_append_array_end (&doc, &arr);
      BSON_APPEND_BOOL (&doc, "waitForDelete", false);
      BSON_APPEND_UTF8 (&doc, "forceJumbo", "doNotForceJumbo");
      sim_coll_insert (sim_coll_ensure ("config", "migrations"), &doc);
      bson_destroy (&doc);
      bson_destroy (&chunk);
   }
   sim_dyn.migs = bson_realloc (sim_dyn.migs, (sim_dyn.nmigs + 1) * sizeof *sim_dyn.migs);
   sim_dyn.migs[sim_dyn.nmigs++] = m;
   sim_dyn.round_candidates++;
}

/* ---- the policy ---- */

void
sim_balancer_round (int64_t now)
{
   simq_docs_t colls, shard_docs;
   bson_error_t err;
   if (sim_dyn.in_round) {
      return;
   }
   if (sim_mfail_round (now)) {
      sim_dyn.rounds++; /* a failed round (simFailure, sim_mfail.c): logged there, nothing selected */
      return;
   }
   simq_docs_init (&colls);
   simq_docs_init (&shard_docs);
   sim_dyn.in_round = true;
   sim_dyn.round_start_ms = now;
   sim_dyn.round_candidates = 0;
   sim_dyn.round_moved = 0;
   sim_shards_list (&shard_docs);
   sim_bshard_t *shards = bson_malloc0 ((shard_docs.n + 1) * sizeof *shards);
   for (size_t s = 0; s < shard_docs.n; s++) {
      bson_iter_t it;
      if (bson_iter_init_find (&it, shard_docs.v[s], "_id") && BSON_ITER_HOLDS_UTF8 (&it)) {
         bson_strncpy (shards[s].name, bson_iter_utf8 (&it, NULL), sizeof shards[s].name);
      }
      shards[s].draining = bson_iter_init_find (&it, shard_docs.v[s], "draining") && bson_iter_as_bool (&it);
      shards[s].used = sim_shard_busy (shards[s].name);
   }
   bool jumbo_ok = sim_attempt_jumbo ();
   /* The automerger (7.0+, AutoMergerPolicy): a pass when it is enabled (the first round with balancing on), then
    * every autoMergerIntervalSecs (3600 s: 360 rounds of 10 s; simBalancer autoMergerRounds changes it). */
   bool merge = false;
   if (sim_ver_ge (70) && sim_automerge_enabled ()) {
      int64_t every = sim_dyn.automerge_rounds > 0 ? sim_dyn.automerge_rounds : 360;
      if (!sim_dyn.automerge_on || sim_dyn.rounds - sim_dyn.automerge_last >= every) {
         merge = true;
         sim_dyn.automerge_on = true;
         sim_dyn.automerge_last = sim_dyn.rounds;
      }
   } else {
      sim_dyn.automerge_on = false;
   }
   sim_coll_t *cc = sim_coll_get ("config", "collections");
   if (cc) {
      sim_coll_collect (cc, NULL, &colls, &err);
   }
   for (size_t k = 0; k < colls.n; k++) {
      bson_iter_t it;
      if (!bson_iter_init_find (&it, colls.v[k], "_id") || !BSON_ITER_HOLDS_UTF8 (&it)) {
         continue;
      }
      char ns[256];
      bson_strncpy (ns, bson_iter_utf8 (&it, NULL), sizeof ns);
      if ((bson_iter_init_find (&it, colls.v[k], "noBalance") && bson_iter_as_bool (&it)) ||
          (bson_iter_init_find (&it, colls.v[k], "dropped") && bson_iter_as_bool (&it)) ||
          (bson_iter_init_find (&it, colls.v[k], "unsplittable") && bson_iter_as_bool (&it))) {
         continue;
      }
      sim_coll_t *coll = sim_coll_get_ns (ns);
      sim_ctab_t *t = coll ? sim_ctab_get (coll) : NULL;
      if (t && merge) {
         sim_automerge (coll, t, now);
      }
      if (t) {
         sim_balance_collection (coll, t, shards, shard_docs.n, jumbo_ok, now);
      }
   }
   bson_free (shards);
   simq_docs_clear (&colls);
   simq_docs_clear (&shard_docs);
   /* Migrations without a duration commit at once. */
   sim_balancer_tick (now);
   if (sim_dyn.in_round && sim_dyn.nmigs == 0) {
      sim_round_finish (clock_wall_ms ());
   }
}

void
sim_balancer_tick (int64_t now)
{
   for (size_t i = 0; i < sim_dyn.nmigs;) {
      sim_migration_t *m = sim_dyn.migs[i];
      if (now < m->end_ms) {
         i++;
         continue;
      }
      memmove (&sim_dyn.migs[i], &sim_dyn.migs[i + 1], (sim_dyn.nmigs - i - 1) * sizeof *sim_dyn.migs);
      sim_dyn.nmigs--;
      sim_migration_finish (m, now);
      sim_mig_free (m);
      if (sim_dyn.nmigs == 0 && sim_dyn.in_round) {
         sim_round_finish (now);
      }
   }
   if (!sim_dyn.live || sim_dyn.in_round || now < sim_dyn.next_round_ms) {
      return;
   }
   sim_dyn.next_round_ms = now + (sim_dyn.balancer_interval_ms > 0 ? sim_dyn.balancer_interval_ms : 10000);
   /* Balancer::_mainThread: a round whose settings do not parse (BalancerSettingsType::fromBSON) is skipped, as is
    * one with balancing off or outside the window; each still ends a round (_endRound). */
   char mode[16];
   int ws, we;
   bool parsed = sim_balancer_settings (mode, &ws, &we);
   if (!parsed || strcmp (mode, "full") != 0 || !sim_in_active_window (ws, we)) {
      if (parsed) {
         sim_dyn.automerge_on = false; /* balancing disabled: AutoMergerPolicy::disable */
      }
      sim_dyn.rounds_skipped++;
      return;
   }
   sim_balancer_round (now);
}

bool
sim_balancer_wait_round (int64_t deadline_ms)
{
   while (sim_dyn.in_round && !sim_g.shutting_down) {
      int64_t now = clock_wall_ms ();
      if (now >= deadline_ms) {
         return false;
      }
      int64_t until = deadline_ms - now > 100 ? now + 100 : deadline_ms;
      struct timespec ts = { .tv_sec = (time_t) (until / 1000), .tv_nsec = (long) (until % 1000) * 1000000L };
      pthread_cond_timedwait (&sim_dyn.round_done, &sim_g.lock, &ts);
   }
   return true;
}

/* The command a donor shows in $currentOp for migration m, in the field order and types the sender writes:
 * 6.0+ the config server's _shardsvrMoveRange (s/request_types/move_range_request.idl ShardsvrMoveRange: the
 * MoveRangeRequestBase fields, then epoch, fromShard, maxChunkSizeBytes, forceJumbo as the int enum); 4.4/5.0 the
 * balancer's moveChunk (s/request_types/move_chunk_request.cpp MoveChunkRequest::appendAsCommand: shardVersion
 * [chunk version, epoch], epoch, configdb, fromShard, toShard, min, max, maxChunkSizeBytes, waitForDelete,
 * forceJumbo an int). secondaryThrottle is left out as the default settings leave it. */
static void
sim_migration_command (const sim_migration_t *m, const bson_t *min, const bson_t *max, bson_t *cmd)
{
   sim_shcoll_t sc;
   bool sharded = sim_shcoll_load (m->ns, &sc);
   int64_t max_bytes = sharded ? sim_chunk_size_bytes (&sc) : 128 * 1024 * 1024;
   bson_oid_t epoch;
   if (sharded) {
      bson_oid_copy (&sc.epoch, &epoch);
   } else {
      bson_oid_init_from_string (&epoch, "000000000000000000000000");
   }
   if (sim_ver_ge (60)) {
      BSON_APPEND_UTF8 (cmd, "_shardsvrMoveRange", m->ns);
      BSON_APPEND_UTF8 (cmd, "toShard", m->to);
      BSON_APPEND_DOCUMENT (cmd, "min", min);
      BSON_APPEND_DOCUMENT (cmd, "max", max);
      BSON_APPEND_BOOL (cmd, "waitForDelete", false);
      BSON_APPEND_OID (cmd, "epoch", &epoch);
      BSON_APPEND_UTF8 (cmd, "fromShard", m->from);
      BSON_APPEND_INT64 (cmd, "maxChunkSizeBytes", max_bytes);
      BSON_APPEND_INT32 (cmd, "forceJumbo", 0);
   } else {
      bson_t chunk, arr;
      bson_iter_t it;
      BSON_APPEND_UTF8 (cmd, "moveChunk", m->ns);
      BSON_APPEND_ARRAY_BEGIN (cmd, "shardVersion", &arr);
      bool versioned = false;
      if (sharded && sim_chunk_find (&sc, min, &chunk, NULL)) {
         if (bson_iter_init_find (&it, &chunk, "lastmod") && BSON_ITER_HOLDS_TIMESTAMP (&it)) {
            BSON_APPEND_VALUE (&arr, "0", bson_iter_value (&it));
            versioned = true;
         }
         bson_destroy (&chunk);
      }
      if (!versioned) {
         BSON_APPEND_TIMESTAMP (&arr, "0", 0, 0);
      }
      BSON_APPEND_OID (&arr, "1", &epoch);
      bson_append_array_end (cmd, &arr);
      BSON_APPEND_OID (cmd, "epoch", &epoch);
      BSON_APPEND_UTF8 (cmd, "configdb", "configRepl/127.0.0.1:27100");
      BSON_APPEND_UTF8 (cmd, "fromShard", m->from);
      BSON_APPEND_UTF8 (cmd, "toShard", m->to);
      BSON_APPEND_DOCUMENT (cmd, "min", min);
      BSON_APPEND_DOCUMENT (cmd, "max", max);
      BSON_APPEND_INT64 (cmd, "maxChunkSizeBytes", max_bytes);
      BSON_APPEND_BOOL (cmd, "waitForDelete", false);
      BSON_APPEND_INT32 (cmd, "forceJumbo", 0);
   }
   sim_shcoll_destroy (&sc);
}

void
sim_balancer_current_op (simq_docs_t *out)
{
   int64_t now = clock_wall_ms ();
   for (size_t i = 0; i < sim_dyn.nmigs; i++) {
      sim_migration_t *m = sim_dyn.migs[i];
      bson_t *d = bson_new ();
      bson_t cmd, min, max, sdoc;
      bson_iter_t it;
      char host[128] = "", desc[32], opid[96];
      bson_init_static (&min, m->min, sim_rawlen (m->min));
      bson_init_static (&max, m->max, sim_rawlen (m->max));
      if (sim_shard_get (m->from, &sdoc)) {
         if (bson_iter_init_find (&it, &sdoc, "host") && BSON_ITER_HOLDS_UTF8 (&it)) {
            const char *h = bson_iter_utf8 (&it, NULL);
            const char *slash = strchr (h, '/');
            bson_strncpy (host, slash ? slash + 1 : h, sizeof host);
            char *comma = strchr (host, ',');
            if (comma) {
               *comma = '\0';
            }
         }
         bson_destroy (&sdoc);
      }
      bson_snprintf (desc, sizeof desc, "conn%d", m->conn_id);
      bson_snprintf (opid, sizeof opid, "%s:%lld", m->from, (long long) m->opid);
      int64_t run_us = (now - m->start_ms) * 1000;
      int64_t total = m->end_ms - m->start_ms;
      int step = total > 0 ? 1 + (int) ((now - m->start_ms) * 5 / total) : 5;
      char msg[32];
      bson_snprintf (msg, sizeof msg, "step %d of 6", step > 5 ? 5 : step);
      BSON_APPEND_UTF8 (d, "shard", m->from);
      BSON_APPEND_UTF8 (d, "type", "op");
      BSON_APPEND_UTF8 (d, "host", host);
      BSON_APPEND_UTF8 (d, "desc", desc);
      BSON_APPEND_INT32 (d, "connectionId", m->conn_id);
      BSON_APPEND_UTF8 (d, "client_s", "127.0.0.1:27100");
      BSON_APPEND_BOOL (d, "active", true);
      BSON_APPEND_UTF8 (d, "currentOpTime", "1970-01-01T00:00:00.000+00:00");
      BSON_APPEND_UTF8 (d, "opid", opid);
      BSON_APPEND_INT64 (d, "secs_running", run_us / 1000000);
      BSON_APPEND_INT64 (d, "microsecs_running", run_us);
      BSON_APPEND_UTF8 (d, "op", "command");
      BSON_APPEND_UTF8 (d, "ns", "admin.$cmd");
      BSON_APPEND_DOCUMENT_BEGIN (d, "command", &cmd);
      sim_migration_command (m, &min, &max, &cmd);
      BSON_APPEND_UTF8 (&cmd, "$db", "admin");
      bson_append_document_end (d, &cmd);
      BSON_APPEND_UTF8 (d, "msg", msg);
      BSON_APPEND_INT32 (d, "numYields", 0);
      simq_docs_push_owned (out, d);
   }
}

int
sim_balancer_imbalanced (const char *ns)
{
   sim_coll_t *coll = sim_coll_get_ns (ns);
   sim_ctab_t *t = coll ? sim_ctab_get (coll) : NULL;
   simq_docs_t shard_docs;
   int imbalanced = 0;
   if (!t) {
      return -1;
   }
   if (!t->n) {
      return 0;
   }
   simq_docs_init (&shard_docs);
   sim_shards_list (&shard_docs);
   sim_bshard_t *shards = bson_malloc0 ((shard_docs.n + 1) * sizeof *shards);
   for (size_t s = 0; s < shard_docs.n; s++) {
      bson_iter_t it;
      if (bson_iter_init_find (&it, shard_docs.v[s], "_id") && BSON_ITER_HOLDS_UTF8 (&it)) {
         bson_strncpy (shards[s].name, bson_iter_utf8 (&it, NULL), sizeof shards[s].name);
      }
      shards[s].draining = bson_iter_init_find (&it, shard_docs.v[s], "draining") && bson_iter_as_bool (&it);
   }
   char (*zones)[128] = bson_malloc (t->n * sizeof *zones);
   sim_chunk_zones (t, zones);
   int64_t threshold = 3 * sim_chunk_size_bytes (&t->sc);
   for (size_t g = 0; g < t->n && !imbalanced; g++) {
      int64_t hi = -1, lo = INT64_MAX;
      if (!sim_ver_ge (60)) {
         /* a migration needs a chunk of the zone on the donor that is not flagged jumbo */
         sim_bshard_t *from, *to;
         if (sim_count_policy_pick (t, zones, shards, shard_docs.n, zones[g], &from, &to)) {
            for (size_t i = 0; i < t->n && !imbalanced; i++) {
               imbalanced = !t->v[i].jumbo && !strcmp (t->v[i].shard, from->name) && !strcmp (zones[i], zones[g]);
            }
         }
         continue;
      }
      for (size_t s = 0; s < shard_docs.n; s++) {
         if (!sim_eligible (&shards[s], zones[g])) {
            continue;
         }
         int64_t l = sim_load (t, zones, shards[s].name, zones[g]);
         hi = l > hi ? l : hi;
         lo = l < lo ? l : lo;
      }
      imbalanced = hi >= 0 && lo != INT64_MAX && hi - lo >= threshold;
   }
   bson_free (zones);
   bson_free (shards);
   simq_docs_clear (&shard_docs);
   return imbalanced;
}

/* { simBalancer: "status" | "round" | "live", [enabled], [intervalMs], [migrationMs] } */
void
sim_cmd_sim_balancer (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   bson_iter_init (&it, ctx->cmd);
   bson_iter_next (&it);
   const char *what = BSON_ITER_HOLDS_UTF8 (&it) ? bson_iter_utf8 (&it, NULL) : "status";
   int64_t now = clock_wall_ms ();
   if (!strcmp (what, "round")) {
      sim_balancer_round (now);
   } else if (!strcmp (what, "live")) {
      sim_dyn.live = !bson_iter_init_find (&it, ctx->cmd, "enabled") || bson_iter_as_bool (&it);
      if (bson_iter_init_find (&it, ctx->cmd, "intervalMs") && BSON_ITER_HOLDS_NUMBER (&it)) {
         sim_dyn.balancer_interval_ms = bson_iter_as_int64 (&it);
      }
      if (bson_iter_init_find (&it, ctx->cmd, "migrationMs") && BSON_ITER_HOLDS_NUMBER (&it)) {
         sim_dyn.migration_ms = bson_iter_as_int64 (&it);
      }
      if (bson_iter_init_find (&it, ctx->cmd, "autoMergerRounds") && BSON_ITER_HOLDS_NUMBER (&it)) {
         int64_t r = bson_iter_as_int64 (&it);
         if (r < 1 || r > 1000000) {
            sim_reply_error (reply, 2, "simBalancer: autoMergerRounds must be between 1 and 1000000");
            return;
         }
         sim_dyn.automerge_rounds = r;
      }
      sim_dyn.next_round_ms = now;
   } else if (strcmp (what, "status") != 0) {
      sim_reply_error (reply, 2, "simBalancer: unknown action '%s' (status, round, live)", what);
      return;
   }
   bson_t arr;
   BSON_APPEND_BOOL (reply, "live", sim_dyn.live);
   BSON_APPEND_INT64 (reply, "intervalMs", sim_dyn.balancer_interval_ms > 0 ? sim_dyn.balancer_interval_ms : 10000);
   BSON_APPEND_INT64 (reply, "migrationMs", sim_dyn.migration_ms);
   BSON_APPEND_BOOL (reply, "inRound", sim_dyn.in_round);
   BSON_APPEND_INT64 (reply, "rounds", sim_dyn.rounds);
   BSON_APPEND_INT64 (reply, "splits", sim_dyn.splits);
   BSON_APPEND_INT64 (reply, "migrationsDone", sim_dyn.migrations_done);
   BSON_APPEND_INT64 (reply, "migrationsAborted", sim_dyn.migrations_aborted);
   BSON_APPEND_ARRAY_BEGIN (reply, "migrations", &arr);
   for (size_t i = 0; i < sim_dyn.nmigs; i++) {
      sim_migration_t *m = sim_dyn.migs[i];
      bson_t e, min, max;
      char k[16];
      const char *kp;
      bson_init_static (&min, m->min, sim_rawlen (m->min));
      bson_init_static (&max, m->max, sim_rawlen (m->max));
      bson_uint32_to_string ((uint32_t) i, &kp, k, sizeof k);
      BSON_APPEND_DOCUMENT_BEGIN (&arr, kp, &e);
      BSON_APPEND_UTF8 (&e, "ns", m->ns);
      BSON_APPEND_DOCUMENT (&e, "min", &min);
      BSON_APPEND_DOCUMENT (&e, "max", &max);
      BSON_APPEND_UTF8 (&e, "from", m->from);
      BSON_APPEND_UTF8 (&e, "to", m->to);
      BSON_APPEND_INT64 (&e, "remainingMs", m->end_ms > now ? m->end_ms - now : 0);
      bson_append_document_end (&arr, &e);
   }
   bson_append_array_end (reply, &arr);
   sim_reply_ok (reply);
}

bool
sim_balancer_kill_op (const char *shard, int64_t opid)
{
   for (size_t i = 0; i < sim_dyn.nmigs; i++) {
      sim_migration_t *m = sim_dyn.migs[i];
      if (m->opid != opid || strcmp (m->from, shard) != 0) {
         continue;
      }
      /* the donor's migration is interrupted: the chunk stays where it was and the donor logs the abort */
      int64_t now = clock_wall_ms ();
      bson_t d = BSON_INITIALIZER, min, max;
      char mid[512];
      bson_init_static (&min, m->min, sim_rawlen (m->min));
      bson_init_static (&max, m->max, sim_rawlen (m->max));
      sim_migration_id (m->ns, &min, mid, sizeof mid);
      sim_migrations_doc_remove (mid);
      BSON_APPEND_INT32 (&d, "step 1 of 6", 0);
      BSON_APPEND_DOCUMENT (&d, "min", &min);
      BSON_APPEND_DOCUMENT (&d, "max", &max);
      BSON_APPEND_UTF8 (&d, "to", m->to);
      BSON_APPEND_UTF8 (&d, "from", m->from);
      BSON_APPEND_UTF8 (&d, "note", "aborted");
      BSON_APPEND_UTF8 (&d, "errmsg", "operation was interrupted");
      sim_changelog (false, "moveChunk.from", m->ns, m->from, &d, now);
      bson_destroy (&d);
      memmove (&sim_dyn.migs[i], &sim_dyn.migs[i + 1], (sim_dyn.nmigs - i - 1) * sizeof *sim_dyn.migs);
      sim_dyn.nmigs--;
      sim_mig_free (m);
      sim_dyn.migrations_aborted++;
      if (sim_dyn.nmigs == 0 && sim_dyn.in_round) {
         sim_round_finish (now);
      }
      return true;
   }
   return false;
}
