/* The script runner: parse everything, check everything, then send. See script.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dispatch.h"
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

int
script_run_inputs (sh_ctx_t *ctx, const script_input_t *inputs, size_t n)
{
   sh_script_t *scripts = bson_malloc0 (n * sizeof *scripts);
   sh_error_t err;
   int rc = SCRIPT_NOT_RUN;
   bool failed = false;

   /* 1. parse and check everything: nothing is sent when any input has a mistake */
   for (size_t i = 0; i < n; i++) {
      char *text = NULL;
      size_t len = 0;
      sh_error_clear (&err);
      if (inputs[i].text) {
         text = bson_strdup (inputs[i].text);
         len = strlen (text);
      } else if (!(text = script_read_file (inputs[i].name, &len, &err))) {
         script_report (ctx, &err, NULL, NULL);
         goto done;
      }
      if (!sh_parse_script (inputs[i].name, text, len, &scripts[i], &err)) {
         script_report (ctx, &err, inputs[i].name, text);
         bson_free (text);
         goto done;
      }
      bson_free (text);
      for (size_t s = 0; s < scripts[i].n; s++) {
         sh_error_clear (&err);
         if (!dispatch_validate (ctx, &scripts[i].stmts[s], &err)) {
            script_report (ctx, &err, scripts[i].name, scripts[i].source);
            goto done;
         }
      }
   }
   /* 2. run */
   rc = SCRIPT_OK;
   for (size_t i = 0; i < n && !ctx->exit_requested; i++) {
      for (size_t s = 0; s < scripts[i].n && !ctx->exit_requested; s++) {
         sh_error_clear (&err);
         if (!dispatch_stmt (ctx, &scripts[i].stmts[s], &err)) {
            script_report (ctx, &err, scripts[i].name, scripts[i].source);
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
   for (size_t i = 0; i < n; i++)
      sh_script_destroy (&scripts[i]);
   bson_free (scripts);
   return rc;
}
