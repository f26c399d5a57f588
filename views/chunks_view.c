/* The drill-down: one collection's zone ranges (with the shards in each zone) and its chunks (range, shard,
 * jumbo, zone, and a mark on chunks that sit outside their zone). Esc goes back. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "crt.h"
#include "views.h"

void
view_chunks_draw (dash_t *d, panel_t *p)
{
   const snap_chunks_t *c = &d->chunks;
   panel_col_t cols[] = {
      { "", 5, 0 },
      { "MIN", 20, 0, false, true },
      { "MAX", 20, 0, false, true },
      { "SHARD", 12, 0 },
      { "JUMBO", 5, 1 },
      { "ZONE", 12, 0 },
   };
   enum { C_KIND, C_MIN, C_MAX, C_SHARD, C_JUMBO, C_ZONE, C_N };
   int nrows = (int) (c->nzones + c->nchunks);
   char title[SNAP_NAME + 96], info[64];

   panel_update (p, nrows, -1);
   snprintf (title, sizeof title, "Chunks of %s (%zu%s, %zu zone ranges)  Esc: back", d->drill_ns, c->nchunks,
             c->truncated ? "+, capped" : "", c->nzones);
   snprintf (info, sizeof info, "%d/%d", nrows ? p->selected + 1 : 0, nrows);
   /* two flexible columns share the slack */
   panel_draw_frame (p, cols, C_N, title, info);
   if (c->error[0] && panel_body_h (p) > 0) {
      attron (crt_attr (CRT_HOT));
      mvaddnstr (p->y + 2, p->x + 1, c->error, p->w - 2);
      attroff (crt_attr (CRT_HOT));
      return;
   }
   for (int i = 0; i < nrows; i++) {
      int y = panel_row_y (p, i);
      int ra;
      if (y < 0)
         continue;
      ra = panel_begin_row (p, y, i == p->selected);
      if ((size_t) i < c->nzones) {
         const snap_zone_t *z = &c->zones[i];
         panel_cell (p, y, &cols[C_KIND], "zone", ra ? ra : crt_attr (CRT_DIM));
         panel_cell (p, y, &cols[C_MIN], z->min, ra);
         panel_cell (p, y, &cols[C_MAX], z->max, ra);
         panel_cell (p, y, &cols[C_SHARD], z->shards[0] ? z->shards : "(no shard)", ra);
         panel_cell (p, y, &cols[C_ZONE], z->zone, ra);
      } else {
         const snap_chunk_t *ch = &c->chunks[(size_t) i - c->nzones];
         char zone[96];
         snprintf (zone, sizeof zone, "%s%s%s", ch->zone, ch->out_of_zone ? " " : "",
                   ch->out_of_zone ? crt_glyphs->ooz : "");
         panel_cell (p, y, &cols[C_KIND], "chunk", ra);
         panel_cell (p, y, &cols[C_MIN], ch->min, ra);
         panel_cell (p, y, &cols[C_MAX], ch->max, ra);
         panel_cell (p, y, &cols[C_SHARD], ch->shard, ra);
         panel_cell (p, y, &cols[C_JUMBO], ch->jumbo ? crt_glyphs->jumbo : "", ra ? ra : crt_attr (CRT_WARN));
         panel_cell (p, y, &cols[C_ZONE], zone, ra ? ra : (ch->out_of_zone ? crt_attr (CRT_WARN) : 0));
      }
   }
}
