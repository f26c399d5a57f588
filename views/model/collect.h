/* The dashboard's collector: the only dashboard code that talks to the cluster. One refresh sends at most 27
 * commands (32 while a shard drains) whatever the numbers of chunks, shards and collections (server-side counts and one
 * reply per kind of data, never one request per chunk; servers before 6.0.3 add one $collStats per sharded collection),
 * and turns the replies into a snap_t (views/model/snapshot.h) that the views render. This header has no driver
 * types, so the views can include it. */
#ifndef SHARDSH_COLLECT_H
#define SHARDSH_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "shell/core/options.h"
#include "views/model/chunkmap.h"
#include "views/model/snapshot.h"

struct sh_ctx;

/* What the dashboard needs from the session without seeing its driver types. */
typedef struct {
   const sh_options_t *opts;
   FILE *out;
   FILE *err;
} collect_io_t;

void
collect_ctx_io (struct sh_ctx *ctx, collect_io_t *io);

typedef struct {
   double interval_s;   /* refresh interval; network timeouts are kept below half of it */
   double hot_factor;   /* a shard is hot at >= hot_factor x its fair share (1/N) of a collection's writes */
   double hot_min_rate; /* ... and at least this many writes per second */
   size_t chunk_limit;  /* drill-down: most chunks fetched for one collection */
} collect_opts_t;

typedef struct collect collect_t;

#define COLLECT_DEFAULT_INTERVAL 2.0
#define COLLECT_DEFAULT_HOT_FACTOR 2.0
#define COLLECT_DEFAULT_HOT_MIN_RATE 1.0
#define COLLECT_MIN_INTERVAL 0.2
#define COLLECT_MAX_INTERVAL 600.0
#define COLLECT_FIRST_READ_MS                                                                                          \
   120000 /* the budget of the first full read (1,000 shards and 1,000,000 chunks take                                 \
           * about 10 s), whatever the interval: it is never cut at the steady budget */

/* Defaults, overridden by SHARDSH_HOT_FACTOR and SHARDSH_HOT_MIN_RATE when set. */
collect_opts_t
collect_opts_default (void);

/* Creates a collector on ctx's connection (borrowed; must outlive the collector). Before the first connection it
 * asks the connection for serverSelectionTimeoutMS, connectTimeoutMS and socketTimeoutMS below the interval
 * (conn_set_timeouts: kept out when the connection string sets them); the connection keeps owning its client. Returns
 * an owned collector (collect_free). */
collect_t *
collect_new (struct sh_ctx *ctx, const collect_opts_t *opts);

/* Frees c (NULL is ignored). The session's connection and its timeouts stay as they are. */
void
collect_free (collect_t *c);

/* Changes the interval (clamped to [COLLECT_MIN_INTERVAL, COLLECT_MAX_INTERVAL]); the client is re-created with
 * matching timeouts on the next sample when they change. Returns the interval in effect. */
double
collect_set_interval (collect_t *c, double interval_s);

/* Takes one sample. On success *snap is replaced by the new snapshot (the old one freed) and true is returned. On
 * failure *snap keeps its last good numbers, marked stale with the error, and false is returned; the next call
 * reconnects. Never blocks much longer than half the interval plus one network timeout. Collections whose counters
 * were not read in this sample keep the rates of their last reading (snap_coll_t.stats_ms says when that was). */
bool
collect_sample (collect_t *c, snap_t *snap);

/* Makes the next sample a full re-read of config.chunks (and of $shardedDataDistribution) instead of an
 * incremental one. A sample is also full when it is the first, follows a failed one, or when the metadata says the
 * last counts cannot be carried: a collection created, dropped or re-created (uuid, epoch or timestamp), a shard
 * added or removed, a zone range or a shard's zones changed. */
void
collect_request_full (collect_t *c);

/* Fetches the chunk list (capped at chunk_limit, sorted by min) and zone ranges of ns for the drill-down view.
 * out is cleared first; on failure out->error says why and false is returned. Two round trips. */
bool
collect_chunks (collect_t *c, const char *ns, snap_chunks_t *out);

/* Reads the documents and bytes of the chunks at indices rows[0..n) of chunks (the rows on screen; at most 16 per
 * call, those never read or read longest ago first) with one dataSize (estimate: true) each, and keeps them for the
 * next fetches of the same collection. chunks must come from the last collect_chunks. Sizes the server will not give
 * stay -1. Returns false when the cluster could not be reached. */
bool
collect_chunk_sizes (collect_t *c, snap_chunks_t *chunks, const size_t *rows, size_t n);

#define COLLECT_MAP_RANGES 4096 /* the chunk map reads at most this many chunks (a sorted sample beyond) */
#define COLLECT_MAP_HOURS 6     /* and the changelog events of the last hours, for its replay */

/* Reads the chunk map of ns (views/model/chunkmap_read.h: bounded reads of config.*) into *out, replacing what it
 * held; marks the collection's hot range from the last sample. On failure writes why into error (len bytes). */
bool
collect_chunkmap (collect_t *c, const char *ns, chunkmap_data_t *out, char *error, size_t len);

/* collect_detail.c: reads the details of event e into *out (destroying what it held): its whole log entry by _id
 * (config.changelog, or config.actionlog for a balancer round), and for an event with a range the chunk holding
 * its min now (config.chunks, one indexed find) and its owner. Three reads at most, on Enter only. Returns false,
 * with out->read_error set, when the entry could not be read (what was read is kept). */
bool
collect_event_detail (collect_t *c, const snap_event_t *e, snap_event_detail_t *out);

/* ---- pure judgement, exported for the unit tests ---- */

/* The chunk-count difference at which a pre-6.0 balancer moves chunks: 2 below 20 chunks, 4 below 80, else 8. */
int
collect_chunk_threshold (int64_t total_chunks);

/* Computes cur's rates from prev (dt_s seconds earlier; prev NULL or dt_s <= 0: no rates), the hot flags, the hot
 * key range, and each collection's balance verdict by the policy of cur's server version. A collection whose
 * stats_ms is set in both gets its rates over the time between those readings, or prev's rates when it is the same
 * reading; stats_ms 0 in both means over dt_s. own_reads[i] is the number of reads the collector itself sent to
 * collection i since its previous reading (subtracted from its read rate; may be NULL). Pure: no I/O. */
void
collect_judge (snap_t *cur, const snap_t *prev, double dt_s, const int *own_reads, const collect_opts_t *opts);

#endif
