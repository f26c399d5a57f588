/* Dispatch: resolves a parsed statement to its command-table entry (sh.x, db.x, db.<coll>.x, use, show, help, ...),
 * then does the common work every command shares, in this order, before anything is sent: argument checks (the
 * entry's pure build), --readonly, the server-version gate, confirmation of destructive commands, and mongosh's
 * one-time mongos check. Then it runs the entry. */
#ifndef SHARDSH_DISPATCH_H
#define SHARDSH_DISPATCH_H

#include <stdbool.h>

#include "commands/commands.h"
#include "shell/core/ctx.h"
#include "shell/core/errors.h"
#include "shell/lang/parser.h"

/* Runs one statement. Returns false with err set (positions point into the statement's source) when it failed;
 * the shell goes on either way. Never exits the process (exit / quit set ctx->exit_requested). Its result goes into
 * result (initialised by the caller; what a failed call left there may be shown too) for the caller to present or
 * read; with result NULL it is presented here (sh_result_present: a watch's rounds as they come), the REPL's way. */
bool
dispatch_stmt (sh_ctx_t *ctx, const sh_stmt_t *stmt, sh_result_t *result, sh_error_t *err);

/* The checks and the run of one resolved call, shared by both front ends (literal statements and the JavaScript
 * engine): argument checks (the entry's pure build), --readonly, the server-version gate, confirmation of destructive
 * commands, mongosh's one-time mongos check, then the entry's executor, which fills result (initialised by the caller;
 * presented or read by the caller, never here). A failure without a position gets call->pos. */
bool
dispatch_call (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *result, sh_error_t *err);

/* Resolves stmt once and keeps what it resolves to in stmt->resolved (freed with the statement; pure in its text, no
 * requests), so the later steps (dispatch_check, dispatch_with_call, dispatch_stmt) do not resolve it again; a
 * statement that does not resolve keeps none (each step then resolves it and reports why). Returns true when stmt
 * belongs to the literal path: it resolves to a table entry, or it is sh.<name>(...) (whose unknown names keep the
 * literal path's "did you mean"). Anything else (a variable, a field read off a result, a cursor method the literal
 * grammar lacks) is JavaScript. No I/O. */
bool
dispatch_prepare (sh_ctx_t *ctx, sh_stmt_t *stmt);

/* One pass of checks over a script's statements before any of them runs (dispatch_check): the database a `use`
 * among them switches the statements after it to (owned), and the bytes of requests its checked statements keep for
 * their runs (at most 64 MB: the statements after that build again when they run). _init before the first statement,
 * _destroy after the last (the requests stay with their checked statements). */
typedef struct {
   char *db;
   size_t kept;
} dispatch_check_t;

void
dispatch_check_init (dispatch_check_t *chk);

void
dispatch_check_destroy (dispatch_check_t *chk);

/* A checked statement: what dispatch_check found a statement to be, carried to its run (dispatch_run). It owns the
 * requests the check built (unless the entry reads the clock, or the pass kept its 64 MB already) with the database
 * they were built for, and borrows the statement (which must outlive it: its memory may be the statement's script's).
 * Made by dispatch_check, freed by dispatch_checked_free; the script runner keeps one per literal statement from its
 * check to its run. */
typedef struct sh_checked sh_checked_t;

/* Checks that stmt, the next statement of chk's pass, names a known helper with arguments that pass its checks,
 * without sending anything, so a script with a mistake on line 40 sends nothing at all. Returns the checked statement
 * (owned by the caller), or NULL with err set when it does not pass. */
sh_checked_t *
dispatch_check (sh_ctx_t *ctx, dispatch_check_t *chk, const sh_stmt_t *stmt, sh_error_t *err);

/* Runs a checked statement as dispatch_stmt runs its statement, sending the requests its check built instead of
 * building again when it runs on the database they were built for (they are used up: a second run builds again).
 * checked stays the caller's. */
bool
dispatch_run (sh_ctx_t *ctx, sh_checked_t *checked, sh_result_t *result, sh_error_t *err);

/* Frees a checked statement and the requests it still holds; NULL is ignored. */
void
dispatch_checked_free (sh_checked_t *checked);

/* Whether call may change the cluster, the --readonly rule: the entry's readonly_if for this call's arguments, else
 * its flags (CMD_READONLY or CMD_CLIENT_ONLY mean it does not). call is borrowed. */
bool
dispatch_call_writes (const sh_call_t *call);

/* Whether stmt changes the cluster (dispatch_call_writes of its call) into *writes, from its record when it has one;
 * false with err set when it does not resolve (*writes untouched). */
bool
dispatch_stmt_writes (sh_ctx_t *ctx, const sh_stmt_t *stmt, bool *writes, sh_error_t *err);

/* What dispatch_with_call hands over: the resolved call of a statement (borrowed for the callback's length) and
 * whether it changes the cluster (not CMD_READONLY for this call). */
typedef bool (*dispatch_call_fn) (void *data, const sh_call_t *call, bool writes, sh_error_t *err);

/* Resolves stmt without sending anything and calls fn with its call; returns fn's answer, or false with err set when
 * the statement does not resolve. Used by the script pre-flight (shell/plan/preflight.c). */
bool
dispatch_with_call (sh_ctx_t *ctx, const sh_stmt_t *stmt, dispatch_call_fn fn, void *data, sh_error_t *err);

/* Compares a table entry's "since" ("6.0") with a server version triple: true when the server is at least that.
 * The one version comparison of the gate, the pre-flight and the plan. */
bool
dispatch_version_at_least (const int have[3], const char *need);

/* True when every statement of script belongs to the literal path (dispatch_prepare, which keeps what each resolves
 * to for the later steps); otherwise the text is JavaScript and goes to the engine. */
bool
dispatch_script_is_literal (sh_ctx_t *ctx, sh_script_t *script);

#endif
