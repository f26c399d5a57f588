/* Command-line option parsing, mongosh's spellings: a positional connection string or *.js files, --eval, -f,
 * --host/--port, credentials, TLS, and shardsh's own modes (--dry-run, --readonly, --json, --dashboard). */
#include <errno.h>
#include <bson/bson.h>
#include <stdlib.h>
#include <string.h>

#include "shell/cli.h"
#include "shell/core/conn.h"

static void
cli_push (char ***v, size_t *n, const char *s)
{
   *v = bson_realloc (*v, (*n + 1) * sizeof (char *));
   (*v)[(*n)++] = bson_strdup (s);
}

static bool
cli_ends_with (const char *s, const char *suffix)
{
   size_t a = strlen (s), b = strlen (suffix);
   return a >= b && strcmp (s + a - b, suffix) == 0;
}

/* Takes the value of an option: "--opt=value" or the next argument. */
static bool
cli_take_value (int argc, char **argv, int *i, const char *eq, const char *name, const char **value, sh_error_t *err)
{
   if (eq) {
      *value = eq + 1;
      return true;
   }
   if (*i + 1 >= argc) {
      sh_error_set (err, SH_ERR_USAGE, "option '%s' needs a value", name);
      return false;
   }
   *value = argv[++*i];
   return true;
}

static void
cli_set_str (char **dst, const char *v)
{
   bson_free (*dst);
   *dst = bson_strdup (v);
}

/* --interval SECONDS: above 0 and at most 86400 (NaN fails both comparisons; the upper bound keeps every millisecond
 * conversion of it in range). */
static bool
cli_interval (const char *v, const char *name, double *out, sh_error_t *err)
{
   char *end;
   *out = strtod (v, &end);
   if (*end || end == v || !(*out > 0 && *out <= 86400)) {
      sh_error_set (err, SH_ERR_USAGE, "option '%s' needs a number of seconds above 0 and at most 86400, got '%s'",
                    name, v);
      return false;
   }
   return true;
}

/* -n FRAMES: 1 to INT32_MAX. */
static bool
cli_frames (const char *v, long *out, sh_error_t *err)
{
   char *end;
   errno = 0;
   *out = strtol (v, &end, 10);
   if (*end || end == v || errno == ERANGE || *out <= 0 || *out > INT32_MAX) {
      sh_error_set (err, SH_ERR_USAGE, "option '-n' needs a positive number of frames, got '%s'", v);
      return false;
   }
   return true;
}

/* --exporter-pairs N: 0 to 100000000. */
static bool
cli_pairs (const char *v, const char *name, long *out, sh_error_t *err)
{
   char *end;
   errno = 0;
   *out = strtol (v, &end, 10);
   if (*end || end == v || errno == ERANGE || *out < 0 || *out > 100000000) {
      sh_error_set (err, SH_ERR_USAGE, "option '%s' needs a number of pairs from 0 to 100000000, got '%s'", name, v);
      return false;
   }
   return true;
}

/* --authenticationMechanism: one of the mechanisms mongosh accepts (the node driver's list, DEFAULT aside). */
static bool
cli_auth_mechanism (const char *v, sh_error_t *err)
{
   static const char *const known[] = { "SCRAM-SHA-1", "SCRAM-SHA-256", "MONGODB-X509", "GSSAPI",
                                        "PLAIN",       "MONGODB-AWS",   "MONGODB-OIDC", NULL };
   for (size_t i = 0; known[i]; i++) {
      if (!strcmp (v, known[i]))
         return true;
   }
   sh_error_set (err, SH_ERR_USAGE,
                 "option '--authenticationMechanism' needs one of SCRAM-SHA-1, SCRAM-SHA-256, "
                 "MONGODB-X509, GSSAPI, PLAIN, MONGODB-AWS, MONGODB-OIDC, got '%s'",
                 v);
   return false;
}

/* --nodb starts no connection: nothing that names a server or reads the cluster goes with it; --shell needs a prompt
 * after the scripts, which the other modes do not have. */
static bool
cli_check_nodb_shell (const sh_options_t *opts, sh_error_t *err)
{
   bool other_mode = opts->dashboard || opts->exporter || opts->export_spec || opts->diff_file || opts->apply_file;
   if (opts->nodb && (opts->conn_arg || opts->host || opts->port)) {
      sh_error_set (err, SH_ERR_USAGE, "--nodb starts no connection: it cannot be combined with %s",
                    opts->conn_arg ? "a connection string"
                    : opts->host   ? "--host"
                                   : "--port");
      return false;
   }
   if (opts->nodb && (other_mode || opts->plan)) {
      sh_error_set (err, SH_ERR_USAGE,
                    "--nodb starts no connection: it cannot be combined with --plan, --dashboard, "
                    "--exporter, --export, --diff or --apply");
      return false;
   }
   if (opts->shell && (other_mode || opts->plan)) {
      sh_error_set (err, SH_ERR_USAGE,
                    "--shell opens the shell after the scripts: it cannot be combined with --plan, "
                    "--dashboard, --exporter, --export, --diff or --apply");
      return false;
   }
   return true;
}

/* More than one connection string is for --exporter only, and --exporter runs alone. */
static bool
cli_check_exporter (const sh_options_t *opts, sh_error_t *err)
{
   if (opts->n_more_conns && !opts->exporter) {
      sh_error_set (err, SH_ERR_USAGE, "unexpected argument '%s'", opts->more_conns[0]);
      return false;
   }
   if (opts->exporter && (opts->dashboard || opts->plan || opts->dry_run || opts->n_evals || opts->n_files)) {
      sh_error_set (err, SH_ERR_USAGE, "--exporter serves metrics: it cannot be combined with %s",
                    opts->dashboard ? "--dashboard"
                    : opts->plan    ? "--plan"
                    : opts->dry_run ? "--dry-run"
                                    : "a script or --eval");
      return false;
   }
   return true;
}

/* The modes that exclude each other (--plan, --dashboard, --export, --diff, scripts). */
static bool
cli_check_modes (const sh_options_t *opts, sh_error_t *err)
{
   if (opts->plan && (opts->dry_run || opts->dashboard)) {
      sh_error_set (err, SH_ERR_USAGE, "--plan reads the cluster: it cannot be combined with %s",
                    opts->dry_run ? "--dry-run" : "--dashboard");
      return false;
   }
   if ((opts->export_spec || opts->diff_file || opts->apply_file) &&
       (opts->dry_run || opts->dashboard || opts->plan || opts->exporter || opts->n_evals || opts->n_files)) {
      sh_error_set (err, SH_ERR_USAGE,
                    "--export, --diff and --apply read the cluster themselves: they cannot be combined "
                    "with --dry-run, --dashboard, --exporter, --plan, --eval or a script");
      return false;
   }
   if ((opts->export_spec ? 1 : 0) + (opts->diff_file ? 1 : 0) + (opts->apply_file ? 1 : 0) > 1) {
      sh_error_set (err, SH_ERR_USAGE, "--export, --diff and --apply cannot be combined");
      return false;
   }
   return true;
}

bool
sh_options_parse (int argc, char **argv, sh_options_t *opts, sh_error_t *err)
{
   memset (opts, 0, sizeof *opts);
   opts->exporter_pairs = -1;
   for (int i = 1; i < argc; i++) {
      const char *a = argv[i];
      const char *v = NULL;
      char name[64];
      const char *eq = NULL;

      if (a[0] != '-' || a[1] == '\0') {
         if (cli_ends_with (a, ".js") || cli_ends_with (a, ".msh")) {
            cli_push (&opts->files, &opts->n_files, a);
         } else if (!opts->conn_arg) {
            opts->conn_arg = bson_strdup (a);
         } else {
            cli_push (&opts->more_conns, &opts->n_more_conns, a); /* --exporter's clusters; refused otherwise */
         }
         continue;
      }
      if (a[1] == '-') {
         eq = strchr (a, '=');
         bson_strncpy (name, a,
                       eq ? (size_t) (eq - a) + 1 < sizeof name ? (size_t) (eq - a) + 1 : sizeof name : sizeof name);
      } else {
         bson_strncpy (name, a, sizeof name);
      }

#define IS(s) (strcmp (name, (s)) == 0)
      if (IS ("--eval") || IS ("-e")) {
         if (!cli_take_value (argc, argv, &i, eq, name, &v, err))
            return false;
         cli_push (&opts->evals, &opts->n_evals, v);
      } else if (IS ("-f") || IS ("--file")) {
         if (!cli_take_value (argc, argv, &i, eq, name, &v, err))
            return false;
         cli_push (&opts->files, &opts->n_files, v);
      } else if (IS ("--host")) {
         if (!cli_take_value (argc, argv, &i, eq, name, &v, err))
            return false;
         cli_set_str (&opts->host, v);
      } else if (IS ("--port")) {
         if (!cli_take_value (argc, argv, &i, eq, name, &v, err))
            return false;
         cli_set_str (&opts->port, v);
      } else if (IS ("-u") || IS ("--username")) {
         if (!cli_take_value (argc, argv, &i, eq, name, &v, err))
            return false;
         cli_set_str (&opts->username, v);
      } else if (IS ("-p") || IS ("--password")) {
         /* mongosh: -p alone (or followed by another option) asks for the password without echo */
         if (eq) {
            cli_set_str (&opts->password, eq + 1);
         } else if (i + 1 < argc && argv[i + 1][0] != '-') {
            cli_set_str (&opts->password, argv[++i]);
         } else {
            opts->password_flag = true;
         }
      } else if (IS ("--authenticationDatabase")) {
         if (!cli_take_value (argc, argv, &i, eq, name, &v, err))
            return false;
         cli_set_str (&opts->auth_db, v);
      } else if (IS ("--authenticationMechanism")) {
         if (!cli_take_value (argc, argv, &i, eq, name, &v, err) || !cli_auth_mechanism (v, err))
            return false;
         cli_set_str (&opts->auth_mechanism, v);
      } else if (IS ("--shell")) {
         opts->shell = true;
      } else if (IS ("--nodb")) {
         opts->nodb = true;
      } else if (IS ("--tls") || IS ("--ssl")) {
         opts->tls = true;
      } else if (IS ("--tlsCAFile")) {
         if (!cli_take_value (argc, argv, &i, eq, name, &v, err))
            return false;
         cli_set_str (&opts->tls_ca_file, v);
         opts->tls = true;
      } else if (IS ("--tlsCertificateKeyFile")) {
         if (!cli_take_value (argc, argv, &i, eq, name, &v, err))
            return false;
         cli_set_str (&opts->tls_cert_key_file, v);
         opts->tls = true;
      } else if (IS ("--quiet")) {
         opts->quiet = true;
      } else if (IS ("--no-status")) {
         opts->no_status = true;
      } else if (IS ("--json")) {
         opts->json = true;
      } else if (IS ("--verbose")) {
         opts->verbose = true;
      } else if (IS ("--dry-run")) {
         opts->dry_run = true;
      } else if (IS ("--readonly")) {
         opts->readonly = true;
      } else if (IS ("--yes") || IS ("-y")) {
         opts->yes = true;
      } else if (IS ("--continue-on-error")) {
         opts->continue_on_error = true;
      } else if (IS ("--no-preflight")) {
         opts->no_preflight = true;
      } else if (IS ("--plan")) {
         opts->plan = true;
      } else if (IS ("--norc")) {
         opts->norc = true;
      } else if (IS ("--no-color") || IS ("--nocolor")) {
         opts->no_color = true;
      } else if (IS ("--dashboard")) {
         opts->dashboard = true;
      } else if (IS ("--exporter")) {
         if (!cli_take_value (argc, argv, &i, eq, name, &v, err))
            return false;
         cli_set_str (&opts->exporter, v);
      } else if (IS ("--exporter-pairs")) {
         if (!cli_take_value (argc, argv, &i, eq, name, &v, err) || !cli_pairs (v, name, &opts->exporter_pairs, err))
            return false;
      } else if (IS ("--export")) {
         opts->export_spec = true;
      } else if (IS ("--diff") || IS ("--apply")) {
         if (!cli_take_value (argc, argv, &i, eq, name, &v, err))
            return false;
         cli_set_str (name[2] == 'd' ? &opts->diff_file : &opts->apply_file, v);
      } else if (IS ("--allow-expensive")) {
         opts->allow_expensive = true;
      } else if (IS ("--once")) {
         opts->once = true;
      } else if (IS ("--interval") || IS ("-d")) {
         if (!cli_take_value (argc, argv, &i, eq, name, &v, err) || !cli_interval (v, name, &opts->interval, err))
            return false;
      } else if (IS ("-n")) {
         if (!cli_take_value (argc, argv, &i, eq, name, &v, err) || !cli_frames (v, &opts->frames, err))
            return false;
      } else if (IS ("-h") || IS ("--help")) {
         opts->show_help = true;
      } else if (IS ("--version")) {
         opts->show_version = true;
      } else {
         sh_error_set (err, SH_ERR_USAGE, "unknown option '%s'", a);
         sh_error_hint (err, "run 'shardsh --help' for the list of options");
         return false;
      }
#undef IS
   }
   if (!cli_check_exporter (opts, err) || !cli_check_nodb_shell (opts, err))
      return false;
   return cli_check_modes (opts, err);
}

void
sh_options_destroy (sh_options_t *opts)
{
   for (size_t i = 0; i < opts->n_evals; i++)
      bson_free (opts->evals[i]);
   for (size_t i = 0; i < opts->n_files; i++)
      bson_free (opts->files[i]);
   bson_free (opts->evals);
   bson_free (opts->files);
   bson_free (opts->conn_arg);
   for (size_t i = 0; i < opts->n_more_conns; i++)
      bson_free (opts->more_conns[i]);
   bson_free (opts->more_conns);
   bson_free (opts->exporter);
   bson_free (opts->diff_file);
   bson_free (opts->apply_file);
   bson_free (opts->host);
   bson_free (opts->port);
   bson_free (opts->username);
   if (opts->password) {
      memset (opts->password, 0, strlen (opts->password));
      bson_free (opts->password);
   }
   bson_free (opts->auth_db);
   bson_free (opts->auth_mechanism);
   bson_free (opts->tls_ca_file);
   bson_free (opts->tls_cert_key_file);
   memset (opts, 0, sizeof *opts);
}

void
sh_options_usage (FILE *out)
{
   fputs (
      "Usage: shardsh [options] [connection string] [file.js ...]\n"
      "\n"
      "An administration shell for MongoDB sharded clusters: mongosh's sh.* helpers, scripts and a live dashboard.\n"
      "\n"
      "Connection (as mongosh spells it):\n"
      "  mongodb://host:port/db      connection string (default mongodb://127.0.0.1:27017/test);\n"
      "                              host:port/db or a bare database name also work\n"
      "  --host HOST, --port PORT    server to connect to\n"
      "  -u, --username USER         user name; -p, --password [PW] password (asked for without echo)\n"
      "  --authenticationDatabase DB database that holds the user\n"
      "  --authenticationMechanism M SCRAM-SHA-256, SCRAM-SHA-1, MONGODB-X509, PLAIN, GSSAPI, MONGODB-AWS or\n"
      "                              MONGODB-OIDC (the connection's authMechanism)\n"
      "  --nodb                      no connection: JavaScript and print work, helpers that need a server fail\n"
      "  --tls, --tlsCAFile FILE, --tlsCertificateKeyFile FILE\n"
      "\n"
      "What to run:\n"
      "  --eval CODE                 run CODE (repeatable); no prompt\n"
      "  -f, --file FILE             run a script (repeatable); *.js arguments too; '-f -' reads standard input.\n"
      "                              Every script is parsed whole before anything is sent.\n"
      "  --shell                     the shell after the --eval and -f scripts\n"
      "  (standard input)            when it is not a terminal and no script is given: read as mongosh reads it,\n"
      "                              line by line as the shell reads them, each statement run when complete\n"
      "  --continue-on-error         keep running a script after a failed statement\n"
      "  --dashboard                 the live ncurses dashboard (--interval SECONDS, -n FRAMES, --once)\n"
      "  --exporter ADDRESS URI...   serve the dashboard's figures of one or more clusters at http://ADDRESS/metrics\n"
      "                              (Prometheus text or OpenMetrics; ADDRESS HOST:PORT or PORT, loopback by "
      "default);\n"
      "                              NAME=URI sets a cluster's label; --interval SECONDS; --exporter-pairs N caps the\n"
      "                              (collection, shard) series per cluster (default 20000); read-only "
      "(docs/exporter.md)\n"
      "  --export                    print the cluster's sharding as a spec file (docs/desired-state.md)\n"
      "  --diff FILE                 the statements that make the cluster match the spec FILE, with --plan's\n"
      "                              estimate of what would move; exit 0 no drift, 3 drift, 2 invalid spec, 1 error\n"
      "  --apply FILE                run those statements (as a script: pre-flight, confirmations, summary);\n"
      "                              --allow-expensive: reshard/drain where the spec marks it\n"
      "\n"
      "Safety and output:\n"
      "  --plan                      check a script against the cluster and print what it would change and move;\n"
      "                              send nothing that writes (docs/plan.md)\n"
      "  --no-preflight              do not check a script against the cluster before its first write\n"
      "  --dry-run                   print every request that would be sent; send nothing (no server needed)\n"
      "  --readonly                  refuse every command that changes the cluster\n"
      "  --yes                       do not ask before commands that move data or stop balancing\n"
      "  --json                      one relaxed Extended JSON document per result line; a -f script: one\n"
      "                              {file, line, col, statement, ok, code, codeName, errmsg, result} per statement\n"
      "  --verbose                   a -f script shows every result, not only what it prints\n"
      "  --no-color                  no colours (also when NO_COLOR is set)\n"
      "  --quiet                     no banner; a script's status lines only for failures\n"
      "  --no-status                 no status lines on stderr for a -f script's statements (errors stay)\n"
      "  --norc                      do not run ~/.shardshrc\n"
      "  --version, --help\n"
      "\n"
      "Exit status: 0 success; 1 a statement failed (the server's code and codeName are shown);\n"
      "2 bad options or a parse error (nothing was sent); quit(n): n; 130 SIGINT, 143 SIGTERM (a script stops at\n"
      "the next statement and prints its summary).\n",
      out);
}

static bool
cli_has_scheme (const char *s)
{
   return strncmp (s, "mongodb://", 10) == 0 || strncmp (s, "mongodb+srv://", 14) == 0;
}

/* Appends "key=value" to the URI's query string. */
static void
cli_add_param (bson_string_t *uri, const char *key, const char *value)
{
   bool has_query = strchr (uri->str, '?') != NULL;
   if (!has_query) {
      /* a URI with no path needs "/" before "?" */
      const char *after_scheme = strstr (uri->str, "://");
      if (after_scheme && !strchr (after_scheme + 3, '/'))
         bson_string_append (uri, "/");
   }
   bson_string_append_printf (uri, "%s%s=%s", has_query ? "&" : "?", key, value);
}

bool
sh_options_connection_string (const sh_options_t *opts, char **uri_out, char **db_out, sh_error_t *err)
{
   bson_string_t *uri = bson_string_new (NULL);
   char *db = NULL;
   const char *arg = opts->conn_arg;
   bool ok = false;

   *uri_out = NULL;
   *db_out = NULL;
   if (arg && cli_has_scheme (arg)) {
      const char *hosts = strstr (arg, "://") + 3;
      const char *slash = strchr (hosts, '/');
      mongoc_uri_t *parsed;
      /* checked whole now: a database name read from a string libmongoc refuses (a password holding '/') would show
       * part of the password in the first statement's error */
      if (!(parsed = conn_uri_parse (arg, err)))
         goto done;
      mongoc_uri_destroy (parsed);
      bson_string_append (uri, arg);
      if (slash && slash[1] && slash[1] != '?') {
         size_t len = strcspn (slash + 1, "?");
         db = bson_strndup (slash + 1, len);
      }
      if (opts->host || opts->port) {
         sh_error_set (err, SH_ERR_USAGE, "--host and --port cannot be combined with a connection string");
         goto done;
      }
   } else {
      const char *host = opts->host ? opts->host : "127.0.0.1";
      const char *port = opts->port ? opts->port : "27017";
      if (arg && (strchr (arg, '/') || strchr (arg, ':'))) {
         /* host[:port][/db] */
         const char *slash = strchr (arg, '/');
         size_t hostlen = slash ? (size_t) (slash - arg) : strlen (arg);
         char *hp = bson_strndup (arg, hostlen);
         if (strchr (hp, ':'))
            bson_string_append_printf (uri, "mongodb://%s", hp);
         else
            bson_string_append_printf (uri, "mongodb://%s:%s", hp, port);
         bson_free (hp);
         if (slash && slash[1])
            db = bson_strdup (slash + 1);
      } else {
         if (arg)
            db = bson_strdup (arg);
         if (strchr (host, ':') || strchr (host, ','))
            bson_string_append_printf (uri, "mongodb://%s", host);
         else
            bson_string_append_printf (uri, "mongodb://%s:%s", host, port);
      }
      if (db) {
         bson_string_append_printf (uri, "/%s", db);
      }
   }
   /* credentials are set on the parsed mongoc_uri_t by the connection layer, so they never need escaping here */
   if (opts->auth_db)
      cli_add_param (uri, "authSource", opts->auth_db);
   if (opts->tls)
      cli_add_param (uri, "tls", "true");
   if (opts->tls_ca_file)
      cli_add_param (uri, "tlsCAFile", opts->tls_ca_file);
   if (opts->tls_cert_key_file)
      cli_add_param (uri, "tlsCertificateKeyFile", opts->tls_cert_key_file);
   ok = true;
done:
   if (ok) {
      *uri_out = bson_string_free (uri, false);
      *db_out = db ? db : bson_strdup ("test");
   } else {
      bson_string_free (uri, true);
      bson_free (db);
   }
   return ok;
}
