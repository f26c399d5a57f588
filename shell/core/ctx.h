/* The shell's session state, shared by the REPL, the script runner, the dispatcher and the commands: options,
 * the (lazy) connection, the current database, output settings and per-session caches. */
#ifndef SHARDSH_CTX_H
#define SHARDSH_CTX_H

#include <mongoc/mongoc.h>
#include <stdbool.h>
#include <stdio.h>

#include "shell/core/options.h"
#include "shell/core/output.h"

struct sh_call;            /* commands/table.h */
struct cmd_complete_cache; /* commands/complete.c */
struct progress_reading;   /* commands/progress.h */

typedef struct sh_ctx {
   const sh_options_t *opts;   /* borrowed from main */
   char *uri;                  /* connection string (may hold a password: print only conn_redacted_uri) */
   mongoc_client_t *client;    /* NULL until the first command needs the server */
   char *db;                   /* current database (use <db>) */
   output_opts_t out;          /* how results print */
   FILE *out_fp;               /* results */
   FILE *err_fp;               /* errors and warnings */
   bool interactive;           /* a person at a terminal: confirmations may be asked */
   bool err_color;             /* colour on err_fp */
   char *hello_db;             /* database the mongos check last ran on; NULL when not yet */
   bool warned_not_mongos;     /* SHAPI-10003 printed once */
   bool warned_autosplit;      /* the 6.0.3 autosplit deprecation printed once */
   bool warned_remove_shard;   /* the 8.3 removeShard deprecation printed once */
   unsigned warned_legacy;     /* legacy methods' deprecation warnings printed once each (commands/writes.c) */
   int server_version[3];      /* from buildInfo, {0,0,0} until known */
   uint64_t traps_seen[64];    /* commands/traps.c: the version-trap warnings given, a hash of trap and place each (of
                                * the trap alone in the REPL); when full, no more are given */
   size_t traps_nseen;         /* ... how many */
   bool exit_requested;        /* exit / quit was run */
   int exit_code;              /* ... with this status (quit(n), 0 to 255) */
   struct conn_cursor *cursor; /* the session's current cursor ("it" continues it): the last find or aggregate printed
                                * by a literal statement while it has more; owned, killed when replaced */
   bool cursor_fresh;          /* a literal find or aggregate ran after the engine's last cursor ("it": that one) */
   const char *confirm_effect; /* when set, the confirmation prompt names this effect first (from the plan); borrowed */
   /* Reads what a call would change, for the confirmation prompt when no plan named it (the program sets it to the
    * pre-flight's preflight_describe; NULL: the prompt names no effect). Writes the text into buf; false: none. */
   bool (*describe_effect) (struct sh_ctx *ctx, const struct sh_call *call, char *buf, size_t len);
   /* Where the statement (or the JavaScript call) being run is, for --dry-run's printing (conn.c: file:line per
    * request): file "zones.js", "<eval>", NULL in the REPL (borrowed); line and col 1-based, 0 when unknown. Set by
    * the script runner (script_out_begin) and the JavaScript host for the time of one statement or call. */
   struct {
      const char *file;
      int line;
      int col;
   } place;
   /* When set, --dry-run's requests print here instead of out_fp (the pre-flight's run of a script's JavaScript hides
    * the requests of the writes it holds back). Borrowed. */
   FILE *dry_fp;
   struct {
      char auth_user[128];              /* who the client authenticates as (conn_ensure), for error messages only */
      char auth_db[128];                /* ... and on which database */
      char tls_ca[1024];                /* the CA file it trusts, "" when none */
      int32_t socket_timeout_ms;        /* its socketTimeoutMS, for "no reply" messages */
      int32_t timeouts_ms;              /* conn_set_timeouts' value; 0: the connection string's own */
      int32_t read_timeout_ms;          /* conn_set_timeouts_split's socket value (0: timeouts_ms) */
      bool client_stale;                /* a network error: the next statement starts with a new client */
      bool bad_reply_seen;              /* the stream refused a reply's bytes, for the error's wording; read once */
      const char *bad_reply_why;        /* ... and why, when it was its shape (static; NULL: not BSON) */
      bool reply_unchecked;             /* a reply passed the stream unchecked (an opcode it does not read) since
                                         * conn_run cleared it: conn_run checks the reply's BSON itself then */
      struct conn_cursor *live_cursors; /* every open cursor: a dropped client detaches them first */
      char *auth_set[4];                /* db.auth's user, password, source and mechanism (conn_authenticate), put
                                         * over the connection string's by conn_ensure; owned, zeroed when freed */
   } conn;                              /* the connection's own state: read and written by shell/core/conn*.c only */
   /* What is kept from one statement to the next for the session's later ones; each is owned by the file named and
    * freed by its reset (cmd_complete_reset, cmd_progress_reset) when the session ends. */
   struct {
      struct cmd_complete_cache *complete;    /* completion candidates by kind and database (commands/complete.c) */
      const bson_t *complete_values;          /* the values the REPL's completion is offering (borrowed from it) */
      struct progress_reading *progress_prev; /* sh.progress's previous reading, for its rates (commands/progress.c) */
   } session;
   struct conn_registry *others; /* the second connections a script opened (new Mongo(uri)): conn_registry.h; owned,
                                  * freed by conn_registry_free; NULL when none */
   char *conn_name; /* a second connection's hosts ("host:port[,host:port]"), which --dry-run's lines name; set and
                     * freed by conn_registry.c; NULL for the session's own connection */
} sh_ctx_t;

#endif
