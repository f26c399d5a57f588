/* The dashboard's state, the one thing every view and action reads: the snapshot on screen, focus, filter, sort,
 * pause, the drill-down, and the panels' rectangles; with the few helpers views share (the filter, the sort names).
 * Views and actions include this header, never screen.h: screen.c alone calls the views. */
#ifndef SHARDSH_DASH_H
#define SHARDSH_DASH_H

#include <stdbool.h>
#include <stdint.h>

#include "views/panel.h"
#include "views/model/chunkmap.h"
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
   VIEW_FETCH_MAP = 1 << 7,    /* the chunk map needs (re)reading */
   VIEW_FETCH_DETAIL = 1 << 8, /* the selected event's details need reading (d->detail_event) */
};

#define DASH_MIN_COLS 60
#define DASH_MIN_LINES 16
#define DASH_FILTER_MAX 64

/* Text lines as an overlay shows them (owned strings), with the width and generation they were made for. */
typedef struct {
   char **v;
   size_t n, cap;
   int width;
   unsigned gen;
} dash_lines_t;

typedef struct {
   snap_t snap;          /* the snapshot on screen (owned) */
   snap_chunks_t chunks; /* drill-down data (owned) */
   bool drill;           /* the chunk view is open */
   char drill_ns[SNAP_NAME];
   bool map;                      /* the drill-down shows the chunk map instead of the list (m) */
   chunkmap_data_t cmap;          /* the chunk map's data (owned); its replay position is the map's */
   char map_error[256];           /* why the map could not be read, "" when it was */
   int key;                       /* the key being dispatched (an action bound to two keys tells them apart by it) */
   bool help;                     /* the help overlay is open */
   int help_scroll;               /* its first line shown (it scrolls when the terminal is shorter than the help) */
   bool detail;                   /* the event details overlay is open (Enter on the events panel) */
   int detail_scroll;             /* its first line shown */
   snap_event_t detail_event;     /* the event it shows (a copy: the snapshot moves on) */
   snap_event_detail_t ev_detail; /* what the collector read about it (owned) */
   unsigned detail_gen;           /* bumped (dash_detail_changed) whenever detail_event or ev_detail changes */
   /* the overlay's text wrapped to width cells (owned): event_detail_view.c wraps it again only when the width or
    * detail_gen changed, not on every draw and key */
   dash_lines_t detail_wrap;
   bool paused;  /* sampling stopped; the UI stays live */
   bool loading; /* the first sample (a full read of the cluster) is being taken */
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
   panel_t ops_panel;   /* the Operations strip (h 0 when hidden) */
   int focus;           /* DASH_SHARDS, DASH_COLLS or DASH_EVENTS */
   double interval_s;
   int64_t now_ms; /* wall clock of this frame (ages are shown against it) */
   int lines, cols;
   bool too_small;
   long frames; /* samples drawn so far */
} dash_t;

/* Initialises d (zeroes it, sets interval); dash_destroy frees what it comes to own. */
void
dash_init (dash_t *d, double interval_s);

/* Frees what d owns (its contents; d itself is the caller's). */
void
dash_destroy (dash_t *d);

/* Says that d->detail_event or d->ev_detail changed, so the details overlay's lines are made again. */
void
dash_detail_changed (dash_t *d);

/* Frees the lines of l and empties it (width and generation forgotten). */
void
dash_lines_clear (dash_lines_t *l);

/* Whether the filter admits this text (case-insensitive substring; an empty filter admits everything). */
bool
dash_filter_match (const dash_t *d, const char *text);

/* The number of sort choices of a panel (DASH_NPANELS: the drill-down's chunk list). */
int
dash_sort_count (int panel);

/* The name of sort choice sort of a panel (shown as "sort: NAME"), "?" when out of range. Static storage. */
const char *
dash_sort_name (int panel, int sort);

#endif
