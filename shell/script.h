/* Running statements from --eval strings, script files and standard input: every input is parsed and checked
 * whole before anything is sent, then statements run in order; a failure stops the run (unless
 * --continue-on-error) and is reported as file:line:col with the source line and a caret. */
#ifndef SHARDSH_SCRIPT_H
#define SHARDSH_SCRIPT_H

#include <stddef.h>

#include "shell/core/ctx.h"
#include "shell/lang/parser.h"

typedef struct {
   const char *name; /* "<eval>", a file path or "<stdin>" */
   const char *text; /* NULL: read the file called name ("-" or "<stdin>": standard input) */
   bool as_file;     /* text given but shown as a -f file is (status lines): --apply's statements */
} script_input_t;

/* Exit codes of a run. */
enum { SCRIPT_OK = 0, SCRIPT_FAILED = 1, SCRIPT_NOT_RUN = 2 };

/* Parses and checks every input, then runs them all in order. An input the literal grammar does not take whole is
 * JavaScript: compiled whole by the engine in the checking phase (a syntax error: SCRIPT_NOT_RUN), then run. Returns
 * SCRIPT_OK, SCRIPT_FAILED (a statement failed: reported with its position) or SCRIPT_NOT_RUN (a file could not be read
 * or did not parse: nothing was sent). What each statement shows is shell/script_out.h's: verbose (--verbose) shows
 * every result of a -f script and of every --eval statement. */
int
script_run_inputs (sh_ctx_t *ctx, const script_input_t *inputs, size_t n, bool verbose);

/* Reads a whole file (or standard input for "-"); returns a NUL-terminated buffer the caller frees with bson_free, or
 * NULL with err set (SH_ERR_IO). *len receives its length. */
char *
script_read_file (const char *path, size_t *len, sh_error_t *err);

#endif
