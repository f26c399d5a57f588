/* Millisecond clocks shared by the dashboard's screen loop, its collector and the tests: the wall clock (event
 * times, sample stamps) and the monotonic clock (intervals, deadlines). Plain C, no curses or MongoDB headers, so
 * views and shell code can both include it. */
#ifndef SHARDSH_CLOCK_H
#define SHARDSH_CLOCK_H

#include <stdint.h>

/* Milliseconds since the epoch (CLOCK_REALTIME). */
int64_t
clock_wall_ms (void);

/* Milliseconds on CLOCK_MONOTONIC: only differences mean anything. */
int64_t
clock_mono_ms (void);

#endif
