/* The dashboard's snapshot: pure data that the collector (views/model/collect.c) fills from one refresh and the views
 * borrow to draw. No driver types here: strings are already formatted (display text and relaxed Extended JSON),
 * numbers are already rates. Memory grows with the (shard, collection) pairs that hold something (plus a bounded
 * event list), never with shards x collections nor with the number of chunks. Everything here is prefixed snap_:
 * snap_t (the whole sample) and its parts, snap_coll_t, snap_shard_t, …. */
#ifndef SHARDSH_SNAPSHOT_H
#define SHARDSH_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SNAP_NAME 128      /* shard names, namespaces */
#define SNAP_TEXT 256      /* key patterns, ranges, event text */
#define SNAP_HIST 64       /* samples kept for a shard's write-rate sparkline */
#define SNAP_EVENTS 40     /* recent events kept (each kind with its own share, see views/model/collect.c) */
#define SNAP_MIGRATIONS 16 /* in-flight migrations described (the count is exact beyond it) */
#define SNAP_OPS 8         /* long operations described (the count is exact beyond it) */

/* One shard's share of one collection: what it holds. A collection has one only for the shards holding some of its
 * chunks or data (a collection on 3 of 1,000 shards has 3), sorted by shard; 24 bytes, so a million of them fit. */
typedef struct {
   int32_t shard;      /* index in the snapshot's shards */
   int32_t chunks;     /* chunks of the collection on this shard (server-side $group) */
   int64_t data_bytes; /* $shardedDataDistribution ownedSizeBytes (6.0.3+), else $collStats storageStats.size */
   int64_t docs;       /* numOwnedDocuments, else storageStats.count */
} snap_cell_t;

/* What happens on one shard for one collection: only where something does (jumbo chunks, op counters above zero, a
 * rate, the hot flag), sorted by shard. */
typedef struct {
   int32_t shard;      /* index in the snapshot's shards */
   int32_t jumbo;      /* chunks flagged jumbo */
   int64_t writes_ops; /* cumulative latencyStats.writes.ops (the counter the rate comes from) */
   int64_t reads_ops;  /* cumulative latencyStats.reads.ops */
   double writes_ps;   /* writes per second since the previous sample */
   double reads_ps;    /* reads per second since the previous sample */
   bool hot;           /* takes >= hot_factor x its fair share of the collection's writes, above the minimum */
} snap_act_t;

/* A reference-counted array of cells or acts: copies of a snapshot share them (snap_copy), and the collector
 * shares an unchanged collection's with the last sample, so what does not change is held once. Read through
 * snap_coll_cells / snap_coll_acts; the elements follow the header. */
typedef struct {
   int refs;    /* snapshots sharing it */
   size_t n;    /* elements in use */
   size_t cap;  /* elements allocated */
   size_t elem; /* bytes per element */
   bool sorted; /* by shard, without duplicates (snap_coll_tidy) */
} snap_vec_t;

/* The texts of a collection's two end chunks (the one whose max is MaxKey: top; whose min is MinKey: bottom), each
 * in shell style and as relaxed Extended JSON: read with snap_coll_end. */
typedef enum {
   SNAP_TOP_MIN,
   SNAP_TOP_MIN_JSON,
   SNAP_TOP_MAX,
   SNAP_TOP_MAX_JSON,
   SNAP_BOTTOM_MIN,
   SNAP_BOTTOM_MIN_JSON,
   SNAP_BOTTOM_MAX,
   SNAP_BOTTOM_MAX_JSON,
   SNAP_END_TEXTS
} snap_end_text_t;

/* Those texts in one allocation, as long as they are (a few dozen bytes, where fixed buffers took 2 KB per
 * collection), reference-counted like the cells: the samples that did not re-read a collection's ends share them. */
typedef struct {
   int refs;
   const char *text[SNAP_END_TEXTS]; /* point into the same allocation, after the header */
} snap_ends_t;

typedef enum {
   SNAP_BAL_UNKNOWN = 0, /* not enough data (no chunks, one shard) */
   SNAP_BAL_OK,          /* within the server's threshold */
   SNAP_BAL_IMBALANCED,  /* the balancer would move something */
} snap_balance_t;

typedef struct {
   char ns[SNAP_NAME];
   char key[SNAP_TEXT];      /* shard key pattern, shell style: "{ x: 1 }" */
   char key_json[SNAP_TEXT]; /* the same as relaxed Extended JSON */
   bool hashed;              /* the key has a hashed field */
   bool no_balance;          /* config.collections noBalance: balancing disabled */
   int64_t chunks;           /* total chunks */
   int64_t jumbo;            /* total jumbo chunks */
   int64_t out_of_zone;      /* total chunks outside their zone */
   int64_t straddling;       /* chunks straddling a zone range's bound (to be split there before they can move) */
   int64_t data_bytes;       /* total data size */
   int64_t docs;             /* total documents */
   double writes_ps;         /* total writes per second */
   double reads_ps;
   snap_vec_t *cells;   /* snap_cell_t: the shards holding some of it (snap_coll_cells); shared, NULL when none */
   snap_vec_t *acts;    /* snap_act_t: the shards with something happening (snap_coll_acts); shared, NULL when none */
   int64_t range_bytes; /* the collection's chunk (range) size: its own, else the cluster's */
   snap_balance_t balance;      /* judged by the server's policy for its version */
   char balance_why[SNAP_TEXT]; /* "chunk difference 5 >= 4", "data difference 410 MB >= 384 MB" */
   int hot_shard;               /* index of the hottest hot shard, -1 when none */
   bool has_hot_range;    /* the writes go to one key range: the end chunk hot_range_end names (snap_coll_hot_range) */
   int hot_range_shard;   /* index of the shard owning that range */
   char hot_range_end[8]; /* "MaxKey" or "MinKey": which end of the key space takes the inserts */
   /* The chunks at the two ends of the key space (from the server-side $group), for naming a hot range. */
   int top_shard;     /* owner of the chunk whose max is MaxKey, -1 when unknown */
   int bottom_shard;  /* owner of the chunk whose min is MinKey, -1 when unknown */
   snap_ends_t *ends; /* their bounds' texts (snap_coll_end); shared, NULL when none */
   int key_trend;     /* +1: the highest key grew since the previous sample; -1: the lowest shrank; 0 */
   int64_t stats_ms;  /* monotonic ms at which the cells' op counters were read (rates span two readings; equal
                       * readings carry the last rates); 0 when never, or in tests: rates over the samples' dt */
} snap_coll_t;

/* A draining shard's progress: what is left on it and how fast it goes. */
typedef struct {
   int64_t chunks;    /* chunks left (all sharded collections) */
   int64_t bytes;     /* data left */
   int64_t databases; /* databases whose primary it still is; -1 when unknown */
   double bytes_ps;   /* bytes leaving per second over the last minutes; -1 before two readings */
   double chunks_ps;  /* chunks leaving per second over the same span */
   double window_s;   /* the span the rates cover */
   int64_t eta_s;     /* estimated seconds left; -1 when it cannot be told (no progress yet, or stuck) */
   bool stuck;        /* it cannot finish as things stand: its operation (snap_drain_op) says why and the fix */
} snap_drain_t;

typedef struct {
   char name[SNAP_NAME];
   char host[SNAP_TEXT];
   bool draining;
   snap_drain_t drain;    /* meaningful when draining */
   char zones[SNAP_TEXT]; /* comma-separated, "" when none */
   int64_t chunks;        /* over all sharded collections */
   int64_t jumbo;
   int64_t data_bytes; /* over the sharded collections */
   int64_t docs;
   double writes_ps;
   double reads_ps;
   double hist[SNAP_HIST]; /* recent write rates, oldest first */
   int nhist;
   bool hot; /* hot for at least one collection */
   /* Trend over the session: change since the first sample that saw this shard. */
   int64_t chunks_delta;
   int64_t bytes_delta;
   double trend_s; /* seconds since that sample */
} snap_shard_t;

typedef enum {
   SNAP_EV_SPLIT,
   SNAP_EV_MIGRATE_OK,
   SNAP_EV_MIGRATE_FAIL,
   SNAP_EV_MIGRATE_START,
   SNAP_EV_ROUND,
   SNAP_EV_ROUND_FAIL,
   SNAP_EV_OTHER,
} snap_event_kind_t;

typedef struct {
   int64_t time_ms; /* event time, ms since the epoch */
   snap_event_kind_t kind;
   char what[64]; /* the changelog's "what" */
   char ns[SNAP_NAME];
   char text[SNAP_TEXT]; /* one line: "shard01 -> shard02 { x: 10 } -> { x: 20 }" */
   char from[SNAP_NAME]; /* migrations: the donor; splits: the owning shard; "" otherwise */
   char to[SNAP_NAME];   /* migrations: the recipient */
   char min[SNAP_TEXT];  /* the range, shell style; "" for rounds */
   char max[SNAP_TEXT];
   char error[SNAP_TEXT]; /* a failure's message, "" otherwise */
   char id[SNAP_NAME];    /* the log entry's _id as text ("<host>-<time>-<ObjectId>"); its details are read by it */
   bool actionlog;        /* from config.actionlog (a balancer round), else config.changelog */
} snap_event_t;

typedef struct {
   char mode[32];  /* "full", "off", "autoSplitOnly", "" when unknown */
   bool in_round;  /* balancerStatus inBalancerRound */
   int64_t rounds; /* numBalancerRounds (-1 when unknown) */
   bool has_window;
   char window_start[8]; /* "HH:MM" */
   char window_stop[8];
   int migrations; /* migrations in flight as the server reports them (config.migrations before 6.0, the donors'
                    * _shardsvrMoveRange in $currentOp from 6.0); -1 when the server would not say */
   int64_t chunk_size_bytes; /* the cluster's chunk (range) size */
} snap_balancer_t;

/* One long operation, as sh.progress() lists it (commands/progress.h: progress_compute), already formatted. */
typedef struct {
   char type[32];          /* reshardCollection, moveCollection, unshardCollection, migration, drain, defragmentation,
                            * configShardTransition */
   char ns[SNAP_NAME];     /* "" for a drain */
   char shard[SNAP_NAME];  /* the shard it is about, "" when it spans several */
   char phase[64];         /* "" when unknown */
   double percent;         /* 0-100; -1 when unknown or not to be trusted (caveat says why) */
   double bytes_ps;        /* -1 when unknown */
   double eta_s;           /* -1 when unknown */
   char caveat[SNAP_TEXT]; /* why a figure is missing, "" otherwise */
   char stuck[512];        /* why it cannot finish as things stand (commands/stuck.h), "" otherwise */
   char fix[512];          /* the command that changes that, "" otherwise */
} snap_op_t;

/* One migration in flight. A 6.0+ moveRange may give only its min (or only its max): the other bound is then "". */
typedef struct {
   char ns[SNAP_NAME];
   char min[SNAP_TEXT]; /* the range's min, shell style (as snap_chunk_t.min); "" when not given */
   char max[SNAP_TEXT];
   char min_json[SNAP_TEXT]; /* the same bounds as relaxed Extended JSON (the chunk map marks the range from them);
                              * "" when not given or longer than SNAP_TEXT */
   char max_json[SNAP_TEXT];
   char from[SNAP_NAME];
   char to[SNAP_NAME];
} snap_migration_t;

typedef struct {
   char host[SNAP_TEXT]; /* the router that answered (serverStatus host) */
   char version[32];     /* "7.0.2" */
   int vmajor, vminor;
   snap_balancer_t balancer;
   double interval_s;     /* refresh interval in effect */
   int64_t sampled_at_ms; /* wall clock of the sample, ms since the epoch; 0 when there never was one */
   int64_t sample_ms;     /* how long the sample took */
   int round_trips;       /* commands sent for this sample */
   bool incremental;      /* chunk counts and sizes were updated from what changed since the previous sample */
   int colls_reread;      /* collections whose chunks this sample counted again (every one on a full read) */
   int stats_read;        /* collections whose counters ($collStats) this sample read */
   bool quiet;            /* only the dashboard's own reads moved the router's counters since the last sample: no
                           * $collStats, and the counters read then stand for now (rates 0 where they are current) */
   bool rates_valid;      /* a previous sample exists, so rates mean something */
   double inserts_ps, updates_ps, deletes_ps, queries_ps; /* mongos opcounters, whole router */
   double hot_factor;                                     /* thresholds the hot flags were computed with */
   double hot_min_rate;
   bool stale;            /* the last refresh failed: the numbers are from sampled_at_ms */
   char error[SNAP_TEXT]; /* why, when stale */
   snap_shard_t *shards;  /* owned, or shared through share */
   size_t nshards;
   snap_coll_t *colls; /* owned, or shared through share */
   size_t ncolls;
   int *share; /* NULL: shards and colls are this snapshot's own; else how many snapshots share them (read-only) */
   snap_event_t events[SNAP_EVENTS]; /* newest first */
   size_t nevents;
   snap_migration_t migs[SNAP_MIGRATIONS]; /* the first of balancer.migrations */
   size_t nmigs;
   snap_op_t ops[SNAP_OPS]; /* long operations (sh.progress), in its order */
   size_t nops;
   size_t ops_total; /* all of them (nops shows the first SNAP_OPS) */
   /* Totals over the shards (equal to those over the collections). */
   int64_t total_chunks;
   int64_t total_jumbo;
   int64_t total_bytes;
   int64_t total_docs;
   double total_writes_ps;
   double total_reads_ps;
} snap_t;

/* One event's details (Enter on the events panel), read on demand by the collector: the whole log entry, the shard
 * that owns the chunk holding the event's range now, and a failure's text. */
typedef struct {
   char id[SNAP_NAME];                  /* the event's _id */
   char *doc;                           /* the whole log entry as mongosh prints it (several lines); owned; NULL
                                         * when it could not be read */
   char owner[SNAP_NAME];               /* the shard owning the chunk that holds the event's min now; "" when none */
   char owner_range[2 * SNAP_TEXT + 8]; /* that chunk's bounds, "{ x: 10 } -> { x: 20 }" */
   char error[SNAP_TEXT];               /* the failure's text, "" for a success */
   char read_error[SNAP_TEXT];          /* why the entry or the owner could not be read, "" otherwise */
} snap_event_detail_t;

/* Frees what d holds (a zeroed struct is fine) and zeroes it. */
void
snap_event_detail_destroy (snap_event_detail_t *d);

/* A collection's chunk list for the drill-down view (fetched on demand, capped). */
typedef struct {
   char min[SNAP_TEXT];
   char max[SNAP_TEXT];
   char shard[SNAP_NAME];
   bool jumbo;
   char zone[64];             /* zone whose range holds this chunk's min, "" when none */
   bool out_of_zone;          /* in a zone range, on a shard outside that zone */
   bool hot;                  /* the collection's hot key range */
   char moving_to[SNAP_NAME]; /* being migrated to that shard, "" when not */
   int64_t docs;              /* documents (dataSize estimate); -1 when not read */
   int64_t bytes;             /* bytes (dataSize estimate); -1 when not read */
} snap_chunk_t;

typedef struct {
   char min[SNAP_TEXT];
   char max[SNAP_TEXT];
   char zone[64];
   char shards[SNAP_TEXT]; /* shards in that zone, comma-separated */
} snap_zone_t;

typedef struct {
   char ns[SNAP_NAME];
   snap_chunk_t *chunks; /* owned */
   size_t nchunks;
   bool truncated;     /* more chunks exist than were fetched */
   snap_zone_t *zones; /* owned */
   size_t nzones;
   char error[SNAP_TEXT]; /* non-empty when the fetch failed */
} snap_chunks_t;

/* The operation (sh.progress's drain or configShardTransition row) of draining shard name, NULL when not listed. */
const snap_op_t *
snap_drain_op (const snap_t *s, const char *name);

/* One long operation's line in parts, each "" when unknown, each with its leading separator: what ("drain shard01",
 * "migration app.users on shard01"), phase (" cloning"), pct (" 42%"), rate (" 1.2 MB/s"), eta (" 3m05s left" or
 * " STUCK") and caveat (": <why stuck>; fix: <command>" or " (<caveat>)"). The buffers hold every part whole. */
typedef struct {
   char what[2 * SNAP_NAME + 48];
   char phase[SNAP_TEXT + 2];
   char pct[16];
   char rate[40];
   char eta[40];
   char caveat[sizeof ((snap_op_t *) 0)->stuck + sizeof ((snap_op_t *) 0)->fix + SNAP_TEXT + 16];
} snap_op_parts_t;

/* Fills p with o's parts: the one formatter of an operation's figures (the Operations panel fits the parts to a
 * width, snap_fmt_op joins them). */
void
snap_op_parts (const snap_op_t *o, snap_op_parts_t *p);

/* One long operation on one line, as the batch text shows it: "reshardCollection app.users cloning 42% 1.2 MB/s
 * 3m05s left" (the parts of snap_op_parts joined: unknown figures left out, the caveat last). Returns buf. */
char *
snap_fmt_op (const snap_op_t *o, char *buf, size_t len);

/* Frees what snap owns and zeroes it (safe on a zeroed snapshot); shared cells and acts lose one reference. */
/* Text which of co's end chunks ("" when unknown). The pointer lives as long as co's ends. */
const char *
snap_coll_end (const snap_coll_t *co, snap_end_text_t which);

/* Sets co's end texts to copies of text[0..SNAP_END_TEXTS-1] (NULL counts as "") in one allocation, dropping its
 * reference to the ones it had. */
void
snap_coll_set_ends (snap_coll_t *co, const char *const text[SNAP_END_TEXTS]);

/* dst's end texts become src's, shared (dst's own reference, if any, is dropped first). */
void
snap_coll_share_ends (snap_coll_t *dst, const snap_coll_t *src);

/* The hot range's bounds as relaxed Extended JSON, from the end chunk hot_range_end names ("" without a hot range),
 * and the range in shell style, "{ x: 1000 } -> { x: MaxKey() }", into buf. */
const char *
snap_coll_hot_min_json (const snap_coll_t *co);
const char *
snap_coll_hot_max_json (const snap_coll_t *co);
void
snap_coll_hot_range (const snap_coll_t *co, char *buf, size_t len);

void
snap_destroy (snap_t *snap);

/* Copies src into dst (dst is overwritten, not freed first): shards and collections are copied, their cells and acts
 * shared (one more reference each; nothing writes to a shared array, see snap_coll_cell_add). */
void
snap_copy (snap_t *dst, const snap_t *src);

/* ---- a collection's cells and acts ---- */

/* co's cells (*n of them), sorted by shard once tidied; NULL when none. Borrowed from co. */
const snap_cell_t *
snap_coll_cells (const snap_coll_t *co, size_t *n);

/* co's acts (*n of them), sorted by shard once tidied; NULL when none. Borrowed from co. */
const snap_act_t *
snap_coll_acts (const snap_coll_t *co, size_t *n);

/* The cell of shard index sh in co (tidied), or NULL when the shard holds none of it. Borrowed. */
const snap_cell_t *
snap_coll_cell (const snap_coll_t *co, int sh);

/* The act of shard index sh in co (tidied), or NULL. Borrowed. */
const snap_act_t *
snap_coll_act (const snap_coll_t *co, int sh);

/* Chunks of co on shard index sh (0 when none). */
int64_t
snap_coll_chunks_on (const snap_coll_t *co, int sh);

/* Whether shard index sh is hot for co. */
bool
snap_coll_hot_on (const snap_coll_t *co, int sh);

/* Appends a zeroed cell (act) for shard index sh to co and returns it, valid until the next change to co. The array
 * is co's own afterwards (copied first when shared), and unsorted until snap_coll_tidy, which merges entries of the
 * same shard by adding them up; several sources can each append their part. */
snap_cell_t *
snap_coll_cell_add (snap_coll_t *co, int sh);

snap_act_t *
snap_coll_act_add (snap_coll_t *co, int sh);

/* co's cells (acts) to write in place: its own (copied first when shared); NULL when none. Borrowed. */
snap_cell_t *
snap_coll_cells_mut (snap_coll_t *co, size_t *n);

snap_act_t *
snap_coll_acts_mut (snap_coll_t *co, size_t *n);

/* Sorts co's cells and acts by shard, merges entries of one shard (adding them up, hot when either is) and drops the
 * empty ones (a cell without chunks, bytes or documents; an act with nothing in it). */
void
snap_coll_tidy (snap_coll_t *co);

/* Drops co's cells (acts): one reference less. */
void
snap_coll_drop_cells (snap_coll_t *co);

void
snap_coll_drop_acts (snap_coll_t *co);

/* Makes dst share src's cells (acts) instead of its own (one reference more). */
void
snap_coll_share_cells (snap_coll_t *dst, const snap_coll_t *src);

void
snap_coll_share_acts (snap_coll_t *dst, const snap_coll_t *src);

/* Makes dst (overwritten, not freed first) a read-only view of src: the same shards and collections, shared by a
 * reference count instead of copied (src then shares them too). Neither may change its shards or collections
 * afterwards (the scalar fields are each one's own); each is freed with snap_destroy. */
void
snap_share (snap_t *dst, snap_t *src);

/* Index of shard name in snap, or -1. */
int
snap_shard_index (const snap_t *snap, const char *name);

/* Frees what chunks owns and zeroes it (safe on a zeroed one). */
void
snap_chunks_destroy (snap_chunks_t *chunks);

/* Formats a byte count as "1.2 GB" into buf (size >= 16). Returns buf. */
char *
snap_fmt_bytes (int64_t bytes, char *buf, size_t len);

/* Formats a byte rate as "1.2 MB/s" into buf ("-" when negative: not known yet). Returns buf. */
char *
snap_fmt_rate_bytes (double bytes_ps, char *buf, size_t len);

/* Formats seconds as "45s", "12m05s", "3h05m" or "2d04h" into buf ("?" when negative: not known). Returns buf. */
char *
snap_fmt_duration (int64_t secs, char *buf, size_t len);

/* Copies the shell-style value text s into buf with every ISODate('2026-11-24T09:36:33.261Z') shortened for a
 * narrow column: to "2026-11-24 09:36:33.261" (".000" dropped), and to the time alone when ref (may be NULL) holds an
 * ISODate of the same day. Returns buf. */
char *
snap_short_dates (const char *s, const char *ref, char *buf, size_t len);

/* "min -> max" (arrow between) with the dates shortened: the max shows only what differs from the min. */
char *
snap_fmt_range (const char *min, const char *max, const char *arrow, char *buf, size_t len);

/* Formats a count as "12.3k" into buf. Returns buf. */
char *
snap_fmt_count (double n, char *buf, size_t len);

#endif
