/* Terminal plumbing: curses on and off, the colour schemes (colour and monochrome, chosen once), glyphs, and the
 * signal handlers that give the terminal back whatever happens. */
#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "views/crt.h"

static const crt_glyphs_t glyphs_utf8 = {
   .hot = "\xe2\x96\xb2HOT",
   .imbalanced = "\xe2\x89\xa0",
   .balanced = "=",
   .unknown = "?",
   .draining = "DRAIN",
   .arrow = "\xe2\x86\x92",
   .up = "\xe2\x96\xb2",
   .down = "\xe2\x96\xbc",
   .jumbo = "J",
   .ooz = "Z!",
   .ellipsis = "\xe2\x80\xa6",
   .focus = "\xe2\x96\xb6",
};
static const crt_glyphs_t glyphs_ascii = {
   .hot = "^HOT",
   .imbalanced = "!",
   .balanced = "=",
   .unknown = "?",
   .draining = "DRAIN",
   .arrow = "->",
   .up = "^",
   .down = "v",
   .jumbo = "J",
   .ooz = "Z!",
   .ellipsis = "~",
   .focus = ">",
};

const crt_glyphs_t *crt_glyphs = &glyphs_ascii;
bool crt_utf8;
volatile sig_atomic_t crt_quit_signal;

static SCREEN *crt_screen;
static volatile sig_atomic_t crt_active;
static int crt_attrs[CRT_N];

/* What the fatal-signal handler restores without curses (it may only make async-signal-safe calls): the terminal
 * modes from before newterm, and the terminal's own sequences that reset attributes and colours, leave keypad mode,
 * show the cursor and leave the alternate screen, read from terminfo at crt_init. */
static struct termios crt_tio_in, crt_tio_out;
static bool crt_have_tio_in, crt_have_tio_out;
static char crt_exit_seq[512];
static size_t crt_exit_len;

void
crt_pick_glyphs (void)
{
   const char *cs;
   setlocale (LC_ALL, "");
   cs = nl_langinfo (CODESET);
   crt_utf8 = cs && (!strcmp (cs, "UTF-8") || !strcmp (cs, "utf8"));
   crt_glyphs = crt_utf8 ? &glyphs_utf8 : &glyphs_ascii;
}

void
crt_done (void)
{
   if (!crt_active)
      return;
   crt_active = 0;
   curs_set (1);
   endwin ();
}

void
crt_destroy (void)
{
   crt_done ();
   if (crt_screen) {
      delscreen (crt_screen);
      crt_screen = NULL;
   }
}

static void
crt_on_quit_signal (int sig)
{
   (void) sig;
   crt_quit_signal = 1;
}

/* Appends terminfo capability cap to crt_exit_seq, without its padding ("$<5>", which only a curses output routine
 * turns into a delay). Absent, cancelled or non-string capabilities are skipped. */
static void
crt_exit_seq_add (const char *cap)
{
   const char *s = tigetstr (cap);
   if (!s || s == (char *) -1)
      return;
   while (*s && crt_exit_len < sizeof crt_exit_seq - 1) {
      const char *end;
      if (s[0] == '$' && s[1] == '<' && (end = strchr (s, '>')) != NULL) {
         s = end + 1;
         continue;
      }
      crt_exit_seq[crt_exit_len++] = *s++;
   }
}

/* SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL: the process may be anywhere, inside malloc or stdio included, so only
 * write(2), tcsetattr(3), sigaction(2), raise(3) and sigprocmask(2) are used (all async-signal-safe; endwin is not).
 * Then the signal's default action runs, so the exit status and the core dump are those of the crash. */
static void
crt_on_fatal_signal (int sig)
{
   struct sigaction dfl;
   sigset_t set;

   if (crt_active) {
      size_t off = 0;
      crt_active = 0;
      while (off < crt_exit_len) {
         ssize_t w = write (STDOUT_FILENO, crt_exit_seq + off, crt_exit_len - off);
         if (w < 0 && errno == EINTR)
            continue;
         if (w <= 0)
            break;
         off += (size_t) w;
      }
      if (crt_have_tio_out)
         tcsetattr (STDOUT_FILENO, TCSANOW, &crt_tio_out);
      if (crt_have_tio_in)
         tcsetattr (STDIN_FILENO, TCSANOW, &crt_tio_in);
   }
   memset (&dfl, 0, sizeof dfl);
   dfl.sa_handler = SIG_DFL;
   sigemptyset (&dfl.sa_mask);
   sigaction (sig, &dfl, NULL);
   raise (sig);
   /* the signal is blocked while its handler runs: unblocking delivers it now */
   sigemptyset (&set);
   sigaddset (&set, sig);
   sigprocmask (SIG_UNBLOCK, &set, NULL);
}

static void
crt_install_signals (void)
{
   struct sigaction sa;
   static const int quit_sigs[] = { SIGINT, SIGTERM, SIGHUP };
   static const int fatal_sigs[] = { SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL };

   memset (&sa, 0, sizeof sa);
   sigemptyset (&sa.sa_mask);
   sa.sa_handler = crt_on_quit_signal;
   for (size_t i = 0; i < sizeof quit_sigs / sizeof quit_sigs[0]; i++)
      sigaction (quit_sigs[i], &sa, NULL);
   sa.sa_handler = crt_on_fatal_signal;
   sa.sa_flags = SA_RESETHAND;
   for (size_t i = 0; i < sizeof fatal_sigs / sizeof fatal_sigs[0]; i++)
      sigaction (fatal_sigs[i], &sa, NULL);
}

static void
crt_scheme (bool color)
{
   static const struct {
      crt_elem_t e;
      short fg, bg;
      int extra;
   } pairs[] = {
      { CRT_HEADER, COLOR_CYAN, -1, A_BOLD },
      { CRT_TITLE, COLOR_BLACK, COLOR_WHITE, 0 },
      { CRT_TITLE_FOCUS, COLOR_BLACK, COLOR_CYAN, A_BOLD },
      { CRT_COLHDR, COLOR_BLACK, COLOR_GREEN, 0 },
      { CRT_SELECTED, COLOR_BLACK, COLOR_CYAN, 0 },
      { CRT_OK, COLOR_GREEN, -1, 0 },
      { CRT_WARN, COLOR_YELLOW, -1, A_BOLD },
      { CRT_HOT, COLOR_RED, -1, A_BOLD },
      { CRT_STALE, COLOR_WHITE, COLOR_RED, A_BOLD },
      { CRT_PAUSED, COLOR_BLACK, COLOR_YELLOW, A_BOLD },
      { CRT_BAR, COLOR_GREEN, -1, 0 },
      { CRT_SPARK, COLOR_CYAN, -1, 0 },
      { CRT_DIM, COLOR_BLUE, -1, A_BOLD },
      { CRT_KEY, COLOR_BLACK, COLOR_CYAN, 0 },
   };
   static const int mono[CRT_N] = {
      [CRT_HEADER] = A_BOLD,
      [CRT_TITLE] = A_BOLD,
      [CRT_TITLE_FOCUS] = A_REVERSE | A_BOLD,
      [CRT_COLHDR] = A_UNDERLINE,
      [CRT_SELECTED] = A_REVERSE,
      [CRT_WARN] = A_BOLD,
      [CRT_HOT] = A_BOLD | A_UNDERLINE,
      [CRT_STALE] = A_REVERSE,
      [CRT_PAUSED] = A_REVERSE,
      [CRT_DIM] = A_DIM,
      [CRT_KEY] = A_REVERSE,
   };
   memcpy (crt_attrs, mono, sizeof crt_attrs);
   if (!color || !has_colors () || start_color () == ERR)
      return;
   use_default_colors ();
   for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
      init_pair ((short) (i + 1), pairs[i].fg, pairs[i].bg);
      crt_attrs[pairs[i].e] = COLOR_PAIR ((int) i + 1) | pairs[i].extra;
   }
}

bool
crt_init (bool color)
{
   static bool registered;
   if (crt_active)
      return true;
   if (!isatty (STDIN_FILENO) || !isatty (STDOUT_FILENO))
      return false;
   crt_pick_glyphs ();
   crt_have_tio_in = tcgetattr (STDIN_FILENO, &crt_tio_in) == 0;
   crt_have_tio_out = tcgetattr (STDOUT_FILENO, &crt_tio_out) == 0;
   crt_screen = newterm (NULL, stdout, stdin);
   if (!crt_screen)
      return false;
   set_term (crt_screen);
   crt_exit_len = 0;
   crt_exit_seq_add ("sgr0");  /* attributes off */
   crt_exit_seq_add ("op");    /* default colours */
   crt_exit_seq_add ("rmkx");  /* keypad transmit mode off */
   crt_exit_seq_add ("cnorm"); /* cursor shown */
   crt_exit_seq_add ("rmcup"); /* alternate screen left */
   crt_exit_seq[crt_exit_len] = '\0';
   crt_active = 1;
   if (!registered) {
      atexit (crt_done);
      registered = true;
   }
   crt_quit_signal = 0;
   crt_install_signals ();
   cbreak ();
   noecho ();
   nonl ();
   keypad (stdscr, TRUE);
   set_escdelay (25);
   curs_set (0);
   crt_scheme (color);
   return true;
}

int
crt_attr (crt_elem_t elem)
{
   return elem < CRT_N ? crt_attrs[elem] : 0;
}
