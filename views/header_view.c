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

void
view_header_draw (const dash_t *d)
{
   const snap_t *s = &d->snap;
   const snap_balancer_t *b = &s->balancer;
   char host[SNAP_TEXT + 8], version[40], rounds[48], window[64], migr[48], clock[16], every[64], stale[SNAP_TEXT + 48];
   char paused[64], cost[64], ops[96];
   int64_t age = (d->now_ms - (s->sampled_at_ms ? s->sampled_at_ms : d->now_ms)) / 1000;
   const char *mode = !b->mode[0] ? "?" : b->mode;
   /* what goes first when the line is too narrow (fit.h): rounds, then the window, then the round state; the
    * router's name is cut with an ellipsis before that; never a word cut */
   fit_part_t top[] = {
      { " shardsh ", 0, 0, crt_attr (CRT_HEADER) },
      { host, 0, 16 },
      { version, 0 },
      { " balancer ", 0, 0, crt_attr (CRT_DIM) },
      { mode, 0, 0,
        crt_attr (!b->mode[0]                ? 0
                  : !strcmp (b->mode, "off") ? CRT_WARN
                                             : CRT_OK) },
      { b->in_round ? " [round running]" : " [idle]", 1 },
      { rounds, 3 },
      { window, 2 },
      { migr, 0, 0, b->migrations > 0 ? crt_attr (CRT_WARN) : 0 },
   };
   /* the sample clock, LOADING, STALE with its error and PAUSED stay (PAUSED's age is cut first, then the error); the
    * cost, then the router's rates go first */
   fit_part_t bottom[] = {
      { every, 0 },
      { d->loading ? " " : "", 0 },
      { d->loading ? " LOADING: the first full read of the cluster (seconds on a large one) " : "", 0, 30,
        crt_attr (CRT_PAUSED) },
      { s->stale ? " " : "", 0 },
      { stale, 0, 30, crt_attr (CRT_STALE) },
      { d->paused ? " " : "", 0 },
      { paused, 0, 8, crt_attr (CRT_PAUSED) },
      { cost, 2, 0, crt_attr (CRT_DIM) },
      { ops, 1 },
   };

   snprintf (host, sizeof host, " %s", s->host[0] ? s->host : "(connecting)");
   snprintf (version, sizeof version, " %s ", s->version);
   rounds[0] = '\0';
   if (b->rounds >= 0)
      snprintf (rounds, sizeof rounds, "  rounds %lld", (long long) b->rounds);
   if (b->has_window)
      snprintf (window, sizeof window, "  window %s-%s", b->window_start, b->window_stop);
   else
      snprintf (window, sizeof window, "  window always");
   if (b->migrations >= 0)
      snprintf (migr, sizeof migr, "  migrating %d", b->migrations);
   else
      snprintf (migr, sizeof migr, "  migrating ?");
   fmt_clock (s->sampled_at_ms, clock, sizeof clock);
   snprintf (every, sizeof every, " every %.1fs  last sample %s", d->interval_s, clock);
   stale[0] = paused[0] = cost[0] = ops[0] = '\0';
   if (s->stale)
      snprintf (stale, sizeof stale, " STALE %llds: %s ", (long long) age, s->error);
   if (d->paused)
      snprintf (paused, sizeof paused, " PAUSED, snapshot %llds old ", (long long) age);
   if (s->sampled_at_ms)
      snprintf (cost, sizeof cost, " (%lld ms, %d cmds)", (long long) s->sample_ms, s->round_trips);
   if (s->rates_valid)
      snprintf (ops, sizeof ops, "  ins/upd/del %.0f/%.0f/%.0f per s", s->inserts_ps, s->updates_ps, s->deletes_ps);

   mvhline (0, 0, ' ', d->cols);
   mvhline (1, 0, ' ', d->cols);
   fit_parts (top, sizeof top / sizeof top[0], d->cols - 1);
   panel_put_parts (0, 0, top, sizeof top / sizeof top[0]);
   fit_parts (bottom, sizeof bottom / sizeof bottom[0], d->cols - 1);
   panel_put_parts (1, 0, bottom, sizeof bottom / sizeof bottom[0]);
}
