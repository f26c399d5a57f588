/* passes: plain asan */
/* The dashboard's rendering from a canned snapshot: --once --json (valid JSON with the documented fields), plain
 * text, meters, and the curses screen drawn into a virtual 80x24 terminal (panels, help overlay from the key table,
 * filter, too-small notice). Also checks docs/dashboard.md carries the key table. */
#include <bson/bson.h>
#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "views/actions.h"
#include "views/crt.h"
#include "views/meter.h"
#include "views/screen.h"
#include "tests/unit/unit.h"
#include "views/views.h"

static void
canned (snap_t *s)
{
   static const char *names[] = { "shard01", "shard02", "shard03" };
   static const char *nss[] = { "app.events", "app.users" };
   memset (s, 0, sizeof *s);
   snprintf (s->host, sizeof s->host, "127.0.0.1:27017");
   snprintf (s->version, sizeof s->version, "7.0.16");
   s->vmajor = 7;
   snprintf (s->balancer.mode, sizeof s->balancer.mode, "full");
   s->balancer.rounds = 12;
   s->sampled_at_ms = 1700000000123LL;
   s->sample_ms = 4;
   s->round_trips = 15;
   s->interval_s = 2;
   s->rates_valid = true;
   s->hot_factor = 2;
   s->hot_min_rate = 1;
   s->nshards = 3;
   s->shards = calloc (3, sizeof *s->shards);
   for (int i = 0; i < 3; i++) {
      snprintf (s->shards[i].name, sizeof s->shards[i].name, "%s", names[i]);
      s->shards[i].chunks = 4 + i;
      s->shards[i].data_bytes = 1000 * (i + 1);
      s->shards[i].hist[0] = i;
      s->shards[i].hist[1] = 2 * i;
      s->shards[i].nhist = 2;
   }
   s->shards[1].hot = true;
   s->shards[1].writes_ps = 50;
   s->ncolls = 2;
   s->colls = calloc (2, sizeof *s->colls);
   for (int c = 0; c < 2; c++) {
      snap_coll_t *co = &s->colls[c];
      snprintf (co->ns, sizeof co->ns, "%s", nss[c]);
      snprintf (co->key, sizeof co->key, c ? "{ uid: 'hashed' }" : "{ ts: 1 }");
      snprintf (co->key_json, sizeof co->key_json, c ? "{ \"uid\" : \"hashed\" }" : "{ \"ts\" : 1 }");
      co->hot_shard = co->hot_range_shard = -1;
      for (int i = 0; i < 3; i++) {
         snap_coll_cell_add (co, i)->chunks = 2 + i;
         co->chunks += 2 + i;
      }
      co->balance = SNAP_BAL_OK;
   }
   s->colls[0].hot_shard = 1;
   snap_coll_act_add (&s->colls[0], 1)->hot = true;
   s->colls[0].has_hot_range = true;
   s->colls[0].hot_range_shard = 1;
   {
      const char *ends[SNAP_END_TEXTS] = { [SNAP_TOP_MIN] = "{ ts: 1000 }",
                                           [SNAP_TOP_MIN_JSON] = "{ \"ts\" : 1000 }",
                                           [SNAP_TOP_MAX] = "{ ts: MaxKey() }",
                                           [SNAP_TOP_MAX_JSON] = "{ \"ts\" : { \"$maxKey\" : 1 } }" };
      snap_coll_set_ends (&s->colls[0], ends);
   }
   snprintf (s->colls[0].hot_range_end, sizeof s->colls[0].hot_range_end, "MaxKey");
   s->nevents = 1;
   s->events[0].kind = SNAP_EV_MIGRATE_FAIL;
   s->events[0].time_ms = 1700000000000LL;
   snprintf (s->events[0].what, sizeof s->events[0].what, "moveChunk.error");
   snprintf (s->events[0].ns, sizeof s->events[0].ns, "app.events");
   snprintf (s->events[0].text, sizeof s->events[0].text, "{ ts: 1 } -> { ts: 5 } shard01 -> shard02: \"quoted\"");
}

static char *
capture (void (*fn) (FILE *, const snap_t *), const snap_t *s)
{
   char *buf = NULL;
   size_t len = 0;
   FILE *f = open_memstream (&buf, &len);
   fn (f, s);
   fclose (f);
   return buf;
}

/* A migration of ns in flight from shard01 to shard02 over { uid: min } -> { uid: max } (-1: a bound not given). */
static void
set_migration (snap_migration_t *mg, const char *ns, int min, int max)
{
   memset (mg, 0, sizeof *mg);
   snprintf (mg->ns, sizeof mg->ns, "%s", ns);
   snprintf (mg->from, sizeof mg->from, "shard01");
   snprintf (mg->to, sizeof mg->to, "shard02");
   if (min >= 0) {
      snprintf (mg->min, sizeof mg->min, "{ uid: %d }", min);
      snprintf (mg->min_json, sizeof mg->min_json, "{ \"uid\" : %d }", min);
   }
   if (max >= 0) {
      snprintf (mg->max, sizeof mg->max, "{ uid: %d }", max);
      snprintf (mg->max_json, sizeof mg->max_json, "{ \"uid\" : %d }", max);
   }
}

static void
test_json (void)
{
   snap_t s;
   char *json;
   bson_t *doc;
   bson_error_t error;
   bson_iter_t it, f;
   canned (&s);
   json = capture (render_json, &s);
   doc = bson_new_from_json ((const uint8_t *) json, -1, &error);
   CHECK ("render/json_parses", doc != NULL);
   if (doc) {
      bson_iter_init (&it, doc);
      CHECK ("render/json_shard_name",
             bson_iter_find_descendant (&it, "shards.1.shard", &f) && !strcmp (bson_iter_utf8 (&f, NULL), "shard02"));
      bson_iter_init (&it, doc);
      CHECK ("render/json_shard_hot", bson_iter_find_descendant (&it, "shards.1.hot", &f) && bson_iter_bool (&f));
      bson_iter_init (&it, doc);
      CHECK ("render/json_writes",
             bson_iter_find_descendant (&it, "shards.1.writesPerSec", &f) && bson_iter_as_double (&f) == 50.0);
      bson_iter_init (&it, doc);
      CHECK ("render/json_chunks_per_shard",
             bson_iter_find_descendant (&it, "collections.0.chunksPerShard.shard03", &f) &&
                bson_iter_as_int64 (&f) == 4);
      bson_iter_init (&it, doc);
      CHECK ("render/json_key", bson_iter_find_descendant (&it, "collections.1.key.uid", &f) &&
                                   !strcmp (bson_iter_utf8 (&f, NULL), "hashed"));
      bson_iter_init (&it, doc);
      CHECK ("render/json_hot_range_shard", bson_iter_find_descendant (&it, "collections.0.hotRange.shard", &f) &&
                                               !strcmp (bson_iter_utf8 (&f, NULL), "shard02"));
      bson_iter_init (&it, doc);
      CHECK ("render/json_hot_range_max",
             bson_iter_find_descendant (&it, "collections.0.hotRange.max.ts", &f) && BSON_ITER_HOLDS_MAXKEY (&f));
      bson_iter_init (&it, doc);
      CHECK ("render/json_hot_range_null",
             bson_iter_find_descendant (&it, "collections.1.hotRange", &f) && BSON_ITER_HOLDS_NULL (&f));
      bson_iter_init (&it, doc);
      CHECK ("render/json_balancer",
             bson_iter_find_descendant (&it, "balancer.mode", &f) && !strcmp (bson_iter_utf8 (&f, NULL), "full"));
      bson_iter_init (&it, doc);
      CHECK ("render/json_sampled_at", bson_iter_find_descendant (&it, "sampledAt", &f) &&
                                          !strcmp (bson_iter_utf8 (&f, NULL), "2023-11-14T22:13:20.123Z"));
      bson_iter_init (&it, doc);
      CHECK ("render/json_escapes",
             bson_iter_find_descendant (&it, "events.0.text", &f) && strstr (bson_iter_utf8 (&f, NULL), "\"quoted\""));
      bson_destroy (doc);
   }
   free (json);
   /* before rates exist they are null, not 0 */
   s.rates_valid = false;
   json = capture (render_json, &s);
   CHECK ("render/json_rates_null", strstr (json, "\"writesPerSec\": null") != NULL);
   free (json);
   /* a draining shard has its drain figures (unknown ones null), the others null; an unknown count of migrations is
    * null, not 0 */
   s.balancer.migrations = -1;
   set_migration (&s.migs[0], "app.users", 30, -1); /* a migration whose max the server did not give */
   s.nmigs = 1;
   s.shards[2].draining = true;
   s.shards[2].drain = (snap_drain_t){ .chunks = 6, .bytes = 3000, .databases = 1, .bytes_ps = 100, .eta_s = -1 };
   json = capture (render_json, &s);
   doc = bson_new_from_json ((const uint8_t *) json, -1, &error);
   CHECK ("render/json_drain_parses", doc != NULL);
   if (doc) {
      bson_iter_init (&it, doc);
      CHECK ("render/json_drain_null",
             bson_iter_find_descendant (&it, "shards.0.drain", &f) && BSON_ITER_HOLDS_NULL (&f));
      bson_iter_init (&it, doc);
      CHECK ("render/json_drain_bytes",
             bson_iter_find_descendant (&it, "shards.2.drain.bytes", &f) && bson_iter_as_int64 (&f) == 3000);
      bson_iter_init (&it, doc);
      CHECK ("render/json_drain_eta_null",
             bson_iter_find_descendant (&it, "shards.2.drain.etaSec", &f) && BSON_ITER_HOLDS_NULL (&f));
      bson_iter_init (&it, doc);
      CHECK ("render/json_migrations_unknown",
             bson_iter_find_descendant (&it, "balancer.migrationsInFlight", &f) && BSON_ITER_HOLDS_NULL (&f));
      bson_iter_init (&it, doc);
      CHECK ("render/json_migration_min_document",
             bson_iter_find_descendant (&it, "balancer.migrations.0.min.uid", &f) && bson_iter_as_int64 (&f) == 30);
      bson_iter_init (&it, doc);
      CHECK ("render/json_migration_max_null",
             bson_iter_find_descendant (&it, "balancer.migrations.0.max", &f) && BSON_ITER_HOLDS_NULL (&f));
      bson_iter_init (&it, doc);
      CHECK ("render/json_migration_range_text", bson_iter_find_descendant (&it, "balancer.migrations.0.range", &f) &&
                                                    !strcmp (bson_iter_utf8 (&f, NULL), "{ uid: 30 } -> ?"));
      bson_destroy (doc);
   }
   free (json);
   snap_destroy (&s);
}

static void
test_text (void)
{
   snap_t s;
   char *text;
   canned (&s);
   text = capture (render_text, &s);
   CHECK ("render/text_shard_row", strstr (text, "shard02") && strstr (text, crt_glyphs->hot));
   CHECK ("render/text_range", strstr (text, "range { ts: 1000 } -> { ts: MaxKey() }") != NULL);
   CHECK ("render/text_per_shard", strstr (text, "shard03=4") != NULL);
   free (text);
   s.stale = true;
   snprintf (s.error, sizeof s.error, "connection refused");
   text = capture (render_text, &s);
   CHECK ("render/text_stale", strstr (text, "STALE: connection refused") != NULL);
   free (text);
   snap_destroy (&s);
}

static void
test_meters (void)
{
   char buf[128];
   double v[4] = { 0, 1, 2, 8 };
   CHECK_STR ("meter/bar_ascii_half", "##  ", meter_bar (buf, sizeof buf, 5, 10, 4, false));
   CHECK_STR ("meter/bar_ascii_full", "####", meter_bar (buf, sizeof buf, 10, 10, 4, false));
   CHECK_STR ("meter/bar_empty", "    ", meter_bar (buf, sizeof buf, 0, 10, 4, false));
   CHECK ("meter/bar_utf8_width", meter_width (meter_bar (buf, sizeof buf, 3, 10, 7, true)) == 7);
   CHECK_STR ("meter/spark_ascii", " ..#", meter_sparkline (buf, sizeof buf, v + 1, 3, 4, 0, false));
   meter_sparkline (buf, sizeof buf, v, 4, 6, 0, false);
   CHECK ("meter/spark_pads_left", meter_width (buf) == 6 && buf[0] == ' ' && buf[5] == '#');
   /* a shared scale: the same values against twice their maximum never reach full height */
   CHECK_STR ("meter/spark_shared_scale", " ..-", meter_sparkline (buf, sizeof buf, v + 1, 3, 4, 16, false));
   CHECK ("meter/spark_max", meter_spark_max (v, 4, 2) == 8 && meter_spark_max (v, 3, 2) == 2);
   CHECK ("meter/spark_small_not_blank", strcmp (meter_level (0.01, 100, true), " ") != 0);
   CHECK_STR ("meter/level_zero", " ", meter_level (0, 100, true));
}

static void
test_layout_helpers (void)
{
   char buf[256];
   panel_col_t cols[] = { { "NS", 6, 0 }, { "KEY", 4, 2 }, { "N", 3, 1, true }, { "HOT", 4, 0, false, true } };
   size_t order[4] = { 0, 1, 2, 3 };
   bool important[4] = { false, false, true, false };
   /* dates: the max shows what differs from the min */
   CHECK_STR ("format/short_dates", "{ ts: 2026-11-24 02:06:33.261 }",
              snap_short_dates ("{ ts: ISODate('2026-11-24T02:06:33.261Z') }", NULL, buf, sizeof buf));
   CHECK_STR ("format/range_same_day", "{ ts: 2026-11-24 02:06:33 } -> { ts: 09:36:00 }",
              snap_fmt_range ("{ ts: ISODate('2026-11-24T02:06:33.000Z') }",
                              "{ ts: ISODate('2026-11-24T09:36:00.000Z') }", "->", buf, sizeof buf));
   CHECK_STR ("format/range_other_day", "{ a: 1, ts: 2026-11-24 02:06:33 } -> { a: 1, ts: 2026-11-25 00:00:00 }",
              snap_fmt_range ("{ a: 1, ts: ISODate(\"2026-11-24T02:06:33.000Z\") }",
                              "{ a: 1, ts: ISODate(\"2026-11-25T00:00:00.000Z\") }", "->", buf, sizeof buf));
   CHECK_STR ("format/range_no_dates", "{ x: MinKey() } -> { x: 5 }",
              snap_fmt_range ("{ x: MinKey() }", "{ x: 5 }", "->", buf, sizeof buf));
   CHECK_STR ("format/duration", "3h05m", snap_fmt_duration (3 * 3600 + 5 * 60 + 9, buf, sizeof buf));
   CHECK_STR ("format/duration_unknown", "?", snap_fmt_duration (-1, buf, sizeof buf));
   /* slack widens a cut column to its content before the flexible one takes the rest */
   cols[0].want = 10;
   panel_fit_columns (cols, 4, 40);
   CHECK ("panel/want_first", cols[0].w == 10 && cols[3].w == 40 - (10 + 4 + 3 + 3));
   cols[1].prio = -1;
   panel_fit_columns (cols, 4, 40);
   CHECK ("panel/negative_prio_hidden", cols[1].x < 0 && cols[1].w == 0);
   /* important rows go first only when the rows do not fit */
   panel_important_first (order, 4, important, 4);
   CHECK ("panel/important_fits_untouched", order[0] == 0 && order[2] == 2);
   panel_important_first (order, 4, important, 2);
   CHECK ("panel/important_first", order[0] == 2 && order[1] == 0 && order[2] == 1 && order[3] == 3);
}

/* Reads screen row y into buf (trailing spaces kept). */
static char *
row (int y, char *buf, int len)
{
   mvinnstr (y, 0, buf, len - 1);
   return buf;
}

static bool
screen_has (const char *needle)
{
   char buf[512];
   for (int y = 0; y < LINES; y++)
      if (strstr (row (y, buf, sizeof buf), needle))
         return true;
   return false;
}

/* The drill-down's chunk list filters and sorts, and marks the hot chunk and a chunk being moved. */
static void
test_screen_chunks (dash_t *d)
{
   size_t order[8], n;
   snap_chunks_destroy (&d->chunks);
   snprintf (d->chunks.ns, sizeof d->chunks.ns, "app.users");
   d->chunks.nchunks = 3;
   d->chunks.chunks = calloc (3, sizeof *d->chunks.chunks);
   for (int i = 0; i < 3; i++) {
      snap_chunk_t *ch = &d->chunks.chunks[i];
      snprintf (ch->min, sizeof ch->min, "{ uid: %d }", i * 10);
      snprintf (ch->max, sizeof ch->max, "{ uid: %d }", i * 10 + 10);
      snprintf (ch->shard, sizeof ch->shard, "shard0%d", i == 1 ? 2 : 1);
      ch->docs = 100 * (i + 1);
      ch->bytes = -1;
   }
   d->chunks.chunks[2].hot = true;
   snprintf (d->chunks.chunks[0].moving_to, sizeof d->chunks.chunks[0].moving_to, "shard03");
   snprintf (d->filter, sizeof d->filter, "shard01");
   n = view_chunks_order (d, order);
   CHECK ("chunks/filter_by_shard", n == 2 && order[0] == 0 && order[1] == 2);
   d->filter[0] = '\0';
   actions_dispatch (d, 's');
   actions_dispatch (d, 's');
   n = view_chunks_order (d, order);
   CHECK ("chunks/sort_by_docs", d->chunk_sort == 2 && n == 3 && order[0] == 2 && order[2] == 0);
   actions_dispatch (d, 'I');
   n = view_chunks_order (d, order);
   CHECK ("chunks/sort_inverted", order[0] == 0);
   screen_draw (d);
   CHECK ("chunks/marks", screen_has ("^HOT") && screen_has ("-> shard03") && screen_has ("sort: docs"));
}

/* The chunk map of app.users: ten ranges [10 i, 10 i + 10) on uid, the first five on shard01, the others on
 * shard02. */
static void
chunkmap_canned (chunkmap_data_t *m)
{
   chunkmap_data_destroy (m);
   m->map = chunkmap_new ();
   m->nshards = 2;
   m->shards = bson_malloc0 (2 * sizeof *m->shards);
   m->shards[0] = bson_strdup ("shard01");
   m->shards[1] = bson_strdup ("shard02");
   m->key = bson_strdup ("{ uid: 1 }");
   m->low = bson_strdup ("{ uid: MinKey() }");
   m->high = bson_strdup ("{ uid: MaxKey() }");
   m->chunks = 10;
   for (int i = 0; i < 10; i++) {
      bson_t a = BSON_INITIALIZER, b = BSON_INITIALIZER;
      if (i == 0)
         BSON_APPEND_MINKEY (&a, "uid");
      else
         BSON_APPEND_INT32 (&a, "uid", i * 10);
      if (i == 9)
         BSON_APPEND_MAXKEY (&b, "uid");
      else
         BSON_APPEND_INT32 (&b, "uid", i * 10 + 10);
      chunkmap_add_range (m->map, &a, &b, i < 5 ? 0 : 1, 0);
      bson_destroy (&a);
      bson_destroy (&b);
   }
}

/* The strip's row (the one under the bounds line), -1 when the map is not on screen. */
static int
strip_row (void)
{
   char buf[512];
   for (int y = 0; y < LINES - 1; y++)
      if (strstr (row (y, buf, sizeof buf), "{ uid: MinKey() }"))
         return y + 1;
   return -1;
}

/* The strip's cells drawn underlined (moving) as 'x' and '-', and which shards' symbols they carry (bit s: shard s). */
static const char *
strip_moving (char *out, size_t width, unsigned *symbols)
{
   int y = strip_row ();
   *symbols = 0;
   if (y < 0)
      return "(no strip)";
   for (size_t k = 0; k < width; k++) {
      chtype ch = mvinch (y, (int) k + 1);
      out[k] = (ch & A_UNDERLINE) ? 'x' : '-';
      if ((ch & A_UNDERLINE) && (ch & A_CHARTEXT) >= '1' && (ch & A_CHARTEXT) <= '9')
         *symbols |= 1u << ((ch & A_CHARTEXT) - '1');
   }
   out[width] = '\0';
   return out;
}

/* What the model marks for the same migration at the same width, as 'x' and '-'. */
static const char *
model_moving (const chunkmap_t *cm, const snap_migration_t *mg, char *out, size_t width)
{
   chunkmap_cell_t cells[128];
   if (width > 128 || !chunkmap_cells (cm, cells, width, 2))
      return "(no cells)";
   chunkmap_cells_mark_json (cm, cells, width, mg->min_json, mg->max_json, CHUNKMAP_MOVING);
   for (size_t k = 0; k < width; k++)
      out[k] = (cells[k].flags & CHUNKMAP_MOVING) ? 'x' : '-';
   out[width] = '\0';
   return out;
}

/* The chunk map marks the ranges of a migration in flight (the snapshot's) as moving, underlined, with a line saying
 * from where to where; the mark goes with the migration, stays off the past in the replay, and for a moveRange with
 * only its min covers the one range it starts. */
static void
test_screen_chunkmap (dash_t *d)
{
   char got[256], want[256], none[256];
   size_t width;
   unsigned symbols;
   bson_t a = BSON_INITIALIZER, b = BSON_INITIALIZER;

   chunkmap_canned (&d->cmap);
   d->drill = d->map = true;
   snprintf (d->drill_ns, sizeof d->drill_ns, "app.users");
   d->snap.nmigs = 0;
   screen_layout (d, 24, 80);
   width = (size_t) d->chunk_panel.w - 2;
   memset (none, '-', width);
   none[width] = '\0';
   screen_draw (d);
   CHECK_STR ("chunkmap/no migration, nothing moving", none, strip_moving (got, width, &symbols));
   CHECK ("chunkmap/no migration, no moving line", !screen_has ("moving"));

   set_migration (&d->snap.migs[0], "app.users", 30, 60);
   d->snap.nmigs = 1;
   screen_draw (d);
   CHECK_STR ("chunkmap/the migration's cells underlined", model_moving (d->cmap.map, &d->snap.migs[0], want, width),
              strip_moving (got, width, &symbols));
   CHECK ("chunkmap/the migration's ranges on both shards", symbols == 3u && strcmp (got, none) != 0);
   CHECK ("chunkmap/the first and last cells not moving", got[0] == '-' && got[width - 1] == '-');
   CHECK ("chunkmap/moving line", screen_has ("moving (underlined): shard01 -> shard02 { uid: 30 } -> { uid: 60 }"));

   snprintf (d->snap.migs[0].ns, sizeof d->snap.migs[0].ns, "app.events");
   screen_draw (d);
   CHECK_STR ("chunkmap/another collection's migration, nothing moving", none, strip_moving (got, width, &symbols));

   set_migration (&d->snap.migs[0], "app.users", 70, -1);
   screen_draw (d);
   CHECK_STR ("chunkmap/moveRange with only min: the range it starts",
              model_moving (d->cmap.map, &d->snap.migs[0], want, width), strip_moving (got, width, &symbols));
   CHECK ("chunkmap/moveRange with only min: one range, on shard02", symbols == 2u && strcmp (got, none) != 0);
   CHECK ("chunkmap/moveRange with only min: its max unknown",
          screen_has ("moving (underlined): shard01 -> shard02 { uid: 70 } -> ?"));

   BSON_APPEND_INT32 (&a, "uid", 70);
   BSON_APPEND_INT32 (&b, "uid", 80);
   chunkmap_add_event (d->cmap.map, 1700000000000LL, CHUNKMAP_MOVE, &a, &b, 0, 1, "shard01 -> shard02");
   bson_destroy (&a);
   bson_destroy (&b);
   actions_dispatch (d, '[');
   screen_draw (d);
   CHECK ("chunkmap/the replay back in time", chunkmap_position (d->cmap.map) == 1);
   CHECK_STR ("chunkmap/the replay's past shows no migration in flight", none, strip_moving (got, width, &symbols));
   actions_dispatch (d, ']');

   d->snap.nmigs = 0;
   screen_draw (d);
   CHECK_STR ("chunkmap/the migration ended, the mark is gone", none, strip_moving (got, width, &symbols));
   CHECK ("chunkmap/the migration ended, no moving line", !screen_has ("moving ("));
   d->drill = d->map = false;
   d->drill_ns[0] = '\0';
   chunkmap_data_destroy (&d->cmap);
   screen_draw (d); /* the panels again, for the checks that follow */
}

/* A draining shard stays on screen when the rows run short, and says so. */
static void
test_screen_draining (void)
{
   dash_t m;
   dash_init (&m, 2.0);
   m.snap.nshards = 12;
   m.snap.shards = calloc (12, sizeof *m.snap.shards);
   for (int i = 0; i < 12; i++)
      snprintf (m.snap.shards[i].name, sizeof m.snap.shards[i].name, "shard%02d", i + 1);
   m.snap.shards[11].draining = true;
   m.snap.shards[11].drain.eta_s = -1;
   m.snap.shards[11].drain.bytes_ps = -1;
   resizeterm (16, 60);
   screen_layout (&m, 16, 60);
   screen_draw (&m);
   CHECK ("screen/draining_kept_60x16", screen_has ("shard12") && screen_has ("DRAIN"));
   resizeterm (45, 160);
   screen_layout (&m, 45, 160);
   screen_draw (&m);
   CHECK ("screen/drain_strip_160x45", screen_has ("Draining (1)") && screen_has ("shard12: 0 chunks"));
   dash_destroy (&m);
   resizeterm (24, 80);
}

static void
test_screen (void)
{
   FILE *out = fopen ("/dev/null", "w"), *in = fopen ("/dev/null", "r");
   SCREEN *scr;
   dash_t d;
   bool all_keys = true;

   setenv ("TERM", "xterm", 1);
   scr = out && in ? newterm ("xterm", out, in) : NULL;
   if (!scr) {
      printf ("SKIP render/screen: no terminfo for xterm\n");
      goto done;
   }
   crt_glyphs = crt_glyphs; /* ASCII glyphs: no locale set here */
   resizeterm (24, 80);
   dash_init (&d, 2.0);
   canned (&d.snap);
   screen_layout (&d, 24, 80);
   screen_draw (&d);
   CHECK ("screen/header", screen_has ("shardsh") && screen_has ("7.0.16") && screen_has ("balancer full"));
   CHECK ("screen/shards_panel", screen_has ("Shards (3)") && screen_has ("shard03"));
   CHECK ("screen/hot_marker", screen_has ("^HOT"));
   CHECK ("screen/collections_panel", screen_has ("Collections (2)") && screen_has ("app.users"));
   test_screen_chunkmap (&d);
   CHECK ("screen/events_panel", screen_has ("move FAILED"));
   CHECK ("screen/function_bar", screen_has ("?Help") && screen_has ("qQuit"));
   /* help overlay from the action table */
   actions_dispatch (&d, '?');
   {
      /* at 80x24 the help scrolls: every key is on one of its pages */
      bool seen[64] = { false };
      for (int page = 0; page < 4; page++) {
         screen_draw (&d);
         for (size_t i = 0; i < actions_count && i < 64; i++)
            seen[i] = seen[i] || screen_has (actions_table[i].key_name);
         actions_dispatch (&d, KEY_NPAGE);
      }
      for (size_t i = 0; i < actions_count && i < 64; i++)
         all_keys = all_keys && seen[i];
      CHECK ("screen/help_lists_every_action", d.help && all_keys && !screen_has ("enlarge the terminal"));
      actions_dispatch (&d, 'g');
   }
   /* with room, the panels too */
   resizeterm (45, 160);
   screen_layout (&d, 45, 160);
   screen_draw (&d);
   for (size_t i = 0; i < actions_panel_count; i++)
      all_keys = all_keys && screen_has (actions_panels[i].name);
   CHECK ("screen/help_lists_every_panel", d.help && all_keys);
   resizeterm (24, 80);
   screen_layout (&d, 24, 80);
   actions_dispatch (&d, 'x');
   CHECK ("screen/help_closes_on_any_key", !d.help);
   /* filter */
   actions_dispatch (&d, '/');
   actions_dispatch (&d, 'u');
   actions_dispatch (&d, 's');
   actions_dispatch (&d, 'e');
   actions_dispatch (&d, '\n');
   screen_draw (&d);
   CHECK ("screen/filter_collections", screen_has ("Collections (1 filtered)") && screen_has ("Filtered: "));
   actions_dispatch (&d, 27);
   CHECK ("screen/esc_clears_filter", d.filter[0] == '\0');
   /* a shard filter keeps that shard and the collections with chunks on it */
   snprintf (d.filter, sizeof d.filter, "shard02");
   screen_draw (&d);
   CHECK ("screen/filter_shards", screen_has ("Shards (1 filtered)") && screen_has ("Collections (2)"));
   d.filter[0] = '\0';
   /* sort and invert */
   d.focus = DASH_SHARDS;
   actions_dispatch (&d, 's');
   actions_dispatch (&d, 'I');
   screen_draw (&d);
   CHECK ("screen/sort_shown", screen_has ("sort: chunks ^"));
   /* pause and stale */
   actions_dispatch (&d, ' ');
   d.snap.sampled_at_ms = (int64_t) time (NULL) * 1000 - 5000;
   d.snap.stale = true;
   snprintf (d.snap.error, sizeof d.snap.error, "connection refused");
   screen_draw (&d);
   CHECK ("screen/paused", d.paused && screen_has ("PAUSED"));
   CHECK ("screen/stale", screen_has ("STALE") && screen_has ("connection refused"));
   /* Enter on a collection asks for its chunks; Esc goes back */
   d.focus = DASH_COLLS;
   screen_draw (&d);
   /* the selection followed app.users through the filter and stays on it */
   CHECK ("screen/enter_drills", (actions_dispatch (&d, '\n') & VIEW_FETCH_CHUNKS) && d.drill);
   screen_draw (&d);
   CHECK ("screen/chunk_view", screen_has ("Chunks of app.users"));
   if (!screen_has ("Chunks of app.users")) {
      char buf[256];
      for (int y = 0; y < LINES; y++)
         printf ("# %s\n", row (y, buf, sizeof buf));
   }
   test_screen_chunks (&d);
   actions_dispatch (&d, 27);
   CHECK ("screen/esc_back", !d.drill);
   /* the focus is marked in text; Enter on an event asks for its details and the overlay shows what was read */
   screen_draw (&d);
   CHECK ("screen/focus_marked", screen_has (">Collections ("));
   d.focus = DASH_EVENTS;
   d.panels[DASH_EVENTS].selected = 0;
   CHECK ("screen/event_enter", (actions_dispatch (&d, '\n') & VIEW_FETCH_DETAIL) && d.detail);
   snprintf (d.ev_detail.owner, sizeof d.ev_detail.owner, "shard02");
   snprintf (d.ev_detail.owner_range, sizeof d.ev_detail.owner_range, "{ ts: 1 } -> { ts: 5 }");
   snprintf (d.ev_detail.error, sizeof d.ev_detail.error, "recipient timed out");
   d.ev_detail.doc = bson_strdup ("{\n  what: 'moveChunk.error',\n  ns: 'app.events'\n}");
   screen_draw (&d);
   CHECK ("screen/event_details", screen_has ("owner now: shard02") && screen_has ("failure: recipient timed out") &&
                                     screen_has ("what: 'moveChunk.error'") && screen_has (">Event "));
   {
      /* the overlay is wrapped once, not on every draw and key; a new reading of the event wraps it again */
      char **kept = d.detail_wrap.v;
      actions_dispatch (&d, 'j');
      screen_draw (&d);
      CHECK ("screen/event_details_wrapped_once", kept && d.detail_wrap.v == kept);
      snprintf (d.ev_detail.error, sizeof d.ev_detail.error, "donor stepped down");
      dash_detail_changed (&d);
      screen_draw (&d);
      CHECK ("screen/event_details_rewrapped", screen_has ("failure: donor stepped down"));
   }
   actions_dispatch (&d, 27);
   CHECK ("screen/event_details_close", !d.detail);
   d.focus = DASH_COLLS;
   CHECK ("screen/interval_keys", (actions_dispatch (&d, '+') & VIEW_INTERVAL) && d.interval_s > 2.0);
   screen_draw (&d);
   CHECK ("screen/totals_rows", screen_has ("TOTAL"));
   test_screen_draining ();
   /* too small */
   resizeterm (10, 40);
   screen_layout (&d, 10, 40);
   screen_draw (&d);
   CHECK ("screen/too_small", screen_has ("terminal too small"));
   CHECK ("screen/quit", actions_dispatch (&d, 'q') & VIEW_QUIT);
   dash_destroy (&d);
   endwin ();
   delscreen (scr);
done:
   if (out)
      fclose (out);
   if (in)
      fclose (in);
}

static void
test_docs (void)
{
   FILE *f = fopen ("docs/dashboard.md", "r");
   char *doc = NULL, *table = NULL, *line, *save = NULL;
   size_t len = 0, tlen = 0;
   bool all = true;
   FILE *t;
   if (!f) {
      UNIT_FAIL ("docs/dashboard_keys", "docs/dashboard.md is missing");
      return;
   }
   doc = calloc (1, 1 << 16);
   len = fread (doc, 1, (1 << 16) - 1, f);
   fclose (f);
   (void) len;
   t = open_memstream (&table, &tlen);
   actions_write_markdown (t);
   actions_write_panels_markdown (t);
   fclose (t);
   for (line = strtok_r (table, "\n", &save); line; line = strtok_r (NULL, "\n", &save))
      if (!strstr (doc, line)) {
         UNIT_FAIL ("docs/dashboard_keys", "docs/dashboard.md lacks the key or panel table row [%s]", line);
         all = false;
      }
   if (all)
      UNIT_PASS ("docs/dashboard_keys");
   free (table);
   free (doc);
}

int
main (void)
{
   test_json ();
   test_text ();
   test_meters ();
   test_layout_helpers ();
   test_screen ();
   test_docs ();
   UNIT_EXIT ();
}
