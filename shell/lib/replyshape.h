/* The shape a server's reply must have before the driver's own code reads it (libmongoc 1.23 trusts it): checked at
 * the edge, where every reply comes in (shell/core/conn_stream.c, and the canned transport of tests and fuzzing),
 * after bsonvalid.h's framing check. libbson only. */
#ifndef SHARDSH_REPLYSHAPE_H
#define SHARDSH_REPLYSHAPE_H

#include <bson/bson.h>

/* NULL when the reply doc (valid BSON, shell/lib/bsonvalid.h) may be handed to the driver, else why not, a static
 * string ("cursor.ns has no collection name"). Refused: a failure ({ok: 0}) or a writeConcernError whose numeric code
 * is 0 (libmongoc asserts a failure has a code); a "cursor" that is not a document, whose id is not an integer,
 * whose ns is not a string naming a database and a collection ("db.coll") or is missing while the cursor is open
 * (id not 0), or whose batch is not an array of
 * documents (libmongoc builds its getMore from ns, reading past it when it has no dot). */
const char *
replyshape_why (const bson_t *doc);

#endif
