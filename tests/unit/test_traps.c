/* passes: plain asan */
/* Version traps (issue 37, commands/traps.def): every row of the table is complete and cited, docs/traps.md's table is
 * exactly what the table generates (`make docs` runs `test_traps --write`), versions match by [since, until), each
 * statement form matches what it should and nothing else, the JavaScript check finds a helper's value used as a
 * condition and not a field of it, and a warning is given once per place (once per session in the REPL). */
#include <stdlib.h>
#include <string.h>

#include "commands/commands.h"
#include "commands/dispatch.h"
#include "commands/traps.h"
#include "tests/unit/unit.h"

#define DOC_PATH "docs/traps.md"
#define DOC_BEGIN "<!-- the table below is generated from commands/traps.def by `make docs`; test_traps checks it -->\n"
#define DOC_END "<!-- end of the generated table -->\n"

static const trap_t *
find_trap (const char *id)
{
   size_t n;
   const trap_t *t = traps_table (&n);
   for (size_t i = 0; i < n; i++) {
      if (!strcmp (t[i].id, id))
         return &t[i];
   }
   return NULL;
}

static char *
read_path (const char *path)
{
   FILE *f = fopen (path, "r");
   char *buf;
   long n;
   if (!f)
      return NULL;
   fseek (f, 0, SEEK_END);
   n = ftell (f);
   fseek (f, 0, SEEK_SET);
   buf = malloc ((size_t) n + 1);
   if (fread (buf, 1, (size_t) n, f) != (size_t) n)
      n = 0;
   buf[n] = '\0';
   fclose (f);
   return buf;
}

/* docs/traps.md with its generated table replaced by gen (caller frees), or NULL without its markers. */
static char *
doc_with_table (const char *doc, const char *gen)
{
   const char *b = strstr (doc, DOC_BEGIN), *e;
   bson_string_t *s;
   if (!b || !(e = strstr (b, DOC_END)))
      return NULL;
   s = bson_string_new (NULL);
   bson_string_append_printf (s, "%.*s%s%s%s", (int) (b - doc), doc, DOC_BEGIN, gen, e);
   return bson_string_free (s, false);
}

static bool
has_bar (const char *s)
{
   return strchr (s, '|') != NULL;
}

static void
test_table (void)
{
   size_t n;
   const trap_t *t = traps_table (&n);
   int v44[3] = { 4, 4, 0 }, v83[3] = { 8, 3, 0 }, v90[3] = { 9, 0, 0 };
   bool any44 = false, only90 = false;
   CHECK ("traps/at least fifteen traps", n >= 15);
   for (size_t i = 0; i < n; i++) {
      char name[160];
      int a[3] = { 0 }, b[3] = { 0 };
      bool ok = t[i].id && t[i].id[0] && t[i].since && t[i].form && t[i].form[0] && t[i].what && t[i].what[0] &&
                t[i].instead && t[i].instead[0] && t[i].cite && t[i].cite[0];
      bson_snprintf (name, sizeof name, "traps/%s: every column filled", t[i].id);
      CHECK (name, ok);
      bson_snprintf (name, sizeof name, "traps/%s: no | in the text (the docs table stays a table)", t[i].id);
      CHECK (name, !has_bar (t[i].form) && !has_bar (t[i].what) && !has_bar (t[i].instead) && !has_bar (t[i].cite));
      bson_snprintf (name, sizeof name, "traps/%s: since is a version, until after it", t[i].id);
      CHECK (name, sscanf (t[i].since, "%d.%d.%d", &a[0], &a[1], &a[2]) >= 2 && a[0] >= 4 &&
                      (!t[i].until || (sscanf (t[i].until, "%d.%d.%d", &b[0], &b[1], &b[2]) >= 2 &&
                                       !dispatch_version_at_least (a, t[i].until))));
      bson_snprintf (name, sizeof name, "traps/%s: its kind has what it matches on", t[i].id);
      CHECK (name, (t[i].kind == TRAP_CALL && (t[i].helpers || t[i].target)) ||
                      (t[i].kind == TRAP_QUERY && t[i].target) || (t[i].kind == TRAP_DOTTED_NULL && t[i].target) ||
                      (t[i].kind == TRAP_JS_COND && t[i].helpers && !strchr (t[i].helpers, '|')));
      for (size_t k = 0; k < i; k++) {
         if (!strcmp (t[k].id, t[i].id))
            UNIT_FAIL ("traps/ids are unique", "%s twice", t[i].id);
      }
      /* every helper a row names is a command-table entry */
      for (const char *p = t[i].helpers; p && *p;) {
         const char *bar = strchr (p, '|');
         char h[64];
         bson_snprintf (h, sizeof h, "%.*s", (int) (bar ? (size_t) (bar - p) : strlen (p)), p);
         bson_snprintf (name, sizeof name, "traps/%s: helper %s is in the command table", t[i].id, h);
         CHECK (name, sh_cmd_find (h) != NULL);
         p = bar ? bar + 1 : NULL;
      }
      any44 |= traps_bites (&t[i], v44);
      only90 |= traps_bites (&t[i], v90) && !traps_bites (&t[i], v83);
   }
   CHECK ("traps/the table reaches back to 4.4", any44);
   CHECK ("traps/the table has 9.0-only traps", only90);
}

/* bites ID MAJOR MINOR PATCH: traps_bites of the row. */
static bool
bites (const char *id, int a, int b, int c)
{
   int v[3] = { a, b, c };
   const trap_t *t = find_trap (id);
   return t && traps_bites (t, v);
}

static void
test_versions (void)
{
   CHECK ("traps/versions: chunks_by_ns not on 4.4.29", !bites ("chunks_by_ns", 4, 4, 29));
   CHECK ("traps/versions: chunks_by_ns from 5.0.0", bites ("chunks_by_ns", 5, 0, 0));
   CHECK ("traps/versions: chunks_by_ns on 9.0", bites ("chunks_by_ns", 9, 0, 0));
   CHECK ("traps/versions: autosplit helpers not on 6.0.2", !bites ("autosplit_helpers", 6, 0, 2));
   CHECK ("traps/versions: autosplit helpers from 6.0.3", bites ("autosplit_helpers", 6, 0, 3));
   CHECK ("traps/versions: autosplit setting from 6.0.3",
          bites ("autosplit_setting", 6, 0, 3) && !bites ("autosplit_setting", 5, 0, 31));
   CHECK ("traps/versions: removeShard not on 8.2.1", !bites ("remove_shard", 8, 2, 1));
   CHECK ("traps/versions: removeShard from 8.3.0 (and 9.0)",
          bites ("remove_shard", 8, 3, 0) && bites ("remove_shard", 9, 0, 0));
   CHECK ("traps/versions: cleanupOrphaned only waits from 4.4 up to 8.0",
          bites ("cleanup_orphaned_waits", 4, 4, 0) && bites ("cleanup_orphaned_waits", 7, 0, 16) &&
             !bites ("cleanup_orphaned_waits", 8, 0, 0));
   CHECK ("traps/versions: cleanupOrphaned deprecated from 8.0",
          !bites ("cleanup_orphaned_deprecated", 7, 3, 9) && bites ("cleanup_orphaned_deprecated", 8, 0, 0));
   CHECK ("traps/versions: orphanCleanupDelaySecs 3600 from 8.2",
          !bites ("orphan_cleanup_delay", 8, 1, 9) && bites ("orphan_cleanup_delay", 8, 2, 0));
   CHECK ("traps/versions: isBalancerRunning's document on every version",
          bites ("balancer_running_cond", 4, 4, 0) && bites ("balancer_running_cond", 9, 0, 0));
   CHECK ("traps/versions: isMaster from 4.4.2", !bites ("is_master", 4, 4, 1) && bites ("is_master", 4, 4, 2));
   CHECK ("traps/versions: 9.0 dotted null only from 9.0", !bites ("dotted_path_null", 8, 3, 0) &&
                                                              bites ("dotted_path_null", 9, 0, 0) &&
                                                              bites ("dotted_path_null", 9, 1, 0));
   CHECK ("traps/versions: removeShard's 9.0 row found by lookup",
          find_trap ("remove_shard") && bites ("remove_shard", 9, 0, 0));
}

typedef struct {
   const char *id;
   bool found;
} probe_t;

static bool
probe (void *data, const sh_call_t *call, bool writes, sh_error_t *err)
{
   probe_t *p = data;
   const trap_t *hits[8];
   size_t n = traps_match_call (call, hits, 8);
   (void) writes;
   (void) err;
   for (size_t i = 0; i < n; i++)
      p->found |= !strcmp (hits[i]->id, p->id);
   return true;
}

/* Whether the one-statement text matches trap id. */
static bool
matches (sh_ctx_t *ctx, const char *text, const char *id)
{
   sh_script_t script;
   sh_error_t err;
   probe_t p = { id, false };
   sh_error_clear (&err);
   if (!sh_parse_script ("<t>", text, strlen (text), &script, &err) || script.n != 1) {
      printf ("# does not parse: %s\n", text);
      return false;
   }
   dispatch_prepare (ctx, &script.stmts[0]);
   if (!dispatch_with_call (ctx, &script.stmts[0], probe, &p, &err))
      printf ("# does not resolve: %s (%s)\n", text, err.message);
   sh_script_destroy (&script);
   return p.found;
}

static void
test_forms (sh_ctx_t *ctx)
{
   static const struct {
      const char *text, *id;
      bool hit;
   } cases[] = {
      { "db.getSiblingDB(\"config\").chunks.find({ns: \"app.ev\"})", "chunks_by_ns", true },
      { "db.getSiblingDB(\"config\").chunks.countDocuments({ns: \"app.ev\", shard: \"s1\"})", "chunks_by_ns", true },
      { "db.getSiblingDB(\"config\").chunks.findOne({ns: /^app\\./})", "chunks_by_ns", true },
      { "db.getSiblingDB(\"config\").chunks.distinct(\"shard\", {ns: \"app.ev\"})", "chunks_by_ns", true },
      { "db.getSiblingDB(\"config\").chunks.aggregate([{$match: {ns: \"app.ev\"}}, {$count: \"n\"}])", "chunks_by_ns",
        true },
      { "db.getSiblingDB(\"config\").chunks.deleteMany({ns: \"app.ev\"})", "chunks_by_ns", true },
      { "db.getSiblingDB(\"config\").chunks.find({uuid: UUID(\"c88e9237-ae8b-452e-9d89-bcdcaaa763db\")})",
        "chunks_by_ns", false },
      { "db.getSiblingDB(\"config\").tags.find({ns: \"app.ev\"})", "chunks_by_ns", false },
      { "db.getSiblingDB(\"config\").chunks.aggregate([{$group: {_id: \"$shard\"}}])", "chunks_by_ns", false },
      { "db.getSiblingDB(\"config\").chunks.find({lastmodEpoch: ObjectId(\"5d8aa9fbe7a2f52c300e8e6f\")})",
        "chunks_by_epoch", true },
      { "sh.enableAutoSplit()", "autosplit_helpers", true },
      { "sh.disableAutoSplit()", "autosplit_helpers", true },
      { "sh.startAutoMerger()", "autosplit_helpers", false },
      { "db.getSiblingDB(\"config\").settings.updateOne({_id: \"autosplit\"}, {$set: {enabled: false}}, {upsert: "
        "true})",
        "autosplit_setting", true },
      { "db.getSiblingDB(\"config\").settings.findOne({_id: \"autosplit\"})", "autosplit_setting", true },
      { "db.getSiblingDB(\"config\").settings.findOne({_id: \"balancer\"})", "autosplit_setting", false },
      { "db.adminCommand({removeShard: \"shard03\"})", "remove_shard", true },
      { "db.runCommand({removeshard: \"shard03\"})", "remove_shard", true },
      { "sh.removeShard(\"shard03\")", "remove_shard", true },
      { "db.adminCommand({shardDrainingStatus: \"shard03\"})", "remove_shard", false },
      { "db.adminCommand({cleanupOrphaned: \"app.ev\"})", "cleanup_orphaned_deprecated", true },
      { "db.adminCommand({cleanupOrphaned: \"app.ev\"})", "orphan_cleanup_delay", true },
      { "db.getSiblingDB(\"config\").rangeDeletions.countDocuments()", "range_deletions_wait", true },
      { "db.adminCommand({setFeatureCompatibilityVersion: \"7.0\"})", "set_fcv_confirm", true },
      { "db.adminCommand({setFeatureCompatibilityVersion: \"7.0\", confirm: true})", "set_fcv_confirm", false },
      { "db.adminCommand({isMaster: 1})", "is_master", true },
      { "db.adminCommand(\"isMaster\")", "is_master", true },
      { "db.adminCommand({hello: 1})", "is_master", false },
      { "db.runCommand({collStats: \"ev\"})", "coll_stats_command", true },
      { "db.ev.stats()", "coll_stats_command", false },
      { "db.adminCommand({currentOp: 1})", "current_op_command", true },
      { "db.runCommand({getLastError: 1})", "get_last_error", true },
      { "db.runCommand({mapReduce: \"ev\", map: \"f\", reduce: \"g\", out: {inline: 1}})", "map_reduce", true },
      { "db.ev.find({\"a.b\": null})", "dotted_path_null", true },
      { "db.ev.countDocuments({\"a.b\": {$ne: null}})", "dotted_path_null", true },
      { "db.ev.find({a: null})", "dotted_path_null", false },
      { "db.ev.find({\"a.b\": 1})", "dotted_path_null", false },
      { "sh.isBalancerRunning()", "balancer_running_cond", false },
   };
   for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      char name[400];
      bson_snprintf (name, sizeof name, "traps/form: %s %s %s", cases[i].text, cases[i].hit ? "is" : "is not",
                     cases[i].id);
      CHECK (name, matches (ctx, cases[i].text, cases[i].id) == cases[i].hit);
   }
}

static void
test_js (void)
{
   static const struct {
      const char *text;
      size_t hits;
      int line, col;
   } cases[] = {
      { "while (sh.isBalancerRunning()) { sleep(100) }", 1, 1, 8 },
      { "do { sleep(1) } while (sh.isBalancerRunning());", 1, 1, 24 },
      { "if (!sh.isBalancerRunning()) print(1)", 1, 1, 6 },
      { "x = sh.isBalancerRunning() ? 1 : 2", 1, 1, 5 },
      { "while (sh.isBalancerRunning() && n < 3) n++", 1, 1, 8 },
      { "\n\n  if ( sh.isBalancerRunning ( ) ) x()", 1, 3, 8 },
      { "while (sh.isBalancerRunning().inBalancerRound) sleep(1)", 0, 0, 0 },
      { "if (sh.isBalancerRunning()['inBalancerRound']) x()", 0, 0, 0 },
      { "printjson(sh.isBalancerRunning())", 0, 0, 0 },
      { "const s = sh.isBalancerRunning(); while (s.inBalancerRound) {}", 0, 0, 0 },
      { "while (mysh.isBalancerRunning()) {}", 0, 0, 0 },
      { "while (sh.isBalancerRunningNow()) {}", 0, 0, 0 },
      { "while (sh.isBalancerRunning(", 0, 0, 0 },
   };
   for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      trap_js_hit_t hits[4];
      size_t n = traps_match_js (cases[i].text, strlen (cases[i].text), hits, 4);
      char name[300];
      bson_snprintf (name, sizeof name, "traps/js: %s: %zu place(s)", cases[i].text, cases[i].hits);
      for (char *c = name; *c; c++)
         *c = *c == '\n' ? ' ' : *c; /* one result line */
      CHECK (name, n == cases[i].hits && (n == 0 || (hits[0].line == cases[i].line && hits[0].col == cases[i].col &&
                                                     !strcmp (hits[0].trap->id, "balancer_running_cond"))));
   }
}

/* How many times needle is in hay. */
static int
count_of (const char *hay, const char *needle)
{
   int n = 0;
   for (const char *p = hay; p && (p = strstr (p, needle)); p++)
      n++;
   return n;
}

static void
test_warnings (void)
{
   sh_options_t opts;
   sh_ctx_t ctx;
   char *text = NULL, *out = NULL;
   size_t len = 0, olen = 0;
   const char *js = "while (sh.isBalancerRunning()) sleep(10)";
   memset (&opts, 0, sizeof opts);
   memset (&ctx, 0, sizeof ctx);
   opts.json = true;
   ctx.opts = &opts;
   ctx.db = bson_strdup ("test");
   ctx.err_fp = open_memstream (&text, &len);
   ctx.out_fp = open_memstream (&out, &olen);
   ctx.server_version[0] = 8;
   ctx.server_version[1] = 3;
   /* the REPL (no file): once per session */
   traps_check_js (&ctx, NULL, js, strlen (js));
   traps_check_js (&ctx, NULL, js, strlen (js));
   /* a script: once per place */
   traps_check_js (&ctx, "a.js", js, strlen (js));
   traps_check_js (&ctx, "a.js", js, strlen (js));
   traps_check_js (&ctx, "b.js", js, strlen (js));
   fflush (ctx.err_fp);
   fflush (ctx.out_fp);
   CHECK ("traps/warn: once in the REPL, once per place in scripts",
          count_of (text, "[trap balancer_running_cond") == 3);
   CHECK ("traps/warn: file:line:col, the version and what to write instead",
          strstr (text, "a.js:1:8: warning: MongoDB 8.3.0: ") && strstr (text, "write instead: while (sh.isBalancer"));
   CHECK ("traps/warn: --json carries it as a trap object on stdout",
          out && count_of (out, "{ \"trap\" : { \"id\" : \"balancer_running_cond\"") == 3 &&
             strstr (out, "\"file\" : \"a.js\", \"line\" : 1, \"col\" : 8, \"version\" : \"8.3.0\""));
   /* --no-preflight says nothing */
   opts.no_preflight = true;
   traps_check_js (&ctx, "c.js", js, strlen (js));
   fflush (ctx.err_fp);
   CHECK ("traps/warn: nothing under --no-preflight", !strstr (text, "c.js"));
   opts.no_preflight = false;
   /* a version where it does not bite: nothing (an 8.2 row on 8.1) */
   {
      sh_script_t script;
      sh_error_t err;
      const char *stmt = "db.adminCommand({cleanupOrphaned: \"app.ev\"})";
      ctx.server_version[1] = 1;
      sh_error_clear (&err);
      if (sh_parse_script ("d.js", stmt, strlen (stmt), &script, &err)) {
         const sh_script_t *scripts[1] = { &script };
         const char *jsv[1] = { NULL }, *names[1] = { "d.js" };
         size_t lens[1] = { 0 };
         dispatch_prepare (&ctx, &script.stmts[0]);
         traps_check_scripts (&ctx, scripts, jsv, lens, names, 1);
         sh_script_destroy (&script);
      }
      fflush (ctx.err_fp);
      CHECK ("traps/warn: 8.1 gets the 8.0 row of cleanupOrphaned, not the 8.2 one",
             strstr (text, "d.js:1:4: warning: MongoDB 8.1.0: deprecated") && !strstr (text, "orphan_cleanup_delay"));
   }
   fclose (ctx.err_fp);
   fclose (ctx.out_fp);
   free (text);
   free (out);
   bson_free (ctx.db);
}

int
main (int argc, char **argv)
{
   bson_string_t *gen = bson_string_new (NULL);
   char *doc = read_path (DOC_PATH), *want;
   sh_options_t opts;
   sh_ctx_t ctx;
   traps_doc_table (gen);
   want = doc ? doc_with_table (doc, gen->str) : NULL;
   if (argc > 1 && !strcmp (argv[1], "--write")) {
      FILE *f = want ? fopen (DOC_PATH, "w") : NULL;
      int rc = f && fputs (want, f) >= 0 ? 0 : 1;
      if (f)
         fclose (f);
      if (rc)
         fprintf (stderr, "test_traps --write: %s has no generated-table markers\n", DOC_PATH);
      bson_string_free (gen, true);
      free (doc);
      bson_free (want);
      return rc;
   }
   CHECK ("traps/docs/traps.md has the generated table's markers", want != NULL);
   CHECK ("traps/docs/traps.md's table is the table's (regenerate: make docs)", want && !strcmp (want, doc));
   test_table ();
   test_versions ();
   memset (&opts, 0, sizeof opts);
   opts.dry_run = true;
   memset (&ctx, 0, sizeof ctx);
   ctx.opts = &opts;
   ctx.db = bson_strdup ("test");
   ctx.out_fp = ctx.err_fp = fopen ("/dev/null", "w");
   test_forms (&ctx);
   fclose (ctx.out_fp);
   bson_free (ctx.db);
   bson_free (ctx.hello_db);
   test_js ();
   test_warnings ();
   bson_string_free (gen, true);
   free (doc);
   bson_free (want);
   UNIT_EXIT ();
}
