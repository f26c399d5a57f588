/* libFuzzer target for what operators type: arbitrary bytes through the statement parser (sh_parse_script,
 * sh_parse_needs_more, sh_parse_value), the caret renderer (sh_error_render at the parse error and at every position
 * the parser hands out), the dispatcher's checks (dispatch_check: every build() on whatever arguments parsed),
 * a --dry-run run of the statements, and the credential filters (secret_redact_uri, secret_redact_source_str,
 * secret_line_is_sensitive).
 * Built by `make fuzz`; tests/unit/test_fuzz_regressions.c replays saved inputs through fuzz_parser_one. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "shell/core/conn.h"
#include "shell/lib/secret.h"
#include "commands/dispatch.h"
#include "tests/fuzz/fuzz.h"
#include "shell/lang/parser.h"
#include "shell/repl.h"

static FILE *fuzz_sink;

static FILE *
sink (void)
{
   if (!fuzz_sink)
      fuzz_sink = fopen ("/dev/null", "w");
   return fuzz_sink;
}

/* Renders a made-up error at pos, in colour and without, against the script's source. */
static void
render_at (const char *source, sh_pos_t pos)
{
   sh_error_t err;
   sh_error_set_at (&err, SH_ERR_ARGS, pos, "fuzz");
   sh_error_hint (&err, "hint");
   sh_error_render (sink (), &err, "<fuzz>", source, false);
   sh_error_render (sink (), &err, NULL, source, true);
}

/* True for statements that must not run under the fuzzer even in --dry-run: sleep(ms) really sleeps. */
static bool
stmt_sleeps (const sh_stmt_t *stmt)
{
   return stmt->kind == SH_STMT_CHAIN && stmt->nsegs > 0 && !strcmp (stmt->segs[0].name, "sleep");
}

static void
run_statements (const sh_script_t *script)
{
   sh_options_t opts;
   sh_ctx_t ctx;
   dispatch_check_t check;

   memset (&opts, 0, sizeof opts);
   opts.dry_run = true;
   opts.yes = true;
   memset (&ctx, 0, sizeof ctx);
   ctx.opts = &opts;
   ctx.out = output_opts_default (OUTPUT_PRETTY, false);
   ctx.out_fp = sink ();
   ctx.err_fp = sink ();
   conn_init (&ctx, "mongodb://user:secret@127.0.0.1:1/?serverSelectionTimeoutMS=1", "test");
   dispatch_check_init (&check);
   for (size_t s = 0; s < script->n; s++) {
      sh_error_t err;
      sh_checked_t *checked;
      sh_error_clear (&err);
      if (!(checked = dispatch_check (&ctx, &check, &script->stmts[s], &err))) {
         sh_error_render (sink (), &err, script->name, script->source, true);
         continue;
      }
      if (!stmt_sleeps (&script->stmts[s])) {
         sh_error_clear (&err);
         if (!dispatch_run (&ctx, checked, NULL, &err))
            sh_error_render (sink (), &err, script->name, script->source, false);
         ctx.exit_requested = false;
      }
      dispatch_checked_free (checked);
   }
   dispatch_check_destroy (&check);
   conn_destroy (&ctx);
}

void
fuzz_parser_one (const uint8_t *data, size_t size)
{
   sh_script_t script;
   sh_error_t err;
   char *text = bson_malloc (size + 1);
   bson_t doc = BSON_INITIALIZER;

   memcpy (text, data, size);
   text[size] = '\0';
   memset (&script, 0, sizeof script);
   sh_error_clear (&err);

   (void) sh_parse_needs_more (text, size);
   if (sh_parse_script ("<fuzz>", text, size, &script, &err)) {
      for (size_t s = 0; s < script.n; s++) {
         const sh_stmt_t *st = &script.stmts[s];
         render_at (script.source, st->pos);
         render_at (script.source, st->end_pos);
         for (size_t g = 0; g < st->nsegs; g++) {
            render_at (script.source, st->segs[g].pos);
            render_at (script.source, st->segs[g].close_pos);
            for (int a = 0; a < st->segs[g].argc; a++)
               render_at (script.source, st->segs[g].arg_pos[a]);
         }
      }
      run_statements (&script);
   } else {
      sh_error_render (sink (), &err, "<fuzz>", text, false);
      sh_error_render (sink (), &err, NULL, text, true);
   }
   sh_script_destroy (&script);

   sh_error_clear (&err);
   if (sh_parse_value (text, size, &doc, "v", &err)) {
      char *s = output_format_doc (&doc, &(output_opts_t){ .mode = OUTPUT_PRETTY, .break_length = 80, .depth = 6 });
      bson_free (s);
   } else {
      sh_error_render (sink (), &err, NULL, text, false);
   }
   bson_destroy (&doc);

   bson_free (secret_redact_uri (text));
   bson_free (secret_redact_source_str (text)); /* the in-place mask of every statement shown (stars, memmove) */
   (void) secret_line_is_sensitive (text);
   bson_free (text);
}

#ifndef FUZZ_NO_MAIN
int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
   fuzz_parser_one (data, size);
   return 0;
}
#endif
