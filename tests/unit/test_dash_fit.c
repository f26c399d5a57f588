/* passes: plain asan */
/* The dashboard's one shrinking rule (views/fit.c, and panel_fit_columns on it): names cut with an ellipsis before
 * anything is dropped, then the least important parts dropped whole, never a word or figure cut; the help's wrap. */
#include <stdio.h>
#include <string.h>

#include "views/fit.h"
#include "views/panel.h"
#include "views/views.h"
#include "tests/unit/unit.h"

static void
test_parts (void)
{
   fit_part_t p[] = {
      { " shardsh ", 0 },      { " mongos-prod-01.example.net:27017", 0, 16 },
      { " 7.0.16 ", 0 },       { " [round running]", 1 },
      { "  rounds 41235", 3 }, { "  window always", 2 },
      { "  migrating 0", 0 },
   };
   size_t n = sizeof p / sizeof p[0];
   char buf[128];
   /* wide: everything whole */
   CHECK ("fit/wide_whole", fit_parts (p, n, 200) == 108 && p[1].w == 33 && p[5].w == 15);
   /* 80: the host is cut to its least first, then the rounds go whole; the cut host gets back what is left */
   fit_parts (p, n, 79);
   CHECK ("fit/80_drops_whole", p[4].w == 0 && p[5].w == 15 && p[3].w == 16 && p[6].w == 13 && p[2].w == 8);
   CHECK ("fit/80_name_cut", p[1].w == 18);
   /* 60: the window and the round state go too, then the rounds come back as they fit */
   fit_parts (p, n, 60);
   CHECK ("fit/60", p[4].w == 14 && p[5].w == 0 && p[3].w == 0 && p[6].w == 13 && p[1].w == 16);
   /* a name is cut only as far as needed */
   fit_parts (p, n, 105);
   CHECK ("fit/name_cut_least", p[4].w == 14 && p[5].w == 15 && p[1].w == 30);
   CHECK_STR ("fit/cut_ellipsis", "mongos-p~", fit_cut (buf, sizeof buf, "mongos-prod", 9, "~"));
   CHECK_STR ("fit/cut_fits", "abc", fit_cut (buf, sizeof buf, "abc", 9, "~"));
   CHECK_STR ("fit/cut_utf8", "ab\xe2\x80\xa6", fit_cut (buf, sizeof buf, "abcdef", 3, "\xe2\x80\xa6"));
   CHECK_STR ("fit/words", "7 chunks, 26 KB~", fit_cut_words (buf, sizeof buf, "7 chunks, 26 KB, 0 dbs left", 20, "~"));
}

/* The last visible column ends within width. */
static bool
cols_fit (const panel_col_t *cols, size_t n, int width)
{
   int end = 0;
   for (size_t i = 0; i < n; i++)
      if (cols[i].x >= 0)
         end = cols[i].x + cols[i].w;
   return end <= width;
}

static void
test_columns (void)
{
   /* the chunk list's own table (chunks_view.c), all nine columns: the bounds are cut before anything is dropped,
    * then JUMBO (3), ZONE (2), and only then DOCS and SIZE (1); KIND, SHARD and MARK always stay */
   enum { KIND, MIN, MAX, SHARD, DOCS, SIZE, JUMBO, ZONE, MARK };
   panel_col_t cols[VIEW_CHUNK_NCOLS];
   view_chunks_columns (cols);
   CHECK ("columns/table", !strcmp (cols[MIN].title, "MIN") && !strcmp (cols[MARK].title, "MARK") && cols[MIN].min > 0);
   panel_fit_columns (cols, VIEW_CHUNK_NCOLS, 200);
   CHECK ("columns/200_whole", cols[MIN].w >= 20 && cols[MAX].w >= 20 && cols[JUMBO].x >= 0 && cols[ZONE].x >= 0 &&
                                  cols_fit (cols, VIEW_CHUNK_NCOLS, 200));
   panel_fit_columns (cols, VIEW_CHUNK_NCOLS, 100);
   CHECK ("columns/100_names_cut_first", cols[JUMBO].x >= 0 && cols[ZONE].x >= 0 && cols[MAX].w < 20 &&
                                            cols[MAX].w >= 12 && cols_fit (cols, VIEW_CHUNK_NCOLS, 100));
   panel_fit_columns (cols, VIEW_CHUNK_NCOLS, 90);
   CHECK ("columns/90_jumbo_goes_first",
          cols[JUMBO].x < 0 && cols[ZONE].x >= 0 && cols[DOCS].x >= 0 && cols_fit (cols, VIEW_CHUNK_NCOLS, 90));
   panel_fit_columns (cols, VIEW_CHUNK_NCOLS, 80);
   CHECK ("columns/80_figures_kept", cols[ZONE].x < 0 && cols[DOCS].x >= 0 && cols[SIZE].x >= 0);
   CHECK ("columns/80_names_cut", cols[MIN].w < 20 && cols[MIN].w >= 12 && cols[MAX].w >= 12);
   CHECK ("columns/80_fits", cols_fit (cols, VIEW_CHUNK_NCOLS, 80));
   panel_fit_columns (cols, VIEW_CHUNK_NCOLS, 60);
   CHECK ("columns/60_drops_figures_last", cols[DOCS].x < 0 && cols[SIZE].x < 0 && cols[MAX].w == 12 &&
                                              cols[MIN].w >= 12 && cols[KIND].x >= 0 && cols[SHARD].x >= 0 &&
                                              cols[MARK].x >= 0 && cols_fit (cols, VIEW_CHUNK_NCOLS, 60));
}

static void
test_wrap (void)
{
   size_t st[8], ln[8];
   const char *s = "filter by namespace or shard, in the chunk list by shard";
   size_t n = fit_wrap (s, 20, st, ln, 8);
   CHECK ("wrap/lines", n == 3);
   CHECK ("wrap/first_at_space", ln[0] == 19 && !strncmp (s + st[0], "filter by namespace", ln[0]));
   CHECK ("wrap/long_word_split", fit_wrap ("abcdefghij", 4, st, ln, 8) == 3 && ln[0] == 4);
}

int
main (void)
{
   test_parts ();
   test_columns ();
   test_wrap ();
   UNIT_EXIT ();
}
