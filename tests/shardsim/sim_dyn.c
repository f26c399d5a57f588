/* shardsim's background thread: every few milliseconds it runs the workloads that are due, the balancer (rounds on
 * its interval, migrations finishing) and the periodic faults. It holds sim_g.lock only while it works and is joined
 * on shutdown. */
#include "tests/shardsim/sim.h"

#include <unistd.h>

sim_dyn_t sim_dyn;

static void *
sim_dyn_main (void *arg)
{
   (void) arg;
   while (!sim_g.shutting_down) {
      usleep (5000);
      int64_t now = clock_wall_ms ();
      sim_fault_tick (now);
      pthread_mutex_lock (&sim_g.lock);
      if (sim_dyn.nwls || sim_dyn.nmigs || sim_dyn.live) {
         sim_workload_tick (now);
         sim_balancer_tick (now);
      }
      pthread_mutex_unlock (&sim_g.lock);
   }
   /* Wake anyone waiting for a round. */
   pthread_mutex_lock (&sim_g.lock);
   pthread_cond_broadcast (&sim_dyn.round_done);
   pthread_mutex_unlock (&sim_g.lock);
   return NULL;
}

bool
sim_dyn_start (void)
{
   if (pthread_create (&sim_dyn.thread, NULL, sim_dyn_main, NULL) != 0) {
      return false;
   }
   sim_dyn.thread_started = true;
   return true;
}

void
sim_dyn_stop (void)
{
   if (sim_dyn.thread_started) {
      pthread_join (sim_dyn.thread, NULL);
      sim_dyn.thread_started = false;
   }
   sim_workload_free_all ();
   sim_balancer_free ();
}
