/* The Operations strip: the cluster's long operations as sh.progress() lists them (resharding, moveCollection,
 * unshardCollection, range migrations, drains, defragmentation, config-shard transitions), one line each with its
 * phase, percent, rate and time left, or the caveat that says why a figure is missing. Shown under the shards while
 * there is one and room; not a list (no selection). */
#include <curses.h>
#include <stdio.h>

#include "views/crt.h"
#include "views/views.h"

void
view_ops_draw (const dash_t *d, const panel_t *p)
{
   const snap_t *s = &d->snap;
   char title[64], line[SNAP_TEXT * 2 + 1024];
   int y = p->y + 1;

   if (p->h <= 0)
      return;
   snprintf (title, sizeof title, "Operations (%zu)", s->ops_total);
   panel_draw_title (p, title, "sh.progress(): phase, percent, rate, time left");
   for (size_t i = 0; i < s->nops && y < p->y + p->h; i++, y++) {
      const snap_op_t *o = &s->ops[i];
      mvhline (y, p->x, ' ', p->w);
      snap_fmt_op (o, line, sizeof line);
      if (o->caveat[0] || o->stuck[0])
         attron (crt_attr (CRT_WARN));
      mvaddnstr (y, p->x + 1, line, p->w - 2);
      if (o->caveat[0] || o->stuck[0])
         attroff (crt_attr (CRT_WARN));
   }
}
