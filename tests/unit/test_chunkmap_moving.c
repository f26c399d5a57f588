/* passes: plain asan */
/* The chunk map's moving mark against shardsim (4.4: config.migrations; 7.0: the donors' _shardsvrMoveRange in
 * $currentOp): with a live balancer whose migrations last a minute and a draining shard to give it work, the
 * collector's snapshot lists a migration in flight whose Extended JSON bounds parse and read as its shell-style
 * text, and on the collection's chunk map (read from config.chunks) they mark exactly one range: the one that begins
 * at the migration's min, owned by its donor. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "views/model/collect.h"
#include "shell/core/conn.h"
#include "shell/core/ctx.h"
#include "shell/core/output.h"
#include "shell/lib/order.h"
#include "tests/unit/simctx.h"
#include "tests/unit/simproc.h"
#include "tests/unit/unit.h"

/* The shell-style text of an Extended JSON document ("(bad json)" when it does not parse). */
static const char *
json_text (const char *json, char *out, size_t len)
{
   bson_t *b = json[0] ? bson_new_from_json ((const uint8_t *) json, -1, NULL) : NULL;
   if (!b) {
      return "(bad json)";
   }
   output_format_doc_line (b, out, len);
   bson_destroy (b);
   return out;
}

/* Checks the map of mg's collection: one range marked, beginning at mg's min, owned by its donor. */
static void
check_map (collect_t *c, const snap_migration_t *mg, const char *version)
{
   chunkmap_data_t m = { 0 };
   chunkmap_cell_t *cells;
   char name[128], err[256] = "";
   size_t n, marked = 0, at = 0;
   bson_t *want = bson_new_from_json ((const uint8_t *) mg->min_json, -1, NULL);

   snprintf (name, sizeof name, "chunkmap_moving/%s/map_read", version);
   if (!collect_chunkmap (c, mg->ns, &m, err, sizeof err) || !m.map || !want) {
      UNIT_FAIL (name, "%s", err[0] ? err : "the migration's min does not parse");
      chunkmap_data_destroy (&m);
      if (want) {
         bson_destroy (want);
      }
      return;
   }
   UNIT_PASS (name);
   n = chunkmap_ranges (m.map);
   cells = calloc (n ? n : 1, sizeof *cells);
   chunkmap_cells (m.map, cells, n, (int) m.nshards);
   snprintf (name, sizeof name, "chunkmap_moving/%s/marks_one_range", version);
   CHECK (name, chunkmap_cells_mark_json (m.map, cells, n, mg->min_json, mg->max_json, CHUNKMAP_MOVING) == 1);
   for (size_t i = 0; i < n; i++) {
      if (cells[i].flags & CHUNKMAP_MOVING) {
         marked++;
         at = i;
      }
   }
   snprintf (name, sizeof name, "chunkmap_moving/%s/one_cell_of_one_per_range", version);
   CHECK (name, marked == 1);
   if (marked == 1) {
      bson_t mn, mx;
      int o = chunkmap_owner (m.map, at);
      chunkmap_bounds (m.map, at, &mn, &mx);
      snprintf (name, sizeof name, "chunkmap_moving/%s/the_range_at_its_min", version);
      CHECK (name, order_keys (&mn, want) == 0);
      snprintf (name, sizeof name, "chunkmap_moving/%s/owned_by_the_donor", version);
      CHECK (name, o >= 0 && (size_t) o < m.nshards && !strcmp (m.shards[o], mg->from));
   }
   free (cells);
   bson_destroy (want);
   chunkmap_data_destroy (&m);
}

/* Checks the drill-down's chunk list: exactly one chunk marked as moving to the recipient, the migration's. */
static void
check_list (collect_t *c, const snap_migration_t *mg, const char *version)
{
   snap_chunks_t chunks;
   char name[128];
   size_t marked = 0, at = 0;

   memset (&chunks, 0, sizeof chunks);
   snprintf (name, sizeof name, "chunkmap_moving/%s/chunk_list_read", version);
   CHECK (name, collect_chunks (c, mg->ns, &chunks) && chunks.nchunks > 1);
   for (size_t i = 0; i < chunks.nchunks; i++) {
      if (chunks.chunks[i].moving_to[0]) {
         marked++;
         at = i;
      }
   }
   snprintf (name, sizeof name, "chunkmap_moving/%s/chunk_list_one_moving", version);
   CHECK (name, marked == 1 && !strcmp (chunks.chunks[at].moving_to, mg->to) &&
                   !strcmp (chunks.chunks[at].min, mg->min) && !strcmp (chunks.chunks[at].shard, mg->from));
   snap_chunks_destroy (&chunks);
}

static void
run_version (const char *version)
{
   sim_t sim;
   const char *args[] = { "--scenario", "demo",           "--version", version, "--balancer-interval-ms",
                          "200",        "--migration-ms", "60000",     NULL };
   sh_options_t opts;
   sh_ctx_t ctx;
   collect_opts_t o = collect_opts_default ();
   collect_t *c;
   snap_t cur = { 0 };
   FILE *sink = tmpfile ();
   char name[128], port_file[128], text[512];
   const snap_migration_t *mg;

   snprintf (port_file, sizeof port_file, "/tmp/shardsh-test-chunkmap-moving-%d.port", (int) getpid ());
   if (!simproc_start (&sim, port_file, args, 100, 50, "serverSelectionTimeoutMS=5000")) {
      snprintf (name, sizeof name, "chunkmap_moving/%s/start", version);
      UNIT_FAIL (name, "%s", "shardsim did not start");
      sim_stop (&sim);
      fclose (sink);
      return;
   }
   simctx_init (&ctx, &opts, sink, sim.port);
   o.interval_s = 20;
   c = collect_new (&ctx, &o);
   snprintf (name, sizeof name, "chunkmap_moving/%s/idle_sample", version);
   CHECK (name, collect_sample (c, &cur) && cur.nmigs == 0);
   /* a draining shard gives the balancer work on every version */
   snprintf (name, sizeof name, "chunkmap_moving/%s/drain", version);
   CHECK (name, simproc_run_ok (&sim, "admin", "{\"removeShard\": \"shard03\"}"));
   for (int i = 0; i < 100 && cur.nmigs == 0; i++) { /* at most 10 s on a loaded machine */
      usleep (100000);
      collect_sample (c, &cur);
   }
   snprintf (name, sizeof name, "chunkmap_moving/%s/migration_in_flight", version);
   CHECK (name, cur.nmigs > 0);
   if (cur.nmigs > 0) {
      mg = &cur.migs[0];
      snprintf (name, sizeof name, "chunkmap_moving/%s/min_json_is_the_min", version);
      CHECK_STR (name, mg->min, json_text (mg->min_json, text, sizeof text));
      snprintf (name, sizeof name, "chunkmap_moving/%s/max_json_is_the_max", version);
      CHECK_STR (name, mg->max, json_text (mg->max_json, text, sizeof text));
      check_map (c, mg, version);
      check_list (c, mg, version);
   }
   snap_destroy (&cur);
   collect_free (c);
   conn_destroy (&ctx);
   sim_stop (&sim);
   fclose (sink);
}

int
main (void)
{
   run_version ("4.4");
   run_version ("7.0");
   UNIT_EXIT ();
}
