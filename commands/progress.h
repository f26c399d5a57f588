/* sh.progress()'s model: what one reading of the cluster holds, and the pure computation that turns a reading (and
 * the previous one, for rates) into the list of long operations with phase, percent, rate, time left and caveats.
 * No I/O here: commands/progress.c gathers the readings; a dashboard collector can gather and compute the same. */
#ifndef SHARDSH_PROGRESS_H
#define SHARDSH_PROGRESS_H

#include <bson/bson.h>
#include <stdint.h>

/* One reading. Every array is owned; progress_reading_init makes them empty. */
typedef struct progress_reading {
   int64_t at_ms; /* when it was taken (ms since the epoch) */
   bson_t ops;    /* $currentOp rows: resharding donors/recipients (originatingCommand.reshardCollection) and range
                   * migrations (command._shardsvrMoveRange / command.moveChunk) */
   bson_t coordinators; /* config.reshardingOperations documents */
   /* drains: per draining shard { shard, chunks: <left>, dbs: <databases it is primary of>, [startedMs], moved:
    * <chunks it gave since the start>, recentChunks, recentBytes: <in the last windowSecs>, windowSecs, bytes:
    * <given since the start>, [lastMs: <its last commit>], jumbo: <chunks flagged jumbo left>, [jumboNs, jumboMin:
    * <one of them, as text>], stuckZones: [ { ns, zone, min, max: <shell-style texts>, chunks } ] (chunks in a zone
    * range whose zone has no shard that could take them) } */
   bson_t drains;
   bson_t paused;  /* 8.3+: per shard whose drain stopShardDraining paused { _id: <shard>, last: "removeShard.
                    * stopShardDraining" } (draining is unset; its figures are in drains as for a draining shard) */
   bson_t defrags; /* per defragmenting collection: { ns, phase, remaining: <remainingChunksToProcess> } */
   /* Read only while a shard drains, for why its chunks may not move (commands/stuck.h): */
   bson_t shards;   /* config.shards documents { _id, draining, tags } */
   bson_t balancer; /* balancerStatus reply */
   bson_t settings; /* config.settings { _id: "balancer" } (empty when none) */
   int now_minutes; /* local time of day in minutes at the reading, for the balancing window; -1 unknown */
   int reads;       /* commands the gathering sent */
   int version[3];  /* the server's version when a shard drains ({0, 0, 0}: not known) */
   bson_t stalls;   /* { <operation key>: { n: <readings in a row without progress>, since: <at_ms of the first> } },
                     * set by progress_track_stalls */
} progress_reading_t;

void
progress_reading_init (progress_reading_t *r);
void
progress_reading_destroy (progress_reading_t *r);

/* Pure: appends to operations (an array document, initialised by the caller) one document per long operation of
 * now, in the order resharding-like operations, migrations, drains and config-shard transitions, defragmentations:
 * { type, ns, shard, phase, percent, bytesPerSec, etaSec, caveat, stuck, fix } with null where a figure is unknown or
 * known to be unreliable (caveat then says why); stuck says why an operation cannot finish as things stand and fix the
 * command that changes it (both null otherwise; etaSec is then null). prev (may be NULL) is an earlier reading of the
 * same session: rates over the interval between the two. */
void
progress_compute (const progress_reading_t *now, const progress_reading_t *prev, bson_t *operations);

/* Pure: sets now->stalls from prev's (may be NULL): an operation whose figures did not move since prev (a drain's
 * chunks left, a resharding's bytes copied, a migration's step) counts one more reading without progress; after
 * PROGRESS_STALL_READINGS of them spanning PROGRESS_STALL_SECS (a chunk's migration can take minutes: a few quick
 * readings prove nothing) progress_compute calls it stuck, unless a known cause says why. Call it before
 * progress_compute, on every reading of a session (sh.progress's watch, the dashboard's refreshes). */
void
progress_track_stalls (progress_reading_t *now, const progress_reading_t *prev);

#define PROGRESS_STALL_READINGS 3
#define PROGRESS_STALL_SECS 300

/* ---- gathering (commands/progress.c) ---- */

#include "commands/table.h"

/* Takes one reading through ctx's connection: the four reads sh.progress's build() lists, then, for draining shards
 * and defragmenting collections, their follow-up reads. r is initialised by the caller; at_ms is set first. False
 * with err set when a read fails (r then holds what was read). A collector can call it, then progress_compute. */
bool
cmd_progress_gather (sh_ctx_t *ctx, progress_reading_t *r, sh_error_t *err);

/* 8.3+: the shards whose drain is paused (stopShardDraining unset their draining; the balancer leaves them alone):
 * those whose newest removeShard.start / removeShard.stopShardDraining / removeShard changelog entry is a
 * stopShardDraining (ShardingCatalogManager::stopDrain logs it with details.shard), as { _id: <shard>, last }
 * documents into out (one config { aggregate: "changelog" }; out is initialised by the callee in every case). False
 * with err set when the read fails. sh.progress, the dashboard and sh.explainBalance share it. */
bool
cmd_progress_read_paused (sh_ctx_t *ctx, bson_t *out, sh_error_t *err);

/* Forgets the session's previous reading (ctx->session.progress_prev, kept by sh.progress for rates). */
void
cmd_progress_reset (sh_ctx_t *ctx);

#endif
