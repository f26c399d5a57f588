/* The JavaScript engine plugin's C interface. The engine (SpiderMonkey, shell/js/js_engine.cpp) is built as a shared
 * object, bin/shardsh-js.so, that the shell loads with dlopen on first need (shell/js/js_host.c): literal statements
 * never load it. The plugin does not link the shell: everything it needs from the shell (run a command-table entry,
 * print a value, the current database, Ctrl-C) comes in a js_host_t of C function pointers, and it exports one
 * function, shardsh_js_engine_api, returning its table of entry points. */
#ifndef SHARDSH_JS_ENGINE_H
#define SHARDSH_JS_ENGINE_H

#include <bson/bson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shell/core/errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever js_host_t or js_engine_api_t change: a plugin of another version is refused. */
#define JS_ENGINE_ABI 6

/* The plugin's file name, looked up beside the running executable. */
#define JS_ENGINE_PLUGIN "shardsh-js.so"

typedef struct js_engine js_engine_t;

/* cursor_next's max for "the documents already received, without a getMore" */
#define JS_CURSOR_RECEIVED ((size_t) -1)

/* One call of a command-table entry from JavaScript. Everything is borrowed for the duration of the call. */
typedef struct {
   const char *name;   /* table name: "sh.moveChunk", "db.adminCommand", "db.collection.find", "print" */
   const char *db;     /* the Database object's name; NULL: the current database */
   const char *coll;   /* the Collection object's name for db.collection.* entries, else NULL */
   const bson_t *args; /* the arguments as an array document {"0": …}; an undefined argument is BSON undefined */
   int argc;
   const bson_t *sort;      /* a cursor's .sort(doc), or NULL (.project(doc) is passed as find's second argument) */
   int64_t limit;           /* a cursor's .limit(n), 0 when absent */
   int64_t skip;            /* a cursor's .skip(n), 0 when absent */
   int64_t batch_size;      /* a cursor's .batchSize(n), 0 when absent: sent with find or aggregate and every getMore */
   const bson_t *modifiers; /* a find cursor's other options ({ hint, maxTimeMS, comment, ... }), or NULL */
   bool open_cursor; /* find/aggregate: open a live cursor; the result is { v: <cursor handle> } (see cursor_next) */
   int line;         /* where the call is in the script (1-based), 0 when unknown */
   int col;
   const char *file; /* the script of that place, as named when it was run; NULL or "": the one running */
   int conn;         /* the connection it runs on: 0 the session's, else a second one's id (new Mongo(uri)). Four names
                      * are the host's own: "Mongo.open" (args: the connection string; value: the new id),
                      * "Mongo.uri" (value: connection conn's string, its password hidden), "Node.preflight" (value:
                      * whether the pre-flight runs the script) and "Node.inspect" (args: a value and a depth; value:
                      * the value as print shows it) */
} js_call_t;

/* What the engine needs from the shell. data is passed back to every callback. */
typedef struct {
   void *data;
   /* Runs the entry through the shell's dispatch (the same checks and executor as a literal statement). On success
    * *has_result says whether result (initialised by the caller) holds { v: <the value> }. On failure err is set;
    * the engine throws it as a JavaScript exception (code and codeName kept). */
   bool (*call) (void *data, const js_call_t *call, bson_t *result, bool *has_result, sh_error_t *err);
   /* The current database's name (use <db> changes it). */
   const char *(*current_db) (void *data);
   /* Prints an expression's value the way the shell prints results; stats_key: not NULL when the value came from a
    * StatsResult (sh.status()), printed as one again, with this one-line key ("" for none). cursor: 1 when value is
    * a batch of a cursor (an array; more: the cursor has documents left, "it"), 2 when it is what "it" read. */
   void (*show) (void *data, const bson_value_t *value, bool more, const char *stats_key, int cursor);
   /* Reads up to max documents (0: the next one and those already received with it, without a further getMore) of
    * the live cursor handle into docs, an array document initialised by the callee in every case; *more: the
    * cursor may give more. False with err set when a getMore failed. max JS_CURSOR_RECEIVED: only the documents
    * already received, none asked for (the driver's bufferedCount). */
   bool (*cursor_next) (void *data, int handle, size_t max, bson_t *docs, bool *more, sh_error_t *err);
   /* Closes a cursor handle (killCursors when its server cursor is open). now false: from a finalizer, during
    * garbage collection; the host closes it at its next safe point. Unknown handles are ignored. */
   void (*cursor_close) (void *data, int handle, bool now);
   /* The session's current cursor for "it" when a literal statement made it after the engine's last cursor: take:
    * its handle, now the engine's (0: it is exhausted; -1: none, "it" continues the engine's last cursor); !take: a
    * cursor was made by the engine, the literal one is closed. */
   int (*cursor_current) (void *data, bool take);
   /* True when the script must stop now without an error: exit was run, or Ctrl-C in the interactive shell. */
   bool (*stop) (void *data);
   /* Polled from another thread while JavaScript runs: true once Ctrl-C arrived (the loop is interrupted). May be
    * NULL (scripts: Ctrl-C ends the process). Must be safe to call from any thread. */
   bool (*interrupted) (void *data);
   /* The command table's names, in order (sh.*, db.*, db.collection.*, globals): the engine's sh, Database,
    * Collection and global functions are generated from them. Borrowed for the engine's lifetime. */
   const char *const *names;
   size_t n_names;
} js_host_t;

typedef enum {
   JS_RUN_OK = 0,  /* ran to the end */
   JS_RUN_FAILED,  /* an uncaught exception: err holds it with its file:line:col */
   JS_RUN_STOPPED, /* exit, or interrupted by Ctrl-C */
} js_run_t;

typedef struct {
   int abi; /* JS_ENGINE_ABI */
   /* Creates an engine (its own SpiderMonkey context and realm; the process-wide JS_Init happens on the first call).
    * NULL with err set on failure. host is copied; its names stay borrowed. */
   js_engine_t *(*engine_new) (const js_host_t *host, sh_error_t *err);
   /* Frees the engine and everything JavaScript held. NULL is ignored. */
   void (*engine_free) (js_engine_t *engine);
   /* Compiles text (len bytes, UTF-8) as a whole script named name without running it. False with err set
    * (SH_ERR_PARSE, name's line and column) on a syntax error. */
   bool (*check) (js_engine_t *engine, const char *name, const char *text, size_t len, sh_error_t *err);
   /* Compiles and runs text as a script in the engine's global scope (variables persist between runs). With
    * show_value the script's completion value is handed to host->show (the REPL and --eval). */
   js_run_t (*run) (js_engine_t *engine, const char *name, const char *text, size_t len, bool show_value,
                    sh_error_t *err);
   /* For the REPL: true when text is a whole statement (false: an unclosed block, string or template; read on). */
   bool (*is_compilable) (js_engine_t *engine, const char *text, size_t len);
   /* Names for Tab completion starting with prefix ("db.get", "sh.is", "myVar"): up to max strings, each malloc'd
    * (the caller frees them with free). Returns how many. */
   size_t (*complete) (js_engine_t *engine, const char *prefix, char **out, size_t max);
   /* The bridge, for tests and fuzzing: converts in (a document) to a JavaScript value and back to BSON into out
    * (initialised by the callee in every case). False with err set when a value cannot be converted. */
   bool (*bson_roundtrip) (js_engine_t *engine, const bson_t *in, bson_t *out, sh_error_t *err);
   /* Evaluates expr and converts its value to BSON as { v: <value> } into out (initialised by the callee). */
   bool (*eval_to_bson) (js_engine_t *engine, const char *expr, bson_t *out, sh_error_t *err);
   /* The script (as named when it was run) of the place of the last error run or check set: the file of a function
    * an earlier run defined when the error is in it (a library's), else "" (the one run). Borrowed until the next
    * run. */
   const char *(*error_file) (js_engine_t *engine);
} js_engine_api_t;

/* The plugin's only export. */
const js_engine_api_t *
shardsh_js_engine_api (void);

#ifdef __cplusplus
}
#endif

#endif
