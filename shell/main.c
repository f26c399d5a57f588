/* shardsh's entry point: parse options, set up the session, and pick the mode (scripts, REPL). */
#include <mongoc/mongoc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "commands/session.h"
#include "shell/cli.h"
#include "shell/lib/secret.h"
#include "shell/core/conn.h"
#include "shell/core/conn_registry.h"
#include "shell/core/interrupt.h"
#include "shell/core/prompt.h"
#include "shell/desired/desired.h"
#include "views/dashboard.h"
#include "views/exporter.h"
#include "shell/js/js_host.h"
#include "shell/repl.h"
#include "shell/plan/preflight.h"
#include "shell/script.h"

#define SHARDSH_VERSION "0.1.0"

/* Keeps passwords out of reach of other users of the machine once the options hold their own copies: the process
 * title (what ps and /proc/PID/cmdline show, read from argv's memory) gets -p's value and the secrets of every other
 * argument (a connection string's password, a pwd in --eval code) overwritten with '*', as mongosh hides them from its
 * title; and no core dump (nor ptrace by other processes of the user) can carry them off. */
static void
main_hide_secrets (int argc, char **argv)
{
   struct rlimit none = { 0, 0 };
   setrlimit (RLIMIT_CORE, &none);
   prctl (PR_SET_DUMPABLE, 0, 0, 0, 0);
   for (int i = 1; i < argc; i++) {
      size_t n = strlen (argv[i]), m;
      bool flag = !strcmp (argv[i], "-p") || !strcmp (argv[i], "--password");
      if ((!strncmp (argv[i], "--password=", 11) || !strncmp (argv[i], "-p=", 3)) && strchr (argv[i], '=')) {
         char *v = strchr (argv[i], '=') + 1;
         memset (v, '*', strlen (v));
         continue;
      }
      if (flag && i + 1 < argc && argv[i + 1][0] != '-') {
         memset (argv[i + 1], '*', strlen (argv[i + 1]));
         i++;
         continue;
      }
      /* the same rule as every other output (shell/lib/secret.h); what it shortens is padded with blanks */
      m = secret_mask_source (argv[i], n);
      memset (argv[i] + m, ' ', n - m);
   }
}

/* --exporter: every positional connection string ("NAME=URI" or "URI") becomes a cluster, its URI built as for the
 * shell (credentials, TLS, --host/--port), its label given or its host list; then the exporter runs, read-only. */
static int
main_exporter (sh_options_t *opts)
{
   size_t n = (opts->conn_arg ? 1 : 0) + opts->n_more_conns;
   exporter_cluster_t *cl = bson_malloc0 ((n ? n : 1) * sizeof *cl);
   char (*names)[128] = bson_malloc0 ((n ? n : 1) * sizeof *names);
   sh_error_t err;
   int rc = 2;

   sh_error_clear (&err);
   opts->readonly = true;
   if (opts->username && !opts->password &&
       !(opts->password = sh_prompt_password ("Enter password", "--password", &err))) {
      sh_error_render (stderr, &err, NULL, NULL, false);
      goto done;
   }
   for (size_t i = 0; i < (n ? n : 1); i++) {
      sh_options_t one = *opts;
      char *uri = NULL, *db = NULL;
      const char *arg = i == 0 ? opts->conn_arg : opts->more_conns[i - 1];
      one.conn_arg = arg ? (char *) exporter_cluster_arg (arg, names[i], sizeof names[i]) : NULL;
      if (!sh_options_connection_string (&one, &uri, &db, &err)) {
         sh_error_render (stderr, &err, NULL, NULL, false);
         n = i;
         goto done;
      }
      if (!names[i][0])
         exporter_default_name (uri, names[i], sizeof names[i]);
      for (size_t j = 0; j < i; j++) {
         if (!strcmp (names[j], names[i])) {
            fprintf (stderr, "shardsh: --exporter: two clusters are named '%s': name them NAME=URI\n", names[i]);
            bson_free (uri);
            bson_free (db);
            n = i;
            goto done;
         }
      }
      cl[i] = (exporter_cluster_t){ .name = names[i], .uri = uri, .db = db };
   }
   n = n ? n : 1;
   rc = exporter_run (opts, cl, n);
done:
   for (size_t i = 0; i < n; i++) {
      bson_free ((char *) cl[i].uri);
      bson_free ((char *) cl[i].db);
   }
   bson_free (cl);
   bson_free (names);
   return rc;
}

/* The diff's statements through the script runner (desired_plan_fn): --plan's pass for --diff (main_run sets --plan),
 * a run for --apply. */
static int
main_plan_text (sh_ctx_t *ctx, const char *name, const char *text)
{
   script_input_t in = { .name = name, .text = text, .as_file = !ctx->opts->plan };
   return script_run_inputs (ctx, &in, 1, false);
}

/* The shell: the banner, ~/.shardshrc, then the REPL (shell/repl.c: a person at a terminal, or standard input read as
 * mongosh reads it when it is not a terminal, where nobody can be asked to confirm). uri is NULL under --nodb. */
static int
main_shell (sh_ctx_t *ctx, const char *uri)
{
   const sh_options_t *opts = ctx->opts;
   char *rc_path = getenv ("HOME") ? bson_strdup_printf ("%s/.shardshrc", getenv ("HOME")) : NULL;
   int rc;
   ctx->interactive = isatty (STDIN_FILENO);
   if (!opts->quiet) {
      char *shown = uri ? secret_redact_uri (uri) : bson_strdup ("nothing (--nodb)");
      printf ("shardsh %s, connecting to %s\nType 'help' for the helpers, 'exit' or Ctrl-D to leave.\n",
              SHARDSH_VERSION, shown);
      bson_free (shown);
   }
   if (rc_path && !opts->norc && access (rc_path, R_OK) == 0) {
      script_input_t rcfile = { .name = rc_path };
      script_run_inputs (ctx, &rcfile, 1, false);
   }
   bson_free (rc_path);
   rc = repl_run (ctx);
   ctx->interactive = false;
   return rc;
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
   if (opts->nodb) {
      db = bson_strdup ("test"); /* no connection: uri stays NULL (conn_ensure refuses) */
   } else if (!sh_options_connection_string (opts, &uri, &db, &err)) {
      sh_error_report (&ctx, &err, NULL, NULL);
      goto done;
   }
   if (opts->username && !opts->password && !opts->dry_run && uri &&
       !(opts->password = sh_prompt_password ("Enter password", "--password", &err))) {
      sh_error_report (&ctx, &err, NULL, NULL); /* no terminal to ask on: say so rather than fail to authenticate */
      goto done;
   }
   conn_init (&ctx, uri, db);

   if (opts->dashboard) {
      rc = dashboard_run (&ctx);
   } else if (opts->export_spec) {
      rc = desired_export (&ctx);
   } else if (opts->diff_file) {
      opts->plan = true; /* the statements go through --plan's pass only: nothing that writes is sent */
      rc = desired_diff (&ctx, opts->diff_file, main_plan_text);
   } else if (opts->apply_file) {
      sh_interrupt_install_script (); /* a summary on every way the run ends (docs/plan.md, "How a run ends") */
      rc = desired_apply (&ctx, opts->apply_file, main_plan_text);
   } else if (opts->n_evals || opts->n_files || (piped && (opts->dry_run || opts->plan || opts->json))) {
      inputs = bson_malloc0 ((opts->n_evals + opts->n_files + 1) * sizeof *inputs);
      for (size_t i = 0; i < opts->n_evals; i++) {
         inputs[n].name = "<eval>";
         inputs[n++].text = opts->evals[i];
      }
      for (size_t i = 0; i < opts->n_files; i++)
         inputs[n++].name = opts->files[i];
      if (!opts->n_evals && !opts->n_files)
         inputs[n++].name = "<stdin>";
      sh_interrupt_install_script ();
      rc = script_run_inputs (&ctx, inputs, n, opts->verbose);
      if (opts->shell && rc == SCRIPT_OK && !ctx.exit_requested)
         rc = main_shell (&ctx, uri); /* --shell: the shell after the scripts, as mongosh's */
   } else {
      rc = main_shell (&ctx, uri);
   }
done:
   bson_free (inputs);
   js_host_shutdown ();
   cmd_session_end (&ctx);
   conn_registry_free (&ctx); /* the script's second connections (new Mongo(uri)) */
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
   main_hide_secrets (argc, argv);
   mongoc_init ();
   rc = opts.exporter ? main_exporter (&opts) : main_run (&opts);
   mongoc_cleanup ();
   sh_options_destroy (&opts);
   return rc;
}
