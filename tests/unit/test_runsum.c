/* passes: plain asan */
/* The run summary of a script that ends before its end (issue 30 item 6, docs/plan.md "How a run ends"), through the
 * canned transport: a write whose reply was lost is "unknown — check the cluster", one never sent (no server could
 * be reached) "failed"; a JavaScript input that stopped names the part that did not run ("after line N"), never
 * "nothing"; quit(n) is the run's exit status, literal or JavaScript, and one out of range is refused before the
 * run. */
#include <stdlib.h>

#include "shell/core/conn.h"
#include "shell/js/js_host.h"
#include "shell/plan/runsum.h"
#include "shell/script.h"
#include "tests/unit/unit.h"

/* what the transport does to balancerStart: 0 answer, 1 lose the reply, 2 fail server selection */
static int fault;

static bool
transport (void *data, const char *db, const bson_t *cmd, bson_t *reply, bson_error_t *error)
{
   bson_iter_t it;
   const char *name = bson_iter_init (&it, cmd) && bson_iter_next (&it) ? bson_iter_key (&it) : "";
   (void) data;
   (void) db;
   bson_init (reply);
   if (!strcmp (name, "balancerStart") && fault == 1) {
      bson_set_error (error, MONGOC_ERROR_STREAM, MONGOC_ERROR_STREAM_SOCKET,
                      "Failed to send \"balancerStart\" command with database \"admin\": socket error or timeout");
      return false;
   }
   if (!strcmp (name, "balancerStart") && fault == 2) {
      bson_set_error (error, MONGOC_ERROR_SERVER_SELECTION, MONGOC_ERROR_SERVER_SELECTION_FAILURE,
                      "No suitable servers found (`serverSelectionTryOnce` set): [connection refused calling hello on "
                      "'127.0.0.1:1']");
      return false;
   }
   if (!strcmp (name, "find") || !strcmp (name, "aggregate")) {
      /* reads: an empty cursor */
      bson_t cursor, batch;
      BSON_APPEND_DOCUMENT_BEGIN (reply, "cursor", &cursor);
      BSON_APPEND_INT64 (&cursor, "id", 0);
      BSON_APPEND_UTF8 (&cursor, "ns", "config.settings");
      BSON_APPEND_ARRAY_BEGIN (&cursor, "firstBatch", &batch);
      bson_append_array_end (&cursor, &batch);
      bson_append_document_end (reply, &cursor);
   }
   if (!strcmp (name, "hello") || !strcmp (name, "isMaster"))
      BSON_APPEND_UTF8 (reply, "msg", "isdbgrid");
   if (!strcmp (name, "buildInfo"))
      BSON_APPEND_UTF8 (reply, "version", "7.0.0");
   if (!strcmp (name, "balancerStatus")) {
      BSON_APPEND_UTF8 (reply, "mode", "full");
      BSON_APPEND_BOOL (reply, "inBalancerRound", false);
   }
   BSON_APPEND_DOUBLE (reply, "ok", 1);
   return true;
}

/* Runs text as the file name (status lines, as -f shows them); returns the exit status, *err what went to stderr
 * (bson_free). */
static int
run (sh_ctx_t *ctx, const char *name, const char *text, char **err)
{
   script_input_t in = { name, text, true };
   FILE *f = tmpfile ();
   long n;
   int rc;
   ctx->err_fp = f;
   ctx->exit_requested = false;
   ctx->exit_code = 0;
   rc = script_run_inputs (ctx, &in, 1, false);
   fflush (f);
   n = ftell (f);
   *err = bson_malloc0 ((size_t) (n > 0 ? n : 0) + 1);
   rewind (f);
   if (n > 0 && fread (*err, 1, (size_t) n, f) != (size_t) n)
      (*err)[0] = '\0';
   fclose (f);
   return rc;
}

static void
expect (const char *name, int rc_want, int rc, const char *needle, const char *err)
{
   if (rc != rc_want || !strstr (err, needle))
      UNIT_FAIL (name, "exit %d (want %d), stderr [%s], wanted [%s]", rc, rc_want, err, needle);
   else
      UNIT_PASS (name);
}

static void
test_literal (sh_ctx_t *ctx)
{
   char *err;
   int rc;
   fault = 1;
   rc = run (ctx, "lost.js", "sh.stopBalancer()\nsh.startBalancer()\nsh.getBalancerState()\n", &err);
   expect (
      "runsum: a literal write whose reply was lost is unknown", 1, rc,
      "summary: ran lost.js:1; failed nothing; unknown \u2014 check the cluster: lost.js:2; did not run: lost.js:3",
      err);
   bson_free (err);
   fault = 2;
   rc = run (ctx, "unsent.js", "sh.stopBalancer()\nsh.startBalancer()\nsh.getBalancerState()\n", &err);
   expect ("runsum: a write never sent (no server) is failed, not unknown", 1, rc,
           "summary: ran unsent.js:1; failed unsent.js:2; did not run: unsent.js:3", err);
   bson_free (err);
   fault = 1;
   rc = run (ctx, "reads.js", "sh.getBalancerState()\nsh.getBalancerState()\n", &err);
   if (rc != 0 || strstr (err, "summary:"))
      UNIT_FAIL ("runsum: a run that ends well has no summary", "exit %d, [%s]", rc, err);
   else
      UNIT_PASS ("runsum: a run that ends well has no summary");
   bson_free (err);
   fault = 0;
   rc = run (ctx, "quit.js", "sh.stopBalancer()\nquit(3)\nsh.startBalancer()\n", &err);
   expect ("runsum: quit(3) as a statement exits 3 after the summary", 3, rc,
           "shardsh: the script called quit(3)\nsummary: ran quit.js:1, quit.js:2; failed nothing; did not run: "
           "quit.js:3",
           err);
   bson_free (err);
   rc = run (ctx, "quitbad.js", "sh.stopBalancer()\nquit(-1)\n", &err);
   expect ("runsum: quit(-1) is refused before the run", SCRIPT_NOT_RUN, rc,
           "the exit status must be a number from 0 to 255, got -1", err);
   bson_free (err);
}

static void
test_js (sh_ctx_t *ctx)
{
   char *err;
   int rc;
   fault = 1;
   rc = run (ctx, "lost2.js", "const a = 1\nsh.stopBalancer()\nsh.startBalancer()\nprint('never')\n", &err);
   expect ("runsum: a JavaScript write whose reply was lost is unknown, the rest did not run", 1, rc,
           "summary: ran lost2.js:2; failed nothing; unknown \u2014 check the cluster: lost2.js:3; did not run: "
           "lost2.js after line 3",
           err);
   CHECK ("runsum: a JavaScript read has no status line", !strstr (err, "lost2.js:1 ok"));
   bson_free (err);
   fault = 0;
   rc = run (ctx, "quit2.js", "const b = 1\nsh.stopBalancer()\nif (b) quit(5)\nsh.startBalancer()\n", &err);
   expect ("runsum: quit(5) in JavaScript exits 5, the rest did not run", 5, rc,
           "summary: ran quit2.js:2; failed nothing; did not run: quit2.js after line 3", err);
   bson_free (err);
   rc = run (ctx, "quit3.js", "const c = 1\nsh.stopBalancer()\nif (c) quit(2.5)\n", &err);
   CHECK ("runsum: quit(2.5) in JavaScript is an error", rc == SCRIPT_FAILED && strstr (err, "must be an integer"));
   bson_free (err);
   rc = run (ctx, "typo.js", "const d = 1\nsh.stopBalancer()\nzoen.x = 1\nsh.startBalancer()\n", &err);
   expect ("runsum: an uncaught JavaScript error: the rest is named, never 'nothing'", 1, rc,
           "summary: ran typo.js:2; failed typo.js:3; did not run: typo.js after line 3", err);
   bson_free (err);
}

/* The classification alone: which errors mean the reply was lost. */
static void
test_reply_lost (void)
{
   sh_error_t e;
   sh_error_clear (&e);
   CHECK ("runsum: no error, no lost reply", !run_summary_reply_lost (NULL));
   sh_error_set (&e, SH_ERR_NETWORK, "no reply to balancerStop: the connection was closed");
   CHECK ("runsum: no reply is a lost reply", run_summary_reply_lost (&e));
   sh_error_set (&e, SH_ERR_NETWORK, "cannot reach h:1: connection refused");
   CHECK ("runsum: cannot reach is not (nothing was sent)", !run_summary_reply_lost (&e));
   sh_error_set (&e, SH_ERR_INTERRUPTED, "interrupted: stopped waiting for the reply to balancerStop");
   CHECK ("runsum: a wait for the reply cut short is a lost reply", run_summary_reply_lost (&e));
   sh_error_set (&e, SH_ERR_INTERRUPTED, "interrupted: stopped waiting for the server");
   CHECK ("runsum: a wait for the server cut short is not", !run_summary_reply_lost (&e));
   sh_error_set (&e, SH_ERR_SERVER, "zone NOPE does not exist");
   CHECK ("runsum: a server error is not", !run_summary_reply_lost (&e));
}

int
main (void)
{
   const char *bindir = getenv ("BINDIR");
   char *plugin = bson_strdup_printf ("%s/shardsh-js.so", bindir && *bindir ? bindir : "bin");
   sh_options_t opts;
   sh_ctx_t ctx;
   FILE *sink = tmpfile ();

   setenv ("SHARDSH_JS_PLUGIN", plugin, 1);
   test_reply_lost ();
   memset (&opts, 0, sizeof opts);
   memset (&ctx, 0, sizeof ctx);
   opts.yes = true;
   opts.no_preflight = true;
   ctx.opts = &opts;
   ctx.out = output_opts_default (OUTPUT_PRETTY, false);
   ctx.out_fp = sink;
   ctx.err_fp = sink;
   conn_set_transport (transport, NULL);
   conn_init (&ctx, "mongodb://127.0.0.1:1/", "test");
   test_literal (&ctx);
   test_js (&ctx);
   js_host_shutdown ();
   conn_set_transport (NULL, NULL);
   conn_destroy (&ctx);
   bson_free (plugin);
   fclose (sink);
   UNIT_EXIT ();
}
