/* shardsim's document commands, shared part: the helpers sim_crud.c (find, getMore, count, distinct, cursors),
 * sim_aggregate.c (aggregate and its mongos-only stages), sim_write.c (insert, update, delete, findAndModify) and
 * sim_ddl.c (collections, indexes, databases, currentOp, killOp) use together. Callers hold sim_g.lock. */
#ifndef SHARDSIM_SIM_CRUD_H
#define SHARDSIM_SIM_CRUD_H

#include "tests/shardsim/sim.h"
#include "tests/shardsim/query/simq_int.h" /* simq_type_name */

/* ---- sim_crud.c ---- */

/* Replies a query-engine error (its server code and message). */
void
sim_reply_simq_error (bson_t *reply, const bson_error_t *err);

/* An IDL command's strict parsing: every field after the first must be in known (NULL-terminated) or a generic
 * argument (40415 "BSON field '<cmd>.<f>' is an unknown field."), and those in objects (may be NULL) documents (14
 * "BSON field '<cmd>.<f>' is the wrong type '<t>', expected type 'object'"). False with the error replied. */
bool
sim_strict_fields (sim_ctx_t *ctx, bson_t *reply, const char *const *known, const char *const *objects);

/* The server's E11000 text for a duplicate key in coll (buildDupKeyErrorStatus): "E11000 duplicate key error
 * collection: db.c index: a_1 dup key: { a: 1 }" (the key as BSONObj::toString prints it); bson_free the result. */
char *
sim_dupkey_errmsg (const sim_coll_t *coll, const sim_dupkey_t *dup);

/* Appends DuplicateKeyErrorInfo::serialize's fields, keyPattern then keyValue, to out. */
void
sim_dupkey_append_info (bson_t *out, const sim_dupkey_t *dup);

/* Replies 11000 DuplicateKey with prefix (may be NULL) before the E11000 text, then keyPattern and keyValue (a
 * command's error carries the status's extra info at the top level). */
void
sim_reply_dupkey_error (bson_t *reply, const sim_coll_t *coll, const sim_dupkey_t *dup, const char *prefix);

/* Records a read (0), write (1) or command (2) for $collStats latencyStats on the shards owning ns's data. */
void
sim_touch (const char *ns, int kind, const char *shard);

/* Replies with the first batch of docs (taking the documents; docs is left empty) and keeps a cursor for the rest.
 * batch < 0 means the default (101); batch == 0 returns an empty first batch. single closes the cursor after the
 * first batch. */
void
sim_reply_cursor (bson_t *reply, const char *ns, simq_docs_t *docs, int64_t batch, bool single);

/* The rows of $currentOp (sim_aggregate.c): ctx's own operation (every connection's when idle), the balancer's
 * migrations and the resharding participants, appended to out (owned by the caller). */
void
sim_current_op_rows (sim_ctx_t *ctx, bool idle, simq_docs_t *out);

/* The $shardedDataDistribution documents (sim_distrib.c) of the sharded collections among cdocs (config.collections
 * documents, borrowed: neither dropped nor unsplittable), in cdocs' order, appended to out (owned by the caller). */
void
sim_distribution_docs (const simq_docs_t *cdocs, simq_docs_t *out);

/* The collection named by the command's first field; false (error replied) when it is not a string. */
bool
sim_target (sim_ctx_t *ctx, bson_t *reply, const char **coll);

/* Records kind once on every shard holding one of the documents at hits (writes: the shards an update or delete
 * reached). */
void
sim_touch_hits (sim_coll_t *coll, const sim_hits_t *hits, int kind);

#endif
