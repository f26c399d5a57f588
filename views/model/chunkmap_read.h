/* Reads one collection's chunk map from the cluster's metadata (config.shards, config.collections, config.chunks,
 * config.tags and config.changelog) into the model of chunkmap.h, with bounded reads: at most `limit` chunks come
 * back whatever the collection holds (beyond it, a random sample sorted by key stands for them) and at most
 * CHUNKMAP_READ_EVENTS changelog events of the replay window. */
#ifndef SHARDSH_CHUNKMAP_READ_H
#define SHARDSH_CHUNKMAP_READ_H

#include "shell/core/ctx.h"
#include "shell/core/errors.h"
#include "views/model/chunkmap.h"

#define CHUNKMAP_READ_EVENTS 500

/* Reads the map of ns (db.coll): the shards, the collection's chunks (all of them up to limit, else a sample of
 * limit), its zone ranges with the shards each zone allows, and the migrations, splits and merges logged since
 * since_ms (wall clock, ms). On success *out is filled and owned by the caller (chunkmap_data_destroy); on failure
 * err says why (an unsharded or unknown collection is SH_ERR_ARGS) and *out holds nothing to free. */
bool
chunkmap_read (sh_ctx_t *ctx, const char *ns, size_t limit, int64_t since_ms, chunkmap_data_t *out, sh_error_t *err);

/* Initialises filter (the caller destroys it) with what selects the chunks of ns in config.chunks, given its
 * config.collections document coll: { uuid } from 5.0 (a collection with a timestamp has its chunks keyed by uuid),
 * { ns } before. */
void
chunkmap_chunk_filter (const bson_t *coll, const char *ns, bson_t *filter);

#endif
