/* The script runner: parse everything, check everything, then send; JavaScript inputs go to the engine. See
 * script.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dispatch.h"
#include "js_host.h"
#include "parser.h"
#include "script.h"

char *
script_read_file (const char *path, size_t *len, sh_error_t *err)
{
   bool is_stdin = !strcmp (path, "-") || !strcmp (path, "<stdin>");
   FILE *f = is_stdin ? stdin : fopen (path, "rb");
   char chunk[8192];
   char *buf = NULL;
   size_t cap = 0, used = 0, n;

   if (!f) {
      sh_error_set (err, SH_ERR_IO, "cannot read '%s': %s", path, strerror (errno));
      return NULL;
   }
   /* byte-exact, so the parser sees (and reports) embedded NULs and invalid UTF-8 */
   while ((n = fread (chunk, 1, sizeof chunk, f)) > 0) {
      if (used + n + 1 > cap) {
         cap = (used + n + 1) * 2;
         buf = bson_realloc (buf, cap);
      }
      memcpy (buf + used, chunk, n);
      used += n;
   }
   if (ferror (f)) {
      sh_error_set (err, SH_ERR_IO, "cannot read '%s': %s", path, strerror (errno));
      bson_free (buf);
      buf = NULL;
   } else {
      if (!buf)
         buf = bson_malloc (1);
      buf[used] = '\0';
      *len = used;
   }
   if (!is_stdin)
      fclose (f);
   return buf;
}

void
script_report (sh_ctx_t *ctx, const sh_error_t *err, const char *name, const char *source)
{
   sh_error_render (ctx->err_fp, err, name, source, ctx->err_color);
   fflush (ctx->err_fp);
}

bool
script_is_literal (sh_ctx_t *ctx, const sh_script_t *script)
{
   for (size_t s = 0; s < script->n; s++) {
      if (!dispatch_is_literal (ctx, &script->stmts[s]))
         return false;
   }
   return true;
}

/* One input after checking: a literal script (today's path) or JavaScript text for the engine. */
typedef struct {
   sh_script_t lit;
   char *js; /* owned; NULL for a literal input */
   size_t js_len;
} checked_input_t;

/* Checks an input the literal grammar did not take as JavaScript: compiled whole, nothing run. lit_err is the literal
 * parser's error when it failed (shown when the engine is not installed), else NULL. */
static bool
check_js (sh_ctx_t *ctx, const script_input_t *in, const char *text, size_t len, const sh_error_t *lit_err)
{
   sh_error_t err;
   sh_error_clear (&err);
   if (js_host_check (ctx, in->name, text, len, &err))
      return true;
   if (err.kind == SH_ERR_PARSE) {
      script_report (ctx, &err, in->name, text);
   } else if (lit_err) {
      /* no engine: the literal parser's own error, and why JavaScript is not an option */
      sh_error_t e = *lit_err;
      sh_error_hint (&e, "%s", err.message);
      script_report (ctx, &e, in->name, text);
   } else {
      script_report (ctx, &err, in->name, text);
   }
   return false;
}

int
script_run_inputs (sh_ctx_t *ctx, const script_input_t *inputs, size_t n)
{
   checked_input_t *ins = bson_malloc0 (n * sizeof *ins);
   sh_error_t err;
   int rc = SCRIPT_NOT_RUN;
   bool failed = false;

   /* 1. parse and check everything: nothing is sent when any input has a mistake. An input the literal grammar
    * takes whole keeps today's path; any other is JavaScript, compiled whole by the engine */
   for (size_t i = 0; i < n; i++) {
      char *text = NULL;
      size_t len = 0;
      bool parsed;
      sh_error_clear (&err);
      if (inputs[i].text) {
         text = bson_strdup (inputs[i].text);
         len = strlen (text);
      } else if (!(text = script_read_file (inputs[i].name, &len, &err))) {
         script_report (ctx, &err, NULL, NULL);
         goto done;
      }
      parsed = sh_parse_script (inputs[i].name, text, len, &ins[i].lit, &err);
      if (!parsed || !script_is_literal (ctx, &ins[i].lit)) {
         sh_script_destroy (&ins[i].lit);
         memset (&ins[i].lit, 0, sizeof ins[i].lit);
         ins[i].js = text;
         ins[i].js_len = len;
         if (!check_js (ctx, &inputs[i], text, len, parsed ? NULL : &err))
            goto done;
         continue;
      }
      bson_free (text);
      for (size_t s = 0; s < ins[i].lit.n; s++) {
         sh_error_clear (&err);
         if (!dispatch_validate (ctx, &ins[i].lit.stmts[s], &err)) {
            script_report (ctx, &err, ins[i].lit.name, ins[i].lit.source);
            goto done;
         }
      }
   }
   /* 2. run */
   rc = SCRIPT_OK;
   for (size_t i = 0; i < n && !ctx->exit_requested; i++) {
      if (ins[i].js) {
         /* --eval prints the value of its last expression, as mongosh does; a file prints only what it prints */
         js_run_t r;
         sh_error_clear (&err);
         r = js_host_run (ctx, inputs[i].name, ins[i].js, ins[i].js_len, inputs[i].text != NULL, &err);
         if (r == JS_RUN_FAILED) {
            script_report (ctx, &err, inputs[i].name, ins[i].js);
            failed = true;
            if (!(ctx->opts && ctx->opts->continue_on_error))
               goto done;
         } else if (r == JS_RUN_STOPPED && !ctx->exit_requested) {
            failed = true;
            goto done;
         }
         continue;
      }
      for (size_t s = 0; s < ins[i].lit.n && !ctx->exit_requested; s++) {
         sh_error_clear (&err);
         if (!dispatch_stmt (ctx, &ins[i].lit.stmts[s], &err)) {
            script_report (ctx, &err, ins[i].lit.name, ins[i].lit.source);
            failed = true;
            if (!(ctx->opts && ctx->opts->continue_on_error))
               goto done;
         }
         fflush (ctx->out_fp);
      }
   }
done:
   if (failed)
      rc = SCRIPT_FAILED;
   for (size_t i = 0; i < n; i++) {
      sh_script_destroy (&ins[i].lit);
      bson_free (ins[i].js);
   }
   bson_free (ins);
   return rc;
}
