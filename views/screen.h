/* The dashboard's screen: the state every view reads (the current snapshot, focus, filter, sort, pause), the
 * layout of header, panels and function bar, and the single-threaded loop (tick, sample, draw, key, reaction)
 * after htop's ScreenManager. Data comes from a source the caller provides; the screen never talks to a
 * cluster itself. */
#ifndef SHARDSH_SCREEN_H
#define SHARDSH_SCREEN_H

#include <stdbool.h>
#include <stdint.h>

#include "views/panel.h"
#include "views/model/snapshot.h"

enum { DASH_SHARDS = 0, DASH_COLLS, DASH_EVENTS, DASH_NPANELS };

/* What an action asks the loop to do (a bitmask; the loop, not the action, does it). */
enum view_reaction {
   VIEW_OK = 0,
   VIEW_REDRAW = 1 << 0,   /* draw again */
   VIEW_RELAYOUT = 1 << 1, /* recompute rectangles */
   VIEW_CLEAR = 1 << 2,    /* full repaint (Ctrl-L) */
   VIEW_QUIT = 1 << 3,
   VIEW_FETCH_CHUNKS = 1 << 4, /* the drill-down needs its chunk list */
   VIEW_INTERVAL = 1 << 5,     /* the interval changed */
   VIEW_FULL = 1 << 6,         /* sample now, re-reading everything (not only what changed) */
};

#define DASH_MIN_COLS 60
#define DASH_MIN_LINES 16
#define DASH_FILTER_MAX 64

/* Where snapshots come from (views/model/collect.c through views/dashboard.c, or canned data in tests). */
typedef struct {
   void *ud;
   /* Replaces *snap with a fresh sample (true) or marks it stale with the error (false). */
   bool (*sample) (void *ud, snapshot_t *snap);
   /* Fetches the drill-down chunk list of ns. */
   bool (*chunks) (void *ud, const char *ns, snap_chunks_t *out);
   /* Reads the sizes of the chunks at indices rows[0..n) of *chunks (the rows on screen). May be NULL. */
   bool (*chunk_sizes) (void *ud, snap_chunks_t *chunks, const size_t *rows, size_t n);
   /* Sets the interval; returns the one in effect. */
   double (*set_interval) (void *ud, double interval_s);
   /* Makes the next sample a full re-read instead of an incremental one. May be NULL. */
   void (*request_full) (void *ud);
} dash_source_t;

typedef struct {
   snapshot_t snap;      /* the snapshot on screen (owned) */
   snap_chunks_t chunks; /* drill-down data (owned) */
   bool drill;           /* the chunk view is open */
   char drill_ns[SNAP_NAME];
   bool help;   /* the help overlay is open */
   bool paused; /* sampling stopped; the UI stays live */
   int64_t paused_at_ms;
   bool filtering;                    /* typing a filter */
   char filter[DASH_FILTER_MAX];      /* namespace or shard substring; "" = none */
   char main_filter[DASH_FILTER_MAX]; /* the panels' filter, put back when the chunk list closes */
   int sort[DASH_NPANELS];            /* sort column per panel */
   bool invert[DASH_NPANELS];
   int chunk_sort; /* the drill-down's sort column */
   bool chunk_invert;
   panel_t panels[DASH_NPANELS];
   panel_t chunk_panel;
   panel_t drain_panel; /* the drain strip (h 0 when hidden) */
   int focus;           /* DASH_SHARDS, DASH_COLLS or DASH_EVENTS */
   double interval_s;
   int64_t now_ms; /* wall clock of this frame (ages are shown against it) */
   int lines, cols;
   bool too_small;
   long frames; /* samples drawn so far */
} dash_t;

/* Initialises d (zeroes it, sets interval). */
void
dash_init (dash_t *d, double interval_s);

/* Frees what d owns. */
void
dash_free (dash_t *d);

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

/* Whether the filter admits this text (case-insensitive substring; an empty filter admits everything). */
bool
dash_filter_match (const dash_t *d, const char *text);

#endif
