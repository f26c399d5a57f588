/* sh.explainBalance's zone probes (commands/explain_zones.c). */
#ifndef SHARDSH_EXPLAIN_ZONES_H
#define SHARDSH_EXPLAIN_ZONES_H

#include <bson/bson.h>
#include <stdbool.h>
#include <stdint.h>

#include "commands/table.h"

/* Probes one zone range (tag: a config.tags document) of the collection coll (its config.collections document),
 * shards being config.shards' documents: appends { zone, min, max, straddling: [bound…], outside, outsideShard,
 * [noRecipient: true, drainingChunks: { <shard>: n }] } as element i of zones. False with err set when a read
 * fails (the element is still closed). */
bool
explain_probe_zone (sh_ctx_t *ctx, const bson_t *coll, const bson_t *shards, const bson_t *tag, bson_t *zones,
                    uint32_t i, sh_error_t *err);

#endif
