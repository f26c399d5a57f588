/* The Operations strip: the cluster's long operations as sh.progress() lists them (resharding, moveCollection,
 * unshardCollection, range migrations, drains, defragmentation, config-shard transitions), one line each with its
 * phase, percent, rate and time left, or the caveat that says why a figure is missing. Shown under the shards while
 * there is one and room; not a list (no selection). */
#include <curses.h>
#include <stdio.h>

#include "views/crt.h"
#include "views/views.h"

/* One operation's line as parts (fit.h): what it is and its percent, rate and time left (or STUCK) are kept; the
 * caveat, or why it is stuck and its fix, is cut (it is text), then dropped, then the phase (never cut: "step 1 of 6").
 */
static void
draw_op (const snap_op_t *o, int y, int x, int w)
{
   snap_op_parts_t p;
   int warn = o->caveat[0] || o->stuck[0] ? crt_attr (CRT_WARN) : 0;
   snap_op_parts (o, &p);
   fit_part_t parts[] = {
      { p.what, 0, 12, warn }, { p.phase, 1, 0, warn }, { p.pct, 0, 0, warn },
      { p.rate, 0, 0, warn },  { p.eta, 0, 0, warn },   { p.caveat, 2, 10, warn },
   };
   fit_parts (parts, sizeof parts / sizeof parts[0], w);
   panel_put_parts (y, x, parts, sizeof parts / sizeof parts[0]);
}

void
view_ops_draw (const dash_t *d, const panel_t *p)
{
   const snap_t *s = &d->snap;
   char title[64];
   int y = p->y + 1;

   if (p->h <= 0)
      return;
   snprintf (title, sizeof title, "Operations (%zu)", s->ops_total);
   panel_draw_title (p, title, "sh.progress(): phase, percent, rate, time left");
   for (size_t i = 0; i < s->nops && y < p->y + p->h; i++, y++) {
      mvhline (y, p->x, ' ', p->w);
      draw_op (&s->ops[i], y, p->x + 1, p->w - 2);
   }
}
