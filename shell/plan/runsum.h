/* The record of a script run that stops half way (issue 18, docs/plan.md): which statements ran, which failed, which
 * did not run, and the dangerous state the ones that ran left behind. */
#ifndef SHARDSH_RUNSUM_H
#define SHARDSH_RUNSUM_H

#include <stdbool.h>

#include "commands/commands.h"
#include "shell/core/ctx.h"
#include "shell/plan/preflight.h"

typedef struct run_summary run_summary_t;

/* A new, empty record; free it with run_summary_free (NULL is allowed). */
run_summary_t *
run_summary_new (void);

void
run_summary_free (run_summary_t *rs);

/* Records that the statement at file:line ran (ok) or failed, with its call (for the state it leaves). call may be
 * NULL (a statement that is not a table call). */
void
run_summary_note (run_summary_t *rs, const char *file, int line, const sh_call_t *call, bool ok);

/* Appends what from recorded (ran, failed, did not run, the state left) after what rs holds, as if noted into rs
 * in that order: a JavaScript input's calls, recorded as they ran, in their place among the statements. */
void
run_summary_append (run_summary_t *rs, const run_summary_t *from);

/* Records a statement that did not run. */
void
run_summary_skipped (run_summary_t *rs, const char *file, int line);

/* True when the summary says more than the error itself: some statement ran before it or was left unrun. */
bool
run_summary_worth (const run_summary_t *rs);

/* Prints the summary to ctx->err_fp: which statements ran, which failed, which did not run, and a warning for every
 * dangerous state the statements that ran left behind. pf (may be NULL) tells which zones have ranges. */
void
run_summary_print (sh_ctx_t *ctx, const run_summary_t *rs, const preflight_t *pf);

#endif
