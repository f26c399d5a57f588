/* shardsim's sharding administration, split by command family: the helpers the families share (sim_admin.c) and
 * each family's command handlers, which sim_cmds.c's table registers. Every function here expects the caller to
 * hold sim_g.lock. */
#ifndef SHARDSIM_SIM_ADMIN_H
#define SHARDSIM_SIM_ADMIN_H

#include "tests/shardsim/sim.h"

#define SIM_ERR(err, code, ...) bson_set_error ((err), SIMQ_ERROR_DOMAIN, (uint32_t) (code), __VA_ARGS__)

/* ---- sim_admin.c ---- */

/* True when some index of coll (which may be NULL) has a key that starts with the fields of key, in order: the
 * supporting index the server requires for a shard key. With same_kind, each field must also be of the same kind
 * (hashed, written as a string, or ranged). */
bool
sim_has_prefix_index (const sim_coll_t *coll, const bson_t *key, bool same_kind);

/* Whether doc has field with a value other than null. */
bool
sim_has (const bson_t *doc, const char *field);

/* Copies doc into out with the fields of set replaced in place (or appended) and the fields named in unset (a
 * NULL-terminated list, may be NULL) removed. */
void
sim_doc_set (const bson_t *doc, const bson_t *set, const char *const *unset, bson_t *out);

/* Finds the document of coll whose _id is the string id. */
bool
sim_find_by_sid (sim_coll_t *coll, const char *id, sim_pos_t *pos);

/* Applies set/unset to the document with string _id id in config.<name>; upserts { _id: id, …set } when absent
 * and upsert is true. */
void
sim_config_update (const char *name, const char *id, const bson_t *set, const char *const *unset, bool upsert);

/* Appends serverStatus's shardingStatistics section of the personality (sim_shstats.c). */
void
sim_append_sharding_statistics (bson_t *reply);

/* Splits "db.coll"; false when it is not a valid namespace. */
bool
sim_split_ns (const char *ns, char *db, size_t dblen, const char **coll);

/* Replies err (code and message) as a command error. */
void
sim_admin_error (bson_t *reply, const bson_error_t *err);

/* hello, isMaster, ismaster (sim_hello.c): the handshake's reply. */
void
sim_cmd_hello (sim_ctx_t *ctx, bson_t *reply);

/* hostInfo as a Linux mongos answers it (src/mongo/db/commands/generic_servers.cpp, HostInfoCmd, and
 * src/mongo/util/processinfo_linux.cpp): system, os and extra, with fixed figures for a 4-core, 16 GiB host. */
void
sim_cmd_host_info (sim_ctx_t *ctx, bson_t *reply);

/* The string value of the command's first field; NULL (error 14 replied) when it is not a string. Borrows ctx->cmd. */
const char *
sim_first_string (sim_ctx_t *ctx, bson_t *reply);

/* The namespace named by the command's first field; NULL (error replied) when it is invalid. */
const char *
sim_first_ns (sim_ctx_t *ctx, bson_t *reply);

/* Replies NamespaceNotSharded (118) for ns. */
void
sim_not_sharded (bson_t *reply, const char *ns);

/* FieldParser::extract's error for a field of the wrong type: "wrong type for 'F' field, expected T, found
 * <BSONElement::toString>". */
bool
sim_field_type_ok (const bson_t *cmd, const char *field, bool want_array, bson_t *reply);

/* Whether cmd's field is a non-empty document or array (FieldParser's default {} / [] counts as absent). */
bool
sim_nonempty (const bson_t *cmd, const char *field);

/* Whether k is one of the generic command arguments every command accepts ($db, lsid, comment, writeConcern …). */
bool
sim_generic_arg (const char *k);

/* ---- sim_chunk.c ---- */

/* qsort comparator of bson_t pointers by their "min" document (order_docs). */
int
sim_doc_ptr_cmp_min (const void *a, const void *b);

/* All chunks of sc, sorted by min. */
void
sim_chunks_of (const sim_shcoll_t *sc, simq_docs_t *out);

/* Whether bound has exactly the shard key's fields in order. */
bool
sim_bound_fits (const sim_shcoll_t *sc, const bson_t *bound);

/* The shard key document of a query such as { uid: 5 } (hashed fields hashed); false when a key field is missing. */
bool
sim_key_from_query (const sim_shcoll_t *sc, const bson_t *query, bson_t *out);

/* The "shard" of a config.chunks document, borrowed from chunk ("" when absent). */
const char *
sim_chunk_shard (const bson_t *chunk);

/* Counts documents (and bytes) of ns inside [min, max). */
void
sim_range_counts (const sim_shcoll_t *sc, const bson_t *min, const bson_t *max, int64_t *docs, int64_t *bytes);

/* The chunk size in MB for sc: its maxChunkSizeBytes, else config.settings chunksize, else the version default. */
int64_t
sim_chunk_size_mb (const sim_shcoll_t *sc);

/* ---- sim_migrate.c ---- */

/* Checks whether chunk may move to shard to (exists, not draining, zone); err set when not. */
bool
sim_check_destination (const sim_shcoll_t *sc, const bson_t *chunk, const char *to, bson_error_t *err);

/* The chunk a moveChunk/split request designates (find or bounds); errors follow the version's style. */
bool
sim_target_chunk (sim_ctx_t *ctx, const sim_shcoll_t *sc, bool typed, bool for_split, bson_t *chunk, bson_error_t *err);

/* moveChunk. 4.4/5.0 follow cluster_move_chunk_cmd.cpp's errmsgRun (sharded check first, then 'to', then the shard,
 * then find/bounds); 6.0+ its typed run (the IDL requires 'to', then the sharded check, the 72 argument checks, the
 * shard, the chunk), which sends _configsvrMoveRange. */
void
sim_cmd_move_chunk (sim_ctx_t *ctx, bson_t *reply);

/* moveRange (6.0+): cluster_move_range_cmd.cpp, then _configsvrMoveRange (Balancer::moveRange: no zone or draining
 * check) and the donor's _shardsvrMoveRange / MigrationSourceManager: a move onto the owner returns at once, a
 * missing bound is computed (computeOtherBound), the size check runs on the range, and the range is split out of its
 * chunk only when the migration commits. */
void
sim_cmd_move_range (sim_ctx_t *ctx, bson_t *reply);

/* ---- sim_split.c ---- */

/* Splits the chunk containing middle at middle. errmsg-only failures use code 0. */
bool
sim_split_at (const sim_shcoll_t *sc, const bson_t *middle, bson_error_t *err);

/* qsort comparator of bson_t pointers by order_docs. */
int
sim_key_doc_cmp (const void *a, const void *b);

/* The median shard key of the documents inside chunk; false (CannotSplit) when it cannot be split. */
bool
sim_chunk_median (const sim_shcoll_t *sc, const bson_t *chunk, bson_t *out, bson_error_t *err);

/* The split command (sim_handler_t: reads ctx->cmd, fills reply, which the caller initialised; the caller holds
 * sim_g.lock). */
void
sim_cmd_split (sim_ctx_t *ctx, bson_t *reply);

/* The mergeChunks command (sim_handler_t: reads ctx->cmd, fills reply, which the caller initialised; the caller holds
 * sim_g.lock). */
void
sim_cmd_merge_chunks (sim_ctx_t *ctx, bson_t *reply);

/* ---- sim_zone.c ---- */

/* Extends a zone bound to the full shard key (missing trailing fields MinKey). */
void
sim_extend_bound (const sim_shcoll_t *sc, const bson_t *bound, bson_t *out);

/* The addShardToZone command (sim_handler_t: reads ctx->cmd, fills reply, which the caller initialised; the caller
 * holds sim_g.lock). */
void
sim_cmd_add_shard_to_zone (sim_ctx_t *ctx, bson_t *reply);

/* The removeShardFromZone command (sim_handler_t: reads ctx->cmd, fills reply, which the caller initialised; the caller
 * holds sim_g.lock). */
void
sim_cmd_remove_shard_from_zone (sim_ctx_t *ctx, bson_t *reply);

/* The updateZoneKeyRange command (sim_handler_t: reads ctx->cmd, fills reply, which the caller initialised; the caller
 * holds sim_g.lock). */
void
sim_cmd_update_zone_key_range (sim_ctx_t *ctx, bson_t *reply);

/* ---- sim_shardcoll.c ---- */

/* The enableSharding / enablesharding command (sim_handler_t: reads ctx->cmd, fills reply, which the caller
 * initialised; the caller holds sim_g.lock). */
void
sim_cmd_enable_sharding (sim_ctx_t *ctx, bson_t *reply);

/* The shardCollection / shardcollection command (sim_handler_t: reads ctx->cmd, fills reply, which the caller
 * initialised; the caller holds sim_g.lock). */
void
sim_cmd_shard_collection (sim_ctx_t *ctx, bson_t *reply);

/* The refineCollectionShardKey command (sim_handler_t: reads ctx->cmd, fills reply, which the caller initialised; the
 * caller holds sim_g.lock). */
void
sim_cmd_refine_shard_key (sim_ctx_t *ctx, bson_t *reply);

/* The reshardCollection command (sim_handler_t: reads ctx->cmd, fills reply, which the caller initialised; the caller
 * holds sim_g.lock). */
void
sim_cmd_reshard_collection (sim_ctx_t *ctx, bson_t *reply);

/* ---- sim_shards.c ---- */

/* The addShard / addshard command (sim_handler_t: reads ctx->cmd, fills reply, which the caller initialised; the caller
 * holds sim_g.lock). */
void
sim_cmd_add_shard (sim_ctx_t *ctx, bson_t *reply);

/* The removeShard / removeshard command (sim_handler_t: reads ctx->cmd, fills reply, which the caller initialised; the
 * caller holds sim_g.lock). */
void
sim_cmd_remove_shard (sim_ctx_t *ctx, bson_t *reply);
/* 8.3's startShardDraining, stopShardDraining, commitShardRemoval and start/stop/commitTransitionToDedicatedConfig-
 * Server (sim_topology.c). */
void
sim_cmd_start_shard_draining (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_stop_shard_draining (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_commit_shard_removal (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_transition_dedicated (sim_ctx_t *ctx, bson_t *reply);
/* 8.0's transitionFromDedicatedConfigServer: the config server becomes the shard "config" (sim_topology.c). */
void
sim_cmd_transition_from_dedicated (sim_ctx_t *ctx, bson_t *reply);

/* The movePrimary / moveprimary command (sim_handler_t: reads ctx->cmd, fills reply, which the caller initialised; the
 * caller holds sim_g.lock). */
void
sim_cmd_move_primary (sim_ctx_t *ctx, bson_t *reply);

/* The listShards / listshards command (sim_handler_t: reads ctx->cmd, fills reply, which the caller initialised; the
 * caller holds sim_g.lock). */
void
sim_cmd_list_shards (sim_ctx_t *ctx, bson_t *reply);

/* The flushRouterConfig / flushrouterconfig command (sim_handler_t: reads ctx->cmd, fills reply, which the caller
 * initialised; the caller holds sim_g.lock). */
void
sim_cmd_flush_router_config (sim_ctx_t *ctx, bson_t *reply);

/* ---- sim_balset.c ---- */

/* The balancerStart / balancerStop command (sim_handler_t: reads ctx->cmd, fills reply, which the caller initialised;
 * the caller holds sim_g.lock). */
void
sim_cmd_balancer_start_stop (sim_ctx_t *ctx, bson_t *reply);

/* The balancerStatus command (sim_handler_t: reads ctx->cmd, fills reply, which the caller initialised; the caller
 * holds sim_g.lock). */
void
sim_cmd_balancer_status (sim_ctx_t *ctx, bson_t *reply);

/* The balancerCollectionStatus command (sim_handler_t: reads ctx->cmd, fills reply, which the caller initialised; the
 * caller holds sim_g.lock). */
void
sim_cmd_balancer_collection_status (sim_ctx_t *ctx, bson_t *reply);

/* The configureCollectionBalancing command (sim_handler_t: reads ctx->cmd, fills reply, which the caller initialised;
 * the caller holds sim_g.lock). */
void
sim_cmd_configure_collection_balancing (sim_ctx_t *ctx, bson_t *reply);

/* The setAllowMigrations command (sim_handler_t: reads ctx->cmd, fills reply, which the caller initialised; the caller
 * holds sim_g.lock). */
void
sim_cmd_set_allow_migrations (sim_ctx_t *ctx, bson_t *reply);

/* ---- sim_analyze.c ---- */

/* The analyzeShardKey command (sim_handler_t: reads ctx->cmd, fills reply, which the caller initialised; the caller
 * holds sim_g.lock). */
void
sim_cmd_analyze_shard_key (sim_ctx_t *ctx, bson_t *reply);

/* The configureQueryAnalyzer command (sim_handler_t: reads ctx->cmd, fills reply, which the caller initialised; the
 * caller holds sim_g.lock). */
void
sim_cmd_configure_query_analyzer (sim_ctx_t *ctx, bson_t *reply);

#endif
