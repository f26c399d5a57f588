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
   preflight_t *pf;        /* set while a pre-flight run lasts */
   bool failed;            /* the cluster could not be read: err holds why, the run stops */
   sh_error_t err;         /* ... */
   size_t calls;           /* calls that are not writes made so far */
   int64_t start;          /* when it started (bson_get_monotonic_time) */
   int64_t checking;       /* microseconds spent checking writes against the model since */
   bool stopped;           /* it stopped following the script at stop_file:stop_line, for the reason why */
   char stop_file[256];    /* ... */
   int stop_line;          /* ... */
   char why[160];          /* ... */
   bool ran;               /* a pre-flight run happened: the engine starts afresh for the real run */
   bool held;              /* a write was held back (checked, not sent) */
   bool read_after;        /* a read was sent after a held-back write (its answer may miss what the write does) */
   bool refused;           /* a held-back write was refused and thrown into the script as the server would */
   sh_error_t refused_err; /* the last one as the model reports it */
   char refused_file[256]; /* ... in this script (a library's when the call is in its function) */
   sh_error_t thrown;      /* ... and as the script got it */
   bson_t seen;            /* "line:col call" of each call that is not a write -> how often it was made */
   sh_options_t opts;      /* ctx->opts with dry_run set, for the writes */
   FILE *null_fp;          /* where the writes' --dry-run requests go (/dev/null) */
} pre;

/* How far the pre-flight follows a JavaScript input (docs/plan.md): a loop waiting for what a held-back write does
 * never ends, so it stops following at a sleep after a held-back write, at the JS_PREFLIGHT_REPEAT'th identical call
 * that is not a write from one place, past JS_PREFLIGHT_CALLS calls that are not writes, or past JS_PREFLIGHT_MS of
 * the input's own time (its reads and JavaScript: the writes' checks, which read sizes under --plan, are not
 * counted). A script of many writes is followed to its end. */
#define JS_PREFLIGHT_CALLS 1000
#define JS_PREFLIGHT_REPEAT 3
#define JS_PREFLIGHT_MS 5000

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
   /* the script gets it as the run would: only an uncaught one refuses the script */
   pre.refused = true;
   pre.refused_err = *err;
   pre.thrown = *err;
}

static bool
pf_hook_stopping (void)
{
   return pre.failed || pre.stopped;
}

/* The pre-flight stops following the script at call jc of file, for the reason why. */
static void
follow_stop (const char *file, const js_call_t *jc, const char *why)
{
   pre.stopped = true;
   bson_strncpy (pre.stop_file, file ? file : "", sizeof pre.stop_file);
   pre.stop_line = jc->line;
   bson_strncpy (pre.why, why, sizeof pre.why);
}

/* How many times the call jc (not a write) was made from its place, this one included. */
static int
seen_count (const sh_ctx_t *ctx, const js_call_t *jc)
{
   bson_string_t *text = js_host_call_text (ctx, jc, 500);
   char *key = bson_strdup_printf ("%d:%d %s", jc->line, jc->col, text->str);
   bson_iter_t it;
   int n = 1;
   if (bson_iter_init_find (&it, &pre.seen, key) && BSON_ITER_HOLDS_INT32 (&it)) {
      n = bson_iter_int32 (&it) + 1;
      bson_iter_overwrite_int32 (&it, n);
   } else {
      BSON_APPEND_INT32 (&pre.seen, key, 1);
   }
   bson_free (key);
   bson_string_free (text, true);
   return n;
}

/* The pre-flight's part of a call (pre.pf set): print and printjson do not run (*skip); a sleep after a held-back
 * write, a call beyond the budget or one repeated from the same place stop the following (*skip, and the run stops
 * without an error); a write the model refuses is thrown into the script as the server would refuse it (false, err
 * with its code and codeName); one the model accepts runs under --dry-run (argument checks, a synthetic reply,
 * nothing sent): *dry says so. A cluster that cannot be read stops the run (false, pre.failed). */
static bool
pf_hook_call (sh_ctx_t *ctx, const sh_call_t *call, const js_call_t *jc, const char *file, bool *skip, bool *dry,
              sh_error_t *err)
{
   const char *n = call->cmd->name;
   bool writes = dispatch_call_writes (call);
   bool sleeps = !strcmp (n, "sleep");
   bson_string_t *text;
   int64_t t0;
   bool ok;
   *skip = true;
   *dry = false;
   if (!strcmp (n, "print") || !strcmp (n, "printjson"))
      return true;
   if (sleeps && pre.held) {
      follow_stop (file, jc, "a sleep: it may wait for what a held-back write does");
      return true;
   }
   if ((!writes && ++pre.calls > JS_PREFLIGHT_CALLS) ||
       (bson_get_monotonic_time () - pre.start - pre.checking) / 1000 > JS_PREFLIGHT_MS) {
      char why[96];
      bson_snprintf (why, sizeof why, "its budget: %d calls that read or %d ms", JS_PREFLIGHT_CALLS, JS_PREFLIGHT_MS);
      follow_stop (file, jc, why);
      return true;
   }
   if (!writes && seen_count (ctx, jc) >= JS_PREFLIGHT_REPEAT) {
      follow_stop (file, jc, "the same call again: a loop waiting for the cluster to change");
      return true;
   }
   *skip = sleeps; /* a sleep before any held-back write is not waited */
   if (sleeps || (call->cmd->flags & CMD_CLIENT_ONLY))
      return true;
   text = js_host_call_text (ctx, jc, 500);
   t0 = bson_get_monotonic_time ();
   ok = preflight_call (pre.pf, call, writes, file, text->str, err);
   if (writes)
      pre.checking += bson_get_monotonic_time () - t0;
   bson_string_free (text, true);
   if (!ok && (err->kind == SH_ERR_NETWORK || err->kind == SH_ERR_SERVER)) {
      pre.failed = true;
      pre.err = *err;
      return false;
   }
   if (!ok) {
      /* the script gets what the server would throw; only an uncaught one refuses the script */
      pre.refused = true;
      pre.refused_err = *err;
      bson_strncpy (pre.refused_file, file ? file : "", sizeof pre.refused_file);
      if (err->code)
         err->kind = SH_ERR_SERVER;
      pre.thrown = *err;
      return false;
   }
   pre.read_after |= pre.held && !writes;
   if (writes) /* where it is, should its own arguments be refused as it runs dry (pf_hook_refused) */
      bson_strncpy (pre.refused_file, file ? file : "", sizeof pre.refused_file);
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

/* Whether the uncaught error err of a script that ran with its writes held back is the script's own, not something
 * a held-back write's effect could explain (docs/plan.md): anything before the first held-back write, an undefined
 * name or a syntax error; after one, any error when nothing was read since (a read then may miss what the write
 * makes; the write's own reply is taken as the run's, { ok: 1 }). */
static bool
own_error (const sh_error_t *err)
{
   const char *m = err->message;
   if (!pre.held || err->kind == SH_ERR_PARSE || !strncmp (m, "ReferenceError", 14) || !strncmp (m, "SyntaxError", 11))
      return true;
   return !pre.read_after;
}

/* True when err (uncaught) is the last held-back write the script got thrown. */
static bool
is_thrown (const sh_error_t *err)
{
   return pre.refused && err->code == pre.thrown.code && !strcmp (err->message, pre.thrown.message) &&
          (!err->has_pos || !pre.thrown.has_pos || err->pos.line == pre.thrown.pos.line);
}

int
js_host_preflight (sh_ctx_t *ctx, const char *name, const char *text, size_t len, preflight_t *pf, bool *wrote)
{
   sh_error_t err;
   js_run_t r;
   bool saved_exit = ctx->exit_requested;
   int rc = 0;
   const char *efile = name, *etext = text;
   size_t elen = len;

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
   bson_init (&pre.seen);
   pre.start = bson_get_monotonic_time ();
   js_host_set_preflight (&pf_hooks);
   sh_error_clear (&err);
   r = js_host_run_script (ctx, name, text, len, false, NULL, NULL, &err);
   if (r == JS_RUN_FAILED && js_host_error_file () && js_host_file_text (js_host_error_file (), &etext, &elen))
      efile = js_host_error_file (); /* in a function an earlier input (a library) defined */
   if (pre.failed || (r == JS_RUN_FAILED && err.kind == SH_ERR_NETWORK)) {
      if (pre.failed)
         err = pre.err;
      sh_error_hint (&err, "the pre-flight could not read the cluster; nothing was written");
      rc = 1;
   } else if (r == JS_RUN_FAILED && is_thrown (&err)) {
      /* a held-back write the cluster would refuse, and the script does not catch it */
      err = pre.refused_err;
      if (js_host_file_text (pre.refused_file, &etext, &elen))
         efile = pre.refused_file;
      if (!err.hint[0])
         sh_error_hint (&err, "found by the pre-flight: nothing was written (--no-preflight skips it)");
      rc = 2;
   } else if (r == JS_RUN_FAILED && own_error (&err)) {
      /* the script would stop here when it runs, after the writes before it: it stops now */
      sh_error_hint (&err, "found by the pre-flight, which runs the JavaScript with its writes held back: nothing was "
                           "written (--no-preflight skips it)");
      rc = 2;
   } else if (r == JS_RUN_FAILED) {
      /* it may come from a write's held-back reply (a collection the script shards is not there yet) */
      cmd_warn (ctx,
                "pre-flight: followed to %s:%d (%s, after a read that may miss what a held-back write makes); "
                "the rest is checked as it runs",
                efile, err.has_pos ? err.pos.line : 1, err.message);
      rc = PREFLIGHT_PLAN_PART;
   } else if (pre.stopped) {
      cmd_warn (ctx, "pre-flight: followed to %s:%d (%s); the rest is checked as it runs", pre.stop_file, pre.stop_line,
                pre.why);
      rc = PREFLIGHT_PLAN_PART;
   }
   if (rc == 1 || rc == 2)
      sh_error_render (ctx->err_fp, &err, efile, etext, ctx->err_color);
   fflush (ctx->err_fp);
   *wrote = pre.held;
   fclose (pre.null_fp);
   bson_destroy (&pre.seen);
   pre.null_fp = NULL;
   pre.pf = NULL;
   js_host_set_preflight (NULL);
   pre.failed = false;
   pre.stopped = false;
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
