/* Ctrl-C in the interactive shell: a SIGINT handler that sets a flag, which the line reader and every long wait
 * (sh.waitForBalancer, sleep) poll, so Ctrl-C drops a line or abandons a wait and the shell lives on. A wait for a
 * server's reply cannot poll (the driver's poll(2) retries on EINTR), so the connection layer names the socket it is
 * blocked on, and the handler shuts that socket down: the read fails at once and the statement is abandoned. */
#ifndef SHARDSH_INTERRUPT_H
#define SHARDSH_INTERRUPT_H

#include <stdbool.h>
#include <stdint.h>

/* Installs the handler (without SA_RESTART, so a blocking read returns). Scripts do not call this: there Ctrl-C
 * keeps its default meaning and ends the run. */
void
sh_interrupt_install (void);

/* For a script run (docs/plan.md, "How a run ends"): SIGINT and SIGTERM set the flag and remember which signal
 * came first, without cutting the watched socket (the statement being sent gets its reply; the run stops at the next
 * statement boundary, a wait or sleep ends at once); a second signal cuts it as in the shell. SIGPIPE is ignored: a
 * closed stdout makes writes to it fail (EPIPE) and the script goes on changing the cluster to its end. */
void
sh_interrupt_install_script (void);

/* The signal (SIGINT, SIGTERM) that interrupted a script run, 0 when none came (or the REPL's handler is in use). */
int
sh_interrupt_signal (void);

/* True when Ctrl-C arrived since the last sh_interrupt_clear. */
bool
sh_interrupted (void);

/* True when a wait for the server is to end now: Ctrl-C in the shell; in a script run, a second signal (the first
 * lets the statement being sent get its reply). The connection layer asks this, the waits between statements ask
 * sh_interrupted. */
bool
sh_interrupt_cuts (void);

/* Clears the flag and the watched socket (the REPL, before each prompt: nothing is awaited there). */
void
sh_interrupt_clear (void);

/* Names the socket the process may block on (fd >= 0) until the next call, sh_interrupt_unwatch_fd or
 * sh_interrupt_clear: Ctrl-C shuts it down (shutdown(2), SHUT_RDWR), so a blocked read or write fails at once. */
void
sh_interrupt_watch_fd (int fd);

/* Stops watching fd if it is the watched socket (before it is closed, so a reused descriptor is never shut). */
void
sh_interrupt_unwatch_fd (int fd);

/* True, once, when Ctrl-C shut a watched socket down since the last call: that connection is unusable. */
bool
sh_interrupt_took_socket (void);

/* Sleeps for ms milliseconds in short steps; returns false as soon as Ctrl-C arrives (true when the whole time
 * passed). */
bool
sh_sleep_ms (int64_t ms);

#endif
