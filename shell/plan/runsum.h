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

/* Records a call that ran (ok), failed, or whose reply was lost (err a network error or an interrupted wait after
 * the request went out, for a call that writes: "unknown", the server may have applied it). err may be NULL when
 * ok. Everything is borrowed. */
void
run_summary_note_call (run_summary_t *rs, const char *file, int line, const sh_call_t *call, bool ok,
                       const sh_error_t *err);

/* True when err says a request's reply was lost (the connection broke or timed out after it was sent, a reply that
 * could not be read, a wait for it cut by a signal): whether the server applied it is unknown. */
bool
run_summary_reply_lost (const sh_error_t *err);

/* Records a statement (or call) that writes and whose reply was lost: listed as "unknown — check the cluster", and
 * the state it would leave is assumed (call may be NULL). */
void
run_summary_unknown (run_summary_t *rs, const char *file, int line, const sh_call_t *call);

/* Records that a JavaScript input stopped at line (an uncaught error, a signal, quit()) with text after it that never
 * ran: "did not run: file after line N". */
void
run_summary_rest (run_summary_t *rs, const char *file, int line);

/* Records that the script reached line (a JavaScript call of any kind, print and quit too): where it stopped, when
 * it stops after. */
void
run_summary_at (run_summary_t *rs, int line);

/* The line of the last call or statement noted (ran, failed or unknown), 0 when none. */
int
run_summary_last_line (const run_summary_t *rs);

/* True when something was noted as failed or unknown. */
bool
run_summary_has_failed (const run_summary_t *rs);

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

/* Prints the summary to ctx->err_fp ("summary: ran …; failed …; unknown — check the cluster: …; did not run: …", the
 * unknown part only when there is one): which statements ran, which failed, which did not run, and a warning for every
 * dangerous state the statements that ran left behind. pf (may be NULL) tells which zones have ranges. */
void
run_summary_print (sh_ctx_t *ctx, const run_summary_t *rs, const preflight_t *pf);

#endif
