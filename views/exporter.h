/* The exporter: `shardsh --exporter ADDRESS URI…` serves the dashboard's figures of one or more clusters at
 * http://ADDRESS/metrics, in the Prometheus text format or OpenMetrics (by the request's Accept header). One collector
 * thread per cluster refreshes on its own interval; a scrape renders the latest snapshots under their locks and never
 * reads the cluster (docs/exporter.md). */
#ifndef SHARDSH_EXPORTER_H
#define SHARDSH_EXPORTER_H

#include <stdbool.h>
#include <stddef.h>

#include "views/model/expsrc.h"

/* One cluster to watch: its label and its connection (built by the program from the command line). */
typedef struct {
   const char *name; /* the cluster label */
   const char *uri;  /* connection string (may hold a password: never printed as is) */
   const char *db;   /* database the connection starts in */
} exporter_cluster_t;

/* Serves clusters[0..n) at opts->exporter (HOST:PORT, [V6]:PORT, :PORT or PORT; loopback when no host) until SIGINT
 * or SIGTERM, refreshing every opts->interval seconds (the dashboard's default when 0). opts (borrowed) gives the
 * sessions their credentials and TLS; the caller sets opts->readonly. Returns the process exit status: 0 after a
 * signal, 2 for an address it cannot use (said on stderr). Never calls exit(). */
int
exporter_run (const sh_options_t *opts, const exporter_cluster_t *clusters, size_t n);

/* Splits ADDRESS into host (len bytes; "127.0.0.1" when none) and *port. False for a malformed address or a port
 * outside 0..65535. */
bool
exporter_parse_address (const char *addr, char *host, size_t len, int *port);

/* A cluster argument "NAME=URI" or "URI": copies NAME (letters, digits, '_', '-', '.') into name (len bytes; "" when
 * there is none) and returns where the connection string starts (inside arg). */
const char *
exporter_cluster_arg (const char *arg, char *name, size_t len);

/* The default cluster label for a connection string: its host list without credentials ("h1:27017,h2:27017"). */
void
exporter_default_name (const char *uri, char *name, size_t len);

/* Whether an Accept header asks for OpenMetrics (application/openmetrics-text, not refused with q=0). */
bool
exporter_wants_openmetrics (const char *accept);

#endif
