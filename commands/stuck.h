/* "Why isn't this moving": one pure model of what keeps the balancer from moving a chunk, shared by sh.progress()
 * (drains), sh.explainBalance() (findings), the dashboard (drains and operations, through sh.progress's computation)
 * and --plan (removeShard). It follows the server's balancer policy (balancer_policy.cpp, 4.4 to 8.0 alike on these
 * points): a chunk on a draining shard, or inside a zone range on a shard outside the zone, goes to the least loaded
 * shard that is not draining and (for a zone range) holds the zone (_getLeastLoadedReceiverShard); when there is none
 * it stays ("no appropriate recipient"); a chunk flagged jumbo is skipped, draining shard or not; nothing moves while
 * the balancer is off or outside its window, nor in a collection with noBalance. Each verdict is a stuck_t: why, and
 * the command that changes it. No I/O. */
#ifndef SHARDSH_STUCK_H
#define SHARDSH_STUCK_H

#include <bson/bson.h>
#include <stdbool.h>
#include <stdint.h>

#define STUCK_FAILURES 3 /* failures of one range (changelog moveChunk.from with an error) that make it stuck */

/* One verdict: why nothing moves (one line) and the command that changes it. Empty strings: not stuck. */
typedef struct {
   char why[512];
   char fix[512];
} stuck_t;

/* Clears s (not stuck). */
void
stuck_clear (stuck_t *s);

/* Whether s holds a verdict. */
bool
stuck_is (const stuck_t *s);

/* The balancer itself: stopped (balancerStatus mode "off", or config.settings stopped: true) or, with now_minutes
 * >= 0 (local time of day), outside settings' activeWindow. balancer_status and settings may be empty documents. */
bool
stuck_balancer (const bson_t *balancer_status, const bson_t *settings, int now_minutes, stuck_t *out);

/* The balancing window alone: true, with why and fix, when now_minutes (>= 0, local time of day) is outside settings'
 * activeWindow (a window whose start equals its stop, or an unreadable one, is no limit, as the server reads it). */
bool
stuck_window (const bson_t *settings, int now_minutes, stuck_t *out);

/* How many shards of shards (config.shards documents, as an array document) could take a chunk: not draining, not
 * named except (NULL: none), and holding zone in their tags when zone is neither NULL nor "". When first is not
 * NULL it receives the first such shard's name ("" when none). */
size_t
stuck_recipients (const bson_t *shards, const char *zone, const char *except, char *first, size_t first_len);

/* Whether shard id of shards (config.shards documents) is draining. */
bool
stuck_shard_draining (const bson_t *shards, const char *id);

/* chunks chunks of ns (NULL: of every collection) on shard from, inside zone's range [min, max) (shell-style texts,
 * NULL when unknown; zone NULL or "": in no zone), must leave from (it drains, or they sit outside their zone): stuck
 * when no shard can take them. The fix adds a shard to the zone or removes the range (with no zone: adds a shard). */
bool
stuck_no_recipient (const bson_t *shards, const char *ns, const char *zone, const char *min, const char *max,
                    const char *from, int64_t chunks, stuck_t *out);

/* jumbo chunks flagged jumbo on draining shard from; example_ns / example_min (may be NULL) name one of them for the
 * fix (a moveChunk with forceJumbo to to, else "<shard>"). */
bool
stuck_jumbo_draining (const char *from, int64_t jumbo, const char *example_ns, const char *example_min, const char *to,
                      stuck_t *out);

/* Collection ns excluded from balancing (config.collections noBalance: true). */
bool
stuck_no_balance (const char *ns, stuck_t *out);

/* The same range of ns failed to migrate failures times (>= STUCK_FAILURES), the newest error errmsg. */
bool
stuck_repeated_failure (const char *ns, const char *range_text, int failures, const char *errmsg, stuck_t *out);

/* An operation whose figures did not move for samples readings in a row (>= 3), over secs seconds. */
bool
stuck_no_progress (int samples, double secs, stuck_t *out);

#endif
