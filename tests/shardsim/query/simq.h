/* The simulated cluster's query engine: MongoDB's value ordering, matching, projection, sorting, update operators
 * and aggregation stages over in-memory BSON documents. Pure: no I/O, no globals, no threads. Errors carry the
 * server's error code in bson_error_t.code (domain SIMQ_ERROR_DOMAIN) and the server's message wording, so the
 * command layer can answer { ok: 0, errmsg, code, codeName } exactly as a mongos would. */
#ifndef SHARDSIM_SIMQ_H
#define SHARDSIM_SIMQ_H

#include <bson/bson.h>

#include "shell/lib/order.h"
#include <stdbool.h>
#include <stdint.h>

#define SIMQ_ERROR_DOMAIN 9100

/* A growable array of owned documents. */
typedef struct {
   bson_t **v;
   size_t n;
   size_t cap;
} simq_docs_t;

void
simq_docs_init (simq_docs_t *docs);
/* Appends a copy of doc. */
void
simq_docs_push_copy (simq_docs_t *docs, const bson_t *doc);
/* Appends doc itself; docs takes ownership (doc must come from bson_new / bson_copy). */
void
simq_docs_push_owned (simq_docs_t *docs, bson_t *doc);
/* Destroys every document and the array; leaves docs empty and reusable. */
void
simq_docs_clear (simq_docs_t *docs);

/* The server's codeName for a code ("BadValue" for 2, "Location40324" for codes without a name). Static string. */
const char *
simq_code_name (int code);

/* A 64-bit hash of a value consistent with order_values (shell/lib/order.h): values it calls equal (1, 1.0,
 * NumberLong(1) and NumberDecimal("1"); "a" and Symbol("a"); documents field by field) hash alike. For hash sets and
 * maps whose equality is the comparison's (the store's _id index, $group). */
uint64_t
simq_hash_value (const bson_value_t *v);

/* An open-addressing multimap from 64-bit hashes to non-zero values (pointers, indexes + 1), with linear probing and
 * backward-shift deletion. It stores no keys: callers walk the candidates of a hash with simq_htab_next and decide
 * equality themselves. Not thread-safe (callers hold whatever lock guards the data the values designate). */
typedef struct {
   uint64_t hash;
   uintptr_t val; /* 0: empty slot */
} simq_hslot_t;

typedef struct {
   simq_hslot_t *slots;
   size_t cap; /* a power of two, or 0 before the first insertion */
   size_t n;
} simq_htab_t;

void
simq_htab_init (simq_htab_t *t);
void
simq_htab_destroy (simq_htab_t *t);
/* Adds (hash, val); val must not be 0. Duplicates are kept (a multimap). */
void
simq_htab_add (simq_htab_t *t, uint64_t hash, uintptr_t val);
/* The next value stored under hash, or 0 when there is none left. *probe starts at 0 and is advanced by each call. */
uintptr_t
simq_htab_next (const simq_htab_t *t, uint64_t hash, size_t *probe);
/* Removes one (hash, val) pair; false when absent. */
bool
simq_htab_remove (simq_htab_t *t, uint64_t hash, uintptr_t val);

/* bson_iter_init_find (iter, doc, key) (the first element named key, *iter on it), walking the document's bytes
 * instead of decoding each element before it; a document it cannot walk goes to bson_iter_init_find itself. */
bool
simq_iter_find (bson_iter_t *iter, const bson_t *doc, const char *key);
/* The value of the first element named key, as bson_iter_value gives it (borrowed from doc), through the same walk
 * (decoded in place for the common types); false when absent. */
bool
simq_find_value (const bson_t *doc, const char *key, bson_value_t *out);

/* Looks up a dotted path ("details.note", "min.uid"). On success *out borrows from doc (valid while doc lives).
 * Returns false when the path is absent. Arrays on the path are not expanded here. */
bool
simq_get_path (const bson_t *doc, const char *path, bson_value_t *out);

/* Evaluates a query filter against doc: equality (with array element matching), $eq $ne $gt $gte $lt $lte $in $nin
 * $exists $regex (+$options) $and $or $nor $not $elemMatch $size $type $all, dotted paths. Unknown operators
 * fail with code 2 (BadValue) "unknown operator: $x". */
bool
simq_match (const bson_t *doc, const bson_t *filter, bool *matched, bson_error_t *error);

/* Applies a find projection (inclusion or exclusion, _id rules, dotted paths) to doc; out is initialised by the
 * callee in every case and destroyed by the caller. Mixing inclusion and exclusion fails with the server's error. */
bool
simq_project (const bson_t *doc, const bson_t *projection, bson_t *out, bson_error_t *error);

/* Stable in-place sort of docs by a sort specification such as { min: 1 } or { time: -1, _id: 1 }. */
bool
simq_sort (simq_docs_t *docs, const bson_t *sort, bson_error_t *error);

/* Applies an update (operators $set $unset $inc $push $addToSet $pull $setOnInsert $min $max $currentDate $rename,
 * or a replacement document) to doc. out is initialised by the callee and destroyed by the caller. *modified tells
 * whether anything changed. is_insert is true when building an upsert's new document ($setOnInsert applies). */
bool
simq_apply_update (const bson_t *doc, const bson_t *update, bool is_insert, bson_t *out, bool *modified,
                   bson_error_t *error);

/* The seed document of an upsert: the equality fields of query (as the server extracts them). out is initialised by
 * the callee. */
void
simq_upsert_seed (const bson_t *query, bson_t *out);

/* What the aggregation engine asks of its caller. Every callback may be NULL. */
typedef struct {
   void *ud;
   /* For $lookup: the documents of collection coll in the pipeline's database; borrowed, and unchanged while the
    * pipeline runs (a pipeline's $lookup stages keep an index of them). Return false if absent (then the lookup sees
    * an empty collection). */
   bool (*collection) (void *ud, const char *coll, const simq_docs_t **docs);
   /* For $lookup's equality on a top-level foreignField, answered from the caller's own indexes (as the server's
    * { uuid: 1, min: 1 } index on config.chunks answers it) instead of collection (): a superset of the documents of
    * coll that { field: v } matches (v a single value, never null, undefined or missing), as raw BSON (length
    * first) in *docs[0, *n), borrowed and unchanged while the pipeline runs. In the collection's order when
    * order_field is NULL; else in the order a stable ascending sort on the top-level field order_field gives the
    * collection's order (the order $sort { <order_field>: 1 } gives the matches). The engine tests every document
    * itself, so the superset may hold others, unless *exact is set (every one of them matches). Return false when it
    * cannot answer that (the engine then asks collection () and scans). */
   bool (*equal_docs) (void *ud, const char *coll, const char *field, const bson_value_t *v, const char *order_field,
                       const uint8_t *const **docs, size_t *n, bool *exact);
   /* For stages the engine does not implement itself ($collStats, $shardedDataDistribution, $currentOp,
    * $listClusterCatalog, ...). Return 1 when handled (out filled from in), 0 when the stage is unknown (the engine
    * then fails with 40324 "Unrecognized pipeline stage name: '$x'"), -1 on error (error set). */
   int (*stage) (void *ud, const bson_t *stage, const simq_docs_t *in, simq_docs_t *out, bson_error_t *error);
   int64_t now_ms; /* $$NOW, milliseconds since the epoch */
   /* Asked every 1024 documents by the long stages: true (error set) stops the pipeline with that error (the
    * simulator's shutdown, or a client that went away). */
   bool (*interrupted) (void *ud, bson_error_t *error);
} simq_env_t;

/* Runs pipeline (an array document) over input; out must be initialised by the caller (simq_docs_init) and receives
 * owned results. Stages: $match $group ($sum $avg $first $last $push $addToSet $min $max $count) $project
 * $addFields/$set $unset $sort $limit $skip $unwind $lookup $count $facet $unionWith $sample $replaceRoot $documents,
 * plus the caller's stage hook. Expressions: field paths, $literal, $ifNull, $cond, $eq/$ne/$gt/..., $and/$or/$not,
 * $add, $subtract, $multiply, $divide, $toHashedIndexKey, $concat, $size, $type, $arrayElemAt, $first/$last. An
 * unsupported stage or operator fails with the server's code (40324 for a stage, 168 InvalidPipelineOperator for an
 * expression operator), never a silently wrong answer. */
bool
simq_aggregate (const simq_docs_t *input, const bson_t *pipeline, const simq_env_t *env, simq_docs_t *out,
                bson_error_t *error);

/* simq_aggregate over documents it takes from *input (left empty, freed on every path) instead of copying them: for
 * callers that built the input for this pipeline only. */
bool
simq_aggregate_taking (simq_docs_t *input, const bson_t *pipeline, const simq_env_t *env, simq_docs_t *out,
                       bson_error_t *error);

#endif
