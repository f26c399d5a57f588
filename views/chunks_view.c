/* The drill-down: one collection's zone ranges (with the shards in each zone) and its chunks (range, shard, documents
 * and size, jumbo, zone, a mark on chunks outside their zone, on the hot chunk and on chunks being moved). The filter
 * keeps the chunks whose shard, zone or bounds match it; s sorts by the next column, I inverts. Esc goes back. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views/crt.h"
#include "views/meter.h"
#include "views/views.h"

static const snap_chunks_t *sort_chunks;
static int sort_key;
static bool sort_inv;

/* Rows are numbered zones first (0 .. nzones-1), then chunks (nzones + chunk index). */
static int
chunk_cmp (const void *a, const void *b)
{
   size_t i = *(const size_t *) a, k = *(const size_t *) b;
   size_t nz = sort_chunks->nzones;
   const snap_chunk_t *x, *y;
   int c = 0;
   if (i < nz || k < nz) /* zone ranges stay on top, in key order */
      return i < nz && k < nz ? (i > k) - (i < k) : i < nz ? -1 : 1;
   x = &sort_chunks->chunks[i - nz];
   y = &sort_chunks->chunks[k - nz];
   switch (sort_key) {
   case 1:
      c = strcmp (x->shard, y->shard);
      break;
   case 2:
      c = panel_cmp_desc ((double) x->docs, (double) y->docs);
      break;
   case 3:
      c = panel_cmp_desc ((double) x->bytes, (double) y->bytes);
      break;
   default:
      break;
   }
   if (!c) /* the fetch order is the key order */
      c = (i > k) - (i < k);
   return sort_inv ? -c : c;
}

size_t
view_chunks_order (const dash_t *d, size_t *out)
{
   const snap_chunks_t *c = &d->chunks;
   size_t n = 0;
   for (size_t i = 0; i < c->nzones; i++) {
      const snap_zone_t *z = &c->zones[i];
      if (!d->filter[0] || dash_filter_match (d, z->zone) || dash_filter_match (d, z->shards))
         out[n++] = i;
   }
   for (size_t i = 0; i < c->nchunks; i++) {
      const snap_chunk_t *ch = &c->chunks[i];
      /* the shard that owns it, not the one it may be moving to: "/shard02" lists what shard02 holds */
      if (!d->filter[0] || dash_filter_match (d, ch->shard) || dash_filter_match (d, ch->zone) ||
          dash_filter_match (d, ch->min) || dash_filter_match (d, ch->max))
         out[n++] = c->nzones + i;
   }
   sort_chunks = c;
   sort_key = d->chunk_sort;
   sort_inv = d->chunk_invert;
   qsort (out, n, sizeof *out, chunk_cmp);
   return n;
}

size_t
view_chunks_visible (const dash_t *d, size_t *out, size_t max)
{
   const snap_chunks_t *c = &d->chunks;
   size_t total = c->nzones + c->nchunks, n, k = 0;
   size_t *order = calloc (total ? total : 1, sizeof *order);
   if (!order)
      abort ();
   n = view_chunks_order (d, order);
   for (size_t i = 0; i < n && k < max; i++)
      if (order[i] >= c->nzones && panel_row_y (&d->chunk_panel, (int) i) >= 0)
         out[k++] = order[i] - c->nzones;
   free (order);
   return k;
}

/* The chunk list's columns as drawn before fitting; the bounds are cut (with an ellipsis) before the documents and
 * size are dropped. */
static const panel_col_t chunk_cols[VIEW_CHUNK_NCOLS] = {
   { "", 5, 0 },
   { "MIN", 20, 0, false, true, 0, 12 },
   { "MAX", 20, 0, false, true, 0, 12 },
   { "SHARD", 10, 0 },
   { "DOCS", 7, 1, true },
   { "SIZE", 8, 1, true },
   { "JUMBO", 5, 3 },
   { "ZONE", 10, 2 },
   { "MARK", 14, 0 },
};

void
view_chunks_columns (panel_col_t cols[VIEW_CHUNK_NCOLS])
{
   memcpy (cols, chunk_cols, sizeof chunk_cols);
}

void
view_chunks_draw (dash_t *d, panel_t *p)
{
   const snap_chunks_t *c = &d->chunks;
   panel_col_t cols[VIEW_CHUNK_NCOLS];
   enum { C_KIND, C_MIN, C_MAX, C_SHARD, C_DOCS, C_SIZE, C_JUMBO, C_ZONE, C_MARK, C_N };
   size_t total = c->nzones + c->nchunks;
   size_t *order = calloc (total ? total : 1, sizeof *order);
   size_t n, nch = 0;
   bool any_jumbo = false, any_zone = false;
   char title[SNAP_NAME + 128], info[96];

   if (!order)
      abort ();
   view_chunks_columns (cols);
   n = view_chunks_order (d, order);
   for (size_t i = 0; i < n; i++)
      nch += order[i] >= c->nzones;
   /* columns with nothing to say on any row give their width to the bounds */
   for (size_t i = 0; i < c->nchunks; i++) {
      any_jumbo = any_jumbo || c->chunks[i].jumbo;
      any_zone = any_zone || c->chunks[i].zone[0];
   }
   if (!any_jumbo)
      cols[C_JUMBO].prio = -1;
   if (!any_zone && !c->nzones)
      cols[C_ZONE].prio = -1;
   panel_update (p, (int) n, -1);
   snprintf (title, sizeof title, "Chunks of %s (%zu%s%s, %zu zone ranges)  Esc: back", d->drill_ns, nch,
             nch != c->nchunks ? " filtered" : "", c->truncated ? ", capped" : "", c->nzones);
   snprintf (info, sizeof info, "sort: %s %s  %d/%d", dash_sort_name (DASH_NPANELS, d->chunk_sort),
             d->chunk_invert ? crt_glyphs->up : crt_glyphs->down, n ? p->selected + 1 : 0, (int) n);
   panel_draw_frame (p, cols, C_N, title, info);
   if (c->error[0] && panel_body_h (p) > 0) {
      attron (crt_attr (CRT_HOT));
      mvaddnstr (p->y + 2, p->x + 1, c->error, p->w - 2);
      attroff (crt_attr (CRT_HOT));
      free (order);
      return;
   }
   for (size_t i = 0; i < n; i++) {
      int y = panel_row_y (p, (int) i);
      int ra;
      char a[SNAP_TEXT], b[SNAP_TEXT];
      if (y < 0)
         continue;
      ra = panel_begin_row (p, y, (int) i == p->selected);
      if (order[i] < c->nzones) {
         const snap_zone_t *z = &c->zones[order[i]];
         panel_cell (p, y, &cols[C_KIND], "zone", ra ? ra : crt_attr (CRT_DIM));
         panel_cell (p, y, &cols[C_MIN], snap_short_dates (z->min, NULL, a, sizeof a), ra);
         panel_cell (p, y, &cols[C_MAX], snap_short_dates (z->max, z->min, b, sizeof b), ra);
         panel_cell (p, y, &cols[C_SHARD], z->shards[0] ? z->shards : "(no shard)", ra);
         panel_cell (p, y, &cols[C_ZONE], z->zone, ra);
      } else {
         const snap_chunk_t *ch = &c->chunks[order[i] - c->nzones];
         char zone[96], mark[SNAP_NAME + 32];
         snprintf (zone, sizeof zone, "%s%s%s", ch->zone, ch->out_of_zone ? " " : "",
                   ch->out_of_zone ? crt_glyphs->ooz : "");
         if (ch->moving_to[0])
            snprintf (mark, sizeof mark, "%s%s%s %s", ch->hot ? crt_glyphs->hot : "", ch->hot ? " " : "",
                      crt_glyphs->arrow, ch->moving_to);
         else
            snprintf (mark, sizeof mark, "%s", ch->hot ? crt_glyphs->hot : "");
         panel_cell (p, y, &cols[C_KIND], "chunk", ra);
         panel_cell (p, y, &cols[C_MIN], snap_short_dates (ch->min, NULL, a, sizeof a), ra);
         panel_cell (p, y, &cols[C_MAX], snap_short_dates (ch->max, ch->min, b, sizeof b), ra);
         panel_cell (p, y, &cols[C_SHARD], ch->shard, ra);
         panel_cell (p, y, &cols[C_DOCS], ch->docs >= 0 ? snap_fmt_count ((double) ch->docs, a, sizeof a) : "-", ra);
         panel_cell (p, y, &cols[C_SIZE], ch->bytes >= 0 ? snap_fmt_bytes (ch->bytes, a, sizeof a) : "-", ra);
         panel_cell (p, y, &cols[C_JUMBO], ch->jumbo ? crt_glyphs->jumbo : "", ra ? ra : crt_attr (CRT_WARN));
         panel_cell (p, y, &cols[C_ZONE], zone, ra ? ra : (ch->out_of_zone ? crt_attr (CRT_WARN) : 0));
         panel_cell (p, y, &cols[C_MARK], mark, ra ? ra : crt_attr (ch->hot ? CRT_HOT : CRT_WARN));
      }
   }
   free (order);
}
