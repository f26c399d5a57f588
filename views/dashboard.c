/* Placeholder until the dashboard lands: says so plainly instead of pretending. */
#include <stdio.h>

#include "dashboard.h"

int
dashboard_run (sh_ctx_t *ctx)
{
   fprintf (ctx->err_fp, "shardsh: the dashboard is not built yet\n");
   return 2;
}
