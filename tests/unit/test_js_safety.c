/* passes: plain asan */
/* What a script or a value can do to the JavaScript engine without crashing it or changing what is sent (issue 39):
 * strings with lone surrogates, RegExps as operator values, documents whose keys look like Extended JSON (both
 * directions), promises and top-level await, the literal constructors' refusals, and the memory limit. No server:
 * the engine only (the plugin, as the shell loads it). */
#include <stdlib.h>

#include "shell/core/conn.h"
#include "shell/js/js_host.h"
#include "tests/unit/unit.h"

/* Evaluates expr into *doc ({ v: <value> }); false when it threw. */
static bool
eval_doc (js_engine_t *e, const char *expr, bson_t *doc, sh_error_t *err)
{
   sh_error_clear (err);
   return js_host_api ()->eval_to_bson (e, expr, doc, err);
}

/* The canonical Extended JSON of expr's value ({"v": …}), or "error: <message>"; the caller frees it. */
static char *
eval_json (js_engine_t *e, const char *expr)
{
   bson_t doc;
   sh_error_t err;
   char *s;
   if (eval_doc (e, expr, &doc, &err))
      s = bson_as_canonical_extended_json (&doc, NULL);
   else
      s = bson_strdup_printf ("error: %s", err.message);
   bson_destroy (&doc);
   return s;
}

/* True when expr's value, as canonical Extended JSON, is expected. */
static bool
eval_is (js_engine_t *e, const char *expr, const char *expected)
{
   char *s = eval_json (e, expr);
   bool ok = s && !strcmp (s, expected);
   if (!ok)
      printf ("  %s\n  gave %s\n  want %s\n", expr, s ? s : "(null)", expected);
   bson_free (s);
   return ok;
}

/* True when expr throws and its message holds what. */
static bool
eval_throws (js_engine_t *e, const char *expr, const char *what)
{
   bson_t doc;
   sh_error_t err;
   bool ok = !eval_doc (e, expr, &doc, &err) && strstr (err.message, what);
   if (!ok)
      printf ("  %s: [%s]\n", expr, err.message);
   bson_destroy (&doc);
   return ok;
}

/* A document through BSON -> JavaScript -> BSON comes back equal. */
static bool
roundtrip_equal (js_engine_t *e, const bson_t *doc)
{
   bson_t back;
   sh_error_t err;
   bool ok;
   sh_error_clear (&err);
   ok = js_host_api ()->bson_roundtrip (e, doc, &back, &err) && bson_equal (doc, &back);
   bson_destroy (&back);
   return ok;
}

static void
test_strings_and_keys (js_engine_t *e)
{
   bson_t doc, sub;

   CHECK ("js safety: a lone surrogate becomes U+FFFD as mongosh sends it",
          eval_is (e, "({a: '\\ud800'.repeat(2) + 'x\\udc00'})",
                   "{ \"v\" : { \"a\" : \"\xef\xbf\xbd\xef\xbf\xbdx\xef\xbf\xbd\" } }"));
   CHECK ("js safety: a sliced emoji as a key",
          eval_is (e, "({['\\ud83d']: 1})", "{ \"v\" : { \"\xef\xbf\xbd\" : { \"$numberInt\" : \"1\" } } }"));
   CHECK ("js safety: a paired surrogate stays", eval_is (e, "'\\ud83d\\ude00'", "{ \"v\" : \"\xf0\x9f\x98\x80\" }"));
   CHECK ("js safety: a RegExp as $regex's value",
          eval_is (e, "({_id: {$regex: /^shard0/}})",
                   "{ \"v\" : { \"_id\" : { \"$regex\" : { \"$regularExpression\" : { \"pattern\" : \"^shard0\", "
                   "\"options\" : \"\" } } } } }"));
   CHECK ("js safety: RegExps in $in and $not",
          eval_is (e, "({a: {$in: [/a/, /b/i]}, b: {$not: /x/}})",
                   "{ \"v\" : { \"a\" : { \"$in\" : [ { \"$regularExpression\" : { \"pattern\" : \"a\", \"options\" : "
                   "\"\" } }, { \"$regularExpression\" : { \"pattern\" : \"b\", \"options\" : \"i\" } } ] }, \"b\" : { "
                   "\"$not\" : { \"$regularExpression\" : { \"pattern\" : \"x\", \"options\" : \"\" } } } } }"));
   CHECK ("js safety: a string as $regex's value stays a string",
          eval_is (e, "({$regex: '^a', $options: 'i'})", "{ \"v\" : { \"$regex\" : \"^a\", \"$options\" : \"i\" } }"));
   CHECK ("js safety: a key like Extended JSON's is a key",
          eval_is (e, "({a: {$numberInt: 'x', other: 1}, $oid: 'y'})",
                   "{ \"v\" : { \"a\" : { \"$numberInt\" : \"x\", \"other\" : { \"$numberInt\" : \"1\" } }, \"$oid\" : "
                   "\"y\" } }"));
   CHECK ("js safety: a key starting with the mark keeps it",
          eval_is (e, "({'\\u0001k': true})", "{ \"v\" : { \"\\u0001k\" : true } }"));

   /* stored documents with such keys, read in JavaScript and sent back */
   bson_init (&doc);
   BSON_APPEND_DOCUMENT_BEGIN (&doc, "a", &sub);
   BSON_APPEND_UTF8 (&sub, "$numberInt", "x");
   BSON_APPEND_INT32 (&sub, "other", 1);
   bson_append_document_end (&doc, &sub);
   BSON_APPEND_DOCUMENT_BEGIN (&doc, "r", &sub);
   BSON_APPEND_REGEX (&sub, "$regex", "^a", "i");
   BSON_APPEND_UTF8 (&sub, "$options", "s");
   bson_append_document_end (&doc, &sub);
   BSON_APPEND_INT32 (&doc, "$date", 3);
   BSON_APPEND_UTF8 (&doc, "\x01x", "marked");
   CHECK ("js safety: a stored document with Extended-JSON-looking keys comes back as it was",
          roundtrip_equal (e, &doc));
   bson_destroy (&doc);
}

static void
test_promises (js_engine_t *e)
{
   const js_engine_api_t *api = js_host_api ();
   sh_error_t err;
   const char *src;

   sh_error_clear (&err);
   src = "var got = 0; Promise.resolve(3).then((v) => { got = v; });";
   CHECK ("js safety: .then runs after the statement",
          api->run (e, "p.js", src, strlen (src), false, &err) == JS_RUN_OK &&
             eval_is (e, "got", "{ \"v\" : { \"$numberInt\" : \"3\" } }"));
   src = "var caught = ''; Promise.reject(new Error('no')).catch((x) => { caught = x.message; });";
   CHECK ("js safety: .catch runs after the statement",
          api->run (e, "p.js", src, strlen (src), false, &err) == JS_RUN_OK &&
             eval_is (e, "caught", "{ \"v\" : \"no\" }"));
   src = "async function f() { return 7; }\nawaited = await f();\n";
   CHECK ("js safety: a script may await at the top level",
          api->check (e, "a.js", src, strlen (src), &err) &&
             api->run (e, "a.js", src, strlen (src), false, &err) == JS_RUN_OK &&
             eval_is (e, "awaited", "{ \"v\" : { \"$numberInt\" : \"7\" } }"));
   src = "let n = 1;\nawait Promise.reject(new Error('bad ' + n));\n";
   sh_error_clear (&err);
   CHECK ("js safety: a rejected top-level await fails the run at its line",
          api->run (e, "r.js", src, strlen (src), false, &err) == JS_RUN_FAILED && strstr (err.message, "bad 1") &&
             err.has_pos && err.pos.line == 2);
   src = "await (1 +\n";
   sh_error_clear (&err);
   CHECK ("js safety: a syntax error with await keeps the script's own position",
          !api->check (e, "s.js", src, strlen (src), &err) && err.kind == SH_ERR_PARSE && err.has_pos &&
             err.pos.line >= 1);
}

/* The literal constructors refuse what mongosh 2.12 refuses (checked with mongosh --nodb --eval). */
static void
test_constructors (js_engine_t *e)
{
   static const char *const refused[] = {
      "NumberDecimal('12,50')", "NumberDecimal('1e6145')", "NumberDecimal('1e-6177')", "NumberDecimal(' 1')",
      "NumberDecimal('')",      "NumberDecimal('0x10')",   "NumberDecimal('1.5.5')",   "NumberDecimal('1_000')",
      "ObjectId('zz')",         "ISODate('nope')",         "Timestamp(-1, 0)",         "BinData(300, 'AA==')",
   };
   bool all = true;
   for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
      all = eval_throws (e, refused[i], "") && all;
   CHECK ("js safety: the literal constructors refuse what mongosh refuses", all);
   CHECK ("js safety: NumberDecimal says why", eval_throws (e, "NumberDecimal('12,50')", "not a valid Decimal128"));
   CHECK ("js safety: NumberDecimal keeps what mongosh accepts",
          eval_is (e, "[NumberDecimal('NaN'), NumberDecimal('-Infinity'), NumberDecimal('.5'), NumberDecimal('1E+3')]",
                   "{ \"v\" : [ { \"$numberDecimal\" : \"NaN\" }, { \"$numberDecimal\" : \"-Infinity\" }, { "
                   "\"$numberDecimal\" : \"0.5\" }, { \"$numberDecimal\" : \"1E+3\" } ] }"));
}

/* The memory limit: a run that grows the process past SHARDSH_JS_MEMORY_MB (256 here) stops with a clear error and
 * the engine goes on. */
static void
test_memory (js_engine_t *e)
{
   const js_engine_api_t *api = js_host_api ();
   const char *hog = "var hog = []; while (true) hog.push('x'.repeat(4096) + hog.length);";
   sh_error_t err;
   sh_error_clear (&err);
   CHECK ("js safety: a script past the memory limit stops with \"out of memory in JavaScript\"",
          api->run (e, "m.js", hog, strlen (hog), false, &err) == JS_RUN_FAILED &&
             strstr (err.message, "out of memory in JavaScript"));
   api->run (e, "m.js", "hog = null;", strlen ("hog = null;"), false, &err);
   CHECK ("js safety: the engine runs on after it", eval_is (e, "1 + 1", "{ \"v\" : { \"$numberInt\" : \"2\" } }"));
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
   setenv ("SHARDSH_JS_MEMORY_MB", "256", 1);
   memset (&opts, 0, sizeof opts);
   memset (&ctx, 0, sizeof ctx);
   ctx.opts = &opts;
   ctx.out = output_opts_default (OUTPUT_PRETTY, false);
   ctx.out_fp = sink;
   ctx.err_fp = sink;
   conn_init (&ctx, "mongodb://127.0.0.1:1/", "test");
   sh_error_clear (&err);
   e = js_host_engine (&ctx, &err);
   CHECK ("js safety: the plugin loads and the engine starts", e != NULL);
   if (e) {
      test_strings_and_keys (e);
      test_promises (e);
      test_constructors (e);
      test_memory (e);
   } else {
      printf ("  (%s)\n", err.message);
   }
   js_host_shutdown ();
   conn_destroy (&ctx);
   bson_free (plugin);
   fclose (sink);
   UNIT_EXIT ();
}
