/* The screen: layout (header, shards, collections, events, function bar; or the chunk list when drilling down),
 * whole-frame drawing into curses' virtual screen with one doupdate per frame (no clear() except Ctrl-L, so no
 * flicker), and the one loop: tick, sample unless paused, draw, read a key, act on the reaction. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "views/actions.h"
#include "shell/lib/clock.h"
#include "views/crt.h"
#include "views/screen.h"
#include "views/views.h"

/* Grows *h towards need by at most *left rows. */
static void
grow (int *h, int need, int *left)
{
   int g = need - *h;
   if (g > *left)
      g = *left;
   if (g > 0) {
      *h += g;
      *left -= g;
   }
}

/* The rows a panel shows under the filter (at least 1). */
static size_t
filtered_rows (const dash_t *d, int panel)
{
   const snap_t *s = &d->snap;
   size_t n = panel == DASH_SHARDS ? s->nshards : panel == DASH_COLLS ? s->ncolls : s->nevents, k;
   size_t *tmp;
   if (!d->filter[0] || !n)
      return n ? n : 1;
   tmp = malloc (n * sizeof *tmp);
   if (!tmp)
      abort ();
   k = panel == DASH_SHARDS  ? view_shards_order (d, tmp)
       : panel == DASH_COLLS ? view_colls_order (d, tmp)
                             : view_events_order (d, tmp);
   free (tmp);
   return k ? k : 1;
}

void
screen_layout (dash_t *d, int lines, int cols)
{
   const snap_t *s = &d->snap;
   int body, left, y = 2, ndrain = 0;
   int shards_need, colls_need, events_need, shards_h, colls_h, events_h, drain_h, ops_h;
   d->lines = lines;
   d->cols = cols;
   d->too_small = lines < DASH_MIN_LINES || cols < DASH_MIN_COLS;
   body = lines - 3; /* two header lines, one function bar */
   for (size_t i = 0; i < s->nshards; i++)
      ndrain += s->shards[i].draining;
   /* content: title, headings, rows (those the filter keeps), and the totals row */
   shards_need = 3 + (int) (s->nshards ? filtered_rows (d, DASH_SHARDS) : 3);
   colls_need = 3 + (int) (s->ncolls ? filtered_rows (d, DASH_COLLS) : 1);
   events_need = 2 + (int) (s->nevents ? filtered_rows (d, DASH_EVENTS) : 1);
   drain_h = ndrain ? 1 + (ndrain < 4 ? ndrain : 4) : 0;
   /* the strip only when every shard row still fits beside the other panels' least */
   if (drain_h && body - drain_h < (shards_need - 1) + 4 + 3)
      drain_h = 0;
   /* the operations likewise, after the drain strip */
   ops_h = s->nops ? 1 + (s->nops < 4 ? (int) s->nops : 4) : 0;
   if (ops_h && body - drain_h - ops_h < (shards_need - 1) + 4 + 3)
      ops_h = 0;
   left = body - drain_h - ops_h;
   /* at least a row each (the totals row comes only with room), then the shards, the collections and the events
    * as far as their content goes; the events take whatever is left */
   shards_h = 3;
   colls_h = 3;
   events_h = 3;
   left -= shards_h + colls_h + events_h;
   if (left < 0)
      left = 0;
   grow (&shards_h, shards_need - 1, &left);
   grow (&colls_h, colls_need - 1, &left);
   grow (&shards_h, shards_need, &left);
   grow (&colls_h, colls_need, &left);
   grow (&events_h, events_need, &left);
   events_h += left;
   d->panels[DASH_SHARDS].footer = shards_h >= shards_need;
   d->panels[DASH_COLLS].footer = colls_h >= colls_need;
   panel_set_rect (&d->panels[DASH_SHARDS], 0, y, cols, shards_h);
   y += shards_h;
   panel_set_rect (&d->drain_panel, 0, y, cols, drain_h);
   y += drain_h;
   panel_set_rect (&d->ops_panel, 0, y, cols, ops_h);
   y += ops_h;
   panel_set_rect (&d->panels[DASH_COLLS], 0, y, cols, colls_h);
   y += colls_h;
   panel_set_rect (&d->panels[DASH_EVENTS], 0, y, cols, events_h);
   panel_set_rect (&d->chunk_panel, 0, 2, cols, body);
}

void
screen_draw (dash_t *d)
{
   d->now_ms = clock_wall_ms ();
   erase ();
   if (d->too_small) {
      char msg[96];
      snprintf (msg, sizeof msg, "terminal too small: %dx%d, the dashboard needs %dx%d", d->cols, d->lines,
                DASH_MIN_COLS, DASH_MIN_LINES);
      mvaddnstr (d->lines / 2, 0, msg, d->cols);
      mvaddnstr (d->lines / 2 + 1, 0, "(q quits)", d->cols);
      return;
   }
   for (int i = 0; i < DASH_NPANELS; i++)
      d->panels[i].focused = !d->drill && i == d->focus;
   view_header_draw (d);
   if (d->drill && d->map) {
      view_chunkmap_draw (d, &d->chunk_panel);
   } else if (d->drill) {
      d->chunk_panel.focused = true;
      view_chunks_draw (d, &d->chunk_panel);
   } else {
      view_shards_draw (d, &d->panels[DASH_SHARDS]);
      view_drain_draw (d, &d->drain_panel);
      view_ops_draw (d, &d->ops_panel);
      view_colls_draw (d, &d->panels[DASH_COLLS]);
      view_events_draw (d, &d->panels[DASH_EVENTS]);
   }
   actions_draw_bar (d, d->lines - 1);
   if (d->detail)
      view_event_detail_draw (d);
   if (d->help)
      actions_draw_help (d);
}

/* The drill-down's chunk list, then the sizes of the chunk rows on screen (a bounded read, see collect.h). */
static void
fetch_chunks (dash_t *d, const dash_source_t *src)
{
   size_t rows[256], n;
   src->chunks (src->ud, d->drill_ns, &d->chunks);
   if (!src->chunk_sizes)
      return;
   panel_update (&d->chunk_panel, (int) (d->chunks.nzones + d->chunks.nchunks), -1);
   n = view_chunks_visible (d, rows, sizeof rows / sizeof rows[0]);
   src->chunk_sizes (src->ud, &d->chunks, rows, n);
}

/* What the layout depends on: the numbers of shards, collections, events, draining shards and operations. */
static long
layout_shape (const snap_t *s)
{
   long nd = 0;
   for (size_t i = 0; i < s->nshards; i++)
      nd += s->shards[i].draining;
   return ((((long) s->nshards * 4096 + (long) s->ncolls) * 64 + (long) s->nevents) * 16 + nd) * 16 +
          (long) (s->nops < 15 ? s->nops : 15);
}

int
screen_run (dash_t *d, const dash_source_t *src, bool color, long max_frames)
{
   int64_t next_sample = 0, last_draw = 0;
   int react = VIEW_RELAYOUT | VIEW_REDRAW;
   long last_shape = -1;

   if (!crt_init (color))
      return 1;
   for (;;) {
      int64_t now = clock_mono_ms ();
      int wait, key;

      if (crt_quit_signal)
         break;
      if (!d->paused && now >= next_sample) {
         if (!d->frames) {
            /* the first full read may take seconds on a large cluster: say so while it runs */
            d->loading = true;
            screen_layout (d, LINES, COLS);
            screen_draw (d);
            wnoutrefresh (stdscr);
            doupdate ();
         }
         src->sample (src->ud, &d->snap);
         d->loading = false;
         if (d->drill && !d->map) /* the map is read when opened and on r, not every sample */
            fetch_chunks (d, src);
         d->frames++;
         next_sample = clock_mono_ms () + (int64_t) (d->interval_s * 1000.0);
         react |= VIEW_REDRAW;
         if (layout_shape (&d->snap) != last_shape) {
            last_shape = layout_shape (&d->snap);
            react |= VIEW_RELAYOUT;
         }
      }
      if (d->paused && !d->snap.stale && d->paused_at_ms == 0)
         d->paused_at_ms = clock_wall_ms ();
      if (!d->paused)
         d->paused_at_ms = 0;
      /* ages on screen tick once a second */
      if (now - last_draw >= 1000)
         react |= VIEW_REDRAW;
      if (react & VIEW_RELAYOUT)
         screen_layout (d, LINES, COLS);
      if (react & VIEW_CLEAR)
         clearok (stdscr, TRUE);
      if (react & (VIEW_REDRAW | VIEW_RELAYOUT | VIEW_CLEAR)) {
         screen_draw (d);
         wnoutrefresh (stdscr);
         doupdate ();
         last_draw = now;
      }
      react = VIEW_OK;
      if (max_frames > 0 && d->frames >= max_frames)
         break;
      wait = d->paused ? 250 : (int) (next_sample - clock_mono_ms ());
      if (wait > 250)
         wait = 250;
      if (wait < 0)
         wait = 0;
      timeout (wait);
      key = getch ();
      if (key == ERR)
         continue;
      if (key == KEY_RESIZE) {
         react |= VIEW_RELAYOUT | VIEW_REDRAW;
         continue;
      }
      react |= actions_dispatch (d, key);
      if (react & VIEW_QUIT)
         break;
      if (react & VIEW_INTERVAL) {
         d->interval_s = src->set_interval (src->ud, d->interval_s);
         next_sample = clock_mono_ms () + (int64_t) (d->interval_s * 1000.0);
      }
      if (react & VIEW_FULL) {
         if (src->request_full)
            src->request_full (src->ud);
         next_sample = clock_mono_ms ();
      }
      if (react & VIEW_FETCH_CHUNKS) {
         fetch_chunks (d, src);
         react |= VIEW_REDRAW;
      }
      if (react & VIEW_FETCH_DETAIL) {
         snap_event_detail_destroy (&d->ev_detail);
         if (!src->event_detail)
            bson_strncpy (d->ev_detail.read_error, "this source has no event details", sizeof d->ev_detail.read_error);
         else
            src->event_detail (src->ud, &d->detail_event, &d->ev_detail);
         dash_detail_changed (d);
         react |= VIEW_REDRAW;
      }
      if (react & VIEW_FETCH_MAP) {
         d->map_error[0] = '\0';
         if (!src->chunkmap)
            bson_strncpy (d->map_error, "this source has no chunk map", sizeof d->map_error);
         else
            src->chunkmap (src->ud, d->drill_ns, &d->cmap, d->map_error, sizeof d->map_error);
         react |= VIEW_REDRAW;
      }
   }
   crt_destroy ();
   return 0;
}
