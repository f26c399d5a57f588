/* shardsim's entry point: parses the command line, builds the scenario, listens on loopback, announces the port
 * (stdout line and --port-file), serves until SIGTERM/SIGINT and frees everything on the way out. */
#include "tests/shardsim/sim.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void
sim_on_signal (int sig)
{
   (void) sig;
   sim_g.shutting_down = 1;
   if (sim_g.wake_pipe[1] >= 0) {
      ssize_t r = write (sim_g.wake_pipe[1], "x", 1);
      (void) r;
   }
}

static void
sim_usage (FILE *out)
{
   fprintf (out,
            "usage: shardsim [--port N] [--port-file F] [--version 4.4|5.0|6.0|7.0|8.0|8.2|8.3|9.0]\n"
            "                [--scenario empty|demo|large] [--shards N] [--log-commands FILE] [--seed N]\n"
            "                [--large-shards N] [--large-collections N] [--large-chunks N]\n"
            "                [--workload NS:KIND:RATE[:READS[:UPDATES]]]... [--load NS:KIND:COUNT[:unsharded]]...\n"
            "                [--chunk-size-kb N] [--balancer-interval-ms N] [--migration-ms N] [--live]\n"
            "                [--doc-bytes N] [--reshard-ms N]\n"
            "                [--fault-delay-ms N] [--fault-fail CMD:CODE[:TIMES]] [--fault-hang-ms N]\n"
            "                [--fault-refuse-ms N] [--fault-drop-every-ms N] [--fault-close-on CMD[:TIMES]]\n"
            "                [--fault-bad-reply CMD:KIND[:TIMES]]\n"
            "                [--auth USER:PASSWORD[@DB]]... [--tls-cert PEM [--tls-ca PEM]]\n"
            "A wire-protocol mongos simulator for tests and demos (not a database). Listens on 127.0.0.1 only.\n");
}

static bool
sim_parse_int (const char *s, long long min, long long max, long long *out)
{
   char *end;
   errno = 0;
   long long v = strtoll (s, &end, 10);
   if (errno || *end || end == s || v < min || v > max) {
      return false;
   }
   *out = v;
   return true;
}

/* Writes the port to path through a temporary file and a rename, so readers never see a partial file. */
static bool
sim_write_port_file (const char *path, int port)
{
   char tmp[4096];
   bson_snprintf (tmp, sizeof tmp, "%s.tmp.%d", path, (int) getpid ());
   FILE *f = fopen (tmp, "w");
   if (!f) {
      return false;
   }
   bool ok = fprintf (f, "%d\n", port) > 0;
   ok = (fclose (f) == 0) && ok;
   if (!ok || rename (tmp, path) != 0) {
      unlink (tmp);
      return false;
   }
   return true;
}

/* The command line's options. */
typedef struct {
   long long port;
   const char *port_file, *version, *log_path, *tls_cert, *tls_ca;
   const char **workloads, **loads; /* owned (the strings are argv's) */
   size_t nworkloads, nloads;
} sim_opts_t;

/* Parses argv into o and the simulator's settings (sim_g, sim_dyn, faults, users): -1 when the program goes on, 0
 * after --help, 2 after a usage error (printed). */
static int
sim_parse_args (int argc, char **argv, sim_opts_t *o)
{
   long long v;
   char err[512];
   for (int i = 1; i < argc; i++) {
      const char *a = argv[i];
      const char *val = i + 1 < argc ? argv[i + 1] : NULL;
      if (!strcmp (a, "--help") || !strcmp (a, "-h")) {
         sim_usage (stdout);
         return 0;
      }
      if (!strcmp (a, "--live")) {
         sim_dyn.live = true;
         continue;
      }
      if (!val) {
         fprintf (stderr, "shardsim: %s needs a value\n", a);
         sim_usage (stderr);
         return 2;
      }
      i++;
      if (!strcmp (a, "--port")) {
         if (!sim_parse_int (val, 0, 65535, &o->port)) {
            fprintf (stderr, "shardsim: bad --port %s\n", val);
            return 2;
         }
      } else if (!strcmp (a, "--port-file")) {
         o->port_file = val;
      } else if (!strcmp (a, "--version")) {
         o->version = val;
      } else if (!strcmp (a, "--scenario")) {
         if (strcmp (val, "empty") && strcmp (val, "demo") && strcmp (val, "large")) {
            fprintf (stderr, "shardsim: unknown scenario %s (empty, demo, large)\n", val);
            return 2;
         }
         sim_g.scenario = val;
      } else if (!strcmp (a, "--log-commands")) {
         o->log_path = val;
      } else if (!strcmp (a, "--auth")) {
         /* SCRAM users; the password is overwritten in argv[i] at once */
         if (!sim_auth_add_user (argv[i], err, sizeof err)) {
            fprintf (stderr, "shardsim: %s\n", err);
            return 2;
         }
      } else if (!strcmp (a, "--tls-cert")) {
         o->tls_cert = val;
      } else if (!strcmp (a, "--tls-ca")) {
         o->tls_ca = val;
      } else if (!strcmp (a, "--workload") || !strcmp (a, "--load")) {
         const char ***list = !strcmp (a, "--load") ? &o->loads : &o->workloads;
         size_t *n = !strcmp (a, "--load") ? &o->nloads : &o->nworkloads;
         *list = bson_realloc (*list, (*n + 1) * sizeof **list);
         (*list)[(*n)++] = val;
      } else if (!strncmp (a, "--fault-", 8)) {
         if (strcmp (a, "--fault-delay-ms") && strcmp (a, "--fault-fail") && strcmp (a, "--fault-hang-ms") &&
             strcmp (a, "--fault-refuse-ms") && strcmp (a, "--fault-drop-every-ms") &&
             strcmp (a, "--fault-bad-reply") && strcmp (a, "--fault-close-on")) {
            fprintf (stderr, "shardsim: unknown option %s\n", a);
            return 2;
         }
         if (!sim_fault_flag (a, val, err, sizeof err)) {
            fprintf (stderr, "shardsim: %s\n", err);
            return 2;
         }
      } else if (!strcmp (a, "--chunk-size-kb") || !strcmp (a, "--balancer-interval-ms") ||
                 !strcmp (a, "--migration-ms") || !strcmp (a, "--doc-bytes") || !strcmp (a, "--reshard-ms")) {
         if (!sim_parse_int (val, !strcmp (a, "--migration-ms") || !strcmp (a, "--reshard-ms") ? 0 : 1,
                             16 * 1024 * 1024, &v)) {
            fprintf (stderr, "shardsim: bad %s %s\n", a, val);
            return 2;
         }
         if (!strcmp (a, "--chunk-size-kb")) {
            sim_dyn.chunk_size_bytes = v * 1024;
         } else if (!strcmp (a, "--balancer-interval-ms")) {
            sim_dyn.balancer_interval_ms = v;
            sim_dyn.live = true;
         } else if (!strcmp (a, "--reshard-ms")) {
            sim_reshard_ms = v;
         } else if (!strcmp (a, "--migration-ms")) {
            sim_dyn.migration_ms = v;
         } else {
            sim_dyn.doc_bytes = (int32_t) v;
         }
      } else if (!strcmp (a, "--shards") || !strcmp (a, "--large-shards") || !strcmp (a, "--large-collections") ||
                 !strcmp (a, "--large-chunks") || !strcmp (a, "--seed")) {
         long long max = !strcmp (a, "--large-chunks") || !strcmp (a, "--seed") ? INT64_MAX : 100000;
         if (!sim_parse_int (val, !strcmp (a, "--seed") ? 0 : 1, max, &v)) {
            fprintf (stderr, "shardsim: bad %s %s\n", a, val);
            return 2;
         }
         if (!strcmp (a, "--shards")) {
            sim_g.nshards = (int) v;
         } else if (!strcmp (a, "--large-shards")) {
            sim_g.large_shards = (int) v;
         } else if (!strcmp (a, "--large-collections")) {
            sim_g.large_collections = (int) v;
         } else if (!strcmp (a, "--large-chunks")) {
            sim_g.large_chunks = v;
         } else {
            sim_g.seed = (uint64_t) v;
         }
      } else {
         fprintf (stderr, "shardsim: unknown option %s\n", a);
         sim_usage (stderr);
         return 2;
      }
   }
   return -1;
}

int
main (int argc, char **argv)
{
   int rc = 1;
   int listen_fd = -1;
   char err[512];
   sim_opts_t o = { .version = "8.0" };

   sim_g.scenario = "empty";
   sim_g.nshards = 3;
   sim_g.seed = 1;
   sim_g.large_shards = 1000;
   sim_g.large_collections = 500;
   sim_g.large_chunks = 1000000;
   sim_g.argc = argc;
   sim_g.argv = argv;
   sim_g.wake_pipe[0] = sim_g.wake_pipe[1] = -1;
   pthread_mutex_init (&sim_g.lock, NULL);
   pthread_mutex_init (&sim_g.conn_lock, NULL);
   pthread_cond_init (&sim_dyn.round_done, NULL);
   sim_dyn.doc_bytes = 200;

   rc = sim_parse_args (argc, argv, &o);
   if (rc >= 0) {
      goto cleanup;
   }
   rc = 1;
   sim_g.ver = sim_version_find (o.version);
   if (!sim_g.ver) {
      fprintf (stderr, "shardsim: unknown --version %s (4.4, 5.0, 6.0, 7.0, 8.0, 8.2, 8.3, 9.0)\n", o.version);
      rc = 2;
      goto cleanup;
   }
   if (o.tls_ca && !o.tls_cert) {
      fprintf (stderr, "shardsim: --tls-ca needs --tls-cert\n");
      rc = 2;
      goto cleanup;
   }
   if (o.tls_cert && !sim_tls_init (o.tls_cert, o.tls_ca, err, sizeof err)) {
      fprintf (stderr, "shardsim: %s\n", err);
      rc = 2;
      goto cleanup;
   }
   if (pipe (sim_g.wake_pipe) != 0) {
      perror ("shardsim: pipe");
      goto cleanup;
   }
   struct sigaction sa;
   memset (&sa, 0, sizeof sa);
   sa.sa_handler = sim_on_signal;
   sigaction (SIGTERM, &sa, NULL);
   sigaction (SIGINT, &sa, NULL);
   signal (SIGPIPE, SIG_IGN);

   int bound = 0;
   listen_fd = sim_server_listen ((int) o.port, &bound);
   if (listen_fd < 0) {
      fprintf (stderr, "shardsim: cannot listen on 127.0.0.1:%lld: %s\n", o.port, strerror (errno));
      goto cleanup;
   }
   sim_g.port = bound;
   bson_snprintf (sim_g.host, sizeof sim_g.host, "127.0.0.1:%d", bound);
   if (o.log_path && !sim_log_open (o.log_path)) {
      fprintf (stderr, "shardsim: cannot open %s: %s\n", o.log_path, strerror (errno));
      goto cleanup;
   }
   if (!sim_scenario_build (err, sizeof err)) {
      fprintf (stderr, "shardsim: %s\n", err);
      rc = 2;
      goto cleanup;
   }
   /* Bulk o.loads, then o.workloads, before the o.port is announced: clients see the loaded cluster. */
   for (size_t i = 0; i < o.nloads + o.nworkloads; i++) {
      bool load = i < o.nloads;
      if (!sim_workload_flag (load ? o.loads[i] : o.workloads[i - o.nloads], load, err, sizeof err)) {
         fprintf (stderr, "shardsim: %s\n", err);
         rc = 2;
         goto cleanup;
      }
   }
   if (!sim_dyn_start ()) {
      perror ("shardsim: background thread");
      goto cleanup;
   }
   sim_dyn.next_round_ms = clock_wall_ms () + (sim_dyn.balancer_interval_ms > 0 ? sim_dyn.balancer_interval_ms : 10000);
   sim_fault_init ();
   printf ("shardsim: listening on 127.0.0.1:%d (version %s, scenario %s)\n", bound, sim_g.ver->full, sim_g.scenario);
   fflush (stdout);
   if (o.port_file && !sim_write_port_file (o.port_file, bound)) {
      fprintf (stderr, "shardsim: cannot write %s: %s\n", o.port_file, strerror (errno));
      goto cleanup;
   }
   sim_server_run (&listen_fd);
   rc = 0;
cleanup:
   sim_g.shutting_down = 1;
   sim_dyn_stop ();
   sim_reshard_free ();
   sim_fault_destroy ();
   bson_free (o.workloads);
   bson_free (o.loads);
   if (listen_fd >= 0) {
      close (listen_fd);
   }
   for (int i = 0; i < 2; i++) {
      if (sim_g.wake_pipe[i] >= 0) {
         close (sim_g.wake_pipe[i]);
      }
   }
   sim_cursors_free ();
   sim_store_free ();
   sim_log_close ();
   sim_tls_destroy ();
   sim_usermgmt_destroy ();
   sim_auth_destroy ();
   pthread_cond_destroy (&sim_dyn.round_done);
   pthread_mutex_destroy (&sim_g.lock);
   pthread_mutex_destroy (&sim_g.conn_lock);
   return rc;
}
