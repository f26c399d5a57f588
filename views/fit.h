/* What shrinks first when a line is too narrow: the dashboard's one rule, for table columns (panel.c) and for the
 * free-text lines (header, operations, drain). A name is cut with an ellipsis before anything is dropped; then the
 * least important parts are dropped whole (a sparkline before a figure); a figure or a word is never cut. Pure
 * string work (no curses), so the unit tests check the rule as the screen applies it. */
#ifndef SHARDSH_FIT_H
#define SHARDSH_FIT_H

#include <stdbool.h>
#include <stddef.h>

/* One part of a line: its text carries its own leading separator ("  rounds 9"). */
typedef struct {
   const char *text;
   int prio; /* 0: kept while anything is; higher numbers are dropped first (the rightmost first on a tie) */
   int min;  /* > 0: a name, which may be cut to min cells (ending in an ellipsis) before any part is dropped */
   int attr; /* the caller's (the drawing attribute); fit never reads it */
   int w;    /* computed: the cells shown, 0 when dropped */
} fit_part_t;

/* Decides each part's w so that the parts fit in width cells: every part whole when they fit; else the names cut
 * towards their min (the least important first), then parts dropped by prio, then what was dropped and fits again
 * put back; when the prio-0 parts alone are too wide, names are cut further and the parts that still overflow are
 * dropped whole (a name keeps at least one cell and its ellipsis). Returns the cells used. */
int
fit_parts (fit_part_t *parts, size_t n, int width);

/* Copies into buf (len bytes) the first w cells of s; when s is wider than w, its first w - 1 cells and ell (one
 * cell: "…", or "~" in ASCII). Cells are code points, as meter_width counts them. Returns buf. */
char *
fit_cut (char *buf, size_t len, const char *s, int w, const char *ell);

/* Like fit_cut, but a text too wide is cut at the end of its last whole word that fits with the ellipsis (at w - 1
 * cells only when the first word alone is too wide), so no figure is cut mid-word. Returns buf. */
char *
fit_cut_words (char *buf, size_t len, const char *s, int w, const char *ell);

/* Wraps s into lines of at most w cells, breaking at spaces (a word wider than w is split): the byte offset and
 * length of each line into starts and lens (room for max lines each). Returns the number of lines, at most max. */
size_t
fit_wrap (const char *s, int w, size_t *starts, size_t *lens, size_t max);

#endif
