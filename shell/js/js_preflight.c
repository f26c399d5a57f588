/* The pre-flight of a JavaScript input (docs/plan.md, "JavaScript inputs"): the script runs with its reads sent and its
 * writes checked against the pre-flight's model (shell/plan/preflight.c) and held back, then the real run starts from
 * a fresh engine. Which inputs may write is decided from their text (js_host_may_write). See js_host.h. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "commands/commands.h"
#include "commands/dispatch.h"
#include "shell/js/js_host.h"
#include "shell/js/js_host_int.h"
#include "shell/plan/preflight.h"

/* the pre-flight's run (js_host_preflight): reads are sent, writes are checked against pf and not sent */
static struct {
   preflight_t *pf;   /* set while a pre-flight run lasts */
   bool failed;       /* a write would fail: err holds why, the run stops */
   sh_error_t err;    /* ... */
   size_t calls;      /* calls made so far */
   bool capped;       /* JS_HOST_PREFLIGHT_CALLS reached: the run stops, the rest is not checked */
   bool ran;          /* a pre-flight run happened: the engine starts afresh for the real run */
   bool held;         /* a write was held back (checked, not sent) */
   sh_options_t opts; /* ctx->opts with dry_run set, for the writes */
   FILE *null_fp;     /* where the writes' --dry-run requests go (/dev/null) */
} pre;

/* How many calls the pre-flight follows a JavaScript input for (a loop waiting for what a write does never ends when
 * the write is held back). */
#define JS_HOST_PREFLIGHT_CALLS 10000

static void
pf_hook_dry_opts (sh_ctx_t *ctx)
{
   if (!ctx->opts)
      return;
   pre.opts = *ctx->opts;
   pre.opts.dry_run = true;
   ctx->opts = &pre.opts;
}

static FILE *
pf_hook_null_fp (void)
{
   return pre.null_fp;
}

static void
pf_hook_refused (const sh_error_t *err)
{
   /* the script would stop here after the writes before it */
   pre.failed = true;
   pre.err = *err;
}

static bool
pf_hook_stopping (void)
{
   return pre.failed || pre.capped;
}

/* The pre-flight's part of a call (pre.pf set): false when the call is not to be run (print, sleep: *skip;
 * a write the model refuses: err set, the run stops). A write that passes runs under --dry-run (argument checks,
 * a synthetic reply, nothing sent): *dry says so. */
static bool
pf_hook_call (sh_ctx_t *ctx, const sh_call_t *call, const js_call_t *jc, const char *file, bool *skip, bool *dry,
              sh_error_t *err)
{
   const char *n = call->cmd->name;
   bool writes = dispatch_call_writes (call);
   bson_string_t *text;
   bool ok;
   *skip = !strcmp (n, "print") || !strcmp (n, "printjson") || !strcmp (n, "sleep");
   *dry = false;
   if (*skip)
      return true;
   if (++pre.calls > JS_HOST_PREFLIGHT_CALLS) {
      pre.capped = true;
      *skip = true;
      return true;
   }
   if (call->cmd->flags & CMD_CLIENT_ONLY)
      return true;
   text = js_host_call_text (ctx, jc, 500);
   ok = preflight_call (pre.pf, call, writes, file, text->str, err);
   bson_string_free (text, true);
   if (!ok) {
      pre.failed = true;
      pre.err = *err;
      return false;
   }
   *dry = writes;
   pre.held |= writes;
   return true;
}

static const js_host_pf_t pf_hooks = { pf_hook_call, pf_hook_dry_opts, pf_hook_null_fp, pf_hook_refused,
                                       pf_hook_stopping };

/* Whether the call of c written at p (just after its name) in text may write, for an entry whose answer depends on
 * its arguments (readonly_if): a command document written out, {ping: 1} or "ping", is asked about by its first key;
 * an aggregate writes when the text names $out or $merge; anything else (a variable) may write. */
static bool
may_write_at (const sh_cmd_t *c, const char *text, const char *p, const char *end)
{
   char key[128];
   size_t k = 0;
   char quote = 0;
   bson_t args = BSON_INITIALIZER, doc;
   sh_call_t call;
   bool writes, is_doc;
   if (!strcmp (strrchr (c->name, '.') ? strrchr (c->name, '.') + 1 : c->name, "aggregate"))
      return memmem (text, (size_t) (end - text), "$out", 4) || memmem (text, (size_t) (end - text), "$merge", 6);
   while (p < end && isspace ((unsigned char) *p))
      p++;
   if (p >= end || *p != '(')
      return true;
   for (p++; p < end && isspace ((unsigned char) *p); p++)
      ;
   is_doc = p < end && *p == '{';
   if (is_doc) {
      for (p++; p < end && isspace ((unsigned char) *p); p++)
         ;
   }
   if (p < end && (*p == '"' || *p == '\''))
      quote = *p++;
   while (p < end && k + 1 < sizeof key &&
          (quote ? *p != quote : (isalnum ((unsigned char) *p) || *p == '_' || *p == '$')))
      key[k++] = *p++;
   key[k] = '\0';
   if (!k || (!is_doc && !quote))
      return true;
   if (is_doc) {
      BSON_APPEND_DOCUMENT_BEGIN (&args, "0", &doc);
      BSON_APPEND_INT32 (&doc, key, 1);
      bson_append_document_end (&args, &doc);
   } else {
      BSON_APPEND_UTF8 (&args, "0", key);
   }
   memset (&call, 0, sizeof call);
   call.cmd = c;
   call.args = &args;
   call.argc = 1;
   writes = !c->readonly_if (&call);
   bson_destroy (&args);
   return writes;
}

bool
js_host_may_write (const char *text, size_t len)
{
   for (size_t i = 0; sh_cmd_table[i]; i++) {
      const sh_cmd_t *c = sh_cmd_table[i];
      const char *m = strrchr (c->name, '.'), *p = text, *end = text + len;
      size_t n;
      if (!c->readonly_if && (c->flags & (CMD_READONLY | CMD_CLIENT_ONLY)))
         continue;
      m = m ? m + 1 : c->name;
      n = strlen (m);
      /* the helper's name as a word of the text (the engine reaches the cluster through the table only) */
      while (p + n <= end && (p = memmem (p, (size_t) (end - p), m, n)) != NULL) {
         bool before = p > text && (isalnum ((unsigned char) p[-1]) || p[-1] == '_' || p[-1] == '$');
         bool after = p + n < end && (isalnum ((unsigned char) p[n]) || p[n] == '_' || p[n] == '$');
         if (!before && !after && (!c->readonly_if || may_write_at (c, text, p + n, end)))
            return true;
         p += n;
      }
   }
   return false;
}

int
js_host_preflight (sh_ctx_t *ctx, const char *name, const char *text, size_t len, preflight_t *pf, bool *wrote)
{
   sh_error_t err;
   js_run_t r;
   bool saved_exit = ctx->exit_requested;
   int rc = 0;

   memset (&pre, 0, sizeof pre);
   pre.pf = pf;
   pre.ran = true;
   pre.held = *wrote; /* an earlier input's writes are held back too */
   pre.null_fp = fopen ("/dev/null", "w");
   if (!pre.null_fp) {
      memset (&pre, 0, sizeof pre);
      cmd_warn (ctx, "%s: not checked by the pre-flight (cannot open /dev/null)", name);
      return 0;
   }
   js_host_set_preflight (&pf_hooks);
   sh_error_clear (&err);
   r = js_host_run_script (ctx, name, text, len, false, NULL, NULL, &err);
   if (pre.failed) {
      err = pre.err;
      if (!err.hint[0])
         sh_error_hint (&err, "found by the pre-flight: nothing was written (--no-preflight skips it)");
      rc = 2;
   } else if (r == JS_RUN_FAILED && err.kind == SH_ERR_NETWORK) {
      sh_error_hint (&err, "the pre-flight could not read the cluster; nothing was written");
      rc = 1;
   } else if (r == JS_RUN_FAILED && (!pre.held || !strncmp (err.message, "ReferenceError", 14))) {
      /* the script would stop here when it runs, after the writes before it: it stops now. An undefined name does
       * not come from what a write returned; neither does anything before the first write */
      sh_error_hint (&err, "found by the pre-flight, which runs the JavaScript with its writes held back: nothing was "
                           "written (--no-preflight skips it)");
      rc = 2;
   } else if (r == JS_RUN_FAILED) {
      /* it may come from a write's held-back reply (a collection the script shards is not there yet) */
      cmd_warn (ctx,
                "%s:%d: the pre-flight stopped here (%s): the script may depend on what a write before it returns; "
                "the rest is checked as it runs",
                name, err.has_pos ? err.pos.line : 1, err.message);
   } else if (pre.capped) {
      cmd_warn (ctx,
                "%s: the pre-flight stopped following it after %d calls (a loop waiting for what a write does?); the "
                "rest is checked as it runs",
                name, JS_HOST_PREFLIGHT_CALLS);
   }
   if (rc)
      sh_error_render (ctx->err_fp, &err, name, text, ctx->err_color);
   fflush (ctx->err_fp);
   *wrote = pre.held;
   fclose (pre.null_fp);
   pre.null_fp = NULL;
   pre.pf = NULL;
   js_host_set_preflight (NULL);
   pre.failed = false;
   pre.capped = false;
   ctx->exit_requested = saved_exit;
   return rc;
}

void
js_host_preflight_done (void)
{
   if (!pre.ran)
      return;
   /* the real run starts from a fresh engine: nothing the pre-flight's run declared or opened is left */
   js_host_shutdown ();
   pre.ran = false;
}
