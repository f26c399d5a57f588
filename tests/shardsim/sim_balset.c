/* shardsim's balancer settings commands: balancerStart/Stop/Status, balancerCollectionStatus,
 * configureCollectionBalancing and setAllowMigrations (config.settings and config.collections). Callers hold
 * sim_g.lock. */
#include "tests/shardsim/sim_admin.h"
#include "tests/shardsim/query/simq_int.h"

#include "shell/lib/hashkey.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool
sim_balancer_is_stopped (void)
{
   bson_iter_t it;
   bson_t view;
   if (!sim_setting_view ("balancer", &view)) {
      return false;
   }
   if (bson_iter_init_find (&it, &view, "stopped") && bson_iter_as_bool (&it)) {
      return true;
   }
   const char *mode = docget_utf8 (&view, "mode", NULL);
   return mode && strcmp (mode, "full") != 0;
}

void
sim_cmd_balancer_start_stop (sim_ctx_t *ctx, bson_t *reply)
{
   bool start = !strcmp (ctx->name, "balancerStart");
   bson_t set = BSON_INITIALIZER;
   BSON_APPEND_BOOL (&set, "stopped", !start);
   BSON_APPEND_UTF8 (&set, "mode", start ? "full" : "off");
   sim_config_update ("settings", "balancer", &set, NULL, true);
   if (!sim_ver_ge (60)) {
      bson_reinit (&set);
      BSON_APPEND_BOOL (&set, "enabled", start);
      sim_config_update ("settings", "autosplit", &set, NULL, true);
   }
   if (sim_ver_ge (70)) {
      /* From 7.0 _configsvrBalancerStart/Stop also call BalancerConfiguration::changeAutoMergeSettings (true/false):
       * config.settings { _id: "automerge", enabled } (configsvr_control_balancer_command.cpp). */
      bson_reinit (&set);
      BSON_APPEND_BOOL (&set, "enabled", start);
      sim_config_update ("settings", "automerge", &set, NULL, true);
   }
   bson_destroy (&set);
   uint32_t s, i;
   sim_tick (&s, &i);
   if (start && sim_ver_ge (70)) {
      /* 7.0+: ShardingLogging::logAction "balancer.start", empty namespace and details (the 7.0-era revision with
       * changeAutoMergeSettings and localConfigShard writes it as the newest do). */
      bson_t empty = BSON_INITIALIZER;
      sim_changelog (true, "balancer.start", "", "config", &empty, clock_wall_ms ());
      bson_destroy (&empty);
   }
   if (!start && sim_dyn.live) {
      /* balancerStop waits for the current round to finish, up to maxTimeMS. */
      bson_iter_t it;
      int64_t max_ms = bson_iter_init_find (&it, ctx->cmd, "maxTimeMS") && BSON_ITER_HOLDS_NUMBER (&it)
                          ? bson_iter_as_int64 (&it)
                          : 0;
      if (!sim_balancer_wait_round (max_ms > 0 ? clock_wall_ms () + max_ms : INT64_MAX)) {
         sim_reply_error (reply, 50, "operation exceeded time limit");
         return;
      }
   }
   if (!start && sim_ver_ge (70)) {
      /* 7.0+: "balancer.stop" is logged once the current round was joined. */
      bson_t empty = BSON_INITIALIZER;
      sim_changelog (true, "balancer.stop", "", "config", &empty, clock_wall_ms ());
      bson_destroy (&empty);
   }
   sim_reply_ok (reply);
}

void
sim_cmd_balancer_status (sim_ctx_t *ctx, bson_t *reply)
{
   (void) ctx;
   /* Balancer::report: the mode of the settings as last parsed (kBalancerModes[mode]; autoSplitOnly up to 6.0); a
    * document that does not parse leaves the previous settings in force. */
   static char last_mode[16] = "full";
   char mode[16];
   int ws, we;
   if (sim_balancer_settings (mode, &ws, &we)) {
      bson_strncpy (last_mode, mode, sizeof last_mode);
   }
   BSON_APPEND_UTF8 (reply, "mode", last_mode);
   BSON_APPEND_BOOL (reply, "inBalancerRound", sim_dyn.live && sim_dyn.in_round);
   if (sim_dyn.live) {
      /* The live balancer's own rounds (sim_balancer.c), skipped ones included (_endRound counts them too). */
      BSON_APPEND_INT64 (reply, "numBalancerRounds", sim_g.balancer_rounds + sim_dyn.rounds + sim_dyn.rounds_skipped);
   } else {
      /* A round every 10 s while the balancer is on (the real default interval). */
      BSON_APPEND_INT64 (reply, "numBalancerRounds",
                         sim_g.balancer_rounds + (clock_wall_ms () - sim_g.start_ms) / 10000);
   }
   if (sim_ver_ge (70)) {
      /* Balancer::report appends the config server's replication term (a long long) from 7.0: the 6.0 report has
       * mode, inBalancerRound and numBalancerRounds only; a revision between them (no auto-merger yet) has term. */
      BSON_APPEND_INT64 (reply, "term", 1);
   }
   sim_reply_ok (reply);
}

/* Whether a zone range bound of sc's namespace (extended to the full shard key) falls strictly inside one of the
 * chunks in all: the chunk the balancer would split first (BalancerChunkSelectionPolicy::selectChunksToSplit). */
static bool
sim_chunks_cut_by_zone (const sim_shcoll_t *sc, const simq_docs_t *all)
{
   sim_coll_t *tags = sim_coll_get ("config", "tags");
   bson_t filter = BSON_INITIALIZER;
   sim_hits_t hits = { 0 };
   bson_error_t e;
   bool cut = false;
   BSON_APPEND_UTF8 (&filter, "ns", sc->ns);
   if (tags && sim_coll_match (tags, &filter, 0, &hits, &e)) {
      for (size_t h = 0; h < hits.n && !cut; h++) {
         bson_t view, b;
         static const char *fields[] = { "min", "max" };
         sim_coll_view (tags, hits.v[h], &view);
         for (int f = 0; f < 2 && !cut; f++) {
            if (!docget_sub (&view, fields[f], BSON_TYPE_EOD, &b)) {
               continue;
            }
            bson_t full;
            sim_extend_bound (sc, &b, &full);
            for (size_t i = 0; i < all->n && !cut; i++) {
               bson_t cmin, cmax;
               cut = docget_sub (all->v[i], "min", BSON_TYPE_EOD, &cmin) &&
                     docget_sub (all->v[i], "max", BSON_TYPE_EOD, &cmax) && order_docs (&cmin, &full) < 0 &&
                     order_docs (&full, &cmax) < 0;
            }
            bson_destroy (&full);
         }
      }
   }
   sim_hits_destroy (&hits);
   bson_destroy (&filter);
   return cut;
}

/* Whether the balancer policy could move chunk of ns: not jumbo, and some shard other than its owner that is not
 * draining and is in the chunk's zone (any shard when it has none) could receive it. The chunk's zone is copied into
 * zone_out ("" for none) when given. */
static bool
sim_bcs_movable (const char *ns, const bson_t *chunk, const simq_docs_t *shards, char *zone_out)
{
   bson_t cmin, cmax;
   char zone[128] = "";
   const char *owner = sim_chunk_shard (chunk);
   bool found = false;
   docget_sub (chunk, "min", BSON_TYPE_EOD, &cmin);
   docget_sub (chunk, "max", BSON_TYPE_EOD, &cmax);
   if (!sim_zone_of (ns, &cmin, &cmax, zone, sizeof zone)) {
      zone[0] = '\0';
   }
   if (zone_out) {
      bson_strncpy (zone_out, zone, sizeof zone);
   }
   if (docget_bool (chunk, "jumbo")) {
      return false;
   }
   for (size_t s = 0; s < shards->n && !found; s++) {
      const char *id = docget_utf8 (shards->v[s], "_id", NULL);
      found = id && strcmp (id, owner) != 0 && !docget_bool (shards->v[s], "draining") &&
              (!zone[0] || sim_shard_in_zone (id, zone));
   }
   return found;
}

void
sim_cmd_balancer_collection_status (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   sim_shcoll_t sc;
   simq_docs_t all, shards;
   simq_docs_init (&all);
   simq_docs_init (&shards);
   memset (&sc, 0, sizeof sc);
   bson_init (&sc.key);
   bson_init (&sc.doc);
   const char *ns = sim_first_ns (ctx, reply);
   if (!ns) {
      goto done;
   }
   bson_iter_init (&it, ctx->cmd);
   bson_iter_next (&it);
   while (bson_iter_next (&it)) {
      if (!sim_generic_arg (bson_iter_key (&it))) {
         sim_reply_error (reply, 40415, "BSON field 'balancerCollectionStatus.%s' is an unknown field.",
                          bson_iter_key (&it));
         goto done;
      }
   }
   sim_shcoll_destroy (&sc);
   if (!sim_shcoll_load (ns, &sc)) {
      sim_reply_error (reply, 118, "Collection unsharded or undefined");
      goto done;
   }
   sim_chunks_of (&sc, &all);
   sim_shards_list (&shards);
   const char *violation = NULL;
   /* Balancer::getBalancerStatusForNs: from 6.0 a defragmenting collection first; then a chunk that a zone range
    * boundary cuts (selectChunksToSplit: zoneViolation); then the reason of the first migration the policy picks
    * (draining, zone violation, imbalance). */
   if (sim_ver_ge (60) && bson_iter_init_find (&it, &sc.doc, "defragmentCollection") && bson_iter_as_bool (&it)) {
      violation = "defragmentingChunks";
   }
   if (!violation && sim_chunks_cut_by_zone (&sc, &all)) {
      violation = "zoneViolation";
   }
   /* BalancerPolicy::balance steps 1 and 2: a draining shard's chunk, then a chunk outside its zone, each only when
    * the policy would move it (not jumbo, and _getLeastLoadedReceiverShard finds a shard for it). */
   for (size_t i = 0; i < all.n && !violation; i++) {
      if (sim_shard_is_draining (sim_chunk_shard (all.v[i])) && sim_bcs_movable (ns, all.v[i], &shards, NULL)) {
         violation = "draining";
      }
   }
   for (size_t i = 0; i < all.n && !violation; i++) {
      char zone[128];
      if (sim_bcs_movable (ns, all.v[i], &shards, zone) && zone[0] &&
          !sim_shard_in_zone (sim_chunk_shard (all.v[i]), zone)) {
         violation = "zoneViolation";
      }
   }
   if (!violation && sim_balancer_imbalanced (ns) > 0) {
      /* The live balancer's own judgement, per zone: chunk counts before 6.0, data size from 6.0. */
      violation = "chunksImbalance";
   }
   if (sim_dyn.chunk_size_bytes > 0 && sim_ver_ge (60)) {
      /* --chunk-size-kb: the effective size, in MB (7.0+: rounded up to two decimals). */
      double mb = (double) sim_chunk_size_bytes (&sc) / (1024.0 * 1024.0);
      if (sim_ver_ge (70)) {
         BSON_APPEND_DOUBLE (reply, "chunkSize", ceil (mb * 100.0) / 100.0);
      } else {
         BSON_APPEND_INT64 (reply, "chunkSize", (int64_t) mb);
      }
   } else if (sim_ver_ge (70)) {
      BSON_APPEND_DOUBLE (reply, "chunkSize", (double) sim_chunk_size_mb (&sc));
   } else if (sim_ver_ge (60)) {
      BSON_APPEND_INT64 (reply, "chunkSize", sim_chunk_size_mb (&sc));
   }
   BSON_APPEND_BOOL (reply, "balancerCompliant", violation == NULL);
   if (violation) {
      BSON_APPEND_UTF8 (reply, "firstComplianceViolation", violation);
      if (!strcmp (violation, "defragmentingChunks")) {
         bson_t d, p;
         const char *phase = docget_utf8 (&sc.doc, "defragmentationPhase", NULL);
         BSON_APPEND_DOCUMENT_BEGIN (reply, "details", &d);
         BSON_APPEND_UTF8 (&d, "currentPhase", phase ? phase : "mergeAndMeasureChunks");
         BSON_APPEND_DOCUMENT_BEGIN (&d, "progress", &p);
         BSON_APPEND_INT64 (&p, "remainingChunksToProcess", (int64_t) all.n);
         bson_append_document_end (&d, &p);
         bson_append_document_end (reply, &d);
      }
   }
   sim_reply_ok (reply);
done:
   simq_docs_clear (&all);
   simq_docs_clear (&shards);
   sim_shcoll_destroy (&sc);
}

void
sim_cmd_configure_collection_balancing (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   sim_shcoll_t sc;
   const char *ns = sim_first_ns (ctx, reply);
   if (!ns) {
      return;
   }
   if (!sim_shcoll_load (ns, &sc)) {
      sim_shcoll_destroy (&sc);
      sim_not_sharded (reply, ns);
      return;
   }
   sim_shcoll_destroy (&sc);
   /* chunkSize is an IDL safeInt */
   if (bson_iter_init_find (&it, ctx->cmd, "chunkSize") && !BSON_ITER_HOLDS_NUMBER (&it)) {
      sim_reply_error (reply, 14,
                       "BSON field 'configureCollectionBalancing.chunkSize' is the wrong type '%s', expected types "
                       "'[long, int, decimal, double']",
                       simq_type_name (bson_iter_type (&it)));
      return;
   }
   /* 6.0 ShardingCatalogManager::configureCollectionBalancing: at least one setting (7.0+: a no-op) */
   if (!sim_ver_ge (70) && !sim_has (ctx->cmd, "chunkSize") && !sim_has (ctx->cmd, "defragmentCollection") &&
       !sim_has (ctx->cmd, "enableAutoSplitter")) {
      sim_reply_error (reply, 72, "invalid configure collection balancing update");
      return;
   }
   bson_t set = BSON_INITIALIZER;
   const char *unset[3] = { NULL, NULL, NULL };
   int nunset = 0;
   if (bson_iter_init_find (&it, ctx->cmd, "chunkSize")) {
      int64_t mb = bson_iter_as_int64 (&it);
      if (!BSON_ITER_HOLDS_NUMBER (&it) || mb < 0 || mb > 1024) {
         sim_reply_error (reply, 72, "Chunk size must be between 1 and 1024 MB (0 restores the default)");
         bson_destroy (&set);
         return;
      }
      if (mb == 0) {
         unset[nunset++] = "maxChunkSizeBytes";
      } else {
         BSON_APPEND_INT64 (&set, "maxChunkSizeBytes", mb * 1024 * 1024);
      }
   }
   if (bson_iter_init_find (&it, ctx->cmd, "defragmentCollection")) {
      bool on = bson_iter_as_bool (&it);
      BSON_APPEND_BOOL (&set, "defragmentCollection", on);
      if (on) {
         BSON_APPEND_UTF8 (&set, "defragmentationPhase", "mergeAndMeasureChunks");
      } else {
         unset[nunset++] = "defragmentationPhase";
      }
   }
   if (sim_ver_ge (70) && bson_iter_init_find (&it, ctx->cmd, "enableAutoMerger")) {
      BSON_APPEND_BOOL (&set, "enableAutoMerge", bson_iter_as_bool (&it));
   }
   if (!sim_ver_ge (70) && bson_iter_init_find (&it, ctx->cmd, "enableAutoSplitter")) {
      BSON_APPEND_BOOL (&set, "noAutoSplit", !bson_iter_as_bool (&it));
   }
   sim_config_update ("collections", ns, &set, unset, false);
   bson_destroy (&set);
   uint32_t s, i;
   sim_tick (&s, &i);
   sim_reply_ok (reply);
}

void
sim_cmd_set_allow_migrations (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   sim_shcoll_t sc;
   const char *ns = sim_first_ns (ctx, reply);
   if (!ns) {
      return;
   }
   if (!bson_iter_init_find (&it, ctx->cmd, "allowMigrations") || !BSON_ITER_HOLDS_BOOL (&it)) {
      sim_reply_error (reply, 40414, "BSON field 'setAllowMigrations.allowMigrations' is missing but a required field");
      return;
   }
   bool allow = bson_iter_bool (&it);
   bool sharded = sim_shcoll_load (ns, &sc);
   sim_shcoll_destroy (&sc);
   if (!sharded) {
      sim_not_sharded (reply, ns);
      return;
   }
   /* ShardingCatalogManager::setAllowMigrationsAndBumpOneChunk: $set { permitMigrations: false } or $unset
    * permitMigrations on config.collections (CollectionType::kPermitMigrationsFieldName) from 5.0; 4.4 (the
    * SERVER-56227 backport) writes the pre-5.0 name, allowMigrations (kPre50CompatibleAllowMigrationsFieldName). */
   bson_t set = BSON_INITIALIZER;
   const char *field = sim_ver_ge (50) ? "permitMigrations" : "allowMigrations";
   const char *unset[] = { field, NULL };
   if (!allow) {
      BSON_APPEND_BOOL (&set, field, false);
   }
   sim_config_update ("collections", ns, &set, allow ? unset : NULL, false);
   bson_destroy (&set);
   uint32_t s, i;
   sim_tick (&s, &i);
   sim_reply_ok (reply);
}
