/* Live completion values for the REPL (commands/complete.c): namespaces, shards, zones, databases and collections
 * read from the connected cluster and cached briefly, and which kind each argument of an entry completes. */
#ifndef SHARDSH_COMPLETE_H
#define SHARDSH_COMPLETE_H

#include <bson/bson.h>
#include <stddef.h>

#include "commands/table.h"
#include "shell/core/ctx.h"

/* The values of an argument kind ("ns", "shard", "zone", "db", "coll" in db) as an array of strings, read from the
 * connected cluster and cached for 30 s; NULL when not connected yet, under --dry-run, or on any error. Borrowed:
 * valid until the next call or cmd_complete_reset. */
const bson_t *
cmd_complete_values (sh_ctx_t *ctx, const char *kind, const char *db);

/* Frees the session's cached completion values (ctx->session.complete). */
void
cmd_complete_reset (sh_ctx_t *ctx);

/* The completion kind of argument index of cmd (from arg_kinds) into buf, or NULL when it has none. */
const char *
cmd_arg_kind (const sh_cmd_t *cmd, int index, char *buf, size_t len);

#endif
