/* The dashboard's screen: the layout of header, panels and function bar, and the single-threaded loop (tick,
 * sample, draw, key, reaction) after htop's ScreenManager. The only caller of the views (views.h). Data comes from a
 * source the caller provides; the screen never talks to a cluster itself. */
#ifndef SHARDSH_SCREEN_H
#define SHARDSH_SCREEN_H

#include <stdbool.h>

#include "views/dash.h"

/* Where snapshots come from (views/model/collect.c through views/dashboard.c, or canned data in tests). */
typedef struct {
   void *ud;
   /* Replaces *snap with a fresh sample (true) or marks it stale with the error (false). */
   bool (*sample) (void *ud, snap_t *snap);
   /* Fetches the drill-down chunk list of ns. */
   bool (*chunks) (void *ud, const char *ns, snap_chunks_t *out);
   /* Reads the sizes of the chunks at indices rows[0..n) of *chunks (the rows on screen). May be NULL. */
   bool (*chunk_sizes) (void *ud, snap_chunks_t *chunks, const size_t *rows, size_t n);
   /* Sets the interval; returns the one in effect. */
   double (*set_interval) (void *ud, double interval_s);
   /* Makes the next sample a full re-read instead of an incremental one. May be NULL. */
   void (*request_full) (void *ud);
   /* Reads the chunk map of ns into *out (destroying what it held), or writes why not into error. May be NULL. */
   bool (*chunkmap) (void *ud, const char *ns, chunkmap_data_t *out, char *error, size_t len);
   /* Reads the details of event e into *out (destroying what it held). May be NULL. */
   bool (*event_detail) (void *ud, const snap_event_t *e, snap_event_detail_t *out);
} dash_source_t;

/* Recomputes every rectangle from lines x cols and the snapshot's row counts: each panel is sized to its content
 * (title, headings, rows, totals row) as far as the rows allow, the events panel takes what is left, and the drain
 * strip shows while a shard drains when the shards still fit beside it. */
void
screen_layout (dash_t *d, int lines, int cols);

/* Draws one whole frame into curses' virtual screen (no refresh). */
void
screen_draw (dash_t *d);

/* Runs the interactive loop on the terminal until quit (or max_frames samples when > 0). Returns 0, or 1 when the
 * terminal could not be used. */
int
screen_run (dash_t *d, const dash_source_t *src, bool color, long max_frames);

#endif
