/* The dashboard's views: each draws one part of the screen from the snapshot in dash_t, and knows how to order
 * and filter its own rows. One view per file. Views read dash.h and never call the screen (screen.c calls them). */
#ifndef SHARDSH_VIEWS_H
#define SHARDSH_VIEWS_H

#include <stdio.h>

#include "views/dash.h"

/* header_view.c: the two header lines (cluster, balancer, sample clock, PAUSED/STALE). */
void
view_header_draw (const dash_t *d);

/* shards_view.c: the shards panel in p (one row per shard that passes the filter, in d's sort), the selection kept
 * in view. */
void
view_shards_draw (dash_t *d, panel_t *p);

/* The indices (in d->snap.shards) of the shard rows in screen order, filtered and sorted, into out (room for every
 * shard); returns their number. The same pattern for every _order below. */
size_t
view_shards_order (const dash_t *d, size_t *out);

/* collections_view.c: the collections panel in p (a row per sharded collection, with its balance verdict). */
void
view_colls_draw (dash_t *d, panel_t *p);

/* The indices (in d->snap.colls) of the collection rows in screen order; returns their number. */
size_t
view_colls_order (const dash_t *d, size_t *out);

/* events_view.c: the recent events panel in p (splits, migrations, balancer rounds; failures marked). */
void
view_events_draw (dash_t *d, panel_t *p);

/* The indices (in d->snap.events) of the event rows in screen order; returns their number. */
size_t
view_events_order (const dash_t *d, size_t *out);

/* drain_view.c: the draining shards' progress, in the rectangle p (title row, one row per draining shard). */
void
view_drain_draw (const dash_t *d, const panel_t *p);

/* ops_view.c: the long operations (sh.progress), in the rectangle p (title row, one row per operation). */
void
view_ops_draw (const dash_t *d, const panel_t *p);

/* chunks_view.c: the drill-down (chunks and zones of one collection). Rows are numbered zones first, then chunks
 * (nzones + chunk index). */
void
view_chunks_draw (dash_t *d, panel_t *p);

/* The chunk list's columns (KIND, MIN, MAX, SHARD, DOCS, SIZE, JUMBO, ZONE, MARK) as view_chunks_draw starts from
 * before it fits them to the panel (panel_fit_columns): copied into cols. */
#define VIEW_CHUNK_NCOLS 9
void
view_chunks_columns (panel_col_t cols[VIEW_CHUNK_NCOLS]);

/* The row numbers (zones first, then chunks) of the drill-down in screen order; returns their number. */
size_t
view_chunks_order (const dash_t *d, size_t *out);

/* The indices (in d->chunks.chunks) of at most max chunk rows on screen, in screen order. */
size_t
view_chunks_visible (const dash_t *d, size_t *out, size_t max);

/* chunkmap_view.c: the chunk map of the drilled-down collection (m): the key space as a strip of cells by owning
 * shard, zones beneath, a legend, and the replay's position ([ back, ] forward). */
void
view_chunkmap_draw (const dash_t *d, const panel_t *p);

/* event_detail_view.c: the selected event's details over the panels (Enter on the events panel): the event, a
 * failure's text, the chunk holding its range now and its owner, then the whole log entry, from line
 * d->detail_scroll. */
void
view_event_detail_draw (dash_t *d);

/* The number of lines the details overlay has at the terminal's width (for scrolling); the wrapped lines are kept in
 * d->detail_wrap for the draws that follow. */
int
view_event_detail_lines (dash_t *d);

/* The selected row's event of the events panel, or NULL. */
const snap_event_t *
view_events_selected (const dash_t *d);

/* The namespace of the selected collection row, or NULL. */
const char *
view_colls_selected (const dash_t *d);

/* render_text.c: batch output from the same snapshot. render_text writes the panels as plain text lines. */
void
render_text (FILE *out, const snap_t *snap);

/* Writes snap as one JSON document on one line (--once --json): cluster, balancer, shards, collections, totals,
 * events. */
void
render_json (FILE *out, const snap_t *snap);

#endif
