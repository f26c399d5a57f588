/* The command table: one entry per helper, the single source of truth for dispatch, help, completion, safety
 * flags and the command reference in docs/. A family file (zones.c, balancer.c, ...) defines its entries; the table
 * in registry.c lists them all. Most entries only supply a pure build() (arguments -> request documents); the
 * shared executor sends them and renders the reply. */
#ifndef SHARDSH_COMMANDS_H
#define SHARDSH_COMMANDS_H

#include <bson/bson.h>
#include <stdbool.h>
#include <stdio.h>

#include "shell/core/conn.h"
#include "shell/lib/clock.h"
#include "shell/lib/docget.h"
#include "shell/core/ctx.h"
#include "shell/core/errors.h"

typedef enum {
   CMD_READONLY = 1 << 0,     /* changes nothing in the cluster: allowed under --readonly */
   CMD_DESTRUCTIVE = 1 << 1,  /* moves or drops data or stops balancing: confirm in a terminal unless --yes */
   CMD_MONGOS_CHECK = 1 << 2, /* mongosh's one-time { hello: 1 } check on the current database runs first */
   CMD_CLIENT_ONLY = 1 << 3,  /* sends nothing (help, use, print) */
   CMD_ALIAS = 1 << 4,        /* a deprecated alias: help names alias_of */
   CMD_EXTRA = 1 << 5,        /* not in mongosh: a helper shardsh adds (or brings back from the legacy shell) */
   CMD_CLOCK = 1 << 6,        /* build() reads the clock: a script's validation does not hand its requests on */
} cmd_flags_t;

typedef enum {
   CMD_RET_RAW = 0, /* the whole reply document of the last request */
   CMD_RET_UPDATE,  /* an UpdateResult: { acknowledged, insertedId, matchedCount, modifiedCount, upsertedCount } */
   CMD_RET_NONE,    /* nothing is printed */
} cmd_ret_t;

/* One request a helper sends: the database, the exact command document (field order and BSON types as mongosh
 * sends them), and the path (admin or read). */
typedef struct {
   char *db; /* owned */
   bson_t cmd;
   conn_path_t path;
} sh_request_t;

/* The requests of one call, in order; the shared executor stops at the first that fails. Starts as { .n = 0 }; grows
 * as requests are added; released with sh_requests_destroy. */
typedef struct {
   sh_request_t *v;
   size_t n;
   size_t cap;
} sh_requests_t;

struct sh_cmd;

/* A resolved call: which entry, where it runs, its arguments and their positions. Everything is borrowed from the
 * parsed statement and the context, valid for the duration of one dispatch. */
typedef struct {
   const struct sh_cmd *cmd;
   const char *db;     /* database it runs on: the current one, or getSiblingDB's */
   const char *coll;   /* db.<coll>.<method>: the collection, else NULL */
   const bson_t *args; /* arguments as an array document ({"0": …}); never NULL */
   int argc;
   const sh_pos_t *arg_pos;      /* argc positions, or NULL */
   sh_pos_t pos;                 /* the helper's name in the source */
   sh_pos_t close_pos;           /* its closing parenthesis */
   const bson_t *sort;           /* .sort(doc) after a read, or NULL */
   const bson_t *projection_mod; /* reserved */
   int64_t limit;                /* .limit(n), 0 when absent */
   int64_t skip;                 /* .skip(n), 0 when absent */
   const bson_t *modifiers;      /* find's other cursor modifiers as chained ({ hint, maxTimeMS, ... }), or NULL */
   const char *terminal;         /* a cursor method ending the chain: "count", "size", "itcount"; NULL when none */
   int64_t batch_size;           /* a cursor's .batchSize(n) (the engine's cursors), 0 when absent */
   const sh_requests_t *built;   /* the requests build() already made for this call (the dispatcher's checks), or
                                  * NULL: sh_requests_build hands them on instead of building again */
} sh_call_t;

/* Pure: turns a call into requests appended to out (out->n starts at 0; each request's cmd is initialised by the
 * builder). No I/O. On bad arguments returns false with err set (SH_ERR_ARGS, a caret on the argument); the caller
 * destroys whatever requests were initialised either way (sh_requests_destroy). */
typedef bool (*cmd_build_fn) (const sh_call_t *call, sh_requests_t *out, sh_error_t *err);

/* Effectful: runs the call (sending, rendering). Returns false with err set on failure; never exits. */
typedef bool (*cmd_exec_fn) (sh_ctx_t *ctx, const sh_call_t *call, sh_error_t *err);

typedef struct sh_cmd {
   const char *name;     /* "sh.moveChunk", "db.adminCommand", "db.collection.find", "use" */
   const char *alias_of; /* CMD_ALIAS entries: the name of the target */
   const char *usage;    /* "sh.moveChunk(namespace, query, destination)" */
   const char *summary;  /* one line, for help and completion */
   const char *sends;    /* what goes on the wire, e.g. "admin { moveChunk: <ns>, find: <query>, to: <destination> }" */
   const char *example;  /* one example call */
   const char *since;    /* minimum server version ("6.0"), or NULL */
   unsigned flags;       /* cmd_flags_t */
   cmd_ret_t ret;        /* how the shared executor renders the result */
   cmd_build_fn build;   /* NULL when exec does everything */
   cmd_exec_fn exec;     /* NULL: the shared executor (run build's requests, render per ret) */
   bool (*destructive_if) (const sh_call_t *call); /* when set, decides CMD_DESTRUCTIVE per call */
   bool (*readonly_if) (const sh_call_t *call);    /* when set, decides CMD_READONLY per call */
   const char *not_found_hint;                     /* appended to a CommandNotFound (59) error, as mongosh appends it */
   int dbref_arg;         /* 1-based position of an argument that may be a Database object (db or
                           * db.getSiblingDB("x"), sh.status's configDB); 0: none. Given, it skips the mongos check */
   const char *arg_kinds; /* live completion per argument position, comma-separated: "ns", "shard", "zone", "db",
                           * "coll" or "" (nothing); NULL when no argument completes */
} sh_cmd_t;

/* The table, NULL-terminated, in help order (registry.c). */
extern const sh_cmd_t *const sh_cmd_table[];

/* One line of commands/table.def: the entry, where it is defined and how it is called. */
typedef struct {
   const sh_cmd_t *cmd; /* NULL ends sh_cmd_rows */
   const char *symbol;  /* "cmd_sh_move_chunk", the entry's C name */
   const char *family;  /* "chunks": the entry is defined in commands/<family>.c */
   int min_args;        /* arguments the call needs */
   int max_args;        /* arguments it takes; -1 for any number (print) */
   bool callable;       /* written name(...); false for the statement words use, show, help and exit */
} sh_cmd_row_t;

/* The rows of the table, in the same order as sh_cmd_table, ended by a row whose cmd is NULL (registry.c). */
extern const sh_cmd_row_t sh_cmd_rows[];

/* The row of an entry of the table; NULL when cmd is not in it. */
const sh_cmd_row_t *
sh_cmd_row (const sh_cmd_t *cmd);

/* Exact lookup by name ("sh.moveChunk"); NULL when unknown. */
const sh_cmd_t *
sh_cmd_find (const char *name);

/* Up to max names from the table nearest to name by edit distance (for "did you mean"); returns how many. */
size_t
sh_cmd_suggest (const char *name, const char **out, size_t max);

/* Writes docs/commands.md (the reference generated from the table) to out. */
void
sh_cmd_write_markdown (FILE *out);

/* Initialises the next request in out for db (copied) and path and returns its command document to fill, valid until
 * the next sh_requests_add on out. */
bson_t *
sh_requests_add (sh_requests_t *out, const char *db, conn_path_t path);

/* The entry's build() for call, appended to out (out->n starts at 0): a copy of call->built when the dispatcher has
 * built them already, else build() runs. Every executor gets its requests through this, so build() runs once per
 * statement. Returns build()'s answer; out is the caller's to destroy either way. */
bool
sh_requests_build (const sh_call_t *call, sh_requests_t *out, sh_error_t *err);

/* How many times sh_requests_build has run a build() since the program started (tests count calls per statement). */
size_t
sh_requests_build_count (void);

/* Destroys every request and frees the list; out->n becomes 0 and out can be used again. */
void
sh_requests_destroy (sh_requests_t *out);

/* ---- argument helpers (commands/args.c), mongosh's assertArgsDefinedType ---- */

typedef enum {
   ARG_STRING = 1 << 0,
   ARG_NUMBER = 1 << 1, /* JS number: int32 or double */
   ARG_BOOL = 1 << 2,
   ARG_OBJECT = 1 << 3, /* JS typeof "object": documents, arrays, null, ObjectId, Long, dates, ... */
   ARG_ANY = 0xff,
} arg_type_t;

/* mongosh's check for argument i (0-based): missing (absent or undefined) fails with
 * "[COMMON-10001] Missing required argument at position i (Shard.method)" when required; a present argument of
 * another typeof fails with "[COMMON-10001] Argument at position i must be of type t1 or t2, got t instead
 * (Shard.method)". owner is "Shard", "Database" or "Collection"; method is the bare name. */
bool
args_check (const sh_call_t *call, int i, unsigned types, bool required, const char *owner, const char *method,
            sh_error_t *err);

/* True when argument i is present and not undefined; then *it points at it. */
bool
args_get (const sh_call_t *call, int i, bson_iter_t *it);

/* The UTF-8 string of argument i, or NULL when it is not a string. Borrowed from call->args. */
const char *
args_str (const sh_call_t *call, int i);

/* Appends argument i under key, unchanged (type and value as parsed). Does nothing when it is absent. */
void
args_append (const sh_call_t *call, int i, bson_t *doc, const char *key);

/* Where argument i is in the source (for an error's caret), or the closing parenthesis when it is absent. */
sh_pos_t
args_pos (const sh_call_t *call, int i);

/* The bare method name of the call's entry, as mongosh's messages name it: "addShardTag" for sh.addShardTag,
 * "find" for db.collection.find. */
const char *
args_method (const sh_call_t *call);

/* Builds { <name>: <argument 0> } for db and path after mongosh's check that argument 0 is a string. */
bool
args_build_string_command (const sh_call_t *call, sh_requests_t *out, const char *method, const char *name,
                           const char *db, conn_path_t path, sh_error_t *err);

/* A build(): { <method>: <argument 0> } on admin (admin path), argument 0 a string, the method named by the entry
 * (sh.addShard sends { addShard: <argument 0> }). */
bool
args_build_method_string (const sh_call_t *call, sh_requests_t *out, sh_error_t *err);

/* A build(): { <method>: <argument 0>, toShard: <argument 1> } on admin, both strings, the method named by the
 * entry (sh.moveCollection, sh.unshardCollection). */
bool
args_build_method_to_shard (const sh_call_t *call, sh_requests_t *out, sh_error_t *err);

/* Appends to cmd mongosh's adjustRunCommand ({ ...base, ...argument i }): argument i spreads over base when it is a
 * document and is ignored otherwise. */
void
args_spread_run_command (const sh_call_t *call, int i, const bson_t *base, bson_t *cmd);

/* dst = { ...base, ...opts } with JS spread semantics: a repeated key keeps its first position and takes the later
 * value; new keys follow in their own order. dst is initialised by the caller; opts may be NULL. */
void
args_spread (bson_t *dst, const bson_t *base, const bson_t *opts);

/* Points doc at the document argument i (static, borrowed from call->args). False when it is not a document. */
bool
args_doc (const sh_call_t *call, int i, bson_t *doc);

/* mongosh's adjustRunCommand: copies cmd into dst, turning the integer fields mongosh sends as doubles into doubles
 * (sampleRate of configureQueryAnalyzer and profile, size / minRetentionHours of replSetResizeOplog,
 * mirrorReads.samplingRate of setParameter). dst is initialised by the caller. */
void
args_adjust_run_command (bson_t *dst, const bson_t *cmd);

/* True when pipeline (an iterator on an array of stages) writes: a $out or $merge stage. Such an aggregate is not a
 * read under --readonly. */
bool
args_pipeline_writes (const bson_iter_t *pipeline);

/* A number (int32, int64 or double) as an integer in [min, max], a double truncated toward zero: false for NaN, the
 * infinities, anything outside the range and any other type. Every user number that becomes an integer goes through
 * this (or args_int / args_opt_int), so no conversion from double is ever undefined. */
bool
args_number_to_int (const bson_iter_t *it, int64_t min, int64_t max, int64_t *out);

/* Argument i as an integer in [min, max] into *out; absent or undefined leaves *out unchanged and returns true.
 * out may be NULL for a check alone. Otherwise false with an SH_ERR_ARGS error at the argument: "<helper>: <what> must
 * be a number from <min> to <max>, got <value>". */
bool
args_int (const sh_call_t *call, int i, int64_t min, int64_t max, const char *what, int64_t *out, sh_error_t *err);

/* The same for field key of the options document at argument i (absent, null or undefined: true, *out unchanged;
 * out may be NULL for a check alone). The caret is on argument i. */
bool
args_opt_int (const sh_call_t *call, int i, const char *key, int64_t min, int64_t max, int64_t *out, sh_error_t *err);

/* JS typeof of a BSON value: "string", "number", "boolean", "object", "undefined". */
const char *
args_typeof (const bson_iter_t *it);

/* ---- shared executors and rendering (commands/exec.c) ---- */

/* What follows a cursor's first batch when it has more, on the result stream, as mongosh prints it. */
#define CMD_MORE_HINT "Type \"it\" for more"

/* The printers below store their value in ctx->capture as { v: <value> } (and set ctx->captured) instead of printing
 * when ctx->capture is set: that is how a call from the JavaScript engine gets its result as a value. */

/* Runs build()'s requests one after another (stopping at the first failure) and prints the last reply per ret. */
bool
cmd_exec_requests (sh_ctx_t *ctx, const sh_call_t *call, sh_error_t *err);

/* The first write error (writeErrors[0]) or else the writeConcernError of a write command's reply as err
 * (SH_ERR_SERVER with the server's errmsg, code and codeName, the name looked up from the code when the server left
 * it out), as the driver throws it; true when the reply has neither. */
bool
cmd_check_write_errors (const bson_t *reply, sh_error_t *err);

/* Prints a document result (pretty or JSON per ctx->out). */
void
cmd_print_doc (sh_ctx_t *ctx, const bson_t *doc);

/* Prints a single value result (true/false, a string, a number, a document). */
void
cmd_print_value (sh_ctx_t *ctx, const bson_value_t *value);

/* mongosh's displayBatchSize: how many documents a cursor shows at a time ("it" shows the next as many). */
#define CMD_CURSOR_BATCH 20

/* Reads up to max documents of c into docs (an array document initialised by the callee in every case); *more says
 * whether the cursor may give more (mongosh's !isExhausted()). False with err set when a getMore failed. */
bool
cmd_cursor_read (conn_cursor_t *c, size_t max, bson_t *docs, bool *more, sh_error_t *err);

/* Prints a batch of a cursor as mongosh prints one (documents at full depth, then the "it" hint when more); an empty
 * batch prints an empty line as a cursor's value and "no cursor" when "it" found nothing (iteration). */
void
cmd_print_cursor_batch (sh_ctx_t *ctx, const bson_t *docs, bool more, bool iteration);

/* Prints a list of documents (an array document) as mongosh prints an array. */
void
cmd_print_array (sh_ctx_t *ctx, const bson_t *array);

/* Prints a StatsResult as mongosh does: each top-level key on its own line followed by its value, sections joined
 * by a line "---" (one JSON document under --json). one_line_key is output_opts_t's (NULL for none). */
void
cmd_print_stats (sh_ctx_t *ctx, const bson_t *stats, const char *one_line_key);

/* Runs the single cursor request of build() and prints its documents as an array (nothing under --dry-run). */
bool
cmd_exec_cursor (sh_ctx_t *ctx, const sh_call_t *call, sh_error_t *err);

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

/* ---- shared config.* reads (commands/migrations.c), also used by sh.status ---- */

/* mongosh's "yesterday": now with the local calendar date moved back one day (23 or 25 hours across DST). */
int64_t
cmd_yesterday_ms (int64_t now);

/* Appends { aggregate: "changelog", pipeline: [ $match, $group, $project ], cursor: {} } counting the moveChunk.from
 * events since since_ms: the successes, or (failures) the others grouped by errmsg, from and to. */
void
cmd_append_changelog_aggregate (bson_t *cmd, bool failures, int64_t since_ms);

/* Appends { find: "actionlog", filter: { what: "balancer.round" }, sort: { time: -1 }, limit: 5 }. */
void
cmd_append_actionlog_find (bson_t *cmd);

/* Appends { find: "locks", filter: { state: { $eq: 2 } } }. */
void
cmd_append_locks_find (bson_t *cmd);

/* Whether an actionlog round failed: details.errorOccured (mongosh reads only this spelling), or with both_spellings
 * also details.errorOccurred (6.0+). */
bool
cmd_round_failed (const bson_t *round, bool both_spellings);

/* ---- live completion values (commands/complete.c) ---- */

/* The values of an argument kind ("ns", "shard", "zone", "db", "coll" in db) as an array of strings, read from the
 * connected cluster and cached for 30 s; NULL when not connected yet, under --dry-run, or on any error. Borrowed:
 * valid until the next call or cmd_complete_reset. */
const bson_t *
cmd_complete_values (sh_ctx_t *ctx, const char *kind, const char *db);

/* Frees the cached completion values. */
void
cmd_complete_reset (void);

/* The completion kind of argument index of cmd (from arg_kinds) into buf, or NULL when it has none. */
const char *
cmd_arg_kind (const sh_cmd_t *cmd, int index, char *buf, size_t len);

/* Prints a warning line on the error stream (not part of the result). */
void
cmd_warn (sh_ctx_t *ctx, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));

#endif
