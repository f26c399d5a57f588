/* Command-line options, spelled as mongosh spells them, parsed into one struct that the rest of the shell reads. */
#ifndef SHARDSH_CLI_H
#define SHARDSH_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "shell/core/errors.h"
#include "shell/core/options.h"

/* Parses argv into opts (zeroed by the callee). Returns false with err set (kind SH_ERR_USAGE) on a
 * bad option. The caller releases opts with sh_options_destroy in every case. */
bool
sh_options_parse (int argc, char **argv, sh_options_t *opts, sh_error_t *err);

/* Frees what opts holds (the struct itself is the caller's). */
void
sh_options_destroy (sh_options_t *opts);

/* Writes the --help text. */
void
sh_options_usage (FILE *out);

/* Builds the connection string from the options: the positional argument as mongosh reads it
 * (mongodb://…, mongodb+srv://…, host:port/db, or a bare database name), then --host/--port and the TLS and
 * auth options. *db receives the database to start in ("test" unless the string names one). Both results are
 * owned by the caller (bson_free). Returns false with err set on a malformed string. */
bool
sh_options_connection_string (const sh_options_t *opts, char **uri, char **db, sh_error_t *err);

#endif
