/* The JavaScript prelude the engine plugin evaluates (the parts in shell/js/prelude/ concatenated, written out as a C
 * array at build time by the Makefile, $(BUILD)/gen/js_prelude.c), declared for js_engine.cpp. Part of the plugin only:
 * hidden, so the plugin always reads its own copy. */
#ifndef SHARDSH_JS_PRELUDE_H
#define SHARDSH_JS_PRELUDE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The prelude's source text, NUL-terminated; static storage, never freed. */
extern const char js_prelude_source[] __attribute__ ((visibility ("hidden")));

/* Its length in bytes, without the NUL. */
extern const size_t js_prelude_source_len __attribute__ ((visibility ("hidden")));

#ifdef __cplusplus
}
#endif

#endif
