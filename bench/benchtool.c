/* benchtool: the measuring helpers behind bench/run. Not part of shardsh; built by bench/run into build/bench/.
 *
 *   benchtool exec OUT -- PROG ARGS...   run PROG (stdin /dev/null, stdout to OUT, stderr to OUT.err) and print
 *                                         "wall_s user_s sys_s maxrss_kib exit" from wait4()'s rusage
 *   benchtool ping URI N                 N pings through one libmongoc client: "median_us mean_us min_us"
 *   benchtool cmds URI DB FILE           send each line of FILE (canonical Extended JSON) as a command to DB through
 *                                         one client, in order: "n wall_s" (the no-shell floor for a script). Sent
 *                                         with mongoc_client_command_with_opts, as shardsh sends them: both put an
 *                                         implicit session's lsid on each command, as mongosh does
 *   benchtool load URI DB COLL N         insert N generated documents with unordered bulk writes of 10,000
 *   benchtool nop                        exit at once (the RSS floor of any program linking libmongoc)
 *   benchtool proxy PORTFILE PORT        TCP proxy 127.0.0.1:0 -> 127.0.0.1:PORT counting bytes; on SIGTERM prints
 *                                         (and on SIGUSR1, going on: the counts so far)
 *                                         "client_to_server_bytes server_to_client_bytes connections"
 */
#include <errno.h>
#include <fcntl.h>
#include <mongoc/mongoc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double
now_s (void)
{
   struct timespec ts;
   clock_gettime (CLOCK_MONOTONIC, &ts);
   return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static int
cmd_exec (int argc, char **argv)
{
   if (argc < 3 || strcmp (argv[1], "--")) {
      fprintf (stderr, "usage: benchtool exec OUT -- PROG ARGS...\n");
      return 2;
   }
   const char *out = argv[0];
   char errpath[4096];
   snprintf (errpath, sizeof errpath, "%s.err", out);
   double t0 = now_s ();
   pid_t pid = fork ();
   if (pid < 0) {
      perror ("fork");
      return 2;
   }
   if (pid == 0) {
      int in = open ("/dev/null", O_RDONLY);
      int o = open (out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int e = open (errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (in < 0 || o < 0 || e < 0)
         _exit (126);
      dup2 (in, 0);
      dup2 (o, 1);
      dup2 (e, 2);
      execvp (argv[2], argv + 2);
      _exit (127);
   }
   int status;
   struct rusage ru;
   if (wait4 (pid, &status, 0, &ru) < 0) {
      perror ("wait4");
      return 2;
   }
   double wall = now_s () - t0;
   int rc = WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
   printf ("%.6f %.6f %.6f %ld %d\n", wall, (double) ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
           (double) ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss, rc);
   return 0;
}

static mongoc_client_t *
client_for (const char *uri)
{
   bson_error_t error;
   mongoc_uri_t *u = mongoc_uri_new_with_error (uri, &error);
   if (!u) {
      fprintf (stderr, "benchtool: %s\n", error.message);
      exit (2);
   }
   mongoc_client_t *c = mongoc_client_new_from_uri_with_error (u, &error);
   mongoc_uri_destroy (u);
   if (!c) {
      fprintf (stderr, "benchtool: %s\n", error.message);
      exit (2);
   }
   mongoc_client_set_error_api (c, MONGOC_ERROR_API_VERSION_2);
   return c;
}

static int
cmp_double (const void *a, const void *b)
{
   double x = *(const double *) a, y = *(const double *) b;
   return x < y ? -1 : x > y;
}

static int
cmd_ping (int argc, char **argv)
{
   if (argc != 2) {
      fprintf (stderr, "usage: benchtool ping URI N\n");
      return 2;
   }
   int n = atoi (argv[1]);
   if (n < 1)
      n = 1;
   mongoc_client_t *c = client_for (argv[0]);
   bson_t *ping = BCON_NEW ("ping", BCON_INT32 (1));
   bson_error_t error;
   double *t = calloc ((size_t) n, sizeof *t), sum = 0;
   for (int i = -20; i < n; i++) { /* 20 warm-up pings: connection, handshake, caches */
      bson_t reply;
      double t0 = now_s ();
      bool ok = mongoc_client_command_simple (c, "admin", ping, NULL, &reply, &error);
      double dt = now_s () - t0;
      bson_destroy (&reply);
      if (!ok) {
         fprintf (stderr, "benchtool: ping: %s\n", error.message);
         return 1;
      }
      if (i >= 0) {
         t[i] = dt;
         sum += dt;
      }
   }
   qsort (t, (size_t) n, sizeof *t, cmp_double);
   printf ("%.1f %.1f %.1f\n", t[n / 2] * 1e6, sum / n * 1e6, t[0] * 1e6);
   free (t);
   bson_destroy (ping);
   mongoc_client_destroy (c);
   return 0;
}

static int
cmd_cmds (int argc, char **argv)
{
   if (argc != 3) {
      fprintf (stderr, "usage: benchtool cmds URI DB FILE\n");
      return 2;
   }
   FILE *f = fopen (argv[2], "r");
   if (!f) {
      perror (argv[2]);
      return 2;
   }
   /* read everything first: only the sending is timed */
   size_t cap = 1024, n = 0;
   bson_t **cmds = malloc (cap * sizeof *cmds);
   char *line = NULL;
   size_t len = 0;
   ssize_t got;
   bson_error_t error;
   while ((got = getline (&line, &len, f)) > 0) {
      if (got <= 1)
         continue;
      if (n == cap)
         cmds = realloc (cmds, (cap *= 2) * sizeof *cmds);
      if (!(cmds[n] = bson_new_from_json ((const uint8_t *) line, got, &error))) {
         fprintf (stderr, "benchtool: %s line %zu: %s\n", argv[2], n + 1, error.message);
         return 2;
      }
      n++;
   }
   free (line);
   fclose (f);
   mongoc_client_t *c = client_for (argv[0]);
   bson_t reply;
   bson_t *ping = BCON_NEW ("ping", BCON_INT32 (1));
   mongoc_client_command_with_opts (c, "admin", ping, NULL, NULL, &reply, &error); /* connect outside the timing */
   bson_destroy (&reply);
   double t0 = now_s ();
   for (size_t i = 0; i < n; i++) {
      if (!mongoc_client_command_with_opts (c, argv[1], cmds[i], NULL, NULL, &reply, &error)) {
         fprintf (stderr, "benchtool: command %zu: %s\n", i + 1, error.message);
         return 1;
      }
      bson_destroy (&reply);
   }
   printf ("%zu %.6f\n", n, now_s () - t0);
   for (size_t i = 0; i < n; i++)
      bson_destroy (cmds[i]);
   free (cmds);
   bson_destroy (ping);
   mongoc_client_destroy (c);
   return 0;
}

static int
cmd_load (int argc, char **argv)
{
   if (argc != 4) {
      fprintf (stderr, "usage: benchtool load URI DB COLL N\n");
      return 2;
   }
   static const char *regions[] = { "us-east", "us-west", "eu-west", "eu-central", "ap-south", "ap-east", "sa", "af" };
   long long total = atoll (argv[3]);
   mongoc_client_t *c = client_for (argv[0]);
   mongoc_collection_t *coll = mongoc_client_get_collection (c, argv[1], argv[2]);
   bson_error_t error;
   bson_t *opts = BCON_NEW ("ordered", BCON_BOOL (false));
   for (long long base = 0; base < total; base += 10000) {
      mongoc_bulk_operation_t *bulk = mongoc_collection_create_bulk_operation_with_opts (coll, opts);
      for (long long i = base; i < total && i < base + 10000; i++) {
         char cust[32];
         snprintf (cust, sizeof cust, "c%05lld", (i * 7919) % 20000);
         bson_t *doc =
            BCON_NEW ("_id", BCON_INT64 (i), "customer", BCON_UTF8 (cust), "region", BCON_UTF8 (regions[i % 8]),
                      "status", BCON_INT32 ((int32_t) (i % 3)), "ts", BCON_DATE_TIME (1700000000000LL + i * 1000),
                      "amount", BCON_INT32 ((int32_t) ((i * 31) % 10000)));
         mongoc_bulk_operation_insert (bulk, doc);
         bson_destroy (doc);
      }
      bson_t reply;
      if (!mongoc_bulk_operation_execute (bulk, &reply, &error)) {
         fprintf (stderr, "benchtool: insert at %lld: %s\n", base, error.message);
         return 1;
      }
      bson_destroy (&reply);
      mongoc_bulk_operation_destroy (bulk);
   }
   bson_destroy (opts);
   mongoc_collection_destroy (coll);
   mongoc_client_destroy (c);
   return 0;
}

static volatile sig_atomic_t proxy_stop, proxy_report;

static void
proxy_on_term (int sig)
{
   if (sig == SIGUSR1)
      proxy_report = 1;
   else
      proxy_stop = 1;
}

#define PROXY_MAX 64

static int
cmd_proxy (int argc, char **argv)
{
   if (argc != 2) {
      fprintf (stderr, "usage: benchtool proxy PORTFILE PORT\n");
      return 2;
   }
   struct sigaction sa;
   memset (&sa, 0, sizeof sa);
   sa.sa_handler = proxy_on_term;
   sigaction (SIGTERM, &sa, NULL);
   sigaction (SIGINT, &sa, NULL);
   sigaction (SIGUSR1, &sa, NULL);
   signal (SIGPIPE, SIG_IGN);
   int target = atoi (argv[1]);
   int lfd = socket (AF_INET, SOCK_STREAM, 0);
   struct sockaddr_in a;
   memset (&a, 0, sizeof a);
   a.sin_family = AF_INET;
   a.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
   int one = 1;
   setsockopt (lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
   if (bind (lfd, (struct sockaddr *) &a, sizeof a) || listen (lfd, 16)) {
      perror ("benchtool proxy");
      return 2;
   }
   socklen_t al = sizeof a;
   getsockname (lfd, (struct sockaddr *) &a, &al);
   char tmp[4096];
   snprintf (tmp, sizeof tmp, "%s.tmp", argv[0]);
   FILE *pf = fopen (tmp, "w");
   fprintf (pf, "%d\n", ntohs (a.sin_port));
   fclose (pf);
   rename (tmp, argv[0]);

   /* pairs: fds[2k] client side, fds[2k+1] server side; -1 when closed */
   int fds[2 * PROXY_MAX];
   int npairs = 0, conns = 0;
   unsigned long long up = 0, down = 0;
   static char buf[1 << 16];
   while (!proxy_stop) {
      struct pollfd p[1 + 2 * PROXY_MAX];
      if (proxy_report) {
         /* SIGUSR1: the counts so far, one line, and go on */
         proxy_report = 0;
         printf ("%llu %llu %d\n", up, down, conns);
         fflush (stdout);
      }
      int np = 0;
      p[np].fd = lfd;
      p[np++].events = POLLIN;
      for (int i = 0; i < 2 * npairs; i++) {
         p[np].fd = fds[i];
         p[np++].events = POLLIN;
      }
      if (poll (p, (nfds_t) np, -1) < 0) {
         if (errno == EINTR)
            continue;
         break;
      }
      if ((p[0].revents & POLLIN) && npairs < PROXY_MAX) {
         int cfd = accept (lfd, NULL, NULL);
         if (cfd >= 0) {
            int sfd = socket (AF_INET, SOCK_STREAM, 0);
            struct sockaddr_in t = a;
            t.sin_port = htons ((uint16_t) target);
            if (connect (sfd, (struct sockaddr *) &t, sizeof t) == 0) {
               setsockopt (cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
               setsockopt (sfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
               fds[2 * npairs] = cfd;
               fds[2 * npairs + 1] = sfd;
               npairs++;
               conns++;
            } else {
               close (cfd);
               close (sfd);
            }
         }
      }
      for (int i = 1; i < np; i++) {
         if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)) || fds[i - 1] < 0)
            continue;
         int idx = i - 1, peer = idx ^ 1;
         ssize_t r = read (p[i].fd, buf, sizeof buf);
         if (r <= 0 || fds[peer] < 0) {
            close (fds[idx]);
            if (fds[peer] >= 0)
               close (fds[peer]);
            fds[idx] = fds[peer] = -1;
            continue;
         }
         for (ssize_t off = 0; off < r;) {
            ssize_t w = write (fds[peer], buf + off, (size_t) (r - off));
            if (w <= 0)
               break;
            off += w;
         }
         if (idx % 2 == 0)
            up += (unsigned long long) r;
         else
            down += (unsigned long long) r;
      }
      /* compact closed pairs */
      int k = 0;
      for (int j = 0; j < npairs; j++) {
         if (fds[2 * j] >= 0 || fds[2 * j + 1] >= 0) {
            fds[2 * k] = fds[2 * j];
            fds[2 * k + 1] = fds[2 * j + 1];
            k++;
         }
      }
      npairs = k;
   }
   printf ("%llu %llu %d\n", up, down, conns);
   fflush (stdout);
   return 0;
}

int
main (int argc, char **argv)
{
   if (argc < 2) {
      fprintf (stderr, "usage: benchtool exec|ping|cmds|load|proxy ...\n");
      return 2;
   }
   const char *sub = argv[1];
   if (!strcmp (sub, "nop")) /* the peak RSS of a process that links libmongoc and does nothing */
      return 0;
   if (!strcmp (sub, "exec"))
      return cmd_exec (argc - 2, argv + 2);
   if (!strcmp (sub, "proxy"))
      return cmd_proxy (argc - 2, argv + 2);
   mongoc_init ();
   int rc = 2;
   if (!strcmp (sub, "ping"))
      rc = cmd_ping (argc - 2, argv + 2);
   else if (!strcmp (sub, "cmds"))
      rc = cmd_cmds (argc - 2, argv + 2);
   else if (!strcmp (sub, "load"))
      rc = cmd_load (argc - 2, argv + 2);
   else
      fprintf (stderr, "benchtool: unknown subcommand %s\n", sub);
   mongoc_cleanup ();
   return rc;
}
