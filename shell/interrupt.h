/* Ctrl-C in the interactive shell: a SIGINT handler that only sets a flag, which the line reader and every long
 * wait (sh.waitForBalancer, sleep) poll, so Ctrl-C drops a line or abandons a wait and the shell lives on. */
#ifndef SHARDSH_INTERRUPT_H
#define SHARDSH_INTERRUPT_H

#include <stdbool.h>
#include <stdint.h>

/* Installs the handler (without SA_RESTART, so a blocking read returns). Scripts do not call this: there Ctrl-C
 * keeps its default meaning and ends the run. */
void
sh_interrupt_install (void);

/* True when Ctrl-C arrived since the last sh_interrupt_clear. */
bool
sh_interrupted (void);

void
sh_interrupt_clear (void);

/* Sleeps for ms milliseconds in short steps; returns false as soon as Ctrl-C arrives (true when the whole time
 * passed). */
bool
sh_sleep_ms (int64_t ms);

#endif
