/* shardsim's argument checks of the sharding DDL commands that the server makes before it changes any metadata
 * (sim_ddlcheck.c): shard key patterns, the simple collation, system namespaces and reshardCollection's options and
 * zones; and the routing commands getShardVersion and checkMetadataConsistency (sim_meta.c). Callers hold
 * sim_g.lock. */
#ifndef SHARDSIM_SIM_DDLCHECK_H
#define SHARDSIM_SIM_DDLCHECK_H

#include "tests/shardsim/sim_admin.h"

/* A shard key pattern: ascending fields or exactly one hashed field, not unique when hashed. *nhashed_out receives
 * the number of hashed fields; false with err set (72) otherwise. */
bool
sim_check_key_pattern (const bson_t *key, bool unique, int *nhashed_out, bson_error_t *err);

/* The command's collation is absent or { locale: "simple" }; else 2 BadValue "The collation for <what> must be
 * {locale: 'simple'}, but found: <collation>" into err. */
bool
sim_check_simple_collation (const bson_t *cmd, const char *what, bson_error_t *err);

/* True when ns's collection name starts with "system." (NamespaceString::isSystem), except config.system.sessions. */
bool
sim_is_system_ns (const char *ns);

/* reshardCollection's checks, in the server's order, before anything changes (configsvr_reshard_collection_cmd.cpp
 * typedRun, resharding_util.cpp validateZones / checkForOverlappingZones): unique (2), collation (2), zones required
 * when ns has zones (2), then the new key's pattern (72), then the same key (a no-op: *noop set, true), then each
 * given zone known (2) and the zones not overlapping (2). cur_key is ns's current key. False with reply filled. */
bool
sim_reshard_check (const bson_t *cmd, const char *ns, const bson_t *cur_key, const bson_t *newkey, bool *noop,
                   bson_t *reply);

/* { getShardVersion: "<db>" | "<db.coll>", [fullMetadata] } (cluster_get_shard_version_cmd.cpp, sim_meta.c). */
void
sim_cmd_get_shard_version (sim_ctx_t *ctx, bson_t *reply);

/* { checkMetadataConsistency: 1 | "<coll>" } (7.0+, cluster_check_metadata_consistency_cmd.cpp, sim_meta.c): an
 * exhausted cursor of inconsistencies, empty as shardsim's metadata is consistent. */
void
sim_cmd_check_metadata_consistency (sim_ctx_t *ctx, bson_t *reply);

#endif
