/* passes: plain asan */
/* The chunk map's reader (views/model/chunkmap_read.c) against shardsim's demo cluster, 7.0 (chunks by uuid) and
 * 4.4 (chunks by ns): every chunk of a zoned collection in key order with its zones and their shards, a migration
 * read back from config.changelog and undone by the replay, a bounded sample when the collection has more chunks
 * than the limit, and a clear error for a collection that is not sharded. */
#include <mongoc/mongoc.h>

#include "shell/core/conn.h"
#include "shell/core/output.h"
#include "shell/lib/clock.h"
#include "tests/unit/simctx.h"
#include "tests/unit/simproc.h"
#include "tests/unit/unit.h"
#include "views/model/chunkmap_read.h"

/* The chunk count of ns in config.chunks, as the server counts it (through config.collections' uuid or ns). */
static int64_t
count_chunks (mongoc_client_t *client, const char *ns)
{
   bson_t *cmd = BCON_NEW ("aggregate", "collections", "pipeline", "[", "{", "$match", "{", "_id", BCON_UTF8 (ns), "}",
                           "}", "{", "$lookup", "{", "from", "chunks", "localField", "uuid", "foreignField", "uuid",
                           "as", "c", "}", "}", "{", "$lookup", "{", "from", "chunks", "localField", "_id",
                           "foreignField", "ns", "as", "d", "}", "}", "{", "$project", "{", "n", "{", "$add", "[", "{",
                           "$size", "$c", "}", "{", "$size", "$d", "}", "]", "}", "}", "}", "]", "cursor", "{", "}");
   bson_t reply;
   bson_iter_t it;
   int64_t n = -1;
   if (mongoc_client_command_simple (client, "config", cmd, NULL, &reply, NULL) && bson_iter_init (&it, &reply) &&
       bson_iter_find_descendant (&it, "cursor.firstBatch.0.n", &it)) {
      n = bson_iter_as_int64 (&it);
   }
   bson_destroy (&reply);
   bson_destroy (cmd);
   return n;
}

static bool
move_chunk (mongoc_client_t *client, const char *zipcode, const char *to)
{
   bson_t *cmd =
      BCON_NEW ("moveChunk", "app.stores", "find", "{", "zipcode", BCON_UTF8 (zipcode), "}", "to", BCON_UTF8 (to));
   bson_error_t error;
   bool ok = mongoc_client_command_simple (client, "admin", cmd, NULL, NULL, &error);
   if (!ok) {
      printf ("# moveChunk: %s\n", error.message);
   }
   bson_destroy (cmd);
   return ok;
}

static void
test_version (const char *version)
{
   const char *args[] = { "--scenario", "demo", "--version", version, NULL };
   sim_t sim;
   char name[160];
   sh_options_t opts;
   sh_ctx_t ctx;
   sh_error_t err;
   chunkmap_data_t d;
   FILE *sink = tmpfile ();
   int64_t start = clock_wall_ms () - 1000;
   size_t ev0 = 0;

   snprintf (name, sizeof name, "chunkmap_read/%s/start", version);
   if (!simproc_start (&sim, "/tmp/shardsh-test-chunkmap.port", args, 100, 50, "serverSelectionTimeoutMS=5000")) {
      UNIT_FAIL (name, "%s", "shardsim did not start");
      sim_stop (&sim);
      fclose (sink);
      return;
   }
   simctx_init (&ctx, &opts, sink, sim.port);
   sh_error_clear (&err);

   /* a zone of the cluster's that names no range of app.stores: not in its legend */
   {
      bson_t *cmd = BCON_NEW ("addShardToZone", "shard01", "zone", "LDN");
      snprintf (name, sizeof name, "chunkmap_read/%s/addShardToZone LDN", version);
      CHECK (name, mongoc_client_command_simple (sim.client, "admin", cmd, NULL, NULL, NULL));
      bson_destroy (cmd);
   }
   snprintf (name, sizeof name, "chunkmap_read/%s/reads app.stores", version);
   if (!chunkmap_read (&ctx, "app.stores", 1000, start, &d, &err)) {
      UNIT_FAIL (name, "%s", err.message);
   } else {
      int64_t want = count_chunks (sim.client, "app.stores");
      chunkmap_cell_t cells[8];
      int nyc = -1, shard01 = -1;
      for (size_t i = 0; i < d.nzones; i++) {
         nyc = !strcmp (d.zones[i], "NYC") ? (int) i : nyc;
      }
      for (size_t i = 0; i < d.nshards; i++) {
         shard01 = !strcmp (d.shards[i], "shard01") ? (int) i : shard01;
      }
      UNIT_PASS (name);
      snprintf (name, sizeof name, "chunkmap_read/%s/every chunk, not sampled", version);
      CHECK (name, want > 0 && d.chunks == want && !d.sampled && chunkmap_ranges (d.map) == (size_t) want);
      snprintf (name, sizeof name, "chunkmap_read/%s/three shards, zones NYC and SFO (not the cluster's LDN)", version);
      CHECK (name, d.nshards == 3 && d.nzones == 2 && nyc >= 0 && shard01 >= 0);
      snprintf (name, sizeof name, "chunkmap_read/%s/the shard key", version);
      CHECK_STR (name, "{ zipcode: 1 }", d.key ? d.key : "");
      snprintf (name, sizeof name, "chunkmap_read/%s/cells drawn", version);
      CHECK (name, chunkmap_cells (d.map, cells, 8, (int) d.nshards) && cells[0].shard >= 0);
      ev0 = chunkmap_events (d.map); /* the scenario's own splits and merges */
      chunkmap_data_destroy (&d);
   }

   /* a migration outside the zones: read back and undone by the replay */
   snprintf (name, sizeof name, "chunkmap_read/%s/a migration is replayed", version);
   if (!chunkmap_read (&ctx, "app.stores", 1000, start, &d, &err)) {
      UNIT_FAIL (name, "%s", err.message);
   } else {
      size_t n = chunkmap_ranges (d.map), last = n - 1;
      int owner = chunkmap_owner (d.map, last), to = owner == 2 ? 1 : 2;
      const char *to_name = d.shards[to];
      char to_copy[64];
      bson_strncpy (to_copy, to_name, sizeof to_copy);
      chunkmap_data_destroy (&d);
      /* the last range ends at MaxKey; zipcodes above "94188" lie outside every zone */
      if (!move_chunk (sim.client, "99999", to_copy) || !chunkmap_read (&ctx, "app.stores", 1000, start, &d, &err)) {
         UNIT_FAIL (name, "%s", err.message[0] ? err.message : "moveChunk failed");
      } else {
         bool now_ok = chunkmap_owner (d.map, chunkmap_ranges (d.map) - 1) == to;
         bool back_ok = chunkmap_events (d.map) == ev0 + 1 && chunkmap_step (d.map, -1) == 1 &&
                        chunkmap_owner (d.map, chunkmap_ranges (d.map) - 1) == owner;
         chunkmap_event_t ev;
         bool ev_ok =
            chunkmap_current_event (d.map, &ev) && ev.kind == CHUNKMAP_MOVE && ev.to == to && ev.from == owner;
         CHECK (name, now_ok && back_ok && ev_ok);
         chunkmap_data_destroy (&d);
      }
   }

   snprintf (name, sizeof name, "chunkmap_read/%s/a bounded sample beyond the limit", version);
   if (!chunkmap_read (&ctx, "app.stores", 2, start, &d, &err)) {
      UNIT_FAIL (name, "%s", err.message);
   } else {
      CHECK (name, d.sampled && d.chunks > 2 && chunkmap_ranges (d.map) == 2);
      chunkmap_data_destroy (&d);
   }

   snprintf (name, sizeof name, "chunkmap_read/%s/an unsharded collection is an argument error", version);
   sh_error_clear (&err);
   CHECK (name, !chunkmap_read (&ctx, "app.nosuch", 100, start, &d, &err) && err.kind == SH_ERR_ARGS &&
                   strstr (err.message, "not a sharded collection"));

   conn_destroy (&ctx);
   sim_stop (&sim);
   fclose (sink);
}

int
main (void)
{
   mongoc_init ();
   test_version ("7.0");
   test_version ("4.4");
   mongoc_cleanup ();
   UNIT_EXIT ();
}
