/* The shell's side of the JavaScript engine: loads the plugin (bin/shardsh-js.so, beside the executable) with dlopen
 * on first need, hands it the callbacks it runs on (a command-table entry through dispatch_call, its result as a value,
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

/* The pre-flight of JavaScript input name (text, len bytes) against pf, in its place among the inputs
 * (shell/js/js_preflight.c, docs/plan.md): the script runs with every read sent and every write checked against pf
 * (preflight_call: the model, the plan under --plan) and then run as under --dry-run (nothing sent, a synthetic
 * { ok: 1 } reply); print and printjson do nothing. A write the model refuses is thrown into the script with the
 * server's code and codeName. It stops following the script at a sleep after a held-back write, at the third
 * identical call (not a write) from one place, or past its budget (1000 calls that are not writes, 5 s of its own
 * time): a warning "followed to
 * file:line", and PREFLIGHT_PLAN_PART. Returns 0 when it ran to its end, 2 when an uncaught error refuses the script
 * (a refused write, or an error of its own: reported at file:line:col with a caret), 1 when the cluster could not be
 * read, PREFLIGHT_PLAN_PART when it stopped following it (including an uncaught error after a read that may miss
 * what a held-back write makes). *wrote: in, whether an earlier input writes (its writes are held back too); out,
 * the same including this input. Writes nothing. */
int
js_host_preflight (sh_ctx_t *ctx, const char *name, const char *text, size_t len, struct preflight *pf, bool *wrote);

/* The text (len bytes) of script name as this engine last ran it (js_host_run_script): for a place in a function
 * another input defined. False when it did not run one of that name. Borrowed until js_host_shutdown. */
bool
js_host_file_text (const char *name, const char **text, size_t *len);

/* The script of the last uncaught error's place when it is not the one that ran (an error in a function a library
 * defined: "lib.js"), else NULL. Borrowed until the next run. */
const char *
js_host_error_file (void);

/* After the pre-flight: when a pre-flight run happened, the engine is shut down so the real run starts afresh (its
 * variables and cursors are gone). */
void
js_host_preflight_done (void);

/* How a script's calls are reported (the script runner's status lines or --json objects): call is called once per
 * finished call at file:line:col (stmt: the call as text; result: its value or NULL; text: what print printed under
 * json, else NULL; everything borrowed for the call). json: one object per call, print's included; otherwise only a
 * call that changes the cluster and succeeded, and only when status_ok (a failure is reported when the script ends
 * on it, uncaught; reads get no status line). */
typedef struct {
   bool json;
   bool status_ok;
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
