/* Keys that look like Extended JSON, for the engine plugin's bridge (js_bson.c). Values cross between BSON and
 * JavaScript as canonical Extended JSON, which cannot tell a user's key "$regex" or "$numberInt" from the format's own
 * wrappers; so on both sides every key that starts with '$' (or with the mark itself) travels with one JS_KEY_MARK
 * byte in front: the prelude adds it when it encodes and strips it when it decodes, js_bson.c does the same for BSON.
 * Part of the plugin only (hidden symbols); libbson only. */
#ifndef SHARDSH_JS_BSON_H
#define SHARDSH_JS_BSON_H

#include <bson/bson.h>
#include <stdbool.h>

#include "shell/core/errors.h"
#include "shell/js/js_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JS_KEY_MARK '\x01'

/* True when a key anywhere in doc (arrays included) needs the mark (mark) or carries it (!mark). */
bool
js_bson_keys_any (const bson_t *doc, bool mark) __attribute__ ((visibility ("hidden")));

/* Copies in into out (initialised by the caller) with one mark added to (mark) or removed from (!mark) every key
 * that needs or carries it, at every depth. */
void
js_bson_keys_copy (const bson_t *in, bson_t *out, bool mark) __attribute__ ((visibility ("hidden")));

/* Parses canonical Extended JSON text written by the prelude into doc (initialised by the callee in every case, empty
 * on failure), the marks the prelude put on keys removed. */
bool
js_bson_parse (const char *json, bson_t *doc, bson_error_t *error) __attribute__ ((visibility ("hidden")));

/* prefix + doc as canonical Extended JSON, its keys marked (what the prelude's dec reads), bson_malloc'd (*len: its
 * length); NULL when doc is not valid BSON or UTF-8. */
char *
js_bson_to_json (const bson_t *doc, const char *prefix, size_t *len) __attribute__ ((visibility ("hidden")));

/* "E" + err as canonical Extended JSON (what the prelude's shError reads), bson_malloc'd; *len: its length. detail
 * (may be NULL) is the failed call's result { v: value }, given as the error's "detail" (a bulk write's result and
 * write errors). */
char *
js_bson_error_json (const sh_error_t *err, const bson_t *detail, size_t *len) __attribute__ ((visibility ("hidden")));

/* Fills err (cleared first; its kind fallback unless doc says) from the prelude's describe() document: kind, code,
 * codeName, message, hint, line and col. Returns the file doc names (borrowed from doc), or NULL. */
const char *
js_bson_error_read (const bson_t *doc, sh_err_kind_t fallback, sh_error_t *err) __attribute__ ((visibility ("hidden")));

/* The strings of a JSON array of strings (the prelude's completions), at most max, each strdup'ed into out; returns
 * how many. */
size_t
js_bson_string_array (const char *json, char **out, size_t max) __attribute__ ((visibility ("hidden")));

/* The cursor options the prelude sends with a call (mods: sort, limit, skip, batchSize, open, opts) set on call; sort
 * and opts are static views into mods (which must outlive call), set on call->sort / call->modifiers when present. */
void
js_bson_call_mods (const bson_t *mods, js_call_t *call, bson_t *sort, bson_t *opts)
   __attribute__ ((visibility ("hidden")));

#ifdef __cplusplus
}
#endif

#endif
