/* The live balancer's internals, shared by sim_balancer.c (rounds, migrations, currentOp) and sim_balpolicy.c
 * (which chunk to move, the automerger). Callers hold sim_g.lock. */
#ifndef SHARDSIM_SIM_BALANCER_H
#define SHARDSIM_SIM_BALANCER_H

#include "tests/shardsim/sim.h"

/* A shard as one balancer round sees it. */
typedef struct {
   char name[64];
   bool draining;
   bool used; /* already donor or recipient in this round */
} sim_bshard_t;

/* The length of a raw BSON document (its first four bytes, little-endian). */
uint32_t
sim_rawlen (const uint8_t *raw);

/* Starts migrating chunk i of t to shard to. */
void
sim_migration_start (sim_ctab_t *t, size_t i, const char *to, int64_t now);

/* Zone of every chunk ("" when none), into zones[i] (size 128 each). */
void
sim_chunk_zones (const sim_ctab_t *t, char (*zones)[128]);

/* Whether shard s may receive chunks of zone ("" for none): not draining, and in the zone. */
bool
sim_eligible (const sim_bshard_t *s, const char *zone);

/* Load of shard s for the chunks of zone group zone: chunk count (before 6.0) or bytes (6.0+). */
int64_t
sim_load (const sim_ctab_t *t, char (*zones)[128], const char *shard, const char *zone);

/* 4.4/5.0 chunk-count policy for one zone group (BalancerPolicy::balance, step 3, and _singleZoneBalance): ideal =
 * roundf (chunks of the zone / shards of the zone), where the group outside all zones counts every chunk of the
 * collection over every shard; the donor is the available shard with most chunks of the group (draining or not), the
 * recipient the least loaded suitable one (not draining, in the zone); a move happens when the donor holds more than
 * ideal and the recipient fewer (kDefaultImbalanceThreshold = 1). */
bool
sim_count_policy_pick (const sim_ctab_t *t, char (*zones)[128], sim_bshard_t *shards, size_t nshards, const char *zone,
                       sim_bshard_t **from, sim_bshard_t **to);

/* One round's moves for one collection: zone violations and draining shards first, then each zone group by the
 * version's policy, starting migrations (at most one per shard per round; jumbo chunks only when jumbo_ok). */
void
sim_balance_collection (sim_coll_t *coll, sim_ctab_t *t, sim_bshard_t *shards, size_t nshards, bool jumbo_ok,
                        int64_t now);

/* Whether config.settings automerge is not disabled (7.0+). */
bool
sim_automerge_enabled (void);

/* The automerger (7.0+, ShardingCatalogManager::commitMergeAllChunksOnShard): on each shard, merges every run of two
 * or more adjacent eligible chunks (sim_automerge_eligible) into one. */
void
sim_automerge (sim_coll_t *coll, sim_ctab_t *t, int64_t now);

#endif
