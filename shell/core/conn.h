/* The connection, sole owner of the session's client and connection string (ctx->client, ctx->uri, ctx->conn): a
 * lazily created mongoc client, sending a command document exactly as built (the driver adds only $db, lsid,
 * $clusterTime and a non-primary $readPreference), iterating cursors, and --dry-run, where nothing is sent and each
 * request is printed instead. Driver errors become sh_error_t values with the server's code (server_error.h). Other
 * code reads ctx->client (server descriptions, completion) but never creates, replaces or destroys it. */
#ifndef SHARDSH_CONN_H
#define SHARDSH_CONN_H

#include <bson/bson.h>
#include <stdbool.h>
#include <stdint.h>

#include "shell/core/ctx.h"
#include "shell/core/errors.h"

typedef enum {
   CONN_ADMIN, /* mongosh's admin-command path: primary read preference (nothing added for a mongos) */
   CONN_READ,  /* mongosh's read path: the read preference the user asked for in the connection string */
} conn_path_t;

/* Sets up ctx for uri and db (copies both); creates no connection yet. Installs the driver log handler that keeps
 * driver messages off the terminal (SHARDSH_DEBUG=1 lets them through to stderr). */
void
conn_init (sh_ctx_t *ctx, const char *uri, const char *db);

/* Closes the client (if any) and frees what conn_init and later calls allocated in ctx (ctx itself is the caller's). */
void
conn_destroy (sh_ctx_t *ctx);

/* db.auth: authenticates the session as user with pwd on database source (mechanism NULL: the connection string's,
 * else negotiated), as mongosh does by connecting a new client with these credentials. The new client is tried first
 * (a ping); on success it replaces the old one (whose cursors are closed) and is used from then on, on failure the old
 * client and credentials stay and err says why (the server's "Authentication failed", code 18). Copies the strings. */
bool
conn_authenticate (sh_ctx_t *ctx, const char *user, const char *pwd, const char *source, const char *mechanism,
                   sh_error_t *err);

/* Sets serverSelectionTimeoutMS, connectTimeoutMS and socketTimeoutMS of ctx's connection to ms (0: back to the
 * connection string's own). The connection owns the client and the connection string: ctx->uri stays the user's, the
 * timeouts are applied when the client is created, and a client made with other timeouts is dropped here (its
 * cursors detached) so the next command connects with the new ones. Returns false and changes nothing when the
 * connection string sets socketTimeoutMS or serverSelectionTimeoutMS itself (the user's choice wins) or cannot be
 * parsed. */
bool
conn_set_timeouts (sh_ctx_t *ctx, int32_t ms);

/* conn_set_timeouts with a socketTimeoutMS of its own (socket_ms): a long read (a large cluster's first full read)
 * may wait longer for its reply than for a server to be selected or connected to. */
bool
conn_set_timeouts_split (sh_ctx_t *ctx, int32_t ms, int32_t socket_ms);

/* After a network error, drops the client so the next command connects afresh instead of repeating the error for
 * the driver's 5 s cooldown (a statement's start calls it: dispatch_stmt). */
void
conn_forget_if_broken (sh_ctx_t *ctx);

/* Creates the client if needed (applying username/password/TLS options). No I/O happens until a command runs.
 * Returns false with err set (SH_ERR_USAGE) when the connection string is invalid. */
bool
conn_ensure (sh_ctx_t *ctx, sh_error_t *err);

/* Parses a connection string with libmongoc (no network). NULL with err set when it is invalid: the message shows the
 * string and libmongoc's reason with their passwords masked (shell/lib/secret.h). The caller destroys the URI. */
mongoc_uri_t *
conn_uri_parse (const char *text, sh_error_t *err);

/* Runs cmd on database db. reply is initialised by the callee in every case and destroyed by the caller. On ok: 0
 * returns false with err kind SH_ERR_SERVER (code, codeName, errmsg from the reply); on a network failure
 * SH_ERR_NETWORK. Under --dry-run prints "[dry-run] <db> <canonical JSON>" and answers { ok: 1.0 } (a cursor
 * command answers an empty first batch). */
bool
conn_run (sh_ctx_t *ctx, const char *db, const bson_t *cmd, conn_path_t path, bson_t *reply, sh_error_t *err);

/* Runs a cursor-returning command like conn_run_docs but hands each document to fn as it arrives (borrowed for the
 * call), so no more than one batch of a long reply is held. fn returns false to stop reading: the cursor is closed
 * and *more (may be NULL) is set. Under --dry-run the command is printed and fn never called. */
typedef bool (*conn_doc_fn) (void *data, const bson_t *doc);
bool
conn_run_each (sh_ctx_t *ctx, const char *db, const bson_t *cmd, conn_path_t path, conn_doc_fn fn, void *data,
               bool *more, sh_error_t *err);

/* Runs a cursor-returning command (find, aggregate, listX, checkMetadataConsistency) and collects up to max
 * documents (0 = all) into docs, an array document initialised by the callee and destroyed by the caller. *more
 * (may be NULL) tells whether documents were left unread; the cursor is closed either way. */
bool
conn_run_docs (sh_ctx_t *ctx, const char *db, const bson_t *cmd, conn_path_t path, size_t max, bson_t *docs, bool *more,
               sh_error_t *err);

/* A live server cursor, as the driver keeps one: the command's first batch, then getMore on demand, on one explicit
 * session (a cursor belongs to the session that opened it) and one server. Destroying it before the end sends
 * killCursors, as the driver does when a cursor is closed. */
typedef struct conn_cursor conn_cursor_t;

/* Sends a cursor-returning command (find, aggregate) and keeps its cursor. batch_size (0: none) is sent on every
 * getMore, as the Node driver sends it; limit (find's, 0: none) caps the getMores' batchSize at what is left and
 * closes the cursor once reached. Under --dry-run the command is printed and the cursor is empty. NULL with err set
 * on failure (nothing to free). */
conn_cursor_t *
conn_cursor_open (sh_ctx_t *ctx, const char *db, const bson_t *cmd, conn_path_t path, int64_t batch_size, int64_t limit,
                  sh_error_t *err);

/* The next document into *doc (borrowed until the next call): 1; 0 at the end; -1 with err set when a getMore
 * failed (the cursor is then finished). */
int
conn_cursor_next (conn_cursor_t *c, const bson_t **doc, sh_error_t *err);

/* True while the cursor may give more: documents are buffered or the server's cursor is open (mongosh's
 * !isExhausted()); sends nothing. */
bool
conn_cursor_more (const conn_cursor_t *c);

/* True when the next document is already received (conn_cursor_next will send nothing for it). */
bool
conn_cursor_buffered (const conn_cursor_t *c);

/* Closes the cursor (killCursors when the server's cursor is still open; its errors are ignored) and frees it. NULL
 * is ignored. */
void
conn_cursor_free (conn_cursor_t *c);

/* The connected server's version from buildInfo (fetched once, then cached in ctx->server_version). Returns false
 * when it cannot be known (dry-run, network error: err set). */
bool
conn_server_version (sh_ctx_t *ctx, int version[3], sh_error_t *err);

/* A canned-reply transport, for tests and fuzzing: while one is set, conn_run, conn_run_docs and conn_server_version
 * hand every command to fn instead of a server, and no client is created. fn initialises reply in every case and
 * returns false with error set to fail as the network would; a reply without a true "ok" fails as the driver fails
 * it (code, codeName, errmsg taken from the reply). A cursor command's documents are read from the reply's
 * cursor.firstBatch (no getMore is sent). NULL restores the real connection. Process-wide; not for production. */
typedef bool (*conn_transport_fn) (void *data, const char *db, const bson_t *cmd, bson_t *reply, bson_error_t *error);

void
conn_set_transport (conn_transport_fn fn, void *data);

#endif
