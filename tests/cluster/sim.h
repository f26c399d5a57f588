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

#include "simq.h"

/* ---- version personality ---- */

typedef struct {
   const char *name;  /* "8.0" */
   const char *full;  /* "8.0.4" */
   int num;           /* 44, 50, 60, 70, 80 */
   int32_t max_wire;  /* 9, 13, 17, 21, 25 */
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
   char peer[64];
   char app_name[128];
   int64_t started_ms;
   struct sim_conn *next;
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
   uint32_t flags;   /* OP_MSG flagBits, or OP_QUERY flags */
   char db[128];     /* $db, or the database of OP_QUERY's fullCollectionName */
   bson_t cmd;       /* the command, document sequences merged in as arrays */
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

/* Accepts and serves connections until sim_g.shutting_down; then closes every connection and joins its thread. */
void
sim_server_run (int listen_fd);

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

int64_t
sim_now_ms (void);

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

/* ---- config metadata and routing (sim_config.c) ---- */

/* A sharded collection's routing information, read from config.collections. */
typedef struct {
   char ns[256];
   bson_t key;       /* shard key pattern */
   bson_t doc;       /* the config.collections document */
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

/* Frees every cursor. */
void
sim_cursors_free (void);

/* Inserts doc into db.name as a client insert would (config collections included), no reply. */
void
sim_crud_insert_one (const char *db, const char *name, const bson_t *doc);

/* ---- admin commands (sim_admin.c) ---- */

/* Runs a sharding admin command if name is one; returns false when it is not an admin command handled here. */
bool
sim_admin_run (sim_ctx_t *ctx, bson_t *reply);

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

#endif
