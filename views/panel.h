/* A scrollable table widget: a rectangle with a title row, a column-heading row and a body of rows, one of them
 * selected. Columns are laid out by priority, so a narrow terminal drops the least important first. The panel
 * draws chrome and cells; what the rows are is the view's business. */
#ifndef SHARDSH_PANEL_H
#define SHARDSH_PANEL_H

#include <stdbool.h>
#include <stddef.h>

#include "views/fit.h"
#include "views/model/snapshot.h"

typedef struct {
   const char *title; /* column heading */
   int width;         /* cells; the last visible column may grow to fill the row when flex */
   int prio;          /* 0 = always shown; higher numbers are dropped first when the row is too narrow; < 0 hidden */
   bool right;        /* right-aligned */
   bool flex;         /* takes the width left over */
   int want;          /* the width its content needs (0: width is enough); slack widens it up to that first */
   int min;           /* > 0: a name column, narrowed down to min cells (cut with an ellipsis) before any column is
                       * dropped (fit.h's rule) */
   int x;             /* computed: offset in the panel, -1 when hidden */
   int w;             /* computed: width in effect */
} panel_col_t;

typedef struct {
   int x, y, w, h; /* rectangle on screen */
   int selected;   /* index in the view's ordered rows */
   int scroll;     /* first visible row */
   int nrows;      /* rows the view has after filtering */
   bool focused;
   bool footer;             /* the last row is a fixed footer (totals), not part of the body */
   char sel_key[SNAP_NAME]; /* identity of the selected row, kept across refreshes and re-sorts */
} panel_t;

void
panel_set_rect (panel_t *p, int x, int y, int w, int h);

/* Rows available for the body (h minus title, headings and footer; never negative). */
int
panel_body_h (const panel_t *p);

/* Screen row of the footer (the panel's last row), or -1 when the panel has none or no room for it. */
int
panel_footer_y (const panel_t *p);

/* Assigns x and w to the columns that fit in width (one space between columns). The name columns (min > 0) are
 * narrowed first, the least important first; then columns are dropped by priority until the rest fit; the width left
 * over goes first to the columns whose content is wider than their width (up to their want, the most important first),
 * then to the flexible ones. */
void
panel_fit_columns (panel_col_t *cols, size_t n, int width);

/* Display width of the widest of n strings (for a column's want). */
int
panel_text_width (const char *const *texts, size_t n);

/* Draws the title row: title at the left, info at the right (either may be NULL). The focused panel's title starts
 * with the focus glyph (▶, > in ASCII) and is drawn bold and reversed, so the focus survives --no-color. */
void
panel_draw_title (const panel_t *p, const char *title, const char *info);

/* Draws the column headings. */
void
panel_draw_headings (const panel_t *p, const panel_col_t *cols, size_t n);

/* Fits cols to the panel's width, draws the title row and the headings, and blanks every body row: the frame a
 * view draws before its rows. */
void
panel_draw_frame (const panel_t *p, panel_col_t *cols, size_t n, const char *title, const char *info);

/* For the views' sort comparators: orders two numbers biggest first (-1, 0 or 1). */
int
panel_cmp_desc (double a, double b);

/* Finishes a views' sort comparison: c from the sort column (0 when equal), ties broken by name, the whole reversed
 * when inv. */
int
panel_sort_result (int c, const char *xname, const char *yname, bool inv);

/* When the n ordered rows do not fit in room rows, moves the important ones (important[original index]) to the
 * front, keeping their order and the others': draining, hot or imbalanced rows are never the ones pushed off.
 * Returns whether that changed the order (a view says so in its title). */
bool
panel_important_first (size_t *order, size_t n, const bool *important, int room);

/* Sets nrows, keeps selected within range (following sel_key when it names a row: pass the index of that row in
 * found, or -1) and scrolls so the selection is visible. */
void
panel_update (panel_t *p, int nrows, int found);

/* Screen row of ordered row i, or -1 when it is scrolled out of view. */
int
panel_row_y (const panel_t *p, int i);

/* Clears body row y and, when selected, paints it with the selection attribute. Returns the attribute to use for
 * that row's cells (0 or the selection's). */
int
panel_begin_row (const panel_t *p, int y, bool selected);

/* Prints text in column col of row y, truncated or padded to the column width, with attr. */
void
panel_cell (const panel_t *p, int y, const panel_col_t *col, const char *text, int attr);

/* Draws the parts of a line (fit.h: fit_parts has set their w) from (y, x), each with its attr, a cut name ending in
 * the ellipsis. */
void
panel_put_parts (int y, int x, const fit_part_t *parts, size_t n);

/* Prints text at (y, x) in at most w cells, cut after its last whole word with an ellipsis when it is wider. */
void
panel_put_words (int y, int x, int w, const char *text);

/* Moves the selection by delta rows (clamped). */
void
panel_move (panel_t *p, int delta);

/* The scrolling keys of an overlay (help, event details) of total lines shown page at a time: how far key moves it
 * (j/k and the arrows a line, PgDn/space and PgUp a page, g/G and Home/End all the way), 0 when key is not one. */
int
panel_scroll_delta (int key, int page, int total);

/* *scroll moved by delta, kept within 0..max. */
void
panel_scroll_by (int *scroll, int delta, int max);

#endif
