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
   char what[2 * SNAP_NAME + 48], phase[SNAP_TEXT + 2], pct[16] = "", rate[40] = "", eta[40] = "", left[32];
   char caveat[sizeof o->stuck + sizeof o->fix + SNAP_TEXT + 16] = "";
   int warn = o->caveat[0] || o->stuck[0] ? crt_attr (CRT_WARN) : 0;
   fit_part_t parts[] = {
      { what, 0, 12, warn }, { phase, 1, 0, warn }, { pct, 0, 0, warn },
      { rate, 0, 0, warn },  { eta, 0, 0, warn },   { caveat, 2, 10, warn },
   };
   snprintf (what, sizeof what, "%s %s%s%s", o->type, o->ns[0] ? o->ns : o->shard,
             o->ns[0] && o->shard[0] ? " on " : "", o->ns[0] ? o->shard : "");
   snprintf (phase, sizeof phase, "%s%s", o->phase[0] ? " " : "", o->phase);
   if (o->percent >= 0)
      snprintf (pct, sizeof pct, " %.0f%%", o->percent);
   if (o->bytes_ps >= 0) {
      rate[0] = ' ';
      snap_fmt_rate_bytes (o->bytes_ps, rate + 1, sizeof rate - 1);
   }
   if (o->stuck[0])
      snprintf (eta, sizeof eta, " STUCK");
   else if (o->eta_s >= 0)
      snprintf (eta, sizeof eta, " %s left", snap_fmt_duration (o->eta_s, left, sizeof left));
   if (o->stuck[0])
      snprintf (caveat, sizeof caveat, ": %s; fix: %s", o->stuck, o->fix);
   else if (o->caveat[0])
      snprintf (caveat, sizeof caveat, " (%s)", o->caveat);
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
