/* libFuzzer target for the JavaScript engine's bridge: bytes that validate as a BSON document are converted to a
 * JavaScript value and back to BSON (the way replies reach scripts and values reach the wire), then once more; the
 * second trip must give exactly the document the first gave (a conversion may normalise once, an integral double
 * becomes an int32, but never drift), and neither may crash, leak or trip the sanitizers. The engine is the plugin
 * the shell loads ($SHARDSH_JS_PLUGIN, else $BINDIR/shardsh-js.so, else bin/shardsh-js.so).
 * Built by `make fuzz`; tests/unit/test_fuzz_regressions.c replays saved inputs through fuzz_js_bridge_one. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "js_host.h"

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

bool
fuzz_js_bridge_one (const uint8_t *data, size_t size)
{
   js_engine_t *e = js_fuzz_start ();
   const js_engine_api_t *api = js_host_api ();
   bson_t in, once, twice;
   sh_error_t err;

   if (!e || !api)
      return false;
   if (size < 5 || size > INT32_MAX || !bson_init_static (&in, data, size) || !bson_validate (&in, 0, NULL))
      return true;
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
   return true;
}

#ifndef FUZZ_NO_MAIN
int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
   fuzz_js_bridge_one (data, size);
   return 0;
}
#endif
