/* One cluster the exporter watches: its own session (connection string, client) and the dashboard's collector on it,
 * plus the server-side totals the exporter's counters come from (config.changelog, config.actionlog), so that they
 * never go backwards across a restart of shardsh. Each source is used by one thread at a time. */
#ifndef SHARDSH_EXPSRC_H
#define SHARDSH_EXPSRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shell/core/options.h"
#include "views/model/snapshot.h"

typedef struct expsrc expsrc_t;

/* Migration and round totals as counted on the server, so that the exporter's counters never go backwards across a
 * restart of shardsh (also what the metrics renderer is handed: metrics.h); -1 where not read. */
typedef struct {
   int64_t moves_ok;      /* config.changelog moveChunk.from, note "success" and no errmsg (sh.migrationHistory's) */
   int64_t moves_failed;  /* moveChunk.from with another note or an errmsg */
   int64_t rounds_failed; /* config.actionlog balancer.round with errorOccured or errorOccurred true */
} expsrc_totals_t;

/* A source on uri (database db), with the session options opts (borrowed: must outlive the source; read-only is the
 * caller's to set) and the refresh interval. Copies uri and db; connects on the first sample. Returns an owned source
 * (expsrc_free). */
expsrc_t *
expsrc_new (const char *uri, const char *db, const sh_options_t *opts, double interval_s);

/* Frees src and its session (NULL is ignored). */
void
expsrc_free (expsrc_t *src);

/* One refresh of the collector (collect_sample's contract: *snap replaced on success, kept and marked stale on
 * failure), between two serverStatus commands whose extra_info user and system times (Linux servers) give the
 * router's CPU over the refresh: *router_cpu_s, or -1 when the router does not report them or one failed. */
bool
expsrc_sample (expsrc_t *src, snap_t *snap, double *router_cpu_s);

/* Counts the totals on the server (three count commands). On failure returns false, leaves *t as it was and writes
 * the reason, with any password in it masked, into error (len bytes). */
bool
expsrc_totals (expsrc_t *src, expsrc_totals_t *t, char *error, size_t len);

#endif
