/* The dashboard's state (dash.h): its life, the filter every view applies, and the sort choices of each panel. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "views/dash.h"

/* The sort choices of each panel, by index (DASH_NPANELS: the drill-down's chunk list); the views order their rows by
 * these indices. */
static const char *const dash_sorts[DASH_NPANELS + 1][6] = {
   [DASH_SHARDS] = { "name", "chunks", "data", "writes", NULL },
   [DASH_COLLS] = { "namespace", "chunks", "data", "writes", "imbalance", NULL },
   [DASH_EVENTS] = { "time", "kind", "namespace", "shard", NULL },
   [DASH_NPANELS] = { "min", "shard", "docs", "size", NULL },
};

void
dash_init (dash_t *d, double interval_s)
{
   memset (d, 0, sizeof *d);
   d->interval_s = interval_s;
   d->focus = DASH_COLLS;
}

void
dash_destroy (dash_t *d)
{
   snap_destroy (&d->snap);
   snap_chunks_destroy (&d->chunks);
   chunkmap_data_destroy (&d->cmap);
   snap_event_detail_destroy (&d->ev_detail);
   dash_lines_clear (&d->detail_wrap);
}

void
dash_detail_changed (dash_t *d)
{
   d->detail_gen++;
}

void
dash_lines_clear (dash_lines_t *l)
{
   for (size_t i = 0; i < l->n; i++)
      free (l->v[i]);
   free (l->v);
   memset (l, 0, sizeof *l);
}

bool
dash_filter_match (const dash_t *d, const char *text)
{
   size_t fl = strlen (d->filter), tl;
   if (!fl)
      return true;
   tl = strlen (text);
   for (size_t i = 0; i + fl <= tl; i++) {
      size_t k = 0;
      while (k < fl && tolower ((unsigned char) text[i + k]) == tolower ((unsigned char) d->filter[k]))
         k++;
      if (k == fl)
         return true;
   }
   return false;
}

int
dash_sort_count (int panel)
{
   int n = 0;
   if (panel < 0 || panel > DASH_NPANELS)
      panel = DASH_NPANELS;
   while (dash_sorts[panel][n])
      n++;
   return n;
}

const char *
dash_sort_name (int panel, int sort)
{
   if (panel < 0 || panel > DASH_NPANELS)
      panel = DASH_NPANELS;
   return sort >= 0 && sort < dash_sort_count (panel) ? dash_sorts[panel][sort] : "?";
}
