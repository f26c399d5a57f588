/* The shared executor (commands/exec.c): runs a call's requests and fills the call's result (commands/result.h: an
 * executor fills a result, never prints it); cursor reads, the common request pieces several families append, and
 * warnings. */
#ifndef SHARDSH_EXEC_H
#define SHARDSH_EXEC_H

#include <bson/bson.h>
#include <stdbool.h>
#include <stdint.h>

#include "commands/result.h"
#include "commands/table.h"
#include "shell/core/conn.h"
#include "shell/core/ctx.h"

/* Runs build()'s requests one after another (stopping at the first failure) and fills result with the last reply per
 * ret (nothing under --dry-run). */
bool
cmd_exec_requests (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *result, sh_error_t *err);

/* The first write error (writeErrors[0]) or else the writeConcernError of a write command's reply as err
 * (SH_ERR_SERVER with the server's errmsg, code and codeName, the name looked up from the code when the server left
 * it out), as the driver throws it; true when the reply has neither. */
bool
cmd_check_write_errors (const bson_t *reply, sh_error_t *err);

/* mongosh's displayBatchSize: how many documents a cursor shows at a time ("it" shows the next as many). */
#define CMD_CURSOR_BATCH 20

/* Reads up to max documents of c into docs (an array document initialised by the callee in every case); *more says
 * whether the cursor may give more (mongosh's !isExhausted()). False with err set when a getMore failed. */
bool
cmd_cursor_read (conn_cursor_t *c, size_t max, bson_t *docs, bool *more, sh_error_t *err);

/* Runs the single cursor request of build() and fills result with its documents as an array (nothing under
 * --dry-run). */
bool
cmd_exec_cursor (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *result, sh_error_t *err);

/* True under --dry-run: requests are printed, not sent, and results are not rendered. */
bool
cmd_dry_run (const sh_ctx_t *ctx);

/* Appends a JS number as mongosh's BSON serialiser would: an int32 when integral and in range, else a double. */
void
cmd_append_number (bson_t *doc, const char *key, double v);

/* Appends the config.chunks filter of a config.collections document: { uuid } when it has a timestamp (5.0+),
 * else { ns: <_id> } (mongosh's buildConfigChunksCollectionMatch). */
void
cmd_append_chunks_match (bson_t *filter, const bson_t *coll);

/* mongosh's dataFormat(): 117KiB, 1.5MiB, ... into buf. */
void
cmd_format_bytes (double bytes, char *buf, size_t len);

/* Appends { update: <coll>, updates: [ { q: { _id: <id> }, u: { <op>: { <field>: <value> } }[, upsert: true] } ],
 * ordered: true, writeConcern: { w: "majority", wtimeout: <wtimeout> } } to cmd: the updateOne mongosh sends to
 * config.settings and config.collections (id and value are appended unchanged). */
void
cmd_append_config_update (bson_t *cmd, const char *coll, const bson_value_t *id, const char *op, const char *field,
                          const bson_value_t *value, bool upsert, int32_t wtimeout);

/* Appends the config.settings updateOne { _id: <id> } $set { <field>: <value> } with upsert: true, as
 * cmd_append_config_update builds it. */
void
cmd_append_settings_update (bson_t *cmd, const char *id, const char *field, const bson_value_t *value,
                            int32_t wtimeout);

/* Appends { find: <coll>, filter: { _id: <id> }, limit: 1 }: mongosh's findOne by _id. */
void
cmd_append_find_id (bson_t *cmd, const char *coll, const char *id);

/* Appends an empty document under key ({ cursor: {} }, { filter: {} }). */
void
cmd_append_empty (bson_t *doc, const char *key);

/* Appends under key the stage { $group: { _id: 1, n: { $sum: 1 } } } that ends a countDocuments pipeline, as the
 * driver sends it. */
void
cmd_append_count_stage (bson_t *pipeline, const char *key);

/* Runs cmd, a cursor command on db that needs one document, and copies its first document into doc (initialised by
 * the callee in every case; empty when none). *found says whether there was one. */
bool
cmd_run_first_doc (sh_ctx_t *ctx, const char *db, const bson_t *cmd, conn_path_t path, bson_t *doc, bool *found,
                   sh_error_t *err);

/* Runs { find: <coll>, filter: { _id: <id> }, limit: 1 } on config (read path) and copies the document into doc
 * (initialised by the callee in every case; empty when none). *found says whether there was one. */
bool
cmd_config_find_id (sh_ctx_t *ctx, const char *coll, const char *id, bson_t *doc, bool *found, sh_error_t *err);

/* Runs the first request of the entry's build() for call and leaves the reply in reply (initialised by the callee in
 * every case). False with err set when build() or the command fails. */
bool
cmd_run_build (sh_ctx_t *ctx, const sh_call_t *call, bson_t *reply, sh_error_t *err);

/* Runs the first request of the entry's build() for call as a cursor command and collects up to max documents (0 =
 * all) into docs, an array document initialised by the callee in every case; *more (may be NULL) as conn_run_docs. */
bool
cmd_run_build_docs (sh_ctx_t *ctx, const sh_call_t *call, size_t max, bson_t *docs, bool *more, sh_error_t *err);

/* Points doc (static, borrowed) at the first element of docs, an array document such as conn_run_docs fills, when
 * it is a document; false when docs is empty or its first element is not a document. */
bool
cmd_first_doc (const bson_t *docs, bson_t *doc);

/* Prints a warning line on the error stream (not part of the result). */
void
cmd_warn (sh_ctx_t *ctx, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));

/* Runs cmd (destroyed here) as a cursor command on db and replaces *docs (initialised) with up to max documents (0:
 * all), an array document as conn_run_docs fills. */
bool
cmd_run_docs (sh_ctx_t *ctx, const char *db, bson_t *cmd, size_t max, bson_t *docs, sh_error_t *err);

#endif
