/* sh.explainBalance's hot-range probe (commands/explain_hot.c): the range the dashboard flags as hot, measured the
 * same way over two readings one second apart. */
#ifndef SHARDSH_EXPLAIN_HOT_H
#define SHARDSH_EXPLAIN_HOT_H

#include <bson/bson.h>
#include <stdbool.h>

#include "commands/table.h"

/* Measures whether ns (its config.collections document coll, the cluster having nshards shards) takes its inserts
 * at the top of a ranged key on one hot shard; hot (initialised here, owned by the caller) receives { shard, field,
 * share } when it does, stays empty otherwise. Sends two $collStats and two finds of the collection one second apart
 * and one find of config.chunks. False with err set when a read fails; Ctrl-C during the wait ends it quietly. */
bool
explain_hot_range (sh_ctx_t *ctx, const char *ns, const bson_t *coll, size_t nshards, bson_t *hot, sh_error_t *err);

#endif
