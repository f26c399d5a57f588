/* What a statement does to the cluster, decided from the requests it would send (docs/safety.md): drops a collection
 * or a database, deletes every document, removes a shard, stops the balancer, moves data, kills an operation or writes
 * the cluster's metadata. Raw commands and helpers build the same documents, so they get the same effect, and a
 * confirmation in a terminal names it. Each table.def line declares its entry's effect; the meta-test checks that the
 * entry's example builds requests with exactly that effect. */
#ifndef SHARDSH_EFFECT_H
#define SHARDSH_EFFECT_H

#include <bson/bson.h>
#include <stdbool.h>
#include <stddef.h>

#include "commands/requests.h"
#include "shell/core/ctx.h"
#include "shell/core/errors.h"

struct sh_call; /* commands/table.h, which includes this header */

/* Effects in rising order of harm: when a call sends several requests, the highest one is the call's. */
typedef enum {
   CMD_EFFECT_NONE = 0,      /* asks nothing */
   CMD_EFFECT_ARGS,          /* table.def only: decided by the arguments (raw commands, collection writes) */
   CMD_EFFECT_CONFIG_WRITE,  /* writes config.* beyond the settings the manual documents */
   CMD_EFFECT_KILL_OP,       /* kills a running operation */
   CMD_EFFECT_MOVE,          /* moves data between shards (chunks, ranges, collections, a primary, resharding) */
   CMD_EFFECT_STOP_BALANCER, /* stops the balancer */
   CMD_EFFECT_REMOVE_SHARD,  /* starts draining a shard to remove it */
   CMD_EFFECT_DELETE_ALL,    /* deletes every document of a collection (no filter) */
   CMD_EFFECT_DROP_COLL,     /* drops a collection */
   CMD_EFFECT_DROP_DB,       /* drops a database */
} cmd_effect_t;

/* An effect and what it names ("app.events", "shard03"). */
typedef struct {
   cmd_effect_t kind;
   char what[256]; /* the namespace, shard, database or operation; "" when none */
} cmd_effect_info_t;

/* The effect of one request: the command document cmd sent to database db. */
void
cmd_effect_of_request (const char *db, const bson_t *cmd, cmd_effect_info_t *out);

/* The highest effect among the requests of reqs (CMD_EFFECT_NONE when there are none). */
void
cmd_effect_of_requests (const sh_requests_t *reqs, cmd_effect_info_t *out);

/* The effect's name as table.def spells it ("DROP_COLL"); "?" for a value out of range. */
const char *
cmd_effect_name (cmd_effect_t kind);

/* What an entry of that effect does, for help and docs/commands.md, written to follow "when it": "drops a
 * collection"; for CMD_EFFECT_ARGS every effect the arguments can have. */
const char *
cmd_effect_summary (cmd_effect_t kind);

/* Writes what the effect does into buf ("drops collection app.events"): the text of a confirmation. */
void
cmd_effect_describe (const cmd_effect_info_t *e, char *buf, size_t size);

/* True when the effect's operation is already under way in the cluster, so asking again would only be in the way:
 * removing a shard that is draining already (config.shards says draining: true), the documented way to poll a drain.
 * Reads the cluster; false when it cannot tell. */
bool
cmd_effect_under_way (sh_ctx_t *ctx, const cmd_effect_info_t *e);

/* True when a confirmation answer is y or yes (any case) alone on its line. */
bool
confirm_answer_yes (const char *line);

/* Asks the person at the terminal (stderr, then a line of stdin) whether to run call, naming its effect e (and the
 * plan's effect when the pre-flight or describe_effect knows it). False with err SH_ERR_CONFIRM unless the answer is
 * yes. */
bool
cmd_effect_confirm (sh_ctx_t *ctx, const struct sh_call *call, const cmd_effect_info_t *e, sh_error_t *err);

#endif
