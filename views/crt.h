/* Terminal plumbing for the dashboard: curses start and stop, semantic colour elements with a monochrome scheme,
 * the glyph set (Unicode or ASCII), and a terminal that is restored on every way out (quit, SIGINT, SIGTERM,
 * SIGHUP, SIGSEGV, abort). Nothing here knows about MongoDB. */
#ifndef SHARDSH_CRT_H
#define SHARDSH_CRT_H

#include <signal.h>
#include <stdbool.h>

/* What a colour means, never which colour it is. */
typedef enum {
   CRT_DEFAULT = 0,
   CRT_HEADER,      /* the header lines */
   CRT_TITLE,       /* a panel's title row */
   CRT_TITLE_FOCUS, /* the focused panel's title row */
   CRT_COLHDR,      /* column headings */
   CRT_SELECTED,    /* the selected row */
   CRT_OK,          /* balanced, success */
   CRT_WARN,        /* imbalanced, draining, jumbo, outside zone */
   CRT_HOT,         /* hot shard, failures */
   CRT_STALE,       /* numbers from an older sample */
   CRT_PAUSED,
   CRT_BAR,   /* chunk bars */
   CRT_SPARK, /* sparklines */
   CRT_DIM,   /* secondary text */
   CRT_KEY,   /* key names in the function bar and help */
   CRT_N
} crt_elem_t;

/* The glyphs beside meaningful colours, so monochrome and colour-blind users see the same facts. */
typedef struct {
   const char *hot;        /* "▲HOT" */
   const char *imbalanced; /* "≠" */
   const char *balanced;   /* "=" */
   const char *unknown;
   const char *draining;
   const char *arrow;     /* "→" */
   const char *up, *down; /* sort direction */
   const char *jumbo;
   const char *ooz;      /* outside zone */
   const char *ellipsis; /* the end of a cut name: "…" (one cell) */
   const char *focus;    /* before the focused panel's title: "▶" (one cell) */
} crt_glyphs_t;

extern const crt_glyphs_t *crt_glyphs;
extern bool crt_utf8;                         /* the terminal takes UTF-8 block characters */
extern volatile sig_atomic_t crt_quit_signal; /* set by SIGINT/SIGTERM/SIGHUP: the loop ends cleanly */

/* Picks the glyph set from the locale (UTF-8 or ASCII) without starting curses (batch modes use it too). */
void
crt_pick_glyphs (void);

/* Starts curses on the terminal: cbreak, no echo, keypad, invisible cursor; colours unless color is false or
 * the terminal has none (then the monochrome scheme); installs the signal handlers. Saves the terminal modes from
 * before curses and the terminal's exit sequences (sgr0, op, rmkx, cnorm, rmcup) for the fatal-signal handler.
 * Returns false when there is no usable terminal (nothing to undo then). */
bool
crt_init (bool color);

/* Restores the terminal through curses (endwin). Idempotent; also run atexit. Not async-signal-safe: SIGSEGV,
 * SIGABRT, SIGBUS, SIGFPE and SIGILL restore the saved modes and write the saved sequences instead, then die of the
 * signal; SIGINT, SIGTERM and SIGHUP only set crt_quit_signal, and the loop leaves through here. */
void
crt_done (void);

/* Frees curses' memory after crt_done (not signal-safe; the normal way out only). */
void
crt_destroy (void);

/* The curses attribute for an element in the active scheme. */
int
crt_attr (crt_elem_t elem);

#endif
