/* shardsim's 8.3 topology commands: the drain of a shard in steps (startShardDraining, stopShardDraining,
 * commitShardRemoval) and the config shard's transition to a dedicated config server
 * (start/stop/commitTransitionToDedicatedConfigServer), and 8.0's transitionFromDedicatedConfigServer, which makes the
 * config server a shard named "config" so that the transition has something to drain. They follow the mongos commands
 * (cluster_*_cmd.cpp: the reply is { ok: 1 } only) and the config server's (configsvr_*_command.cpp,
 * ShardingCatalogManager:: checkPreconditionsAndStartDrain and stopDrain); docs/shardsim.md lists the sources. Callers
 * hold sim_g.lock. */
#include "tests/shardsim/sim_admin.h"
#include "tests/shardsim/query/simq_int.h"

#include <string.h>

#define SIM_TOPO_LAST "Operation not allowed because it would drain the last shard"
#define SIM_TOPO_ZONE "Operation not allowed because there is no other shard in zone %s to drain to."

/* The shard named by the command's first field (the IDL's command parameter, a string): NULL with 14 in reply for
 * another type, or with 70 when ShardRegistry::getShard knows no such shard. The registry always knows "config" (the
 * config server, _configShardData), a shard or not, so "config" is returned even on a dedicated config server. */
static const char *
sim_topo_shard (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   bson_iter_init (&it, ctx->cmd);
   bson_iter_next (&it);
   if (!BSON_ITER_HOLDS_UTF8 (&it)) {
      sim_reply_error (reply, 14, "BSON field '%s.%s' is the wrong type '%s', expected type 'string'",
                       bson_iter_key (&it), bson_iter_key (&it), simq_type_name (bson_iter_type (&it)));
      return NULL;
   }
   const char *shard = bson_iter_utf8 (&it, NULL);
   if (strcmp (shard, "config") != 0 && !sim_shard_get (shard, NULL)) {
      sim_reply_error (reply, 70, "Shard %s not found", shard);
      return NULL;
   }
   return shard;
}

/* ShardingCatalogManager::checkPreconditionsAndStartDrain: a shard config.shards does not hold is removed already
 * (kCompleted: ok, nothing written); otherwise the drain's checks (20 last shard, 163 zone), then draining set with
 * its removeShard.start changelog entry unless it is draining already. */
static void
sim_topo_start (const char *shard, bson_t *reply)
{
   if (!sim_shard_get (shard, NULL)) {
      sim_reply_ok (reply);
      return;
   }
   if (!sim_drain_precheck (shard, SIM_TOPO_LAST, SIM_TOPO_ZONE, reply)) {
      return;
   }
   if (!sim_shard_is_draining (shard)) {
      sim_drain_start (shard);
   }
   sim_reply_ok (reply);
}

/* ShardingCatalogManager::stopDrain: 70 "Couldn't find the shard X in the cluster" when config.shards does not hold
 * it; a draining shard gets draining unset with a removeShard.stopShardDraining changelog entry; one that is not
 * draining is left as it is (ok). */
static void
sim_topo_stop (const char *shard, bson_t *reply)
{
   if (!sim_shard_get (shard, NULL)) {
      sim_reply_error (reply, 70, "Couldn't find the shard %s in the cluster", shard);
      return;
   }
   if (sim_shard_is_draining (shard)) {
      static const char *const unset[] = { "draining", NULL };
      bson_t set = BSON_INITIALIZER, details = BSON_INITIALIZER;
      sim_config_update ("shards", shard, &set, unset, false);
      BSON_APPEND_UTF8 (&details, "shard", shard);
      sim_changelog (false, "removeShard.stopShardDraining", "", "config", &details, clock_wall_ms ());
      bson_destroy (&set);
      bson_destroy (&details);
   }
   sim_reply_ok (reply);
}

/* The remove-shard commit coordinator (RemoveShardCommitCoordinator::_checkShardExistsAndIsDraining, then
 * _checkShardIsEmpty): a shard removed already is fulfilled (ok), and the check calls _finalizeShardRemoval first,
 * which writes the removeShard changelog entry again (only the config shard gets here gone: the registry always knows
 * the config server, while commitShardRemoval of another unknown shard returns before the coordinator); one that is not
 * draining is 117 ("Shard X is not currently draining"); one with chunks, databases or unsharded collections left is
 * not removed (20, "The shard X isn't completely drained. Please use the <status> command to check the draining
 * status."); otherwise it is deleted. */
static void
sim_topo_commit (const char *shard, const char *status_cmd, bson_t *reply)
{
   sim_drain_progress_t p;
   if (!sim_shard_get (shard, NULL)) {
      bson_t details = BSON_INITIALIZER;
      BSON_APPEND_UTF8 (&details, "shard", shard);
      sim_changelog (false, "removeShard", "", "config", &details, clock_wall_ms ());
      bson_destroy (&details);
      sim_reply_ok (reply);
      return;
   }
   if (!sim_shard_is_draining (shard)) {
      sim_reply_error (reply, 117, "Shard %s is not currently draining", shard);
      return;
   }
   sim_drain_progress (shard, &p);
   if (p.total || p.ndbs || p.ncolls) {
      sim_reply_error (reply, 20,
                       "The shard %s isn't completely drained. Please use the %s command to check the draining "
                       "status.",
                       shard, status_cmd);
   } else {
      sim_drain_commit (shard);
      sim_reply_ok (reply);
   }
   sim_drain_progress_destroy (&p);
}

/* startShardDraining, stopShardDraining and commitShardRemoval refuse the config server (20, each with its text:
 * configsvr_{start,stop}_shard_draining_command.cpp, configsvr_commit_shard_removal_command.cpp), whether or not it is
 * a shard: the transition commands drain it instead. */
static bool
sim_topo_not_config (const char *shard, const char *msg, bson_t *reply)
{
   if (!strcmp (shard, "config")) {
      sim_reply_error (reply, 20, "%s", msg);
      return false;
   }
   return true;
}

void
sim_cmd_start_shard_draining (sim_ctx_t *ctx, bson_t *reply)
{
   const char *shard = sim_topo_shard (ctx, reply);
   if (shard && sim_topo_not_config (shard,
                                     "Cannot start the transition to dedicated config server using "
                                     "startShardDraining when transitioning to a dedicated config server. Please, "
                                     "use startTransitionToDedicatedConfigServer.",
                                     reply)) {
      sim_topo_start (shard, reply);
   }
}

void
sim_cmd_stop_shard_draining (sim_ctx_t *ctx, bson_t *reply)
{
   const char *shard = sim_topo_shard (ctx, reply);
   if (shard && sim_topo_not_config (shard,
                                     "Cannot stop the transition to dedicated config server using stopShardDraining "
                                     "when transitioning to a dedicated config server. Please, use "
                                     "stopTransitionToDedicatedConfigServer.",
                                     reply)) {
      sim_topo_stop (shard, reply);
   }
}

/* commitShardRemoval of a shard the registry does not know is fulfilled (resolveShardId's ShardNotFound: ok). */
void
sim_cmd_commit_shard_removal (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   bson_iter_init (&it, ctx->cmd);
   bson_iter_next (&it);
   if (BSON_ITER_HOLDS_UTF8 (&it) && strcmp (bson_iter_utf8 (&it, NULL), "config") != 0 &&
       !sim_shard_get (bson_iter_utf8 (&it, NULL), NULL)) {
      sim_reply_ok (reply);
      return;
   }
   const char *shard = sim_topo_shard (ctx, reply);
   if (shard && sim_topo_not_config (shard,
                                     "Cannot remove the config server as a shard using commitShardRemoval when "
                                     "transitioning to a dedicated config server. Please, use "
                                     "commitTransitionToDedicatedConfigServer to complete the transition to "
                                     "dedicated config server.",
                                     reply)) {
      sim_topo_commit (shard, "shardDrainingStatus", reply);
   }
}

/* { start|stop|commitTransitionToDedicatedConfigServer: 1 }: the same steps for the "config" shard (the mongos sends
 * _configsvrStart/StopShardDraining or _configsvrCommitShardRemoval for "config" with isTransitionToDedicatedCS). On
 * a dedicated config server (no shard "config") start and commit find nothing to do (ok) and stop answers 70 from
 * stopDrain. */
void
sim_cmd_transition_dedicated (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   bson_iter_init (&it, ctx->cmd);
   bson_iter_next (&it);
   const char *name = bson_iter_key (&it);
   if (!strcmp (name, "startTransitionToDedicatedConfigServer")) {
      sim_topo_start ("config", reply);
   } else if (!strcmp (name, "stopTransitionToDedicatedConfigServer")) {
      sim_topo_stop ("config", reply);
   } else {
      sim_topo_commit ("config", "getTransitionToDedicatedConfigServerStatus", reply);
   }
}

/* { transitionFromDedicatedConfigServer: 1 } (8.0+): the config server joins as the shard "config" (its host the
 * configDB of getCmdLineOpts), with an addShard changelog entry; ok when it is a shard already
 * (ShardingCatalogManager::addConfigShard → addShard with the config server's connection string). */
void
sim_cmd_transition_from_dedicated (sim_ctx_t *ctx, bson_t *reply)
{
   bson_error_t err;
   (void) ctx;
   if (!sim_op_add_shard ("config", "configRepl/127.0.0.1:27100", &err)) {
      sim_reply_error (reply, (int) err.code, "%s", err.message);
      return;
   }
   sim_reply_ok (reply);
}
