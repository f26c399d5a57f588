/* shardsim's declarations by module, above the state (sim_state.h), the replies (sim_reply.h), the dynamics
 * (sim_dyn.h) and authentication (sim_auth.h), which it includes: the wire and server entry points, the store, the
 * config metadata and routing, the document and admin commands, chunk tables, scenarios and the command log.
 * shardsim is a wire-protocol mongos simulator for tests and demos, not a database. */
#ifndef SHARDSIM_SIM_H
#define SHARDSIM_SIM_H

#include "tests/shardsim/sim_auth.h"
#include "tests/shardsim/sim_dyn.h"
#include "tests/shardsim/sim_reply.h"
#include "tests/shardsim/sim_state.h"

/* ---- server (sim_server.c) ---- */

/* Listens on 127.0.0.1:port (0 picks one); returns the listening fd or -1; *bound_port receives the port. */
int
sim_server_listen (int port, int *bound_port);

/* Accepts and serves connections until sim_g.shutting_down; then closes every connection and joins its thread.
 * While simFault refuses connections the listener is closed (*listen_fd = -1) and reopened afterwards. */
void
sim_server_run (int *listen_fd);

/* ---- command layer (sim_cmds.c) ---- */

/* Runs one command for connection conn and fills reply (initialised by the callee) with the full reply document,
 * envelope included. Takes sim_g.lock itself. */
void
sim_cmd_run (sim_conn_t *conn, const sim_msg_t *msg, bson_t *reply);

/* Counts one command of the simulated workload's clients in serverStatus metrics.commands (name: "find", "insert",
 * "update"), as the router counts a client's. Caller holds sim_g.lock. */
void
sim_cmd_count_traffic (const char *name);

/* Whether the command is an awaitable hello (topologyVersion + maxAwaitTimeMS); *wait_ms receives the wait. */
bool
sim_cmd_is_awaitable_hello (const bson_t *cmd, int64_t *wait_ms);

/* ---- store (sim_store.c) ---- */

/* Looks a collection up; NULL when absent. */
sim_coll_t *
sim_coll_get (const char *db, const char *name);
sim_coll_t *
sim_coll_get_ns (const char *ns);

/* Gets or creates a collection (with an _id index and a fresh UUID). */
sim_coll_t *
sim_coll_ensure (const char *db, const char *name);

/* Drops a collection (and its documents). */
void
sim_coll_drop (sim_coll_t *coll);

/* Frees every collection. */
void
sim_store_free (void);

/* Appends a copy of doc. */
void
sim_coll_insert (sim_coll_t *coll, const bson_t *doc);

/* Views the document at pos (bson_init_static; valid until the collection changes). */
void
sim_coll_view (sim_coll_t *coll, sim_pos_t pos, bson_t *out);

/* Replaces the document at pos with a copy of doc (moving it if its partition changes). */
void
sim_coll_replace (sim_coll_t *coll, sim_pos_t pos, const bson_t *doc);

/* Deletes the documents at the given positions (hits is sorted in place). */
void
sim_coll_delete (sim_coll_t *coll, sim_hits_t *hits);

/* Collects the positions of the documents matching filter (NULL: all), up to limit (0: no limit). */
bool
sim_coll_match (sim_coll_t *coll, const bson_t *filter, size_t limit, sim_hits_t *hits, bson_error_t *error);

/* The partition holding the documents whose partition field equals v; SIZE_MAX when there is none. */
size_t
sim_coll_find_part (sim_coll_t *coll, const bson_value_t *v);

/* Number of documents. */
size_t
sim_coll_count (const sim_coll_t *coll);

/* Copies every document (or those matching filter) into out. */
bool
sim_coll_collect (sim_coll_t *coll, const bson_t *filter, simq_docs_t *out, bson_error_t *error);

/* Frees the positions hits holds (the caller owns the struct) and leaves it empty. */
void
sim_hits_destroy (sim_hits_t *hits);

/* Records a read/write/command against a shard for $collStats latencyStats. */
void
sim_coll_count_op (sim_coll_t *coll, const char *shard, int kind, int64_t micros);

/* ---- indexes (sim_index.c) ---- */

/* Whether coll holds a document whose _id compares equal to id (order_values: 1, 1.0 and NumberLong(1) are one
 * _id), through the collection's _id index: a hash multimap over simq_hash_value built on the first call and from
 * then on kept current by every insert, replace and delete of the store. Callers hold sim_g.lock. */
bool
sim_coll_has_id (sim_coll_t *coll, const bson_value_t *id);

/* The documents of partition part ordered as a stable sort { min: 1 } orders them (by their embedded-document min,
 * ties in storage order); NULL when some document's min is missing or not a document. *disjoint (may be NULL) tells
 * whether every document also has an embedded-document max above its min and no two [min, max) ranges overlap;
 * *tight (may be NULL) whether every document's partition value is held whole in the partition key (so the
 * partition holds one value only). Built on first use, then kept current by the store; the array is valid until
 * the collection changes. Callers hold sim_g.lock. */
const uint8_t *const *
sim_part_by_min (sim_coll_t *coll, size_t part, size_t *n, bool *disjoint, bool *tight);

/* The document of partition part whose [min, max) holds key, found by bisection of the range index: 1 with *view
 * set to it (static, valid until the collection changes), 0 when none holds key, -1 when the index cannot say
 * (ranges not known disjoint, or a document without an embedded-document min: the caller scans). With disjoint
 * ranges at most one document holds key, so the answer is the scan's. Callers hold sim_g.lock. */
int
sim_part_find_containing (sim_coll_t *coll, size_t part, const bson_t *key, bson_t *view);

/* The greatest lastmod timestamp among partition part's documents (0, 0 when none has one), as a scan finds it;
 * kept by the store's hooks and recomputed only after the document holding it goes. Callers hold sim_g.lock. */
void
sim_part_max_lastmod (sim_coll_t *coll, size_t part, uint32_t *t, uint32_t *i);

/* The partition a stored document (raw, as held by the store) belongs to; SIZE_MAX when none. */
size_t
sim_coll_part_of (sim_coll_t *coll, const uint8_t *raw);

/* The position of the document with _id id (compared as the _id index compares), the first in storage order when
 * several have it; false when none. Callers hold sim_g.lock. */
bool
sim_coll_find_id (sim_coll_t *coll, const bson_value_t *id, sim_pos_t *pos);

/* A duplicate key: the index's name, its key pattern and the key value ({ <field>: <value> } in the pattern's order),
 * as the server's DuplicateKeyErrorInfo carries them. _init before use, _destroy after. */
typedef struct {
   char index[128];
   bson_t key_pattern;
   bson_t key_value;
} sim_dupkey_t;

void
sim_dupkey_init (sim_dupkey_t *dup);
void
sim_dupkey_destroy (sim_dupkey_t *dup);

/* Whether doc may be stored in coll without a duplicate key: its _id (unless self is given: an update keeps its _id)
 * and the keys of every unique index (other documents than the stored document self, which doc replaces). False
 * with the first duplicate in dup. Builds the unique indexes' key maps on first use (and after the index list
 * changed); the store's hooks keep them current. Callers hold sim_g.lock. */
bool
sim_coll_dup_check (sim_coll_t *coll, const bson_t *doc, const uint8_t *self, sim_dupkey_t *dup);

/* Rebuilds the unique indexes' key maps of coll from its documents; false with the first duplicate key in dup (a
 * unique index created over documents that break it). Callers hold sim_g.lock. */
bool
sim_coll_unique_verify (sim_coll_t *coll, sim_dupkey_t *dup);

/* The store's hooks (sim_store.c) that keep the indexes current: raw was appended to partition part; raw is about to
 * be removed from it; old was replaced in place by raw; every index of coll is freed. */
void
sim_index_added (sim_coll_t *coll, size_t part, const uint8_t *raw);
void
sim_index_removing (sim_coll_t *coll, size_t part, const uint8_t *raw);
void
sim_index_replaced (sim_coll_t *coll, size_t part, const uint8_t *old, const uint8_t *raw);
void
sim_index_free (sim_coll_t *coll);

/* ---- interruption (sim_stop.c) ---- */

/* Makes the read-only command this thread is about to run interruptible (sim_should_stop), watching conn's socket
 * (NULL: only the shutdown stops it); sim_stop_unwatch ends that. Writes, admin commands and the background thread
 * are never interrupted half-way through a scan (their callers do not expect partial results). */
void
sim_stop_watch (const sim_conn_t *conn);
void
sim_stop_unwatch (void);

/* Whether the running read-only command must stop: the simulator is shutting down (error 11600 InterruptedAtShutdown)
 * or the watched client closed its connection (279 ClientDisconnect, its reply is abandoned). Always false outside
 * sim_stop_watch. Cheap enough for every document of a scan: the socket is looked at every 10 ms at most. */
bool
sim_should_stop (bson_error_t *error);

/* ---- config metadata and routing (sim_config.c) ---- */

/* A sharded collection's routing information, read from config.collections. */
typedef struct {
   char ns[256];
   bson_t key; /* shard key pattern */
   bson_t doc; /* the config.collections document */
   uint8_t uuid[16];
   bool has_uuid;
   bson_oid_t epoch;
   bool by_uuid;     /* chunks keyed by uuid (5.0+ format) */
   char hashed[128]; /* the hashed field, "" if none */
   bool unique;
} sim_shcoll_t;

/* Loads the routing information of ns; false when ns is not sharded. Destroy with sim_shcoll_destroy. */
bool
sim_shcoll_load (const char *ns, sim_shcoll_t *sc);
void
sim_shcoll_destroy (sim_shcoll_t *sc);

/* Appends the chunk filter { uuid } or { ns } for sc to out. */
void
sim_shcoll_chunk_filter (const sim_shcoll_t *sc, bson_t *out);

/* Builds doc's shard-key document (missing fields null, the hashed field hashed) into out (initialised here). */
void
sim_shard_key_of (const sim_shcoll_t *sc, const bson_t *doc, bson_t *out);

/* One document of a scan by shard key: the document (a view into the collection) and its shard key, both valid for
 * the call only. */
typedef void (*sim_key_visit_fn) (void *data, const bson_t *doc, const bson_t *key);

/* Calls visit for every document of coll (NULL: none) with its shard key under sc, in storage order. */
void
sim_coll_each_key (sim_coll_t *coll, const sim_shcoll_t *sc, sim_key_visit_fn visit, void *data);

/* Finds the chunk owning key; copies the chunk document into chunk (initialised by the callee on success) and
 * returns its position. */
bool
sim_chunk_find (const sim_shcoll_t *sc, const bson_t *key, bson_t *chunk, sim_pos_t *pos);

/* Which shard holds doc of collection ns (sharded: by chunk; unsharded: the database's primary). Writes the shard
 * name into shard (size 64). Returns false when there is no shard at all. */
bool
sim_route_doc (const char *ns, const sim_shcoll_t *sc, const bson_t *doc, char *shard);

/* The primary shard of db ("" if the database is unknown). */
void
sim_db_primary (const char *db, char *shard);

/* Makes sure db has a config.databases entry (primary: the first shard); writes its primary into primary (size
 * 64; "config" for admin/config). Returns false when there is no shard to make it primary on. */
bool
sim_db_ensure (const char *db, char *primary);

/* Highest chunk version (major, minor) of a collection. */
void
sim_chunk_max_version (const sim_shcoll_t *sc, uint32_t *major, uint32_t *minor);

/* Appends a chunk document in the version's shape. */
void
sim_chunk_build (const sim_shcoll_t *sc, const bson_t *min, const bson_t *max, const char *shard, uint32_t major,
                 uint32_t minor, uint32_t valid_secs, uint32_t valid_inc, bson_t *out);

/* Writes a config.changelog (or, with actionlog, config.actionlog) entry; details is copied. */
/* Whether a config.collections document forbids migrations (permitMigrations / 4.4 allowMigrations false). */
bool
sim_migrations_forbidden (const bson_t *coll_doc);

void
sim_changelog (bool actionlog, const char *what, const char *ns, const char *shard, const bson_t *details,
               int64_t time_ms);

/* Builds the config.collections document for a new sharded collection. */
void
sim_collection_doc (const char *ns, const bson_t *key, bool unique, const uint8_t uuid[16], bson_t *out);

/* Builds a config.databases document. */
void
sim_database_doc (const char *db, const char *primary, bool partitioned, bson_t *out);

/* Builds a config.shards document. */
void
sim_shard_doc (const char *name, const char *host, const bson_t *tags, bson_t *out);

/* Refreshes this router's config.mongos document (ping, up). */
void
sim_mongos_ping (void);

/* Creates the chunks of a newly sharded collection (one chunk on primary, or hashed pre-split chunks round-robin
 * across shards when nchunks > 1). */
void
sim_create_initial_chunks (const sim_shcoll_t *sc, const char *primary, int nchunks);

/* Names of all shards (sorted by _id), as a simq_docs_t of config.shards documents. */
void
sim_shards_list (simq_docs_t *out);

/* Whether a shard exists; if so and doc is not NULL, copies its document. */
bool
sim_shard_get (const char *name, bson_t *doc);

/* Computes the per-shard document counts and sizes of ns. */
typedef struct {
   char shard[64];
   int64_t count;
   int64_t size;
   int64_t chunks;
} sim_shard_stat_t;

size_t
sim_coll_shard_stats (const char *ns, sim_shard_stat_t **out);

/* Whether sim_coll_shard_stats (ns) counts ns's chunks alone (ns sharded, without documents: every count and size
 * 0); then *chunks and *part (SIZE_MAX when it has no chunk) locate its config.chunks partition. */
bool
sim_coll_chunks_only (const char *ns, sim_coll_t **chunks, size_t *part);

/* Renders doc the way the server prints BSON in messages ("{ x: 10, y: MinKey }"); bson_free the result. */
char *
sim_bson_str (const bson_t *doc);

/* ---- CRUD (sim_crud.c) ---- */

void
sim_cmd_find (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_aggregate (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_get_more (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_kill_cursors (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_count (sim_ctx_t *ctx, bson_t *reply);
/* sim_collstats.c: collStats as the router sums the shards' answers. */
void
sim_cmd_coll_stats (sim_ctx_t *ctx, bson_t *reply);

/* sim_collstats.c: the storage statistics one shard reports for its part st of coll (size, count, …,
 * scaleFactor), sizes divided by scale (>= 1), appended to d. */
void
sim_coll_storage_append (bson_t *d, const sim_coll_t *coll, const sim_shard_stat_t *st, int64_t scale);

/* sim_datasize.c: dataSize over a sharded collection's key range, from the chunk table. */
void
sim_cmd_data_size (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_distinct (sim_ctx_t *ctx, bson_t *reply);
/* { explain: { find | count | distinct: <coll>, ... }, verbosity }: the sharded explain a mongos gives
 * (sim_explain.c). */
void
sim_cmd_explain (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_insert (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_update (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_delete (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_list_collections (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_list_indexes (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_create_indexes (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_drop (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_current_op (sim_ctx_t *ctx, bson_t *reply);
/* findAndModify, dropIndexes, collMod (index hiding), create, renameCollection, dropDatabase, dbStats and killOp,
 * answered as a mongos answers them (sim_crud.c). */
void
sim_cmd_find_and_modify (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_drop_indexes (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_coll_mod (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_create (sim_ctx_t *ctx, bson_t *reply);
/* sim_settings.c: the router's profile settings and logComponentVerbosity */
void
sim_cmd_profile (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_set_parameter (sim_ctx_t *ctx, bson_t *reply);
/* Appends the logComponentVerbosity tree to out under as. */
void
sim_settings_append_verbosity (bson_t *out, const char *as);
void
sim_cmd_rename_collection (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_drop_database (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_db_stats (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_kill_op (sim_ctx_t *ctx, bson_t *reply);

/* Frees every cursor. */
void
sim_cursors_free (void);

/* Inserts doc into db.name as a client insert would (config collections included), no reply. */
void
sim_crud_insert_one (const char *db, const char *name, const bson_t *doc);

/* ---- admin operations (sim_shardcoll.c, sim_split.c, sim_migrate.c, sim_zone.c, sim_shards.c) ---- */

/* The operations behind the admin commands, also used to build scenarios. Errors carry the server's code in
 * err->code (0 for the errmsg-only failures) and its message. */
bool
sim_op_shard_collection (const char *ns, const bson_t *key, bool unique, int nchunks, bool presplit_zones,
                         bson_error_t *err);
bool
sim_op_split (const char *ns, const bson_t *middle, bson_error_t *err);
/* Moves the chunk containing shard-key document key (hashed fields already hashed) to shard to. */
bool
sim_op_move_chunk (const char *ns, const bson_t *key, const char *to, bson_error_t *err);
bool
sim_op_add_shard_to_zone (const char *shard, const char *zone, bson_error_t *err);
/* zone NULL removes the range starting at min. */
bool
sim_op_update_zone_range (const char *ns, const bson_t *min, const bson_t *max, const char *zone, bson_error_t *err);
bool
sim_op_add_shard (const char *name, const char *host, bson_error_t *err);

/* ---- scenarios (sim_scenario.c) ---- */

/* Builds the selected scenario's config metadata and data. Returns false with a message on bad flags. */
bool
sim_scenario_build (char *errbuf, size_t errlen);

/* ---- command log (sim_log.c) ---- */

bool
sim_log_open (const char *path);
/* Logs one command after it ran: t_ms is when it arrived, cpu_us the CPU time the serving thread spent running it
 * (CLOCK_THREAD_CPUTIME_ID around the dispatch: the lookup, the command and its reply document; neither the wire
 * parse, the send, the wait for the state lock nor the background thread's work count). */
void
sim_log_command (int32_t conn_id, int32_t opcode, const char *db, const bson_t *cmd, int64_t t_ms, int64_t cpu_us);
/* The calling thread's CPU time in microseconds (for sim_log_command's cpu_us). */
int64_t
sim_log_thread_cpu_us (void);
void
sim_log_close (void);

/* The "before" document of a split changelog entry for chunk (sim_chunk.c): 4.4/5.0 the chunk's own version
 * (min, max, lastmod, lastmodEpoch); 6.0+ commitChunkSplit's { min, max, lastmod: the collection version as
 * { e, t, v } }. Appends to out. */
void
sim_split_before_doc (const bson_t *chunk, const sim_shcoll_t *sc, bson_t *out);

/* Writes the config.changelog "merge" entry for the n adjacent chunk documents chunks (in min order, all on shard)
 * merged at collection version (major, minor) into one of (major, minor + 1), in the version's shape: 4.4/5.0
 * { merged: [versions], mergedVersion: { lastmod }, owningShard }; 6.0 commitChunksMerge's { merged: [chunk
 * documents], prevShardVersion, mergedVersion, owningShard }; 7.0+ logMergeToChangelog's { prevPlacementVersion,
 * mergedVersion, owningShard, min, max, numChunks }. The caller keeps ownership of chunks (sim_chunk.c). */
void
sim_merge_changelog (const sim_shcoll_t *sc, const bson_t *const *chunks, size_t n, uint32_t major, uint32_t minor,
                     const char *shard);

/* ---- chunk tables (sim_ctab.c) ---- */

/* One chunk of a sharded collection with the data it holds. */
typedef struct {
   uint8_t *min; /* raw BSON (no bson_t in heap arrays: libbson may over-align bson_t) */
   uint8_t *max;
   bson_oid_t id; /* the config.chunks _id */
   char shard[64];
   int64_t docs;    /* documents inside [min, max) */
   int64_t bytes;   /* their BSON bytes */
   int64_t written; /* bytes inserted since the last split check */
   bool jumbo;
} sim_chunk_t;

/* The chunks of one sharded collection sorted by min, with per-chunk document counts kept current by the store's
 * insert/replace/delete hooks. Rebuilt from config.chunks (and a scan of the documents) whenever config.chunks or
 * config.collections changed behind its back. */
typedef struct sim_ctab {
   sim_shcoll_t sc;
   uint64_t chunks_gen; /* generation of the config.chunks partition it was built from */
   uint64_t colls_gen;  /* generation of config.collections */
   sim_chunk_t *v;
   size_t n;
} sim_ctab_t;

/* The current chunk table of coll (rebuilt when stale); NULL when coll is not sharded. Callers hold sim_g.lock.
 * The table is allocated with the alignment of bson_t. */
sim_ctab_t *
sim_ctab_get (sim_coll_t *coll);

/* Frees a chunk table (NULL is fine). */
void
sim_ctab_free (sim_ctab_t *t);

/* Views chunk bounds (static bson_t over the raw bytes). */
void
sim_chunk_min (const sim_chunk_t *c, bson_t *out);
void
sim_chunk_max (const sim_chunk_t *c, bson_t *out);

/* Index of the chunk owning shard-key document key; SIZE_MAX when none does. */
size_t
sim_ctab_locate (const sim_ctab_t *t, const bson_t *key);

/* A document's shard key (raw BSON, owned) and size in bytes, for choosing split points. */
typedef struct {
   uint8_t *key;
   int64_t size;
} sim_keyent_t;

/* A growing list of keys; sim_keys_free releases the keys and the list. */
typedef struct {
   sim_keyent_t *v;
   size_t n;
   size_t cap;
} sim_keys_t;

/* Orders two sim_keyent_t by their keys (for qsort). */
int
sim_keyent_cmp (const void *a, const void *b);

void
sim_keys_free (sim_keys_t *k);

/* The shard keys and sizes of chunk i's documents (one scan of coll), sorted by key, into out (initialised here; the
 * caller frees it with sim_keys_free). */
void
sim_ctab_chunk_keys (sim_coll_t *coll, const sim_ctab_t *t, size_t i, sim_keys_t *out);

/* Index of the chunk owning doc (a full document); SIZE_MAX when none does. */
size_t
sim_ctab_locate_doc (const sim_ctab_t *t, const bson_t *doc);

/* Store hooks: a document of coll was added (sign 1) or removed (sign -1). */
void
sim_ctab_note (sim_coll_t *coll, const bson_t *doc, int sign);

/* Marks t as matching config.* as they are now (after the caller changed chunks and updated t itself). */
void
sim_ctab_resync (sim_ctab_t *t);

/* The chunk size in bytes that applies to sc: maxChunkSizeBytes (6.0+), config.settings chunksize, --chunk-size-kb,
 * or the version's default (64 MB before 6.0, 128 MB from 6.0). */
int64_t
sim_chunk_size_bytes (const sim_shcoll_t *sc);

/* Splits chunk i of coll's table at the given shard-key points (sorted, strictly inside the chunk), writing
 * config.chunks, the changelog (split or multi-split) and the table. docs/bytes per piece come from the caller when
 * known (counts != NULL, npoints + 1 entries each) or are recounted. */
void
sim_ctab_split (sim_coll_t *coll, size_t i, bson_t **points, size_t npoints, const int64_t *docs, const int64_t *bytes);

/* The auto-splitter (before 6.0): splits every chunk of coll that grew past the chunk size (top-chunk optimisation
 * for the MaxKey chunk) and flags single-value chunks jumbo. piece_frac is the share of the chunk size per piece
 * (0.5: splitVector's half-chunks). Returns the number of splits made. */
int
sim_autosplit (sim_coll_t *coll, double piece_frac, bool force);

/* Whether the donor refuses chunk i of t as too big to move without forceJumbo (sim_migrate.c;
 * MigrationChunkClonerSource's limit of 2 x chunk size / average document size documents; the 153 ChunkTooBig of a
 * manual moveChunk). */
bool
sim_chunk_too_big_to_move (const sim_ctab_t *t, size_t i);

/* Balancer::_splitOrMarkJumbo (4.4/5.0, after a migration failed ChunkTooBig): splits chunk i of coll at
 * splitVector's points (every half chunk size where the key changes); with none, flags it jumbo in config.chunks.
 * Returns the number of split points (0: flagged jumbo). */
int
sim_split_or_mark_jumbo (sim_coll_t *coll, size_t i);

/* Merges chunks first..last (adjacent, one shard) of coll's table into one, with the merge changelog entry. */
void
sim_ctab_merge (sim_coll_t *coll, size_t first, size_t last);

/* Sets the jumbo flag of chunk i in config.chunks and the table. */
void
sim_ctab_mark_jumbo (sim_ctab_t *t, size_t i);

/* ---- exported admin helpers (sim_chunk.c, sim_migrate.c, sim_zone.c, sim_shards.c, sim_balset.c) ---- */

/* Moves chunk (a config.chunks document) to shard to with versions and history; writes moveChunk.start when
 * log_start, then moveChunk.to/.commit/.from. ndocs/nbytes < 0: counted from the documents. */
void
sim_migrate_commit (const sim_shcoll_t *sc, const bson_t *chunk, const char *to, bool log_start, int64_t ndocs,
                    int64_t nbytes, int64_t clone_ms);
void
sim_migrate_log_start (const sim_shcoll_t *sc, const bson_t *min, const bson_t *max, const char *from, const char *to);
/* The chunk document with this _id into out (initialised on success). */
bool
sim_chunk_by_id (const bson_oid_t *id, bson_t *out);
/* Replaces (doc != NULL) or deletes the chunk whose _id equals that of old. */
void
sim_chunk_replace (const bson_t *old, const bson_t *doc);
/* A chunk document with new bounds/shard/version (see sim_chunk.c). */
void
sim_chunk_rewrite_doc (const sim_shcoll_t *sc, const bson_t *chunk, const bson_t *min, const bson_t *max,
                       const char *shard, uint32_t major, uint32_t minor, bool new_history, bson_t *out);
/* { min, max, lastmod, lastmodEpoch } of a chunk for split/multi-split changelog details. */
void
sim_chunk_version_doc (const bson_t *chunk, const sim_shcoll_t *sc, bson_t *out);
/* Zone containing [min, max) of ns (copied into out), false when none. */
bool
sim_zone_of (const char *ns, const bson_t *min, const bson_t *max, char *out, size_t outlen);
bool
sim_shard_in_zone (const char *shard, const char *zone);
/* Whether shard is the only shard of zone and zone has ranges (the server's ZoneStillInUse condition). */
bool
sim_zone_needs_shard (const char *shard, const char *zone);
bool
sim_shard_is_draining (const char *shard);
/* Marks db partitioned in config.databases (4.4–6.0; what enableSharding records). */
void
sim_db_enable_sharding (const char *db);
/* Whether the balancer is stopped (config.settings balancer stopped/mode). */
bool
sim_balancer_is_stopped (void);

/* ---- small document readers shared by the command files ---- */

/* Views config.settings' document with _id id (static, valid until the collection changes); false when there is
 * none (sim_admin.c). */
bool
sim_setting_view (const char *id, bson_t *view);

/* ---- draining status and the cluster catalog (sim_drain.c) ---- */

/* What is left on a draining shard (topology_change_helpers::getDrainingProgress): chunks of sharded collections
 * (total: with the tracked unsharded ones) and jumbo ones, the bytes of its chunks (8.3's estimatedRemainingBytes),
 * databases whose primary it is (dbs, an array) and the unsharded collections that live on it (colls, sorted).
 * Filled by sim_drain_progress, released by sim_drain_progress_destroy. */
typedef struct {
   int64_t chunks, total, jumbo, bytes;
   bson_t dbs, colls;
   int64_t ndbs, ncolls;
} sim_drain_progress_t;
void
sim_drain_progress (const char *shard, sim_drain_progress_t *p);
void
sim_drain_progress_destroy (sim_drain_progress_t *p);
/* The removeShard / startShardDraining preconditions (sim_shards.c): false with the error in reply. */
bool
sim_drain_precheck (const char *shard, const char *last_msg, const char *zone_fmt, bson_t *reply);
/* Sets shard draining (removeShard.start changelog); deletes a drained shard (removeShard changelog). */
void
sim_drain_start (const char *shard);
void
sim_drain_commit (const char *shard);

/* { shardDrainingStatus: <shard> } (8.2+) and { getTransitionToDedicatedConfigServerStatus: 1 } (8.3+). */
void
sim_cmd_shard_draining_status (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_transition_status (sim_ctx_t *ctx, bson_t *reply);

/* The $listClusterCatalog stage (arg: its specification) for an aggregate on ctx's database (coll: the aggregate's
 * collection, NULL for aggregate: 1). Returns 1 with the documents in out, -1 with error set, or 0 when the
 * personality has no such stage. */
int
sim_stage_list_cluster_catalog (sim_ctx_t *ctx, const char *coll, const bson_iter_t *arg, simq_docs_t *out,
                                bson_error_t *error);

#endif
