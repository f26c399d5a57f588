/* The config.* reads sh.getRecentMigrations and its relatives share with sh.status (commands/migrations.c):
 * the changelog, actionlog and locks queries and how a balancer round counts as failed. */
#ifndef SHARDSH_CONFIG_READS_H
#define SHARDSH_CONFIG_READS_H

#include <bson/bson.h>
#include <stdbool.h>
#include <stdint.h>

/* mongosh's "yesterday": now with the local calendar date moved back one day (23 or 25 hours across DST). */
int64_t
cmd_yesterday_ms (int64_t now);

/* Appends { aggregate: "changelog", pipeline: [ $match, $group, $project ], cursor: {} } counting the moveChunk.from
 * events since since_ms: the successes, or (failures) the others grouped by errmsg, from and to. */
void
cmd_append_changelog_aggregate (bson_t *cmd, bool failures, int64_t since_ms);

/* Appends { find: "actionlog", filter: { what: "balancer.round" }, sort: { time: -1 }, limit: 5 }. */
void
cmd_append_actionlog_find (bson_t *cmd);

/* Appends { find: "locks", filter: { state: { $eq: 2 } } }. */
void
cmd_append_locks_find (bson_t *cmd);

/* Whether an actionlog round failed: details.errorOccured (mongosh reads only this spelling), or with both_spellings
 * also details.errorOccurred (6.0+). */
bool
cmd_round_failed (const bson_t *round, bool both_spellings);

#endif
