/* The help overlay (?): every key of the one key table and every panel with its description wrapped beside it,
 * then the legend; it scrolls (j/k, PgUp/PgDn, g/G) when the terminal is shorter than the help, so it fits at
 * 80x24; any other key closes it. */
#include <curses.h>
#include <stdio.h>

#include "views/actions.h"
#include "views/crt.h"
#include "views/fit.h"

/* The help as lines: each key's (or panel's) description wrapped beside its name, then the legend. Returns the number
 * of lines (at most max); names[i] is the key or panel name on a description's first line, else NULL. */
#define HELP_LINES 160
static size_t
help_lines (const dash_t *d, int tw, const char **names, int *attrs, char (*texts)[160], size_t max)
{
   size_t n = 0, starts[16], lens[16], k;
   char legend[160];
   for (size_t i = 0; i < actions_count + actions_panel_count; i++) {
      bool key = i < actions_count;
      const char *name = key ? actions_table[i].key_name : actions_panels[i - actions_count].name;
      const char *help = key ? actions_table[i].help : actions_panels[i - actions_count].help;
      size_t nl = fit_wrap (help, tw, starts, lens, 16);
      for (k = 0; k < nl && n < max; k++, n++) {
         names[n] = k ? NULL : name;
         attrs[n] = crt_attr (key ? CRT_KEY : CRT_TITLE);
         snprintf (texts[n], sizeof texts[n], "%.*s", (int) lens[k], help + starts[k]);
      }
   }
   snprintf (legend, sizeof legend, "%s hot: >= %.1fx fair share of writes, >= %.1f/s  %s imbalanced  %s outside zone",
             crt_glyphs->hot, d->snap.hot_factor, d->snap.hot_min_rate, crt_glyphs->imbalanced, crt_glyphs->ooz);
   k = fit_wrap (legend, tw + 15, starts, lens, 16);
   for (size_t j = 0; j < k && n < max; j++, n++) {
      names[n] = "";
      attrs[n] = crt_attr (CRT_DIM);
      snprintf (texts[n], sizeof texts[n], "%.*s", (int) lens[j], legend + starts[j]);
   }
   return n;
}

/* The first line the overlay may show so that its last page is full. */
static int
help_max_scroll (const dash_t *d, int total)
{
   int rows = (d->lines < (int) total + 2 ? d->lines : total + 2) - 2;
   return total - rows > 0 ? total - rows : 0;
}

void
actions_draw_help (const dash_t *d)
{
   int w = d->cols - 4 < 110 ? d->cols - 4 : 110;
   const char *names[HELP_LINES];
   int attrs[HELP_LINES];
   static char texts[HELP_LINES][160];
   int total = (int) help_lines (d, w - 19, names, attrs, texts, HELP_LINES);
   int h = total + 2 < d->lines ? total + 2 : d->lines; /* title, the lines, the position */
   int rows = h - 2, first = d->help_scroll, x0 = (d->cols - w) / 2, y0 = (d->lines - h) / 2;
   char pos[96];
   if (first > help_max_scroll (d, total))
      first = help_max_scroll (d, total);
   attron (crt_attr (CRT_TITLE_FOCUS));
   mvhline (y0, x0, ' ', w);
   mvaddnstr (y0, x0 + 1,
              rows < total ? "shardsh dashboard keys (j/k PgUp/PgDn scroll, any other key closes)"
                           : "shardsh dashboard keys (any key closes)",
              w - 2);
   attroff (crt_attr (CRT_TITLE_FOCUS));
   for (int r = 1; r < h; r++)
      mvhline (y0 + r, x0, ' ', w);
   for (int i = 0; i < rows && first + i < total; i++) {
      int l = first + i, y = y0 + 1 + i;
      if (names[l] && !names[l][0]) { /* the legend */
         attron (attrs[l]);
         mvaddnstr (y, x0 + 2, texts[l], w - 4);
         attroff (attrs[l]);
         continue;
      }
      if (names[l]) {
         attron (attrs[l]);
         mvaddnstr (y, x0 + 2, names[l], 14);
         attroff (attrs[l]);
      }
      mvaddnstr (y, x0 + 17, texts[l], w - 19);
   }
   if (rows < total)
      snprintf (pos, sizeof pos, "lines %d-%d of %d%s", first + 1, first + rows, total,
                first + rows < total ? ", j or PgDn for more" : "");
   else
      pos[0] = '\0';
   attron (crt_attr (CRT_DIM));
   mvaddnstr (y0 + h - 1, x0 + 2, pos, w - 4);
   attroff (crt_attr (CRT_DIM));
}

/* A key while the help is open: the scrolling keys move it, q quits, any other key closes it. */
int
actions_help_key (dash_t *d, int key)
{
   const char *names[HELP_LINES];
   int attrs[HELP_LINES];
   static char texts[HELP_LINES][160];
   int w = d->cols - 4 < 110 ? d->cols - 4 : 110;
   int total = (int) help_lines (d, w - 19, names, attrs, texts, HELP_LINES);
   int max = help_max_scroll (d, total), page = d->lines - 3 > 1 ? d->lines - 3 : 1;
   int delta = panel_scroll_delta (key, page, total);
   if (!delta || !max) {
      d->help = false;
      return key == 'q' ? VIEW_QUIT : VIEW_REDRAW;
   }
   panel_scroll_by (&d->help_scroll, delta, max);
   return VIEW_REDRAW;
}
