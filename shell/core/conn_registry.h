/* The second connections a script opens (new Mongo(uri), connect(uri)): each is a session context of its own (its
 * connection string, client and connection state) made from the session's, owned by the session's context
 * (ctx->others) and freed at the session's end (conn_registry_free, before conn_destroy). Calls are routed to one by
 * its id (js_call_t.conn). */
#ifndef SHARDSH_CONN_REGISTRY_H
#define SHARDSH_CONN_REGISTRY_H
#include "shell/core/ctx.h"
#include "shell/core/errors.h"

/* How many second connections a session may open. */
#define CONN_REGISTRY_MAX 64

/* Opens a second connection to uri (a connection string, or "host:port/db" as mongosh's connect() takes it): checks the
 * string and connects now, as mongosh's new Mongo() does (a ping; nothing under --dry-run), and returns its id, 1 or
 * more. 0 with err set when the string is invalid, the server cannot be reached (SH_ERR_NETWORK) or refuses the
 * credentials, or CONN_REGISTRY_MAX are open. Its current database is the string's, else "test". */
int
conn_registry_open (sh_ctx_t *ctx, const char *uri, sh_error_t *err);

/* The context of second connection id, with the session's settings (options, output, place) copied in for one call;
 * NULL for an unknown id. Borrowed: owned by ctx. */
sh_ctx_t *
conn_registry_get (sh_ctx_t *ctx, int id);

/* The connection string of connection id with its password hidden, as mongosh shows it (a second connection's with the
 * options conn_registry_open added; the session's with mongosh's options as this session uses them:
 * directConnection=true for one host, its server selection timeout, appName=shardsh), malloc'd (bson_free), or NULL
 * for an unknown id. */
char *
conn_registry_uri (const sh_ctx_t *ctx, int id);

/* Closes every second connection of ctx (their cursors first) and frees the registry: at the session's end, before
 * conn_destroy (shell/main.c). */
void
conn_registry_free (sh_ctx_t *ctx);

#endif
