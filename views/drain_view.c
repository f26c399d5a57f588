/* The drain strip: one line per draining shard with what is left on it (chunks, data, databases it is primary
 * for), how fast it leaves over the last minutes, and the time left at that pace. Shown between the shards and
 * the collections while some shard drains and there is room; not a list (no selection). */
#include <curses.h>
#include <stdio.h>

#include "views/crt.h"
#include "views/views.h"

void
view_drain_draw (const dash_t *d, const panel_t *p)
{
   const snap_t *s = &d->snap;
   size_t nd = 0;
   int y = p->y + 1;
   char title[64], rate[40], eta[32], bytes[32], line[SNAP_NAME + 640];

   if (p->h <= 0)
      return;
   for (size_t i = 0; i < s->nshards; i++)
      nd += s->shards[i].draining;
   snprintf (title, sizeof title, "Draining (%zu)", nd);
   panel_draw_title (p, title, "left / time left / rate over the last minutes");
   for (size_t i = 0; i < s->nshards && y < p->y + p->h; i++) {
      const snap_shard_t *sh = &s->shards[i];
      const snap_drain_t *dr = &sh->drain;
      char dbs[24];
      if (!sh->draining)
         continue;
      snprintf (dbs, sizeof dbs, "%lld", (long long) dr->databases);
      snap_fmt_rate_bytes (dr->bytes_ps, rate, sizeof rate);
      snap_fmt_duration (dr->eta_s, eta, sizeof eta);
      const snap_op_t *op = dr->stuck ? snap_drain_op (s, sh->name) : NULL;
      if (op) /* STUCK where the time left would be, and why (the fix is in --json and sh.progress()) */
         snprintf (line, sizeof line, "%s: %lld chunks, %s, %s dbs left %s STUCK: %s", sh->name, (long long) dr->chunks,
                   snap_fmt_bytes (dr->bytes, bytes, sizeof bytes), dr->databases >= 0 ? dbs : "?", crt_glyphs->arrow,
                   op->stuck);
      else
         snprintf (line, sizeof line, "%s: %lld chunks, %s, %s dbs left %s %s left %s %s, %.2f chunks/s over %.0fs",
                   sh->name, (long long) dr->chunks, snap_fmt_bytes (dr->bytes, bytes, sizeof bytes),
                   dr->databases >= 0 ? dbs : "?", crt_glyphs->arrow, eta, crt_glyphs->arrow, rate,
                   dr->chunks_ps > 0 ? dr->chunks_ps : 0, dr->window_s);
      mvhline (y, p->x, ' ', p->w);
      attron (crt_attr (CRT_WARN));
      mvaddnstr (y, p->x + 1, crt_glyphs->draining, p->w - 2);
      attroff (crt_attr (CRT_WARN));
      panel_put_words (y, p->x + 7, p->w - 8, line);
      y++;
   }
}
