/* shardsim as a child process for the sim integration tests: starting $BINDIR/shardsim (--port 0 --port-file) with
 * stdout to /dev/null, waiting for the port file, connecting with libmongoc, stopping it by PID with SIGTERM, and
 * raw loopback sockets for the wire checks libmongoc cannot make. Header-only (static inline, so a test need not
 * use all of it) for the test_sim_*.c programs. */
#ifndef SHARDSH_SIMPROC_H
#define SHARDSH_SIMPROC_H

#include <mongoc/mongoc.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define SIMPROC_ARGS_MAX 64

/* One running shardsim: its PID, the port it listens on and a client to it (NULL until connected). */
typedef struct {
   pid_t pid;
   int port;
   mongoc_client_t *client;
} sim_t;

/* Connects to 127.0.0.1:port with the URI options in options ("name=value&..."); NULL if the URI is refused. */
static inline mongoc_client_t *
simproc_client (int port, const char *options)
{
   char uri[256];
   snprintf (uri, sizeof uri, "mongodb://127.0.0.1:%d/?%s", port, options);
   return mongoc_client_new (uri);
}

/* Starts $BINDIR/shardsim --port 0 --port-file port_file with the extra arguments args (NULL-terminated), polls
 * the port file every poll_ms for up to tries times, then connects with the URI options in options. s is reset
 * first; s->pid is set whenever the fork happened, so sim_stop is always the way out. Returns false when no port
 * was read or the client could not be made. */
static inline bool
simproc_start (sim_t *s, const char *port_file, const char *const *args, int tries, int poll_ms, const char *options)
{
   const char *bindir = getenv ("BINDIR") ? getenv ("BINDIR") : "bin";
   char path[512];
   const char *argv[SIMPROC_ARGS_MAX];
   int n = 0;
   snprintf (path, sizeof path, "%s/shardsim", bindir);
   unlink (port_file);
   memset (s, 0, sizeof *s);
   argv[n++] = "shardsim";
   argv[n++] = "--port";
   argv[n++] = "0";
   argv[n++] = "--port-file";
   argv[n++] = port_file;
   for (int i = 0; args[i] && n < SIMPROC_ARGS_MAX - 2; i++) {
      argv[n++] = args[i];
   }
   argv[n] = NULL;
   fflush (stdout);
   s->pid = fork ();
   if (s->pid == 0) {
      if (!freopen ("/dev/null", "w", stdout)) {
         _exit (126);
      }
      execv (path, (char *const *) argv);
      _exit (127);
   }
   for (int i = 0; i < tries; i++) {
      FILE *f = fopen (port_file, "r");
      if (f) {
         int ok = fscanf (f, "%d", &s->port);
         fclose (f);
         if (ok == 1) {
            break;
         }
         s->port = 0;
      }
      usleep ((useconds_t) poll_ms * 1000);
   }
   unlink (port_file);
   if (!s->port) {
      return false;
   }
   s->client = simproc_client (s->port, options);
   return s->client != NULL;
}

/* Destroys the client, sends SIGTERM and reaps the process. Returns its wait status, -1 when there was none. */
static inline int
sim_stop (sim_t *s)
{
   int status = -1;
   if (s->client) {
      mongoc_client_destroy (s->client);
      s->client = NULL;
   }
   if (s->pid > 0) {
      kill (s->pid, SIGTERM);
      waitpid (s->pid, &status, 0);
      s->pid = 0;
   }
   return status;
}

/* Runs a command given as JSON on db through the test's client; reply is always initialised (the caller destroys it).
 * A command that is not JSON prints why on stderr and fails. */
static inline bool
simproc_run_json (sim_t *s, const char *db, const char *json, bson_t *reply)
{
   bson_error_t err;
   bson_t *cmd = bson_new_from_json ((const uint8_t *) json, -1, &err);
   bool ok;
   if (!cmd) {
      fprintf (stderr, "bad json %s: %s\n", json, err.message);
      bson_init (reply);
      return false;
   }
   ok = mongoc_client_command_simple (s->client, db, cmd, NULL, reply, &err);
   bson_destroy (cmd);
   return ok;
}

/* Number of documents of db.coll matching a JSON filter (count_documents, so the simulator's matcher decides); -1 when
 * the filter is not JSON or the count fails. */
static inline int64_t
simproc_count (sim_t *s, const char *db, const char *coll, const char *filter)
{
   bson_error_t err;
   bson_t *f = bson_new_from_json ((const uint8_t *) filter, -1, &err);
   mongoc_collection_t *c = mongoc_client_get_collection (s->client, db, coll);
   int64_t n = f ? mongoc_collection_count_documents (c, f, NULL, NULL, NULL, &err) : -1;
   mongoc_collection_destroy (c);
   bson_destroy (f);
   return n;
}

/* simproc_run_json that only tells whether the command succeeded (the reply is printed on stderr when not). */
static inline bool
simproc_run_ok (sim_t *s, const char *db, const char *json)
{
   bson_t reply;
   bool ok = simproc_run_json (s, db, json, &reply);
   if (!ok) {
      char *j = bson_as_relaxed_extended_json (&reply, NULL);
      fprintf (stderr, "command %s failed: %s\n", json, j);
      bson_free (j);
   }
   bson_destroy (&reply);
   return ok;
}

/* A TCP socket connected to 127.0.0.1:port with a receive timeout of timeout_s seconds, or -1 (errno kept). */
static inline int
simproc_raw_connect (int port, int timeout_s)
{
   int fd = socket (AF_INET, SOCK_STREAM, 0);
   struct sockaddr_in sa;
   struct timeval tv = { timeout_s, 0 };
   memset (&sa, 0, sizeof sa);
   sa.sin_family = AF_INET;
   sa.sin_port = htons ((uint16_t) port);
   sa.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
   setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
   if (connect (fd, (struct sockaddr *) &sa, sizeof sa) != 0) {
      int e = errno;
      close (fd);
      errno = e;
      return -1;
   }
   return fd;
}

#endif
