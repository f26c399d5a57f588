/* The interactive shell on libedit: line editing, multi-line statements, persistent history that never stores a
 * credential, tab completion from the command table, a mongosh-style prompt, Ctrl-C that drops the current line
 * and Ctrl-D that leaves. */
#ifndef SHARDSH_REPL_H
#define SHARDSH_REPL_H

#include <stdbool.h>

#include "shell/core/ctx.h"

/* Runs the read-eval-print loop until exit, quit or Ctrl-D. Returns the process exit status (0). When standard input
 * is not a terminal it is read as mongosh reads it: connected first (a cluster that cannot be reached or refuses the
 * credentials: reported, 1), then line by line, each prompt written to stdout before its line, an
 * entry run once complete (a literal statement without the engine), an error reported as <stdin>:LINE:COL and the next
 * entry run, an empty line after an entry whose value is undefined; the end of the input ends it. */
int
repl_run (sh_ctx_t *ctx);

/* The history file: $SHARDSH_HISTFILE, else ~/.shardsh_history. Caller frees with bson_free; NULL when there is no
 * home directory. */
char *
repl_history_path (void);

/* Appends one history entry (newlines folded into spaces) to path, creating it with mode 0600 and keeping it 0600.
 * Sensitive lines are skipped. Returns false when the file cannot be written. */
bool
repl_history_append (const char *path, const char *line);

#endif
