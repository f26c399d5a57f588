/* Where each value of a spec file is (private to shell/desired): the spec is parsed to BSON by the literal parser,
 * which keeps no positions, so the text is walked once more with the lexer and each value's position kept under its
 * path (keys joined by '/'), for the spec check's file:line:col errors. */
#ifndef SHARDSH_DESIRED_SPEC_LOCS_H
#define SHARDSH_DESIRED_SPEC_LOCS_H

#include <stddef.h>

#include "shell/core/errors.h"

typedef struct {
   char **paths; /* owned */
   sh_pos_t *pos;
   size_t n, cap;
} spec_locs_t;

/* Walks text (one value that sh_parse_value accepted) and records every value's position into locs (initialised by
 * the callee; spec_locs_destroy in every case). */
void
spec_locs_read (spec_locs_t *locs, const char *text, size_t len);

/* The position of the value at path, or of its nearest recorded parent (the top value: line 1, column 1 when
 * nothing was recorded). */
sh_pos_t
spec_locs_at (const spec_locs_t *locs, const char *path);

void
spec_locs_destroy (spec_locs_t *locs);

#endif
