/* shardsim's interruption checks for long commands: scans and pipeline stages ask sim_should_stop() as they go, and
 * stop with the server's error when the simulator is shutting down (SIGTERM/SIGINT: 11600 InterruptedAtShutdown) or
 * when the client of a read-only command closed its connection (279 ClientDisconnect; the reply is then abandoned,
 * as a server abandons the operations of a client that went away). Only read-only commands are interrupted (find,
 * aggregate, count, distinct, between sim_stop_watch and sim_stop_unwatch): writes and admin commands act on what
 * their scans return and run to completion (the bulk loader checks the shutdown flag itself). */
#include "tests/shardsim/sim.h"

#include <poll.h>

/* Whether this thread runs an interruptible (read-only) command, the socket of its client (-1: none), when that was
 * last looked at, and whether it was found closed. */
static _Thread_local bool sim_stop_armed;
static _Thread_local int sim_stop_fd = -1;
static _Thread_local int64_t sim_stop_polled_ms;
static _Thread_local bool sim_stop_gone;

#define SIM_STOP_POLL_MS 10

void
sim_stop_watch (const sim_conn_t *conn)
{
   sim_stop_armed = true;
   sim_stop_fd = conn ? conn->fd : -1;
   sim_stop_polled_ms = 0;
   sim_stop_gone = false;
}

void
sim_stop_unwatch (void)
{
   sim_stop_armed = false;
   sim_stop_fd = -1;
   sim_stop_gone = false;
}

/* Whether the watched client closed its end (or the socket was shut): poll without waiting. */
static bool
sim_stop_client_gone (void)
{
   struct pollfd pfd = { .fd = sim_stop_fd, .events = POLLRDHUP };
   return poll (&pfd, 1, 0) > 0 && (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL));
}

bool
sim_should_stop (bson_error_t *error)
{
   if (!sim_stop_armed) {
      return false;
   }
   if (sim_g.shutting_down) {
      bson_set_error (error, SIMQ_ERROR_DOMAIN, 11600, "interrupted at shutdown");
      return true;
   }
   if (sim_stop_fd < 0) {
      return false;
   }
   if (!sim_stop_gone) {
      int64_t now = clock_wall_ms ();
      if (now - sim_stop_polled_ms < SIM_STOP_POLL_MS) {
         return false;
      }
      sim_stop_polled_ms = now;
      sim_stop_gone = sim_stop_client_gone ();
   }
   if (sim_stop_gone) {
      bson_set_error (error, SIMQ_ERROR_DOMAIN, 279, "operation was interrupted because a client disconnected");
      return true;
   }
   return false;
}
