/* The shard-key advisor's analysis (sh.adviseShardKey): pure functions from a bounded sample of documents, a
 * candidate key, the collection's chunk map and the cluster's shards to figures (cardinality, frequency,
 * monotonicity, predicted write spread, query targeting) and a verdict in the seed documents' terms. No I/O, no
 * globals: commands/advisor.c samples through the connection and calls these. Memory is bounded by the sample:
 * each analysis holds one extracted key per sampled document and frees it before returning. */
#ifndef SHARDSH_ADVISOR_MODEL_H
#define SHARDSH_ADVISOR_MODEL_H

#include <bson/bson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ADVISOR_MCV 5       /* most common values reported, as analyzeShardKey's mostCommonValues */
#define ADVISOR_NAME_LEN 64 /* shard names */
#define ADVISOR_VERDICT_LEN 1024

#define ADVISOR_MAX_FIELDS 16 /* key fields analysed */

/* One chunk of a chunk map: bounds over the full shard key as config.chunks stores them (MinKey/MaxKey allowed,
 * hashed fields as NumberLong hashes), and the shard that owns it. */
typedef struct {
   bson_t min;
   bson_t max;
   char shard[ADVISOR_NAME_LEN];
} advisor_chunk_t;

/* What the cluster looks like. Everything is borrowed. */
typedef struct {
   const bson_t *key;             /* the collection's current shard key, NULL when it is not sharded */
   const advisor_chunk_t *chunks; /* its chunks sorted by min (ignored unless key is set) */
   size_t nchunks;
   const char *const *shards; /* the cluster's shard names */
   size_t nshards;
   int64_t chunk_bytes; /* the size at which the balancer splits a chunk (0: 128 MiB) */
} advisor_cluster_t;

/* What was read from the collection. Everything is borrowed. */
typedef struct {
   const bson_t *docs;    /* the $sample, an array document { "0": doc, … } in any order */
   const bson_t *recent;  /* the newest documents in insertion (natural) order, oldest first, or NULL: used for
                           * monotonicity when the sample's _id values are not all ObjectIds */
   const bson_t *queries; /* sampled queries, an array of { filter: doc, write: bool }, or NULL */
   int64_t total_docs;    /* documents in the collection, 0 when unknown */
} advisor_sample_t;

/* Thresholds behind the findings. advisor_limits_default() gives the documented values. */
typedef struct {
   int64_t low_cardinality; /* at most this many distinct values (estimated): too few chunks (1000) */
   double hot_share;        /* a value holding at least this share of documents is hot (0.05) */
   double monotonic;        /* |rank correlation| with insertion order at which a key is monotonic (0.7, the
                             * server's analyzeShardKey threshold) */
   double skew;             /* a shard receiving more than skew / nshards of the next inserts is a hotspot (1.5) */
} advisor_limits_t;

typedef enum {
   ADVISOR_ORDER_NONE = 0, /* insertion order unknown: monotonicity unknown */
   ADVISOR_ORDER_OBJECTID, /* from the ObjectId of _id (its time, then its counter) */
   ADVISOR_ORDER_NATURAL,  /* from the natural order of the newest documents */
} advisor_order_t;

typedef enum {
   ADVISOR_MONO_UNKNOWN = 0,
   ADVISOR_MONO_NOT,
   ADVISOR_MONO_ASCENDING,
   ADVISOR_MONO_DESCENDING,
} advisor_mono_t;

/* Findings: a bit set, each tied to a passage of the seed documents (see docs/advisor.md). */
enum {
   ADVISOR_F_ARRAY = 1 << 0,             /* arrays in a key field: sh.shardCollection fails */
   ADVISOR_F_MISSING = 1 << 1,           /* documents without the key: they all share the null value */
   ADVISOR_F_FEWER_THAN_SHARDS = 1 << 2, /* fewer distinct values than shards */
   ADVISOR_F_LOW_CARDINALITY = 1 << 3,   /* few distinct values: few chunks, adding shards will not help */
   ADVISOR_F_HOT_VALUES = 1 << 4,        /* common values: their chunks cannot be split and become jumbo */
   ADVISOR_F_JUMBO_NOW = 1 << 5,         /* the most common value already holds more than a chunk's size */
   ADVISOR_F_MONOTONIC = 1 << 6,         /* grows or shrinks with insertion order: one chunk takes every insert */
   ADVISOR_F_WRITE_SKEW = 1 << 7,        /* the next inserts concentrate on one shard */
   ADVISOR_F_SCATTER = 1 << 8,           /* sampled queries would mostly go to every shard */
   ADVISOR_F_HASHED_RANGES = 1 << 9,     /* hashed: range queries on the field go to every shard */
   ADVISOR_F_NO_SAMPLE = 1 << 10,        /* nothing was sampled */
};

typedef struct {
   bson_t value; /* { <field>: <value>, … } in key order (raw values, not hashes) */
   int64_t count;
   double share;
} advisor_mcv_t;

typedef struct {
   char shard[ADVISOR_NAME_LEN];
   double share; /* of the predicted next inserts */
} advisor_spread_t;

/* The figures of one candidate, its verdict and its rank score. Released with advisor_result_destroy. */
typedef struct {
   bson_t key;       /* the candidate, e.g. { ts: 1 } or { ts: "hashed" } */
   char origin[128]; /* "index ts_1", "given", "hashed variant of { ts: 1 }", … */
   bool hashed;      /* one of its fields is hashed */
   int64_t sampled;  /* documents analysed */
   int64_t missing;  /* documents where a key field is absent (treated as null, as the server does) */
   int64_t arrays;   /* documents with an array in a key field */

   /* cardinality */
   int64_t distinct_sampled;   /* distinct key values among the sampled documents */
   int64_t distinct_estimated; /* estimated in the whole collection (Chao1; total_docs when all were unique) */
   bool all_unique;            /* no value repeated in the sample */

   /* frequency */
   advisor_mcv_t mcv[ADVISOR_MCV];
   size_t nmcv;
   size_t nhot;           /* values holding at least hot_share (counted among the first ADVISOR_MCV) */
   double hot_share;      /* their combined share */
   int64_t avg_doc_bytes; /* mean BSON size of the sampled documents */
   int64_t jumbo_at_docs; /* collection size (documents) at which the top value fills a chunk; 0 none */

   /* monotonicity */
   advisor_order_t order;
   double correlation; /* Spearman rank correlation of key and insertion order (0 when unknown) */
   advisor_mono_t mono;

   /* predicted write spread over the shards */
   advisor_spread_t *spread; /* one per shard, in the cluster's shard order */
   size_t nspread;
   bool spread_actual;       /* under the collection's chunk map (else a hypothetical even split) */
   bool spread_extrapolated; /* monotonic: every next insert lands beyond the newest value */
   int shards_reached;       /* shards receiving any of the next inserts */
   double max_shard_share;

   /* query targeting from sampled queries */
   int64_t reads, writes;
   double read_single, read_multi, read_scatter;    /* percentages */
   double write_single, write_multi, write_scatter; /* percentages */

   /* verdict */
   unsigned findings;
   int score; /* 0 … 100, higher is better */
   char verdict[ADVISOR_VERDICT_LEN];

   /* the server's analyzeShardKey (7.0+), beside shardsh's figures */
   bool has_server;
   bson_t server;         /* { numDocsSampled, numDistinctValues, topFrequency, monotonicity, … } or
                           * { error } */
   char server_note[512]; /* agreement, or why the figures differ */
} advisor_result_t;

/* The documented thresholds. */
advisor_limits_t
advisor_limits_default (void);

/* Whether pattern is a key shardsh can analyse: fields of 1 or "hashed" (at most one hashed), no $-fields. On false
 * writes why into why (may be NULL). */
bool
advisor_key_valid (const bson_t *pattern, char *why, size_t why_len);

/* Whether an index key pattern (from listIndexes) could back a shard key as it is: every field 1 (or 1.0) or one
 * "hashed"; not text, 2d, 2dsphere, wildcard or descending. On true out (initialised by the callee) is the shard
 * key it backs. */
bool
advisor_key_from_index (const bson_t *index_key, bson_t *out);

/* The key value of doc under pattern: { <field>: <value or its hash>, … }; out is initialised by the callee.
 * *missing / *array (may be NULL) tell whether a field was absent (then null) or held an array. */
void
advisor_extract_key (const bson_t *doc, const bson_t *pattern, bson_t *out, bool *missing, bool *array);

/* Analyses one candidate. out is initialised by the callee in every case (release with advisor_result_destroy).
 * Returns false, with why filled, only for an invalid key pattern. The verdict and score are filled by
 * advisor_rank, which needs every candidate. */
bool
advisor_analyze (const advisor_sample_t *sample, const bson_t *key, const char *origin,
                 const advisor_cluster_t *cluster, const advisor_limits_t *limits, advisor_result_t *out, char *why,
                 size_t why_len);

/* Releases what advisor_analyze allocated in r (its key, values, spread and server reply). */
void
advisor_result_destroy (advisor_result_t *r);

/* The variants the seed documents recommend for what the analysed candidates show: a hashed version of a monotonic
 * field, { coarse: 1, field: 1 } for a monotonic field, { field: 1, fine: 1 } for a low-cardinality or hot field.
 * Skips keys already among results. Appends up to max keys to keys (each initialised by the callee) with their
 * origin text; returns how many. */
size_t
advisor_variants (const advisor_result_t *results, size_t n, bson_t *keys, char (*origins)[128], size_t max);

/* Scores every result, writes its verdict (naming the variants to consider) and sorts best first. */
void
advisor_rank (advisor_result_t *results, size_t n, size_t nshards, const advisor_limits_t *limits);

/* Places the server's analyzeShardKey reply (or its error, when error is set) beside r's figures and explains any
 * disagreement in r->server_note. reply may be NULL when error is set. */
void
advisor_attach_server (advisor_result_t *r, const bson_t *reply, const char *error);

/* The figures of r as a document for --json; out is initialised by the callee. */
void
advisor_result_to_bson (const advisor_result_t *r, bson_t *out);

/* v with thousands separators into buf ("1,234,567"), truncated to len; returns buf. */
const char *
advisor_count_string (int64_t v, char *buf, size_t len);

/* A key pattern as the verdicts write it: {ts: "hashed"}, {customer: 1, ts: 1}. Caller frees with bson_free. */
char *
advisor_key_string (const bson_t *key);

/* Whether a and b have the same fields in the same order, hashed in the same place. */
bool
advisor_same_pattern (const bson_t *a, const bson_t *b);

/* How many fields pattern has. */
int
advisor_field_count (const bson_t *pattern);

/* The first field's name of pattern (borrowed from it), or "". */
const char *
advisor_first_field (const bson_t *pattern);

/* Whether a key pattern value (at it) is "hashed". */
bool
advisor_is_hashed (const bson_iter_t *it);

/* Whether pattern has a hashed field; *first (may be NULL) says whether it is the first field. */
bool
advisor_pattern_hashed (const bson_t *pattern, bool *first);

#endif
