/* passes: plain asan */
/* The JavaScript engine's bridge, through the plugin the shell loads: JavaScript values to BSON (numbers as mongosh
 * sends them, every BSON constructor), BSON to JavaScript values and back, calls of command-table entries through a
 * canned-reply transport (what goes on the wire, results read as values, server errors as exceptions with code and
 * codeName and their script position), syntax errors with positions, and --dry-run's synthetic replies. */
#include <math.h>
#include <stdlib.h>

#include "commands/commands.h"
#include "shell/core/conn.h"
#include "shell/js/js_host.h"
#include "tests/unit/unit.h"

/* The transport: keeps the last command and answers per command name. */
static bson_t last_cmd = BSON_INITIALIZER;
static int ncommands;
/* a collection "many" of 9 documents served 3 at a time on cursor id 77 */
static int served, ngetmores, nkills, last_batch;
static int64_t killed_id;

static void
append_batch (bson_t *reply, const char *field, int from, int n, int64_t id)
{
   bson_t cursor, batch, d;
   BSON_APPEND_DOCUMENT_BEGIN (reply, "cursor", &cursor);
   BSON_APPEND_INT64 (&cursor, "id", id);
   BSON_APPEND_UTF8 (&cursor, "ns", "config.many");
   BSON_APPEND_ARRAY_BEGIN (&cursor, field, &batch);
   for (int i = 0; i < n; i++) {
      char key[16];
      const char *k;
      bson_uint32_to_string ((uint32_t) i, &k, key, sizeof key);
      BSON_APPEND_DOCUMENT_BEGIN (&batch, k, &d);
      BSON_APPEND_INT32 (&d, "_id", from + i);
      bson_append_document_end (&batch, &d);
   }
   bson_append_array_end (&cursor, &batch);
   bson_append_document_end (reply, &cursor);
}

static bool
transport (void *data, const char *db, const bson_t *cmd, bson_t *reply, bson_error_t *error)
{
   bson_iter_t it;
   const char *name = bson_iter_init (&it, cmd) && bson_iter_next (&it) ? bson_iter_key (&it) : "";
   (void) data;
   (void) db;
   (void) error;
   ncommands++;
   bson_destroy (&last_cmd);
   bson_copy_to (cmd, &last_cmd);
   bson_init (reply);
   if (!strcmp (name, "balancerStatus")) {
      BSON_APPEND_UTF8 (reply, "mode", "full");
      BSON_APPEND_BOOL (reply, "inBalancerRound", false);
      BSON_APPEND_INT64 (reply, "numBalancerRounds", 5);
      BSON_APPEND_DOUBLE (reply, "ok", 1);
   } else if (!strcmp (name, "find") && !strcmp (bson_iter_utf8 (&it, NULL), "many")) {
      served = 3;
      append_batch (reply, "firstBatch", 0, 3, 77);
      BSON_APPEND_DOUBLE (reply, "ok", 1);
   } else if (!strcmp (name, "getMore")) {
      bson_iter_t f;
      ngetmores++;
      last_batch = bson_iter_init_find (&f, cmd, "batchSize") ? bson_iter_int32 (&f) : 0;
      append_batch (reply, "nextBatch", served, 3, served + 3 >= 9 ? 0 : bson_iter_as_int64 (&it));
      served += 3;
      BSON_APPEND_DOUBLE (reply, "ok", 1);
   } else if (!strcmp (name, "killCursors")) {
      bson_iter_t f, id;
      nkills++;
      if (bson_iter_init_find (&f, cmd, "cursors") && bson_iter_recurse (&f, &id) && bson_iter_next (&id))
         killed_id = bson_iter_as_int64 (&id);
      BSON_APPEND_DOUBLE (reply, "ok", 1);
   } else if (!strcmp (name, "split")) {
      BSON_APPEND_DOUBLE (reply, "ok", 0);
      BSON_APPEND_UTF8 (reply, "errmsg", "Collection app.x is not sharded.");
      BSON_APPEND_INT32 (reply, "code", 118);
      BSON_APPEND_UTF8 (reply, "codeName", "NamespaceNotSharded");
   } else {
      BSON_APPEND_DOUBLE (reply, "ok", 1);
   }
   return true;
}

/* The BSON type of field key of the last command sent (0 when absent). */
static bson_type_t
sent_type (const char *key)
{
   bson_iter_t it;
   return bson_iter_init_find (&it, &last_cmd, key) ? bson_iter_type (&it) : (bson_type_t) 0;
}

/* Evaluates expr and returns the type of its value, copying the value into *out when out is not NULL. */
static bson_type_t
eval_type (js_engine_t *e, const char *expr, bson_value_t *out)
{
   bson_t doc;
   bson_iter_t it;
   sh_error_t err;
   bson_type_t t = (bson_type_t) 0;
   sh_error_clear (&err);
   if (out)
      memset (out, 0, sizeof *out);
   if (js_host_api ()->eval_to_bson (e, expr, &doc, &err) && bson_iter_init_find (&it, &doc, "v")) {
      t = bson_iter_type (&it);
      if (out)
         bson_value_copy (bson_iter_value (&it), out);
   }
   bson_destroy (&doc);
   return t;
}

/* Evaluates expr and returns { v: <value> } as canonical Extended JSON into buf ("error" when it failed). */
static const char *
eval_json (js_engine_t *e, const char *expr, char *buf, size_t len)
{
   bson_t doc;
   sh_error_t err;
   char *s;
   sh_error_clear (&err);
   bson_strncpy (buf, "error", len);
   if (js_host_api ()->eval_to_bson (e, expr, &doc, &err) && (s = bson_as_canonical_extended_json (&doc, NULL))) {
      bson_strncpy (buf, s, len);
      bson_free (s);
   }
   bson_destroy (&doc);
   return buf;
}

/* Values as they cross the bridge: numbers as mongosh sends them, the BSON constructors, a round trip. */
static void
test_values (js_engine_t *e)
{
   const js_engine_api_t *api = js_host_api ();
   bson_value_t v;
   bson_t doc, back;
   sh_error_t err;
   char json[512];

   sh_error_clear (&err);
   /* numbers as mongosh sends them */
   CHECK ("js bridge: an integral number is an int32", eval_type (e, "42", NULL) == BSON_TYPE_INT32);
   CHECK ("js bridge: a fraction is a double", eval_type (e, "1.5", NULL) == BSON_TYPE_DOUBLE);
   CHECK ("js bridge: 2^31 is a double", eval_type (e, "2147483648", NULL) == BSON_TYPE_DOUBLE);
   CHECK ("js bridge: -2^31 is an int32", eval_type (e, "-2147483648", NULL) == BSON_TYPE_INT32);
   CHECK ("js bridge: -0 is a double", eval_type (e, "-0", NULL) == BSON_TYPE_DOUBLE);
   CHECK ("js bridge: NaN is a double", eval_type (e, "NaN", &v) == BSON_TYPE_DOUBLE && isnan (v.value.v_double));
   CHECK ("js bridge: NumberLong keeps 64 bits",
          eval_type (e, "NumberLong('9007199254740993')", &v) == BSON_TYPE_INT64 &&
             v.value.v_int64 == 9007199254740993LL);
   CHECK ("js bridge: NumberLong out of range throws", eval_type (e, "NumberLong('9223372036854775808')", NULL) == 0);
   CHECK ("js bridge: NumberInt is an int32", eval_type (e, "NumberInt(7)", NULL) == BSON_TYPE_INT32);
   CHECK ("js bridge: Double(1) stays a double", eval_type (e, "Double(1)", NULL) == BSON_TYPE_DOUBLE);
   CHECK ("js bridge: a BigInt is an int64", eval_type (e, "5n", NULL) == BSON_TYPE_INT64);
   /* the constructors */
   CHECK ("js bridge: ObjectId() makes a new one", eval_type (e, "ObjectId()", NULL) == BSON_TYPE_OID);
   CHECK ("js bridge: ObjectId(hex)",
          eval_type (e, "ObjectId('5f0000000000000000000001').toHexString()", &v) == BSON_TYPE_UTF8 &&
             !strcmp (v.value.v_utf8.str, "5f0000000000000000000001"));
   bson_value_destroy (&v);
   CHECK ("js bridge: ISODate",
          eval_type (e, "ISODate('1970-01-02T00:00:00')", &v) == BSON_TYPE_DATE_TIME && v.value.v_datetime == 86400000);
   CHECK ("js bridge: new Date()", eval_type (e, "new Date(5)", NULL) == BSON_TYPE_DATE_TIME);
   CHECK ("js bridge: Timestamp", eval_type (e, "Timestamp(1, 2)", &v) == BSON_TYPE_TIMESTAMP &&
                                     v.value.v_timestamp.timestamp == 1 && v.value.v_timestamp.increment == 2);
   CHECK ("js bridge: UUID is binary subtype 4",
          eval_type (e, "UUID('01234567-89ab-cdef-0123-456789abcdef')", &v) == BSON_TYPE_BINARY &&
             v.value.v_binary.subtype == BSON_SUBTYPE_UUID && v.value.v_binary.data_len == 16 &&
             v.value.v_binary.data[15] == 0xef);
   bson_value_destroy (&v);
   CHECK ("js bridge: BinData", eval_type (e, "BinData(0, 'AQID')", &v) == BSON_TYPE_BINARY &&
                                   v.value.v_binary.data_len == 3 && v.value.v_binary.data[2] == 3);
   bson_value_destroy (&v);
   CHECK ("js bridge: NumberDecimal", eval_type (e, "NumberDecimal('1.5')", NULL) == BSON_TYPE_DECIMAL128);
   CHECK ("js bridge: MinKey as a value", eval_type (e, "MinKey", NULL) == BSON_TYPE_MINKEY);
   CHECK ("js bridge: MaxKey()", eval_type (e, "MaxKey()", NULL) == BSON_TYPE_MAXKEY);
   CHECK ("js bridge: a RegExp", eval_type (e, "/a+b/i", NULL) == BSON_TYPE_REGEX);
   CHECK_STR ("js bridge: undefined in an array is null, a function is left out",
              "{ \"v\" : [ { \"$numberInt\" : \"1\" }, null, { \"a\" : null } ] }",
              eval_json (e, "[1, undefined, {a: undefined, f: function () {}}]", json, sizeof json));
   CHECK ("js bridge: a cyclic object fails without crashing",
          eval_type (e, "(() => { const o = {}; o.o = o; return o; })()", NULL) == 0);
   CHECK ("js bridge: a template literal",
          eval_type (e, "`a${1 + 1}b`", &v) == BSON_TYPE_UTF8 && !strcmp (v.value.v_utf8.str, "a2b"));
   bson_value_destroy (&v);

   /* BSON -> JavaScript -> BSON keeps every type that has a JavaScript value of its own */
   bson_init (&doc);
   BSON_APPEND_INT32 (&doc, "i", 1);
   BSON_APPEND_INT64 (&doc, "l", -3);
   BSON_APPEND_DOUBLE (&doc, "d", 2.5);
   BSON_APPEND_UTF8 (&doc, "s", "h\xc3\xa9");
   BSON_APPEND_DATE_TIME (&doc, "t", 1700000000000);
   BSON_APPEND_TIMESTAMP (&doc, "ts", 4000000000u, 1);
   BSON_APPEND_MINKEY (&doc, "min");
   BSON_APPEND_REGEX (&doc, "re", "^a", "i");
   BSON_APPEND_NULL (&doc, "n");
   CHECK ("js bridge: a round trip keeps the document",
          api->bson_roundtrip (e, &doc, &back, &err) && bson_equal (&doc, &back));
   bson_destroy (&back);
   bson_destroy (&doc);
}

/* Calls through the command table and the cursors that stream their results. */
static void
test_commands (js_engine_t *e)
{
   bson_value_t v;

   /* calls through the command table */
   ncommands = 0;
   CHECK ("js bridge: a result's field is readable",
          eval_type (e, "db.adminCommand({balancerStatus: 1}).mode", &v) == BSON_TYPE_UTF8 &&
             !strcmp (v.value.v_utf8.str, "full"));
   bson_value_destroy (&v);
   CHECK ("js bridge: one command was sent", ncommands == 1);
   CHECK ("js bridge: an int64 reply field is a Long", eval_type (e,
                                                                  "db.adminCommand({balancerStatus: 1})"
                                                                  ".numBalancerRounds instanceof Long",
                                                                  &v) == BSON_TYPE_BOOL &&
                                                          v.value.v_bool);
   eval_type (e, "db.adminCommand({ping: 1, a: 2, b: 2.5, c: 3000000000, d: NumberLong(7), e: NumberInt(3)})", NULL);
   CHECK ("js bridge: numbers on the wire: integral -> int32", sent_type ("a") == BSON_TYPE_INT32);
   CHECK ("js bridge: numbers on the wire: fraction -> double", sent_type ("b") == BSON_TYPE_DOUBLE);
   CHECK ("js bridge: numbers on the wire: beyond int32 -> double", sent_type ("c") == BSON_TYPE_DOUBLE);
   CHECK ("js bridge: numbers on the wire: NumberLong -> int64", sent_type ("d") == BSON_TYPE_INT64);
   CHECK ("js bridge: numbers on the wire: NumberInt -> int32", sent_type ("e") == BSON_TYPE_INT32);
   CHECK ("js bridge: getSiblingDB names the database",
          eval_type (e, "db.getSiblingDB('config').getName()", &v) == BSON_TYPE_UTF8 &&
             !strcmp (v.value.v_utf8.str, "config"));
   bson_value_destroy (&v);
   CHECK ("js bridge: db.<coll> is a collection",
          eval_type (e, "db.getSiblingDB('config').chunks.getFullName()", &v) == BSON_TYPE_UTF8 &&
             !strcmp (v.value.v_utf8.str, "config.chunks"));
   bson_value_destroy (&v);
   ncommands = 0;
   eval_type (e, "db.getSiblingDB('config').chunks.find({a: 1}).sort({min: 1}).limit(3)", NULL);
   CHECK ("js bridge: a cursor sends nothing until it is read", ncommands == 0);

   /* cursors stream: find with batchSize, getMore only when the documents received are used up, killCursors */
   ncommands = ngetmores = nkills = 0;
   CHECK ("js bridge: next() reads the first batch only",
          eval_type (e, "var c1 = db.getSiblingDB('config').many.find().batchSize(3); c1.next()._id", &v) ==
                BSON_TYPE_INT32 &&
             v.value.v_int32 == 0 && ncommands == 1 && ngetmores == 0);
   CHECK ("js bridge: batchSize is sent with find", sent_type ("batchSize") == BSON_TYPE_INT32);
   CHECK ("js bridge: the fourth next() sends one getMore with the batchSize",
          eval_type (e, "c1.next(); c1.next(); c1.next()._id", &v) == BSON_TYPE_INT32 && v.value.v_int32 == 3 &&
             ngetmores == 1 && last_batch == 3);
   CHECK ("js bridge: toArray() reads the rest", eval_type (e, "c1.toArray().length", &v) == BSON_TYPE_INT32 &&
                                                    v.value.v_int32 == 5 && ngetmores == 2 && nkills == 0);
   CHECK ("js bridge: toArray() of a fresh cursor reads all",
          eval_type (e, "db.getSiblingDB('config').many.find().batchSize(3).toArray().length", &v) == BSON_TYPE_INT32 &&
             v.value.v_int32 == 9 && ngetmores == 4 && nkills == 0);
   CHECK ("js bridge: close() kills an open cursor",
          eval_type (e, "var c2 = db.getSiblingDB('config').many.find(); c2.next(); c2.close(); c2.hasNext()", &v) ==
                BSON_TYPE_BOOL &&
             !v.value.v_bool && nkills == 1 && killed_id == 77);
   eval_type (e, "var c3 = db.getSiblingDB('config').many.find(); c3.next()", NULL);
}

/* Server errors (thrown, placed, catchable), syntax errors, and variables that persist between runs. */
static void
test_errors (js_engine_t *e)
{
   const js_engine_api_t *api = js_host_api ();
   bson_value_t v;
   sh_error_t err;

   /* a server error: an exception with code and codeName, placed at the call */
   {
      const char *src = "let a = 1;\nif (a) {\n  db.adminCommand({split: 'app.x', middle: {k: 1}});\n}\n";
      sh_error_clear (&err);
      CHECK ("js bridge: a server error fails the run",
             api->run (e, "s.js", src, strlen (src), false, &err) == JS_RUN_FAILED);
      CHECK ("js bridge: the server error keeps code and codeName",
             err.kind == SH_ERR_SERVER && err.code == 118 && !strcmp (err.code_name, "NamespaceNotSharded"));
      CHECK ("js bridge: the server error is placed at its call", err.has_pos && err.pos.line == 3 && err.pos.col > 2);
      src = "try { db.adminCommand({split: 'x.y', middle: {k: 1}}) } catch (e) { print(e.codeName, e.code) }";
      sh_error_clear (&err);
      CHECK ("js bridge: a server error can be caught",
             api->run (e, "c.js", src, strlen (src), false, &err) == JS_RUN_OK);
   }
   /* syntax errors */
   {
      const char *src = "let x = 1;\nfor (const s of [1, 2]) {\n  if (s === ) x++;\n}\n";
      sh_error_clear (&err);
      CHECK ("js bridge: a syntax error is found without running",
             !api->check (e, "bad.js", src, strlen (src), &err) && err.kind == SH_ERR_PARSE);
      CHECK ("js bridge: the syntax error has line and column", err.has_pos && err.pos.line == 3 && err.pos.col == 13);
   }
   /* variables persist between runs */
   {
      const char *a = "var kept = 41;", *b = "kept + 1";
      api->run (e, "<repl>", a, strlen (a), false, &err);
      CHECK ("js bridge: variables persist between runs",
             eval_type (e, b, &v) == BSON_TYPE_INT32 && v.value.v_int32 == 42);
   }
}

/* --dry-run's synthetic replies and the completion of names. */
static void
test_dry_run_and_completion (js_engine_t *e, sh_options_t *opts)
{
   const js_engine_api_t *api = js_host_api ();
   bson_value_t v;

   /* --dry-run: a synthetic { ok: 1 } */
   opts->dry_run = true;
   CHECK ("js bridge: --dry-run answers { ok: 1 }",
          eval_type (e, "sh.stopBalancer().ok", &v) == BSON_TYPE_INT32 && v.value.v_int32 == 1);
   CHECK ("js bridge: --dry-run cursors are empty",
          eval_type (e, "db.getSiblingDB('config').shards.find().toArray().length", &v) == BSON_TYPE_INT32 &&
             v.value.v_int32 == 0);
   opts->dry_run = false;
   /* completion */
   {
      char *names[16];
      size_t n = api->complete (e, "sh.getBal", names, 16);
      CHECK ("js bridge: completion offers sh.getBalancerState", n >= 1 && !strcmp (names[0], "sh.getBalancerState"));
      for (size_t i = 0; i < n; i++)
         free (names[i]);
      n = api->complete (e, "kep", names, 16);
      CHECK ("js bridge: completion offers variables", n == 1 && !strcmp (names[0], "kept"));
      for (size_t i = 0; i < n; i++)
         free (names[i]);
   }
}

int
main (void)
{
   const char *bindir = getenv ("BINDIR");
   char *plugin = bson_strdup_printf ("%s/shardsh-js.so", bindir && *bindir ? bindir : "bin");
   sh_options_t opts;
   sh_ctx_t ctx;
   sh_error_t err;
   js_engine_t *e;
   FILE *sink = tmpfile ();

   setenv ("SHARDSH_JS_PLUGIN", plugin, 1);
   memset (&opts, 0, sizeof opts);
   memset (&ctx, 0, sizeof ctx);
   ctx.opts = &opts;
   ctx.out = output_opts_default (OUTPUT_PRETTY, false);
   ctx.out_fp = sink;
   ctx.err_fp = sink;
   conn_set_transport (transport, NULL);
   conn_init (&ctx, "mongodb://127.0.0.1:1/", "test");
   sh_error_clear (&err);
   e = js_host_engine (&ctx, &err);
   CHECK ("js bridge: the plugin loads and the engine starts", e != NULL);
   if (!e) {
      printf ("  (%s)\n", err.message);
      UNIT_EXIT ();
   }
   test_values (e);
   test_commands (e);
   test_errors (e);
   test_dry_run_and_completion (e, &opts);

   nkills = 0;
   js_host_shutdown ();
   CHECK ("js bridge: a cursor left open is killed when the engine ends", nkills == 1);
   conn_set_transport (NULL, NULL);
   conn_destroy (&ctx);
   bson_destroy (&last_cmd);
   bson_free (plugin);
   fclose (sink);
   UNIT_EXIT ();
}
