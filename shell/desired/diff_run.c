/* --diff's entry (docs/desired-state.md): check the spec (nothing is read before it passes), export the cluster,
 * build the statements, print them (or the JSON changes), then run them through --plan's pass for the estimate of
 * what the balancer would move. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "shell/core/output.h"
#include "shell/desired/desired.h"
#include "shell/core/readfile.h"
#include "shell/desired/diff_int.h"

/* Reads and checks the spec file into want. DESIRED_NO_DRIFT when it is valid, else DESIRED_INVALID (reported). */
static int
diff_read_spec (sh_ctx_t *ctx, const char *file, bson_t *want)
{
   sh_error_t err;
   size_t len = 0;
   char *text;
   int rc = DESIRED_NO_DRIFT;
   sh_error_clear (&err);
   bson_init (want);
   /* byte for byte: a NUL is the parser's to refuse at file:line:col */
   text = readfile_all (file, 64u * 1024 * 1024, "the spec file", &len, &err);
   if (!text) {
      sh_error_render (ctx->err_fp, &err, file, NULL, ctx->err_color);
      return DESIRED_INVALID;
   }
   bson_destroy (want);
   if (!desired_spec_parse (file, text, len, want, &err)) {
      sh_error_render (ctx->err_fp, &err, file, text, ctx->err_color);
      rc = DESIRED_INVALID;
   }
   bson_free (text);
   return rc;
}

static void
diff_print (sh_ctx_t *ctx, diff_t *d, const char *file)
{
   if (ctx->opts && ctx->opts->json) {
      bson_t out = BSON_INITIALIZER;
      output_opts_t o = output_opts_default (OUTPUT_JSON, false);
      char *s;
      BSON_APPEND_BOOL (&out, "drift", d->n > 0);
      BSON_APPEND_ARRAY (&out, "changes", &d->changes);
      s = output_format_doc (&out, &o);
      fprintf (ctx->out_fp, "%s\n", s);
      bson_free (s);
      bson_destroy (&out);
   } else if (d->n == 0) {
      fprintf (ctx->out_fp, "// no drift: the cluster matches %s\n", file);
   } else {
      fprintf (ctx->out_fp, "// drift: %d change%s to make the cluster match %s\n%s", d->n, d->n == 1 ? "" : "s", file,
               d->text->str);
   }
   fflush (ctx->out_fp);
}

/* The spec against the cluster: d built (apply: for --apply). DESIRED_NO_DRIFT when d holds the changes (d->text
 * and d->changes to free with diff_free), else the error code (reported; nothing to free). */
static int
diff_compute (sh_ctx_t *ctx, const char *file, bool apply, diff_t *d)
{
   bson_t want, have;
   sh_error_t err;
   int rc = diff_read_spec (ctx, file, &want);
   if (rc != DESIRED_NO_DRIFT) {
      bson_destroy (&want);
      return rc;
   }
   sh_error_clear (&err);
   if (!desired_export_read (ctx, &have, &err)) {
      sh_error_render (ctx->err_fp, &err, NULL, NULL, ctx->err_color);
      bson_destroy (&want);
      bson_destroy (&have);
      return DESIRED_ERROR;
   }
   memset (d, 0, sizeof *d);
   d->ctx = ctx;
   d->text = bson_string_new (NULL);
   bson_init (&d->changes);
   d->apply = apply;
   d->allow_expensive = ctx->opts && ctx->opts->allow_expensive;
   diff_build (d, &want, &have);
   bson_destroy (&want);
   bson_destroy (&have);
   return DESIRED_NO_DRIFT;
}

static void
diff_free (diff_t *d)
{
   bson_string_free (d->text, true);
   bson_destroy (&d->changes);
}

int
desired_diff (sh_ctx_t *ctx, const char *file, desired_plan_fn plan)
{
   diff_t d;
   int rc = diff_compute (ctx, file, false, &d);
   if (rc != DESIRED_NO_DRIFT)
      return rc;
   diff_print (ctx, &d, file);
   rc = d.n ? DESIRED_DRIFT : DESIRED_NO_DRIFT;
   if (d.nstmts) {
      int prc;
      if (!(ctx->opts && ctx->opts->json))
         fprintf (ctx->out_fp, "\n// what the balancer would then move (--plan of the statements above):\n");
      fflush (ctx->out_fp);
      prc = plan (ctx, "<diff>", d.text->str);
      if (prc != 0)
         rc = DESIRED_ERROR; /* a statement the cluster would refuse (reported by the plan), or a read failed */
   }
   diff_free (&d);
   return rc;
}

int
desired_apply (sh_ctx_t *ctx, const char *file, desired_plan_fn run)
{
   diff_t d;
   int rc = diff_compute (ctx, file, true, &d);
   if (rc != DESIRED_NO_DRIFT)
      return rc;
   diff_print (ctx, &d, file);
   if (d.nstmts) {
      if (!(ctx->opts && ctx->opts->json))
         fprintf (ctx->out_fp, "\n// applying them:\n");
      fflush (ctx->out_fp);
      rc = run (ctx, "<apply>", d.text->str);
      /* the runner's 1 (a statement failed) and 2 (the pre-flight refused one: nothing written) are ours; 128 + a
       * signal (SIGINT, SIGTERM: stopped at a statement boundary, with its summary) stays */
      rc = rc == 0 ? DESIRED_NO_DRIFT : rc == 2 ? DESIRED_INVALID : rc > 128 ? rc : DESIRED_ERROR;
   }
   if (rc == DESIRED_NO_DRIFT && d.n > d.nstmts)
      rc = DESIRED_DRIFT; /* what no statement fixes, or expensive changes left out */
   diff_free (&d);
   return rc;
}
