/* passes: plain asan */
/* Database and collection names are checked before anything is sent (issue 39): the name check itself
 * (shell/lib/names.c), then scripts through the canned transport, literal and JavaScript, counting what is sent: a
 * NUL, a $, an empty or an over-long name ends the script with exit 2 and no command. */
#include <stdlib.h>

#include "shell/core/conn.h"
#include "shell/js/js_host.h"
#include "shell/lib/names.h"
#include "shell/script.h"
#include "tests/unit/unit.h"

static int ncommands;

static bool
transport (void *data, const char *db, const bson_t *cmd, bson_t *reply, bson_error_t *error)
{
   (void) data;
   (void) db;
   (void) error;
   bson_iter_t it;
   const char *name = bson_iter_init (&it, cmd) && bson_iter_next (&it) ? bson_iter_key (&it) : "";
   bson_init (reply);
   if (!strcmp (name, "find") || !strcmp (name, "aggregate")) {
      /* the pre-flight's reads: an empty cursor */
      bson_t cursor, batch;
      BSON_APPEND_DOCUMENT_BEGIN (reply, "cursor", &cursor);
      BSON_APPEND_INT64 (&cursor, "id", 0);
      BSON_APPEND_UTF8 (&cursor, "ns", "config.x");
      BSON_APPEND_ARRAY_BEGIN (&cursor, "firstBatch", &batch);
      bson_append_array_end (&cursor, &batch);
      bson_append_document_end (reply, &cursor);
   } else if (strcmp (name, "buildInfo") && strcmp (name, "hello") && strcmp (name, "isMaster")) {
      ncommands++;
   }
   if (!strcmp (name, "buildInfo"))
      BSON_APPEND_UTF8 (reply, "version", "7.0.0");
   BSON_APPEND_DOUBLE (reply, "ok", 1);
   return true;
}

static void
test_check (void)
{
   CHECK ("names: a NUL in a database name", names_db_invalid ("logs\0_old", 9) != NULL);
   CHECK ("names: $ in a database name", names_db_invalid ("a$b", 3) != NULL);
   CHECK ("names: $external is a database", names_db_invalid ("$external", 9) == NULL);
   CHECK ("names: an empty database name", names_db_invalid ("", 0) != NULL);
   CHECK ("names: a dot in a database name", names_db_invalid ("a.b", 3) != NULL);
   CHECK ("names: 63 bytes fit, 64 do not",
          names_db_invalid ("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 63) == NULL &&
             names_db_invalid ("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 64) != NULL);
   CHECK ("names: a NUL in a collection name", names_coll_invalid ("app", "a\0b", 3) != NULL);
   CHECK ("names: $ in a collection name", names_coll_invalid ("app", "a$b", 3) != NULL);
   CHECK ("names: a dotted collection name is one", names_coll_invalid ("app", "system.profile", 14) == NULL);
   {
      char longname[300];
      memset (longname, 'c', sizeof longname);
      CHECK ("names: a namespace over 255 bytes",
             names_coll_invalid ("app", longname, 252) != NULL && names_coll_invalid ("app", longname, 251) == NULL);
   }
}

/* Runs text as an --eval and returns its exit code; *sent: the commands it sent. */
static int
run_eval (sh_ctx_t *ctx, const char *text, int *sent)
{
   script_input_t in = { "<eval>", text };
   int rc;
   ncommands = 0;
   rc = script_run_inputs (ctx, &in, 1, false);
   *sent = ncommands;
   return rc;
}

static void
test_scripts (sh_ctx_t *ctx, sh_options_t *opts)
{
   static const char *const refused[] = {
      "db.getSiblingDB(\"logs\\u0000_old\").dropDatabase()",
      "db.getSiblingDB(\"a$b\").dropDatabase()",
      "db.getSiblingDB(\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\").dropDatabase()",
      "db.getCollection(\"a\\u0000b\").drop()",
      "db.getSiblingDB(\"app\").getCollection(\"a$b\").drop()",
      "sh.shardCollection(\"app.x\\u0000y\", {a: 1})",
      "const d = db.getSiblingDB(\"logs\\u0000_old\"); d.dropDatabase()",
      "const c = db.getSiblingDB(\"app\").getCollection(\"x\\u0000y\"); c.drop()",
      "db.getSiblingDB(\"app\")[\"a$b\"].drop()\nprint(1 + 1)",
      "[1].forEach(() => db.getSiblingDB(\"\").dropDatabase())",
   };
   int sent;
   for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
      int rc;
      /* JavaScript meets the name when it runs: the pre-flight's run (reads only: the canned transport answers them
       * with empty results, not counted) finds it before anything is written */
      opts->no_preflight = false;
      rc = run_eval (ctx, refused[i], &sent);
      opts->no_preflight = true;
      if (rc != SCRIPT_NOT_RUN || sent != 0)
         UNIT_FAIL ("names: a bad name ends the script with exit 2, nothing sent", "%s: exit %d, %d sent", refused[i],
                    rc, sent);
      else
         UNIT_PASS ("names: a bad name ends the script with exit 2, nothing sent");
   }
   CHECK ("names: a good name is sent",
          run_eval (ctx, "db.getSiblingDB(\"app\").dropDatabase()", &sent) == 0 && sent >= 1);
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
   test_check ();
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
   test_scripts (&ctx, &opts);
   js_host_shutdown ();
   conn_set_transport (NULL, NULL);
   conn_destroy (&ctx);
   bson_free (plugin);
   fclose (sink);
   UNIT_EXIT ();
}
