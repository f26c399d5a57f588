/* One sharded collection's section of sh.status (status_coll.c), for status.c (the phases, the result, printing).
 * status_coll.c calls nothing of status.c. Private to them. */
#ifndef SHARDSH_STATUS_COLL_H
#define SHARDSH_STATUS_COLL_H

#include <bson/bson.h>
#include <stdbool.h>

#include "shell/core/ctx.h"
#include "shell/core/errors.h"

#define STATUS_MAX_ROWS 20
#define STATUS_TOO_MANY_CHUNKS "too many chunks to print, use verbose if you want to force print"
#define STATUS_TOO_MANY_TAGS "too many tags to print, use verbose if you want to force print"

/* What sh.status prints of one collection, as config.* gave it: chunk counts per shard ({shard, nChunks} sorted by
 * shard), the first chunks by min (at most 21 unless verbose) and the first zone ranges by min (at most 20 unless
 * verbose). Borrowed arrays. */
typedef struct {
   const bson_t *counts, *chunks, *tags;
} status_coll_rows_t;

/* Appends "<ns>": { shardKey, unique, balancing, allowMigrations, chunkMetadata, chunks, tags } to colls from rows
 * (coll is the config.collections document). */
void
status_collection_render (const bson_t *coll, const status_coll_rows_t *rows, bool verbose, bson_t *colls);

/* The same from mongosh's three reads for this collection (4.4 metadata, verbose). */
bool
status_collection (sh_ctx_t *ctx, const char *cfg, const bson_t *coll, bool verbose, bson_t *colls, sh_error_t *err);

/* True when status_aggregate_rows can stand in for status_collection's reads (collections: config.collections). */
bool
status_can_aggregate (const bson_t *collections, bool verbose);

/* One aggregate over cfg's config.collections: docs receives { _id, counts, chunks, tags } per sharded collection,
 * in _id order (an array document the caller destroys). */
bool
status_aggregate_rows (sh_ctx_t *ctx, const char *cfg, bson_t *docs, sh_error_t *err);

/* status_aggregate_rows' result by namespace, for looking each collection up without a scan. Borrows docs. */
typedef struct {
   const char *ns;
   const uint8_t *data; /* the { _id, counts, chunks, tags } document */
   uint32_t len;
} status_rows_entry_t;

typedef struct {
   status_rows_entry_t *v; /* sorted by ns (strcmp) */
   size_t n;
} status_rows_index_t;

/* Indexes docs (status_aggregate_rows' result, which must outlive ix); release with status_rows_index_destroy. */
void
status_rows_index_init (status_rows_index_t *ix, const bson_t *docs);

void
status_rows_index_destroy (status_rows_index_t *ix);

/* Points rows (and counts, chunks, tags, static views into the indexed docs) at ns's entry; false when it is not
 * there (dropped between the two reads). */
bool
status_find_rows (const status_rows_index_t *ix, const char *ns, status_coll_rows_t *rows, bson_t *counts,
                  bson_t *chunks, bson_t *tags);

#endif
