/* Dispatch: resolves a parsed statement to its command-table entry (sh.x, db.x, db.<coll>.x, use, show, help, ...),
 * then does the common work every command shares, in this order, before anything is sent: argument checks (the
 * entry's pure build), --readonly, the server-version gate, confirmation of destructive commands, and mongosh's
 * one-time mongos check. Then it runs the entry. */
#ifndef SHARDSH_DISPATCH_H
#define SHARDSH_DISPATCH_H

#include <stdbool.h>

#include "ctx.h"
#include "errors.h"
#include "parser.h"

/* Runs one statement. Returns false with err set (positions point into the statement's source) when it failed;
 * the shell goes on either way. Never exits the process (exit / quit set ctx->exit_requested). */
bool
dispatch_stmt (sh_ctx_t *ctx, const sh_stmt_t *stmt, sh_error_t *err);

/* Checks that every statement of a script names a known helper with arguments that pass its checks, without
 * sending anything, so a script with a mistake on line 40 sends nothing at all. Returns false with err set at the
 * first bad statement. */
bool
dispatch_validate (sh_ctx_t *ctx, const sh_stmt_t *stmt, sh_error_t *err);

#endif
