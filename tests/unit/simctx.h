/* A shell session on a running shardsim, for unit tests that drive the shell's own code (the collector, the chunk
 * map's reads) against it: options zeroed, pretty output to sink, a connection string to 127.0.0.1:port with a
 * 20-second socket timeout. The caller releases it with conn_destroy. */
#ifndef SHARDSH_SIMCTX_H
#define SHARDSH_SIMCTX_H

#include <stdio.h>
#include <string.h>

#include "shell/core/conn.h"
#include "shell/core/ctx.h"
#include "shell/core/output.h"

static inline void
simctx_init (sh_ctx_t *ctx, sh_options_t *opts, FILE *sink, int port)
{
   char uri[128];
   snprintf (uri, sizeof uri, "mongodb://127.0.0.1:%d/?socketTimeoutMS=20000", port);
   memset (opts, 0, sizeof *opts);
   memset (ctx, 0, sizeof *ctx);
   ctx->opts = opts;
   ctx->out = output_opts_default (OUTPUT_PRETTY, false);
   ctx->out_fp = sink;
   ctx->err_fp = sink;
   conn_init (ctx, uri, "test");
}

#endif
