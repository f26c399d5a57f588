/* The header: which cluster, what the balancer is doing, and how fresh the numbers are (the sample clock, its
 * cost, PAUSED with the snapshot's age, STALE with the error). */
#include <curses.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "views/crt.h"
#include "views/views.h"

static void
fmt_clock (int64_t ms, char *buf, size_t len)
{
   time_t t = (time_t) (ms / 1000);
   struct tm tm;
   if (!ms) {
      snprintf (buf, len, "never");
      return;
   }
   localtime_r (&t, &tm);
   strftime (buf, len, "%H:%M:%S", &tm);
}

/* Prints s at the cursor with attr, never past the last column. */
static void
put (const dash_t *d, int attr, const char *s)
{
   int y, x;
   getyx (stdscr, y, x);
   (void) y;
   if (x >= d->cols - 1)
      return;
   attron (attr);
   addnstr (s, d->cols - 1 - x);
   attroff (attr);
}

void
view_header_draw (const dash_t *d)
{
   const snap_t *s = &d->snap;
   const snap_balancer_t *b = &s->balancer;
   char buf[512], clock[16];
   int hdr = crt_attr (CRT_HEADER);

   mvhline (0, 0, ' ', d->cols);
   mvhline (1, 0, ' ', d->cols);
   move (0, 0);
   put (d, hdr, " shardsh ");
   snprintf (buf, sizeof buf, " %s %s ", s->host[0] ? s->host : "(connecting)", s->version);
   put (d, 0, buf);
   put (d, crt_attr (CRT_DIM), " balancer ");
   if (!b->mode[0])
      put (d, 0, "?");
   else if (!strcmp (b->mode, "off"))
      put (d, crt_attr (CRT_WARN), "off");
   else
      put (d, crt_attr (CRT_OK), b->mode);
   put (d, 0, b->in_round ? " [round running]" : " [idle]");
   if (b->rounds >= 0) {
      snprintf (buf, sizeof buf, "  rounds %lld", (long long) b->rounds);
      put (d, 0, buf);
   }
   if (b->has_window)
      snprintf (buf, sizeof buf, "  window %s-%s", b->window_start, b->window_stop);
   else
      snprintf (buf, sizeof buf, "  window always");
   put (d, 0, buf);
   if (b->migrations >= 0)
      snprintf (buf, sizeof buf, "  migrating %d", b->migrations);
   else
      snprintf (buf, sizeof buf, "  migrating ?");
   put (d, b->migrations > 0 ? crt_attr (CRT_WARN) : 0, buf);

   move (1, 0);
   fmt_clock (s->sampled_at_ms, clock, sizeof clock);
   snprintf (buf, sizeof buf, " every %.1fs  last sample %s", d->interval_s, clock);
   put (d, 0, buf);
   if (d->loading) {
      put (d, 0, " ");
      put (d, crt_attr (CRT_PAUSED), " LOADING: the first full read of the cluster (seconds on a large one) ");
   }
   if (s->stale) {
      snprintf (buf, sizeof buf, " STALE %llds: %s ",
                (long long) ((d->now_ms - (s->sampled_at_ms ? s->sampled_at_ms : d->now_ms)) / 1000), s->error);
      put (d, 0, " ");
      put (d, crt_attr (CRT_STALE), buf);
   }
   if (d->paused) {
      snprintf (buf, sizeof buf, " PAUSED, snapshot %llds old ",
                (long long) ((d->now_ms - (s->sampled_at_ms ? s->sampled_at_ms : d->now_ms)) / 1000));
      put (d, 0, " ");
      put (d, crt_attr (CRT_PAUSED), buf);
   }
   if (s->sampled_at_ms) {
      snprintf (buf, sizeof buf, " (%lld ms, %d cmds)", (long long) s->sample_ms, s->round_trips);
      put (d, crt_attr (CRT_DIM), buf);
   }
   if (s->rates_valid) {
      snprintf (buf, sizeof buf, "  ins/upd/del %.0f/%.0f/%.0f per s", s->inserts_ps, s->updates_ps, s->deletes_ps);
      put (d, 0, buf);
   }
}
