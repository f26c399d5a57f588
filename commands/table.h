/* The command table's types: an entry (sh_cmd_t) with its pure build() and optional exec(), a resolved call
 * (sh_call_t), the rows of commands/table.def, lookup by name, and the one way an executor gets a call's requests
 * (sh_requests_build). A family file (zones.c, balancer.c, ...) defines its entries; registry.c lists them. */
#ifndef SHARDSH_TABLE_H
#define SHARDSH_TABLE_H

#include <bson/bson.h>
#include <stdbool.h>
#include <stdio.h>

#include "commands/effect.h"
#include "commands/requests.h"
#include "shell/core/ctx.h"
#include "shell/core/errors.h"

typedef enum {
   CMD_READONLY = 1 << 0, /* changes nothing in the cluster: allowed under --readonly */
   /* 1 << 1 was CMD_DESTRUCTIVE: what asks for confirmation is the effect of the requests now (effect.h) */
   CMD_MONGOS_CHECK = 1 << 2, /* mongosh's one-time { hello: 1 } check on the current database runs first */
   CMD_CLIENT_ONLY = 1 << 3,  /* sends nothing (help, use, print) */
   CMD_ALIAS = 1 << 4,        /* a deprecated alias: help names alias_of */
   CMD_EXTRA = 1 << 5,        /* not in mongosh: a helper shardsh adds (or brings back from the legacy shell) */
   CMD_CLOCK = 1 << 6,        /* build() reads the clock: a script's validation does not hand its requests on */
   CMD_CURSOR_AGG = 1 << 7,   /* mongosh returns an AggregationCursor (cmd_exec_cursor: the engine gets a Cursor) */
   CMD_CURSOR_CMD = 1 << 8,   /* mongosh returns a RunCommandCursor (printed as { cursorHasMore, documents }) */
} cmd_flags_t;

typedef enum {
   CMD_RET_RAW = 0, /* the whole reply document of the last request */
   CMD_RET_UPDATE,  /* an UpdateResult: { acknowledged, insertedId, matchedCount, modifiedCount, upsertedCount } */
   CMD_RET_NONE,    /* nothing is printed */
} cmd_ret_t;

struct sh_cmd;
struct sh_result; /* commands/result.h */

/* A resolved call: which entry, where it runs, its arguments and their positions. Everything is borrowed from the
 * parsed statement and the context, valid for the duration of one dispatch. */
typedef struct sh_call {
   const struct sh_cmd *cmd;
   const char *db;     /* database it runs on: the current one, or getSiblingDB's */
   const char *coll;   /* db.<coll>.<method>: the collection, else NULL */
   const bson_t *args; /* arguments as an array document ({"0": …}); never NULL */
   int argc;
   const sh_pos_t *arg_pos;    /* argc positions, or NULL */
   sh_pos_t pos;               /* the helper's name in the source */
   sh_pos_t close_pos;         /* its closing parenthesis */
   const bson_t *sort;         /* .sort(doc) after a read, or NULL */
   int64_t limit;              /* .limit(n), 0 when absent */
   int64_t skip;               /* .skip(n), 0 when absent */
   const bson_t *modifiers;    /* find's other cursor modifiers as chained ({ hint, maxTimeMS, ... }), or NULL */
   const char *terminal;       /* a cursor method ending the chain: "count", "size", "itcount"; NULL when none */
   int64_t batch_size;         /* a cursor's .batchSize(n) (the engine's cursors), 0 when absent */
   const sh_requests_t *built; /* the requests build() already made for this call (the dispatcher's checks), or
                                * NULL: sh_requests_build hands them on instead of building again */
   bool args_no_binary;        /* known to hold no binary value, so no Database object (the parser says so for the
                                * calls it reads): the dispatcher's check does not look; false: it looks */
} sh_call_t;

/* Pure: turns a call into requests appended to out (out->n starts at 0; each request's cmd is initialised by the
 * builder). No I/O. On bad arguments returns false with err set (SH_ERR_ARGS, a caret on the argument); the caller
 * destroys whatever requests were initialised either way (sh_requests_destroy). */
typedef bool (*cmd_build_fn) (const sh_call_t *call, sh_requests_t *out, sh_error_t *err);

/* Effectful: runs the call (sending) and fills result (sh_result_t, commands/result.h: initialised by the caller,
 * empty; the caller presents it or takes it as a value), never printing it. Returns false with err set on failure
 * (result may hold a part, not shown); never exits. */
typedef bool (*cmd_exec_fn) (sh_ctx_t *ctx, const sh_call_t *call, struct sh_result *result, sh_error_t *err);

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
   bool (*readonly_if) (const sh_call_t *call); /* when set, decides CMD_READONLY per call */
   const char *not_found_hint;                  /* appended to a CommandNotFound (59) error, as mongosh appends it */
   int dbref_arg;                               /* 1-based position of an argument that may be a Database object (db or
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
   cmd_effect_t effect; /* what it does to the cluster (effect.h); CMD_EFFECT_ARGS when its arguments decide */
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

/* Writes docs/commands.md (the reference generated from the table; `make docs`) to out. */
void
sh_cmd_write_markdown (FILE *out);

/* Writes the COMMANDS section of docs/shardsh.1 (usage and summary of every entry, as man page text) to out: what
 * `make docs` puts between the page's generated-section markers. */
void
sh_cmd_write_man (FILE *out);

/* The entry's build() for call, appended to out (out->n starts at 0): a copy of call->built when the dispatcher has
 * built them already, else build() runs. Every executor gets its requests through this, so build() runs once per
 * statement. Returns build()'s answer; out is the caller's to destroy either way. */
bool
sh_requests_build (const sh_call_t *call, sh_requests_t *out, sh_error_t *err);

/* How many times sh_requests_build has run a build() since the program started (tests count calls per statement). */
size_t
sh_requests_build_count (void);

#endif
