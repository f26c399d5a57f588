/* Database and collection names checked as the server (NamespaceString::validDBName, validCollectionName) and mongosh
 * (Invalid database name / Invalid collection name) check them, before anything is sent: a NUL would cut the name
 * short on the way to the wire (db.getSiblingDB("logs\u0000_old").dropDatabase() dropped "logs"). Lengths are
 * passed, never taken with strlen, so an embedded NUL is seen. */
#ifndef SHARDSH_NAMES_H
#define SHARDSH_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* The server's limits: a database name under 64 bytes, a namespace "db.coll" of at most 255. */
#define NAMES_DB_MAX 63
#define NAMES_NS_MAX 255

/* NULL when name (len bytes) is a valid database name, else why not ("contains a NUL byte", "is empty", ...), a
 * static string. */
const char *
names_db_invalid (const char *name, size_t len);

/* NULL when coll (len bytes) is a valid collection name in database db (NUL-terminated, already valid), else why not,
 * a static string. */
const char *
names_coll_invalid (const char *db, const char *coll, size_t len);

/* True when the len bytes at s hold a NUL. */
bool
names_has_nul (const char *s, size_t len);

#endif
