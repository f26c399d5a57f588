/* The shell's side of the JavaScript engine: loads the plugin (bin/shardsh-js.so, beside the executable) with dlopen
 * on first need, hands it the callbacks it runs on (a command-table entry through dispatch_call in capture mode,
 * printing a value, the current database, Ctrl-C) and runs scripts in it. Literal statements never come here. */
#ifndef SHARDSH_JS_HOST_H
#define SHARDSH_JS_HOST_H

#include <stdbool.h>
#include <stddef.h>

#include "shell/core/ctx.h"
#include "shell/core/errors.h"
#include "shell/js/js_engine.h"
#include "shell/plan/runsum.h"

/* The engine for ctx, loading the plugin and creating the engine on the first call; NULL with err set when the plugin
 * is missing or cannot start (the literal path keeps working). The engine lives until js_host_shutdown. */
js_engine_t *
js_host_engine (sh_ctx_t *ctx, sh_error_t *err);

/* The plugin's entry points once js_host_engine has succeeded, else NULL. */
const js_engine_api_t *
js_host_api (void);

/* True when the engine has been started (the REPL asks before offering its completions). */
bool
js_host_started (void);

/* Compiles text as a whole script named name without running it. False with err set (SH_ERR_PARSE with the position)
 * on a syntax error, or when the engine is not available. */
bool
js_host_check (sh_ctx_t *ctx, const char *name, const char *text, size_t len, sh_error_t *err);

/* Runs text in the engine (variables persist across runs); with show_value the completion value is printed as the
 * shell prints results. Returns JS_RUN_OK, JS_RUN_FAILED (err set) or JS_RUN_STOPPED (exit or Ctrl-C). */
js_run_t
js_host_run (sh_ctx_t *ctx, const char *name, const char *text, size_t len, bool show_value, sh_error_t *err);

/* How many completion values js_host_run has printed since the process started: standard input read as mongosh reads
 * it prints an empty line after a statement whose value is undefined (shell/repl.c). */
size_t
js_host_values_shown (void);

/* True when text (JavaScript) may write: it names, as a word, a helper of the command table that can change the
 * cluster (the engine reaches the cluster through the table only; a name built at run time is not seen). */
bool
js_host_may_write (const char *text, size_t len);

/* The pre-flight of JavaScript input name (text, len bytes) against pf, in its place among the inputs: the script runs
 * with every read sent and every write checked against pf (preflight_call: the model, the plan under --plan) and then
 * run as under --dry-run (nothing sent, a synthetic { ok: 1 } reply); print, printjson and sleep do nothing. It
 * assumes the script does not depend on what its writes return. Returns 0 to go on, 2 when a write would fail or the
 * script stops on an error (reported at file:line:col with a caret), 1 when the cluster could not be read. After
 * JS_HOST_PREFLIGHT_CALLS calls it stops following the script, with a warning, and returns 0. *wrote: in, whether an
 * earlier input writes (then an error may come from a held-back write: a warning, not a failure, unless it is an
 * undefined name); out, the same including this input. Writes nothing. */
int
js_host_preflight (sh_ctx_t *ctx, const char *name, const char *text, size_t len, struct preflight *pf, bool *wrote);

/* After the pre-flight: when a pre-flight run happened, the engine is shut down so the real run starts afresh (its
 * variables and cursors are gone). */
void
js_host_preflight_done (void);

/* How a script's calls are reported (the script runner's status lines or --json objects): call is called once per
 * finished call at file:line:col (stmt: the call as text; result: its value or NULL; text: what print printed under
 * json, else NULL; everything borrowed for the call). json: one object per call, print's included; otherwise entries
 * that send nothing are not reported. */
typedef struct {
   bool json;
   void (*call) (void *arg, sh_ctx_t *ctx, const char *file, int line, int col, const char *stmt, bool ok,
                 const sh_error_t *err, const bson_value_t *result, const char *text);
   void *arg;
} js_host_report_t;

/* js_host_run for a script input named name (a -f file, "<eval>"): every command-table call it makes names
 * name:line (--dry-run's requests print "[dry-run] name:line db {...}") and, when report is set, is reported through
 * it. rs (may be NULL) records every call that sends something, ran or failed, and an uncaught error of the
 * JavaScript itself as failed at its line. name, report and rs are borrowed for the run. */
js_run_t
js_host_run_script (sh_ctx_t *ctx, const char *name, const char *text, size_t len, bool show_value,
                    const js_host_report_t *report, run_summary_t *rs, sh_error_t *err);

/* For the REPL: true when text is a complete JavaScript statement (also when the engine is not available). */
bool
js_host_is_compilable (sh_ctx_t *ctx, const char *text, size_t len);

/* Frees the engine (before mongoc_cleanup); the plugin stays loaded. */
void
js_host_shutdown (void);

#endif
