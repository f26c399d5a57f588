/* The end of a session for what commands keep in ctx->session between statements: the completion cache
 * (commands/complete.c) and sh.progress's previous reading (commands/progress.c). */
#include "commands/complete.h"
#include "commands/progress.h"
#include "commands/session.h"

void
cmd_session_end (sh_ctx_t *ctx)
{
   cmd_complete_reset (ctx);
   cmd_progress_reset (ctx);
   ctx->session.complete_values = NULL;
}
