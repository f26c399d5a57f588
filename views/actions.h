/* The dashboard's one key table: every entry carries its keys, the name shown for them, an optional function-bar
 * label, the help line and the action. Dispatch, the function bar, the help overlay (?) and the key table in
 * docs/dashboard.md all come from it. Actions only change dash_t and return a view_reaction bitmask. */
#ifndef SHARDSH_ACTIONS_H
#define SHARDSH_ACTIONS_H

#include <stdio.h>

#include "views/dash.h"

#define ACTION_MAX_KEYS 4

typedef int (*action_fn) (dash_t *d);

typedef struct {
   int keys[ACTION_MAX_KEYS]; /* curses key codes; 0 ends the list */
   const char *key_name;      /* "Up k", "Ctrl-L" */
   const char *bar;           /* function-bar label, NULL when not on the bar */
   const char *help;          /* one line for the help overlay and the docs */
   action_fn fn;
} action_t;

extern const action_t actions_table[];
extern const size_t actions_count;

/* The panels, top to bottom, with one line each: the help overlay and docs/dashboard.md list them from here. */
typedef struct {
   const char *name;
   const char *help;
} action_panel_t;

extern const action_panel_t actions_panels[];
extern const size_t actions_panel_count;

/* Handles one key: the filter editor while typing a filter, the help overlay while it is open, else the table.
 * Returns a view_reaction bitmask. */
int
actions_dispatch (dash_t *d, int key);

/* Draws the function bar (or the filter prompt) on row y. */
void
actions_draw_bar (const dash_t *d, int y);

/* help_view.c: draws the help overlay from the table, from line d->help_scroll. */
void
actions_draw_help (const dash_t *d);

/* help_view.c: a key while the help is open: j/k, PgUp/PgDn (Space), g/G scroll it; q quits; any other key closes it.
 * Returns a view_reaction bitmask. */
int
actions_help_key (dash_t *d, int key);

/* Writes the key table as Markdown rows ("| keys | what it does |"), as docs/dashboard.md carries it. */
void
actions_write_markdown (FILE *out);

/* Writes the panel table as Markdown rows ("| panel | what it shows |"), as docs/dashboard.md carries it. */
void
actions_write_panels_markdown (FILE *out);

#endif
