/* What commands keep in the session (ctx->session) between statements, freed when the session ends. */
#ifndef SHARDSH_SESSION_H
#define SHARDSH_SESSION_H

#include "shell/core/ctx.h"

/* Frees everything commands keep in ctx->session (the completion cache, sh.progress's previous reading). Whoever
 * owns ctx calls it when the session ends, before conn_destroy; ctx stays usable (the state starts afresh). */
void
cmd_session_end (sh_ctx_t *ctx);

#endif
