/* The pre-flight's model of the cluster (private to shell/plan/preflight.c, shell/plan/pf_model.c and
 * shell/plan/pf_plan.c): the shards with their zones, the zone ranges, the sharded collections and, once read, their
 * chunks with sizes; what each statement checked so far changed in it; and the plan's totals. pf_model.c reads the
 * cluster into it (read-only queries) and answers questions about it; pf_plan.c computes what the balancer would move.
 * See preflight.h. */
#ifndef SHARDSH_PF_MODEL_H
#define SHARDSH_PF_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "shell/core/ctx.h"
#include "shell/core/errors.h"
#include "shell/plan/preflight.h"

#define PF_MAX_DOCS 100000 /* config.shards, config.tags, config.collections */

typedef struct {
   char *id;
   bool draining;
   bson_t *tags; /* array of strings */
} pf_shard_t;

typedef struct {
   char *ns;
   bson_t *min, *max;
   char *zone;
} pf_range_t;

typedef struct {
   bson_t *min, *max;
   char *shard;
   int64_t docs, bytes; /* -1 until read */
} pf_chunk_t;

typedef struct {
   char *ns;
   bson_t *meta; /* the config.collections document (empty for one the script shards) */
   bson_t *key;
   bool chunks_loaded;
   bool no_balance;    /* noBalance: the balancer leaves it alone (sh.disableBalancing) */
   pf_chunk_t *chunks; /* all of them, however many */
   size_t nchunks, cap_chunks;
} pf_coll_t;

/* Who makes a move the plan counts, and when it happens. */
typedef enum {
   PF_BY_COMMAND,  /* the script's own command moves it, where it runs */
   PF_BY_BALANCER, /* the balancer moves it when it runs (in its window, if it has one) */
   PF_NOT_STOPPED, /* the balancer would move it, but not while it is stopped */
   PF_NOT_NO_BAL,  /* the balancer would move it, but not while balancing of its collection is disabled */
   PF_BY_N
} pf_by_t;

struct preflight {
   sh_ctx_t *ctx;
   bool plan;
   int version[3];
   bool balancer_off; /* config.settings balancer stopped or mode off, then as the script changes it */
   char window[64];   /* the balancer's activeWindow ("01:00-05:00"), "" when none */
   int nby[PF_BY_N];  /* moves by who makes them */
   pf_shard_t *shards;
   size_t nshards;
   pf_range_t *ranges;
   size_t nranges;
   pf_coll_t *colls;
   size_t ncolls;
   char effect[1024];
   const char *file;    /* of the statement being checked (for warnings) */
   bson_t ranged_zones; /* zones that had ranges before the script */
   char **effects;      /* per statement of the run (effect_base[input] + statement): the effect the plan found, for
                         * the confirmation, or NULL */
   size_t *effect_base;
   size_t ninputs, neffects;
   bson_t new_indexes; /* ns -> key of each index the script creates before it shards */
   bool partial;       /* the pre-flight stopped following a JavaScript input: the plan covers the script up to there */
   /* plan totals */
   bson_t moves; /* array of { ns, min, max, from, to, docs, bytes } */
   int nmoves;
   int64_t docs, bytes; /* of the moves whose size is known */
   int nunknown;        /* moves whose size could not be read (dataSize failed): not in docs and bytes */
   bson_t stuck;        /* array of { ns, min, max, from, docs, bytes, stuck, fix }: chunks that will not move */
   int nstuck;
   /* per entry of moves and of stuck: true when the balancer makes that move (or would) only because the shard it
    * leaves drains (a chunk in its zone or in none): what a stopShardDraining of that shard withdraws */
   bool *move_drain, *stuck_drain;
   size_t cap_move_drain, cap_stuck_drain;
};

/* ---- the model (shell/plan/pf_model.c) ---- */

/* Reads buildInfo, config.shards, config.tags and config.collections (each bounded) into pf, whose bson fields are
 * initialized. False with err set when the cluster cannot be read. */
bool
pf_model_load (preflight_t *pf, sh_error_t *err);

/* Frees what the model holds (shards, ranges, collections with their chunks); pf itself stays. */
void
pf_model_destroy (preflight_t *pf);

/* Reads the chunks of c (sorted by min, all of them, a batch at a time) once. */
bool
pf_model_load_chunks (preflight_t *pf, pf_coll_t *c, sh_error_t *err);

/* True when shard s carries zone. */
bool
pf_model_has_tag (const pf_shard_t *s, const char *zone);

/* The shard called id, or NULL (borrowed from pf). */
pf_shard_t *
pf_model_shard (preflight_t *pf, const char *id);

/* The shards' names (zones false) or the zones carried by some shard (zones true), comma-separated into buf. */
void
pf_model_list (const preflight_t *pf, bool zones, char *buf, size_t len);

/* True when some shard carries zone. */
bool
pf_model_zone_exists (const preflight_t *pf, const char *zone);

/* The sharded collection ns, or NULL (borrowed from pf). */
pf_coll_t *
pf_model_coll (preflight_t *pf, const char *ns);

/* Adds ns sharded with key; meta is its config.collections document, NULL for one the script shards (its chunks are
 * then not known). Returns the new entry (borrowed; valid until the next add). */
pf_coll_t *
pf_model_coll_add (preflight_t *pf, const char *ns, const bson_t *meta, const bson_t *key);

/* The ranges are kept sorted by (ns, min) without overlap: the index of the first range not before (ns, min). */
size_t
pf_model_range_pos (const preflight_t *pf, const char *ns, const bson_t *min);

/* Adds the zone range [min, max) of ns (copied) in its sorted place. */
void
pf_model_range_add (preflight_t *pf, const char *ns, const bson_t *min, const bson_t *max, const char *zone);

/* Removes range i. */
void
pf_model_range_remove (preflight_t *pf, size_t i);

/* The zone of [min, max) of ns: the zone range holding all of it, or NULL (borrowed). */
const char *
pf_model_zone_of (const preflight_t *pf, const char *ns, const bson_t *min, const bson_t *max);

/* The index of the zone range holding all of [min, max) of ns (as pf_model_zone_of), pf->nranges when none. */
size_t
pf_model_zone_range (const preflight_t *pf, const char *ns, const bson_t *min, const bson_t *max);

/* True when zone has a range in the model now. */
bool
pf_model_zone_in_use (const preflight_t *pf, const char *zone);

/* The chunk of c holding key (a document of the shard key's values), or NULL. */
pf_chunk_t *
pf_model_chunk_at (pf_coll_t *c, const bson_t *key);

/* The index of the chunk of c holding key, c->nchunks when none (logarithmic while the chunks are sorted by min). */
size_t
pf_model_chunk_index (const pf_coll_t *c, const bson_t *key);

/* dataSize of [min, max) of c (estimate: true): documents and bytes, -1 (unknown) when it cannot be read. */
void
pf_model_data_size (preflight_t *pf, const pf_coll_t *c, const bson_t *min, const bson_t *max, int64_t *docs,
                    int64_t *bytes);

/* The documents of [min, max) of c by a count, for a single-field ranged key; -1 when not possible. */
int64_t
pf_model_count_range (preflight_t *pf, const pf_coll_t *c, const bson_t *min, const bson_t *max);

/* Documents and bytes of chunk k of c (read once with dataSize; -1 when it could not be read). */
void
pf_model_chunk_size (preflight_t *pf, const pf_coll_t *c, pf_chunk_t *k, int64_t *docs, int64_t *bytes);

/* ---- the plan (shell/plan/pf_plan.c) ---- */

/* Records a move by the balancer (by_command false: tagged with when the balancer makes it, from the model's balancer
 * state and c's noBalance) or by the script's command of [min, max) of c from -> to (to NULL: no shard can take it)
 * with its size (docs or bytes -1:
 * unknown, shown so and counted apart): printed under --plan (not --json), counted in the totals and the JSON moves,
 * and kept as the statement's effect. */
void
pf_plan_move (preflight_t *pf, const pf_coll_t *c, const bson_t *min, const bson_t *max, const char *from,
              const char *to, int64_t docs, int64_t bytes, bool by_command);

/* Records a move by the script's command of the chunk of c holding query (a hashed or partial shard key, or chunks
 * not known: the server finds it) to to, its size unknown. */
void
pf_plan_move_unknown (preflight_t *pf, const pf_coll_t *c, const bson_t *query, const char *to);

/* Splits the chunk of c that holds bound strictly inside at bound, sharing its size between the pieces when sizes
 * are shown (the plan, or a confirmation in a terminal). */
void
pf_plan_split_at (preflight_t *pf, pf_coll_t *c, const bson_t *bound);

/* After a change of zones or shards: the collections touched (only_ns; else every one with ranges, or all when
 * every) are split at their zone boundaries and their misplaced chunks moved as the balancer would. False with err
 * set when chunks cannot be read. */
bool
pf_plan_all (preflight_t *pf, const char *only_ns, bool every, sh_error_t *err);

/* Under --plan, removeShard of id: prints what the shard has to drain and an estimate of the time from
 * config.changelog, then plans the moves of its chunks. */
bool
pf_plan_drain (preflight_t *pf, const char *id, sh_error_t *err);

/* stopShardDraining of id (8.3+): the drain pauses, so the balancer's moves planned off id only because it drained
 * (and the chunks that would not move off it for that reason) are withdrawn from the totals and the JSON moves, and
 * the model's chunks go back to id (a startShardDraining plans them again). A move whose chunk has moved on since is
 * kept, with the move that took it on. Sets *nmoves and *nstuck to what was withdrawn. */
void
pf_plan_pause (preflight_t *pf, const char *id, int *nmoves, int *nstuck);

/* Under --plan, sh.shardCollection of a new ns with key: prints its initial chunks per shard. False with err set
 * when the options are wrong. */
bool
pf_plan_initial_chunks (preflight_t *pf, const sh_call_t *call, const char *ns, const bson_t *key, sh_error_t *err);

#endif
