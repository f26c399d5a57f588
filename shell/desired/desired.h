/* Sharding as code (issue 34, docs/desired-state.md): a spec file in mongosh's literal syntax saying how a cluster's
 * sharding should be (zones, ranges, collections and their balancing, balancer settings, draining shards), checked
 * here before anything is read; --export prints the live cluster's spec, --diff the statements that would make the
 * cluster match a spec, with --plan's estimate of what the balancer would then move. The spec check is spec.c, the
 * cluster's spec export.c, the comparison diff.c. */
#ifndef SHARDSH_DESIRED_H
#define SHARDSH_DESIRED_H

#include <bson/bson.h>
#include <stdbool.h>

#include "shell/core/ctx.h"
#include "shell/core/errors.h"

/* Exit codes of --diff: no drift, a connection or server error, a spec that is invalid (nothing was read from the
 * cluster), and drift (as `terraform plan -detailed-exitcode` tells drift apart; 3, since shardsh uses 2 for "not
 * run"). */
enum { DESIRED_NO_DRIFT = 0, DESIRED_ERROR = 1, DESIRED_INVALID = 2, DESIRED_DRIFT = 3 };

/* Parses and checks the spec text (name: the file, for errors) into out, its canonical form (the keys the spec
 * gives, in the order export prints them: shards and collections sorted by name, zone lists sorted, ranges sorted by
 * min). out is initialised by the callee and destroyed by the caller in every case. False with err set at the
 * offending value's position (kind SH_ERR_PARSE, message naming what was expected) when the spec is invalid. Reads
 * nothing from anywhere. */
bool
desired_spec_parse (const char *name, const char *text, size_t len, bson_t *out, sh_error_t *err);

/* Reads the live cluster's spec (read-only: config.shards, config.tags, config.collections, config.settings) into
 * out, in the canonical form desired_spec_parse gives (every field present). out is initialised by the callee and
 * destroyed by the caller. False with err set when the cluster cannot be read. */
bool
desired_export_read (sh_ctx_t *ctx, bson_t *out, sh_error_t *err);

/* Prints spec (canonical form) as a spec file, or as one JSON line under --json, to ctx->out_fp. */
void
desired_spec_print (sh_ctx_t *ctx, const bson_t *spec);

/* --export: reads the cluster and prints its spec. Returns DESIRED_NO_DRIFT, or DESIRED_ERROR (reported). */
int
desired_export (sh_ctx_t *ctx);

/* Runs a script text through the plan (--plan's pass: checks, prints each statement's effect and the moves; sends
 * nothing that writes). Handed in by the front end so that this folder does not call the script runner. Returns the
 * runner's exit code. */
typedef int (*desired_plan_fn) (sh_ctx_t *ctx, const char *name, const char *text);

/* --diff FILE: checks the spec (DESIRED_INVALID, reported as file:line:col, before anything is read), reads the
 * cluster, prints every difference as the statement that fixes it (expensive ones marked with their cost) and hands
 * them to plan for the move estimate. Returns one of the DESIRED_* codes. */
int
desired_diff (sh_ctx_t *ctx, const char *file, desired_plan_fn plan);

/* --apply FILE: the diff (expensive changes only when the spec marks them, allowReshard/allowDrain, and
 * --allow-expensive is given), printed, then its statements run through run (the script runner: pre-flight,
 * confirmations, status lines, the summary of a run that stops half way). Nothing is sent when there is no drift, so
 * a second apply writes nothing; an interrupted apply is finished by the next, which diffs again. Returns
 * DESIRED_NO_DRIFT when everything was applied, DESIRED_DRIFT when a difference was left (no statement fixes it, or an
 * expensive change was left out), DESIRED_INVALID for an invalid spec or a statement the pre-flight refused (nothing
 * written), DESIRED_ERROR when the cluster could not be read or a statement failed. */
int
desired_apply (sh_ctx_t *ctx, const char *file, desired_plan_fn run);

#endif
