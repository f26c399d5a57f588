/* shardsim's shared declarations: the simulated mongos's global state (version personality, in-memory collections,
 * cursors, counters), the wire-message representation, and the entry points each module exports. shardsim is a
 * wire-protocol mongos simulator for tests and demos, not a database. */
#ifndef SHARDSIM_SIM_H
#define SHARDSIM_SIM_H

#include <bson/bson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "tests/shardsim/query/simq.h"
#include "shell/lib/clock.h"
#include "shell/lib/docget.h"

/* ---- version personality ---- */

typedef struct {
   const char *name; /* "8.0" */
   const char *full; /* "8.0.4" */
   int num;          /* 44, 50, 60, 70, 80 */
   int32_t max_wire; /* 9, 13, 17, 21, 25 */
} sim_version_t;

/* Looks a version up by its short name ("4.4" … "8.0"); NULL when unknown. */
const sim_version_t *
sim_version_find (const char *name);

/* ---- in-memory collections ---- */

/* Documents are stored as raw BSON (uint8_t *, length in the first four bytes) to keep the large scenario small. */
typedef struct {
   uint8_t **v;
   size_t n;
   size_t cap;
} sim_raw_t;

/* A partition groups the documents that share one value of the collection's partition field (config.chunks by
 * uuid or ns, config.tags by ns) so that equality queries on that field do not scan every document. */
typedef struct {
   char *key;
   sim_raw_t docs;
   uint64_t gen;              /* sim_g.store_gen at this partition's last change (chunk tables compare it) */
   struct sim_rindex *rindex; /* the documents ordered by min (sim_index.c); NULL until first needed */
   bool vmax_known;           /* vmax_t/vmax_i hold the greatest lastmod timestamp (sim_index.c keeps it) */
   uint32_t vmax_t, vmax_i;
} sim_part_t;

typedef struct {
   char shard[64];
   int64_t reads, writes, commands;
   int64_t read_us, write_us, command_us;
} sim_opstat_t;

typedef struct {
   char *ns;
   char *db;
   char *name;
   uint8_t uuid[16];
   const char *part_field; /* NULL: one partition */
   sim_part_t *parts;
   size_t nparts;
   size_t capparts;
   size_t last_part;
   simq_docs_t indexes; /* index specifications, { v, key, name, [unique] } */
   sim_opstat_t *ops;
   size_t nops;
   struct sim_ctab *ctab; /* chunk table of a sharded collection (sim_ctab.c); NULL until first needed */
   simq_htab_t *ids;      /* the _id index: simq_hash_value (_id) -> stored document (sim_index.c); NULL until needed */
} sim_coll_t;

/* A document's position inside a collection. */
typedef struct {
   size_t part;
   size_t idx;
} sim_pos_t;

typedef struct {
   sim_pos_t *v;
   size_t n;
   size_t cap;
} sim_hits_t;

/* ---- cursors ---- */

typedef struct sim_cursor {
   int64_t id;
   char *ns;
   simq_docs_t docs;
   size_t pos;
   struct sim_cursor *next;
} sim_cursor_t;

/* ---- connections ---- */

typedef struct sim_conn {
   int fd;
   int32_t id;
   pthread_t thread;
   bool done;
   bool sent_client;
   bool close_after_reply; /* simFault dropConnections: the caller's connection closes once answered */
   char peer[64];
   char app_name[128];
   int64_t started_ms;
   struct sim_conn *next;
   /* --tls and --auth (sim_tls.c, sim_auth.c); all zero on a plain connection of an auth-less simulator */
   struct ssl_st *tls;      /* the TLS session once the handshake succeeded, else NULL */
   struct sim_scram *scram; /* the SASL conversation in progress, else NULL */
   bool authenticated;      /* a SCRAM conversation completed on this connection */
   char auth_user[128];     /* who authenticated, and on which database */
   char auth_db[128];
} sim_conn_t;

/* ---- the global state ---- */

typedef struct {
   const sim_version_t *ver;
   const char *scenario;
   int nshards;
   uint64_t seed;
   int large_shards;
   int large_collections;
   int64_t large_chunks;
   int port;
   char host[64];
   char **argv;
   int argc;

   pthread_mutex_t lock; /* guards everything below */
   sim_coll_t **colls;
   size_t ncolls;
   size_t capcolls;
   sim_cursor_t *cursors;
   int64_t next_cursor;
   uint32_t ct_secs;
   uint32_t ct_inc;
   bson_oid_t process_id;
   bson_oid_t cluster_id;
   int64_t start_ms;
   int32_t next_conn_id;
   int64_t conns_total;
   int64_t conns_current;
   int64_t op_insert, op_query, op_update, op_delete, op_getmore, op_command, op_deprecated;
   int64_t balancer_rounds;
   uint64_t rng;
   int64_t next_opid;
   uint64_t store_gen; /* bumped by every change to any partition */

   pthread_mutex_t conn_lock; /* guards conns */
   sim_conn_t *conns;
   volatile int shutting_down;
   int wake_pipe[2];
} sim_state_t;

/* The process-wide state (one simulated mongos per process). */
extern sim_state_t sim_g;

/* ---- wire (sim_wire.c) ---- */

enum {
   SIM_OP_REPLY = 1,
   SIM_OP_QUERY = 2004,
   SIM_OP_COMPRESSED = 2012,
   SIM_OP_MSG = 2013,
};

#define SIM_MSG_CHECKSUM 1u
#define SIM_MSG_MORE_TO_COME 2u
#define SIM_MSG_EXHAUST 65536u

/* One parsed request. */
typedef struct {
   int32_t request_id;
   int32_t opcode;
   uint32_t flags; /* OP_MSG flagBits, or OP_QUERY flags */
   char db[128];   /* $db, or the database of OP_QUERY's fullCollectionName */
   bson_t cmd;     /* the command, document sequences merged in as arrays */
} sim_msg_t;

/* CRC-32C (Castagnoli) of len bytes. */
uint32_t
sim_crc32c (const uint8_t *data, size_t len);

/* Parses one complete message (header included, len bytes). On success msg->cmd is initialised and must be
 * destroyed with sim_msg_destroy. Returns false with error set on malformed input (msg then needs no cleanup). */
bool
sim_wire_parse (const uint8_t *data, size_t len, sim_msg_t *msg, bson_error_t *error);

void
sim_msg_destroy (sim_msg_t *msg);

/* Builds a reply message to request_id in buf (bson_malloc'd; caller frees): OP_REPLY for OP_QUERY (responseFlags
 * 8), OP_MSG otherwise (flags as given). */
uint8_t *
sim_wire_reply (int32_t opcode, int32_t request_id, int32_t response_id, uint32_t flags, const bson_t *body,
                size_t *len);

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

/* Whether the command is an awaitable hello (topologyVersion + maxAwaitTimeMS); *wait_ms receives the wait. */
bool
sim_cmd_is_awaitable_hello (const bson_t *cmd, int64_t *wait_ms);

/* Appends an error { ok: 0.0, errmsg, code, codeName } to reply (code 0: errmsg-only). */
void
sim_reply_error (bson_t *reply, int code, const char *fmt, ...) BSON_GNUC_PRINTF (3, 4);

/* Appends ok: 1.0. */
void
sim_reply_ok (bson_t *reply);

/* The server's codeName for code. */
const char *
sim_code_name (int code);

/* Cluster time: current, and advance for a write. Callers hold sim_g.lock. */
void
sim_cluster_time (uint32_t *secs, uint32_t *inc);
void
sim_tick (uint32_t *secs, uint32_t *inc);

/* Deterministic random numbers from --seed. Callers hold sim_g.lock. */
uint64_t
sim_rand (void);

/* Generates a random version-4 UUID into out. */
void
sim_uuid_new (uint8_t out[16]);

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

void
sim_hits_free (sim_hits_t *hits);

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

/* Renders doc the way the server prints BSON in messages ("{ x: 10, y: MinKey }"); bson_free the result. */
char *
sim_bson_str (const bson_t *doc);

/* ---- CRUD (sim_crud.c) ---- */

typedef struct {
   sim_conn_t *conn;
   const char *db;
   const char *name; /* command name */
   const bson_t *cmd;
   bool op_query;
} sim_ctx_t;

void
sim_crud_find (sim_ctx_t *ctx, bson_t *reply);
void
sim_crud_aggregate (sim_ctx_t *ctx, bson_t *reply);
void
sim_crud_get_more (sim_ctx_t *ctx, bson_t *reply);
void
sim_crud_kill_cursors (sim_ctx_t *ctx, bson_t *reply);
void
sim_crud_count (sim_ctx_t *ctx, bson_t *reply);
/* sim_datasize.c: dataSize over a sharded collection's key range, from the chunk table. */
void
sim_cmd_data_size (sim_ctx_t *ctx, bson_t *reply);
void
sim_crud_distinct (sim_ctx_t *ctx, bson_t *reply);
void
sim_crud_insert (sim_ctx_t *ctx, bson_t *reply);
void
sim_crud_update (sim_ctx_t *ctx, bson_t *reply);
void
sim_crud_delete (sim_ctx_t *ctx, bson_t *reply);
void
sim_crud_list_collections (sim_ctx_t *ctx, bson_t *reply);
void
sim_crud_list_indexes (sim_ctx_t *ctx, bson_t *reply);
void
sim_crud_create_indexes (sim_ctx_t *ctx, bson_t *reply);
void
sim_crud_drop (sim_ctx_t *ctx, bson_t *reply);
void
sim_crud_current_op (sim_ctx_t *ctx, bson_t *reply);
/* findAndModify, dropIndexes, collMod (index hiding), create, renameCollection, dropDatabase, dbStats and killOp,
 * answered as a mongos answers them (sim_crud.c). */
void
sim_crud_find_and_modify (sim_ctx_t *ctx, bson_t *reply);
void
sim_crud_drop_indexes (sim_ctx_t *ctx, bson_t *reply);
void
sim_crud_coll_mod (sim_ctx_t *ctx, bson_t *reply);
void
sim_crud_create (sim_ctx_t *ctx, bson_t *reply);
void
sim_crud_rename_collection (sim_ctx_t *ctx, bson_t *reply);
void
sim_crud_drop_database (sim_ctx_t *ctx, bson_t *reply);
void
sim_crud_db_stats (sim_ctx_t *ctx, bson_t *reply);
void
sim_crud_kill_op (sim_ctx_t *ctx, bson_t *reply);

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
void
sim_log_command (int32_t conn_id, int32_t opcode, const char *db, const bson_t *cmd);
void
sim_log_close (void);

/* Helpers for building replies in admin and CRUD code. */
bool
sim_ver_ge (int num);

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
bool
sim_shard_is_draining (const char *shard);
/* Marks db partitioned in config.databases (4.4–6.0; what enableSharding records). */
void
sim_db_enable_sharding (const char *db);
/* Whether the balancer is stopped (config.settings balancer stopped/mode). */
bool
sim_balancer_is_stopped (void);

/* ---- dynamics: workloads, balancer, faults (sim_dyn.c, sim_workload.c, sim_balancer.c, sim_fault.c) ---- */

struct sim_workload;
struct sim_migration;

typedef struct {
   /* configuration from flags */
   int64_t chunk_size_bytes;     /* --chunk-size-kb (0: the version's default) */
   int64_t balancer_interval_ms; /* --balancer-interval-ms */
   int64_t migration_ms;         /* --migration-ms */
   bool live;                    /* background balancer rounds run */
   int32_t doc_bytes;            /* --doc-bytes: default generated document size */
   /* balancer */
   int64_t next_round_ms;
   bool in_round;
   int64_t round_start_ms;
   int32_t round_candidates;
   int32_t round_moved;
   int64_t rounds;
   int64_t rounds_skipped;   /* rounds skipped for the balancer settings (off, outside the window, unparsable) */
   int64_t automerge_rounds; /* rounds between automerger passes (0: 360, autoMergerIntervalSecs / 10 s) */
   bool automerge_on;        /* the automerger is enabled (its first pass ran) */
   int64_t automerge_last;   /* the round of its last pass */
   struct sim_migration **migs;
   size_t nmigs;
   int64_t splits;
   int64_t migrations_done;
   int64_t migrations_aborted;
   /* workloads */
   struct sim_workload **wls;
   size_t nwls;
   int32_t next_wl_id;
   /* the background thread */
   pthread_t thread;
   bool thread_started;
   pthread_cond_t round_done; /* used with sim_g.lock */
} sim_dyn_t;

extern sim_dyn_t sim_dyn;

/* Parses config.settings' balancer document as BalancerSettingsType::fromBSON does: false when it does not parse
 * (a non-boolean stopped, an unknown mode, an activeWindow that is not an object, is empty, lacks start or stop, is
 * not HH:MM or has start equal to stop). On success mode receives "full", "autoSplitOnly" (up to 6.0) or "off" and
 * *win_start and *win_stop the window in minutes since midnight (-1 without one). Callers hold sim_g.lock. */
bool
sim_balancer_settings (char mode[16], int *win_start, int *win_stop);

/* Starts the background thread (workloads, balancer rounds, migrations, periodic connection drops). */
bool
sim_dyn_start (void);
/* Joins it (after sim_g.shutting_down is set) and frees workloads and migrations. */
void
sim_dyn_stop (void);
/* One step of the background work; callers hold sim_g.lock. */
void
sim_balancer_tick (int64_t now);
void
sim_workload_tick (int64_t now);
void
sim_workload_free_all (void);
void
sim_balancer_free (void);
/* Waits (releasing sim_g.lock) until no balancer round is in progress or deadline_ms passes; false on timeout. */
bool
sim_balancer_wait_round (int64_t deadline_ms);
/* Whether the balancer's policy would move chunks of ns (per zone group: chunk-count thresholds before 6.0, three
 * chunk sizes of data from 6.0): 1 yes, 0 no, -1 when ns has no chunk table (no stored collection). */
int
sim_balancer_imbalanced (const char *ns);
/* Whether a migration of the chunk with this _id is in flight. */
bool
sim_balancer_chunk_busy (const char *ns, const bson_oid_t *id);
/* Appends the in-flight migrations to out as the shards' currentOp rows. */
void
sim_balancer_current_op (simq_docs_t *out);
/* killOp of a shard's operation: interrupts the in-flight migration whose donor is shard and whose opid is opid (the
 * chunk stays, the donor logs an aborted moveChunk.from); false when no such operation runs. */
bool
sim_balancer_kill_op (const char *shard, int64_t opid);
/* Runs one balancer round now (synchronously selects migrations). */
void
sim_balancer_round (int64_t now);

/* Workload kinds and generation. */
typedef enum {
   SIM_WL_ASCENDING,
   SIM_WL_DESCENDING,
   SIM_WL_RANDOM,
   SIM_WL_HASHED,
   SIM_WL_ZIPF,
   SIM_WL_LOWCARD,
   SIM_WL_COMPOUND,
   SIM_WL_LOCATION,
} sim_wl_kind_t;

/* Parses a kind name; false when unknown. */
bool
sim_wl_kind_parse (const char *name, sim_wl_kind_t *out);

/* Starts a workload on ns (sharding it with the kind's key unless it is sharded or shard is false). rate is
 * operations per second; read_share/update_share the fractions of reads and updates. Returns the workload id or -1
 * with err set. */
int32_t
sim_workload_start (const char *ns, sim_wl_kind_t kind, double rate, double read_share, double update_share,
                    int32_t doc_bytes, bool shard, bson_error_t *err);
/* Builds count documents of kind into ns directly (the bulk loader); splits as the version's auto-splitter would. */
bool
sim_workload_load (const char *ns, sim_wl_kind_t kind, int64_t count, int32_t doc_bytes, bool shard, bson_error_t *err);
/* Parses NS:KIND:RATE[:READS:UPDATES] (--workload) or NS:KIND:COUNT[:unsharded] (--load) and runs it. */
bool
sim_workload_flag (const char *spec, bool load, char *errbuf, size_t errlen);

/* The simulator's own admin commands. */
void
sim_cmd_sim_workload (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_sim_balancer (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_sim_fault (sim_ctx_t *ctx, bson_t *reply);

/* Faults. The fault state has its own lock (connection threads consult it outside sim_g.lock). */
bool
sim_fault_flag (const char *flag, const char *val, char *errbuf, size_t errlen);
/* Before a command runs: holds it while the server "hangs" (returns false when shutting down). */
bool
sim_fault_before (const char *cmd_name);
/* After the reply is built: the delay to apply before sending it. */
int64_t
sim_fault_delay_ms (const char *cmd_name);
/* Whether the next call of cmd_name must fail; fills reply with the error (then the command is not run). */
bool
sim_fault_fail (const char *cmd_name, bson_t *reply);
/* Whether the listener must be closed now (refusing connections). */
bool
sim_fault_refusing (void);
/* What a badReply or closeOn rule does to a reply on the wire. */
typedef enum {
   SIM_WIRE_OK = 0,
   SIM_WIRE_BAD_BSON,   /* the frame is right, the body is not BSON */
   SIM_WIRE_BAD_LENGTH, /* the header claims 2^31-1 bytes */
   SIM_WIRE_TRUNCATED,  /* the header claims 64 bytes more than are sent; the connection stays open */
   SIM_WIRE_CLOSE,      /* no reply: the connection is closed */
} sim_wire_fault_t;
/* Before a command runs: whether to close the connection instead of answering (closeOn; consumes one time). */
bool
sim_fault_close_on (const char *cmd_name);
/* Before a reply is sent: how to garble it (badReply; consumes one time), SIM_WIRE_OK for not at all. */
sim_wire_fault_t
sim_fault_bad_reply (const char *cmd_name);
/* Garbles the wire message msg (len bytes, ending with its doc_len-byte document) in place for kind; returns the
 * number of bytes to send. */
size_t
sim_fault_garble (sim_wire_fault_t kind, uint8_t *msg, size_t len, size_t doc_len);
/* Periodic work (drop-every); called by the background thread. */
void
sim_fault_tick (int64_t now);
void
sim_fault_init (void);
void
sim_fault_cleanup (void);

/* ---- authentication (sim_auth.c) ---- */

/* The SCRAM mechanisms: SCRAM-SHA-1 (RFC 5802, on MongoDB's MD5 password digest) and SCRAM-SHA-256 (RFC 7677). */
typedef enum {
   SIM_SCRAM_SHA1 = 1,
   SIM_SCRAM_SHA256 = 256,
} sim_scram_algo_t;

/* What a server stores for one user and mechanism: never the password, only the salt, the iteration count and the
 * two keys derived from the salted password. */
typedef struct {
   sim_scram_algo_t algo;
   uint8_t salt[32];
   size_t salt_len;
   int iterations;
   uint8_t stored_key[32]; /* H(HMAC(SaltedPassword, "Client Key")) */
   uint8_t server_key[32]; /* HMAC(SaltedPassword, "Server Key") */
   size_t key_len;         /* 20 (SHA-1) or 32 (SHA-256) */
} sim_scram_creds_t;

/* The server side of one SCRAM conversation (opaque). */
typedef struct sim_scram sim_scram_t;

/* Adds a user from --auth USER:PASSWORD[@DB] (DB defaults to admin): derives both mechanisms' keys (PBKDF2, a random
 * salt per user and mechanism; 15000 iterations for SHA-256, 10000 for SHA-1) and overwrites the password in spec
 * with 'x' so neither memory nor /proc/<pid>/cmdline keeps it. Only printable ASCII passwords are accepted (SASLprep
 * leaves them unchanged). False with a message in errbuf on a malformed spec. */
bool
sim_auth_add_user (char *spec, char *errbuf, size_t errlen);

/* Whether --auth was given (then every command but the handshake/auth set needs an authenticated connection). */
bool
sim_auth_enabled (void);

/* Frees the users (their keys zeroed). */
void
sim_auth_cleanup (void);

/* Under --auth, for the handshake: appends saslSupportedMechs when the request names an existing "db.user", and
 * speculativeAuthenticate { conversationId, done, payload } when the request carries a saslStart whose first step
 * succeeds (both omitted otherwise, as a mongos does). Nothing without --auth. Callers hold sim_g.lock. */
void
sim_auth_hello (sim_ctx_t *ctx, bson_t *reply);

/* Under --auth: runs saslStart/saslContinue, or refuses a known command (known: in the version's command table) on a
 * connection that has not authenticated with 13 Unauthorized "command X requires authentication"; returns true when
 * it filled reply (the command must not run). hello/isMaster, buildInfo, ping and connectionStatus need no
 * authentication, as on a real server. Returns false without --auth. Callers hold sim_g.lock. */
bool
sim_auth_command (sim_ctx_t *ctx, bool known, bson_t *reply);

/* Appends the connection's authenticated user ({ user, db }) or, with roles, its role ({ role: "root", db: "admin" })
 * to the array arr; nothing when the connection has not authenticated. */
void
sim_auth_append_users (const sim_conn_t *conn, bson_t *arr, bool roles);

/* The $clusterTime signature: an HMAC-SHA1 of the time with the process's signing key and its keyId under --auth;
 * 20 zero bytes and keyId 0 without it (what an auth-less cluster sends). */
void
sim_auth_sign_cluster_time (uint32_t secs, uint32_t inc, uint8_t hash[20], int64_t *key_id);

/* For --log-commands: when cmd carries SASL payloads (saslStart, saslContinue, a handshake's speculativeAuthenticate),
 * initialises out with a copy showing each payload as "###" and returns true (PLAIN payloads hold the password, SCRAM
 * proofs allow guessing it offline); false, out untouched, for every other command. */
bool
sim_auth_redact_for_log (const bson_t *cmd, bson_t *out);

/* Frees a connection's SASL conversation. */
void
sim_auth_conn_free (sim_conn_t *conn);

/* The SCRAM primitives, exported for tests/unit/simtest_auth.c. */

/* Derives creds from the password that enters Hi() (SASLprep'd for SHA-256, MongoDB's digest for SHA-1). */
bool
sim_scram_derive (sim_scram_algo_t algo, const char *password, size_t pwlen, const uint8_t *salt, size_t salt_len,
                  int iterations, sim_scram_creds_t *out);

/* MongoDB's SCRAM-SHA-1 password: the hex MD5 of "user:mongo:password" into out (33 bytes). */
void
sim_scram_mongo_sha1_password (const char *user, const char *password, char out[33]);

/* Parses a client-first message ("n,,n=user,r=nonce"); returns a new conversation (NULL with errbuf set when
 * malformed) and the decoded user name in user. */
sim_scram_t *
sim_scram_start (sim_scram_algo_t algo, const uint8_t *payload, size_t len, char *user, size_t userlen, char *errbuf,
                 size_t errlen);

/* Builds the server-first message for creds ("r=<nonce>,s=<salt>,i=<n>"; server_nonce NULL: 24 random bytes, base64).
 * *out is bson_malloc'd, NUL-terminated. */
bool
sim_scram_server_first (sim_scram_t *s, const sim_scram_creds_t *creds, const char *server_nonce, char **out);

/* Checks the client-final message's channel binding, nonce and proof; on success builds the server-final message
 * ("v=<ServerSignature>") into *out (bson_malloc'd). False when anything does not match (authentication failed). */
bool
sim_scram_server_final (sim_scram_t *s, const uint8_t *payload, size_t len, char **out);

/* Frees a conversation (its secrets zeroed); NULL is fine. */
void
sim_scram_free (sim_scram_t *s);

/* ---- TLS (sim_tls.c) ---- */

/* Loads the server certificate and key (cert_file: PEM holding both) and, when ca_file is not NULL, the CA that
 * client certificates are verified against (a client certificate is asked for and checked when sent, not required).
 * False with an OpenSSL reason in errbuf. */
bool
sim_tls_init (const char *cert_file, const char *ca_file, char *errbuf, size_t errlen);

/* Whether --tls-cert was given (then every accepted connection speaks TLS). */
bool
sim_tls_enabled (void);

/* Frees the TLS context. */
void
sim_tls_cleanup (void);

/* The server side of the handshake on conn->fd; on success conn->tls is set. False (with one line on stderr naming
 * the reason) when the handshake failed: the connection must be closed. */
bool
sim_tls_accept (sim_conn_t *conn);

/* Reads up to n bytes from the TLS session: > 0 bytes read, 0 at the end of the stream or on an error, -1 with errno
 * EINTR when the call must be repeated. */
ssize_t
sim_tls_read (sim_conn_t *conn, void *buf, size_t n);

/* Writes up to n bytes: > 0 bytes written, 0 on an error, -1 with errno EINTR when the call must be repeated. */
ssize_t
sim_tls_write (sim_conn_t *conn, const void *buf, size_t n);

/* Decrypted bytes already buffered in the session (readable without touching the socket). */
size_t
sim_tls_pending (const sim_conn_t *conn);

/* Sends close_notify (best effort) and frees the session; nothing on a plain connection. */
void
sim_tls_close (sim_conn_t *conn);

/* ---- small document readers shared by the command files ---- */

/* Views config.settings' document with _id id (static, valid until the collection changes); false when there is
 * none (sim_admin.c). */
bool
sim_setting_view (const char *id, bson_t *view);

/* ---- draining status and the cluster catalog (sim_drain.c) ---- */

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

/* ---- timed resharding, moveCollection and unshardCollection (sim_reshard.c) ---- */

/* --reshard-ms: how long a reshardCollection / moveCollection / unshardCollection runs (0: reshardCollection commits
 * at once, moveCollection and unshardCollection too). */
extern int64_t sim_reshard_ms;

/* The reshardCollection, moveCollection, unshardCollection and abort… commands (sim_handler_t): timed when
 * --reshard-ms is set (waits with sim_g.lock released while the operation runs), else reshardCollection commits at
 * once (sim_cmd_reshard_collection). */
void
sim_reshard_cmd (sim_ctx_t *ctx, bson_t *reply);

/* { simReshard: "stepDown", [ns] }: the running operations (of ns) lose their recipients' time estimates, as after
 * a failover of the recipient shards' primaries. */
void
sim_cmd_sim_reshard (sim_ctx_t *ctx, bson_t *reply);

/* Appends the running operations' donor and recipient rows to out, as each shard's $currentOp reports them. */
void
sim_reshard_current_op (simq_docs_t *out);

/* Frees the operation records (shutdown). */
void
sim_reshard_free (void);

/* ---- failed migrations and balancer rounds on demand (sim_mfail.c) ---- */

/* { simFailure: "migrations" | "rounds", [times: n, -1 = always], [errmsg] }, "status", "clear". */
void
sim_cmd_sim_failure (sim_ctx_t *ctx, bson_t *reply);

/* When a migration failure is armed: writes moveChunk.error for this migration, copies the errmsg into errmsg and
 * returns true (the caller then aborts it, writing moveChunk.from with note "aborted" and that errmsg). */
bool
sim_mfail_migration (const char *ns, const bson_t *min, const bson_t *max, const char *from, const char *to,
                     int64_t now, char *errmsg, size_t len);

/* When a round failure is armed: writes the failed balancer.round entry and returns true (the caller selects
 * nothing this round). */
bool
sim_mfail_round (int64_t now);

#endif
