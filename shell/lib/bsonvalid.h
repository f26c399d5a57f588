/* Whether bytes are well-formed BSON at every level, checked once where they come in (a server's reply, a document
 * handed to the printer) so readers after it may trust them. libbson only. */
#ifndef SHARDSH_BSONVALID_H
#define SHARDSH_BSONVALID_H

#include <bson/bson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Deepest nesting accepted (documents, arrays, code-with-scope scopes): a server nests at most ~200 levels, and
 * everything that reads a document after the check (the printer, the JavaScript bridge) recurses per level. */
#define BSONVALID_MAX_DEPTH 1000

/* True when the len bytes at data are one BSON document (its length prefix is len, it ends in its terminator) whose
 * elements, and those of every document, array and code-with-scope scope inside it, are well-formed as libbson's
 * iterator reads them, with valid UTF-8 keys and valid UTF-8 strings (code, symbol, regex pattern, DBPointer
 * namespace; a NUL is allowed inside a string), at most BSONVALID_MAX_DEPTH levels deep. This is what
 * bson_validate (BSON_VALIDATE_NONE) means to check; libbson 1.23's version is several times slower (it decodes
 * every byte of every key and string) and lets two kinds of damage through: after a string that is not UTF-8 it
 * stops checking the rest of that document without failing, and it skips a nested document whose own framing is
 * broken. Reads data only. */
bool
bsonvalid_data (const uint8_t *data, size_t len);

/* bsonvalid_data on doc's bytes; false for NULL. */
bool
bsonvalid_bson (const bson_t *doc);

#endif
