/* The Ctrl-C flag, the socket a wait for a reply is blocked on, and an interruptible sleep. See interrupt.h. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "shell/core/interrupt.h"

static volatile sig_atomic_t sh_interrupt_flag;
static volatile sig_atomic_t sh_interrupt_fd = -1; /* the watched socket, -1 for none */
static volatile sig_atomic_t sh_interrupt_cut;     /* the handler shut the watched socket down */

/* Only async-signal-safe calls: shutdown(2) makes the driver's poll(2) on that socket return at once. */
static void
sh_interrupt_handler (int sig)
{
   int saved = errno;
   int fd = sh_interrupt_fd;
   (void) sig;
   sh_interrupt_flag = 1;
   if (fd >= 0 && shutdown (fd, SHUT_RDWR) == 0)
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
   sigaction (SIGINT, &sa, NULL);
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
