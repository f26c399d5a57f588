/* Internals shared by the query engine's files (simq.c, simq_match.c, simq_expr.c, simq_update.c, simq_agg.c):
 * error helpers, value helpers, path traversal, document rebuilding and the expression evaluator. Not part of the
 * simulator's public interface (that is simq.h). */
#ifndef SHARDSIM_SIMQ_INT_H
#define SHARDSIM_SIMQ_INT_H

#include "shell/lib/hashkey.h"
#include "tests/shardsim/query/simq.h"

#include <stdarg.h>

/* Sets error (domain SIMQ_ERROR_DOMAIN, the given server code, printf-style message); always returns false. */
bool
simq_fail (bson_error_t *error, int code, const char *fmt, ...) BSON_GNUC_PRINTF (3, 4);

/* The server's type alias ("double", "string", "object", ..., "missing" for BSON_TYPE_EOD). */
const char *
simq_type_name (bson_type_t type);
bool
simq_is_number (const bson_value_t *v);
bool
simq_is_integral_number (const bson_value_t *v, int64_t *out);
/* Any number as a double (decimal128 through its string form). 0 for non-numbers. */
double
simq_to_double (const bson_value_t *v);
/* Aggregation truthiness: false, null, undefined, missing and numeric zero are false; everything else is true. */
bool
simq_truthy (const bson_value_t *v);
/* The value as relaxed extended JSON for error messages; caller frees with bson_free. */
char *
simq_value_json (const bson_value_t *v);
/* The document as relaxed extended JSON for error messages; caller frees with bson_free. */
char *
simq_doc_json (const bson_t *doc);

/* A borrowed view of an embedded document or array value. Returns false if v is neither. */
bool
simq_value_as_doc (const bson_value_t *v, bson_t *view);
/* Makes an owned document (or array) value from doc's bytes; doc is unchanged. */
void
simq_value_from_doc (const bson_t *doc, bool is_array, bson_value_t *out);
/* Owned copy, and release of owned values (both accept BSON_TYPE_EOD, the engine's "missing"). */
void
simq_value_copy (const bson_value_t *src, bson_value_t *dst);
/* Frees what v owns (strings, documents …); v itself is the caller's. */
void
simq_value_destroy (bson_value_t *v);
void
simq_value_set_missing (bson_value_t *v);
bool
simq_value_missing (const bson_value_t *v);
/* Appends v under key (missing values are skipped). */
void
simq_append_value (bson_t *doc, const char *key, int key_len, const bson_value_t *v);

/* Where the first top-level element of doc named key[0, klen) starts, found by stepping over the elements' raw bytes
 * (no decoding): 1 found (*off: its type byte, *val: its value, *size: the value's bytes), 0 absent, -1 when the walk
 * cannot tell (a malformed document, an unknown type): the caller asks libbson. simq_iter_find and simq_find_value
 * (simq.h) are built on it. */
int
simq_raw_find (const bson_t *doc, const char *key, size_t klen, uint32_t *off, uint32_t *val, uint64_t *size);
/* simq_find_value (simq.h) with key's length (strlen (key)) known: for a field read per document. */
bool
simq_find_value_n (const bson_t *doc, const char *key, size_t klen, bson_value_t *out);

/* Every value a query path reaches, the way the server's matcher traverses it: embedded documents, implicit
 * traversal of arrays of documents, numeric components as array indexes, and a leaf array contributing both itself
 * and (marked expanded) each of its elements. missing is set when some branch of the path does not exist. Values are
 * borrowed from the document. */
typedef struct {
   bson_value_t v;
   bool expanded;
} simq_pv_t;

typedef struct {
   simq_pv_t *v;
   size_t n;
   size_t cap;
   bool missing;
} simq_pvals_t;

void
simq_path_values (const bson_t *doc, const char *path, simq_pvals_t *out);
/* Frees the values pv owns (the caller owns the struct). */
void
simq_pvals_destroy (simq_pvals_t *pv);

/* Rebuilds src into dst (initialised by the callee) with path set to val: missing intermediate documents are created,
 * numeric components index into arrays (padding with nulls), an existing field keeps its position and new fields go
 * last. Fails with 28 PathNotViable when a scalar is in the way. */
bool
simq_set_path (const bson_t *src, const char *path, const bson_value_t *val, bson_t *dst, bson_error_t *error);
/* Rebuilds src into dst without path (an array element named by index becomes null, as $unset does). *found tells
 * whether anything was removed. */
void
simq_unset_path (const bson_t *src, const char *path, bson_t *dst, bool *found);

/* The expression evaluator's context. */
typedef struct simq_var {
   const char *name;
   bson_value_t value; /* owned */
   struct simq_var *next;
} simq_var_t;

typedef struct {
   const bson_t *root;    /* $$ROOT */
   const bson_t *current; /* $$CURRENT: field paths resolve here */
   const simq_env_t *env;
   simq_var_t *vars; /* $let, $map, $filter, $lookup let variables; innermost first */
} simq_ectx_t;

/* Evaluates an aggregation expression; out is owned by the caller (release with simq_value_destroy); a missing result
 * is BSON_TYPE_EOD. Unknown operators fail with 168 InvalidPipelineOperator. */
bool
simq_eval (const bson_value_t *expr, const simq_ectx_t *ctx, bson_value_t *out, bson_error_t *error);
/* A field path ("a.b", without the '$') resolved aggregation-style against doc: arrays along the way map to arrays
 * of the values found. Owned result, missing when absent. */
void
simq_eval_field_path (const bson_t *doc, const char *path, bson_value_t *out);

/* simq_match with an expression context for $expr (NULL: $expr sees doc as $$ROOT and no variables). */
bool
simq_match_ctx (const bson_t *doc, const bson_t *filter, const simq_ectx_t *ctx, bool *matched, bson_error_t *error);

/* A projection parsed once (simq_proj_new: NULL with error set when the specification is invalid) and applied to
 * many documents; simq_project_ex is new + apply + destroy. out is initialised by apply in every case. */
typedef struct simq_proj simq_proj_t;

simq_proj_t *
simq_proj_new (const bson_t *projection, bool find_syntax, bson_error_t *error);

bool
simq_proj_apply (const simq_proj_t *p, const bson_t *doc, const simq_ectx_t *ctx, bson_t *out, bson_error_t *error);

/* Frees a projection from simq_proj_new (NULL is fine). */
void
simq_proj_free (simq_proj_t *p);

/* Compiled projection shared by find and $project. */
bool
simq_project_ex (const bson_t *doc, const bson_t *projection, bool find_syntax, const simq_ectx_t *ctx, bson_t *out,
                 bson_error_t *error);

/* The first k documents of docs (borrowed, left as they are) in the order simq_sort would give them, as positions
 * in docs: *order (caller frees with bson_free) receives min (k, docs->n) of them. The same specification checks
 * and errors as simq_sort. A bounded heap: O(n log k) comparisons, and no document is copied or moved. */
bool
simq_sort_top (const simq_docs_t *docs, const bson_t *sort, size_t k, size_t **order, size_t *n, bson_error_t *error);

/* A 64-bit PRNG step (xorshift64*), for $sample. */
uint64_t
simq_rand_next (uint64_t *state);

/* ---- the aggregation stages, across simq_agg.c, simq_agg_group.c and simq_agg_lookup.c ---- */

/* Fills ctx to evaluate expressions against doc (borrowed) with env and the variables vars in scope. */
void
simq_ectx_for (const bson_t *doc, const simq_env_t *env, simq_var_t *vars, simq_ectx_t *ctx);

/* Whether the caller wants the pipeline stopped (env->interrupted), asked at every 1024th document; error set. */
bool
simq_interrupted (const simq_env_t *env, size_t i, bson_error_t *error);

/* $group (simq_agg_group.c): in grouped by the _id expression into out (owned by the caller), one document per
 * group with its accumulators. */
bool
simq_stage_group (const bson_value_t *arg, const simq_docs_t *in, const simq_env_t *env, simq_var_t *vars,
                  simq_docs_t *out, bson_error_t *error);

/* The same $group with its documents appended to arr (an array being built, empty: keys "0", "1", ...) instead of
 * into a list: the bytes that appending each of simq_stage_group's documents with bson_append_document gives, without
 * a document of its own per group. On error arr is left as it was. */
bool
simq_group_into_array (const bson_value_t *arg, const simq_docs_t *in, const simq_env_t *env, simq_var_t *vars,
                       bson_t *arr, bson_error_t *error);

/* Runs pipeline over the documents of *input, which it takes (input is left empty). */
bool
simq_run_pipeline_taking (simq_docs_t *input, const bson_t *pipeline, const simq_env_t *env, simq_var_t *vars,
                          simq_docs_t *out, bson_error_t *error);

/* Runs pipeline over the documents of input (borrowed, left as they are) into out (owned by the caller). Nothing is
 * copied up front: the first stage reads input in place, so a $match copies only its matches, a $group or $count
 * nothing, and a $sort followed by $limit only its first documents (simq_sort_top). */
bool
simq_run_pipeline (const simq_docs_t *input, const bson_t *pipeline, const simq_env_t *env, simq_var_t *vars,
                   simq_docs_t *out, bson_error_t *error);

/* Runs the stages of a pipeline after the one *at is on (the stages up to it already applied by the caller, so none
 * of the rest is the first) over input (borrowed, read in place) into out (owned by the caller). */
bool
simq_run_pipeline_after (const simq_docs_t *input, const bson_iter_t *at, const simq_env_t *env, simq_var_t *vars,
                         simq_docs_t *out, bson_error_t *error);

/* True when the pipeline element *at is a valid { $limit: n }, with n (capped at SIZE_MAX) in *k; otherwise the
 * element runs as a stage of its own and reports its own error. */
bool
simq_limit_of (const bson_iter_t *at, size_t *k);

/* The foreign-field indexes one pipeline's $lookup stages share (simq_agg_lookup.c); NULL until the first. */
typedef struct simq_lookup_cache simq_lookup_cache_t;

/* Frees a cache and its indexes (NULL is fine). */
void
simq_lookup_cache_free (simq_lookup_cache_t *cache);

/* $lookup (simq_agg_lookup.c): each document of in with the matching foreign documents as an array, into out
 * (owned by the caller). *cache (the running pipeline's, may be NULL; cache itself may be NULL for none) keeps the
 * index of the foreign collection for the pipeline's later $lookup stages on it. */
bool
simq_stage_lookup (const bson_value_t *arg, const simq_docs_t *in, const simq_env_t *env, simq_var_t *vars,
                   simq_lookup_cache_t **cache, simq_docs_t *out, bson_error_t *error);

/* $unionWith: "coll" or { coll, pipeline }: the input, then the documents of coll (in the pipeline's database) run
 * through pipeline. */
bool
simq_stage_union_with (const bson_value_t *arg, const simq_docs_t *in, const simq_env_t *env, simq_var_t *vars,
                       simq_docs_t *out, bson_error_t *error);

#endif
