/* passes: plain asan */
/* Unit tests for the chunk map's model (views/model/chunkmap.c): ranges reduced to cells by majority owner, zones
 * and their edges, marks, out-of-zone owners, and the replay stepping back and forward over migrations (splits
 * change no owner), at ten ranges and at a million. */
#include <bson/bson.h>

#include "tests/unit/unit.h"
#include "views/model/chunkmap.h"

/* {x: v}, or {x: MinKey} / {x: MaxKey} for v = INT32_MIN / INT32_MAX. */
static void
key_init (bson_t *b, int32_t v)
{
   bson_init (b);
   if (v == INT32_MIN) {
      BSON_APPEND_MINKEY (b, "x");
   } else if (v == INT32_MAX) {
      BSON_APPEND_MAXKEY (b, "x");
   } else {
      BSON_APPEND_INT32 (b, "x", v);
   }
}

/* Range i of n: [i, i + 1), the first from MinKey, the last to MaxKey. */
static bool
add_range (chunkmap_t *cm, int i, int n, int shard, unsigned flags)
{
   bson_t a, b;
   bool ok;
   key_init (&a, i == 0 ? INT32_MIN : i);
   key_init (&b, i == n - 1 ? INT32_MAX : i + 1);
   ok = chunkmap_add_range (cm, &a, &b, shard, flags);
   bson_destroy (&a);
   bson_destroy (&b);
   return ok;
}

static bool
add_event (chunkmap_t *cm, int64_t t, chunkmap_kind_t kind, int lo, int hi, int from, int to)
{
   bson_t a, b;
   bool ok;
   key_init (&a, lo);
   key_init (&b, hi);
   ok = chunkmap_add_event (cm, t, kind, &a, &b, from, to, NULL);
   bson_destroy (&a);
   bson_destroy (&b);
   return ok;
}

/* The cells' owners as a string of digits ('.' for none). */
static const char *
owners (const chunkmap_t *cm, size_t width, char *out)
{
   chunkmap_cell_t cells[64];
   if (!chunkmap_cells (cm, cells, width, 3)) {
      return "(empty)";
   }
   for (size_t k = 0; k < width; k++) {
      out[k] = cells[k].shard < 0 ? '.' : (char) ('0' + cells[k].shard);
   }
   out[width] = '\0';
   return out;
}

/* The cells carrying flag, as a string of 'x' and '-'. */
static const char *
flagged (const chunkmap_t *cm, size_t width, unsigned flag, char *out)
{
   chunkmap_cell_t cells[64];
   if (!chunkmap_cells (cm, cells, width, 3)) {
      return "(empty)";
   }
   for (size_t k = 0; k < width; k++) {
      out[k] = (cells[k].flags & flag) ? 'x' : '-';
   }
   out[width] = '\0';
   return out;
}

static void
test_cells (void)
{
   chunkmap_t *cm = chunkmap_new ();
   chunkmap_cell_t cells[20];
   char buf[65];
   int64_t total = 0;

   CHECK ("chunkmap/empty has no cells", !chunkmap_cells (cm, cells, 10, 3));
   for (int i = 0; i < 10; i++) {
      add_range (cm, i, 10, i < 5 ? 0 : 1, i == 2 ? CHUNKMAP_JUMBO : 0);
   }
   CHECK ("chunkmap/a range out of order is refused", !add_range (cm, 3, 10, 0, 0));
   CHECK ("chunkmap/a negative shard is refused", !add_range (cm, 11, 20, -1, 0));
   CHECK ("chunkmap/ten ranges", chunkmap_ranges (cm) == 10);
   CHECK_STR ("chunkmap/one cell per range", "0000011111", owners (cm, 10, buf));
   CHECK_STR ("chunkmap/two ranges per cell, tie to the lower shard", "00011", owners (cm, 5, buf));
   CHECK_STR ("chunkmap/a range spreads over cells", "00000000001111111111", owners (cm, 20, buf));
   CHECK_STR ("chunkmap/jumbo marked", "--x-------", flagged (cm, 10, CHUNKMAP_JUMBO, buf));
   chunkmap_cells (cm, cells, 3, 3);
   for (int k = 0; k < 3; k++) {
      total += cells[k].ranges;
   }
   CHECK ("chunkmap/cells cover every range once", total == 10);
   chunkmap_free (cm);
}

static void
test_zones_and_marks (void)
{
   chunkmap_t *cm = chunkmap_new ();
   chunkmap_cell_t cells[10];
   char buf[65];
   bson_t a, b;

   for (int i = 0; i < 10; i++) {
      add_range (cm, i, 10, i < 5 ? 0 : 1, 0);
   }
   key_init (&a, 5);
   key_init (&b, INT32_MAX);
   CHECK ("chunkmap/zone added", chunkmap_add_zone (cm, &a, &b, 0, 1u << 1));
   CHECK ("chunkmap/an empty zone range is refused", !chunkmap_add_zone (cm, &b, &a, 1, 1));
   chunkmap_cells (cm, cells, 10, 3);
   CHECK ("chunkmap/zone of the cells inside it", cells[5].zone == 0 && cells[9].zone == 0);
   CHECK ("chunkmap/no zone outside it", cells[4].zone == -1 && cells[0].zone == -1);
   CHECK_STR ("chunkmap/zone edge on the cell before the boundary", "----x-----",
              flagged (cm, 10, CHUNKMAP_ZONE_EDGE, buf));
   CHECK_STR ("chunkmap/zone edge inside a cell", "--x--", flagged (cm, 5, CHUNKMAP_ZONE_EDGE, buf));
   CHECK_STR ("chunkmap/owners in their zone", "----------", flagged (cm, 10, CHUNKMAP_OUT_OF_ZONE, buf));
   bson_destroy (&a);
   bson_destroy (&b);
   {
      chunkmap_t *other = chunkmap_new ();
      for (int i = 0; i < 10; i++) {
         add_range (other, i, 10, i < 5 ? 0 : 1, 0);
      }
      key_init (&a, 5);
      key_init (&b, INT32_MAX);
      chunkmap_add_zone (other, &a, &b, 0, 1u << 0);
      CHECK_STR ("chunkmap/owners outside their zone", "-----xxxxx", flagged (other, 10, CHUNKMAP_OUT_OF_ZONE, buf));
      bson_destroy (&a);
      bson_destroy (&b);
      chunkmap_free (other);
   }

   key_init (&a, 9);
   chunkmap_mark (cm, &a, NULL, CHUNKMAP_HOT);
   bson_destroy (&a);
   key_init (&a, 2);
   key_init (&b, 4);
   chunkmap_mark (cm, &a, &b, CHUNKMAP_MOVING);
   CHECK_STR ("chunkmap/hot range marked", "---------x", flagged (cm, 10, CHUNKMAP_HOT, buf));
   CHECK_STR ("chunkmap/moving ranges marked", "--xx------", flagged (cm, 10, CHUNKMAP_MOVING, buf));
   bson_destroy (&a);
   bson_destroy (&b);
   chunkmap_free (cm);
}

/* The cells a migration in flight marks as moving (chunkmap_cells_mark_json), as 'x' and '-'; "(none)" when it marks
 * no range. */
static const char *
moving (const chunkmap_t *cm, size_t width, const char *min_json, const char *max_json, char *out)
{
   chunkmap_cell_t cells[64];
   if (!chunkmap_cells (cm, cells, width, 3)) {
      return "(empty)";
   }
   if (!chunkmap_cells_mark_json (cm, cells, width, min_json, max_json, CHUNKMAP_MOVING)) {
      bson_strncpy (out, "(none)", 7);
      return out;
   }
   for (size_t k = 0; k < width; k++) {
      out[k] = (cells[k].flags & CHUNKMAP_MOVING) ? 'x' : '-';
   }
   out[width] = '\0';
   return out;
}

/* A migration in flight marks exactly the cells of the ranges inside it, for the drawing only; a 6.0+ moveRange
 * with only its min (or only its max) marks the one range it starts (ends). */
static void
test_moving (void)
{
   chunkmap_t *cm = chunkmap_new ();
   char buf[65];
   bson_t b;

   for (int i = 0; i < 10; i++) {
      add_range (cm, i, 10, i < 5 ? 0 : 1, 0);
   }
   CHECK_STR ("chunkmap/no migration, no moving mark", "----------", flagged (cm, 10, CHUNKMAP_MOVING, buf));
   CHECK_STR ("chunkmap/moving: the ranges inside [min, max)", "---xxx----",
              moving (cm, 10, "{ \"x\" : 3 }", "{ \"x\" : 6 }", buf));
   CHECK_STR ("chunkmap/moving: the mark lasts one drawing", "----------", flagged (cm, 10, CHUNKMAP_MOVING, buf));
   CHECK_STR ("chunkmap/moving: two ranges per cell", "-xx--", moving (cm, 5, "{ \"x\" : 3 }", "{ \"x\" : 6 }", buf));
   CHECK_STR ("chunkmap/moving: a range over two cells", "------xx------------",
              moving (cm, 20, "{ \"x\" : 3 }", "{ \"x\" : 4 }", buf));
   CHECK_STR ("chunkmap/moving: from MinKey", "xx--------",
              moving (cm, 10, "{ \"x\" : { \"$minKey\" : 1 } }", "{ \"x\" : 2 }", buf));
   CHECK_STR ("chunkmap/moving: to MaxKey", "--------xx",
              moving (cm, 10, "{ \"x\" : 8 }", "{ \"x\" : { \"$maxKey\" : 1 } }", buf));
   CHECK_STR ("chunkmap/moveRange with only min: the range it starts", "----x-----",
              moving (cm, 10, "{ \"x\" : 4 }", "", buf));
   CHECK_STR ("chunkmap/moveRange with only min inside a range: the range holding it", "----x-----",
              moving (cm, 10, "{ \"x\" : 4.5 }", NULL, buf));
   CHECK_STR ("chunkmap/moveRange with only max: the range it ends", "-----x----",
              moving (cm, 10, "", "{ \"x\" : 6 }", buf));
   CHECK_STR ("chunkmap/a range inside one of the map's (sampled): the one holding min", "---x------",
              moving (cm, 10, "{ \"x\" : 3.25 }", "{ \"x\" : 3.5 }", buf));
   CHECK_STR ("chunkmap/moving: no bounds, no mark", "(none)", moving (cm, 10, "", NULL, buf));
   CHECK_STR ("chunkmap/moving: a bound that does not parse, no mark", "(none)",
              moving (cm, 10, "{ \"x\" : 3 }", "{ x: ", buf));
   CHECK_STR ("chunkmap/moving: beyond the last range, no mark", "(none)",
              moving (cm, 10, "", "{ \"x\" : { \"$minKey\" : 1 } }", buf));
   key_init (&b, 6);
   chunkmap_mark (cm, NULL, &b, CHUNKMAP_MOVING);
   CHECK_STR ("chunkmap/mark with only max: the range that ends there", "-----x----",
              flagged (cm, 10, CHUNKMAP_MOVING, buf));
   bson_destroy (&b);
   chunkmap_free (cm);
}

static void
test_replay (void)
{
   chunkmap_t *cm = chunkmap_new ();
   chunkmap_event_t ev;
   char buf[65];

   for (int i = 0; i < 10; i++) {
      add_range (cm, i, 10, i < 5 ? 0 : 1, 0);
   }
   /* given newest first: the map orders them by time */
   add_event (cm, 300, CHUNKMAP_MOVE, 9, INT32_MAX, 0, 1);
   add_event (cm, 100, CHUNKMAP_MOVE, 3, 5, 1, 0);
   add_event (cm, 200, CHUNKMAP_SPLIT, 7, 8, -1, -1);
   CHECK ("chunkmap/three events", chunkmap_events (cm) == 3);
   CHECK ("chunkmap/now: no current event", !chunkmap_current_event (cm, &ev));
   CHECK ("chunkmap/one step back", chunkmap_step (cm, -1) == 1);
   CHECK ("chunkmap/the newest event first", chunkmap_current_event (cm, &ev) && ev.time_ms == 300 &&
                                                ev.kind == CHUNKMAP_MOVE && ev.from == 0 && ev.to == 1);
   CHECK_STR ("chunkmap/the migrated range back on its donor", "0000011110", owners (cm, 10, buf));
   CHECK_STR ("chunkmap/the event's range marked", "---------x", flagged (cm, 10, CHUNKMAP_EVENT, buf));
   chunkmap_step (cm, -1);
   CHECK ("chunkmap/a split next", chunkmap_current_event (cm, &ev) && ev.kind == CHUNKMAP_SPLIT);
   CHECK_STR ("chunkmap/a split changes no owner", "0000011110", owners (cm, 10, buf));
   CHECK ("chunkmap/back to the oldest", chunkmap_step (cm, -5) == 3);
   CHECK_STR ("chunkmap/the oldest migration undone", "0001111110", owners (cm, 10, buf));
   CHECK ("chunkmap/no event added while replaying", !add_event (cm, 400, CHUNKMAP_MERGE, 1, 2, -1, -1));
   CHECK ("chunkmap/forward two", chunkmap_step (cm, 2) == 1);
   CHECK_STR ("chunkmap/forward redoes the oldest migration", "0000011110", owners (cm, 10, buf));
   CHECK ("chunkmap/forward to now", chunkmap_step (cm, 10) == 0);
   CHECK_STR ("chunkmap/now again", "0000011111", owners (cm, 10, buf));
   CHECK_STR ("chunkmap/now marks no event", "----------", flagged (cm, 10, CHUNKMAP_EVENT, buf));
   chunkmap_free (cm);
}

static void
test_million (void)
{
   chunkmap_t *cm = chunkmap_new ();
   chunkmap_cell_t cells[64];
   const int n = 1000000;
   bool ok = true;
   int64_t total = 0;

   for (int i = 0; i < n && ok; i++) {
      ok = add_range (cm, i, n, i < n / 2 ? 1 : 2, 0);
   }
   CHECK ("chunkmap/a million ranges", ok && chunkmap_ranges (cm) == (size_t) n);
   add_event (cm, 1, CHUNKMAP_MOVE, INT32_MIN, 250000, 0, 1);
   chunkmap_step (cm, -1);
   CHECK ("chunkmap/a million: the undone migration",
          chunkmap_owner (cm, 0) == 0 && chunkmap_owner (cm, 249999) == 0 && chunkmap_owner (cm, 250000) == 1);
   CHECK ("chunkmap/a million: 64 cells", chunkmap_cells (cm, cells, 64, 3));
   for (int k = 0; k < 64; k++) {
      total += cells[k].ranges;
   }
   CHECK ("chunkmap/a million: the cells cover every range", total == n);
   CHECK ("chunkmap/a million: owners by quarter",
          cells[0].shard == 0 && cells[20].shard == 1 && cells[40].shard == 2 && cells[63].shard == 2);
   chunkmap_free (cm);
}

int
main (void)
{
   test_cells ();
   test_zones_and_marks ();
   test_moving ();
   test_replay ();
   test_million ();
   UNIT_EXIT ();
}
