/* The shards panel: one row per shard with its state, zones, chunk count and bar, data, documents, write and read
 * rates, a sparkline of recent write rates (one scale for the whole column, shown in its heading), the trend since
 * the dashboard started and the hot marker; a totals row at the foot. Draining and hot shards stay on screen when
 * rows run short. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views/crt.h"
#include "views/meter.h"
#include "views/views.h"

static const snap_t *sort_snap;
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
   const snap_t *s = &d->snap;
   size_t n = 0;
   bool any_name = false;
   bool *important = calloc (s->nshards ? s->nshards : 1, sizeof *important);
   if (!important)
      abort ();
   for (size_t i = 0; i < s->nshards && d->filter[0]; i++)
      any_name = any_name || dash_filter_match (d, s->shards[i].name);
   for (size_t i = 0; i < s->nshards; i++) {
      bool keep = !d->filter[0] || !any_name || dash_filter_match (d, s->shards[i].name);
      if (keep)
         out[n++] = i;
      important[i] = s->shards[i].draining || s->shards[i].hot;
   }
   sort_snap = s;
   sort_key = d->sort[DASH_SHARDS];
   sort_inv = d->invert[DASH_SHARDS];
   qsort (out, n, sizeof *out, shard_cmp);
   panel_important_first (out, n, important, panel_body_h (&d->panels[DASH_SHARDS]));
   free (important);
   return n;
}

/* "+3 +12 KB": chunks and data gained (or lost) since the dashboard's first sample. */
static void
fmt_trend (const snap_shard_t *sh, char *buf, size_t len)
{
   char b[32];
   snap_fmt_bytes (sh->bytes_delta < 0 ? -sh->bytes_delta : sh->bytes_delta, b, sizeof b);
   snprintf (buf, len, "%+lld %s%s", (long long) sh->chunks_delta, sh->bytes_delta < 0 ? "-" : "+", b);
}

void
view_shards_draw (dash_t *d, panel_t *p)
{
   const snap_t *s = &d->snap;
   /* what goes first when narrow (fit.h): the zones and the trend, then the sparkline, then the bar, before a
    * figure (documents, reads) */
   panel_col_t cols[] = {
      { "SHARD", 10, 0 },     { "STATE", 5, 1 },
      { "ZONES", 9, 5 },      { "CHUNKS", 6, 0, true },
      { "", 12, 3 },          { "DATA", 8, 1, true },
      { "DOCS", 7, 2, true }, { "W/S", 7, 0, true },
      { "R/S", 7, 2, true },  { "WRITES", 12, 4, false, false, SNAP_HIST },
      { "TREND", 14, 5 },     { "HOT", 4, 0 },
   };
   enum { C_NAME, C_STATE, C_ZONES, C_CHUNKS, C_BAR, C_DATA, C_DOCS, C_WPS, C_RPS, C_SPARK, C_TREND, C_HOT, C_N };
   size_t *order = calloc (s->nshards ? s->nshards : 1, sizeof *order);
   const char **names = calloc (s->nshards ? s->nshards : 1, sizeof *names);
   size_t n;
   int found = -1, fy;
   int64_t max_chunks = 0;
   double spark_max = 0;
   char title[160], info[64], spark_head[48], buf[256];

   if (!order || !names)
      abort ();
   n = view_shards_order (d, order);
   for (size_t i = 0; i < s->nshards; i++)
      names[i] = s->shards[i].name;
   cols[C_NAME].want = panel_text_width (names, s->nshards);
   if (n != s->nshards && cols[C_NAME].want < 13) /* room for "TOTAL (shown)" */
      cols[C_NAME].want = 13;
   panel_fit_columns (cols, C_N, p->w);
   for (size_t i = 0; i < n; i++) {
      const snap_shard_t *sh = &s->shards[order[i]];
      if (p->sel_key[0] && !strcmp (sh->name, p->sel_key))
         found = (int) i;
      max_chunks = sh->chunks > max_chunks ? sh->chunks : max_chunks;
   }
   /* one scale for every sparkline of the column, so equal heights mean equal rates */
   for (size_t i = 0; i < s->nshards; i++) {
      double m = meter_spark_max (s->shards[i].hist, s->shards[i].nhist, cols[C_SPARK].w);
      spark_max = m > spark_max ? m : spark_max;
   }
   snprintf (spark_head, sizeof spark_head, "WRITES %s%s/s",
             crt_utf8 ? "\xe2\x89\xa4" : "<=", snap_fmt_count (spark_max, buf, sizeof buf));
   cols[C_SPARK].title = spark_head;
   panel_update (p, (int) n, found);
   if (n)
      snprintf (p->sel_key, sizeof p->sel_key, "%s", s->shards[order[p->selected]].name);
   snprintf (title, sizeof title, "Shards (%zu%s)", n, n != s->nshards ? " filtered" : "");
   snprintf (info, sizeof info, "sort: %s %s", dash_sort_name (DASH_SHARDS, d->sort[DASH_SHARDS]),
             d->invert[DASH_SHARDS] ? crt_glyphs->up : crt_glyphs->down);
   panel_draw_frame (p, cols, C_N, title, info);
   for (size_t i = 0; i < n; i++) {
      const snap_shard_t *sh = &s->shards[order[i]];
      int y = panel_row_y (p, (int) i);
      int ra, stale = s->stale ? crt_attr (CRT_STALE) & ~A_REVERSE : 0;
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
      meter_sparkline (buf, sizeof buf, sh->hist, sh->nhist, cols[C_SPARK].w, spark_max, crt_utf8);
      panel_cell (p, y, &cols[C_SPARK], buf, ra ? ra : crt_attr (CRT_SPARK));
      fmt_trend (sh, buf, sizeof buf);
      panel_cell (p, y, &cols[C_TREND], buf, ra);
      panel_cell (p, y, &cols[C_HOT], sh->hot ? crt_glyphs->hot : "", ra ? ra : crt_attr (CRT_HOT));
   }
   if ((fy = panel_footer_y (p)) >= 0) {
      /* filtered: the totals of the rows shown, and said so */
      int dim = crt_attr (CRT_DIM);
      int64_t chunks = s->total_chunks, bytes = s->total_bytes, docs = s->total_docs;
      double wps = s->total_writes_ps, rps = s->total_reads_ps;
      if (n != s->nshards) {
         chunks = bytes = docs = 0;
         wps = rps = 0;
         for (size_t i = 0; i < n; i++) {
            const snap_shard_t *sh = &s->shards[order[i]];
            chunks += sh->chunks;
            bytes += sh->data_bytes;
            docs += sh->docs;
            wps += sh->writes_ps;
            rps += sh->reads_ps;
         }
      }
      mvhline (fy, p->x, ' ', p->w);
      panel_cell (p, fy, &cols[C_NAME], n != s->nshards ? "TOTAL (shown)" : "TOTAL", dim);
      snprintf (buf, sizeof buf, "%lld", (long long) chunks);
      panel_cell (p, fy, &cols[C_CHUNKS], buf, dim);
      panel_cell (p, fy, &cols[C_DATA], snap_fmt_bytes (bytes, buf, sizeof buf), dim);
      panel_cell (p, fy, &cols[C_DOCS], snap_fmt_count ((double) docs, buf, sizeof buf), dim);
      panel_cell (p, fy, &cols[C_WPS], s->rates_valid ? snap_fmt_count (wps, buf, sizeof buf) : "-", dim);
      panel_cell (p, fy, &cols[C_RPS], s->rates_valid ? snap_fmt_count (rps, buf, sizeof buf) : "-", dim);
   }
   free (names);
   free (order);
}
