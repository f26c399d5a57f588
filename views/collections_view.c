/* The collections panel: namespace, shard key, chunks in total and per shard (mini bars), data size, the balance
 * verdict by the server version's policy and its reason, jumbo chunks, chunks outside their zone, balancing
 * disabled, the write rate and the hot shard with its key range; a totals row at the foot. Imbalanced and hot
 * collections stay on screen when rows run short. Enter opens the drill-down. */
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
coll_cmp (const void *a, const void *b)
{
   const snap_coll_t *x = &sort_snap->colls[*(const size_t *) a];
   const snap_coll_t *y = &sort_snap->colls[*(const size_t *) b];
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
   case 4:
      c = panel_cmp_desc ((double) (x->balance == SNAP_BAL_IMBALANCED), (double) (y->balance == SNAP_BAL_IMBALANCED));
      break;
   default:
      break;
   }
   return panel_sort_result (c, x->ns, y->ns, sort_inv);
}

size_t
view_colls_order (const dash_t *d, size_t *out)
{
   const snap_t *s = &d->snap;
   size_t n = 0;
   bool any_ns = false;
   bool *important = calloc (s->ncolls ? s->ncolls : 1, sizeof *important);
   if (!important)
      abort ();
   for (size_t i = 0; i < s->ncolls; i++) {
      const snap_coll_t *co = &s->colls[i];
      important[i] = co->balance == SNAP_BAL_IMBALANCED || co->hot_shard >= 0 || co->jumbo || co->out_of_zone;
   }
   for (size_t i = 0; i < s->ncolls && d->filter[0]; i++)
      any_ns = any_ns || dash_filter_match (d, s->colls[i].ns);
   for (size_t i = 0; i < s->ncolls; i++) {
      bool keep = !d->filter[0] || dash_filter_match (d, s->colls[i].ns);
      /* a shard filter keeps the collections with chunks on the matching shards */
      size_t ncv;
      const snap_cell_t *cv = snap_coll_cells (&s->colls[i], &ncv);
      for (size_t k = 0; !keep && !any_ns && k < ncv; k++)
         keep = cv[k].chunks > 0 && dash_filter_match (d, s->shards[cv[k].shard].name);
      if (keep)
         out[n++] = i;
   }
   sort_snap = s;
   sort_key = d->sort[DASH_COLLS];
   sort_inv = d->invert[DASH_COLLS];
   qsort (out, n, sizeof *out, coll_cmp);
   panel_important_first (out, n, important, panel_body_h (&d->panels[DASH_COLLS]));
   free (important);
   return n;
}

const char *
view_colls_selected (const dash_t *d)
{
   const panel_t *p = &d->panels[DASH_COLLS];
   for (size_t i = 0; p->sel_key[0] && i < d->snap.ncolls; i++)
      if (!strcmp (d->snap.colls[i].ns, p->sel_key))
         return d->snap.colls[i].ns;
   return NULL;
}

/* The hot cell: "▲HOT shard01 >= { ts: 2026-11-24 13:21:33.261 }" (the chunk whose max is MaxKey takes the inserts:
 * its min is all there is to say), "< { ts: ... }" for the MinKey end, or the hot shard alone. */
static void
hot_text (const snap_t *s, const snap_coll_t *co, char *buf, size_t len)
{
   char v[SNAP_TEXT];
   buf[0] = '\0';
   if (co->hot_shard >= 0 && co->has_hot_range) {
      bool top = !strcmp (co->hot_range_end, "MaxKey");
      snap_short_dates (snap_coll_end (co, top ? SNAP_TOP_MIN : SNAP_BOTTOM_MAX), NULL, v, sizeof v);
      snprintf (buf, len, "%s %s %s %s", crt_glyphs->hot, s->shards[co->hot_range_shard].name, top ? ">=" : "<", v);
   } else if (co->hot_shard >= 0) {
      snprintf (buf, len, "%s %s", crt_glyphs->hot, s->shards[co->hot_shard].name);
   }
}

void
view_colls_draw (dash_t *d, panel_t *p)
{
   const snap_t *s = &d->snap;
   int per_shard = (int) s->nshards > 9 ? (int) s->nshards : 9;
   panel_col_t cols[] = {
      { "NAMESPACE", 18, 0 }, { "KEY", 14, 2 },      { "CHUNKS", 6, 0, true },      { "PER SHARD", per_shard, 1 },
      { "DATA", 8, 1, true }, { "BAL", 5, 0 },       { "JUMBO", 5, 3, true },       { "ZONE!", 5, 3, true },
      { "BALANCING", 9, 5 },  { "W/S", 7, 2, true }, { "HOT", 12, 0, false, true }, { "WHY", 10, 4, false, true },
   };
   enum { C_NS, C_KEY, C_CHUNKS, C_PER, C_DATA, C_BAL, C_JUMBO, C_OOZ, C_NOBAL, C_WPS, C_HOT, C_WHY, C_N };
   size_t *order = calloc (s->ncolls ? s->ncolls : 1, sizeof *order);
   const char **texts = calloc (s->ncolls ? s->ncolls : 1, sizeof *texts);
   size_t n;
   int found = -1, fy;
   bool any_nobal = false, any_jumbo = false, any_ooz = false;
   char title[128], info[SNAP_TEXT + 16];

   if (!order || !texts)
      abort ();
   for (size_t i = 0; i < s->ncolls; i++)
      texts[i] = s->colls[i].ns;
   cols[C_NS].want = panel_text_width (texts, s->ncolls);
   for (size_t i = 0; i < s->ncolls; i++)
      texts[i] = s->colls[i].key;
   cols[C_KEY].want = panel_text_width (texts, s->ncolls);
   free (texts);
   for (size_t i = 0; i < s->ncolls; i++) {
      const snap_coll_t *co = &s->colls[i];
      int w = co->balance == SNAP_BAL_IMBALANCED ? meter_width (co->balance_why) : 0;
      cols[C_WHY].want = w > cols[C_WHY].want ? w : cols[C_WHY].want;
      any_nobal = any_nobal || co->no_balance;
      any_jumbo = any_jumbo || co->jumbo;
      any_ooz = any_ooz || co->out_of_zone;
   }
   /* a column that would say "on" or "-" on every row says nothing: its width goes to the others */
   if (!any_nobal)
      cols[C_NOBAL].prio = -1;
   if (!any_jumbo)
      cols[C_JUMBO].prio = -1;
   if (!any_ooz)
      cols[C_OOZ].prio = -1;
   for (size_t i = 0; i < s->ncolls; i++) {
      char hot[SNAP_NAME + SNAP_TEXT + 32];
      hot_text (s, &s->colls[i], hot, sizeof hot);
      if (meter_width (hot) > cols[C_HOT].want)
         cols[C_HOT].want = meter_width (hot);
   }
   n = view_colls_order (d, order);
   for (size_t i = 0; i < n; i++)
      if (p->sel_key[0] && !strcmp (s->colls[order[i]].ns, p->sel_key))
         found = (int) i;
   panel_update (p, (int) n, found);
   if (n)
      snprintf (p->sel_key, sizeof p->sel_key, "%s", s->colls[order[p->selected]].ns);
   snprintf (title, sizeof title, "Collections (%zu%s)  Enter: chunks", n, n != s->ncolls ? " filtered" : "");
   snprintf (info, sizeof info, "sort: %s %s", dash_sort_name (DASH_COLLS, d->sort[DASH_COLLS]),
             d->invert[DASH_COLLS] ? crt_glyphs->up : crt_glyphs->down);
   /* too narrow for the WHY column: the selected collection's reason goes in the title row */
   panel_fit_columns (cols, C_N, p->w);
   if (cols[C_WHY].x < 0 && n && s->colls[order[p->selected]].balance == SNAP_BAL_IMBALANCED)
      snprintf (info, sizeof info, "%s %s", crt_glyphs->imbalanced, s->colls[order[p->selected]].balance_why);
   panel_draw_frame (p, cols, C_N, title, info);
   for (size_t i = 0; i < n; i++) {
      const snap_coll_t *co = &s->colls[order[i]];
      int y = panel_row_y (p, (int) i);
      int ra;
      int64_t max = 0;
      char buf[SNAP_NAME + 2 * SNAP_TEXT + 64];
      size_t pos = 0, ncv;
      const snap_cell_t *cv;
      if (y < 0)
         continue;
      ra = panel_begin_row (p, y, (int) i == p->selected);
      panel_cell (p, y, &cols[C_NS], co->ns, ra);
      panel_cell (p, y, &cols[C_KEY], co->key, ra);
      snprintf (buf, sizeof buf, "%lld", (long long) co->chunks);
      panel_cell (p, y, &cols[C_CHUNKS], buf, ra);
      cv = snap_coll_cells (co, &ncv);
      for (size_t k = 0; k < ncv; k++)
         max = cv[k].chunks > max ? cv[k].chunks : max;
      buf[0] = '\0';
      for (size_t k = 0, c = 0; k < s->nshards && pos + 4 < sizeof buf; k++) {
         int64_t chunks = 0;
         const char *lv;
         while (c < ncv && cv[c].shard < (int32_t) k)
            c++;
         if (c < ncv && cv[c].shard == (int32_t) k)
            chunks = cv[c].chunks;
         lv = meter_level ((double) chunks, (double) max, crt_utf8);
         if (!strcmp (lv, " "))
            lv = crt_utf8 ? "\xc2\xb7" : "."; /* a shard with none shows a dot, not a gap */
         memcpy (buf + pos, lv, strlen (lv) + 1);
         pos += strlen (lv);
      }
      panel_cell (p, y, &cols[C_PER], buf, ra ? ra : crt_attr (CRT_BAR));
      panel_cell (p, y, &cols[C_DATA], snap_fmt_bytes (co->data_bytes, buf, sizeof buf), ra);
      panel_cell (p, y, &cols[C_WHY], co->balance == SNAP_BAL_IMBALANCED ? co->balance_why : "",
                  ra ? ra : crt_attr (CRT_WARN));
      if (co->balance == SNAP_BAL_IMBALANCED)
         snprintf (buf, sizeof buf, "%s IMB", crt_glyphs->imbalanced);
      else if (co->balance == SNAP_BAL_OK)
         snprintf (buf, sizeof buf, "%s ok", crt_glyphs->balanced);
      else
         snprintf (buf, sizeof buf, "%s", crt_glyphs->unknown);
      panel_cell (p, y, &cols[C_BAL], buf, ra ? ra : crt_attr (co->balance == SNAP_BAL_IMBALANCED ? CRT_WARN : CRT_OK));
      snprintf (buf, sizeof buf, "%lld", (long long) co->jumbo);
      panel_cell (p, y, &cols[C_JUMBO], co->jumbo ? buf : "-", ra ? ra : (co->jumbo ? crt_attr (CRT_WARN) : 0));
      snprintf (buf, sizeof buf, "%lld", (long long) co->out_of_zone);
      panel_cell (p, y, &cols[C_OOZ], co->out_of_zone ? buf : "-",
                  ra ? ra : (co->out_of_zone ? crt_attr (CRT_WARN) : 0));
      panel_cell (p, y, &cols[C_NOBAL], co->no_balance ? "disabled" : "on",
                  ra ? ra : (co->no_balance ? crt_attr (CRT_WARN) : 0));
      panel_cell (p, y, &cols[C_WPS], s->rates_valid ? snap_fmt_count (co->writes_ps, buf, sizeof buf) : "-", ra);
      buf[0] = '\0';
      hot_text (s, co, buf, sizeof buf);
      panel_cell (p, y, &cols[C_HOT], buf, ra ? ra : crt_attr (CRT_HOT));
   }
   if ((fy = panel_footer_y (p)) >= 0) {
      /* filtered: the totals of the rows shown, and said so */
      int dim = crt_attr (CRT_DIM);
      int64_t chunks = s->total_chunks, bytes = s->total_bytes, jumbo = s->total_jumbo;
      double wps = s->total_writes_ps;
      char buf[64];
      if (n != s->ncolls) {
         chunks = bytes = jumbo = 0;
         wps = 0;
         for (size_t i = 0; i < n; i++) {
            chunks += s->colls[order[i]].chunks;
            bytes += s->colls[order[i]].data_bytes;
            jumbo += s->colls[order[i]].jumbo;
            wps += s->colls[order[i]].writes_ps;
         }
      }
      mvhline (fy, p->x, ' ', p->w);
      panel_cell (p, fy, &cols[C_NS], n != s->ncolls ? "TOTAL (shown)" : "TOTAL", dim);
      snprintf (buf, sizeof buf, "%lld", (long long) chunks);
      panel_cell (p, fy, &cols[C_CHUNKS], buf, dim);
      panel_cell (p, fy, &cols[C_DATA], snap_fmt_bytes (bytes, buf, sizeof buf), dim);
      snprintf (buf, sizeof buf, "%lld", (long long) jumbo);
      panel_cell (p, fy, &cols[C_JUMBO], jumbo ? buf : "-", dim);
      panel_cell (p, fy, &cols[C_WPS], s->rates_valid ? snap_fmt_count (wps, buf, sizeof buf) : "-", dim);
   }
   free (order);
}
