/* The exporter (views/exporter.h): libmicrohttpd serves /metrics from one internal thread; one collector thread per
 * cluster refreshes into its own snapshot and publishes a copy under the cluster's lock. A scrape takes every
 * cluster's lock in order, renders (views/metrics.c) and answers; it never sends a command, so a slow or failing
 * cluster, or one in the middle of migrations, never makes a scrape fail: its last numbers stay, with shardsh_up 0. */
#include <bson/bson.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "shell/lib/clock.h"
#include "shell/lib/secret.h"
#include "views/exporter.h"
#include "views/metrics.h"
#include "views/model/collect.h"

#define EXPORTER_TOTALS_S 30.0         /* the changelog and actionlog are counted at most this often */
#define EXPORTER_DEFAULT_PAIRS 20000   /* (collection, shard) pairs exported per cluster unless told */
#define EXPORTER_CONNECTIONS 64        /* concurrent HTTP connections */
#define EXPORTER_CONNECTION_TIMEOUT 10 /* seconds an idle HTTP connection is kept */

struct exporter;

/* One cluster: its source (used by its thread only) and what a scrape reads (under lock). */
typedef struct {
   const char *name;
   expsrc_t *src;
   pthread_t thread;
   bool started;
   struct exporter *ex;
   pthread_mutex_t lock; /* guards the fields below */
   snap_t pub;           /* a copy of the latest snapshot (its cells shared with the collector's, read-only) */
   bool up;
   int64_t refreshes, errors;
   expsrc_totals_t totals;
   double router_cpu_s; /* over the last good refresh; -1 unknown */
} exp_cluster_t;

typedef struct exporter {
   exp_cluster_t *cl;
   size_t n;
   double interval_s;
   size_t max_pairs;
   pthread_mutex_t stop_lock;
   pthread_cond_t stop_cond; /* on CLOCK_MONOTONIC */
   bool stop;
   pthread_mutex_t scrape_lock;
   double last_scrape_s; /* < 0 before the first */
} exporter_t;

/* ---- the address and the Accept header ---- */

bool
exporter_parse_address (const char *addr, char *host, size_t len, int *port)
{
   const char *colon, *p;
   char *end;
   long v;
   size_t hl = 0;
   if (!addr || !*addr)
      return false;
   if (addr[0] == '[') {
      const char *close = strchr (addr, ']');
      if (!close || close[1] != ':')
         return false;
      hl = (size_t) (close - addr - 1);
      if (hl == 0 || hl >= len)
         return false;
      memcpy (host, addr + 1, hl);
      p = close + 2;
   } else if ((colon = strrchr (addr, ':'))) {
      hl = (size_t) (colon - addr);
      if (hl >= len || memchr (addr, ':', hl))
         return false;
      memcpy (host, addr, hl);
      p = colon + 1;
   } else {
      p = addr;
   }
   host[hl] = '\0';
   if (!hl)
      bson_strncpy (host, "127.0.0.1", len);
   errno = 0;
   v = strtol (p, &end, 10);
   if (!*p || *end || errno || v < 0 || v > 65535)
      return false;
   *port = (int) v;
   return true;
}

const char *
exporter_cluster_arg (const char *arg, char *name, size_t len)
{
   size_t n = strspn (arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.");
   name[0] = '\0';
   if (n == 0 || arg[n] != '=' || n >= len)
      return arg;
   memcpy (name, arg, n);
   name[n] = '\0';
   return arg + n + 1;
}

void
exporter_default_name (const char *uri, char *name, size_t len)
{
   const char *p = strstr (uri, "://");
   size_t n, at;
   p = p ? p + 3 : uri;
   n = strcspn (p, "/?");
   for (at = n; at > 0 && p[at - 1] != '@'; at--)
      ;
   bson_strncpy (name, p + at, n - at + 1 < len ? n - at + 1 : len);
}

bool
exporter_wants_openmetrics (const char *accept)
{
   const char *at = accept ? strstr (accept, "application/openmetrics-text") : NULL;
   while (at) {
      const char *stop = strchr (at, ',');
      size_t span = stop ? (size_t) (stop - at) : strlen (at);
      const char *q = strstr (at, "q=");
      bool refused = q && (size_t) (q - at) < span && strtod (q + 2, NULL) <= 0;
      if (!refused)
         return true;
      at = strstr (at + span, "application/openmetrics-text");
   }
   return false;
}

/* ---- collector threads ---- */

static bool
ex_stopping (exporter_t *ex)
{
   bool s;
   pthread_mutex_lock (&ex->stop_lock);
   s = ex->stop;
   pthread_mutex_unlock (&ex->stop_lock);
   return s;
}

/* Sleeps until the monotonic time until_ms or the stop. */
static void
ex_wait (exporter_t *ex, int64_t until_ms)
{
   struct timespec ts;
   pthread_mutex_lock (&ex->stop_lock);
   while (!ex->stop) {
      clock_gettime (CLOCK_MONOTONIC, &ts);
      int64_t now = (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
      if (now >= until_ms)
         break;
      ts.tv_sec = (time_t) (until_ms / 1000);
      ts.tv_nsec = (long) (until_ms % 1000) * 1000000;
      pthread_cond_timedwait (&ex->stop_cond, &ex->stop_lock, &ts);
   }
   pthread_mutex_unlock (&ex->stop_lock);
}

/* Logs a refresh error once per change (the text masked of passwords). */
static void
ex_log (exp_cluster_t *c, const char *what, const char *error, char *last, size_t len)
{
   char *shown;
   if (!strcmp (last, error))
      return;
   bson_strncpy (last, error, len);
   shown = secret_redact_text (error);
   fprintf (stderr, "shardsh: exporter: %s: %s: %s\n", c->name, what, shown);
   bson_free (shown);
}

/* Totals only grow within a process (a capped changelog that drops old entries would otherwise move them back). */
static int64_t
keep_max (int64_t old, int64_t now)
{
   return now > old ? now : old;
}

static void *
ex_cluster_loop (void *arg)
{
   exp_cluster_t *c = arg;
   exporter_t *ex = c->ex;
   snap_t work = { 0 };
   int64_t totals_at = -1;
   char last_err[SNAP_TEXT] = "", last_terr[SNAP_TEXT] = "", terr[SNAP_TEXT];

   while (!ex_stopping (ex)) {
      int64_t t0 = clock_mono_ms ();
      double cpu = -1;
      bool ok = expsrc_sample (c->src, &work, &cpu), tok = false;
      expsrc_totals_t t;
      if (!ok)
         ex_log (c, "refresh failed", work.error, last_err, sizeof last_err);
      else
         last_err[0] = '\0';
      if (ok && (totals_at < 0 || t0 - totals_at >= (int64_t) (1000 * EXPORTER_TOTALS_S))) {
         tok = expsrc_totals (c->src, &t, terr, sizeof terr);
         if (tok)
            totals_at = t0;
         else
            ex_log (c, "counting the changelog failed", terr, last_terr, sizeof last_terr);
      }
      pthread_mutex_lock (&c->lock);
      snap_destroy (&c->pub);
      snap_copy (&c->pub, &work);
      c->up = ok;
      if (ok)
         c->router_cpu_s = cpu;
      c->refreshes++;
      c->errors += !ok;
      if (tok) {
         c->totals.moves_ok = keep_max (c->totals.moves_ok, t.moves_ok);
         c->totals.moves_failed = keep_max (c->totals.moves_failed, t.moves_failed);
         c->totals.rounds_failed = keep_max (c->totals.rounds_failed, t.rounds_failed);
      }
      pthread_mutex_unlock (&c->lock);
      ex_wait (ex, t0 + (int64_t) (ex->interval_s * 1000));
   }
   snap_destroy (&work);
   return NULL;
}

/* ---- scrapes ---- */

/* Renders every cluster's latest snapshot, each under its lock (taken in order, released after). Owned result. */
static char *
ex_render (exporter_t *ex, bool om, size_t *len)
{
   metrics_cluster_t *mc = calloc (ex->n ? ex->n : 1, sizeof *mc);
   metrics_buf_t out = { 0 };
   metrics_opts_t o = { .openmetrics = om, .max_pairs = ex->max_pairs, .now_min = -1 };
   time_t now = time (NULL);
   struct tm tm;
   if (!mc)
      abort ();
   if (localtime_r (&now, &tm))
      o.now_min = tm.tm_hour * 60 + tm.tm_min;
   pthread_mutex_lock (&ex->scrape_lock);
   o.last_scrape_s = ex->last_scrape_s;
   pthread_mutex_unlock (&ex->scrape_lock);
   for (size_t i = 0; i < ex->n; i++) {
      exp_cluster_t *c = &ex->cl[i];
      pthread_mutex_lock (&c->lock);
      mc[i] = (metrics_cluster_t){ .name = c->name,
                                   .snap = &c->pub,
                                   .up = c->up,
                                   .refreshes = c->refreshes,
                                   .refresh_errors = c->errors,
                                   .totals = c->totals,
                                   .router_cpu_s = c->router_cpu_s };
   }
   metrics_render (mc, ex->n, &o, &out);
   for (size_t i = ex->n; i-- > 0;)
      pthread_mutex_unlock (&ex->cl[i].lock);
   free (mc);
   *len = out.len;
   return out.data;
}

static enum MHD_Result
ex_answer_text (struct MHD_Connection *conn, unsigned int status, const char *text)
{
   struct MHD_Response *r = MHD_create_response_from_buffer (strlen (text), (void *) text, MHD_RESPMEM_PERSISTENT);
   enum MHD_Result ret;
   MHD_add_response_header (r, "Content-Type", "text/plain; charset=utf-8");
   ret = MHD_queue_response (conn, status, r);
   MHD_destroy_response (r);
   return ret;
}

static enum MHD_Result
ex_handle (void *cls, struct MHD_Connection *conn, const char *url, const char *method, const char *version,
           const char *upload_data, size_t *upload_size, void **con_cls)
{
   exporter_t *ex = cls;
   struct MHD_Response *r;
   enum MHD_Result ret;
   struct timespec a, b;
   bool om;
   size_t len;
   char *body;
   (void) version;
   (void) upload_data;
   (void) con_cls;
   if (*upload_size) {
      *upload_size = 0;
      return MHD_YES;
   }
   if (strcmp (method, "GET") && strcmp (method, "HEAD"))
      return ex_answer_text (conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
   if (!strcmp (url, "/"))
      return ex_answer_text (conn, MHD_HTTP_OK, "shardsh exporter: the metrics are at /metrics\n");
   if (strcmp (url, "/metrics"))
      return ex_answer_text (conn, MHD_HTTP_NOT_FOUND, "not found: the metrics are at /metrics\n");
   clock_gettime (CLOCK_MONOTONIC, &a);
   om = exporter_wants_openmetrics (MHD_lookup_connection_value (conn, MHD_HEADER_KIND, "Accept"));
   body = ex_render (ex, om, &len);
   r = MHD_create_response_from_buffer (len, body, MHD_RESPMEM_MUST_FREE);
   MHD_add_response_header (r, "Content-Type",
                            om ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                               : "text/plain; version=0.0.4; charset=utf-8");
   ret = MHD_queue_response (conn, MHD_HTTP_OK, r);
   MHD_destroy_response (r);
   clock_gettime (CLOCK_MONOTONIC, &b);
   pthread_mutex_lock (&ex->scrape_lock);
   ex->last_scrape_s = (double) (b.tv_sec - a.tv_sec) + (double) (b.tv_nsec - a.tv_nsec) / 1e9;
   pthread_mutex_unlock (&ex->scrape_lock);
   return ret;
}

/* ---- the run ---- */

/* Starts the HTTP daemon on host:port; NULL with the reason on stderr. *bound gets the port it listens on. */
static struct MHD_Daemon *
ex_listen (exporter_t *ex, const char *host, int port, int *bound)
{
   struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE };
   struct addrinfo *res = NULL;
   struct MHD_Daemon *d;
   const union MHD_DaemonInfo *info;
   char ps[8];
   int rc;
   unsigned int flags = MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD;
   snprintf (ps, sizeof ps, "%d", port);
   if ((rc = getaddrinfo (host, ps, &hints, &res)) != 0 || !res) {
      fprintf (stderr, "shardsh: --exporter: cannot use address '%s': %s\n", host, gai_strerror (rc));
      return NULL;
   }
   if (res->ai_family == AF_INET6)
      flags |= MHD_USE_IPv6;
   d = MHD_start_daemon (flags, (uint16_t) port, NULL, NULL, ex_handle, ex, MHD_OPTION_SOCK_ADDR, res->ai_addr,
                         MHD_OPTION_CONNECTION_LIMIT, (unsigned int) EXPORTER_CONNECTIONS,
                         MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int) EXPORTER_CONNECTION_TIMEOUT, MHD_OPTION_END);
   freeaddrinfo (res);
   if (!d) {
      fprintf (stderr, "shardsh: --exporter: cannot listen on %s:%d: %s\n", host, port, strerror (errno));
      return NULL;
   }
   info = MHD_get_daemon_info (d, MHD_DAEMON_INFO_BIND_PORT);
   *bound = info && info->port ? info->port : port;
   return d;
}

static void
ex_destroy (exporter_t *ex)
{
   for (size_t i = 0; i < ex->n; i++) {
      exp_cluster_t *c = &ex->cl[i];
      if (c->started)
         pthread_join (c->thread, NULL);
      expsrc_free (c->src);
      snap_destroy (&c->pub);
      pthread_mutex_destroy (&c->lock);
   }
   free (ex->cl);
   pthread_mutex_destroy (&ex->stop_lock);
   pthread_cond_destroy (&ex->stop_cond);
   pthread_mutex_destroy (&ex->scrape_lock);
}

static void
ex_init (exporter_t *ex, const sh_options_t *opts, const exporter_cluster_t *clusters, size_t n)
{
   pthread_condattr_t ca;
   memset (ex, 0, sizeof *ex);
   ex->n = n;
   ex->interval_s = opts->interval > 0 ? opts->interval : COLLECT_DEFAULT_INTERVAL;
   if (ex->interval_s < COLLECT_MIN_INTERVAL)
      ex->interval_s = COLLECT_MIN_INTERVAL;
   ex->max_pairs = opts->exporter_pairs >= 0 ? (size_t) opts->exporter_pairs : EXPORTER_DEFAULT_PAIRS;
   ex->last_scrape_s = -1;
   pthread_mutex_init (&ex->stop_lock, NULL);
   pthread_condattr_init (&ca);
   pthread_condattr_setclock (&ca, CLOCK_MONOTONIC);
   pthread_cond_init (&ex->stop_cond, &ca);
   pthread_condattr_destroy (&ca);
   pthread_mutex_init (&ex->scrape_lock, NULL);
   ex->cl = calloc (n ? n : 1, sizeof *ex->cl);
   if (!ex->cl)
      abort ();
   for (size_t i = 0; i < n; i++) {
      exp_cluster_t *c = &ex->cl[i];
      c->name = clusters[i].name;
      c->ex = ex;
      c->totals = (expsrc_totals_t){ -1, -1, -1 };
      c->router_cpu_s = -1;
      pthread_mutex_init (&c->lock, NULL);
      c->src = expsrc_new (clusters[i].uri, clusters[i].db, opts, ex->interval_s);
   }
}

int
exporter_run (const sh_options_t *opts, const exporter_cluster_t *clusters, size_t n)
{
   exporter_t ex;
   struct MHD_Daemon *d;
   char host[256];
   int port = 0, bound = 0, sig = 0;
   sigset_t set, old;

   if (!exporter_parse_address (opts->exporter, host, sizeof host, &port)) {
      fprintf (stderr, "shardsh: --exporter: '%s' is not an address: HOST:PORT, [IPV6]:PORT or PORT\n",
               opts->exporter ? opts->exporter : "");
      return 2;
   }
   /* every thread started from here on leaves SIGINT and SIGTERM to sigwait below */
   sigemptyset (&set);
   sigaddset (&set, SIGINT);
   sigaddset (&set, SIGTERM);
   pthread_sigmask (SIG_BLOCK, &set, &old);
   signal (SIGPIPE, SIG_IGN);
   tzset (); /* localtime_r in the HTTP thread then reads the time zone without first setting it up */
   ex_init (&ex, opts, clusters, n);
   d = ex_listen (&ex, host, port, &bound);
   if (!d) {
      ex_destroy (&ex);
      pthread_sigmask (SIG_SETMASK, &old, NULL);
      return 2;
   }
   for (size_t i = 0; i < n; i++)
      ex.cl[i].started = pthread_create (&ex.cl[i].thread, NULL, ex_cluster_loop, &ex.cl[i]) == 0;
   fprintf (stderr, "shardsh: exporter listening on http://%s%s%s:%d/metrics for %zu cluster%s, every %.1fs\n",
            strchr (host, ':') ? "[" : "", host, strchr (host, ':') ? "]" : "", bound, n, n == 1 ? "" : "s",
            ex.interval_s);
   for (size_t i = 0; i < n; i++)
      fprintf (stderr, "shardsh: exporter: cluster=\"%s\"\n", clusters[i].name);
   fflush (stderr);
   sigwait (&set, &sig);
   pthread_mutex_lock (&ex.stop_lock);
   ex.stop = true;
   pthread_cond_broadcast (&ex.stop_cond);
   pthread_mutex_unlock (&ex.stop_lock);
   MHD_stop_daemon (d);
   ex_destroy (&ex);
   pthread_sigmask (SIG_SETMASK, &old, NULL);
   return 0;
}
