/* The exporter's metrics renderer: the dashboard's snapshots of one or more clusters as one scrape in the Prometheus
 * text format (0.0.4) or OpenMetrics 1.0, every series labelled with its cluster. Pure: no I/O, no clock, no lock
 * (the caller passes the time of day and holds whatever protects the snapshots). Names and labels are the stable
 * interface documented in docs/exporter.md; no label takes an unbounded value (no chunk bounds, no error texts). */
#ifndef SHARDSH_METRICS_H
#define SHARDSH_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "views/model/expsrc.h"
#include "views/model/snapshot.h"

/* One cluster as a scrape sees it. Everything is borrowed for the call. */
typedef struct {
   const char *name;       /* the cluster label */
   const snap_t *snap;     /* the latest snapshot; NULL (or sampled_at_ms 0) before the first good refresh */
   bool up;                /* the last refresh succeeded */
   int64_t refreshes;      /* refreshes tried by this process */
   int64_t refresh_errors; /* ... of which failed */
   expsrc_totals_t totals; /* server-side totals (config.changelog, config.actionlog); -1 when not read yet */
   double router_cpu_s;    /* the router's CPU over the last good refresh (serverStatus extra_info); < 0: unknown */
} metrics_cluster_t;

typedef struct {
   bool openmetrics;     /* OpenMetrics 1.0 (counter families named without _total, "# EOF"), else Prometheus text */
   size_t max_pairs;     /* most (collection, shard) pairs exported per cluster, whole collections only; 0: none */
   int now_min;          /* the exporter's local time as minutes since midnight, for the balancer window; -1: unknown */
   double last_scrape_s; /* how long the previous scrape took to answer; < 0: none yet */
} metrics_opts_t;

/* A growable text buffer: data is NUL-terminated, owned, freed with metrics_buf_destroy. */
typedef struct {
   char *data;
   size_t len;
   size_t cap;
} metrics_buf_t;

void
metrics_buf_destroy (metrics_buf_t *b);

/* Appends the scrape of clusters[0..n) to out (initialised zeroed by the caller): every metric family once, with HELP
 * and TYPE, its series for every cluster under it. */
void
metrics_render (const metrics_cluster_t *clusters, size_t n, const metrics_opts_t *o, metrics_buf_t *out);

/* The fixed reason a collection is imbalanced, from the judgement's text ("chunk difference 5 >= 4", "data
 * difference …", "draining shard03 holds 2 chunks", "… outside their zone"): "chunk_difference",
 * "data_difference", "draining_shard", "outside_zone", "other" (any other text) or "none" (empty). Static storage. */
const char *
metrics_balance_reason (const char *why);

/* The fixed code of an sh.progress() caveat (its first clause): "none" when empty, else one of the codes listed in
 * docs/exporter.md, "other" for a text it does not know. Static storage. */
const char *
metrics_caveat_code (const char *caveat);

#endif
