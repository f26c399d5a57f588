/* The collector's private header, shared by views/model/collect*.c only: its limits, the state it keeps across
 * refreshes (struct collect), the lookups of one sample, and the steps of a sample. Each step returns false only for
 * an error that spoils the whole sample. */
#ifndef SHARDSH_COLLECT_INT_H
#define SHARDSH_COLLECT_INT_H

#include <mongoc/mongoc.h>

#include "commands/progress.h"
#include "views/model/collect.h"
#include "shell/core/conn.h"
#include "shell/core/ctx.h"
#include "shell/core/errors.h"

#define COLLECT_MIGRATIONS_FETCHED 16 /* migration events (started, moved, failed) per refresh */
#define COLLECT_SPLITS_FETCHED 8
#define COLLECT_ROUNDS_FETCHED 8
#define COLLECT_FAILURES_FETCHED 4  /* failed migrations, and failed rounds, read on their own */
#define COLLECT_MIGRATIONS_MAX 1000 /* in-flight migrations counted (a cluster runs at most one per shard pair) */
#define COLLECT_DRAIN_WINDOW_MS (5 * 60 * 1000) /* the span a drain rate is measured over */
#define COLLECT_CHUNK_SIZES_PER_REFRESH 16      /* dataSize reads per drill-down refresh (rows on screen only) */
#define COLLECT_TAGS_MAX 10000
#define COLLECT_DEFAULT_RANGE_MB 128
#define COLLECT_OLD_DEFAULT_RANGE_MB 64
#define COLLECT_STATS_PER_REFRESH 8 /* $collStats (rate counters) per refresh, with $shardedDataDistribution */
/* Commands the router may count between one refresh's last serverStatus and the next one's first that are the
 * dashboard's own: that first serverStatus itself, the driver's server check (hello) and the connection's ping. */
#define COLLECT_OWN_IDLE_COMMANDS 3
/* The router's opcounters the collector reads (serverStatus), in this order. */
enum {
   COLLECT_OP_INSERT,
   COLLECT_OP_UPDATE,
   COLLECT_OP_DELETE,
   COLLECT_OP_QUERY,
   COLLECT_OP_GETMORE,
   COLLECT_OP_COMMAND,
   COLLECT_OPS
};
#define COLLECT_OWN_NAMES 32         /* command names the collector counts its own sends of (it uses about 10) */
#define COLLECT_TRENDS_PER_REFRESH 2 /* collections whose key ends are read per refresh (two finds each) */

/* A chunk's size as dataSize last gave it. */
typedef struct {
   char min[SNAP_TEXT]; /* the chunk's min, shell style */
   int64_t docs, bytes;
   int64_t read_at; /* collect_t.size_reads when read */
} drill_size_t;

/* What the collector remembers about a sharded collection from the last sample. */
typedef struct {
   char ns[SNAP_NAME];
   bson_t key; /* shard key pattern */
   uint8_t uuid[16];
   bool has_uuid;
   bool by_uuid;    /* chunks keyed by uuid (config.collections has timestamp: 5.0+) */
   char ident[64];  /* its incarnation: config.collections timestamp (5.0+) or lastmodEpoch, as text */
   uint32_t vt, vi; /* its collection version: the greatest chunk lastmod the last count saw (0|0: none) */
   bool changed;    /* in the sample under way: its chunks changed since the last one (or the read is full) */
   bool moved;      /* ... and a migration was among the changes (the version's major part grew) */
} coll_meta_t;

/* The key extremes seen for a ranged collection, to tell where inserts land. */
typedef struct {
   char ns[SNAP_NAME];
   bson_t *top;      /* highest shard key seen, NULL when unknown */
   bson_t *bottom;   /* lowest */
   bool queried;     /* the ends were fetched at least once */
   int own_reads;    /* reads the collector sent to it since its last $collStats */
   int64_t read_seq; /* the refresh whose $collStats last read its counters; 0 when never */
} coll_track_t;

/* One reading of what is left on a draining shard. */
typedef struct {
   int64_t ms; /* monotonic */
   int64_t bytes;
   int64_t chunks;
} drain_point_t;

/* What the collector remembers about a shard over the session. */
typedef struct {
   char name[SNAP_NAME];
   double hist[SNAP_HIST]; /* write rates, oldest first */
   int nhist;
   int64_t first_ms; /* monotonic time of the first sample that saw it */
   int64_t first_chunks, first_bytes;
   drain_point_t *drain; /* while draining: SNAP_HIST readings of the last COLLECT_DRAIN_WINDOW_MS, oldest first
                          * (allocated when it starts draining; owned) */
   int ndrain;
} shard_hist_t;

struct collect {
   sh_ctx_t *ctx; /* borrowed */
   collect_opts_t opts;
   snap_t prev; /* the last good snapshot (rates are computed against it) */
   bool have_prev;
   bool ever_sampled; /* a sample succeeded once: the first full read (which may take seconds on a large cluster)
                       * is behind, and the steady refresh's budget applies */
   int64_t prev_mono_ms;
   int64_t op_prev[COLLECT_OPS]; /* mongos opcounters at the start of prev (collect_ops_t order; -1: not read) */
   int64_t op_end[COLLECT_OPS];  /* the same at the end of prev (its last command): the quiet test's baseline */
   coll_meta_t *meta;            /* from the last good sample */
   size_t nmeta;
   coll_track_t *track;
   size_t ntrack;
   shard_hist_t *hist;
   size_t nhist;
   int round_trips;          /* in the sample under way */
   int64_t deadline_mono_ms; /* the sample under way gives up after this */
   int64_t seq;              /* refreshes started */
   bool no_sdd;              /* the router refused $shardedDataDistribution: one $collStats per collection */
   /* The drill-down's collection: its chunks' bounds as last fetched (raw BSON, same order as the chunk list) and
    * the sizes read so far (dataSize), kept across refreshes by the chunk's min. */
   char drill_ns[SNAP_NAME];
   uint8_t **drill_min, **drill_max;
   size_t ndrill;
   drill_size_t *sizes;
   size_t nsizes;
   int64_t size_reads; /* dataSize reads so far (orders the cache: oldest reading first) */
   /* Incremental refresh: config.tags as the last good sample read it (the zones behind out_of_zone), and a full
    * re-read asked for. */
   bson_t tags;
   bool have_tags;
   bool full_next;
   /* The commands the session's client sent, per name, as the driver reports them (collect_watch: getMore and
    * killCursors included), and the router's metrics.commands and those counts at the last good sample's first
    * serverStatus: the quiet test subtracts the dashboard's own commands exactly. */
   mongoc_apm_callbacks_t *apm; /* owned: its command-started callback (collect_watch) */
   mongoc_client_t *apm_client; /* the client it last set them on (borrowed; NULL: none) */
   bool own_ok;                 /* counting works (a client, callbacks set before the last command) */
   bool own_overflow;           /* a name found no place: the counts are incomplete */
   char own_name[COLLECT_OWN_NAMES][32];
   int64_t own_n[COLLECT_OWN_NAMES];
   int nown;
   int64_t own_prev[COLLECT_OWN_NAMES]; /* own_n at the last good sample's first serverStatus (0 past nown then) */
   bool own_prev_ok;                    /* own_ok then */
   bson_t cmds_prev;                    /* the router's metrics.commands then */
   bool have_cmds_prev;
   /* The long operations (sh.progress's reading), the last one kept for rates. */
   progress_reading_t
      *ops_prev; /* owned; NULL before the first (a reading holds bson_t: kept by pointer, not copied) */
};

/* A name (or UUID) -> index map: a sorted array searched by bisection, so that replies with one document per
 * (collection, shard) cost O(log n) per document instead of a scan over the shards and collections. */
typedef struct {
   const void *key;
   size_t len;
   int i;
} ix_ent_t;

typedef struct {
   ix_ent_t *v;
   size_t n;
} ix_t;

/* The lookups of one sample: shards by name, collections by namespace and by UUID. */
typedef struct {
   ix_t shards;
   ix_t by_ns;
   ix_t by_uuid;
} lookup_t;

/* Which collections a sample reads $shardedDataDistribution for (collect_sample_data_distribution). */
typedef enum { SDD_ALL, SDD_CHANGED, SDD_NONE } sdd_mode_t;

/* What a streamed reply's documents are folded into. */
typedef struct {
   snap_t *s;
   const lookup_t *lk;
   coll_meta_t *metas; /* collection versions are kept here (the chunk-count and change replies) */
} reply_ctx_t;

/* ---- helpers (collect.c, collect_chunks.c) ---- */

/* calloc that aborts when out of memory (n or size 0 allocates one byte). Caller frees. */
void *
collect_calloc (size_t n, size_t size);

/* Frees the lookups' arrays and zeroes lk. */
void
collect_lookup_destroy (lookup_t *lk);

/* doc as relaxed extended JSON into buf (truncated to len). */
void
collect_fmt_json (const bson_t *doc, char *buf, size_t len);

/* The type of the first field of doc, or BSON_TYPE_EOD. */
bson_type_t
collect_first_type (const bson_t *doc);

/* Frees the drill-down's chunk bounds, and the sizes read so far when sizes_too. */
void
collect_free_drill (collect_t *c, bool sizes_too);

/* ---- round trips (collect.c): every command of a sample goes through these; they count round trips and give up
 * past the sample's deadline. Same contracts as conn_run, conn_run_docs and conn_run_each (reply and docs are
 * initialised in every case); collect_run_each asks for batch documents per batch. ---- */

bool
collect_run_cmd (collect_t *c, const char *db, const bson_t *cmd, bson_t *reply, sh_error_t *err);

bool
collect_run_docs (collect_t *c, const char *db, const bson_t *cmd, size_t max, bson_t *docs, sh_error_t *err);

bool
collect_run_each (collect_t *c, const char *db, const bson_t *cmd, int64_t batch, conn_doc_fn fn, void *data,
                  sh_error_t *err);

#define COLLECT_BATCH_DOCS 4096    /* documents per batch of a streamed reply with one document per group */
#define COLLECT_BATCH_ENTRIES 4096 /* per-shard entries per batch of a reply with one document per collection */

/* Counts one command the collector's client sent (called by the driver's command-started event). */
void
collect_own_count (collect_t *c, const char *name);

/* Clears the APM callbacks collect_watch set on the session's client and frees them (collect_free calls it). */
void
collect_unwatch (collect_t *c);

/* True when err spoils the whole sample (anything but a server's refusal of one command). */
bool
collect_fatal (const sh_error_t *err);

/* ---- the steps of one sample: each fills its part of s and returns false only for an error that spoils the whole
 * sample (err set) ---- */

/* collect_chunks.c: the sharded collections into s and *metas (owned by the caller: bson_destroy each key, free). */
bool
collect_sample_collections (collect_t *c, snap_t *s, coll_meta_t **metas, size_t *nmetas, sh_error_t *err);

/* The index of ns in metas, or -1. */
int
collect_find_meta (const coll_meta_t *metas, size_t n, const char *ns);

/* Builds lk (freed with collect_lookup_destroy) over s's shards and collections; borrows their names. */
void
collect_lookup_build (const snap_t *s, const coll_meta_t *metas, size_t nmetas, lookup_t *lk);

/* The index of a shard by name, or -1. */
int
collect_lookup_shard (const lookup_t *lk, const char *name);

/* The index of a collection by namespace, or -1. */
int
collect_lookup_ns (const lookup_t *lk, const char *ns);

/* Appends key: the field that ties a chunk to m (uuid on 5.0+, else ns). */
void
collect_append_chunk_coll (bson_t *b, const char *key, const coll_meta_t *m);

/* True when shard sh is in zone z. */
bool
collect_shard_in_zone (const snap_shard_t *sh, const char *z);

/* Chunk counts per (collection, shard), the key-space ends and the zones (config.tags into *tags_out, initialised by
 * the caller), full or incremental. */
bool
collect_sample_chunks (collect_t *c, snap_t *s, coll_meta_t *metas, size_t nmetas, const lookup_t *lk, bson_t *tags_out,
                       sh_error_t *err);

/* collect_events.c: recent events (changelog, actionlog). */
bool
collect_sample_events (collect_t *c, snap_t *s, sh_error_t *err);

/* The migrations in flight. */
bool
collect_sample_migrations (collect_t *c, snap_t *s, sh_error_t *err);

/* The long operations, read and computed as sh.progress() does (commands/progress.h), into s->ops: 4 reads, 4 more
 * while a shard drains, one per defragmenting collection. */
bool
collect_sample_operations (collect_t *c, snap_t *s, sh_error_t *err);

/* The databases whose primary is a draining shard. */
bool
collect_sample_drain_databases (collect_t *c, snap_t *s, sh_error_t *err);

/* collect_sizes.c: splits "db.coll.name" at the first dot (db into db, *coll points into ns). */
void
collect_split_ns (const char *ns, char *db, size_t dblen, const char **coll);

/* Per-shard sizes and documents from $shardedDataDistribution; *used is false when the router lacks it. */
bool
collect_sample_data_distribution (collect_t *c, snap_t *s, const lookup_t *lk, const coll_meta_t *metas,
                                  sdd_mode_t mode, bool *used, sh_error_t *err);

/* One collection's $collStats: its counters (and its sizes when storage). */
bool
collect_sample_coll_stats (collect_t *c, snap_t *s, size_t ci, bool storage, const lookup_t *lk, sh_error_t *err);

/* The tracking entry of ns, created when missing (owned by c). */
coll_track_t *
collect_track_get (collect_t *c, const char *ns);

/* Reads the ends of collection ci's key space and sets its key trend. */
bool
collect_sample_key_trend (collect_t *c, snap_t *s, size_t ci, const coll_meta_t *m, sh_error_t *err);

/* ---- collect_judge.c (pure) ---- */

/* The collection ns of prev (looked for at index i first), or NULL. */
const snap_coll_t *
collect_prev_coll (const snap_t *prev, const char *ns, size_t i);

/* For each shard of cur, its index in prev or -1; caller frees. */
int *
collect_shard_map (const snap_t *cur, const snap_t *prev);

/* A draining shard's rates and time left from its readings v[0..n) (oldest first). */
void
collect_drain_progress (snap_shard_t *sh, const drain_point_t *v, int n);

#endif
