/* The Ctrl-C flag and an interruptible sleep. See interrupt.h. */
#include <signal.h>
#include <string.h>
#include <time.h>

#include "interrupt.h"

static volatile sig_atomic_t sh_interrupt_flag;

static void
sh_interrupt_handler (int sig)
{
   (void) sig;
   sh_interrupt_flag = 1;
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
}

bool
sh_sleep_ms (int64_t ms)
{
   while (ms > 0) {
      int64_t step = ms < 50 ? ms : 50;
      struct timespec ts = {(time_t) (step / 1000), (long) (step % 1000) * 1000000L};
      if (sh_interrupt_flag)
         return false;
      nanosleep (&ts, NULL);
      ms -= step;
   }
   return !sh_interrupt_flag;
}
