/* The Ctrl-C flag, the socket a wait for a reply is blocked on, and an interruptible sleep. See interrupt.h. */
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "shell/core/interrupt.h"

static volatile sig_atomic_t sh_interrupt_flag;
static volatile sig_atomic_t sh_interrupt_fd = -1; /* the watched socket, -1 for none */
static volatile sig_atomic_t sh_interrupt_cut;     /* the handler shut the watched socket down */
static volatile sig_atomic_t sh_interrupt_sig;     /* the signal that set the flag (scripts), 0 for none */
static volatile sig_atomic_t sh_interrupt_again;   /* a second signal came */
static volatile sig_atomic_t sh_interrupt_gentle;  /* scripts: the first signal leaves the socket alone */

/* Only async-signal-safe calls: shutdown(2) makes the driver's poll(2) on that socket return at once. */
static void
sh_interrupt_handler (int sig)
{
   int saved = errno;
   int fd = sh_interrupt_fd;
   bool again = sh_interrupt_flag != 0;
   sh_interrupt_flag = 1;
   if (again)
      sh_interrupt_again = 1;
   if (!sh_interrupt_sig)
      sh_interrupt_sig = sig;
   /* a script waits for the reply of the statement it is sending (the signal ends the run at the next statement
    * boundary); a second signal stops waiting */
   if ((!sh_interrupt_gentle || again) && fd >= 0 && shutdown (fd, SHUT_RDWR) == 0)
      sh_interrupt_cut = 1;
   errno = saved;
}

void
sh_interrupt_install (void)
{
   struct sigaction sa;
   memset (&sa, 0, sizeof sa);
   sa.sa_handler = sh_interrupt_handler;
   sigemptyset (&sa.sa_mask);
   sh_interrupt_gentle = 0;
   sigaction (SIGINT, &sa, NULL);
}

void
sh_interrupt_install_script (void)
{
   struct sigaction sa;
   memset (&sa, 0, sizeof sa);
   sa.sa_handler = sh_interrupt_handler;
   sigemptyset (&sa.sa_mask);
   sa.sa_flags = SA_RESTART; /* a read of a file or a write to a pipe is not cut short; waits poll the flag */
   sh_interrupt_gentle = 1;
   sigaction (SIGINT, &sa, NULL);
   sigaction (SIGTERM, &sa, NULL);
   signal (SIGPIPE, SIG_IGN);
}

int
sh_interrupt_signal (void)
{
   return sh_interrupt_gentle ? sh_interrupt_sig : 0;
}

bool
sh_interrupt_cuts (void)
{
   return sh_interrupt_flag != 0 && (!sh_interrupt_gentle || sh_interrupt_again != 0);
}

bool
sh_interrupted (void)
{
   return sh_interrupt_flag != 0;
}

void
sh_interrupt_clear (void)
{
   sh_interrupt_flag = 0;
   sh_interrupt_again = 0;
   sh_interrupt_sig = 0;
   sh_interrupt_fd = -1;
}

void
sh_interrupt_watch_fd (int fd)
{
   sh_interrupt_fd = fd;
}

void
sh_interrupt_unwatch_fd (int fd)
{
   if (fd >= 0 && sh_interrupt_fd == fd)
      sh_interrupt_fd = -1;
}

bool
sh_interrupt_took_socket (void)
{
   bool took = sh_interrupt_cut != 0;
   sh_interrupt_cut = 0;
   return took;
}

bool
sh_sleep_ms (int64_t ms)
{
   while (ms > 0) {
      int64_t step = ms < 50 ? ms : 50;
      struct timespec ts = { (time_t) (step / 1000), (long) (step % 1000) * 1000000L };
      if (sh_interrupt_flag)
         return false;
      nanosleep (&ts, NULL);
      ms -= step;
   }
   return !sh_interrupt_flag;
}
