/* Integration tests of shardsim's faults on demand (simFault and the --fault-* flags) through libmongoc and raw
 * sockets: failing the next K calls of a command with a code, delaying replies, hanging then coming back, refusing
 * new connections then accepting again, dropping every connection (once and periodically), and that replies not
 * affected by a fault stay byte-identical. */
#include "unit.h"

#include <mongoc/mongoc.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct {
   pid_t pid;
   int port;
   mongoc_client_t *client;
} sim_t;

static int64_t
now_ms (void)
{
   struct timespec ts;
   clock_gettime (CLOCK_REALTIME, &ts);
   return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static mongoc_client_t *
client_new (int port, int socket_timeout_ms)
{
   char uri[200];
   snprintf (uri, sizeof uri,
             "mongodb://127.0.0.1:%d/?serverSelectionTimeoutMS=3000&socketTimeoutMS=%d&connectTimeoutMS=1000", port,
             socket_timeout_ms);
   return mongoc_client_new (uri);
}

/* Starts $BINDIR/shardsim with extra arguments (NULL-terminated); the port file appears only once it listens. */
static bool
sim_start (sim_t *s, const char *const *args)
{
   char pf[256], path[512];
   const char *bindir = getenv ("BINDIR") ? getenv ("BINDIR") : "bin";
   const char *argv[32];
   int n = 0;
   snprintf (path, sizeof path, "%s/shardsim", bindir);
   snprintf (pf, sizeof pf, "/tmp/test_sim_faults.%d.port", (int) getpid ());
   unlink (pf);
   memset (s, 0, sizeof *s);
   argv[n++] = "shardsim";
   argv[n++] = "--port";
   argv[n++] = "0";
   argv[n++] = "--port-file";
   argv[n++] = pf;
   for (int i = 0; args[i] && n < 30; i++) {
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
   for (int i = 0; i < 200 && !s->port; i++) {
      FILE *f = fopen (pf, "r");
      if (f) {
         if (fscanf (f, "%d", &s->port) != 1) {
            s->port = 0;
         }
         fclose (f);
      }
      usleep (10000);
   }
   unlink (pf);
   if (!s->port) {
      return false;
   }
   s->client = client_new (s->port, 10000);
   return s->client != NULL;
}

static int
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

static bool
cmd (mongoc_client_t *c, const char *db, const char *json, bson_t *reply)
{
   bson_error_t err;
   bson_t *b = bson_new_from_json ((const uint8_t *) json, -1, &err);
   bool ok = b && mongoc_client_command_simple (c, db, b, NULL, reply, &err);
   if (!b) {
      bson_init (reply);
   }
   bson_destroy (b);
   return ok;
}

static bool
ping (mongoc_client_t *c)
{
   bson_t r;
   bool ok = cmd (c, "admin", "{\"ping\": 1}", &r);
   bson_destroy (&r);
   return ok;
}

static int32_t
code_of (const bson_t *reply)
{
   bson_iter_t it;
   return bson_iter_init_find (&it, reply, "code") && BSON_ITER_HOLDS_INT32 (&it) ? bson_iter_int32 (&it) : -1;
}

static int
raw_connect (int port)
{
   int fd = socket (AF_INET, SOCK_STREAM, 0);
   struct sockaddr_in sa;
   struct timeval tv = {3, 0};
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

/* The reply without $clusterTime/operationTime, as canonical JSON (bson_free). */
static char *
stable_json (const bson_t *reply)
{
   bson_t copy = BSON_INITIALIZER;
   bson_copy_to_excluding_noinit (reply, &copy, "$clusterTime", "operationTime", "localTime", NULL);
   char *j = bson_as_canonical_extended_json (&copy, NULL);
   bson_destroy (&copy);
   return j;
}

static void
test_fail_and_delay (void)
{
   sim_t s;
   const char *args[] = {"--scenario", "demo", NULL};
   bson_t r;
   if (!sim_start (&s, args)) {
      UNIT_FAIL ("fault.start", "shardsim did not start");
      sim_stop (&s);
      return;
   }
   /* Replies before any fault, for the byte-identity check. */
   cmd (s.client, "admin", "{\"listShards\": 1}", &r);
   char *before = stable_json (&r);
   bson_destroy (&r);

   CHECK ("fault.failCommand set",
          cmd (s.client, "admin", "{\"simFault\": \"failCommand\", \"command\": \"find\", \"code\": 91, \"times\": "
                                  "2}", &r));
   bson_destroy (&r);
   int32_t c1, c2;
   bool ok1 = cmd (s.client, "config", "{\"find\": \"shards\"}", &r);
   c1 = code_of (&r);
   bson_destroy (&r);
   bool ok2 = cmd (s.client, "config", "{\"find\": \"shards\"}", &r);
   c2 = code_of (&r);
   bson_destroy (&r);
   bool ok3 = cmd (s.client, "config", "{\"find\": \"shards\"}", &r);
   bson_destroy (&r);
   CHECK ("fault.failCommand fails the next 2 calls with the code", !ok1 && !ok2 && c1 == 91 && c2 == 91);
   CHECK ("fault.failCommand then passes", ok3);
   cmd (s.client, "admin", "{\"simFault\": \"failCommand\", \"command\": \"count\", \"code\": 6, \"times\": 1, "
                           "\"errmsg\": \"host unreachable\"}", &r);
   bson_destroy (&r);
   CHECK ("fault.failCommand code 6", !cmd (s.client, "config", "{\"count\": \"shards\"}", &r) && code_of (&r) == 6);
   bson_destroy (&r);

   /* Delay: every reply but the control commands'. */
   cmd (s.client, "admin", "{\"simFault\": \"delay\", \"ms\": 300}", &r);
   bson_destroy (&r);
   int64_t t0 = now_ms ();
   bool pinged = ping (s.client);
   int64_t slow = now_ms () - t0;
   t0 = now_ms ();
   cmd (s.client, "admin", "{\"simFault\": \"status\"}", &r);
   int64_t ctl = now_ms () - t0;
   bson_destroy (&r);
   CHECK ("fault.delay applies", pinged && slow >= 280);
   CHECK ("fault.control commands are not delayed", ctl < 250);
   /* Unaffected replies stay byte-identical while a fault is set. */
   cmd (s.client, "admin", "{\"simFault\": \"failCommand\", \"command\": \"distinct\", \"code\": 91, \"times\": "
                           "5}", &r);
   bson_destroy (&r);
   cmd (s.client, "admin", "{\"listShards\": 1}", &r);
   char *during = stable_json (&r);
   bson_destroy (&r);
   CHECK ("fault.unaffected replies byte-identical", !strcmp (before, during));
   bson_free (during);
   cmd (s.client, "admin", "{\"simFault\": \"clear\"}", &r);
   bson_destroy (&r);
   t0 = now_ms ();
   pinged = ping (s.client);
   CHECK ("fault.clear removes the delay", pinged && now_ms () - t0 < 200);
   cmd (s.client, "admin", "{\"listShards\": 1}", &r);
   char *after = stable_json (&r);
   bson_destroy (&r);
   CHECK ("fault.replies identical after clear", !strcmp (before, after));
   bson_free (after);
   bson_free (before);
   CHECK ("fault.distinct rule cleared",
          cmd (s.client, "config", "{\"distinct\": \"shards\", \"key\": \"_id\"}", &r));
   bson_destroy (&r);
   sim_stop (&s);
}

static void
test_hang_refuse_drop (void)
{
   sim_t s;
   const char *args[] = {NULL};
   bson_t r;
   if (!sim_start (&s, args)) {
      UNIT_FAIL ("fault2.start", "shardsim did not start");
      sim_stop (&s);
      return;
   }
   mongoc_client_t *other = client_new (s.port, 10000);
   mongoc_client_t *impatient = client_new (s.port, 300);
   ping (other);
   ping (impatient);

   /* Hang: requests wait for the period, then are answered. */
   CHECK ("fault.hang set", cmd (s.client, "admin", "{\"simFault\": \"hang\", \"ms\": 800}", &r));
   bson_destroy (&r);
   int64_t t0 = now_ms ();
   bool late = ping (impatient);
   CHECK ("fault.hang: a client with a short socket timeout fails", !late);
   bool answered = ping (other);
   int64_t took = now_ms () - t0;
   CHECK ("fault.hang: answered once the period is over", answered && took >= 600);
   bool back = false;
   for (int i = 0; i < 10 && !back; i++) {
      back = ping (impatient);
   }
   CHECK ("fault.hang: comes back", back);

   /* Refuse: new connections are refused for the period; open ones keep working. */
   CHECK ("fault.refuse set", cmd (s.client, "admin", "{\"simFault\": \"refuseConnections\", \"seconds\": 0.6}", &r));
   bson_destroy (&r);
   usleep (150000);
   int fd = raw_connect (s.port);
   int e = errno;
   CHECK ("fault.refuse: connect refused", fd < 0 && e == ECONNREFUSED);
   if (fd >= 0) {
      close (fd);
   }
   CHECK ("fault.refuse: open connections still answer", ping (other));
   usleep (700000);
   fd = raw_connect (s.port);
   CHECK ("fault.refuse: accepts again afterwards", fd >= 0);
   if (fd >= 0) {
      close (fd);
   }

   /* Drop every connection. */
   CHECK ("fault.other connected", ping (other));
   cmd (s.client, "admin", "{\"simFault\": \"dropConnections\"}", &r);
   bson_iter_t it;
   CHECK ("fault.dropConnections answers", bson_iter_init_find (&it, &r, "dropped") && bson_iter_as_int64 (&it) >= 2);
   bson_destroy (&r);
   CHECK ("fault.dropConnections: the next call fails", !ping (other));
   bool recovered = false;
   for (int i = 0; i < 10 && !recovered; i++) {
      recovered = ping (other);
      if (!recovered) {
         usleep (100000);
      }
   }
   CHECK ("fault.dropConnections: clients reconnect", recovered);
   mongoc_client_destroy (other);
   mongoc_client_destroy (impatient);
   int status = sim_stop (&s);
   CHECK ("fault.clean exit", WIFEXITED (status) && WEXITSTATUS (status) == 0);
}

static void
test_flags (void)
{
   sim_t s;
   bson_t r;
   const char *a1[] = {"--fault-fail", "ping:91:1", "--fault-delay-ms", "200", NULL};
   if (sim_start (&s, a1)) {
      bool ok1 = cmd (s.client, "admin", "{\"ping\": 1}", &r);
      int32_t c = code_of (&r);
      bson_destroy (&r);
      int64_t t0 = now_ms ();
      bool ok2 = ping (s.client);
      CHECK ("flags.--fault-fail", !ok1 && c == 91 && ok2);
      CHECK ("flags.--fault-delay-ms", now_ms () - t0 >= 180);
   } else {
      UNIT_FAIL ("flags.start 1", "shardsim did not start");
   }
   sim_stop (&s);

   const char *a2[] = {"--fault-refuse-ms", "500", NULL};
   if (sim_start (&s, a2)) {
      int fd = raw_connect (s.port);
      CHECK ("flags.--fault-refuse-ms refuses at start", fd < 0);
      if (fd >= 0) {
         close (fd);
      }
      usleep (650000);
      CHECK ("flags.--fault-refuse-ms then accepts", ping (s.client));
   } else {
      UNIT_FAIL ("flags.start 2", "shardsim did not start");
   }
   sim_stop (&s);

   const char *a3[] = {"--fault-hang-ms", "500", NULL};
   int64_t t0 = now_ms ();
   if (sim_start (&s, a3)) {
      bool ok = ping (s.client);
      CHECK ("flags.--fault-hang-ms holds the first requests", ok && now_ms () - t0 >= 450);
   } else {
      UNIT_FAIL ("flags.start 3", "shardsim did not start");
   }
   sim_stop (&s);

   const char *a4[] = {"--fault-drop-every-ms", "200", NULL};
   if (sim_start (&s, a4)) {
      int fd = raw_connect (s.port);
      char c;
      t0 = now_ms ();
      ssize_t n = fd >= 0 ? recv (fd, &c, 1, 0) : -1;
      CHECK ("flags.--fault-drop-every-ms closes idle connections", fd >= 0 && n == 0 && now_ms () - t0 < 1000);
      if (fd >= 0) {
         close (fd);
      }
      cmd (s.client, "admin", "{\"simFault\": \"dropEvery\", \"ms\": 0}", &r);
      bson_destroy (&r);
      bool ok = false;
      for (int i = 0; i < 5 && !ok; i++) {
         ok = ping (s.client);
      }
      CHECK ("flags.dropEvery off via simFault", ok);
   } else {
      UNIT_FAIL ("flags.start 4", "shardsim did not start");
   }
   sim_stop (&s);
}

int
main (void)
{
   mongoc_init ();
   mongoc_log_set_handler (NULL, NULL);
   test_fail_and_delay ();
   test_hang_refuse_drop ();
   test_flags ();
   mongoc_cleanup ();
   UNIT_EXIT ();
}
