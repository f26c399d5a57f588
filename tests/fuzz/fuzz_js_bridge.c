/* libFuzzer target for the JavaScript engine's bridge: bytes that validate as a BSON document are converted to a
 * JavaScript value and back to BSON (the way replies reach scripts and values reach the wire), then once more (other
 * bytes become JavaScript strings first, lone surrogates and all: js_fuzz_utf16_expr); the
 * second trip must give exactly the document the first gave (a conversion may normalise once, an integral double
 * becomes an int32, but never drift), and neither may crash, leak or trip the sanitizers. The engine is the plugin
 * the shell loads ($SHARDSH_JS_PLUGIN, else $BINDIR/shardsh-js.so, else bin/shardsh-js.so).
 * Built by `make fuzz`; tests/unit/test_fuzz_regressions.c replays saved inputs through fuzz_js_bridge_one. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "shell/js/js_host.h"
#include "shell/lib/bsonvalid.h"

static sh_ctx_t js_fuzz_ctx;
static js_engine_t *js_fuzz_engine;
static bool js_fuzz_tried;

/* At exit, before the plugin's JS_ShutDown (registered earlier, so it runs later). */
static void
js_fuzz_stop (void)
{
   js_host_shutdown ();
}

/* The engine, started once per process and freed at exit; NULL when the plugin cannot be loaded. */
static js_engine_t *
js_fuzz_start (void)
{
   sh_error_t err;
   if (js_fuzz_tried)
      return js_fuzz_engine;
   js_fuzz_tried = true;
   if (!getenv ("SHARDSH_JS_PLUGIN")) {
      const char *bindir = getenv ("BINDIR");
      char *path = bson_strdup_printf ("%s/shardsh-js.so", bindir && *bindir ? bindir : "bin");
      setenv ("SHARDSH_JS_PLUGIN", path, 1);
      bson_free (path);
   }
   memset (&js_fuzz_ctx, 0, sizeof js_fuzz_ctx);
   js_fuzz_ctx.db = (char *) "test";
   js_fuzz_ctx.out = output_opts_default (OUTPUT_PRETTY, false);
   js_fuzz_ctx.out_fp = stderr;
   js_fuzz_ctx.err_fp = stderr;
   sh_error_clear (&err);
   js_fuzz_engine = js_host_engine (&js_fuzz_ctx, &err);
   if (js_fuzz_engine)
      atexit (js_fuzz_stop);
   else
      fprintf (stderr, "fuzz_js_bridge: %s\n", err.message);
   return js_fuzz_engine;
}

/* Walks the document with one branch per BSON type: the conversions themselves run in the engine's JavaScript, which
 * coverage does not see, so these branches are what lets libFuzzer tell a document of new types from another. */
static unsigned
js_fuzz_types (bson_iter_t *it, int depth)
{
   unsigned seen = 0;
   while (bson_iter_next (it)) {
      bson_iter_t sub;
      switch (bson_iter_type (it)) {
      case BSON_TYPE_DOUBLE:
         seen |= 1u << 0;
         break;
      case BSON_TYPE_UTF8:
         seen |= 1u << 1;
         break;
      case BSON_TYPE_DOCUMENT:
      case BSON_TYPE_ARRAY:
         seen |= 1u << 2;
         if (depth < 8 && bson_iter_recurse (it, &sub))
            seen |= js_fuzz_types (&sub, depth + 1);
         break;
      case BSON_TYPE_BINARY:
         seen |= 1u << 3;
         break;
      case BSON_TYPE_UNDEFINED:
         seen |= 1u << 4;
         break;
      case BSON_TYPE_OID:
         seen |= 1u << 5;
         break;
      case BSON_TYPE_BOOL:
         seen |= 1u << 6;
         break;
      case BSON_TYPE_DATE_TIME:
         seen |= 1u << 7;
         break;
      case BSON_TYPE_NULL:
         seen |= 1u << 8;
         break;
      case BSON_TYPE_REGEX:
         seen |= 1u << 9;
         break;
      case BSON_TYPE_DBPOINTER:
         seen |= 1u << 10;
         break;
      case BSON_TYPE_CODE:
      case BSON_TYPE_CODEWSCOPE:
         seen |= 1u << 11;
         break;
      case BSON_TYPE_SYMBOL:
         seen |= 1u << 12;
         break;
      case BSON_TYPE_INT32:
         seen |= 1u << 13;
         break;
      case BSON_TYPE_TIMESTAMP:
         seen |= 1u << 14;
         break;
      case BSON_TYPE_INT64:
         seen |= 1u << 15;
         break;
      case BSON_TYPE_DECIMAL128:
         seen |= 1u << 16;
         break;
      case BSON_TYPE_MINKEY:
      case BSON_TYPE_MAXKEY:
         seen |= 1u << 17;
         break;
      case BSON_TYPE_EOD:
      default:
         break;
      }
   }
   return seen;
}

/* JavaScript -> BSON: bytes that are not a BSON document are read as UTF-16 code units (lone surrogates and all),
 * cut in two, and written as \uXXXX escapes into an object literal whose keys are those strings, plain, after '$'
 * and as Extended JSON's own wrapper names, so the engine converts strings no UTF-8 text can hold and keys that look
 * like Extended JSON. Its BSON (when it converts) then makes the round trips below. Returns the expression
 * (bson_malloc'd). */
static char *
js_fuzz_utf16_expr (const uint8_t *data, size_t size)
{
   bson_string_t *k = bson_string_new (NULL), *v = bson_string_new (NULL), *x;
   size_t half = size / 4 * 2;
   for (size_t i = 0; i + 1 < size; i += 2)
      bson_string_append_printf (i < half ? k : v, "\\u%02x%02x", data[i], data[i + 1]);
   x = bson_string_new (NULL);
   bson_string_append_printf (x,
                              "({\"%s\": \"%s\", \"$%s\": [\"%s\", {$numberInt: \"%s\", \"%s\": 1}], "
                              "$regex: /a/, $oid: \"%s\", \"\\u0001%s\": {$in: [/b/i, \"%s\"]}})",
                              k->str, v->str, k->str, v->str, v->str, k->str, v->str, k->str, v->str);
   bson_string_free (k, true);
   bson_string_free (v, true);
   return bson_string_free (x, false);
}

bool
fuzz_js_bridge_one (const uint8_t *data, size_t size)
{
   js_engine_t *e = js_fuzz_start ();
   const js_engine_api_t *api = js_host_api ();
   bson_t in, once, twice, made;
   sh_error_t err;
   bool from_js = false;

   if (!e || !api)
      return false;
   if (size < 5 || size > INT32_MAX || !bsonvalid_data (data, size) || !bson_init_static (&in, data, size)) {
      char *expr;
      bson_iter_t it;
      uint32_t len;
      const uint8_t *d;
      if (size < 2 || size > 4096)
         return true;
      expr = js_fuzz_utf16_expr (data, size);
      sh_error_clear (&err);
      from_js = api->eval_to_bson (e, expr, &made, &err);
      bson_free (expr);
      if (!from_js || !bson_iter_init_find (&it, &made, "v") || !BSON_ITER_HOLDS_DOCUMENT (&it)) {
         bson_destroy (&made);
         return true;
      }
      bson_iter_document (&it, &len, &d);
      if (!bson_init_static (&in, d, len)) {
         bson_destroy (&made);
         return true;
      }
   }
   {
      bson_iter_t it;
      if (bson_iter_init (&it, &in))
         (void) js_fuzz_types (&it, 0);
   }
   sh_error_clear (&err);
   if (api->bson_roundtrip (e, &in, &once, &err)) {
      if (api->bson_roundtrip (e, &once, &twice, &err)) {
         if (!bson_equal (&once, &twice)) {
            char *a = bson_as_canonical_extended_json (&once, NULL);
            char *b = bson_as_canonical_extended_json (&twice, NULL);
            fprintf (stderr, "fuzz_js_bridge: the second trip changed the document:\n  %s\n  %s\n", a ? a : "?",
                     b ? b : "?");
            abort ();
         }
      }
      bson_destroy (&twice);
   }
   bson_destroy (&once);
   if (from_js)
      bson_destroy (&made);
   return true;
}

#ifndef FUZZ_NO_MAIN
/* The engine starts before the first input, so its process-lifetime allocations are not taken for one input's. */
int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
   (void) argc;
   (void) argv;
   if (!js_fuzz_start ())
      exit (1); /* a run that never reaches the engine must not pass */
   return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
   fuzz_js_bridge_one (data, size);
   return 0;
}
#endif
