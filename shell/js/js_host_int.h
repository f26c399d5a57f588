/* What the JavaScript host (shell/js/js_host.c) and its pre-flight (shell/js/js_preflight.c) share; not for other
 * modules. The pre-flight runs a script with its reads sent and its writes checked against the model and held back;
 * host_call asks it about every call. */
#ifndef SHARDSH_JS_HOST_INT_H
#define SHARDSH_JS_HOST_INT_H

#include <stdbool.h>
#include <stdio.h>

#include "commands/commands.h"
#include "shell/core/ctx.h"
#include "shell/js/js_engine.h"

/* The call as the script would write it, with its arguments' values ("sh.addShardToZone('shard01', 'NYC')"), cut at
 * max bytes with "...". Caller frees with bson_string_free. */
bson_string_t *
js_host_call_text (const sh_ctx_t *ctx, const js_call_t *jc, size_t max);

/* The pre-flight's hooks (shell/js/js_preflight.c), set while a pre-flight run lasts: host_call asks them about every
 * call. Handed in so that the host does not call the pre-flight, which calls the host. */
typedef struct {
   /* The pre-flight's part of call jc of file, before it runs: false (err set) when it is not to run and the engine
    * gets err; *skip: it does not run and answers nothing (print, sleep, or the pre-flight stops following here);
    * *dry: a write the model accepted, to run as under --dry-run (dry_opts). */
   bool (*call) (sh_ctx_t *ctx, const sh_call_t *call, const js_call_t *jc, const char *file, bool *skip, bool *dry,
                 sh_error_t *err);
   /* Points ctx->opts at a copy with dry_run set, for a held-back write (the caller restores ctx->opts). */
   void (*dry_opts) (sh_ctx_t *ctx);
   /* Where a held-back write's --dry-run request goes (/dev/null). */
   FILE *(*null_fp) (void);
   /* A held-back write that its own checks refused (its arguments): err is what the run would get. */
   void (*refused) (const sh_error_t *err);
   /* True when the pre-flight's run is to stop now (a write failed, or it stopped following the script). */
   bool (*stopping) (void);
} js_host_pf_t;

/* Sets the pre-flight's hooks (borrowed until reset with NULL). */
void
js_host_set_preflight (const js_host_pf_t *hooks);

#endif
