/* The engine plugin's plain-C helpers (js_util.c): its errors (the shell's sh_error_t, filled without linking the
 * shell), a syntax error's place at the end of a script, and the memory limit of the JavaScript it runs. Part of the
 * plugin only (hidden symbols). */
#ifndef SHARDSH_JS_UTIL_H
#define SHARDSH_JS_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "shell/core/errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Clears err. */
void
js_err_clear (sh_error_t *err) __attribute__ ((visibility ("hidden")));

/* Sets err to kind and the formatted message (everything else cleared). */
void
js_err_set (sh_error_t *err, sh_err_kind_t kind, const char *fmt, ...)
   __attribute__ ((format (printf, 3, 4), visibility ("hidden")));

/* A syntax error found at the end of the script ("got end of script") is placed just after its last character
 * rather than on the empty line after the final newline, so the caret shows the statement left open. */
void
js_util_clamp_to_text (sh_error_t *err, const char *text, size_t len) __attribute__ ((visibility ("hidden")));

/* The memory JavaScript may take, in MiB: $SHARDSH_JS_MEMORY_MB when it is a number from 64 to 1048576, else
 * JS_UTIL_MEMORY_MB. The engine stops a run whose process grows past it ("out of memory in JavaScript"). */
#define JS_UTIL_MEMORY_MB 2048
size_t
js_util_memory_limit_mb (void) __attribute__ ((visibility ("hidden")));

/* The process's resident memory in MiB (/proc/self/statm), 0 when it cannot be read. */
size_t
js_util_rss_mb (void) __attribute__ ((visibility ("hidden")));

/* The whole file at path, NUL-terminated, its length in *len; NULL (errno set) when it cannot be read. Caller frees
 * with free(). */
char *
js_util_read_file (const char *path, size_t *len) __attribute__ ((visibility ("hidden")));

/* path made absolute against the working directory and normalised ("." and ".." resolved, as node's
 * path.resolve); caller frees with free(). */
char *
js_util_resolve_path (const char *path) __attribute__ ((visibility ("hidden")));

/* When the last statement of text (JavaScript the REPL or piped input runs) is a function or class declaration, its
 * name (copied to name, at most cap - 1 bytes) and true, for the value mongosh shows after it ([Function: f]). A
 * scan of the top level, not a parse: strings, template literals, comments and regular expressions are skipped.
 * False (name empty) otherwise. */
bool
js_util_last_declaration (const char *text, size_t len, char *name, size_t cap) __attribute__ ((visibility ("hidden")));

#ifdef __cplusplus
}
#endif

#endif
