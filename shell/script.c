/* The script runner: parse everything, check everything, then send; JavaScript inputs go to the engine. See
 * script.h. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands/dispatch.h"
#include "shell/core/interrupt.h"
#include "shell/js/js_host.h"
#include "shell/lang/parser.h"
#include "shell/lib/clock.h"
#include "shell/plan/preflight.h"
#include "shell/core/readfile.h"
#include "shell/plan/runsum.h"
#include "shell/script.h"
#include "shell/script_out.h"
#include "commands/traps.h"

char *
script_read_file (const char *path, size_t *len, sh_error_t *err)
{
   return readfile_all (path, 0, NULL, len, err);
}

/* What became of a statement (of a JavaScript input: of the whole input), for the run summary. */
enum { SCRIPT_ST_NOT_RUN, SCRIPT_ST_OK, SCRIPT_ST_FAILED, SCRIPT_ST_UNKNOWN };

/* Why a run stopped before its end (docs/plan.md, "How a run ends"). */
typedef enum { SCRIPT_STOP_NONE, SCRIPT_STOP_FAILED, SCRIPT_STOP_SIGNAL, SCRIPT_STOP_QUIT } script_stop_t;

/* One input after checking: a literal script (today's path) or JavaScript text for the engine. */
typedef struct {
   sh_script_t lit;
   char *js; /* owned; NULL for a literal input */
   size_t js_len;
   uint8_t *st;            /* SCRIPT_ST_* per statement (one for a JavaScript input); owned, NULL until the run */
   run_summary_t *js_rs;   /* a JavaScript input's calls as they ran (js_host_run_script); owned, NULL until the run */
   sh_checked_t **checked; /* a literal input's checked statements (dispatch_check), one per statement, each freed by
                            * its run; owned, NULL for JavaScript */
} script_checked_t;

/* How far a run got: whether a statement failed, and from which one on nothing ran because of it. */
typedef struct {
   bool failed;
   bool skipping;
   size_t skip_i, skip_s; /* input and statement where skipping began */
   script_stop_t stop;    /* why it stopped (skipping from skip_i, skip_s), SCRIPT_STOP_NONE when it ran to its end */
} script_progress_t;

/* Checks an input the literal grammar did not take as JavaScript: compiled whole, nothing run. lit_err is the literal
 * parser's error when it failed (shown when the engine is not installed), else NULL. */
static bool
script_check_js (sh_ctx_t *ctx, const script_input_t *in, const char *text, size_t len, const sh_error_t *lit_err)
{
   sh_error_t err;
   sh_error_clear (&err);
   if (js_host_check (ctx, in->name, text, len, &err))
      return true;
   if (err.kind == SH_ERR_PARSE) {
      sh_error_report (ctx, &err, in->name, text);
   } else if (lit_err) {
      /* no engine: the literal parser's own error, and why JavaScript is not an option */
      sh_error_t e = *lit_err;
      sh_error_hint (&e, "%s", err.message);
      sh_error_report (ctx, &e, in->name, text);
   } else {
      sh_error_report (ctx, &err, in->name, text);
   }
   return false;
}

/* The run summary's note of a statement that ran, with its call (dispatch_with_call's callback). */
typedef struct {
   run_summary_t *rs;
   const char *file;
   int line;
   bool unknown; /* its reply was lost */
} script_note_t;

static bool
script_note_call (void *data, const sh_call_t *call, bool writes, sh_error_t *err)
{
   script_note_t *n = data;
   (void) writes;
   (void) err;
   if (n->unknown)
      run_summary_unknown (n->rs, n->file, n->line, call);
   else
      run_summary_note (n->rs, n->file, n->line, call, true);
   return true;
}

/* The record of a run that failed (shell/plan/runsum.h), written from what became of each statement: only a failed run
 * prints one, so the statements that ran are resolved again here rather than noted one by one as they run. */
static run_summary_t *
script_summary (sh_ctx_t *ctx, const script_input_t *inputs, const script_checked_t *ins, size_t n,
                const script_progress_t *pr)
{
   run_summary_t *rs = run_summary_new ();
   for (size_t i = 0; i < n; i++) {
      size_t count = ins[i].js ? 1 : ins[i].lit.n;
      for (size_t s = 0; s < count; s++) {
         const char *file = ins[i].js ? inputs[i].name : ins[i].lit.name;
         int line = ins[i].js ? 1 : ins[i].lit.stmts[s].pos.line;
         uint8_t st = ins[i].st ? ins[i].st[s] : SCRIPT_ST_NOT_RUN;
         script_note_t note = { rs, file, line, st == SCRIPT_ST_UNKNOWN };
         sh_error_t err;
         if (pr->skipping && (i > pr->skip_i || (i == pr->skip_i && s >= pr->skip_s))) {
            run_summary_skipped (rs, file, line);
         } else if (ins[i].js_rs) {
            run_summary_append (rs, ins[i].js_rs); /* its calls, each at its line */
         } else if (st == SCRIPT_ST_FAILED) {
            run_summary_note (rs, file, line, NULL, false);
         } else if (st == SCRIPT_ST_OK || st == SCRIPT_ST_UNKNOWN) {
            sh_error_clear (&err);
            if (!ins[i].js && dispatch_with_call (ctx, &ins[i].lit.stmts[s], script_note_call, &note, &err))
               continue;
            if (st == SCRIPT_ST_UNKNOWN)
               run_summary_unknown (rs, file, line, NULL);
            else
               run_summary_note (rs, file, line, NULL, true);
         }
      }
   }
   return rs;
}

/* The JavaScript inputs for the pre-flight (preflight_js_t): the host runs them with their writes held back. */
typedef struct {
   sh_ctx_t *ctx;
   const script_input_t *inputs;
   const script_checked_t *ins;
} script_js_pf_t;

static bool
script_js_may_write (void *data, size_t i)
{
   const script_js_pf_t *j = data;
   /* under --readonly nothing is written: a write is refused where it is called */
   return j->ins[i].js && !(j->ctx->opts && j->ctx->opts->readonly) &&
          js_host_may_write (j->ins[i].js, j->ins[i].js_len);
}

static int
script_js_check (void *data, size_t i, preflight_t *pf, bool *wrote)
{
   const script_js_pf_t *j = data;
   /* every JavaScript input is run, the read-only ones too: with the others it is one program (a library's
    * functions), and an error in it after a write would half-apply the script */
   if (!j->ins[i].js || (j->ctx->opts && j->ctx->opts->readonly))
      return 0;
   return js_host_preflight (j->ctx, j->inputs[i].name, j->ins[i].js, j->ins[i].js_len, pf, wrote);
}

/* What statement s of literal input in shows (docs/plan.md, "Script output"): a -f file what it prints, a status line
 * per write or failure on stderr and, under --json, one object per statement; --eval the value of its last statement;
 * standard input and the rc file everything, as the interactive shell does. --verbose shows everything. */
static script_show_t
script_show (const sh_ctx_t *ctx, const script_input_t *in, const sh_script_t *lit, size_t s, bool verbose,
             bool *status)
{
   bool file = (!in->text || in->as_file) && strcmp (in->name, "-") != 0 && strcmp (in->name, "<stdin>") != 0 &&
               !ctx->interactive;
   bool json = ctx->opts && ctx->opts->json;
   *status = file && !json && !(ctx->opts && ctx->opts->no_status);
   if (file)
      return json ? SCRIPT_SHOW_JSON : verbose ? SCRIPT_SHOW_ALL : SCRIPT_SHOW_PRINTS;
   if (in->text && !verbose && s + 1 < lit->n)
      return SCRIPT_SHOW_PRINTS;
   return SCRIPT_SHOW_ALL;
}

/* The run's lines on stderr (a status line per write or failure, warnings, errors) when stderr is not a terminal and
 * nobody is asked to confirm: batched in a buffer of their own instead of written one at a time, and written before
 * anything of a statement may reach stdout (so `2>&1` keeps its order), when 100 ms went by since the last write
 * (checked as each statement starts), on an error (sh_error_report flushes) and at the end. A terminal gets each line
 * at once. */
typedef struct {
   FILE *saved; /* ctx->err_fp before the run; NULL when not batching */
   int64_t written_ms;
} script_err_batch_t;

/* js_host_report_t's call: a JavaScript call's status line or --json object, as script_out_call shows it (arg: the
 * script_show_t). */
static void
script_js_report (void *arg, sh_ctx_t *ctx, const char *file, int line, int col, const char *stmt, bool ok,
                  const sh_error_t *err, const bson_value_t *result, const char *text)
{
   script_place_t at = { file, line, col };
   script_out_call (ctx, *(const script_show_t *) arg, &at, stmt, ok, err, result, text);
}

static void
script_err_batch_begin (sh_ctx_t *ctx, script_err_batch_t *b)
{
   int fd;
   FILE *f = NULL;
   memset (b, 0, sizeof *b);
   if (ctx->interactive || !ctx->err_fp || fileno (ctx->err_fp) < 0 || isatty (fileno (ctx->err_fp)))
      return;
   fflush (ctx->err_fp);
   fd = dup (fileno (ctx->err_fp));
   if (fd < 0 || !(f = fdopen (fd, "w"))) {
      if (fd >= 0)
         close (fd);
      return;
   }
   setvbuf (f, NULL, _IOFBF, 1 << 16);
   b->saved = ctx->err_fp;
   ctx->err_fp = f;
   b->written_ms = clock_mono_ms ();
}

/* Writes what is batched when now is true or 100 ms went by. */
static void
script_err_batch_flush (sh_ctx_t *ctx, script_err_batch_t *b, bool now)
{
   int64_t t;
   if (!b->saved)
      return;
   t = clock_mono_ms ();
   if (now || t - b->written_ms >= 100) {
      fflush (ctx->err_fp);
      b->written_ms = t;
   }
}

static void
script_err_batch_end (sh_ctx_t *ctx, script_err_batch_t *b)
{
   if (!b->saved)
      return;
   fclose (ctx->err_fp);
   ctx->err_fp = b->saved;
   b->saved = NULL;
}

/* What became of a literal statement that failed with err: unknown when it writes and its reply was lost. */
static uint8_t
script_lit_failed (sh_ctx_t *ctx, const sh_stmt_t *st, const sh_error_t *err)
{
   bool writes = false;
   sh_error_t e;
   sh_error_clear (&e);
   if (!run_summary_reply_lost (err) || !dispatch_stmt_writes (ctx, (sh_stmt_t *) st, &writes, &e) || !writes)
      return SCRIPT_ST_FAILED;
   return SCRIPT_ST_UNKNOWN;
}

/* True when text (len bytes) has anything but white space after its line line. */
static bool
script_text_after (const char *text, size_t len, int line)
{
   size_t i = 0;
   for (int l = 1; l <= line && i < len; i++)
      l += text[i] == '\n';
   for (; i < len; i++) {
      if (text[i] != ' ' && text[i] != '\t' && text[i] != '\n' && text[i] != '\r')
         return true;
   }
   return false;
}

/* After JavaScript input i ran with result r (err its error): records why it stopped in pr and, when its text goes on
 * after the line where it stopped, that the rest did not run. True when the run ends here. */
static bool
script_js_stopped (sh_ctx_t *ctx, const script_input_t *in, script_checked_t *ck, js_run_t r, const sh_error_t *err,
                   bool go_on, size_t i, script_progress_t *pr)
{
   script_stop_t stop = SCRIPT_STOP_NONE;
   int line;
   if (r == JS_RUN_FAILED)
      stop = SCRIPT_STOP_FAILED;
   else if (r == JS_RUN_STOPPED)
      stop = ctx->exit_requested ? SCRIPT_STOP_QUIT : sh_interrupt_signal () ? SCRIPT_STOP_SIGNAL : SCRIPT_STOP_FAILED;
   if (stop == SCRIPT_STOP_NONE)
      return false;
   if (stop != SCRIPT_STOP_FAILED)
      ck->st[0] = SCRIPT_ST_OK; /* it stopped as asked: what it ran is in its record */
   line = r == JS_RUN_FAILED && err->has_pos ? err->pos.line : run_summary_last_line (ck->js_rs);
   if (script_text_after (ck->js, ck->js_len, line))
      run_summary_rest (ck->js_rs, in->name, line);
   if (stop == SCRIPT_STOP_FAILED && go_on) {
      pr->failed = true;
      return false;
   }
   *pr = (script_progress_t){
      .failed = pr->failed || stop == SCRIPT_STOP_FAILED, .skipping = true, .skip_i = i + 1, .stop = stop
   };
   return true;
}

/* script_run's loop (eb: the batched stderr). */
static void
script_run_all (sh_ctx_t *ctx, const script_input_t *inputs, script_checked_t *ins, size_t n, bool verbose,
                const preflight_t *pf, script_progress_t *pr, script_err_batch_t *eb)
{
   bool go_on = ctx->opts && ctx->opts->continue_on_error;
   bool dry = ctx->opts && ctx->opts->dry_run;
   sh_error_t err;
   for (size_t i = 0; i < n; i++) {
      if (ctx->exit_requested || sh_interrupted ()) {
         *pr = (script_progress_t){ .failed = pr->failed,
                                    .skipping = true,
                                    .skip_i = i,
                                    .stop = ctx->exit_requested ? SCRIPT_STOP_QUIT : SCRIPT_STOP_SIGNAL };
         return;
      }
      ins[i].st = bson_malloc0 (ins[i].js ? 1 : ins[i].lit.n + 1);
      if (ins[i].js) {
         /* --eval prints the value of its last expression, as mongosh does; a file prints only what it prints */
         js_run_t r;
         bool status;
         script_show_t show = script_show (ctx, &inputs[i], &ins[i].lit, 0, verbose, &status);
         js_host_report_t report = { show == SCRIPT_SHOW_JSON, !(ctx->opts && ctx->opts->quiet), script_js_report,
                                     &show };
         script_err_batch_flush (ctx, eb, true);
         sh_error_clear (&err);
         ins[i].js_rs = run_summary_new ();
         r = js_host_run_script (ctx, inputs[i].name, ins[i].js, ins[i].js_len, inputs[i].text != NULL,
                                 status || show == SCRIPT_SHOW_JSON ? &report : NULL, ins[i].js_rs, &err);
         ins[i].st[0] = r != JS_RUN_FAILED && r != JS_RUN_STOPPED ? SCRIPT_ST_OK : SCRIPT_ST_FAILED;
         if (r == JS_RUN_FAILED) {
            /* at its place: in a function a library defined, that file's */
            const char *ef = js_host_error_file (), *et = NULL;
            size_t el;
            bool lib = ef && js_host_file_text (ef, &et, &el);
            sh_error_report (ctx, &err, lib ? ef : inputs[i].name, lib ? et : ins[i].js);
         }
         if (script_js_stopped (ctx, &inputs[i], &ins[i], r, &err, go_on, i, pr))
            return;
         continue;
      }
      script_show_t show = SCRIPT_SHOW_ALL;
      bool status = false;
      for (size_t s = 0; s < ins[i].lit.n; s++) {
         const sh_stmt_t *st = &ins[i].lit.stmts[s];
         if (ctx->exit_requested || sh_interrupted ()) {
            /* quit(n) or a signal: the run ends at this statement boundary */
            *pr = (script_progress_t){ .failed = pr->failed,
                                       .skipping = true,
                                       .skip_i = i,
                                       .skip_s = s,
                                       .stop = ctx->exit_requested ? SCRIPT_STOP_QUIT : SCRIPT_STOP_SIGNAL };
            return;
         }
         script_out_t so;
         output_opts_t out_saved;
         FILE *batch_fp = NULL;
         bool ok, direct;
         /* the same for every statement of a file: only --eval's last statement shows more */
         if (s == 0 || inputs[i].text)
            show = script_show (ctx, &inputs[i], &ins[i].lit, s, verbose, &status);
         sh_error_clear (&err);
         script_out_begin (&so, ctx, show, status, ins[i].lit.name, ins[i].lit.source, st);
         ctx->confirm_effect = preflight_effect (pf, i, s);
         /* stderr's lines so far go out before anything of this statement may reach stdout; while such a statement
          * runs, what it writes to stderr (a warning) goes out at once, between its stdout lines (a -f statement shows
          * what it prints: its results are not even formatted) */
         direct = eb->saved && (!script_out_unseen (&so) || dry);
         script_err_batch_flush (ctx, eb, direct);
         if (direct) {
            batch_fp = ctx->err_fp;
            ctx->err_fp = eb->saved;
         }
         /* a value shown outside the REPL is inspected without limits, as mongosh's --eval does (every array entry,
          * every level); print and printjson keep theirs */
         out_saved = ctx->out;
         if (show == SCRIPT_SHOW_ALL && !ctx->interactive && !so.is_print)
            ctx->out.depth = -1;
         ok = dispatch_run (ctx, ins[i].checked[s], &so.result, &err);
         dispatch_checked_free (ins[i].checked[s]); /* its requests were sent: nothing of its check is kept */
         ins[i].checked[s] = NULL;
         if (direct) {
            fflush (ctx->err_fp);
            ctx->err_fp = batch_fp;
         }
         ctx->confirm_effect = NULL;
         script_out_end (&so, ok, &err);
         ctx->out = out_saved;
         if (!eb->saved)
            fflush (ctx->err_fp); /* its status line, at once */
         ins[i].st[s] = ok ? SCRIPT_ST_OK : script_lit_failed (ctx, st, &err);
         if (!ok && sh_interrupt_signal () && err.kind == SH_ERR_INTERRUPTED) {
            /* a wait or a reply cut short by the signal: the run ends here (said by the summary's first line) */
            bool lost = ins[i].st[s] == SCRIPT_ST_UNKNOWN;
            if (!lost)
               ins[i].st[s] = SCRIPT_ST_NOT_RUN;
            *pr = (script_progress_t){
               .failed = pr->failed, .skipping = true, .skip_i = i, .skip_s = s + lost, .stop = SCRIPT_STOP_SIGNAL
            };
            return;
         }
         if (!ok) {
            sh_error_report (ctx, &err, ins[i].lit.name, ins[i].lit.source);
            pr->failed = true;
            if (!go_on) {
               *pr = (script_progress_t){
                  .failed = true, .skipping = true, .skip_i = i, .skip_s = s + 1, .stop = SCRIPT_STOP_FAILED
               };
               return;
            }
         }
         /* stdout was flushed by script_out_end, and nothing has written to it since */
      }
   }
}

/* Step 3 of script_run_inputs: runs the checked inputs in order, recording what became of each statement in ins[].st
 * and in pr where a failure stopped the run. */
static void
script_run (sh_ctx_t *ctx, const script_input_t *inputs, script_checked_t *ins, size_t n, bool verbose,
            const preflight_t *pf, script_progress_t *pr)
{
   script_err_batch_t eb;
   script_err_batch_begin (ctx, &eb);
   script_run_all (ctx, inputs, ins, n, verbose, pf, pr, &eb);
   script_err_batch_end (ctx, &eb);
}

/* Step 2's first part: the version traps of every input (commands/traps.c), said before anything runs; lits[i] is the
 * literal script of input i, NULL for JavaScript. */
static void
script_traps (sh_ctx_t *ctx, const script_input_t *inputs, const script_checked_t *ins, const sh_script_t **lits,
              size_t n)
{
   const char **js = bson_malloc0 ((n ? n : 1) * sizeof *js), **names = bson_malloc0 ((n ? n : 1) * sizeof *names);
   size_t *js_len = bson_malloc0 ((n ? n : 1) * sizeof *js_len);
   for (size_t i = 0; i < n; i++) {
      js[i] = ins[i].js;
      js_len[i] = ins[i].js_len;
      names[i] = inputs[i].name;
   }
   traps_check_scripts (ctx, lits, js, js_len, names, n);
   bson_free (js);
   bson_free (names);
   bson_free (js_len);
}

/* How the run ended (docs/plan.md, "How a run ends"), and the summary on stderr when it did not simply run to its end:
 * a statement failed, a signal stopped it, quit(n) with n other than 0, or stdout was closed under it. Returns the exit
 * status: 128 + the signal, quit's n, SCRIPT_FAILED, else rc. */
static int
script_end (sh_ctx_t *ctx, const script_input_t *inputs, script_checked_t *ins, size_t n, const script_progress_t *pr,
            const preflight_t *pf, bool ran, int rc)
{
   int sig = sh_interrupt_signal ();
   bool quit = ctx->exit_requested && ctx->exit_code != 0;
   bool closed = ran && ctx->out_fp && (fflush (ctx->out_fp) != 0 || ferror (ctx->out_fp));
   run_summary_t *rs;
   if (pr->failed)
      rc = SCRIPT_FAILED;
   if (ctx->exit_requested)
      rc = ctx->exit_code;
   if (sig)
      rc = 128 + sig;
   if (!pr->failed && !sig && !quit && !closed)
      return rc;
   if (sig)
      fprintf (ctx->err_fp, "shardsh: stopped by %s %s (exit %d)\n", sig == SIGTERM ? "SIGTERM" : "SIGINT",
               ran ? "at a statement boundary" : "before anything was sent", rc);
   else if (quit)
      fprintf (ctx->err_fp, "shardsh: the script called quit(%d)\n", ctx->exit_code);
   if (closed)
      fprintf (ctx->err_fp, "shardsh: stdout was closed: what the script printed after that was lost%s\n",
               pr->stop == SCRIPT_STOP_NONE ? "; the script ran to its end" : "");
   if (!ran) {
      fflush (ctx->err_fp);
      return rc;
   }
   rs = script_summary (ctx, inputs, ins, n, pr);
   if (run_summary_worth (rs) || sig || closed)
      run_summary_print (ctx, rs, pf);
   run_summary_free (rs);
   return rc;
}

int
script_run_inputs (sh_ctx_t *ctx, const script_input_t *inputs, size_t n, bool verbose)
{
   script_checked_t *ins = bson_malloc0 (n * sizeof *ins);
   const sh_script_t **lits = NULL;
   preflight_t *pf = NULL;
   size_t nstmts = 0;
   bool all_eval = true;
   sh_error_t err;
   int rc = SCRIPT_NOT_RUN;
   script_progress_t pr = { .failed = false };
   bool ran = false;
   dispatch_check_t check; /* the literal statements' checks, across all inputs (a `use` in one holds for the next) */

   dispatch_check_init (&check);
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
         sh_error_report (ctx, &err, NULL, NULL);
         goto done;
      }
      parsed = sh_parse_script (inputs[i].name, text, len, &ins[i].lit, &err);
      if (!parsed || !dispatch_script_is_literal (ctx, &ins[i].lit)) {
         sh_script_destroy (&ins[i].lit);
         memset (&ins[i].lit, 0, sizeof ins[i].lit);
         ins[i].js = text;
         ins[i].js_len = len;
         if (!script_check_js (ctx, &inputs[i], text, len, parsed ? NULL : &err))
            goto done;
         continue;
      }
      bson_free (text);
      ins[i].checked = bson_malloc0 ((ins[i].lit.n ? ins[i].lit.n : 1) * sizeof *ins[i].checked);
      for (size_t s = 0; s < ins[i].lit.n; s++) {
         sh_error_clear (&err);
         if (!(ins[i].checked[s] = dispatch_check (ctx, &check, &ins[i].lit.stmts[s], &err))) {
            sh_error_report (ctx, &err, ins[i].lit.name, ins[i].lit.source);
            goto done;
         }
      }
   }
   dispatch_check_destroy (&check);
   /* 2. pre-flight: the literal statements against the cluster before anything that writes (shell/plan/preflight.c) */
   lits = bson_malloc0 ((n ? n : 1) * sizeof *lits);
   for (size_t i = 0; i < n; i++) {
      lits[i] = ins[i].js ? NULL : &ins[i].lit;
      nstmts += ins[i].js ? 2 : ins[i].lit.n;
      all_eval &= inputs[i].text != NULL;
   }
   script_traps (ctx, inputs, ins, lits, n);
   /* a single --eval statement has nothing before it to protect: it is checked by its own run. JavaScript inputs are
    * run by the pre-flight with their writes held back (js_host_preflight), then run afresh */
   {
      script_js_pf_t jd = { ctx, inputs, ins };
      preflight_js_t js = { script_js_may_write, script_js_check, &jd };
      rc = all_eval && nstmts <= 1 && !(ctx->opts && ctx->opts->plan) ? SCRIPT_OK
                                                                      : preflight_scripts (ctx, lits, n, &js, &pf);
      js_host_preflight_done ();
   }
   if (rc != SCRIPT_OK || (ctx->opts && ctx->opts->plan) || sh_interrupted ())
      goto done; /* a signal during the pre-flight: nothing was sent */
   /* 3. run */
   rc = SCRIPT_OK;
   ran = true;
   script_run (ctx, inputs, ins, n, verbose, pf, &pr);
done:
   dispatch_check_destroy (&check);
   rc = script_end (ctx, inputs, ins, n, &pr, pf, ran, rc);
   preflight_free (pf);
   bson_free (lits);
   for (size_t i = 0; i < n; i++) {
      for (size_t s = 0; ins[i].checked && s < ins[i].lit.n; s++)
         dispatch_checked_free (ins[i].checked[s]); /* the statements that did not run */
      bson_free (ins[i].checked);
      sh_script_destroy (&ins[i].lit);
      bson_free (ins[i].js);
      bson_free (ins[i].st);
      run_summary_free (ins[i].js_rs);
   }
   bson_free (ins);
   return rc;
}
