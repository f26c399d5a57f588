/* The session's options as the command line gave them (spelled as mongosh spells them): one struct that the rest
 * of the shell reads. shell/cli.c parses argv into it. */
#ifndef SHARDSH_OPTIONS_H
#define SHARDSH_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
   char *conn_arg;       /* positional connection string or host[:port][/db] or db name; owned or NULL */
   char *host;           /* --host */
   char *port;           /* --port */
   char *username;       /* -u/--username */
   char *password;       /* -p/--password (may be asked for) */
   bool password_flag;   /* -p given without a value */
   char *auth_db;        /* --authenticationDatabase */
   char *auth_mechanism; /* --authenticationMechanism: the connection's authMechanism (SCRAM-SHA-256, ...) */
   bool tls;
   char *tls_ca_file;
   char *tls_cert_key_file;
   char **evals; /* --eval CODE, repeatable; owned */
   size_t n_evals;
   char **files; /* -f/--file FILE and positional *.js; owned */
   size_t n_files;
   bool quiet;     /* --quiet: no banner; a script's status lines only for failures */
   bool no_status; /* --no-status: no status lines at all (errors and the summary stay) */
   bool json;      /* one JSON document per line */
   bool dry_run;   /* print requests, send nothing */
   bool readonly;  /* refuse every command that changes the cluster */
   bool yes;       /* do not ask for confirmation */
   bool continue_on_error;
   bool no_preflight; /* --no-preflight: scripts are not checked against the cluster before the first write */
   bool plan;         /* --plan: check, print what would change and move, send nothing that writes */
   bool verbose;      /* --verbose: a -f script shows every result (docs/plan.md, "Script output") */
   bool norc;
   bool shell; /* --shell: the REPL after the --eval and -f scripts */
   bool nodb;  /* --nodb: no connection; whatever needs a server fails with a clear error */
   bool no_color;
   bool dashboard;      /* --dashboard */
   bool once;           /* --once (dashboard batch) */
   double interval;     /* --interval SECONDS (dashboard); 0 = default */
   long frames;         /* -n FRAMES (dashboard); 0 = until quit */
   char *exporter;      /* --exporter ADDRESS: serve /metrics there (views/exporter.h); owned or NULL */
   long exporter_pairs; /* --exporter-pairs N: (collection, shard) pairs exported per cluster; -1 = default */
   char **more_conns;   /* positional connection strings after the first (only --exporter takes them); owned */
   size_t n_more_conns;
   bool export_spec;     /* --export: print the cluster's sharding spec (docs/desired-state.md) */
   char *diff_file;      /* --diff FILE: the statements that make the cluster match the spec FILE; owned */
   char *apply_file;     /* --apply FILE: run those statements; owned */
   bool allow_expensive; /* --apply may reshard and drain where the spec marks it */
   bool show_help;
   bool show_version;
} sh_options_t;

#endif
