/* The event details overlay (Enter on the events panel): the event as the panel lists it, a failure's text, the
 * chunk that holds the event's range now and the shard that owns it, then the whole log entry as mongosh prints it,
 * wrapped to the terminal and scrolled with j/k. What it shows the collector read (snap_event_detail_t). */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "views/crt.h"
#include "views/fit.h"
#include "views/views.h"

typedef dash_lines_t lines_t;

static void
push (lines_t *l, const char *s, size_t len)
{
   if (l->n == l->cap) {
      l->cap = l->cap ? 2 * l->cap : 32;
      l->v = realloc (l->v, l->cap * sizeof *l->v);
      if (!l->v)
         abort ();
   }
   l->v[l->n] = malloc (len + 1);
   if (!l->v[l->n])
      abort ();
   memcpy (l->v[l->n], s, len);
   l->v[l->n++][len] = '\0';
}

/* Appends text wrapped to w cells, keeping its own line breaks and each line's indentation. */
static void
push_wrapped (lines_t *l, const char *text, int w)
{
   const char *p = text;
   while (*p) {
      size_t len = strcspn (p, "\n"), st[64], ln[64], indent = strspn (p, " ");
      char *one = malloc (len + 1);
      size_t k;
      if (!one)
         abort ();
      memcpy (one, p, len);
      one[len] = '\0';
      if (len <= indent) {
         push (l, "", 0);
      } else {
         k = fit_wrap (one + indent, w - (int) indent > 8 ? w - (int) indent : 8, st, ln, 64);
         for (size_t i = 0; i < k; i++) {
            char buf[4096];
            snprintf (buf, sizeof buf, "%*s%.*s", (int) indent, "", (int) ln[i], one + indent + st[i]);
            push (l, buf, strlen (buf));
         }
      }
      free (one);
      p += len;
      if (*p == '\n')
         p++;
   }
}

static void
build (const dash_t *d, lines_t *l, int w)
{
   const snap_event_t *e = &d->detail_event;
   const snap_event_detail_t *x = &d->ev_detail;
   char buf[4 * SNAP_TEXT];
   if (e->min[0]) {
      snprintf (buf, sizeof buf, "range: %s %s %s", e->min, crt_glyphs->arrow, e->max);
      push_wrapped (l, buf, w);
   } else if (e->text[0]) {
      push_wrapped (l, e->text, w);
   }
   if (x->error[0]) {
      snprintf (buf, sizeof buf, "failure: %s", x->error);
      push_wrapped (l, buf, w);
   }
   if (x->owner[0]) {
      snprintf (buf, sizeof buf, "owner now: %s holds the chunk %s", x->owner, x->owner_range);
      push_wrapped (l, buf, w);
   } else if (e->min[0] && x->doc) {
      push_wrapped (l, "owner now: no chunk of the collection holds this range any more", w);
   }
   if (x->read_error[0]) {
      snprintf (buf, sizeof buf, "could not read: %s", x->read_error);
      push_wrapped (l, buf, w);
   }
   if (x->doc) {
      snprintf (buf, sizeof buf, "config.%s entry:", e->actionlog ? "actionlog" : "changelog");
      push (l, buf, strlen (buf));
      push_wrapped (l, x->doc, w);
   }
}

/* d's overlay lines at width w: the ones made before, unless the width or the event changed since. */
static const lines_t *
wrapped (dash_t *d, int w)
{
   lines_t *l = &d->detail_wrap;
   if (l->v && l->width == w && l->gen == d->detail_gen)
      return l;
   dash_lines_clear (l);
   build (d, l, w);
   l->width = w;
   l->gen = d->detail_gen;
   return l;
}

int
view_event_detail_lines (dash_t *d)
{
   return (int) wrapped (d, d->cols - 2)->n;
}

void
view_event_detail_draw (dash_t *d)
{
   const snap_event_t *e = &d->detail_event;
   int top = 2, h = d->lines - 3, rows = h - 1, first = d->detail_scroll;
   const lines_t *l;
   char title[3 * SNAP_NAME + 96], when[16];
   time_t t = (time_t) (e->time_ms / 1000);
   struct tm tm;
   panel_t p = { .x = 0, .y = top, .w = d->cols, .h = h, .focused = true };

   if (h < 2)
      return;
   l = wrapped (d, d->cols - 2);
   localtime_r (&t, &tm);
   strftime (when, sizeof when, "%H:%M:%S", &tm);
   snprintf (title, sizeof title, "Event %s %s %s%s%s %s", when, e->what, e->from, e->to[0] ? " -> " : "", e->to,
             e->ns);
   if (first > (int) l->n - rows)
      first = (int) l->n - rows > 0 ? (int) l->n - rows : 0;
   panel_draw_title (&p, title, (int) l->n > rows ? "j/k scroll  Esc: back" : "Esc: back");
   for (int i = 0; i < rows; i++) {
      int y = top + 1 + i;
      mvhline (y, 0, ' ', d->cols);
      if (first + i < (int) l->n)
         mvaddnstr (y, 1, l->v[first + i], d->cols - 2);
   }
}
