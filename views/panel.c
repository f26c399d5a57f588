/* The table widget: rectangle, chrome, column fitting, selection and scrolling. Draws over each line instead of
 * clearing the screen, so refreshes do not flicker. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "views/crt.h"
#include "views/meter.h"
#include "views/panel.h"

void
panel_set_rect (panel_t *p, int x, int y, int w, int h)
{
   p->x = x;
   p->y = y;
   p->w = w < 0 ? 0 : w;
   p->h = h < 0 ? 0 : h;
}

int
panel_body_h (const panel_t *p)
{
   int body = p->h - 2 - (p->footer ? 1 : 0);
   return body > 0 ? body : 0;
}

int
panel_footer_y (const panel_t *p)
{
   return p->footer && p->h >= 3 ? p->y + p->h - 1 : -1;
}

int
panel_text_width (const char *const *texts, size_t n)
{
   int w = 0;
   for (size_t i = 0; i < n; i++)
      if (texts[i] && meter_width (texts[i]) > w)
         w = meter_width (texts[i]);
   return w;
}

/* The width a column takes while the columns are chosen: a name column counts at its min. */
static int
col_least (const panel_col_t *c)
{
   return c->min > 0 && c->min < c->width ? c->min : c->width;
}

void
panel_fit_columns (panel_col_t *cols, size_t n, int width)
{
   int max_prio = 0, total, x = 0, nflex = 0, slack;
   for (size_t i = 0; i < n; i++)
      max_prio = cols[i].prio > max_prio ? cols[i].prio : max_prio;
   /* drop the highest priority numbers until the columns fit with their names narrowed (a negative priority: never
    * shown) */
   for (int cut = max_prio + 1; cut >= 0; cut--) {
      total = 0;
      for (size_t i = 0; i < n; i++)
         if (cols[i].prio >= 0 && cols[i].prio < cut)
            total += col_least (&cols[i]) + 1;
      if (total - 1 <= width || cut == 0) {
         for (size_t i = 0; i < n; i++)
            cols[i].x = cols[i].prio >= 0 && cols[i].prio < cut ? 0 : -1;
         break;
      }
   }
   /* narrow the names only as far as needed, the least important (then the rightmost) first */
   total = 0;
   for (size_t i = 0; i < n; i++)
      cols[i].w = cols[i].x >= 0 ? cols[i].width : 0;
   for (size_t i = 0; i < n; i++)
      total += cols[i].x >= 0 ? cols[i].w + 1 : 0;
   for (int pr = max_prio; pr >= 0 && total - 1 > width; pr--)
      for (size_t k = n; k-- > 0 && total - 1 > width;) {
         int cut;
         if (cols[k].x < 0 || cols[k].prio != pr || col_least (&cols[k]) >= cols[k].w)
            continue;
         cut =
            cols[k].w - col_least (&cols[k]) < total - 1 - width ? cols[k].w - col_least (&cols[k]) : total - 1 - width;
         cols[k].w -= cut;
         total -= cut;
      }
   for (size_t i = 0; i < n; i++)
      nflex += cols[i].x >= 0 && cols[i].flex;
   slack = width - (total - 1) > 0 ? width - (total - 1) : 0;
   /* first the columns whose content is cut (a long namespace or key), the most important first */
   for (int pr = 0; pr <= max_prio && slack > 0; pr++)
      for (size_t i = 0; i < n && slack > 0; i++)
         if (cols[i].x >= 0 && cols[i].prio == pr && cols[i].want > cols[i].w) {
            int g = cols[i].want - cols[i].w < slack ? cols[i].want - cols[i].w : slack;
            cols[i].w += g;
            slack -= g;
         }
   /* then the flexible columns share what is left; the last one takes the remainder */
   for (size_t i = 0; i < n; i++) {
      if (cols[i].x < 0)
         continue;
      cols[i].x = x;
      if (cols[i].flex && nflex > 0) {
         int share = nflex == 1 ? slack : slack / nflex;
         cols[i].w += share;
         slack -= share;
         nflex--;
      }
      if (cols[i].x + cols[i].w > width)
         cols[i].w = width - cols[i].x > 0 ? width - cols[i].x : 0;
      x += cols[i].w + 1;
   }
}

/* Prints at most w cells of s at (y, x), padding with spaces: a text too wide ends in the ellipsis; a figure
 * (right-aligned) too wide is never cut, the ellipsis alone stands for it. */
static void
put_cells (int y, int x, int w, const char *s, bool right)
{
   char buf[4096];
   int pad;
   if (w <= 0)
      return;
   if (right && meter_width (s) > w)
      s = crt_glyphs->ellipsis;
   fit_cut (buf, sizeof buf, s, w, crt_glyphs->ellipsis);
   pad = w - meter_width (buf);
   move (y, x);
   if (right)
      for (int i = 0; i < pad; i++)
         addch (' ');
   addstr (buf);
   if (!right)
      for (int i = 0; i < pad; i++)
         addch (' ');
}

void
panel_draw_title (const panel_t *p, const char *title, const char *info)
{
   int attr = crt_attr (p->focused ? CRT_TITLE_FOCUS : CRT_TITLE);
   if (p->h <= 0)
      return;
   attron (attr);
   mvhline (p->y, p->x, ' ', p->w);
   if (p->focused && p->w > 0)
      mvaddstr (p->y, p->x, crt_glyphs->focus);
   if (title)
      put_cells (p->y, p->x + 1, p->w - 2 > 0 ? p->w - 2 : 0, title, false);
   if (info) {
      int iw = meter_width (info);
      int tw = title ? meter_width (title) + 2 : 1;
      if (iw + tw + 1 <= p->w)
         put_cells (p->y, p->x + p->w - iw - 1, iw, info, false);
   }
   attroff (attr);
}

void
panel_draw_headings (const panel_t *p, const panel_col_t *cols, size_t n)
{
   int attr = crt_attr (CRT_COLHDR);
   if (p->h <= 1)
      return;
   attron (attr);
   mvhline (p->y + 1, p->x, ' ', p->w);
   for (size_t i = 0; i < n; i++)
      if (cols[i].x >= 0)
         put_cells (p->y + 1, p->x + cols[i].x, cols[i].w, cols[i].title, cols[i].right);
   attroff (attr);
}

void
panel_draw_frame (const panel_t *p, panel_col_t *cols, size_t n, const char *title, const char *info)
{
   panel_fit_columns (cols, n, p->w);
   panel_draw_title (p, title, info);
   panel_draw_headings (p, cols, n);
   for (int r = 0; r < panel_body_h (p); r++)
      mvhline (p->y + 2 + r, p->x, ' ', p->w);
}

int
panel_cmp_desc (double a, double b)
{
   return a < b ? 1 : a > b ? -1 : 0;
}

int
panel_sort_result (int c, const char *xname, const char *yname, bool inv)
{
   if (!c)
      c = strcmp (xname, yname);
   return inv ? -c : c;
}

bool
panel_important_first (size_t *order, size_t n, const bool *important, int room)
{
   size_t *tmp, k = 0;
   bool moved;
   if (room < 0 || n <= (size_t) room || !n)
      return false;
   tmp = malloc (n * sizeof *tmp);
   if (!tmp)
      abort ();
   for (size_t i = 0; i < n; i++)
      if (important[order[i]])
         tmp[k++] = order[i];
   for (size_t i = 0; i < n; i++)
      if (!important[order[i]])
         tmp[k++] = order[i];
   moved = memcmp (order, tmp, n * sizeof *tmp) != 0;
   memcpy (order, tmp, n * sizeof *tmp);
   free (tmp);
   return moved;
}

void
panel_update (panel_t *p, int nrows, int found)
{
   int body = panel_body_h (p);
   p->nrows = nrows;
   if (found >= 0)
      p->selected = found;
   if (p->selected >= nrows)
      p->selected = nrows - 1;
   if (p->selected < 0)
      p->selected = 0;
   if (p->selected < p->scroll)
      p->scroll = p->selected;
   if (body > 0 && p->selected >= p->scroll + body)
      p->scroll = p->selected - body + 1;
   if (p->scroll > nrows - body)
      p->scroll = nrows - body > 0 ? nrows - body : 0;
   if (p->scroll < 0)
      p->scroll = 0;
}

int
panel_row_y (const panel_t *p, int i)
{
   int body = panel_body_h (p);
   if (i < p->scroll || i >= p->scroll + body)
      return -1;
   return p->y + 2 + (i - p->scroll);
}

int
panel_begin_row (const panel_t *p, int y, bool selected)
{
   int attr = selected && p->focused ? crt_attr (CRT_SELECTED) : 0;
   attron (attr);
   mvhline (y, p->x, ' ', p->w);
   attroff (attr);
   return attr;
}

void
panel_cell (const panel_t *p, int y, const panel_col_t *col, const char *text, int attr)
{
   if (col->x < 0)
      return;
   attron (attr);
   put_cells (y, p->x + col->x, col->w, text ? text : "", col->right);
   attroff (attr);
}

void
panel_put_parts (int y, int x, const fit_part_t *parts, size_t n)
{
   char buf[4096];
   for (size_t i = 0; i < n; i++) {
      if (parts[i].w <= 0)
         continue;
      fit_cut (buf, sizeof buf, parts[i].text, parts[i].w, crt_glyphs->ellipsis);
      attron (parts[i].attr);
      mvaddstr (y, x, buf);
      attroff (parts[i].attr);
      x += parts[i].w;
   }
}

void
panel_put_words (int y, int x, int w, const char *text)
{
   char buf[4096];
   if (w <= 0)
      return;
   fit_cut_words (buf, sizeof buf, text, w, crt_glyphs->ellipsis);
   mvaddstr (y, x, buf);
}

void
panel_move (panel_t *p, int delta)
{
   p->selected += delta;
   p->sel_key[0] = '\0';
   panel_update (p, p->nrows, -1);
}

int
panel_scroll_delta (int key, int page, int total)
{
   return key == 'j' || key == KEY_DOWN    ? 1
          : key == 'k' || key == KEY_UP    ? -1
          : key == KEY_NPAGE || key == ' ' ? page
          : key == KEY_PPAGE               ? -page
          : key == 'G' || key == KEY_END   ? total
          : key == 'g' || key == KEY_HOME  ? -total
                                           : 0;
}

void
panel_scroll_by (int *scroll, int delta, int max)
{
   *scroll += delta;
   *scroll = *scroll < 0 ? 0 : *scroll > max ? max : *scroll;
}
