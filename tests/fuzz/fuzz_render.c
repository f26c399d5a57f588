/* libFuzzer target for what servers send back: bytes that validate as a BSON document are formatted every way the
 * shell formats results (pretty and relaxed JSON, colour on and off, every depth and line-break setting), then given
 * as the reply to every command of every helper in the command table through the canned-reply transport of
 * shell/core/conn.c (conn_set_transport), so each helper's own rendering code (sh.status, UpdateResult, listShards,
 * balancer status, the advisor, ...) reads arbitrary replies exactly as it would read a server's.
 * Built by `make fuzz`; tests/unit/test_fuzz_regressions.c replays saved inputs through fuzz_render_one. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "commands/commands.h"
#include "shell/core/conn.h"
#include "commands/dispatch.h"
#include "tests/fuzz/fuzz.h"
#include "shell/lang/parser.h"
#include "shell/lib/bsonvalid.h"

/* How the transport answers during one pass over the helpers. */
typedef enum {
   REPLY_RAW,    /* every command gets the document as it is (ok or not, cursor or not) */
   REPLY_SHAPED, /* cursor commands get { cursor: { firstBatch: [doc], id: 0 }, ok: 1 }, buildInfo a version,
                  * everything else the document with ok: 1 added when it has no ok */
} reply_mode_t;

typedef struct {
   const bson_t *doc;
   reply_mode_t mode;
} render_reply_t;

/* Statements that would wait or sleep are replaced (a zero timeout) or left out (NULL). */
static const struct {
   const char *name;
   const char *text;
} render_overrides[] = {
   { "sleep", NULL },
   { "sh.waitForBalancer", "sh.waitForBalancer(true, 0)" },
   { "sh.waitForBalancerOff", "sh.waitForBalancerOff(0)" },
};

/* Reads the helpers' replies besides the table's examples. */
static const char *const render_extra[] = {
   "show dbs",
   "show collections",
   "show shards",
   "show zones",
   "show balancer",
   "sh.status()",
   "sh.status(true)",
   "db.users.find({a: 1}).sort({a: 1}).skip(1).limit(2)",
   "db.getSiblingDB(\"config\").shards.find()",
   "db.adminCommand({listShards: 1})",
};

static FILE *render_sink;
static sh_script_t *render_scripts;
static size_t render_nscripts;

static bool
render_is_cursor_command (const bson_t *cmd)
{
   bson_iter_t it;
   const char *name;
   if (!bson_iter_init (&it, cmd) || !bson_iter_next (&it))
      return false;
   name = bson_iter_key (&it);
   return !strcmp (name, "find") || !strcmp (name, "aggregate") || !strcmp (name, "listCollections") ||
          !strcmp (name, "listIndexes") || !strcmp (name, "checkMetadataConsistency");
}

static bool
render_transport (void *data, const char *db, const bson_t *cmd, bson_t *reply, bson_error_t *error)
{
   const render_reply_t *r = data;
   bson_iter_t it;
   (void) error;

   if (r->mode == REPLY_RAW) {
      bson_copy_to (r->doc, reply);
      return true;
   }
   bson_init (reply);
   if (bson_iter_init (&it, cmd) && bson_iter_next (&it) && !strcmp (bson_iter_key (&it), "buildInfo")) {
      BSON_APPEND_UTF8 (reply, "version", "8.0.0");
      BSON_APPEND_DOUBLE (reply, "ok", 1.0);
   } else if (render_is_cursor_command (cmd)) {
      bson_t cursor, batch;
      char *ns = bson_strdup_printf ("%s.fuzz", db);
      BSON_APPEND_DOCUMENT_BEGIN (reply, "cursor", &cursor);
      BSON_APPEND_ARRAY_BEGIN (&cursor, "firstBatch", &batch);
      BSON_APPEND_DOCUMENT (&batch, "0", r->doc);
      bson_append_array_end (&cursor, &batch);
      BSON_APPEND_INT64 (&cursor, "id", 0);
      BSON_APPEND_UTF8 (&cursor, "ns", ns);
      bson_append_document_end (reply, &cursor);
      BSON_APPEND_DOUBLE (reply, "ok", 1.0);
      bson_free (ns);
   } else {
      bson_concat (reply, r->doc);
      if (!bson_has_field (r->doc, "ok"))
         BSON_APPEND_DOUBLE (reply, "ok", 1.0);
   }
   return true;
}

/* Parses text (a NULL text is skipped) into the next script slot. */
static void
render_add_statement (const char *text)
{
   sh_error_t err;
   if (!text)
      return;
   sh_error_clear (&err);
   if (sh_parse_script (text, text, strlen (text), &render_scripts[render_nscripts], &err))
      render_nscripts++;
   else
      sh_script_destroy (&render_scripts[render_nscripts]);
}

/* Parses the statements once: every table entry's example (with render_overrides) and render_extra. */
static void
render_load_statements (void)
{
   size_t nextra = sizeof render_extra / sizeof render_extra[0], ntable = 0;

   if (render_scripts)
      return;
   while (sh_cmd_table[ntable])
      ntable++;
   render_scripts = bson_malloc0 ((ntable + nextra) * sizeof *render_scripts);
   for (size_t i = 0; i < ntable; i++) {
      const char *text = sh_cmd_table[i]->example;
      for (size_t o = 0; o < sizeof render_overrides / sizeof render_overrides[0]; o++) {
         if (!strcmp (sh_cmd_table[i]->name, render_overrides[o].name))
            text = render_overrides[o].text;
      }
      render_add_statement (text);
   }
   for (size_t i = 0; i < nextra; i++)
      render_add_statement (render_extra[i]);
}

/* True when doc's keys are "0", "1", ...: output_format_array's contract (libbson warns on stderr otherwise). */
static bool
render_is_array (const bson_t *doc)
{
   bson_iter_t it;
   char key[16];
   uint32_t i = 0;
   if (!bson_iter_init (&it, doc))
      return false;
   while (bson_iter_next (&it)) {
      bson_snprintf (key, sizeof key, "%u", i++);
      if (strcmp (bson_iter_key (&it), key) != 0)
         return false;
   }
   return true;
}

/* output_format_doc, _array and _value on doc under the combinations of the options: all of them, or (pick != 0)
 * the quarter that pick selects, so one fuzz input stays cheap while different inputs try every combination. */
static void
render_format_all (const bson_t *doc, uint32_t pick)
{
   static const int depths[] = { -1, 0, 1, 6 };
   static const int breaks[] = { 0, 80 };
   static const char *const one_line[] = { NULL, "chunks" };
   bson_iter_t it;
   unsigned n = 0;
   bool is_array = render_is_array (doc);

   for (int mode = 0; mode < 2; mode++) {
      for (int color = 0; color < 2; color++) {
         for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++) {
            for (size_t b = 0; b < sizeof breaks / sizeof breaks[0]; b++) {
               output_opts_t o = output_opts_default (mode ? OUTPUT_JSON : OUTPUT_PRETTY, color != 0);
               if (pick && (n++ + pick) % 4 != 0)
                  continue;
               o.depth = depths[d];
               o.break_length = breaks[b];
               o.one_line_key = one_line[(d + b) % 2];
               bson_free (output_format_doc (doc, &o));
               if (is_array)
                  bson_free (output_format_array (doc, &o));
               if (bson_iter_init (&it, doc)) {
                  while (bson_iter_next (&it))
                     bson_free (output_format_value (bson_iter_value (&it), &o));
               }
            }
         }
      }
   }
}

/* Runs the helpers with the transport answering doc, in one reply mode and output mode: all of them, or (pick != 0)
 * every eighth, starting where pick says. */
static void
render_helpers (const bson_t *doc, reply_mode_t mode, output_mode_t out, uint32_t pick)
{
   render_reply_t r = { .doc = doc, .mode = mode };
   sh_options_t opts;
   sh_ctx_t ctx;

   memset (&opts, 0, sizeof opts);
   opts.yes = true;
   opts.json = out == OUTPUT_JSON;
   conn_set_transport (render_transport, &r);
   for (size_t i = 0; i < render_nscripts; i++) {
      if (pick && (i + pick) % 8 != 0)
         continue;
      memset (&ctx, 0, sizeof ctx);
      ctx.opts = &opts;
      ctx.out = output_opts_default (out, mode == REPLY_RAW);
      ctx.out_fp = render_sink;
      ctx.err_fp = render_sink;
      ctx.err_color = mode == REPLY_RAW;
      conn_init (&ctx, "mongodb://fuzz:secret@127.0.0.1:1/", "test");
      for (size_t s = 0; s < render_scripts[i].n && !ctx.exit_requested; s++) {
         sh_error_t err;
         sh_error_clear (&err);
         if (!dispatch_stmt (&ctx, &render_scripts[i].stmts[s], NULL, &err))
            sh_error_render (render_sink, &err, render_scripts[i].name, render_scripts[i].source, ctx.err_color);
      }
      cmd_session_end (&ctx);
      conn_destroy (&ctx);
   }
   conn_set_transport (NULL, NULL);
}

/* FNV-1a of the input: which helpers and options one fuzz input tries, the same every time it is replayed. */
static uint32_t
render_pick (const uint8_t *data, size_t size)
{
   uint32_t h = 2166136261u;
   for (size_t i = 0; i < size; i++)
      h = (h ^ data[i]) * 16777619u;
   return h | 1u;
}

bool
fuzz_render_one (const uint8_t *data, size_t size, bool everything)
{
   bson_t doc;
   uint32_t pick;

   if (!render_sink)
      render_sink = fopen ("/dev/null", "w");
   render_load_statements ();
   if (!bsonvalid_data (data, size) || !bson_init_static (&doc, data, size))
      return false;
   pick = everything ? 0 : render_pick (data, size);
   render_format_all (&doc, pick);
   if (everything || pick % 3 == 0)
      render_helpers (&doc, REPLY_RAW, OUTPUT_PRETTY, pick);
   if (everything || pick % 3 == 1)
      render_helpers (&doc, REPLY_SHAPED, OUTPUT_PRETTY, pick);
   if (everything || pick % 3 == 2)
      render_helpers (&doc, REPLY_SHAPED, OUTPUT_JSON, pick);
   return true;
}

#ifndef FUZZ_NO_MAIN
int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
   fuzz_render_one (data, size, false);
   return 0;
}
#endif
