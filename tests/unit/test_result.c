/* passes: plain asan */
/* The result an executor fills (commands/result.h): what it owns and replaces, how the one presenter shows each kind,
 * the value the JavaScript engine takes from it, a watch's rounds, and that executors never print: a statement run
 * into a result writes nothing until its caller presents it. */
#include <stdio.h>
#include <stdlib.h>

#include "commands/commands.h"
#include "commands/dispatch.h"
#include "commands/result.h"
#include "shell/lang/parser.h"
#include "tests/unit/unit.h"

/* A context that presents into a memory buffer (open_memstream: test code only). */
typedef struct {
   sh_ctx_t ctx;
   sh_options_t opts;
   char *text;
   size_t len;
} probe_t;

static void
probe_init (probe_t *p, output_mode_t mode)
{
   memset (p, 0, sizeof *p);
   p->ctx.opts = &p->opts;
   p->ctx.db = bson_strdup ("test");
   p->ctx.out = output_opts_default (mode, false);
   p->ctx.out_fp = open_memstream (&p->text, &p->len);
   p->ctx.err_fp = stderr;
}

/* What was presented since the last call (the buffer is emptied). */
static const char *
probe_out (probe_t *p)
{
   static char copy[4096];
   size_t n;
   fflush (p->ctx.out_fp);
   n = p->len < sizeof copy - 1 ? p->len : sizeof copy - 1; /* the bytes written since the rewind */
   memcpy (copy, p->text ? p->text : "", p->text ? n : 0);
   copy[p->text ? n : 0] = '\0';
   rewind (p->ctx.out_fp);
   return copy;
}

static void
probe_destroy (probe_t *p)
{
   fclose (p->ctx.out_fp);
   free (p->text);
   bson_free (p->ctx.db);
}

/* The value r gives the engine, as relaxed JSON ("none" when it gives none). */
static char *
value_json (probe_t *p, const sh_result_t *r)
{
   bson_t holder = BSON_INITIALIZER;
   char *s =
      sh_result_value (&p->ctx, r, &holder) ? bson_as_relaxed_extended_json (&holder, NULL) : bson_strdup ("none");
   bson_destroy (&holder);
   return s;
}

#define CHECK_VALUE(name, expected, p, r)                                                                              \
   do {                                                                                                                \
      char *v_ = value_json ((p), (r));                                                                                \
      CHECK_STR (name, expected, v_);                                                                                  \
      bson_free (v_);                                                                                                  \
   } while (0)

static void
test_kinds (void)
{
   probe_t p;
   sh_result_t r;
   bson_t *doc = BCON_NEW ("a", BCON_INT32 (1));
   bson_t stats = BSON_INITIALIZER, sub;
   bson_t empty = BSON_INITIALIZER;
   bson_value_t t = { .value_type = BSON_TYPE_BOOL };

   probe_init (&p, OUTPUT_PRETTY);
   sh_result_init (&r);
   CHECK ("result/none: an empty result shows nothing", (sh_result_present (&p.ctx, &r), !strcmp (probe_out (&p), "")));
   CHECK_VALUE ("result/none: and gives no value", "none", &p, &r);

   sh_result_set_doc (&r, doc);
   bson_destroy (doc); /* a copy: the executor's document is still its own */
   sh_result_present (&p.ctx, &r);
   CHECK_STR ("result/doc: presented as mongosh prints it", "{ a: 1 }\n", probe_out (&p));
   CHECK_VALUE ("result/doc: its value is the document", "{ \"v\" : { \"a\" : 1 } }", &p, &r);

   sh_result_note (&r, bson_string_new ("draining of s1 started\n"));
   sh_result_present (&p.ctx, &r);
   CHECK_STR ("result/note: printed before the document", "draining of s1 started\n{ a: 1 }\n", probe_out (&p));
   CHECK_VALUE ("result/note: not part of the value", "{ \"v\" : { \"a\" : 1 } }", &p, &r);

   t.value.v_bool = true;
   sh_result_set_value (&r, &t);
   sh_result_present (&p.ctx, &r);
   CHECK_STR ("result/value: filling again replaces the document and its note", "true\n", probe_out (&p));

   bson_string_append (sh_result_text (&r), "switched to db x\n");
   bson_string_append (sh_result_text (&r), "second line\n\n");
   sh_result_present (&p.ctx, &r);
   CHECK_STR ("result/text: presented as it was written, appended to", "switched to db x\nsecond line\n\n",
              probe_out (&p));
   CHECK_VALUE ("result/text: a string without its trailing newlines", "{ \"v\" : \"switched to db x\\nsecond line\" }",
                &p, &r);
   sh_result_reset (&r);
   (void) sh_result_text (&r);
   CHECK_VALUE ("result/text: empty text gives no value", "none", &p, &r);

   BSON_APPEND_DOCUMENT_BEGIN (&stats, "s", &sub);
   BSON_APPEND_INT32 (&sub, "n", 2);
   bson_append_document_end (&stats, &sub);
   sh_result_take_stats (&r, &stats, "chunks");
   CHECK ("result/stats: taken over, the caller's document left empty", bson_empty (&stats));
   bson_destroy (&stats);
   sh_result_present (&p.ctx, &r);
   CHECK_STR ("result/stats: key, then value", "s\n{ n: 2 }\n", probe_out (&p));
   CHECK_VALUE ("result/stats: the engine shows it back as a StatsResult",
                "{ \"v\" : { \"s\" : { \"n\" : 2 } }, \"stats\" : \"chunks\" }", &p, &r);

   sh_result_set_batch (&r, &empty, false, false);
   sh_result_present (&p.ctx, &r);
   CHECK_STR ("result/batch: an empty cursor shows an empty line", "\n", probe_out (&p));
   CHECK_VALUE ("result/batch: ... and its value is that text", "{ \"v\" : \"\" }", &p, &r);
   sh_result_set_batch (&r, &empty, false, true);
   sh_result_present (&p.ctx, &r);
   CHECK_STR ("result/batch: \"it\" with nothing left", "no cursor\n", probe_out (&p));
   CHECK_VALUE ("result/batch: ... its value", "{ \"v\" : \"no cursor\" }", &p, &r);

   {
      bson_t *arr = BCON_NEW ("0", BCON_INT32 (7));
      sh_result_set_array (&r, arr);
      r.more = true;
      sh_result_present (&p.ctx, &r);
      CHECK_STR ("result/array: the \"it\" hint after a partial list", "[ 7 ]\n" CMD_MORE_HINT "\n", probe_out (&p));
      p.ctx.out = output_opts_default (OUTPUT_JSON, false);
      sh_result_present (&p.ctx, &r);
      CHECK_STR ("result/array: --json has one line per value and no hint", "7\n", probe_out (&p));
      bson_destroy (arr);
   }
   sh_result_destroy (&r);
   bson_destroy (&empty);
   probe_destroy (&p);
}

static void
test_rounds (void)
{
   probe_t p;
   sh_result_t r;
   probe_init (&p, OUTPUT_PRETTY);
   sh_result_init (&r);
   r.as_value = true;
   r.want_cursor = true;
   bson_string_append (sh_result_text (&r), "round 1\n");
   sh_result_round (&p.ctx, &r);
   CHECK ("result/round: kept when the caller does not stream", r.kind == SH_RESULT_TEXT);
   sh_result_reset (&r);
   CHECK ("result/reset: keeps what the caller asked for", r.as_value && r.want_cursor && r.kind == SH_RESULT_NONE);
   r.stream = true;
   bson_string_append (sh_result_text (&r), "round 1\n");
   sh_result_round (&p.ctx, &r);
   CHECK_STR ("result/round: shown at once when the caller streams", "round 1\n", probe_out (&p));
   CHECK ("result/round: ... and emptied for the next", r.kind == SH_RESULT_NONE && r.stream);
   sh_result_destroy (&r);
   probe_destroy (&p);
}

/* A statement run into a result prints nothing; its caller presents it (or not). */
static void
test_executors_do_not_print (void)
{
   static const char src[] = "print(\"hi\", 2)\nuse other\nhelp sh.moveChunk\n";
   probe_t p;
   sh_script_t script;
   sh_error_t err;
   bool ok = true;
   bson_string_t *presented = bson_string_new (NULL);

   probe_init (&p, OUTPUT_PRETTY);
   sh_error_clear (&err);
   if (!sh_parse_script ("<test>", src, strlen (src), &script, &err)) {
      UNIT_FAIL ("result/run: the script parses", "%s", err.message);
      probe_destroy (&p);
      bson_string_free (presented, true);
      return;
   }
   for (size_t i = 0; i < script.n; i++) {
      sh_result_t r;
      sh_result_init (&r);
      ok = dispatch_stmt (&p.ctx, &script.stmts[i], &r, &err) && ok;
      ok = !strcmp (probe_out (&p), "") && r.kind == SH_RESULT_TEXT && ok;
      sh_result_present (&p.ctx, &r);
      bson_string_append (presented, probe_out (&p));
      sh_result_destroy (&r);
   }
   CHECK ("result/run: print, use and help fill a text result and write nothing themselves", ok);
   CHECK ("result/run: presented, they read as before",
          !strncmp (presented->str, "hi 2\nswitched to db other\nsh.moveChunk(namespace, query, destination)\n",
                    strlen ("hi 2\nswitched to db other\nsh.moveChunk(namespace, query, destination)\n")));
   ok = dispatch_stmt (&p.ctx, &script.stmts[0], NULL, &err);
   CHECK_STR ("result/run: without a result, dispatch_stmt presents it (the REPL)", "hi 2\n", probe_out (&p));
   sh_script_destroy (&script);
   bson_string_free (presented, true);
   probe_destroy (&p);
}

int
main (void)
{
   test_kinds ();
   test_rounds ();
   test_executors_do_not_print ();
   UNIT_EXIT ();
}
