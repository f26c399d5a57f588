/* shardsim's shared state, the bottom of the simulator (sim_state.c): the version personality, the in-memory
 * collections, cursors and connections, the global sim_g, the wire message and the command context every handler
 * gets, and the clock, random numbers and UUIDs. Includes nothing of the simulator but the query engine. */
#ifndef SHARDSIM_SIM_STATE_H
#define SHARDSIM_SIM_STATE_H

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
   struct sim_uniq *uniq; /* the unique secondary indexes' key maps (sim_index.c); NULL until needed */
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

/* Frees what msg holds (its command document); msg itself is the caller's. */
void
sim_msg_destroy (sim_msg_t *msg);

/* Builds a reply message to request_id in buf (bson_malloc'd; caller frees): OP_REPLY for OP_QUERY (responseFlags
 * 8), OP_MSG otherwise (flags as given). */
uint8_t *
sim_wire_reply (int32_t opcode, int32_t request_id, int32_t response_id, uint32_t flags, const bson_t *body,
                size_t *len);

/* ---- the command context ---- */

/* One command being run: the connection, its database and name, the command document (borrowed). */
typedef struct {
   sim_conn_t *conn;
   const char *db;
   const char *name; /* command name */
   const bson_t *cmd;
   bool op_query;
} sim_ctx_t;

/* ---- version, clock, random numbers (sim_state.c) ---- */

/* Whether the simulated version is at least num (44 … 83). */
bool
sim_ver_ge (int num);

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

#endif
