/* Reading a whole input file byte for byte (scripts, spec files): one reader, so every parser sees what the file holds,
 * NUL bytes and invalid UTF-8 included, and reports them at file:line:col itself. */
#ifndef SHARDSH_READFILE_H
#define SHARDSH_READFILE_H

#include <stddef.h>

#include "shell/core/errors.h"

/* The whole file at path ("-" or "<stdin>": standard input), NUL-terminated and bson_free'd by the caller, *len its
 * length in bytes (NULs inside count); NULL with err set (SH_ERR_IO) when it cannot be read or is over max bytes
 * (0: no limit). what names the file in messages ("the spec file"), or NULL for a plain quoted path. */
char *
readfile_all (const char *path, size_t max, const char *what, size_t *len, sh_error_t *err);

#endif
