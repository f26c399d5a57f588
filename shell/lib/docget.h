/* Reading one field of a BSON document by dotted path ("a.b.c"), written once for every reader of server replies:
 * the collector, the commands, the pre-flight and the simulated cluster. Each getter returns the field when it is
 * present with a usable type and the caller's default (or false) otherwise. Results borrow from doc. libbson only. */
#ifndef SHARDSH_DOCGET_H
#define SHARDSH_DOCGET_H

#include <bson/bson.h>
#include <stdbool.h>
#include <stdint.h>

/* Positions out on the field at path (dots descend into documents and arrays). False when absent. */
bool
docget_iter (const bson_t *doc, const char *path, bson_iter_t *out);

/* The string at path, borrowed from doc, or dflt when absent or not a string. */
const char *
docget_utf8 (const bson_t *doc, const char *path, const char *dflt);

/* The number at path as an int64 (doubles truncated toward zero by libbson, saturating), or dflt when absent or not a
 * number. */
int64_t
docget_int (const bson_t *doc, const char *path, int64_t dflt);

/* The number at path as a double, or dflt when absent or not a number; *present (may be NULL) says which. */
double
docget_double (const bson_t *doc, const char *path, double dflt, bool *present);

/* The field at path as the server reads a flag (bson_iter_as_bool: "" and NaN are true); false when absent. */
bool
docget_bool (const bson_t *doc, const char *path);

/* Whether the field at path is a bool, or a number read as one, equal to value; false when absent or of another type
 * (so docget_is (doc, p, false) is not the negation of docget_is (doc, p, true)). */
bool
docget_is (const bson_t *doc, const char *path, bool value);

/* Views the document or array at path into sub (static: borrows doc, needs no destroy). type is BSON_TYPE_DOCUMENT,
 * BSON_TYPE_ARRAY or BSON_TYPE_EOD for either. False when absent or of another type. */
bool
docget_sub (const bson_t *doc, const char *path, bson_type_t type, bson_t *sub);

/* Views the document or array the iterator is on into sub (as docget_sub). */
bool
docget_iter_sub (const bson_iter_t *it, bson_type_t type, bson_t *sub);

/* The field at path by JavaScript truthiness: false when absent, null, undefined, false, 0, NaN or "". */
bool
docget_truthy (const bson_t *doc, const char *path);

#endif
