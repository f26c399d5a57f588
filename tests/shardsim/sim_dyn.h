/* shardsim's dynamics: the background thread's workloads, live balancer and faults (sim_dyn.c, sim_workload.c,
 * sim_balancer.c, sim_fault.c), timed resharding (sim_reshard.c) and failed migrations on demand (sim_mfail.c).
 * Callers hold sim_g.lock unless a function says otherwise. */
#ifndef SHARDSIM_SIM_DYN_H
#define SHARDSIM_SIM_DYN_H

#include "tests/shardsim/sim_reply.h"

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

/* The details of a successful balancer.round actionlog entry (Balancer's BalanceRoundDetails::toBSON):
 * executionTimeMillis (int64), errorOccured (4.4/5.0) / errorOccurred false, candidateChunks, chunksMoved, and from
 * 7.0 imbalancedCachedCollections and times { selectionTimeMillis, throttleTimeMillis, migrationTimeMillis }. */
void
sim_round_details (bson_t *d, int64_t exec_ms, int32_t candidates, int32_t moved);

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
   SIM_WIRE_BAD_UTF8,   /* the body is {ok: 1.0, a: <not UTF-8>, d: <a document whose element is broken>} */
   /* well-formed BSON of the wrong shape (sim_fault_rewrite), for the client's edge checks: */
   SIM_REPLY_NS_TYPE,    /* the cursor's ns is an int32 */
   SIM_REPLY_NS_NODOT,   /* the cursor's ns has no dot ("config") */
   SIM_REPLY_NS_NOCOLL,  /* the cursor's ns has no collection ("config.") */
   SIM_REPLY_ID_TYPE,    /* the cursor's id is a string */
   SIM_REPLY_BATCH_TYPE, /* the cursor's batch is a document, not an array */
   SIM_REPLY_OK0_CODE0,  /* {ok: 0, code: 0}: a failure without a code or a message */
   SIM_WIRE_CLOSE,       /* no reply: the connection is closed */
} sim_wire_fault_t;
/* Before a command runs: whether to close the connection instead of answering (closeOn; consumes one time). */
bool
sim_fault_close_on (const char *cmd_name);
/* Before a reply is sent: how to garble it (badReply; consumes one time), SIM_WIRE_OK for not at all. */
sim_wire_fault_t
sim_fault_bad_reply (const char *cmd_name);
/* For the reply kinds (SIM_REPLY_*): replaces reply with the malformed document and returns true; false for the wire
 * kinds, which sim_fault_garble applies after serialisation. */
bool
sim_fault_rewrite (sim_wire_fault_t kind, bson_t *reply);
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
sim_fault_destroy (void);

/* ---- timed resharding, moveCollection and unshardCollection (sim_reshard.c) ---- */

/* --reshard-ms: how long a reshardCollection / moveCollection / unshardCollection runs (0: reshardCollection commits
 * at once, moveCollection and unshardCollection too). */
extern int64_t sim_reshard_ms;

/* The reshardCollection, moveCollection, unshardCollection, abort… and commitReshardCollection commands
 * (sim_handler_t): timed when
 * --reshard-ms is set (waits with sim_g.lock released while the operation runs), else reshardCollection commits at
 * once (sim_cmd_reshard_collection). */
void
sim_cmd_reshard (sim_ctx_t *ctx, bson_t *reply);

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
