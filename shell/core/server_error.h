/* Server and driver errors into sh_error_t: the server's code, codeName and errmsg from a reply, and one plain line
 * for the connection failures people meet most (refused login, untrusted certificate, unreachable or silent server,
 * a reply that is not BSON). Passwords that a message echoes are hidden. */
#ifndef SHARDSH_SERVER_ERROR_H
#define SHARDSH_SERVER_ERROR_H

#include <mongoc/mongoc.h>

#include "shell/core/ctx.h"
#include "shell/core/errors.h"

/* Fills err from a libmongoc error and, when there is one, the server's reply (for code and codeName). ctx (may be
 * NULL) is the session the error happened in: its login and CA file word the message, and a network error marks its
 * client stale (conn_forget_if_broken drops it before the next statement). With ctx NULL the user is "(none)" on
 * "admin" and nothing is marked. reply is borrowed. */
void
server_error_from_mongoc (sh_ctx_t *ctx, sh_error_t *err, const bson_error_t *error, const bson_t *reply);

#endif
