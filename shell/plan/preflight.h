/* Pre-flight and plan of a script (issue 18, docs/plan.md): a model of the cluster read with read-only queries
 * (config.shards, config.tags, config.collections, config.chunks, buildInfo, listIndexes, dataSize, config.changelog)
 * that every literal statement is checked against in script order before anything that writes is sent; each
 * statement then updates the model, so a zone added on line 3 exists for the range on line 4. Under --plan the same
 * pass prints what each statement would change and which chunks the balancer would then move. The code: the checks
 * in preflight.c, the model in pf_model.c, the plan in pf_plan.c; the record of a run that stops half way is
 * runsum.h. */
#ifndef SHARDSH_PREFLIGHT_H
#define SHARDSH_PREFLIGHT_H

#include <stdbool.h>

#include "commands/commands.h"
#include "shell/core/ctx.h"
#include "shell/core/errors.h"
#include "shell/lang/parser.h"

typedef struct preflight preflight_t;

/* Reads the cluster (read-only: config.shards, config.tags, config.collections, buildInfo) into a new model. plan:
 * print each statement's effect (to ctx->out_fp) as it is checked. Returns NULL with err set when the cluster cannot
 * be read. Free with preflight_free. */
preflight_t *
preflight_new (sh_ctx_t *ctx, bool plan, sh_error_t *err);

void
preflight_free (preflight_t *pf);

/* Checks one call (statement text stmt_text, of file at line) against the model and applies its effect. Returns
 * false with err set (at the argument that is wrong; message naming what the cluster has) when it would fail; a
 * statement that would do nothing prints a warning and passes. Reads more of the cluster when it needs to (chunks
 * of a namespace, indexes, sizes); never writes. */
bool
preflight_call (preflight_t *pf, const sh_call_t *call, bool writes, const char *file, const char *stmt_text,
                sh_error_t *err);

/* For a confirmation in a terminal: the effect of call on the cluster as the plan sees it ("move app.ev [...) 173
 * docs, 33KiB shard01 -> shard03"), or "pre-flight: <why it would fail>", into buf. False (buf empty) when nothing is
 * known or the cluster cannot be read. Reads only. */
bool
preflight_describe (sh_ctx_t *ctx, const sh_call_t *call, char *buf, size_t len);

/* The exit status of a --plan whose chunks include some that will not move (no shard can take them). */
#define PREFLIGHT_PLAN_STUCK 3

/* The exit status of a --plan that could not follow the whole script (a JavaScript input waits or polls for what a
 * held-back write does, or ran out of the pre-flight's budget): the plan covers the script up to there. Also what
 * preflight_js_t.check returns when it stopped following its input. */
#define PREFLIGHT_PLAN_PART 4

/* Under --plan: prints the closing total (and the --json plan line). */
void
preflight_plan_end (preflight_t *pf);

/* The effect the plan found for statement stmt of input input ("move [...) 45 docs, 2.6KiB shard03 -> shard01"), or
 * NULL when none; borrowed from pf (which may be NULL). */
const char *
preflight_effect (const preflight_t *pf, size_t input, size_t stmt);

/* The JavaScript inputs of a run, for preflight_scripts (the work is the JavaScript host's, shell/js/js_host.c; it is
 * handed in so that the pre-flight does not call the host, which calls the pre-flight). */
typedef struct {
   /* True when JavaScript input i may write (it names a helper that writes). */
   bool (*may_write) (void *data, size_t input);
   /* Checks JavaScript input i against pf in its place among the inputs: returns 0 to go on, 2 when it would fail
    * and 1 when the cluster could not be read (both reported on ctx->err_fp), PREFLIGHT_PLAN_PART when it stopped
    * following the input (said on ctx->err_fp: the inputs after that point are not checked). Writes nothing.
    * *wrote: in, whether a statement before it writes (its effect is in pf, not in the cluster); out, the same after
    * it. */
   int (*check) (void *data, size_t input, preflight_t *pf, bool *wrote);
   void *data;
} preflight_js_t;

/* The pre-flight of a run: when anything in scripts (n entries, NULL for a JavaScript input) writes, or under --plan,
 * reads the cluster and checks every literal statement in order (preflight_call), and every JavaScript input through
 * js (may be NULL: JavaScript inputs are not checked) in its place. Nothing runs it under --dry-run or --no-preflight
 * (unless --plan). Returns 0 to go on (*out: the model, or NULL when none was made; free it), 2 when a statement
 * would fail (reported as file:line:col), 1 when the cluster could not be read; under --plan PREFLIGHT_PLAN_STUCK
 * or PREFLIGHT_PLAN_PART (*out set). A pre-flight that stopped following a JavaScript input checks nothing after
 * it and returns 0 (the run goes on). Nothing is written. */
int
preflight_scripts (sh_ctx_t *ctx, const sh_script_t *const *scripts, size_t n, const preflight_js_t *js,
                   preflight_t **out);

/* True when zone has at least one range in the model (false without a model). */
bool
preflight_zone_has_ranges (const preflight_t *pf, const char *zone);

#endif
