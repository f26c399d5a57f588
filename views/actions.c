/* The key table and what each key does. Actions change only the dashboard's state and say what the loop should
 * do next (redraw, relayout, fetch chunks, change the interval, quit); none of them touches the cluster. */
#include <ctype.h>
#include <curses.h>
#include <string.h>

#include "views/actions.h"
#include "views/crt.h"
#include "views/views.h"

#define KEY_ESC 27
#define KEY_CTRL_L 12
#define KEY_TAB 9

static panel_t *
focused (dash_t *d)
{
   return d->drill ? &d->chunk_panel : &d->panels[d->focus];
}

static int
act_up (dash_t *d)
{
   panel_move (focused (d), -1);
   return VIEW_REDRAW;
}

static int
act_down (dash_t *d)
{
   panel_move (focused (d), 1);
   return VIEW_REDRAW;
}

static int
act_page_up (dash_t *d)
{
   panel_t *p = focused (d);
   panel_move (p, -(panel_body_h (p) > 1 ? panel_body_h (p) - 1 : 1));
   return VIEW_REDRAW;
}

static int
act_page_down (dash_t *d)
{
   panel_t *p = focused (d);
   panel_move (p, panel_body_h (p) > 1 ? panel_body_h (p) - 1 : 1);
   return VIEW_REDRAW;
}

static int
act_home (dash_t *d)
{
   panel_move (focused (d), -focused (d)->nrows);
   return VIEW_REDRAW;
}

static int
act_end (dash_t *d)
{
   panel_move (focused (d), focused (d)->nrows);
   return VIEW_REDRAW;
}

static int
act_next_panel (dash_t *d)
{
   if (d->drill)
      return VIEW_OK;
   d->focus = (d->focus + 1) % DASH_NPANELS;
   return VIEW_REDRAW;
}

static int
act_prev_panel (dash_t *d)
{
   if (d->drill)
      return VIEW_OK;
   d->focus = (d->focus + DASH_NPANELS - 1) % DASH_NPANELS;
   return VIEW_REDRAW;
}

static int
act_filter (dash_t *d)
{
   d->filtering = true;
   return VIEW_REDRAW;
}

static int
act_sort (dash_t *d)
{
   if (d->drill)
      d->chunk_sort = (d->chunk_sort + 1) % dash_sort_count (DASH_NPANELS);
   else
      d->sort[d->focus] = (d->sort[d->focus] + 1) % dash_sort_count (d->focus);
   return VIEW_REDRAW;
}

static int
act_invert (dash_t *d)
{
   if (d->drill)
      d->chunk_invert = !d->chunk_invert;
   else
      d->invert[d->focus] = !d->invert[d->focus];
   return VIEW_REDRAW;
}

static int
act_pause (dash_t *d)
{
   d->paused = !d->paused;
   return VIEW_REDRAW;
}

static int
act_slower (dash_t *d)
{
   d->interval_s = d->interval_s < 1.0  ? d->interval_s + 0.25
                   : d->interval_s < 10 ? d->interval_s + 1
                                        : d->interval_s * 1.5;
   return VIEW_INTERVAL | VIEW_REDRAW;
}

static int
act_faster (dash_t *d)
{
   d->interval_s = d->interval_s > 10    ? d->interval_s / 1.5
                   : d->interval_s > 1.0 ? d->interval_s - 1
                                         : d->interval_s - 0.25;
   return VIEW_INTERVAL | VIEW_REDRAW;
}

static int
act_full_refresh (dash_t *d)
{
   if (d->drill && d->map) /* the map re-reads itself (and its replay starts again from now) */
      return VIEW_FETCH_MAP | VIEW_REDRAW;
   return VIEW_FULL | VIEW_REDRAW;
}

static int
act_redraw (dash_t *d)
{
   (void) d;
   return VIEW_CLEAR | VIEW_RELAYOUT | VIEW_REDRAW;
}

static int
act_enter (dash_t *d)
{
   const char *ns;
   if (!d->drill && d->focus == DASH_EVENTS) { /* the selected event's details */
      const snap_event_t *e = view_events_selected (d);
      if (!e)
         return VIEW_OK;
      d->detail_event = *e;
      dash_detail_changed (d);
      d->detail = true;
      d->detail_scroll = 0;
      return VIEW_FETCH_DETAIL | VIEW_REDRAW;
   }
   if (d->drill || d->focus != DASH_COLLS)
      return VIEW_OK;
   ns = view_colls_selected (d);
   if (!ns)
      return VIEW_OK;
   snprintf (d->drill_ns, sizeof d->drill_ns, "%s", ns);
   /* the chunk list has its own filter (shard, zone, bounds); the panels' one comes back on Esc */
   snprintf (d->main_filter, sizeof d->main_filter, "%s", d->filter);
   d->filter[0] = '\0';
   d->drill = true;
   d->map = false;
   d->chunk_panel.selected = 0;
   d->chunk_panel.scroll = 0;
   d->chunk_panel.focused = true;
   return VIEW_FETCH_CHUNKS | VIEW_REDRAW;
}

static int
act_back (dash_t *d)
{
   if (d->help)
      d->help = false;
   else if (d->drill && d->map)
      d->map = false;
   else if (d->drill) {
      d->drill = false;
      snprintf (d->filter, sizeof d->filter, "%s", d->main_filter);
   } else
      d->filter[0] = '\0';
   return VIEW_RELAYOUT | VIEW_REDRAW;
}

/* m: the chunk map of the drilled-down collection, or the chunk list again. */
static int
act_map (dash_t *d)
{
   if (!d->drill)
      return VIEW_OK;
   d->map = !d->map;
   return d->map ? VIEW_FETCH_MAP | VIEW_REDRAW : VIEW_REDRAW;
}

/* [ and ]: the chunk map's replay, one event back (older) or forward (newer). */
static int
act_replay (dash_t *d)
{
   if (d->drill && d->map && d->cmap.map)
      chunkmap_step (d->cmap.map, d->key == '[' ? -1 : 1);
   return VIEW_REDRAW;
}

static int
act_help (dash_t *d)
{
   d->help = !d->help;
   d->help_scroll = 0;
   return VIEW_REDRAW;
}

static int
act_quit (dash_t *d)
{
   (void) d;
   return VIEW_QUIT;
}

const action_t actions_table[] = {
   { { '?', KEY_F (1) }, "? F1", "Help", "show or hide this help", act_help },
   { { KEY_UP, 'k' }, "Up k", NULL, "select the row above", act_up },
   { { KEY_DOWN, 'j' }, "Down j", NULL, "select the row below", act_down },
   { { KEY_PPAGE }, "PgUp", NULL, "one page up", act_page_up },
   { { KEY_NPAGE }, "PgDn", NULL, "one page down", act_page_down },
   { { KEY_HOME, 'g' }, "Home g", NULL, "first row", act_home },
   { { KEY_END, 'G' }, "End G", NULL, "last row", act_end },
   { { KEY_TAB, KEY_RIGHT, 'l' },
     "Tab Right l",
     "Panel",
     "focus the next panel (shards, collections, events)",
     act_next_panel },
   { { KEY_BTAB, KEY_LEFT, 'h' }, "S-Tab Left h", NULL, "focus the previous panel", act_prev_panel },
   { { '\n', '\r', KEY_ENTER },
     "Enter",
     "Chunks",
     "list the selected collection's chunks and zones; on the events panel, the event's details (its whole log "
     "entry, the chunk's owner now, the failure)",
     act_enter },
   { { KEY_ESC }, "Esc", NULL, "go back: close help or the chunk list, else clear the filter", act_back },
   { { 'm' },
     "m",
     "Map",
     "in the chunk list: the chunk map (key space by shard, zones, replay) or the list again",
     act_map },
   { { '[', ']' },
     "[ ]",
     NULL,
     "in the chunk map: one migration, split or merge back in time, or forward",
     act_replay },
   { { '/' },
     "/",
     "Filter",
     "filter by namespace or shard, in the chunk list by shard, zone or bound (Enter keeps it, Esc clears it)",
     act_filter },
   { { 's' }, "s", "Sort", "sort the focused panel or the chunk list by its next column", act_sort },
   { { 'I' }, "I", NULL, "invert the sort order", act_invert },
   { { ' ' }, "Space", "Pause", "pause or resume sampling (scrolling still works)", act_pause },
   { { '+', '=' }, "+", NULL, "refresh less often (longer interval)", act_slower },
   { { '-' }, "-", NULL, "refresh more often (shorter interval)", act_faster },
   { { 'r' },
     "r",
     NULL,
     "refresh now, re-reading all chunk counts and sizes (a refresh otherwise reads only what changed); in the chunk "
     "map, "
     "the map",
     act_full_refresh },
   { { KEY_CTRL_L }, "Ctrl-L", NULL, "redraw the whole screen", act_redraw },
   { { 'q', KEY_F (10) }, "q F10", "Quit", "quit", act_quit },
};
const size_t actions_count = sizeof actions_table / sizeof actions_table[0];

const action_panel_t actions_panels[] = {
   { "Header", "router, version, balancer mode and rounds, migrations in flight, sample clock, PAUSED/STALE" },
   { "Shards", "state, zones, chunks, data, documents, write/read rates, write sparkline (one scale), trend, HOT" },
   { "Draining", "per draining shard: chunks, data and databases left, rate over the last minutes, time left" },
   { "Collections", "key, chunks per shard, data, balance verdict and why, jumbo, outside zone, writes, hot range" },
   { "Events", "migrations (from -> to), splits, balancer rounds; failures kept on screen; Enter: an event's details" },
   { "Chunks (Enter)", "zone ranges, then chunks: range, shard, documents, size, jumbo, zone, HOT and -> moving" },
   { "Chunk map (m)", "the key space as cells by owning shard, zones beneath, marks, and a replay of recent events" },
};
const size_t actions_panel_count = sizeof actions_panels / sizeof actions_panels[0];

/* The filter editor: printable keys append, Backspace deletes, Enter keeps, Esc clears. */
static int
filter_key (dash_t *d, int key)
{
   size_t len = strlen (d->filter);
   if (key == KEY_ESC) {
      d->filter[0] = '\0';
      d->filtering = false;
   } else if (key == '\n' || key == '\r' || key == KEY_ENTER) {
      d->filtering = false;
   } else if (key == KEY_BACKSPACE || key == 127 || key == 8) {
      if (len)
         d->filter[len - 1] = '\0';
   } else if (key >= 32 && key < 127 && len + 1 < sizeof d->filter) {
      d->filter[len] = (char) key;
      d->filter[len + 1] = '\0';
   } else {
      return VIEW_OK;
   }
   for (int i = 0; i < DASH_NPANELS; i++)
      d->panels[i].scroll = 0;
   return VIEW_RELAYOUT | VIEW_REDRAW; /* the panels are sized to the rows the filter keeps */
}

/* A key while the event details are open: the scrolling keys move them, q quits, any other key closes them. */
static int
detail_key (dash_t *d, int key)
{
   int total = view_event_detail_lines (d), rows = d->lines - 4 > 1 ? d->lines - 4 : 1;
   int max = total - rows > 0 ? total - rows : 0;
   int delta = panel_scroll_delta (key, rows, total);
   if (!delta) {
      d->detail = false;
      return key == 'q' ? VIEW_QUIT : VIEW_REDRAW;
   }
   panel_scroll_by (&d->detail_scroll, delta, max);
   return VIEW_REDRAW;
}

int
actions_dispatch (dash_t *d, int key)
{
   if (d->filtering)
      return filter_key (d, key);
   if (d->help && key != KEY_RESIZE)
      return actions_help_key (d, key);
   if (d->detail && key != KEY_RESIZE)
      return detail_key (d, key);
   d->key = key;
   for (size_t i = 0; i < actions_count; i++)
      for (int k = 0; k < ACTION_MAX_KEYS && actions_table[i].keys[k]; k++)
         if (actions_table[i].keys[k] == key)
            return actions_table[i].fn (d);
   return VIEW_OK;
}

void
actions_draw_bar (const dash_t *d, int y)
{
   int x = 0;
   mvhline (y, 0, ' ', d->cols);
   move (y, 0);
   if (d->filtering || d->filter[0]) {
      attron (crt_attr (CRT_KEY));
      addstr (d->filtering ? " Filter: " : " Filtered: ");
      attroff (crt_attr (CRT_KEY));
      addch (' ');
      addnstr (d->filter, d->cols - 12 > 0 ? d->cols - 12 : 0);
      if (d->filtering)
         addstr ("_  (Enter keeps, Esc clears)");
      else
         addstr ("  (Esc clears)");
      return;
   }
   for (size_t i = 0; i < actions_count; i++) {
      const action_t *a = &actions_table[i];
      char key[16];
      int need;
      if (!a->bar)
         continue;
      snprintf (key, sizeof key, "%.*s", (int) strcspn (a->key_name, " "), a->key_name);
      need = (int) (strlen (key) + strlen (a->bar) + 1);
      if (x + need >= d->cols)
         break;
      attron (crt_attr (CRT_KEY));
      mvaddstr (y, x, key);
      attroff (crt_attr (CRT_KEY));
      addstr (a->bar);
      addch (' ');
      x += need;
   }
   if (x + 10 < d->cols) {
      attron (crt_attr (CRT_KEY));
      mvaddstr (y, x, "+-");
      attroff (crt_attr (CRT_KEY));
      addstr ("Interval");
   }
}

void
actions_write_markdown (FILE *out)
{
   fprintf (out, "| Keys | What it does |\n| --- | --- |\n");
   for (size_t i = 0; i < actions_count; i++)
      fprintf (out, "| `%s` | %s |\n", actions_table[i].key_name, actions_table[i].help);
}

void
actions_write_panels_markdown (FILE *out)
{
   fprintf (out, "| Panel | What it shows |\n| --- | --- |\n");
   for (size_t i = 0; i < actions_panel_count; i++)
      fprintf (out, "| %s | %s |\n", actions_panels[i].name, actions_panels[i].help);
}
