/* shardsh's entry point: parse options, set up the session, and pick the mode (scripts, REPL). */
#include <mongoc/mongoc.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "shell/cli.h"
#include "shell/lib/secret.h"
#include "shell/core/conn.h"
#include "shell/desired/desired.h"
#include "views/dashboard.h"
#include "shell/js_host.h"
#include "shell/repl.h"
#include "shell/preflight.h"
#include "shell/script.h"

#define SHARDSH_VERSION "0.1.0"

/* Asks for the password on the terminal without echo. Returns a bson_malloc'd string or NULL. */
static char *
main_ask_password (void)
{
   struct termios old, quiet;
   char buf[512];
   FILE *tty = fopen ("/dev/tty", "r+");
   char *pw = NULL;
   if (!tty)
      return NULL;
   fputs ("Enter password: ", tty);
   fflush (tty);
   if (tcgetattr (fileno (tty), &old) == 0) {
      quiet = old;
      quiet.c_lflag &= ~(tcflag_t) ECHO;
      tcsetattr (fileno (tty), TCSAFLUSH, &quiet);
   }
   if (fgets (buf, sizeof buf, tty)) {
      buf[strcspn (buf, "\r\n")] = '\0';
      pw = bson_strdup (buf);
   }
   tcsetattr (fileno (tty), TCSAFLUSH, &old);
   fputs ("\n", tty);
   memset (buf, 0, sizeof buf);
   fclose (tty);
   return pw;
}

/* The diff's statements through the script runner (desired_plan_fn): --plan's pass for --diff (main_run sets --plan),
 * a run for --apply. */
static int
main_plan_text (sh_ctx_t *ctx, const char *name, const char *text)
{
   script_input_t in = { .name = name, .text = text, .as_file = !ctx->opts->plan };
   return script_run_inputs (ctx, &in, 1, false);
}

static int
main_run (sh_options_t *opts)
{
   sh_ctx_t ctx;
   sh_error_t err;
   char *uri = NULL, *db = NULL;
   script_input_t *inputs = NULL;
   size_t n = 0;
   bool piped = !isatty (STDIN_FILENO);
   int rc = SCRIPT_NOT_RUN;
   const char *no_color = getenv ("NO_COLOR");
   bool color_ok = !opts->no_color && !(no_color && *no_color);

   memset (&ctx, 0, sizeof ctx);
   sh_error_clear (&err);
   ctx.opts = opts;
   ctx.describe_effect = preflight_describe;
   ctx.out_fp = stdout;
   ctx.err_fp = stderr;
   ctx.out =
      output_opts_default (opts->json ? OUTPUT_JSON : OUTPUT_PRETTY, color_ok && !opts->json && isatty (STDOUT_FILENO));
   ctx.err_color = color_ok && isatty (STDERR_FILENO);
   if (!sh_options_connection_string (opts, &uri, &db, &err)) {
      script_report (&ctx, &err, NULL, NULL);
      goto done;
   }
   if (opts->username && !opts->password && !opts->dry_run)
      opts->password = main_ask_password ();
   conn_init (&ctx, uri, db);

   if (opts->dashboard) {
      rc = dashboard_run (&ctx);
   } else if (opts->export_spec) {
      rc = desired_export (&ctx);
   } else if (opts->diff_file) {
      opts->plan = true; /* the statements go through --plan's pass only: nothing that writes is sent */
      rc = desired_diff (&ctx, opts->diff_file, main_plan_text);
   } else if (opts->apply_file) {
      rc = desired_apply (&ctx, opts->apply_file, main_plan_text);
   } else if (opts->n_evals || opts->n_files || piped) {
      inputs = bson_malloc0 ((opts->n_evals + opts->n_files + 1) * sizeof *inputs);
      for (size_t i = 0; i < opts->n_evals; i++) {
         inputs[n].name = "<eval>";
         inputs[n++].text = opts->evals[i];
      }
      for (size_t i = 0; i < opts->n_files; i++)
         inputs[n++].name = opts->files[i];
      if (!opts->n_evals && !opts->n_files)
         inputs[n++].name = "<stdin>";
      rc = script_run_inputs (&ctx, inputs, n, opts->verbose);
   } else {
      char *rc_path = getenv ("HOME") ? bson_strdup_printf ("%s/.shardshrc", getenv ("HOME")) : NULL;
      ctx.interactive = true;
      if (!opts->quiet) {
         char *shown = secret_redact_uri (uri);
         printf ("shardsh %s, connecting to %s\nType 'help' for the helpers, 'exit' or Ctrl-D to leave.\n",
                 SHARDSH_VERSION, shown);
         bson_free (shown);
      }
      if (rc_path && !opts->norc && access (rc_path, R_OK) == 0) {
         script_input_t rcfile = { .name = rc_path };
         script_run_inputs (&ctx, &rcfile, 1, false);
      }
      bson_free (rc_path);
      rc = repl_run (&ctx);
   }
done:
   bson_free (inputs);
   js_host_shutdown ();
   conn_destroy (&ctx);
   bson_free (uri);
   bson_free (db);
   return rc;
}

int
main (int argc, char **argv)
{
   sh_options_t opts;
   sh_error_t err;
   int rc;

   sh_error_clear (&err);
   if (!sh_options_parse (argc, argv, &opts, &err)) {
      sh_error_render (stderr, &err, NULL, NULL, false);
      sh_options_destroy (&opts);
      return 2;
   }
   if (opts.show_help || opts.show_version) {
      if (opts.show_help)
         sh_options_usage (stdout);
      else
         printf ("shardsh %s (mongo-c-driver %s)\n", SHARDSH_VERSION, MONGOC_VERSION_S);
      sh_options_destroy (&opts);
      return 0;
   }
   mongoc_init ();
   rc = main_run (&opts);
   mongoc_cleanup ();
   sh_options_destroy (&opts);
   return rc;
}
