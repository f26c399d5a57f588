/* The write and index builders other families reuse (commands/writes.c, commands/indexes.c): the legacy methods of
 * commands/legacy.c build exactly what the methods mongosh maps them to build. Each is a build() of table.h (pure;
 * requests appended to out, err set on bad arguments), for a call shaped as the method it names. */
#ifndef SHARDSH_WRITES_H
#define SHARDSH_WRITES_H

#include <stdbool.h>

#include "commands/table.h"

/* insertMany(documents[, options]): { insert, ordered[, writeConcern]..., documents } with an _id added to each. */
bool
writes_build_insert_many (const sh_call_t *call, sh_requests_t *out, sh_error_t *err);

/* updateOne (multi false), updateMany (multi true) or replaceOne (replacement true) of (filter, update[, options]). */
bool
writes_build_update (const sh_call_t *call, sh_requests_t *out, bool multi, bool replacement, sh_error_t *err);

typedef enum {
   WRITES_FAM_UPDATE,  /* findOneAndUpdate(filter, update[, options]) */
   WRITES_FAM_REPLACE, /* findOneAndReplace(filter, replacement[, options]) */
   WRITES_FAM_DELETE,  /* findOneAndDelete(filter[, options]) */
} writes_fam_t;

/* The findAndModify command the driver sends for kind, the call shaped as that method. */
bool
writes_build_find_and_modify (const sh_call_t *call, sh_requests_t *out, writes_fam_t kind, sh_error_t *err);

/* findOneAndUpdate(filter, update[, options]): the findAndModify command the driver sends. */
bool
writes_build_find_one_and_update (const sh_call_t *call, sh_requests_t *out, sh_error_t *err);

/* createIndex(keys[, options[, commitQuorum]]) (many false) or createIndexes(keyPatterns, ...) (many true). */
bool
indexes_build_create (const sh_call_t *call, sh_requests_t *out, bool many, sh_error_t *err);

/* The deprecation warning mongosh prints for a legacy collection method (insert, update, remove, count), once a session
 * per method as mongosh's printDeprecationWarning prints it; nothing for another method. */
void
writes_warn_deprecation (sh_ctx_t *ctx, const char *method);

#endif
