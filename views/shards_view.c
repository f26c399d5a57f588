/* The shards panel: one row per shard with its state, zones, chunk count and bar, data, documents, write and read
 * rates, a sparkline of recent write rates and the hot marker. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crt.h"
#include "meter.h"
#include "views.h"

const char *const view_shards_sorts[] = { "name", "chunks", "data", "writes", NULL };

static const snapshot_t *sort_snap;
static int sort_key;
static bool sort_inv;

static int
shard_cmp (const void *a, const void *b)
{
   const snap_shard_t *x = &sort_snap->shards[*(const size_t *) a];
   const snap_shard_t *y = &sort_snap->shards[*(const size_t *) b];
   int c = 0;
   switch (sort_key) {
   case 1:
      c = panel_cmp_desc ((double) x->chunks, (double) y->chunks);
      break;
   case 2:
      c = panel_cmp_desc ((double) x->data_bytes, (double) y->data_bytes);
      break;
   case 3:
      c = panel_cmp_desc (x->writes_ps, y->writes_ps);
      break;
   default:
      break;
   }
   return panel_sort_result (c, x->name, y->name, sort_inv);
}

size_t
view_shards_order (const dash_t *d, size_t *out)
{
   const snapshot_t *s = &d->snap;
   size_t n = 0;
   bool any_name = false;
   for (size_t i = 0; i < s->nshards && d->filter[0]; i++)
      any_name = any_name || dash_filter_match (d, s->shards[i].name);
   for (size_t i = 0; i < s->nshards; i++) {
      bool keep = !d->filter[0] || !any_name || dash_filter_match (d, s->shards[i].name);
      if (keep)
         out[n++] = i;
   }
   sort_snap = s;
   sort_key = d->sort[DASH_SHARDS];
   sort_inv = d->invert[DASH_SHARDS];
   qsort (out, n, sizeof *out, shard_cmp);
   return n;
}

void
view_shards_draw (dash_t *d, panel_t *p)
{
   const snapshot_t *s = &d->snap;
   panel_col_t cols[] = {
      { "SHARD", 12, 0 },     { "STATE", 5, 3 },
      { "ZONES", 9, 4 },      { "CHUNKS", 6, 0, true },
      { "", 12, 2 },          { "DATA", 8, 1, true },
      { "DOCS", 7, 4, true }, { "W/S", 7, 0, true },
      { "R/S", 7, 2, true },  { "WRITES", 10, 3, false, true },
      { "HOT", 4, 0 },
   };
   enum { C_NAME, C_STATE, C_ZONES, C_CHUNKS, C_BAR, C_DATA, C_DOCS, C_WPS, C_RPS, C_SPARK, C_HOT, C_N };
   size_t *order = calloc (s->nshards ? s->nshards : 1, sizeof *order);
   size_t n;
   int found = -1;
   int64_t max_chunks = 0;
   char title[128], info[64];

   if (!order)
      return;
   n = view_shards_order (d, order);
   for (size_t i = 0; i < n; i++) {
      if (p->sel_key[0] && !strcmp (s->shards[order[i]].name, p->sel_key))
         found = (int) i;
      max_chunks = s->shards[order[i]].chunks > max_chunks ? s->shards[order[i]].chunks : max_chunks;
   }
   panel_update (p, (int) n, found);
   if (n)
      snprintf (p->sel_key, sizeof p->sel_key, "%s", s->shards[order[p->selected]].name);
   snprintf (title, sizeof title, "Shards (%zu%s)", n, n != s->nshards ? " filtered" : "");
   snprintf (info, sizeof info, "sort: %s %s", view_shards_sorts[d->sort[DASH_SHARDS]],
             d->invert[DASH_SHARDS] ? crt_glyphs->up : crt_glyphs->down);
   panel_draw_frame (p, cols, C_N, title, info);
   for (size_t i = 0; i < n; i++) {
      const snap_shard_t *sh = &s->shards[order[i]];
      int y = panel_row_y (p, (int) i);
      int ra, stale = s->stale ? crt_attr (CRT_STALE) & ~A_REVERSE : 0;
      char buf[256];
      if (y < 0)
         continue;
      ra = panel_begin_row (p, y, (int) i == p->selected);
      panel_cell (p, y, &cols[C_NAME], sh->name, ra ? ra : (sh->hot ? crt_attr (CRT_HOT) : 0));
      panel_cell (p, y, &cols[C_STATE], sh->draining ? crt_glyphs->draining : "ok",
                  ra ? ra : crt_attr (sh->draining ? CRT_WARN : CRT_OK));
      panel_cell (p, y, &cols[C_ZONES], sh->zones[0] ? sh->zones : "-", ra);
      snprintf (buf, sizeof buf, "%lld", (long long) sh->chunks);
      panel_cell (p, y, &cols[C_CHUNKS], buf, ra | stale);
      meter_bar (buf, sizeof buf, (double) sh->chunks, (double) max_chunks, cols[C_BAR].w, crt_utf8);
      panel_cell (p, y, &cols[C_BAR], buf, ra ? ra : crt_attr (CRT_BAR));
      panel_cell (p, y, &cols[C_DATA], snap_fmt_bytes (sh->data_bytes, buf, sizeof buf), ra | stale);
      panel_cell (p, y, &cols[C_DOCS], snap_fmt_count ((double) sh->docs, buf, sizeof buf), ra | stale);
      panel_cell (p, y, &cols[C_WPS], s->rates_valid ? snap_fmt_count (sh->writes_ps, buf, sizeof buf) : "-",
                  ra ? ra : (sh->hot ? crt_attr (CRT_HOT) : stale));
      panel_cell (p, y, &cols[C_RPS], s->rates_valid ? snap_fmt_count (sh->reads_ps, buf, sizeof buf) : "-",
                  ra | stale);
      meter_sparkline (buf, sizeof buf, sh->hist, sh->nhist, cols[C_SPARK].w, crt_utf8);
      panel_cell (p, y, &cols[C_SPARK], buf, ra ? ra : crt_attr (CRT_SPARK));
      panel_cell (p, y, &cols[C_HOT], sh->hot ? crt_glyphs->hot : "", ra ? ra : crt_attr (CRT_HOT));
   }
   free (order);
}
