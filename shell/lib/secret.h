/* What counts as a secret, written once, and the one way to hide it wherever text leaves shardsh: the REPL keeps such
 * lines out of its history, the connection layer masks them in what it prints and logs, statement text is masked in
 * status lines, --json, --plan, --dry-run and under an error's caret. Three kinds: the password of a connection
 * string (scheme://user:password@host, up to its last '@', so an unescaped '/' or ':' in it stays hidden), the value
 * of a field named pwd or password, and the password argument of auth(user, pwd) and changeUserPassword(user, pwd);
 * and, in documents shown, the salts and keys of a user's credentials (usersInfo with showCredentials).
 * The redact functions copy text and documents with the secrets hidden. */
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

/* Masks the secrets of source text in place (text[0, len), not necessarily NUL-terminated): each hidden character
 * becomes one '*' (a multi-byte character one star too), so columns stay where they were. Returns the new length
 * (<= len); the bytes after it are left as they were. */
size_t
secret_mask_source (char *text, size_t len);

/* A copy of source text (a statement, a script line) with every secret above masked one '*' per character, so
 * columns stay where they were (a caret under it still points at the right character). len bytes of text are read.
 * Returns malloc'd text (free with free()); *out_len (may be NULL) receives its length. NULL when out of memory. */
char *
secret_redact_source (const char *text, size_t len, size_t *out_len);

/* secret_redact_source of a NUL-terminated string; caller frees with bson_free. */
char *
secret_redact_source_str (const char *text);

/* Copies src into dst (initialised by the caller) with every secret hidden, at any depth: the value of a field named
 * pwd or password (any case) becomes "****", so does every string inside a credentials document (the salts and
 * SCRAM keys usersInfo's showCredentials returns; iteration counts stay), and strings pass through
 * secret_redact_text. For --dry-run output and every value printed. */
void
secret_redact_doc (const bson_t *src, bson_t *dst);

/* True when doc holds, at any depth, a field named credentials whose value is a document (a usersInfo reply with
 * showCredentials): a result showing it goes through secret_redact_doc first. */
bool
secret_doc_has_credentials (const bson_t *doc);

#endif
