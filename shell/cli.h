/* Command-line options, spelled as mongosh spells them, parsed into one struct that the rest of the shell reads. */
#ifndef SHARDSH_CLI_H
#define SHARDSH_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "errors.h"

typedef struct {
   char *conn_arg;     /* positional connection string or host[:port][/db] or db name; owned or NULL */
   char *host;         /* --host */
   char *port;         /* --port */
   char *username;     /* -u/--username */
   char *password;     /* -p/--password (may be asked for) */
   bool password_flag; /* -p given without a value */
   char *auth_db;      /* --authenticationDatabase */
   bool tls;
   char *tls_ca_file;
   char *tls_cert_key_file;
   char **evals; /* --eval CODE, repeatable; owned */
   size_t n_evals;
   char **files; /* -f/--file FILE and positional *.js; owned */
   size_t n_files;
   bool quiet;
   bool json;     /* one JSON document per line */
   bool dry_run;  /* print requests, send nothing */
   bool readonly; /* refuse every command that changes the cluster */
   bool yes;      /* do not ask for confirmation */
   bool continue_on_error;
   bool no_preflight; /* --no-preflight: scripts are not checked against the cluster before the first write */
   bool plan;         /* --plan: check, print what would change and move, send nothing that writes */
   bool norc;
   bool no_color;
   bool dashboard;  /* --dashboard */
   bool once;       /* --once (dashboard batch) */
   double interval; /* --interval SECONDS (dashboard); 0 = default */
   long frames;     /* -n FRAMES (dashboard); 0 = until quit */
   bool show_help;
   bool show_version;
} sh_options_t;

/* Parses argv into opts (zeroed by the callee). Returns false with err set (kind SH_ERR_USAGE) on a bad option.
 * The caller releases opts with sh_options_release in every case. */
bool
sh_options_parse (int argc, char **argv, sh_options_t *opts, sh_error_t *err);

void
sh_options_release (sh_options_t *opts);

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
