/* shardsim's live balancer policy: which collection and chunk a round moves (the shards' load, zones and their
 * boundaries, the count and data-size policies of each version, trimming to the chunk size) and the automerger.
 * sim_balancer.c runs the rounds and the migrations. Callers hold sim_g.lock. */
#include "tests/shardsim/sim_balancer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Zone of every chunk ("" when none), into zones[i] (size 128 each). */
void
sim_chunk_zones (const sim_ctab_t *t, char (*zones)[128])
{
   for (size_t i = 0; i < t->n; i++) {
      bson_t min, max;
      sim_chunk_min (&t->v[i], &min);
      sim_chunk_max (&t->v[i], &max);
      if (!sim_zone_of (t->sc.ns, &min, &max, zones[i], 128)) {
         zones[i][0] = '\0';
      }
   }
}

bool
sim_eligible (const sim_bshard_t *s, const char *zone)
{
   return !s->draining && (!zone[0] || sim_shard_in_zone (s->name, zone));
}

/* Load of shard s for the chunks of zone group zone: chunk count (before 6.0) or bytes (6.0+). */
int64_t
sim_load (const sim_ctab_t *t, char (*zones)[128], const char *shard, const char *zone)
{
   int64_t load = 0;
   for (size_t i = 0; i < t->n; i++) {
      if (!strcmp (t->v[i].shard, shard) && !strcmp (zones[i], zone)) {
         load += sim_ver_ge (60) ? t->v[i].bytes : 1;
      }
   }
   return load;
}

/* The least loaded eligible, unused shard for zone (NULL when none). */
static sim_bshard_t *
sim_least_loaded (const sim_ctab_t *t, char (*zones)[128], sim_bshard_t *shards, size_t nshards, const char *zone,
                  const char *except)
{
   sim_bshard_t *best = NULL;
   int64_t best_load = INT64_MAX;
   for (size_t s = 0; s < nshards; s++) {
      if (shards[s].used || !sim_eligible (&shards[s], zone) || (except && !strcmp (shards[s].name, except))) {
         continue;
      }
      int64_t l = sim_load (t, zones, shards[s].name, zone);
      if (l < best_load) {
         best_load = l;
         best = &shards[s];
      }
   }
   return best;
}

static sim_bshard_t *
sim_find_shard (sim_bshard_t *shards, size_t nshards, const char *name)
{
   for (size_t s = 0; s < nshards; s++) {
      if (!strcmp (shards[s].name, name)) {
         return &shards[s];
      }
   }
   return NULL;
}

/* 4.4/5.0 chunk-count policy for one zone group (BalancerPolicy::balance, step 3, and _singleZoneBalance): ideal =
 * roundf (chunks of the zone / shards of the zone), where the group outside all zones counts every chunk of the
 * collection over every shard; the donor is the available shard with most chunks of the group (draining or not), the
 * recipient the least loaded suitable one (not draining, in the zone); a move happens when the donor holds more than
 * ideal and the recipient fewer (kDefaultImbalanceThreshold = 1). */
bool
sim_count_policy_pick (const sim_ctab_t *t, char (*zones)[128], sim_bshard_t *shards, size_t nshards, const char *zone,
                       sim_bshard_t **from, sim_bshard_t **to)
{
   size_t total = 0, nzs = 0;
   if (!zone[0]) {
      total = t->n;
      nzs = nshards;
   } else {
      for (size_t i = 0; i < t->n; i++) {
         total += !strcmp (zones[i], zone);
      }
      for (size_t k = 0; k < nshards; k++) {
         nzs += sim_shard_in_zone (shards[k].name, zone);
      }
   }
   if (nzs == 0) {
      return false; /* a zone without shards is skipped */
   }
   int64_t ideal = (int64_t) roundf ((float) total / (float) nzs);
   sim_bshard_t *donor = NULL;
   int64_t max = 0;
   for (size_t k = 0; k < nshards; k++) {
      if (shards[k].used) {
         continue;
      }
      int64_t l = sim_load (t, zones, shards[k].name, zone);
      if (l > max) {
         max = l;
         donor = &shards[k];
      }
   }
   if (!donor || max <= ideal) {
      return false;
   }
   sim_bshard_t *recipient = sim_least_loaded (t, zones, shards, nshards, zone, NULL);
   if (!recipient || sim_load (t, zones, recipient->name, zone) >= ideal) {
      return false;
   }
   *from = donor;
   *to = recipient;
   return true;
}

/* 6.0+: makes chunk i of t at most about one chunk size by splitting off its first ~chunk size of data. Returns false
 * when the chunk cannot be moved (its first key alone is over the chunk size: flagged jumbo). */
static bool
sim_trim_to_chunk_size (sim_coll_t *coll, sim_ctab_t *t, size_t i, int64_t cs, bool force_jumbo)
{
   sim_keys_t ks;
   bool ok = true;
   sim_ctab_chunk_keys (coll, t, i, &ks);
   const sim_keyent_t *v = ks.v;
   size_t n = ks.n;
   /* Where each run of equal keys starts. */
   size_t first_end = 1, last_start = 0;
   int64_t first_bytes = n ? v[0].size : 0;
   for (size_t k = 1; k < n; k++) {
      if (sim_keyent_cmp (&v[k], &v[k - 1]) != 0) {
         last_start = k;
      }
   }
   while (first_end < n && sim_keyent_cmp (&v[first_end], &v[0]) == 0) {
      first_bytes += v[first_end].size;
      first_end++;
   }
   size_t at = 0;
   if (first_bytes > cs) {
      /* The smallest value alone is over the chunk size: it becomes its own chunk, flagged jumbo (the real
       * migration would fail with ChunkTooBig). */
      if (first_end < n) {
         bson_t *pt = bson_new_from_data (v[first_end].key, sim_rawlen (v[first_end].key));
         sim_ctab_split (coll, i, &pt, 1, NULL, NULL);
         bson_destroy (pt);
      }
      if (!force_jumbo) {
         /* attemptToBalanceJumboChunks: the donor clones it anyway (ForceJumbo::kForceBalancer) */
         sim_ctab_mark_jumbo (t, i);
         ok = false;
      }
   } else {
      int64_t acc = 0;
      for (size_t k = 0; k < n && !at; k++) {
         if (k > 0 && acc >= cs && sim_keyent_cmp (&v[k], &v[k - 1]) != 0) {
            at = k;
         }
         acc += v[k].size;
      }
      if (!at && last_start > 0) {
         at = last_start; /* the last value runs past one chunk size: move what comes before it */
      }
      if (at) {
         bson_t *pt = bson_new_from_data (v[at].key, sim_rawlen (v[at].key));
         sim_ctab_split (coll, i, &pt, 1, NULL, NULL);
         bson_destroy (pt);
      }
   }
   sim_keys_free (&ks);
   return ok;
}

/* Splits chunks of t that straddle a zone range boundary (the balancer does this before moving anything). */
static void
sim_split_zone_boundaries (sim_coll_t *coll, sim_ctab_t *t)
{
   sim_coll_t *tags = sim_coll_get ("config", "tags");
   bson_t filter = BSON_INITIALIZER;
   sim_hits_t hits = { 0 };
   bson_error_t err;
   simq_docs_t bounds;
   simq_docs_init (&bounds);
   BSON_APPEND_UTF8 (&filter, "ns", t->sc.ns);
   if (tags && sim_coll_match (tags, &filter, 0, &hits, &err)) {
      for (size_t h = 0; h < hits.n; h++) {
         bson_t view;
         bson_iter_t it;
         sim_coll_view (tags, hits.v[h], &view);
         static const char *fields[] = { "min", "max" };
         for (int f = 0; f < 2; f++) {
            uint32_t l;
            const uint8_t *d;
            bson_t b;
            if (bson_iter_init_find (&it, &view, fields[f]) && BSON_ITER_HOLDS_DOCUMENT (&it)) {
               bson_iter_document (&it, &l, &d);
               if (bson_init_static (&b, d, l)) {
                  simq_docs_push_copy (&bounds, &b);
               }
            }
         }
      }
   }
   for (size_t k = 0; k < bounds.n; k++) {
      size_t i = sim_ctab_locate (t, bounds.v[k]);
      if (i == SIZE_MAX) {
         continue;
      }
      bson_t min;
      sim_chunk_min (&t->v[i], &min);
      if (order_docs (&min, bounds.v[k]) != 0) {
         bson_t *pt = bounds.v[k];
         sim_ctab_split (coll, i, &pt, 1, NULL, NULL);
      }
   }
   simq_docs_clear (&bounds);
   sim_hits_destroy (&hits);
   bson_destroy (&filter);
}

/* First movable chunk of zone group zone on shard: not busy, with data in 6.0+, and never one flagged jumbo
 * (BalancerPolicy::balance skips them in every step; attemptToBalanceJumboChunks only forces the donor to clone a
 * chunk that turns out too big). */
static size_t
sim_pick_chunk (const sim_ctab_t *t, char (*zones)[128], const char *shard, const char *zone)
{
   for (size_t i = 0; i < t->n; i++) {
      const sim_chunk_t *c = &t->v[i];
      if (strcmp (c->shard, shard) != 0 || strcmp (zones[i], zone) != 0 || c->jumbo ||
          sim_balancer_chunk_busy (t->sc.ns, &c->id) || (sim_ver_ge (60) && c->bytes == 0)) {
         continue;
      }
      return i;
   }
   return SIZE_MAX;
}

/* 4.4/5.0: the donor refuses a chunk too big to move (ChunkTooBig, unless attemptToBalanceJumboChunks forces it) and
 * the balancer then runs _splitOrMarkJumbo on it instead of moving it. Returns true when the move failed so; zones
 * are recomputed when the chunk was split. */
static bool
sim_old_move_fails (sim_coll_t *coll, sim_ctab_t *t, size_t i, bool jumbo_ok, char (**zones)[128])
{
   if (sim_ver_ge (60) || jumbo_ok || !coll || !sim_chunk_too_big_to_move (t, i)) {
      return false;
   }
   if (sim_split_or_mark_jumbo (coll, i) > 0) {
      *zones = bson_realloc (*zones, t->n * sizeof **zones);
      sim_chunk_zones (t, *zones);
   }
   return true;
}

void
sim_balance_collection (sim_coll_t *coll, sim_ctab_t *t, sim_bshard_t *shards, size_t nshards, bool jumbo_ok,
                        int64_t now)
{
   if (sim_migrations_forbidden (&t->sc.doc)) {
      return;
   }
   if (coll) {
      sim_split_zone_boundaries (coll, t);
   }
   if (!t->n) {
      return;
   }
   int64_t cs = sim_chunk_size_bytes (&t->sc);
   char (*zones)[128] = bson_malloc (t->n * sizeof *zones);
   sim_chunk_zones (t, zones);
   /* 1. Draining shards and zone violations. */
   for (size_t i = 0; i < t->n; i++) {
      sim_chunk_t *c = &t->v[i];
      sim_bshard_t *owner = sim_find_shard (shards, nshards, c->shard);
      bool draining = owner && owner->draining;
      bool violation = zones[i][0] && !sim_shard_in_zone (c->shard, zones[i]);
      if ((!draining && !violation) || (owner && owner->used) || c->jumbo ||
          sim_balancer_chunk_busy (t->sc.ns, &c->id)) {
         continue;
      }
      sim_bshard_t *to = sim_least_loaded (t, zones, shards, nshards, zones[i], c->shard);
      if (to) {
         if (owner) {
            owner->used = true;
         }
         to->used = true;
         size_t before = t->n;
         if (sim_old_move_fails (coll, t, i, jumbo_ok, &zones)) {
            i += t->n - before; /* the pieces are this round's no more */
            continue;
         }
         sim_migration_start (t, i, to->name, now);
      }
   }
   /* 2. Balance every zone group ("" = chunks outside all zones). */
   for (size_t g = 0; g < t->n; g++) {
      bool seen = false;
      for (size_t h = 0; h < g && !seen; h++) {
         seen = !strcmp (zones[h], zones[g]);
      }
      if (seen) {
         continue;
      }
      char zone[128]; /* a copy: zones is reallocated when chunks are split below */
      bson_strncpy (zone, zones[g], sizeof zone);
      for (;;) {
         sim_bshard_t *donor = NULL, *recipient = NULL;
         int64_t hi = -1, lo = INT64_MAX;
         if (!sim_ver_ge (60)) {
            if (!sim_count_policy_pick (t, zones, shards, nshards, zone, &donor, &recipient)) {
               break;
            }
            size_t i = sim_pick_chunk (t, zones, donor->name, zone);
            if (i == SIZE_MAX) {
               break;
            }
            donor->used = true;
            recipient->used = true;
            if (sim_old_move_fails (coll, t, i, jumbo_ok, &zones)) {
               continue;
            }
            sim_migration_start (t, i, recipient->name, now);
            continue;
         }
         for (size_t s = 0; s < nshards; s++) {
            if (shards[s].used || !sim_eligible (&shards[s], zone)) {
               continue;
            }
            int64_t l = sim_load (t, zones, shards[s].name, zone);
            if (l > hi) {
               hi = l;
               donor = &shards[s];
            }
            if (l < lo) {
               lo = l;
               recipient = &shards[s];
            }
         }
         if (!donor || !recipient || donor == recipient) {
            break;
         }
         if (hi - lo < 3 * cs) {
            break;
         }
         size_t i = sim_pick_chunk (t, zones, donor->name, zone);
         if (i != SIZE_MAX && sim_ver_ge (60) && coll && t->v[i].bytes > cs) {
            size_t before = t->n;
            bool movable = sim_trim_to_chunk_size (coll, t, i, cs, jumbo_ok);
            if (t->n != before) {
               /* Chunks were split: zones shift by index; recompute them. */
               zones = bson_realloc (zones, t->n * sizeof *zones);
               sim_chunk_zones (t, zones);
            }
            if (!movable) {
               continue; /* flagged jumbo; look for another chunk */
            }
         }
         if (i == SIZE_MAX) {
            break;
         }
         donor->used = true;
         recipient->used = true;
         sim_migration_start (t, i, recipient->name, now);
      }
   }
   bson_free (zones);
}

/* Whether config.settings automerge is not disabled (7.0+). */
bool
sim_automerge_enabled (void)
{
   bson_t view;
   bson_iter_t it;
   return !sim_setting_view ("automerge", &view) || !bson_iter_init_find (&it, &view, "enabled") ||
          bson_iter_as_bool (&it);
}

/* Whether chunk i of t may be merged by the automerger at now: not jumbo, not migrating, and on its shard since
 * before the snapshot history window (commitMergeAllChunksOnShard's onCurrentShardSince < oldest timestamp supported
 * for snapshot history: max (minSnapshotHistoryWindowInSeconds 300, transactionLifetimeLimitSeconds 60) = 300 s,
 * scaled like every other interval: the balancer interval stands for 10 s). */
static bool
sim_automerge_eligible (const sim_ctab_t *t, size_t i, int64_t now)
{
   bson_t chunk;
   bson_iter_t it;
   if (t->v[i].jumbo || sim_balancer_chunk_busy (t->sc.ns, &t->v[i].id) || !sim_chunk_by_id (&t->v[i].id, &chunk)) {
      return false;
   }
   uint32_t secs = 0, inc = 0;
   if (bson_iter_init_find (&it, &chunk, "onCurrentShardSince") && BSON_ITER_HOLDS_TIMESTAMP (&it)) {
      bson_iter_timestamp (&it, &secs, &inc);
   }
   bson_destroy (&chunk);
   int64_t interval = sim_dyn.balancer_interval_ms > 0 ? sim_dyn.balancer_interval_ms : 10000;
   int64_t window_ms = 300 * 1000 * interval / 10000;
   return (int64_t) secs * 1000 < now - window_ms;
}

/* The automerger (7.0+, ShardingCatalogManager::commitMergeAllChunksOnShard): on each shard, merges every run of two
 * or more adjacent eligible chunks (sim_automerge_eligible) into one. */
void
sim_automerge (sim_coll_t *coll, sim_ctab_t *t, int64_t now)
{
   bson_iter_t it;
   if ((bson_iter_init_find (&it, &t->sc.doc, "enableAutoMerge") && !bson_iter_as_bool (&it)) ||
       (bson_iter_init_find (&it, &t->sc.doc, "defragmentCollection") && bson_iter_as_bool (&it))) {
      return; /* _getNamespacesWithMergeableChunksPerShard skips these collections */
   }
   for (size_t i = 0; t->n > 1 && i < t->n - 1; i++) {
      if (!sim_automerge_eligible (t, i, now)) {
         continue;
      }
      size_t j = i;
      while (j + 1 < t->n && !strcmp (t->v[j + 1].shard, t->v[i].shard) && sim_automerge_eligible (t, j + 1, now)) {
         j++;
      }
      if (j > i) {
         sim_ctab_merge (coll, i, j);
      }
   }
}
