/* passes: plain asan */
/* sh_requests_t, the list every build() fills: it grows past its first allocation without moving a bson_t by
 * realloc (an allocated bson_t points into itself), so every document added stays whole, in order, whatever its
 * size; and each element keeps libbson's alignment. And build() runs once per statement: the dispatcher's checks
 * hand their requests to the executor, and a script's validation hands them to the statement's run. */
#include <stdint.h>

#include "commands/commands.h"
#include "commands/dispatch.h"
#include "shell/lang/parser.h"
#include "tests/unit/unit.h"

/* Statements of every shape: the shared executor, an exec() of its own, a write, a cursor with modifiers, a
 * getSiblingDB chain, two equal statements with a `use` between them (validation follows it, so the second is built
 * for the database it runs on), and one entry whose build() reads the clock (built again when it runs). */
static const char build_once_script[] = "sh.moveChunk(\"app.users\", {_id: 5}, \"shard02\")\n"
                                        "sh.getBalancerState()\n"
                                        "sh.splitAt(\"app.users\", {_id: 100})\n"
                                        "db.users.find({a: 1}).sort({b: 1}).limit(3)\n"
                                        "db.getSiblingDB(\"app\").users.insertOne({x: 1})\n"
                                        "db.users.countDocuments({})\n"
                                        "use other\n"
                                        "db.users.countDocuments({})\n"
                                        "db.adminCommand({ping: 1})\n"
                                        "db.users.count()\n"
                                        "sh.getRecentMigrations()\n";

/* Runs the script as the script runner does (prepare and check every statement, keeping its checked statement, then
 * run each with it) under --dry-run and checks that build() ran once per statement that has one, and that what was
 * sent is what building again would send. */
static void
test_build_once (void)
{
   dispatch_check_t check;
   sh_checked_t **checked;
   sh_options_t opts;
   sh_ctx_t ctx;
   sh_script_t script;
   sh_error_t err;
   size_t before, validated, ran, with_build = 0;
   bool ok = true;
   char *out_text = NULL;
   size_t out_len = 0;

   memset (&opts, 0, sizeof opts);
   opts.dry_run = true;
   memset (&ctx, 0, sizeof ctx);
   ctx.opts = &opts;
   ctx.db = bson_strdup ("test");
   ctx.out_fp = open_memstream (&out_text, &out_len);
   ctx.err_fp = ctx.out_fp;
   sh_error_clear (&err);
   if (!sh_parse_script ("<test>", build_once_script, strlen (build_once_script), &script, &err)) {
      UNIT_FAIL ("requests/build once: the script parses", "%s", err.message);
      return;
   }
   checked = bson_malloc0 (script.n * sizeof *checked);
   dispatch_check_init (&check);
   before = sh_requests_build_count ();
   for (size_t i = 0; i < script.n; i++)
      ok = dispatch_prepare (&ctx, &script.stmts[i]) &&
           (checked[i] = dispatch_check (&ctx, &check, &script.stmts[i], &err)) && ok;
   validated = sh_requests_build_count () - before;
   dispatch_check_destroy (&check);
   for (size_t i = 0; i < script.n; i++) {
      const sh_stmt_t *st = &script.stmts[i];
      ok = checked[i] && dispatch_run (&ctx, checked[i], NULL, &err) && ok;
      dispatch_checked_free (checked[i]);
      if (st->kind == SH_STMT_CHAIN)
         with_build++;
   }
   bson_free (checked);
   ran = sh_requests_build_count () - before - validated;
   CHECK ("requests/build once: every statement validates and runs under --dry-run", ok);
   /* validation builds every statement with a build(); the run builds again only sh.getRecentMigrations(), whose
    * 24-hour window is taken from the clock when it runs */
   printf ("# build() calls: %zu statements with a build(), %zu at validation, %zu at the run\n", with_build, validated,
           ran);
   CHECK ("requests/build once: validation builds each statement once", validated == with_build);
   CHECK ("requests/build once: the run builds again only the entry that reads the clock", ran == 1);
   fflush (ctx.out_fp);
   CHECK ("requests/build once: the handed-on requests are sent (moveChunk to shard02; the count on other)",
          out_text && strstr (out_text, "[dry-run] admin { \"moveChunk\"") && strstr (out_text, "shard02") &&
             strstr (out_text, "[dry-run] other { \"aggregate\""));
   fclose (ctx.out_fp);
   free (out_text);
   sh_script_destroy (&script);
   bson_free (ctx.db);
   bson_free (ctx.hello_db);
}

/* A long script (5,000 statements, past the 4,096 requests the dispatcher once kept) builds each statement once: the
 * requests its check built wait in its checked statement (sh_checked_t) for its run. */
static void
test_build_once_long (void)
{
   dispatch_check_t check;
   sh_checked_t **checked;
   sh_options_t opts;
   sh_ctx_t ctx;
   sh_script_t script;
   sh_error_t err;
   bson_string_t *text = bson_string_new (NULL);
   size_t before, validated, ran;
   bool ok = true;
   FILE *sink = fopen ("/dev/null", "w");

   memset (&opts, 0, sizeof opts);
   opts.dry_run = true;
   memset (&ctx, 0, sizeof ctx);
   ctx.opts = &opts;
   ctx.db = bson_strdup ("test");
   ctx.out_fp = sink;
   ctx.err_fp = sink;
   for (int i = 0; i < 5000; i++)
      bson_string_append_printf (text, "db.adminCommand({ping: %d})\n", i);
   sh_error_clear (&err);
   if (!sh_parse_script ("<test>", text->str, text->len, &script, &err)) {
      UNIT_FAIL ("requests/build once, long: the script parses", "%s", err.message);
      bson_string_free (text, true);
      fclose (sink);
      return;
   }
   checked = bson_malloc0 (script.n * sizeof *checked);
   dispatch_check_init (&check);
   before = sh_requests_build_count ();
   for (size_t i = 0; i < script.n; i++)
      ok = dispatch_prepare (&ctx, &script.stmts[i]) &&
           (checked[i] = dispatch_check (&ctx, &check, &script.stmts[i], &err)) && ok;
   validated = sh_requests_build_count () - before;
   dispatch_check_destroy (&check);
   for (size_t i = 0; i < script.n; i++) {
      ok = checked[i] && dispatch_run (&ctx, checked[i], NULL, &err) && ok;
      dispatch_checked_free (checked[i]);
   }
   bson_free (checked);
   ran = sh_requests_build_count () - before - validated;
   CHECK ("requests/build once, long: 5,000 statements validate and run under --dry-run", ok && script.n == 5000);
   CHECK ("requests/build once, long: validation builds each once", validated == 5000);
   CHECK ("requests/build once, long: the run builds none again", ran == 0);
   sh_script_destroy (&script);
   bson_string_free (text, true);
   fclose (sink);
   bson_free (ctx.db);
   bson_free (ctx.hello_db);
}

/* A list that starts in a lent slot (sh_requests_init_in): its first request is built there, a second moves every
 * request to memory of its own (the first whole, the slot left alone), and destroying it frees no slot. */
static void
test_lent_slot (void)
{
   static sh_request_t slot; /* static: libbson's alignment, and alive after the list */
   sh_requests_t reqs;
   char big[300];
   bson_iter_t it;
   bool whole = true;

   memset (big, 'y', sizeof big - 1);
   big[sizeof big - 1] = '\0';
   sh_requests_init_in (&reqs, &slot);
   BSON_APPEND_INT32 (sh_requests_add (&reqs, "admin", CONN_ADMIN), "ping", 1);
   CHECK ("requests/the first request is built in the lent slot", reqs.n == 1 && reqs.v == &slot);
   BSON_APPEND_UTF8 (sh_requests_add (&reqs, "config", CONN_READ), "pad", big);
   for (int i = 0; i < 6; i++)
      BSON_APPEND_INT32 (sh_requests_add (&reqs, "admin", CONN_READ), "n", i);
   CHECK ("requests/a second request moves the list out of the slot", reqs.n == 8 && reqs.v != &slot && !reqs.v_lent);
   if (!bson_iter_init_find (&it, &reqs.v[0].cmd, "ping") || bson_iter_int32 (&it) != 1 ||
       strcmp (reqs.v[0].db, "admin") != 0)
      whole = false;
   if (!bson_iter_init_find (&it, &reqs.v[1].cmd, "pad") || strlen (bson_iter_utf8 (&it, NULL)) != 299 ||
       strcmp (reqs.v[1].db, "config") != 0)
      whole = false;
   for (int i = 0; i < 6; i++) {
      if (!bson_iter_init_find (&it, &reqs.v[2 + i].cmd, "n") || bson_iter_int32 (&it) != i)
         whole = false;
   }
   CHECK ("requests/the requests built in the slot and after it stay whole and in order", whole);
   sh_requests_destroy (&reqs);
   CHECK ("requests/destroy after a slot empties the list", reqs.n == 0 && reqs.v == NULL && !reqs.v_lent);
   /* one request that stays in the slot: destroyed there, nothing freed (ASan and valgrind would say) */
   sh_requests_init_in (&reqs, &slot);
   BSON_APPEND_UTF8 (sh_requests_add (&reqs, "admin", CONN_ADMIN), "pad", big);
   CHECK ("requests/a large request in the slot", reqs.n == 1 && reqs.v == &slot && reqs.v[0].cmd.len > 300);
   sh_requests_destroy (&reqs);
   CHECK ("requests/destroy leaves the slot's list empty", reqs.n == 0 && reqs.v == NULL);
}

int
main (void)
{
   sh_requests_t reqs = { .n = 0 };
   char name[64], big[300];
   bool whole = true, aligned = true;

   memset (big, 'x', sizeof big - 1);
   big[sizeof big - 1] = '\0';
   for (int i = 0; i < 40; i++) {
      bson_t *cmd = sh_requests_add (&reqs, i % 2 ? "admin" : "config", CONN_READ);
      BSON_APPEND_INT32 (cmd, "n", i);
      /* odd documents outgrow the inline buffer: libbson allocates them */
      if (i % 2)
         BSON_APPEND_UTF8 (cmd, "pad", big);
   }
   CHECK ("requests/40 added", reqs.n == 40);
   for (size_t i = 0; i < reqs.n; i++) {
      bson_iter_t it;
      if (!bson_validate (&reqs.v[i].cmd, BSON_VALIDATE_NONE, NULL) ||
          !bson_iter_init_find (&it, &reqs.v[i].cmd, "n") || bson_iter_int32 (&it) != (int32_t) i ||
          strcmp (reqs.v[i].db, i % 2 ? "admin" : "config") != 0 ||
          (i % 2 && (!bson_iter_init_find (&it, &reqs.v[i].cmd, "pad") || strlen (bson_iter_utf8 (&it, NULL)) != 299)))
         whole = false;
      if ((uintptr_t) &reqs.v[i].cmd % BSON_ALIGNOF (bson_t) != 0)
         aligned = false;
   }
   CHECK ("requests/every document whole and in order after the list grew", whole);
   CHECK ("requests/every bson_t keeps libbson's alignment", aligned);
   bson_snprintf (name, sizeof name, "requests/destroy empties the list");
   sh_requests_destroy (&reqs);
   CHECK (name, reqs.n == 0 && reqs.v == NULL);
   /* and the list can be used again */
   BSON_APPEND_INT32 (sh_requests_add (&reqs, "admin", CONN_ADMIN), "ping", 1);
   CHECK ("requests/usable again after destroy", reqs.n == 1);
   sh_requests_destroy (&reqs);
   test_lent_slot ();
   test_build_once ();
   test_build_once_long ();
   UNIT_EXIT ();
}
