/* What counts as a secret, written once: the REPL keeps such lines out of its history, the connection layer masks
 * them in what it prints and logs, and error messages mask them under the caret. Two kinds: the password of a
 * connection string (scheme://user:password@host) and the value of a field named pwd or password. The redact functions
 * copy text and documents with the secrets hidden. */
#ifndef SHARDSH_SECRET_H
#define SHARDSH_SECRET_H

#include <bson/bson.h>
#include <stdbool.h>
#include <stddef.h>

/* True when the field name key[0, len) names a secret: pwd or password, in any case. */
bool
secret_is_field (const char *key, size_t len);

/* Where the password of a connection string's user info lies. authority points just after a "://" and len bytes
 * may be read from it; on true, [*start, *end) (offsets from authority) is the password (possibly empty) of
 * "user:password@". False when the authority has no user:password@ before its end (/ ? @ blank or quote). */
bool
secret_uri_password (const char *authority, size_t len, size_t *start, size_t *end);

/* True when a line typed at the prompt must stay out of the history, as mongosh decides: it mentions a password, a
 * secret or a user-management command, or holds a connection string with a password. */
bool
secret_line_is_sensitive (const char *line);

/* Returns the connection string with any password replaced by "****"; caller frees with bson_free. */
char *
secret_redact_uri (const char *uri);

/* Returns text with the password of every connection string in it (scheme://user:password@host) replaced by "****";
 * caller frees with bson_free. */
char *
secret_redact_text (const char *text);

/* Copies src into dst (initialised by the caller) with every secret hidden, at any depth: the value of a field named
 * pwd or password (any case) becomes "****", and strings pass through secret_redact_text. For --dry-run output. */
void
secret_redact_doc (const bson_t *src, bson_t *dst);

#endif
