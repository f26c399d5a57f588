/* shardsim's shared state at the bottom of the simulator: the global sim_g (version personality, collections,
 * cursors, counters) and the version table, the cluster clock, random numbers and UUIDs every module uses. Depends
 * on nothing of the simulator but its declarations. */
#include "tests/shardsim/sim_state.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

sim_state_t sim_g;

static const sim_version_t sim_versions[] = {
   { "4.4", "4.4.29", 44, 9 }, { "5.0", "5.0.31", 50, 13 }, { "6.0", "6.0.20", 60, 17 }, { "7.0", "7.0.16", 70, 21 },
   { "8.0", "8.0.4", 80, 25 }, { "8.2", "8.2.1", 82, 27 },  { "8.3", "8.3.0", 83, 28 },  { "9.0", "9.0.0", 90, 29 },
};

const sim_version_t *
sim_version_find (const char *name)
{
   for (size_t i = 0; i < sizeof sim_versions / sizeof sim_versions[0]; i++) {
      if (!strcmp (sim_versions[i].name, name) || !strcmp (sim_versions[i].full, name)) {
         return &sim_versions[i];
      }
   }
   return NULL;
}

bool
sim_ver_ge (int num)
{
   return sim_g.ver->num >= num;
}

uint64_t
sim_rand (void)
{
   /* splitmix64 */
   uint64_t z = (sim_g.rng += 0x9E3779B97F4A7C15ull);
   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
   z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
   return z ^ (z >> 31);
}

void
sim_uuid_new (uint8_t out[16])
{
   uint64_t a = sim_rand (), b = sim_rand ();
   memcpy (out, &a, 8);
   memcpy (out + 8, &b, 8);
   out[6] = (uint8_t) ((out[6] & 0x0F) | 0x40);
   out[8] = (uint8_t) ((out[8] & 0x3F) | 0x80);
}

void
sim_cluster_time (uint32_t *secs, uint32_t *inc)
{
   if (sim_g.ct_secs == 0) {
      sim_g.ct_secs = (uint32_t) (clock_wall_ms () / 1000);
      sim_g.ct_inc = 1;
   }
   *secs = sim_g.ct_secs;
   *inc = sim_g.ct_inc;
}

void
sim_tick (uint32_t *secs, uint32_t *inc)
{
   uint32_t now = (uint32_t) (clock_wall_ms () / 1000);
   if (now > sim_g.ct_secs) {
      sim_g.ct_secs = now;
      sim_g.ct_inc = 1;
   } else {
      sim_g.ct_inc++;
   }
   *secs = sim_g.ct_secs;
   *inc = sim_g.ct_inc;
}
