/* The chunk map (m in the chunk list): the drilled-down collection's key space from its lowest bound to its highest
 * as rows of cells, each cell an equal share of the chunks and drawn as the symbol of the shard owning most of them
 * (1-9, then a-z), with the zone letter of each cell on the line beneath, marks in colour (hot, outside its zone,
 * jumbo), the ranges of the migrations in flight underlined and bold, and the replay's current event in reverse
 * video. [ steps back through the recent migrations, splits and merges, ] forward; the last lines say where the
 * replay stands, and at now which range is moving. Reads d->cmap, which the collector filled when the map opened, and
 * the migrations of the snapshot on screen (d->snap, every sample), so a moving mark comes and goes with them. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "views/crt.h"
#include "views/views.h"

#define CHUNKMAP_VIEW_ROWS 8 /* strip rows at most (each with its zone line) */

/* The symbol of shard i: 1-9, a-z, A-Z, then '#'. */
static char
chunkmap_view_symbol (int i)
{
   if (i < 0) {
      return ' ';
   }
   if (i < 9) {
      return (char) ('1' + i);
   }
   if (i < 35) {
      return (char) ('a' + i - 9);
   }
   if (i < 61) {
      return (char) ('A' + i - 35);
   }
   return '#';
}

/* The letter of zone z in the zone line: A-Z, then '+'; ' ' outside every zone. */
static char
chunkmap_view_zone (int z)
{
   return z < 0 ? ' ' : z < 26 ? (char) ('A' + z) : '+';
}

static int
chunkmap_view_attr (unsigned flags)
{
   int a = 0;
   if (flags & CHUNKMAP_EVENT) {
      a |= A_REVERSE;
   }
   if (flags & CHUNKMAP_MOVING) {
      a |= A_UNDERLINE | A_BOLD;
   }
   if (flags & CHUNKMAP_HOT) {
      a |= crt_attr (CRT_HOT);
   } else if (flags & (CHUNKMAP_OUT_OF_ZONE | CHUNKMAP_JUMBO)) {
      a |= crt_attr (CRT_WARN);
   }
   return a;
}

/* The legend: each shard's symbol, name and ranges at the replay's position, then the zones. */
static void
chunkmap_view_legend (const chunkmap_data_t *m, int y, const panel_t *p)
{
   char line[1024];
   size_t len = 0, n = chunkmap_ranges (m->map);
   size_t *owned = calloc (m->nshards ? m->nshards : 1, sizeof *owned);
   if (!owned)
      abort ();
   for (size_t i = 0; i < n; i++) { /* one pass over the ranges, not one per shard */
      int o = chunkmap_owner (m->map, i);
      if (o >= 0 && (size_t) o < m->nshards)
         owned[o]++;
   }
   /* a removed shard (named only by events) is listed only while the replay shows it owning ranges */
   for (size_t s = 0; s < m->nshards && len < sizeof line - 64; s++) {
      if (s >= m->nlisted && !owned[s])
         continue;
      len += (size_t) snprintf (line + len, sizeof line - len, "%s%c %s (%zu)", len ? "  " : "",
                                chunkmap_view_symbol ((int) s), m->shards[s], owned[s]);
   }
   free (owned);
   mvaddnstr (y, p->x + 1, line, p->w - 2);
   len = 0;
   line[0] = '\0';
   for (size_t z = 0; z < m->nzones && len < sizeof line - 64; z++) {
      len += (size_t) snprintf (line + len, sizeof line - len, "%s%c %s",
                                z ? "  " : "zones: ", chunkmap_view_zone ((int) z), m->zones[z]);
   }
   if (len) {
      mvaddnstr (y + 1, p->x + 1, line, p->w - 2);
   }
}

/* Marks the cells of the drilled-down collection's migrations in flight (the snapshot's) as moving; only at now,
 * the replay showing the past. Returns the first one marked (NULL: none) and counts them in *n. */
static const snap_migration_t *
chunkmap_view_moving (const dash_t *d, chunkmap_cell_t *cells, size_t width, size_t *n)
{
   const snap_migration_t *first = NULL;
   *n = 0;
   if (chunkmap_position (d->cmap.map) > 0) {
      return NULL;
   }
   for (size_t i = 0; i < d->snap.nmigs; i++) {
      const snap_migration_t *mg = &d->snap.migs[i];
      if (strcmp (mg->ns, d->drill_ns) != 0 ||
          !chunkmap_cells_mark_json (d->cmap.map, cells, width, mg->min_json, mg->max_json, CHUNKMAP_MOVING)) {
         continue;
      }
      if (!first) {
         first = mg;
      }
      (*n)++;
   }
   return first;
}

/* The moving line's legend: the first migration in flight, donor -> recipient and its range ("?" for a bound a
 * moveRange left to the donor), and how many more. */
static void
chunkmap_view_moving_line (const snap_migration_t *mg, size_t n, int y, const panel_t *p)
{
   char line[2 * SNAP_NAME + 2 * SNAP_TEXT + 64], more[32] = "";
   if (n > 1) {
      snprintf (more, sizeof more, " (+%zu more)", n - 1);
   }
   snprintf (line, sizeof line, "moving (underlined): %s -> %s %s -> %s%s", mg->from, mg->to,
             mg->min[0] ? mg->min : "?", mg->max[0] ? mg->max : "?", more);
   attron (A_UNDERLINE | A_BOLD);
   mvaddnstr (y, p->x + 1, "moving", p->w - 2);
   attroff (A_UNDERLINE | A_BOLD);
   if (p->w - 2 > 6) {
      mvaddnstr (y, p->x + 7, line + 6, p->w - 8);
   }
}

/* Where the replay stands: now (and how far back it can go), or the event it shows. */
static void
chunkmap_view_replay (const chunkmap_data_t *m, int y, const panel_t *p)
{
   chunkmap_event_t ev;
   char line[768], when[16];
   size_t n = chunkmap_events (m->map), pos = chunkmap_position (m->map);

   if (!chunkmap_current_event (m->map, &ev)) {
      snprintf (line, sizeof line, "replay: now; %zu events in the last hours: [ back, ] forward", n);
   } else {
      time_t t = (time_t) (ev.time_ms / 1000);
      struct tm tm;
      static const char *const kinds[] = { "migration", "split", "merge" };
      localtime_r (&t, &tm);
      strftime (when, sizeof when, "%H:%M:%S", &tm);
      if (ev.kind == CHUNKMAP_MOVE && ev.from >= 0 && ev.to >= 0 && (size_t) ev.from < m->nshards &&
          (size_t) ev.to < m->nshards) {
         snprintf (line, sizeof line, "replay: %zu/%zu back, before the %s of %s, %s -> %s", pos, n, kinds[ev.kind],
                   when, m->shards[ev.from], m->shards[ev.to]);
      } else {
         snprintf (line, sizeof line, "replay: %zu/%zu back, before the %s of %s", pos, n, kinds[ev.kind], when);
      }
   }
   attron (crt_attr (CRT_DIM));
   mvaddnstr (y, p->x + 1, line, p->w - 2);
   if (pos > 0) { /* the event's range on a line of its own */
      mvaddnstr (y + 1, p->x + 3, ev.text, p->w - 4);
   }
   attroff (crt_attr (CRT_DIM));
}

void
view_chunkmap_draw (const dash_t *d, const panel_t *p)
{
   const chunkmap_data_t *m = &d->cmap;
   chunkmap_cell_t cells[CHUNKMAP_VIEW_ROWS * 512];
   const snap_migration_t *moving;
   size_t nmoving;
   char title[SNAP_NAME + 64], info[160];
   int width = p->w - 2, rows, y = p->y + 1;

   snprintf (title, sizeof title, "Chunk map of %s", d->drill_ns);
   if (m->map) {
      if (m->sampled) {
         snprintf (info, sizeof info, "%s  a sample of %zu of %lld chunks", m->key ? m->key : "",
                   chunkmap_ranges (m->map), (long long) m->chunks);
      } else {
         snprintf (info, sizeof info, "%s  %lld chunks", m->key ? m->key : "", (long long) m->chunks);
      }
   }
   panel_draw_title (p, title, m->map ? info : NULL);
   if (d->map_error[0] || !m->map || width < 10) {
      mvaddnstr (y + 1, p->x + 1, d->map_error[0] ? d->map_error : "reading the chunk map...", p->w - 2);
      return;
   }
   if (width > 512) {
      width = 512;
   }
   /* title, the two bounds, the strip (a shard line and a zone line per row), legend (2), replay (2) */
   rows = (p->h - 7) / 2;
   rows = rows < 1 ? 1 : rows > CHUNKMAP_VIEW_ROWS ? CHUNKMAP_VIEW_ROWS : rows;
   /* no more rows than the ranges fill: a small collection stays one line */
   if ((size_t) rows * (size_t) width > chunkmap_ranges (m->map)) {
      size_t need = (chunkmap_ranges (m->map) + (size_t) width - 1) / (size_t) width;
      rows = need < 1 ? 1 : (int) need;
   }
   if (!chunkmap_cells (m->map, cells, (size_t) (width * rows), (int) (m->nshards ? m->nshards : 1))) {
      mvaddnstr (y + 1, p->x + 1, "no chunks", p->w - 2);
      return;
   }
   moving = chunkmap_view_moving (d, cells, (size_t) (width * rows), &nmoving);
   attron (crt_attr (CRT_DIM));
   mvaddnstr (y, p->x + 1, m->low ? m->low : "", width);
   if (m->high && (int) strlen (m->high) < width) {
      mvaddnstr (y, p->x + 1 + width - (int) strlen (m->high), m->high, width);
   }
   attroff (crt_attr (CRT_DIM));
   y++;
   for (int r = 0; r < rows; r++, y += 2) {
      for (int k = 0; k < width; k++) {
         const chunkmap_cell_t *c = &cells[r * width + k];
         int a = chunkmap_view_attr (c->flags);
         attron (a);
         mvaddch (y, p->x + 1 + k, (chtype) (unsigned char) chunkmap_view_symbol (c->shard));
         attroff (a);
         mvaddch (y + 1, p->x + 1 + k, (chtype) (unsigned char) chunkmap_view_zone (c->zone));
      }
   }
   chunkmap_view_legend (m, y, p);
   chunkmap_view_replay (m, y + 2, p);
   if (moving) { /* at now the replay's second line is free */
      chunkmap_view_moving_line (moving, nmoving, y + 3, p);
   }
}
