/* Millisecond wall and monotonic clocks (see clock_ms.h). */
#include <time.h>

#include "shell/lib/clock.h"

/* Milliseconds of the given clock. */
static int64_t
clock_ms (clockid_t id)
{
   struct timespec ts;
   clock_gettime (id, &ts);
   return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t
clock_wall_ms (void)
{
   return clock_ms (CLOCK_REALTIME);
}

int64_t
clock_mono_ms (void)
{
   return clock_ms (CLOCK_MONOTONIC);
}
