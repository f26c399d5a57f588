/* The events panel: recent splits and migrations (config.changelog) and balancer rounds (config.actionlog),
 * newest first, failures marked and kept on screen when rows run short; source -> destination first, then the
 * namespace and the range with its dates shortened. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "views/crt.h"
#include "views/meter.h"
#include "views/views.h"

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

static bool
event_failed (const snap_event_t *e)
{
   return e->kind == SNAP_EV_MIGRATE_FAIL || e->kind == SNAP_EV_ROUND_FAIL;
}

static const snap_t *sort_snap;
static int sort_key;
static bool sort_inv;

/* Newest first within every sort; the sort column groups by kind (failures first), namespace or donor shard. */
static int
event_cmp (const void *a, const void *b)
{
   size_t i = *(const size_t *) a, k = *(const size_t *) b;
   const snap_event_t *x = &sort_snap->events[i], *y = &sort_snap->events[k];
   int c = 0;
   switch (sort_key) {
   case 1:
      c = (int) event_failed (y) - (int) event_failed (x);
      if (!c)
         c = strcmp (kind_label (x->kind), kind_label (y->kind));
      break;
   case 2:
      c = strcmp (x->ns, y->ns);
      break;
   case 3:
      c = strcmp (x->from, y->from);
      break;
   default:
      break;
   }
   if (!c) /* the collector's order is newest first */
      c = (i > k) - (i < k);
   return sort_inv ? -c : c;
}

/* The rows in screen order; *pinned tells whether failures were moved above newer rows (rows ran short). */
static size_t
events_sorted (const dash_t *d, size_t *out, bool *pinned)
{
   const snap_t *s = &d->snap;
   bool important[SNAP_EVENTS];
   size_t n = 0;
   for (size_t i = 0; i < s->nevents; i++) {
      const snap_event_t *e = &s->events[i];
      important[i] = event_failed (e);
      if (!d->filter[0] || dash_filter_match (d, e->ns) || dash_filter_match (d, e->text))
         out[n++] = i;
   }
   sort_snap = s;
   sort_key = d->sort[DASH_EVENTS];
   sort_inv = d->invert[DASH_EVENTS];
   qsort (out, n, sizeof *out, event_cmp);
   *pinned = panel_important_first (out, n, important, panel_body_h (&d->panels[DASH_EVENTS]));
   return n;
}

size_t
view_events_order (const dash_t *d, size_t *out)
{
   bool pinned;
   return events_sorted (d, out, &pinned);
}

const snap_event_t *
view_events_selected (const dash_t *d)
{
   size_t order[SNAP_EVENTS], n = view_events_order (d, order);
   int sel = d->panels[DASH_EVENTS].selected;
   return sel >= 0 && (size_t) sel < n ? &d->snap.events[order[sel]] : NULL;
}

/* "shard01 -> shard03" for a migration, "shard01" for a split, "" for a round. */
static void
route_text (const snap_event_t *e, char *buf, size_t len)
{
   if (e->from[0] && e->to[0])
      snprintf (buf, len, "%s %s %s", e->from, crt_glyphs->arrow, e->to);
   else
      snprintf (buf, len, "%s", e->from);
}

/* The range with the dates shortened, and a failure's message; a round's own text. */
static void
detail_text (const snap_event_t *e, char *buf, size_t len)
{
   char range[2 * SNAP_TEXT + 8];
   if (!e->min[0]) {
      snprintf (buf, len, "%s", e->text);
      return;
   }
   snap_fmt_range (e->min, e->max, crt_glyphs->arrow, range, sizeof range);
   snprintf (buf, len, "%s%s%s", range, e->error[0] ? ": " : "", e->error);
}

void
view_events_draw (dash_t *d, panel_t *p)
{
   const snap_t *s = &d->snap;
   panel_col_t cols[] = {
      { "TIME", 8, 0 },
      { "EVENT", 12, 0 },
      { "FROM -> TO", 15, 0 },
      { "NAMESPACE", 14, 1 },
      { "DETAIL", 10, 0, false, true },
   };
   enum { C_TIME, C_KIND, C_ROUTE, C_NS, C_TEXT, C_N };
   size_t order[SNAP_EVENTS];
   bool pinned;
   size_t n = events_sorted (d, order, &pinned);
   char title[64], info[64], route[2 * SNAP_NAME + 8], detail[3 * SNAP_TEXT];

   for (size_t i = 0; i < s->nevents; i++) {
      int w;
      route_text (&s->events[i], route, sizeof route);
      w = meter_width (route);
      cols[C_ROUTE].want = w > cols[C_ROUTE].want ? w : cols[C_ROUTE].want;
      w = meter_width (s->events[i].ns);
      cols[C_NS].want = w > cols[C_NS].want ? w : cols[C_NS].want;
   }
   panel_update (p, (int) n, -1);
   snprintf (title, sizeof title, "Events (%zu%s)", n, n != s->nevents ? " filtered" : "");
   /* failures moved above newer rows (rows ran short) are said to be, not shown under a plain time order */
   snprintf (info, sizeof info, "%ssort: %s %s", pinned ? "failures pinned first, then " : "",
             dash_sort_name (DASH_EVENTS, d->sort[DASH_EVENTS]),
             d->invert[DASH_EVENTS] ? crt_glyphs->up : crt_glyphs->down);
   panel_draw_frame (p, cols, C_N, title, info);
   for (size_t i = 0; i < n; i++) {
      const snap_event_t *e = &s->events[order[i]];
      int y = panel_row_y (p, (int) i);
      bool bad = event_failed (e);
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
      route_text (e, route, sizeof route);
      panel_cell (p, y, &cols[C_ROUTE], route, ra);
      panel_cell (p, y, &cols[C_NS], e->ns, ra);
      detail_text (e, detail, sizeof detail);
      panel_cell (p, y, &cols[C_TEXT], detail, ra);
   }
}
