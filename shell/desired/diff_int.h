/* The diff's record (private to shell/desired/diff*.c): the statements as a script text and as JSON changes. */
#ifndef SHARDSH_DESIRED_DIFF_INT_H
#define SHARDSH_DESIRED_DIFF_INT_H

#include <bson/bson.h>
#include <stdarg.h>
#include <stdbool.h>

#include "shell/core/ctx.h"

typedef struct {
   sh_ctx_t *ctx;
   bson_string_t *text; /* the statements, one a line, notes as // comments; owned */
   bson_t changes;      /* array of { statement (or null), expensive, note? } */
   int n;               /* changes */
   int nstmts;          /* changes with a statement */
   bool apply;          /* for --apply: an expensive change without its mark and --allow-expensive is left out */
   bool allow_expensive;
   int skipped; /* expensive changes left out */
} diff_t;

/* Records one change: note (may be NULL) as a comment, then the statement fmt (NULL: drift no statement fixes). */
void
diff_add (diff_t *d, bool expensive, const char *note, const char *fmt, ...) BSON_GNUC_PRINTF (4, 5);

/* The document or array at key (a field name, not a dotted path: shard and namespace names hold dots) into out (a
 * view; may be NULL). */
bool
diff_field (const bson_t *doc, const char *key, bson_type_t type, bson_t *out);

/* Whether the values at key differ in want and have (absent from want: not managed, so not a difference). */
bool
diff_differs (const bson_t *want, const bson_t *have, const char *key);

void
diff_build (diff_t *d, const bson_t *want, const bson_t *have);

/* An expensive change (marked: the spec's allowReshard/allowDrain): shown with its cost under --diff; under --apply
 * recorded as a statement only when marked and --allow-expensive was given, else as a note (and counted skipped). */
void
diff_add_expensive (diff_t *d, bool marked, const char *mark, const char *note, const char *stmt);

/* diff_coll.c: zone ranges (removals, then additions) and per-collection settings. removals: when not NULL, only
 * counts the ranges to remove into it (nothing is added to d). */
void
diff_ranges (diff_t *d, const bson_t *want, const bson_t *have, int *removals);
void
diff_collections (diff_t *d, const bson_t *want, const bson_t *have);

/* The cost of draining shard id (its chunks and data, from config.chunks and dataSize-free counts) as a note. */
void
diff_cost_drain (diff_t *d, const char *id, char *note, size_t len);

#endif
