/* The events panel: recent splits and migrations (config.changelog) and balancer rounds (config.actionlog),
 * newest first, failures marked. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crt.h"
#include "views.h"

const char *const view_events_sorts[] = { "time", NULL };

static const char *
kind_label (snap_event_kind_t k)
{
   switch (k) {
   case SNAP_EV_SPLIT:
      return "split";
   case SNAP_EV_MIGRATE_OK:
      return "moved";
   case SNAP_EV_MIGRATE_FAIL:
      return "move FAILED";
   case SNAP_EV_MIGRATE_START:
      return "moving";
   case SNAP_EV_ROUND:
      return "round";
   case SNAP_EV_ROUND_FAIL:
      return "round FAILED";
   default:
      return "event";
   }
}

size_t
view_events_order (const dash_t *d, size_t *out)
{
   const snapshot_t *s = &d->snap;
   size_t n = 0;
   for (size_t i = 0; i < s->nevents; i++)
      if (!d->filter[0] || dash_filter_match (d, s->events[i].ns) || dash_filter_match (d, s->events[i].text))
         out[n++] = i;
   if (d->invert[DASH_EVENTS])
      for (size_t i = 0; i < n / 2; i++) {
         size_t t = out[i];
         out[i] = out[n - 1 - i];
         out[n - 1 - i] = t;
      }
   return n;
}

void
view_events_draw (dash_t *d, panel_t *p)
{
   const snapshot_t *s = &d->snap;
   panel_col_t cols[] = {
      { "TIME", 8, 0 },
      { "EVENT", 12, 0 },
      { "NAMESPACE", 18, 1 },
      { "DETAIL", 10, 0, false, true },
   };
   enum { C_TIME, C_KIND, C_NS, C_TEXT, C_N };
   size_t order[SNAP_EVENTS];
   size_t n = view_events_order (d, order);
   char title[64], info[64];

   panel_update (p, (int) n, -1);
   snprintf (title, sizeof title, "Events (%zu)", n);
   snprintf (info, sizeof info, "newest %s", d->invert[DASH_EVENTS] ? "last" : "first");
   panel_draw_frame (p, cols, C_N, title, info);
   for (size_t i = 0; i < n; i++) {
      const snap_event_t *e = &s->events[order[i]];
      int y = panel_row_y (p, (int) i);
      bool bad = e->kind == SNAP_EV_MIGRATE_FAIL || e->kind == SNAP_EV_ROUND_FAIL;
      char buf[32];
      time_t t = (time_t) (e->time_ms / 1000);
      struct tm tm;
      int ra;
      if (y < 0)
         continue;
      ra = panel_begin_row (p, y, (int) i == p->selected);
      localtime_r (&t, &tm);
      strftime (buf, sizeof buf, "%H:%M:%S", &tm);
      panel_cell (p, y, &cols[C_TIME], buf, ra);
      panel_cell (p, y, &cols[C_KIND], kind_label (e->kind),
                  ra ? ra
                     : crt_attr (bad                             ? CRT_HOT
                                 : e->kind == SNAP_EV_MIGRATE_OK ? CRT_OK
                                                                 : CRT_DEFAULT));
      panel_cell (p, y, &cols[C_NS], e->ns, ra);
      panel_cell (p, y, &cols[C_TEXT], e->text, ra);
   }
}
